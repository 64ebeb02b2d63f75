"""Recall Monte Carlo throughput, today's code against the code before issue 12, in one run.

Run: python benchmarks/bench_recall.py [--devices 2] [--trials 8192] [--repeat 3]

N = 1024 blocks, d = 32, k = 8, every impairment on: 5-bit weights, 6-bit query DAC,
per-ring drift σ = 0.01 nm, fabrication σ = 0.01 nm trimmed over 1 V, detector noise
σ_rel = 0.01, splitter spread 0.1 dB, −25 dB adjacent crosstalk, and (new code only, the
old has none) common-mode drift σ = 0.01 nm. Rows:

- ``before``: ``prismpic.analysis.recall`` as of commit 931ee77 (``pinned_baseline.run_pinned``: that commit's
  package in a child process on today's libraries), a bank drawn per trial;
- ``drawn G``: a planted bank (separation 0, the Gaussian null) drawn per chip state, G trials per state
  (G = 1: every trial its own bank and impairment draw, as before);
- ``bank G``: one given bank of 1024 signatures, 8192 queries, G trials per chip state.

Trials/s is the best of ``repeat`` timed runs after one compiling run. The trials are
sharded over ``--devices`` host CPU devices (XLA_FLAGS is set before JAX starts).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from pinned_baseline import run_pinned

BEFORE = "931ee77"
# timed in the child process exactly as ``main`` times today's code
BEFORE_SCRIPT = """
import json, sys, time
import prismpic
from prismpic.analysis import recall as before
n, repeat, common = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
cfg = before.RecallConfig(n_blocks=1024, d=32, k=8, n_trials=n, crosstalk=before.adjacent_crosstalk(32, -25.0),
                          **common)
recall = float(before.simulate_recall(cfg, 0).mean)
best = float('inf')
for r in range(repeat):
    t = time.perf_counter()
    before.simulate_recall(cfg, r + 1).mean.block_until_ready()
    best = min(best, time.perf_counter() - t)
print(json.dumps({'trials_per_s': n / best, 'recall': recall, 'prismpic_file': prismpic.__file__}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=2, help="host CPU devices (the machine's cores)")
    ap.add_argument("--trials", type=int, default=8192)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args.devices}"
    import jax
    import numpy as np

    from prismpic.analysis.recall import monte_carlo as rc

    common = dict(weight_bits=5, dac_bits=6, drift_sigma_nm=0.01, fab_sigma_nm=0.01, trim_voltage_v=1.0,
                  noise_rel=0.01, gain_sigma_db=0.1)
    n = args.trials
    rng = np.random.default_rng(0)
    bank = rng.standard_normal((1024, 32))
    bank /= np.abs(bank).max()
    queries = rng.standard_normal((n, 32))
    queries /= np.abs(queries).max(axis=1, keepdims=True)

    def new(g, given):
        cfg = rc.RecallConfig(n_blocks=1024, d=32, k=8, n_trials=n, queries_per_state=g, drift_common_sigma_nm=0.01,
                              crosstalk=rc.adjacent_crosstalk(32, -25.0), **common)
        data = (bank, queries) if given else ()
        return lambda key: rc.simulate_recall(cfg, key, *data).mean

    rows = [(f"drawn G = {g}", new(g, False)) for g in (1, 8, 32)]
    rows += [(f"bank G = {g}", new(g, True)) for g in (1, 8, 32)]
    print(f"N = 1024, d = 32, k = 8, every impairment on, {n} trials, {len(jax.devices())} devices, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'implementation':<32}{'trials/s':>10}{'recall@8':>10}")
    old = run_pinned(BEFORE, BEFORE_SCRIPT, str(n), str(args.repeat), json.dumps(common))
    base = old["trials_per_s"]
    print(f"{'before (bank drawn per trial)':<32}{base:>10.0f}{old['recall']:>10.3f}   (1.0× before)")
    for name, run in rows:
        recall = run(0)  # compile
        best = float("inf")
        for r in range(args.repeat):
            t = time.perf_counter()
            run(r + 1)
            best = min(best, time.perf_counter() - t)
        rate = n / best
        print(f"{name:<32}{rate:>10.0f}{recall:>10.3f}   ({rate / base:.1f}× before)")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
