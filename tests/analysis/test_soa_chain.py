"""Cross-gain modulation in an SOA chain (analysis/system/soa_chain.py) against the linearised rate equation."""

import math

import numpy as np
import pytest
from scipy import constants
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import prismpic  # noqa: F401  (float64)
from prismpic.analysis.system import soa_chain as sc
from prismpic.components import gain
from prismpic.components import soa_physics as sp


def _rhs(n, p_gain, wl, kappa, med=sp.MEDIUM, pump=None, length=1000.0):
    """dN/dt written out again in numpy: pump − R(N) − Σ_k Γ g_k exprel(h_k) P_k/(h ν_k w d)."""
    g = med.diff_gain_m2 * (n - med.n_tr_m3) - kappa * ((wl - 1.55) * 1e-6) ** 2
    h = (med.confinement * g - med.internal_loss_per_m) * length * 1e-6
    stim = med.confinement * g * np.expm1(h) / h * p_gain / (constants.h * constants.c / (wl * 1e-6))
    rec = med.a_per_s * n + med.b_m3_per_s * n**2 + med.c_m6_per_s * n**3
    return pump - rec - stim.sum() / (med.active_width_m * med.active_thickness_m)


N_CH, P_DBM = 16, -10.0


@pytest.fixture(scope="module")
def res():
    """One small chain (3 stages, 16 channels, 64 symbols) shared by the tests below (one compilation)."""
    return sc.cross_gain_ripple(P_DBM, stages=3, carrier_lifetimes_ps=[300.0], n_symbols=64, n_channels=N_CH)


def test_one_stage_ripple_is_the_linear_response_of_the_carriers(res):
    """Small modulation: δN' = −δN/τ_eff − K δP_mod(t), δ ln G = Γ a L δN for every channel; the linear ODE is
    integrated with SciPy's own solver from the same NRZ waveform and its std compared with the simulation."""
    med, n_ch, p_dbm = sp.MEDIUM, N_CH, P_DBM
    nominal = float(gain.operating_point()["differential_lifetime_ps"])
    scale = nominal / 300.0
    pump = scale * med.injection_efficiency * gain.CURRENT_DENSITY_KA_PER_CM2 * 1e7 / (constants.e *
                                                                                     med.active_thickness_m)
    scaled = med._replace(a_per_s=scale * med.a_per_s, b_m3_per_s=scale * med.b_m3_per_s,
                          c_m6_per_s=scale * med.c_m6_per_s)
    # κ: the material gain's FWHM (100 nm) at the unsaturated density of the default (unscaled) bias
    n_ref = brentq(lambda n: _rhs(n, np.zeros(1), np.array([1.55]), 0.0, med, pump / scale), 1e23, 1e25, xtol=1)
    kappa = med.diff_gain_m2 * (n_ref - med.n_tr_m3) / (2 * (50e-9) ** 2)
    wl = sc.channel_wavelengths(n_ch)
    eta = 10 ** (-gain.TAPER_LOSS_DB / 10)
    p_gain = np.full(n_ch, 1e-3 * 10 ** (p_dbm / 10)) * eta
    n0 = brentq(lambda n: _rhs(n, p_gain, wl, kappa, scaled, pump), 1e23, 1e25, xtol=1)
    d, mod = 1e18, res.modulated_channel
    tau_eff = -2 * d / (_rhs(n0 + d, p_gain, wl, kappa, scaled, pump) - _rhs(n0 - d, p_gain, wl, kappa, scaled, pump))
    dp = np.zeros(n_ch)
    dp[mod] = 1e-9
    k = -(_rhs(n0, p_gain + dp, wl, kappa, scaled, pump) - _rhs(n0, p_gain - dp, wl, kappa, scaled, pump)) / 2e-9

    t, p = sc.modulated_input(1e-3 * 10 ** (p_dbm / 10), 64, mod, n_ch)
    dmod = (p[:, mod] - p[:, mod].mean()) * eta
    sol = solve_ivp(lambda tt, x: -x / tau_eff - k * np.interp(tt, t, dmod), (t[0], t[-1]), [0.0], t_eval=t,
                    rtol=1e-10, atol=1e10, max_step=(t[1] - t[0]))
    dh = med.confinement * med.diff_gain_m2 * 1000e-6 * sol.y[0]
    keep = t >= t[sc.SKIP_SYMBOLS * sc.SAMPLES_PER_SYMBOL]
    expected = np.std(dh[keep])
    assert 1e-4 < expected < 0.05  # small: the linear regime
    assert float(res.ripple_rms[0, 0, 0]) == pytest.approx(expected, rel=0.03)
    assert res.ripple_rms.shape == (1, 1, 3) and res.ripple_pp[0, 0, 0] > 2 * res.ripple_rms[0, 0, 0]


def test_prbs7_is_the_maximal_length_sequence():
    bits = sc.prbs7(254)
    assert np.array_equal(bits[:127], bits[127:]) and bits[:127].sum() == 64  # period 127, 64 ones


@pytest.mark.parametrize("kwargs, name", [({"stages": 0}, "stages"), ({"stages": 2.5}, "stages"),
                                          ({"carrier_lifetimes_ps": [1.0]}, "carrier_lifetimes_ps"),
                                          ({"channel_power_dbm": 30.0}, "channel_power_dbm"),
                                          ({"modulated_channel": 64}, "modulated_channel"),
                                          ({"n_symbols": 8}, "n_symbols"), ({"n_modulated": 0}, "n_modulated")])
def test_bad_input_raises(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the valid range"):
        sc.cross_gain_ripple(**kwargs)


def test_chain_settles_toward_gain_equal_to_the_stage_loss_and_ripple_accumulates(res):
    """Saturation regulates the chain: the power grows while the gain exceeds the stage loss, so each stage
    saturates more and its gain tends to the loss; every stage adds its own ripple."""
    g, out = res.gain_db[0, 0], res.output_power_dbm[0, 0]
    assert g[0] > g[1] > g[2] > res.stage_loss_db and np.all(np.diff(out) > 0)
    assert np.all(np.diff(res.ripple_rms[0, 0]) > 0) and math.isfinite(float(res.ripple_rms.max()))


def test_all_channels_modulated_uses_every_channel_and_uncorrelated_data():
    _, p = sc.modulated_input(1e-3, 127, 3, n_channels=8, n_modulated=8)
    assert np.allclose(p.mean(axis=0), 2e-3 * 64 / 127, rtol=1e-12)  # one PRBS-7 period: 64 ones in 127
    c = np.corrcoef(p.T)
    assert np.max(np.abs(c[~np.eye(8, dtype=bool)])) < 0.5  # shifted sequences, not copies
    with pytest.raises(ValueError, match=r"^n_modulated = 9 is outside the valid range \[1, 8\]"):
        sc.cross_gain_ripple(n_channels=8, n_modulated=9)
