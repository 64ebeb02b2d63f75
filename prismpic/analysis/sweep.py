"""Vectorised, differentiable parameter sweeps of any model or circuit.

``sweep(fn, axes, wl=...)`` evaluates ``fn(wl=wl, **fixed, **point)`` on the Cartesian
grid of ``axes`` (or on zipped axes), with ``jax.vmap`` over the grid points (in batches
through ``jax.lax.map``) under one ``jax.jit``; ``grad=("gap", ...)`` adds the derivatives
of the output with respect to swept parameters (forward mode, ``jax.jacfwd`` per point).
``fn`` is any jittable function: a SAX model (output: a port pair, as power, dB, phase or
the complex value), a circuit's fast model, or a user function returning an array.

JAX models skip their range checks under tracing, so ``sweep`` first calls ``fn`` eagerly at
the grid's true extremes: every corner of a crossed grid (for up to ``MAX_CORNER_AXES`` axes;
beyond, each axis's ends), every point of a zipped grid of up to ``MAX_EAGER_POINTS`` points
(beyond, the points holding each axis's ends), each at the lowest and highest wavelength. A grid
reaching outside a model's valid range raises the model's ValueError before the sweep. Ranges
that couple parameters inside the grid (the dispersion model's domain) are caught point by
point after the jitted run: the dispersion model returns NaN outside its domain under tracing,
and the first point with a non-finite value is evaluated eagerly for the model's own message —
no value is written for a grid with a point outside the domain.

Grids are capped: at most ``MAX_VALUES`` values (points × wavelengths × (1 + gradients)) are
held, ``MAX_CSV_ROWS`` rows written to CSV; ``parse_range`` refuses larger counts before
allocating anything.

Results (``SweepResult``) write to CSV (long format: one row per grid point and
wavelength) or NPZ (arrays with the axes), and draw a figure (``plot``).
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.fileio import save_figure_atomic, write_atomic

QUANTITIES = ("power", "db", "phase", "real", "imag", "value")
MAX_VALUES = 10_000_000  # grid points × wavelengths × (1 + gradients) held in memory (80 MB of float64)
MAX_CSV_ROWS = 2_000_000  # rows of a CSV file (≈ 100 MB, tens of seconds to write); NPZ holds MAX_VALUES
MAX_POINTS = 1_000_000  # grid points × wavelengths evaluated per vmapped batch (bounds the intermediates)
MAX_CORNER_AXES = 6  # crossed grids of up to this many axes are checked at all 2^k corners
MAX_EAGER_POINTS = 64  # zipped grids of up to this many points are checked at every point


# ---------------------------------------------------------------------------- parsing helpers
def parse_range(text: str, name: str = "range", max_n: int = MAX_VALUES) -> np.ndarray:
    """Values from ``"lo:hi:n"`` (n points, inclusive, 1 ≤ n ≤ ``max_n``), ``"a,b,c"`` or a single number;
    all finite."""
    t = text.strip()
    form = f"{name} = {text!r} must be 'lo:hi:n' (n ≥ 1 points), 'a,b,c' or a number"
    try:
        if ":" in t:
            parts = t.split(":")
            if len(parts) != 3:
                raise ValueError
            lo, hi, n = float(parts[0]), float(parts[1]), int(parts[2].strip())
            if n < 1:
                raise ValueError
        else:
            vals = np.array([float(v) for v in t.split(",") if v.strip()], float)
            if vals.size == 0:
                raise ValueError
    except ValueError:
        raise ValueError(form) from None
    if ":" in t:
        if n > max_n:
            raise ValueError(f"{name} = {text!r} asks for {n:,} points, more than the limit of {max_n:,}; "
                             "sweep fewer points or split the sweep")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"{name} = {text!r}: lo and hi must be finite numbers")
        return np.linspace(lo, hi, n)
    if not np.all(np.isfinite(vals)):
        raise ValueError(f"{name} = {text!r}: values must be finite numbers")
    return vals


def grid_values(sizes, n_wl: int = 1, n_grad: int = 0, zip_axes: bool = False) -> int:
    """Values a sweep holds: grid points (product of ``sizes``, or one size when zipped) × wavelengths ×
    (1 + gradients), as an exact integer (nothing allocated)."""
    sizes = [int(n) for n in sizes]
    points = (sizes[0] if sizes else 0) if zip_axes else math.prod(sizes)
    return points * max(int(n_wl), 1) * (1 + int(n_grad))


def check_grid_size(sizes, n_wl: int = 1, n_grad: int = 0, zip_axes: bool = False, csv: bool = False) -> int:
    """ValueError if the grid holds more than ``MAX_VALUES`` values (or, for CSV, ``MAX_CSV_ROWS`` rows);
    returns the number of grid points."""
    sizes = [int(n) for n in sizes]
    points = (sizes[0] if sizes else 0) if zip_axes else math.prod(sizes)
    total = grid_values(sizes, n_wl, n_grad, zip_axes)
    if total > MAX_VALUES:
        raise ValueError(f"the sweep grid has {points:,} points × {max(n_wl, 1):,} wavelengths"
                         + (f" × (1 + {n_grad} gradients)" if n_grad else "")
                         + f" = {total:,} values, more than the limit of {MAX_VALUES:,} "
                         f"({MAX_VALUES * 8 // 2**20} MiB of float64); sweep fewer points or split the sweep")
    rows = points * max(int(n_wl), 1)
    if csv and rows > MAX_CSV_ROWS:
        raise ValueError(f"the sweep grid has {rows:,} rows (points × wavelengths), more than the CSV limit of "
                         f"{MAX_CSV_ROWS:,}; write .npz instead, or sweep fewer points")
    return points


def output_bytes(points: int, n_wl: int, n_axes: int, n_grad: int, suffix: str) -> int:
    """Estimated size (bytes) of a sweep file: NPZ float64 arrays, CSV rows of ``repr`` floats (≈ 21 bytes)."""
    n = points * max(int(n_wl), 1)
    if suffix.lower() == ".npz":
        return 8 * n * (1 + n_grad) + 8 * points * n_axes + 4096
    return 21 * n * (n_axes + 2 + n_grad) + 4096


def port_pair(output) -> tuple[str, str]:
    """("o1", "o2") from ``"o1,o2"``, ``"o1->o2"`` or a tuple."""
    if isinstance(output, str):
        parts = [p.strip() for p in output.replace("->", ",").split(",")]
    else:
        parts = list(output)
    if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
        raise ValueError(f"port = {output!r} must name two ports, e.g. 'o1,o2'")
    return parts[0], parts[1]


def _extract(result, output, quantity):
    """The swept array from ``fn``'s result: a port pair of an SDict (or ``output(result)``) as ``quantity``."""
    if callable(output):
        v = output(result)
    elif isinstance(result, Mapping):
        key = port_pair(output) if output is not None else None
        if key is None:
            raise ValueError(f"the function returns S-parameters {sorted(result)}: give output, e.g. 'o1,o2'")
        if key not in result:
            raise ValueError(f"port = {key} is not an S-parameter of the model; available: {sorted(result)}")
        v = result[key]
    else:
        v = result
    v = jnp.asarray(v)
    if quantity == "power":
        return jnp.abs(v) ** 2
    if quantity == "db":
        return 10 * jnp.log10(jnp.abs(v) ** 2 + 1e-30)
    if quantity == "phase":
        return jnp.angle(v)
    if quantity == "real":
        return jnp.real(v)
    if quantity == "imag":
        return jnp.imag(v)
    return v


# ---------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class SweepResult:
    """A sweep's values on its grid.

    Attributes:
        axes: swept parameter → its values (1-D), in grid order.
        wl: wavelengths (µm) or None.
        values: shape (*axis lengths[, n_wl]) (product grid) or (n_points[, n_wl]) (zipped axes).
        grads: parameter → d values / d parameter, same shape as ``values``.
        quantity: what ``values`` hold (``power``, ``db``, ...), ``label`` a name for it.
        zipped: True when the axes were zipped (one point per index) rather than crossed.
        seconds: wall time of the sweep (after compilation when run with ``timing``); ``compile_seconds``
            the compilation time then (0 without ``timing``).
    """

    axes: dict
    wl: np.ndarray | None
    values: np.ndarray
    grads: dict = field(default_factory=dict)
    quantity: str = "power"
    label: str = ""
    zipped: bool = False
    seconds: float = 0.0
    compile_seconds: float = 0.0

    @property
    def n_points(self) -> int:
        """Grid points evaluated (each a full wavelength sweep)."""
        return int(np.prod([len(v) for v in self.axes.values()])) if not self.zipped else len(
            next(iter(self.axes.values())))

    @property
    def evaluations_per_second(self) -> float:
        """Grid points (model evaluations over all wavelengths) per second, after compilation."""
        return self.n_points / self.seconds if self.seconds > 0 else math.inf

    def points(self) -> dict[str, np.ndarray]:
        """Flattened grid: parameter → value at each point (n_points,)."""
        if self.zipped:
            return {k: np.asarray(v) for k, v in self.axes.items()}
        mesh = np.meshgrid(*self.axes.values(), indexing="ij")
        return {k: m.ravel() for k, m in zip(self.axes, mesh, strict=True)}

    def save(self, path) -> Path:
        """Write CSV (``.csv``) or NPZ (``.npz``), atomically."""
        path = Path(path)
        if path.suffix.lower() == ".csv":
            return self.to_csv(path)
        if path.suffix.lower() == ".npz":
            return self.to_npz(path)
        raise ValueError(f"out = {str(path)!r} must end in .csv or .npz")

    def to_npz(self, path) -> Path:
        """Arrays: values, wl_um, one axis per parameter (``axis_<name>``), grads (``grad_<name>``)."""
        arrays = {"values": self.values, "quantity": np.array(self.quantity), "axis_names": np.array(list(self.axes))}
        if self.wl is not None:
            arrays["wl_um"] = self.wl
        for k, v in self.axes.items():
            arrays[f"axis_{k}"] = np.asarray(v)
        for k, v in self.grads.items():
            arrays[f"grad_{k}"] = v
        return write_atomic(path, lambda f: np.savez(f, **arrays), binary=True)

    def to_csv(self, path) -> Path:
        """Long format: one row per grid point (and wavelength): parameters, wl_um, value, d value/d param."""
        pts = self.points()
        n = self.n_points
        vals = self.values.reshape(n, -1)
        if n * vals.shape[1] > MAX_CSV_ROWS:
            raise ValueError(f"out = {str(path)!r}: {n * vals.shape[1]:,} rows exceed the CSV limit of {MAX_CSV_ROWS:,}; "
                             "write .npz instead")
        grads = {k: v.reshape(n, -1) for k, v in self.grads.items()}
        header = list(pts) + (["wl_um"] if self.wl is not None else []) + [self.label or self.quantity]
        header += [f"d_{self.label or self.quantity}_d_{k}" for k in grads]

        def write(f):
            w = csv.writer(f)
            w.writerow(header)
            for i in range(n):
                for j in range(vals.shape[1]):
                    row = [repr(float(pts[k][i])) for k in pts]
                    if self.wl is not None:
                        row.append(repr(float(self.wl[j])))
                    row.append(repr(float(np.real(vals[i, j]))))
                    row += [repr(float(np.real(g[i, j]))) for g in grads.values()]
                    w.writerow(row)

        return write_atomic(path, write)

    def plot(self, path, *, title: str | None = None) -> Path:
        """PNG: values versus wavelength for every grid point (≤ 12 curves) or, without wavelengths,
        versus the first axis (a map over the first two axes when there are two); gradients below."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = 2 if self.grads else 1
        fig, axs = plt.subplots(rows, 1, figsize=(8, 3.6 * rows), squeeze=False, constrained_layout=True)
        names = list(self.axes)
        pts = self.points()
        n = self.n_points
        lab = self.label or self.quantity
        series = [(lab, self.values)] + [(f"∂{lab}/∂{k}", g) for k, g in list(self.grads.items())[:1]]
        for ax, (ylab, arr) in zip(axs[:, 0], series, strict=False):
            flat = np.real(arr.reshape(n, -1))
            if self.wl is not None and flat.shape[1] > 1:
                idx = np.unique(np.linspace(0, n - 1, min(n, 12)).round().astype(int))
                for i in idx:
                    ax.plot(self.wl * 1e3, flat[i], lw=0.9,
                            label=", ".join(f"{k}={pts[k][i]:.4g}" for k in names))
                ax.set_xlabel("wavelength (nm)")
                if len(idx) <= 12:
                    ax.legend(fontsize=6, ncol=2)
            elif len(names) == 2 and not self.zipped:
                a0, a1 = (np.asarray(v) for v in self.axes.values())
                im = ax.pcolormesh(a1, a0, flat[:, 0].reshape(len(a0), len(a1)), shading="auto")
                fig.colorbar(im, ax=ax, label=ylab)
                ax.set_xlabel(names[1])
                ax.set_ylabel(names[0])
                continue
            else:
                ax.plot(pts[names[0]], flat[:, 0], "o-", ms=3)
                ax.set_xlabel(names[0])
            ax.set_ylabel(ylab)
        axs[0, 0].set_title(title or f"sweep of {', '.join(names)} ({n} points, {self.evaluations_per_second:.3g}/s)",
                            fontsize=9)
        out = save_figure_atomic(fig, path)
        plt.close(fig)
        return out


# ---------------------------------------------------------------------------- sweep
def model_function(name: str) -> Callable:
    """The SAX model registered for cell ``name`` in the PDK."""
    from prismpic.circuits.registry import models

    found = models()
    if name not in found:
        raise ValueError(f"model = {name!r} is not a registered model; choose from {sorted(found)}")
    return found[name]


def vectorize(fn: Callable, names: tuple[str, ...], *, wl=None, fixed: Mapping | None = None, output=None,
              quantity: str = "power") -> Callable:
    """``f(*columns) -> values``: ``fn`` vmapped over points whose parameters ``names`` come as equal-length
    1-D arrays (jittable and differentiable; no range checks, as under any trace)."""
    fixed = dict(fixed or {})
    wl_arr = None if wl is None else jnp.asarray(wl, dtype=float)

    def one(*vals):
        kw = dict(fixed)
        kw.update(zip(names, vals, strict=True))
        res = fn(wl=wl_arr, **kw) if wl_arr is not None else fn(**kw)
        return _extract(res, output, quantity)

    return jax.vmap(one)


def sweep(
    fn: Callable | str,
    axes: Mapping[str, object],
    *,
    wl=None,
    fixed: Mapping | None = None,
    output=None,
    quantity: str = "power",
    grad: tuple[str, ...] | list[str] = (),
    zip_axes: bool = False,
    batch_size: int | None = None,
    label: str = "",
    check: bool = True,
    timing: bool = False,
) -> SweepResult:
    """Evaluate ``fn`` over a parameter grid (and wavelengths), vectorised and jitted.

    Args:
        fn: a jittable function ``fn(wl=..., **params)`` (or ``fn(**params)`` when ``wl`` is None),
            or the name of a registered model.
        axes: parameter name → values (1-D). Crossed into a grid, or zipped with ``zip_axes``.
        wl: wavelengths (µm), passed as one array (models broadcast over it), or None.
        fixed: other keyword arguments, held.
        output: for an SDict result, the port pair (``"o1,o2"``); or a function result → array.
        quantity: ``"power"`` (|S|²), ``"db"``, ``"phase"``, ``"real"``, ``"imag"`` or ``"value"`` (as is).
        grad: swept parameters to differentiate the output by (forward mode).
        zip_axes: pair the axes element by element instead of crossing them.
        batch_size: grid points per vmapped batch (default: all, up to ``MAX_POINTS`` values).
        label: name of the output (CSV column, figure).
        check: call ``fn`` eagerly at the grid's extremes first (the model's range checks; see the module
            docstring), and refuse a result with non-finite values, naming the first such point.
        timing: run the compiled sweep a second time, so that ``seconds`` (and the throughput)
            exclude compilation; otherwise ``seconds`` is the first run, compilation included.

    Returns:
        :class:`SweepResult`.
    """
    from prismpic.checks import check_choice

    if isinstance(fn, str):
        label = label or (f"{quantity} {fn}" + (f" {port_pair(output)[0]}→{port_pair(output)[1]}"
                                                 if output is not None and not callable(output) else ""))
        fn = model_function(fn)
    check_choice("quantity", quantity, QUANTITIES)
    if not axes:
        raise ValueError("axes must name at least one parameter to sweep")
    ax = {}
    for k, v in axes.items():
        a = np.atleast_1d(np.asarray(v, dtype=float))
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"axis {k} must be a non-empty 1-D array of values, got shape {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"axis {k} has NaN or infinite values")
        ax[k] = a
    fixed = dict(fixed or {})
    clash = sorted(set(fixed) & set(ax))
    if clash:
        raise ValueError(f"{clash} are both swept and fixed")
    for g in grad:
        if g not in ax:
            raise ValueError(f"grad = {g!r} is not a swept parameter; swept: {sorted(ax)}")
    if zip_axes and len({a.size for a in ax.values()}) != 1:
        raise ValueError(f"zip_axes needs equal axis lengths, got {{{', '.join(f'{k}: {a.size}' for k, a in ax.items())}}}")
    names = tuple(ax)
    wl_np = None if wl is None else np.atleast_1d(np.asarray(wl, dtype=float))
    if wl_np is not None and (wl_np.ndim != 1 or wl_np.size == 0 or not np.all(np.isfinite(wl_np))):
        raise ValueError(f"wl must be a non-empty 1-D array of finite wavelengths (µm), got shape {wl_np.shape}")
    check_grid_size([a.size for a in ax.values()], 1 if wl_np is None else wl_np.size, len(grad), zip_axes)
    if zip_axes:
        cols = [ax[k] for k in names]
        shape = (ax[names[0]].size,)
    else:
        mesh = np.meshgrid(*(ax[k] for k in names), indexing="ij")
        cols = [m.ravel() for m in mesh]
        shape = tuple(a.size for a in ax.values())
    wl_arr = None if wl_np is None else jnp.asarray(wl_np)

    def call(point, wl_values):
        kw = {**fixed, **point}
        res = fn(wl=jnp.asarray(wl_values), **kw) if wl_values is not None else fn(**kw)
        return _extract(res, output, quantity)

    if check:
        wl_ends = None if wl_np is None else np.unique([wl_np.min(), wl_np.max()])
        for point in extreme_points(ax, cols, zip_axes):
            call(point, wl_ends)
    n = cols[0].size
    n_wl = 1 if wl_arr is None else int(wl_arr.size)
    bs = batch_size or max(1, min(n, MAX_POINTS // max(n_wl * (1 + len(grad)), 1)))
    if not isinstance(bs, (int, np.integer)) or bs < 1:
        raise ValueError(f"batch_size = {batch_size!r} must be a positive integer")
    gidx = tuple(names.index(g) for g in grad)
    traced = {k: jnp.asarray(v, dtype=float) for k, v in fixed.items() if _numeric(v)}
    static = tuple(sorted((k, v) for k, v in fixed.items() if k not in traced))
    try:
        hash((fn, static, output))
        run = _compiled(fn, names, static, output, quantity, gidx, int(bs), wl_arr is None)
    except TypeError:  # unhashable function or settings: compile for this call only
        run = _compiled.__wrapped__(fn, names, static, output, quantity, gidx, int(bs), wl_arr is None)
    stacked = jnp.stack([jnp.asarray(c) for c in cols], axis=1)
    wl_in = jnp.zeros(0) if wl_arr is None else wl_arr
    t0 = time.perf_counter()
    out = jax.block_until_ready(run(stacked, wl_in, traced))
    t1 = time.perf_counter()
    if timing:  # a second, compiled run for the throughput
        out = jax.block_until_ready(run(stacked, wl_in, traced))
    t2 = time.perf_counter()
    values, grads = out
    if check:
        _check_finite(values, grads, names, cols, lambda point: call(point, wl_np))
    tail = tuple(np.shape(values)[1:])
    res_vals = np.asarray(values).reshape(shape + tail)
    res_grads = {g: np.asarray(v).reshape(shape + tail) for g, v in zip(grad, grads, strict=True)}
    return SweepResult(axes=ax, wl=None if wl_arr is None else np.asarray(wl_arr), values=res_vals,
                       grads=res_grads, quantity=quantity, label=label, zipped=zip_axes,
                       seconds=(t2 - t1) if timing else (t1 - t0),
                       compile_seconds=((t1 - t0) - (t2 - t1)) if timing else 0.0)


def extreme_points(ax: Mapping[str, np.ndarray], cols, zip_axes: bool) -> list[dict]:
    """The grid points checked eagerly before a sweep (see the module docstring)."""
    names = list(ax)
    if zip_axes:
        n = cols[0].size
        idx = range(n) if n <= MAX_EAGER_POINTS else sorted({int(f(c)) for c in cols for f in (np.argmin, np.argmax)})
        return [{k: float(c[i]) for k, c in zip(names, cols, strict=True)} for i in idx]
    ends = [np.unique([a.min(), a.max()]) for a in ax.values()]
    if len(names) <= MAX_CORNER_AXES:
        return [dict(zip(names, map(float, combo), strict=True)) for combo in itertools.product(*ends)]
    first = {k: float(a[0]) for k, a in ax.items()}
    return [{**first, k: float(v)} for k, e in zip(names, ends, strict=True) for v in e]


def _check_finite(values, grads, names, cols, call) -> None:
    """ValueError naming the first grid point with a non-finite value: the model's own message when an eager
    evaluation there raises (a point outside its domain), else the point and the values."""
    bad = ~np.isfinite(np.asarray(values))
    for g in grads:
        bad |= ~np.isfinite(np.asarray(g))
    bad = bad.reshape(bad.shape[0], -1).any(axis=1)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    point = {k: float(c[i]) for k, c in zip(names, cols, strict=True)}
    where = ", ".join(f"{k} = {v:g}" for k, v in point.items())
    try:
        call(point)
    except ValueError as e:
        raise ValueError(f"sweep point {where} ({int(bad.sum())} of {bad.size} points affected): {e}") from None
    raise ValueError(f"the model gives NaN or infinite values at the sweep point {where} ({int(bad.sum())} of "
                     f"{bad.size} points affected); nothing is written")


def _numeric(v) -> bool:
    try:
        a = np.asarray(v)
    except Exception:  # noqa: BLE001
        return False
    return a.dtype.kind in "biuf" and not isinstance(v, bool)


@functools.lru_cache(maxsize=64)
def _compiled(fn, names, static, output, quantity, gidx, batch_size, no_wl):
    """jit(points, wl, traced fixed → (values, grads)) for one sweep structure (cached across calls; its program
    reused across runs, ``program_cache``: tracing a model under ``jacfwd`` and ``lax.map`` costs seconds)."""
    static = dict(static)

    def run(stacked, wl, traced):
        def point(vals):
            kw = {**static, **traced}
            kw.update(zip(names, vals, strict=True))
            res = fn(**kw) if no_wl else fn(wl=wl, **kw)
            return _extract(res, output, quantity)

        def per_point(vals):
            out = point(vals)
            if not gidx:
                return out, ()
            jac = jax.jacfwd(point)(vals)  # (..., n_params)
            return out, tuple(jac[..., i] for i in gidx)

        return jax.lax.map(per_point, stacked, batch_size=batch_size)

    return program_cache.reuse(run)


def ring_sweep_throughput(n_gaps: int = 100, n_wl: int = 1001, repeats: int = 3) -> dict:
    """Evaluations per second of the default add-drop ring's through power over ``n_wl`` wavelengths
    (1.54–1.56 µm), vmapped over ``n_gaps`` gaps in [0.15, 0.6] µm; best of ``repeats`` after compilation."""
    from prismpic.components import rings

    wl = np.linspace(1.54, 1.56, n_wl)
    gaps = np.linspace(0.15, 0.6, n_gaps)
    res = sweep(rings.ring_add_drop_model, {"gap": gaps}, wl=wl, output="o1,o2", timing=True)
    f = jax.jit(vectorize(rings.ring_add_drop_model, ("gap",), wl=wl, output="o1,o2"))
    jax.block_until_ready(f(jnp.asarray(gaps)))
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(jnp.asarray(gaps)))
        best = min(best, time.perf_counter() - t0)
    return {"n_gaps": n_gaps, "n_wl": n_wl, "seconds": best, "evaluations_per_s": n_gaps / best,
            "wavelength_points_per_s": n_gaps * n_wl / best, "sweep_seconds": res.seconds,
            "compile_seconds": res.compile_seconds}


def grid_product(axes: Mapping[str, object]) -> list[dict]:
    """The points of a (small) product grid as a list of dicts, in ``sweep``'s order."""
    names = list(axes)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(np.atleast_1d(axes[k])
                                                                                 for k in names))]
