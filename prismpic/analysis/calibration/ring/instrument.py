"""Instrument effects in a measured ring spectrum, detected in the residual of a line-shape fit.

- Fabry–Pérot ripple of the facets (``ripple_start``): the strongest sinusoid of the relative residual away
  from the resonances, found with the Lomb–Scargle periodogram (Lomb, Astrophys. Space Sci. 39, 447 (1976);
  Scargle, ApJ 263, 835 (1982)) over periods from 4 samples to a quarter of the FSR; it is significant when its
  amplitude exceeds ``RIPPLE_SIGMAS`` times its own standard error σ·√(2/n) (false-alarm probability
  ≈ n_freq·exp(−RIPPLE_SIGMAS²/2) < 1e-9 for a white residual).
- Resonances the model misses (``window_chi2``): χ² per degree of freedom of the residual within ±3 FWHM of
  each resonance. A value above ``WINDOW_CHI2`` at the resonance the fit is about starts a fit with split
  resonances (backscatter doublets); elsewhere the window is masked and the resonance flagged.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import lombscargle

RIPPLE_SIGMAS = 7.0
WINDOW_CHI2 = 4.0  # a resonance window whose residual χ²/point exceeds this is not described by the model
WINDOW_FWHM = 3.0  # half width of a resonance window in FWHM
# a window whose χ² exceeds WINDOW_CHI2 is still described when the model misses the line by less than this
# fraction of its depth (systematic part): at high SNR χ² measures the instrument's noise, not the model
MISFIT_MAX = 0.01


def ripple_coordinate(wl, mid: float):
    """The facets' ripple variable (in the units of λ): mid·(λ − mid)/λ = mid²·(1/mid − 1/λ), a frequency offset in the units of
    a wavelength offset at ``mid``. A Fabry–Pérot cavity is periodic in frequency, not in wavelength: over a
    40 nm sweep its period in λ drifts by ±2.6 %, i.e. two periods' phase over 80 periods."""
    return mid * (wl - mid) / wl


def windows(wl: np.ndarray, centers, fwhm: float) -> list[np.ndarray]:
    """Boolean masks of the points within ±``WINDOW_FWHM`` FWHM of each resonance."""
    half = WINDOW_FWHM * max(fwhm, 2 * float(np.median(np.diff(wl))))
    return [np.abs(wl - c) <= half for c in centers]


def window_misfit(resid: np.ndarray, sigma: np.ndarray, data: np.ndarray, mask: np.ndarray) -> float | None:
    """The model's systematic misfit in one window as a fraction of the line: per port, the rms of
    (model − data) over the window's weighted points with the noise's variance taken out,
    √max(mean(r²σ²) − mean(σ²), 0), divided by the data's range there (a through dip's depth, a drop peak's
    height); the largest over the ports (None for an empty window). ``resid`` is (model − data)/σ, 0 where
    masked. χ² grows with the signal-to-noise ratio for any model short of the truth; this does not."""
    worst = None
    for r, s, d in zip(np.atleast_2d(resid), np.atleast_2d(sigma), np.atleast_2d(data), strict=True):
        m = mask & (r != 0)
        if m.sum() < 3:
            continue
        span = float(np.ptp(d[m]))
        if span > 0:
            v = math.sqrt(max(float(np.mean((r[m] * s[m]) ** 2) - np.mean(s[m] ** 2)), 0.0)) / span
            worst = v if worst is None else max(worst, v)
    return worst


def undescribed(chi2: float | None, misfit: float | None) -> bool:
    """Whether a window's line is not described: χ²/point above ``WINDOW_CHI2`` and a systematic misfit above
    ``MISFIT_MAX`` of the line."""
    return chi2 is not None and chi2 > WINDOW_CHI2 and (misfit is None or misfit > MISFIT_MAX)


def lines_misfit(resid: np.ndarray, sigma: np.ndarray, data: np.ndarray, masks: list[np.ndarray]) -> list:
    """``window_misfit`` of every window."""
    return [window_misfit(resid, sigma, data, m) for m in masks]


def window_chi2(resid: np.ndarray, masks: list[np.ndarray]) -> list[float | None]:
    """χ²/point of the (ports × points) normalised residual in each window (None for an empty window)."""
    r = np.atleast_2d(resid)
    out = []
    for m in masks:
        rr = r[:, m]
        rr = rr[rr != 0]
        out.append(float(np.mean(rr**2)) if rr.size >= 4 else None)
    return out


def ripple_start(wl: np.ndarray, rel_resid: np.ndarray, keep: np.ndarray, sigma_rel: float,
                 max_period: float) -> dict | None:
    """The facets' ripple in a relative residual (data/model − 1), or None if not significant.

    Periods from 4 samples to ``max_period`` (a quarter of the ring's FSR: a chip of a few mm between its
    facets has a Fabry–Pérot period λ²/(2·n_g·L) of 0.05–0.5 nm; slower structure is the baseline's).

    Returns {"period", "cos_db", "sin_db", "amplitude_db", "sigmas"} for the baseline's
    c·cos(2πΔ/P) + s·sin(2πΔ/P) in dB (Δ = ``ripple_coordinate``); ``keep`` selects the points away from resonances.
    """
    mid = 0.5 * (wl[0] + wl[-1])
    xe = ripple_coordinate(np.asarray(wl, float), mid)
    x = xe[keep]
    y = rel_resid[keep]
    n = x.size
    if n < 64:
        return None
    step = float(np.median(np.diff(wl)))
    span = float(wl[-1] - wl[0])
    lo = 4 * step
    hi = min(max_period, span / 1.5)
    if hi <= 1.5 * lo:
        return None
    if np.ptp(np.diff(wl)) <= 1e-6 * step:  # a uniform sweep: the periodogram by FFT (masked points zero)
        full = np.zeros(wl.size)
        full[keep] = y - y.mean()
        grid = np.linspace(xe[0], xe[-1], wl.size)  # uniform in the ripple's variable
        full = np.interp(grid, xe, full)
        f = np.fft.rfftfreq(wl.size, float(grid[1] - grid[0]))
        power = np.abs(np.fft.rfft(full)) ** 2
        sel = (f >= 1 / hi) & (f <= 1 / lo)
        if not sel.any():
            return None
        best = float(1 / f[sel][int(np.argmax(power[sel]))])
    else:  # Lomb–Scargle on at most 4000 of the points
        k = max(1, n // 4000)
        periods = np.geomspace(lo, hi, 1500)
        power = lombscargle(x[::k], (y - y.mean())[::k], 2 * np.pi / periods, precenter=False)
        best = float(periods[int(np.argmax(power))])
    a = np.stack([np.ones(n), np.cos(2 * np.pi * x / best), np.sin(2 * np.pi * x / best)], 1)
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    amp = math.hypot(coef[1], coef[2])
    se = max(sigma_rel, 1e-12) * math.sqrt(2.0 / n)
    if amp < RIPPLE_SIGMAS * se:
        return None
    db = 10 / math.log(10)  # relative change → dB
    return {"period": best, "cos_db": float(coef[1] * db), "sin_db": float(coef[2] * db),
            "amplitude_db": float(amp * db), "sigmas": float(amp / se)}
