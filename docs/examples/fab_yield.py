"""Fabrication-variation yield of the default ring: the process spread → resonance spread → trimmable share.

The process is ``prismpic.pdk.process.DEFAULT_PROCESS`` (film thickness, etch depth, sidewall angle, width
bias and gap bias, each with its nominal value and 1σ spread and source), at half, one and twice its spreads
(``Process.with_spreads``). Each sampled ring is a seeded Monte Carlo draw of the process
(``Process.sample``) applied to the drawn ring (width + width bias, gap + gap bias). Its resonance of the
design order m solves θ(λ) = 2πm (the round-trip phase of ``ring_physics.ring_round_trip``; Newton's
method, jittable), vectorised over the draws with ``prismpic.analysis.sweep`` (zipped axes), which also
returns the sensitivities ∂λ/∂p of every process parameter by forward-mode differentiation. The shift Δλ
from the design resonance must be trimmed by the Pockels tuning, whose range is
± ``ring_tuning_pm_per_v`` × V_max (``RULES.max_electrode_voltage_v``):

- same order: |Δλ| ≤ range;
- any order (a WDM channel only needs some resonance on it): |Δλ − FSR·round(Δλ/FSR)| ≤ range.

Linear check: σ_λ ≈ √Σ_p (∂λ/∂p·σ_p)², and the same-order yield of a Gaussian shift is erf(range/(√2 σ_λ)).
Run: python docs/examples/fab_yield.py [--out DIR] [--quick]  (writes fab_yield.png into DIR, default the
current folder)
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.analysis.sweep import sweep
from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.fileio import save_figure_atomic
from prismpic.pdk.process import DEFAULT_PROCESS, PARAMETERS
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES

SCALES = (0.5, 1.0, 2.0)  # the process's 1σ spreads times these: a good line, the nominal one, a poor one


def resonance_fn(wl0: float = 1.55):
    """(λ_design (µm), FSR (nm), f(**process values) → resonance (µm) of the design order), f jitted."""
    p = rings.ring_params("add_drop", {})
    design = RingDesign.from_params(p)
    nominal = DEFAULT_PROCESS.nominal()

    def theta(wl, film_thickness, etch_depth, sidewall_angle_deg, width_bias, gap_bias):
        ridge = RidgeStack(width=p["width"] + width_bias, film_thickness=film_thickness, etch_depth=etch_depth,
                           sidewall_angle_deg=sidewall_angle_deg, cladding=nominal["cladding"])
        return ring_physics.ring_round_trip(wl, design.replace(gap=p["gap"] + gap_bias, ridge=ridge))[1]

    x0 = {k: nominal[k] for k in PARAMETERS}
    m = round(float(jax.jit(theta)(wl0, **x0)) / (2 * math.pi))  # the order nearest wl0
    dtheta = jax.grad(theta)

    @jax.jit
    def resonance(**x):
        def body(_, lam):
            return lam - (theta(lam, **x) - 2 * math.pi * m) / dtheta(lam, **x)

        return jax.lax.fori_loop(0, 6, body, jnp.asarray(wl0))

    lam0 = float(resonance(**x0))
    ridge = RidgeStack.from_params({**nominal, "width": p["width"]})
    ng = float(ring_physics.ring_ng(lam0, p["radius"], ridge))
    fsr_nm = lam0**2 / (ng * 2 * math.pi * p["radius"]) * 1e3  # FSR = λ²/(n_g L)
    return lam0, fsr_nm, resonance


def main(quick: bool = False, out_dir: Path | None = None, n_samples: int | None = None, seed: int = 0) -> dict:
    """Monte Carlo yield at the process spreads times ``SCALES``; returns one row per scale."""
    ring_physics.ring_ng(1.55)  # build the dispersion model's cached fits eagerly, outside any JAX trace
    n = n_samples or (400 if quick else 4000)
    lam0, fsr_nm, resonance = resonance_fn()
    trim_nm = float(ring_physics.ring_tuning_pm_per_v(lam0)) * RULES.max_electrode_voltage_v * 1e-3
    rows = []
    for scale in SCALES:
        proc = DEFAULT_PROCESS.with_spreads(**{k: scale * getattr(DEFAULT_PROCESS, k).sigma for k in PARAMETERS})
        draws = proc.sample(n, seed)  # the same seed: common random numbers for every scale
        axes = {k: np.array([d[k] for d in draws]) for k in PARAMETERS}
        # draws are clipped to the process's ranges, which lie inside the dispersion tables (check=False)
        res = sweep(resonance, axes, zip_axes=True, quantity="value", grad=PARAMETERS, label="resonance_um",
                    check=False)
        shift_nm = (res.values - lam0) * 1e3
        # a draw outside the bend table's etch range (etched fraction < 0.5: a shallow ridge whose 20 µm bend
        # radiates hundreds of dB/cm) has no resonance in the model (NaN): counted as a ring that fails
        ok = np.isfinite(shift_nm)
        # sensitivities at the design point (the mean over the draws; the spread is small)
        sens = {k: float(np.mean(np.asarray(res.grads[k])[ok])) * 1e3 for k in PARAMETERS}  # nm per unit
        sigma_lin = math.sqrt(sum((sens[k] * getattr(proc, k).sigma) ** 2 for k in PARAMETERS))
        wrapped = shift_nm - fsr_nm * np.round(shift_nm / fsr_nm)
        row = {"spread_scale": scale, "sigmas": {k: getattr(proc, k).sigma for k in PARAMETERS}, "n": n,
               "outside_model": float(np.mean(~ok)),
               "sigma_shift_nm": float(np.std(shift_nm[ok])), "sigma_linear_nm": sigma_lin,
               "dlambda_dparam_nm": sens, "trim_range_nm": trim_nm,
               "yield_same_order": float(np.mean(np.abs(shift_nm) <= trim_nm)),
               "yield_any_order": float(np.mean(np.abs(wrapped) <= trim_nm)),
               "yield_same_order_gaussian": math.erf(trim_nm / (math.sqrt(2) * sigma_lin)),
               "evaluations_per_s": res.evaluations_per_second}
        rows.append(row)
        print(f"{scale:g} × process σ ({row['outside_model']:.1%} of the draws outside the model): σ_λ = {row['sigma_shift_nm']:.3f} nm (linear {sigma_lin:.3f}); trim "
              f"±{trim_nm * 1e3:.0f} pm → yield {row['yield_same_order']:.1%} same order (Gaussian "
              f"{row['yield_same_order_gaussian']:.1%}), {row['yield_any_order']:.1%} any order")
        if scale == 1.0:
            hist = shift_nm
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
        a1.hist(hist[np.isfinite(hist)], bins=60, color="C0", alpha=0.8)
        for x in (-trim_nm, trim_nm):
            a1.axvline(x, color="k", ls="--", lw=0.8)
        a1.set_xlabel("resonance shift (nm)")
        a1.set_ylabel("rings")
        a1.set_title("the process description's spreads; dashed: EO trim range", fontsize=9)
        labels = [f"{r['spread_scale']:g}×" for r in rows]
        x = np.arange(len(rows))
        a2.bar(x - 0.2, [r["yield_same_order"] for r in rows], 0.4, label="same order")
        a2.bar(x + 0.2, [r["yield_any_order"] for r in rows], 0.4, label="any order")
        a2.set_xticks(x, labels)
        a2.set_xlabel("process spreads (× the 1σ of prismpic.pdk.process)")
        a2.set_ylabel("share of rings trimmable")
        a2.set_ylim(0, 1)
        a2.legend()
        save_figure_atomic(fig, Path(out_dir) / "fab_yield.png")
        plt.close(fig)
    return {"lambda0_um": lam0, "fsr_nm": fsr_nm, "trim_range_nm": trim_nm, "rows": rows}


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
