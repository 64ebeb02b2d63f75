"""PRISM bank: fast model vs sax.circuit, Lorentzian limit, weight programming, readout."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.circuits.bank_layout import prism_channel
from prismpic.circuits.bank_model import (
    balanced_currents_a,
    balanced_weights,
    bank_fields,
    bank_radii,
    channel_fields,
    channel_plan_um,
    exact_scores,
)
from prismpic.circuits.netlists import optical_netlist
from prismpic.circuits.weight_programming import program_weights, weight_gain
from prismpic.components import ring_physics, rings
from prismpic.pdk import drc


def _rings_by_position(net):
    pl = net["placements"]
    names = [k for k, v in net["instances"].items() if v["component"] == "ring_add_drop"]
    return sorted(names, key=lambda k: pl[k]["x"])


def test_fast_model_equals_netlist_simulation():
    c = prism_channel(radii=(20.0, 20.0, 20.0))
    assert drc(c) == []
    net = optical_netlist(c)
    circuit, _ = sax.circuit(net, prismpic.get_pdk().models)
    wl = jnp.linspace(1.53, 1.57, 401)
    volts = [3.0, 10.0, -5.0]
    names = _rings_by_position(net)
    s = circuit(wl=wl, **{n: {"voltage_v": v} for n, v in zip(names, volts, strict=True)})
    d, t = channel_fields(wl, jnp.full(3, 20.0), jnp.array(volts))
    np.testing.assert_allclose(s[("o1", "o4")], d, atol=1e-9, rtol=0)
    np.testing.assert_allclose(s[("o1", "o2")], t, atol=1e-9, rtol=0)


def test_netlist_is_a_chain_of_rings_and_spacers():
    net = optical_netlist(prism_channel(radii=(20.0,) * 4))
    kinds = [v["component"] for v in net["instances"].values()]
    assert kinds.count("ring_add_drop") == 4 and kinds.count("straight") == 2 * 3
    assert len(net["nets"]) == 4 * 3  # each spacer pair joins two rings on two buses
    assert set(net["ports"]) == {"o1", "o2", "o3", "o4"}


def test_single_ring_channel_is_the_ring():
    wl = jnp.linspace(1.54, 1.56, 101)
    d, t = channel_fields(wl, jnp.array([20.0]), jnp.array([4.0]))
    s = rings.ring_add_drop_model(wl=wl, voltage_v=4.0)
    # θ = θ0 + V θ_V is exact in the model; the split only reorders float64 sums
    np.testing.assert_allclose(d, s[("o1", "o4")], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(t, s[("o1", "o2")], rtol=1e-9, atol=1e-12)


def test_energy_conservation_without_loss():
    wl = jnp.linspace(1.54, 1.56, 301)
    d, t = channel_fields(wl, jnp.array([20.0, 20.02, 19.97]), jnp.zeros(3), loss_db_per_cm=0.0)
    # lossless rings and buses (bend radiation aside): what is not dropped goes through
    bend = ring_physics.round_trip_loss_db(1.55, 20.0, loss_db_per_cm=0.0)
    total = np.abs(np.asarray(d)) ** 2 + np.abs(np.asarray(t)) ** 2
    assert np.all(total <= 1 + 1e-12)
    if float(bend) < 1e-6:
        np.testing.assert_allclose(total, 1.0, atol=1e-9)


def test_radii_put_resonances_on_the_channels():
    ch = channel_plan_um(4, spacing_nm=1.6)
    radii = bank_radii(ch)
    for w, r in zip(ch, radii, strict=True):
        assert rings.resonance_wavelength(float(w), radius=float(r)) == pytest.approx(float(w), abs=1e-9)


def test_program_weights_round_trip_and_readout_equals_dot_product():
    ch = channel_plan_um(4, spacing_nm=1.6)
    radii = bank_radii(ch)
    rng = np.random.default_rng(1)
    targets = rng.uniform(-1, 1, (3, 4))
    g = weight_gain(ch, radii)
    volts, residual = program_weights(targets, ch, radii, gain=g)
    assert residual < 1e-6
    w = balanced_weights(ch, radii, volts)
    np.testing.assert_allclose(w, g * targets, atol=1e-6)
    # query as optical powers on the channel wavelengths: I = ℜ Σ P_i g w_i
    query = rng.uniform(0, 1, 4)
    p0 = 1e-4
    i = balanced_currents_a(p0 * query, ch, radii, volts)
    np.testing.assert_allclose(i, 0.95 * p0 * g * exact_scores(query, targets), rtol=1e-5, atol=1e-15)


def test_gradient_of_bank_wrt_voltages_matches_finite_differences():
    ch = channel_plan_um(3, spacing_nm=1.6)
    radii = jnp.asarray(bank_radii(ch))

    def f(v):
        return jnp.sum(balanced_weights(ch, radii, v) * jnp.arange(1.0, 4.0))

    v0 = jnp.array([[2.0, 5.0, -3.0]])
    g = jax.grad(f)(v0)
    h = 1e-4
    for j in range(3):
        e = jnp.zeros_like(v0).at[0, j].set(h)
        fd = (f(v0 + e) - f(v0 - e)) / (2 * h)
        assert float(g[0, j]) == pytest.approx(float(fd), rel=1e-5, abs=1e-9)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"voltages": jnp.full((2, 3), 500.0)}, r"voltages = .* is outside the valid range \[-200, 200\] V"),
        ({"voltages": jnp.zeros((2, 4))}, r"voltages has shape \(2, 4\)"),
    ],
)
def test_bad_bank_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bank_fields(jnp.array([1.55]), jnp.full(3, 20.0), **kwargs)


def test_bad_targets():
    ch = channel_plan_um(2)
    with pytest.raises(ValueError, match=r"targets = .* \[-1, 1\]"):
        program_weights(np.array([[1.5, 0.0]]), ch, bank_radii(ch))
    with pytest.raises(ValueError, match="last axes must all equal d"):
        program_weights(np.zeros((1, 3)), ch, bank_radii(ch))
