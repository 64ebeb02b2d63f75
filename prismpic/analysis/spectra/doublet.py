"""A split resonance (backscatter doublet) fitted on the through port.

Backscatter couples the clockwise and counter-clockwise modes at rate g; the standing-wave eigenmodes sit at
ω0 ± g, each with half the bus coupling (Weiss et al., "Splitting of high-Q Mie modes induced by light
backscattering in silica microspheres", Opt. Lett. 20, 1835 (1995); Li et al., Opt. Express 20, 2012). In
wavelength, over a few linewidths around λ0 (coupled-mode theory, κ the loaded FWHM of one mode, ρ = 2κ_e/κ):

    t(λ) = 1 − (ρ/2)·[1/(1 + 2i(λ − λ0 − s/2)/κ) + 1/(1 + 2i(λ − λ0 + s/2)/κ)],   T = c0·e^(c1·u)·|t|²

so the unsplit-equivalent T0 = (1 − ρ)² (ρ < 1 under-coupled, > 1 over-coupled; both are tried), the splitting
is s and Q_L = λ0/κ is one mode's loaded Q. The doublet is kept when it lowers χ² by more than ``SPLIT_GAIN``
(5σ for one parameter) against the same line with s = 0 and s > ``MIN_SPLIT``·κ; the regime (ρ below or above
1) is ambiguous when the two differ by less than ``REGIME_CHI2`` in χ², and both are then reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

MIN_SPLIT = 0.2  # splittings below this many linewidths are not told from a single line
SPLIT_GAIN = 25.0  # Δχ² the doublet must gain over the single line
MAX_POINTS = 400  # samples of the ±4 FWHM window fitted (strided beyond)
REGIME_CHI2 = 9.0  # under- and over-coupled doublets closer than this in χ² are not told apart


@dataclass(frozen=True, eq=False)
class DoubletFit:
    """Fitted doublet: values and 1σ errors (``lam0``, ``fwhm``, ``split``: nm; ``T0``, ``c0``, ``c1``), the
    window mask on the wavelength grid, the fitted through on it, and the χ² per point within one FWHM."""

    values: dict
    errors: dict
    window: np.ndarray
    through: np.ndarray
    core_chi2: float


def _through(p, w, lam_c, half):
    lam0, kappa, s, rho, c0, c1 = p
    a = 1.0 / (1.0 + 2j * (w - lam0 - s / 2) / kappa) + 1.0 / (1.0 + 2j * (w - lam0 + s / 2) / kappa)
    return c0 * np.exp(c1 * (w - lam_c) / half) * np.abs(1.0 - 0.5 * rho * a) ** 2


def fit_doublet(wl, t, sigma, lam_i: float, fwhm_i: float, t0_i: float, c0_i: float) -> DoubletFit | None:
    """Least-squares doublet on the normalized through ``t`` (noise ``sigma`` per sample) around ``lam_i`` (nm).

    ``fwhm_i``: the single line's FWHM (nm, the doublet's envelope); ``t0_i``, ``c0_i``: its T0 and baseline
    level. Window ±(4·FWHM), strided to at most ``MAX_POINTS`` samples. Returns None when too few samples fall in the window.
    """
    half = 4.0 * fwhm_i
    m = np.abs(wl - lam_i) <= half
    if m.sum() < 12:
        return None
    idx = np.flatnonzero(m)
    idx = idx[:: max(1, idx.size // MAX_POINTS)]  # ≥ 50 samples per FWHM stay: the line is resolved
    m = np.zeros(wl.size, bool)
    m[idx] = True
    w, y, sg = wl[m], t[m], sigma[m]
    fits = {}  # regime → best least-squares result; "single": the same line with s = 0
    for regime, rho0 in (("under", 1.0 - np.sqrt(max(t0_i, 0.0))), ("over", 1.0 + np.sqrt(max(t0_i, 0.0))),
                         ("single", 1.0 - np.sqrt(max(t0_i, 0.0)))):
        for s0 in ((0.0,) if regime == "single" else (0.3, 0.6)):
            lo = [lam_i - fwhm_i, 0.05 * fwhm_i, 0.0, 1.0 if regime == "over" else 0.0, 0.3, -1.0]
            hi = [lam_i + fwhm_i, 2.0 * fwhm_i, 1e-9 * fwhm_i if regime == "single" else 2.0 * fwhm_i,
                  2.0 if regime == "over" else 1.0, 3.0, 1.0]
            p0 = np.clip([lam_i, (1 - s0 / 2) * fwhm_i, s0 * fwhm_i, rho0, c0_i, 0.0], lo, hi)
            r = least_squares(lambda p: (_through(p, w, lam_i, half) - y) / sg, p0, bounds=(lo, hi),
                              x_scale="jac", method="trf")
            if regime not in fits or r.cost < fits[regime].cost:
                fits[regime] = r
    best = min((fits["under"], fits["over"]), key=lambda r: r.cost)
    other = fits["over"] if best is fits["under"] else fits["under"]
    p = best.x
    dof = max(best.fun.size - p.size, 1)
    cov = np.linalg.pinv(best.jac.T @ best.jac) * max(2.0 * best.cost / dof, 1.0)
    err = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    names = ("lam0", "fwhm", "split", "rho", "c0", "c1")
    values = dict(zip(names, (float(v) for v in p), strict=True))
    errors = dict(zip(names, (float(v) for v in err), strict=True))
    values["T0"] = (1.0 - values["rho"]) ** 2
    errors["T0"] = 2.0 * abs(1.0 - values["rho"]) * errors["rho"]
    values["gain_chi2"] = 2.0 * (fits["single"].cost - best.cost)
    values["regime_delta_chi2"] = 2.0 * (other.cost - best.cost)
    values["other_fwhm"] = float(other.x[1])
    values["other_T0"] = float((1.0 - other.x[3]) ** 2)
    model = _through(p, w, lam_i, half)
    core = np.abs(w - values["lam0"]) <= values["fwhm"] + values["split"] / 2
    chi = float(np.mean(((y - model) / sg)[core] ** 2)) if core.sum() >= 3 else 0.0
    return DoubletFit(values, errors, m, model, chi)


__all__ = ["MIN_SPLIT", "REGIME_CHI2", "SPLIT_GAIN", "DoubletFit", "fit_doublet"]
