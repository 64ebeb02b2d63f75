"""Input validation shared by cells, models and analyses.

Every check raises a ``ValueError`` that names the parameter, the offending value and
the valid range. Checks run on concrete values only: under ``jax.jit``/``jax.grad``
the values are tracers and cannot raise. There the contract is NaN: ``check_range``
(and the checks built on it) returns the traced value with NaN where it lies outside
the range, so a model that uses the returned value (``loss = check_range("loss", loss,
...)``) gives NaN, never a finite unphysical result; the dispersion model returns NaN
outside its tables the same way (``pdk.dispersion``).

Layout coordinates are 32-bit integers of the database unit (1 nm in gdsfactory/KLayout):
``check_gds_length`` and ``check_gds_extent`` hold lengths and a component's extent inside
that range, where KLayout would otherwise saturate or wrap coordinates silently.
"""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np

GDS_DBU_UM = 0.001  # the database unit of gdsfactory/KLayout layouts (µm)
GDS_MAX_INT = 2**31 - 1  # GDS and KLayout store coordinates as signed 32-bit integers of the database unit


def gds_limit_um(dbu_um: float = GDS_DBU_UM) -> float:
    """Largest |coordinate| (µm) a layout with database unit ``dbu_um`` (µm) can hold: (2³¹ − 1)·dbu."""
    return GDS_MAX_INT * dbu_um


def is_traced(x) -> bool:
    """Whether ``x`` is a JAX tracer (no value is one before JAX is imported: this module does not import it)."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(x, jax.core.Tracer)


def concrete(x):
    """Return ``x`` as a NumPy array, or ``None`` when it is a JAX tracer."""
    if is_traced(x):
        return None
    jax = sys.modules.get("jax")
    if jax is None:
        return np.asarray(x)
    try:
        return np.asarray(x)
    except (jax.errors.TracerArrayConversionError, jax.errors.ConcretizationTypeError):
        return None


def _fmt(v) -> str:
    a = np.asarray(v)
    if a.size == 1:
        a = a.reshape(())
    if a.ndim == 0:
        return f"{a.item():g}" if np.isrealobj(a) else str(a.item())
    return f"array (min {np.nanmin(a):g}, max {np.nanmax(a):g})"


def _fmt_beside(x: float, bounds) -> str:
    """``x`` as ``%g``, or to the last digit when that would print it equal to one of ``bounds`` (0.8000000004
    outside [0.4, 0.8] read "0.8 is outside the valid range [0.4, 0.8]")."""
    text = f"{x:g}"
    return repr(float(x)) if any(text == f"{b:g}" and x != b for b in bounds) else text


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
        ``value`` unchanged, so checks can be chained inline; when ``value`` is traced, ``value`` with NaN
        where it lies outside the range (the jit contract, module docstring).
    """
    if is_traced(value):
        return nan_outside(value, lo, hi, lo_open=lo_open, hi_open=hi_open)
    try:
        a = concrete(value)
    except (TypeError, ValueError):  # ragged or unconvertible input
        a = np.asarray(value, dtype=object) if not isinstance(value, str) else np.asarray(value)
    if a is None:
        return value
    if a.dtype.kind not in "biufc" or isinstance(value, str | bytes | bool):
        raise ValueError(f"{name} = {value!r} must be a number (or an array of numbers)")
    if a.dtype.kind == "c":
        raise ValueError(f"{name} = {_fmt(a)} must be real")
    a = a.astype(float)
    bad = np.isnan(a) | ((a <= lo) if lo_open else (a < lo)) | ((a >= hi) if hi_open else (a > hi))
    if np.any(bad):
        lb = "(" if lo_open else "["
        rb = ")" if hi_open else "]"
        u = f" {unit}" if unit else ""
        where = ""
        if a.size > 1:
            idx = np.unravel_index(int(np.flatnonzero(bad)[0]), a.shape)
            where = (f" (first outside: {name}[{', '.join(map(str, idx))}] = {_fmt_beside(a[idx], (lo, hi))}{u}; "
                     f"{int(bad.sum())} of {a.size} values outside)")
        text = _fmt_beside(a.item(), (lo, hi)) if a.size == 1 else _fmt(a)
        raise ValueError(f"{name} = {text}{u} is outside the valid range {lb}{lo:g}, {hi:g}{rb}{u}{where}")
    return value


def nan_outside(value, lo, hi, *, lo_open: bool = False, hi_open: bool = False):
    """``value`` (traced or not) with NaN where it is NaN or outside [lo, hi] (open ends as flagged): the jit
    contract of the checks. Bounds may be traced too."""
    import jax.numpy as jnp

    v = jnp.asarray(value)
    v = v.astype(float) if not jnp.issubdtype(v.dtype, jnp.inexact) else v
    ok = ~jnp.isnan(v) & ((v > lo) if lo_open else (v >= lo)) & ((v < hi) if hi_open else (v <= hi))
    return jnp.where(ok, v, jnp.nan)


def check_between(name: str, value, lo, hi, *, unit: str = "µm"):
    """``check_range`` with bounds that may depend on other, possibly traced, parameters; when any of them is
    traced, ``value`` with NaN outside the bounds (the jit contract) is returned."""
    lo_c, hi_c = concrete(lo), concrete(hi)
    if lo_c is not None and hi_c is not None:
        return check_range(name, value, float(lo_c), float(hi_c), unit=unit)
    return nan_outside(value, lo, hi)


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


def check_number(name: str, value, *, integer: bool = False, finite: bool = True):
    """Raise ``ValueError`` unless ``value`` is a real number (an integer when ``integer``; finite unless
    ``finite=False``), not a string, bool, list or None; returns it as ``float`` (or ``int``)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and integer:
        ok = isinstance(value, numbers.Integral) or (math.isfinite(value) and float(value).is_integer())
    if not ok:
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{name} = {value!r} must be {kind}")
    if finite and not math.isfinite(value):
        raise ValueError(f"{name} = {value!r} must be a finite number")
    return int(value) if integer else float(value)


def check_scalar(name: str, value, *, unit: str = ""):
    """Raise ``ValueError`` unless ``value`` is one real number (a 0-d array counts); returns it as float."""
    a = concrete(value)
    if a is None:
        return value
    if a.ndim != 0 or a.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a single real number{f' ({unit})' if unit else ''}, got "
                         f"{'shape ' + str(a.shape) if a.ndim else repr(value)}")
    return float(a)


def check_array_1d(name: str, value, *, min_size: int = 1, unit: str = "") -> np.ndarray | None:
    """``value`` as a 1-D float array of at least ``min_size`` finite elements (a scalar becomes one
    element); ValueError otherwise; None when traced."""
    a = concrete(value)
    if a is None:
        return None
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers{f' ({unit})' if unit else ''}, got dtype {a.dtype}")
    a = np.atleast_1d(a.astype(float))
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.size < min_size:
        raise ValueError(f"{name} has {a.size} values; at least {min_size} needed")
    return check_range(name, a, unit=unit, lo=-math.inf, hi=math.inf, lo_open=True, hi_open=True)


def check_gds_length(name: str, value, *, dbu_um: float = GDS_DBU_UM):
    """Raise ``ValueError`` unless |value| (µm) fits the layout's coordinate range (``gds_limit_um``)."""
    lim = gds_limit_um(dbu_um)
    a = concrete(value)
    if a is not None and a.dtype.kind in "biuf" and np.any(np.abs(a.astype(float)) >= lim):
        raise ValueError(f"{name} = {_fmt(a)} µm is outside the layout coordinate range (-{lim:.3f}, {lim:.3f}) µm "
                         f"(32-bit integers of the {dbu_um * 1e3:g} nm database unit)")
    return value


def check_layout_length(name: str, value, lo: float = GDS_DBU_UM, hi: float = math.inf):
    """``check_range`` for a drawn length (µm) of a cell: at least ``lo`` (default one database unit, 1 nm: a
    shorter one draws nothing; ``lo=0`` for a length that may be 0) and at most ``hi``, which is lowered to below
    the layout coordinate range (``gds_limit_um``). Returns ``value`` (NaN outside the range when traced)."""
    lim = gds_limit_um()
    open_hi = hi >= lim
    try:
        return check_range(name, value, lo, min(hi, lim), unit="µm", hi_open=open_hi)
    except ValueError as e:
        try:
            a = np.asarray(value, dtype=float)
        except (TypeError, ValueError):  # not a number: check_range's message says so
            raise e from None
        why = []
        if lo == GDS_DBU_UM and np.any(a < lo):
            why.append("a drawn length is at least the 1 nm database unit")
        if open_hi and np.any(np.abs(a) >= lim):
            why.append(f"the layout coordinate range is ±{lim:.3f} µm: 32-bit integers of the 1 nm database unit")
        raise ValueError(f"{e}{' (' + '; '.join(why) + ')' if why else ''}") from None


def _box_extent(box) -> float:
    """Largest |coordinate| of a box (0 for an empty one)."""
    if callable(getattr(box, "empty", None)) and box.empty():
        return 0.0
    return max(abs(box.left), abs(box.right), abs(box.bottom), abs(box.top))


def layout_extent_um(component) -> float:
    """Largest |coordinate| (µm) of ``component``: its bounding box, and each instance's cell box placed by the
    instance's transformation in floating point (an instance whose placement overflowed the 32-bit coordinates
    wraps around in the integer box, not here). Child cells count by their own boxes."""
    ext = _box_extent(component.dbbox())
    for inst in getattr(component, "insts", ()):
        k = inst.instance
        box = inst.dcplx_trans * inst.cell.dbbox()
        ext = max(ext, _box_extent(box))
        if k.na > 1 or k.nb > 1:  # a regular array: its far corner
            far = (k.na - 1) * k.da + (k.nb - 1) * k.db
            ext = max(ext, _box_extent(box.moved(far.x, far.y)))
    return ext


def check_gds_extent(component, what: str = "layout") -> None:
    """Raise ``ValueError`` unless the component's bounding box lies inside the coordinate range (a
    coordinate that overflowed is saturated at the range's end by KLayout, so touching it is refused)."""
    dbu = float(getattr(getattr(component, "kcl", None), "dbu", GDS_DBU_UM))
    lim = gds_limit_um(dbu)
    ext = layout_extent_um(component)
    if ext >= lim - 2 * dbu:
        raise ValueError(f"{what} extends to {ext:.3f} µm from the origin, at or beyond the layout coordinate range "
                         f"(-{lim:.3f}, {lim:.3f}) µm (32-bit integers of the {dbu * 1e3:g} nm database unit): a "
                         "length or position parameter is too large")
