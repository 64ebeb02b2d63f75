"""The time-domain blocks around the rings, each from the same model as its frequency-domain counterpart.

- DAC: ``bits`` of resolution (uniform codes over [0, 1] of the query value), a sample-and-hold at the symbol
  rate, and a first-order rise (10–90 % in τ ln 9). Default rise: a quarter symbol (an electronic part
  designed for the rate; no device model holds a DAC).
- MZM: the S-parameter model ``modulators.mzm_model`` is t(ψ) = P e^{iψ/2} + Q e^{−iψ/2} with ψ = πV/V_π + bias;
  P and Q are solved from two evaluations of that model, so the time-domain MZM equals it at every voltage.
  Its RF line (``rf_line.mzm_eo_response``: travelling wave, velocity mismatch, RF loss, termination) acts as a
  first-order response with the line's own 3-dB bandwidth (``rf_line.mzm_bandwidth_ghz``): the line's response
  is not rational, a single pole keeps its bandwidth. The drive is pre-distorted so that the transmitted power
  is linear in the code (V = (2V_π/π) arccos √q).
- Photodetector: responsivity ``detectors.responsivity_a_per_w`` per carrier, bandwidth
  ``detectors.detector_bandwidth_ghz`` (RC and transit), dark current ``detectors.dark_current_a``; shot noise
  2q(I + I_dark) per unit bandwidth, drawn per sample (variance q I/Δt).
- TIA: first-order bandwidth (default 0.75 × the symbol rate, the usual NRZ receiver design), input-referred
  noise density (default the 50 Ω load's thermal noise √(4kT/R), ``noise.Receiver``'s default load).
- Ring tuning driver: the electrode charged through the driver's resistance, τ = R C (``ring_capacitance_ff``
  and the 50 Ω driver of the ledger's assumptions and claim S1-07).

Blocks whose bandwidth is above the simulation's Nyquist frequency 1/(2Δt) are flat across the simulated band
and act as their DC gain (listed as ``static_blocks`` in results); the rings are always dynamic.
"""

from __future__ import annotations

import dataclasses
import math

import jax.numpy as jnp
import numpy as np
from scipy import constants

from prismpic.checks import check_positive, check_range

Q_E = constants.e
K_B = constants.k
DAC_RISE_SYMBOLS = 0.25  # DAC 10–90 % rise time in symbols (default)
TIA_BANDWIDTH_PER_BAUD = 0.75  # TIA 3-dB bandwidth per symbol rate (default)
DRIVER_RESISTANCE_OHM = 50.0  # the ring driver's source resistance (claim S1-07's 50 Ω driver)


@dataclasses.dataclass(frozen=True)
class Frontend:
    """Per-carrier transmitter: MZM coefficients and drive (derived by ``frontend``).

    Attributes: vpi_v (W,) V; p, q (W,) complex MZM coefficients; bias_phase_rad; mzm_bandwidth_ghz; dac_bits;
    laser power per carrier at the MZM input (W); the lasers' relative intensity noise (linear, 1/Hz; one-sided;
    every carrier its own line, mutually uncorrelated; 0: none).
    """

    vpi_v: np.ndarray
    p: np.ndarray
    q: np.ndarray
    bias_phase_rad: float
    mzm_bandwidth_ghz: float
    dac_bits: int
    power_w: float
    rin_per_hz: float = 0.0


@dataclasses.dataclass(frozen=True)
class Backend:
    """Balanced receiver: responsivity (W,) A/W, detector bandwidth (GHz), dark current (A), TIA bandwidth (GHz)
    and input noise density (A/√Hz), temperature (K)."""

    responsivity_a_per_w: np.ndarray
    pd_bandwidth_ghz: float
    dark_current_a: float
    tia_bandwidth_ghz: float
    tia_noise_a_per_rthz: float


def frontend(wl, *, dac_bits: int = 6, power_w: float = 1e-3, mzm: dict | None = None,
             rin_db_per_hz: float | None = None) -> Frontend:
    """The MZM of ``modulators.mzm_model`` (cell defaults updated by ``mzm``) at carriers ``wl`` (µm).

    Args:
        wl: carrier wavelengths (µm), (W,).
        dac_bits: DAC resolution (1–16 bits).
        power_w: laser power per carrier at the MZM input (W).
        mzm: ``mzm_model`` parameters (geometry, bias_phase_rad, …); ``voltage_v`` is the drive and is refused.
        rin_db_per_hz: the lasers' relative intensity noise (dB/Hz; e.g. −150 for a telecom DFB, ``noise.Laser``);
            None: no intensity noise.
    """
    from prismpic.components import rf_line

    if not isinstance(dac_bits, int | np.integer) or not 1 <= dac_bits <= 16:
        raise ValueError(f"dac_bits = {dac_bits!r} is outside the valid range: an integer in [1, 16]")
    check_range("power_w", power_w, 0.0, 1.0, unit="W", lo_open=True)
    vpi, p, q, bias, geo = mzm_coefficients(wl, mzm)
    bw = float(rf_line.mzm_bandwidth_ghz(**geo))
    rin = 0.0
    if rin_db_per_hz is not None:
        rin = 10 ** (check_range("rin_db_per_hz", rin_db_per_hz, -200.0, 0.0, unit="dB/Hz") / 10)
    return Frontend(vpi, p, q, bias, bw, int(dac_bits), float(power_w), float(rin))


def mzm_coefficients(wl, mzm: dict | None = None):
    """(V_π (W,), P (W,), Q (W,), bias, geometry): t(V) = P e^{iψ/2} + Q e^{−iψ/2}, ψ = πV/V_π + bias, solved from
    ``modulators.mzm_model`` at V = 0 and V = V_π (the model is exactly of this form)."""
    from prismpic.components import modulators

    mzm = dict(mzm or {})
    if "voltage_v" in mzm:
        raise ValueError("mzm voltage_v is the DAC's drive; do not set it")
    wl = np.atleast_1d(np.asarray(wl, dtype=float))
    bias = float(mzm.get("bias_phase_rad", 0.0))
    geo = {k: v for k, v in mzm.items() if k in ("length", "electrode_gap", "signal_width", "pad_size",
                                                 "transition_length", "width", "film_thickness", "etch_depth",
                                                 "cross_section", "sidewall_angle_deg", "cladding")}
    vpi = np.asarray(modulators.mzm_vpi_v(wl, **geo))
    both = np.asarray(modulators.mzm_model(np.concatenate([wl, wl]), **{**mzm, "voltage_v": np.concatenate(
        [np.zeros_like(vpi), vpi])})[("o1", "o2")])  # 0 V and V_π per carrier, one evaluation
    t0, t1 = both[:wl.size], both[wl.size:]
    # t(b) = P e^{ib/2} + Q e^{−ib/2}; t(b + π) = i P e^{ib/2} − i Q e^{−ib/2}
    pe, qe = (t0 - 1j * t1) / 2, (t0 + 1j * t1) / 2
    return vpi, pe * np.exp(-0.5j * bias), qe * np.exp(0.5j * bias), bias, geo


def mzm_field(fe: Frontend, volts):
    """Field transmission t(V) of each carrier's MZM, ``volts`` (W, T) → (W, T) complex."""
    psi = jnp.pi * volts / fe.vpi_v[:, None] + fe.bias_phase_rad
    return fe.p[:, None] * jnp.exp(0.5j * psi) + fe.q[:, None] * jnp.exp(-0.5j * psi)


def drive_volts(fe: Frontend, codes):
    """Drive voltage (V) that makes the transmitted power ∝ the code q ∈ [0, 1] (bias 0, ideal arms)."""
    return 2 * fe.vpi_v[:, None] / jnp.pi * jnp.arccos(jnp.sqrt(jnp.clip(codes, 0.0, 1.0)))


def quantize(x, bits: int):
    """DAC codes: x ∈ [0, 1] rounded to 2^bits − 1 steps."""
    levels = 2**bits - 1
    return jnp.round(jnp.clip(x, 0.0, 1.0) * levels) / levels


def backend(wl, symbol_rate_hz: float, *, tia_bandwidth_ghz: float | None = None,
            tia_noise_a_per_rthz: float | None = None, temperature_k: float = 300.0,
            detector: dict | None = None) -> Backend:
    """The balanced detector pair (``detectors`` models, cell defaults updated by ``detector``) and the TIA.

    Args:
        wl: carriers (µm).
        symbol_rate_hz: the symbol rate (sets the TIA's default bandwidth).
        tia_bandwidth_ghz: TIA 3-dB bandwidth (GHz); None: ``TIA_BANDWIDTH_PER_BAUD`` × the symbol rate.
        tia_noise_a_per_rthz: input-referred noise (A/√Hz); None: the thermal noise of a 50 Ω load.
        temperature_k: temperature (K) of the load and the detector.
        detector: ``photodetector`` geometry (ge_length, ge_thickness, intrinsic_width, pad_size, …).
    """
    from prismpic.components import detectors
    from prismpic.components.model_signature import cell_defaults

    det = {**cell_defaults(detectors.photodetector), **(detector or {})}
    resp = np.asarray(detectors.responsivity_a_per_w(np.atleast_1d(wl), det["ge_length"]))
    bw = float(detectors.detector_bandwidth_ghz(det["ge_length"], det["ge_thickness"], det["intrinsic_width"],
                                                det["pad_size"]))
    dark = float(detectors.dark_current_a(det["ge_length"], det["ge_thickness"], temperature_k))
    tia_bw = TIA_BANDWIDTH_PER_BAUD * symbol_rate_hz * 1e-9 if tia_bandwidth_ghz is None else tia_bandwidth_ghz
    check_positive("tia_bandwidth_ghz", tia_bw, unit="GHz")
    noise = math.sqrt(4 * K_B * temperature_k / 50.0) if tia_noise_a_per_rthz is None else tia_noise_a_per_rthz
    check_range("tia_noise_a_per_rthz", noise, 0.0, 1e-6, unit="A/√Hz")
    return Backend(resp, bw, dark, float(tia_bw), float(noise))


def driver_tau_ps(ring_capacitance_ff: float = 20.0, resistance_ohm: float = DRIVER_RESISTANCE_OHM) -> float:
    """RC time constant (ps) of a ring electrode charged by its driver."""
    check_range("ring_capacitance_ff", ring_capacitance_ff, 0.0, 1e6, unit="fF", lo_open=True)
    check_range("resistance_ohm", resistance_ohm, 0.0, 1e6, unit="Ω", lo_open=True)
    return resistance_ohm * ring_capacitance_ff * 1e-15 * 1e12


def dynamic(bandwidth_ghz: float, dt_ps: float) -> bool:
    """Whether a block of this bandwidth is resolved at step Δt (below the Nyquist frequency 1/(2Δt))."""
    return bandwidth_ghz * 1e-3 < 0.5 / dt_ps
