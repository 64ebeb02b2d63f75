"""The bus gap that critically couples the default ring, found by gradient descent.

At a resonance (θ = 2πm) the all-pass through power is T = (t − a)²/(1 − ta)² (Bogaerts
et al., Laser Photon. Rev. 6, 47 (2012), eq. 1): zero at critical coupling, t = a. The
resonance wavelength does not depend on the gap (the round-trip phase θ holds no coupling
term), so the objective is T(gap) = |S_o1→o2(λ_res; gap)|² of ``ring_all_pass_model``
itself, differentiated by ``jax.grad`` and minimised by gradient descent (Polyak's step
for the known minimum 0, with backtracking), the gap projected onto the design-rule range. For the add-drop ring the same descent on
the input gap (drop gap held at its default) reaches t1 = a·t2.

The result is checked against ``rings.critical_gap`` (Brent's root of t(gap) = a).
Run: python docs/examples/critical_gap_descent.py [--out DIR] [--quick]  (writes critical_gap_descent.png into DIR, default the
current folder)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.components import ring_physics, rings
from prismpic.fileio import save_figure_atomic
from prismpic.pdk.rules import RULES


def descend(kind: str = "all_pass", steps: int = 60, gap0: float = 0.5) -> dict:
    """Gradient descent of the through power at resonance over the input gap; returns the path and the result.

    Step: Polyak's step size for a known minimum value f* = 0 (critical coupling),
    Δgap = −f·∇f/|∇f|², halved until f decreases (Armijo backtracking), projected onto the
    gap range. Near the root f ≈ k(gap − g*)², so each step halves the distance to g*.
    """
    held = {} if kind == "all_pass" else {"gap_drop": ring_physics.GAP}  # gap_drop=None would tie it to gap
    lam = rings.resonance_wavelength(1.55, kind, **held)
    model = rings.ring_all_pass_model if kind == "all_pass" else rings.ring_add_drop_model
    lo, hi = RULES.min_ridge_gap, ring_physics.MAX_GAP

    def through_power(gap):
        return jnp.abs(model(wl=lam, gap=gap, **held)[("o1", "o2")]) ** 2

    value_and_grad = jax.jit(jax.value_and_grad(through_power))
    gap = float(gap0)
    f, g = (float(v) for v in value_and_grad(gap))
    path = [(gap, f)]
    for _ in range(steps):
        if g == 0.0 or f < 1e-18:
            break
        step = f / g
        for _ in range(30):  # backtracking
            new = float(np.clip(gap - step, lo, hi))
            f_new, g_new = (float(v) for v in value_and_grad(new))
            if f_new < f:
                break
            step /= 2
        else:
            break
        gap, f, g = new, f_new, g_new
        path.append((gap, f))
    return {"kind": kind, "resonance_um": lam, "gap": gap, "through_power": f, "path": np.array(path)}


def main(quick: bool = False, out_dir: Path | None = None) -> dict:
    """Run the descent for the all-pass and the add-drop ring; compare with ``critical_gap``; draw the path."""
    ring_physics.ring_ng(1.55)  # build the dispersion model's cached fits eagerly, outside any JAX trace
    steps = 40 if quick else 60
    out = {}
    for kind in ("all_pass", "add_drop"):
        res = descend(kind, steps=steps)
        extra = {} if kind == "all_pass" else {"gap_drop": ring_physics.GAP}
        try:
            res["critical_gap_brent"] = rings.critical_gap(res["resonance_um"], kind, **extra)
        except ValueError as e:  # no root in the gap range: the descent ends on a bound
            res["critical_gap_brent"] = None
            res["note"] = str(e)
        out[kind] = res
        brent = res["critical_gap_brent"]
        print(f"{kind}: gradient descent gap = {res['gap']:.5f} µm (T = {res['through_power']:.2e}); "
              f"Brent critical_gap = {'none' if brent is None else f'{brent:.5f} µm'}")
    if out_dir is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
        for kind, res in out.items():
            p = res["path"]
            a1.plot(p[:, 0], label=kind)
            a2.semilogy(np.maximum(p[:, 1], 1e-16), label=kind)
            if res["critical_gap_brent"] is not None:
                a1.axhline(res["critical_gap_brent"], ls=":", color="k", lw=0.8)
        a1.set_xlabel("step")
        a1.set_ylabel("gap (µm); dotted: Brent root")
        a2.set_xlabel("step")
        a2.set_ylabel("through power at resonance")
        a1.legend()
        fig.suptitle("critical coupling of the default 20 µm ring by gradient descent (jax.grad, Polyak steps)")
        save_figure_atomic(fig, Path(out_dir) / "critical_gap_descent.png")
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
