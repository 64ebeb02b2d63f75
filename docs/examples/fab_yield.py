"""Fabrication-variation yield of the default ring: film and width spread → resonance spread → trimmable share.

Each sampled ring has film thickness t0 + δt and ridge width w0 + δw, δ ~ N(0, σ²) drawn
independently per ring. Its resonance of the design order m solves θ(λ; t, w) = 2πm (the
round-trip phase of ``ring_physics.ring_round_trip``; Newton's method, jittable), vectorised over
the samples with ``prismpic.analysis.sweep`` (zipped axes), which also returns the
sensitivities ∂λ/∂t and ∂λ/∂w by forward-mode differentiation. The shift Δλ from the
design resonance must be trimmed by the Pockels tuning, whose range is
± ``ring_tuning_pm_per_v`` × V_max (``RULES.max_electrode_voltage_v``):

- same order: |Δλ| ≤ range;
- any order (a WDM channel only needs some resonance on it): |Δλ − FSR·round(Δλ/FSR)| ≤ range.

Linear check: σ_λ ≈ √((∂λ/∂t·σ_t)² + (∂λ/∂w·σ_w)²), and the same-order yield of a Gaussian
shift is erf(range/(√2 σ_λ)).
Run: python docs/examples/fab_yield.py  (writes fab_yield.png)
"""

from __future__ import annotations

import math
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.analysis.sweep import sweep
from prismpic.components import ring_physics, rings
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import FILM_THICKNESS

# (σ_film, σ_width) in µm: a good wafer and lithography, a typical one, a poor one
SPREADS = ((0.002, 0.01), (0.005, 0.02), (0.01, 0.05))


def resonance_fn(wl0: float = 1.55):
    """(λ_design (µm), FSR (nm), f(film_thickness, width) → resonance (µm) of the design order), f jitted."""
    p = rings.ring_params("add_drop", {})

    def theta(wl, film, width):
        return ring_physics.ring_round_trip(wl, p["radius"], width, p["gap"], p["gap_drop"], p["electrode_gap"],
                                     p["electrode_coverage"], film, p["etch_depth"], p["loss_db_per_cm"])[1]

    m = round(float(jax.jit(theta)(wl0, p["film_thickness"], p["width"])) / (2 * math.pi))  # the order nearest wl0
    dtheta = jax.grad(theta)

    @jax.jit
    def resonance(film_thickness=FILM_THICKNESS, width=rings.RIDGE_WIDTH):
        def body(_, lam):
            return lam - (theta(lam, film_thickness, width) - 2 * math.pi * m) / dtheta(lam, film_thickness, width)

        return jax.lax.fori_loop(0, 6, body, jnp.asarray(wl0))

    lam0 = float(resonance(p["film_thickness"], p["width"]))
    ng = float(ring_physics.ring_ng(lam0, p["radius"], p["width"], p["film_thickness"], p["etch_depth"]))
    fsr_nm = lam0**2 / (ng * 2 * math.pi * p["radius"]) * 1e3  # FSR = λ²/(n_g L)
    return lam0, fsr_nm, resonance


def main(quick: bool = False, out_dir: Path | None = None, n_samples: int | None = None, seed: int = 0) -> dict:
    """Monte Carlo yield for the spreads in ``SPREADS``; returns one row per spread."""
    ring_physics.ring_ng(1.55)  # build the dispersion model's cached fits eagerly, outside any JAX trace
    n = n_samples or (400 if quick else 4000)
    lam0, fsr_nm, resonance = resonance_fn()
    trim_nm = float(ring_physics.ring_tuning_pm_per_v(lam0)) * RULES.max_electrode_voltage_v * 1e-3
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((2, n))  # common random numbers for every spread
    rows = []
    for s_t, s_w in SPREADS:
        # samples stay within ±5σ of the largest spread (film ±0.05, width ±0.25 µm), inside the dispersion
        # model's domain, so the eager range check of every axis end is skipped (check=False)
        res = sweep(resonance, {"film_thickness": FILM_THICKNESS + s_t * z[0], "width": rings.RIDGE_WIDTH + s_w * z[1]},
                    zip_axes=True, quantity="value", grad=("film_thickness", "width"), label="resonance_um",
                    check=False)
        shift_nm = (res.values - lam0) * 1e3
        # sensitivities at the design point (the median sample's gradient is close; take the mean)
        d_t, d_w = (float(np.mean(res.grads[k])) * 1e3 for k in ("film_thickness", "width"))  # nm/µm
        sigma_lin = math.hypot(d_t * s_t, d_w * s_w)
        wrapped = shift_nm - fsr_nm * np.round(shift_nm / fsr_nm)
        row = {"sigma_film_nm": s_t * 1e3, "sigma_width_nm": s_w * 1e3, "n": n,
               "sigma_shift_nm": float(np.std(shift_nm)), "sigma_linear_nm": sigma_lin,
               "dlambda_dfilm_nm_per_nm": d_t * 1e-3, "dlambda_dwidth_nm_per_nm": d_w * 1e-3,
               "trim_range_nm": trim_nm, "yield_same_order": float(np.mean(np.abs(shift_nm) <= trim_nm)),
               "yield_any_order": float(np.mean(np.abs(wrapped) <= trim_nm)),
               "yield_same_order_gaussian": math.erf(trim_nm / (math.sqrt(2) * sigma_lin)),
               "evaluations_per_s": res.evaluations_per_second}
        rows.append(row)
        print(f"σ_film {row['sigma_film_nm']:.0f} nm, σ_width {row['sigma_width_nm']:.0f} nm: σ_λ = "
              f"{row['sigma_shift_nm']:.3f} nm (linear {sigma_lin:.3f}); trim ±{trim_nm * 1e3:.0f} pm → yield "
              f"{row['yield_same_order']:.1%} same order (Gaussian {row['yield_same_order_gaussian']:.1%}), "
              f"{row['yield_any_order']:.1%} any order")
        if out_dir is not None and (s_t, s_w) == SPREADS[1]:
            hist = shift_nm
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
        a1.hist(hist, bins=60, color="C0", alpha=0.8)
        for x in (-trim_nm, trim_nm):
            a1.axvline(x, color="k", ls="--", lw=0.8)
        a1.set_xlabel("resonance shift (nm)")
        a1.set_ylabel("rings")
        a1.set_title(f"σ_film {SPREADS[1][0] * 1e3:.0f} nm, σ_width {SPREADS[1][1] * 1e3:.0f} nm; dashed: EO trim "
                     "range", fontsize=9)
        labels = [f"{r['sigma_film_nm']:.0f}/{r['sigma_width_nm']:.0f}" for r in rows]
        x = np.arange(len(rows))
        a2.bar(x - 0.2, [r["yield_same_order"] for r in rows], 0.4, label="same order")
        a2.bar(x + 0.2, [r["yield_any_order"] for r in rows], 0.4, label="any order")
        a2.set_xticks(x, labels)
        a2.set_xlabel("σ film / σ width (nm)")
        a2.set_ylabel("share of rings trimmable")
        a2.set_ylim(0, 1)
        a2.legend()
        fig.savefig(Path(out_dir) / "fab_yield.png", dpi=110)
        plt.close(fig)
    return {"lambda0_um": lam0, "fsr_nm": fsr_nm, "trim_range_nm": trim_nm, "rows": rows}


if __name__ == "__main__":
    main(out_dir=Path(__file__).resolve().parent)
