"""GSST weight cell: slab perturbation theory against exact layered-slab solutions, states, levels, energy."""

import math

import jax.numpy as jnp
import numpy as np
import pytest
from scipy import optimize, stats

import prismpic  # noqa: F401  (float64)
from prismpic.components import pcm
from prismpic.pdk import materials
from prismpic.testing import band, check_gradient, check_passive, check_reciprocal

WL = 1.55
K0 = 2 * math.pi / WL
NE = float(materials.n_ln_e(WL))
NC = float(materials.n_sio2(WL))
FILM = 0.6


# ---------------------------------------------------------------------------- independent slab solver
def _char(neff, layers):
    """TE dispersion function of SiO2 / layers / SiO2 (transfer matrix of E, E'), numpy, real or complex."""
    gc = K0 * np.sqrt(neff**2 - NC**2 + 0j)
    e, de = 1.0 + 0j, gc
    for n, t in layers:
        q = K0 * np.sqrt(n**2 - neff**2 + 0j)
        e, de = e * np.cos(q * t) + de * np.sin(q * t) / q, -e * q * np.sin(q * t) + de * np.cos(q * t)
    return de + gc * e


def _fundamental(layers):
    """Highest-index guided TE root (real indices), by scanning for sign changes and brentq."""
    n_max = max(n for n, _ in layers)
    grid = np.linspace(NC + 1e-9, n_max - 1e-9, 20001)
    f = np.real(_char(grid, layers))
    i = np.nonzero(np.sign(f[:-1]) != np.sign(f[1:]))[0][-1]
    return optimize.brentq(lambda n: np.real(_char(n, layers)), grid[i], grid[i + 1], xtol=1e-15, rtol=1e-15)


def test_bare_slab_matches_brentq():
    n0 = _fundamental([(NE, FILM)])
    assert float(pcm.slab_te0(WL, NE, NC, FILM)[0]) == pytest.approx(n0, abs=1e-12)


def test_first_order_perturbation_of_a_thin_high_index_layer():
    """Δn_eff = Γ (n_l² − n_c²)/(2 n_eff), Γ = |E(top)|² t/∫|E|², against the exact 4-layer slab."""
    n0 = _fundamental([(NE, FILM)])
    gy = float(pcm.slab_surface_confinement_per_um(WL, NE, NC, FILM))
    errors = []
    for t in (0.0005, 0.001):
        exact = _fundamental([(NE, FILM), (3.3, t)]) - n0
        first = float(pcm.delta_neff(gy * t, 3.3, NC, n0))
        errors.append(first / exact - 1)
    assert abs(errors[1]) < 0.01  # 1 nm: first order within 1 %
    # the error is the next order: linear in t
    assert errors[1] / errors[0] == pytest.approx(2.0, rel=0.05)


@pytest.mark.parametrize("t", [0.01, 0.03])
def test_exact_layer_solver_matches_brentq_real_index(t):
    exact = _fundamental([(NE, FILM), (3.3, t)])
    got = complex(pcm.film_neff_with_layer(WL, 3.3, t, FILM, NE, NC))
    assert got.real == pytest.approx(exact, abs=1e-10)
    assert abs(got.imag) < 1e-12


@pytest.mark.parametrize("t", [0.005, 0.01])
def test_exact_layer_solver_matches_complex_newton_crystalline(t):
    # independent: scipy's complex secant from the lossless (n = 5.1) root
    start = _fundamental([(NE, FILM), (5.1, t)])
    n_c = complex(materials.GSST_CRYSTALLINE)
    ref = optimize.newton(lambda n: _char(n, [(NE, FILM), (n_c, t)]), start + 0j, tol=1e-14, maxiter=200)
    got = complex(pcm.film_neff_with_layer(WL, n_c, t, FILM, NE, NC))
    assert abs(got - ref) < 1e-10
    assert got.imag > 0  # absorbing


def test_first_order_underestimates_crystalline_absorption():
    # the documented reason the model solves the vertical slab exactly: at 10 nm the exact
    # absorption exceeds first order by > 50 % (field drawn into the dense layer)
    n0 = _fundamental([(NE, FILM)])
    t = 0.01
    gy = float(pcm.slab_surface_confinement_per_um(WL, NE, NC, FILM))
    first = complex(pcm.delta_neff(gy * t, complex(materials.GSST_CRYSTALLINE), NC, n0))
    exact = complex(pcm.film_neff_with_layer(WL, complex(materials.GSST_CRYSTALLINE), t, FILM, NE, NC)) - n0
    assert exact.imag > 1.5 * first.imag


@pytest.mark.slow
def test_confinement_estimate_against_mode_solver():
    """Γ/t of the effective-index estimate vs the FD mode solver's |E_x|² at the ridge top (±15 %)."""
    from prismpic.pdk import modesolver as ms

    m = ms.solve_mode(WL, width=1.4, film_thickness=FILM, etch_depth=0.3, mesh=ms.Mesh(step=0.04, step_max=0.2))
    j = int(np.argmin(np.abs(m.y - FILM)))
    xn = np.append(m.x, 2 * m.xh[-1] - m.x[-1])
    hx = np.diff(xn)
    for pcm_width in (1.4, 1.0, 0.6):
        sel = m.xh < pcm_width / 2
        # Δn_eff = ½ ∫Δε|E|² dA with Re∫E×H*·z = 1 (solver's normalisation) = Γ Δε/(2 n_eff)
        fd = m.neff.real * 2 * np.sum(np.abs(m.fields["Ex"][sel, j]) ** 2 * hx[sel])
        est = float(pcm.pcm_confinement(WL, pcm_width, 1.0, 1.4, FILM, 0.3))
        assert est == pytest.approx(fd, rel=0.15)


# ---------------------------------------------------------------------------- the cell's states
def test_amorphous_transparent_crystalline_absorbing():
    a = float(pcm.transmission_db(WL, 0.0, loss_db_per_cm=0.2))
    c = float(pcm.transmission_db(WL, 1.0, loss_db_per_cm=0.2))
    bare = -0.2 * (20.0 + 10.0) * 1e-4  # default length + 2 margins, the (typed) ridge loss only
    excess_a, excess_c = bare - a, bare - c
    assert excess_c > 1.0
    # absorption ∝ Im ε (× field enhancement ≥ 1 for the crystalline state): ≤ Im ε_a/Im ε_c ≈ 2e-4
    im_ratio = (materials.GSST_AMORPHOUS**2).imag / (materials.GSST_CRYSTALLINE**2).imag
    assert 0 < excess_a < 2 * im_ratio * excess_c
    assert float(pcm.phase_range_rad()) > 0  # crystalline: denser, larger phase


def test_monotone_in_crystalline_fraction():
    f = np.linspace(0.0, 1.0, 11)
    t_db = np.array([float(pcm.transmission_db(WL, x)) for x in f])
    dn = np.array([complex(pcm.pcm_delta_neff(WL, x)) for x in f])
    assert np.all(np.diff(t_db) < 0)
    assert np.all(np.diff(dn.real) > 0)


def test_phase_range_matches_model_phase():
    s0 = pcm.pcm_cell_model(wl=WL, crystalline_fraction=0.0)[("o1", "o2")]
    s1 = pcm.pcm_cell_model(wl=WL, crystalline_fraction=1.0)[("o1", "o2")]
    wrapped = float(jnp.angle(s1 / s0))
    expected = math.remainder(float(pcm.phase_range_rad()), 2 * math.pi)
    assert wrapped == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("f", [0.0, 0.5, 1.0])
def test_passive_and_reciprocal(f):
    check_passive(pcm.pcm_cell_model, crystalline_fraction=f)
    check_reciprocal(pcm.pcm_cell_model, crystalline_fraction=f)


def test_gradient_in_crystalline_fraction():
    check_gradient(pcm.pcm_cell_model, "crystalline_fraction", 0.5, wl=band(201))  # shape shared with other tests


# ---------------------------------------------------------------------------- levels and energy
def test_level_spacing_from_error_rate():
    # interior level misread with probability 2 Q(k/2)
    assert float(pcm.level_spacing_sigmas(1e-3)) == pytest.approx(2 * stats.norm.isf(0.5e-3), rel=1e-10)


def test_distinguishable_levels():
    k = 2 * stats.norm.isf(0.5e-3)
    sigma = 0.01
    assert int(pcm.distinguishable_levels(3.5 * k * sigma, sigma)) == 4
    assert int(pcm.distinguishable_levels(15.5 * k * sigma, sigma)) == 16  # 4 bits
    assert int(pcm.distinguishable_levels(0.0, sigma)) == 1


def test_programming_energy():
    assert float(pcm.programming_energy_nj(3.0)) == pytest.approx(3 * 1.7)
    assert float(pcm.programming_energy_nj(-3.0)) == pytest.approx(3 * 1.7)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"crystalline_fraction": 1.2}, "crystalline_fraction"),
        ({"pcm_width": 2.0}, "pcm_width"),
        ({"pcm_thickness": 0.2}, "pcm_thickness"),
        ({"heater_overlap": 6.0}, "heater_overlap"),
    ],
)
def test_bad_input_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        pcm.pcm_cell_model(**kwargs)
    cell_kwargs = {k: v for k, v in kwargs.items() if k != "crystalline_fraction"}
    if cell_kwargs:
        with pytest.raises(ValueError, match=name):
            pcm.pcm_cell(**cell_kwargs)
