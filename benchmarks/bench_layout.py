"""Layout generation of the 8×8 prototype and the 256×32 PRISM bank die: time and peak memory.

Run: python benchmarks/bench_layout.py [--cases prototype_8x8,prism_bank_256x32] [--drc] [--gds DIR]

Each case runs in a fresh process (so peak RSS is its own): import and PDK set-up,
then the die (``layouts/prototype_8x8.py``, ``layouts/prism_bank_chip.py``), optionally
the DRC and the GDS write. Prints wall time and peak RSS per stage, instance and cell
counts and the die size. The ratio bank/prototype compares 8192 rings with 64.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = {"prototype_8x8": ("prototype_8x8", {}), "prism_bank_256x32": ("prism_bank_chip", {})}


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _count(c):
    """(instances in the whole hierarchy, distinct cells)."""
    top = c.kdb_cell
    return sum(1 for _ in top.begin_instances_rec()), len(top.called_cells()) + 1


def one(case: str, drc: bool, gds: str | None) -> dict:
    t = time.perf_counter()
    import prismpic

    prismpic.get_pdk()
    out = {"import_s": time.perf_counter() - t, "rss_import": _rss_mib()}
    script, params = CASES[case]
    spec = importlib.util.spec_from_file_location(script, ROOT / "layouts" / f"{script}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t = time.perf_counter()
    c = mod.build(**params)
    out.update(build_s=time.perf_counter() - t, rss_build=_rss_mib(), width_mm=c.info["width_um"] / 1e3,
               height_mm=c.info["height_um"] / 1e3)
    out["instances"], out["cells"] = _count(c)
    if gds:
        t = time.perf_counter()
        path = mod._die.write(c, Path(gds) / f"{case}.gds")
        out.update(write_s=time.perf_counter() - t, gds_mib=path.stat().st_size / 2**20, rss_write=_rss_mib())
    if drc:
        from prismpic.pdk import drc as run_drc

        t = time.perf_counter()
        out["violations"] = len(run_drc(c))
        out.update(drc_s=time.perf_counter() - t, rss_drc=_rss_mib())
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--drc", action="store_true", help="also time the DRC")
    ap.add_argument("--gds", default=None, help="folder to write the GDS files into (timed)")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        print(json.dumps(one(a.one, a.drc, a.gds)))
        return
    results = {}
    for case in a.cases.split(","):
        cmd = [sys.executable, __file__, "--one", case] + (["--drc"] if a.drc else []) + (["--gds", a.gds] if a.gds
                                                                                           else [])
        p = subprocess.run(cmd, capture_output=True, text=True, check=True)
        r = json.loads(p.stdout.strip().splitlines()[-1])
        results[case] = r
        line = (f"{case}: die {r['width_mm']:.2f} mm x {r['height_mm']:.2f} mm, {r['instances']} instances of "
                f"{r['cells']} cells; build {r['build_s']:.1f} s, peak RSS {r['rss_build']:.0f} MiB "
                f"(after import {r['rss_import']:.0f} MiB)")
        if "write_s" in r:
            line += f"; GDS {r['gds_mib']:.1f} MiB written in {r['write_s']:.1f} s"
        if "drc_s" in r:
            line += f"; DRC {r['violations']} violations in {r['drc_s']:.1f} s, peak RSS {r['rss_drc']:.0f} MiB"
        print(line, flush=True)
    if {"prototype_8x8", "prism_bank_256x32"} <= set(results):
        p, b = results["prototype_8x8"], results["prism_bank_256x32"]
        print(f"bank / prototype: build time {b['build_s'] / p['build_s']:.1f}x, peak RSS "
              f"{b['rss_build'] / p['rss_build']:.1f}x for 128x the rings")


if __name__ == "__main__":
    main()
