"""Energy and latency per PRISM query, and the electronic baselines it is compared with.

Every default carries its source; † marks a figure recalled rather than read from the
paper. The seed (S1-16) quotes 1.25 nJ per query for PRISM at 4K context and 5120 nJ for a
GPU full scan; this module computes both from parts so the assumptions are explicit.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from scipy.constants import c

from prismpic.checks import check_positive, check_range

C_UM_PER_PS = c / 1e6  # speed of light, µm/ps


@dataclass(frozen=True)
class PrismEnergyParams:
    """Parts of a PRISM query's energy (SI units unless named)."""

    d: int = 32  # wavelengths / signature dimension
    n_channels: int = 256  # blocks compared in parallel (one per channel)
    symbol_rate_hz: float = 1e9  # one query per symbol (the seed's 1 GHz detection bandwidth)
    laser_power_dbm_per_wavelength: float = 20.0 - 10 * math.log10(32)  # seed S1-12: +20 dBm total over d = 32
    laser_wall_plug_efficiency: float = 0.15  # DFB/comb source wall-plug, 10–20 % typical †
    dac_bits: int = 6
    dac_fom_j_per_step: float = 1e-13  # ≈ 0.1 pJ per conversion step for GS/s DACs † (order of magnitude)
    mzm_vpp_v: float = 1.0  # drive swing; a fraction of Vπ for small-signal analog encoding
    mzm_termination_ohm: float = 50.0  # traveling-wave electrode terminated in 50 Ω
    ring_capacitance_f: float = 20e-15  # Pockels ring electrode capacitance (µm-scale gaps, ≈ 10–50 fF) †
    ring_voltage_v: float = 20.0  # mean programming voltage (tens of V: pm/V-scale tuning, REFERENCES.md)
    update_interval_queries: float = 128.0  # signatures change every 64–512 tokens (S1-07)
    tia_power_w: float = 2e-3  # TIA per balanced pair at ~1 GHz, a few mW † (CMOS TIAs 1–10 mW)
    adc_bits: int = 6
    adc_fom_walden_j_per_step: float = 2e-14  # Walden FOM ≈ 10–50 fJ/step at GS/s (Murmann ADC survey) †
    sort_energy_j_per_compare: float = 5e-14  # one 8-bit compare-and-swap in a modern CMOS node †


@dataclass(frozen=True)
class EnergyBreakdown:
    """Energy per query (J) by part, and the total."""

    parts: dict[str, float]

    @property
    def total_j(self) -> float:
        return sum(self.parts.values())

    def to_dict(self) -> dict:
        return {"parts_nj": {k: v * 1e9 for k, v in self.parts.items()}, "total_nj": self.total_j * 1e9}


def prism_energy_per_query(p: PrismEnergyParams = PrismEnergyParams(), k: int = 8) -> EnergyBreakdown:
    """Energy of one PRISM query: laser, DAC, MZM drive, ring updates, TIAs, ADCs, top-k sort.

    Laser: P_opt·d/η_wpe per symbol time. DAC/ADC: Walden scaling E = FOM·2^bits per
    conversion. MZM (traveling wave, terminated): E = V_pp²/(4 Z0)·T for random NRZ-like
    drive. Rings: ½CV² per update, amortised over the update interval. Sort: a bitonic
    top-k over N values costs ≈ N·log2(k)·(log2(k)+1)/2 compare-and-swaps.
    """
    check_positive("symbol_rate_hz", p.symbol_rate_hz)
    check_range("laser_wall_plug_efficiency", p.laser_wall_plug_efficiency, 0.0, 1.0, lo_open=True)
    check_range("k", k, 1, p.n_channels)
    t = 1.0 / p.symbol_rate_hz
    p_opt = 1e-3 * 10 ** (p.laser_power_dbm_per_wavelength / 10) * p.d
    lg = math.log2(max(k, 2))
    parts = {
        "laser": p_opt / p.laser_wall_plug_efficiency * t,
        "dac": p.d * p.dac_fom_j_per_step * 2**p.dac_bits,
        "mzm_drive": p.d * p.mzm_vpp_v**2 / (4 * p.mzm_termination_ohm) * t,
        "ring_updates": p.n_channels
        * p.d
        * 0.5
        * p.ring_capacitance_f
        * p.ring_voltage_v**2
        / p.update_interval_queries,
        "tia": p.n_channels * p.tia_power_w * t,
        "adc": p.n_channels * p.adc_fom_walden_j_per_step * 2**p.adc_bits,
        "sort": p.n_channels * lg * (lg + 1) / 2 * p.sort_energy_j_per_compare,
    }
    return EnergyBreakdown(parts)


@dataclass(frozen=True)
class GpuScanParams:
    """An electronic full scan of block keys (energy per bit moved from HBM and per FLOP)."""

    d_head: int = 128
    bytes_per_value: int = 2  # fp16
    hbm_energy_j_per_bit: float = 3.9e-12  # HBM2, O'Connor et al., MICRO 2017 (≈ 3.9 pJ/bit) †
    flop_energy_j: float = 0.5e-12  # fp16 FMA incl. operand delivery on a GPU, ≈ 0.5 pJ †


def gpu_full_scan_energy_j(n_tokens: int, g: GpuScanParams = GpuScanParams(), heads: int = 1, layers: int = 1) -> float:
    """Energy (J) to read every key of ``n_tokens`` and score it against one query.

    Reads n·d_h·bytes·8 bits per head and layer and spends 2·d_h FLOPs per key.
    """
    check_range("n_tokens", n_tokens, 1, 1e9)
    bits = n_tokens * g.d_head * g.bytes_per_value * 8
    return heads * layers * (bits * g.hbm_energy_j_per_bit + 2 * g.d_head * n_tokens * g.flop_energy_j)


def kv_cache_bytes(
    layers: int = 32, kv_heads: int = 8, d_head: int = 128, tokens: int = 131072, bytes_per_value: int = 2
) -> int:
    """Bytes of K and V for a context: 2·layers·kv_heads·d_head·tokens·bytes (S1-01)."""
    return 2 * layers * kv_heads * d_head * tokens * bytes_per_value


def optical_transit_ps(path_length_um: float, ng: float) -> float:
    """Group delay (ps) of a path: L·n_g/c."""
    check_positive("path_length_um", path_length_um, unit="µm")
    return path_length_um * ng / C_UM_PER_PS


def electronic_topk_latency_ns(n: int, k: int, clock_hz: float = 1e9, compares_per_cycle: int = 64) -> float:
    """Latency (ns) of a pipelined top-k over n values: n·⌈log2 k⌉ compares at a given parallelism."""
    check_range("k", k, 1, n)
    compares = n * max(1, math.ceil(math.log2(max(k, 2))))
    return compares / compares_per_cycle / clock_hz * 1e9


def params_dict(p) -> dict:
    """A dataclass of parameters as a plain dict (for the report)."""
    return asdict(p)
