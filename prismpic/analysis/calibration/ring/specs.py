"""Ring calibration from specs: the physical parameters whose model reproduces FSR, Q and extinction (and
optionally a resonance wavelength and the drop loss), under the process priors. With the FSR alone (and
optionally a resonance) only the indices are matched: the geometry (or the effective-index correction) moves,
the gaps and the loss stay at the design's.

The specs become the ring's line shape at the wavelength (θ0 from the resonance, h·dθ/dλ = −2πh/FSR, and κ1²,
κ2², a from Q_L, the extinction and the drop loss by the closed-form Airy inversion of each coupling regime),
with the covariance of the assumed spec uncertainties ``SPEC_SIGMA`` carried through the inversion's Jacobian;
then the same two-stage physics fit as a spectrum's (``ring_physfit``: the process parameters alone, or with
the effective-index correction when they cannot reach the FSR or the resonance) and the same compiled program. A regime whose best fit still
misses a target (a Q beyond the largest gap, an extinction beyond the loss range) is excluded; when none is
left the result has ``status = "failed"`` and says which target is out of reach.
"""

from __future__ import annotations

import dataclasses
import math
import time

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration.priors import ring_priors
from prismpic.analysis.calibration.results import RingCalibration
from prismpic.analysis.calibration.ring.model import REFERENCE_UM, held_params, is_tuned
from prismpic.analysis.calibration.ring.physfit import (
    LINE_MATCHED,
    PhysicsStart,
    line_residual_fn,
    physical_solutions,
    start_vectors,
)
from prismpic.analysis.calibration.ring.result import physical_report
from prismpic.analysis.calibration.ring.solutions import fit_regimes, fitted_names, ring_block
from prismpic.analysis.calibration.ring.start import (
    PULL_MAX,
    REFERENCE_NM,
    couplings,
    design_params,
    gap_for_kappa2,
    loss_for_a,
    place_geometry,
    ring_indices,
    t0_from_extinction,
)
from prismpic.checks import check_choice, check_range
from prismpic.components import ring_physics
from prismpic.components.lineshapes import x_from_fwhm
from prismpic.components.units import NM_PER_UM
from prismpic.pdk.rules import RULES

# Assumed 1σ uncertainties of user-given specs (for the parameter uncertainties of a spec fit).
SPEC_SIGMA = {"fsr_rel": 1e-3, "q_rel": 0.02, "extinction_db": 0.5, "resonance_nm": 1e-3, "drop_loss_db": 0.2}
# how far a fitted spec may sit from its target (in its σ) and still count as reached: the priors' own limit
REACHED_SIGMA = PULL_MAX


def _check_specs(fsr_nm, q_loaded, extinction_db, resonance_nm, radius, kind, drop_loss_db) -> None:
    check_choice("kind", kind, ("add_drop", "all_pass"))
    check_range("fsr_nm", fsr_nm, 0.05, 200.0, unit="nm")
    if (q_loaded is None) != (extinction_db is None):
        given, missing = ("q_loaded", "extinction_db") if extinction_db is None else ("extinction_db", "q_loaded")
        raise ValueError(f"{given} without {missing}: the coupling and the loss need both (or give neither, and the "
                         "FSR alone fits the indices)")
    if q_loaded is None:
        if drop_loss_db is not None:
            raise ValueError("drop_loss_db needs q_loaded and extinction_db too")
        if resonance_nm is not None:
            check_range("resonance_nm", resonance_nm, 1450.0, 1650.0, unit="nm")
        if radius is not None:
            check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
        return
    check_range("q_loaded", q_loaded, 10.0, 1e9)
    check_range("extinction_db", extinction_db, 0.0, 80.0, unit="dB", lo_open=True)
    if resonance_nm is not None:
        check_range("resonance_nm", resonance_nm, 1450.0, 1650.0, unit="nm")
    if radius is not None:
        check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    if drop_loss_db is not None:
        if kind != "add_drop":
            raise ValueError("drop_loss_db needs an add-drop ring (kind='add_drop')")
        check_range("drop_loss_db", drop_loss_db, 0.0, 60.0, unit="dB")
    fwhm = (resonance_nm or REFERENCE_NM) / q_loaded
    if fwhm >= fsr_nm / 2:
        raise ValueError(f"q_loaded = {q_loaded:g} gives FWHM = {fwhm:.4g} nm, not below FSR/2 = {fsr_nm / 2:.4g} nm: "
                         "no resonance (raise Q or check the FSR)")


H_NM = 1.0  # the specs' line shape: θ1 = h·dθ/dλ with h = 1 nm


def _line_of(kind: str, regime: str, specs: np.ndarray, eta: float, wl_um: float):
    """(line shape at λ (``LINE_MATCHED``), (t1, t2, a)) of specs (FSR nm, ln Q_L, extinction dB, drop loss dB)
    by the Airy inversion of ``regime``."""
    fsr, lnq, er, dl = specs
    x = x_from_fwhm(wl_um * NM_PER_UM / math.exp(lnq), fsr)
    t1, t2, a = couplings(kind, regime, x, t0_from_extinction(er, x), None if math.isnan(dl) else 10 ** (-dl / 10))
    r1, r2 = min(t1 / eta, 0.9999), min(t2 / eta, 0.9999)
    line = [0.0, -math.tau * H_NM / fsr, math.log(eta**2 * (1 - r1**2)),
            math.log(eta**2 * (1 - r2**2)) if r2 < 0.9999 else -30.0, math.log(-math.log(min(max(a, 1e-9), 1 - 1e-12)))]
    return np.array(line), (t1, t2, a)


def _line_target(kind, regime, targets, sig, eta, wl_um, matched):
    """(target, whitening 5 × 5) of the specs' line shape: the σ of the specs through the inversion's Jacobian
    (central differences), θ0's from the resonance's σ; rows of what is not matched are zero."""
    specs = np.array([targets["fsr_nm"], math.log(targets["q_loaded"]), targets["extinction_db"],
                      targets["drop_loss_db"] if targets.get("drop_loss_db") is not None else math.nan])
    sd = np.array([sig["fsr_nm"], sig["q_loaded"], sig["extinction_db"], sig["drop_loss_db"]])
    line, _ = _line_of(kind, regime, specs, eta, wl_um)
    jac = np.zeros((5, 4))
    for k in range(4 if not math.isnan(specs[3]) else 3):
        h = 1e-4 * sd[k]
        up, dn = specs.copy(), specs.copy()
        up[k] += h
        dn[k] -= h
        jac[:, k] = (_line_of(kind, regime, up, eta, wl_um)[0] - _line_of(kind, regime, dn, eta, wl_um)[0]) / (2 * h)
    cov = jac @ np.diag(np.nan_to_num(sd) ** 2) @ jac.T
    cov[0, 0] = (math.tau * sig["resonance_nm"] / targets["fsr_nm"]) ** 2
    c = cov[np.ix_(matched, matched)]
    w, v = np.linalg.eigh(c)
    whiten = np.zeros((5, 5))
    whiten[np.ix_(matched, matched)] = (v / np.sqrt(np.maximum(w, 1e-16 * w.max()))).T
    return line, whiten


def _start(kind, regime, design_p, priors, targets, sig, wl_um) -> PhysicsStart:
    """A regime's start and target: the Airy inversion of the specs, geometry placed on the FSR (and resonance)."""
    eta = float(ring_physics.db_to_amplitude(float(design_p["coupler_loss_db"])))
    symmetric = kind == "add_drop" and regime == "symmetric"
    known = targets.get("resonance_nm") is not None
    if targets["q_loaded"] is None:
        return _index_start(regime, symmetric, known, kind, design_p, priors, targets, sig, wl_um)
    matched = [i for i, n in enumerate(LINE_MATCHED) if not (n == "theta0" and not known)
               and not (n == "lk2" and (kind == "all_pass" or symmetric))]
    line, whiten = _line_target(kind, regime, targets, sig, eta, wl_um, matched)
    _, (t1, t2, a) = _line_of(kind, regime, np.array([targets["fsr_nm"], math.log(targets["q_loaded"]),
                                                      targets["extinction_db"], math.nan if targets.get("drop_loss_db")
                                                      is None else targets["drop_loss_db"]]), eta, wl_um)
    placed = place_geometry(design_p, priors, wl_um, targets["fsr_nm"] / NM_PER_UM, 0.0, resonance=known)
    p = dict(placed.p)
    p["gap"] = gap_for_kappa2(p, wl_um, 1 - min(t1 / eta, 0.9999) ** 2)
    if kind == "add_drop":
        p["gap_drop"] = p["gap"] if symmetric else gap_for_kappa2(p, wl_um, 1 - min(t2 / eta, 0.9999) ** 2)
    p["loss_db_per_cm"] = loss_for_a(p, wl_um, a)
    return _start_record(p, priors, placed, wl_um, regime, symmetric, known, kind, line, whiten)


def _start_record(p, priors, placed, wl_um, regime, symmetric, known, kind, line, whiten) -> PhysicsStart:
    """A regime's start vectors from the placed geometry ``p``, with its line-shape target and whitening."""
    vectors = start_vectors(p, priors, placed, wl_um)
    if not known:  # no resonance to place: the corrected stage keeps the geometry's own n_eff
        vc, m = vectors["corrected"]
        vectors["corrected"] = (dict(vc, neff_ref=ring_indices(vc, REFERENCE_UM)[0]), m)
    return PhysicsStart(regime=regime, symmetric=symmetric, vectors=vectors, held=held_params(p, kind, symmetric),
                        target=line, whiten=whiten, known=known)


def _index_start(regime, symmetric, known, kind, design_p, priors, targets, sig, wl_um) -> PhysicsStart:
    """The start of an FSR-only fit: θ1 (and θ0 with a resonance) matched, the design's gaps and loss held."""
    line = np.array([0.0, -math.tau * H_NM / targets["fsr_nm"], 0.0, 0.0, 0.0])  # κ, a rows are not matched
    whiten = np.zeros((5, 5))
    whiten[1, 1] = targets["fsr_nm"] / (abs(line[1]) * sig["fsr_nm"])
    if known:
        whiten[0, 0] = targets["fsr_nm"] / (math.tau * sig["resonance_nm"])
    placed = place_geometry(design_p, priors, wl_um, targets["fsr_nm"] / NM_PER_UM, 0.0, resonance=known)
    return _start_record(dict(placed.p), priors, placed, wl_um, regime, symmetric, known, kind, line, whiten)


def _errors(q: dict, targets: dict, sig: dict) -> dict[str, tuple[float, float]]:
    """{target: (the solution's value, |error| in units of the target's σ)} (Q compared in log)."""
    got = {"fsr_nm": q["fsr_nm"], "q_loaded": q["q_loaded"], "extinction_db": q["extinction_db"],
           "resonance_nm": q["resonance_um"] * 1e3, "drop_loss_db": q["drop_loss_db"]}
    return {k: (got[k], (abs(math.log(got[k] / t)) if k == "q_loaded" else abs(got[k] - t)) / sig[k])
            for k, t in targets.items() if t is not None}


def _missed(q: dict, targets: dict, sig: dict) -> list[str]:
    """The targets a solution's specs miss by more than ``REACHED_SIGMA`` of their σ."""
    return [f"{k} = {targets[k]:.6g} (closest {v:.6g})" for k, (v, e) in _errors(q, targets, sig).items()
            if not e <= REACHED_SIGMA]


def calibrate_ring_specs(
    fsr_nm: float,
    q_loaded: float | None = None,
    extinction_db: float | None = None,
    *,
    resonance_nm: float | None = None,
    radius: float | None = None,
    kind: str = "add_drop",
    coupling: str | None = None,
    drop_loss_db: float | None = None,
    design: dict | None = None,
    process=None,
) -> RingCalibration:
    """Physical ring parameters whose model reproduces the given specs, under the process priors.

    Args:
        fsr_nm: free spectral range (nm) near the resonance.
        q_loaded: loaded Q (λ/FWHM); None (with ``extinction_db`` None): the FSR alone, the gaps and the loss
            held at the design's.
        extinction_db: through-port extinction T(anti-resonance)/T(resonance) (dB).
        resonance_nm: a resonance wavelength (nm); then the ring must place one there.
        radius: the drawn ring radius (µm); default the design's (the ring cell's 20 µm).
        kind: ``"add_drop"`` or ``"all_pass"``.
        coupling: None, ``"symmetric"`` (add-drop, gap_drop = gap), ``"under"`` or ``"over"``.
        drop_loss_db: add-drop drop loss at resonance (dB); with it gap_drop is fitted too.
        design: other drawn ring parameters, e.g. ``{"etch_depth": 0.3, "cladding": "air"}``.
        process: ``prismpic.pdk.process.Process`` of the priors (default ``DEFAULT_PROCESS``).

    Returns:
        :class:`RingCalibration`; ``errors`` propagate the assumed spec uncertainties ``SPEC_SIGMA``;
        ``status = "failed"`` when no regime reaches every target.
    """
    t_start = time.perf_counter()
    _check_specs(fsr_nm, q_loaded, extinction_db, resonance_nm, radius, kind, drop_loss_db)
    design_p = design_params(kind, dict(design or {}, **({"radius": float(radius)} if radius is not None else {})))
    priors = ring_priors(design_p, process)
    wl_um = float(resonance_nm or REFERENCE_NM) / NM_PER_UM
    have_drop = drop_loss_db is not None
    index_only = q_loaded is None
    regimes = fit_regimes(kind, coupling, have_drop)[:1 if index_only else None]
    targets = {"fsr_nm": float(fsr_nm), "q_loaded": None if index_only else float(q_loaded),
               "extinction_db": None if index_only else float(extinction_db),
               "resonance_nm": None if resonance_nm is None else float(resonance_nm),
               "drop_loss_db": None if drop_loss_db is None else float(drop_loss_db)}
    sig = {"fsr_nm": SPEC_SIGMA["fsr_rel"] * fsr_nm, "q_loaded": SPEC_SIGMA["q_rel"],
           "extinction_db": SPEC_SIGMA["extinction_db"], "resonance_nm": SPEC_SIGMA["resonance_nm"],
           "drop_loss_db": SPEC_SIGMA["drop_loss_db"]}
    names = tuple(k for k, v in targets.items() if v is not None)
    starts = [_start(kind, r, design_p, priors, targets, sig, wl_um) for r in regimes]
    tuned = is_tuned(design_p)

    def free_of(st, stage):
        free = fitted_names(kind, st.regime, True, have_drop, coupling=not index_only) + ("ng_ref",)
        return free + (("neff_ref",) if st.known or stage == "geometry" else ())

    def args_of(st, stage):
        return {"held": st.held, "wl_um": jnp.asarray(wl_um), "h_um": jnp.asarray(H_NM / NM_PER_UM),
                "target": jnp.asarray(st.target), "whiten": jnp.asarray(st.whiten)}

    sols = physical_solutions(design_p["cladding"], starts, lambda st: line_residual_fn(design_p["cladding"], tuned),
                              free_of, args_of, priors, design_p, wl_um, near=not tuned)
    missed = [_missed(s.q, targets, sig) for s in sols]
    sols = [dataclasses.replace(s, ok=s.ok and not m) for s, m in zip(sols, missed, strict=True)]
    rep = physical_report(kind, sols, design_p, priors, regimes, have_drop, True, resonance_nm is not None,
                          coupling=not index_only)
    chosen = rep.chosen
    reason = ""
    if all(missed):
        reason = ("specs out of the ring model's reach: " + "; ".join(f"{s.regime} coupling misses {', '.join(m)}"
                                                                      for s, m in zip(sols, missed, strict=True)))
    elif not chosen.ok:
        reason = f"the physical fit did not converge in {chosen.steps} iterations"
    notes = [f"the {s.regime} coupling misses {', '.join(m)} (excluded)" for s, m in zip(sols, missed, strict=True)
             if m and s is not chosen] + rep.notes
    notes.append(f"parameter errors propagate assumed spec uncertainties: FSR {SPEC_SIGMA['fsr_rel']:.1%}, Q "
                 f"{SPEC_SIGMA['q_rel']:.0%}, extinction {SPEC_SIGMA['extinction_db']} dB, resonance "
                 f"{SPEC_SIGMA['resonance_nm'] * 1e3:g} pm")
    if index_only:
        notes.append("the FSR alone: the indices (geometry or the effective-index correction) are fitted; the gaps "
                     "and the loss are the design's, and so are Q_L, extinction and drop loss")
    if resonance_nm is None:
        notes.append(f"no resonance wavelength given: resonance_nm is the model's, not a target; the specs are the "
                     f"model's at {wl_um * NM_PER_UM:g} nm")
    fit = {"method": "specs: Levenberg–Marquardt (JAX) on the model's specs under the process priors",
           "n_points": len(names), "n_params": len(rep.fitted), "cost": chosen.cost,
           "max_spec_error_sigma": max(e for _, e in _errors(chosen.q, targets, sig).values()),
           "converged": bool(chosen.ok), "steps": chosen.steps, "regime": chosen.regime,
           "stage": chosen.stage, "time_s": time.perf_counter() - t_start}
    return RingCalibration(
        kind=kind, ring=ring_block(kind, chosen.p, chosen.regime == "symmetric"), fitted=rep.fitted,
        nuisance={}, specs=rep.specs, errors=rep.errors, measured={k: v for k, v in targets.items()
                                                                          if v is not None},
        fit=fit, ambiguities=tuple(rep.ambiguities), solutions=rep.solutions, notes=tuple(notes),
        source={"from": "specs", "radius": float(design_p["radius"]), "radius_given": radius is not None,
                "coupling": coupling}, status="failed" if reason else "fitted", failure_reason=reason,
        correction=rep.correction, priors=rep.priors, plot_data={"wl0": wl_um})
