"""Energy, PTU arithmetic and fiber-loop capacity against hand calculations."""

import math

import pytest

from prismpic.analysis.system.accelerator import PtuConfig, ptu_budget, resident_parameters
from prismpic.analysis.system.energy import (
    PrismEnergyParams,
    electronic_topk_latency_ns,
    gpu_full_scan_energy_j,
    kv_cache_bytes,
    optical_transit_ps,
    prism_energy_per_query,
)
from prismpic.analysis.system.kv_capacity import (
    bits_in_flight,
    fiber_length_for_bytes,
    loop_delay_s,
    osnr_after_rounds_db,
    rounds_until_osnr_db,
)


def test_kv_cache_of_llama_8b():
    # 2 × 32 × 8 × 128 × 131072 × 2 B = 2^34 B
    assert kv_cache_bytes() == 2**34


def test_prism_energy_parts_by_hand():
    p = PrismEnergyParams(d=32, n_channels=256, laser_power_dbm_per_wavelength=0.0, laser_wall_plug_efficiency=0.2)
    e = prism_energy_per_query(p, k=8).parts
    assert e["laser"] == pytest.approx(32 * 1e-3 / 0.2 * 1e-9)
    assert e["adc"] == pytest.approx(256 * p.adc_fom_walden_j_per_step * 64)
    assert e["mzm_drive"] == pytest.approx(32 * 1.0**2 / 200 * 1e-9)
    assert e["ring_updates"] == pytest.approx(256 * 32 * 0.5 * 20e-15 * 400 / 128)


def test_gpu_scan_energy_scales_with_tokens():
    one = gpu_full_scan_energy_j(4096)
    assert gpu_full_scan_energy_j(8192) == pytest.approx(2 * one)
    # 4096 × 128 × 2 B × 8 bit × 3.9 pJ/bit = 32.7 µJ of HBM traffic for one head, one layer
    assert one > 4096 * 128 * 16 * 3.9e-12


def test_transit_and_sort_latency():
    assert optical_transit_ps(299.792458 * 10, 1.0) == pytest.approx(10.0)
    assert electronic_topk_latency_ns(1024, 32, 1e9, 64) == pytest.approx(1024 * 5 / 64)


def test_ptu_readouts():
    bb, pw = ptu_budget(readout="broadband"), ptu_budget(readout="per_wavelength")
    assert bb.macs_per_clock_core == 128 * 128 and pw.macs_per_clock_core == 128 * 128 * 64
    assert pw.detectors_per_core == 128 * 64 and bb.detectors_per_core == 128
    assert pw.flops_card == pytest.approx(2 * 128**3 * 64 * 5e9)
    assert resident_parameters(PtuConfig(), cards=1) == 128**3
    with pytest.raises(ValueError, match="readout = 'magic'"):
        ptu_budget(readout="magic")


def test_fiber_loop_capacity():
    # 1 km of n_g = 1 fiber delays 3.3356 µs
    assert loop_delay_s(1000.0) == pytest.approx(3.3356e-6, rel=1e-4)
    assert bits_in_flight(1000.0, 5e9, 64) == pytest.approx(5e9 * 64 * 3.3356e-6, rel=1e-4)
    assert fiber_length_for_bytes(1e6, 5e9, 64) == pytest.approx(8e6 / (5e9 * 64 / 299792458.0), rel=1e-9)


def test_osnr_falls_10db_per_decade_of_rounds():
    a = osnr_after_rounds_db(1, 0.0, 10.0)
    assert osnr_after_rounds_db(10, 0.0, 10.0) == pytest.approx(a - 10.0)
    n = rounds_until_osnr_db(a - 20.0, 0.0, 10.0)
    assert n == 100
    with pytest.raises(ValueError, match="rounds"):
        osnr_after_rounds_db(0, 0.0, 10.0)


def test_osnr_matches_textbook_value():
    # 0 dBm, G = 10 dB, NF = 6 dB (n_sp ≈ 2), 0.1 nm: OSNR ≈ 58 + P − NF − G = 42 dB (rule of thumb)
    assert osnr_after_rounds_db(1, 0.0, 10.0, nf_db=6.0) == pytest.approx(58.0 - 6.0 - 10.0, abs=0.6)
    assert math.isfinite(osnr_after_rounds_db(1, 0.0, 10.0))
