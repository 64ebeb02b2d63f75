"""Waveguide models against analytic phases; a routed circuit through sax.circuit."""

import gdsfactory as gf
import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.components.waveguides import (
    bend_circular_model,
    bend_euler,
    bend_euler_model,
    euler_footprint,
    euler_length,
    straight,
    straight_model,
    taper_model,
)
from prismpic.pdk import dispersion, scattering
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import ETCH_DEPTH

WL = jnp.linspace(1.50, 1.60, 11)
RIDGE = RidgeStack(width=1.4, film_thickness=0.6, etch_depth=ETCH_DEPTH)  # the models' default ridge
TYPED = 0.2  # dB/cm, a typed loss (the override)


def physics_db_per_cm(wl, direction_rad=0.0):
    """The models' default loss by the closed form (absorption + Payne–Lacey along z and y mixed as cos², sin²);
    the models read an interpolant of it."""
    z, y = (scattering.straight_loss_db_per_cm(wl, RIDGE, None, a) for a in "zy")
    c2 = 0.5 if direction_rad == "ring" else np.cos(direction_rad) ** 2  # "ring": a quarter turn's mean
    return z * c2 + y * (1 - c2)


def test_straight_phase_and_loss_are_analytic():
    L = 1234.5
    t = straight_model(wl=WL, length=L, loss_db_per_cm=TYPED)[("o1", "o2")]
    n = dispersion.neff(WL, RIDGE)
    expect = 10 ** (-TYPED * L * 1e-4 / 20) * np.exp(2j * np.pi * n * L / WL)
    np.testing.assert_allclose(t, expect, rtol=1e-12)
    # by default from physics: 0.14 dB/cm on this ridge (0.2 on the foundry rib σ was calibrated on)
    t = straight_model(wl=WL, length=L)[("o1", "o2")]
    expect = 10 ** (-physics_db_per_cm(WL) * L * 1e-4 / 20) * np.exp(2j * np.pi * n * L / WL)
    np.testing.assert_allclose(t, expect, rtol=1e-6)  # the model reads the closed form's interpolant: 2.4e-7
    assert 0.1 < float(physics_db_per_cm(1.55)) < 0.2


def test_circular_bend_phase_is_angle_averaged_index():
    # ∫0^θ cos²φ dφ / θ = 1/2 + sin 2θ / (4θ): the X-cut TE index averaged over the turn
    R, ang = 40.0, 60.0
    th = np.deg2rad(ang)
    c2 = 0.5 + np.sin(2 * th) / (4 * th)
    nz = dispersion.neff(1.55, RIDGE, R, "te", "z")
    ny = dispersion.neff(1.55, RIDGE, R, "te", "y")
    phase = 2 * np.pi / 1.55 * R * th * (nz * c2 + ny * (1 - c2))
    loss_db = (TYPED + dispersion.bend_loss_db_per_cm(1.55, R, RIDGE)) * R * th * 1e-4
    t = complex(bend_circular_model(wl=1.55, radius=R, angle=ang, loss_db_per_cm=TYPED)[("o1", "o2")])
    assert abs(t) == pytest.approx(float(10 ** (-loss_db / 20)), rel=1e-10)
    assert np.angle(t * np.exp(-1j * float(phase))) == pytest.approx(0.0, abs=1e-9)


def test_euler_length_matches_gdsfactory_path():
    for radius, angle, p in [(20.0, 90.0, 0.5), (15.0, 180.0, 0.3), (50.0, 45.0, 1.0)]:
        assert bend_euler(radius=radius, angle=angle, p=p).info["length"] == pytest.approx(
            float(euler_length(radius, angle, p)), rel=2e-3
        )


@pytest.mark.parametrize("radius,angle,p", [(20.0, 90.0, 0.5), (10.0, 90.0, 0.5), (80.0, 90.0, 0.5), (37.913, 90.0, 0.5),
                                            (15.0, 180.0, 0.3), (50.0, 45.0, 1.0), (25.0, 90.0, 0.0)])
def test_euler_footprint_is_the_drawn_port(radius, angle, p):
    """The splitter tree's fast model reads the bend footprint from ``euler_footprint`` (no drawing): the same
    database-grid position as gdsfactory's drawn o2 port."""
    drawn = bend_euler(radius=radius, angle=angle, p=p).ports["o2"].dcenter
    assert euler_footprint(radius, angle, p) == pytest.approx(tuple(drawn), abs=1e-9)


def test_euler_with_p0_is_a_circular_bend():
    a = bend_euler_model(wl=WL, radius=30.0, p=0.0)[("o1", "o2")]
    b = bend_circular_model(wl=WL, radius=30.0)[("o1", "o2")]
    np.testing.assert_allclose(a, b, rtol=1e-9)


def test_uniform_taper_is_a_straight():
    a = taper_model(wl=WL, length=25.0, width1=1.4, width2=1.4)[("o1", "o2")]
    b = straight_model(wl=WL, length=25.0)[("o1", "o2")]
    np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize(
    "model, kwargs, match",
    [
        (straight_model, {"length": -1.0}, r"length = -1 µm"),
        (straight_model, {"width": 0.1}, r"width = 0.1 µm .*\[0.25, 10\]"),
        (straight_model, {"cross_section": "strip"}, r"cross_section = 'strip'"),
        (straight_model, {"etch_depth": 0.7}, r"etch_depth = 0.7 µm"),
        (bend_circular_model, {"radius": 5.0}, r"radius = 5 µm .*\[10, "),
        (bend_euler_model, {"p": 1.5}, r"p = 1.5 .*\[0, 1\]"),
    ],
)
def test_bad_input_names_parameter_and_range(model, kwargs, match):
    with pytest.raises(ValueError, match=match):
        model(**kwargs)


def test_bad_cell_input():
    with pytest.raises(ValueError, match=r"length = 0 µm"):
        straight(length=0.0)


def test_routed_circuit_simulates_with_pdk_models():
    """A gdsfactory route of straights and circular bends: sax.circuit equals the sum of analytic phases."""
    pdk = prismpic.get_pdk()
    c = gf.Component()
    a = c << straight(length=10.0)
    b = c << straight(length=10.0)
    b.dmove((200.0, 150.0))
    gf.routing.route_single(c, a.ports["o2"], b.ports["o1"], cross_section="xs_ridge", bend="bend_circular")
    c.add_port("o1", port=a.ports["o1"])
    c.add_port("o2", port=b.ports["o2"])
    netlist = c.get_netlist()
    for inst in netlist["instances"].values():
        assert inst["component"] in pdk.models, f"no model for {inst['component']}"
    circuit, _ = sax.circuit(netlist, pdk.models)
    wl = jnp.linspace(1.54, 1.56, 5)
    t = circuit(wl=wl)[("o1", "o2")]
    # independent: each straight 2π n L/λ, each 90° circular bend 2π/λ R (π/2) (n_z + n_y)/2
    n_str = dispersion.neff(wl, RIDGE)
    phase, loss_db = 0.0, 0.0
    for inst in netlist["instances"].values():
        s = inst.get("settings", {})
        if inst["component"] == "straight":
            phase = phase + 2 * np.pi * n_str * s["length"] / wl
            loss_db += physics_db_per_cm(wl) * s["length"] * 1e-4
        else:
            R = s.get("radius") or 20.0
            nz = dispersion.neff(wl, RIDGE, R, "te", "z")
            ny = dispersion.neff(wl, RIDGE, R, "te", "y")
            phase = phase + 2 * np.pi / wl * R * np.pi / 2 * (nz + ny) / 2
            loss_db = (
                loss_db
                + (physics_db_per_cm(wl, "ring") + dispersion.bend_loss_db_per_cm(wl, R, RIDGE)) * R * np.pi / 2 * 1e-4
            )
    expect = 10 ** (-loss_db / 20) * np.exp(1j * phase)
    np.testing.assert_allclose(np.asarray(t), np.asarray(expect), rtol=1e-7)  # the loss read from its interpolant
    assert sum(i["component"] == "bend_circular" for i in netlist["instances"].values()) == 2
