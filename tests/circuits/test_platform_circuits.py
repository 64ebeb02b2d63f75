"""Circuits on a platform preset: a bank's ring radii are planned on the preset's stack, the prototype's fast model
and its netlist simulation agree there, and ``get_pdk(platform=...)`` is a PDK whose cells, models and layer stack
are the preset's."""

import functools

import numpy as np
import pytest

from prismpic.circuits import bank_model
from prismpic.pdk.platforms import PLATFORMS, accepted_settings, preset_settings

# the 400 nm stack of the preset, typed from its sources (tests/pdk/test_platforms.py cites them)
TFLN400_STACK = dict(film_thickness=0.4, etch_depth=0.2, sidewall_angle_deg=76.5, cladding="sio2")


def test_a_bank_on_the_preset_puts_each_ring_on_its_channel():
    from prismpic.components import rings
    from prismpic.pdk_registry import platform_cells

    bank = platform_cells("tfln400")["prism_bank"](n_channels=1, d=4)
    radii = np.asarray(bank.info["radii"])
    default = np.asarray(bank_model.plan_radii(4))
    assert np.max(np.abs(radii - default)) > 0.02  # µm: another stack, other radii for the same plan
    channels = bank_model.channel_plan_um(4)
    ring = dict(gap=0.2, width=1.4, loss_db_per_cm=0.2, **TFLN400_STACK)
    for wl, r in zip(channels, radii, strict=True):
        # the resonance nearest the channel, solved on its own (rings.resonance_wavelength), lands on it
        assert rings.resonance_wavelength(wl, "add_drop", radius=float(r), **ring) == pytest.approx(wl, abs=1e-7)


def test_prototype_on_the_preset_fast_model_equals_its_netlist_simulation():
    from prismpic.circuits import prototype as proto

    lay = dict(n_rows=2, d=2, **TFLN400_STACK, electrode_height=1.0)  # the rings' plates raised, as the preset
    ch = proto.prototype_channels_um(**lay)
    wl = np.linspace(ch[0] - 0.002, ch[-1] + 0.002, 11)
    volts = np.array([[1.0, -2.0], [0.5, 3.0]])
    fast = proto.prototype_fields(wl, volts, **lay)
    netlist = proto.prototype_netlist_fields(wl, volts, **lay)
    # the netlist's every model takes the layout's stack; a fast path that left it out anywhere (the splitter
    # tree's bends did, before) differs by percents
    for a, b in zip(fast, netlist, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-9)


def test_get_pdk_on_a_preset_holds_its_cells_models_and_layer_stack():
    import gdsfactory as gf

    import prismpic
    from prismpic.pdk_registry import build_pdk, models

    pdk = prismpic.get_pdk("tfln400")
    try:
        assert gf.get_active_pdk().name == pdk.name == "prismpic_tfln@tfln400"
        levels = pdk.layer_stack.layers
        assert levels["ridge"].thickness == pytest.approx(0.4) and levels["slab"].thickness == pytest.approx(0.2)
        bank = pdk.cells["prism_bank"]
        assert isinstance(bank, functools.partial) and bank.keywords == {**TFLN400_STACK, "electrode_height": 1.0}
        assert pdk.cells["ring_add_drop"].keywords == {"electrode_height": 1.0}  # the plates: a drawn choice
        mzm = pdk.models["mzm"]
        assert mzm.keywords == {**TFLN400_STACK, "loss_db_per_cm": None, "electrode_height": 1.0}
        assert pdk.cells["straight"] is build_pdk().cells["straight"]  # no stack parameter: unchanged
        assert set(pdk.models) == set(models())
        # a cell built while the preset's PDK is active keeps it active (it is a prismpic PDK)
        pdk.cells["straight"](length=10.0)
        assert gf.get_active_pdk().name == pdk.name
    finally:
        prismpic.get_pdk()
    assert gf.get_active_pdk().name == "prismpic_tfln"
    assert build_pdk("prismpic") is build_pdk() is build_pdk(PLATFORMS["prismpic"])


def test_splitter_tree_fast_model_follows_the_stack_as_its_netlist_does():
    import sax

    from prismpic.circuits.netlists import flat_netlist
    from prismpic.circuits.splitter_tree import splitter_tree, splitter_tree_fast
    from prismpic.pdk_registry import platform_models

    wl = np.linspace(1.54, 1.56, 5)
    models = platform_models("tfln400")
    net, _ = flat_netlist(splitter_tree(n_outputs=4), models)
    circuit, _ = sax.circuit(net, models)
    s = circuit(wl=wl)
    fast = splitter_tree_fast(wl, 4, **preset_settings("tfln400", splitter_tree_fast))
    for k in range(4):
        np.testing.assert_allclose(np.asarray(s[("o1", f"o{k + 2}")]), np.asarray(fast[:, k]), rtol=0, atol=1e-10)
    assert accepted_settings(splitter_tree_fast, {"electrode_height": 1.0}) == {}
