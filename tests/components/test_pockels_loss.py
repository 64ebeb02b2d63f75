"""The loss budget of a Pockels section between its electrodes (``loss_budget.pockels_loss_budget``): the parts add
up, the gold follows the rib's lateral decay between two gaps, the Vπ·L is the MZM model's, a published MZM's
on-chip loss bound, and the ``loss`` command."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from prismpic.cli import app
from prismpic.components import loss_budget
from prismpic.components import modulators as mod
from prismpic.pdk import materials, metal_absorption, scattering
from prismpic.pdk.bend_radiation import lateral_decay_per_um
from prismpic.pdk.ridge_stack import DEFAULT, RidgeStack

WL = 1.55
runner = CliRunner()


def test_budget_adds_up_and_uses_the_mzm_models_vpil():
    budget = loss_budget.pockels_loss_budget(DEFAULT, 5.0, WL)
    parts = budget.absorption_db_per_cm + budget.scattering_db_per_cm + budget.metal_db_per_cm
    assert budget.total_db_per_cm == pytest.approx(parts, rel=1e-12)
    assert budget.vpi_loss_v_db == pytest.approx(budget.vpi_l_v_cm * parts, rel=1e-12)
    assert budget.loss_db(5000.0) == pytest.approx(parts / 2, rel=1e-12)
    assert budget.vpi_l_v_cm == pytest.approx(float(mod.mzm_vpi_l_v_cm(WL, 5.0, width=DEFAULT.width)), rel=1e-9)
    one_arm = loss_budget.pockels_loss_budget(DEFAULT, 5.0, WL, push_pull=False)
    assert one_arm.vpi_l_v_cm == pytest.approx(2 * budget.vpi_l_v_cm, rel=1e-9)  # one arm: twice the push-pull
    assert one_arm.metal_db_per_cm == budget.metal_db_per_cm


def test_gold_falls_between_two_gaps_at_twice_the_ribs_lateral_decay_constant():
    """Widening the gap by 0.5 µm moves each electrode 0.25 µm away: the gold's loss falls by exp(−2γ·0.25), γ =
    k0 √(n_eff² − n_slab²) of the straight rib in the slab beside it (the law the full-vector solves follow)."""
    near, far = (loss_budget.pockels_loss_budget(DEFAULT, g, WL).metal_db_per_cm for g in (4.5, 5.0))
    gamma = float(lateral_decay_per_um(WL, DEFAULT, "z"))
    assert far / near == pytest.approx(math.exp(-2 * gamma * 0.25), rel=0.05)


def test_a_narrower_gap_trades_voltage_for_gold():
    """Vπ·L grows about in proportion to the gap (the field factor falls slowly) while the gold falls
    exponentially: at 4.5 µm the gold dominates the section's loss, at 5.5 µm the sidewalls do."""
    narrow, wide = (loss_budget.pockels_loss_budget(DEFAULT, g, WL) for g in (4.5, 5.5))
    assert narrow.metal_db_per_cm > narrow.scattering_db_per_cm and wide.metal_db_per_cm < wide.scattering_db_per_cm
    assert wide.vpi_l_v_cm / narrow.vpi_l_v_cm == pytest.approx(5.5 / 4.5, rel=0.1)
    assert narrow.vpi_loss_v_db > wide.vpi_loss_v_db


def test_wang2018_mzm_on_chip_loss_below_half_a_db():
    """Wang et al., Nature 562, 101 (2018), abstract (read): "an on-chip optical loss of less than 0.5 decibels".
    Geometry as ``test_published_devices.test_wang2018_mzm_vpil`` (600 nm film, 300 nm etch, 1.4 µm ridge, 5 µm
    gap, electrodes on the slab, SiO2 †) and a 20 mm device † (both recalled). The section's propagation loss
    from physics at the default roughness, 60–90° walls, stays under the bound over 20 mm (the splitters and bends
    take the rest); at the roughest published roughness it would not: the bound places that process on the
    smoother side of the spread."""
    for angle in (60.0, 90.0):
        ridge = RidgeStack(width=1.4, film_thickness=0.6, etch_depth=0.3, sidewall_angle_deg=angle)
        default = loss_budget.pockels_loss_budget(ridge, 5.0, WL)
        roughest = loss_budget.pockels_loss_budget(ridge, 5.0, WL,
                                                   roughness=scattering.roughness_spread()["roughest published"])
        print(f"Wang 2018 MZM at {angle:g}°: {default.total_db_per_cm:.3f} dB/cm (gold {default.metal_db_per_cm:.3f}),"
              f" {default.loss_db(20000):.2f} dB over 20 mm; roughest {roughest.loss_db(20000):.2f} dB")
        assert default.loss_db(20000) < 0.5 < roughest.loss_db(20000)


def test_electrodes_at_the_clearance_rule_and_a_clear_error_below_it():
    with pytest.raises(ValueError, match=r"electrode_gap = 3 µm is outside the valid range \[3\.4, 20\] µm"):
        loss_budget.pockels_loss_budget(DEFAULT, 3.0, WL)
    gold = loss_budget.pockels_loss_budget(DEFAULT, 5.0, WL, relaxation_fs=materials.AU_RELAXATION_FS)
    assert gold.metal_db_per_cm == metal_absorption.electrode_absorption_db_per_cm(WL, DEFAULT, 5.0)


def test_cli_loss_of_an_mzm_prints_its_budget_and_refuses_what_does_not_apply():
    res = runner.invoke(app, ["loss", "--device", "mzm", "--length", "20000"])
    assert res.exit_code == 0, res.output
    budget = loss_budget.pockels_loss_budget(DEFAULT, 5.0, WL)
    assert f"Vπ·L·α {budget.vpi_loss_v_db:.4g} V·dB" in res.output and "dB over 20000 µm" in res.output
    assert "roughest" in res.output and "smoothest" in res.output
    res = runner.invoke(app, ["loss", "--device", "mzm", "--electrode-gap", "4.5", "--electrode-gap", "5.5"])
    narrow, wide = (loss_budget.pockels_loss_budget(DEFAULT, g, WL) for g in (4.5, 5.5))
    assert res.exit_code == 0, res.output
    assert f"{narrow.vpi_loss_v_db:.4g}" in res.output and f"{wide.vpi_loss_v_db:.4g}" in res.output
    assert res.output.count("(least)") == 1 and res.output.index("(least)") > res.output.index(f"{wide.vpi_l_v_cm:.4g}")
    for args, text in ((["--device", "mzm", "--radius", "30"], "--radius does not apply to --device mzm"),
                       (["--electrode-gap", "5"], "--electrode-gap does not apply to --device ring"),
                       (["--device", "mzm", "--electrode-gap", "2"], "--electrode-gap = 2 µm is outside"),
                       (["--device", "modulator"], "--device = 'modulator' is not one of")):
        res = runner.invoke(app, ["loss", *args])
        assert res.exit_code == 2 and text in res.output and "Traceback" not in res.output, res.output
