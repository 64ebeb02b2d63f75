"""The KLayout files shipped in prismpic/pdk/data: prismpic.lyp, prismpic.lyt and layers.yaml."""

import os
import stat

import gdsfactory as gf
import klayout.db as kdb
import klayout.lay as lay
import pytest
from gdsfactory.technology import LayerViews
from typer.testing import CliRunner

from prismpic.cli import app
from prismpic.fileio import write_gds_atomic
from prismpic.pdk import layers
from prismpic.pdk.layers import COLORS, LAYER, PDK_FILES, get_layer_views

runner = CliRunner()
SHIPPED = layers.DATA_DIR


def lyp_nodes(path, layout: str | None = None) -> dict[tuple[int, int], lay.LayerPropertiesNode]:
    """The layer-property nodes KLayout reads from ``path`` (with ``layout`` loaded), by (layer, datatype)."""
    view = lay.LayoutView()
    if layout is not None:
        view.load_layout(str(layout), False)
    view.load_layer_props(str(path))
    nodes = {}
    it = view.begin_layers()
    while not it.at_end():
        n = it.current()
        nodes[(n.source_layer, n.source_datatype)] = n
        it.next()
    return nodes


def argb(hex_rgb: str) -> int:
    """KLayout's colour word: opaque alpha (0xff) over the 24-bit RGB of ``#rrggbb``."""
    return 0xFF000000 | int(hex_rgb.lstrip("#"), 16)


def test_every_pdk_layer_has_a_view_in_the_shipped_lyp(pdk):
    nodes = lyp_nodes(SHIPPED / "prismpic.lyp")
    assert set(pdk.layers) == set(LAYER)
    for layer in LAYER:
        node = nodes[(layer.layer, layer.datatype)]
        assert node.valid and node.name == f"{layer.name} {layer.layer}/{layer.datatype}"
        assert node.fill_color == argb(COLORS[layer.name]) == node.frame_color
    assert len(nodes) == len(LAYER)  # no views of layers the PDK does not have


def test_a_written_gds_opens_with_the_pdk_colours(tmp_path, pdk):
    """Every layer that the device cells draw on gets the PDK's colour when the GDS and the .lyp are opened."""
    top = gf.Component()
    for i, name in enumerate(("ring_add_drop", "pcm_cell", "balanced_photodetector", "soa", "heater", "pad")):
        (top << pdk.cells[name]()).dmove((0, 400 * i))
    gds = write_gds_atomic(top, tmp_path / "cells.gds")
    drawn = {(info.layer, info.datatype) for info in (top.kcl.layout.get_info(i) for i in top.kcl.layout.layer_indexes())
             if not top.kdb_cell.bbox_per_layer(top.kcl.layout.find_layer(info)).empty()}
    names = {(layer.layer, layer.datatype): layer.name for layer in LAYER}
    assert {"LN_RIDGE", "LN_SLAB", "ELECTRODE", "HEATER", "PCM", "GE", "SOA", "PAD", "VIA"} <= {names[d] for d in drawn}
    nodes = lyp_nodes(SHIPPED / "prismpic.lyp", gds)
    for key in drawn:
        assert nodes[key].fill_color == argb(COLORS[names[key]]), names[key]


def test_shipped_files_equal_a_fresh_regeneration(tmp_path):
    written = layers.write_pdk_files(tmp_path)
    assert [p.name for p in written] == list(PDK_FILES)
    for name in PDK_FILES:
        assert (SHIPPED / name).read_bytes() == (tmp_path / name).read_bytes(), (
            f"{name} is stale: run `prismpic pdk-files --install`")


def test_lyt_is_a_klayout_technology_that_loads_the_lyp():
    tech = kdb.Technology.technology_from_xml((SHIPPED / "prismpic.lyt").read_text())
    assert tech.name == "prismpic" and tech.layer_properties_file == "prismpic.lyp"
    assert tech.dbu == pytest.approx(gf.kcl.layout.dbu)  # the database unit the cells are drawn in


def test_layers_yaml_loads_as_gdsfactory_layer_views():
    shipped = LayerViews(filepath=SHIPPED / "layers.yaml").layer_views
    views = get_layer_views().layer_views
    assert set(shipped) == set(views) == {layer.name for layer in LAYER}
    for name, view in views.items():
        assert tuple(shipped[name].layer) == tuple(view.layer)
        assert shipped[name].fill_color.as_hex(format="long") == COLORS[name]


def test_pdk_files_command(tmp_path):
    previous = os.umask(0o022)
    try:
        out = tmp_path / "tech"
        res = runner.invoke(app, ["pdk-files", "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert stat.S_IMODE(out.stat().st_mode) == 0o755
        for name in PDK_FILES:
            assert (out / name).read_bytes() == (SHIPPED / name).read_bytes()
            assert stat.S_IMODE((out / name).stat().st_mode) == 0o644
    finally:
        os.umask(previous)
    res = runner.invoke(app, ["pdk-files", "--out", str(out), "--install"])
    assert res.exit_code == 2 and "exclude each other" in res.output
    (tmp_path / "afile").write_text("x")
    res = runner.invoke(app, ["pdk-files", "--out", str(tmp_path / "afile")])
    assert res.exit_code == 2 and "not a directory" in res.output
