"""The figure of a ring calibration: data, fit and residual, or the calibrated model's spectrum."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from prismpic.analysis.calibration.ring.model import ring_sax_model
from prismpic.fileio import save_figure_atomic

if TYPE_CHECKING:
    from prismpic.analysis.calibration.results import RingCalibration


def _db(y):
    return 10 * np.log10(np.maximum(np.asarray(y, float), 1e-12))


def plot_ring_calibration(cal: RingCalibration, path) -> Path:
    """Figure (format from the suffix): data and fitted model (dB) over the span, the resonance
    nearest the reference, and the residual in units of the noise σ. For spec fits: the calibrated
    model's through (and drop) over ±1.5 FSR."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pd_ = cal.plot_data
    s = cal.specs
    title = (f"{cal.kind} ring: FSR {s['fsr_nm']:.4g} nm, Q_L {s['q_loaded']:.4g}, ER {s['extinction_db']:.3g} dB, "
             f"λ0 {s['resonance_nm']:.3f} nm, n_g {s['ng']:.4g}")
    if "data" not in pd_:
        fig, ax = plt.subplots(figsize=(9, 4), constrained_layout=True)
        lam = s["resonance_nm"]
        wl = np.linspace(lam - 1.5 * s["fsr_nm"], lam + 1.5 * s["fsr_nm"], 4001)
        sd = ring_sax_model(cal.kind)(wl * 1e-3, **cal.ring)
        ax.plot(wl, _db(np.abs(np.asarray(sd[("o1", "o2")])) ** 2), label="through (model)")
        if cal.kind == "add_drop":
            ax.plot(wl, _db(np.abs(np.asarray(sd[("o1", "o4")])) ** 2), label="drop (model)")
        ax.set_xlabel("wavelength (nm)")
        ax.set_ylabel("transmission (dB)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8)
    else:
        wl = pd_["wl_nm"]
        fig = plt.figure(figsize=(11, 8), constrained_layout=True)
        gs = fig.add_gridspec(3, 2, height_ratios=[1.3, 1, 0.8])
        ax, zoom, axr = fig.add_subplot(gs[0, :]), fig.add_subplot(gs[1, :]), fig.add_subplot(gs[2, :])
        c0, fw = pd_["center_nm"], pd_["fwhm_nm"]
        zm = np.abs(wl - c0) <= 8 * fw
        colors = {"through": ("C0", "C3"), "drop": ("C2", "C1")}
        for port, d, m, sg in zip(pd_["ports"], pd_["data"], pd_["model"], pd_["sigma"], strict=True):
            cd, cm = colors[port]
            ax.plot(wl, _db(d), color=cd, lw=0.8, label=f"{port} data")
            ax.plot(wl, _db(m), color=cm, lw=1.0, ls="--", label=f"{port} fit")
            zoom.plot(wl[zm], _db(d[zm]), ".", color=cd, ms=2.5, label=f"{port} data")
            zoom.plot(wl[zm], _db(m[zm]), color=cm, lw=1.2, label=f"{port} fit")
            axr.plot(wl, (d - m) / sg, color=cd, lw=0.6, label=f"{port}")
        ax.set_ylabel("transmission (dB)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, ncol=4)
        zoom.set_ylabel("transmission (dB)")
        zoom.ticklabel_format(axis="x", useOffset=False)
        zoom.set_title(f"measured resonance at {c0:.3f} nm", fontsize=9)
        zoom.legend(fontsize=7, ncol=4)
        axr.axhline(0, color="k", lw=0.6)
        axr.set_ylabel("residual / noise σ")
        axr.set_xlabel("wavelength (nm)")
        chi2 = cal.fit.get("chi2_reduced")
        axr.set_title(f"residual (reduced χ² = {chi2:.3g})" if chi2 is not None else "residual", fontsize=9)
    out = save_figure_atomic(fig, path)
    plt.close(fig)
    return out
