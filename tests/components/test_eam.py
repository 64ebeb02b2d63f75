"""EAM: Franz–Keldysh absorption of the bonded InGaAsP layer, its Kramers–Kronig index change and chirp, the model."""

import math

import jax
import numpy as np
import pytest
from scipy import constants, integrate, special

import prismpic  # noqa: F401  (float64)
from prismpic.components import eam
from prismpic.components import electroabsorption as fk
from prismpic.testing import check_passive, check_reciprocal


def _alpha_numpy(wl_um, field, bandgap_um=fk.BANDGAP_WAVELENGTH_UM, mu=fk.REDUCED_MASS):
    """α(E, F) = (C₀/E)(ħθ)^{1/2} π[Ai'² − η Ai²] written out with SciPy (Aspnes 1966; Chuang (2009) §9.3)."""
    e_ev = constants.h * constants.c / (wl_um * 1e-6) / constants.e
    eg = constants.h * constants.c / (bandgap_um * 1e-6) / constants.e
    theta = (constants.e**2 * field**2 * constants.hbar**2 / (2 * mu * constants.m_e)) ** (1 / 3) / constants.e
    eta = (eg - e_ev) / theta
    ai, aip, _, _ = special.airy(eta)
    return fk.EDGE_STRENGTH_PER_M_SQRT_EV / e_ev * math.sqrt(theta) * math.pi * (aip**2 - eta * ai**2)


def test_absorption_is_the_franz_keldysh_formula_and_tends_to_the_zero_field_edge():
    for wl, f in ((1.55, 1e7), (1.50, 3e7), (1.45, 2e7), (1.60, 5e6)):
        assert float(fk.absorption_per_m(wl, f)) == pytest.approx(_alpha_numpy(wl, f), rel=1e-9)
    # above the gap, F → 0 recovers α₀ = C₀ √(E − E_g)/E (the Airy oscillations average out as η → −∞)
    e, eg = fk.EV_UM / 1.40, fk.EV_UM / fk.BANDGAP_WAVELENGTH_UM
    alpha0 = fk.EDGE_STRENGTH_PER_M_SQRT_EV * math.sqrt(e - eg) / e
    assert float(fk.absorption_per_m(1.40, 1e3)) == pytest.approx(alpha0, rel=1e-3)
    assert float(fk.absorption_per_m(1.60, 1e3)) < 1e-30  # below the gap without field: no absorption


@pytest.mark.parametrize("wl", [1.50, 1.53, 1.55, 1.57, 1.60])
def test_absorption_grows_monotonically_with_reverse_bias_below_the_gap(wl):
    v = np.linspace(0.0, eam.EAM_MAX_REVERSE_BIAS_V, 41)
    a = np.asarray(eam.eam_absorption_db(v, 100.0, wl))
    assert np.all(np.diff(a) > 0) and a[0] >= 0


def test_absorption_falls_with_detuning_from_the_gap():
    a = [float(eam.eam_absorption_db(4.0, 100.0, wl)) for wl in (1.52, 1.55, 1.58)]
    assert a[0] > a[1] > a[2] > 0
    er = float(eam.eam_absorption_db(4.0)) - float(eam.eam_absorption_db(0.0))
    assert 3.0 < er < 20.0  # FK EAMs of ~100 µm: several dB at a few volts


@pytest.mark.parametrize("eta", [-2.0, -0.5, 0.3, 1.0, 2.5])
def test_index_change_is_the_kramers_kronig_partner_of_the_absorption(eta):
    """G(η) = −(1/π) P∫ F(η')/(η' − η) dη': the Hilbert transform of the absorption change, done by quadrature."""
    def f(x):  # F(η) = π[Ai'² − η Ai²] − √(−η) H(−η), from SciPy's Airy functions
        ai, aip, _, _ = special.airy(x)
        return math.pi * (aip**2 - x * ai**2) - (math.sqrt(-x) if x < 0 else 0.0)

    pv = integrate.quad(f, -600.0, 40.0, weight="cauchy", wvar=eta, limit=4000)[0]
    assert float(fk.electro_optic_functions(eta)[1]) == pytest.approx(-pv / math.pi, rel=2e-3, abs=2e-4)


def test_chirp_is_the_ratio_of_index_and_extinction_slopes_and_changes_sign_with_bias():
    wl, dv = 1.55, 1e-4

    def nk(v):
        field = float(fk.field_v_per_m(v))
        return float(fk.index_change(wl, field)), _alpha_numpy(wl, field) * wl * 1e-6 / (4 * math.pi)

    for v in (0.5, 2.0, 6.0, 9.0):
        (n1, k1), (n0, k0) = nk(v + dv), nk(v - dv)
        assert float(eam.eam_chirp_alpha(v, wl)) == pytest.approx((n1 - n0) / (k1 - k0), rel=1e-5)
    # FK below the gap: positive chirp at low bias, negative once the edge tail passes the photon (Koyama & Iga 1988)
    assert float(eam.eam_chirp_alpha(0.5)) > 0 > float(eam.eam_chirp_alpha(9.0))


KW = dict(absorber_length=150.0, insertion_loss_db=2.5, loss_db_per_cm=0.2)  # typed: the closed sum below


def test_model_loss_is_transitions_propagation_and_franz_keldysh():
    kw = KW
    prop_db = 0.2 * (150.0 + 2 * 30.0) * 1e-4
    for v in (0.0, 3.0):
        t = complex(eam.eam_model(1.55, voltage_v=v, **kw)[("o1", "o2")])
        fk_db = 10 / math.log(10) * eam.ABSORBER_CONFINEMENT * _alpha_numpy(1.55, (v + fk.BUILT_IN_V) / 0.3e-6) * 150e-6
        assert -10 * math.log10(abs(t) ** 2) == pytest.approx(2.5 + prop_db + fk_db, rel=1e-9)


def test_model_is_passive_and_reciprocal():
    check_passive(eam.eam_model, voltage_v=10.0)
    check_reciprocal(eam.eam_model, voltage_v=5.0)


def test_model_gradient_against_finite_differences_and_vmap():
    def trans(v):
        return abs(eam.eam_model(1.55, voltage_v=v, **KW)[("o1", "o2")]) ** 2

    g = float(jax.jit(jax.grad(trans))(3.0))
    fd = (float(trans(3.0 + 1e-5)) - float(trans(3.0 - 1e-5))) / 2e-5
    assert g == pytest.approx(fd, rel=1e-6) and g < 0
    vm = jax.jit(jax.vmap(trans))(np.array([1.0, 3.0]))
    assert float(vm[1]) == pytest.approx(float(trans(3.0)), rel=1e-12)


def test_rc_bandwidth():
    c = constants.epsilon_0 * 12.5 * 4e-6 * 100e-6 / 0.3e-6
    assert eam.eam_bandwidth_ghz() == pytest.approx(1 / (2 * math.pi * 25.0 * c) / 1e9, rel=1e-12)


@pytest.mark.parametrize("kwargs, name", [
    ({"voltage_v": -1.0}, "voltage_v"), ({"voltage_v": 12.0}, "voltage_v"),
    ({"bandgap_wavelength_um": 2.0}, "bandgap_wavelength_um"), ({"intrinsic_thickness_um": 5.0}, "intrinsic_thickness_um"),
    ({"absorber_confinement": 0.0}, "absorber_confinement"), ({"insertion_loss_db": -1.0}, "insertion_loss_db"),
])
def test_bad_input_raises(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the valid range"):
        eam.eam_model(**kwargs)
