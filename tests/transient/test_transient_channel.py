"""An 8-wavelength PRISM channel and its MZMs in the time domain against the frequency-domain models."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from prismpic.analysis.transient import devices, simulate
from prismpic.analysis.transient import statespace as ss
from prismpic.circuits import bank_model

D = 8


@pytest.fixture(scope="module")
def channel():
    wl = bank_model.channel_plan_um(D)
    # radii ∝ the channel wavelengths: ring j near channel j (θ ∝ R/λ), without the plan's Newton solve
    radii = 20.0 * wl / wl[0]
    volts = np.linspace(-25.0, 25.0, D)
    cols = jax.jit(lambda w, r: simulate.ring_columns(w, r, {}, bank_model.RING_SPACING))(wl, radii)
    return wl, radii, volts, cols


def test_channel_steady_state_equals_the_bank_model_at_every_wavelength(channel):
    wl, radii, volts, cols = channel
    systems = simulate.systems_from_columns(cols, volts, 0.0)
    # CW switched on from darkness, read after 30 field decay times of the slowest pole (coupled rings included)
    rates = -np.real(np.linalg.eigvals(np.asarray(systems.a)))
    ss.check_step(1.0, rates)
    n = int(30 / rates.min())
    u = jnp.ones((wl.size, n), complex).at[:, :3].set(0.0)
    disc = ss.discretize(systems, 1.0)
    y = jax.vmap(lambda ds, w: ss.run(ds, w[:, None]))(disc, u)[:, -1]  # (W, 2): drop end, through end
    d_ref, t_ref = bank_model.channel_fields(wl, radii, volts)
    for sim, ref in ((y[:, 0], d_ref), (y[:, 1], t_ref)):
        rel = np.abs(np.asarray(sim) - np.asarray(ref)) / np.abs(np.asarray(ref))
        assert rel.max() <= 1e-3, rel


def test_channel_is_passive_and_its_poles_decay(channel):
    wl, radii, volts, cols = channel
    systems = simulate.systems_from_columns(cols, volts, 0.0)
    assert np.all(np.real(np.linalg.eigvals(np.asarray(systems.a))) < 0)
    rng = np.random.default_rng(1)
    u = (rng.normal(size=(wl.size, 800)) + 1j * rng.normal(size=(wl.size, 800))) * (rng.random((wl.size, 800)) < .2)
    disc = ss.discretize(systems, 2.0)
    y = np.asarray(jax.vmap(lambda ds, w: ss.run(ds, w[:, None]))(disc, jnp.asarray(u)))
    assert np.all(np.sum(np.abs(y) ** 2, axis=(1, 2)) <= np.sum(np.abs(u) ** 2, axis=1) * (1 + 1e-9))


def test_channel_gradient_matches_finite_differences(channel):
    wl, radii, volts, cols = channel
    u = jnp.ones((wl.size, 60), complex).at[:, :10].set(0.0)

    @jax.jit
    def balanced(v):
        disc = ss.discretize(simulate.systems_from_columns(cols, v, 0.0), 2.0)
        y = jax.vmap(lambda ds, w: ss.run(ds, w[:, None]))(disc, u)
        return jnp.sum(jnp.abs(y[:, 25, 0]) ** 2 - jnp.abs(y[:, 25, 1]) ** 2)

    g = np.asarray(jax.jit(jax.grad(balanced))(jnp.asarray(volts)))
    h = 1e-3
    for j in (0, 3, 7):
        e = np.zeros(D)
        e[j] = h
        fd = (float(balanced(volts + e)) - float(balanced(volts - e))) / (2 * h)
        assert abs(g[j] - fd) <= 1e-5 * max(abs(fd), 1e-3), (j, g[j], fd)


def test_mzm_time_domain_transmission_equals_its_s_parameters():
    from prismpic.components import modulators

    wl = np.array([1.548, 1.552])
    vpi, p, q, bias, _ = devices.mzm_coefficients(wl, {"bias_phase_rad": 0.3})
    fe = devices.Frontend(vpi, p, q, bias, 100.0, 6, 1e-3)
    volts = np.array([-3.0, 0.0, 1.7, 4.0])
    t = np.asarray(devices.mzm_field(fe, np.broadcast_to(volts, (2, 4))))
    for i, w in enumerate(wl):
        for j, v in enumerate(volts):
            ref = complex(modulators.mzm_model(w, voltage_v=float(v), bias_phase_rad=0.3)[("o1", "o2")])
            assert abs(t[i, j] - ref) <= 1e-9 * abs(ref)
    # a first-order block (the RF line's, the detector's) driven by a ramp from 0 to 1 over one step h (the FOH
    # input): y(t) = 1 − (τ/h)(e^{h/τ} − 1) e^{−t/τ} for t ≥ h after the ramp starts, τ = 1/(2π f₃)
    f3, h = 40.0, 0.05
    y = np.asarray(ss.filter_real(jnp.concatenate([jnp.zeros(10), jnp.ones(400)]), f3, h))
    tau = 1e3 / (2 * np.pi * f3)
    t = (np.arange(10, 410) - 9) * h
    exact = 1 - tau / h * np.expm1(h / tau) * np.exp(-t / tau)
    assert np.max(np.abs(y[10:] - exact)) < 1e-9


def test_bad_runs_are_refused():
    with pytest.raises(ValueError, match=r"bit_rate = 5 Hz is outside the valid range"):
        simulate.check_run(5, 64, 8)
    with pytest.raises(ValueError, match=r"symbols = 3 is outside the valid range"):
        simulate.check_run(1e9, 3, 8)
    with pytest.raises(ValueError, match=r"samples_per_symbol = 1 is outside"):
        simulate.check_run(1e9, 64, 1)
