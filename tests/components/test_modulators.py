"""Physics tests of the phase shifter, the push-pull MZM (modulators.py), its field factor (pdk/electrostatics.py),
its RF line (rf_line.py) and the EAM (eam.py)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate, optimize, special

import prismpic
from prismpic.components import modulators as mod
from prismpic.components import rf_line
from prismpic.pdk import dispersion, electrostatics, materials
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS, SIDEWALL_ANGLE_DEG

C_UM_PER_NS = 2.99792458e5


@pytest.fixture(scope="module", autouse=True)
def _pdk():
    prismpic.get_pdk()


def _vpil_um(wl, gap, push_pull, width=1.4, film=FILM_THICKNESS, etch=ETCH_DEPTH):
    """λ g / (n_e³ r33 Γ f) (µm·V), halved in push-pull; Γ from the dispersion API, f from the fit.

    At the platform stack by default, the models' defaults (the fit is for that stack)."""
    gamma = float(dispersion.eo_overlap(wl, RidgeStack(width=width, film_thickness=film, etch_depth=etch)))
    f = float(electrostatics.field_factor_fit(gap))
    v = wl * gap / (float(materials.n_ln_e(wl)) ** 3 * materials.R33_PM_PER_V * 1e-6 * gamma * f)
    return v / (2 if push_pull else 1)


def _sbend_arc(length, offset):
    k = math.pi / length
    return integrate.quad(lambda x: math.hypot(1.0, 0.5 * offset * k * math.sin(k * x)), 0, length, epsabs=1e-12)[0]


# ---------------------------------------------------------------------------- Pockels tuning
def test_vpil_published_range():
    """Wang et al., Nature 562, 101 (2018): Vπ·L ≈ 2.2–2.8 V·cm † for X-cut, 600 nm film, 300 nm etch,
    ~1.4 µm ridge, 5 µm gap † (geometry recalled, not read: ±10 % allowed around the range).
    The model's own field factor for that stack and layout (electrodes on the slab), walls 60–90°."""
    for angle in (60.0, 90.0):
        vpil = float(mod.mzm_vpi_l_v_cm(1.55, 5.0, width=1.4, film_thickness=0.6, etch_depth=0.3,
                                        sidewall_angle_deg=angle))
        assert 0.9 * 2.2 <= vpil <= 1.1 * 2.8


def test_push_pull_halves_vpil_and_formula():
    single = float(mod.vpi_l_v_cm(1.55, electrode_gap=6.0))
    assert float(mod.mzm_vpi_l_v_cm(1.55, electrode_gap=6.0)) == pytest.approx(single / 2, rel=1e-14)
    assert single == pytest.approx(_vpil_um(1.55, 6.0, False) * 1e-4, rel=1e-12)


def test_phase_shifter_half_wave():
    """A voltage Vπ = Vπ·L / L shifts the phase by exactly π (single arm)."""
    length, gap = 2000.0, 6.0
    vpi = _vpil_um(1.55, gap, push_pull=False) / length
    t0 = mod.phase_shifter_model(1.55, length=length, electrode_gap=gap, loss_db_per_cm=0.2)[("o1", "o2")]
    t1 = mod.phase_shifter_model(1.55, length=length, electrode_gap=gap, voltage_v=vpi, loss_db_per_cm=0.2)[("o1", "o2")]
    assert abs(complex(t1 / t0) - (-1.0)) < 1e-9
    assert abs(complex(t1)) == pytest.approx(10 ** (-0.2 * length * 1e-4 / 20), rel=1e-12)


def test_phase_shifter_cell_ports_and_validation():
    c = mod.phase_shifter(length=300.0, electrode_gap=5.0, electrode_width=10.0)
    assert {p.name for p in c.ports} == {"o1", "o2", "e1", "e2"}
    assert c.ports["e1"].port_type == "electrical" and c.ports["e1"].center[1] == pytest.approx(12.5)
    # the electrodes need 1 µm clearance to the 1.4 µm ridge: g ≥ 3.4 µm
    with pytest.raises(ValueError, match="electrode_gap"):
        mod.phase_shifter(electrode_gap=3.3)
    with pytest.raises(ValueError, match="electrode_gap"):
        mod.phase_shifter_model(electrode_gap=3.3)
    with pytest.raises(ValueError, match="voltage_v"):
        mod.phase_shifter_model(voltage_v=500.0)


# ---------------------------------------------------------------------------- electrostatic field factor
def test_field_factor_fem_matches_conformal_map():
    """Homogeneous medium, thin electrodes: the CPW field E ∝ b / (K(k') √((z²−a²)(b²−z²)))
    (conformal map, a = S/2, b = S/2 + g), averaged over the ridge column, to 2.5 %."""
    s, g, w = 15.0, 5.0, 1.4
    a, b = s / 2, s / 2 + g
    kk = special.ellipk(1 - (a / b) ** 2)

    def ex(y, x):
        z = x + 1j * y
        return np.real(b / kk / np.sqrt((z * z - a * a) * (b * b - z * z) + 0j))

    xr = (a + b) / 2
    exact = integrate.dblquad(ex, xr - w / 2, xr + w / 2, -0.3, 0.3)[0] / (w * 0.6) * g
    fem = electrostatics.electrode_field_factor(
        g, signal_width=s, width=w, metal_thickness=0.01, eps_ln=(1.0, 1.0), eps_clad=1.0, eps_box=1.0, eps_sub=1.0
    )
    assert fem == pytest.approx(exact, rel=0.025)


@pytest.mark.parametrize("gap", [5.0, 8.0])
def test_field_factor_fit_matches_fem(gap):
    """The platform stack's field factor (the models' defaults) against the FEM at that stack, to the fit's 3 %."""
    fem = electrostatics.electrode_field_factor(gap, sidewall_angle_deg=SIDEWALL_ANGLE_DEG)
    assert float(electrostatics.field_factor_fit(gap)) == pytest.approx(fem, rel=0.03)


# ---------------------------------------------------------------------------- MZM DC response
def _lm(length=5000.0, s=15.0, p=80.0, t=150.0):
    return length + 2 * p + 2 * _sbend_arc(t, (p - s) / 2)


def test_mzm_modulation_length():
    assert float(mod.mzm_modulation_length(3000.0, 20.0, 70.0, 120.0)) == pytest.approx(
        _lm(3000.0, 20.0, 70.0, 120.0), rel=1e-10
    )
    assert mod.mzm(length=1000.0).info["modulation_length"] == pytest.approx(_lm(1000.0), rel=1e-10)


def test_mzm_transmission_is_cos_squared():
    """Balanced push-pull: |t(V)|²/|t(0)|² = cos²(πV/(2Vπ)), Vπ = λ g/(2 n_e³ r33 Γ f L_m)."""
    vpi = _vpil_um(1.55, 5.0, push_pull=True) / _lm()
    assert float(mod.mzm_vpi_v()) == pytest.approx(vpi, rel=1e-10)
    power = jax.jit(lambda v: jnp.abs(mod.mzm_model(1.55, voltage_v=v)[("o1", "o2")]) ** 2)
    p0 = float(power(0.0))
    for v in (0.3 * vpi, vpi / 2, vpi, 1.7 * vpi):
        p = float(power(v))
        assert p / p0 == pytest.approx(math.cos(math.pi * v / (2 * vpi)) ** 2, abs=1e-12)


def test_mzm_insertion_loss_and_extinction():
    """Peak transmission η² (two splitter stages); imbalance r gives extinction ((r+1)/(r−1))²."""
    kw = dict(loss_db_per_cm=0.0, excess_loss_db=0.2)
    peak = abs(complex(mod.mzm_model(1.55, **kw)[("o1", "o2")])) ** 2
    assert -10 * math.log10(peak) == pytest.approx(0.4, abs=1e-4)  # 1e-4 dB: bend radiation of the S-bends
    r = 10 ** (0.5 / 10)
    on = abs(complex(mod.mzm_model(1.55, imbalance_db=0.5)[("o1", "o2")])) ** 2
    off = abs(complex(mod.mzm_model(1.55, imbalance_db=0.5, bias_phase_rad=math.pi)[("o1", "o2")])) ** 2
    assert on / off == pytest.approx(((r + 1) / (r - 1)) ** 2, rel=1e-9)


def test_mzm_voltage_gradient():
    """d|t|²/dV = −|t(0)|² (π/(2Vπ)) sin(πV/Vπ) by jax.grad at V = 3 V."""
    vpi = float(mod.mzm_vpi_v())
    p0 = abs(complex(mod.mzm_model(1.55)[("o1", "o2")])) ** 2
    grad = jax.jit(jax.grad(lambda v: jnp.abs(mod.mzm_model(1.55, voltage_v=v)[("o1", "o2")]) ** 2))(3.0)
    assert float(grad) == pytest.approx(-p0 * math.pi / (2 * vpi) * math.sin(math.pi * 3.0 / vpi), rel=1e-9)


def test_mzm_cell_ports():
    c = mod.mzm(length=500.0)
    names = {p.name: p for p in c.ports}
    assert set(names) == {"o1", "o2", "e1", "e2", "e3", "e4", "e5", "e6"}
    assert names["o1"].center[0] < names["o2"].center[0] and names["o1"].center[1] == names["o2"].center[1] == 0
    assert names["e1"].center[1] < names["e2"].center[1] == 0 < names["e3"].center[1]
    assert all(names[f"e{i}"].port_type == "electrical" for i in range(1, 7))


# ---------------------------------------------------------------------------- traveling-wave response
def _sinc_root(level):
    return optimize.brentq(lambda u: math.sin(u) / u - level, 0.1, math.pi - 1e-9)


def test_velocity_matched_lossless_is_unlimited():
    ng = float(dispersion.ng(1.55))
    assert math.isinf(rf_line.mzm_bandwidth_ghz(n_rf=ng, rf_loss_db_per_cm_sqrt_ghz=0.0, z0_ohm=50.0))


def test_velocity_mismatch_bandwidth():
    """Lossless, matched: m = |sin u/u|, u = π f Δn L/c, so f_3dB = u* c/(π |Δn| L), sin u*/u* = 10^(−3/20)."""
    ng = float(dispersion.ng(1.55))
    dn = 0.15
    lm = _lm()
    expected = _sinc_root(10 ** (-3 / 20)) * C_UM_PER_NS / (math.pi * dn * lm)
    got = rf_line.mzm_bandwidth_ghz(n_rf=ng + dn, rf_loss_db_per_cm_sqrt_ghz=0.0, z0_ohm=50.0)
    assert got == pytest.approx(expected, rel=1e-7)
    assert _sinc_root(10 ** (-3 / 20)) == pytest.approx(1.39, abs=5e-3)  # the familiar 1.39 (≈ 1.4)


def test_loss_limited_bandwidth():
    """Velocity matched, matched impedances: m = (1 − e^{−a})/a, a = α0 √f L (Np), so f_3dB = (a*/α0 L)²."""
    ng = float(dispersion.ng(1.55))
    a_star = optimize.brentq(lambda a: -math.expm1(-a) / a - 10 ** (-3 / 20), 1e-3, 10)
    alpha0_np_per_um = 0.7 / (20 / math.log(10)) * 1e-4
    expected = (a_star / (alpha0_np_per_um * _lm())) ** 2
    assert rf_line.mzm_bandwidth_ghz(n_rf=ng, z0_ohm=50.0) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize("f_ghz", [5.0, 40.0, 110.0])
def test_eo_response_matches_transmission_line_solution(f_ghz):
    """Solve the line for V⁺, V⁻ from the source and load conditions, integrate V(z) e^{iβ_o z} numerically."""
    length, n_rf, n_g, a0, z0, zs, zl = 5000.0, 2.2, 2.3, 0.7, 35.0, 50.0, 60.0
    alpha = a0 / (20 / math.log(10)) * math.sqrt(f_ghz) * 1e-4
    gamma = alpha + 2j * math.pi * f_ghz * n_rf / C_UM_PER_NS
    beta_o = 2 * math.pi * f_ghz * n_g / C_UM_PER_NS
    # V(z) = A e^{−γz} + B e^{γz}, Z0 I(z) = A e^{−γz} − B e^{γz}; V_s = 1
    m = np.array(
        [
            [1 + zs / z0, 1 - zs / z0],  # V(0) + Z_S I(0) = 1
            [np.exp(-gamma * length) * (1 - zl / z0), np.exp(gamma * length) * (1 + zl / z0)],  # V(L) = Z_L I(L)
        ]
    )
    amp_a, amp_b = np.linalg.solve(m, np.array([1.0, 0.0]))
    z = np.linspace(0, length, 200001)
    v = (amp_a * np.exp(-gamma * z) + amp_b * np.exp(gamma * z)) * np.exp(1j * beta_o * z)
    veff = integrate.trapezoid(v, z) / length
    expected = abs(veff) / (zl / (zl + zs))
    got = float(rf_line.mzm_eo_response(f_ghz, length, n_rf, n_g, a0, z0, zs, zl))
    assert got == pytest.approx(expected, rel=1e-7)
    assert float(rf_line.mzm_eo_response(0.0, length, n_rf, n_g, a0, z0, zs, zl)) == pytest.approx(1.0, rel=1e-12)


def test_cpw_semi_infinite_substrate_limit():
    """A bare SiO2 half-space below, air above: ε_eff = (ε + 1)/2, Z0 = 30π K(k0')/(√ε_eff K(k0))."""
    s, g = 15.0, 5.0
    n_rf, z0 = rf_line.cpw_line(s, g, film_thickness=2e-9, etch_depth=1e-9, clad_thickness=1e-9, box_thickness=1e7)
    eps = (materials.EPS_SIO2_RF + 1) / 2
    k0 = s / (s + 2 * g)
    assert float(n_rf) == pytest.approx(math.sqrt(eps), rel=1e-6)
    assert float(z0) == pytest.approx(30 * math.pi / math.sqrt(eps) * special.ellipk(1 - k0**2) / special.ellipk(k0**2), rel=1e-6)


def test_default_line_is_plausible():
    """The platform line lies between its all-oxide and all-Si bounds and near 50 Ω at the default widths."""
    n_rf, z0 = (float(x) for x in rf_line.cpw_line())
    assert math.sqrt((materials.EPS_SIO2_RF + 1) / 2) < n_rf < math.sqrt((materials.EPS_SI_RF + materials.EPS_SIO2_RF) / 2)
    assert 35.0 < z0 < 65.0


# ---------------------------------------------------------------------------- EAM: tests/components/test_eam.py
