"""Finding resonances in a spectrum: baseline, noise estimate, peak detection and mode families.

Baseline: a polynomial in dB versus λ (coupling offset, tilt, a grating-coupler passband) fitted
iteratively to the off-resonance points (through: the upper envelope, dips excluded; drop alone:
the floor); its order chosen by the data (Bayesian information criterion) unless given. Detection: ``scipy.signal.find_peaks`` on the normalized dips (peaks), prominence
above 10× a robust noise estimate (MAD of second differences) and above 10 % of the strongest
resonance (noise estimated locally, so a noisier part of the band does not produce false dips).
The apparent FWHM (width at half prominence) must span at least ``min_ppf`` samples: narrower
detections are dropped and named (the analysis refuses only when every one is). Mode families are
told apart in :mod:`.comb`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import median_filter
from scipy.signal import find_peaks, peak_widths

from prismpic.checks import check_positive

NOISE_SIGMAS = 10.0  # detection threshold in noise standard deviations
RELATIVE_PROMINENCE = 0.1  # and in units of the strongest resonance's prominence
MAX_BASELINE_ORDER = 6  # highest baseline polynomial order (dB versus λ) the data may choose
BASELINE_SAMPLES = 20000  # the baseline is fitted to at most this many samples (evenly strided)


def _poly_basis(wl):
    return (wl - 0.5 * (wl[0] + wl[-1])) / (0.5 * (wl[-1] - wl[0]))


def _stride(n: int) -> int:
    """Every how many samples the baseline is fitted to (at most ``BASELINE_SAMPLES``: it is smooth)."""
    return max(1, -(-n // BASELINE_SAMPLES))


def _masked_fit(s, ydb, order: int, upper: bool):
    """Polynomial of ``order`` refitted to the off-resonance points (clip at 2.5 robust σ); (poly, kept mask)."""
    keep = np.ones(s.size, bool)
    poly = np.polynomial.Polynomial
    for _ in range(50):
        p = poly.fit(s[keep], ydb[keep], order)
        r = ydb - p(s)
        rk = r[keep]
        sig = max(1.4826 * np.median(np.abs(rk - np.median(rk))), 1e-9)
        new = r > -2.5 * sig if upper else r < 2.5 * sig
        if new.sum() <= order + 2 or np.array_equal(new, keep):
            break
        keep = new
    return p, keep


def baseline_order(wl, y, upper: bool, max_order: int = MAX_BASELINE_ORDER) -> int:
    """The baseline order the data choose: the least Bayesian information criterion (Schwarz, Ann. Stat. 6,
    461 (1978)) of the polynomials 0..``max_order`` in dB, all fitted to the off-resonance points of the
    highest order (resonances masked iteratively), n·ln(RSS/n) + (order + 1)·ln n."""
    ydb = 10.0 * np.log10(np.maximum(y, 1e-12 * max(y.max(), 1e-300)))[::_stride(wl.size)]
    s = _poly_basis(wl)[::_stride(wl.size)]
    _, keep = _masked_fit(s, ydb, max_order, upper)
    n = int(keep.sum())
    if n <= max_order + 2:
        return 0
    bic = []
    for k in range(max_order + 1):
        c = np.polynomial.polynomial.polyfit(s[keep], ydb[keep], k)
        rss = float(np.sum((ydb[keep] - np.polynomial.polynomial.polyval(s[keep], c)) ** 2))
        bic.append(n * math.log(max(rss, 1e-300) / n) + (k + 1) * math.log(n))
    return int(np.argmin(bic))


def baseline(wl, y, order: int, upper: bool) -> np.ndarray:
    """Smooth baseline of ``y`` (linear power) versus ``wl`` (nm): a polynomial in dB of ``order``,
    refitted to the off-resonance points.

    ``upper``: keep points not far below the fit (through: dips excluded); else not far
    above (drop floor: peaks excluded). Clip at 2.5 robust σ, until the set stops changing.
    """
    ydb = 10.0 * np.log10(np.maximum(y, 1e-12 * max(y.max(), 1e-300)))
    s = _poly_basis(wl)
    k = _stride(wl.size)
    p, _ = _masked_fit(s[::k], ydb[::k], order, upper)
    return 10.0 ** (p(s) / 10.0)


def noise_sigma(y) -> np.ndarray:
    """Robust white-noise σ of each sample of ``y`` (units of ``y``): running MAD of second
    differences (var of Δ² is 6σ²).

    The running window (≈ 2 % of the span, at least 41 samples) follows noise that
    changes across the band (a tilted baseline with additive detector noise).
    """
    d2 = np.abs(y[:-2] - 2.0 * y[1:-1] + y[2:])
    d2 = np.concatenate([d2[:1], d2, d2[-1:]])
    size = max(41, (y.size // 50) | 1)
    if size >= y.size:
        local = np.full(y.size, np.median(d2))
    else:
        local = median_filter(d2, size=size, mode="mirror")
    # median |N(0, 6σ²)| = 0.6745·√6·σ
    return np.maximum(local / (0.6745 * math.sqrt(6.0)), 1e-12)


def resolution_message(lam, step, fwhm, ppf, min_ppf, apparent: bool) -> str:
    """The error text for a sampling step (nm) too coarse for a resonance at ``lam`` (nm) of ``fwhm`` (nm).

    ``ppf``: samples per FWHM found, ``min_ppf``: needed; ``apparent``: the FWHM is the detector's
    width at half prominence, not the fitted one.
    """
    return (
        f"wl_nm sampling is too coarse to resolve the resonance at {lam:.4f} nm: a step of {step * 1e3:.3g} pm "
        f"gives {ppf:.3g} points per {'apparent ' if apparent else ''}FWHM ({fwhm * 1e3:.3g} pm); "
        f"min_points_per_fwhm = {min_ppf:g} are needed: resample at <= {fwhm / min_ppf * 1e3:.3g} pm"
    )


def _no_resonance_message(wl, signal, sigma, thr_at, prominence, port: str) -> str:
    _, p_all = find_peaks(signal, prominence=0.0)
    best = float(p_all["prominences"].max()) if p_all["prominences"].size else 0.0
    kind = "dip" if port == "through" else "peak"
    how = "given" if prominence is not None else f"{NOISE_SIGMAS:g} x noise {np.median(sigma):.2g}"
    return (
        f"{port}: no resonance found in {wl[0]:.6g}..{wl[-1]:.6g} nm: the strongest {kind} has prominence "
        f"{best:.3g} (relative to the baseline), below the detection threshold {np.median(thr_at):.3g} "
        f"({how}); widen the span or lower prominence"
    )


def _merged(wl, idx, fwhm, prom) -> list[int]:
    """Indices of the detections kept when those closer than 2 FWHM are merged (the strongest kept)."""
    # noise on a peak top, split doublets
    kept: list[int] = []
    for k in np.argsort(-prom):
        if all(abs(wl[idx[k]] - wl[idx[j]]) > (fwhm[k] + fwhm[j]) for j in kept):
            kept.append(int(k))
    kept.sort(key=lambda k: idx[k])
    return kept


def find_resonances(wl, signal, sigma, prominence, port: str, min_ppf: float, notes: list):
    """Peaks of ``signal`` (dips turned up) versus ``wl`` (nm): indices, apparent FWHM (nm), prominences,
    asymmetry (half width on the long-wavelength side over that on the short side, at half prominence) and
    centres (nm, the middle of the half-prominence interval).

    ``sigma``: local noise per sample. Threshold: ``prominence`` if given, else 10 local σ
    and 10 % of the strongest. Detections narrower than ``min_ppf`` samples raise when every
    one is (sampling too coarse), else are dropped, each named in ``notes`` (a list appended
    to). ``port`` names the port in messages.
    """
    if prominence is None:
        thr_at = NOISE_SIGMAS * sigma
    else:
        thr_at = np.full(signal.size, float(check_positive("prominence", prominence)))
    idx, props = find_peaks(signal, prominence=float(thr_at.min()))
    keep = props["prominences"] >= thr_at[idx] if idx.size else np.zeros(0, bool)
    if not keep.any():
        raise ValueError(_no_resonance_message(wl, signal, sigma, thr_at, prominence, port))
    prom = props["prominences"]
    if prominence is None:
        keep &= prom >= RELATIVE_PROMINENCE * prom[keep].max()
    idx, prom = idx[keep], prom[keep]
    props = {k: v[keep] for k, v in props.items()}
    widths, _, left, right = peak_widths(
        signal, idx, rel_height=0.5, prominence_data=(prom, props["left_bases"], props["right_bases"])
    )
    n = np.arange(wl.size)
    fwhm = np.interp(right, n, wl) - np.interp(left, n, wl)
    asym = (right - idx) / np.maximum(idx - left, 1e-9)
    mid = np.interp(0.5 * (left + right), n, wl)  # robust to a split top and to noise on a broad one
    kept = _merged(wl, idx, fwhm, prom)
    idx, fwhm, widths, prom, asym, mid = idx[kept], fwhm[kept], widths[kept], prom[kept], asym[kept], mid[kept]
    bad = widths < min_ppf
    if bad.all():
        k = int(np.argmax(prom))
        step = fwhm[k] / widths[k]
        raise ValueError(resolution_message(wl[idx[k]], step, fwhm[k], widths[k], min_ppf, apparent=True))
    if bad.any():
        where = ", ".join(f"{wl[i]:.3f}" for i in idx[bad])
        notes.append(f"{port}: features narrower than min_points_per_fwhm = {min_ppf:g} samples at {where} nm "
                     "dropped (noise spikes, or resonances the sampling does not resolve)")
    return idx[~bad], fwhm[~bad], prom[~bad], asym[~bad], mid[~bad]
