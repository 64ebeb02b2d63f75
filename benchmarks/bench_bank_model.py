"""Fast PRISM bank model vs ``sax.circuit`` on the same netlist: compile time, time per evaluation, agreement.

Run: python benchmarks/bench_bank_model.py [--sizes 8x8,16x16] [--n-wl 1001] [--repeat 3]

For each N×d, the netlist is extracted from the ``prism_bank`` layout (N rows of d rings
with their drop-path return, detectors cut out: ports o1…oN and thr{k}/drop{k}), and
evaluated by ``sax.circuit`` (klu backend) and by ``prism_bank_fields`` (vectorised
star-product cascade, jitted) over n-wl wavelengths, all ring voltages random in
[−20, 20] V. Prints the first call (compile + run), the median of ``repeat`` further calls,
their ratio, the largest |ΔS| over all outputs, and the peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _timed(fn, repeat):
    t = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t)
    return out, first, statistics.median(runs) if runs else float("nan")


def bench(n: int, d: int, n_wl: int, repeat: int) -> dict:
    import jax
    import jax.numpy as jnp
    import sax

    import prismpic
    from prismpic.circuits import bank_layout
    from prismpic.circuits.netlists import ABSORBERS, flat_netlist

    models = prismpic.get_pdk().models
    t = time.perf_counter()
    bank = bank_layout.prism_bank(n_channels=n, d=d)
    net, placements = flat_netlist(bank, models)
    t_layout = time.perf_counter() - t
    dets = sorted((k for k, v in placements.items() if v[0] in ABSORBERS), key=lambda k: placements[k][2])
    rename = {f"{k},{p}": f"{kind}{i}" for i, k in enumerate(dets) for p, kind in (("o1", "thr"), ("o2", "drop"))}
    net["ports"] = {rename.get(k, k): v for k, v in net["ports"].items()}
    ring_names = [k for k, v in placements.items() if v[0] == "ring_add_drop"]
    pitch = bank.info["channel_pitch"]
    y0 = min(placements[k][2] for k in ring_names)
    grid = [sorted((k for k in ring_names if round((placements[k][2] - y0) / pitch) == r),
                   key=lambda k: placements[k][1]) for r in range(n)]
    rng = np.random.default_rng(0)
    volts = rng.uniform(-20, 20, (n, d))
    wl = jnp.linspace(1.53, 1.57, n_wl)
    settings = {grid[r][j]: {"voltage_v": float(volts[r, j])} for r in range(n) for j in range(d)}

    t = time.perf_counter()
    circuit, _ = sax.circuit(net, models)
    t_build = time.perf_counter() - t
    s, s_first, s_run = _timed(lambda: jax.block_until_ready(circuit(wl=wl, **settings)), repeat)

    def fast():
        return jax.block_until_ready(bank_layout.prism_bank_fields(wl, volts, d=d))

    (fd, ft), f_first, f_run = _timed(fast, repeat)
    err = 0.0
    for r in range(n):
        err = max(err, float(jnp.max(jnp.abs(s[(f"o{r + 1}", f"drop{r}")] - fd[r]))),
                  float(jnp.max(jnp.abs(s[(f"o{r + 1}", f"thr{r}")] - ft[r]))))
    return dict(n=n, d=d, instances=len(net["instances"]), t_layout=t_layout, sax_build=t_build, sax_first=s_first,
                sax_run=s_run, fast_first=f_first, fast_run=f_run, err=err, rss=_rss_mib())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8x8,16x16", help="comma-separated NxD sizes")
    ap.add_argument("--n-wl", type=int, default=1001)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    import prismpic

    prismpic.get_pdk()
    for size in a.sizes.split(","):
        n, d = (int(x) for x in size.lower().split("x"))
        r = bench(n, d, a.n_wl, a.repeat)
        print(f"{n}x{d} bank ({r['instances']} netlist instances, {a.n_wl} wavelengths; layout+extract "
              f"{r['t_layout']:.1f} s)")
        print(f"  sax.circuit: build {r['sax_build']:.1f} s, first call {r['sax_first']:.1f} s, "
              f"then {r['sax_run']:.3f} s/eval")
        print(f"  fast model:  first call {r['fast_first']:.2f} s, then {r['fast_run']:.4f} s/eval")
        print(f"  ratio (sax/fast): compile+first {(r['sax_build'] + r['sax_first']) / r['fast_first']:.1f}x, "
              f"per eval {r['sax_run'] / r['fast_run']:.0f}x; max |dS| = {r['err']:.2e}; peak RSS {r['rss']:.0f} MiB",
              flush=True)


if __name__ == "__main__":
    main()
