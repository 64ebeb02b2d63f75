"""Tensor-product Chebyshev interpolants of the mode tables (``prismpic.pdk.dispersion``'s fits).

Node values at Lobatto points become coefficients once, in NumPy, when the tables load (``coefficients_from_nodes``;
along λ Hermite, from values and slopes: ``hermite_coefficients``). A ``ChebyshevFit`` sums them at any point: in
jitted jnp under a JAX trace, in NumPy on concrete inputs, the same sum, NaN outside the tables (normalised
coordinates beyond 1 + ``DOMAIN_TOL``). Two axes are tabulated in a variable in which the tables are smoother
(``tabulated``): the width in 1/width, a coupler's foot gap s in √(s + ``FOOT_GAP_OFFSET``) (``coupler_table``).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from numpy.polynomial import chebyshev as npcheb

from prismpic.pdk.tables import lobatto

DOMAIN_TOL = 1e-6  # normalised coordinates within 1 + this of the tables' edges count as inside (rounding)
# ln C of a coupler bends sharply as its ridges' feet close (slope −5.7 → −3.6 /µm over the first 0.3 µm of foot gap
# at the default ridge): in √(s + 0.05 µm) five Lobatto nodes hold it within 0.2 % where five in s miss by 1.4 %
# (1-D, 20 nm solves; ``coupler_table``)
FOOT_GAP_OFFSET = 0.05


def tabulated(name, x, xp=np):
    """``x`` on the axis ``name`` in the variable the table is interpolated in, ascending with the Lobatto nodes."""
    if name == "width":
        return 1.0 / x
    if name == "foot_gap":
        return xp.sqrt(x + FOOT_GAP_OFFSET)
    return x


def untabulated(name, v):
    """The inverse of ``tabulated`` (NumPy)."""
    if name == "width":
        return 1.0 / v
    if name == "foot_gap":
        return np.asarray(v) ** 2 - FOOT_GAP_OFFSET
    return v


def axis_bounds(name, lo, hi):
    """The interval of the axis ``name`` in its tabulated variable (1/width for the width)."""
    a, b = tabulated(name, float(lo)), tabulated(name, float(hi))
    return (min(a, b), max(a, b))


def unit_coordinate(name, lo, hi, x):
    """``x`` on the axis ``name`` mapped onto [−1, 1] (NumPy)."""
    a, b = axis_bounds(name, lo, hi)
    v = tabulated(name, np.asarray(x, float))
    return 2 * (v - a) / (b - a) - 1 if b > a else np.zeros_like(v)


def _interp_matrix(n):
    """Inverse Vandermonde: Chebyshev coefficients from values at n Lobatto nodes."""
    return np.linalg.inv(npcheb.chebvander(lobatto(n), n - 1))


def coefficients_from_nodes(values, axes):
    """Chebyshev coefficients of a tensor of node values along the given axes."""
    c = values
    for ax in axes:
        c = np.moveaxis(np.tensordot(_interp_matrix(c.shape[ax]), c, axes=(1, ax)), 0, ax)
    return c


def smoothest_fill(values, unknown, power: float = 4.0):
    """``values`` with the ``unknown`` nodes replaced by the values that make the interpolant smoothest: they minimise
    Σ_k (i_k − 1)^power c_k² over its tensor Chebyshev coefficients c_k of total degree i_k = i_1 + i_2 + … ≥ 2 (a
    linear least-squares problem in the unknowns), so a function of total degree ≤ 1 is continued exactly. A table
    holds a few nodes where a quantity is not defined (a mode past its cut-off); this continues it from the others
    without the jump any placeholder value would leave. The coefficient map is built dense: tables up to a few
    thousand nodes."""
    v = np.array(values, float)
    idx = np.flatnonzero(np.asarray(unknown, bool).ravel())
    if idx.size == 0:
        return v
    a = np.ones((1, 1))
    for n in v.shape:
        a = np.kron(a, _interp_matrix(n))
    degree = sum(np.meshgrid(*(np.arange(n) for n in v.shape), indexing="ij")).ravel()
    weighted = np.sqrt(np.maximum(degree - 1.0, 0.0) ** power)[:, None] * a
    known = v.ravel().copy()
    known[idx] = 0.0
    x, *_ = np.linalg.lstsq(weighted[:, idx], -(weighted @ known), rcond=None)
    known[idx] = x
    return known.reshape(v.shape)


def hermite_coefficients(values, derivs, lo, hi):
    """Coefficients (along axis 0) of the degree-2n−1 polynomial in u(λ) matching values and dλ-slopes."""
    n = values.shape[0]
    u = lobatto(n)
    v = npcheb.chebvander(u, 2 * n - 1)
    dv = np.stack([npcheb.chebval(u, npcheb.chebder(np.eye(2 * n)[j])) for j in range(2 * n)], axis=1)
    m = np.concatenate([v, dv * 2.0 / (hi - lo)])  # d/dλ = (2/(hi − lo)) d/du
    rhs = np.concatenate([values, derivs]).reshape(2 * n, -1)
    return np.linalg.solve(m, rhs).reshape(2 * n, *values.shape[1:])


def filled_nan(a):
    """``a`` with its NaN nodes (where a solve found no guided mode) continued from the valid ones
    (``smoothest_fill``; until session 35 they took the mean of the valid nodes, a jump the interpolant spread
    between the nodes). All NaN: zeros."""
    a = np.array(a, float)
    bad = ~np.isfinite(a)
    if bad.all():
        return np.zeros_like(a)
    return smoothest_fill(a, bad) if bad.any() else a


class ChebyshevFit:
    """A tensor-product Chebyshev interpolant: jitted jnp under a trace, NumPy on concrete inputs."""

    def __init__(self, grid: dict, coeffs: np.ndarray, extra: tuple = ()):
        axes = [(k, *v[:2]) for k, v in grid.items()] + list(extra)
        # (name, a, b) per axis, the interval mapped onto [−1, 1]; hashable, a static jit argument
        self.axes = tuple((name, *map(float, axis_bounds(name, lo, hi))) for name, lo, hi in axes)
        self.c_np = np.asarray(coeffs, dtype=float)
        self.c = jnp.asarray(self.c_np)

    def __call__(self, *xs):
        if any(isinstance(x, jax.core.Tracer) for x in xs):
            return _evaluate(self.c, tuple(jnp.asarray(x, dtype=float) for x in xs), self.axes)
        # concrete inputs (validation, eager model calls): the same sum in NumPy, without a compiled program per
        # input shape (each new shape cost a trace, a lowering and a cache load, ≈ 50 ms, against ≈ 0.1 ms here)
        return jnp.asarray(self.numpy(*xs))

    def numpy(self, *xs) -> np.ndarray:
        """The sum at concrete inputs as a NumPy array (inside a caller's trace ``jnp.asarray`` of it is traced)."""
        return chebyshev_sum(np, self.c_np, tuple(np.asarray(x, dtype=float) for x in xs), self.axes)


@functools.partial(jax.jit, static_argnames=("axes",))
def _evaluate(c, xs, axes):
    """``chebyshev_sum`` in jnp, jitted, as eager calls of the recurrences cost ~0.1 s each."""
    return chebyshev_sum(jnp, c, xs, axes)


def chebyshev_sum(xp, c, xs, axes):
    """Σ c_{ij..} T_i(u_1) T_j(u_2) … at the points ``xs`` (broadcast), in the array module ``xp`` (jnp or np)."""
    us = []
    for (name, a, b), x in zip(axes, xs, strict=True):
        v = tabulated(name, x, xp)
        # a one-node axis (a table of one wall angle) holds only its node (to rounding: 1/(1/w) need not be w):
        # elsewhere outside (NaN)
        us.append(2 * (v - a) / (b - a) - 1 if b > a else
                  xp.where(xp.abs(v - a) <= DOMAIN_TOL * max(1.0, abs(a)), 0.0, xp.inf))
    shape = xp.broadcast_shapes(*(u.shape for u in us))
    # the jit contract (module docstring): NaN outside the tables; the basis is evaluated at the clipped
    # point so that its value and derivative stay finite (a masked branch then back-propagates zeros). The clip
    # passes the derivative straight through: a point on an edge (λ = 1.45 µm rounds to u = −1 − 1e-16) keeps
    # its slope (a plain clip gave it none: n_g = 2.106 instead of 2.265 at the default ridge)
    inside = xp.all(xp.stack([xp.abs(xp.broadcast_to(u, shape)) <= 1.0 + DOMAIN_TOL for u in us]), axis=0).ravel()
    if xp is np:
        us = [np.clip(u, -1.0, 1.0) for u in us]
    else:
        us = [u + jax.lax.stop_gradient(jnp.clip(u, -1.0, 1.0) - u) for u in us]
    # axes at one point (a model's geometry, against its array of wavelengths) are summed out first: the sum over
    # the points then runs over the other axes' coefficients only (a ring at 1001 wavelengths: 3 λ-coefficients
    # per point instead of the table's thousands; in NumPy 0.3 ms a sum instead of 33 ms)
    for ax in reversed(range(len(us))):
        if us[ax].size == 1:
            c = xp.tensordot(c, _basis(xp, us[ax].reshape(()), c.shape[ax]), axes=([ax], [0]))
    varying = [xp.broadcast_to(u, shape).ravel() for u in us if u.size != 1]
    if not varying:
        total = xp.broadcast_to(c, inside.shape)
    else:
        bases = [_basis(xp, u, n) for u, n in zip(varying, c.shape, strict=True)]
        if xp is np:
            total = _contract_np(c, bases)
        else:
            letters = "abcdefg"[: len(varying)]
            total = jnp.einsum(letters + "," + ",".join("m" + ch for ch in letters) + "->m", c, *bases)
    return xp.where(inside, total, xp.nan).reshape(shape)


NP_CHUNK_BYTES = 2**25  # the NumPy sum's largest temporary (32 MiB): points are summed in chunks below it


def _contract_np(c, bases):
    """``einsum('abc..,ma,mb,mc..->m', c, *bases)`` one axis at a time (NumPy's own path search costs more than
    the sum at a few points), over chunks of points so that the first partial sum stays under NP_CHUNK_BYTES."""
    m = bases[0].shape[0]
    step = max(1, NP_CHUNK_BYTES // (8 * max(1, c.size // c.shape[0])))
    out = np.empty(m, dtype=np.result_type(c, *bases))
    for lo in range(0, m, step):
        part = [b[lo:lo + step] for b in bases]
        t = part[0] @ c.reshape(c.shape[0], -1)
        for b in part[1:]:
            t = np.einsum("mir,mi->mr", t.reshape(t.shape[0], b.shape[1], -1), b)
        out[lo:lo + step] = t[:, 0]
    return out


def _basis(xp, u, n):
    """T_0..T_{n−1}(u), stacked on the last axis (recurrence: smooth, differentiable)."""
    t = [xp.ones_like(u), u]
    for _ in range(2, n):
        t.append(2 * u * t[-1] - t[-2])
    return xp.stack(t[:n], axis=-1)


def node_values(name, lo, hi, n):
    """The ``n`` Lobatto nodes of the axis ``name`` in its own units, in the order of the tabulated variable (widths
    descending)."""
    a, b = axis_bounds(name, lo, hi)
    v = untabulated(name, a + (lobatto(n) + 1) * 0.5 * (b - a))
    return v
