"""Ring-spectrum calibration time per spectrum, today's code against the code before issue 11, in one run.

Run: python benchmarks/bench_calibration.py [--spectra 4] [--points 10000]

The same files for both: textbook add-drop rings (Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), eqs. (3)–(4),
constant n_g; not prismpic's model), through and drop ports, −5 dB coupling, 0.04 dB/nm tilt, 0.2 % noise,
2.2 FSR around 1550 nm sampled at ``--points``; n_g within ±0.15 % of the nominal 20 µm ring (so that the old
code, which refuses rings its width cannot reach, fits them too) and Q_L 1e4–4e4. Rows:

- ``before``: the package as of commit cffb125 (scipy trust-region reflective with a JAX Jacobian, one coupling
  regime after the other), ``calibrate_ring_csv(path, radius=20)``, in a child process on today's libraries
  (``pinned_baseline.run_pinned``);
- ``now``: ``prismpic.analysis.calibration.calibrate_ring_csv(path)`` (line shape by Levenberg–Marquardt in
  JAX over every point, both regimes in one batch, then the physics under the process priors).

Cold: the first spectrum (compilation included); warm: the median of the others. The ratio is before/now.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from pinned_baseline import run_pinned

BEFORE = "cffb125"
# the same timing as ``timed`` below, in the child process on the old package
BEFORE_SCRIPT = """
import json, statistics, sys, time
import prismpic
from prismpic.analysis.calibration import calibrate_ring_csv
times, ok = [], 0
for p in sys.argv[1:]:
    t0 = time.perf_counter()
    try:
        ok += getattr(calibrate_ring_csv(p, radius=20.0), 'status', 'fitted') == 'fitted'
    except ValueError:
        pass
    times.append(time.perf_counter() - t0)
warm = statistics.median(times[1:]) if len(times) > 1 else float('nan')
print(json.dumps({'cold': times[0], 'warm': warm, 'fitted': ok, 'prismpic_file': prismpic.__file__}))
"""


def textbook_add_drop(wl_nm, ng, n0, k1sq, k2sq, a, radius=20.0, lam0_nm=1550.3):
    """Through and drop power of the textbook add-drop ring (n_eff linear in λ: constant n_g)."""
    length = 2 * math.pi * radius
    lam, lam0 = np.asarray(wl_nm) * 1e-3, lam0_nm * 1e-3
    n0 = round(n0 * length / lam0) * lam0 / length
    phi = 2 * np.pi * (n0 - (ng - n0) * (lam - lam0) / lam0) * length / lam
    r1, r2 = math.sqrt(1 - k1sq), math.sqrt(1 - k2sq)
    den = 1 - 2 * r1 * r2 * a * np.cos(phi) + (r1 * r2 * a) ** 2
    return (r2**2 * a**2 - 2 * r1 * r2 * a * np.cos(phi) + r1**2) / den, (1 - r1**2) * (1 - r2**2) * a / den


def write_spectra(folder: Path, n: int, points: int, ng0: float, n00: float) -> list[Path]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        ng = ng0 * (1 + 0.0015 * rng.uniform(-1, 1))
        fsr = 1550.0**2 / (ng * 2 * math.pi * 20.0 * 1e3)
        wl = np.linspace(1550 - 1.1 * fsr, 1550 + 1.1 * fsr, points)
        k1, k2, a = 0.02 * rng.uniform(0.8, 1.6), 0.02 * rng.uniform(0.8, 1.6), 1 - 10 ** rng.uniform(-3.3, -2.6)
        t, d = textbook_add_drop(wl, ng, n00, k1, k2, a)
        base = 10 ** ((-5 + 0.04 * (wl - wl.mean())) / 10)
        t = t * base + 0.002 * base.mean() * rng.standard_normal(points)
        d = d * base + 0.002 * base.mean() * rng.standard_normal(points)
        path = folder / f"ring_{i:02d}.csv"
        with path.open("w") as f:
            f.write("wavelength_nm,through,drop\n")
            f.writelines(f"{float(x)!r},{float(max(y, 0.0))!r},{float(max(z, 0.0))!r}\n" for x, y, z in zip(wl, t, d,
                                                                                                            strict=True))
        out.append(path)
    return out


def timed(fn, paths) -> tuple[float, float, list]:
    times, results = [], []
    for p in paths:
        t0 = time.perf_counter()
        try:
            results.append(fn(p))
        except ValueError as e:  # the old code refuses what it cannot reach
            results.append(e)
        times.append(time.perf_counter() - t0)
    return times[0], statistics.median(times[1:]) if len(times) > 1 else float("nan"), results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spectra", type=int, default=4)
    ap.add_argument("--points", type=int, default=10000)
    args = ap.parse_args()
    from prismpic.analysis import calibration as now
    from prismpic.components import ring_physics

    ng0, n00 = float(ring_physics.ring_ng(1.55, 20.0)), float(ring_physics.ring_neff(1.55, 20.0))
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_spectra(Path(tmp), args.spectra, args.points, ng0, n00)
        old = run_pinned(BEFORE, BEFORE_SCRIPT, *map(str, paths))
        nc, nw, res = timed(now.calibrate_ring_csv, paths)
    ok = sum(not isinstance(r, Exception) and getattr(r, "status", "fitted") == "fitted" for r in res)
    print(f"{args.spectra} spectra of {args.points} points, add-drop, both ports")
    print(f"{'path':8s} {'cold (s)':>9s} {'warm (s)':>9s}  results")
    print(f"{'before':8s} {old['cold']:9.2f} {old['warm']:9.2f}  {old['fitted']}/{len(paths)} fitted")
    print(f"{'now':8s} {nc:9.2f} {nw:9.2f}  {ok}/{len(res)} fitted")
    bc, bw = old["cold"], old["warm"]
    print(f"ratio before/now: cold {bc / nc:.1f}x, warm {bw / nw:.1f}x")


if __name__ == "__main__":
    main()
