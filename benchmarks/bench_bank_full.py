"""The full PRISM bank (default 256 channels × 32 rings) over 1001 wavelengths: forward pass and its gradient.

Run: python benchmarks/bench_bank_full.py [--channels 256] [--d 32] [--n-wl 1001] [--repeat 3]

Forward: ``prism_bank_fields`` (every ring at every wavelength, all resonance orders,
inter-ring cavities, drop-path jogs and readout paths), then the balanced currents
I_k = Σ_λ P_λ (|E_drop|² − |E_thr|²) of all channels. Gradient: ∂(Σ_k c_k I_k)/∂V for all
N·d ring voltages by reverse mode (``jax.grad``). Prints first-call (compile) and steady
times, the gradient/forward cost ratio, and the process's peak RSS after each stage
(the JAX CPU backend's arrays live in the process heap).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time


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
    return out, first, statistics.median(runs)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--channels", type=int, default=256)
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--n-wl", type=int, default=1001)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    import jax
    import jax.numpy as jnp
    import numpy as np

    import prismpic
    from prismpic.circuits import bank_layout, bank_model

    prismpic.get_pdk()
    n, d = a.channels, a.d
    ch = bank_model.channel_plan_um(d)
    wl = jnp.linspace(float(ch[0]) - 0.002, float(ch[-1]) + 0.002, a.n_wl)
    rng = np.random.default_rng(0)
    volts = jnp.asarray(rng.uniform(-20, 20, (n, d)))
    powers = jnp.asarray(rng.uniform(0, 1e-3, a.n_wl))
    weights = jnp.asarray(rng.normal(size=n))
    t = time.perf_counter()
    bank_model.plan_radii(d)
    bank_layout.prism_row(radii=bank_model.plan_radii(d))  # the readout geometry comes from the layout cells
    print(f"setup (radii, row cell): {time.perf_counter() - t:.1f} s, peak RSS {_rss_mib():.0f} MiB")
    rss0 = _rss_mib()

    def currents(v):
        e_drop, e_thr = bank_layout.prism_bank_fields(wl, v, d=d)
        return jnp.sum(powers * (jnp.abs(e_drop) ** 2 - jnp.abs(e_thr) ** 2), axis=-1)

    fwd = jax.jit(currents)
    grad = jax.jit(jax.grad(lambda v: jnp.sum(weights * currents(v))))
    i, f_first, f_run = _timed(lambda: jax.block_until_ready(fwd(volts)), a.repeat)
    rss_f = _rss_mib()
    g, g_first, g_run = _timed(lambda: jax.block_until_ready(grad(volts)), a.repeat)
    rss_g = _rss_mib()
    print(f"{n}x{d} bank, {a.n_wl} wavelengths ({n * d} rings, {n * d * a.n_wl / 1e6:.1f} M ring-wavelengths)")
    print(f"  forward: first call {f_first:.1f} s, then {f_run:.3f} s; peak RSS {rss_f:.0f} MiB "
          f"(+{rss_f - rss0:.0f} MiB)")
    print(f"  gradient wrt all {g.size} voltages: first call {g_first:.1f} s, then {g_run:.3f} s; peak RSS "
          f"{rss_g:.0f} MiB")
    print(f"  gradient / forward: {g_run / f_run:.2f}x (steady), {g_first / f_first:.2f}x (first call)")
    # spot check of the gradient against a central difference on one voltage
    h = 1e-4
    e = jnp.zeros_like(volts).at[0, 0].set(h)
    obj = jax.jit(lambda v: jnp.sum(weights * currents(v)))
    fd = (obj(volts + e) - obj(volts - e)) / (2 * h)
    print(f"  dObj/dV[0,0]: autodiff {float(g[0, 0]):.6e}, finite difference {float(fd):.6e}; "
          f"currents finite: {bool(jnp.all(jnp.isfinite(i)))}")


if __name__ == "__main__":
    main()
