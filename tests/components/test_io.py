"""Edge coupler (mode overlap, Fresnel) and hollow-core-fiber delay line (delay, phase, loss)."""

import math
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate, optimize

import prismpic  # noqa: F401  (float64)
from prismpic.components import io
from prismpic.components.waveguides import taper_model
from prismpic.pdk import materials, scattering
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.testing import check_passive, check_reciprocal

WL = 1.55
C = 299792458.0


# ---------------------------------------------------------------------------- edge coupler
def _slab_profile(n_core, n_clad, d, wl=WL):
    """Independent TE0 slab profile (brentq on u tan u = √(V² − u²))."""
    k0, a = 2 * math.pi / wl, d / 2
    v = k0 * a * math.sqrt(n_core**2 - n_clad**2)
    u = optimize.brentq(lambda u: u * math.tan(u) - math.sqrt(v * v - u * u), 1e-12, min(v, math.pi / 2) - 1e-12)
    kappa, gamma = u / a, math.sqrt(v * v - u * u) / a

    def e(x):
        return math.cos(kappa * x) if abs(x) < a else math.cos(u) * math.exp(-gamma * (abs(x) - a))

    return e, a


def _quad(f, a):
    return integrate.quad(f, -60, 60, points=[-a, a], limit=500)[0]


@pytest.mark.parametrize("w1, w2", [(1.0, 1.0), (0.5, 1.6), (5.2, 1.3)])
def test_gaussian_overlap_formula(w1, w2):
    num = _quad(lambda x: math.exp(-(x / w1) ** 2 - (x / w2) ** 2), 1.0) ** 2
    den = _quad(lambda x: math.exp(-2 * (x / w1) ** 2), 1.0) * _quad(lambda x: math.exp(-2 * (x / w2) ** 2), 1.0)
    assert float(io.gaussian_overlap(w1, w2)) == pytest.approx(num / den, rel=1e-10)


@pytest.mark.parametrize("n_core, d, w_fiber", [(None, 0.3, 1.6), (None, 0.3, 5.2), (1.8, 4.0, 0.3), (1.6, 0.2, 1.6)])
def test_slab_gaussian_coupling_against_quadrature(n_core, d, w_fiber):
    n_core = float(materials.n_ln_e(WL)) if n_core is None else n_core
    n_clad = float(materials.n_sio2(WL))
    e, a = _slab_profile(n_core, n_clad, d)
    g = lambda x: math.exp(-(x / w_fiber) ** 2)  # noqa: E731
    expected = _quad(lambda x: e(x) * g(x), a) ** 2 / (_quad(lambda x: e(x) ** 2, a) * _quad(lambda x: g(x) ** 2, a))
    got = float(io.slab_gaussian_coupling(jnp.asarray(WL), n_core, n_clad, d, jnp.asarray(w_fiber)))
    assert got == pytest.approx(expected, rel=1e-10)


def test_petermann_width_of_slab_mode():
    n_core, n_clad = float(materials.n_ln_e(WL)), float(materials.n_sio2(WL))
    e, a = _slab_profile(n_core, n_clad, 0.3)
    h = 1e-6
    de = lambda x: (e(x + h) - e(x - h)) / (2 * h)  # noqa: E731
    expected = math.sqrt(_quad(lambda x: e(x) ** 2, a) / _quad(lambda x: de(x) ** 2, a))
    assert float(io._petermann_half_width(WL, n_core, n_clad, 0.3)) == pytest.approx(expected, rel=1e-6)


def test_edge_coupler_model_is_overlap_times_taper():
    # a tip inside the dispersion model's width range: the taper is waveguides.taper_model's
    s = io.edge_coupler_model(wl=WL, tip_width=1.0)
    eta = float(io.edge_coupling_efficiency(WL, tip_width=1.0))
    t = taper_model(wl=WL, length=200.0, width1=1.0, width2=1.4)[("o1", "o2")]
    assert complex(s[("o1", "o2")]) == pytest.approx(complex(math.sqrt(eta) * t), rel=1e-10)
    # a narrow tip: amplitude is still √η × propagation loss
    s = io.edge_coupler_model(wl=WL, loss_db_per_cm=0.2)  # typed (physics: the tip's scattering, tested below)
    eta = float(io.edge_coupling_efficiency(WL))
    assert abs(complex(s[("o1", "o2")])) ** 2 == pytest.approx(eta * 10 ** (-0.2 * 200e-4 / 10), rel=1e-12)
    # from physics the narrow tip scatters more than the ridge (held at the tables' 0.8 µm below it)
    ridge_db = float(scattering.straight_loss_db_per_cm(WL, RidgeStack()))
    lost_db = -10 * math.log10(abs(complex(io.edge_coupler_model(wl=WL)[("o1", "o2")])) ** 2 / eta)
    assert ridge_db * 200e-4 < lost_db < float(scattering.straight_loss_db_per_cm(WL, RidgeStack(width=0.8))) * 200e-4
    # Fresnel factor: the same overlap with index-matched gel (n_gap = n_tip) couples more
    n_tip = float(io.tip_mode_half_widths(WL)[2])
    eta_gel = float(io.edge_coupling_efficiency(WL, gap_index=n_tip))
    assert eta / eta_gel == pytest.approx(1 - ((n_tip - 1) / (n_tip + 1)) ** 2, rel=1e-12)


def test_edge_coupler_loss_compared_with_seed():
    """Computed comparison with the seed's fiber–chip −2 dB (S1-12); not asserted equal."""
    loss_lensed = -10 * math.log10(float(io.edge_coupling_efficiency(WL, fiber_mfd_um=io.MFD_LENSED_UM)))
    loss_smf = -10 * math.log10(float(io.edge_coupling_efficiency(WL, fiber_mfd_um=io.MFD_SMF28_UM)))
    print(f"edge coupler: {loss_lensed:.2f} dB (lensed 3.2 µm), {loss_smf:.2f} dB (SMF-28); seed S1-12: 2 dB")
    # the sub-µm-thick facet mode matches a lensed fiber far better than SMF-28
    assert 0 < loss_lensed < loss_smf


def test_edge_coupler_passive_reciprocal():
    check_passive(io.edge_coupler_model)
    check_reciprocal(io.edge_coupler_model)


@pytest.mark.parametrize(
    "kwargs, name", [({"tip_width": 0.2}, "tip_width"), ({"slab_tip_width": 2.0}, "slab_tip_width"),
                     ({"taper_length": -5.0}, "taper_length")]
)
def test_edge_coupler_bad_geometry(kwargs, name):
    for fn in (io.edge_coupler, io.edge_coupler_model):
        with pytest.raises(ValueError, match=name):
            fn(**kwargs)


# ---------------------------------------------------------------------------- hollow-core fiber
def _phase_of_omega(omega, **kw):
    s = io.hcf_delay_line_model(wl=2 * jnp.pi * C / omega * 1e6, **kw)[("o1", "o2")]
    return jnp.angle(s)


def test_group_delay_from_phase_derivative():
    omega0 = 2 * math.pi * C / 1.55e-6
    tau = float(jax.grad(_phase_of_omega)(omega0, length_m=1000.0))
    assert tau == pytest.approx(1.0 * 1000.0 / C, rel=1e-9)
    assert tau * 1e6 == pytest.approx(3.34, abs=0.01)  # REFERENCES: ≈ 3.34 µs/km


def test_group_delay_with_dispersion():
    # τ(ω) = L (β1 + β2 Δω) away from the reference
    beta2 = -2.5e-27  # s²/m
    omega0 = 2 * math.pi * C / 1.55e-6
    omega = 2 * math.pi * C / 1.53e-6
    tau = float(jax.grad(_phase_of_omega)(omega, length_m=1000.0, beta2_ps2_per_km=-2.5))
    assert tau == pytest.approx(1000.0 * (1.0 / C + beta2 * (omega - omega0)), rel=1e-9)


@pytest.mark.parametrize("wl1, wl2", [(1.55, 1.5501), (1.5312, 1.5313), (1.5, 1.6)])
def test_phase_difference_is_exact_for_10_km(wl1, wl2):
    """Δφ = 2π n_g L (1/λ2 − 1/λ1) to a few ulp of the phase from λ_ref at L = 10 km (4e10 rad in total).

    Subtracting 2π n L/λ computed separately loses ~1e-6 rad (ulp of 4e10) to rounding.
    """
    length_m, n_g = 1e4, 1.0
    cycles = Fraction(n_g) * Fraction(length_m) * 10**6 * (1 / Fraction(wl2) - 1 / Fraction(wl1))
    expected = 2 * math.pi * float(cycles)
    kw = dict(length_m=length_m, group_index=n_g, beta2_ps2_per_km=0.0)
    phi1, phi2 = float(io.hcf_phase_rad(wl1, **kw)), float(io.hcf_phase_rad(wl2, **kw))
    # rounding floor: a few ulp of the phases measured from λ_ref = 1.55 µm
    assert phi2 - phi1 == pytest.approx(expected, abs=8 * max(abs(phi1), abs(phi2)) * 2.2e-16 + 1e-9)
    # and the S-parameter carries that phase, modulo 2π
    s1 = io.hcf_delay_line_model(wl=wl1, **kw)[("o1", "o2")]
    s2 = io.hcf_delay_line_model(wl=wl2, **kw)[("o1", "o2")]
    assert float(jnp.angle(s2 / s1)) == pytest.approx(math.remainder(float(cycles % 1) * 2 * math.pi, 2 * math.pi),
                                                       abs=1e-6)


@pytest.mark.parametrize("length_m", [1.0, 1000.0, 1e5])
def test_hcf_loss(length_m):
    s = io.hcf_delay_line_model(wl=jnp.linspace(1.5, 1.6, 5), length_m=length_m, coupling_loss_db=1.5)
    loss_db = -10 * np.log10(np.abs(np.asarray(s[("o1", "o2")])) ** 2)
    assert loss_db == pytest.approx(np.full(5, 0.091 * length_m / 1e3 + 2 * 1.5), abs=1e-10)


def test_hcf_passive_reciprocal():
    check_passive(io.hcf_delay_line_model, length_m=1e4, coupling_loss_db=0.0)
    check_reciprocal(io.hcf_delay_line_model, length_m=1e4)


def test_hcf_cell_is_a_symbolic_block():
    c = io.hcf_delay_line(length_m=2500.0)
    assert sorted(p.name for p in c.ports) == ["o1", "o2"]
    assert c.info["delay_s"] == pytest.approx(2500.0 / C)


def test_hcf_bad_length():
    with pytest.raises(ValueError, match="length_m"):
        io.hcf_delay_line_model(length_m=-1.0)
    with pytest.raises(ValueError, match="length_m"):
        io.hcf_delay_line(length_m=2e5)
