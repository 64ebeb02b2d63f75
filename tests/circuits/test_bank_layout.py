"""PRISM bank layout: the S-bend device, channel jogs (fast == netlist), bank tile DRC, ports and nets."""

import math

import jax.numpy as jnp
import klayout.db as kdb
import numpy as np
import pytest
import sax
from scipy.integrate import quad

import prismpic
from prismpic.circuits import bank_layout, bank_model
from prismpic.circuits.netlists import flat_netlist
from prismpic.components.sbends import sbend, sbend_model
from prismpic.components.waveguides import straight_model
from prismpic.pdk import dispersion, drc
from prismpic.pdk.layers import LAYER
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES


# ---------------------------------------------------------------------------- S-bend
def _curve(x, length, offset):
    """Raised cosine y = (h/2)(1 − cos πx/L): slope, curvature radius, direction."""
    k = math.pi / length
    dy = 0.5 * offset * k * math.sin(k * x)
    d2y = 0.5 * offset * k**2 * math.cos(k * x)
    radius = (1 + dy**2) ** 1.5 / abs(d2y) if d2y != 0 else math.inf
    return dy, radius, math.atan(dy)


def test_sbend_is_the_path_integral_along_the_drawn_curve():
    # t = exp(i k0 ∫ n(s) ds) 10^(−∫(α + α_bend) ds/20), n = n_z cos²φ + n_y sin²φ at the local radius,
    # integrated here by adaptive quadrature over x with ds = √(1 + y'²) dx
    wl, length, offset, alpha = 1.55, 60.0, 4.0, 2.0
    ridge = RidgeStack(width=1.4, film_thickness=0.6, etch_depth=0.3)

    def n_local(x):
        dy, r, phi = _curve(x, length, offset)
        r = min(r, 1e5)
        nz = float(dispersion.neff(wl, ridge, r, "te", "z"))
        ny = float(dispersion.neff(wl, ridge, r, "te", "y"))
        return (nz * math.cos(phi) ** 2 + ny * math.sin(phi) ** 2) * math.sqrt(1 + dy**2)

    def loss_local(x):
        dy, r, _ = _curve(x, length, offset)
        bend = float(dispersion.bend_loss_db_per_cm(wl, min(r, 1e5), ridge))
        return (alpha + bend) * math.sqrt(1 + dy**2) * 1e-4

    phase = 2 * math.pi / wl * quad(n_local, 0, length, limit=200, epsabs=1e-12)[0]
    loss_db = quad(loss_local, 0, length, limit=200, epsabs=1e-14)[0]
    t = complex(sbend_model(wl=wl, length=length, offset=offset, width=1.4, film_thickness=0.6, etch_depth=0.3,
                            loss_db_per_cm=alpha)[("o1", "o2")])
    assert abs(t) == pytest.approx(10 ** (-loss_db / 20), rel=1e-9)
    assert np.angle(t) == pytest.approx(math.remainder(phase, 2 * math.pi), abs=1e-7)
    # arc length: L + ∫ y'²/2 dx + … = L(1 + (πh/2L)²/4) to second order
    s = quad(lambda x: math.sqrt(1 + _curve(x, length, offset)[0] ** 2), 0, length)[0]
    assert s == pytest.approx(length * (1 + (math.pi * offset / (2 * length)) ** 2 / 4), rel=1e-4)


def test_sbend_cell_geometry_and_rule():
    c = sbend(length=30.0, offset=-3.0)
    assert drc(c) == []
    assert c.ports["o2"].dcenter == pytest.approx((30.0, -3.0), abs=1e-3)
    assert c.info["min_bend_radius"] == pytest.approx(2 * 30.0**2 / (math.pi**2 * 3.0))  # R_min = 2L²/(π²h)
    shortest = math.pi * math.sqrt(RULES.min_bend_radius * 3.0 / 2)
    with pytest.raises(ValueError, match=rf"length = 5 µm is outside the valid range \[{shortest:g}"):
        sbend(length=5.0, offset=3.0)
    with pytest.raises(ValueError, match="length"):
        sbend_model(length=5.0, offset=3.0)


# ---------------------------------------------------------------------------- channel with jogs
@pytest.fixture(scope="module")
def radii4():
    return bank_model.plan_radii(4, spacing_nm=1.6)


def test_channel_with_unequal_radii_fast_equals_netlist(radii4):
    jogs = np.asarray(bank_model.drop_jogs_um(np.asarray(radii4)))
    assert np.all(jogs != 0)  # ring j on channel j: radii differ by tens of nm, so do the drop buses
    c = bank_layout.prism_channel(radii=radii4)
    assert drc(c) == []
    models = prismpic.get_pdk().models
    net, placements = flat_netlist(c, models)
    bends = sorted((n for n, v in placements.items() if v[0] == "sbend"), key=lambda n: placements[n][1])
    np.testing.assert_allclose([net["instances"][n]["settings"]["offset"] for n in bends], jogs, atol=1e-12)
    circuit, _ = sax.circuit(net, models)
    names = sorted((n for n, v in placements.items() if v[0] == "ring_add_drop"), key=lambda n: placements[n][1])
    wl = jnp.linspace(1.545, 1.555, 201)
    volts = [3.0, -7.0, 12.0, 0.5]
    s = circuit(wl=wl, **{n: {"voltage_v": v} for n, v in zip(names, volts, strict=True)})
    d, t = bank_model.bank_fields(wl, jnp.asarray(radii4), jnp.asarray([volts]))  # the jitted channel_fields of N channels
    np.testing.assert_allclose(s[("o1", "o4")], d[0], atol=1e-9, rtol=0)
    np.testing.assert_allclose(s[("o1", "o2")], t[0], atol=1e-9, rtol=0)
    # the jogs matter at this tolerance: each S-bend's transmission differs from the straight's by ≫ 1e-9
    straight_t = complex(straight_model(wl=1.55, length=bank_model.RING_SPACING)[("o1", "o2")])
    for h in jogs:
        bend_t = complex(sbend_model(wl=1.55, length=bank_model.RING_SPACING, offset=float(h))[("o1", "o2")])
        assert abs(bend_t / straight_t - 1) > 1e-4


def test_drop_jogs_are_the_drawn_port_heights(radii4):
    radii = radii4
    c = bank_layout.prism_channel(radii=radii)
    rings_ = sorted((i for i in c.insts if i.cell.function_name == "ring_add_drop"), key=lambda i: i.dcplx_trans.disp.x)
    heights = [r.ports["o4"].dcenter[1] - r.ports["o1"].dcenter[1] for r in rings_]
    np.testing.assert_allclose(np.diff(heights), bank_model.drop_jogs_um(np.asarray(radii)), atol=1e-9)
    assert all(abs(r.ports["o1"].dcenter[1] - rings_[0].ports["o1"].dcenter[1]) < 1e-9 for r in rings_)


# ---------------------------------------------------------------------------- bank tile
@pytest.fixture(scope="module")
def tile():
    return bank_layout.prism_bank(n_channels=4, d=4)


def test_bank_tile_is_drc_clean_with_ports_on_pitch(tile):
    assert drc(tile) == []
    pitch = tile.info["channel_pitch"]
    ys = [tile.ports[f"o{k + 1}"].dcenter[1] for k in range(4)]
    np.testing.assert_allclose(np.diff(ys), pitch, atol=1e-9)
    assert all(tile.ports[f"o{k + 1}"].orientation == 180 for k in range(4))
    assert len([p for p in tile.ports if p.port_type == "electrical"]) == 4 * (4 + 4)


def _metal(c):
    layout = c.kcl.layout
    region = kdb.Region(c.kdb_cell.begin_shapes_rec(layout.find_layer(kdb.LayerInfo(*tuple(LAYER.ELECTRODE)))))
    return region.merged()


def _net_of(metal, x, y):
    box = kdb.Region(kdb.Box(round(x * 1000) - 1, round(y * 1000) - 1, round(x * 1000) + 1, round(y * 1000) + 1))
    hits = metal.interacting(box)
    assert hits.count() == 1, f"({x}, {y}) is on {hits.count()} metal polygons"
    return next(iter(hits.each())).to_s()


def test_bank_tile_metal_nets(tile):
    # per row: d signal nets (plate + lead + pad), one ground net (lower plates, rail, pad), the detector's
    # three nets, and the d floating disks: 2d + 4 separate metal polygons, none shared between rows
    assert _metal(tile).count() == 4 * (2 * 4 + 4)
    row = bank_layout.prism_row(radii=tuple(tile.info["radii"]))
    metal = _metal(row)
    ch = next(i for i in row.insts if i.cell.function_name == "prism_channel")
    gx, gy = row.ports["e5"].dcenter  # ground pad, south edge
    ground = _net_of(metal, gx, gy + 1.0)
    signals = set()
    for j in range(4):
        px, py = row.ports[f"e{j + 1}"].dcenter  # pad j, north edge
        upper_x, upper_y = ch.ports[f"e{2 * j + 2}"].dcenter  # upper plate's trace end (trace below it)
        lower_x, lower_y = ch.ports[f"e{2 * j + 1}"].dcenter  # lower plate's trace end (trace above it)
        net = _net_of(metal, px, py - 1.0)
        assert _net_of(metal, upper_x, upper_y - 1.0) == net  # pad j drives ring j's upper plate
        assert _net_of(metal, lower_x, lower_y + 1.0) == ground  # every lower plate on the ground rail
        signals.add(net)
    assert len(signals) == 4 and ground not in signals


def test_bad_layout_inputs(radii4):
    with pytest.raises(ValueError, match=r"pad_size = 80 µm is outside the valid range \[50, "):
        bank_layout.prism_row(radii=radii4, pad_size=80.0, ring_spacing=10.0)
    with pytest.raises(ValueError, match=r"ring_spacing = 1 µm is outside the valid range"):
        bank_layout.prism_channel(radii=radii4, ring_spacing=1.0)
    with pytest.raises(ValueError, match=r"d = 80 is outside the valid range \[1, 63\]"):
        bank_layout.prism_bank(n_channels=2, d=80)
    with pytest.raises(ValueError, match=r"channel_pitch = 100 µm is outside the valid range"):
        bank_layout.prism_bank(n_channels=2, d=2, channel_pitch=100.0)
    with pytest.raises(ValueError, match=r"n_channels = 0 is outside the valid range \[1, 4096\]"):
        bank_layout.prism_bank(n_channels=0)
