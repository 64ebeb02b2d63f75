"""A WDM channel plan and ring radii for d = 32 channels in the C band that meet a worst-case crosstalk target.

Crosstalk X[i, j]: what ring j drops at channel i relative to what ring i drops at its own
channel, every resonance order included (``prismpic.analysis.system.crosstalk``). One radius
family shares one FSR, so its d channels' round-trip phases are d points on a circle and
two lie within FSR/d (the common-FSR bound); rings whose radii are chosen per channel
(each ring the resonance order, i.e. the radius, whose other orders stay farthest from the
foreign channels) may escape it, and Vernier pairs (two rings of different radius per
channel, free range F_A·F_B/|F_A − F_B|) do. ``optimize_channel_plan`` searches uniform grids in the band
with the exact round-trip phase and verifies its best candidates with ``crosstalk_matrix``;
the plan found is then checked again independently (``check_channel_plan``), and the
worst-case crosstalk of the plain seed plan (1.6 nm, one radius family, S1-03) is shown
for comparison, swept over the channel spacing with ``prismpic.analysis.sweep``.
Run: python docs/examples/wdm_channel_plan.py [--out DIR] [--quick]  (writes wdm_channel_plan.png into DIR, default the
current folder)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax.numpy as jnp
import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.analysis.sweep import sweep
from prismpic.analysis.system import channel_plan
from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.fileio import save_figure_atomic

C_BAND_NM = channel_plan.C_BAND_NM
FAMILIES = ("per_channel_radii", "vernier")


def single_family_worst_db(spacings_nm, d: int = 32, center_nm: float = 1550.0, radius: float = rings.RING_RADIUS):
    """Worst off-diagonal drop ratio (dB) of a one-radius-family plan versus channel spacing (vectorised sweep),
    and the common-FSR bound Airy(FSR/d) of that family (dB).

    Every ring has the radius family's FSR; ring j sits on channel j; the drop of ring j at
    channel i relative to its peak is the Airy ratio (1 − x)²/(1 − 2x cos φ + x²), φ its
    round-trip phase offset from resonance, with x = t1·t2·a of the ring.
    """
    ring = RingDesign.from_params({**rings.ring_params("add_drop", {}), "radius": radius})
    t1, _, t2, _ = (float(v) for v in ring_physics.coupler_fields(center_nm * 1e-3, ring))
    a, _ = ring_physics.ring_round_trip(center_nm * 1e-3, ring)
    x = t1 * t2 * float(a)
    idx = jnp.arange(d)

    def worst(spacing_nm):
        lam = (center_nm + spacing_nm * (idx - (d - 1) / 2)) * 1e-3
        theta = ring_physics.ring_round_trip(lam, ring)[1]  # phase of the family at each channel
        # ring j is tuned so that θ_j(λ_j) = 2πm: its phase at λ_i is θ(λ_i) − θ(λ_j) (same radius family)
        phi = theta[:, None] - theta[None, :]
        ratio = (1 - x) ** 2 / (1 - 2 * x * jnp.cos(phi) + x**2)
        off = jnp.where(jnp.eye(d, dtype=bool), 0.0, ratio)
        return 10 * jnp.log10(jnp.max(off))

    res = sweep(worst, {"spacing_nm": np.asarray(spacings_nm, float)}, quantity="value", label="worst_db",
                check=False)
    lam = center_nm * 1e-3
    fsr_nm = lam**2 / (float(ring_physics.ring_ng(lam, radius)) * 2 * np.pi * radius) * 1e3  # FSR = λ²/(n_g L)
    fwhm_nm = fsr_nm * 2 / np.pi * np.arcsin((1 - x) / (2 * np.sqrt(x)))  # Airy FWHM of x = t1 t2 a
    return res, channel_plan.common_fsr_bound_db(d, fsr_nm, fwhm_nm)


def main(quick: bool = False, out_dir: Path | None = None, d: int = 32, target_db: float = -20.0) -> dict:
    """Search and verify a plan meeting ``target_db`` for d channels in the C band."""
    ring_physics.ring_ng(1.55)  # build the dispersion model's cached fits eagerly, outside any JAX trace
    out = {"searches": {}}
    # simplest first: one ring per channel with its own radius, then Vernier pairs (quick: Vernier only)
    for family in FAMILIES[-1:] if quick else FAMILIES:
        kw = {"n_spacings": 40, "n_verify": 2} if quick else {}
        if family == "vernier" and quick:
            kw["n_radius_b"] = 4
        search = channel_plan.optimize_channel_plan(d, C_BAND_NM, target_db, family=family, **kw)
        out["searches"][family] = search
        out.update(search=search, feasible=search.feasible, reason=search.reason, family=family)
        if search.best is not None:
            break
        print(f"{family}: no plan meets {target_db:g} dB: {search.reason}")
    if search.best is not None:
        plan = search.best
        check = channel_plan.check_channel_plan(plan.channels_um, plan.radii, target_db, band_nm=C_BAND_NM)
        out.update(plan=plan, check=check)
        print(f"{family} plan: {d} channels at {plan.spacing_nm:.4f} nm from {plan.channels_um[0] * 1e3:.3f} nm, "
              f"radii {plan.radii.min():.3f}–{plan.radii.max():.3f} µm; worst crosstalk {check.worst_db:.2f} dB "
              f"(target {target_db:g} dB): {check.reason}")
    seed_ch, seed_r = channel_plan.seed_plan(d)
    seed = channel_plan.check_channel_plan(seed_ch, seed_r, target_db, band_nm=C_BAND_NM)
    out["seed_check"] = seed
    print(f"seed plan (1.6 nm, one radius family): worst {seed.worst_db:.2f} dB — {seed.reason}")
    spacings = np.linspace(0.3, (C_BAND_NM[1] - C_BAND_NM[0]) / (d - 1), 40 if quick else 300)
    fam, bound = single_family_worst_db(spacings, d)
    out["single_family"] = fam
    out["common_fsr_bound_db"] = bound
    print(f"one radius family: best worst-case {np.min(fam.values):.2f} dB over the spacings swept; common-FSR "
          f"bound {out['common_fsr_bound_db']:.2f} dB")
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
        a1.plot(spacings, fam.values, lw=1)
        a1.axhline(target_db, color="r", ls="--", lw=0.8, label=f"target {target_db:g} dB")
        a1.axhline(out["common_fsr_bound_db"], color="k", ls=":", lw=0.8, label="common-FSR bound")
        a1.set_xlabel("channel spacing (nm)")
        a1.set_ylabel("worst crosstalk, one radius family (dB)")
        a1.legend(fontsize=8)
        if "check" in out:
            m = np.asarray(out["check"].result.matrix)
            im = a2.imshow(np.clip(m, -60, 0), cmap="viridis")
            fig.colorbar(im, ax=a2, label="crosstalk (dB)")
            a2.set_title(f"{out['family']} plan found: worst {out['check'].worst_db:.1f} dB", fontsize=9)
            a2.set_xlabel("ring j")
            a2.set_ylabel("channel i")
        save_figure_atomic(fig, Path(out_dir) / "wdm_channel_plan.png")
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
