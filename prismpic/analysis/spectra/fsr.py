"""Free spectral range from resonance spacings: pairs, local FSR, the FSR at a reference and n_g.

Group index from the spacing of resonances m and m+1: n_g = λ_m·λ_(m+1)/(Δλ·L)
(exact for constant n_g, from 2π·n_g·L·(1/λ_(m+1) − 1/λ_m) = 2π).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def pair_spacings(centers) -> list[tuple[int, int, float]]:
    """Adjacent pairs of ``centers`` (nm) about one FSR apart: (pair index, number of FSRs spanned,
    spacing per FSR in nm); pairs not a whole number of FSRs (the median of the spacings within 1.5× the
    smallest) apart are left out."""
    d = np.diff(centers)
    if d.size == 0:
        return []
    med = float(np.median(d[d < 1.5 * d.min()]))  # one FSR: the spacings near the smallest (some may span two)
    out = []
    for i, di in enumerate(d):
        k = int(round(di / med))
        if k >= 1 and abs(di / k - med) < 0.25 * med:
            out.append((i, k, di / k))
    return out


def local_fsr(centers, fam) -> list[float | None]:
    """Per resonance, the mean spacing (nm) to its same-family neighbours (None if it has none)."""
    out: list[float | None] = [None] * centers.size
    for f in np.unique(fam):
        sub = np.flatnonzero(fam == f)
        acc = [[] for _ in sub]
        for i, _k, s in pair_spacings(centers[sub]):
            acc[i].append(s)
            acc[i + 1].append(s)
        for j, v in zip(sub, acc, strict=True):
            out[j] = float(np.mean(v)) if v else None
    return out


@dataclass(frozen=True)
class FsrSummary:
    """FSR of one mode family at a reference wavelength; see :class:`SpectrumAnalysis` for each field.

    Attributes:
        fsr_nm, fsr_err_nm: FSR (nm) at the reference and its 1σ; None for a lone resonance.
        fsr_slope: dFSR/dλ (dimensionless), None with fewer than 3 pairs.
        fsr_wl_nm, fsr_pairs_nm: midpoint and spacing per FSR (nm) of each pair.
        group_index: n_g of each pair (None without ring length).
        n_group: n_g at the reference (None without ring length or FSR).
    """

    fsr_nm: float | None
    fsr_err_nm: float | None
    fsr_slope: float | None
    fsr_wl_nm: tuple[float, ...]
    fsr_pairs_nm: tuple[float, ...]
    group_index: tuple[float, ...] | None
    n_group: float | None


def fsr_summary(centers, center_err, pairs, reference_nm: float, length_um: float | None) -> FsrSummary:
    """FSR at ``reference_nm`` (clamped to the span of ``centers``, nm) from the ``pairs`` of
    :func:`pair_spacings`: a linear fit of the spacings versus wavelength for 3 pairs or more,
    else the nearest pair's spacing scaled as λ². ``center_err``: 1σ of each centre (nm);
    ``length_um``: ring round-trip length (µm) for n_g, or None."""
    fsr_nm = fsr_err = slope = n_group = None
    mids = tuple(float((centers[i] + centers[i + 1]) / 2.0) for i, _, _ in pairs)
    spac = tuple(float(s) for _, _, s in pairs)
    ng = None
    if pairs:
        mid_a, spac_a = np.array(mids), np.array(spac)
        pair_err = np.array([math.hypot(center_err[i], center_err[i + 1]) / k for i, k, _ in pairs])
        ref = float(np.clip(reference_nm, centers[0], centers[-1]))
        if len(pairs) >= 3:
            coef, cov = np.polyfit(mid_a - ref, spac_a, 1, cov="unscaled")
            dof = len(pairs) - 2
            res = spac_a - np.polyval(coef, mid_a - ref)
            s2 = max(float(res @ res) / dof if dof > 0 else 0.0, float(np.mean(pair_err**2)))
            fsr_nm, slope = float(coef[1]), float(coef[0])
            fsr_err = float(math.sqrt(cov[1, 1] * s2))
        else:  # the nearest pair, scaled to the reference as λ² (n_g constant in between)
            j = int(np.argmin(np.abs(mid_a - ref)))
            i0 = pairs[j][0]
            fsr_nm = float(spac_a[j] * ref**2 / (centers[i0] * centers[i0 + 1]))
            fsr_err = float(pair_err[j])
        if length_um is not None:
            # k FSRs between the pair: 2π·n_g·L·(1/λ_i − 1/λ_(i+1)) = 2πk, spacing per FSR s
            ng = tuple(float(centers[i] * centers[i + 1] / (s * length_um * 1e3)) for i, _, s in pairs)
            n_group = ref**2 / (fsr_nm * length_um * 1e3)
    return FsrSummary(fsr_nm, fsr_err, slope, mids, spac, ng, n_group)
