"""Mode families as combs in frequency: which detected dips are a ring's resonances, which are ripple.

A ring's resonances of one mode family are periodic in optical frequency, ν_m = ν_0 + m·FSR_ν (+ ½·D2·m²
from dispersion; Herr et al., "Temporal solitons in optical microresonators", Nat. Photon. 8, 145 (2014),
for the expansion). Detections are grouped into combs: the spacing that most detections share with a
neighbour (within 0.5 % of the spacing or a quarter linewidth: dispersion changes neighbouring spacings far less) seeds a
family; its members are those on the comb ν_0 + m·FSR_ν fitted with a quadratic in m; the rest are grouped
again. A comb whose finesse (FSR over linewidth) is below ``RIPPLE_FINESSE`` is a sinusoid-like modulation
(Fabry–Pérot ripple between facets or a grating coupler), not a ring: it is set apart as ripple. Detections on
no comb are unassigned (left out of every family; said in the notes).

Families are numbered by increasing FSR. The family analysed is chosen by ``family``: ``None`` (default: the one
whose n_g is nearest ``design_group_index`` when given, else the one with most members, then the deepest),
``"deepest"``, ``"te"`` (the design's: nearest ``design_group_index``), ``"tm"`` (the other one nearest it in
count), or an integer N (family N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.constants import c as _C

C_NM_THZ = _C * 1e-3  # speed of light in nm·THz (m/s · 1e9 nm/m / 1e12 /THz)
RIPPLE_FINESSE = 4.0  # a comb with FSR/FWHM below this is ripple, not a ring's resonances
COMB_TOLERANCE = 0.005  # a neighbour within this fraction of the spacing (or ¼ linewidth) is on the comb
FAMILY_CHOICES = ("te", "tm", "deepest")


@dataclass(frozen=True)
class ModeFamily:
    """One comb of resonances.

    Attributes:
        index: family number (by increasing FSR).
        members: indices (into the detections) of its resonances, by increasing wavelength.
        fsr_thz: FSR in frequency (THz) at the middle of the family; fsr_nm: the same at ``reference_nm`` (nm).
        group_index: c/(FSR_ν·L), None without ring length.
        fwhm_nm, depth: median apparent linewidth (nm) and prominence of its members.
        comb_rms: rms of the members' distances from the fitted comb, in FSRs (periodicity check).
        periodic: comb_rms within what dispersion allows (COMB_TOLERANCE).
    """

    index: int
    members: tuple[int, ...]
    fsr_thz: float
    fsr_nm: float
    group_index: float | None
    fwhm_nm: float
    depth: float
    comb_rms: float
    periodic: bool

    def to_dict(self) -> dict:
        return {"index": self.index, "n_resonances": len(self.members), "fsr_thz": self.fsr_thz,
                "fsr_nm": self.fsr_nm, "group_index": self.group_index, "fwhm_nm": self.fwhm_nm,
                "depth": self.depth, "comb_rms_fsr": self.comb_rms, "periodic": self.periodic}


WIDTH_RATIO = 2.5  # members of one comb have apparent linewidths within this factor of each other


def _tolerance(f, fw_nu) -> float:
    return max(COMB_TOLERANCE * f, 0.25 * fw_nu)


def _links(nu, fw_nu, sub, f) -> np.ndarray:
    """Pairs of ``sub`` one spacing ``f`` apart (within the tolerance) with similar linewidths."""
    d = np.abs(nu[sub][:, None] - nu[sub][None, :])
    fw = fw_nu[sub]
    similar = np.abs(np.log(fw[:, None] / fw[None, :])) < math.log(WIDTH_RATIO)
    tol = np.maximum(COMB_TOLERANCE * f, 0.25 * np.minimum(fw[:, None], fw[None, :]))
    return (np.abs(d - f) < tol) & similar


def _seed_spacing(nu, fw_nu, free) -> float | None:
    """The spacing (THz) that most of the ``free`` detections share with a neighbour; the smallest on ties."""
    sub = np.flatnonzero(free)
    if sub.size < 2:
        return None
    d = np.abs(nu[sub][:, None] - nu[sub][None, :])
    cands = np.unique(np.round(d[np.triu_indices(sub.size, 1)], 9))
    best, best_n = None, 1
    for f in cands:  # ascending: the smallest spacing wins ties (not a harmonic)
        linked = _links(nu, fw_nu, sub, f) | _links(nu, fw_nu, sub, 2.0 * f)  # over one missing resonance too
        n = int(np.sum(np.any(linked, axis=1)))
        if n > best_n:
            best, best_n = float(f), n
    return best


def _comb_members(nu, fw_nu, free, f) -> tuple[np.ndarray, np.ndarray, float]:
    """Members of the comb of spacing ``f`` grown from its best-connected detection; their mode numbers and rms."""
    sub = np.flatnonzero(free)
    links = np.sum(_links(nu, fw_nu, sub, f), axis=1)
    seed = sub[int(np.argmax(links))]
    members = {int(seed)}
    m_of = {int(seed): 0}
    grown = True
    while grown:  # grow one FSR (or two, over a missing resonance) at a time: dispersion stays local
        grown = False
        for j in list(members):
            for k in sub:
                if k in members:
                    continue
                dk = nu[k] - nu[j]
                steps = round(dk / f)
                tol = _tolerance(f, min(fw_nu[j], fw_nu[k]))
                similar = abs(math.log(fw_nu[j] / fw_nu[k])) < math.log(WIDTH_RATIO)
                if similar and 1 <= abs(steps) <= 2 and abs(dk - steps * f) < tol * abs(steps):
                    members.add(int(k))
                    m_of[int(k)] = m_of[j] + steps
                    grown = True
    idx = np.array(sorted(members, key=lambda k: nu[k]))
    m = np.array([m_of[int(k)] for k in idx], float)
    if idx.size >= 4:
        coef = np.polyfit(m, nu[idx], 2)
    elif idx.size >= 2:
        coef = np.polyfit(m, nu[idx], 1)
    else:
        coef = np.array([f, nu[idx[0]]])
    rms = float(np.sqrt(np.mean((nu[idx] - np.polyval(coef, m)) ** 2)) / f)
    return idx, m, rms


def find_families(lam_nm, fwhm_nm, prom, reference_nm: float, length_um: float | None, notes: list):
    """Mode families of the detections at ``lam_nm`` (nm) with apparent ``fwhm_nm`` and prominence ``prom``.

    Returns (families, ripple, unassigned): the ring's families (:class:`ModeFamily`, by increasing FSR), the
    detections recognised as ripple and those on no comb (index arrays). ``notes`` is appended to.
    """
    lam = np.asarray(lam_nm, float)
    nu = C_NM_THZ / lam
    fw_nu = C_NM_THZ * np.asarray(fwhm_nm, float) / lam**2
    free = np.ones(lam.size, bool)
    combs, ripple = [], []
    # ripple first: dips whose nearest neighbour of similar width is closer than RIPPLE_FINESSE linewidths
    d = np.abs(nu[:, None] - nu[None, :])
    similar = np.abs(np.log(fw_nu[:, None] / fw_nu[None, :])) < math.log(WIDTH_RATIO)
    np.fill_diagonal(similar, False)
    nearest = np.min(np.where(similar, d, np.inf), axis=1)
    rip = nearest < RIPPLE_FINESSE * fw_nu
    regular = rip.sum() >= 3 and np.median(np.abs(nearest[rip] / np.median(nearest[rip]) - 1.0)) < 0.25
    if regular:  # a periodic modulation (two families crossing are close only where they cross)
        ripple.extend(int(i) for i in np.flatnonzero(rip))
        free[rip] = False
        period = float(np.median(nearest[rip]))
        notes.append(f"{int(rip.sum())} dips about {reference_nm**2 * period / C_NM_THZ:.3g} nm apart with finesse "
                     f"{float(np.median(period / fw_nu[rip])):.2g} (< {RIPPLE_FINESSE:g}) recognised as ripple "
                     "(Fabry–Pérot or grating coupler), not ring resonances")
    while free.sum() >= 2:
        f = _seed_spacing(nu, fw_nu, free)
        if f is None:
            break
        idx, m, rms = _comb_members(nu, fw_nu, free, f)
        if idx.size < 2:
            break
        free[idx] = False
        span = np.ptp(m) if idx.size > 1 else 1.0
        f_fit = abs(float(np.ptp(nu[idx])) / span) if span > 0 else f
        finesse = f_fit / float(np.median(fw_nu[idx]))
        if finesse < RIPPLE_FINESSE and idx.size >= 3:
            ripple.extend(int(i) for i in idx)
            notes.append(f"{idx.size} dips with a period of {C_NM_THZ * f_fit / reference_nm**2:.3g} nm and finesse "
                         f"{finesse:.2g} (< {RIPPLE_FINESSE:g}) recognised as ripple (Fabry–Pérot or grating coupler), "
                         "not ring resonances")
            continue
        combs.append((idx, f_fit, rms))
    unassigned = np.flatnonzero(free)
    combs.sort(key=lambda c: c[1])
    fams = []
    for k, (idx, f_fit, rms) in enumerate(combs):
        ng = C_NM_THZ / (f_fit * length_um * 1e3) if length_um is not None else None
        fams.append(ModeFamily(k, tuple(int(i) for i in idx), f_fit, reference_nm**2 * f_fit / C_NM_THZ, ng,
                               float(np.median(np.asarray(fwhm_nm)[idx])), float(np.median(np.asarray(prom)[idx])),
                               rms, bool(rms < COMB_TOLERANCE)))
    return fams, np.array(sorted(ripple), int), unassigned


def choose_family(fams: list[ModeFamily], family, design_group_index: float | None) -> int:
    """Index in ``fams`` of the family to analyse (module docstring); ValueError naming ``family`` if absent."""
    if isinstance(family, bool) or not (family is None or family in FAMILY_CHOICES or isinstance(family, int | np.integer)):
        raise ValueError(f"family = {family!r} must be None, 'te', 'tm', 'deepest' or a family number >= 0")
    have = f"{len(fams)} mode famil{'y' if len(fams) == 1 else 'ies'} found"
    if isinstance(family, int | np.integer):
        if not 0 <= family < len(fams):
            raise ValueError(f"family = {family} is not there: {have} (numbered 0..{len(fams) - 1} by increasing FSR)")
        return int(family)
    if family == "deepest":
        return int(np.argmax([f.depth for f in fams]))
    if family in ("te", "tm") or (family is None and design_group_index is not None):
        if design_group_index is None or fams[0].group_index is None:
            raise ValueError(f"family = {family!r} needs the design's group index and the ring length (radius)")
        dist = [abs(f.group_index - design_group_index) for f in fams]
        te = int(np.argmin(dist))
        if family == "tm":
            others = [k for k in range(len(fams)) if k != te]
            if not others:
                raise ValueError(f"family = 'tm' is not there: {have} (the design's TE one)")
            return max(others, key=lambda k: (len(fams[k].members), fams[k].depth))
        return te
    return max(range(len(fams)), key=lambda k: (len(fams[k].members), fams[k].depth))


def periodicity_note(fam: ModeFamily) -> str | None:
    """A caveat when the family's resonances are not periodic in frequency within what dispersion allows."""
    if fam.periodic or len(fam.members) < 3:
        return None
    return (f"family {fam.index}: the resonances are not periodic in frequency (rms {fam.comb_rms:.2g} FSR from the "
            f"fitted comb, > {COMB_TOLERANCE:g}): the FSR is an average; check for a second family or ripple")


def drop_confirmed(lam_nm, fwhm_nm, drop_peaks_nm) -> np.ndarray:
    """Which through dips at ``lam_nm`` (nm) have a drop-port peak within one apparent FWHM (``fwhm_nm``)."""
    lam = np.asarray(lam_nm, float)
    pk = np.asarray(drop_peaks_nm, float)
    if pk.size == 0:
        return np.zeros(lam.size, bool)
    return np.min(np.abs(lam[:, None] - pk[None, :]), axis=1) <= np.maximum(np.asarray(fwhm_nm, float), 1e-9)


__all__ = ["FAMILY_CHOICES", "RIPPLE_FINESSE", "ModeFamily", "choose_family", "drop_confirmed", "find_families",
           "periodicity_note"]


def predicted_centers(centers_nm, lo_nm: float, hi_nm: float) -> np.ndarray:
    """Every position (nm) in [lo, hi] of the comb through one family's resonances ``centers_nm`` (≥ 2), periodic
    in frequency: its FSR the mean spacing, a missing member counted by rounding (none for a lone resonance)."""
    c = np.asarray(centers_nm, float)
    if c.size < 2:
        return c
    nu = np.sort(C_NM_THZ / c)
    d = np.diff(nu)
    fsr = float(np.mean(d / np.maximum(np.round(d / d.min()), 1)))
    k = np.arange(math.floor((C_NM_THZ / hi_nm - nu[0]) / fsr), math.ceil((C_NM_THZ / lo_nm - nu[0]) / fsr) + 1)
    lam = C_NM_THZ / (nu[0] + k * fsr)
    return np.sort(lam[(lam >= lo_nm) & (lam <= hi_nm)])


def overlap_notes(resonances, lo_nm: float, hi_nm: float) -> list[str]:
    """A note for each resonance that another family's comb puts a resonance on (within the wider linewidth)
    where that family has none detected: the two merged, so the fitted line is the pair's."""
    notes = []
    for f in sorted({r.family for r in resonances}):
        mine = [r for r in resonances if r.family == f]
        if len(mine) < 2:
            continue
        fw = float(np.median([r.fwhm_nm for r in mine]))
        for lam in predicted_centers([r.center_nm for r in mine], lo_nm, hi_nm):
            if any(abs(r.center_nm - lam) < fw for r in mine):
                continue
            for r in resonances:
                if r.family != f and abs(r.center_nm - lam) < max(fw, r.fwhm_nm):
                    notes.append(f"resonance near {r.center_nm:.3f} nm coincides with family {f}'s resonance its "
                                 f"comb puts at {lam:.3f} nm: the line fitted is the pair's (its Q_L, extinction "
                                 "and any splitting describe neither mode)")
    return notes
