"""Extinction of a fitted resonance: through T_max/T0 and drop peak over floor.

Through, T_max/T0 with T_max = 1 − (1 − T0)(1 − x)²/(1 + x)² the off-resonance maximum; drop,
the fitted peak over the floor: the fitted minimum (at antiresonance) plus the median misfit of
the data in the outer fifth of the fit window. When T0 (the floor) is below twice its standard
error, it is replaced by its value plus two standard errors and the extinction is a lower bound.
"""

from __future__ import annotations

import math

from prismpic.components.lineshapes import x_from_fwhm


def through_extinction_db(t0, t0_err, fwhm_nm, fsr_nm) -> tuple[float, float, bool]:
    """Through extinction T_max/T0 (dB), its 1σ (dB) and whether it is a lower bound.

    ``t0``, ``t0_err``: fitted on-resonance transmission (relative to the baseline) and its 1σ;
    ``fwhm_nm``, ``fsr_nm``: linewidth and local FSR (None: Lorentzian, T_max = 1).
    """
    x = x_from_fwhm(fwhm_nm, fsr_nm) if fsr_nm is not None else 1.0
    tmax = 1.0 - (1.0 - t0) * (1.0 - x) ** 2 / (1.0 + x) ** 2
    t0_eff = t0
    bound = t0 < 2.0 * t0_err  # dip bottom within noise: bound T0 from above
    if bound:
        t0_eff = t0 + 2.0 * t0_err
    t0_eff = max(t0_eff, 1e-12)
    return 10.0 * math.log10(tmax / t0_eff), 10.0 / math.log(10.0) * t0_err / t0_eff, bound


def drop_extinction_db(d0, d0_err, offset, floor, floor_err) -> tuple[float, float, bool]:
    """Drop extinction, peak over floor (dB), its 1σ (dB) and whether it is a lower bound.

    ``d0``, ``d0_err``: fitted peak height over the constant ``offset`` and its 1σ; ``floor``,
    ``floor_err``: the fitted floor and its standard error (same units).
    """
    peak = d0 + offset
    bound = floor < 2.0 * floor_err  # not measured above noise: bound it from above
    if bound:
        floor = max(floor, 0.0) + 2.0 * floor_err
    floor = max(floor, 1e-12 * peak)
    return 10.0 * math.log10(peak / floor), 10.0 / math.log(10.0) * d0_err / max(peak, 1e-300), bound
