"""Ge photodetectors: responsivity, bandwidth, dark current, balanced subtraction, absorbing S."""

import math

import jax.numpy as jnp
import pytest
from scipy import constants

import prismpic  # noqa: F401  (float64)
from prismpic.components import detectors as pd
from prismpic.pdk import materials
from prismpic.testing import check_passive, check_reciprocal, s_matrix


def test_responsivity_formula():
    # R = (1 − e^{−Γ α L}) q λ/(h c), with scipy's constants and α from the material table
    for wl, length, gamma in ((1.55, 12.0, 0.3), (1.60, 30.0, 0.5), (1.50, 5.0, 0.1)):
        alpha_per_um = float(materials.alpha_ge_per_cm(wl)) * 1e-4
        eta = 1 - math.exp(-gamma * alpha_per_um * length)
        expected = eta * constants.e * wl * 1e-6 / (constants.h * constants.c)
        assert float(pd.responsivity_a_per_w(wl, length, gamma)) == pytest.approx(expected, rel=1e-12)


def test_default_responsivity_near_published():
    # Shi et al., Photonics Res. 12, 1 (2024): 0.95 A/W at 1550 nm
    assert float(pd.responsivity_a_per_w()) == pytest.approx(0.95, abs=0.03)
    # and never above the quantum limit q λ/(h c)
    assert float(pd.responsivity_a_per_w(1.55, 1e3, 1.0)) <= constants.e * 1.55e-6 / (constants.h * constants.c)


def test_photocurrent_linear_in_power():
    r = float(pd.responsivity_a_per_w())
    assert float(pd.photocurrent_a(25.7e-6)) == pytest.approx(r * 25.7e-6, rel=1e-12)


def test_balanced_subtraction_sign():
    r = float(pd.responsivity_a_per_w())
    assert float(pd.balanced_current_a(1e-4, 3e-4)) == pytest.approx(r * 2e-4, rel=1e-12)
    assert float(pd.balanced_current_a(3e-4, 1e-4)) == pytest.approx(-r * 2e-4, rel=1e-12)
    assert float(pd.balanced_current_a(2e-4, 2e-4)) == 0.0


def test_bandwidth_combines_rc_and_transit():
    length, t_ge, d, r_load, r_s, pad = 20.0, 0.4, 0.5, 50.0, 5.0, 80.0
    c_j = constants.epsilon_0 * 16.2 * (length * 1e-6) * (t_ge * 1e-6) / (d * 1e-6)
    c_pad = constants.epsilon_0 * 3.9 * (pad * 1e-6) ** 2 / 4.7e-6 / 2
    f_rc = 1 / (2 * math.pi * (r_load + r_s) * (c_j + c_pad))
    f_t = 0.45 * 6e4 / (d * 1e-6)
    expected = 1 / math.sqrt(f_rc**-2 + f_t**-2) / 1e9
    got = float(pd.detector_bandwidth_ghz(length, t_ge, d, pad, r_load, r_s))
    assert got == pytest.approx(expected, rel=1e-8)  # ε0: CODATA 2018 here, scipy's edition may differ by 1e-9
    assert got < min(f_rc, f_t) / 1e9


def test_bandwidth_limits():
    # tiny junction and no pads: transit-limited, f → 0.45 v/d
    f = float(pd.detector_bandwidth_ghz(2.0, 0.1, 0.25, 0.0, 1.0, 0.0))
    assert f == pytest.approx(0.45 * 6e4 / 0.25e-6 / 1e9, rel=1e-3)
    # long transit allowance (huge v_sat): RC-limited
    f = float(pd.detector_bandwidth_ghz(12.0, 0.5, 0.25, 60.0, 50.0, 10.0, v_sat_m_per_s=1e12))
    c = float(pd.junction_capacitance_f(12.0, 0.5, 0.25) + pd.pad_capacitance_f(60.0))
    assert f == pytest.approx(1 / (2 * math.pi * 60.0 * c) / 1e9, rel=1e-6)


def test_default_bandwidth_and_dark_current_near_published():
    # 103 GHz and 1.3 nA published (Shi et al. 2024): the geometry-derived defaults land nearby
    assert 70.0 < float(pd.detector_bandwidth_ghz()) < 130.0
    assert float(pd.dark_current_a()) == pytest.approx(1.3e-9, rel=0.3)


def test_dark_current_scaling():
    # ∝ area; ∝ T^{3/2} exp(−E_g/2kT)
    assert float(pd.dark_current_a(24.0)) == pytest.approx(2 * float(pd.dark_current_a(12.0)), rel=1e-12)
    ratio = float(pd.dark_current_a(temperature_k=330.0) / pd.dark_current_a(temperature_k=300.0))
    expected = (330 / 300) ** 1.5 * math.exp(-0.66 * constants.e / (2 * constants.k) * (1 / 330 - 1 / 300))
    assert ratio == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("model", [pd.photodetector_model, pd.balanced_photodetector_model])
def test_optical_ports_absorb(model):
    s, ports = s_matrix(model(wl=jnp.linspace(1.5, 1.6, 11)))
    assert s.shape[0] == 11
    assert float(jnp.max(jnp.abs(s))) == 0.0
    check_passive(model)
    check_reciprocal(model)


def test_cell_ports():
    c = pd.balanced_photodetector()
    optical = sorted(p.name for p in c.ports if p.port_type == "optical")
    electrical = sorted(p.name for p in c.ports if p.port_type == "electrical")
    assert optical == ["o1", "o2"] and electrical == ["e1", "e2", "e3"]
    # the drop input (o2) lies above the through input (o1)
    assert c.ports["o2"].dcenter[1] > c.ports["o1"].dcenter[1]


@pytest.mark.parametrize(
    "kwargs, name", [({"contact_gap": 0.5}, "contact_gap"), ({"ge_width": 2.0}, "ge_width"), ({"pad_size": 40.0}, "pad_size")]
)
def test_bad_geometry_raises(kwargs, name):
    for fn in (pd.photodetector, pd.photodetector_model, pd.balanced_photodetector):
        with pytest.raises(ValueError, match=name):
            fn(**kwargs)
