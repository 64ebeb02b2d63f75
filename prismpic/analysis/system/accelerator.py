"""PTU card arithmetic: MACs per clock, detector and ADC counts, throughput and readout power.

A PCM crossbar weight attenuates every wavelength alike (GSST absorption is broadband
over the C band), so what a clock computes depends on the readout:

- ``broadband``: one detector per column sums all rows *and* all wavelengths:
  y_c = Σ_r W_rc Σ_λ x_rλ, i.e. rows × cols useful MACs on wavelength-pre-summed inputs.
- ``per_wavelength``: a demultiplexer and a detector per wavelength per column:
  Y = Wᵀ X with X of shape (rows, wavelengths), rows × cols × wavelengths MACs, at the
  cost of cols × wavelengths detectors, TIAs and ADCs per core.
"""

from __future__ import annotations

from dataclasses import dataclass

from prismpic.checks import check_choice, check_range
from prismpic.circuits.ptu_model import READOUTS


@dataclass(frozen=True)
class PtuConfig:
    """A PTU card: cores of rows × cols crossbars on n_wavelengths, clocked at symbol_rate_hz."""

    rows: int = 128
    cols: int = 128
    n_wavelengths: int = 64
    cores: int = 128
    symbol_rate_hz: float = 5e9
    adc_bits: int = 8
    adc_fom_walden_j_per_step: float = 2e-14  # Walden FOM ≈ 10–50 fJ/step at GS/s (Murmann ADC survey) †
    tia_power_w: float = 5e-3  # per TIA at 5 GHz, several mW †
    pcm_program_energy_j: float = 1.7e-9 * 10  # 1.7 nJ/dB (Zhou et al., Nat. Commun. 2023) × a 10 dB swing
    pcm_program_time_s: float = 1e-6  # µs heat pulses (S2-08)


@dataclass(frozen=True)
class PtuBudget:
    """What a card does per clock and what its readout costs."""

    readout: str
    macs_per_clock_core: int
    detectors_per_core: int
    macs_per_clock_card: int
    flops_card: float  # 2 FLOPs per MAC
    adcs_card: int
    adc_power_w: float
    tia_power_w: float
    weights_card: int
    reprogram_energy_j: float
    reprogram_time_s: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def ptu_budget(cfg: PtuConfig = PtuConfig(), readout: str = "per_wavelength") -> PtuBudget:
    """MACs per clock, detector/ADC counts and readout power of a PTU card for a readout."""
    check_choice("readout", readout, READOUTS)
    for name in ("rows", "cols", "n_wavelengths", "cores"):
        check_range(name, getattr(cfg, name), 1, 1e6)
    if readout == "broadband":
        macs, dets = cfg.rows * cfg.cols, cfg.cols
    else:
        macs, dets = cfg.rows * cfg.cols * cfg.n_wavelengths, cfg.cols * cfg.n_wavelengths
    adcs = dets * cfg.cores
    weights = cfg.rows * cfg.cols * cfg.cores
    return PtuBudget(
        readout=readout,
        macs_per_clock_core=macs,
        detectors_per_core=dets,
        macs_per_clock_card=macs * cfg.cores,
        flops_card=2.0 * macs * cfg.cores * cfg.symbol_rate_hz,
        adcs_card=adcs,
        adc_power_w=adcs * cfg.adc_fom_walden_j_per_step * 2**cfg.adc_bits * cfg.symbol_rate_hz,
        tia_power_w=adcs * cfg.tia_power_w,
        weights_card=weights,
        # cells are programmed one row of heaters at a time per core (cols in parallel)
        reprogram_energy_j=weights * cfg.pcm_program_energy_j,
        reprogram_time_s=cfg.rows * cfg.pcm_program_time_s,
    )


def resident_parameters(cfg: PtuConfig = PtuConfig(), cards: int = 1) -> int:
    """Weights a set of cards can hold at once (one weight per crossing)."""
    check_range("cards", cards, 1, 1e6)
    return cfg.rows * cfg.cols * cfg.cores * cards
