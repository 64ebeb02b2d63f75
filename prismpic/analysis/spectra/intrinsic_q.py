"""Intrinsic Q of a fitted resonance: the under- and over-coupled solutions and the choice between them.

The through dip alone fixes x and T0 but not which of r1 and a·r2 is the larger: the
under-coupled (r1 > a·r2, coupling weaker than the loss plus the drop coupling) and the
over-coupled solution fit the same |T|². In the high-finesse (coupled-mode) limit this is
Q_i = 2·Q_L/(1 ± √T0), + under-coupled, − over-coupled [McKinnon et al., "Extracting coupling
and loss coefficients from a ring resonator", Opt. Express 17, 18971 (2009)]. For an add-drop
ring the drop peak D0 adds the third equation: with u = r1, v = a·r2 from (x, T0),
(1 − u²)(a − v²/a) = D0(1 − x)² gives a = (K + √(K² + 4v²))/2, K = D0(1 − x)²/(1 − u²), and
r2 = v/a. In coupled-mode terms [Little et al., JLT 15, 998 (1997)] T0 = ((γi + γ2 − γ1)/γ)²,
D0 = 4γ1γ2/γ²: both signs of √T0 give non-negative γi, γ2 whenever T0 + D0 ≤ 1, so through and
drop together do NOT resolve the regime either (they swap γ1 with γi + γ2 at fixed γ1·γ2).
Both solutions are therefore always reported; ``q_intrinsic`` is set only when they coincide
(critical coupling) or when ``coupling`` says which holds: ``"under"`` or ``"over"`` (from the
design, a model or a reverse measurement), or ``"symmetric"`` (identical input and drop
couplers; the solution with γ1 closest to γ2 is taken). Each of Q_i, Q_c1, Q_c2 is λ0 over the
Airy FWHM of a, r1, r2 alone; with the ring length given, the loss is −20·log10(a)/L in dB per
length. With the through port alone an add-drop ring's drop coupling counts as loss (a is then
a·r2). Without an FSR (one resonance) the coupled-mode forms above are used instead of the Airy
inversion.
"""

from __future__ import annotations

import math

from prismpic.analysis.spectra.results import CouplingSolution, IntrinsicQ
from prismpic.components.lineshapes import fwhm_from_x, x_from_fwhm


def _q_of(z, lam0, fsr):
    """λ0 over the Airy FWHM of round-trip amplitude z (inf for z >= 1)."""
    if z >= 1.0:
        return math.inf
    return float(lam0 / fwhm_from_x(z, fsr))


def _coupled_mode_solution(regime, q_loaded, rt0, d0) -> CouplingSolution:
    """Without an FSR: coupled-mode rates γ normalized to the total."""
    e1 = (1.0 - rt0) / 2.0 if regime == "under" else (1.0 + rt0) / 2.0
    e2 = d0 / (4.0 * e1) if d0 is not None and e1 > 0 else 0.0
    g = 1.0 - e1 - e2
    return CouplingSolution(
        regime=regime,
        q_intrinsic=q_loaded / g if g > 0 else math.inf,
        q_coupling_in=q_loaded / e1 if e1 > 0 else math.inf,
        q_coupling_drop=(q_loaded / e2 if e2 > 0 else math.inf) if d0 is not None else None,
        r1=None,
        r2=None,
        a=None,
        loss_db_per_cm=None,
        physical=bool(g > -0.02),
    )


def _airy_solution(regime, t0, rt0, d0, lam0, fwhm, fsr, length_um) -> CouplingSolution:
    """With an FSR: (r1, r2, a) from the exact Airy inversion of x, T0 (and D0)."""
    x = float(x_from_fwhm(fwhm, fsr))
    big = math.sqrt(t0 * (1.0 - x) ** 2 + 4.0 * x)  # r1 + a·r2
    dif = rt0 * (1.0 - x)  # |r1 − a·r2|
    hi_, lo_ = (big + dif) / 2.0, (big - dif) / 2.0
    r1, v = (hi_, lo_) if regime == "under" else (lo_, hi_)
    if d0 is None:
        a, r2 = v, 1.0
    else:
        k = d0 * (1.0 - x) ** 2 / max(1.0 - r1 * r1, 1e-300)
        a = (k + math.sqrt(k * k + 4.0 * v * v)) / 2.0
        r2 = v / a
    loss = -20.0 * math.log10(a) / (length_um * 1e-4) if length_um is not None and a > 0 else None
    return CouplingSolution(
        regime=regime,
        q_intrinsic=_q_of(a, lam0, fsr),
        q_coupling_in=_q_of(r1, lam0, fsr),
        q_coupling_drop=_q_of(r2, lam0, fsr) if d0 is not None else None,
        r1=r1,
        r2=r2 if d0 is not None else 1.0,
        a=a,
        loss_db_per_cm=loss,
        physical=bool(a <= 1.0 + 1e-3 and r2 <= 1.0 + 1e-3 and r1 < 1.0),
    )


def coupling_solutions(q_loaded, t0, d0, lam0, fwhm, fsr, length_um) -> tuple[CouplingSolution, ...]:
    """The under- and over-coupled solutions of a resonance at ``lam0`` (nm) of ``fwhm`` (nm).

    ``t0``: through minimum, ``d0``: drop peak (None without drop), ``fsr``: local FSR (nm; None:
    coupled-mode forms), ``length_um``: ring length (µm) for the loss per cm, or None.
    """
    rt0 = math.sqrt(max(t0, 0.0))
    if fsr is None:
        return tuple(_coupled_mode_solution(regime, q_loaded, rt0, d0) for regime in ("under", "over"))
    return tuple(_airy_solution(regime, t0, rt0, d0, lam0, fwhm, fsr, length_um) for regime in ("under", "over"))


def intrinsic_q(q_loaded, t0, t0_err, d0, lam0, fwhm, fsr, length_um, coupling) -> IntrinsicQ:
    """Intrinsic Q of a resonance: both solutions, and the one chosen by critical coupling, ``coupling``
    (None, ``"under"``, ``"over"``, ``"symmetric"``) or physicality. Arguments as for
    :func:`coupling_solutions`; ``t0_err``: 1σ of ``t0``."""
    sols = coupling_solutions(q_loaded, t0, d0, lam0, fwhm, fsr, length_um)
    method = "add-drop (through + drop)" if d0 is not None else "all-pass (through)"
    if fsr is None:
        method += ", coupled-mode"
    under, over = sols
    phys = [s for s in sols if s.physical]
    chosen, regime, assumption = None, None, ""
    # critical coupling within the fit's error (T0 < 2σ): both solutions merge into the T0 = 0 one
    if t0 < 2.0 * t0_err or (
        math.isfinite(under.q_intrinsic) and abs(under.q_intrinsic - over.q_intrinsic) <= 1e-3 * under.q_intrinsic
    ):
        chosen, regime = coupling_solutions(q_loaded, 0.0, d0, lam0, fwhm, fsr, length_um)[0], "critical"
    elif coupling in ("under", "over"):
        chosen, regime, assumption = (under if coupling == "under" else over), coupling, f"coupling={coupling!r} given"
    elif coupling == "symmetric":

        def asym(s):
            return abs(math.log(s.q_coupling_in / s.q_coupling_drop))

        chosen = min(phys or sols, key=asym)
        regime, assumption = chosen.regime, "symmetric couplers assumed (solution with Q_c1 closest to Q_c2)"
    elif len(phys) == 1:
        chosen, regime = phys[0], phys[0].regime
    q = None if chosen is None else chosen.q_intrinsic
    return IntrinsicQ(
        q_intrinsic=q,
        regime=regime,
        ambiguous=chosen is None,
        method=method,
        assumption=assumption,
        solutions=sols,
    )
