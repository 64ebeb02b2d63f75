"""Electrostatic field factor of the platform's coplanar electrodes: a 2-D FEM solver and its fit.

Pockels tuning acts through the in-plane field in the LN ridge. The field there is well
below V/g (most of the potential drops across the low-ε cladding and the slab under the
electrodes carries the rest); the field factor f is the mean in-plane field in the ridge
over V/g. ``electrode_field_factor`` computes f by a 2-D electrostatic FEM (scikit-fem,
P1) over the cross-section; ``field_factor_fit`` is a fit of it for the platform stack
(``prismpic.pdk.stack``), the value the modulator models use unless given one.
Lengths in µm.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range
from prismpic.pdk import materials
from prismpic.pdk.stack import BOX_THICKNESS, CLAD_THICKNESS, ETCH_DEPTH, FILM_THICKNESS, METAL_THICKNESS


def field_factor_fit(electrode_gap=5.0):
    """Electrostatic field factor f(g) = mean E_x in the ridge / (V/g) for the platform stack.

    A fit, f = 0.5728 − 0.0837·ln(g/5 µm), to ``electrode_field_factor`` at the default
    stack (``prismpic.pdk.stack``: 0.6 µm film, 0.35 µm etch, 1.4 µm ridge, 0.8 µm Au on
    the slab, 1.5 µm SiO2 cladding, 4.7 µm BOX on Si; 15 µm signal line, default mesh):
    least squares of [1, −ln(g/5)] over 18 equally spaced gaps 3.4–12 µm, fit error
    < 0.0022; f changes < 0.2 % for signal widths 15–60 µm. Regenerate it that way when
    the stack changes (f falls from 0.621 to 0.571 at g = 5 µm between 0.30 and 0.35 µm
    etch). The P1 mesh (hmin = 0.05 µm) puts f ≈ 0.6 % above its mesh-converged value
    (0.5714, 0.5695, 0.5686 at hmin = 0.05, 0.025, 0.0125 µm, g = 5 µm). The fit does not
    follow film_thickness or etch_depth: for other stacks call ``electrode_field_factor``
    and pass ``field_factor``.
    """
    return 0.5728 - 0.0837 * jnp.log(jnp.asarray(electrode_gap, dtype=float) / 5.0)


def _graded_axis(lo, hi, features, hmin, hmax, growth=0.25):
    """Mesh nodes on [lo, hi]: spacing hmin at the features, growing by ``growth``·distance, ≤ hmax."""
    feats = np.sort(np.asarray(features, dtype=float))
    nodes = [lo]
    x = lo
    while x < hi:
        step = min(hmax, hmin + growth * float(np.min(np.abs(feats - x))))
        ahead = feats[feats > x + 1e-9]
        nxt = x + step
        if ahead.size and nxt > ahead[0] - 0.2 * hmin:
            nxt = ahead[0]
        x = min(nxt, hi)
        nodes.append(x)
    return np.unique(np.asarray(nodes))


def electrode_field_factor(
    electrode_gap: float = 5.0,
    signal_width: float = 15.0,
    width: float = 1.4,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    metal_thickness: float = METAL_THICKNESS,
    clad_thickness: float = CLAD_THICKNESS,
    box_thickness: float = BOX_THICKNESS,
    ground_width: float = 80.0,
    eps_ln: tuple[float, float] = materials.LN_EPS_RF,
    eps_clad: float = materials.EPS_SIO2_RF,
    eps_box: float = materials.EPS_SIO2_RF,
    eps_sub: float = materials.EPS_SI_RF,
    hmin: float = 0.05,
) -> float:
    """Field factor f = ⟨E_x⟩_ridge / (V/g) of a GSG line by a 2-D electrostatic FEM (scikit-fem, P1).

    Solves ∇·(ε∇φ) = 0 over the cross-section: signal (φ = 1) of width ``signal_width``
    between grounds (φ = 0) at gap ``electrode_gap``, metal of ``metal_thickness`` on the
    slab, ridges centred in both gaps, LN anisotropic (ε_z horizontal, ε_x vertical for
    X-cut, ``eps_ln`` = (ε_z, ε_x)), SiO2 cladding over the film, BOX on Si, air above;
    outer boundaries far away (natural condition). Returns E_x averaged uniformly over
    the LN column under one ridge (ridge and slab, |x − x_r| ≤ width/2), times g.
    Not jittable; about a second.
    """
    import skfem as fe

    check_range("electrode_gap", electrode_gap, width, 1000.0, unit="µm", lo_open=True)
    g, s, t = electrode_gap, signal_width, film_thickness
    slab = t - etch_depth
    xr = s / 2 + g / 2
    xg = s / 2 + g + ground_width
    span = 5 * xg
    fx = [0.0, s / 2, s / 2 + g, xg, xr - width / 2, xr + width / 2]
    x = _graded_axis(-span, span, fx + [-v for v in fx], hmin, max(20.0, span / 100))
    top = t + clad_thickness
    fy = [-box_thickness, 0.0, slab, t, slab + metal_thickness, top]
    y = _graded_axis(-box_thickness - span, top + span, fy, hmin / 2, max(20.0, span / 100))
    mesh = fe.MeshTri.init_tensor(x, y)
    basis = fe.Basis(mesh, fe.ElementTriP1())
    ez, ex = eps_ln

    def in_ln(X, Y):
        ridge = (np.abs(np.abs(X) - xr) <= width / 2) & (Y > slab) & (Y <= t)
        return ((Y >= 0) & (Y <= slab)) | ridge

    @fe.BilinearForm
    def laplace(u, v, w):
        X, Y = w.x
        ln = in_ln(X, Y)
        eps = np.where(Y < -box_thickness, eps_sub, np.where(Y < 0, eps_box, np.where(Y <= top, eps_clad, 1.0)))
        return np.where(ln, ez, eps) * u.grad[0] * v.grad[0] + np.where(ln, ex, eps) * u.grad[1] * v.grad[1]

    a = laplace.assemble(basis)
    px, py = mesh.p
    tol = 1e-9
    metal = (py >= slab - tol) & (py <= slab + metal_thickness + tol)
    sig = metal & (np.abs(px) <= s / 2 + tol)
    gnd = metal & (np.abs(px) >= s / 2 + g - tol) & (np.abs(px) <= xg + tol)
    phi = np.zeros(px.size)
    phi[sig] = 1.0
    phi = fe.solve(*fe.condense(a, np.zeros(px.size), x=phi, D=np.flatnonzero(sig | gnd)))
    gx = basis.interpolate(phi).grad[0]
    X, Y = np.asarray(basis.global_coordinates())
    dx = basis.dx
    sel = (np.abs(X - xr) <= width / 2) & (Y >= 0) & (Y <= t)
    return float(-(gx * dx)[sel].sum() / dx[sel].sum() * g)
