"""Finding resonances in a spectrum: baseline, noise estimate, peak detection and mode families.

Baseline: a polynomial in dB versus λ (coupling offset, tilt, grating-coupler curvature) fitted
iteratively to the off-resonance points (through: the upper envelope, dips excluded; drop alone:
the floor). Detection: ``scipy.signal.find_peaks`` on the normalized dips (peaks), prominence
above 10× a robust noise estimate (MAD of second differences) and above 10 % of the strongest
resonance (noise estimated locally, so a noisier part of the band does not produce false dips).
The apparent FWHM (width at half prominence) must span at least ``min_ppf`` samples, otherwise
the sampling cannot resolve the linewidth and the analysis refuses (narrower features weaker than
the strongest resonance are dropped as spikes). Resonances whose linewidths fall in two groups
more than 1.6× apart are split into two mode families.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.ndimage import median_filter
from scipy.signal import find_peaks, peak_widths

from prismpic.checks import check_positive

NOISE_SIGMAS = 10.0  # detection threshold in noise standard deviations
RELATIVE_PROMINENCE = 0.1  # and in units of the strongest resonance's prominence


def _poly_basis(wl):
    return (wl - 0.5 * (wl[0] + wl[-1])) / (0.5 * (wl[-1] - wl[0]))


def baseline(wl, y, order: int, upper: bool) -> np.ndarray:
    """Smooth baseline of ``y`` (linear power) versus ``wl`` (nm): a polynomial in dB of ``order``,
    refitted to the off-resonance points.

    ``upper``: keep points not far below the fit (through: dips excluded); else not far
    above (drop floor: peaks excluded). Clip at 2.5 robust σ, until the set stops changing.
    """
    ydb = 10.0 * np.log10(np.maximum(y, 1e-12 * max(y.max(), 1e-300)))
    s = _poly_basis(wl)
    keep = np.ones(wl.size, bool)
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
        f"gives {ppf:.2g} points per {'apparent ' if apparent else ''}FWHM ({fwhm * 1e3:.3g} pm); "
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
    """Peaks of ``signal`` (dips turned up) versus ``wl`` (nm): indices, apparent FWHM (nm) and prominences.

    ``sigma``: local noise per sample. Threshold: ``prominence`` if given, else 10 local σ
    and 10 % of the strongest. Detections narrower than ``min_ppf`` samples raise when the
    strongest resonance is among them (sampling too coarse), else are dropped as spikes
    (said in ``notes``, a list appended to). ``port`` names the port in messages.
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
    kept = _merged(wl, idx, fwhm, prom)
    idx, fwhm, widths, prom = idx[kept], fwhm[kept], widths[kept], prom[kept]
    bad = widths < min_ppf
    if bad[int(np.argmax(prom))]:
        k = int(np.argmax(prom))
        step = fwhm[k] / widths[k]
        raise ValueError(resolution_message(wl[idx[k]], step, fwhm[k], widths[k], min_ppf, apparent=True))
    if bad.any():
        where = ", ".join(f"{wl[i]:.3f}" for i in idx[bad])
        notes.append(f"{port}: features narrower than {min_ppf:g} samples at {where} nm ignored (noise spikes)")
    return idx[~bad], fwhm[~bad], prom[~bad]


def mode_families(fwhm, prom) -> np.ndarray:
    """Mode family of each resonance: 0 (primary) or 1, split at the largest gap in FWHM (nm).

    Two families are told apart only when their linewidths differ by more than 1.6× and
    each has at least two members; the primary is the one with more members (then the
    stronger one, by prominence ``prom``).
    """
    fam = np.zeros(fwhm.size, int)
    if fwhm.size < 4:
        return fam
    order = np.argsort(fwhm)
    gaps = np.diff(np.log(fwhm[order]))
    j = int(np.argmax(gaps))
    if gaps[j] < math.log(1.6) or j + 1 < 2 or fwhm.size - j - 1 < 2:
        return fam
    narrow = np.zeros(fwhm.size, bool)
    narrow[order[: j + 1]] = True
    n_n, n_w = narrow.sum(), (~narrow).sum()
    narrow_primary = n_n > n_w or (n_n == n_w and prom[narrow].mean() >= prom[~narrow].mean())
    fam[~narrow if narrow_primary else narrow] = 1
    return fam
