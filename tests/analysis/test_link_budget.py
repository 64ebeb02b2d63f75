"""Link budget: seed arithmetic, modeled stages from the device models, SNR, waterfall."""

import math

import pytest

from prismpic.analysis.system.link_budget import (
    SEED_RECEIVED_DBM,
    modeled_link_budget,
    plot_waterfall,
    seed_link_budget,
)
from prismpic.circuits.splitter_tree import splitter_tree_loss_db


@pytest.fixture(scope="module")
def modeled():
    return modeled_link_budget(d=8, n_channels=16)


def test_seed_stages_add_up_to_its_received_power():
    seed = seed_link_budget()
    assert seed.received_dbm == pytest.approx(SEED_RECEIVED_DBM, abs=1e-9)
    # 25.7 µW, as S1-12 says
    assert seed.to_dict()["received_uw"] == pytest.approx(25.7, rel=2e-3)


def test_seed_snr_is_shot_plus_thermal_plus_dark():
    # independent: 0.95 A/W × 25.7 µW, 1 GHz, 50 Ω at 300 K, 1.3 nA dark on two diodes
    q, k = 1.602176634e-19, 1.380649e-23
    i = 0.95 * 10 ** (-15.9 / 10) * 1e-3
    var = 2 * q * i * 1e9 + 4 * k * 300 * 1e9 / 50 + 2 * q * 2 * 1.3e-9 * 1e9
    assert seed_link_budget().snr_db == pytest.approx(10 * math.log10(i**2 / var), abs=1e-6)


def test_modeled_stages_come_from_the_models(modeled):
    names = [n for n, _ in modeled.stages]
    assert any("splitter tree" in n for n in names)
    tree = dict(modeled.stages)["1×16 splitter tree"]
    assert tree == pytest.approx(splitter_tree_loss_db(16), abs=1e-9)
    assert modeled.received_dbm == pytest.approx(modeled.laser_dbm - sum(v for _, v in modeled.stages))
    assert all(v > 0 for _, v in modeled.stages)


def test_more_laser_power_raises_snr(modeled):
    hi = modeled_link_budget(laser_dbm=30.0, d=8, n_channels=16)
    assert hi.received_dbm == pytest.approx(modeled.received_dbm + 10.0)
    assert hi.snr_db > modeled.snr_db + 10.0  # thermal-limited: SNR ∝ P², +20 dB per +10 dB at the limit


def test_waterfall_png(modeled, tmp_path):
    path = tmp_path / "w.png"
    plot_waterfall(modeled, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_n_channels():
    with pytest.raises(ValueError, match="n_channels = 100"):
        modeled_link_budget(n_channels=100)


def test_every_stage_follows_a_platform_preset(modeled):
    """On the 400 nm preset each stage is its model's on that stack: the routing loss is the default ridge's loss
    from physics on that stack over 0.5 cm (the closed form here; the foundry's 0.2 dB/cm holds on its 1.0 µm rib,
    tests/pdk/test_platforms.py), the tree and MZM their models' there."""
    import numpy as np

    from prismpic.components.modulators import mzm_model
    from prismpic.pdk.platforms import PLATFORMS
    from prismpic.pdk.scattering import straight_loss_db_per_cm

    stack = PLATFORMS["tfln400"].settings()
    on = modeled_link_budget(d=8, n_channels=16, stack=stack)
    st, default = dict(on.stages), dict(modeled.stages)
    routing = float(straight_loss_db_per_cm(1.55, PLATFORMS["tfln400"].ridge()))
    assert st["routing waveguide (0.5 cm)"] == pytest.approx(routing * 0.5, rel=2e-3)  # the models' interpolant
    assert routing < 0.2  # the 1.4 µm ridge scatters less than the foundry's 1.0 µm rib
    wafer = {k: stack[k] for k in ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding")}
    assert st["1×16 splitter tree"] == pytest.approx(splitter_tree_loss_db(16, **wafer), abs=1e-9)
    t = mzm_model(wl=1.55, bias_phase_rad=math.pi / 2, electrode_height=1.0, **wafer)["o1", "o2"]
    assert st["MZM at quadrature"] == pytest.approx(-10 * math.log10(float(np.abs(t) ** 2)), abs=1e-9)
    assert st["1×16 splitter tree"] != pytest.approx(default["1×16 splitter tree"], abs=1e-3)
