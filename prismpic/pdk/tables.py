"""Mode-solver tables behind the compact dispersion model (``prismpic.pdk.dispersion``).

``build_tables()`` solves the TFLN ridge (``prismpic.pdk.modesolver``) on tensor grids of
Chebyshev–Lobatto nodes and writes ``dispersion_tables.npz`` and ``dispersion_tables.json``
(grids, solver settings, date, versions) into the package data folder. A full regeneration was 11,532 jobs
(7,780 s of solver CPU, 65.6 min wall on two cores: ``prismpic tables --no-reuse``, measured), 768 of them the
couplers' gap lines, which have their own tables since (``coupler_table``). Every search starts
near the mode it wants, so shift-invert Arnoldi needs few steps (``benchmarks/bench_table_jobs.py``: 0.5–0.8 × the
CPU of the plain searches, the same modes to 1e-11): straight solves ask for one eigenpair first and the fine step
of a Richardson pair searches next to the coarse mode (``modesolver.straight_mode``); a
bend's radii are one job, the decoupled TE mode solved from the largest radius down at the index predicted from the
larger ones (``table_jobs.bend_line_job``, ``bend_pair_line_job``). Blocks:

- straight TE (crystal_axis z and y): λ × 1/width × film × etch fraction; every solve also
  gives dn_eff/dλ exactly (``Mode.dneff_dwl``), so λ needs only the two band edges (cubic
  Hermite data: 2e-5 in n_eff, 4e-4 in n_g against solves inside the band);
  Γ (axis z) and mode areas come from the same solves;
- straight TM (both axes) on a smaller, default-ish box, Richardson-extrapolated in the mesh step;
  TM0 and TE1 (same mirror class) hybridise in avoided crossings inside that box, so the TM n_eff the model uses
  comes from the "tm2" block: the pair's 2×2 index matrix in the uncoupled basis (``tm2_elements``; 4 λ and
  5 width nodes), which stays smooth where the TM-labelled eigenmode changes branch; the "tm" block keeps the
  mode areas;
- straight grids per cladding (``STRAIGHT``, ``STRAIGHT_STEPS``): same ranges; TE is Richardson-extrapolated
  like TM under both claddings (a single 30 nm solve is 1–3e-4 high under air and jumpy in the geometry, 0.5–4.8e-4
  low under SiO2), and air-clad TE has 7 film nodes;
- bends (TE, both axes): the bend shift n_bend − n_straight and its λ-derivative at three
  radii on a coarser geometry grid (a correction that vanishes as 1/R → 0), and Im n_eff
  for the radiation loss; along the pair's axis (z) read off the pair block below, whose decoupled TE solves hold
  every bend node (``bend_axes``);
- the bend's TE0/TM0 pair (axis z, both claddings: ``BEND_PAIR``): the full bend solve's two highest eigenvalues
  and the decoupled TE one, from which the model builds the avoided crossing the decoupled shift leaves out.

Directional couplers have their own tables, in coordinates that follow the ridges' feet (``coupler_table``).

Every table has a sidewall-angle axis (degrees from the horizontal, 60–90) and one set per cladding
(``CLADDINGS``: SiO2 and air above the ridge; the box below is SiO2). Widths are gridded in 1/width
(n_eff is nearly polynomial in it), etch depths as the etched fraction of the film; the width is the
top width of the ridge, as drawn on the mask.

The build is restartable: every finished solve is appended to a cache file beside the output
(``.dispersion_tables.cache.jsonl``) and reused by the next build; the cache is removed once the
tables are written. ``build_tables(reuse_from=folder)`` also copies, bit for bit, every block of earlier
tables (one cladding's straight TE or TM, bends, bend pairs, TM pairs) that was solved with the same grid, steps and
mesh (``block_specs``, recorded in the json), so a change of one grid re-solves only that block, and in a straight or
TM0/TE1 pair block only the nodes the earlier grid did not hold (``earlier_node_solves``: refine an axis from n to
2n − 1 Lobatto nodes and the n are kept). The solves run in worker processes through ``table_runs``.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from prismpic.pdk.table_jobs import richardson
from prismpic.pdk.table_runs import load_job_cache, run_jobs

DATA_DIR = Path(__file__).parent / "data"
TABLE_NAME = "dispersion_tables"

# --- grid: (lo, hi, nodes) per axis; widths are gridded in 1/width, sidewall angles in degrees from the
# horizontal (90 = vertical). n_eff is quadratic in the angle to < 1e-4 over 60–90° (solves at 67.5° and
# 82.5° against the 3-node fit, three corners of the TE domain).
WL = (1.45, 1.65)
ANGLE = (60.0, 90.0, 3)
STRAIGHT_TE = {"wl": (*WL, 2), "width": (0.8, 2.2, 5), "film": (0.3, 0.8, 5), "etch_fraction": (0.3, 0.8, 4),
               "angle": ANGLE}
STRAIGHT_TM = {"wl": (*WL, 2), "width": (1.0, 2.0, 3), "film": (0.5, 0.7, 3), "etch_fraction": (0.5, 0.8, 3),
               "angle": ANGLE}
# Under air the LN/air step at the ridge top is large: the 30 nm TE solve is biased by 1–3e-4 and the bias jumps by
# ~2e-4 as the cell count of a layer steps (``ridge_geometry.Mesh.cells``), which no grid of 30 nm solves can
# interpolate. Air TE entries are therefore Richardson-extrapolated like TM (30/15 nm: smooth to ~2e-5 along the
# etch and width axes), and n_g needs 7 film nodes (5 leave 9e-4 between them at 0.6 µm).
STRAIGHT_TE_AIR = {**STRAIGHT_TE, "film": (0.3, 0.8, 7)}
STRAIGHT_TM_AIR = STRAIGHT_TM
# The bend shift (a correction that vanishes as 1/R → 0) moves little with the wall angle: linear in it (2 nodes).
BEND = {"wl": (*WL, 2), "width": (0.8, 2.0, 4), "film": (0.4, 0.8, 3), "etch_fraction": (0.5, 0.8, 3),
        "angle": (60.0, 90.0, 2)}
BEND_RADII = (10.0, 16.0, 40.0)
AXES = ("z", "y")
CLADDINGS = ("sio2", "air")
# X-cut film with TE along crystal z: TE0 (n_e) and TM0 (n_o) cross near 0.6–0.65 µm film, and a bend mixes them
# (it breaks the mirror symmetry that keeps them apart in a straight ridge): an avoided crossing, sharper in the
# geometry than any bend grid, that moves the n_g along z of a 20 µm bend by 0.016 (0.7 %; the ring's FSR by 0.34 %)
# at the default ridge. The "bendpair" block holds, per node and radius, the two highest guided eigenvalues of the
# full bend solve and the decoupled TE one (``table_jobs.bend_pair_line_job``); ``dispersion`` turns them into the
# 2×2 of the pair in the uncoupled basis (detuning and coupling², smooth) and diagonalises it at each query. The
# crossing sits inside the film range and moves with the wall angle and the cladding: 5 film and 3 angle nodes, both
# claddings. Crystal axis y has no crossing (TE sees n_o, TM n_e: 0.08 apart; its decoupled and full bend solves
# agree to 1e-15 at the default ridge).
BEND_PAIR = {**BEND, "film": (0.4, 0.8, 5), "angle": (60.0, 90.0, 3)}
# The pair's solves are at the default 30 nm mesh, where TM0 sits ≈ 1e-3 high (and air-clad TE 1–3e-4): that moves
# the crossing. The detuning takes the straight ridge's mesh correction, Richardson from these two steps (µm), for TM and,
# in the claddings of ``PAIR_TE_MESH_CLADDINGS``, for TE.
PAIR_MESH_STEPS = (0.03, 0.02)
BEND_PAIR_AXES = ("z",)
BEND_PAIR_CLADDINGS = ("sio2", "air")
# Bends are solved per cladding: an air-clad ridge's bend shift is not the SiO2 one (full air-clad bend solves sit
# 1.5–2e-3 above n_air,straight + shift_SiO2 at R = 14–30 µm, 4 points), though the radiation into the slab is
# alike.
BEND_CLADDINGS = CLADDINGS
# TM0's main field is normal to the film faces and singular at the ridge corners: its n_eff converges as h²
# from above (+1e-3 at 30 nm). TM entries are Richardson-extrapolated from these two steps (µm).
TM_STEPS = (0.03, 0.015)
# The straight tables per cladding (same ranges; denser where the cladding needs it) and their mesh steps:
# None = one solve at the default ``Mesh()``, (h1, h2) = Richardson extrapolation from these two steps.
STRAIGHT = {"sio2": {"te": STRAIGHT_TE, "tm": STRAIGHT_TM}, "air": {"te": STRAIGHT_TE_AIR, "tm": STRAIGHT_TM_AIR}}
# SiO2-clad TE is extrapolated too: the single 30 nm solve sits 0.5–4.8e-4 below the wall-conforming FEM reference at
# random points of the domain (Richardson 30/15 nm within 0.75e-4 of it at the same points; session 34).
STRAIGHT_STEPS = {"sio2": {"te": TM_STEPS, "tm": TM_STEPS}, "air": {"te": TM_STEPS, "tm": TM_STEPS}}
# The bend pair's mesh correction of TE0 (``_pair_mesh_terms``) is built where these claddings' pair blocks were
# solved with it: air. The SiO2 pair block predates the SiO2 TE extrapolation and keeps the 30 nm TE0 in its detuning.
PAIR_TE_MESH_CLADDINGS = ("air",)
# TM0 and TE1 (the first odd TE mode, TM0's mirror class) cross inside the TM domain (avoided crossings wherever the
# vertical asymmetry couples them: TE fraction up to 0.49), so the TM-labelled eigenmode changes branch and its n_eff
# is not smooth. The "tm2" block holds, per node, the 2×2 index matrix of the pair in the uncoupled basis (trace,
# detuning n_TM0 − n_TE1 and coupling, from both eigenvalues and TE fractions: ``tm2_elements``), which is smooth;
# the model diagonalises it at each query. Measured along single axes through the three hybrid test points (sio2 y,
# air y, air z; elements solved on that axis' nodes at the point's other coordinates): 4 λ nodes, 5 width nodes,
# 5 film nodes, 3 etch and 3 angle nodes hold n_eff within 9e-5 and n_g within 4e-4 of the 20/10 nm reference; 3 film
# nodes leave up to 5.9e-4 / 2.9e-3, 3 width nodes 1.5e-2 beside a crossing.
# 9 width nodes (2,160 more solves, 19.5 min wall; session 35) gave no consistent gain at the TE1 cut-off corner's
# test points (``make_sloped_wall_solves.CUTOFF_POINTS``: one better, two worse, the worst still 5e-4 / 1.6e-2): there
# TE1 is cut off over a whole region of thin film and long λ, which no node count along one axis resolves.
STRAIGHT_TM2 = {**STRAIGHT_TM, "wl": (*WL, 4), "width": (1.0, 2.0, 5), "film": (0.5, 0.7, 5)}
# Axes with a pair table, per cladding (the others take the TM table). Under SiO2 with TE along crystal z the pair
# stays apart (TE fraction of TM0 < 0.09 at every TM node; the TM table is within 1.6e-4 / 1.0e-3 off the grid).
# 2,700 Richardson pair solves (sio2 y, air z, air y): 1,486 s wall on 2 cores with every other block reused.
TM2_AXES: dict[str, tuple[str, ...]] = {"sio2": ("y",), "air": ("z", "y")}


def lobatto(n: int) -> np.ndarray:
    """Chebyshev–Lobatto nodes on [−1, 1], ascending."""
    return -np.cos(np.pi * np.arange(n) / (n - 1)) if n > 1 else np.zeros(1)


def axis_nodes(name: str, lo: float, hi: float, n: int) -> np.ndarray:
    """Physical node values of one grid axis (width: Lobatto in 1/width)."""
    u = lobatto(n)
    if name == "width":
        a, b = 1.0 / hi, 1.0 / lo
        return 1.0 / (a + (u + 1) * 0.5 * (b - a))
    return lo + (u + 1) * 0.5 * (hi - lo)


def grid_nodes(spec: dict) -> dict:
    return {k: axis_nodes(k, *v) for k, v in spec.items()}


def _pair_mesh_terms(clad) -> list[tuple[str, float]]:
    """(polarization, sign in the detuning n_TE − n_TM) of the bend pair's mesh correction: TM always, TE in the
    claddings whose pair block was solved with it (``PAIR_TE_MESH_CLADDINGS``)."""
    return [("tm", -1.0)] + ([("te", 1.0)] if clad in PAIR_TE_MESH_CLADDINGS else [])


def _pair_mesh_solves(clad) -> list[tuple[str, float]]:
    """(polarization, mesh step) of the straight solves behind the bend pair's mesh correction (the 30 nm TE0 is
    the bias solve's)."""
    return [(pol, h) for pol, _ in _pair_mesh_terms(clad) for h in PAIR_MESH_STEPS
            if (pol, h) != ("te", PAIR_MESH_STEPS[0])]


def started_table_build(out_dir: str | Path, name: str, spec: dict, reuse_from: str | Path | None
                        ) -> tuple[Path, dict | None]:
    """(out_dir, created; metadata or None) for a table built on its own (``bend_radiation``, ``coupler_table``):
    one BLAS thread per solver process, and when table ``name`` in ``reuse_from`` was solved from ``spec`` its npz
    and json copied into ``out_dir`` bit for bit (nothing to copy when they are the same files) and its metadata
    returned."""
    from prismpic.fileio import write_atomic

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    old = Path(reuse_from) / f"{name}.json" if reuse_from is not None else None
    if old is None or not old.is_file():
        return out_dir, None
    meta = json.loads(old.read_text())
    if {k: meta.get(k) for k in spec} != spec:
        return out_dir, None
    for suffix in (".npz", ".json"):
        src = old.with_suffix(suffix)
        if src.resolve() != (out_dir / src.name).resolve():
            data = src.read_bytes()
            write_atomic(out_dir / src.name, lambda fh, d=data: fh.write(d), binary=True)
    return out_dir, meta


def write_table(out_dir: Path, name: str, arrays: dict, meta: dict) -> None:
    """Write ``<name>.npz`` and ``<name>.json`` into ``out_dir`` (each atomically) and drop the build's job cache."""
    from prismpic.fileio import write_atomic

    write_atomic(out_dir / f"{name}.npz", lambda fh: np.savez_compressed(fh, **arrays), binary=True)
    write_atomic(out_dir / f"{name}.json", lambda fh: fh.write(json.dumps(meta, indent=1, ensure_ascii=False)))
    (out_dir / f".{name}.cache.jsonl").unlink(missing_ok=True)


# ----------------------------------------------------------------------------- build


def _product(g):
    return list(np.ndindex(*(len(v) for v in g.values())))


def _point(g, idx):
    return [float(v[i]) for v, i in zip(g.values(), idx, strict=True)]


def bend_axes(clad: str) -> tuple[str, ...]:
    """Crystal axes whose bend block is solved on its own: the others are read off the pair block
    (``BEND_PAIR_AXES``), whose decoupled TE solves at every bend node are the bend block's."""
    return tuple(a for a in AXES if clad not in BEND_PAIR_CLADDINGS or a not in BEND_PAIR_AXES)


def _node_indices(sub: np.ndarray, full: np.ndarray) -> np.ndarray:
    """Indices of the nodes ``sub`` among ``full`` (Lobatto nodes nest: n nodes lie among 2n − 1)."""
    idx = np.array([int(np.argmin(np.abs(full - v))) for v in sub])
    if not np.allclose(full[idx], sub, rtol=0, atol=1e-12):
        raise ValueError(f"bend nodes {sub} are not among the pair nodes {full}")
    return idx


def block_specs() -> dict:
    """What each table block is solved from: {"<cladding>_<te|tm|tm2|bend|bendpair>": grid, steps and mesh settings}."""
    from prismpic.pdk import modesolver as ms

    mesh = asdict(ms.Mesh())
    out = {}
    for clad in CLADDINGS:
        for pol in ("te", "tm"):
            out[f"{clad}_{pol}"] = {"grid": STRAIGHT[clad][pol], "steps": STRAIGHT_STEPS[clad][pol], "mesh": mesh}
        if TM2_AXES[clad]:
            out[f"{clad}_tm2"] = {"grid": STRAIGHT_TM2, "steps": TM_STEPS, "mesh": mesh, "pair": "TM0+TE1, pmc",
                                  "axes": TM2_AXES[clad]}
        if clad in BEND_CLADDINGS:
            out[f"{clad}_bend"] = {"grid": BEND, "radii": BEND_RADII, "mesh": mesh}
        if clad in BEND_PAIR_CLADDINGS:
            out[f"{clad}_bendpair"] = {"grid": BEND_PAIR, "radii": BEND_RADII, "axes": BEND_PAIR_AXES, "mesh": mesh,
                                       "pair": "two highest full-solve bend eigenmodes + decoupled TE; straight TE "
                                               "full and decoupled; TM (and air TE) mesh correction",
                                       "mesh_steps": PAIR_MESH_STEPS}
    return json.loads(json.dumps(out))  # tuples as lists, as read back from a json file


def _meta_block_specs(meta: dict) -> dict:
    """``block_specs`` of tables already written (also of tables written before the json had "blocks")."""
    if "blocks" in meta:
        return meta["blocks"]
    solver, grids = meta["solver"], meta["grids"]
    out = {}
    for clad in meta["claddings"]:
        for pol in ("te", "tm"):
            steps = solver["tm_richardson_steps_um"] if pol == "tm" else None
            out[f"{clad}_{pol}"] = {"grid": grids[pol], "steps": steps, "mesh": solver["mesh"]}
        if clad in meta["bend_claddings"]:
            out[f"{clad}_bend"] = {"grid": grids["bend"], "radii": meta["bend_radii_um"],
                                   "hybrid_axes": ["z"], "mesh": solver["mesh"]}
        out[f"{clad}_coupler"] = {"grid": grids["coupler"], "mesh": solver["mesh"]}
    return json.loads(json.dumps(out))


STRAIGHT_QUANTITIES = ("neff", "dneff_dwl", "gamma", "area", "te_fraction")  # a straight job's result, in order
TM2_QUANTITIES = ("trace", "detuning", "coupling")  # a pair job's result, in order


def straight_job_key(clad: str, name: str, axis: str, idx: tuple) -> tuple:
    """The job-cache key of a straight solve ("te" or "tm" block) at node ``idx``: the grid's shape and steps are in
    it, so a cache of another grid never matches."""
    shape = tuple(len(v) for v in grid_nodes(STRAIGHT[clad][name]).values())
    return (clad, name, axis, "grid", shape, STRAIGHT_STEPS[clad][name], idx)


def tm2_job_key(clad: str, axis: str, idx: tuple) -> tuple:
    """The job-cache key of a TM0/TE1 pair solve at node ``idx`` of ``STRAIGHT_TM2``."""
    return (clad, axis, "tm2", tuple(len(v) for v in grid_nodes(STRAIGHT_TM2).values()), TM_STEPS, idx)


def shared_nodes(old_grid: dict, new_grid: dict) -> dict:
    """{new node index: old node index} for the nodes two grids (``grid_nodes``, same axes) both hold (to 1e-12)."""
    per_axis = []
    for name, new in new_grid.items():
        old = np.asarray(old_grid[name], float)
        per_axis.append({i: int(np.argmin(np.abs(old - v))) for i, v in enumerate(new)
                         if np.min(np.abs(old - v)) <= 1e-12})
    shape = tuple(len(v) for v in new_grid.values())
    return {idx: tuple(m[i] for m, i in zip(per_axis, idx, strict=True))
            for idx in np.ndindex(*shape) if all(i in m for m, i in zip(per_axis, idx, strict=True))}


def earlier_node_solves(folder: str | Path, specs: dict, reused: dict) -> dict:
    """Job-cache entries {(kind, key): result} of the straight and TM0/TE1 pair solves of the tables in ``folder``, at
    the nodes the current grids still hold, for blocks (not in ``reused``) whose grid changed while their steps, mesh
    and axes did not: a grid refined around its old nodes (Lobatto n nodes lie among 2n − 1) solves only its new ones.
    These blocks' arrays are their jobs' results (n_eff and dn_eff/dλ real), so the build assembles the arrays a full
    solve would give; a node the old build could not solve (NaN) is solved again."""
    base = Path(folder) / TABLE_NAME
    old_specs = _meta_block_specs(json.loads(base.with_suffix(".json").read_text()))
    with np.load(base.with_suffix(".npz")) as f:
        arrays = {k: f[k] for k in f.files}
    out = {}
    for block, spec in specs.items():
        old = old_specs.get(block)
        clad, kind = block.rsplit("_", 1)
        if block in reused or kind not in ("te", "tm", "tm2") or old is None or old["grid"] == spec["grid"] or any(
                old.get(k) != v for k, v in spec.items() if k != "grid"):
            continue
        pairs = shared_nodes(grid_nodes(old["grid"]), grid_nodes(spec["grid"]))
        for axis in TM2_AXES[clad] if kind == "tm2" else AXES:
            names = [f"{block}_{axis}_{q}" for q in (TM2_QUANTITIES if kind == "tm2" else STRAIGHT_QUANTITIES)]
            if not all(n in arrays for n in names):
                continue
            for new_idx, old_idx in pairs.items():
                res = tuple(float(arrays[n][old_idx]) for n in names)
                if all(math.isfinite(v) for v in res):
                    key = tm2_job_key(clad, axis, new_idx) if kind == "tm2" else straight_job_key(clad, kind, axis, new_idx)
                    out[("tm2" if kind == "tm2" else "straight", key)] = res
    return out


def reusable_arrays(folder: str | Path, specs: dict) -> dict:
    """Arrays of the tables in ``folder`` whose block (see ``block_specs``) was solved exactly as ``specs`` asks:
    {block: {array name: array}}; blocks that differ (grid, steps, mesh) are left out."""
    base = Path(folder) / TABLE_NAME
    meta = json.loads(base.with_suffix(".json").read_text())
    old = _meta_block_specs(meta)
    with np.load(base.with_suffix(".npz")) as f:
        arrays = {k: f[k] for k in f.files}
    return {b: {k: v for k, v in arrays.items() if k.startswith(f"{b}_")}
            for b, spec in specs.items() if old.get(b) == spec}


def build_tables(
    out_dir: str | Path | None = DATA_DIR,
    progress=None,
    workers: int | None = None,
    reuse_from: str | Path | None = None,
) -> dict:
    """Solve the parameter grids and write the tables (npz) and their metadata (json).

    Args:
        out_dir: folder for ``dispersion_tables.npz`` / ``.json`` (None: the package data folder).
        progress: optional callable(done, total), called as solves finish.
        workers: processes (default: min(2, CPU count)). Each runs single-threaded BLAS.
        reuse_from: folder of earlier tables: every block (one cladding's straight TE or TM, bends, pairs)
            solved there with the same grid, steps and mesh is copied bit for bit instead of solved again; in a
            straight or TM0/TE1 pair block whose grid alone changed, the nodes both grids hold are not solved again
            (``earlier_node_solves``).

    Returns:
        the metadata dict written to the json file.

    Long because it gathers every block's solves (straight TE and TM per cladding, bends, bend pairs, TM pairs)
    into one npz/json pair written at once; each block's section is marked.
    """
    # one BLAS thread per solver process: OpenBLAS threads spin and stall sparse LU when
    # the cores are shared (set before the workers import NumPy)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    workers = workers or min(2, os.cpu_count() or 1)
    out_dir = Path(out_dir) if out_dir is not None else DATA_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    cache_file = out_dir / f".{TABLE_NAME}.cache.jsonl"
    cache = load_job_cache(cache_file)
    specs = block_specs()
    reused = reusable_arrays(reuse_from, specs) if reuse_from is not None else {}
    for clad in BEND_PAIR_CLADDINGS:  # a bend block takes its pair axes from the pair block solved with it
        if f"{clad}_bend" not in reused:
            reused.pop(f"{clad}_bendpair", None)
    for job, res in (earlier_node_solves(reuse_from, specs, reused) if reuse_from is not None else {}).items():
        cache.setdefault(job, res)
    t0, c0 = time.perf_counter(), time.process_time()

    bd, tm2, bp = grid_nodes(BEND), grid_nodes(STRAIGHT_TM2), grid_nodes(BEND_PAIR)
    pair_shape = tuple(len(v) for v in bp.values())
    straight = {(clad, name): grid_nodes(STRAIGHT[clad][name]) for clad in CLADDINGS for name in ("te", "tm")}

    phase1 = []
    for clad in CLADDINGS:
        for axis in AXES:
            for name in ("te", "tm"):
                g = straight[(clad, name)]
                for idx in _product(g) if f"{clad}_{name}" not in reused else ():
                    wl, w, t, f, a = _point(g, idx)
                    phase1.append(("straight", straight_job_key(clad, name, axis, idx),
                                   (clad, a, axis, name, wl, w, t, f, False, STRAIGHT_STEPS[clad][name])))
            for idx in _product(tm2) if f"{clad}_tm2" not in reused and axis in TM2_AXES[clad] else ():
                wl, w, t, f, a = _point(tm2, idx)
                phase1.append(("tm2", tm2_job_key(clad, axis, idx),
                               (clad, a, axis, wl, w, t, f, TM_STEPS)))
            for idx in _product(bd) if axis in bend_axes(clad) and f"{clad}_bend" not in reused else ():
                wl, w, t, f, a = _point(bd, idx)  # straight references at the bend nodes
                phase1.append(("straight", (clad, "te", axis, "bend", idx), (clad, a, axis, "te", wl, w, t, f, True)))
    pair_clads = [c for c in BEND_PAIR_CLADDINGS if f"{c}_bendpair" not in reused]
    for clad in pair_clads:
        for axis in BEND_PAIR_AXES:
            for idx in _product(bp):
                wl, w, t, f, a = _point(bp, idx)
                for dec in (False, True):  # the decoupling's own bias of TE0, n_TE − n_TE,decoupled (straight)
                    phase1.append(("straight", (clad, "te", axis, "bendpair", pair_shape, idx, dec),
                                   (clad, a, axis, "te", wl, w, t, f, dec)))
                for pol, step in _pair_mesh_solves(clad):
                    phase1.append(("straight", (clad, pol, axis, "bendpair", pair_shape, idx, step),
                                   (clad, a, axis, pol, wl, w, t, f, False, (step,))))
    bend_clads = [c for c in BEND_CLADDINGS if f"{c}_bend" not in reused]
    n_bend = (sum(len(bend_axes(c)) for c in bend_clads) * len(_product(bd)) + len(pair_clads) * len(BEND_PAIR_AXES)
              * len(_product(bp)))
    total = len(phase1) + n_bend
    res1, done, cpu1 = run_jobs(phase1, workers, progress, 0, total, cache, cache_file)

    phase2 = []
    radii = list(BEND_RADII)
    for clad in bend_clads:  # one job per node: its radii from the largest down
        for axis in bend_axes(clad):
            for idx in _product(bd):
                ref = res1[("straight", (clad, "te", axis, "bend", idx))]
                wl, w, t, f, a = _point(bd, idx)
                phase2.append(("bend", (clad, axis, "radii", idx),
                               (clad, a, axis, wl, w, t, f, radii, ref[0].real if ref is not None else None)))
    for clad in pair_clads:
        for axis in BEND_PAIR_AXES:
            for idx in _product(bp):
                ref = res1[("straight", (clad, "te", axis, "bendpair", pair_shape, idx, True))]
                wl, w, t, f, a = _point(bp, idx)
                phase2.append(("bendpair", (clad, axis, pair_shape, "radii", idx),
                               (clad, a, axis, wl, w, t, f, radii, ref[0].real if ref is not None else None)))
    res2, done, cpu2 = run_jobs(phase2, workers, progress, done, total, cache, cache_file)

    arrays = {k: v for block in reused.values() for k, v in block.items()}
    for clad in CLADDINGS:
        for name in ("te", "tm"):
            if f"{clad}_{name}" in reused:
                continue
            g = straight[(clad, name)]
            shape = tuple(len(v) for v in g.values())
            for axis in AXES:
                a = np.full((5, *shape), np.nan)
                for idx in _product(g):
                    r = res1[("straight", straight_job_key(clad, name, axis, idx))]
                    if r is not None:
                        a[(slice(None), *idx)] = [r[0].real, r[1].real, r[2], r[3], r[4]]
                for j, q in enumerate(("neff", "dneff_dwl", "gamma", "area", "te_fraction")):
                    arrays[f"{clad}_{name}_{axis}_{q}"] = a[j]
        if f"{clad}_tm2" not in reused:  # (no axes: no block)
            for axis in TM2_AXES[clad]:
                a = np.full((3, *(len(v) for v in tm2.values())), np.nan)
                for idx in _product(tm2):
                    r = res1[("tm2", tm2_job_key(clad, axis, idx))]
                    if r is not None:
                        a[(slice(None), *idx)] = r
                for j, q in enumerate(("trace", "detuning", "coupling")):
                    arrays[f"{clad}_tm2_{axis}_{q}"] = a[j]
        shape = (*(len(v) for v in bd.values()), len(BEND_RADII))
        for axis in bend_axes(clad) if clad in bend_clads else ():
            b = np.full((3, *shape), np.nan)
            for idx in _product(bd):
                ref = res1[("straight", (clad, "te", axis, "bend", idx))]
                for k, r in enumerate(res2[("bend", (clad, axis, "radii", idx))]):
                    if ref is not None and r is not None:
                        b[(slice(None), *idx, k)] = [r[0].real - ref[0].real, (r[1] - ref[1]).real, r[0].imag]
            for j, q in enumerate(("dneff", "ddneff_dwl", "imag")):
                arrays[f"{clad}_bend_te_{axis}_{q}"] = b[j]
        if clad in pair_clads:
            for axis in BEND_PAIR_AXES:
                p = np.full((7, *pair_shape, len(BEND_RADII)), np.nan)
                for idx in _product(bp):
                    for k, r in enumerate(res2[("bendpair", (clad, axis, pair_shape, "radii", idx))]):
                        if r is not None:
                            p[(slice(None), *idx, k)] = r
                for j, q in enumerate(("up", "dup_dwl", "lo", "dlo_dwl", "te", "dte_dwl")):
                    arrays[f"{clad}_bendpair_{axis}_{q}"] = p[j]
                te0 = {}  # straight TE0 (n_eff, dn_eff/dλ) at the pair nodes: full (False) and decoupled (True)
                for dec in (False, True):
                    te0[dec] = np.full((2, *pair_shape), np.nan)
                    for idx in _product(bp):
                        r = res1[("straight", (clad, "te", axis, "bendpair", pair_shape, idx, dec))]
                        if r is not None:
                            te0[dec][(slice(None), *idx)] = [r[0].real, r[1].real]
                if clad in bend_clads:  # the bend block on this axis: the pair's decoupled TE at the bend nodes
                    sub = np.ix_(*(_node_indices(bd[k], bp[k]) for k in bd), range(len(BEND_RADII)))
                    ref = te0[True]
                    for q, v in (("dneff", p[4] - ref[0][..., None]), ("ddneff_dwl", p[5] - ref[1][..., None]),
                                 ("imag", p[6])):
                        arrays[f"{clad}_bend_te_{axis}_{q}"] = v[sub]
                arrays[f"{clad}_bendpair_{axis}_bias"], arrays[f"{clad}_bendpair_{axis}_dbias_dwl"] = te0[False] - te0[True]
                m = np.zeros((2, *pair_shape))  # the detuning's mesh correction: Σ ± (n_extrapolated − n_30nm)
                for idx in _product(bp):
                    sol = {(pol, h): res1[("straight", (clad, pol, axis, "bendpair", pair_shape, idx, h))]
                           for pol, h in _pair_mesh_solves(clad)}
                    sol[("te", PAIR_MESH_STEPS[0])] = res1[("straight", (clad, "te", axis, "bendpair", pair_shape, idx,
                                                                          False))]
                    if any(v is None for v in sol.values()):
                        m[(slice(None), *idx)] = np.nan
                        continue
                    for pol, sign in _pair_mesh_terms(clad):
                        coarse, fine = (np.array(sol[(pol, h)][:2]).real for h in PAIR_MESH_STEPS)
                        m[(slice(None), *idx)] += sign * (richardson(coarse, fine, PAIR_MESH_STEPS) - coarse)
                arrays[f"{clad}_bendpair_{axis}_mesh"], arrays[f"{clad}_bendpair_{axis}_dmesh_dwl"] = m

    import scipy

    from prismpic import __version__
    from prismpic.fileio import write_atomic
    from prismpic.pdk import modesolver as ms

    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    meta = {
        "description": "TFLN ridge mode-solver tables for prismpic.pdk.dispersion",
        "grids": {"te": STRAIGHT_TE, "tm": STRAIGHT_TM, "bend": BEND},
        **({"tm2_grid": STRAIGHT_TM2} if any(TM2_AXES.values()) else {}),
        "tm2": "TM0/TE1 pair in the uncoupled basis (table_jobs.tm2_elements): <cladding>_tm2_<axis>_{trace,detuning,"
               "coupling}; the TM-labelled n_eff is trace/2 + sign(detuning)·√(detuning² + 4 coupling²)/2",
        "cladding_grids": {c: {p: g for p, g in STRAIGHT[c].items() if g != STRAIGHT[CLADDINGS[0]][p]}
                           for c in CLADDINGS[1:]},
        "claddings": list(CLADDINGS),
        "bend_claddings": list(BEND_CLADDINGS),
        "bend_radii_um": list(BEND_RADII),
        "grid_nodes": "Chebyshev-Lobatto; width nodes are Lobatto in 1/width",
        "units": "µm; neff dimensionless; dneff_dwl 1/µm; area µm²; angle degrees from the horizontal",
        "geometry": "width = ridge top width (as drawn); box SiO2 below",
        "solver": {
            "method": "full-vector Yee finite differences (prismpic.pdk.modesolver)",
            "mesh": asdict(ms.Mesh()),
            "tm_richardson_steps_um": list(TM_STEPS),
            "richardson_steps_um": STRAIGHT_STEPS,
        },
        "blocks": specs,
        "blocks_reused": sorted(reused),
        "bend_shift": "TE, n_bend − n_straight with decouple_tm (modesolver.bend_shift)",
        "bend_pair_grid": BEND_PAIR,
        "bend_pair": "<cladding>_bendpair_<axis>_{up,lo,te} (+ d*_dwl): the two highest guided eigenvalues of the full "
                     "bend solve and the decoupled TE one (table_jobs.bend_pair_line_job), per node and radius; _bias "
                     "(+ _dbias_dwl): straight TE0 full minus decoupled, per node; _mesh (+ _dmesh_dwl): the detuning's "
                     "mesh correction",
        "n_solves": len(phase1) + len(phase2),  # this build's, beside the blocks reused
        "n_solves_reused_from_cache": len(cache),
        "build_wall_s": round(wall, 1),
        "build_solver_cpu_s": round(cpu1 + cpu2, 1),
        "build_parent_cpu_s": round(cpu, 1),
        "workers": workers,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "versions": {
            "prismpic": __version__,
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "python": platform.python_version(),
        },
    }
    write_atomic(out_dir / f"{TABLE_NAME}.npz", lambda f: np.savez_compressed(f, **arrays), binary=True)
    write_atomic(out_dir / f"{TABLE_NAME}.json", lambda f: f.write(json.dumps(meta, indent=1, ensure_ascii=False)
                                                                   + "\n"))
    cache_file.unlink(missing_ok=True)
    return meta


if __name__ == "__main__":  # python -m prismpic.pdk.tables
    import sys

    def _print(done, total):
        if done % 20 == 0 or done == total:
            print(f"{done}/{total}", file=sys.stderr, flush=True)

    m = build_tables(sys.argv[1] if len(sys.argv) > 1 else None, progress=_print)
    print(f"built in {m['build_wall_s']} s wall, {m['n_solves']} solves")
