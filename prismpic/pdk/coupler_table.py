"""Coupling of two identical parallel ridges, tabulated from supermode solves in coordinates that follow the feet.

With sloped walls the ridges' feet sit 2·etch/tan(angle) closer than their tops (the "touch gap" g_t): above
g_t the feet stand apart on the slab (a trapezoidal trench of bottom width s = gap − g_t, the foot gap), below it
they merge into a V-groove shallower than the etch. ln C is smooth on each side and kinks at the merge (at 70°
walls and the default ridge ∂ln C/∂gap is −5.5 /µm where the trench's flat bottom is about to close and −1.5 /µm
just past it), and the merge moves with the etch and the angle, so one tensor grid in the top gap interpolates
across it: the earlier table (gap × angle, 4 nodes each) was 4.8 % above a 30 nm solve at the
default ridge and a 0.3 µm gap (the merge at 66.8° lay between its angle nodes), 5.0 % above the converged one.

Two tables per cladding, each a tensor Chebyshev grid in λ (Hermite: values and dλ-slopes), the gap coordinate,
1/width, film, etch fraction and wall angle:

- "separated": foot gap s from 0 (the feet touch) to 1 µm, in √(s + 0.05 µm) (``chebyshev.tabulated``; ln C
  bends sharply as the feet close);
- "merged": ρ = gap/g_t from 0.1 to 1, so the two tables share the node ρ = 1 ≡ s = 0 (the same solves) and meet
  continuously, with the kink at their common node. (With the junction 5 nm inside the separated side the merged
  table's last interval held the kink: 1-D at 70° walls, 2.2 % low at the merge against 0.1 % now.)

The tables hold ln C + γ·gap (``prior_log_coupling``: C ∝ exp(−γ g), γ = k0 √(n² − n_s²) the ridge's TE decay
constant in the slab beside it), so the 3–4 nodes of width, film, etch and angle carry a slowly varying rest
instead of γ's change with the geometry. Measured along single axes at the default ridge (20 nm solves, ln C
itself): 5 foot-gap nodes within 0.2 %, 5 merged nodes within 0.25 % (67.5° walls), 3 angle and 3 etch nodes
within 0.3 % in these coordinates; off the default ridge 3 angle nodes were too few (six of seven off-grid misses of
2 % lay between 60° and 75°, where the merge moves fastest), so the angle has 5 since session 48 (the build reused
the 3-node table's lines: ``earlier_line_solves``). The solves are on a 20 nm
mesh (``MESH``): 0.1–0.15 % from the 20/15 nm Richardson limit at 0.3–0.4 µm gaps, where 30 nm is up to 0.8 %
high. ``build_table`` solves each (λ, width, film, etch, angle) line's nine gaps as one job from the widest down
(``table_jobs.coupler_line_job``).
"""

from __future__ import annotations

import functools
import json
import math
import os
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.pdk.bend_radiation import array_module
from prismpic.pdk.chebyshev import ChebyshevFit, coefficients_from_nodes, filled_nan, hermite_coefficients, node_values
from prismpic.pdk.table_runs import load_job_cache, run_jobs
from prismpic.pdk.tables import DATA_DIR, started_table_build, write_table

TABLE_NAME = "coupler_tables"
LINE = {"wl": (1.45, 1.65, 2), "width": (0.8, 2.2, 4), "film": (0.4, 0.8, 3), "etch_fraction": (0.4, 0.8, 3),
        "angle": (60.0, 90.0, 5)}
FOOT_GAP = (0.0, 1.0, 5)  # µm: from the feet's merge, where the merged table ends
# µm: the narrowest top gap solved. At 90° walls g_t = 0 and the merge is the top gap 0, where the two ridges fuse into
# one: the supermode search fails there or lands on hybrid modes (TE1/TM of the fused ridge) for deep etches on thick
# films; the 90° lines' merged nodes and their merge are solved at a 1 nm slit instead (its splitting within 2 % of the
# fused ridge's where that solves; a 5 nm slit, 7 % off, put the 87.8° off-grid reference at +2.7 %). At 90° gaps below
# the domain's 0.1 µm are never asked; every other line's nodes lie above it (g_t ≥ 0.086 µm at 75°)
MIN_SOLVED_GAP = 0.001
MERGED = (0.1, 1.0, 5)
GAP = (0.1, 1.0)  # µm: the top gaps the coupling is given for (``domain``)
MESH = {"step": 0.02}
CLADDINGS = ("sio2", "air")
QUANTITIES = ("neven", "nodd", "dneven_dwl", "dnodd_dwl")
SLOPE_MISMATCH = 0.05  # 1/µm: |mean edge slope − secant| of ln C beyond which a slope is replaced (``band_slopes``)
# 1/µm: |d ln(n_even − n_odd)/dλ| at or above this is a supermode mixed with another mode (1.8e14 at the one such
# node, against ≤ 30 at every other: the narrowest, deepest-etched ridge where its feet touch at 64.4° walls and
# 1.65 µm, air), and the node is continued from the others like one where no TE pair was found
HYBRID_SLOPE = 1e3
# the prior's decay constant γ is read from a dense Chebyshev fit of ``bend_radiation.lateral_decay_per_um`` (one
# sum per query instead of an index lookup and a slab root); the table's rest is taken against the same fit, so
# the fit's own error cancels and only its smoothness matters
DECAY_GRID = {"wl": (1.45, 1.65, 3), "width": (0.8, 2.2, 6), "film": (0.4, 0.8, 5), "etch_fraction": (0.4, 0.8, 5),
              "angle": (60.0, 90.0, 3)}


def grids() -> dict:
    """{"separated": grid, "merged": grid}: each table's axes, (lo, hi, nodes), the gap coordinate second."""
    rest = {k: v for k, v in LINE.items() if k != "wl"}
    return {"separated": {"wl": LINE["wl"], "foot_gap": FOOT_GAP, **rest},
            "merged": {"wl": LINE["wl"], "merged_gap_fraction": MERGED, **rest}}


def table_spec() -> dict:
    """What the tables are solved from: tables with the same spec are the same."""
    return json.loads(json.dumps({**grids(), "mesh": MESH, "claddings": CLADDINGS, "min_solved_gap": MIN_SOLVED_GAP}))


def domain() -> dict:
    """{axis: (lo, hi)} of the coupling (µm; angle in degrees from the horizontal): the top gap and the ridge."""
    return {"wl": LINE["wl"][:2], "gap": GAP, **{k: v[:2] for k, v in LINE.items() if k != "wl"}}


def touch_gap(etch_depth, sidewall_angle_deg):
    """g_t (µm): the top gap at which the feet of two ridges with these walls meet, 2·etch/tan(angle) (NumPy on
    concrete inputs: no compiled program per shape)."""
    xp = array_module(etch_depth, sidewall_angle_deg)
    return 2.0 * xp.asarray(etch_depth, dtype=float) / xp.tan(xp.deg2rad(xp.asarray(sidewall_angle_deg, dtype=float)))


def merge_gap(ridge):
    """The top gap (µm) where ln C has its kink: the feet's merge g_t, where the merged table meets the separated one
    (``log_coupling``)."""
    return touch_gap(ridge.etch_depth, ridge.sidewall_angle_deg)


def line_gaps(film: float, etch_fraction: float, angle: float) -> tuple[list[float], list[float]]:
    """Top gaps (µm) of one line's separated nodes (foot gaps + g_t) and merged nodes (ρ·g_t, without ρ = 1, which
    is the separated table's first node)."""
    gt = 2.0 * etch_fraction * film / math.tan(math.radians(angle))
    separated = [max(float(s) + gt, MIN_SOLVED_GAP) for s in node_values("foot_gap", *FOOT_GAP)]
    merged = [max(float(r) * gt, MIN_SOLVED_GAP) for r in node_values("merged_gap_fraction", *MERGED)[:-1]]
    return separated, merged


def _lines():
    axes = [node_values(k, *v) for k, v in LINE.items()]
    return [(idx, tuple(float(a[i]) for a, i in zip(axes, idx, strict=True)))
            for idx in np.ndindex(*(len(a) for a in axes))]


def build_table(out_dir: str | Path = DATA_DIR, workers: int | None = None, progress=None,
                reuse_from: str | Path | None = None) -> dict:
    """Solve the supermodes at every node of both tables (``grids``) and write ``coupler_tables.npz`` / ``.json``.

    Args:
        out_dir: folder for the tables (default: the package data folder, which the models read).
        workers: processes (default min(2, CPU count)).
        progress: optional callable(done, total).
        reuse_from: folder of earlier tables: copied instead of solved when solved from the same ``table_spec()``.

    Returns:
        the metadata written to the json file.
    """
    out_dir, meta = started_table_build(out_dir, TABLE_NAME, table_spec(), reuse_from)
    if meta is not None:
        return meta
    cache_file = out_dir / f".{TABLE_NAME}.cache.jsonl"
    earlier = earlier_line_solves(reuse_from) if reuse_from is not None else {}
    tasks = []
    for clad in CLADDINGS:
        for idx, (wl, w, t, f, a) in _lines():
            sep, mer = line_gaps(t, f, a)
            tasks.append(("coupler", (clad, "feet", idx), (clad, a, wl, sep + mer, w, t, f, MESH)))
    t0, c0 = time.perf_counter(), time.process_time()
    res, _, cpu = run_jobs(tasks, workers or min(2, os.cpu_count() or 1), progress, 0, len(tasks),
                           {**earlier, **load_job_cache(cache_file)}, cache_file)
    arrays = assembled_arrays(res)
    meta = {**table_spec(),
            "mode": "even (PEC) and odd (PMC) TE supermodes (supermodes.coupled_modes), crystal axis z",
            "coordinates": "separated: foot gap = top gap - 2 etch/tan(angle), in sqrt(s + 0.05 um); merged: top gap "
                           "/ touch gap",
            "solves": sum(len(t[2][3]) for t in tasks), "lines_reused": sum(t[:2] in earlier for t in tasks),
            "wall_s": round(time.perf_counter() - t0, 1),
            "cpu_s_workers": round(cpu, 1), "cpu_s_parent": round(time.process_time() - c0, 1),
            "built": time.strftime("%Y-%m-%d")}
    write_table(out_dir, TABLE_NAME, arrays, meta)
    return meta


def assembled_arrays(lines: dict) -> dict:
    """The tables' arrays ({"<cladding>_<separated|merged>_<quantity>": array}) from the solved lines
    ({("coupler", (cladding, "feet", line index)): [result per gap]}, ``coupler_line_job``'s): each line's
    separated nodes, then its merged nodes ρ ascending, and the merge (the separated table's first node) as the
    merged table's last; NaN where a gap found no supermode pair."""
    n_sep, grid = FOOT_GAP[2], grids()
    arrays = {}
    for clad in CLADDINGS:
        sep = np.full((len(QUANTITIES), *(v[2] for v in grid["separated"].values())), np.nan)
        mer = np.full((len(QUANTITIES), *(v[2] for v in grid["merged"].values())), np.nan)
        for (i_wl, *rest), _ in _lines():
            line = lines[("coupler", (clad, "feet", (i_wl, *rest)))]
            for k, r in enumerate(line[:n_sep] + line[n_sep:] + [line[0]]):
                if r is None:
                    continue
                target, j = (sep, k) if k < n_sep else (mer, k - n_sep)
                target[(slice(None), i_wl, j, *rest)] = r
        for j, q in enumerate(QUANTITIES):
            arrays[f"{clad}_separated_{q}"], arrays[f"{clad}_merged_{q}"] = sep[j], mer[j]
    return arrays


def earlier_line_solves(folder: str | Path) -> dict:
    """Job-cache entries {(kind, key): line} of the coupler tables in ``folder`` at the lines the current ``LINE``
    grid still holds, when their gap axes, mesh, claddings and slit are the current ones: a grid refined around its
    old nodes (Lobatto n nodes lie among 2n − 1) solves only its new lines. The tables' arrays are their lines'
    results (the supermode indices and their λ-slopes), so the build assembles what a full solve would give; a line
    with a node the old build could not solve is solved again."""
    from prismpic.pdk.tables import grid_nodes, shared_nodes

    base = Path(folder) / TABLE_NAME
    if not base.with_suffix(".json").is_file():
        return {}
    meta, spec = json.loads(base.with_suffix(".json").read_text()), table_spec()
    gaps = (("separated", "foot_gap"), ("merged", "merged_gap_fraction"))
    if any(meta.get(k) != spec[k] for k in ("mesh", "claddings", "min_solved_gap")) or any(
            meta.get(part, {}).get(axis) != spec[part][axis] for part, axis in gaps):
        return {}
    pairs = shared_nodes(grid_nodes({k: meta["separated"][k] for k in LINE}), grid_nodes(dict(LINE)))
    with np.load(base.with_suffix(".npz")) as t:
        arrays = {k: t[k] for k in t.files}
    out = {}
    for clad in CLADDINGS:
        sep, mer = (np.stack([arrays[f"{clad}_{part}_{q}"] for q in QUANTITIES]) for part, _ in gaps)
        for new_idx, (i_wl, *rest) in pairs.items():
            # a line's results: its separated nodes, then its merged ones without the merge (``build_table``)
            nodes = [sep[(slice(None), i_wl, j, *rest)] for j in range(FOOT_GAP[2])]
            nodes += [mer[(slice(None), i_wl, j, *rest)] for j in range(MERGED[2] - 1)]
            if all(np.all(np.isfinite(v)) for v in nodes):
                out[("coupler", (clad, "feet", new_idx))] = [tuple(float(x) for x in v) for v in nodes]
    return out


def band_slopes(lnc: np.ndarray, dlnc: np.ndarray, wl: np.ndarray) -> np.ndarray:
    """The λ-slopes of ln C at the two band edges (axis 0), with a slope that a supermode's avoided crossing bent
    replaced. ln C is smooth across the band, so the mean of its two edge slopes matches the secant of its edge
    values to O(Δλ² times its third derivative): a median miss of 0.006–0.013 /µm over the tables. Where a
    supermode hybridises with another mode at a node (TE fraction 0.90 at the worst), its dn/dλ carries the
    crossing and the mean misses the secant by up to 9 /µm, which a cubic Hermite turns into a 20 % error mid-band.
    Where the miss exceeds ``SLOPE_MISMATCH`` the edge slope farther from the secant becomes 2·secant − the other
    (the quadratic through both values and the slope kept)."""
    secant = (lnc[1] - lnc[0]) / (wl[1] - wl[0])
    bent = np.abs(0.5 * (dlnc[0] + dlnc[1]) - secant) > SLOPE_MISMATCH
    first = np.abs(dlnc[0] - secant) >= np.abs(dlnc[1] - secant)
    out = np.array(dlnc, dtype=float)
    out[0] = np.where(bent & first, 2 * secant - dlnc[1], dlnc[0])
    out[1] = np.where(bent & ~first, 2 * secant - dlnc[0], dlnc[1])
    return out


@functools.cache
def decay_fits() -> dict:
    """{cladding: ChebyshevFit of γ (1/µm, TE along crystal z) on ``DECAY_GRID``}: the prior's decay constant."""
    from prismpic.pdk.bend_radiation import lateral_decay_per_um
    from prismpic.pdk.ridge_stack import RidgeStack

    wl, w, t, f, a = np.meshgrid(*(node_values(k, *v) for k, v in DECAY_GRID.items()), indexing="ij")
    with jax.ensure_compile_time_eval():
        return {c: ChebyshevFit(DECAY_GRID, coefficients_from_nodes(np.asarray(lateral_decay_per_um(
            wl, RidgeStack(width=w, film_thickness=t, etch_depth=f * t, sidewall_angle_deg=a, cladding=c), "z")),
            range(len(DECAY_GRID)))) for c in CLADDINGS}


def prior_log_coupling(wl, gap, ridge):
    """−γ·gap: the evanescent law C ∝ exp(−γ g) of two ridges at top gap ``gap`` (µm), γ the ridge's TE decay
    constant in the slab (``decay_fits``). The tables hold ln C minus this (``_fit``): ln C's change with width,
    film, etch and wall angle at a fixed gap coordinate is mostly γ's, and the rest varies slowly enough for
    their 3–4 nodes. Measured against the converged references (``test_coupler_table``): 36 random points of the
    domain within 2 % at 29 (22 without the prior), rms 1.85 % (2.27), at the default ridge's gaps and walls
    within 0.84 % (1.16)."""
    geo = (ridge.width, ridge.film_thickness, ridge.etch_fraction, ridge.sidewall_angle_deg)
    fit = decay_fits()[ridge.cladding]
    if array_module(wl, gap, ridge) is np:
        return -fit.numpy(wl, *geo) * np.asarray(gap, dtype=float)
    return -fit(wl, *geo) * gap


def _node_prior(grid: dict, cladding: str, wl):
    """``prior_log_coupling`` at the nodes of ``grid`` (wavelengths ``wl``, the λ axis) and its λ-slope (central
    differences of the fit, one-sided at the band's edges)."""
    from prismpic.pdk.ridge_stack import RidgeStack

    names = list(grid)
    axes = [node_values(k, *grid[k]) for k in names[1:]]
    coord, w, t, f, a = np.meshgrid(*axes, indexing="ij")
    touch = 2 * f * t / np.tan(np.radians(a))
    gap = coord + touch if names[1] == "foot_gap" else coord * touch  # the top gap of each node
    ridge = RidgeStack(width=w, film_thickness=t, etch_depth=f * t, sidewall_angle_deg=a, cladding=cladding)
    lo, hi = grid["wl"][:2]

    def at(x):
        return np.stack([np.asarray(prior_log_coupling(v, gap, ridge)) for v in np.ravel(x)])

    h = 1e-4
    up, down = np.minimum(wl + h, hi), np.maximum(wl - h, lo)
    return at(wl), (at(up) - at(down)) / (up - down).reshape(-1, *([1] * gap.ndim))


def _fit(grid: dict, cladding: str, ne, no, dne, dno) -> ChebyshevFit:
    """ln C − ``prior_log_coupling`` with its λ-slope, Hermite in λ (axis 0; two nodes), Chebyshev along the
    others."""
    nodes = node_values("wl", *grid["wl"])
    wl = nodes.reshape(-1, *([1] * (ne.ndim - 1)))
    dn = np.clip(ne - no, 1e-9, None)
    prior, dprior = _node_prior(grid, cladding, nodes)
    # a node without a TE supermode pair (NaN) or with a hybrid's slope is continued from the others
    mixed = ~(np.abs((dne - dno) / dn) < HYBRID_SLOPE)
    lnc = filled_nan(np.where(mixed, np.nan, np.log(np.pi * dn / wl) - prior))
    dlnc = band_slopes(lnc, filled_nan(np.where(mixed, np.nan, (dne - dno) / dn - 1.0 / wl - dprior)), wl)
    c = hermite_coefficients(lnc, dlnc, *grid["wl"][:2])
    return ChebyshevFit(grid, coefficients_from_nodes(c, range(1, c.ndim)))


@functools.cache
def _fits() -> dict:
    """{cladding: (separated fit, merged fit)} of ln C."""
    path = DATA_DIR / f"{TABLE_NAME}.npz"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no coupler table; build it with prismpic.pdk.coupler_table.build_table()")
    with np.load(path) as t:
        arrays = {k: t[k] for k in t.files}
    with jax.ensure_compile_time_eval():  # concrete even when the first call is inside a trace
        return {c: tuple(_fit(grid, c, *(arrays[f"{c}_{part}_{q}"] for q in QUANTITIES))
                         for part, grid in grids().items()) for c in CLADDINGS}


def log_coupling(wl, gap, ridge):
    """ln C (C in 1/µm) of two identical ridges ``ridge`` (a ``RidgeStack``) at top gap ``gap`` (µm); NaN outside
    ``domain()`` (callers check first: ``dispersion.check_coupler_inputs``). Jittable and differentiable; each side
    of the merge reads its own table (the other evaluated at a point inside its own, so gradients stay finite)."""
    separated, merged = _fits()[ridge.cladding]
    xp = array_module(wl, gap, ridge)
    if xp is np:  # concrete inputs: the fits' NumPy sums, no compiled program per shape
        separated, merged = separated.numpy, merged.numpy
    g = xp.asarray(gap, dtype=float)
    gt = touch_gap(ridge.etch_depth, ridge.sidewall_angle_deg)
    geo = (ridge.width, ridge.film_thickness, ridge.etch_fraction, ridge.sidewall_angle_deg)
    s = g - gt
    apart = s >= 0.0
    ln_sep = separated(wl, xp.where(apart, s, FOOT_GAP[1]), *geo)
    ln_mer = merged(wl, xp.where(apart, 1.0, g / xp.where(apart, 1.0, gt)), *geo)  # g_t → 0 at 90° walls
    return jnp.asarray(xp.where(apart, ln_sep, ln_mer) + prior_log_coupling(wl, g, ridge))
