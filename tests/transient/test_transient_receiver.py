"""The receiver's noise and a query's latency from simulated waveforms, against closed forms: the noise bandwidth
of a first-order low-pass (π/2 · f₃dB), shot noise 2qI, and the 50 % delay of a dominant first-order pole."""

from __future__ import annotations

import math

import pytest
from scipy import constants

from prismpic.analysis.transient import analyses, simulate


@pytest.fixture(scope="module")
def snr():
    setup = simulate.channel_setup(2, 1e9, 16, n_symbols=4096)
    return analyses.receiver_snr(setup, received_power_w=25.7e-6, n_symbols=4096)


def test_noise_bandwidths_are_the_first_order_receivers(snr):
    """The TIA's input noise, white and one-sided, leaves a first-order low-pass with variance S · (π/2) f₃dB;
    the detectors' shot noise 2q⟨I⟩ passes the same TIA (the detectors' 89 GHz is above the simulated band).
    Tolerance: three standard deviations of a variance estimated from n samples, 3√(2/n), plus 1 % for the
    held-noise discretisation."""
    tol = 3 * math.sqrt(2 / snr.n_samples) + 0.01
    enbw_hz = math.pi / 2 * snr.tia_bandwidth_ghz * 1e9
    assert snr.tia_var_per_density / enbw_hz == pytest.approx(1.0, abs=tol)
    shot = 2 * constants.e * snr.mean_detector_current_a * enbw_hz
    assert snr.shot_var_a2 / shot == pytest.approx(1.0, abs=tol)
    # laser RIN, each line its own: RIN · ENBW · Σ_λ ⟨I_λ²⟩ of the lines' balanced currents (noise.noise_budget's
    # rin term with n_uncorrelated_lines lines of equal power)
    assert snr.rin_var_per_unit / (enbw_hz * snr.mean_square_line_current_a2) == pytest.approx(1.0, abs=tol)


def test_snr_is_full_scale_over_the_noise_variances(snr):
    """SNR = I_fs² / (shot + S_TIA · ENBW), and I_fs is the responsivity (≈ 1 A/W at these carriers) times the
    received power, less what the through detector takes (balanced)."""
    s = 10e-12
    expected = 10 * math.log10(snr.full_scale_a**2 / (snr.shot_var_a2 + s**2 * snr.tia_var_per_density))
    assert snr.snr_db(s) == pytest.approx(expected, abs=1e-12)
    assert 0.5 * 25.7e-6 < snr.full_scale_a < 1.1 * 25.7e-6
    assert snr.snr_db(1e-12) > snr.snr_db(20e-12)


def test_latency_of_a_dominant_tia_pole_is_ln2_tau_plus_the_other_delays():
    """A TIA slower than every other block: the step reaches half its height ln 2 · τ_TIA after the DAC code, later
    by the other blocks' mean delays (DAC τ = t_r/ln 9, the ring's field lifetime 2τ_e is below 0.5 %)."""
    f_tia = 0.05
    setup = simulate.channel_setup(2, 1e9, 16, n_symbols=32, dac_bits=1, tia_bandwidth_ghz=f_tia)
    lat = analyses.query_latency(2, setup=setup)
    tau_tia = 1e3 / (2 * math.pi * f_tia)
    tau_dac = 0.25 * 1e3 / math.log(9)
    assert lat.electro_optic_ps == pytest.approx(math.log(2) * tau_tia + tau_dac, rel=0.03)


@pytest.mark.parametrize("hold, expected", [("zoh", None), ("foh", "lower")])
def test_white_noise_is_held_over_each_step(hold, expected):
    """Independent samples of variance S/(2Δt) through a first-order low-pass: held over each step (ZOH) the
    discrete AR(1) variance is S (1 − a)/(2Δt (1 + a)), a = e^{−Δt/τ}, which tends to S·π f₃dB/2; read as a
    piecewise-linear waveform (FOH) they lose part of their power (here ≈ 14 %), which is why the receiver holds
    its noise."""
    import numpy as np

    from prismpic.analysis.transient import statespace as ss

    dt, f = 62.5, 0.75
    tau = 1e3 / (2 * math.pi * f)
    a = math.exp(-dt / tau)
    s = 1.0
    w = np.random.default_rng(0).standard_normal((4, 100_000)) * math.sqrt(s / (2 * dt))
    var = float(np.var(np.asarray(ss.filter_real(w, f, dt, hold=hold))[:, 1000:]))
    exact = s * (1 - a) / (2 * dt * (1 + a))
    if expected is None:
        assert var == pytest.approx(exact, rel=0.02)
    else:
        assert var < 0.9 * exact
