"""The measured spectrum as the ring fits read it: the resonance analysis, the family calibrated, the other
families masked, noise weights, and every wavelength converted once from the file's nm to µm."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from prismpic.analysis.calibration.ring.linefit import SpectrumData
from prismpic.analysis.calibration.ring.start import check_ng, ring_indices
from prismpic.analysis.spectra import analyze_spectrum
from prismpic.analysis.spectra.comb import predicted_centers
from prismpic.analysis.spectra.detection import noise_sigma
from prismpic.components.units import NM_PER_UM

# Far from resonance a measured drop port sits 40–60 dB below its peak, where bus-to-drop crosstalk, stray light
# and the detector floor set its level rather than the ring (and where a single-mode coupled-mode picture and the
# Airy response differ by tens of dB): the fit reads it within this many linewidths of each resonance.
DROP_WINDOW = 6.0


def spectrum_analysis(wl_nm, through, drop, design_p: dict, reference_nm: float, coupling, family):
    """``analyze_spectrum`` for the calibration (nm, as the file): baseline order chosen by the data, the family
    ``family`` (default the drawn ring's, by the design's group index), ``nearest`` on a resonance no other
    family's wing covers; ValueError when the family has one resonance only or its FSR contradicts the radius
    (``start.check_ng``)."""
    ng_design = float(ring_indices(design_p, reference_nm / NM_PER_UM)[1])
    an = analyze_spectrum(wl_nm, through, drop, radius_um=float(design_p["radius"]), reference_nm=reference_nm,
                          baseline_order="auto", coupling=coupling, family=family, design_group_index=ng_design)
    if an.fsr_nm is None:
        raise ValueError(f"one resonance only in {an.wl_nm[0]:.6g}..{an.wl_nm[-1]:.6g} nm: the FSR (hence n_g) needs "
                         "at least two resonances; widen the span")
    an = _clear_resonance(an)
    rn = an.resonances[an.nearest]
    check_ng(an.fsr_nm / NM_PER_UM, rn.center_nm / NM_PER_UM, float(design_p["radius"]))
    return an


def other_family_mask(an) -> np.ndarray:
    """Points where another mode family's resonance stands out of the noise: its Lorentzian wing
    depth/(1 + (2δ/w)²) above the port's noise σ, i.e. |δ| < ½w·√(depth/σ − 1) (at least 2, at most 8 FWHM),
    around each of its resonances and each position its comb (periodic in frequency) predicts in the span, so
    that a resonance merged with one of the design's family is masked too. The model holds one family; the
    other's wings 2–4 linewidths out are still percent-deep."""
    wl = np.asarray(an.wl_nm, float)
    sigma = max(float(an.noise.get("through") or an.noise.get("drop") or 0.0), 1e-6)
    mask = np.zeros(wl.size, bool)
    for fam in sorted({r.family for r in an.resonances} - {0}):
        rs = [r for r in an.resonances if r.family == fam]
        depth = max(abs(r.depth) for r in rs)  # a doublet's fitted depth can be one mode's, or none
        fwhm = float(np.median([r.fwhm_nm for r in rs]))
        centers = [r.center_nm for r in rs] + list(predicted_centers([r.center_nm for r in rs], wl[0] - 10 * fwhm,
                                                                     wl[-1] + 10 * fwhm))
        half = float(np.clip(0.5 * fwhm * math.sqrt(max(depth / sigma - 1.0, 0.0)), 2.0 * fwhm, 8.0 * fwhm))
        for c in centers:
            mask |= np.abs(wl - c) <= half
    return mask


def _clear_resonance(an):
    """``an`` with ``nearest`` on the design family's resonance nearest the reference whose core (±1.5 FWHM) no
    other family's wing covers (``other_family_mask``), and a note when that is not the nearest one."""
    mask = other_family_mask(an)
    if not mask.any():
        return an
    wl = np.asarray(an.wl_nm, float)
    ref = an.resonances[an.nearest]
    clear = [i for i, r in enumerate(an.resonances)
             if r.family == 0 and not mask[np.abs(wl - r.center_nm) <= 1.5 * r.fwhm_nm].any()]
    if not clear or an.nearest in clear:
        return an
    i = min(clear, key=lambda k: abs(an.resonances[k].center_nm - ref.center_nm))
    note = (f"the resonance nearest the reference ({ref.center_nm:.3f} nm) lies in the wing of another mode family's "
            f"resonance: the calibration is about the nearest clear one, {an.resonances[i].center_nm:.3f} nm")
    return dataclasses.replace(an, nearest=i, notes=(*an.notes, note))


def prepared_spectrum(an, ports: tuple[str, ...], order: int, eta: float) -> SpectrumData:
    """The fits' ``SpectrumData`` of the analysis ``an`` (µm from here on): per point the running robust noise σ
    of each port (additive and multiplicative alike), the other families masked in every port, the drop port read
    within ``DROP_WINDOW`` linewidths of the family's resonances only, the FSR at the resonance fitted."""
    wl_nm = np.asarray(an.wl_nm, float)
    rn = an.resonances[an.nearest]
    data, sigma = [], []
    for p in ports:
        y = np.asarray(an.through if p == "through" else an.drop, float)
        base = np.asarray(an.baseline_through if (p == "through" or an.through is not None) else an.baseline_drop)
        s = noise_sigma(y / base) * base
        data.append(y)
        sigma.append(np.maximum(s, 1e-3 * float(np.median(s)) + 1e-12 * float(np.max(base))))
    sigma = np.stack(sigma)
    w = 1.0 / sigma
    w[:, other_family_mask(an)] = 0.0
    fam0 = [r.center_nm for r in an.resonances if r.family == 0]
    if "drop" in ports:
        near = np.zeros(wl_nm.size, bool)
        for c in fam0:
            near |= np.abs(wl_nm - c) <= DROP_WINDOW * rn.fwhm_nm
        w[ports.index("drop"), ~near] = 0.0
    fsr_nm = an.fsr_nm * (rn.center_nm / float(np.clip(an.reference_nm, fam0[0], fam0[-1]))) ** 2
    sp = SpectrumData(wl_nm / NM_PER_UM, ports, np.stack(data), sigma, w, rn.center_nm / NM_PER_UM,
                      fsr_nm / NM_PER_UM, rn.fwhm_nm / NM_PER_UM, tuple(c / NM_PER_UM for c in fam0), eta, order,
                      envelope_order=int(an.baseline_order), split_seen=rn.split_nm is not None)
    sp.notes.extend(an.notes)
    return sp
