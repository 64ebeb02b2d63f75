"""Bend radiation of the ridge's TE mode, tabulated from leaky-mode bend solves at the radii rings use.

A bent rib radiates into the slab beside it. Its loss is 2 k0 Im n_eff of the bend's leaky mode, which the
mode solver finds with a PML on the outer side (``modesolver.solve_modes``, conformal bend coordinates).
The table holds ln Im n_eff of the decoupled TE mode on a Lobatto grid of wavelength, width (in 1/width), film,
etch fraction, wall angle and radius 10–40 µm, for both claddings and both in-plane crystal axes; a tensor
Chebyshev interpolant reads it (``chebyshev.ChebyshevFit``). Why these choices, measured at the default ridge
(R = 20 µm, SiO2):

- ln Im n_eff is close to linear in R (Marcuse, Bell Syst. Tech. J. 50, 2551 (1971): α ∝ exp(−U R)); slopes
  −0.47, −0.50, −0.52, −0.525 /µm between 10, 14, 20, 28 and 40 µm; 4 radius nodes.
- It changes 2× per 10 nm of etch (0.30 → 0.45 µm: ln Im −7.7 → −22.2), convex: 5 etch-fraction nodes.
- It is not monotonic in the film at a fixed etch fraction (minimum near 0.45–0.5 µm): 4 film nodes.
- Wall angle 60 → 90°: ln Im −10.97 → −10.66, linear: 2 nodes. λ 1.45 → 1.65 µm: within 0.02 of linear.
- The solve's mesh: 30 nm steps with 4 µm of slab and a 2 µm PML (``MESH``) is 3.6 % above a 10 nm solve
  (6.96 against 6.72 dB/cm along z, 5.47 against 5.28 along y); the default 0.8 µm PML 2 µm from the wall
  reflects part of the radiation back (−3 to −7 %).

Beyond 40 µm the loss continues the exponential of the last two radius nodes (Marcuse's law, not a solve; at the
default ridge it is then below 1e-8 dB/cm). Im n_eff below ``IM_FLOOR`` is the solver's rounding (it reads
±1e-14 at 60 µm) and is replaced along R by that exponential. Around a ring (X-cut film) the TE field turns from
crystal z to y; the local rate is taken as exp(ln α_z cos²θ + ln α_y sin²θ) (the radiation exponent follows the
in-plane index), whose average over θ is √(α_z α_y) I₀(½ ln(α_z/α_y)): ``loss_db_per_cm``. Every 90° arc from a
crystal axis has the same average as the whole ring.
"""

from __future__ import annotations

import functools
import json
import os
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import i0e
from scipy.special import i0e as scipy_i0e

from prismpic.pdk.chebyshev import ChebyshevFit, coefficients_from_nodes, filled_nan, node_values
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.table_runs import load_job_cache, run_jobs
from prismpic.pdk.tables import DATA_DIR, started_table_build, write_table

TABLE_NAME = "bend_radiation"
GRID = {"wl": (1.45, 1.65, 2), "width": (0.8, 2.0, 4), "film": (0.4, 0.8, 4), "etch_fraction": (0.5, 0.8, 5),
        "angle": (60.0, 90.0, 2)}
RADIUS = (10.0, 40.0, 4)
MESH = {"pad_x": 4.0, "pml": 2.0}
AXES = ("z", "y")
CLADDINGS = ("sio2", "air")
# the prior exponent is smooth and cheap (no mode solve): a dense grid of it holds its interpolant to ≲ 1e-3
PRIOR_GRID = {"wl": (1.45, 1.65, 3), "width": (0.8, 2.0, 6), "film": (0.4, 0.8, 9), "etch_fraction": (0.5, 0.8, 9),
              "angle": (60.0, 90.0, 3)}
PRIOR_POWER = 2.0  # of the prior exponent (``prior_exponent``)
IM_FLOOR = 1e-11  # Im n_eff below this (≈ 3.5e-6 dB/cm at 1.55 µm) is not resolved by the solve
_LOG10E = 0.4342944819032518


def radius_nodes() -> np.ndarray:
    """The table's radii (µm), ascending."""
    return node_values("radius", *RADIUS)


def _grid_points():
    axes = [node_values(k, *v) for k, v in GRID.items()]
    return [(idx, tuple(float(a[i]) for a, i in zip(axes, idx, strict=True)))
            for idx in np.ndindex(*(len(a) for a in axes))]


def table_spec() -> dict:
    """What the table is solved from (grid, radii, mesh, axes, claddings): a table with the same spec is the same."""
    return json.loads(json.dumps({"grid": GRID, "radius_um": RADIUS, "mesh": MESH, "axes": AXES,
                                  "claddings": CLADDINGS}))


def build_table(out_dir: str | Path = DATA_DIR, workers: int | None = None, progress=None,
                reuse_from: str | Path | None = None) -> dict:
    """Solve the leaky bend modes at every node and radius and write ``bend_radiation.npz`` / ``.json``.

    One job per (cladding, axis, node) solves its radii from the largest down, each search starting where the
    larger radii predict (``table_jobs.bend_radiation_line_job``); finished jobs are kept in a cache file beside
    the table, so an interrupted build resumes.

    Args:
        out_dir: folder for the table (default: the package data folder, which the models read).
        workers: processes (default min(2, CPU count)).
        progress: optional callable(done, total).
        reuse_from: folder of an earlier table: copied instead of solved when it was solved from the same
            ``table_spec()``.

    Returns:
        the metadata written to the json file.
    """
    from prismpic.pdk import dispersion

    out_dir, meta = started_table_build(out_dir, TABLE_NAME, table_spec(), reuse_from)
    if meta is not None:
        return meta
    cache_file = out_dir / f".{TABLE_NAME}.cache.jsonl"
    radii = [float(r) for r in radius_nodes()]
    tasks = []
    for clad in CLADDINGS:
        for axis in AXES:
            for idx, (wl, w, t, f, a) in _grid_points():
                straight = float(dispersion.neff(wl, RidgeStack(width=w, film_thickness=t, etch_depth=f * t,
                                                                sidewall_angle_deg=a, cladding=clad), np.inf, "te", axis))
                tasks.append(("bendrad", (clad, axis, idx), (clad, a, axis, wl, w, t, f, radii, straight, MESH)))
    t0, c0 = time.perf_counter(), time.process_time()
    res, _, cpu = run_jobs(tasks, workers or min(2, os.cpu_count() or 1), progress, 0, len(tasks),
                           load_job_cache(cache_file), cache_file)
    shape = tuple(n for *_, n in GRID.values()) + (len(radii),)
    arrays = {}
    for clad in CLADDINGS:
        for axis in AXES:
            im = np.full(shape, np.nan)
            for idx, _ in _grid_points():
                line = res[("bendrad", (clad, axis, idx))]
                im[idx] = [np.nan if v is None else v[0] for v in line]
            arrays[f"{clad}_{axis}_imag"] = im
    meta = {**table_spec(),
            "mode": "decoupled TE (modesolver.bend_modes(decouple_tm=True)), Im n_eff with a PML on the outer side",
            "solves": len(tasks) * len(radii), "wall_s": round(time.perf_counter() - t0, 1),
            "cpu_s_workers": round(cpu, 1), "cpu_s_parent": round(time.process_time() - c0, 1),
            "built": time.strftime("%Y-%m-%d")}
    write_table(out_dir, TABLE_NAME, arrays, meta)
    return meta


def slab_te0_index(wl, thickness, n_core, n_below, n_above):
    """TE0 index of an asymmetric slab: k0 t κ = atan(γ_b/κ) + atan(γ_a/κ) (κ, γ: transverse wavenumbers / k0).

    Bisection (60 halvings) to the root; under a JAX trace one Newton step at that root (held constant) carries
    the implicit-function derivative, jittable; on concrete inputs the same bisection in NumPy (an eager
    ``fori_loop`` compiles at every new shape). The index of the lower cladding where no TE0 mode is guided.
    """
    xs = (wl, thickness, n_core, n_below, n_above)
    traced = any(isinstance(x, jax.core.Tracer) for x in xs)
    xp = jnp if traced else np
    wl, t, n1, nb, na = (xp.asarray(x, dtype=float) for x in xs)
    k0t = 2 * np.pi / wl * t
    lo0 = xp.maximum(nb, na)

    def mismatch(n):
        kap = xp.sqrt(xp.clip(n1**2 - n**2, 1e-30, None))
        gb, ga = (xp.sqrt(xp.clip(n**2 - c**2, 0.0, None)) for c in (nb, na))
        return k0t * kap - xp.arctan(gb / kap) - xp.arctan(ga / kap)

    def halve(_, bounds):
        lo, hi = bounds
        mid = 0.5 * (lo + hi)
        up = mismatch(mid) > 0  # the mismatch falls with n: the root lies above mid
        return xp.where(up, mid, lo), xp.where(up, hi, mid)

    guided = mismatch(lo0 + 1e-12) > 0
    shape = np.broadcast_shapes(*(np.shape(x) for x in (k0t, n1, lo0)))
    start = (xp.broadcast_to(lo0 + 1e-12, shape), xp.broadcast_to(n1 - 1e-12, shape))
    if not traced:
        bounds = start
        for i in range(60):
            bounds = halve(i, bounds)
        return jnp.asarray(np.where(guided, 0.5 * (bounds[0] + bounds[1]), lo0))
    lo, hi = jax.lax.fori_loop(0, 60, halve, jax.lax.stop_gradient(start))
    root = jax.lax.stop_gradient(0.5 * (lo + hi))
    newton = root - mismatch(root) / jax.grad(lambda n: jnp.sum(mismatch(n)))(root)
    return jnp.where(guided, newton, lo0)


def rib_and_slab_indices(wl, ridge, crystal_axis):
    """(n, n_s): the straight ridge's TE index (compact model) and the TE0 index of the slab beside it (film − etch),
    both with the field along ``crystal_axis`` ("z" or "y"); ``ridge`` a ``RidgeStack``. Jittable."""
    from prismpic.pdk import dispersion, materials

    n = dispersion.neff(wl, ridge, jnp.inf, "te", crystal_axis)
    core = materials.n_ln_e(wl) if crystal_axis == "z" else materials.n_ln_o(wl)
    below = materials.n_sio2(wl)
    above = below if ridge.cladding == "sio2" else materials.n_air(wl)
    return n, slab_te0_index(wl, ridge.slab, core, below, above)


def lateral_decay_per_um(wl, ridge, crystal_axis="z"):
    """γ = k0 √(n² − n_s²) (1/µm): how fast the straight ridge's TE field decays in the slab beside it
    (``rib_and_slab_indices``). A coupler's coupling and a nearby electrode's absorption fall as exp(−γ d) and
    exp(−2γ d) with the distance d. Jittable and differentiable (the rib's index lies above the slab's)."""
    n, ns = rib_and_slab_indices(wl, ridge, crystal_axis)
    return 2 * jnp.pi / jnp.asarray(wl, dtype=float) * jnp.sqrt(jnp.clip(n**2 - ns**2, 1e-12, None))


def prior_exponent(wl, ridge, crystal_axis):
    """U (1/µm) of the bend loss's exponential exp(−U R): (2/3) k0 (n² − n_s²)^P / n² (``rib_and_slab_indices``);
    ``ridge`` a ``RidgeStack``. Marcuse's slab bend (BSTJ 50, 2551 (1971)) has P = 3/2; P = 2 leaves the table a
    smoother rest (off the grid at the default ring, etch 0.32–0.38 µm: within 20 % per axis with 2, 23 % with
    3/2), which is all the prior is for."""
    n, ns = rib_and_slab_indices(wl, ridge, crystal_axis)
    return (2.0 / 3.0) * (2 * jnp.pi / jnp.asarray(wl, dtype=float)) * jnp.clip(n**2 - ns**2, 0.0, None) ** PRIOR_POWER \
        / n**2


def residual_nodes(im: np.ndarray, u: np.ndarray) -> np.ndarray:
    """ln Im n_eff + U R at the nodes (last axis: radius, ascending): the part the table interpolates. Where the
    solve is unresolved (no mode, or Im below ``IM_FLOOR``) the solved exponential continues: the rest is carried
    on linearly in R from the last two resolved radii (the decay rate the solves measured, where the prior's U is
    off: sio2 off-grid points at 28 and 40 µm went from 0.74–0.85 of a fresh solve to 0.92–1.04), its slope capped
    at U so the loss never grows with R; with one resolved radius the rest is held; a node with none takes the
    mean rest of the block."""
    r = radius_nodes()
    ln = np.where(np.isfinite(im) & (im > IM_FLOOR), np.log(np.clip(im, IM_FLOOR, None)), np.nan)
    rest = ln + u[..., None] * r
    for idx in np.ndindex(*rest.shape[:-1]):
        ok = np.flatnonzero(np.isfinite(rest[idx]))
        if 0 < ok.size < len(r):
            last = ok[-1]
            slope = 0.0
            if ok.size >= 2:
                prev = ok[-2]
                slope = min((rest[idx][last] - rest[idx][prev]) / (r[last] - r[prev]), float(u[idx]))
            rest[idx][last + 1:] = rest[idx][last] + slope * (r[last + 1:] - r[last])
    return filled_nan(rest)


def _exponents_at(grid: dict, clad: str, axis: str) -> np.ndarray:
    wl, w, t, f, a = np.meshgrid(*(node_values(k, *v) for k, v in grid.items()), indexing="ij")
    return np.asarray(prior_exponent(wl, RidgeStack(width=w, film_thickness=t, etch_depth=f * t, sidewall_angle_deg=a,
                                                       cladding=clad), axis))


@functools.cache
def prior_fits() -> dict:
    """{(cladding, axis): ChebyshevFit of ``prior_exponent`` on ``PRIOR_GRID``}: what the model reads, so that a
    query costs one more Chebyshev sum instead of two index lookups and a slab root (measured: 8 CPU-s more for
    ``prismpic claims`` with the exact prior in every ring program)."""
    with jax.ensure_compile_time_eval():
        return {(c, a): ChebyshevFit(PRIOR_GRID, coefficients_from_nodes(_exponents_at(PRIOR_GRID, c, a),
                                                                         range(len(PRIOR_GRID))))
                for c in CLADDINGS for a in AXES}


def _node_exponents(clad: str, axis: str) -> np.ndarray:
    wl, w, t, f, a = np.meshgrid(*(node_values(k, *v) for k, v in GRID.items()), indexing="ij")
    return np.asarray(prior_fits()[(clad, axis)](wl, w, t, f, a))


@functools.cache
def _fits() -> dict:
    """{(cladding, axis): ChebyshevFit of ln Im n_eff + U R over the grid and the radius}."""
    path = DATA_DIR / f"{TABLE_NAME}.npz"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no bend radiation table; build it with "
                                "prismpic.pdk.bend_radiation.build_table()")
    with np.load(path) as t:
        arrays = {k: t[k] for k in t.files}
    extra = (("radius", RADIUS[0], RADIUS[1]),)
    with jax.ensure_compile_time_eval():  # concrete even when the first call is inside a trace
        return {(c, a): ChebyshevFit(GRID, coefficients_from_nodes(residual_nodes(arrays[f"{c}_{a}_imag"],
                                                                                  _node_exponents(c, a)),
                                                                   range(len(GRID) + 1)), extra)
                for c in CLADDINGS for a in AXES}


def log_imag_neff(wl, radius, ridge, crystal_axis, xp=jnp):
    """ln Im n_eff of the TE bend mode with its field along ``crystal_axis`` ("z" or "y"): the table's rest minus
    U R (``prior_exponent``); beyond 40 µm the rest at 40 µm. NaN outside the grid. Arguments as
    ``loss_db_per_cm``; ``xp``: the array module (NumPy for concrete inputs, ``array_module``)."""
    rest, prior = _fits()[(ridge.cladding, crystal_axis)], prior_fits()[(ridge.cladding, crystal_axis)]
    if xp is np:  # the fits' NumPy sums (their jnp results are traced inside a caller's trace)
        rest, prior = rest.numpy, prior.numpy
    r = xp.asarray(radius, dtype=float)
    geo = (ridge.width, ridge.film_thickness, ridge.etch_fraction, ridge.sidewall_angle_deg)
    return rest(wl, *geo, xp.minimum(r, RADIUS[1])) - prior(wl, *geo) * r


def array_module(*values):
    """NumPy when no leaf of ``values`` is traced (an eager query: no compiled program per shape, as the Chebyshev
    sums do), else jax.numpy."""
    return jnp if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(values)) else np


def loss_db_per_cm(wl, radius, ridge, crystal_axis="ring"):
    """Radiation loss (dB/cm) of a TE bend; 0 for radius = inf.

    Args:
        wl: wavelength (µm), 1.45–1.65.
        radius: bend radius of the ridge centre (µm), ≥ 10; inf for straight.
        ridge: the ridge (``RidgeStack``): top width 0.8–2.0 µm, film 0.4–0.8 µm, etch 0.5–0.8 of the film,
            wall angle 60–90° from the horizontal, cladding "sio2" or "air".
        crystal_axis: "z" or "y" (the TE field along that crystal axis), or "ring": the average around a ring
            (or any 90° arc from a crystal axis) of X-cut film (module docstring).

    NaN outside the table's domain (callers check the geometry first: ``dispersion``).
    """
    if crystal_axis != "ring" and crystal_axis not in AXES:
        raise ValueError(f"crystal_axis = {crystal_axis!r}; valid: 'z', 'y' or 'ring'")
    xp = array_module(wl, radius, ridge)
    r = xp.asarray(radius, dtype=float)
    finite = xp.isfinite(r)
    r = xp.where(finite, r, RADIUS[1])
    if crystal_axis == "ring":
        lz, ly = log_imag_neff(wl, r, ridge, "z", xp), log_imag_neff(wl, r, ridge, "y", xp)
        x = 0.5 * xp.abs(lz - ly)
        bessel = i0e if xp is jnp else scipy_i0e
        log_im = 0.5 * (lz + ly) + xp.log(bessel(x)) + x  # ln ⟨α⟩ = ½(ln α_z + ln α_y) + ln I₀(x)
    else:
        log_im = log_imag_neff(wl, r, ridge, crystal_axis, xp)
    k0 = 2 * np.pi / xp.asarray(wl, dtype=float)
    return jnp.asarray(xp.where(finite, 10 * _LOG10E * 2 * k0 * xp.exp(log_im) * 1e4, 0.0))
