"""Full-vector FD mode solver: analytic limits, convergence, perturbation identities, physics trends."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import materials, supermodes
from prismpic.pdk import modesolver as ms
from prismpic.pdk.stack import SIDEWALL_ANGLE_DEG

WL = 1.55
# the seed's ridge: 600 nm X-cut film, 1.4 µm top width, 350 nm etch (slab 250 nm)
GEO = {"width": 1.4, "film_thickness": 0.6, "etch_depth": 0.35}


def slab_te0(wl, t, n1, n2):
    """TE0 of a symmetric slab: k0 (t/2) κ = atan(γ/κ) (Marcuse, Theory of Dielectric Optical Waveguides)."""
    k0 = 2 * math.pi / wl

    def f(n):
        kap = math.sqrt(n1**2 - n**2)
        return k0 * t / 2 * kap - math.atan(math.sqrt(n**2 - n2**2) / kap)

    return brentq(f, n2 + 1e-12, n1 - 1e-12)


@pytest.fixture(scope="module")
def default_te():
    return ms.solve_mode(WL, **GEO)


@pytest.mark.parametrize("axis, n_film", [("z", materials.n_ln_e), ("y", materials.n_ln_o)])
def test_unetched_film_matches_symmetric_slab(axis, n_film):
    # etch_depth = 0: an infinite LN slab in SiO2; TE (E horizontal) sees εxx = n_e² (axis z) or n_o² (axis y)
    mesh = ms.Mesh(pad_x=0.5, pml=0.0)
    m = ms.solve_mode(WL, width=1.0, film_thickness=0.6, etch_depth=0.0, crystal_axis=axis, mesh=mesh)
    n_exact = slab_te0(WL, 0.6, float(n_film(WL)), float(materials.n_sio2(WL)))
    assert abs(m.neff.real - n_exact) < 1e-3
    assert m.te_fraction > 0.999


def test_default_ridge_numbers(default_te):
    # published 600 nm X-cut film, 1.4 µm ridge, TE: n_g ≈ 2.26–2.30 (shared/REFERENCES.md)
    assert 2.20 < default_te.ng < 2.36
    n_e = float(materials.n_ln_e(WL))
    assert default_te.neff.real < n_e - 0.1  # well below bulk n_e: part of the mode is in the oxide
    assert default_te.neff.real > float(materials.n_sio2(WL))
    assert abs(default_te.neff.imag) < 1e-8  # guided, lossless
    assert default_te.te_fraction > 0.99


def test_mesh_convergence(default_te):
    coarse = ms.solve_mode(WL, **GEO, mesh=ms.Mesh(step=0.045))
    fine = ms.solve_mode(WL, **GEO, mesh=ms.Mesh(step=0.02))
    assert abs(default_te.neff.real - fine.neff.real) < 1e-3
    assert abs(coarse.neff.real - fine.neff.real) < 2e-3
    # second-order scheme: the error shrinks on refinement
    assert abs(default_te.neff.real - fine.neff.real) < abs(coarse.neff.real - fine.neff.real)


def test_group_index_derivative_matches_central_difference(default_te):
    # the perturbative dn/dλ (left eigenvector from reciprocity) against λ ± δ solves
    assert abs(default_te.ng - ms.group_index(WL, dwl=0.002, **GEO)) < 1e-5


def test_eo_overlap_is_the_first_order_index_response(default_te, monkeypatch):
    # Δn_eff = Δε_xx Γ / (2 n_e) for a uniform Δε_xx in the LN (Γ's definition, ½ n_e³ r33 E ↔ Δε = −n_e⁴ r33 E)
    n_e = float(materials.n_ln_e(WL))
    d_eps = 1e-3
    orig = materials.n_ln_e
    monkeypatch.setattr(materials, "n_ln_e", lambda wl: np.sqrt(float(orig(wl)) ** 2 + d_eps))
    shifted = ms.solve_mode(WL, **GEO)
    gamma = ms.eo_overlap(default_te)
    assert (shifted.neff.real - default_te.neff.real) == pytest.approx(d_eps * gamma / (2 * n_e), rel=2e-3)
    assert 0.5 < gamma < n_e / default_te.neff.real  # most, never all, of the mode sits in the LN


def test_tm_sees_the_ordinary_index():
    # axis z: TM (vertical E) sees n_o > n_e, so TM0 gains on TE0 as the film thickens
    thin = [ms.solve_mode(WL, 1.4, 0.5, 0.25, polarization=p).neff.real for p in ("te", "tm")]
    thick = [ms.solve_mode(WL, 1.4, 0.8, 0.4, polarization=p).neff.real for p in ("te", "tm")]
    assert thin[0] > thin[1]
    assert thick[1] > thick[0]


def test_coupler_decays_with_the_slab_evanescent_constant():
    # two ridges far apart: C ∝ exp(−γ gap), γ = k0 √(n_eff² − n_slab²) in the etched region
    c = [supermodes.coupling_per_um(WL, g, **GEO) for g in (0.6, 0.8)]
    assert c[0] > c[1] > 0
    n_eff = ms.solve_mode(WL, **GEO).neff.real
    slab = GEO["film_thickness"] - GEO["etch_depth"]
    n_slab = ms.slab_te0_neff(WL, slab, float(materials.n_ln_e(WL)), *(2 * [float(materials.n_sio2(WL))]))
    gamma = 2 * math.pi / WL * math.sqrt(n_eff**2 - n_slab**2)
    assert math.log(c[0] / c[1]) / 0.2 == pytest.approx(gamma, rel=0.15)


def test_bend_limits_and_loss_trend(default_te):
    # a huge radius is a straight guide; smaller radii shift the mode out (n_eff referred to R grows) and radiate more
    far = ms.bend_modes(WL, radius=1e5, **GEO, neff_guess=default_te.neff.real)["te"]
    assert abs(far.neff.real - default_te.neff.real) < 1e-5
    b20, b10 = (ms.bend_modes(WL, radius=r, **GEO, neff_guess=default_te.neff.real)["te"] for r in (20.0, 10.0))
    assert b10.neff.real > b20.neff.real > default_te.neff.real
    assert b10.loss_db_per_cm > b20.loss_db_per_cm > 1.0
    # the bend shift is even in 1/R: Δn ∝ 1/R² to leading order
    ratio = (b10.neff.real - default_te.neff.real) / (b20.neff.real - default_te.neff.real)
    assert 3.0 < ratio < 4.2
    # the perturbative dn/dλ also holds with the bend's ε, μ and the PML
    assert b20.ng == pytest.approx(ms.group_index(WL, dwl=0.002, radius=20.0, **GEO), abs=1e-4)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="etch_depth"):
        ms.solve_mode(WL, film_thickness=0.6, etch_depth=0.6)
    with pytest.raises(ValueError, match="crystal_axis"):
        ms.solve_mode(WL, crystal_axis="x")
    with pytest.raises(ValueError, match="radius"):
        ms.solve_mode(WL, radius=-5.0)


def test_decoupled_bend_shift_matches_the_eigenmode_away_from_the_te_tm_crossing():
    # film 0.5 µm, axis z: TE0 and TM0 are 0.04 apart, the bend barely mixes them
    geo = (WL, 1.4, 0.5, 0.3)
    straight = ms.solve_mode(*geo)
    bend = ms.solve_mode(*geo, radius=20.0)
    shift, dshift = ms.bend_shift(WL, 20.0, *geo[1:])
    assert shift.real == pytest.approx(bend.neff.real - straight.neff.real, abs=3e-4)
    assert shift.real - WL * dshift.real == pytest.approx(bend.ng - straight.ng, abs=3e-3)
    assert shift.imag == pytest.approx(bend.neff.imag, rel=0.2)
    # decoupling moves TM0 down and leaves TE0 nearly alone
    te, tm = (ms.solve_mode(*geo, polarization=p) for p in ("te", "tm"))
    te_d = ms.straight_mode(*geo, "te", "z", "sio2", SIDEWALL_ANGLE_DEG, None, decouple_tm=True)
    tm_d = ms.straight_mode(*geo, "tm", "z", "sio2", SIDEWALL_ANGLE_DEG, None, decouple_tm=True)
    assert abs(te_d.neff.real - te.neff.real) < 2e-3
    assert tm_d.neff.real < tm.neff.real - 0.03


def test_sparse_eigensolve_runs_on_one_blas_thread(monkeypatch):
    """``eigs_near`` limits BLAS to one thread around the LU and ARPACK (a pool of two measured ≈ 70 % more CPU for
    the same wall time), whatever the caller's pool; the eigenvalues are those of the matrix."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    import threadpoolctl

    from prismpic.pdk import yee_operators

    seen = []
    eigs = spla.eigs

    def recording_eigs(*args, **kwargs):
        seen.extend(i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas")
        return eigs(*args, **kwargs)

    monkeypatch.setattr(spla, "eigs", recording_eigs)
    nx, ny = 6, 5
    diag = np.linspace(1.0, 2.0, 2 * nx * ny)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        vals, _ = yee_operators.eigs_near(sp.diags(diag).tocsc().astype(complex), 1.51 + 0j, 3, nx, ny)
    assert seen and set(seen) == {1}
    want = diag[np.argsort(np.abs(diag - 1.51))[:3]]
    np.testing.assert_allclose(np.sort(vals.real), np.sort(want), atol=1e-12)
