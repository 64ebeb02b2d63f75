"""An independent reference for the ridge's TE0 index: a conforming finite-element mode solver (scikit-fem).

The finite-difference solver (``prismpic.pdk.modesolver``) puts a sloped sidewall on a Cartesian grid and averages
the permittivity across it; its error in the step is then not a clean h² where a cell row crosses the wall (the
air-clad 0.40 µm film at 62° is not monotone in the step: ``test_sloped_walls.AIR_THIN``). Here the mesh follows
the wall: a structured mesh whose columns in the ridge layer are sheared, so that the sloped wall is a mesh line
and every triangle holds one material; no averaging.

Formulation: Vardapetyan & Demkowicz, "Full-wave analysis of dielectric waveguides at a given frequency", Math.
Comp. 72, 105 (2003) (the one femwell uses): second-order Nédélec elements for E_t and second-order Lagrange
elements for the scaled E_z, diagonal ε = (ε_xx, ε_yy, ε_zz), a generalised eigenproblem in β². Half the cross-
section (x ≥ 0) with electric walls at x = 0 (the TE0 family, as the "pec" symmetry of the FD solver) and at the
outer boundary (the same box and cladding extents as ``ridge_geometry.Mesh``; a guided TE0 above the slab modes
does not reach them).

Written here (not femwell) because femwell meshes through gmsh, not installed; scikit-fem already is (the
electrode electrostatics use it). Used by tests only.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, ElementTriN2, ElementTriP0, ElementTriP2, MeshTri
from skfem.helpers import curl, dot, grad

from prismpic.pdk.ridge_geometry import Mesh, Ridge


def _graded(a: float, b: float, h0: float, growth: float, h_max: float) -> np.ndarray:
    """Nodes from a to b (a < b), the first cell h0, growing by ``growth`` up to ``h_max``."""
    pts, h = [a], h0
    while pts[-1] + h < b - 0.5 * h:
        pts.append(pts[-1] + h)
        h = min(h * growth, h_max)
    pts.append(b)
    return np.array(pts)


def _uniform(a: float, b: float, h: float) -> np.ndarray:
    return np.linspace(a, b, max(2, math.ceil((b - a) / h - 1e-9) + 1))


def te0_neff(wl: float, width: float, film_thickness: float, etch_depth: float, sidewall_angle_deg: float,
             cladding: str = "sio2", crystal_axis: str = "z", h: float = 0.02, growth: float = 1.3) -> float:
    """TE0 n_eff of a straight ridge (top width ``width``) on a wall-conforming mesh of core cell size ``h`` (µm)."""
    ridge = Ridge(width, film_thickness, etch_depth, sidewall_angle_deg, cladding, crystal_axis)
    pads = Mesh()
    t, s = film_thickness, ridge.slab
    top, foot = 0.5 * width, ridge.half_width_at(s)
    x_out = foot + pads.pad_x + pads.pml
    # columns: [0, wall] uniform (the wall moves from the foot to the top through the ridge layer), then the same
    # offsets beyond it: fine for 0.6 µm, then graded
    n_in = max(2, math.ceil(top / h))
    beyond = np.concatenate([_uniform(0.0, 0.6, h)[:-1], _graded(0.6, x_out - foot, h, growth, 0.15)])
    rows = np.unique(np.concatenate([
        -_graded(0.0, pads.pad_below, h, growth, 0.15)[::-1], _uniform(0.0, s, h), _uniform(s, t, h),
        t + _graded(0.0, pads.pad_above, h, growth, 0.15)]))

    def wall(y):  # half-width of the ridge at height y (the foot below the ridge layer, the top above it)
        return np.where(y <= s, foot, np.where(y >= t, top, foot + (top - foot) * (y - s) / (t - s)))

    xs = []
    for y in rows:
        w = float(wall(y))
        xs.append(np.concatenate([np.linspace(0.0, w, n_in + 1), w + beyond[1:]]))
    nx = len(xs[0])
    p = np.array([[x, y] for y, row in zip(rows, xs, strict=True) for x in row]).T
    idx = np.arange(len(rows) * nx).reshape(len(rows), nx)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel(), idx[1:, 1:].ravel(), idx[1:, :-1].ravel()
    tri = np.concatenate([np.stack([a, b, c]), np.stack([a, c, d])], axis=1)
    mesh = MeshTri(np.ascontiguousarray(p), np.ascontiguousarray(tri))

    # one material per triangle, from its centroid (every interface is a mesh line)
    cx, cy = mesh.p[:, mesh.t].mean(axis=1)
    ln, box, clad = ridge.eps_tensor(wl)
    in_ln = (cy > 0) & (cy < t) & ((cy < s) | (cx < wall(cy)))
    eps = [np.where(in_ln, ln[k], np.where(cy < 0, box, clad)) for k in range(3)]
    basis = Basis(mesh, ElementTriN2() * ElementTriP2())
    b0 = basis.with_element(ElementTriP0())
    ex, ey, ez = (b0.interpolate(e) for e in eps)
    k0 = 2 * math.pi / wl

    @BilinearForm
    def a_form(e_t, e_z, v_t, v_z, w):
        eps_et = np.array([w["ex"] * e_t[0], w["ey"] * e_t[1]])
        return (curl(e_t) * curl(v_t) / k0**2 - dot(eps_et, v_t) + dot(grad(e_z), v_t) + dot(eps_et, grad(v_z))
                - w["ez"] * e_z * v_z * k0**2)

    @BilinearForm
    def b_form(e_t, e_z, v_t, v_z, w):
        return -dot(e_t, v_t) / k0**2

    am, bm = a_form.assemble(basis, ex=ex, ey=ey, ez=ez), b_form.assemble(basis)
    # electric walls everywhere on the boundary: x = 0 (TE0 family), the outer sides, the top and the bottom
    inner = basis.complement_dofs(basis.get_dofs())
    am, bm = (-m[inner][:, inner] for m in (am, bm))
    n_top = math.sqrt(max(ln))
    vals = spla.eigs(am.tocsc(), k=3, M=bm.tocsc(), sigma=(k0 * n_top) ** 2, which="LM", return_eigenvectors=False)
    neffs = np.sort(np.sqrt(vals.real) / k0)[::-1]
    guided = neffs[neffs < n_top]
    return float(guided[0])
