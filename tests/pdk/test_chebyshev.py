"""The tables' Chebyshev sums: the NumPy path (concrete inputs) and the jitted path (under a trace) are one sum."""

import gc

import jax
import numpy as np
import pytest
from numpy.polynomial import chebyshev as npcheb

from prismpic.pdk import chebyshev, coupler_table, dispersion
from prismpic.pdk.ridge_stack import RidgeStack


def _fits():
    gc.collect()  # the live fits only: a test's fits built on its own grids may linger as garbage in this worker
    dispersion.neff(1.55)  # loads the mode tables (and their fits) and the coupler's, whatever ran before
    coupler_table.log_coupling(1.55, 0.8, RidgeStack())
    return [o for o in gc.get_objects() if isinstance(o, chebyshev.ChebyshevFit)]


def _points(fit, rng, n=40, beyond=0.02):
    xs = []
    for name, a, b in fit.axes:
        # the axes hold the tabulated variable (1/width, √(foot gap + offset)): the points are drawn in the raw one
        lo, hi = sorted(float(chebyshev.untabulated(name, v)) for v in (a, b))
        xs.append(rng.uniform(lo - beyond * (hi - lo), hi + beyond * (hi - lo), n) if hi > lo else np.full(n, lo))
    return xs


def test_numpy_sum_equals_the_jitted_sum_on_every_fit_inside_and_outside():
    rng = np.random.default_rng(1)
    fits = _fits()
    assert len(fits) > 20
    for fit in fits:
        xs = _points(fit, rng)
        eager = np.asarray(fit(*xs))
        traced = np.asarray(jax.jit(lambda *x, f=fit: f(*x))(*xs))
        np.testing.assert_array_equal(np.isnan(eager), np.isnan(traced))  # NaN outside the tables, the same points
        ok = ~np.isnan(eager)
        assert ok.any() and np.max(np.abs(eager[ok] - traced[ok])) <= 1e-12 * np.max(np.abs(traced[ok]))


def test_axes_at_one_point_summed_first_equal_the_sum_over_broadcast_points():
    """A model's call: one wavelength array against scalar geometry. Both paths sum the scalar axes out first; the
    result equals the same points given as full arrays (every axis varying), NaN where a scalar lies outside. The
    jitted path is compiled for one fit of each set of axes (a compile a fit cost 14 s for all)."""
    rng = np.random.default_rng(4)
    traced_once = set()
    for fit in _fits():
        if len(fit.axes) < 2:
            continue
        trace = fit.axes not in traced_once
        traced_once.add(fit.axes)
        full = _points(fit, rng, n=60, beyond=0.0)
        for outside in (False, True):
            first = np.asarray(full[0])
            scalars = [np.asarray(x[0]) for x in full[1:]]
            if outside:  # the last axis beyond its range: NaN at every point
                name, lo_u, hi_u = fit.axes[-1]
                beyond = 0.5 / lo_u if name == "width" else (2 * hi_u + 1) ** 2 if name == "foot_gap" else (
                    2 * hi_u - lo_u + 1)
                scalars[-1] = np.asarray(beyond)
            mixed = (first, *scalars)
            broadcast = [first, *(np.full(first.shape, float(v)) for v in scalars)]
            eager = np.asarray(fit(*mixed))
            every = np.asarray(fit(*broadcast))
            traced = np.asarray(jax.jit(lambda *x, f=fit: f(*x))(*mixed)) if trace else every
            assert eager.shape == first.shape
            np.testing.assert_array_equal(np.isnan(eager), np.isnan(every))
            np.testing.assert_array_equal(np.isnan(traced), np.isnan(every))
            assert np.isnan(eager).all() == outside, (fit.axes, mixed[1:])
            ok = ~np.isnan(every)
            if ok.any():
                scale = np.max(np.abs(every[ok]))
                assert np.max(np.abs(eager[ok] - every[ok])) <= 1e-12 * scale
                assert np.max(np.abs(traced[ok] - every[ok])) <= 1e-12 * scale


def test_chunked_sum_equals_one_chunk(monkeypatch):
    fit = max(_fits(), key=lambda f: f.c_np.size)
    xs = _points(fit, np.random.default_rng(2), n=500, beyond=0.0)
    whole = np.asarray(fit(*xs))
    monkeypatch.setattr(chebyshev, "NP_CHUNK_BYTES", 8 * fit.c_np.size // fit.c_np.shape[0] * 7)  # 7 points a chunk
    np.testing.assert_allclose(np.asarray(fit(*xs)), whole, rtol=1e-14, atol=0)


@pytest.mark.parametrize("traced", [False, True])
def test_sum_is_numpys_chebval2d(traced):
    """Against NumPy's own Chebyshev series (an independent implementation) on a 2-D interval map."""
    rng = np.random.default_rng(3)
    c = rng.normal(size=(5, 4))
    fit = chebyshev.ChebyshevFit({"wl": (1.45, 1.65, 5), "film": (0.3, 0.9, 4)}, c)
    x, y = rng.uniform(1.45, 1.65, 30), rng.uniform(0.3, 0.9, 30)
    got = np.asarray(jax.jit(fit)(x, y) if traced else fit(x, y))
    u, v = 2 * (x - 1.45) / 0.2 - 1, 2 * (y - 0.3) / 0.6 - 1
    np.testing.assert_allclose(got, npcheb.chebval2d(u, v, c), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("traced", [False, True])
def test_a_one_node_axis_holds_its_node_to_rounding_and_nothing_else(traced):
    """A table of one width (1.3 µm, tabulated as 1/width): a width that rounds through 1/(1/w) is on its node, one a
    nanometre off is outside (NaN); the other axis is summed as usual."""
    c = np.array([[0.5, 0.25, -0.125]])
    fit = chebyshev.ChebyshevFit({"width": (1.3, 1.3, 1), "wl": (1.45, 1.65, 3)}, c)
    rounded = 1 / (1 / 1.3 * (1 + 2e-16))
    call = jax.jit(fit) if traced else fit
    got = np.asarray(call(np.array([1.3, rounded, 1.301]), np.full(3, 1.6)))
    u = 2 * (1.6 - 1.45) / 0.2 - 1
    np.testing.assert_allclose(got[:2], npcheb.chebval(u, c[0]), rtol=1e-14)
    assert np.isnan(got[2])


def _corner_unknown(shape):
    """Nodes unknown in one corner of a tensor grid (last two nodes of the first two axes, first of the third), as a
    mode's cut-off leaves them in the TM0/TE1 pair tables."""
    unknown = np.zeros(shape, bool)
    unknown[-2:, -2:, :1] = True
    return unknown


def test_smoothest_fill_continues_a_function_of_total_degree_one_exactly():
    grid = np.meshgrid(*(chebyshev.lobatto(n) for n in (5, 5, 3)), indexing="ij")
    values = 0.3 + 0.7 * grid[0] - 0.2 * grid[1] + 0.05 * grid[2]
    unknown = _corner_unknown(values.shape)
    placeholder = np.where(unknown, 9.0, values)
    np.testing.assert_allclose(chebyshev.smoothest_fill(placeholder, unknown), values, rtol=0, atol=1e-12)


def test_smoothest_fill_minimises_its_stated_roughness():
    """The filled nodes minimise Σ (total degree − 1)⁴ c² of the interpolant's coefficients (from NumPy's 3-D
    Chebyshev Vandermonde, not the module's per-axis maps): any change of them raises it."""
    axes = [chebyshev.lobatto(n) for n in (5, 5, 3)]
    grid = np.meshgrid(*axes, indexing="ij")
    values = np.exp(0.6 * grid[0] - 0.4 * grid[1]) * np.cos(0.5 * grid[2] + 0.3 * grid[0] * grid[1])
    unknown = _corner_unknown(values.shape)
    filled = chebyshev.smoothest_fill(np.where(unknown, 0.0, values), unknown)
    np.testing.assert_array_equal(filled[~unknown], values[~unknown])
    vander = npcheb.chebvander3d(*(g.ravel() for g in grid), [4, 4, 2])
    degree = sum(np.meshgrid(*(np.arange(n) for n in (5, 5, 3)), indexing="ij")).ravel()
    weight = np.maximum(degree - 1.0, 0.0) ** 4

    def roughness(v):
        return float(np.sum(weight * np.linalg.solve(vander, v.ravel()) ** 2))

    best = roughness(filled)
    rng = np.random.default_rng(5)
    for _ in range(20):
        step = np.where(unknown, rng.normal(size=values.shape), 0.0) * 1e-3
        assert roughness(filled + step) > best
