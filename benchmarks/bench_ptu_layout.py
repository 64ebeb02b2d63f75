"""Time and peak memory to generate a PTU core layout (default 128 × 128), and its die size.

Run: python benchmarks/bench_ptu_layout.py [--rows 128] [--cols 128] [--drc] [--gds PATH]
Prints generation time, peak resident memory (ru_maxrss), the instance count and the
core's width × height. The baseline in the same run is a 16 × 16 tile, so the printed
ratio shows how generation scales with the number of crossings.
"""

from __future__ import annotations

import resource
import sys
import time


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _build(rows: int, cols: int):
    from prismpic.circuits.ptu import ptu

    t = time.perf_counter()
    c = ptu(rows=rows, cols=cols)
    return c, time.perf_counter() - t


def main(argv: list[str]) -> None:
    import argparse

    import prismpic

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=128)
    ap.add_argument("--cols", type=int, default=None)
    ap.add_argument("--drc", action="store_true", help="also run the DRC and time it")
    ap.add_argument("--gds", default=None, help="write the GDS to this path")
    a = ap.parse_args(argv)
    rows, cols = a.rows, a.cols or a.rows
    prismpic.get_pdk()
    rss0 = _rss_mib()
    base, t_base = _build(16, 16)
    print(f"baseline 16x16: {t_base:.2f} s, {len(base.insts)} instances")
    c, t_gen = _build(rows, cols)
    rss1 = _rss_mib()
    print(f"ptu {rows}x{cols}: generated in {t_gen:.2f} s ({t_gen / t_base:.1f}x the 16x16 baseline for "
          f"{rows * cols / 256:.0f}x the crossings)")
    print(f"  instances: {len(c.insts)}, photodiodes: {c.info['photodiodes']}")
    print(f"  core size: {c.info['width_um'] / 1e3:.2f} mm x {c.info['height_um'] / 1e3:.2f} mm "
          f"= {c.info['width_um'] * c.info['height_um'] / 1e8:.2f} cm^2")
    print(f"  peak RSS: {rss1:.0f} MiB (before: {rss0:.0f} MiB)")
    if a.drc:
        from prismpic.pdk import drc

        t = time.perf_counter()
        v = drc(c)
        print(f"  DRC: {len(v)} violations in {time.perf_counter() - t:.1f} s, peak RSS {_rss_mib():.0f} MiB")
    if a.gds:
        path = a.gds
        t = time.perf_counter()
        c.write_gds(path)
        print(f"  GDS written to {path} in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
