"""SOA: homogeneous gain saturation (Agrawal), ASE density (Olsson 1989), the linear model."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import constants

import prismpic  # noqa: F401  (float64)
from prismpic.components import gain
from prismpic.testing import check_passive, check_reciprocal


def _residual(g_db, g0_db, p_in_dbm, p_sat_dbm):
    """G − G0 exp(−(G − 1) P_in/P_sat), linear units."""
    g, g0 = 10 ** (g_db / 10), 10 ** (g0_db / 10)
    p = 10 ** ((p_in_dbm - p_sat_dbm) / 10)
    return g - g0 * np.exp(-(g - 1) * p)


def test_saturated_gain_small_signal_limit():
    # G ≈ G0 exp(−(G0 − 1) p) for p → 0: the dB deficit is 10 log10(e) (G0 − 1) p.
    g0_db, p_sat_dbm, p_in_dbm = 25.0, 10.0, -60.0
    g = float(gain.saturated_gain_db(p_in_dbm, g0_db, p_sat_dbm))
    deficit = 10 * math.log10(math.e) * (10 ** 2.5 - 1) * 10 ** ((p_in_dbm - p_sat_dbm) / 10)
    # next order is (G0 p) ≈ 3e-5 of the deficit
    assert g == pytest.approx(g0_db - deficit, abs=1e-3 * deficit)


@pytest.mark.parametrize("g0_db", [10.0, 20.0, 30.0])
def test_saturated_gain_halves_at_the_3db_output_power(g0_db):
    # G = G0/2 at P_out = G0 ln2/(G0 − 2) P_sat, i.e. at P_in = 2 ln2 P_sat/(G0 − 2).
    g0, p_sat_dbm = 10 ** (g0_db / 10), 5.0
    p_in_dbm = p_sat_dbm + 10 * math.log10(2 * math.log(2) / (g0 - 2))
    g = float(gain.saturated_gain_db(p_in_dbm, g0_db, p_sat_dbm))
    assert g == pytest.approx(g0_db - 10 * math.log10(2), abs=1e-10)


def test_saturation_power_from_output_saturation_power():
    # With P_sat from the −3 dB output saturation power, the output at G0/2 equals it.
    g0_db, p_out_3db = 20.0, 10.0
    p_sat = float(gain.saturation_power_dbm(p_out_3db, g0_db))
    g0 = 10 ** (g0_db / 10)
    assert p_sat == pytest.approx(p_out_3db + 10 * math.log10((g0 - 2) / (g0 * math.log(2))), abs=1e-12)
    p_in = p_out_3db - (g0_db - 10 * math.log10(2))  # input that gives P_out,3dB at G0/2
    assert float(gain.saturated_gain_db(p_in, g0_db, p_sat)) == pytest.approx(g0_db - 10 * math.log10(2), abs=1e-10)


def test_saturated_gain_solves_the_implicit_equation_and_is_monotone():
    p_in = np.linspace(-40.0, 30.0, 141)
    for g0_db in (5.0, 20.0, 40.0):
        g = np.asarray(gain.saturated_gain_db(p_in, g0_db, 10.0))
        res = _residual(g, g0_db, p_in, 10.0) / 10 ** (g0_db / 10)
        assert np.max(np.abs(res)) < 1e-12
        assert np.all(np.diff(g) < 0)
        assert np.all(g <= g0_db + 1e-12) and np.all(g > 0)


def test_saturated_gain_gradient_is_the_implicit_derivative():
    # y = ln G solves y − ln G0 + (e^y − 1) p = 0  →  dy/dp = −(e^y − 1)/(1 + p e^y).
    g0_db, p_sat = 20.0, 10.0
    p_in = 0.0
    g_db = float(gain.saturated_gain_db(p_in, g0_db, p_sat))
    y, p = g_db * math.log(10) / 10, 10 ** ((p_in - p_sat) / 10)
    dy_dp = -(math.exp(y) - 1) / (1 + p * math.exp(y))
    dp_dpin = p * math.log(10) / 10
    expected = dy_dp * dp_dpin * 10 / math.log(10)
    got = float(jax.grad(lambda x: gain.saturated_gain_db(x, g0_db, p_sat))(p_in))
    assert got == pytest.approx(expected, rel=1e-10)


def test_ase_psd_against_independent_evaluation():
    # n_sp hν (G − 1), n_sp = NF/2 (Olsson 1989), with scipy's CODATA constants.
    g_db, nf_db, wl = 20.0, 8.0, 1.55
    nu = constants.c / (wl * 1e-6)
    expected = 10 ** (nf_db / 10) / 2 * constants.h * nu * (10 ** (g_db / 10) - 1)
    assert float(gain.ase_psd_w_per_hz(g_db, nf_db, wl)) == pytest.approx(expected, rel=1e-12)
    # NF = 3 dB (n_sp = 1): ≈ hν (G − 1) ≈ 1.27e-17 W/Hz at 20 dB
    assert float(gain.ase_psd_w_per_hz(20.0, 10 * math.log10(2), 1.55)) == pytest.approx(
        constants.h * nu * 99, rel=1e-12
    )


def test_model_gain_and_spectrum():
    g_db, fwhm = 17.0, 80.0
    s = gain.soa_model(wl=gain.GAIN_PEAK_UM, gain_db=g_db, gain_fwhm_nm=fwhm)
    assert float(jnp.abs(s[("o1", "o2")]) ** 2) == pytest.approx(10 ** (g_db / 10), rel=1e-12)
    # dB gain ∝ parabolic g(λ): half of it at λ_p ± FWHM/2
    for wl in (gain.GAIN_PEAK_UM - fwhm / 2e3, gain.GAIN_PEAK_UM + fwhm / 2e3):
        t = gain.soa_model(wl=wl, gain_db=g_db, gain_fwhm_nm=fwhm)[("o2", "o1")]
        assert 10 * math.log10(float(jnp.abs(t) ** 2)) == pytest.approx(g_db / 2, abs=1e-9)
    assert set(s) == {("o1", "o2"), ("o2", "o1")}  # no reflections


def test_model_default_gain_follows_gain_length():
    for length in (500.0, 1000.0):
        t = gain.soa_model(wl=gain.GAIN_PEAK_UM, gain_length=length)[("o1", "o2")]
        assert 10 * math.log10(float(jnp.abs(t) ** 2)) == pytest.approx(gain.NET_GAIN_DB_PER_MM * length / 1e3)


def test_model_is_reciprocal_and_not_passive():
    check_reciprocal(gain.soa_model, gain_db=20.0)
    with pytest.raises(AssertionError):
        check_passive(gain.soa_model, gain_db=20.0)
    check_passive(gain.soa_model, gain_db=-3.0)  # an absorbing (unbiased) SOA is passive


@pytest.mark.parametrize(
    "kwargs, name",
    [({"gain_length": -1.0}, "gain_length"), ({"contact_gap": 0.5}, "contact_gap"), ({"soa_width": 5.0}, "soa_width")],
)
def test_bad_geometry_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gain.soa_model(**kwargs)
    with pytest.raises(ValueError, match=name):
        gain.soa(**kwargs)


def test_bad_noise_figure_raises():
    with pytest.raises(ValueError, match="nf_db"):
        gain.ase_psd_w_per_hz(20.0, 2.0)
