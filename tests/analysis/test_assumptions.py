"""The assumption registry: one entry per unknown, ranges from their sources (the process corners, energy parts)."""

import math

import numpy as np
import pytest
from scipy import constants

from prismpic.analysis.ledger import assumptions as A
from prismpic.analysis.system.energy import GpuScanParams, PrismEnergyParams
from prismpic.pdk.process import DEFAULT_PROCESS, PARAMETERS


@pytest.mark.parametrize("name", PARAMETERS)
def test_process_ranges_are_the_process_corners(name):
    a = A.assumption(name)
    lo = DEFAULT_PROCESS.corner(f"{name}-3s")[name]
    hi = DEFAULT_PROCESS.corner(f"{name}+3s")[name]
    assert (a.lo, a.nominal, a.hi) == pytest.approx((lo, DEFAULT_PROCESS.nominal()[name], hi))


def test_receiver_range_holds_a_bare_50_ohm_load():
    # a 50 Ω load's current noise density √(4kT/R) at 300 K is 18.2 pA/√Hz: one end of the receiver range
    i_n = math.sqrt(4 * constants.k * 300.0 / 50.0) * 1e12
    a = A.assumption("receiver_noise_pa_per_rthz")
    assert i_n == pytest.approx(18.2, abs=0.05) and a.lo <= i_n <= a.hi and a.scale == "log"


def test_energy_parts_mid_are_the_energy_model_defaults():
    e, g = PrismEnergyParams(), GpuScanParams()
    mids = {"laser_wall_plug_efficiency": e.laser_wall_plug_efficiency, "tia_power_1ghz_mw": e.tia_power_w * 1e3,
            "adc_fom_fj_per_step": e.adc_fom_walden_j_per_step * 1e15, "ring_capacitance_ff": e.ring_capacitance_f * 1e15,
            "hbm_pj_per_bit": g.hbm_energy_j_per_bit * 1e12, "flop_pj": g.flop_energy_j * 1e12}
    for name, mid in mids.items():
        a = A.assumption(name)
        assert a.nominal == pytest.approx(mid) and a.lo < a.nominal < a.hi, name


def test_every_assumption_is_sourced_and_its_nominal_in_range():
    reg = A.registry()
    assert len(reg) >= 30
    for name, a in reg.items():
        assert a.name == name and a.source and a.label and a.lo <= a.nominal <= a.hi, name


def test_grids_span_the_range():
    a = A.assumption("receiver_noise_pa_per_rthz")
    g = a.grid(5)
    assert g[0] == pytest.approx(a.lo) and g[-1] == pytest.approx(a.hi)
    assert np.allclose(np.diff(np.log(g)), math.log(a.hi / a.lo) / 4)  # log-spaced
    bits = A.assumption("adc_bits").grid(9)
    assert list(bits) == [4, 5, 6, 7, 8]
    assert A.assumption("selected_k").from_unit(np.array([0.0, 1.0])).tolist() == [8.0, 32.0]


def test_unknown_assumption_is_refused():
    with pytest.raises(ValueError, match="no_such_thing"):
        A.assumption("no_such_thing")
    with pytest.raises(ValueError, match="nominal"):
        A.Assumption("x", "x", 5.0, 0.0, 1.0, "", "test")
