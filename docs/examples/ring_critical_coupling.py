"""Loaded Q and through-port extinction of the 20 µm X-cut TFLN ring vs bus gap.

Writes ring_coupling.png: the all-pass ring and the add-drop ring with equal gaps, with the all-pass
critical-coupling gap marked.
Run: python docs/examples/ring_critical_coupling.py [--out DIR] [--quick]  (writes ring_coupling.png into DIR,
default the current folder)
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import prismpic  # noqa: E402, F401
from prismpic.components.rings import critical_gap, ring_specs  # noqa: E402
from prismpic.fileio import save_figure_atomic  # noqa: E402
from prismpic.pdk.stack import SIDEWALL_ANGLE_DEG  # noqa: E402


def main(quick: bool = False, out_dir: Path | None = Path(".")) -> dict:
    """Q_L and ER of the all-pass and add-drop rings over the gap (36 gaps; quick: 8), the all-pass critical gap
    among them; the figure into ``out_dir`` (None: no figure)."""
    try:
        g_c = critical_gap(1.55, "all_pass")
    except ValueError:  # the round-trip loss is more than the smallest gap couples
        g_c = None
    gaps = np.linspace(0.15, 0.5, 8 if quick else 36)
    gaps = gaps if g_c is None else np.sort(np.append(gaps, g_c))
    ap = [ring_specs(1.55, "all_pass", gap=g) for g in gaps]
    ad = [ring_specs(1.55, "add_drop", gap=g) for g in gaps]
    out = {"gaps": gaps, "critical_gap": g_c, "all_pass": ap, "add_drop": ad}
    if out_dir is None:
        return out
    fig, (ax_q, ax_e) = plt.subplots(2, 1, sharex=True, figsize=(6.4, 6.4))
    for specs, label, style in ((ap, "all-pass", "-"), (ad, "add-drop, equal gaps", "--")):
        ax_q.semilogy(gaps, [s["q_loaded"] for s in specs], style, label=label)
        ax_e.plot(gaps, [min(s["extinction_db"], 60.0) for s in specs], style, label=label)
    ax_q.axhline(ap[0]["q_intrinsic"], color="gray", lw=0.8, label="intrinsic Q")
    ax_q.axhline(12_500, color="tab:red", lw=0.8, ls=":", label="seed S1-10: Q = 12,500")
    ax_e.axhline(15.0, color="tab:red", lw=0.8, ls=":", label="seed S1-10: 15 dB")
    for ax in (ax_q, ax_e):
        ax.axvspan(0.2, 0.3, color="tab:orange", alpha=0.12, lw=0)
        if g_c is not None:
            ax.axvline(g_c, color="k", lw=0.8, ls="-.")
    if g_c is not None:
        ax_e.annotate(f"all-pass critical\ncoupling, {g_c:.3f} µm", (g_c, 40), xytext=(6, 0), textcoords="offset points")
    else:
        ax_e.annotate("all-pass: no critical gap ≥ 0.15 µm\n(round-trip loss > coupling)", (0.3, 40))
    ax_q.set_ylabel("loaded Q")
    ax_e.set_ylabel("through extinction (dB, capped at 60)")
    ax_e.set_xlabel("bus–ring gap (µm); shaded: seed S1-11 range")
    ax_q.set_title(f"ring R = 20 µm, X-cut ridge 1.4 × 0.6 µm, {SIDEWALL_ANGLE_DEG:g}° walls, λ ≈ 1.55 µm",
                   fontsize=10)
    ax_q.legend(fontsize=8)
    ax_e.legend(fontsize=8)
    fig.tight_layout()
    out["path"] = save_figure_atomic(fig, Path(out_dir) / "ring_coupling.png", dpi=120)
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
    print(cli()["path"])
