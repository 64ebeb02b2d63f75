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
from scipy.signal import find_peaks

from prismpic.analysis.measurements import MIN_SPECTRUM_POINTS, check_wavelengths_nm, linear_transmission
from prismpic.analysis.spectra.comb import (
    choose_family,
    drop_confirmed,
    find_families,
    overlap_notes,
    periodicity_note,
)
from prismpic.analysis.spectra.detection import (
    MAX_BASELINE_ORDER,
    baseline,
    find_resonances,
    noise_sigma,
    resolution_message,
)
from prismpic.analysis.spectra.detection import (
    baseline_order as chosen_baseline_order,
)
from prismpic.analysis.spectra.doublet import MIN_SPLIT, REGIME_CHI2, SPLIT_GAIN, fit_doublet
from prismpic.analysis.spectra.extinction import drop_extinction_db, through_extinction_db
from prismpic.analysis.spectra.fsr import fsr_summary, local_fsr, pair_spacings
from prismpic.analysis.spectra.intrinsic_q import intrinsic_q
from prismpic.analysis.spectra.resonance_fit import LineFit, fit_resonance
from prismpic.analysis.spectra.results import Resonance, SpectrumAnalysis
from prismpic.checks import check_choice, check_positive, check_range

MIN_POINTS = MIN_SPECTRUM_POINTS  # fewest samples accepted in a spectrum

_SCALES = ("linear", "db")
THERMAL_ASYMMETRY = 3.5  # a dip whose half widths differ by more than this factor is a thermal triangle
LINESHAPE_CHI2 = 4.0  # χ²/point within one FWHM above which the line shape is not the Airy line (caveat)
FLOOR_DB = 1.5  # dips whose bottoms lie within this of the lowest one, over baselines > 3 dB apart: a floor
_COUPLINGS = (None, "under", "over", "symmetric")


# ----------------------------------------------------------------------------- input


def _checked_length_um(scale, coupling, baseline_order, min_points_per_fwhm, reference_nm, ring_length_um,
                       radius_um, through, drop) -> float | None:
    """Check the options (ValueError naming the first bad one); return the ring length L (µm) or None."""
    check_choice("scale", scale, _SCALES)
    check_choice("coupling", coupling, _COUPLINGS)
    if baseline_order != "auto" and (isinstance(baseline_order, bool) or not isinstance(baseline_order, int | np.integer)
                                     or not 0 <= baseline_order <= MAX_BASELINE_ORDER):
        raise ValueError(f"baseline_order = {baseline_order!r} must be 'auto' or an integer in [0, {MAX_BASELINE_ORDER}]")
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
    order: int  # the baseline order used


def _normalized(wl, t_raw, d_raw, order, reference_nm: float) -> _Ports:
    """Divide the ports by their baselines (the drop by the through's when both are given); ``order``: the
    baseline order, or ``"auto"`` (chosen by the data, :func:`detection.baseline_order`)."""
    top = int(min(MAX_BASELINE_ORDER, max(wl.size // 8, 0)))
    if order == "auto":
        y, upper = (t_raw, True) if t_raw is not None else (np.maximum(d_raw, 1e-12), False)
        # no more wiggles than resonances: the per-resonance fit corrects the baseline within each window
        rel = y / baseline(wl, y, min(2, top), upper)
        sig = (1.0 - rel) if upper else rel
        _, pp = find_peaks(sig, prominence=0.0)
        prom = pp["prominences"]
        n_strong = int(np.sum(prom >= 0.3 * prom.max())) if prom.size else 0
        order = chosen_baseline_order(wl, y, upper, min(top, max(2, n_strong)))
    order = int(min(order, top))
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
    return _Ports(wl, t_raw, d_raw, base_t, base_d, norm_d, t, d, sigma, order)


# ----------------------------------------------------------------------------- detection


def _detected(ports: _Ports, prominence, min_ppf: float, notes: list):
    """The port detected on, and the detected resonances' centres (nm), apparent FWHM (nm), prominences and
    asymmetries.

    Through dips first (confirmed by drop peaks when the drop shows any); on no dip, the drop peaks.
    """
    wl, t, d = ports.wl, ports.t, ports.d
    port = "through" if t is not None else "drop"
    sig = (1.0 - t) if port == "through" else d
    try:
        idx, fwhm0, prom0, asym, mid = find_resonances(wl, sig, ports.sigma[port], prominence, port, min_ppf, notes)
    except ValueError as e:
        if port != "through" or d is None or "no resonance" not in str(e):
            raise
        port = "drop"
        idx, fwhm0, prom0, asym, mid = find_resonances(wl, d, ports.sigma["drop"], prominence, port, min_ppf, notes)
        notes.append("no dip found on the through port; resonances detected on the drop port")
    if port == "through" and d is not None:
        try:
            pk, *_ = find_resonances(wl, d, ports.sigma["drop"], prominence, "drop", min_ppf, [])
        except ValueError as e:  # a drop port with no peak at all, beside a through with dips: its detector floor
            if "no resonance" not in str(e):
                raise
            raise ValueError(f"{str(e).split('; ')[0]}, while the through shows {mid.size} dip(s): the drop port is "
                             "at its detector floor (or not the ring's); leave the drop column out or check its "
                             "detector") from None
        if pk.size:
            ok = drop_confirmed(mid, fwhm0, wl[pk])
            for k in np.flatnonzero(~ok):
                notes.append(f"through dip near {mid[k]:.3f} nm has no drop-port peak: not a resonance of the "
                             "ring (ripple or noise); dropped")
            if ok.any():
                mid, fwhm0, prom0, asym = mid[ok], fwhm0[ok], prom0[ok], asym[ok]
    return port, mid, fwhm0, prom0, asym


def _complete(wl, port: str, lam, fwhm0, prom0, asym, notes: list):
    """Drop the resonances cut by the ends of the span (within 2 FWHM of an end)."""
    edge = (lam - wl[0] < 2.0 * fwhm0) | (wl[-1] - lam < 2.0 * fwhm0)
    for k in np.flatnonzero(edge):
        notes.append(f"resonance near {lam[k]:.3f} nm is cut by the end of the span; skipped")
    lam, fwhm0, prom0, asym = lam[~edge], fwhm0[~edge], prom0[~edge], asym[~edge]
    if lam.size == 0:
        raise ValueError(
            f"{port}: no complete resonance in {wl[0]:.6g}..{wl[-1]:.6g} nm (only ones cut by the ends); widen the span"
        )
    return lam, fwhm0, prom0, asym


def _families(lam, fwhm0, prom0, reference_nm, length, family, design_ng, notes: list):
    """Mode families (``comb.find_families``); the detections kept and their family (0: the one analysed),
    and the families as dicts with the analysed one's number."""
    fams, ripple, unassigned = find_families(lam, fwhm0, prom0, reference_nm, length, notes)
    if not fams:  # a lone resonance (or only ripple besides it): one family without an FSR
        keep = np.setdiff1d(np.arange(lam.size), ripple)
        if keep.size == 0:
            raise ValueError(f"every dip in {lam.min():.6g}..{lam.max():.6g} nm is ripple (period and finesse of a "
                             "Fabry–Pérot or grating-coupler modulation), none is a ring resonance")
        if family not in (None, "deepest", 0, "te"):
            raise ValueError(f"family = {family!r} is not there: one resonance, no mode family with an FSR found")
        keep = keep[[int(np.argmax(prom0[keep]))]] if keep.size > 1 else keep
        return keep, np.zeros(keep.size, int), (), 0
    chosen = choose_family(fams, family, design_ng)
    for k in unassigned:
        notes.append(f"dip near {lam[k]:.3f} nm is on no comb (no neighbour one FSR away): left out of the families")
    order = [chosen] + [k for k in range(len(fams)) if k != chosen]
    keep, fam = [], []
    for new, k in enumerate(order):
        keep.extend(fams[k].members)
        fam.extend([new] * len(fams[k].members))
    keep, fam = np.array(keep), np.array(fam)
    srt = np.argsort(lam[keep])
    f0 = fams[chosen]
    if len(fams) > 1:
        others = "; ".join(f"family {f.index}: {len(f.members)} resonances, FSR {f.fsr_nm:.4g} nm, FWHM "
                           f"{f.fwhm_nm * 1e3:.3g} pm, depth {f.depth:.2g}" for f in fams if f.index != chosen)
        notes.append(f"{len(fams)} mode families; analysed family {chosen} ({len(f0.members)} resonances, FSR "
                     f"{f0.fsr_nm:.4g} nm, FWHM {f0.fwhm_nm * 1e3:.3g} pm, depth {f0.depth:.2g}; choose with family=); "
                     f"{others}")
    note = periodicity_note(f0)
    if note:
        notes.append(note)
    return keep[srt], fam[srt], tuple(f.to_dict() for f in fams), chosen


def _thermal(lam, asym, fam, notes: list) -> np.ndarray:
    """Which resonances are thermal triangles (half widths more than ``THERMAL_ASYMMETRY`` apart); noted."""
    hot = (asym > THERMAL_ASYMMETRY) | (asym < 1.0 / THERMAL_ASYMMETRY)
    for k in np.flatnonzero(hot):
        side = "short" if asym[k] > 1 else "long"
        notes.append(f"resonance near {lam[k]:.3f} nm is a thermal triangle (half widths {max(asym[k], 1 / asym[k]):.2g}x "
                     f"apart, sharp edge on the {side}-wavelength side: the resonance dragged along the sweep): its Q "
                     "and λ_r are not the cold cavity's; dropped (sweep at lower power)")
    if hot[fam == 0].all():
        raise ValueError(f"every resonance of the analysed family ({', '.join(f'{x:.3f}' for x in lam[fam == 0])} nm) is "
                         "a thermal triangle (asymmetric, drawn out along the sweep): the cold-cavity Q and λ_r are not "
                         "measurable from it; sweep at lower power")
    return ~hot


# ----------------------------------------------------------------------------- fits


def _window(wl, lam, fwhm0, fam, i: int, fsr) -> tuple[float, float, np.ndarray]:
    """Fit window (nm) of resonance ``i``: half an FSR (30 FWHM without) each side, up to its same-family
    neighbours' midpoints; and the samples excluded from it, within 2.5 FWHM of another family's resonance
    (unless that one overlaps this one's core)."""
    li, fwhm_i = lam[i], fwhm0[i]
    half = fsr / 2.0 if fsr is not None else 30.0 * fwhm_i
    same = np.flatnonzero(fam == fam[i])
    k = int(np.searchsorted(same, i))
    lo = (lam[same[k - 1]] + li) / 2.0 if k > 0 else li - half
    hi = (lam[same[k + 1]] + li) / 2.0 if k < same.size - 1 else li + half
    lo, hi = max(lo, li - half, wl[0]), min(hi, li + half, wl[-1])
    exclude = np.zeros(wl.size, bool)
    for j in np.flatnonzero(fam != fam[i]):
        if lo < lam[j] < hi and abs(lam[j] - li) > 1.5 * (fwhm_i + fwhm0[j]):
            exclude |= np.abs(wl - lam[j]) < 2.5 * fwhm0[j]
    return lo, hi, exclude


def _points_per_fwhm(wl, fit: LineFit) -> tuple[float, float]:
    """Samples per fitted FWHM near the centre, and the sampling step there (nm)."""
    out = fit.values
    sel = np.abs(wl - out["lam0"]) <= out["fwhm"]
    step = float(np.median(np.diff(wl[sel]))) if sel.sum() >= 2 else float(np.median(np.diff(wl[fit.window])))
    return out["fwhm"] / step, step


def _fits(ports: _Ports, lam, fwhm0, fam, min_ppf: float, notes: list):
    """Fit every resonance; return the fits with their samples per FWHM, and the fitted curves (NaN elsewhere).

    A resonance whose fitted linewidth spans fewer than ``min_ppf`` samples is dropped (said in ``notes``); when
    every one of the analysed family is, the spectrum is refused (ValueError).
    """
    wl, n = ports.wl, ports.wl.size
    model_t = np.full(n, np.nan) if ports.t is not None else None
    model_d = np.full(n, np.nan) if ports.d is not None else None
    fsr_loc0 = local_fsr(lam, fam)
    fits, bad = [], []
    for i, (li, fi) in enumerate(zip(lam, fwhm0, strict=True)):
        lo, hi, exclude = _window(wl, lam, fwhm0, fam, i, fsr_loc0[i])
        fit = fit_resonance(wl, ports.t, ports.d, li, fi, fsr_loc0[i], lo, hi, exclude)
        m = fit.window
        if fit.through is not None:
            model_t[m] = fit.through * ports.base_t[m]
        if fit.drop is not None:
            model_d[m] = fit.drop * ports.norm_d[m]
        ppf, step = _points_per_fwhm(wl, fit)
        if ppf < min_ppf:
            lam0, fw = fit.values["lam0"], fit.values["fwhm"]
            bad.append(resolution_message(lam0, step, fw, ppf, min_ppf, False))
            fits.append(None)
            continue
        fits.append((fit, ppf))
    ok = np.array([f is not None for f in fits])
    if not ok[fam == 0].any():
        raise ValueError(bad[0])
    for msg in bad:
        notes.append(msg.split(": resample")[0] + "; that resonance is dropped")
    return [f for f in fits if f is not None], ok, model_t, model_d


# ----------------------------------------------------------------------------- figures of merit


def _at_floor(ports: _Ports, fits) -> np.ndarray:
    """Which through dips sit on a detector floor: their raw bottoms lie within ``FLOOR_DB`` of the lowest one
    although their baselines differ by more than 3 dB (a floor is one level in absolute power; a dip's bottom
    follows its baseline)."""
    if ports.t is None or len(fits) < 2:
        return np.zeros(len(fits), bool)
    lam = np.array([f.values["lam0"] for f, _ in fits])
    base = np.interp(lam, ports.wl, ports.base_t) * np.array([f.values["c0"] for f, _ in fits])
    bottom = 10 * np.log10(np.maximum(np.array([f.values["T0"] for f, _ in fits]), 1e-12) * base)
    low = bottom <= bottom.min() + FLOOR_DB
    if low.sum() < 2 or np.ptp(10 * np.log10(base[low])) < 3.0:
        return np.zeros(len(fits), bool)
    return low


def _core_chi2(fit: LineFit, ports: _Ports) -> float:
    """χ² per point of the line fit within one FWHM of the centre, against the port's local noise."""
    m = np.flatnonzero(fit.window)
    w = ports.wl[m]
    core = np.abs(w - fit.values["lam0"]) <= fit.values["fwhm"]
    if core.sum() < 3:
        return 0.0
    chi = []
    for data, model, name in ((ports.t, fit.through, "through"), (ports.d, fit.drop, "drop")):
        if data is None or model is None or (name == "drop" and ports.t is not None):
            continue  # the through's dip when given (the drop's multiplicative noise peaks with it)
        r = (data[m] - model)[core] / ports.sigma[name][m][core]
        chi.append(float(np.mean(r**2)))
    return max(chi) if chi else 0.0


def _split_or_noted(fit: LineFit, ports: _Ports, notes: list) -> tuple[dict, dict, float | None]:
    """The line's values and errors, refitted as a doublet (:mod:`.doublet`) when that gains more than
    ``SPLIT_GAIN`` in χ² (with the splitting, nm); else the single line's, with a caveat when the Airy line
    misses its core."""
    out, errs = fit.values, fit.errors
    lam0 = out["lam0"]
    chi_near = _core_chi2(fit, ports)
    if ports.t is not None:
        dbl = fit_doublet(ports.wl, ports.t, ports.sigma["through"], lam0, out["fwhm"], out["T0"], out["c0"])
        v = dbl.values if dbl is not None else {}
        # a doublet keeps at least half the single line's depth (its modes' dips overlap into that line): one that
        # does not has traded the resonance for its baseline, a degenerate fit, not a split
        if (dbl is not None and v["gain_chi2"] > SPLIT_GAIN and v["split"] > MIN_SPLIT * v["fwhm"]
                and 1.0 - v["T0"] >= 0.5 * (1.0 - out["T0"])):
            amb = ""
            if v["regime_delta_chi2"] < REGIME_CHI2:
                amb = (f"; the coupling regime is ambiguous (Δχ² {v['regime_delta_chi2']:.2g} < {REGIME_CHI2:g}): "
                       f"the other solution has Q_L {v['lam0'] / v['other_fwhm']:.4g} and T0 {v['other_T0']:.3g}")
            notes.append(f"resonance near {v['lam0']:.3f} nm is split (backscatter doublet): splitting "
                         f"{v['split'] * 1e3:.3g} pm = {v['split'] / v['fwhm']:.2g} linewidths, fitted as a doublet "
                         f"(Δχ² {v['gain_chi2']:.3g} over one line); Q_L is one mode's, the extinction the unsplit "
                         f"one's{amb}")
            keys = ("lam0", "fwhm", "T0")
            return dict(out, **{k: v[k] for k in keys}), dict(errs, **{k: dbl.errors[k] for k in keys}), v["split"]
    if chi_near > LINESHAPE_CHI2:
        notes.append(f"resonance near {lam0:.3f} nm: the Airy line does not describe its core (χ²/point "
                     f"{chi_near:.3g} within one FWHM): a split resonance (backscatter doublet), an overlapping family "
                     "or a nonlinear sweep; its Q_L and extinction are those of the envelope")
    return out, errs, None


def _resonance(fit: LineFit, ppf: float, fsr, family: int, port: str, ports: _Ports, length, coupling,
               at_floor: bool, notes: list) -> Resonance:
    """Q, extinction and intrinsic Q of one fitted resonance (``at_floor``: its dip sits on the detector floor);
    a core the Airy line does not describe is refitted as a split resonance (:mod:`.doublet`) or noted."""
    out, errs, split = _split_or_noted(fit, ports, notes)
    lam0, fw = out["lam0"], out["fwhm"]
    q, q_err = lam0 / fw, lam0 / fw * errs["fwhm"] / fw
    t0 = t_ext = t_ext_err = d0 = d_ext = d_ext_err = intr = None
    bound_t = bound_d = False
    if ports.t is not None:
        t0 = out["T0"]
        t_ext, t_ext_err, bound_t = through_extinction_db(t0, errs["T0"], fw, fsr)
        if at_floor:
            bound_t = True
            notes.append(f"through dip near {lam0:.3f} nm reaches the detector floor (its bottom is at the level of "
                         f"the other floor-limited dips over baselines > 3 dB apart): its extinction >= "
                         f"{t_ext:.3g} dB is a lower bound")
        elif bound_t:
            notes.append(f"through dip near {lam0:.3f} nm reaches the noise: its extinction is a lower bound")
    if ports.d is not None:
        d0 = out["D0"]
        d_ext, d_ext_err, bound_d = drop_extinction_db(d0, errs["D0"], out["f"], out["floor"], out["floor_err"])
        if bound_d:
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
        extinction_bound=bool(bound_t if primary_t else bound_d),
        split_nm=split,
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
    floor = _at_floor(ports, fits)
    resonances = tuple(
        _resonance(fit, ppf, fsr, fam[k], port, ports, length, coupling, bool(floor[k]), notes)
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
    baseline_order: int | str = "auto",
    min_points_per_fwhm: float = 3.0,
    prominence: float | None = None,
    family: int | str | None = None,
    design_group_index: float | None = None,
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
        baseline_order: polynomial order (in dB versus λ) of the baseline, 0..6, or ``"auto"``
            (the order the off-resonance points choose, resonances masked iteratively: a
            grating-coupler passband of 20–25 dB is followed).
        min_points_per_fwhm: the fewest samples per FWHM accepted (resolution check); a
            resonance sampled more coarsely is dropped (and named in the notes).
        prominence: detection threshold on the normalized spectrum (fraction of the
            baseline for dips); default 10× the noise and 10 % of the strongest.
        family: the mode family analysed (:mod:`.comb`): None (the design's when
            ``design_group_index`` is given, else the one with most resonances, then the
            deepest), ``"te"`` (nearest ``design_group_index``), ``"tm"`` (another one),
            ``"deepest"``, or a family number (by increasing FSR).
        design_group_index: the group index the design predicts for its (TE) family; needs
            ``radius_um`` or ``ring_length_um``.

    Returns:
        A :class:`SpectrumAnalysis`.

    Raises:
        ValueError: bad input, no resonance, only ripple, every resonance of the family a
            thermal triangle, a family that is not there, or a sampling too coarse for every
            resonance's linewidth.
    """
    length = _checked_length_um(scale, coupling, baseline_order, min_points_per_fwhm, reference_nm,
                                ring_length_um, radius_um, through, drop)
    wl = check_wavelengths_nm(wl_nm, name="wl_nm", min_points=MIN_POINTS)
    n = wl.size
    t_raw = _linear_port("through", through, n, scale) if through is not None else None
    d_raw = _linear_port("drop", drop, n, scale) if drop is not None else None
    notes: list[str] = []

    if design_group_index is not None:
        check_range("design_group_index", design_group_index, 1.0, 6.0)
    ports = _normalized(wl, t_raw, d_raw, baseline_order, reference_nm)
    port, lam, fwhm0, prom0, asym = _detected(ports, prominence, min_points_per_fwhm, notes)
    lam, fwhm0, prom0, asym = _complete(wl, port, lam, fwhm0, prom0, asym, notes)
    keep, fam, families, chosen = _families(lam, fwhm0, prom0, reference_nm, length, family, design_group_index,
                                            notes)
    lam, fwhm0, prom0, asym = lam[keep], fwhm0[keep], prom0[keep], asym[keep]
    cold = _thermal(lam, asym, fam, notes)
    lam, fwhm0, fam = lam[cold], fwhm0[cold], fam[cold]
    fits, ok, model_t, model_d = _fits(ports, lam, fwhm0, fam, min_points_per_fwhm, notes)
    fam = fam[ok]

    resonances, primary, centers, center_err, pairs = _resonances(fits, fam, port, ports, length, coupling, notes)
    notes.extend(overlap_notes(resonances, float(wl[0]), float(wl[-1])))
    fsr = fsr_summary(centers, center_err, pairs, reference_nm, length)
    if fsr.fsr_nm is None:
        notes.append("one resonance of the analysed family only: no FSR nor group index (widen the span)")
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
        families=families,
        family=chosen,
        baseline_order=ports.order,
    )
