"""The README's picture: the 8×8 PRISM prototype as ``prismpic layout prototype_8x8`` writes it, and a ring spectrum.

The layout is drawn from its GDS with the PDK's layer colours (``prismpic.report.layout_render``); the spectrum is
the default 20 µm add-drop ring's model (``rings.ring_add_drop_model``) over two free spectral ranges, with its specs
(``rings.ring_specs``) in the title.
Run: python docs/make_readme_figure.py [--out FILE]  (default: docs/readme_figure.png beside this script)
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.fileio import save_figure_atomic

DEFAULT_OUT = Path(__file__).resolve().parent / "readme_figure.png"


def prototype_picture(folder: Path) -> tuple[np.ndarray, float, float]:
    """The prototype drawn to an RGB array, and its width and height (µm) as written to GDS."""
    from PIL import Image

    from prismpic.circuits.prototype import prototype
    from prismpic.fileio import write_gds_atomic
    from prismpic.pdk.layers import write_lyp
    from prismpic.report.layout_render import render_gds_png

    c = prototype()
    gds = write_gds_atomic(c, folder / "prototype_8x8.gds", with_metadata=False)
    png = folder / "prototype_8x8.png"
    render_gds_png(gds, png, write_lyp(folder / "prismpic.lyp"), width_px=900)
    return np.asarray(Image.open(png).convert("RGB")), float(c.dxsize), float(c.dysize)


def ring_spectrum() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Wavelength (nm), through and drop power (dB) of the default add-drop ring over λ_r ± 1.1 FSR, and its specs."""
    import jax.numpy as jnp

    from prismpic.components import rings

    specs = rings.ring_specs(kind="add_drop")
    lam, fsr = specs["resonance_um"], specs["fsr_nm"] * 1e-3
    wl = jnp.linspace(lam - 1.1 * fsr, lam + 1.1 * fsr, 8001)
    s = rings.ring_add_drop_model(wl=wl)

    def db(x):
        return 10 * np.log10(np.maximum(np.abs(np.asarray(x)) ** 2, 1e-12))

    return np.asarray(wl) * 1e3, db(s[("o1", "o2")]), db(s[("o1", "o4")]), specs


def main(out: Path = DEFAULT_OUT) -> Path:
    """Draw the picture into ``out`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with tempfile.TemporaryDirectory(prefix="prismpic-readme-") as tmp:
        img, w, h = prototype_picture(Path(tmp))
    wl, thr, drp, specs = ring_spectrum()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 5.2), width_ratios=(1, 1.35), constrained_layout=True)
    a1.imshow(img)
    a1.set_axis_off()
    a1.set_title(f"8×8 PRISM prototype, {w:.0f} × {h:.0f} µm\n(prismpic layout prototype_8x8, DRC-clean)", fontsize=10)
    a2.plot(wl, thr, label="through")
    a2.plot(wl, drp, label="drop")
    dips = wl[[int(np.argmin(np.where(np.abs(wl - c) < 1.0, thr, np.inf))) for c in (wl[len(wl) // 2], wl[len(wl) // 2]
                                                                                        + specs["fsr_nm"])]]
    a2.annotate("", xy=(dips[1], -6), xytext=(dips[0], -6), arrowprops={"arrowstyle": "<->", "lw": 0.8})
    a2.text(dips.mean(), -5, "one FSR", ha="center", va="bottom", fontsize=9)
    a2.set_xlabel("wavelength (nm)")
    a2.set_ylabel("transmission (dB)")
    a2.set_ylim(-36, 2)
    a2.legend(loc="lower left", fontsize=9)
    a2.set_title(f"20 µm add-drop ring, 200 nm gaps (its model): FSR {specs['fsr_nm']:.2f} nm, "
                 f"FWHM {specs['fwhm_nm'] * 1e3:.0f} pm,\nloaded Q {specs['q_loaded']:,.0f}, extinction "
                 f"{specs['extinction_db']:.1f} dB, drop loss {specs['drop_loss_db']:.2f} dB", fontsize=10)
    save_figure_atomic(fig, out, dpi=100)
    plt.close(fig)
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="PNG to write (default: docs/readme_figure.png)")
    print(main(ap.parse_args().out))
