"""Analyses from simulated waveforms: the weight update through diffrax against the closed-form relaxation."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from prismpic.analysis.transient import analyses, simulate, waveform_metrics
from prismpic.circuits import bank_model
from prismpic.components import rings


def test_weight_update_with_a_fast_driver_relaxes_as_the_ring_mode():
    """RC → 0: the voltage jumps, and the mode relaxes as z(t) = z₁ + (z₀ − z₁) e^{pt} (p, z₁ of the new voltage,
    z₀ the old steady state): the closed form of the linear mode equation, against diffrax's solution."""
    spec = rings.ring_specs(1.55, "add_drop")
    v1 = 0.5 * spec["v_per_linewidth"]
    res = analyses.weight_update_settling(0.0, v1, ring_capacitance_ff=1e-3)
    cols = jax.jit(lambda w, r: simulate.ring_columns(w, r, {}, bank_model.RING_SPACING))(
        np.array([spec["resonance_um"]]), np.array([20.0]))
    u = jnp.ones((1,), complex)
    s0 = simulate.systems_from_columns(cols, 0.0, 0.0)
    s1 = simulate.systems_from_columns(cols, v1, 0.0)
    s0, s1 = ([np.asarray(x[0]) for x in s] for s in (s0, s1))
    z0 = -np.linalg.solve(s0[0], s0[1] @ u)
    z1 = -np.linalg.solve(s1[0], s1[1] @ u)
    p = s1[0][0, 0]
    z = z1[0] + (z0[0] - z1[0]) * np.exp(p * res.t_ps)
    y = s1[2][:, 0][None, :] * z[:, None] + (s1[3] @ u)[None, :]
    w = np.abs(y[:, 0]) ** 2 - np.abs(y[:, 1]) ** 2
    assert np.max(np.abs(w[5:] - res.weight[5:])) < 1e-5
    exact = waveform_metrics.settling_time(res.t_ps, w, 0.01)
    assert abs(res.settling_time_ps / exact - 1) < 0.02
    assert res.meets_claim and res.settling_time_ps < 1e3


def test_weight_update_with_a_slow_driver_follows_the_steady_state_and_is_the_ledgers_tuning_time():
    """RC ≫ τ: the ring follows its voltage quasi-statically, so the weight is the steady state at V(t) (the
    mode's lag τ ≈ 10 ps against RC = 500 ps) and settles when V(t) has; and the ledger's S1-10 tuning time is this
    simulation at its assumptions, not the first-order estimate."""
    from prismpic.analysis.ledger import claims_s1_device

    spec = rings.ring_specs(1.55, "add_drop")
    v1 = 0.5 * spec["v_per_linewidth"]
    res = analyses.weight_update_settling(0.0, v1, ring_capacitance_ff=1e4, driver_resistance_ohm=50.0)
    assert res.driver_tau_ps == pytest.approx(500.0) and not res.meets_claim  # a 500 ps RC cannot settle to 1 % in 1 ns
    cols = jax.jit(lambda w, r: simulate.ring_columns(w, r, {}, bank_model.RING_SPACING))(
        np.array([spec["resonance_um"]]), np.array([20.0]))
    u = jnp.ones((1,), complex)

    def steady_weight(v):
        s = jax.tree_util.tree_map(lambda a: a[0], simulate.systems_from_columns(cols, v, 0.0))
        y = s.c @ simulate.settled_state(s, u) + s.d @ u
        return jnp.abs(y[0]) ** 2 - jnp.abs(y[1]) ** 2

    volts = v1 * (1 - np.exp(-res.t_ps / res.driver_tau_ps))
    w_qs = np.asarray(jax.jit(jax.vmap(steady_weight))(volts))
    quasi = waveform_metrics.settling_time(res.t_ps, w_qs, 0.01)
    assert abs(res.settling_time_ps / quasi - 1) < 0.03
    assert res.settling_time_ps > quasi  # the mode lags its steady state
    p = {"ring_capacitance_ff": 1e4, "driver_output_ohm": 50.0}
    assert claims_s1_device.simulated_tuning({}, p).settling_time_ps == res.settling_time_ps
