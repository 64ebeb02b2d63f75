"""Layers, layer views, stack, cross-sections, rules and DRC."""

import gdsfactory as gf
import pytest

from prismpic.pdk import drc
from prismpic.pdk.cross_sections import get_cross_section, xs_ridge
from prismpic.pdk.layers import LAYER, write_lyp
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import get_layer_stack


def test_lyp_written(tmp_path):
    path = write_lyp(tmp_path / "prismpic.lyp")
    text = path.read_text()
    assert "<layer-properties>" in text and "1/0" in text


def test_stack_thicknesses():
    stack = get_layer_stack(film_thickness=0.6, etch_depth=0.3)
    assert stack.layers["ridge"].thickness == pytest.approx(0.6)
    assert stack.layers["slab"].thickness == pytest.approx(0.3)


@pytest.mark.parametrize(
    "film, etch, name", [(0.6, 0.7, "etch_depth"), (0.6, 0.0, "etch_depth"), (-0.1, 0.05, "film_thickness")]
)
def test_stack_rejects_bad_etch(film, etch, name):
    with pytest.raises(ValueError, match=name):
        get_layer_stack(film_thickness=film, etch_depth=etch)


def test_cross_sections():
    xs = xs_ridge()
    assert xs.width == pytest.approx(1.4)
    assert xs.layer == LAYER.LN_RIDGE
    with pytest.raises(ValueError, match="cross_section = 'strip'"):
        get_cross_section("strip")
    with pytest.raises(ValueError, match=r"width = 0.1 µm .*\[0.25, 10\]"):
        xs_ridge(width=0.1)


def _two_ridges(gap):
    c = gf.Component()
    for y in (0.0, 1.4 + gap):
        c.add_polygon([(0, y - 0.7), (20, y - 0.7), (20, y + 0.7), (0, y + 0.7)], layer=LAYER.LN_RIDGE)
    c.add_polygon([(-5, -5), (25, -5), (25, 8), (-5, 8)], layer=LAYER.LN_SLAB)
    return c


def test_drc_ridge_gap_rule_is_sharp():
    # clean just above the minimum gap, flagged just below
    assert drc(_two_ridges(RULES.min_ridge_gap + 0.01)) == []
    rules = [v.rule for v in drc(_two_ridges(RULES.min_ridge_gap - 0.02))]
    assert any("LN_RIDGE space" in r for r in rules)


def test_drc_flags_electrode_over_ridge_and_missing_slab():
    c = gf.Component()
    c.add_polygon([(0, -0.7), (20, -0.7), (20, 0.7), (0, 0.7)], layer=LAYER.LN_RIDGE)
    c.add_polygon([(5, -3), (10, -3), (10, 3), (5, 3)], layer=LAYER.ELECTRODE)
    rules = " ".join(v.rule for v in drc(c))
    assert "ELECTRODE over LN_RIDGE" in rules and "LN_RIDGE outside LN_SLAB" in rules


def test_drc_flags_small_pad_and_narrow_metal():
    c = gf.Component()
    c.add_polygon([(0, 0), (30, 0), (30, 30), (0, 30)], layer=LAYER.PAD)
    c.add_polygon([(100, 0), (101, 0), (101, 50), (100, 50)], layer=LAYER.ELECTRODE)
    rules = " ".join(v.rule for v in drc(c))
    assert "PAD width" in rules and "ELECTRODE width" in rules


def test_dispersion_defaults_are_the_stack():
    import inspect

    from prismpic.pdk import dispersion, stack

    for fn in (dispersion.neff, dispersion.ng, dispersion.eo_overlap, dispersion.coupling_per_um):
        p = inspect.signature(fn).parameters["ridge"].default  # a RidgeStack
        assert p.etch_depth == stack.ETCH_DEPTH and p.film_thickness == stack.FILM_THICKNESS


def test_deep_drc_equals_flat_drc_on_a_hierarchy():
    """The hierarchical engine (``deep=True``) reports the same rules and marker counts as the flat one."""
    sub = gf.Component()
    sub.add_polygon([(0, 0), (10, 0), (10, 0.1), (0, 0.1)], layer=LAYER.LN_RIDGE)  # thin ridge, no slab
    sub.add_polygon([(0, 2), (10, 2), (10, 3), (0, 3)], layer=LAYER.ELECTRODE)  # 1 µm metal
    top = gf.Component()
    for i in range(3):
        (top << sub).dmove((0, 20 * i))
    flat = [str(v) for v in drc(top)]
    assert len(flat) == 4 and all("3 marker(s)" in v for v in flat)
    assert [str(v) for v in drc(top, deep=True)] == flat
    assert drc(gf.components.straight(length=5, cross_section=xs_ridge()), deep=True) == []


# ---------------------------------------------------------------------------- activation (prismpic.pdk.activation)
@pytest.fixture
def generic_pdk():
    """gdsfactory's generic PDK active for the test; the full prismpic PDK active again afterwards."""
    from gdsfactory.gpdk import get_generic_pdk

    import prismpic

    generic = get_generic_pdk()
    generic.activate(force=True)
    try:
        yield generic
    finally:
        prismpic.get_pdk().activate(force=True)


def _area_um2(component, layer) -> float:
    import klayout.db as kdb

    index = component.kcl.layout.find_layer(kdb.LayerInfo(layer.layer, layer.datatype))
    region = kdb.Region(component.kdb_cell.begin_shapes_rec(index)).merged()
    return region.area() * component.kcl.layout.dbu**2


def test_building_a_cell_restores_the_users_pdk(generic_pdk):
    """Under gdsfactory's generic PDK, a prismpic cell from ``prismpic.PDK.cells`` builds under the platform PDK and
    leaves generic active; the drawn patch is length × pcm_width and the ridge (length + 2 margin) × 1.4 µm (the
    cell's own geometry), also for a second cell built after generic came back (its re-activation drops empty
    prismpic layers; the next build registers them again)."""
    import prismpic

    assert gf.get_active_pdk() is generic_pdk
    pdk = prismpic.PDK  # built, not activated
    assert pdk.name == "prismpic_tfln" and gf.get_active_pdk() is generic_pdk
    first = pdk.cells["pcm_cell"](length=23.0)
    assert gf.get_active_pdk() is generic_pdk
    second = pdk.cells["pcm_cell"](length=31.0, pcm_width=0.8, margin=4.0)
    assert gf.get_active_pdk() is generic_pdk
    for c, length, pcm_width, margin in ((first, 23.0, 1.0, 5.0), (second, 31.0, 0.8, 4.0)):
        assert _area_um2(c, LAYER.PCM) == pytest.approx(length * pcm_width, abs=1e-6)
        assert _area_um2(c, LAYER.LN_RIDGE) == pytest.approx((length + 2 * margin) * 1.4, abs=1e-6)
        assert drc(c) == []


def test_a_direct_cell_call_restores_the_users_pdk(generic_pdk):
    """Every registered cell is a ``platform_cell``: called directly (not through ``PDK.cells``) under generic, it
    builds the prismpic geometry (the ring's bus at y = −(R + w + gap), the ring's own formula) and generic is
    active again afterwards."""
    from prismpic.components.rings import ring_all_pass
    from prismpic.pdk_registry import cells

    c = ring_all_pass(radius=20.0, gap=0.25)
    assert gf.get_active_pdk() is generic_pdk
    assert c.ports["o1"].center[1] == pytest.approx(-(20.0 + 1.4 + 0.25), abs=1e-3)
    assert drc(c) == []
    unwrapped = [name for name, cell in cells().items() if not getattr(cell, "platform_cell", False)]
    assert not unwrapped, f"cells not defined under platform_cell: {unwrapped}"


def test_activated_restores_the_users_pdk_after_an_error(generic_pdk):
    from prismpic.pdk.activation import PLATFORM_PDK_NAME, activated

    with pytest.raises(ValueError, match="pcm_width"), activated() as inside:
        assert inside.name == PLATFORM_PDK_NAME and gf.get_active_pdk() is inside
        from prismpic.components.pcm import pcm_cell

        pcm_cell(pcm_width=5.0)
    assert gf.get_active_pdk() is generic_pdk


def test_activated_is_a_no_op_under_a_prismpic_pdk(pdk):
    from prismpic.pdk.activation import activated

    assert gf.get_active_pdk() is pdk
    with activated() as inside:
        assert inside is pdk
    assert gf.get_active_pdk() is pdk


def test_import_prismpic_stays_light_and_gdsfactory_finds_its_pdk():
    import subprocess
    import sys

    # with no PDK active, gdsfactory imports the named module and activates its module-level PDK
    code = ("import sys, prismpic; light = 'gdsfactory' not in sys.modules; import gdsfactory as gf; "
            "pdk = gf.get_active_pdk(name='prismpic'); print(light, pdk.name, pdk is prismpic.PDK)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    assert out.stdout.split() == ["True", "prismpic_tfln", "True"]
