"""Wafer calibration throughput: the serial path against Dask LocalClusters of 1 and 2 workers, same files, one run.

Run: python benchmarks/bench_calibration_batch.py [--n 200] [--points 3001] [--fit full|closed-form] [--workers 1,2]

Writes ``n`` symmetric add-drop spectra (the textbook Airy formula, Rabus 2007, seeded n_g/κ²/loss spread, a
tilted baseline and noise; κ²(λ) with the coupler model's dispersion and the nominal ring's bend radiation on
top of the propagation loss, as in ``tests/analysis/test_calibration_batch.py``) into a temporary folder, then fits them with ``run_batch`` serially (``workers=0``)
and on a fresh LocalCluster per worker count. Prints per engine the wall time (cluster start and shutdown
included), the spectra/s over that, the spectra/s between the first and the last result (the steady state,
without the cluster start), and whether the device table equals the serial one (it must). The per-device
fit is ``calibrate_ring_csv`` (``--fit full``, default) or ``closed_form_ring_csv`` (``--fit closed-form``).
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np

R_UM = 20.0


def write_wafer(folder: Path, n: int, points: int, seed: int = 1) -> None:
    """``n`` spectra CSVs ``die_x{i}_y{j}.csv`` around the nominal ring (n_g and κ² from the project's models)."""
    from prismpic.components import ring_physics, rings
    from prismpic.components.ring_design import RingDesign
    from prismpic.pdk.ridge_stack import RidgeStack

    ring = rings.ring_params("add_drop", {})
    ng0 = float(ring_physics.ring_ng(1.55, R_UM))
    length_nm = 2 * math.pi * R_UM * 1e3
    wl = np.linspace(1538.0, 1562.0, points)
    k2_c = np.sin(np.asarray(ring_physics.coupling_angle(wl * 1e-3, ring["gap"], R_UM))) ** 2
    k0 = float(np.interp(1550.0, wl, k2_c))
    bend_only = RingDesign(radius=R_UM, loss_db_per_cm=0.0, ridge=RidgeStack.from_params(ring))
    a_bend = np.asarray(ring_physics.ring_round_trip(wl * 1e-3, bend_only)[0])
    rng = np.random.default_rng(seed)
    side = math.ceil(math.sqrt(n))
    for i in range(n):
        ng = ng0 * (1 + 0.01 * rng.standard_normal())
        k2 = k0 * math.exp(0.15 * rng.standard_normal()) * k2_c / k0
        a = a_bend * 10 ** (-rng.uniform(0.5, 3.0) * length_nm * 1e-7 / 20)
        lam_r = 1550.0 + rng.uniform(-0.4, 0.4) * 1550.0**2 / (ng0 * length_nm)
        t = np.sqrt(1 - k2)
        phi = 2 * np.pi * ng * length_nm * (1 / wl - 1 / lam_r)
        den = 1 - 2 * t * t * a * np.cos(phi) + (t * t * a) ** 2
        base = 10 ** (-0.4 + 0.002 * (wl - 1550.0))
        through = (t * t * a * a - 2 * t * t * a * np.cos(phi) + t * t) / den * base
        drop = k2**2 * a / den * base
        through = through + 2e-4 * base * rng.standard_normal(points)
        drop = drop + 2e-4 * base * rng.standard_normal(points)
        lines = ["wavelength_nm,through,drop"] + [f"{w!r},{u!r},{v!r}" for w, u, v in
                                                  zip(wl.tolist(), through.tolist(), drop.tolist(), strict=True)]
        (folder / f"die_x{i % side}_y{i // side}.csv").write_text("\n".join(lines) + "\n")


def run(devices, fit, fit_kwargs, workers: int) -> dict:
    from prismpic.analysis.calibration import batch, wafer

    stamps = []
    t0 = time.perf_counter()
    res = batch.run_batch(devices, fit=fit, fit_kwargs=fit_kwargs, workers=workers,
                          progress=lambda done, total: stamps.append(time.perf_counter()))
    wall = time.perf_counter() - t0
    n = len(devices)
    steady = (n - 1) / (stamps[-1] - stamps[0]) if n > 1 and stamps[-1] > stamps[0] else math.nan
    return {"workers": workers, "wall": wall, "rate": n / wall, "steady": steady, "first": stamps[0] - t0,
            "counts": res.counts, "table": wafer.device_table(res.results)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="number of spectra")
    ap.add_argument("--points", type=int, default=3001, help="points per spectrum")
    ap.add_argument("--fit", choices=("closed-form", "full"), default="full")
    ap.add_argument("--workers", default="1,2", help="LocalCluster sizes, comma separated")
    args = ap.parse_args()

    from prismpic.analysis.calibration import batch
    from prismpic.analysis.calibration.closed_form_fit import closed_form_ring_csv

    fit = closed_form_ring_csv if args.fit == "closed-form" else batch.default_fit()
    fit_kwargs = {"radius": R_UM, "coupling": "symmetric"}
    with tempfile.TemporaryDirectory(prefix="bench-wafer-") as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        write_wafer(folder, args.n, args.points)
        print(f"{args.n} spectra of {args.points} points written in {time.perf_counter() - t:.2f} s; fit: "
              f"{args.fit}; cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
        devices = batch.devices_from(str(folder / "*.csv"))
        results = [run(devices, fit, fit_kwargs, 0)]
        results += [run(devices, fit, fit_kwargs, int(w)) for w in args.workers.split(",")]
    ref = results[0]["table"]
    print(f"{'engine':<22}{'wall s':>9}{'spectra/s':>11}{'steady/s':>10}{'1st result s':>14}  same table  counts")
    for r in results:
        name = "serial" if r["workers"] == 0 else f"LocalCluster {r['workers']} w"
        print(f"{name:<22}{r['wall']:>9.2f}{r['rate']:>11.2f}{r['steady']:>10.2f}{r['first']:>14.2f}  "
              f"{str(r['table'] == ref):<10}  {r['counts']}")
    base = results[0]["rate"]
    for r in results[1:]:
        print(f"LocalCluster {r['workers']} w / serial: {r['rate'] / base:.2f}× overall, "
              f"{r['steady'] / results[0]['steady']:.2f}× steady state")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
