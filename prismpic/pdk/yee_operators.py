"""Yee-grid finite-difference operators and the sparse eigensolve of the mode solver.

Derivative matrices on staggered nodes with stretched-coordinate PML (``diff_ops``), sub-pixel
permittivity averages (``cell_average``: harmonic across an interface, arithmetic along it), the LN
fill fraction of cells (``ln_fraction``), and shift-invert ARPACK near a target index with a
nested-dissection ordering (``eigs_near``). See ``prismpic.pdk.modesolver`` for the method.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from prismpic.pdk.ridge_geometry import Ridge

# ----------------------------------------------------------------------------- operators


def diff_ops(nodes: np.ndarray, left: str, stretch_int=None, stretch_half=None):
    """Forward (integer → half nodes) and backward (half → integer) derivative matrices.

    Unknowns sit at nodes[:-1] (integer) and their midpoints (half). The far end nodes[-1]
    is an electric wall (integer-node fields vanish). The near end nodes[0] is a wall of
    type ``left``: "pec" (half-node fields even, integer-node E fields zero) or "pmc"
    (half-node fields odd).
    """
    n = len(nodes) - 1
    h = np.diff(nodes)  # primal spacing, at half nodes
    half = 0.5 * (nodes[:-1] + nodes[1:])
    hd = np.empty(n)  # dual spacing, at integer nodes
    hd[1:] = np.diff(half)
    hd[0] = 0.5 * h[0]  # the wall cuts the dual cell of nodes[0] in half
    fwd = sp.diags([-1.0 / h, 1.0 / h[:-1]], [0, 1], shape=(n, n), format="csr")
    bwd = sp.diags([1.0 / hd, -1.0 / hd[1:]], [0, -1], shape=(n, n), format="lil")
    bwd[0, 0] = 0.0 if left == "pec" else 1.0 / hd[0]  # (g½ − g₋½)/h0 with g₋½ = ±g½
    bwd = bwd.tocsr()
    if stretch_half is not None:
        fwd = sp.diags(1.0 / stretch_half) @ fwd
    if stretch_int is not None:
        bwd = sp.diags(1.0 / stretch_int) @ bwd
    return fwd, bwd, h, hd


def cell_average(ridge: Ridge, wl: float, comp: int, xa, xb, ya, yb, s: int, harmonic_axis: int | None):
    """Average ε_comp over the cells [xa, xb] × [ya, yb] on an s × s sample grid (harmonic along one axis)."""
    t = (np.arange(s) + 0.5) / s
    xs = xa[:, None] + (xb - xa)[:, None] * t[None, :]  # (nx, s)
    ys = ya[:, None] + (yb - ya)[:, None] * t[None, :]  # (ny, s)
    e = ridge.eps_at(xs[:, :, None, None], ys[None, None, :, :], wl, comp)  # (nx, s, ny, s)
    if harmonic_axis == 0:
        return (1.0 / (1.0 / e).mean(axis=1)).mean(axis=-1)
    if harmonic_axis == 1:
        return (1.0 / (1.0 / e).mean(axis=-1)).mean(axis=1)
    return e.mean(axis=(1, 3))


def ln_fraction(ridge: Ridge, xa, xb, ya, yb, s: int):
    """LN fill fraction of each cell [xa, xb] × [ya, yb] (µm), from s × s sub-samples."""
    t = (np.arange(s) + 0.5) / s
    xs = xa[:, None] + (xb - xa)[:, None] * t[None, :]
    ys = ya[:, None] + (yb - ya)[:, None] * t[None, :]
    return ridge.in_ln(xs[:, :, None, None], ys[None, None, :, :]).mean(axis=(1, 3))


# ----------------------------------------------------------------------------- linear algebra


def nested_dissection_order(nx: int, ny: int, reach: int = 2, leaf: int = 48) -> np.ndarray:
    """Geometric nested-dissection ordering of an nx × ny grid (node index i·ny + j).

    Separators are ``reach`` lines thick (the stencil reach of P·Q), so eliminating the
    two halves first confines fill-in to the separators (George, SIAM J. Numer. Anal. 10,
    345 (1973)); a little less fill than SuperLU's COLAMD on this operator.
    """
    out = []

    def rec(i0, i1, j0, j1):
        di, dj = i1 - i0, j1 - j0
        if di * dj <= leaf or (di <= 2 * reach and dj <= 2 * reach):
            ii, jj = np.meshgrid(np.arange(i0, i1), np.arange(j0, j1), indexing="ij")
            out.append((ii * ny + jj).ravel())
            return
        if di >= dj:
            m = i0 + (di - reach) // 2
            rec(i0, m, j0, j1)
            rec(m + reach, i1, j0, j1)
            ii, jj = np.meshgrid(np.arange(m, m + reach), np.arange(j0, j1), indexing="ij")
        else:
            m = j0 + (dj - reach) // 2
            rec(i0, i1, j0, m)
            rec(i0, i1, m + reach, j1)
            ii, jj = np.meshgrid(np.arange(i0, i1), np.arange(m, m + reach), indexing="ij")
        out.append((ii * ny + jj).ravel())

    rec(0, nx, 0, ny)
    return np.concatenate(out)


def eigs_near(a, sigma: complex, k: int, nx: int, ny: int, ncv: int | None = None):
    """k eigenpairs of ``a`` nearest ``sigma`` by shift-invert Arnoldi with an ND-ordered LU (``ncv`` Arnoldi
    vectors; None: ARPACK's default, max(2k + 1, 20)).

    Runs on one BLAS thread: SuperLU's and ARPACK's BLAS calls are small, so OpenBLAS's pool gains ≈ 3 % of wall time
    for ≈ 70 % more CPU (a one-sided gold solve: 8.9 s wall, 15.7 CPU-s with the pool of two; 9.2 s, 9.2 CPU-s with
    one), and its spinning threads slow every other process on the cores (two table-build or test workers on two
    cores: 5× the CPU, session 28)."""
    import threadpoolctl

    n = nx * ny
    nodes = nested_dissection_order(nx, ny)
    perm = np.concatenate([nodes[:, None], nodes[:, None] + n], axis=1).ravel()  # Ex, Ey of a node together
    inv = np.empty_like(perm)
    inv[perm] = np.arange(len(perm))
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        m = (a - sigma * sp.identity(a.shape[0], format="csc"))[perm][:, perm].tocsc()
        lu = spla.splu(m, permc_spec="NATURAL", diag_pivot_thresh=0.1, options={"SymmetricMode": True})

        def solve(v):
            return lu.solve(np.asarray(v, dtype=complex)[perm])[inv]

        op = spla.LinearOperator(a.shape, matvec=solve, dtype=complex)
        vals, vecs = spla.eigs(a, k=k, sigma=sigma, OPinv=op, which="LM", tol=1e-10, ncv=ncv)
    return vals, vecs
