"""Input validation shared by cells, models and analyses.

Every check raises a ``ValueError`` that names the parameter, the offending value and
the valid range. Checks run on concrete values only: under ``jax.jit``/``jax.grad``
the values are tracers and the checks are skipped (the traced call was validated
when the user built it with concrete values, or is the user's responsibility).
"""

from __future__ import annotations

import math

import jax
import numpy as np


def concrete(x):
    """Return ``x`` as a NumPy array, or ``None`` when it is a JAX tracer."""
    if isinstance(x, jax.core.Tracer):
        return None
    try:
        return np.asarray(x)
    except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
        return None


def _fmt(v) -> str:
    a = np.asarray(v)
    if a.ndim == 0:
        return f"{a.item():g}" if np.isrealobj(a) else str(a.item())
    return f"array (min {np.nanmin(a):g}, max {np.nanmax(a):g})"


def check_range(
    name: str,
    value,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    unit: str = "",
    lo_open: bool = False,
    hi_open: bool = False,
):
    """Raise ``ValueError`` unless every element of ``value`` lies in the range.

    Args:
        name: parameter name as the user wrote it.
        value: scalar or array (skipped when traced).
        lo, hi: bounds; ``lo_open``/``hi_open`` make them exclusive.
        unit: unit appended to the message.

    Returns:
        ``value`` unchanged, so checks can be chained inline.
    """
    a = concrete(value)
    if a is None:
        return value
    if a.dtype.kind == "c":
        raise ValueError(f"{name} = {_fmt(a)} must be real")
    a = a.astype(float)
    bad = np.isnan(a) | ((a <= lo) if lo_open else (a < lo)) | ((a >= hi) if hi_open else (a > hi))
    if np.any(bad):
        lb = "(" if lo_open else "["
        rb = ")" if hi_open else "]"
        u = f" {unit}" if unit else ""
        raise ValueError(f"{name} = {_fmt(a)}{u} is outside the valid range {lb}{lo:g}, {hi:g}{rb}{u}")
    return value


def check_between(name: str, value, lo, hi, *, unit: str = "µm"):
    """``check_range`` with bounds that may depend on other, possibly traced, parameters (skipped when they are)."""
    lo_c, hi_c = concrete(lo), concrete(hi)
    if lo_c is not None and hi_c is not None:
        check_range(name, value, float(lo_c), float(hi_c), unit=unit)


def check_positive(name: str, value, *, unit: str = ""):
    """Raise ``ValueError`` unless ``value`` > 0 (finite)."""
    return check_range(name, value, 0.0, math.inf, unit=unit, lo_open=True, hi_open=True)


def check_nonnegative(name: str, value, *, unit: str = ""):
    """Raise ``ValueError`` unless ``value`` >= 0 (finite)."""
    return check_range(name, value, 0.0, math.inf, unit=unit, hi_open=True)


def check_choice(name: str, value, choices):
    """Raise ``ValueError`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} = {value!r} is not one of {sorted(map(str, choices))}")
    return value


def check_power_of_two(name: str, value: int, lo: int = 1, hi: int = 2**20):
    """Raise ``ValueError`` unless ``value`` is an integer power of two in [lo, hi]."""
    if not isinstance(value, (int, np.integer)) or value < lo or value > hi or value & (value - 1):
        raise ValueError(f"{name} = {value!r} must be a power of two in [{lo}, {hi}]")
    return int(value)
