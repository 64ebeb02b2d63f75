"""Time-domain rings against the frequency-domain models (issue 29, item 4): steady state, lifetime, impulse
response, passivity, gradients. References are the S-parameter models, ``ring_specs`` and formulas in the test."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.constants import c as C_M_PER_S

from prismpic.analysis.transient import ring_modes, ring_runs
from prismpic.analysis.transient import statespace as ss
from prismpic.components import ring_physics, rings
from prismpic.pdk.ridge_stack import RidgeStack


@pytest.fixture(scope="module")
def ring_case():
    spec = rings.ring_specs(1.55, "add_drop")
    p = ring_modes.ring_parameters("add_drop", {})
    return spec, p


def _sparams(kind, wls, p):
    model = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
    s = model(np.asarray(wls), **{k: v for k, v in p.items() if not (kind == "all_pass" and k == "gap_drop")})
    return s


@pytest.mark.parametrize("kind", ["add_drop", "all_pass"])
def test_simulated_steady_state_equals_the_s_parameters_at_every_wavelength(kind):
    spec = rings.ring_specs(1.55, kind)
    p = ring_modes.ring_parameters(kind, {})
    lam, fwhm, fsr = spec["resonance_um"], spec["fwhm_nm"] * 1e-3, spec["fsr_nm"] * 1e-3
    # on resonance, ±1 and ±3 linewidths, half an FSR away, the next order
    wls = lam + np.array([0.0, -fwhm, fwhm, -3 * fwhm, 3 * fwhm, fsr / 2, fsr])
    err, record_ps = ring_runs.steady_state_error(kind, p, wls)
    assert err <= 1e-3, err
    assert record_ps >= 40 * spec["q_loaded"] * lam * 1e-6 / (2 * math.pi * C_M_PER_S) * 1e12 * 0.9


@pytest.mark.parametrize("kind", ["add_drop", "all_pass"])
def test_energy_decay_time_equals_q_loaded_over_omega(kind):
    spec = rings.ring_specs(1.55, kind)
    p = ring_modes.ring_parameters(kind, {})
    co = ring_modes.carrier_coefficients(spec["resonance_um"], p, kind)
    tau, t, energy = ring_runs.photon_lifetime_ps(ring_modes.ring_lti(co), 10.0)
    expected = spec["q_loaded"] / (2 * math.pi * C_M_PER_S / (spec["resonance_um"] * 1e-6)) * 1e12
    assert abs(tau / expected - 1) < 0.02, (tau, expected)
    assert np.all(np.diff(energy) < 0)  # a passive ring left alone only loses energy


def test_impulse_response_equals_the_inverse_fft_of_the_s_parameters(ring_case):
    """A 4 ps Gaussian pulse at the resonance through the add-drop ring; reference: the pulse's spectrum times the
    S-parameters at each optical frequency, back-transformed (the bus's own group delay, a pure delay the modes
    keep as phase only, is taken out of the reference by its exact derivative)."""
    spec, p = ring_case
    lam = spec["resonance_um"]
    co = ring_modes.carrier_coefficients(lam, p)
    sys = ring_modes.ring_lti(co, 3)
    dt, n = 0.25, 4096
    t = (np.arange(n) - 400) * dt
    pulse = np.exp(-0.5 * (t / 4.0) ** 2)
    u = np.zeros((n, 2), complex)
    u[:, 0] = pulse
    y = np.asarray(ss.run(ss.discretize(sys, dt), jnp.asarray(u)))
    # reference in the frequency domain, convention e^{−iΔt}: U(Δ) = Σ u e^{iΔt}
    delta = 2 * np.pi * np.fft.fftfreq(n, dt)  # rad/ps
    omega0 = 2 * np.pi * C_M_PER_S * 1e-6 / lam  # rad/ps
    wls = 2 * np.pi * C_M_PER_S * 1e-6 / (omega0 + delta)
    s = _sparams("add_drop", wls, p)
    length = ring_physics.default_bus_length(p["radius"], p["width"])
    ridge = RidgeStack(width=p["width"], film_thickness=p["film_thickness"], etch_depth=p["etch_depth"])

    def bus_phase(w):
        return jnp.angle(ring_physics.bus_transmission(w, length, ridge, p["loss_db_per_cm"]))

    dphase_dwl = float(jax.grad(bus_phase)(jnp.asarray(lam)))
    bus_delay = dphase_dwl * -(lam**2) / (2 * np.pi * C_M_PER_S * 1e-6)  # ps
    spectrum = np.fft.ifft(pulse) * n  # Σ u e^{+iΔt} with numpy's sign convention
    for port, key in ((0, ("o1", "o2")), (1, ("o1", "o4"))):
        h = np.asarray(s[key]) * np.exp(-1j * delta * bus_delay)
        ref = np.fft.fft(spectrum * h) / n
        err = np.max(np.abs(y[:, port] - ref)) / np.max(np.abs(ref))
        assert err < 2e-3, (port, err)


def test_passive_ring_never_gains_energy(ring_case):
    spec, p = ring_case
    rng = np.random.default_rng(3)
    for detune in (0.0, 0.4 * spec["fwhm_nm"] * 1e-3, 2e-3):
        co = ring_modes.carrier_coefficients(spec["resonance_um"] + detune, p)
        sys = ring_modes.ring_lti(co, 3)
        u = (rng.normal(size=(2000, 2)) + 1j * rng.normal(size=(2000, 2))) * (rng.random((2000, 1)) < 0.3)
        y = np.asarray(ss.run(ss.discretize(sys, 1.0), jnp.asarray(u)))
        assert np.sum(np.abs(y) ** 2) <= np.sum(np.abs(u) ** 2) * (1 + 1e-9)
        # the mode matrix is dissipative: every pole decays
        assert np.all(np.real(np.linalg.eigvals(np.asarray(sys.a))) < 0)


def test_gradient_of_a_transient_matches_finite_differences(ring_case):
    """d(drop power 15 ps after a step)/d(voltage) and /d(gap): jax.grad against central differences."""
    spec, p = ring_case
    lam = spec["resonance_um"] + 0.3 * spec["fwhm_nm"] * 1e-3
    u = jnp.zeros((40, 2), complex).at[5:, 0].set(1.0)

    def drop_power(v, gap):
        co = ring_modes.carrier_coefficients(lam, {**p, "gap": gap}, voltage_v=v)
        y = ss.run(ss.discretize(ring_modes.ring_lti(co), 1.0), u)
        return jnp.abs(y[20, 1]) ** 2

    v0, g0 = 3.0, p["gap"]
    gv, gg = jax.jit(jax.grad(drop_power, argnums=(0, 1)))(v0, g0)
    drop_power = jax.jit(drop_power)
    hv, hg = 1e-3, 1e-6
    fv = (drop_power(v0 + hv, g0) - drop_power(v0 - hv, g0)) / (2 * hv)
    fg = (drop_power(v0, g0 + hg) - drop_power(v0, g0 - hg)) / (2 * hg)
    assert abs(gv - fv) <= 1e-5 * abs(fv) + 1e-12, (gv, fv)
    assert abs(gg - fg) <= 1e-4 * abs(fg), (gg, fg)


def test_a_step_that_aliases_the_ring_pole_is_refused(ring_case):
    spec, p = ring_case
    sys = ring_modes.ring_lti(ring_modes.carrier_coefficients(spec["resonance_um"], p))
    rate = float(-np.real(np.asarray(sys.a)[0, 0]))
    ss.check_step(3.0 / rate, [rate])  # below π/rate: accepted
    with pytest.raises(ValueError, match=r"dt_ps = .* outside the valid range \(0, "):
        ss.check_step(4.0 / rate, [rate])
    with pytest.raises(ValueError, match=r"samples_per_symbol = 1 is outside the valid range \["):
        ss.check_step(1000.0, [rate], "samples_per_symbol", scale=1000.0)
