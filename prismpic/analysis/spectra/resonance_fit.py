"""The per-resonance line fit: Airy (or Lorentzian) lineshape times a local baseline correction.

Per resonance, a least-squares fit (``scipy.optimize.least_squares``) over half an FSR on each
side of the exact Airy lineshape times a local baseline correction c0·exp(c1·(λ − λ0)) (linear
in dB), through and drop jointly (sharing centre and linewidth). A lone resonance (no FSR) is
fitted with the Lorentzian limit. Errors are 1σ from the Jacobian and the residual variance.

Lineshape (Bogaerts et al., "Silicon microring resonators", Laser Photon. Rev. 6, 47 (2012)),
with r1, r2 the self-coupling of the input and drop couplers, a the single-pass amplitude
transmission, x = r1·r2·a and φ the round-trip phase:

    T(φ) = (a²r2² − 2a·r1·r2·cos φ + r1²) / (1 − 2x·cos φ + x²)
         = 1 − (1 − T0)·ℒ(φ),        ℒ(φ) = (1 − x)² / (1 − 2x·cos φ + x²)
    D(φ) = (1 − r1²)(1 − r2²)·a / (1 − 2x·cos φ + x²) = D0·ℒ(φ)

with T0 = (r1 − a·r2)²/(1 − x)² and D0 = (1 − r1²)(1 − r2²)·a/(1 − x)² on resonance (the
all-pass ring is r2 = 1, D = 0). ℒ (:func:`prismpic.components.lineshapes.normalized_line`)
falls to ½ at 2·sin(φ/2) = (1 − x)/√x, so the FWHM in phase is 4·arcsin((1 − x)/(2√x)) ≈
2(1 − x)/√x, i.e. FWHM = (1 − x)·λ²/(π·n_g·L·√x). Near a resonance λ0 with local FSR,
φ = 2π·(λ0/FSR)·(λ0 − λ)/λ (n_g constant over the window). Q_loaded = λ0/FWHM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from prismpic.components.lineshapes import normalized_line, x_from_fwhm

MAX_LOCAL_TILT = 1.0  # |ln slope| of the local baseline over a half window (±4.3 dB)


@dataclass(frozen=True, eq=False)
class LineFit:
    """The least-squares fit of one resonance (ports normalized by their baselines).

    Attributes:
        values: fitted values: ``lam0`` and ``fwhm`` (nm), ``delta`` and ``w`` (centre shift and
            width in units of the detected FWHM); through: ``T0`` (on-resonance minimum), ``c0``,
            ``c1`` (local baseline level and ln slope over the half window); drop: ``D0`` (peak
            height), ``f`` (constant floor), ``cd1`` (ln slope), ``floor`` and ``floor_err``
            (the floor at antiresonance plus the median misfit of the outer fifth, and its 1σ).
        errors: 1σ of each fitted value (no ``floor``).
        window: mask of the samples of ``wl`` in the fit window.
        through, drop: the fitted curves on the window (None for an absent port).
    """

    values: dict
    errors: dict
    window: np.ndarray
    through: np.ndarray | None
    drop: np.ndarray | None


def _start(w, tt, dd, lam_i, fwhm_i, fsr):
    """Parameter names, start values and bounds: centre shift and width, then through, then drop."""
    far = np.abs(w - lam_i) > 3.0 * fwhm_i
    near = np.abs(w - lam_i) <= 0.5 * fwhm_i
    if not near.any():
        near = np.abs(w - lam_i) == np.abs(w - lam_i).min()
    w_max = 20.0 if fsr is None else min(20.0, 0.45 * fsr / fwhm_i)
    names, p0, lb, ub = ["delta", "w"], [0.0, 1.0], [-3.0, 0.05], [3.0, max(w_max, 1.01)]
    if tt is not None:
        c0 = float(np.median(tt[far])) if far.sum() > 3 else float(tt.max())
        c0 = min(max(c0, 0.35), 2.9)
        names += ["T0", "c0", "c1"]
        p0 += [min(max(float(tt[near].min()) / c0, 0.0), 1.0), c0, 0.0]
        lb += [0.0, 0.3, -MAX_LOCAL_TILT]
        ub += [1.0, 3.0, MAX_LOCAL_TILT]
    if dd is not None:
        scale = float(max(dd.max(), 1e-12))
        f0 = float(np.median(dd[far])) if far.sum() > 3 else 0.0
        c0d = p0[names.index("c0")] if tt is not None else 1.0
        names += ["D0", "f", "cd1"]
        p0 += [max(float(dd[near].max()) / c0d - f0, 1e-3 * scale), min(max(f0, 0.0), scale), 0.0]
        lb += [0.0, 0.0, -MAX_LOCAL_TILT]
        ub += [10.0 * scale / c0d, scale, MAX_LOCAL_TILT]
    return names, np.clip(p0, lb, ub), lb, ub


def _drop_floor(w, u, dd, md, out, fsr, has_through: bool) -> tuple[float, float]:
    """Drop floor and its standard error, relative to the local baseline.

    The model's minimum (Airy antiresonance; without an FSR, the window's far end) plus the
    median misfit of the data in the outer fifth of the window (background the lineshape does
    not hold, e.g. crosstalk), tilt removed.
    """
    dist = np.abs(w - out["lam0"])
    outer = dist >= np.quantile(dist, 0.8)
    c = out["c0"] if has_through else 1.0
    tilt = c * np.exp(out["cd1"] * u[outer])
    if fsr is not None:
        x = x_from_fwhm(out["fwhm"], fsr)
        ell_min = (1.0 - x) ** 2 / (1.0 + x) ** 2
    else:
        ell_min = float(normalized_line(w[np.argmax(dist)], out["lam0"], out["fwhm"], None))
    mis = (dd[outer] - md[outer]) / tilt
    floor = out["D0"] * ell_min + out["f"] + float(np.median(mis))
    # standard error of that median: 1.2533·σ/√n, σ from the MAD
    sd = 1.4826 * float(np.median(np.abs(mis - np.median(mis))))
    return floor, 1.2533 * sd / math.sqrt(mis.size)


def fit_resonance(wl, t, d, lam_i, fwhm_i, fsr, lo, hi, exclude=None) -> LineFit:
    """Least-squares Airy (Lorentzian if ``fsr`` is None) fit of one resonance in [``lo``, ``hi``] (nm).

    ``t``, ``d``: normalized through and drop (or None) on ``wl`` (nm); ``lam_i``, ``fwhm_i``: the
    detected centre and apparent FWHM (nm); ``fsr``: local FSR (nm) or None; ``exclude``: mask of
    samples left out (another mode family's resonances), or None.
    """
    m = (wl >= lo) & (wl <= hi)
    if exclude is not None:
        m &= ~exclude
    w = wl[m]
    half = max(hi - lam_i, lam_i - lo)
    u = (w - lam_i) / half
    tt = t[m] if t is not None else None
    dd = d[m] if d is not None else None
    names, p0, lb, ub = _start(w, tt, dd, lam_i, fwhm_i, fsr)
    ix = {k: i for i, k in enumerate(names)}

    def models(p):
        lam0 = lam_i + p[0] * fwhm_i
        ell = normalized_line(w, lam0, p[1] * fwhm_i, fsr)
        mt = md = None
        if tt is not None:
            mt = p[ix["c0"]] * np.exp(p[ix["c1"]] * u) * (1.0 - (1.0 - p[ix["T0"]]) * ell)
        if dd is not None:
            c = p[ix["c0"]] if tt is not None else 1.0
            md = c * np.exp(p[ix["cd1"]] * u) * (p[ix["D0"]] * ell + p[ix["f"]])
        return mt, md

    def resid(p):
        mt, md = models(p)
        parts = []
        if mt is not None:
            parts.append(mt - tt)
        if md is not None:
            parts.append(md - dd)
        return np.concatenate(parts)

    res = least_squares(resid, p0, bounds=(lb, ub), x_scale="jac", method="trf", tr_solver="lsmr")
    p = res.x
    dof = max(res.fun.size - p.size, 1)
    s2 = 2.0 * res.cost / dof
    jtj = res.jac.T @ res.jac
    cov = np.linalg.pinv(jtj) * s2
    err = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    out = {k: float(p[i]) for k, i in ix.items()}
    errs = {k: float(err[i]) for k, i in ix.items()}
    out["lam0"], errs["lam0"] = lam_i + p[0] * fwhm_i, err[0] * fwhm_i
    out["fwhm"], errs["fwhm"] = p[1] * fwhm_i, err[1] * fwhm_i
    mt, md = models(p)
    if dd is not None:
        out["floor"], out["floor_err"] = _drop_floor(w, u, dd, md, out, fsr, tt is not None)
    return LineFit(out, errs, m, mt, md)
