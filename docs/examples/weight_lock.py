"""Weight-lock loop (temperature compensation, seed S1-20): a slow thermal drift with and without the loop.

A PRISM bank (d rings per channel, one channel per KV block, ``prism_bank``) is programmed
at ΔT = 0 to the block signatures (``program_weights``: the full bank model inverted).
The chip then warms slowly, ΔT(t) a ramp. Each ring's round-trip phase is exactly linear
in voltage and temperature, θ = θ0 + V·θ_V + ΔT·θ_T (``ring_physics.ring_round_trip``), so the
phase the drift adds is cancelled by ΔV = −ΔT·θ_T/θ_V per ring, with θ_T and θ_V of that
ring at its own channel (``bank_model.ring_columns``).

The loop: a monitor reads the chip temperature (e.g. a reference ring's resonance shift
divided by its thermal tuning) with noise σ, ``updates_per_step`` times per time step (so
it lags the ramp by one update), and every ring gets V = V_programmed − ΔT_measured·θ_T/θ_V
(clipped to the electrode range). Without the loop the voltages stay as programmed.

At each time step the bank's actual balanced weights at the channel wavelengths
(``balanced_weights``: every ring, every order, inter-ring coupling) score the queries;
recall@8 is the overlap of that top-8 with the float top-8 of the signatures
(``recall.recall_at_k``).
Run: python docs/examples/weight_lock.py [--out DIR] [--quick]  (writes weight_lock.png into DIR, default the
current folder)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax.numpy as jnp
import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.analysis.recall import monte_carlo as recall
from prismpic.analysis.recall import seed_cases as recall_seed
from prismpic.circuits import bank_model, weight_programming
from prismpic.components import ring_physics
from prismpic.fileio import save_figure_atomic
from prismpic.pdk.rules import RULES


def main(quick: bool = False, out_dir: Path | None = None, drift_k: float = 2.0, sensor_noise_k: float = 0.02,
         updates_per_step: int = 20, seed: int = 0, k: int = 8) -> dict:
    """Recall@k versus time under a thermal ramp of ``drift_k`` kelvin, with and without the lock loop."""
    ring_physics.ring_ng(1.55)  # build the dispersion model's cached fits eagerly, outside any JAX trace
    # d = 8 rings on the 1.6 nm grid: 16 would span 25.6 nm, three free spectral ranges of the 20 µm rings, and
    # no common weight scale exists (program_weights refuses it: other rings' orders sit on the channels)
    d, n_blocks, n_queries, steps = (8, 40, 24, 6) if quick else (8, 200, 100, 21)
    sig = recall_seed.seed_signatures(n_blocks, n_queries, d=d, seed=seed)
    targets = np.asarray(sig.blocks)
    queries = np.asarray(sig.queries)
    channels = bank_model.channel_plan_um(d, 1.6)
    radii = bank_model.bank_radii(channels)
    gain = weight_programming.weight_gain(channels, radii)
    v0, residual = weight_programming.program_weights(targets, channels, radii, gain=gain)
    v0 = np.asarray(v0)
    cols = bank_model.ring_columns(channels, radii)
    j = np.arange(d)
    v_per_k = np.asarray(cols["theta_t"])[j, j] / np.asarray(cols["theta_v"])[j, j]  # V that cancel 1 K
    lam0 = float(channels[d // 2])
    pm_per_k = float(ring_physics.ring_tuning_pm_per_v(lam0)) * float(np.mean(np.abs(v_per_k)))
    ideal = queries @ targets.T
    rng = np.random.default_rng(seed)
    temps = drift_k * np.linspace(0.0, 1.0, steps)
    vmax = RULES.max_electrode_voltage_v
    out = {"time_step": np.arange(steps), "delta_t_k": temps, "recall_locked": [], "recall_free": [],
           "weight_error_locked": [], "weight_error_free": []}
    lag = (temps[1] - temps[0]) / updates_per_step if steps > 1 else 0.0  # ramp during one loop update
    for dt in temps:
        measured = max(dt - lag, 0.0) + sensor_noise_k * rng.standard_normal()  # the last update's reading
        for mode in ("free", "locked"):
            v = v0 if mode == "free" else np.clip(v0 - measured * v_per_k[None, :], -vmax, vmax)
            w = np.asarray(bank_model.balanced_weights(channels, radii, jnp.asarray(v), delta_t_k=float(dt))) / gain
            hits = recall.recall_at_k(queries @ w.T, ideal, k)
            out[f"recall_{mode}"].append(float(np.mean(hits)))
            out[f"weight_error_{mode}"].append(float(np.sqrt(np.mean((w - targets) ** 2))))
    for key in ("recall_locked", "recall_free", "weight_error_locked", "weight_error_free"):
        out[key] = np.asarray(out[key])
    out.update({"d": d, "n_blocks": n_blocks, "n_queries": n_queries, "programming_residual": float(residual),
                "thermal_pm_per_k": pm_per_k, "drift_k": drift_k, "sensor_noise_k": sensor_noise_k, "k": k})
    print(f"d = {d}, {n_blocks} blocks, ramp 0 → {drift_k:g} K ({pm_per_k * drift_k:.0f} pm of resonance drift), "
          f"sensor noise {sensor_noise_k:g} K")
    for t, dt in enumerate(temps):
        print(f"  ΔT = {dt:5.2f} K: recall@{k} {out['recall_free'][t]:.3f} free, {out['recall_locked'][t]:.3f} locked; "
              f"RMS weight error {out['weight_error_free'][t]:.3f} / {out['weight_error_locked'][t]:.3f}")
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, constrained_layout=True)
        a1.plot(temps, out["recall_free"], "o-", label="no loop")
        a1.plot(temps, out["recall_locked"], "s-", label="weight-lock loop")
        a1.set_ylabel(f"recall@{k}")
        a1.set_ylim(0, 1.02)
        a1.legend()
        a1.set_title(f"PRISM bank d = {d}, {n_blocks} blocks, thermal ramp ({pm_per_k:.1f} pm/K)", fontsize=9)
        a2.plot(temps, out["weight_error_free"], "o-", label="no loop")
        a2.plot(temps, out["weight_error_locked"], "s-", label="weight-lock loop")
        a2.set_ylabel("RMS weight error")
        a2.set_xlabel("chip temperature change (K)")
        save_figure_atomic(fig, Path(out_dir) / "weight_lock.png")
        plt.close(fig)
    return out


def cli(argv=None) -> dict:
    """The command line: ``--out DIR`` (default: the current folder) and ``--quick`` (small settings)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("."), help="folder the figure is written to (default: .)")
    ap.add_argument("--quick", action="store_true", help="small settings that run in seconds")
    args = ap.parse_args(argv)
    if not args.out.is_dir():
        ap.error(f"--out {str(args.out)!r} is not an existing folder")
    return main(quick=args.quick, out_dir=args.out)


if __name__ == "__main__":
    cli()
