"""Platform presets: their values and sources, the tables' domain, the models under a preset, the CLI options."""

import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.cli import app
from prismpic.pdk import platforms
from prismpic.pdk.platforms import DEVICE_DOMAINS, PLATFORMS, Platform, outside_domains, preset_settings
from prismpic.pdk.scattering import propagation_loss_db_per_cm

runner = CliRunner()
WL = np.linspace(1.545, 1.555, 101)
# the 400 nm stack typed from its public sources (lnoi400/tech.py of github.com/Luxtelligence/lxt_pdk_gf:
# 200 nm ridge on a 200 nm slab, SiO2 cladding; luxtelligence-lnoi400-forge: wall 13.5° from the vertical;
# lnoi400/models.py: straight loss 2e-5 dB/µm, which the loss from physics (None) reproduces on its 1.0 µm rib:
# ``test_tfln400_...``; lnoi400/tech.py's layer stack: metal 1.0 µm above the film)
TFLN400_BY_HAND = dict(film_thickness=0.2 + 0.2, etch_depth=0.2, sidewall_angle_deg=90 - 13.5, cladding="sio2",
                       loss_db_per_cm=None, electrode_height=1.0)
FOUNDRY_LOSS_DB_PER_CM = 2e-5 * 1e4  # lnoi400/models.py, the xs_rwg1000 straight


def registry_models():
    from prismpic.pdk_registry import models

    return models()


def test_tfln400_is_the_public_stack_and_prismpic_is_the_default_stack():
    assert PLATFORMS["tfln400"].settings() == pytest.approx(TFLN400_BY_HAND)
    # the foundry's straight loss is what the physics gives its 1.0 µm rib (σ was calibrated there)
    rib = PLATFORMS["tfln400"].ridge(1.0)
    assert float(propagation_loss_db_per_cm(1.55, rib)) == pytest.approx(FOUNDRY_LOSS_DB_PER_CM, rel=1e-3)
    ring = registry_models()["ring_add_drop"]
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(ring).parameters.items()}
    assert preset_settings("prismpic", ring) == {k: defaults[k] for k in platforms.STACK_KEYS}
    for name in ("mzm", "phase_shifter", "ring_all_pass", "wdm_demux"):  # every device with Pockels electrodes
        model = registry_models()[name]
        defaults = {k: p.default for k, p in inspect.signature(model).parameters.items()}
        assert preset_settings("prismpic", model) == {k: defaults[k] for k in platforms.STACK_KEYS}, name
        assert preset_settings("tfln400", model)["electrode_height"] == 1.0


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_every_preset_lies_inside_the_device_tables(name):
    from prismpic.pdk import dispersion

    assert not set(outside_domains(name)) & set(DEVICE_DOMAINS), outside_domains(name)
    d = dispersion.domain()["te"]  # read independently of outside_domains
    p = PLATFORMS[name]
    assert d["film"][0] <= p.film_thickness <= d["film"][1]
    assert d["etch_fraction"][0] <= p.etch_depth / p.film_thickness <= d["etch_fraction"][1]
    assert d["angle"][0] <= p.sidewall_angle_deg <= d["angle"][1]


def test_outside_domains_names_what_the_tables_do_not_cover():
    # TM is tabulated for 0.5–0.7 µm films only: the 400 nm film is outside it, and a 0.9 µm film outside all
    assert set(outside_domains("tfln400")) == {"tm"} and "film_thickness = 0.4" in outside_domains("tfln400")["tm"]
    thick = Platform("thick", "test", 0.9, 0.45, 76.5, "sio2", 0.2, None)
    assert set(outside_domains(thick)) == {"te", "tm", "bend", "coupler"}


def test_tfln400_straight_agrees_with_the_foundry_pdk_model():
    """The foundry's own gdsfactory PDK models its 1.0 µm routing ridge (xs_rwg1000) with n_eff = 1.8 and
    n_g = 2.22 at 1.55 µm (lnoi400/models.py); prismpic's tables on the preset give the same to ~1 %."""
    from prismpic.pdk import dispersion
    from prismpic.pdk.ridge_stack import RidgeStack

    stack = preset_settings("tfln400", RidgeStack)
    assert stack == {k: TFLN400_BY_HAND[k] for k in ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding")}
    args = dict(ridge=RidgeStack(width=1.0, **stack), polarization="te", crystal_axis="z")
    assert float(dispersion.neff(1.55, **args)) == pytest.approx(1.8, abs=0.02)
    assert float(dispersion.ng(1.55, **args)) == pytest.approx(2.22, abs=0.03)


def test_ring_under_the_preset_differs_from_default_and_equals_the_values_typed_by_hand():
    from prismpic.pdk_registry import platform_models

    ring = registry_models()["ring_add_drop"]
    preset = platform_models("tfln400")["ring_add_drop"]
    on_preset = preset(WL)
    by_hand = ring(WL, **TFLN400_BY_HAND)
    default = ring(WL)
    for key in (("o1", "o2"), ("o1", "o4")):
        np.testing.assert_allclose(np.asarray(on_preset[key]), np.asarray(by_hand[key]), rtol=0, atol=1e-12)
        assert np.max(np.abs(np.asarray(on_preset[key]) - np.asarray(default[key]))) > 0.1
    # a setting given explicitly still wins over the preset
    back = preset(WL, **preset_settings("prismpic", ring))
    np.testing.assert_allclose(np.asarray(back["o1", "o2"]), np.asarray(default["o1", "o2"]), rtol=0, atol=1e-12)


def test_platform_models_simulate_a_netlist_on_the_preset():
    import sax

    from prismpic.pdk_registry import build_pdk, platform_models

    found = platform_models("tfln400")
    assert set(found) == set(build_pdk().models)
    netlist = {"instances": {"r": {"component": "ring_all_pass", "settings": {"radius": 30.0}}},
               "ports": {"o1": "r,o1", "o2": "r,o2"}}
    circuit, _ = sax.circuit(netlist, found)
    direct = registry_models()["ring_all_pass"](WL, radius=30.0, **TFLN400_BY_HAND)
    np.testing.assert_allclose(np.asarray(circuit(wl=WL)["o1", "o2"]), np.asarray(direct["o1", "o2"]), atol=1e-12)


def test_unknown_preset_is_refused_by_the_library():
    from prismpic.pdk_registry import platform_models

    for call in (lambda: platforms.get_platform("lnoi999"), lambda: preset_settings("lnoi999", len),
                 lambda: platform_models("lnoi999")):
        with pytest.raises(ValueError, match=r"platform = 'lnoi999' is not a platform preset; valid: \['prismpic'"):
            call()


def test_parse_settings_puts_the_users_values_over_the_preset():
    from prismpic.cli.common import parse_settings

    ring = registry_models()["ring_add_drop"]
    got = parse_settings(["film_thickness=0.5", "platform=tfln400"], fn=ring)
    assert got == {**TFLN400_BY_HAND, "film_thickness": 0.5}
    assert parse_settings(["gap=0.3"], fn=ring, platform="tfln400", exclude=("etch_depth",)) == {
        **{k: v for k, v in TFLN400_BY_HAND.items() if k != "etch_depth"}, "gap": 0.3}
    with pytest.raises(ValueError, match="takes no platform preset"):
        parse_settings(["platform=tfln400"])  # a command that does not pass its function


def _sweep(tmp_path, name, *extra):
    out = tmp_path / f"{name}.csv"
    res = runner.invoke(app, ["sweep", "straight", "--out", str(out), "--param", "length=100,200", "--wl",
                              "1.55,1.56", "--quantity", "phase", *extra])
    assert res.exit_code == 0, res.output
    return out.read_text()


def test_cli_platform_option_and_set_agree_and_set_wins(tmp_path):
    default = _sweep(tmp_path, "default")
    option = _sweep(tmp_path, "option", "--platform", "tfln400")
    via_set = _sweep(tmp_path, "set", "--set", "platform=tfln400")
    assert option == via_set != default
    # the preset's values overridden one by one by --set give back the default stack
    restored = _sweep(tmp_path, "restored", "--platform", "tfln400", "--set", "film_thickness=0.6",
                      "--set", "etch_depth=0.35")
    assert restored == default
    # a swept parameter is not also taken from the preset
    _sweep(tmp_path, "swept", "--platform", "tfln400", "--param", "etch_depth=0.2,0.25")


@pytest.mark.parametrize("args", [["sweep", "straight", "--param", "length=10,20", "--platform", "lnoi999"],
                                  ["sweep", "straight", "--param", "length=10,20", "--set", "platform=lnoi999"],
                                  ["mode", "--platform", "lnoi999"]])
def test_cli_unknown_preset_is_one_line_and_exit_2(tmp_path, args):
    out = tmp_path / "s.csv"
    res = runner.invoke(app, args + (["--out", str(out)] if args[0] == "sweep" else []))
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "'lnoi999' is not a platform preset; valid: ['prismpic', 'tfln400']" in lines[0]
    assert ("--platform" in lines[0]) or ("--set platform" in lines[0])
    assert not out.exists() and not out.with_suffix(".png").exists()


def test_cli_mode_follows_the_preset_and_its_options_win():
    res = runner.invoke(app, ["mode", "--platform", "tfln400", "--width", "1.0"])
    assert res.exit_code == 0, res.output
    assert "film 0.4 µm, etch 0.2 µm" in " ".join(res.output.split())
    res = runner.invoke(app, ["mode", "--platform", "tfln400", "--film-thickness", "0.5", "--etch-depth", "0.3"])
    assert res.exit_code == 0, res.output
    assert "film 0.5 µm, etch 0.3 µm" in " ".join(res.output.split())
