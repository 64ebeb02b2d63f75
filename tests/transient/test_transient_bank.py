"""A bank of N channels in time: the shared MZMs through a splitter tree into N ring channels, each with its own
voltages, detectors and TIA; against N single-channel runs and against the bank's S-parameter model."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from prismpic.analysis.transient import simulate
from prismpic.components import rings


@pytest.fixture(scope="module")
def bank():
    setup = simulate.channel_setup(4, 5e9, 8, n_symbols=64)
    rng = np.random.default_rng(3)
    v_lw = rings.ring_specs(1.55, "add_drop")["v_per_linewidth"]
    volts = rng.uniform(-v_lw, v_lw, (3, 4))
    sym = rng.uniform(0.0, 1.0, (4, 64))
    return setup, volts, sym


def test_bank_equals_its_channels_run_one_by_one(bank):
    """Each channel of the bank is the single channel driven at ``tree_power`` of the MZMs' power."""
    setup, volts, sym = bank
    tree = 1 / 8
    y = np.asarray(jax.jit(lambda s, v: simulate.bank_currents(setup, s, v, tree))(sym, volts))
    one = dataclasses.replace(setup, front=dataclasses.replace(setup.front, power_w=setup.front.power_w * tree))
    single = jax.jit(lambda s, v: simulate.query_waveforms(one, s, v)["current_a"])  # one compile, three channels
    for n in range(volts.shape[0]):
        ref = np.asarray(single(sym, volts[n]))
        assert np.max(np.abs(y[n] - ref)) <= 1e-12 * np.max(np.abs(ref))


def test_bank_settles_on_each_channels_s_parameter_model(bank):
    """Held queries: every channel's current settles on its static value (``static_currents``: the MZM and the
    bank's ``channel_fields``) times the tree's transmission, to 1e-6 of full scale."""
    setup, volts, _ = bank
    held = np.repeat(np.random.default_rng(4).uniform(0.0, 1.0, (4, 1)), 64, axis=1)
    y = np.asarray(jax.jit(lambda s, v: simulate.bank_currents(setup, s, v, 0.25))(held, volts))[:, -1]
    static_currents = jax.jit(lambda s, v: simulate.static_currents(setup, s, v))
    full = float(np.asarray(static_currents(np.ones((4, 1)), np.zeros(4)))[0]) * 0.25
    for n in range(volts.shape[0]):
        static = float(np.asarray(static_currents(held[:, :1], volts[n]))[0]) * 0.25
        assert abs(y[n] - static) <= 1e-6 * full


def test_bank_noise_is_independent_per_channel(bank):
    setup, volts, sym = bank
    same = np.repeat(volts[:1], 2, axis=0)
    y = np.asarray(jax.jit(lambda s, v: simulate.bank_currents(setup, s, v, 0.5, jax.random.PRNGKey(0), True))(sym, same))
    assert not np.allclose(y[0], y[1])
    with pytest.raises(ValueError, match="tree_power"):
        simulate.bank_currents(setup, sym, volts, 0.0)
