"""The full PRISM bank (256 and 1,024 channels × 32 rings, 1,001 wavelengths): prismpic's per-call path vs a minimal kernel.

Run: python benchmarks/bench_bank_full.py [--sizes 256x32,1024x32] [--n-wl 1001] [--repeat 3]

For each N×d, the bank tile's optical state is prepared once (``bank_model.prepare_bank`` with the drawn
readout paths, ``bank_layout.readout_paths``); then, per call, prismpic's path is
``bank_state.balanced_currents_a(state, P, V)``: I_k = R Σ_λ P_λ (|E_drop|² − |E_thr|²) of all N channels
(every ring at every wavelength, all resonance orders, inter-ring cavities, drop-bus jogs, readout paths).
The gradient is ∂(Σ_k c_k I_k)/∂V for all N·d voltages (``jax.grad``).

The kernel is the least work any physical model of the same bank must do per call, written here
independently: the same voltage-independent numbers precomputed (from ``bank_model.ring_columns`` and
``spacer_transmissions``), then per ring s = e^{iθ/2}, the ring's 2-port (one division) and the Redheffer
star product onto the cascade (a second division), the readout folded into the power weights; its gradient
is JAX's reverse mode of that scan.

Prints CPU seconds (``time.process_time``: the machine may be shared; min of ``repeat`` calls after
the compile), XLA's temporaries (``compiled.memory_analysis()``) and the ratios the bank model is held to
(forward ≤ 1.5× the kernel, gradient ≤ 3× its forward, temporaries ≤ 2× the kernel's). A compiled
function whose temporaries exceed 60 % of the memory available is not run (its time prints as nan).
"""

from __future__ import annotations

import argparse
import resource
import time


def _rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def _available_gib() -> float:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    return float("inf")


def _measure(fn, args, repeat):
    """(output, min CPU seconds, compile CPU seconds, temporaries GiB) of jitted ``fn`` at ``args``."""
    import jax

    t = time.process_time()
    compiled = jax.jit(fn).lower(*args).compile()
    t_compile = time.process_time() - t
    temp = compiled.memory_analysis().temp_size_in_bytes / 2**30
    if temp > 0.6 * _available_gib():
        return None, float("nan"), t_compile, temp
    out = jax.block_until_ready(compiled(*args))
    runs = []
    for _ in range(repeat):
        t = time.process_time()
        jax.block_until_ready(compiled(*args))
        runs.append(time.process_time() - t)
    return out, min(runs), t_compile, temp


def kernel_constants(wl, radii, readout):
    """The kernel's voltage-independent arrays (d, W) from the ring columns, spacers folded in."""
    import jax
    import jax.numpy as jnp

    from prismpic.circuits import bank_model

    physics = jax.jit(lambda w, r: (bank_model.ring_columns(w, r),
                                    bank_model.spacer_transmissions(w, bank_model.RING_SPACING, {}, r)))
    step = 500  # wavelengths at a time: the device physics needs ≈ 90 kB per ring and wavelength
    parts = [physics(wl[i:i + step], radii) for i in range(0, wl.size, step)]
    cols, (through, drop) = jax.tree.map(lambda *x: jnp.concatenate(x, axis=-1), *parts)
    ones = jnp.ones_like(wl, dtype=complex)[None]
    ts = jnp.concatenate([ones, jnp.broadcast_to(through, drop.shape)])
    ds = jnp.concatenate([ones, drop])
    t1, k1, t2, k2, a, b = (cols[k] for k in ("t1", "k1", "t2", "k2", "a", "bus"))
    m = -b * k1 * k2 * jnp.sqrt(a)
    return dict(ph0=cols["theta0"] / 2, phv=cols["theta_v"] / 2, c=t1 * t2 * a, r=ts * ds * m, rp=m,
                p=ts * b * t1, q=-ts * b * (t1**2 + k1**2) * t2 * a, u=ds * b * t2,
                w=-ds * b * (t2**2 + k2**2) * t1 * a, pd=jnp.abs(readout[1]) ** 2, pt=jnp.abs(readout[0]) ** 2)


def kernel_currents(k, powers, volts):
    """Minimal star-product kernel: I (N,) A of the bank at voltages (N, d)."""
    import jax
    import jax.numpy as jnp

    def step(carry, x):
        big_r, big_t, big_tp, big_rp = carry
        kk, v = x
        s = jnp.exp(1j * (kk["ph0"] + v[:, None] * kk["phv"]))
        e = s * s
        inv = 1.0 / (1.0 - kk["c"] * e)  # the ring's own round trip
        r, rp = kk["r"] * s * inv, kk["rp"] * s * inv
        t, tp = (kk["p"] + kk["q"] * e) * inv, (kk["u"] + kk["w"] * e) * inv
        den = 1.0 / (1.0 - big_rp * r)  # the cavity between the cascade and the ring
        return (big_r + big_tp * r * big_t * den, t * big_t * den, big_tp * tp * den, rp + t * big_rp * tp * den), None

    one = jnp.ones((volts.shape[0], k["c"].shape[-1]), dtype=complex)
    rings = {n: k[n] for n in ("ph0", "phv", "c", "r", "rp", "p", "q", "u", "w")}
    (big_r, big_t, _, _), _ = jax.lax.scan(step, (0 * one, one, one, 0 * one), (rings, volts.T))
    power = powers * 0.95
    return jnp.sum(power * (k["pd"] * jnp.abs(big_r) ** 2 - k["pt"] * jnp.abs(big_t) ** 2), axis=-1)


def bench(n: int, d: int, n_wl: int, repeat: int) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from prismpic.circuits import bank_layout, bank_model, bank_state

    ch = bank_model.channel_plan_um(d)
    wl = jnp.linspace(float(ch[0]) - 0.002, float(ch[-1]) + 0.002, n_wl)
    rng = np.random.default_rng(0)
    volts = jnp.asarray(rng.uniform(-20, 20, (n, d)))
    powers = jnp.asarray(rng.uniform(0, 1e-3, n_wl))
    c = jnp.asarray(rng.normal(size=n))
    t = time.process_time()
    radii = bank_model.plan_radii(d)
    readout = jax.jit(lambda w: bank_layout.readout_paths(w, radii))(wl)
    state = jax.block_until_ready(bank_model.prepare_bank(wl, radii, readout=readout))
    t_prep = time.process_time() - t
    k = jax.block_until_ready(kernel_constants(wl, jnp.asarray(radii), readout))

    def obj_p(s, v):
        return jnp.sum(c * bank_state.balanced_currents_a(s, powers, v))

    def obj_k(kk, v):
        return jnp.sum(c * kernel_currents(kk, powers, v))

    row = dict(n=n, d=d, n_wl=n_wl, prepare=t_prep)
    i_p, row["p_fwd"], row["p_fwd_compile"], row["p_fwd_temp"] = _measure(
        lambda s, v: bank_state.balanced_currents_a(s, powers, v), (state, volts), repeat)
    g_p, row["p_grad"], row["p_grad_compile"], row["p_grad_temp"] = _measure(
        jax.grad(obj_p, argnums=1), (state, volts), repeat)
    i_k, row["k_fwd"], row["k_fwd_compile"], row["k_fwd_temp"] = _measure(kernel_currents_p(powers), (k, volts), repeat)
    g_k, row["k_grad"], row["k_grad_compile"], row["k_grad_temp"] = _measure(
        jax.grad(obj_k, argnums=1), (k, volts), repeat)
    scale = float(jnp.max(jnp.abs(i_p)))
    row["i_diff"] = float(jnp.max(jnp.abs(i_p - i_k))) / scale if i_k is not None else float("nan")
    row["g_diff"] = (float(jnp.max(jnp.abs(g_p - g_k)) / jnp.max(jnp.abs(g_k))) if g_k is not None and g_p is not None
                     else float("nan"))
    row["rss"] = _rss_gib()
    return row


def kernel_currents_p(powers):
    return lambda kk, v: kernel_currents(kk, powers, v)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="256x32,1024x32", help="comma-separated NxD sizes")
    ap.add_argument("--n-wl", type=int, default=1001)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    import prismpic

    prismpic.get_pdk()
    print("CPU s = time.process_time (min of repeat, after compile); temp = XLA temporaries (GiB)")
    for size in a.sizes.split(","):
        n, d = (int(x) for x in size.lower().split("x"))
        r = bench(n, d, a.n_wl, a.repeat)
        print(f"{n}x{d} bank, {a.n_wl} wavelengths ({n * d * a.n_wl / 1e6:.1f} M ring-wavelengths); prepare once "
              f"{r['prepare']:.1f} CPU s (compile included)")
        print(f"  {'':9s} {'forward':>9s} {'gradient':>9s} {'grad/fwd':>8s} {'fwd temp':>9s} {'grad temp':>9s} "
              f"{'compile f/g':>12s}")
        for who, key in (("prismpic", "p"), ("kernel", "k")):
            print(f"  {who:9s} {r[key + '_fwd']:9.3f} {r[key + '_grad']:9.3f} {r[key + '_grad'] / r[key + '_fwd']:8.2f} "
                  f"{r[key + '_fwd_temp']:9.3f} {r[key + '_grad_temp']:9.3f} "
                  f"{r[key + '_fwd_compile']:5.1f}/{r[key + '_grad_compile']:<5.1f}")
        print(f"  ratios: forward {r['p_fwd'] / r['k_fwd']:.2f}x the kernel (target <= 1.5), gradient "
              f"{r['p_grad'] / r['p_fwd']:.2f}x prismpic's forward (<= 3), temporaries "
              f"{r['p_fwd_temp'] / r['k_fwd_temp']:.2f}x (forward) and {r['p_grad_temp'] / r['k_grad_temp']:.2f}x "
              f"(gradient) the kernel's (<= 2)")
        print(f"  agreement: currents {r['i_diff']:.1e}, gradient {r['g_diff']:.1e} (max |diff| / max |value|); "
              f"peak RSS {r['rss']:.1f} GiB", flush=True)


if __name__ == "__main__":
    main()
