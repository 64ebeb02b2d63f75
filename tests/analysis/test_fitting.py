"""The calibration's least-squares core (``calibration.fitting``) on problems whose minima are known exactly.

References are closed forms or SciPy's bounded linear least squares (``scipy.optimize.lsq_linear``, an
independent active-set/trust-region solver), never this solver's own earlier output.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import lsq_linear

from prismpic.analysis.calibration import fitting


def _solve(residual, bounds, x0, scale=None, args=None):
    box = fitting.Box.of(bounds, np.ones(len(bounds)) if scale is None else scale, x0)
    n = len(bounds)
    return fitting.solve(residual, [box], [(np.zeros(n), np.zeros(n))], [args or {"c": jnp.asarray(0.0)}])[0]


VALLEY_STOP = pytest.mark.xfail(strict=True, reason=(
    "known limitation, left for its own issue: the stopping rule ends on a small damped decrease (and on a small "
    "diagonal ½Σg²/diag JᵀJ), which along a valley of correlated parameters happens far from the minimum. The "
    "Newton-decrement rule with Transtrum & Sethna's geodesic acceleration passes these, but moved 3 all-pass "
    "acceptance spectra to χ²_red 19–493 (measured session 9), so it is not in yet"))


def _valley(x, args):
    """Two parameters in σ units: their difference fixed to 1e-4 σ, their sum to 1 σ; minimum at (1, 1)."""
    return jnp.stack([1e4 * (x[0] - x[1]), x[0] + x[1] - 2.0]), jnp.zeros(0)


@VALLEY_STOP
def test_a_correlated_valley_is_followed_to_its_minimum():
    """The damped step along the valley lowers ½χ² by ~1e-5 from (0, 0), though the minimum is Δχ² = 4 away: the
    fit must not stop on a small damped decrease (the Newton decrement is 2 there)."""
    f = _solve(_valley, [(-np.inf, np.inf)] * 2, [0.0, 0.0])
    assert f.ok
    np.testing.assert_allclose(f.x, [1.0, 1.0], atol=1e-3)
    assert f.cost < 1e-6


def _rosenbrock(x, args, k=10.0):
    return jnp.stack([k * (x[1] - x[0] ** 2), 1.0 - x[0]]), jnp.zeros(0)


@VALLEY_STOP
@pytest.mark.parametrize("k", [1e3, 1e5])
def test_a_thin_curved_valley_is_followed_or_the_fit_says_it_did_not_converge(k):
    """Rosenbrock's valley made 100× and 10⁴× thinner (minimum (1, 1), cost 0) from (−1.2, 1): the fit either
    ends at the minimum or reports ``ok`` False; it never calls a point on the valley floor converged (there the
    gradient is tiny against the diagonal of JᵀJ, yet ½χ² is still ~1 above the minimum)."""
    f = _solve(lambda x, a: _rosenbrock(x, a, k), [(-np.inf, np.inf)] * 2, [-1.2, 1.0], scale=[0.1, 0.1])
    if k == 1e3:
        assert f.ok  # the geodesic acceleration follows it within MAX_STEPS
    if f.ok:
        np.testing.assert_allclose(f.x, [1.0, 1.0], atol=1e-3)
        assert f.cost < 1e-6


@pytest.mark.parametrize("x_max", [0.5, -0.3])
def test_a_minimum_on_a_bound_is_reached_and_held_there(x_max):
    """Rosenbrock's valley with x ≤ x_max < 1: the minimum is on the bound, x = x_max, y = x_max², cost
    ½(1 − x_max)² (the valley floor y = x² is free of the bound); the bound's column of the Jacobian is zero."""
    f = _solve(_rosenbrock, [(-2.0, x_max), (-np.inf, np.inf)], [-1.2, 1.0], scale=[0.1, 0.1])
    assert f.ok
    assert f.x[0] == x_max
    assert f.x[1] == pytest.approx(x_max**2, abs=1e-6)
    assert f.cost == pytest.approx(0.5 * (1 - x_max) ** 2, rel=1e-9)
    assert np.all(f.jac_data[:, 0] == 0)


def _linear(x, args):
    return args["a"] @ x - args["b"], jnp.zeros(0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bounded_linear_least_squares_equals_scipy(seed):
    """Correlated columns (condition ≈ 1e4), bounds that bind on some parameters and not on others: the same
    solution as SciPy's ``lsq_linear``, the bound parameters exactly on their bounds."""
    rng = np.random.default_rng(seed)
    n, m = 5, 40
    u = rng.standard_normal((m, n))
    a = u @ np.diag(np.logspace(0, -4, n)) @ np.linalg.qr(rng.standard_normal((n, n)))[0]
    a *= 1e3 / np.linalg.norm(a, 2)
    b = a @ rng.uniform(-2, 2, n) + rng.standard_normal(m)
    lo, hi = np.full(n, -1.0), np.full(n, 1.0)
    ref = lsq_linear(a, b, bounds=(lo, hi), tol=1e-14, lsmr_tol="auto", max_iter=10_000)
    active = (np.abs(ref.x - lo) < 1e-9) | (np.abs(ref.x - hi) < 1e-9)
    assert active.any() and not active.all()  # the case this test is about
    f = _solve(_linear, list(zip(lo, hi, strict=True)), np.zeros(n), scale=np.full(n, 0.1),
               args={"a": jnp.asarray(a), "b": jnp.asarray(b)})
    assert f.ok
    cost_ref = 0.5 * float(np.sum((a @ ref.x - b) ** 2))
    assert f.cost == pytest.approx(cost_ref, abs=1e-4)
    np.testing.assert_array_equal(f.x[active], ref.x[active].round(12))
    # free parameters: within 1 % of their σ of the bound-constrained solution
    free = ~active
    h = a[:, free].T @ a[:, free]
    sig = np.sqrt(np.diag(np.linalg.inv(h)))
    assert np.all(np.abs(f.x[free] - ref.x[free]) < 0.01 * sig)


def test_an_interior_minimum_near_a_bound_is_not_held():
    """A minimum 2e-4 typical steps inside its bound (σ = 1e-6, the bound 20σ away): the fit ends there, not on the
    bound, though it lies within the zone where a parameter pushed outward would be held."""
    def residual(x, args):
        return jnp.stack([1e6 * (x[0] - 2e-5)]), jnp.zeros(0)

    f = _solve(residual, [(0.0, 1.0)], [0.5], scale=[0.1])
    assert f.ok
    assert 2e-5 < fitting.PIN_TOL * 0.1
    assert f.x[0] == pytest.approx(2e-5, abs=1e-8)


def test_the_active_set_rule():
    """Held on a bound: within PIN_TOL typical steps of it and its own Newton step x − g/h beyond it; released (not
    held) when that step points inside, far from the bound, for unbounded or held parameters; the re-centred
    transform puts held parameters exactly on their bounds, the others where they were (a bounded one at least
    PIN_TOL typical steps inside, where the transform's slope lets it move; a held one unmoved)."""
    box = fitting.Box.of([(0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (-np.inf, np.inf), (0.0, 1.0)], [0.1, 0.1, 0.1, 0.1, 0.0],
                         [0.5] * 5)
    t = {k: jnp.asarray(v) for k, v in box.arrays().items()}
    x = jnp.asarray([5e-5, 1 - 5e-5, 5e-5, 5e-5, 5e-5])
    h = jnp.ones(5)
    # Newton steps: below 0, above 1, to 5e-5 − 1e-5 (inside), below 0 (unbounded), below 0 (held by zero step)
    g = jnp.asarray([1.0, -1.0, 1e-5, 1.0, 1.0])
    np.testing.assert_array_equal(fitting.bound_pushed_out(x, g, h, t), [True, True, False, False, False])
    x_far = x.at[0].set(2 * fitting.PIN_TOL * 0.1)
    assert not bool(fitting.bound_pushed_out(x_far, g, h, t)[0])
    pin = jnp.asarray([True, True, False, False, False])
    tn = fitting.held_on_bounds(t, x, pin)
    xn = np.asarray(fitting.to_x(jnp.zeros(5), tn))
    assert xn[0] == 0.0 and xn[1] == 1.0
    np.testing.assert_allclose(xn[2:5], [fitting.PIN_TOL * 0.1, 5e-5, 5e-5], rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(fitting.dx_dz(jnp.zeros(5), tn))[:2], [0.0, 0.0])


def test_the_covariance_of_held_parameters_is_zero_and_the_rest_inverts_the_free_block():
    """C = (JᵀJ)⁻¹ over the parameters the fit moved (correlated columns scaled over six decades), zero rows and
    columns for the held ones (their Jacobian columns zero), against NumPy's inverse of the free block. With two
    held columns the old equilibration turned the pseudo-inverse's rounding residue into variances of 1e269."""
    rng = np.random.default_rng(0)
    j = rng.normal(size=(40, 6)) @ rng.normal(size=(6, 6)) * np.array([1e-3, 1.0, 1e3, 1.0, 1.0, 1e2])
    j[:, [1, 3]] = 0.0
    cov = fitting.covariance(j, np.zeros((6, 6)), 1.0)
    assert np.all(cov[[1, 3]] == 0) and np.all(cov[:, [1, 3]] == 0)
    free = [0, 2, 4, 5]
    np.testing.assert_allclose(cov[np.ix_(free, free)], np.linalg.inv(j[:, free].T @ j[:, free]), rtol=1e-7)
