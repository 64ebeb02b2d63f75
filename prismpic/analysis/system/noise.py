"""Detector noise and SNR of a PRISM channel's balanced photodetector readout.

Model (all variances are one-sided, in A², over the electrical bandwidth ``B``):

A channel's light (total optical power ``P`` reaching the pair) splits between the
through diode and the drop diode; for a lossless add-drop ring I_T + I_D = R·P whatever
the weight, and the balanced readout is the difference I_D − I_T = w·R·P. The **signal**
is the full-scale difference current ``I_fs = R·P`` (all light on one diode, |w| = 1);
SNR = I_fs² / Σσ². ``balanced=False`` models one diode instead (signal R·P, one dark
current, one NEP).

Terms (sources of the formulas in brackets):

- ``shot``: 2q(I_T + I_D)B = 2q·R·P·B. Shot noise of the two diodes is independent and
  adds, so the pair's shot noise does not depend on the weight.
- ``dark``: 2q·n_d·I_dark·B, n_d = 2 diodes for the pair.
- ``thermal``: 4kTB/R_load of one load on the difference node, or i_n²·B for a TIA with
  input-referred current noise density i_n (A/√Hz).
- ``nep``: n_d·(R·NEP)²·B, a detector specified by its noise-equivalent power. A
  datasheet NEP usually already contains the amplifier's noise: then leave the thermal
  term out (``Receiver(load_resistance_ohm=None)``) to avoid counting it twice.
- ``rin``: laser relative intensity noise, RIN·B·I² per diode. In the difference the
  intensity noise common to both diodes cancels; what remains is the noise on the
  differential current, RIN·B·[(I_D − I_T)² + (ε(I_T + I_D))²]/n_lines, with ε the
  amplitude imbalance of the pair and n_lines the number of mutually uncorrelated
  laser lines the power is spread over equally (1 = one laser, the worst case).
- ``ase_shot``, ``signal_ase``, ``ase_ase``: an optical amplifier (SOA) ahead of the
  detectors, single polarization: S_ase = n_sp·hν·(G − 1) per polarization at its
  output, times the loss after it; signal–ASE beat 4R²·P·S_ase·B_e, ASE–ASE beat
  R²·S_ase²·(2B_o − B_e)·B_e, ASE shot 2q·R·S_ase·B_o [Olsson, JLT 7, 1071 (1989)].
  n_sp follows from the noise figure by F = 2n_sp(G − 1)/G + 1/G (→ NF ≈ 2n_sp at high
  gain). The ASE–ASE term is counted once with the whole ASE on one diode (an upper
  bound: the ASE split over two diodes gives R²(S_T² + S_D²) ≤ R²S²).
- ``adc``: ADC quantization referred to the input, (FS/2^bits)²/12, with FS the
  input-referred full-scale span, by default 2·I_fs (the signed reading spans ±I_fs).
- ``dac``: the query sketch's DAC quantization as an input-referred error on the inner
  product. The reading is I = I_fs·(1/d)·Σᵢ wᵢxᵢ with |wᵢ|, |xᵢ| ≤ 1; a uniform
  quantizer of 2^bits levels over [-1, 1] has step Δ = 2/(2^bits − 1) and error variance
  Δ²/12 per element, so σ² = I_fs²·w²·Δ²/(12·d), w the weight magnitude at the
  operating point (1 = worst case).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import constants, optimize

from prismpic.checks import check_nonnegative, check_positive, check_range
from prismpic.components.detector_figures import DARK_CURRENT_A, RESPONSIVITY_A_PER_W

Q_E = constants.e  # elementary charge, C
K_B = constants.k  # Boltzmann constant, J/K
H_PLANCK = constants.h  # J·s
C_LIGHT = constants.c  # m/s

# Seed S1-12's received power per detector, −15.9 dBm, and bandwidth: used as the
# operating point of the seed's SNR claim, not as a physics default.
SEED_S1_12_POWER_W = 25.7e-6
SEED_S1_12_BANDWIDTH_HZ = 1e9


def _check_bits(name: str, bits) -> int:
    if not isinstance(bits, (int, np.integer)) or bits < 1 or bits > 32:
        raise ValueError(f"{name} = {bits!r} must be an integer in [1, 32]")
    return int(bits)


@dataclass(frozen=True)
class Photodiode:
    """One photodiode of the balanced pair.

    Args:
        responsivity_a_per_w: A/W. Default: the reference Ge-on-Si detector's 0.95 A/W
            (``detector_figures``; Shi et al., Photonics Res. 12, 1 (2024)).
        dark_current_a: A. Default 1.3 nA, same source.
        nep_w_per_rthz: noise-equivalent power in W/√Hz, or None for no NEP term (seed
            S1-14 uses 10 pW/√Hz).
    """

    responsivity_a_per_w: float = RESPONSIVITY_A_PER_W
    dark_current_a: float = DARK_CURRENT_A
    nep_w_per_rthz: float | None = None

    def __post_init__(self):
        check_positive("responsivity_a_per_w", self.responsivity_a_per_w, unit="A/W")
        check_nonnegative("dark_current_a", self.dark_current_a, unit="A")
        if self.nep_w_per_rthz is not None:
            check_nonnegative("nep_w_per_rthz", self.nep_w_per_rthz, unit="W/√Hz")


@dataclass(frozen=True)
class Receiver:
    """Electronics after the pair: one load or TIA on the difference node, then an ADC.

    Args:
        bandwidth_hz: electrical (noise) bandwidth B_e. Default 1 GHz, seed S1-12.
        temperature_k: K. Default 300 K (room temperature).
        load_resistance_ohm: thermal noise 4kTB/R_load; default 50 Ω (a matched RF
            termination, a textbook assumption, not a measured figure). None for none.
        input_noise_a_per_rthz: TIA input-referred current noise density (A/√Hz); when
            given it replaces the load's thermal noise.
        adc_bits: ADC resolution, or None for no ADC term.
        adc_full_scale_a: input-referred ADC span (A); None means 2·I_fs.
        balance_error: amplitude imbalance ε of the pair, for the RIN that survives the
            subtraction (0 = perfect balance).
    """

    bandwidth_hz: float = 1e9
    temperature_k: float = 300.0
    load_resistance_ohm: float | None = 50.0
    input_noise_a_per_rthz: float | None = None
    adc_bits: int | None = None
    adc_full_scale_a: float | None = None
    balance_error: float = 0.0

    def __post_init__(self):
        check_positive("bandwidth_hz", self.bandwidth_hz, unit="Hz")
        check_positive("temperature_k", self.temperature_k, unit="K")
        if self.load_resistance_ohm is not None:
            check_positive("load_resistance_ohm", self.load_resistance_ohm, unit="Ω")
        if self.input_noise_a_per_rthz is not None:
            check_nonnegative("input_noise_a_per_rthz", self.input_noise_a_per_rthz, unit="A/√Hz")
        if self.adc_bits is not None:
            _check_bits("adc_bits", self.adc_bits)
        if self.adc_full_scale_a is not None:
            check_positive("adc_full_scale_a", self.adc_full_scale_a, unit="A")
        check_range("balance_error", self.balance_error, 0.0, 1.0)


@dataclass(frozen=True)
class Laser:
    """The laser's intensity noise.

    Args:
        rin_db_per_hz: relative intensity noise in dB/Hz (e.g. −150 dB/Hz for a
            telecom DFB, an assumption to be replaced by the part's datasheet).
        n_uncorrelated_lines: lines with mutually uncorrelated RIN over which the power
            is spread equally (1 = worst case, fully correlated).
    """

    rin_db_per_hz: float = -150.0
    n_uncorrelated_lines: int = 1

    def __post_init__(self):
        check_range("rin_db_per_hz", self.rin_db_per_hz, -200.0, 0.0, unit="dB/Hz")
        if not isinstance(self.n_uncorrelated_lines, (int, np.integer)) or self.n_uncorrelated_lines < 1:
            raise ValueError(f"n_uncorrelated_lines = {self.n_uncorrelated_lines!r} must be an integer >= 1")


@dataclass(frozen=True)
class Amplifier:
    """An optical amplifier (SOA) ahead of the detectors, single polarization.

    Args:
        gain_db: gain G in dB. Default 20 dB (typical SOA 15–30 dB, REFERENCES.md).
        nf_db: noise figure in dB. Default 7 dB (typical SOA 7–10 dB, REFERENCES.md).
        optical_bandwidth_hz: optical band B_o of ASE reaching a detector. Default
            200 GHz, one 1.6 nm WDM slot at 1550 nm (seed S1-03); set it wider for an
            unfiltered port. Must satisfy 2·B_o ≥ B_e.
        loss_after_db: loss between the amplifier's output and the detector (scales the
            ASE; the signal power given to ``noise_budget`` is already at the detector).
        wavelength_um: µm, sets hν.
    """

    gain_db: float = 20.0
    nf_db: float = 7.0
    optical_bandwidth_hz: float = 200e9
    loss_after_db: float = 0.0
    wavelength_um: float = 1.55

    def __post_init__(self):
        check_range("gain_db", self.gain_db, 0.0, 60.0, unit="dB", lo_open=True)
        check_range("nf_db", self.nf_db, 0.0, 30.0, unit="dB")
        check_positive("optical_bandwidth_hz", self.optical_bandwidth_hz, unit="Hz")
        check_nonnegative("loss_after_db", self.loss_after_db, unit="dB")
        check_range("wavelength_um", self.wavelength_um, 0.2, 20.0, unit="µm")

    @property
    def n_sp(self) -> float:
        """Spontaneous-emission factor from F = 2n_sp(G − 1)/G + 1/G."""
        g = 10 ** (self.gain_db / 10)
        f = 10 ** (self.nf_db / 10)
        return max((f * g - 1.0) / (2.0 * (g - 1.0)), 0.0)

    @property
    def ase_psd_w_per_hz(self) -> float:
        """S_ase at the detector, W/Hz per polarization: n_sp·hν·(G − 1)·loss_after."""
        g = 10 ** (self.gain_db / 10)
        nu = C_LIGHT / (self.wavelength_um * 1e-6)
        return self.n_sp * H_PLANCK * nu * (g - 1.0) * 10 ** (-self.loss_after_db / 10)


@dataclass(frozen=True)
class NoiseBudget:
    """Noise terms of one readout and the SNR they leave.

    Attributes:
        signal_current_a: the signal, the full-scale difference current I_fs = R·P (A).
        terms: variance of each term (A²), keyed by name.
        power_w: optical power at the detector(s) (W).
        bandwidth_hz: electrical bandwidth (Hz).
    """

    signal_current_a: float
    terms: dict = field(default_factory=dict, hash=False)
    power_w: float = 0.0
    bandwidth_hz: float = 0.0

    @property
    def total_variance_a2(self) -> float:
        """Σ of all term variances (A²)."""
        return float(sum(self.terms.values()))

    @property
    def noise_current_a(self) -> float:
        """RMS noise current (A)."""
        return math.sqrt(self.total_variance_a2)

    @property
    def snr(self) -> float:
        """I_fs² / Σσ² (linear, electrical power ratio)."""
        return self.signal_current_a**2 / self.total_variance_a2

    @property
    def snr_db(self) -> float:
        """10·log10(SNR)."""
        return 10 * math.log10(self.snr)

    @property
    def enob(self) -> float:
        """Effective number of bits, (SNR_dB − 1.76)/6.02."""
        return (self.snr_db - 1.76) / 6.02

    @property
    def relative_noise(self) -> float:
        """RMS noise over the full-scale signal, σ/I_fs = 10^(−SNR_dB/20): the σ of a
        reading normalised to full scale 1, as ``recall.RecallConfig.noise_rel`` takes it."""
        return self.noise_current_a / self.signal_current_a

    def breakdown(self) -> str:
        """A text table: each term's variance, RMS current, share of the total, and the
        SNR it alone would allow."""
        total = self.total_variance_a2
        lines = [f"{'term':<11}{'variance (A²)':>15}{'rms (nA)':>11}{'share':>8}{'SNR alone (dB)':>16}"]
        for name, var in sorted(self.terms.items(), key=lambda kv: -kv[1]):
            alone = 10 * math.log10(self.signal_current_a**2 / var) if var > 0 else math.inf
            lines.append(f"{name:<11}{var:>15.3e}{math.sqrt(var) * 1e9:>11.3f}{var / total:>8.1%}{alone:>16.2f}")
        lines.append(
            f"{'total':<11}{total:>15.3e}{math.sqrt(total) * 1e9:>11.3f}{1:>8.0%}{self.snr_db:>16.2f}"
            f"   (I_fs = {self.signal_current_a * 1e6:.3f} µA, ENOB = {self.enob:.2f})"
        )
        return "\n".join(lines)


def noise_budget(
    power_w: float,
    *,
    photodiode: Photodiode = Photodiode(),
    receiver: Receiver = Receiver(),
    laser: Laser | None = None,
    amplifier: Amplifier | None = None,
    dac_bits: int | None = None,
    n_wavelengths: int = 32,
    weight: float = 1.0,
    balanced: bool = True,
) -> NoiseBudget:
    """Noise budget of one channel's readout (see the module docstring for the model).

    Args:
        power_w: total optical power reaching the detector pair (or the one diode), W.
        photodiode: each diode's responsivity, dark current and NEP.
        receiver: bandwidth, load/TIA, ADC, pair imbalance.
        laser: RIN, or None for no RIN term.
        amplifier: an SOA ahead of the detectors, or None.
        dac_bits: query DAC resolution, or None for no DAC term.
        n_wavelengths: d, the number of WDM lines in the inner product (DAC term).
        weight: operating point w ∈ [-1, 1], the differential fraction (I_D − I_T)/(I_D + I_T);
            only RIN and DAC terms depend on it. Default 1, full scale.
        balanced: a balanced pair (True) or one diode (False).

    Returns:
        ``NoiseBudget`` with signal I_fs = R·P.
    """
    check_nonnegative("power_w", power_w, unit="W")
    check_range("weight", weight, -1.0, 1.0)
    if not isinstance(n_wavelengths, (int, np.integer)) or n_wavelengths < 1:
        raise ValueError(f"n_wavelengths = {n_wavelengths!r} must be an integer >= 1")
    r = photodiode.responsivity_a_per_w
    b = receiver.bandwidth_hz
    n_d = 2 if balanced else 1
    i_photo = r * power_w  # I_T + I_D
    i_fs = i_photo
    i_diff = weight * i_photo if balanced else i_photo

    terms = {"shot": 2 * Q_E * i_photo * b, "dark": 2 * Q_E * n_d * photodiode.dark_current_a * b}
    if receiver.input_noise_a_per_rthz is not None:
        terms["thermal"] = receiver.input_noise_a_per_rthz**2 * b
    elif receiver.load_resistance_ohm is not None:
        terms["thermal"] = 4 * K_B * receiver.temperature_k * b / receiver.load_resistance_ohm
    if photodiode.nep_w_per_rthz is not None:
        terms["nep"] = n_d * (r * photodiode.nep_w_per_rthz) ** 2 * b
    if laser is not None:
        rin = 10 ** (laser.rin_db_per_hz / 10)
        common = receiver.balance_error * i_photo if balanced else 0.0
        terms["rin"] = rin * b * (i_diff**2 + common**2) / laser.n_uncorrelated_lines
    if amplifier is not None:
        s = amplifier.ase_psd_w_per_hz
        b_o = amplifier.optical_bandwidth_hz
        if 2 * b_o < b:
            raise ValueError(f"optical_bandwidth_hz = {b_o:g} Hz must be >= bandwidth_hz / 2 = {b / 2:g} Hz")
        terms["ase_shot"] = 2 * Q_E * r * s * b_o * b
        terms["signal_ase"] = 4 * r**2 * power_w * s * b
        terms["ase_ase"] = r**2 * s**2 * (2 * b_o - b) * b
    if receiver.adc_bits is not None:
        fs = receiver.adc_full_scale_a if receiver.adc_full_scale_a is not None else 2 * i_fs
        terms["adc"] = (fs / 2**receiver.adc_bits) ** 2 / 12
    if dac_bits is not None:
        step = 2.0 / (2 ** _check_bits("dac_bits", dac_bits) - 1)
        terms["dac"] = i_fs**2 * weight**2 * step**2 / (12 * n_wavelengths)
    return NoiseBudget(signal_current_a=i_fs, terms=terms, power_w=float(power_w), bandwidth_hz=b)


def snr_db(power_w: float, **kwargs) -> float:
    """SNR in dB of ``noise_budget(power_w, **kwargs)``."""
    return noise_budget(power_w, **kwargs).snr_db


def laser_power_for_snr(
    target_snr_db: float,
    loss_db: float,
    *,
    lo_dbm: float = -60.0,
    hi_dbm: float = 60.0,
    **kwargs,
) -> float:
    """Laser power (dBm) that gives ``target_snr_db`` at the detector after ``loss_db``.

    Solves snr_db(P_laser − loss) = target by Brent's method on P in dBm. SNR rises
    monotonically with power but saturates where RIN, ADC and DAC terms (which scale like
    the signal²) dominate: a target above what ``hi_dbm`` reaches raises.

    Args:
        target_snr_db: dB.
        loss_db: link loss from laser to detector, dB (≥ 0).
        lo_dbm, hi_dbm: search bracket for the laser power, dBm.
        **kwargs: passed to ``noise_budget``.
    """
    check_nonnegative("loss_db", loss_db, unit="dB")

    def f(p_dbm):
        return snr_db(1e-3 * 10 ** ((p_dbm - loss_db) / 10), **kwargs) - target_snr_db

    f_lo, f_hi = f(lo_dbm), f(hi_dbm)
    if f_hi < 0:
        raise ValueError(
            f"target_snr_db = {target_snr_db:g} dB is outside the reachable range "
            f"[{f_lo + target_snr_db:.2f}, {f_hi + target_snr_db:.2f}] dB "
            f"for laser power in [{lo_dbm:g}, {hi_dbm:g}] dBm"
        )
    if f_lo > 0:
        raise ValueError(
            f"target_snr_db = {target_snr_db:g} dB is reached below lo_dbm = {lo_dbm:g} dBm "
            f"(SNR there is {f_lo + target_snr_db:.2f} dB); lower lo_dbm"
        )
    return float(optimize.brentq(f, lo_dbm, hi_dbm, xtol=1e-10))


def plot_noise_breakdown(budget: NoiseBudget, path) -> None:
    """Bar chart of each term's RMS noise current against the signal; writes a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = sorted(budget.terms.items(), key=lambda kv: kv[1])
    names = [k for k, _ in items] + ["total"]
    rms_na = [math.sqrt(v) * 1e9 for _, v in items] + [budget.noise_current_a * 1e9]
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(names) + 1.5))
    colors = ["tab:blue"] * len(items) + ["tab:red"]
    ax.barh(names, rms_na, color=colors)
    label = f"signal I_fs = {budget.signal_current_a * 1e6:.2f} µA"
    ax.axvline(budget.signal_current_a * 1e9, color="k", ls="--", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("RMS current (nA)")
    ax.set_title(
        f"P = {budget.power_w * 1e6:.3g} µW, B = {budget.bandwidth_hz / 1e9:.3g} GHz: "
        f"SNR = {budget.snr_db:.1f} dB, ENOB = {budget.enob:.1f}"
    )
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
