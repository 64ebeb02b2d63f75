"""Physics tests of the Y-splitter and the directional coupler (couplers.py)."""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax
from scipy import integrate

import prismpic
from prismpic.components import couplers as cp
from prismpic.components import sbends
from prismpic.components.ring_physics import coupling_per_um_extended, fit_max_gap
from prismpic.components.waveguides import neff_along
from prismpic.pdk import dispersion
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS

WL = jnp.linspace(1.50, 1.60, 5)


@pytest.fixture(scope="module", autouse=True)
def _pdk():
    prismpic.get_pdk()


def _power_db(s):
    return -10 * np.log10(np.abs(np.asarray(s)) ** 2)


# ---------------------------------------------------------------------------- Y-splitter
# Tolerances of 1e-4 dB leave room for the bend radiation loss of the S-bends (R ≥ 100 µm here).
@pytest.mark.parametrize("excess", [0.0, 0.2, 0.7])
def test_y_splitter_stage_loss_is_3db_plus_excess(excess):
    s = cp.y_splitter_model(WL, loss_db_per_cm=0.0, excess_loss_db=excess)
    for port in ("o2", "o3"):
        np.testing.assert_allclose(_power_db(s[("o1", port)]), 10 * math.log10(2) + excess, atol=1e-4)


def test_y_splitter_tree_matches_seed_formula():
    """Two cascaded stages (N = 4): 10·log10 N + 0.2·log2 N dB per output (seed S1-05)."""
    model = partial(cp.y_splitter_model, loss_db_per_cm=0.0, excess_loss_db=0.2)
    netlist = {
        "instances": {"s1": "ys", "s2": "ys", "s3": "ys"},
        "connections": {"s1,o2": "s2,o1", "s1,o3": "s3,o1"},
        "ports": {"in": "s1,o1", "out1": "s2,o2", "out2": "s2,o3", "out3": "s3,o2", "out4": "s3,o3"},
    }
    circuit, _ = sax.circuit(netlist, {"ys": model}, backend="filipsson_gunnar")
    s = circuit(wl=1.55)
    for out in ("out1", "out2", "out3", "out4"):
        np.testing.assert_allclose(_power_db(s["in", out]), 10 * math.log10(4) + 0.2 * 2, atol=1e-4)


def test_y_splitter_imbalance_and_singular_values():
    excess, imb = 0.3, 1.5
    s = cp.y_splitter_model(WL, loss_db_per_cm=0.0, excess_loss_db=excess, imbalance_db=imb)
    p2, p3 = np.abs(s[("o1", "o2")]) ** 2, np.abs(s[("o1", "o3")]) ** 2
    np.testing.assert_allclose(10 * np.log10(p2 / p3), imb, atol=1e-9)
    eta = 10 ** (-excess / 10)
    np.testing.assert_allclose(p2 + p3, eta, rtol=1e-6)
    # S = [[0, a, b], [a, 0, 0], [b, 0, 0]] has singular values √(|a|²+|b|²) twice and 0
    dense, _ = sax.sdense(s)
    sv = np.linalg.svd(np.asarray(dense), compute_uv=False)
    np.testing.assert_allclose(sv[:, :2], np.sqrt(np.stack([p2 + p3] * 2, axis=-1)), rtol=1e-12)
    np.testing.assert_allclose(sv[:, 2], 0.0, atol=1e-12)


_neff_along = jax.jit(lambda wl, radius, angle: neff_along(
    wl, RidgeStack(width=1.4, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH), radius, angle))
_neff_straight = jax.jit(lambda wl, w: dispersion.neff(
    wl, RidgeStack(width=w, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH)))


def test_y_splitter_phase_is_path_integral():
    """Phase = k0 (∫ n_eff dx over the taper + ∫ n_eff(R, φ) ds over the S-bend), by scipy quad."""
    length, sep, taper, tip, w = 30.0, 5.0, 10.0, 0.2, 1.4
    wl = 1.55
    h = (sep - w - tip) / 2
    k = math.pi / length

    def sbend(x):
        dy = 0.5 * h * k * math.sin(k * x)
        d2y = 0.5 * h * k**2 * math.cos(k * x)
        radius = min((1 + dy**2) ** 1.5 / max(abs(d2y), 1e-30), sbends._R_FLAT)
        n = float(_neff_along(wl, radius, math.atan(dy)))
        return n * math.sqrt(1 + dy**2)

    def taper_n(x):
        return float(_neff_straight(wl, min(w + (w + tip) * x / taper, dispersion.domain()["te"]["width"][1])))

    opl = integrate.quad(taper_n, 0, taper, epsabs=1e-12)[0] + integrate.quad(sbend, 0, length, epsabs=1e-12)[0]
    s = cp.y_splitter_model(wl, length=length, output_separation=sep, taper_length=taper, tip_gap=tip)
    expected = np.exp(2j * np.pi * opl / wl)
    np.testing.assert_allclose(np.angle(s[("o1", "o2")] / expected), 0.0, atol=1e-7)


def test_y_splitter_cell_geometry():
    c = cp.y_splitter(length=40.0, output_separation=6.0)
    o1, o2, o3 = (c.ports[p] for p in ("o1", "o2", "o3"))
    # gdsfactory's mmi1x2 order: o1 input, o2 upper output, o3 lower output
    assert o1.center == (0.0, 0.0) and o1.orientation == 180
    assert o2.center[1] == pytest.approx(3.0) and o3.center[1] == pytest.approx(-3.0)
    assert o2.orientation == 0 and o3.orientation == 0
    h = (6.0 - 1.4 - 0.2) / 2
    assert c.info["min_bend_radius"] == pytest.approx(2 * 40.0**2 / (math.pi**2 * h))


def test_y_splitter_rejects_tight_bend():
    h = (5.0 - 1.4 - 0.2) / 2
    shortest = math.pi * math.sqrt(RULES.min_bend_radius * h / 2)  # R_min = 2L²/(π²h) = 10 µm
    with pytest.raises(ValueError, match="length"):
        cp.y_splitter(length=0.99 * shortest)
    with pytest.raises(ValueError, match="length"):
        cp.y_splitter_model(length=0.99 * shortest)
    with pytest.raises(ValueError, match="tip_gap"):
        cp.y_splitter_model(tip_gap=0.1)
    cp.y_splitter_model(length=1.01 * shortest)


# ---------------------------------------------------------------------------- directional coupler
# C(g): the mode-solver fit continued exponentially beyond its largest gap (the S-bend arms reach ~4.5 µm)
_coupling = jax.jit(lambda wl, gap, width=1.4: coupling_per_um_extended(wl, gap, RidgeStack(width=width)))


def _arm_integral_quad(wl, gap, dy, bend_length, width=1.4):
    h = (dy - gap - width) / 2

    def c(x):
        return float(_coupling(wl, gap + h * (1 - math.cos(math.pi * x / bend_length)), width))

    # the fit hands over to its exponential continuation where g(x) = g_max: a kink that quad must be told of
    ratio = (fit_max_gap() - gap) / h
    points = [bend_length * math.acos(1 - ratio) / math.pi] if 0 < ratio < 2 else None
    return integrate.quad(c, 0, bend_length, epsabs=1e-13, epsrel=1e-13, limit=200, points=points)[0]


def test_dc_unitary_when_lossless():
    """S†S = P·I: the coupling conserves power; P < 1 only by the arms' bend radiation."""
    s = cp.directional_coupler_model(WL, loss_db_per_cm=0.0)
    dense, _ = sax.sdense(s)
    dense = np.asarray(dense)
    gram = np.conj(np.swapaxes(dense, -1, -2)) @ dense
    power = np.trace(gram, axis1=-2, axis2=-1).real / 4
    np.testing.assert_allclose(gram, power[:, None, None] * np.eye(4), atol=1e-12)
    np.testing.assert_allclose(power, 1.0, atol=1e-6)


@pytest.mark.parametrize("gap,length", [(0.3, 20.0), (0.25, 80.0), (0.5, 300.0)])
def test_dc_coupling_is_integrated_supermode_coupling(gap, length):
    """|S31|² = sin²(C(gap)·L + 2∫C(g(x))dx), the arm integral by adaptive quadrature."""
    dy, lb = 10.0, 40.0
    phi = float(_coupling(1.55, gap)) * length + 2 * _arm_integral_quad(1.55, gap, dy, lb)
    s = cp.directional_coupler_model(1.55, gap=gap, length=length, dy=dy, bend_length=lb, loss_db_per_cm=0.0)
    cross, bar = abs(s[("o1", "o3")]) ** 2, abs(s[("o1", "o4")]) ** 2
    assert cross / (cross + bar) == pytest.approx(math.sin(phi) ** 2, abs=1e-12)
    # phase convention: cross = −i tan Φ × through
    ratio = complex(s[("o1", "o3")] / s[("o1", "o4")])
    assert ratio.real == pytest.approx(0.0, abs=1e-9) and ratio.imag == pytest.approx(-math.tan(phi), rel=1e-9)


def test_dc_3db_length_formula():
    """3 dB: L = π/(4C) without arms; L = (π/4 − 2∫C dx)/C with them."""
    gap, dy, lb = 0.3, 10.0, 40.0
    c0 = float(_coupling(1.55, gap))
    arms = 2 * _arm_integral_quad(1.55, gap, dy, lb)
    length = cp.length_for_coupling(0.5, gap=gap, dy=dy, bend_length=lb)
    assert length == pytest.approx(math.pi / (4 * c0) - arms / c0, rel=1e-8)
    assert length < math.pi / (4 * c0)  # the arms couple too
    s = cp.directional_coupler_model(1.55, gap=gap, length=length, dy=dy, bend_length=lb, loss_db_per_cm=0.0)
    assert float(abs(s[("o1", "o3")]) ** 2) == pytest.approx(float(abs(s[("o1", "o4")]) ** 2), abs=1e-12)
    with pytest.raises(ValueError, match="power_coupling"):
        cp.length_for_coupling(1e-6, gap=0.15, dy=3.0, bend_length=10.0)


def test_dc_port_order_matches_cell():
    """Bar paths run along one ridge: o1→o4 (bottom), o2→o3 (top); weak coupling keeps light there."""
    kw = dict(gap=2.0, length=10.0, dy=10.0, bend_length=40.0)
    c = cp.directional_coupler(**kw)
    y = {p.name: p.center[1] for p in c.ports}
    x = {p.name: p.center[0] for p in c.ports}
    assert y["o1"] == y["o4"] < y["o2"] == y["o3"]
    assert x["o1"] == x["o2"] < x["o3"] == x["o4"]
    s = cp.directional_coupler_model(1.55, **kw, loss_db_per_cm=0.0)
    assert abs(s[("o1", "o4")]) ** 2 > 0.999 and abs(s[("o2", "o3")]) ** 2 > 0.999


def test_dc_rejects_bad_geometry():
    with pytest.raises(ValueError, match="gap"):
        cp.directional_coupler(gap=0.1)
    with pytest.raises(ValueError, match="gap"):
        cp.directional_coupler_model(gap=0.1)
    with pytest.raises(ValueError, match="bend_length"):
        cp.directional_coupler_model(bend_length=5.0)
    with pytest.raises(ValueError, match="dy"):
        cp.directional_coupler_model(dy=1.0)
