"""Mode-solver tables behind the compact dispersion model (``prismpic.pdk.dispersion``).

``build_tables()`` solves the TFLN ridge (``prismpic.pdk.modesolver``) on tensor grids of
Chebyshev–Lobatto nodes and writes ``dispersion_tables.npz`` and ``dispersion_tables.json``
(grids, solver settings, date, versions) into the package data folder. The grid is chosen
so that a full regeneration stays near ten minutes on two cores:

- straight TE (crystal_axis z and y): λ × 1/width × film × etch fraction; every solve also
  gives dn_eff/dλ exactly (``Mode.dneff_dwl``), so λ needs only the two band edges (cubic
  Hermite data: 2e-5 in n_eff, 4e-4 in n_g against solves inside the band);
  Γ (axis z) and mode areas come from the same solves;
- straight TM (both axes) on a smaller, default-ish box;
- bends (TE, both axes): the bend shift n_bend − n_straight and its λ-derivative at three
  radii on a coarser geometry grid (a correction that vanishes as 1/R → 0), and Im n_eff
  for the radiation loss;
- directional couplers (TE, axis z): even and odd supermodes vs gap, with their
  λ-derivatives.

Widths are gridded in 1/width (n_eff is nearly polynomial in it), etch depths as the
etched fraction of the film.
"""

from __future__ import annotations

import datetime
import json
import multiprocessing as mp
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).parent / "data"
TABLE_NAME = "dispersion_tables"

# --- grid: (lo, hi, nodes) per axis; widths are gridded in 1/width
WL = (1.45, 1.65)
STRAIGHT_TE = {"wl": (*WL, 2), "width": (0.8, 2.2, 5), "film": (0.3, 0.8, 5), "etch_fraction": (0.3, 0.8, 4)}
STRAIGHT_TM = {"wl": (*WL, 2), "width": (1.0, 2.0, 3), "film": (0.5, 0.7, 3), "etch_fraction": (0.5, 0.8, 3)}
BEND = {"wl": (*WL, 2), "width": (0.8, 2.0, 4), "film": (0.4, 0.8, 3), "etch_fraction": (0.5, 0.8, 3)}
BEND_RADII = (10.0, 16.0, 40.0)
COUPLER = {"wl": (*WL, 2), "gap": (0.1, 1.0, 4), "width": (0.8, 2.2, 4), "film": (0.4, 0.8, 3), "etch_fraction": (0.4, 0.8, 4)}  # fmt: skip
AXES = ("z", "y")


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


# ----------------------------------------------------------------------------- jobs (worker side)


def _straight_job(axis, pol, wl, w, t, f, decouple_tm=False):
    from prismpic.pdk import modesolver as ms

    try:
        m = ms.straight_mode(wl, w, t, f * t, pol, axis, "sio2", 90.0, None, decouple_tm=decouple_tm)
    except RuntimeError:
        return None
    return (m.neff, m.dneff_dwl, m.ln_overlap, m.mode_area_um2, m.te_fraction)


def _bend_job(axis, wl, w, t, f, radius, guess):
    from prismpic.pdk import modesolver as ms

    try:
        m = ms.bend_modes(wl, w, t, f * t, radius, crystal_axis=axis, neff_guess=guess, decouple_tm=True)["te"]
    except (RuntimeError, KeyError):
        return None
    return (m.neff, m.dneff_dwl)


def _coupler_job(wl, gap, w, t, f):
    from prismpic.pdk import modesolver as ms

    try:
        even, odd = ms.coupled_modes(wl, gap, w, t, f * t)
    except RuntimeError:
        return None
    return (even.neff.real, odd.neff.real, even.dneff_dwl.real, odd.dneff_dwl.real)


def _run(task):
    kind, key, args = task
    fn = {"straight": _straight_job, "bend": _bend_job, "coupler": _coupler_job}[kind]
    c0 = time.process_time()
    res = fn(*args)
    return kind, key, res, time.process_time() - c0


def _map(tasks, workers, progress, done0, total):
    """Run tasks (in ``workers`` processes), calling progress(done, total) as they finish."""
    results, done, cpu = {}, done0, 0.0
    if workers <= 1:
        outputs = map(_run, tasks)
    else:
        pool = mp.get_context("spawn").Pool(workers)
        outputs = pool.imap_unordered(_run, tasks, chunksize=2)
    try:
        for kind, key, res, seconds in outputs:
            results[(kind, key)] = res
            cpu += seconds
            done += 1
            if progress:
                progress(done, total)
    finally:
        if workers > 1:
            pool.close()
            pool.join()
    return results, done, cpu


# ----------------------------------------------------------------------------- build


def build_tables(
    out_dir: str | Path | None = DATA_DIR,
    progress=None,
    workers: int | None = None,
    parts: tuple[str, ...] = ("straight", "bend", "coupler"),
) -> dict:
    """Solve the parameter grids and write the tables (npz) and their metadata (json).

    Args:
        out_dir: folder for ``dispersion_tables.npz`` / ``.json`` (None or default: package data).
        progress: optional callable(done, total), called as solves finish.
        workers: processes (default: min(2, CPU count)). Each runs single-threaded BLAS.
        parts: which tables to solve; the others are kept from the existing file in out_dir.

    Returns:
        the metadata dict written to the json file.
    """
    # one BLAS thread per solver process: OpenBLAS threads spin and stall sparse LU when
    # the cores are shared (set before the workers import NumPy)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    workers = workers or min(2, os.cpu_count() or 1)
    out_dir = Path(out_dir) if out_dir is not None else DATA_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), time.process_time()

    te, tm, bd, cp = (grid_nodes(s) for s in (STRAIGHT_TE, STRAIGHT_TM, BEND, COUPLER))

    def product(g):
        return list(np.ndindex(*(len(v) for v in g.values())))

    def point(g, idx):
        return [v[i] for v, i in zip(g.values(), idx, strict=True)]

    phase1 = []
    for axis in AXES:
        if "straight" in parts:
            for idx in product(te):
                phase1.append(("straight", ("te", axis, "grid", idx), (axis, "te", *point(te, idx))))
            for idx in product(tm):
                phase1.append(("straight", ("tm", axis, "grid", idx), (axis, "tm", *point(tm, idx))))
        if "bend" in parts:
            for idx in product(bd):  # straight references at the bend nodes (see modesolver.bend_shift)
                phase1.append(("straight", ("te", axis, "bend", idx), (axis, "te", *point(bd, idx), True)))
    if "coupler" in parts:
        for idx in product(cp):
            phase1.append(("coupler", idx, point(cp, idx)))
    n_bend = len(AXES) * len(product(bd)) * len(BEND_RADII) if "bend" in parts else 0
    total = len(phase1) + n_bend
    # the slowest jobs first, so that the pool drains evenly
    phase1.sort(key=lambda task: task[0] != "coupler")
    res1, done, cpu1 = _map(phase1, workers, progress, 0, total)

    phase2 = []
    for axis in AXES if "bend" in parts else ():
        for idx in product(bd):
            ref = res1[("straight", ("te", axis, "bend", idx))]
            guess = ref[0].real if ref is not None else None
            for k, radius in enumerate(BEND_RADII):
                phase2.append(("bend", (axis, idx, k), (axis, *point(bd, idx), radius, guess)))
    res2, done, cpu2 = _map(phase2, workers, progress, done, total)

    arrays = {}
    old_file = out_dir / f"{TABLE_NAME}.npz"
    if set(parts) != {"straight", "bend", "coupler"}:
        with np.load(old_file) as f:
            arrays.update({k: f[k] for k in f.files})
    for name, g, pol in (("te", te, "te"), ("tm", tm, "tm")) if "straight" in parts else ():
        shape = tuple(len(v) for v in g.values())
        for axis in AXES:
            a = np.full((5, *shape), np.nan)
            for idx in product(g):
                r = res1[("straight", (pol, axis, "grid", idx))]
                if r is not None:
                    a[(slice(None), *idx)] = [r[0].real, r[1].real, r[2], r[3], r[4]]
            for j, q in enumerate(("neff", "dneff_dwl", "gamma", "area", "te_fraction")):
                arrays[f"{name}_{axis}_{q}"] = a[j]
    shape = (*(len(v) for v in bd.values()), len(BEND_RADII))
    for axis in AXES if "bend" in parts else ():
        b = np.full((3, *shape), np.nan)
        for idx in product(bd):
            ref = res1[("straight", ("te", axis, "bend", idx))]
            for k in range(len(BEND_RADII)):
                r = res2[("bend", (axis, idx, k))]
                if ref is not None and r is not None:
                    b[(slice(None), *idx, k)] = [r[0].real - ref[0].real, (r[1] - ref[1]).real, r[0].imag]
        for j, q in enumerate(("dneff", "ddneff_dwl", "imag")):
            arrays[f"bend_te_{axis}_{q}"] = b[j]
    if "coupler" in parts:
        shape = tuple(len(v) for v in cp.values())
        c = np.full((4, *shape), np.nan)
        for idx in product(cp):
            r = res1[("coupler", idx)]
            if r is not None:
                c[(slice(None), *idx)] = r
        for j, q in enumerate(("neven", "nodd", "dneven_dwl", "dnodd_dwl")):
            arrays[f"coupler_{q}"] = c[j]

    import scipy

    import prismpic
    from prismpic.pdk import modesolver as ms

    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    meta = {
        "description": "TFLN ridge mode-solver tables for prismpic.pdk.dispersion",
        "grids": {"te": STRAIGHT_TE, "tm": STRAIGHT_TM, "bend": BEND, "coupler": COUPLER},
        "bend_radii_um": list(BEND_RADII),
        "grid_nodes": "Chebyshev-Lobatto; width nodes are Lobatto in 1/width",
        "units": "µm; neff dimensionless; dneff_dwl 1/µm; area µm²",
        "solver": {
            "method": "full-vector Yee finite differences (prismpic.pdk.modesolver)",
            "mesh": asdict(ms.Mesh()),
            "cladding": "sio2",
            "sidewall_angle_deg": 90.0,
        },
        "parts_solved": list(parts),
        "bend_shift": "TE, n_bend − n_straight with decouple_tm (modesolver.bend_shift)",
        "n_solves": len(phase1) + len(phase2),
        "build_wall_s": round(wall, 1),
        "build_solver_cpu_s": round(cpu1 + cpu2, 1),
        "build_parent_cpu_s": round(cpu, 1),
        "workers": workers,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "versions": {
            "prismpic": prismpic.__version__,
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "python": platform.python_version(),
        },
    }
    np.savez_compressed(out_dir / f"{TABLE_NAME}.npz", **arrays)
    (out_dir / f"{TABLE_NAME}.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    return meta


if __name__ == "__main__":  # python -m prismpic.pdk.tables
    import sys

    def _print(done, total):
        if done % 20 == 0 or done == total:
            print(f"{done}/{total}", file=sys.stderr, flush=True)

    m = build_tables(progress=_print)
    print(f"built in {m['build_wall_s']} s wall, {m['n_solves']} solves")
