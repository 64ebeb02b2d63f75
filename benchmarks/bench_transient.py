"""Time-domain simulation of a 32-wavelength PRISM channel: the jitted scan against a plain per-step Python loop
of the same equations, in one run.

Run: python benchmarks/bench_transient.py [--d 32] [--symbols 1024] [--sps 8] [--rate 5e9] [--repeat 3]

Both sides step the same discretised systems (``statespace.discretize`` of ``simulate.systems_from_columns``:
32 carriers × 32 coupled ring modes) with the same inputs (the MZM fields of a random on/off query):

- ``jax``: ``simulate.query_waveforms`` under ``jax.jit`` (DAC and MZM filters, ring modes by ``lax.scan``,
  detectors and TIA), warm: the best of ``repeat`` runs after one compiling run;
- ``loop``: the ring-mode recursion x[n+1] = Φ x[n] + Γ₀u[n] + Γ₁u[n+1], y = C x + D u as a Python ``for`` over
  the time steps with NumPy matrix products for all carriers at each step (the rest is not timed).

Columns: wall s, CPU s (process time), peak memory (ru_maxrss growth for JAX, tracemalloc peak for the loop),
the ratio loop/jax and the largest difference of the ring outputs.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
import tracemalloc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--symbols", type=int, default=1024)
    ap.add_argument("--sps", type=int, default=8)
    ap.add_argument("--rate", type=float, default=5e9)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import jax
    import jax.numpy as jnp
    import numpy as np

    import prismpic  # noqa: F401  (float64)
    from prismpic.analysis.transient import simulate
    from prismpic.analysis.transient import statespace as ss

    t0 = time.perf_counter()
    setup = simulate.channel_setup(args.d, args.rate, args.sps, n_symbols=args.symbols, dac_bits=1)
    t_setup = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    sym = rng.integers(0, 2, (args.d, args.symbols)).astype(float)
    volts = rng.uniform(-20.0, 20.0, args.d)
    simulate.check_channel_step(setup, volts)

    fn = jax.jit(lambda s, v: simulate.query_waveforms(setup, s, v)["current_a"])
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    fn(sym, volts).block_until_ready()
    t_compile = time.perf_counter() - t0
    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(args.repeat):
        w, c = time.perf_counter(), time.process_time()
        fn(sym, volts).block_until_ready()
        best_wall, best_cpu = min(best_wall, time.perf_counter() - w), min(best_cpu, time.process_time() - c)
    rss_jax = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024  # MiB (Linux: KiB)

    # the same ring equations, stepped by a Python loop
    field = np.asarray(simulate.query_waveforms(setup, sym, volts)["field_in"])  # (W, T)
    systems = simulate.systems_from_columns(setup.cols, volts, 0.0, setup.n_orders)
    disc = jax.tree_util.tree_map(np.asarray, ss.discretize(systems, setup.dt_ps))
    x0 = np.asarray(jax.vmap(simulate.settled_state)(systems, jnp.asarray(field[:, :1])))
    ring_jax = np.asarray(simulate.run_rings(systems, jnp.asarray(field), setup.dt_ps))
    tracemalloc.start()
    w, c = time.perf_counter(), time.process_time()
    x = x0.copy()
    n_t = field.shape[1]
    out = np.empty((field.shape[0], n_t, 2), complex)
    for n in range(n_t):
        u_n = field[:, n:n + 1]
        out[:, n] = np.einsum("wpn,wn->wp", disc.c, x) + np.einsum("wpm,wm->wp", disc.d, u_n)
        if n + 1 < n_t:
            x = (np.einsum("wij,wj->wi", disc.phi, x) + np.einsum("wim,wm->wi", disc.g0, u_n)
                 + np.einsum("wim,wm->wi", disc.g1, field[:, n + 1:n + 2]))
    loop_wall, loop_cpu = time.perf_counter() - w, time.process_time() - c
    loop_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(json.dumps({
        "d": args.d, "symbols": args.symbols, "samples_per_symbol": args.sps, "steps": n_t,
        "symbol_rate_hz": args.rate, "setup_s": round(t_setup, 2), "jax_compile_s": round(t_compile, 2),
        "jax_wall_s": round(best_wall, 3), "jax_cpu_s": round(best_cpu, 3), "jax_peak_rss_growth_mib": round(rss_jax, 1),
        "loop_wall_s": round(loop_wall, 3), "loop_cpu_s": round(loop_cpu, 3), "loop_peak_mib": round(loop_peak, 1),
        "loop_over_jax_wall": round(loop_wall / best_wall, 2),
        "note": "jax times the whole chain (DAC, MZM, rings, detectors, TIA); the loop only the ring recursion",
        "max_ring_output_difference": float(np.max(np.abs(out - ring_jax))),
    }, indent=2))


if __name__ == "__main__":
    main()
