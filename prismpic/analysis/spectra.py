"""Microring resonances from a transmission spectrum: FSR, FWHM, loaded and intrinsic Q, extinction.

Works on any spectrum, a model's or a measured one: through port, drop port or both, in
linear power or dB, with noise, a tilted baseline and a coupling offset.

Pipeline:

1. Validate (``ValueError`` naming the parameter, the value and what is needed).
2. Baseline: a polynomial in dB versus λ (coupling offset, tilt, grating-coupler
   curvature) fitted iteratively to the off-resonance points (through: the upper
   envelope, dips excluded; drop alone: the floor). Spectra are divided by it.
3. Detection: ``scipy.signal.find_peaks`` on the normalized dips (peaks), prominence
   above 10× a robust noise estimate (MAD of second differences) and above 10 % of the
   strongest resonance (noise estimated locally, so a noisier part of the band does not
   produce false dips). The apparent FWHM (width at half prominence) must span at least
   ``min_points_per_fwhm`` samples, otherwise the sampling cannot resolve the linewidth
   and the analysis refuses (narrower features weaker than the strongest resonance are
   dropped as spikes). Resonances whose linewidths fall in two groups more than 1.6×
   apart are split into two mode families; the FSR summary uses the main one.
4. Refinement: per resonance, a least-squares fit (``scipy.optimize.least_squares``)
   over half an FSR on each side of the exact Airy lineshape times a local baseline
   correction c0·exp(c1·(λ − λ0)) (linear in dB), through and drop jointly (sharing
   centre and linewidth). A lone resonance (no FSR) is fitted with the Lorentzian
   limit. Errors are 1σ from the Jacobian and the residual variance.

Lineshape (Bogaerts et al., "Silicon microring resonators", Laser Photon. Rev. 6, 47
(2012)), with r1, r2 the self-coupling of the input and drop couplers, a the single-pass
amplitude transmission, x = r1·r2·a and φ the round-trip phase:

    T(φ) = (a²r2² − 2a·r1·r2·cos φ + r1²) / (1 − 2x·cos φ + x²)
         = 1 − (1 − T0)·ℒ(φ),        ℒ(φ) = (1 − x)² / (1 − 2x·cos φ + x²)
    D(φ) = (1 − r1²)(1 − r2²)·a / (1 − 2x·cos φ + x²) = D0·ℒ(φ)

with T0 = (r1 − a·r2)²/(1 − x)² and D0 = (1 − r1²)(1 − r2²)·a/(1 − x)² on resonance
(the all-pass ring is r2 = 1, D = 0). ℒ falls to ½ at 2·sin(φ/2) = (1 − x)/√x, so the
FWHM in phase is 4·arcsin((1 − x)/(2√x)) ≈ 2(1 − x)/√x, i.e.
FWHM = (1 − x)·λ²/(π·n_g·L·√x) (Bogaerts 2012). Near a resonance λ0 with local FSR,
φ = 2π·(λ0/FSR)·(λ0 − λ)/λ (n_g constant over the window). Q_loaded = λ0/FWHM.

Extinction: through, T_max/T0 with T_max = 1 − (1 − T0)(1 − x)²/(1 + x)² the
off-resonance maximum; drop, the fitted peak over the floor: the fitted minimum (at
antiresonance) plus the median misfit of the data in the outer fifth of the fit window.
When T0 (the floor) is below twice its standard error, it is replaced by its value
plus two standard errors and the extinction is a lower bound (said in ``notes``).

Intrinsic Q. The through dip alone fixes x and T0 but not which of r1 and a·r2 is the
larger: the under-coupled (r1 > a·r2, coupling weaker than the loss plus the drop
coupling) and the over-coupled solution fit the same |T|². In the high-finesse
(coupled-mode) limit this is Q_i = 2·Q_L/(1 ± √T0), + under-coupled, − over-coupled
[McKinnon et al., "Extracting coupling and loss coefficients from a ring resonator",
Opt. Express 17, 18971 (2009)]. For an add-drop ring the drop peak D0 adds the third
equation: with u = r1, v = a·r2 from (x, T0), (1 − u²)(a − v²/a) = D0(1 − x)² gives
a = (K + √(K² + 4v²))/2, K = D0(1 − x)²/(1 − u²), and r2 = v/a. In coupled-mode terms
[Little et al., JLT 15, 998 (1997)] T0 = ((γi + γ2 − γ1)/γ)², D0 = 4γ1γ2/γ²: both
signs of √T0 give non-negative γi, γ2 whenever T0 + D0 ≤ 1, so through and drop
together do NOT resolve the regime either (they swap γ1 with γi + γ2 at fixed γ1·γ2).
Both solutions are therefore always reported; ``q_intrinsic`` is set only when they
coincide (critical coupling) or when ``coupling`` says which holds: ``"under"`` or
``"over"`` (from the design, a model or a reverse measurement), or ``"symmetric"``
(identical input and drop couplers; the solution with γ1 closest to γ2 is taken).
Each of Q_i, Q_c1, Q_c2 is λ0 over the Airy FWHM of a, r1, r2 alone; with the ring
length given, the loss is −20·log10(a)/L in dB per length. With the through port alone
an add-drop ring's drop coupling counts as loss (a is then a·r2). Without an FSR (one
resonance) the coupled-mode forms above are used instead of the Airy inversion.

Group index from the spacing of resonances m and m+1: n_g = λ_m·λ_(m+1)/(Δλ·L)
(exact for constant n_g, from 2π·n_g·L·(1/λ_(m+1) − 1/λ_m) = 2π).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path

import numpy as np
from scipy.ndimage import median_filter
from scipy.optimize import least_squares
from scipy.signal import find_peaks, peak_widths

from prismpic.checks import check_choice, check_positive, check_range

MIN_POINTS = 16  # fewest samples accepted in a spectrum
MAX_LINEAR = 1.5  # a linear transmission above this is not normalized (or is dB)
NEGATIVE_TOLERANCE = 0.02  # linear values down to -0.02 pass (detector offset noise)
NOISE_SIGMAS = 10.0  # detection threshold in noise standard deviations
RELATIVE_PROMINENCE = 0.1  # and in units of the strongest resonance's prominence
MAX_LOCAL_TILT = 1.0  # |ln slope| of the local baseline over a half window (±4.3 dB)

_SCALES = ("linear", "db")
_COUPLINGS = (None, "under", "over", "symmetric")


# ----------------------------------------------------------------------------- results


def _jsonable(v):
    if is_dataclass(v):
        return v.to_dict()
    if isinstance(v, (tuple, list)):
        return [_jsonable(e) for e in v]
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


class _ToDict:
    def to_dict(self) -> dict:
        """JSON-ready dict (tuples become lists, non-finite floats ``None``; arrays are left out)."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self) if f.compare}


@dataclass(frozen=True)
class CouplingSolution(_ToDict):
    """One solution (r1, r2, a) consistent with the measured x, T0 (and D0).

    Attributes:
        regime: ``"under"`` (r1 > a·r2: input coupling weaker than loss plus drop coupling)
            or ``"over"``.
        q_intrinsic: λ0 over the linewidth of the loss alone (inf for a ≥ 1).
        q_coupling_in: λ0 over the linewidth of the input coupler alone.
        q_coupling_drop: same for the drop coupler; None for a through port alone.
        r1, r2, a: self-coupling amplitudes and single-pass amplitude transmission
            (None in the coupled-mode fallback used without an FSR; r2 = 1 for all-pass).
        loss_db_per_cm: propagation loss −20·log10(a)/L (None without the ring length).
        physical: False if a, r1 or r2 exceeds 1 beyond the fit's accuracy.
    """

    regime: str
    q_intrinsic: float
    q_coupling_in: float
    q_coupling_drop: float | None
    r1: float | None
    r2: float | None
    a: float | None
    loss_db_per_cm: float | None
    physical: bool


@dataclass(frozen=True)
class IntrinsicQ(_ToDict):
    """Intrinsic Q of one resonance.

    Attributes:
        q_intrinsic: the chosen value, or None when the regime is ambiguous.
        regime: ``"under"``/``"over"``/``"critical"`` for the chosen solution, or None.
        ambiguous: True when both solutions remain and no ``coupling`` chose one.
        method: what was used: ``"all-pass (through)"``, ``"add-drop (through + drop)"``,
            with ``", coupled-mode"`` when no FSR was available for the Airy inversion.
        assumption: the ``coupling`` hint applied, or ``""``.
        solutions: the under- and over-coupled solutions.
    """

    q_intrinsic: float | None
    regime: str | None
    ambiguous: bool
    method: str
    assumption: str
    solutions: tuple[CouplingSolution, ...]


@dataclass(frozen=True)
class Resonance(_ToDict):
    """One fitted resonance. Wavelengths in nm; errors are 1σ.

    Attributes:
        center_nm, center_err_nm: resonance wavelength.
        fwhm_nm, fwhm_err_nm: full width at half maximum of the Airy/Lorentzian dip (peak).
        q_loaded, q_loaded_err: λ0/FWHM.
        extinction_db, extinction_err_db: of the primary port (through if given, else drop).
        depth: through, 1 − T0 (fraction of the baseline removed at resonance); drop
            alone, the peak height D0.
        through_min: T0, through on resonance relative to the baseline (None without through).
        through_extinction_db: T_max/T0 in dB.
        drop_peak: D0, drop on resonance relative to the through baseline when both ports
            are given (same couplers assumed), else in the drop's own units (tilt removed).
        drop_extinction_db: drop peak over the floor (fitted minimum plus median misfit), dB.
        points_per_fwhm: samples per FWHM at the resonance.
        fsr_local_nm: mean spacing to the neighbouring resonances (None for a lone one).
        finesse: fsr_local_nm / fwhm_nm.
        family: mode family, 0 for the primary one (the FSR summary uses family 0), 1 for a
            second family with a linewidth more than 1.6× different.
        intrinsic: intrinsic-Q analysis (None when only the drop port is given).
    """

    center_nm: float
    center_err_nm: float
    fwhm_nm: float
    fwhm_err_nm: float
    q_loaded: float
    q_loaded_err: float
    extinction_db: float
    extinction_err_db: float
    depth: float
    through_min: float | None
    through_extinction_db: float | None
    drop_peak: float | None
    drop_extinction_db: float | None
    points_per_fwhm: float
    fsr_local_nm: float | None
    finesse: float | None
    family: int
    intrinsic: IntrinsicQ | None


@dataclass(frozen=True, eq=False)
class SpectrumAnalysis(_ToDict):
    """Resonances and figures of merit of a ring spectrum.

    Attributes:
        port: ``"through"`` or ``"drop"``, the port resonances were detected on.
        resonances: fitted resonances, by increasing wavelength.
        reference_nm: the wavelength the summary refers to.
        nearest: index in ``resonances`` of the family-0 resonance nearest ``reference_nm``.
        center_nm, fwhm_nm, q_loaded, extinction_db, q_intrinsic: of that resonance.
        fsr_nm, fsr_err_nm: FSR of family 0 at ``reference_nm`` (clamped to the span of the
            resonances): a linear fit of the pair spacings versus wavelength for 3 pairs
            or more, else the nearest pair's spacing scaled as λ²; None for a lone resonance.
        fsr_slope: dFSR/dλ (dimensionless) of that fit, None with fewer than 3 pairs.
        fsr_wl_nm, fsr_pairs_nm: midpoint and spacing of each adjacent pair (divided by
            the number of FSRs when a resonance is missing in between).
        group_index: n_g of each pair, λ_m·λ_(m+1)/(Δλ·L) (None without ring length).
        n_group: n_g at ``reference_nm`` (clamped as for ``fsr_nm``), λ²/(FSR·L).
        ring_length_um: L used for n_g and loss, or None.
        noise: robust noise standard deviation of each normalized port (median over the band).
        notes: what was skipped or assumed.
        wl_nm, through, drop, baseline_through, baseline_drop, model_through, model_drop:
            the data (linear), the baselines and the fitted curves (NaN outside fit
            windows), for plotting; left out of ``to_dict``.
    """

    port: str
    resonances: tuple[Resonance, ...]
    reference_nm: float
    nearest: int
    center_nm: float
    fwhm_nm: float
    q_loaded: float
    extinction_db: float
    q_intrinsic: float | None
    fsr_nm: float | None
    fsr_err_nm: float | None
    fsr_slope: float | None
    fsr_wl_nm: tuple[float, ...]
    fsr_pairs_nm: tuple[float, ...]
    group_index: tuple[float, ...] | None
    n_group: float | None
    ring_length_um: float | None
    noise: dict
    notes: tuple[str, ...]
    wl_nm: np.ndarray = field(repr=False, compare=False)
    through: np.ndarray | None = field(repr=False, compare=False)
    drop: np.ndarray | None = field(repr=False, compare=False)
    baseline_through: np.ndarray | None = field(repr=False, compare=False)
    baseline_drop: np.ndarray | None = field(repr=False, compare=False)
    model_through: np.ndarray | None = field(repr=False, compare=False)
    model_drop: np.ndarray | None = field(repr=False, compare=False)


# ----------------------------------------------------------------------------- lineshape


def _x_from_fwhm(fwhm_nm, fsr_nm):
    """Round-trip amplitude x = r1·r2·a whose Airy FWHM is ``fwhm_nm`` (exact inversion)."""
    s = np.sin(np.pi * fwhm_nm / (2.0 * fsr_nm))  # = (1 - x)/(2√x)
    y = np.sqrt(s * s + 1.0) - s  # √x, root of y² + 2sy − 1 = 0
    return y * y


def _fwhm_from_x(x, fsr_nm):
    """Airy FWHM (nm) of round-trip amplitude ``x``: FSR·4·arcsin((1 − x)/(2√x))/(2π)."""
    arg = np.clip((1.0 - x) / (2.0 * np.sqrt(x)), 0.0, 1.0)
    return fsr_nm * 2.0 * np.arcsin(arg) / np.pi


def _lineshape(wl, lam0, fwhm, fsr):
    """ℒ: 1 at resonance, ½ at ±FWHM/2; Airy with FSR, Lorentzian for ``fsr=None``."""
    if fsr is None:
        return 1.0 / (1.0 + (2.0 * (wl - lam0) / fwhm) ** 2)
    x = _x_from_fwhm(fwhm, fsr)
    phi = 2.0 * np.pi * (lam0 / fsr) * (lam0 - wl) / wl
    return (1.0 - x) ** 2 / (1.0 - 2.0 * x * np.cos(phi) + x * x)


# ----------------------------------------------------------------------------- validation


def _check_wl(wl_nm) -> np.ndarray:
    wl = np.asarray(wl_nm, dtype=float)
    if wl.ndim != 1:
        raise ValueError(f"wl_nm must be a 1-D array, got shape {wl.shape}")
    if wl.size < MIN_POINTS:
        raise ValueError(f"wl_nm has {wl.size} points; a spectrum needs at least {MIN_POINTS}")
    bad = ~np.isfinite(wl)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"wl_nm[{i}] = {wl[i]} is not finite; wavelengths must be finite numbers in nm")
    d = np.diff(wl)
    if np.any(d <= 0):
        i = int(np.flatnonzero(d <= 0)[0])
        what = "duplicated" if d[i] == 0 else "decreasing"
        raise ValueError(
            f"wl_nm must be strictly increasing: wl_nm[{i + 1}] = {wl[i + 1]:.9g} nm <= wl_nm[{i}] = "
            f"{wl[i]:.9g} nm ({what}); sort the data and remove duplicates"
        )
    if wl[0] < 100.0 or wl[-1] > 20000.0:
        raise ValueError(
            f"wl_nm spans {wl[0]:.6g}..{wl[-1]:.6g}, outside the valid range [100, 20000] nm "
            "(wavelengths are in nm; multiply µm by 1000)"
        )
    return wl


def _check_port(name: str, y, n: int, scale: str) -> np.ndarray:
    a = np.asarray(y, dtype=float)
    if a.shape != (n,):
        raise ValueError(f"{name} has shape {a.shape}; it must match wl_nm, shape ({n},)")
    bad = ~np.isfinite(a)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{i}] = {a[i]} is not finite; {name} must be finite ({int(bad.sum())} bad values)")
    if scale == "db":
        if a.min() >= 0.0 and a.max() <= MAX_LINEAR:
            raise ValueError(
                f"{name} = array (min {a.min():.4g}, max {a.max():.4g}) with scale='db' looks like linear "
                f"transmission (all values in [0, {MAX_LINEAR:g}] dB); pass scale='linear'"
            )
        return 10.0 ** (a / 10.0)
    if a.min() < -NEGATIVE_TOLERANCE:
        raise ValueError(
            f"{name} = array (min {a.min():.4g}, max {a.max():.4g}) has negative values; linear power "
            f"transmission must be >= 0 (>= -{NEGATIVE_TOLERANCE:g} tolerated as noise); dB data need scale='db'"
        )
    if a.max() > MAX_LINEAR:
        raise ValueError(
            f"{name} = array (min {a.min():.4g}, max {a.max():.4g}) exceeds {MAX_LINEAR:g}: linear transmission "
            "must be normalized to the input power (<= 1); dB data need scale='db'"
        )
    return a  # small negative values (noise) are kept: clipping them would bias floors


# ----------------------------------------------------------------------------- baseline, noise, detection


def _poly_basis(wl):
    return (wl - 0.5 * (wl[0] + wl[-1])) / (0.5 * (wl[-1] - wl[0]))


def _baseline(wl, y, order: int, upper: bool):
    """Smooth baseline (linear scale): polynomial in dB, refitted to the off-resonance points.

    ``upper``: keep points not far below the fit (through: dips excluded); else not far
    above (drop floor: peaks excluded). Clip at 2.5 robust σ, until the set stops changing.
    """
    ydb = 10.0 * np.log10(np.maximum(y, 1e-12 * max(y.max(), 1e-300)))
    s = _poly_basis(wl)
    keep = np.ones(wl.size, bool)
    poly = np.polynomial.Polynomial
    for _ in range(50):
        p = poly.fit(s[keep], ydb[keep], order)
        r = ydb - p(s)
        rk = r[keep]
        sig = max(1.4826 * np.median(np.abs(rk - np.median(rk))), 1e-9)
        new = r > -2.5 * sig if upper else r < 2.5 * sig
        if new.sum() <= order + 2 or np.array_equal(new, keep):
            break
        keep = new
    return 10.0 ** (p(s) / 10.0)


def _noise_sigma(y) -> np.ndarray:
    """Robust white-noise σ per sample: running MAD of second differences (var of Δ² is 6σ²).

    The running window (≈ 2 % of the span, at least 41 samples) follows noise that
    changes across the band (a tilted baseline with additive detector noise).
    """
    d2 = np.abs(y[:-2] - 2.0 * y[1:-1] + y[2:])
    d2 = np.concatenate([d2[:1], d2, d2[-1:]])
    size = max(41, (y.size // 50) | 1)
    if size >= y.size:
        local = np.full(y.size, np.median(d2))
    else:
        local = median_filter(d2, size=size, mode="mirror")
    # median |N(0, 6σ²)| = 0.6745·√6·σ
    return np.maximum(local / (0.6745 * math.sqrt(6.0)), 1e-12)


def _detect(wl, signal, sigma, prominence, port: str, min_ppf: float, notes: list):
    """Peaks of ``signal`` (dips turned up): indices, apparent FWHM (nm) and prominences.

    ``sigma``: local noise per sample. Threshold: ``prominence`` if given, else 10 local σ
    and 10 % of the strongest. Detections narrower than ``min_ppf`` samples raise when the
    strongest resonance is among them (sampling too coarse), else are dropped as spikes.
    """
    if prominence is None:
        thr_at = NOISE_SIGMAS * sigma
    else:
        thr_at = np.full(signal.size, float(check_positive("prominence", prominence)))
    idx, props = find_peaks(signal, prominence=float(thr_at.min()))
    keep = props["prominences"] >= thr_at[idx] if idx.size else np.zeros(0, bool)
    if not keep.any():
        _, p_all = find_peaks(signal, prominence=0.0)
        best = float(p_all["prominences"].max()) if p_all["prominences"].size else 0.0
        kind = "dip" if port == "through" else "peak"
        how = "given" if prominence is not None else f"{NOISE_SIGMAS:g} x noise {np.median(sigma):.2g}"
        raise ValueError(
            f"{port}: no resonance found in {wl[0]:.6g}..{wl[-1]:.6g} nm: the strongest {kind} has prominence "
            f"{best:.3g} (relative to the baseline), below the detection threshold {np.median(thr_at):.3g} "
            f"({how}); widen the span or lower prominence"
        )
    prom = props["prominences"]
    if prominence is None:
        keep &= prom >= RELATIVE_PROMINENCE * prom[keep].max()
    idx, prom = idx[keep], prom[keep]
    props = {k: v[keep] for k, v in props.items()}
    widths, _, left, right = peak_widths(
        signal, idx, rel_height=0.5, prominence_data=(prom, props["left_bases"], props["right_bases"])
    )
    n = np.arange(wl.size)
    fwhm = np.interp(right, n, wl) - np.interp(left, n, wl)
    # merge detections closer than 2 FWHM (noise on a peak top, split doublets): keep the strongest
    order = np.argsort(-prom)
    kept: list[int] = []
    for k in order:
        if all(abs(wl[idx[k]] - wl[idx[j]]) > (fwhm[k] + fwhm[j]) for j in kept):
            kept.append(int(k))
    kept.sort(key=lambda k: idx[k])
    idx, fwhm, widths, prom = idx[kept], fwhm[kept], widths[kept], prom[kept]
    bad = widths < min_ppf
    if bad[int(np.argmax(prom))]:
        k = int(np.argmax(prom))
        step = fwhm[k] / widths[k]
        raise ValueError(_resolution_message(wl[idx[k]], step, fwhm[k], widths[k], min_ppf, apparent=True))
    if bad.any():
        where = ", ".join(f"{wl[i]:.3f}" for i in idx[bad])
        notes.append(f"{port}: features narrower than {min_ppf:g} samples at {where} nm ignored (noise spikes)")
    return idx[~bad], fwhm[~bad], prom[~bad]


def _resolution_message(lam, step, fwhm, ppf, min_ppf, apparent: bool) -> str:
    return (
        f"wl_nm sampling is too coarse to resolve the resonance at {lam:.4f} nm: a step of {step * 1e3:.3g} pm "
        f"gives {ppf:.2g} points per {'apparent ' if apparent else ''}FWHM ({fwhm * 1e3:.3g} pm); "
        f"min_points_per_fwhm = {min_ppf:g} are needed: resample at <= {fwhm / min_ppf * 1e3:.3g} pm"
    )


def _spacings(centers):
    """Pair spacings in units of one FSR: (pair index, number of FSRs spanned, spacing/FSRs)."""
    d = np.diff(centers)
    if d.size == 0:
        return []
    med = float(np.median(d))
    out = []
    for i, di in enumerate(d):
        k = int(round(di / med))
        if k >= 1 and abs(di / k - med) < 0.25 * med:
            out.append((i, k, di / k))
    return out


def _families(fwhm, prom):
    """Mode family of each resonance: 0 (primary) or 1, split at the largest gap in FWHM.

    Two families are told apart only when their linewidths differ by more than 1.6× and
    each has at least two members; the primary is the one with more members (then the
    stronger one).
    """
    fam = np.zeros(fwhm.size, int)
    if fwhm.size < 4:
        return fam
    order = np.argsort(fwhm)
    gaps = np.diff(np.log(fwhm[order]))
    j = int(np.argmax(gaps))
    if gaps[j] < math.log(1.6) or j + 1 < 2 or fwhm.size - j - 1 < 2:
        return fam
    narrow = np.zeros(fwhm.size, bool)
    narrow[order[: j + 1]] = True
    n_n, n_w = narrow.sum(), (~narrow).sum()
    narrow_primary = n_n > n_w or (n_n == n_w and prom[narrow].mean() >= prom[~narrow].mean())
    fam[~narrow if narrow_primary else narrow] = 1
    return fam


def _local_fsr(centers, fam):
    """Per resonance, the mean spacing to its same-family neighbours (None if it has none)."""
    out: list[float | None] = [None] * centers.size
    for f in np.unique(fam):
        sub = np.flatnonzero(fam == f)
        acc = [[] for _ in sub]
        for i, _k, s in _spacings(centers[sub]):
            acc[i].append(s)
            acc[i + 1].append(s)
        for j, v in zip(sub, acc, strict=True):
            out[j] = float(np.mean(v)) if v else None
    return out


# ----------------------------------------------------------------------------- fitting


def _fit_resonance(wl, t, d, lam_i, fwhm_i, fsr, lo, hi):
    """Least-squares Airy (Lorentzian if ``fsr`` is None) fit of one resonance in [lo, hi]."""
    m = (wl >= lo) & (wl <= hi)
    w = wl[m]
    half = max(hi - lam_i, lam_i - lo)
    u = (w - lam_i) / half
    far = np.abs(w - lam_i) > 3.0 * fwhm_i
    near = np.abs(w - lam_i) <= 0.5 * fwhm_i
    if not near.any():
        near = np.abs(w - lam_i) == np.abs(w - lam_i).min()
    w_max = 20.0 if fsr is None else min(20.0, 0.45 * fsr / fwhm_i)
    names, p0, lb, ub = ["delta", "w"], [0.0, 1.0], [-3.0, 0.05], [3.0, max(w_max, 1.01)]
    tt = dd = None
    if t is not None:
        tt = t[m]
        c0 = float(np.median(tt[far])) if far.sum() > 3 else float(tt.max())
        c0 = min(max(c0, 0.35), 2.9)
        names += ["T0", "c0", "c1"]
        p0 += [min(max(float(tt[near].min()) / c0, 0.0), 1.0), c0, 0.0]
        lb += [0.0, 0.3, -MAX_LOCAL_TILT]
        ub += [1.0, 3.0, MAX_LOCAL_TILT]
    if d is not None:
        dd = d[m]
        scale = float(max(dd.max(), 1e-12))
        f0 = float(np.median(dd[far])) if far.sum() > 3 else 0.0
        c0d = p0[names.index("c0")] if t is not None else 1.0
        names += ["D0", "f", "cd1"]
        p0 += [max(float(dd[near].max()) / c0d - f0, 1e-3 * scale), min(max(f0, 0.0), scale), 0.0]
        lb += [0.0, 0.0, -MAX_LOCAL_TILT]
        ub += [10.0 * scale / c0d, scale, MAX_LOCAL_TILT]
    ix = {k: i for i, k in enumerate(names)}
    p0 = np.clip(p0, lb, ub)

    def models(p):
        lam0 = lam_i + p[0] * fwhm_i
        ell = _lineshape(w, lam0, p[1] * fwhm_i, fsr)
        mt = md = None
        if tt is not None:
            mt = p[ix["c0"]] * np.exp(p[ix["c1"]] * u) * (1.0 - (1.0 - p[ix["T0"]]) * ell)
        if dd is not None:
            c = p[ix["c0"]] if tt is not None else 1.0
            md = c * np.exp(p[ix["cd1"]] * u) * (p[ix["D0"]] * ell + p[ix["f"]])
        return mt, md

    def resid(p):
        mt, md = models(p)
        parts = []
        if mt is not None:
            parts.append(mt - tt)
        if md is not None:
            parts.append(md - dd)
        return np.concatenate(parts)

    res = least_squares(resid, p0, bounds=(lb, ub), x_scale="jac", method="trf", tr_solver="lsmr")
    p = res.x
    dof = max(res.fun.size - p.size, 1)
    s2 = 2.0 * res.cost / dof
    jtj = res.jac.T @ res.jac
    cov = np.linalg.pinv(jtj) * s2
    err = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    out = {k: float(p[i]) for k, i in ix.items()}
    errs = {k: float(err[i]) for k, i in ix.items()}
    out["lam0"], errs["lam0"] = lam_i + p[0] * fwhm_i, err[0] * fwhm_i
    out["fwhm"], errs["fwhm"] = p[1] * fwhm_i, err[1] * fwhm_i
    mt, md = models(p)
    if dd is not None:
        # drop floor: the model's minimum (Airy antiresonance; without an FSR, the window's
        # far end) plus the median misfit of the data in the outer fifth of the window
        # (background the lineshape does not hold, e.g. crosstalk), tilt removed
        dist = np.abs(w - out["lam0"])
        outer = dist >= np.quantile(dist, 0.8)
        c = out["c0"] if tt is not None else 1.0
        tilt = c * np.exp(out["cd1"] * u[outer])
        if fsr is not None:
            x = _x_from_fwhm(out["fwhm"], fsr)
            ell_min = (1.0 - x) ** 2 / (1.0 + x) ** 2
        else:
            ell_min = float(_lineshape(w[np.argmax(dist)], out["lam0"], out["fwhm"], None))
        mis = (dd[outer] - md[outer]) / tilt
        out["floor"] = out["D0"] * ell_min + out["f"] + float(np.median(mis))
        # standard error of that median: 1.2533·σ/√n, σ from the MAD
        sd = 1.4826 * float(np.median(np.abs(mis - np.median(mis))))
        out["floor_err"] = 1.2533 * sd / math.sqrt(mis.size)
    return out, errs, m, mt, md


# ----------------------------------------------------------------------------- intrinsic Q


def _q_of(z, lam0, fsr):
    """λ0 over the Airy FWHM of round-trip amplitude z (inf for z >= 1)."""
    if z >= 1.0:
        return math.inf
    return float(lam0 / _fwhm_from_x(z, fsr))


def _solutions(q_loaded, t0, d0, lam0, fwhm, fsr, length_um):
    """Under- and over-coupled (r1, r2, a) solutions; see the module docstring."""
    sols = []
    rt0 = math.sqrt(max(t0, 0.0))
    for regime in ("under", "over"):
        if fsr is None:  # coupled-mode limit (rates γ normalized to the total)
            e1 = (1.0 - rt0) / 2.0 if regime == "under" else (1.0 + rt0) / 2.0
            e2 = d0 / (4.0 * e1) if d0 is not None and e1 > 0 else 0.0
            g = 1.0 - e1 - e2
            sols.append(
                CouplingSolution(
                    regime=regime,
                    q_intrinsic=q_loaded / g if g > 0 else math.inf,
                    q_coupling_in=q_loaded / e1 if e1 > 0 else math.inf,
                    q_coupling_drop=(q_loaded / e2 if e2 > 0 else math.inf) if d0 is not None else None,
                    r1=None,
                    r2=None,
                    a=None,
                    loss_db_per_cm=None,
                    physical=bool(g > -0.02),
                )
            )
            continue
        x = float(_x_from_fwhm(fwhm, fsr))
        big = math.sqrt(t0 * (1.0 - x) ** 2 + 4.0 * x)  # r1 + a·r2
        dif = rt0 * (1.0 - x)  # |r1 − a·r2|
        hi_, lo_ = (big + dif) / 2.0, (big - dif) / 2.0
        r1, v = (hi_, lo_) if regime == "under" else (lo_, hi_)
        if d0 is None:
            a, r2 = v, 1.0
        else:
            k = d0 * (1.0 - x) ** 2 / max(1.0 - r1 * r1, 1e-300)
            a = (k + math.sqrt(k * k + 4.0 * v * v)) / 2.0
            r2 = v / a
        loss = -20.0 * math.log10(a) / (length_um * 1e-4) if length_um is not None and a > 0 else None
        sols.append(
            CouplingSolution(
                regime=regime,
                q_intrinsic=_q_of(a, lam0, fsr),
                q_coupling_in=_q_of(r1, lam0, fsr),
                q_coupling_drop=_q_of(r2, lam0, fsr) if d0 is not None else None,
                r1=r1,
                r2=r2 if d0 is not None else 1.0,
                a=a,
                loss_db_per_cm=loss,
                physical=bool(a <= 1.0 + 1e-3 and r2 <= 1.0 + 1e-3 and r1 < 1.0),
            )
        )
    return tuple(sols)


def _intrinsic(q_loaded, t0, t0_err, d0, lam0, fwhm, fsr, length_um, coupling):
    sols = _solutions(q_loaded, t0, d0, lam0, fwhm, fsr, length_um)
    method = "add-drop (through + drop)" if d0 is not None else "all-pass (through)"
    if fsr is None:
        method += ", coupled-mode"
    under, over = sols
    phys = [s for s in sols if s.physical]
    chosen, regime, assumption = None, None, ""
    # critical coupling within the fit's error (T0 < 2σ): both solutions merge into the T0 = 0 one
    if t0 < 2.0 * t0_err or (
        math.isfinite(under.q_intrinsic) and abs(under.q_intrinsic - over.q_intrinsic) <= 1e-3 * under.q_intrinsic
    ):
        chosen, regime = _solutions(q_loaded, 0.0, d0, lam0, fwhm, fsr, length_um)[0], "critical"
    elif coupling in ("under", "over"):
        chosen, regime, assumption = (under if coupling == "under" else over), coupling, f"coupling={coupling!r} given"
    elif coupling == "symmetric":

        def asym(s):
            return abs(math.log(s.q_coupling_in / s.q_coupling_drop))

        chosen = min(phys or sols, key=asym)
        regime, assumption = chosen.regime, "symmetric couplers assumed (solution with Q_c1 closest to Q_c2)"
    elif len(phys) == 1:
        chosen, regime = phys[0], phys[0].regime
    q = None if chosen is None else chosen.q_intrinsic
    return IntrinsicQ(
        q_intrinsic=q,
        regime=regime,
        ambiguous=chosen is None,
        method=method,
        assumption=assumption,
        solutions=sols,
    )


# ----------------------------------------------------------------------------- analysis


def analyze_spectrum(
    wl_nm,
    through=None,
    drop=None,
    *,
    scale: str = "linear",
    reference_nm: float = 1550.0,
    ring_length_um: float | None = None,
    radius_um: float | None = None,
    coupling: str | None = None,
    baseline_order: int = 2,
    min_points_per_fwhm: float = 3.0,
    prominence: float | None = None,
) -> SpectrumAnalysis:
    """Resonances, FSR (and its dispersion), FWHM, loaded/intrinsic Q and extinction of a ring spectrum.

    Args:
        wl_nm: wavelengths in nm, strictly increasing, finite (any spacing).
        through: through-port transmission, same length, or None.
        drop: drop-port transmission, same length, or None. With ``through`` both are
            taken to share the input/output coupling (the drop is normalized by the
            through baseline), which makes D0 and the intrinsic Q meaningful.
        scale: ``"linear"`` (power, normalized to the input, <= 1.5) or ``"db"``.
        reference_nm: wavelength for the summary (nearest resonance, FSR, n_g), nm.
        ring_length_um: round-trip length L for n_g and loss, µm (or give ``radius_um``).
        radius_um: ring radius, µm; L = 2πR.
        coupling: None, ``"under"``, ``"over"`` or ``"symmetric"`` (needs ``drop``):
            resolves the under/over-coupling ambiguity of the intrinsic Q.
        baseline_order: polynomial order (in dB versus λ) of the baseline, 0..6.
        min_points_per_fwhm: the fewest samples per FWHM accepted (resolution check).
        prominence: detection threshold on the normalized spectrum (fraction of the
            baseline for dips); default 10× the noise and 10 % of the strongest.

    Returns:
        A :class:`SpectrumAnalysis`.

    Raises:
        ValueError: bad input, no resonance, or a sampling too coarse for the linewidth.
    """
    check_choice("scale", scale, _SCALES)
    check_choice("coupling", coupling, _COUPLINGS)
    if not isinstance(baseline_order, (int, np.integer)) or not 0 <= baseline_order <= 6:
        raise ValueError(f"baseline_order = {baseline_order!r} must be an integer in [0, 6]")
    check_range("min_points_per_fwhm", min_points_per_fwhm, 1.0, 100.0)
    check_positive("reference_nm", reference_nm, unit="nm")
    if ring_length_um is not None and radius_um is not None:
        raise ValueError(
            f"give ring_length_um ({ring_length_um!r}) or radius_um ({radius_um!r}), not both (L = 2π·radius_um)"
        )
    length = None
    if ring_length_um is not None:
        length = float(check_positive("ring_length_um", ring_length_um, unit="µm"))
    elif radius_um is not None:
        length = 2.0 * math.pi * float(check_positive("radius_um", radius_um, unit="µm"))
    if through is None and drop is None:
        raise ValueError("through = None and drop = None: give at least one port's transmission")
    if coupling == "symmetric" and (drop is None or through is None):
        raise ValueError("coupling = 'symmetric' needs both through and drop (it compares the two couplers)")

    wl = _check_wl(wl_nm)
    n = wl.size
    t_raw = _check_port("through", through, n, scale) if through is not None else None
    d_raw = _check_port("drop", drop, n, scale) if drop is not None else None
    order = int(min(baseline_order, max(n // 8, 0)))
    notes: list[str] = []

    base_t = _baseline(wl, t_raw, order, upper=True) if t_raw is not None else None
    base_d = _baseline(wl, np.maximum(d_raw, 1e-12), order, upper=False) if d_raw is not None else None
    t = t_raw / base_t if t_raw is not None else None
    norm_d = d = None
    if d_raw is not None:
        if base_t is not None:
            norm_d = base_t
        else:  # drop alone: remove the floor's tilt, keep the level at the reference
            norm_d = base_d / np.interp(float(np.clip(reference_nm, wl[0], wl[-1])), wl, base_d)
        d = d_raw / norm_d
    sigma = {}
    if t is not None:
        sigma["through"] = _noise_sigma(t)
    if d is not None:
        sigma["drop"] = _noise_sigma(d)
    noise = {k: float(np.median(v)) for k, v in sigma.items()}

    port = "through" if t is not None else "drop"
    sig = (1.0 - t) if port == "through" else d
    try:
        idx, fwhm0, prom0 = _detect(wl, sig, sigma[port], prominence, port, min_points_per_fwhm, notes)
    except ValueError as e:
        if port != "through" or d is None or "no resonance" not in str(e):
            raise
        port = "drop"
        idx, fwhm0, prom0 = _detect(wl, d, sigma["drop"], prominence, port, min_points_per_fwhm, notes)
        notes.append("no dip found on the through port; resonances detected on the drop port")

    # drop incomplete resonances at the ends of the span
    lam = wl[idx]
    edge = (lam - wl[0] < 2.0 * fwhm0) | (wl[-1] - lam < 2.0 * fwhm0)
    for k in np.flatnonzero(edge):
        notes.append(f"resonance near {lam[k]:.3f} nm is cut by the end of the span; skipped")
    lam, fwhm0, prom0 = lam[~edge], fwhm0[~edge], prom0[~edge]
    if lam.size == 0:
        raise ValueError(
            f"{port}: no complete resonance in {wl[0]:.6g}..{wl[-1]:.6g} nm (only ones cut by the ends); widen the span"
        )
    fam = _families(fwhm0, prom0)
    if fam.any():
        notes.append(
            f"two mode families told apart by linewidth; the FSR summary uses family 0 ({int((fam == 0).sum())} "
            f"resonances, FWHM ≈ {np.median(fwhm0[fam == 0]) * 1e3:.3g} pm), family 1 has {int(fam.sum())}"
        )
    fsr_loc0 = _local_fsr(lam, fam)

    model_t = np.full(n, np.nan) if t is not None else None
    model_d = np.full(n, np.nan) if d is not None else None
    fits = []
    for i, (li, fi) in enumerate(zip(lam, fwhm0, strict=True)):
        fsr = fsr_loc0[i]
        half = fsr / 2.0 if fsr is not None else 30.0 * fi
        lo = (lam[i - 1] + li) / 2.0 if i > 0 else li - half
        hi = (lam[i + 1] + li) / 2.0 if i < lam.size - 1 else li + half
        lo, hi = max(lo, li - half, wl[0]), min(hi, li + half, wl[-1])
        out, errs, m, mt, md = _fit_resonance(wl, t, d, li, fi, fsr, lo, hi)
        if mt is not None:
            model_t[m] = mt * base_t[m]
        if md is not None:
            model_d[m] = md * norm_d[m]
        sel = np.abs(wl - out["lam0"]) <= out["fwhm"]
        step = float(np.median(np.diff(wl[sel]))) if sel.sum() >= 2 else float(np.median(np.diff(wl[m])))
        ppf = out["fwhm"] / step
        if ppf < min_points_per_fwhm:
            raise ValueError(_resolution_message(out["lam0"], step, out["fwhm"], ppf, min_points_per_fwhm, False))
        fits.append((out, errs, ppf))

    centers = np.array([f[0]["lam0"] for f in fits])
    center_err = np.array([f[1]["lam0"] for f in fits])
    fsr_loc = _local_fsr(centers, fam)
    primary = np.flatnonzero(fam == 0)
    pairs = _spacings(centers[primary])
    if primary.size > 1 and len(pairs) < primary.size - 1:
        notes.append("some adjacent resonances are not one FSR apart (another mode family or a split resonance)")

    resonances = []
    for (out, errs, ppf), fsr in zip(fits, fsr_loc, strict=True):
        lam0, fw = out["lam0"], out["fwhm"]
        q, q_err = lam0 / fw, lam0 / fw * errs["fwhm"] / fw
        t0 = t_ext = d0 = d_ext = intr = None
        if t is not None:
            t0 = out["T0"]
            x = _x_from_fwhm(fw, fsr) if fsr is not None else 1.0
            tmax = 1.0 - (1.0 - t0) * (1.0 - x) ** 2 / (1.0 + x) ** 2
            t0_eff = t0
            if t0 < 2.0 * errs["T0"]:  # dip bottom within noise: bound T0 from above
                t0_eff = t0 + 2.0 * errs["T0"]
                notes.append(f"through dip near {lam0:.3f} nm reaches the noise: its extinction is a lower bound")
            t0_eff = max(t0_eff, 1e-12)
            t_ext = 10.0 * math.log10(tmax / t0_eff)
            t_ext_err = 10.0 / math.log(10.0) * errs["T0"] / t0_eff
        if d is not None:
            d0 = out["D0"]
            peak = d0 + out["f"]
            floor, ferr = out["floor"], out["floor_err"]
            if floor < 2.0 * ferr:  # not measured above noise: bound it from above
                floor = max(floor, 0.0) + 2.0 * ferr
                notes.append(f"drop floor near {lam0:.3f} nm is within noise: its drop extinction is a lower bound")
            floor = max(floor, 1e-12 * peak)
            d_ext = 10.0 * math.log10(peak / floor)
            d_ext_err = 10.0 / math.log(10.0) * errs["D0"] / max(peak, 1e-300)
        if t is not None:
            intr = _intrinsic(q, t0, errs["T0"], d0, lam0, fw, fsr, length, coupling)
        primary_t = port == "through"
        resonances.append(
            Resonance(
                center_nm=lam0,
                center_err_nm=float(errs["lam0"]),
                fwhm_nm=fw,
                fwhm_err_nm=float(errs["fwhm"]),
                q_loaded=q,
                q_loaded_err=q_err,
                extinction_db=t_ext if primary_t else d_ext,
                extinction_err_db=t_ext_err if primary_t else d_ext_err,
                depth=1.0 - t0 if primary_t else d0,
                through_min=t0,
                through_extinction_db=t_ext,
                drop_peak=d0,
                drop_extinction_db=d_ext,
                points_per_fwhm=float(ppf),
                fsr_local_nm=fsr,
                finesse=fsr / fw if fsr is not None else None,
                family=int(fam[len(resonances)]),
                intrinsic=intr,
            )
        )

    # FSR at the reference and its dispersion, from the primary family
    centers, center_err = centers[primary], center_err[primary]
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
        if length is not None:
            # k FSRs between the pair: 2π·n_g·L·(1/λ_i − 1/λ_(i+1)) = 2πk, spacing per FSR s
            ng = tuple(float(centers[i] * centers[i + 1] / (s * length * 1e3)) for i, _, s in pairs)
            n_group = ref**2 / (fsr_nm * length * 1e3)
    if ring_length_um is None and radius_um is None:
        notes.append("no ring length given: group index and loss per length not computed")
    if any(r.intrinsic is not None and r.intrinsic.ambiguous for r in resonances):
        notes.append(
            "intrinsic Q is ambiguous (under- or over-coupled fit the same spectrum); both solutions are listed: "
            "pass coupling='under'|'over'|'symmetric' to choose"
        )

    near = int(primary[np.argmin(np.abs(centers - reference_nm))])
    rn = resonances[near]
    return SpectrumAnalysis(
        port=port,
        resonances=tuple(resonances),
        reference_nm=float(reference_nm),
        nearest=near,
        center_nm=rn.center_nm,
        fwhm_nm=rn.fwhm_nm,
        q_loaded=rn.q_loaded,
        extinction_db=rn.extinction_db,
        q_intrinsic=rn.intrinsic.q_intrinsic if rn.intrinsic is not None else None,
        fsr_nm=fsr_nm,
        fsr_err_nm=fsr_err,
        fsr_slope=slope,
        fsr_wl_nm=mids,
        fsr_pairs_nm=spac,
        group_index=ng,
        n_group=n_group,
        ring_length_um=length,
        noise=noise,
        notes=tuple(notes),
        wl_nm=wl,
        through=t_raw,
        drop=d_raw,
        baseline_through=base_t,
        baseline_drop=base_d,
        model_through=model_t,
        model_drop=model_d,
    )


# ----------------------------------------------------------------------------- plot


def plot_spectrum(result: SpectrumAnalysis, path, *, title: str | None = None) -> Path:
    """Draw the spectrum, baseline, fits and resonances (FWHM bars) to a PNG; return its path.

    Top: the whole span in dB. Bottom left: the resonance nearest the reference. Bottom
    right: FSR (and n_g) versus wavelength, when there are at least two resonances.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def db(y):
        return 10.0 * np.log10(np.maximum(np.asarray(y, float), 1e-12))

    r = result
    wl = r.wl_nm
    fig = plt.figure(figsize=(11, 7.5), constrained_layout=True)
    gs = fig.add_gridspec(2, 2, height_ratios=[1.25, 1])
    ax = fig.add_subplot(gs[0, :])
    zoom = fig.add_subplot(gs[1, 0])
    axf = fig.add_subplot(gs[1, 1])
    rn = r.resonances[r.nearest]
    span = 6.0 * rn.fwhm_nm
    zm = np.abs(wl - rn.center_nm) <= span
    for a, sel, x in ((ax, slice(None), wl), (zoom, zm, (wl[zm] - rn.center_nm) * 1e3)):
        if r.through is not None:
            a.plot(x, db(r.through[sel]), color="C0", lw=1.0, label="through")
            a.plot(x, db(r.baseline_through[sel]), color="k", ls="--", lw=0.9, label="baseline")
            a.plot(x, db(r.model_through[sel]), color="C3", ls=(0, (4, 2)), lw=1.0, label="through fit")
        if r.drop is not None:
            a.plot(x, db(r.drop[sel]), color="C2", lw=1.0, label="drop")
            if r.through is None:
                a.plot(x, db(r.baseline_drop[sel]), color="k", ls=":", lw=0.9, label="floor")
            a.plot(x, db(r.model_drop[sel]), color="C1", ls=(0, (4, 2)), lw=1.0, label="drop fit")
    for k, res in enumerate(r.resonances):
        lam0, fw = res.center_nm, res.fwhm_nm
        if r.port == "through":
            b = float(np.interp(lam0, wl, r.baseline_through))
            level_min = db(b * res.through_min)
            level_half = db(b * (1.0 - (1.0 - res.through_min) / 2.0))
        else:
            level_min = db(np.nanmax(r.model_drop[np.abs(wl - lam0) <= fw]))
            level_half = level_min - 10.0 * math.log10(2.0)
        ax.plot([lam0 - fw / 2, lam0 + fw / 2], [level_half, level_half], color="m", lw=2.5)
        ax.plot([lam0], [level_min], "v" if r.port == "through" else "^", color="m", ms=6)
        if k == r.nearest:
            zoom.plot([-fw / 2 * 1e3, fw / 2 * 1e3], [level_half, level_half], color="m", lw=2.5, label="FWHM")
            zoom.plot([0.0], [level_min], "v" if r.port == "through" else "^", color="m", ms=6)
    ax.set_xlabel("wavelength (nm)")
    ax.set_ylabel("transmission (dB)")
    summary = f"λ0 = {rn.center_nm:.3f} nm, FWHM = {rn.fwhm_nm * 1e3:.3g} pm, Q_L = {rn.q_loaded:.4g}, "
    summary += f"ER = {rn.extinction_db:.3g} dB"
    if r.fsr_nm is not None:
        summary += f", FSR = {r.fsr_nm:.4g} nm"
    if r.q_intrinsic is not None:
        summary += f", Q_i = {r.q_intrinsic:.4g}"
    ax.set_title(f"{title}\n{summary}" if title else summary, fontsize=10)
    zoom.set_xlabel(f"wavelength − {rn.center_nm:.3f} nm (pm)")
    zoom.set_ylabel("transmission (dB)")
    zoom.set_title(f"resonance nearest {r.reference_nm:g} nm", fontsize=9)
    zoom.legend(fontsize=7, loc="best")
    if r.fsr_wl_nm:
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
        axf.set_xlim(wl[0], wl[-1])
    else:
        axf.axis("off")
        axf.text(0.5, 0.5, "one resonance: no FSR", ha="center", va="center")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
