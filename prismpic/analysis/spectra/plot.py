"""``plot_spectrum``: a figure of a spectrum analysis (span, nearest resonance, FSR and n_g)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from prismpic.analysis.spectra.results import SpectrumAnalysis
from prismpic.fileio import save_figure_atomic


def _db(y):
    return 10.0 * np.log10(np.maximum(np.asarray(y, float), 1e-12))


def _draw_ports(ax, r: SpectrumAnalysis, sel, x) -> None:
    """Data, baseline and fitted curves of each port (dB) on ``ax``, samples ``sel`` at abscissae ``x``."""
    if r.through is not None:
        ax.plot(x, _db(r.through[sel]), color="C0", lw=1.0, label="through")
        ax.plot(x, _db(r.baseline_through[sel]), color="k", ls="--", lw=0.9, label="baseline")
        ax.plot(x, _db(r.model_through[sel]), color="C3", ls=(0, (4, 2)), lw=1.0, label="through fit")
    if r.drop is not None:
        ax.plot(x, _db(r.drop[sel]), color="C2", lw=1.0, label="drop")
        if r.through is None:
            ax.plot(x, _db(r.baseline_drop[sel]), color="k", ls=":", lw=0.9, label="floor")
        ax.plot(x, _db(r.model_drop[sel]), color="C1", ls=(0, (4, 2)), lw=1.0, label="drop fit")


def _mark_resonances(ax, zoom, r: SpectrumAnalysis) -> None:
    """FWHM bar and extremum marker of every resonance (and of the nearest one on the zoom)."""
    wl = r.wl_nm
    marker = "v" if r.port == "through" else "^"
    for k, res in enumerate(r.resonances):
        lam0, fw = res.center_nm, res.fwhm_nm
        if r.port == "through":
            b = float(np.interp(lam0, wl, r.baseline_through))
            level_min = _db(b * res.through_min)
            level_half = _db(b * (1.0 - (1.0 - res.through_min) / 2.0))
        else:
            level_min = _db(np.nanmax(r.model_drop[np.abs(wl - lam0) <= fw]))
            level_half = level_min - 10.0 * math.log10(2.0)
        ax.plot([lam0 - fw / 2, lam0 + fw / 2], [level_half, level_half], color="m", lw=2.5)
        ax.plot([lam0], [level_min], marker, color="m", ms=6)
        if k == r.nearest:
            zoom.plot([-fw / 2 * 1e3, fw / 2 * 1e3], [level_half, level_half], color="m", lw=2.5, label="FWHM")
            zoom.plot([0.0], [level_min], marker, color="m", ms=6)


def _summary(r: SpectrumAnalysis) -> str:
    rn = r.resonances[r.nearest]
    text = f"λ0 = {rn.center_nm:.3f} nm, FWHM = {rn.fwhm_nm * 1e3:.3g} pm, Q_L = {rn.q_loaded:.4g}, "
    text += f"ER = {rn.extinction_db:.3g} dB"
    if r.fsr_nm is not None:
        text += f", FSR = {r.fsr_nm:.4g} nm"
    if r.q_intrinsic is not None:
        text += f", Q_i = {r.q_intrinsic:.4g}"
    return text


def _draw_fsr(axf, r: SpectrumAnalysis) -> None:
    """FSR of adjacent pairs (and n_g on a twin axis) versus wavelength, or a note for one resonance."""
    if not r.fsr_wl_nm:
        axf.axis("off")
        axf.text(0.5, 0.5, "one resonance: no FSR", ha="center", va="center")
        return
    axf.plot(r.fsr_wl_nm, r.fsr_pairs_nm, "o-", color="C0")
    axf.set_xlabel("wavelength (nm)")
    axf.set_ylabel("FSR (nm)", color="C0")
    axf.ticklabel_format(axis="y", useOffset=False)
    if r.group_index is not None:
        a2 = axf.twinx()
        a2.plot(r.fsr_wl_nm, r.group_index, "s--", color="C1", ms=4)
        a2.set_ylabel("group index", color="C1")
        a2.ticklabel_format(axis="y", useOffset=False)
        g = np.asarray(r.group_index)
        pad = max(float(np.ptp(g)), 0.002 * float(g.mean()))
        a2.set_ylim(g.min() - pad, g.max() + pad)
    axf.set_title("FSR of adjacent pairs" + (" and group index" if r.group_index is not None else ""), fontsize=9)
    axf.set_xlim(r.wl_nm[0], r.wl_nm[-1])


def plot_spectrum(result: SpectrumAnalysis, path, *, title: str | None = None) -> Path:
    """Draw the spectrum, baseline, fits and resonances (FWHM bars) to a PNG; return its path.

    Top: the whole span in dB. Bottom left: the resonance nearest the reference. Bottom
    right: FSR (and n_g) versus wavelength, when there are at least two resonances.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = result
    wl = r.wl_nm
    fig = plt.figure(figsize=(11, 7.5), constrained_layout=True)
    gs = fig.add_gridspec(2, 2, height_ratios=[1.25, 1])
    ax = fig.add_subplot(gs[0, :])
    zoom = fig.add_subplot(gs[1, 0])
    axf = fig.add_subplot(gs[1, 1])
    rn = r.resonances[r.nearest]
    zm = np.abs(wl - rn.center_nm) <= 6.0 * rn.fwhm_nm
    _draw_ports(ax, r, slice(None), wl)
    _draw_ports(zoom, r, zm, (wl[zm] - rn.center_nm) * 1e3)
    _mark_resonances(ax, zoom, r)
    ax.set_xlabel("wavelength (nm)")
    ax.set_ylabel("transmission (dB)")
    summary = _summary(r)
    ax.set_title(f"{title}\n{summary}" if title else summary, fontsize=10)
    zoom.set_xlabel(f"wavelength − {rn.center_nm:.3f} nm (pm)")
    zoom.set_ylabel("transmission (dB)")
    zoom.set_title(f"resonance nearest {r.reference_nm:g} nm", fontsize=9)
    zoom.legend(fontsize=7, loc="best")
    _draw_fsr(axf, r)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return save_figure_atomic(fig, path, dpi=110)
    finally:
        plt.close(fig)
