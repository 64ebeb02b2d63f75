"""Ring spectra as instruments deliver them: a generator written independently of prismpic's models.

The ring is temporal coupled-mode theory (Haus, "Waves and Fields in Optoelectronics", 1984, ch. 7; Little et
al., JLT 15, 998 (1997)) in optical frequency ν (THz), every mode of every family summed in amplitude:

    t(ν) = 1 − Σ_m κ_e,m / (κ_m/2 − i(ν − ν_m)),     d(ν) = Σ_m √(κ_e,m·κ_d,m) / (κ_m/2 − i(ν − ν_m))

with κ = κ_0 + κ_e + κ_d the loaded linewidth (FWHM in ν), so Q_L = ν_m/κ_m and the through dip's depth is
T0 = (1 − 2κ_e/κ)². A mode family is a comb ν_m = ν_0 + m·FSR_ν (+ ½D2·m²). Instrument effects, each applied
as a real instrument would:

- backscatter split (Weiss et al., Opt. Lett. 20, 1835 (1995)): the cw/ccw pair coupled at rate g gives two
  standing-wave modes at ν_m ± g, each with half the bus coupling; the splitting is 2g;
- thermal triangle (Carmon, Yang, Vahala, Opt. Express 12, 4742 (2004)): the resonance red-shifts by β·U with
  the stored energy U = κ_e·P/((κ/2)² + (ν − ν_m + β·U)²) (normalised); the sweep (increasing wavelength,
  decreasing ν) follows the branch continuously, which draws the triangle;
- grating-coupler passband: a polynomial bell in dB (quadratic with cubic and quartic terms);
- Fabry–Pérot ripple between the facets: multiplicative 1 + r·cos(2π·ν/Δν_FP + φ);
- slow power drift, 1 pm-class wavelength jitter (the sweep's true wavelength differs from the recorded one);
- multiplicative and additive (detector) noise; a detector floor added in linear power.

Truth per spectrum: per family the resonance wavelengths, Q_L, the through extinction (dB), the FSR in nm at
1550 nm (the comb in ν mapped to λ = c/ν: spacing λ_m·λ_(m+1)/(c/FSR_ν)) and n_g = c/(FSR_ν·L).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

C_NM_THZ = 299792.458  # speed of light in nm·THz


@dataclass
class Family:
    """One mode family: group index n_g, loaded Q, coupling ratios, optional split and thermal shift."""

    ng: float
    q_loaded: float
    ke_frac: float  # κ_e/κ (through-port coupling share); κ_d/κ in kd_frac
    kd_frac: float = 0.0
    offset_frac: float = 0.0  # comb offset in units of the FSR
    split_linewidths: float = 0.0  # 2g/κ
    thermal: float = 0.0  # peak thermal shift in linewidths at full coupling (β·U_max/κ)


@dataclass
class Effects:
    """Instrument effects (all off by default)."""

    passband_db: float = 0.0  # drop of the bell at the ends of ±half_span_nm
    passband_half_span_nm: float = 50.0
    passband_center_nm: float = 1550.0
    insertion_loss_db: float = 0.0
    ripple_db: float = 0.0  # peak-to-peak ripple
    ripple_period_nm: float = 0.8
    drift_db: float = 0.0
    jitter_pm: float = 0.0
    noise_mult: float = 0.0
    noise_add: float = 0.0  # additive noise σ, relative to the peak off-resonance power
    floor: float = 0.0  # detector floor (linear, relative to the peak off-resonance power)


@dataclass
class Spectrum:
    name: str
    effect: str
    wl_nm: np.ndarray
    through: np.ndarray
    drop: np.ndarray | None
    truth: dict = field(default_factory=dict)


def _modes(fam: Family, length_um: float, lo_thz: float, hi_thz: float):
    fsr = C_NM_THZ / (fam.ng * length_um * 1e3)
    m = np.arange(math.floor(lo_thz / fsr) - 2, math.ceil(hi_thz / fsr) + 3)
    nu = (m + fam.offset_frac) * fsr
    return nu, fsr


def _family_field(nu, fam: Family, length_um: float):
    """(through sum, drop sum) of one family's modes at frequencies ``nu`` (THz), sweep order = increasing λ."""
    centers, _ = _modes(fam, length_um, nu.min(), nu.max())
    t_sum = np.zeros(nu.size, complex)
    d_sum = np.zeros(nu.size, complex)
    for nm in centers:
        kappa = nm / fam.q_loaded
        ke, kd = fam.ke_frac * kappa, fam.kd_frac * kappa
        g = 0.5 * fam.split_linewidths * kappa
        if fam.thermal > 0:
            det = _thermal_detuning(nu - nm, kappa, ke, fam.thermal * kappa)
        else:
            det = nu - nm
        if g > 0:
            for s in (-g, g):
                den = kappa / 2 - 1j * (det - s)
                t_sum += 0.5 * ke / den
                d_sum += 0.5 * math.sqrt(ke * kd) / den
        else:
            den = kappa / 2 - 1j * det
            t_sum += ke / den
            d_sum += math.sqrt(ke * kd) / den
    return t_sum, d_sum


def _thermal_detuning(dnu, kappa, ke, shift_max):
    """Effective detuning ν − ν_m + β·U along the sweep (decreasing ν: increasing λ), branch followed.

    U normalised so that U = 1 at resonance with ke = κ (the largest); the shift β·U reaches ``shift_max``.
    """
    out = np.array(dnu, float)
    near = np.abs(dnu) < 15 * kappa + 2 * shift_max
    idx = np.flatnonzero(near)
    if idx.size == 0:
        return out
    order = idx[np.argsort(-dnu[idx])]  # decreasing ν = increasing λ: the sweep's order
    u_prev = 0.0
    s = shift_max
    for i in order:
        x = dnu[i]
        # U·((κ/2)² + (x + s·U)²) = (κ_e/κ)·(κ/2)²: U = κ_e/κ on resonance without heating
        coeffs = [s * s, 2 * x * s, (kappa / 2) ** 2 + x * x, -(ke / kappa) * (kappa / 2) ** 2]
        r = np.roots(coeffs)
        r = r[np.abs(r.imag) < 1e-9 * max(1.0, abs(u_prev))].real
        r = r[r >= 0]
        u = float(r[np.argmin(np.abs(r - u_prev))]) if r.size else u_prev
        u_prev = u
        out[i] = x + s * u
    return out


def ring_spectrum(name: str, effect: str, wl_nm, families: list[Family], effects: Effects, *, radius_um: float = 20.0,
                  drop: bool = False, seed: int = 0) -> Spectrum:
    """The measured through (and drop) of a ring with ``families`` under ``effects``, linear power."""
    rng = np.random.default_rng(seed)
    wl = np.asarray(wl_nm, float)
    length = 2 * math.pi * radius_um
    true_wl = wl + effects.jitter_pm * 1e-3 * rng.standard_normal(wl.size)
    nu = C_NM_THZ / true_wl
    t = np.ones(wl.size, complex)
    d = np.zeros(wl.size, complex)
    for fam in families:
        ts, ds = _family_field(nu, fam, length)
        t -= ts
        d += ds
    pt, pd = np.abs(t) ** 2, np.abs(d) ** 2
    x = (wl - effects.passband_center_nm) / effects.passband_half_span_nm
    env_db = -effects.insertion_loss_db - effects.passband_db * (0.8 * x**2 + 0.12 * x**3 + 0.2 * x**4)
    env_db += 0.5 * effects.drift_db * np.sin(2 * math.pi * (wl - wl[0]) / (1.7 * (wl[-1] - wl[0])) + 0.4)
    env = 10 ** (env_db / 10)
    if effects.ripple_db > 0:
        r = (10 ** (effects.ripple_db / 20) - 1) / (10 ** (effects.ripple_db / 20) + 1)
        nu_fp = C_NM_THZ / 1550.0**2 * effects.ripple_period_nm
        env = env * (1 + r * np.cos(2 * math.pi * nu / nu_fp + 0.7))
    peak = float(np.max(env))
    out = []
    for p in (pt, pd):
        y = p * env * (1 + effects.noise_mult * rng.standard_normal(wl.size))
        y = y + peak * (effects.noise_add * rng.standard_normal(wl.size) + effects.floor)
        out.append(np.maximum(y, 1e-9 * peak))
    truth = {}
    for k, fam in enumerate(families):
        nus, fsr_nu = _modes(fam, length, nu.min(), nu.max())
        lam = np.sort(C_NM_THZ / nus)
        inside = lam[(lam > wl[0]) & (lam < wl[-1])]
        t0 = (1 - 2 * fam.ke_frac) ** 2
        truth[k] = {
            "centers_nm": inside,
            "q_loaded": fam.q_loaded,
            "er_db": 10 * math.log10(1.0 / max(t0, 1e-30)),
            "fsr_nm_1550": 1550.0**2 / (C_NM_THZ / fsr_nu),
            "ng": fam.ng,
            "fsr_thz": fsr_nu,
            "split_nm": fam.split_linewidths * 1550.0 / fam.q_loaded,
        }
    return Spectrum(name, effect, wl, out[0], out[1] if drop else None, truth)


def nearest_truth(sp: Spectrum, family: int, ref_nm: float = 1550.0) -> dict:
    """The truth of ``family`` at its resonance nearest ``ref_nm``: λ_r, Q_L, ER, FSR at ref, n_g."""
    tr = sp.truth[family]
    c = tr["centers_nm"]
    lam = float(c[np.argmin(np.abs(c - ref_nm))])
    ref = float(np.clip(ref_nm, c[0], c[-1]))
    return {"lam_nm": lam, "q_loaded": tr["q_loaded"], "er_db": tr["er_db"],
            "fsr_nm": ref**2 * tr["fsr_thz"] / C_NM_THZ, "ng": tr["ng"]}


TE = Family(ng=2.30, q_loaded=2.0e4, ke_frac=0.40)  # under-coupled, T0 = 0.04 (14 dB)
TM = Family(ng=2.18, q_loaded=1.0e4, ke_frac=0.20, offset_frac=0.37)  # a second, broader and shallower family


def held_out_set() -> list[Spectrum]:
    """The ≥ 16 spectra of the acceptance test (R = 20 µm; FSR ≈ 8.3 nm at 1550 nm)."""
    full = np.arange(1500.0, 1600.0, 0.005)
    mid = np.arange(1530.0, 1570.0, 0.004)
    te = TE
    s = []
    s.append(ring_spectrum("clean", "none (1 % noise)", mid, [te], Effects(noise_mult=0.01), seed=1))
    s.append(ring_spectrum("passband22", "22 dB grating-coupler bell over 100 nm", full, [te],
                           Effects(passband_db=22, insertion_loss_db=6, noise_mult=0.01), seed=2))
    s.append(ring_spectrum("passband25_ripple", "25 dB bell + 0.4 dB FP ripple (0.8 nm)", full, [te],
                           Effects(passband_db=25, insertion_loss_db=6, ripple_db=0.4, noise_mult=0.01), seed=3))
    s.append(ring_spectrum("ripple", "1 dB FP ripple (0.5 nm period)", mid, [te],
                           Effects(ripple_db=1.0, ripple_period_nm=0.5, noise_mult=0.01), seed=4))
    s.append(ring_spectrum("floor", "22 dB bell, dips reach a detector floor", full,
                           [Family(2.30, 2.0e4, 0.49)],
                           Effects(passband_db=22, insertion_loss_db=6, noise_mult=0.01, floor=3e-3, noise_add=3e-4),
                           seed=5))
    s.append(ring_spectrum("family2", "second (TM-like) family, shallower", mid, [te, TM],
                           Effects(noise_mult=0.01), seed=6))
    s.append(ring_spectrum("family2_deeper", "second family deeper than the design's", mid,
                           [Family(2.30, 2.0e4, 0.25), Family(2.18, 1.0e4, 0.45, offset_frac=0.37)],
                           Effects(noise_mult=0.01), seed=7))
    s.append(ring_spectrum("low_snr", "additive noise 4 % of the baseline", mid, [te],
                           Effects(noise_add=0.04), seed=8))
    s.append(ring_spectrum("span13", "1.3-FSR span", np.arange(1546.0, 1556.8, 0.002), [te],
                           Effects(noise_mult=0.01), seed=9))
    s.append(ring_spectrum("points200k", "200,000 points over 40 nm (0.2 pm) + bell", np.linspace(1530.0, 1570.0, 200_000),
                           [te], Effects(passband_db=20, insertion_loss_db=5, noise_mult=0.01), seed=10))
    for k, sl in enumerate((0.3, 0.6, 1.0)):
        s.append(ring_spectrum(f"split{sl:g}", f"backscatter split {sl:g} linewidth", mid,
                               [Family(2.30, 2.0e4, 0.40, split_linewidths=sl)], Effects(noise_mult=0.01),
                               seed=11 + k))
    s.append(ring_spectrum("thermal", "thermal triangles (shift 6 linewidths)", mid,
                           [Family(2.30, 2.0e4, 0.40, thermal=6.0)], Effects(noise_mult=0.01), seed=14))
    s.append(ring_spectrum("thermal_mild", "thermal triangles (shift 2 linewidths)", mid,
                           [Family(2.30, 2.0e4, 0.40, thermal=2.0)], Effects(noise_mult=0.01), seed=15))
    s.append(ring_spectrum("add_drop_bell", "add-drop, 22 dB bell, ripple; drop confirms", full,
                           [Family(2.30, 1.5e4, 0.35, kd_frac=0.35)],
                           Effects(passband_db=22, insertion_loss_db=6, ripple_db=0.3, noise_mult=0.01),
                           drop=True, seed=16))
    s.append(ring_spectrum("jitter_drift", "1 pm wavelength jitter + 1 dB drift", mid, [te],
                           Effects(jitter_pm=1.0, drift_db=1.0, noise_mult=0.01), seed=17))
    s.append(ring_spectrum("split_family_noise", "0.5-linewidth split + second family + 2 % noise", mid,
                           [Family(2.30, 2.0e4, 0.40, split_linewidths=0.5), TM], Effects(noise_mult=0.02), seed=18))
    return s
