"""Resonator line shapes: the Airy function of a ring and its Lorentzian limit, with their inversions.

A ring whose round-trip amplitude product is x = t1·t2·a (couplers and loss) has the Airy response
1/(1 + F sin²(πΔ/FSR)) with the coefficient of finesse F = 4x/(1 − x)², whose full width at half
maximum obeys FWHM/FSR = (2/π)·asin((1 − x)/(2√x)) (e.g. Bogaerts et al., Laser Photon. Rev. 6, 47
(2012), eqs. 5–7). Near one line (Δ ≪ FSR) it is the Lorentzian 1/(1 + (2Δ/FWHM)²).

NumPy and JAX arrays both work: the formulas use only array arithmetic (``xp`` follows the input).
Used by the ring specs, spectrum analysis, calibration, crosstalk and recall: one place for them.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np


def _xp(*xs):
    return jnp if any(not isinstance(x, int | float | np.ndarray | np.generic) for x in xs) else np


def x_from_fwhm(fwhm_nm, fsr_nm):
    """Round-trip amplitude x = t1·t2·a whose Airy FWHM is ``fwhm_nm`` (exact inversion; nm, nm → 1).

    With s = sin(π FWHM/(2 FSR)) = (1 − x)/(2√x), √x is the positive root of y² + 2sy − 1 = 0.
    """
    xp = _xp(fwhm_nm, fsr_nm)
    s = xp.sin(math.pi * fwhm_nm / (2.0 * fsr_nm))
    y = xp.sqrt(s * s + 1.0) - s
    return y * y


def fwhm_from_x(x, fsr_nm):
    """Airy FWHM (nm) of round-trip amplitude ``x``: FSR·(2/π)·asin((1 − x)/(2√x)), 0 ≤ argument ≤ 1."""
    xp = _xp(x, fsr_nm)
    arg = xp.clip((1.0 - x) / (2.0 * xp.sqrt(x)), 0.0, 1.0)
    return fsr_nm * 2.0 * xp.arcsin(arg) / math.pi


def coefficient_of_finesse(fsr_nm, fwhm_nm):
    """F of the Airy 1/(1 + F sin²(πΔ/FSR)) whose full width at half maximum is ``fwhm_nm``."""
    xp = _xp(fsr_nm, fwhm_nm)
    return 1.0 / xp.sin(np.pi * xp.asarray(fwhm_nm, float) / (2 * xp.asarray(fsr_nm, float))) ** 2


def airy(offset_nm, fsr_nm, fwhm_nm):
    """Airy ratio 1/(1 + F sin²(πΔ/FSR)) at detuning Δ = ``offset_nm`` (linear; 1 on resonance)."""
    xp = _xp(offset_nm, fsr_nm, fwhm_nm)
    f = coefficient_of_finesse(fsr_nm, fwhm_nm)
    return 1.0 / (1.0 + f * xp.sin(np.pi * xp.asarray(offset_nm, float) / xp.asarray(fsr_nm, float)) ** 2)


def lorentzian(offset_nm, fwhm_nm):
    """Lorentzian 1/(1 + (2Δ/FWHM)²), the Airy ratio's limit near one line (linear; 1 on resonance)."""
    xp = _xp(offset_nm, fwhm_nm)
    return 1.0 / (1.0 + (2 * xp.asarray(offset_nm, float) / xp.asarray(fwhm_nm, float)) ** 2)


def normalized_line(wl, lam0, fwhm, fsr=None):
    """ℒ(λ): 1 at resonance λ0, ½ at ±FWHM/2; Airy with the exact phase 2π(λ0/FSR)(λ0 − λ)/λ, or
    Lorentzian for ``fsr=None``. Same length unit for every argument."""
    if fsr is None:
        return 1.0 / (1.0 + (2.0 * (wl - lam0) / fwhm) ** 2)
    xp = _xp(wl, lam0, fwhm, fsr)
    x = x_from_fwhm(fwhm, fsr)
    phi = 2.0 * np.pi * (lam0 / fsr) * (lam0 - wl) / wl
    return (1.0 - x) ** 2 / (1.0 - 2.0 * x * xp.cos(phi) + x * x)
