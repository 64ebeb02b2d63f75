"""Figures of merit of simulated waveforms: eye opening, settling time, energy decay time.

Eye opening (0–1): the worst inter-symbol error at the best sampling instant relative to the static swing,
1 − 2 max_n |y(t_n) − y_static,n| / (max y_static − min y_static), clipped to [0, 1]. For two levels it is the
vertical inner eye over the swing (ISI pulling the ones down and the zeros up by e closes it by 2e); for the
many levels of an analog inner product it is the worst error over the full-scale span.
"""

from __future__ import annotations

import math

import numpy as np


def eye_opening(y, target, samples_per_symbol: int, skip: int = 2, max_delay_symbols: int = 3) -> tuple[float, int]:
    """(opening, delay): the eye opening of samples ``y`` (T,) against per-symbol static values ``target`` (N,),
    at the sampling delay (samples after each symbol's start, 0 … ``max_delay_symbols``·sps − 1) that opens it most.

    The first ``skip`` symbols and the last ``max_delay_symbols`` are left out (edges of the record).
    """
    y = np.asarray(y, dtype=float)
    target = np.asarray(target, dtype=float)
    sps = int(samples_per_symbol)
    n = target.shape[0]
    span = float(target.max() - target.min())
    if span <= 0 or n <= skip + max_delay_symbols:
        return 0.0, 0
    idx = np.arange(skip, n - max_delay_symbols)
    best, best_d = -math.inf, 0
    for delay in range(max_delay_symbols * sps):
        err = np.max(np.abs(y[idx * sps + delay] - target[idx]))
        opening = 1.0 - 2.0 * err / span
        if opening > best:
            best, best_d = opening, delay
    return float(min(max(best, 0.0), 1.0)), int(best_d)


def eye_traces(y, samples_per_symbol: int, delay: int, skip: int = 2, width_symbols: int = 2) -> np.ndarray:
    """Eye-diagram traces (K, width·sps + 1) of ``y``, each window centred on a sampling instant."""
    y = np.asarray(y, dtype=float)
    sps = int(samples_per_symbol)
    w = width_symbols * sps
    starts = np.arange(skip * sps + delay - w // 2, y.size - w - 1, sps)
    starts = starts[starts >= 0]
    return np.stack([y[s:s + w + 1] for s in starts]) if starts.size else np.zeros((0, w + 1))


def settling_time(t, y, tol: float = 0.01, t_step: float = 0.0) -> float:
    """Time after ``t_step`` at which |y − y_final| stays within ``tol`` × |y_final − y(t_step)| (units of ``t``);
    y_final is the last sample. NaN when the record does not settle before its last 10 % ."""
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    after = t >= t_step
    y0 = y[after][0]
    final = y[-1]
    band = tol * abs(final - y0)
    outside = np.flatnonzero(after & (np.abs(y - final) > band))
    if outside.size == 0:
        return 0.0
    last = outside[-1]
    if last >= int(0.9 * y.size):
        return math.nan
    return float(t[last + 1] - t_step)


def decay_time(t, energy, lo: float = 1e-4, hi: float = 0.3) -> float:
    """Energy decay time: −1/slope of a least-squares line through ln(energy) where energy/energy[0] ∈ [lo, hi]."""
    t = np.asarray(t, dtype=float)
    e = np.asarray(energy, dtype=float)
    rel = e / e[0]
    sel = (rel <= hi) & (rel >= lo)
    if sel.sum() < 3:
        raise ValueError(f"the decay record has {int(sel.sum())} samples between {lo:g} and {hi:g} of its start; "
                         "lengthen it or shorten the step")
    slope = np.polyfit(t[sel], np.log(e[sel]), 1)[0]
    return float(-1.0 / slope)
