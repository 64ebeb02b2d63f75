"""``analyze_spectrum``: a ring spectrum's resonances and figures of merit, step by step.

Steps (one function each): check the options; validate the ports and make them linear
(:mod:`prismpic.analysis.measurements`' rule); divide them by their baselines; detect the
resonances (dropping those cut by the ends of the span, telling mode families apart); fit each
one; derive its Q, extinction and intrinsic Q; summarize the FSR of the primary family.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from prismpic.analysis.measurements import MIN_SPECTRUM_POINTS, check_wavelengths_nm, linear_transmission
from prismpic.analysis.spectra.detection import (
    baseline,
    find_resonances,
    mode_families,
    noise_sigma,
    resolution_message,
)
from prismpic.analysis.spectra.extinction import drop_extinction_db, through_extinction_db
from prismpic.analysis.spectra.fsr import fsr_summary, local_fsr, pair_spacings
from prismpic.analysis.spectra.intrinsic_q import intrinsic_q
from prismpic.analysis.spectra.resonance_fit import LineFit, fit_resonance
from prismpic.analysis.spectra.results import Resonance, SpectrumAnalysis
from prismpic.checks import check_choice, check_positive, check_range

MIN_POINTS = MIN_SPECTRUM_POINTS  # fewest samples accepted in a spectrum

_SCALES = ("linear", "db")
_COUPLINGS = (None, "under", "over", "symmetric")


# ----------------------------------------------------------------------------- input


def _checked_length_um(scale, coupling, baseline_order, min_points_per_fwhm, reference_nm, ring_length_um,
                       radius_um, through, drop) -> float | None:
    """Check the options (ValueError naming the first bad one); return the ring length L (µm) or None."""
    check_choice("scale", scale, _SCALES)
    check_choice("coupling", coupling, _COUPLINGS)
    if not isinstance(baseline_order, (int, np.integer)) or not 0 <= baseline_order <= 6:
        raise ValueError(f"baseline_order = {baseline_order!r} must be an integer in [0, 6]")
    check_range("min_points_per_fwhm", min_points_per_fwhm, 1.0, 100.0)
    check_positive("reference_nm", reference_nm, unit="nm")
    if ring_length_um is not None and radius_um is not None:
        raise ValueError(
            f"give ring_length_um ({ring_length_um!r}) or radius_um ({radius_um!r}), not both (L = 2π·radius_um)"
        )
    length = None
    if ring_length_um is not None:
        length = float(check_positive("ring_length_um", ring_length_um, unit="µm"))
    elif radius_um is not None:
        length = 2.0 * math.pi * float(check_positive("radius_um", radius_um, unit="µm"))
    if through is None and drop is None:
        raise ValueError("through = None and drop = None: give at least one port's transmission")
    if coupling == "symmetric" and (drop is None or through is None):
        raise ValueError("coupling = 'symmetric' needs both through and drop (it compares the two couplers)")
    return length


def _linear_port(name: str, y, n: int, scale: str) -> np.ndarray:
    """Port ``name`` as linear power transmission, checked to have ``n`` samples."""
    a = np.asarray(y, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"{name} has shape {a.shape}; it must match wl_nm, shape ({n},)")
    return linear_transmission(a, name=name, db=(scale == "db"))


# ----------------------------------------------------------------------------- normalization


@dataclass(frozen=True, eq=False)
class _Ports:
    """The ports (linear), their baselines, the normalized ports and their noise."""

    wl: np.ndarray
    t_raw: np.ndarray | None
    d_raw: np.ndarray | None
    base_t: np.ndarray | None
    base_d: np.ndarray | None
    norm_d: np.ndarray | None  # what the drop is divided by
    t: np.ndarray | None
    d: np.ndarray | None
    sigma: dict  # noise σ per sample of each normalized port


def _normalized(wl, t_raw, d_raw, order: int, reference_nm: float) -> _Ports:
    """Divide the ports by their baselines (the drop by the through's when both are given)."""
    base_t = baseline(wl, t_raw, order, upper=True) if t_raw is not None else None
    base_d = baseline(wl, np.maximum(d_raw, 1e-12), order, upper=False) if d_raw is not None else None
    t = t_raw / base_t if t_raw is not None else None
    norm_d = d = None
    if d_raw is not None:
        if base_t is not None:
            norm_d = base_t
        else:  # drop alone: remove the floor's tilt, keep the level at the reference
            norm_d = base_d / np.interp(float(np.clip(reference_nm, wl[0], wl[-1])), wl, base_d)
        d = d_raw / norm_d
    sigma = {}
    if t is not None:
        sigma["through"] = noise_sigma(t)
    if d is not None:
        sigma["drop"] = noise_sigma(d)
    return _Ports(wl, t_raw, d_raw, base_t, base_d, norm_d, t, d, sigma)


# ----------------------------------------------------------------------------- detection


def _detected(ports: _Ports, prominence, min_ppf: float, notes: list):
    """The port detected on, and the detected resonances' centres (nm), apparent FWHM (nm), prominences.

    Through dips first; on no dip, the drop peaks (when a drop is given).
    """
    wl, t, d = ports.wl, ports.t, ports.d
    port = "through" if t is not None else "drop"
    sig = (1.0 - t) if port == "through" else d
    try:
        idx, fwhm0, prom0 = find_resonances(wl, sig, ports.sigma[port], prominence, port, min_ppf, notes)
    except ValueError as e:
        if port != "through" or d is None or "no resonance" not in str(e):
            raise
        port = "drop"
        idx, fwhm0, prom0 = find_resonances(wl, d, ports.sigma["drop"], prominence, port, min_ppf, notes)
        notes.append("no dip found on the through port; resonances detected on the drop port")
    return port, wl[idx], fwhm0, prom0


def _complete(wl, port: str, lam, fwhm0, prom0, notes: list):
    """Drop the resonances cut by the ends of the span (within 2 FWHM of an end)."""
    edge = (lam - wl[0] < 2.0 * fwhm0) | (wl[-1] - lam < 2.0 * fwhm0)
    for k in np.flatnonzero(edge):
        notes.append(f"resonance near {lam[k]:.3f} nm is cut by the end of the span; skipped")
    lam, fwhm0, prom0 = lam[~edge], fwhm0[~edge], prom0[~edge]
    if lam.size == 0:
        raise ValueError(
            f"{port}: no complete resonance in {wl[0]:.6g}..{wl[-1]:.6g} nm (only ones cut by the ends); widen the span"
        )
    return lam, fwhm0, prom0


def _families(fwhm0, prom0, notes: list) -> np.ndarray:
    """Mode family of each resonance (noted when there are two)."""
    fam = mode_families(fwhm0, prom0)
    if fam.any():
        notes.append(
            f"two mode families told apart by linewidth; the FSR summary uses family 0 ({int((fam == 0).sum())} "
            f"resonances, FWHM ≈ {np.median(fwhm0[fam == 0]) * 1e3:.3g} pm), family 1 has {int(fam.sum())}"
        )
    return fam


# ----------------------------------------------------------------------------- fits


def _window(wl, lam, i: int, fwhm_i, fsr) -> tuple[float, float]:
    """Fit window (nm) of resonance ``i``: half an FSR (30 FWHM without) each side, up to its neighbours' midpoints."""
    li = lam[i]
    half = fsr / 2.0 if fsr is not None else 30.0 * fwhm_i
    lo = (lam[i - 1] + li) / 2.0 if i > 0 else li - half
    hi = (lam[i + 1] + li) / 2.0 if i < lam.size - 1 else li + half
    return max(lo, li - half, wl[0]), min(hi, li + half, wl[-1])


def _points_per_fwhm(wl, fit: LineFit) -> tuple[float, float]:
    """Samples per fitted FWHM near the centre, and the sampling step there (nm)."""
    out = fit.values
    sel = np.abs(wl - out["lam0"]) <= out["fwhm"]
    step = float(np.median(np.diff(wl[sel]))) if sel.sum() >= 2 else float(np.median(np.diff(wl[fit.window])))
    return out["fwhm"] / step, step


def _fits(ports: _Ports, lam, fwhm0, fam, min_ppf: float):
    """Fit every resonance; return the fits with their samples per FWHM, and the fitted curves (NaN elsewhere).

    Raises when a fitted linewidth spans fewer than ``min_ppf`` samples.
    """
    wl, n = ports.wl, ports.wl.size
    model_t = np.full(n, np.nan) if ports.t is not None else None
    model_d = np.full(n, np.nan) if ports.d is not None else None
    fsr_loc0 = local_fsr(lam, fam)
    fits = []
    for i, (li, fi) in enumerate(zip(lam, fwhm0, strict=True)):
        lo, hi = _window(wl, lam, i, fi, fsr_loc0[i])
        fit = fit_resonance(wl, ports.t, ports.d, li, fi, fsr_loc0[i], lo, hi)
        m = fit.window
        if fit.through is not None:
            model_t[m] = fit.through * ports.base_t[m]
        if fit.drop is not None:
            model_d[m] = fit.drop * ports.norm_d[m]
        ppf, step = _points_per_fwhm(wl, fit)
        if ppf < min_ppf:
            lam0, fw = fit.values["lam0"], fit.values["fwhm"]
            raise ValueError(resolution_message(lam0, step, fw, ppf, min_ppf, False))
        fits.append((fit, ppf))
    return fits, model_t, model_d


# ----------------------------------------------------------------------------- figures of merit


def _resonance(fit: LineFit, ppf: float, fsr, family: int, port: str, ports: _Ports, length, coupling,
               notes: list) -> Resonance:
    """Q, extinction and intrinsic Q of one fitted resonance."""
    out, errs = fit.values, fit.errors
    lam0, fw = out["lam0"], out["fwhm"]
    q, q_err = lam0 / fw, lam0 / fw * errs["fwhm"] / fw
    t0 = t_ext = t_ext_err = d0 = d_ext = d_ext_err = intr = None
    if ports.t is not None:
        t0 = out["T0"]
        t_ext, t_ext_err, bound = through_extinction_db(t0, errs["T0"], fw, fsr)
        if bound:
            notes.append(f"through dip near {lam0:.3f} nm reaches the noise: its extinction is a lower bound")
    if ports.d is not None:
        d0 = out["D0"]
        d_ext, d_ext_err, bound = drop_extinction_db(d0, errs["D0"], out["f"], out["floor"], out["floor_err"])
        if bound:
            notes.append(f"drop floor near {lam0:.3f} nm is within noise: its drop extinction is a lower bound")
    if ports.t is not None:
        intr = intrinsic_q(q, t0, errs["T0"], d0, lam0, fw, fsr, length, coupling)
    primary_t = port == "through"
    return Resonance(
        center_nm=lam0,
        center_err_nm=float(errs["lam0"]),
        fwhm_nm=fw,
        fwhm_err_nm=float(errs["fwhm"]),
        q_loaded=q,
        q_loaded_err=q_err,
        extinction_db=t_ext if primary_t else d_ext,
        extinction_err_db=t_ext_err if primary_t else d_ext_err,
        depth=1.0 - t0 if primary_t else d0,
        through_min=t0,
        through_extinction_db=t_ext,
        drop_peak=d0,
        drop_extinction_db=d_ext,
        points_per_fwhm=float(ppf),
        fsr_local_nm=fsr,
        finesse=fsr / fw if fsr is not None else None,
        family=int(family),
        intrinsic=intr,
    )


def _resonances(fits, fam, port: str, ports: _Ports, length, coupling, notes: list):
    """The resonances from their fits; the primary family's indices, centres (nm), their 1σ (nm) and pairs."""
    centers = np.array([f.values["lam0"] for f, _ in fits])
    center_err = np.array([f.errors["lam0"] for f, _ in fits])
    fsr_loc = local_fsr(centers, fam)
    primary = np.flatnonzero(fam == 0)
    pairs = pair_spacings(centers[primary])
    if primary.size > 1 and len(pairs) < primary.size - 1:
        notes.append("some adjacent resonances are not one FSR apart (another mode family or a split resonance)")
    resonances = tuple(
        _resonance(fit, ppf, fsr, fam[k], port, ports, length, coupling, notes)
        for k, ((fit, ppf), fsr) in enumerate(zip(fits, fsr_loc, strict=True))
    )
    return resonances, primary, centers[primary], center_err[primary], pairs


# ----------------------------------------------------------------------------- the pipeline


def analyze_spectrum(
    wl_nm,
    through=None,
    drop=None,
    *,
    scale: str = "linear",
    reference_nm: float = 1550.0,
    ring_length_um: float | None = None,
    radius_um: float | None = None,
    coupling: str | None = None,
    baseline_order: int = 2,
    min_points_per_fwhm: float = 3.0,
    prominence: float | None = None,
) -> SpectrumAnalysis:
    """Resonances, FSR (and its dispersion), FWHM, loaded/intrinsic Q and extinction of a ring spectrum.

    Args:
        wl_nm: wavelengths in nm, strictly increasing, finite (any spacing).
        through: through-port transmission, same length, or None.
        drop: drop-port transmission, same length, or None. With ``through`` both are
            taken to share the input/output coupling (the drop is normalized by the
            through baseline), which makes D0 and the intrinsic Q meaningful.
        scale: ``"linear"`` (power, normalized to the input, <= 1.5) or ``"db"``.
        reference_nm: wavelength for the summary (nearest resonance, FSR, n_g), nm.
        ring_length_um: round-trip length L for n_g and loss, µm (or give ``radius_um``).
        radius_um: ring radius, µm; L = 2πR.
        coupling: None, ``"under"``, ``"over"`` or ``"symmetric"`` (needs ``drop``):
            resolves the under/over-coupling ambiguity of the intrinsic Q.
        baseline_order: polynomial order (in dB versus λ) of the baseline, 0..6.
        min_points_per_fwhm: the fewest samples per FWHM accepted (resolution check).
        prominence: detection threshold on the normalized spectrum (fraction of the
            baseline for dips); default 10× the noise and 10 % of the strongest.

    Returns:
        A :class:`SpectrumAnalysis`.

    Raises:
        ValueError: bad input, no resonance, or a sampling too coarse for the linewidth.
    """
    length = _checked_length_um(scale, coupling, baseline_order, min_points_per_fwhm, reference_nm,
                                ring_length_um, radius_um, through, drop)
    wl = check_wavelengths_nm(wl_nm, name="wl_nm", min_points=MIN_POINTS)
    n = wl.size
    t_raw = _linear_port("through", through, n, scale) if through is not None else None
    d_raw = _linear_port("drop", drop, n, scale) if drop is not None else None
    notes: list[str] = []

    ports = _normalized(wl, t_raw, d_raw, int(min(baseline_order, max(n // 8, 0))), reference_nm)
    port, lam, fwhm0, prom0 = _detected(ports, prominence, min_points_per_fwhm, notes)
    lam, fwhm0, prom0 = _complete(wl, port, lam, fwhm0, prom0, notes)
    fam = _families(fwhm0, prom0, notes)
    fits, model_t, model_d = _fits(ports, lam, fwhm0, fam, min_points_per_fwhm)

    resonances, primary, centers, center_err, pairs = _resonances(fits, fam, port, ports, length, coupling, notes)
    fsr = fsr_summary(centers, center_err, pairs, reference_nm, length)
    if ring_length_um is None and radius_um is None:
        notes.append("no ring length given: group index and loss per length not computed")
    if any(r.intrinsic is not None and r.intrinsic.ambiguous for r in resonances):
        notes.append(
            "intrinsic Q is ambiguous (under- or over-coupled fit the same spectrum); both solutions are listed: "
            "pass coupling='under'|'over'|'symmetric' to choose"
        )
    near = int(primary[np.argmin(np.abs(centers - reference_nm))])
    rn = resonances[near]
    return SpectrumAnalysis(
        port=port,
        resonances=resonances,
        reference_nm=float(reference_nm),
        nearest=near,
        center_nm=rn.center_nm,
        fwhm_nm=rn.fwhm_nm,
        q_loaded=rn.q_loaded,
        extinction_db=rn.extinction_db,
        q_intrinsic=rn.intrinsic.q_intrinsic if rn.intrinsic is not None else None,
        fsr_nm=fsr.fsr_nm,
        fsr_err_nm=fsr.fsr_err_nm,
        fsr_slope=fsr.fsr_slope,
        fsr_wl_nm=fsr.fsr_wl_nm,
        fsr_pairs_nm=fsr.fsr_pairs_nm,
        group_index=fsr.group_index,
        n_group=fsr.n_group,
        ring_length_um=length,
        noise={k: float(np.median(v)) for k, v in ports.sigma.items()},
        notes=tuple(notes),
        wl_nm=wl,
        through=t_raw,
        drop=d_raw,
        baseline_through=ports.base_t,
        baseline_drop=ports.base_d,
        model_through=model_t,
        model_drop=model_d,
    )
