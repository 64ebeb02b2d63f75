"""Electrical cells (electrical.py) and routing between pads and modulator electrodes."""

from __future__ import annotations

import math

import gdsfactory as gf
import klayout.db as kdb
import pytest

import prismpic
from prismpic.components import electrical as el
from prismpic.components import modulators as mod
from prismpic.pdk import drc
from prismpic.pdk.layers import LAYER


@pytest.fixture(scope="module", autouse=True)
def _pdk():
    prismpic.get_pdk()


def _metal_net(c: gf.Component, where) -> kdb.Polygon:
    """The merged ELECTRODE polygon at ``where``: a point (µm) or a port (probed 0.5 µm inside its edge)."""
    layout = c.kcl.layout
    if isinstance(where, tuple):
        x, y = where
    else:
        (x, y), a = where.center, math.radians(where.orientation)
        x, y = x - 0.5 * math.cos(a), y - 0.5 * math.sin(a)
    region = kdb.Region(c.kdb_cell.begin_shapes_rec(layout.find_layer(kdb.LayerInfo(*tuple(LAYER.ELECTRODE))))).merged()
    i, j = round(x / layout.dbu), round(y / layout.dbu)
    hits = list(region.interacting(kdb.Region(kdb.Box(i - 1, j - 1, i + 1, j + 1))).each())
    assert len(hits) == 1, f"no single metal polygon at ({x}, {y})"
    return hits[0]


def _optical_ports_to_top(c: gf.Component, ref) -> None:
    # unconnected optical ports of a device under test end at the cell edge (DRC excuses ports)
    c.add_ports(ref.ports.filter(port_type="optical"), prefix=ref.name)


def test_pad_opening_and_ports():
    c = el.pad(size=90.0, opening_margin=7.0)
    assert c.info["opening"] == pytest.approx(76.0)
    assert [p.name for p in c.ports] == ["e1", "e2", "e3", "e4"]
    assert {p.orientation for p in c.ports} == {0, 90, 180, 270}
    assert all(p.port_type == "electrical" for p in c.ports)
    assert drc(c) == []
    with pytest.raises(ValueError, match="size"):
        el.pad(size=55.0, opening_margin=5.0)  # opening 45 µm < 50 µm


def test_pad_array_pitch_and_ports():
    c = el.pad_array(columns=3, rows=2, pitch=120.0, orientation=90)
    xs = sorted({round(p.center[0], 6) for p in c.ports})
    assert [b - a for a, b in zip(xs[:-1], xs[1:], strict=True)] == pytest.approx([120.0, 120.0])
    assert len(c.ports) == 6 and all(p.orientation == 90 for p in c.ports)
    assert drc(c) == []
    with pytest.raises(ValueError, match="pitch"):
        el.pad_array(pitch=81.0, size=80.0)


def test_heater_resistance_and_trace():
    h = el.heater(length=250.0, width=4.0, sheet_resistance_ohm_sq=12.0)
    assert h.info["resistance_ohm"] == pytest.approx(12.0 * 250.0 / 4.0)  # R = R□ L / W
    assert drc(h) == []
    t = el.electrode_trace(length=50.0, width=8.0)
    assert {p.name for p in t.ports} == {"e1", "e2"} and drc(t) == []
    with pytest.raises(ValueError, match="width"):
        el.heater(width=1.0)


def test_route_single_electrical_pads_to_phase_shifter():
    c = gf.Component()
    ps = c << mod.phase_shifter(length=300.0)
    _optical_ports_to_top(c, ps)
    top = c << el.pad_array(columns=2, orientation=270)
    top.dmove((150.0, 250.0))
    bot = c << el.pad_array(columns=2, orientation=90)
    bot.dmove((150.0, -250.0))
    gf.routing.route_single_electrical(c, top.ports["e1"], ps.ports["e1"], cross_section="xs_metal")
    gf.routing.route_single_electrical(c, bot.ports["e2"], ps.ports["e2"], cross_section="xs_metal")
    assert drc(c) == []
    # each pad is on the same metal polygon as its electrode
    assert _metal_net(c, top.ports["e1"]) == _metal_net(c, (150.0, 10.0))
    assert _metal_net(c, bot.ports["e2"]) == _metal_net(c, (150.0, -10.0))
    assert _metal_net(c, (150.0, 10.0)) != _metal_net(c, (150.0, -10.0))


def test_route_bundle_electrical_to_mzm_grounds():
    c = gf.Component()
    m = c << mod.mzm(length=300.0)
    _optical_ports_to_top(c, m)
    pads = c << el.pad_array(columns=2, orientation=270, pitch=200.0)
    pads.dmove((m.dcenter[0] - 100.0, 400.0))
    gf.routing.route_bundle_electrical(
        c, [pads.ports["e1"], pads.ports["e2"]], [m.ports["e3"], m.ports["e4"]], cross_section="xs_metal",
        bend=el.wire_corner, straight=el.wire_straight,
    )
    assert drc(c) == []
    ground = _metal_net(c, m.ports["e3"])
    assert _metal_net(c, pads.ports["e1"]) == ground == _metal_net(c, pads.ports["e2"])
    assert _metal_net(c, m.ports["e2"].center) != ground  # the signal stays its own net
