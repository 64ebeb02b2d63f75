"""Electrostatic field factor of the platform's coplanar electrodes: a 2-D FEM solver and its fit.

Pockels tuning acts through the in-plane field in the LN ridge. The field there is well
below V/g (most of the potential drops across the low-ε cladding and the slab under the
electrodes carries the rest); the field factor f is the mean in-plane field in the ridge
over V/g. ``electrode_field_factor`` computes f by a 2-D electrostatic FEM (scikit-fem,
P1) over the cross-section, for electrodes on the slab or above the cladding, sloped walls and
an offset ridge; ``prismpic.pdk.electrodes`` fits it over the process domain (the value every
Pockels model uses) and ``field_factor_fit`` is that fit at the platform stack.
Lengths in µm.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range
from prismpic.pdk import materials
from prismpic.pdk.stack import (
    BOX_THICKNESS,
    CLAD_THICKNESS,
    ETCH_DEPTH,
    FILM_THICKNESS,
    METAL_THICKNESS,
    RIDGE_WIDTH,
)


def field_factor_fit(electrode_gap=5.0):
    """Field factor of electrodes on the slab at the platform stack (``prismpic.pdk.stack``), as a function of gap.

    ``prismpic.pdk.electrodes.field_factor`` at the default ridge (1.4 µm, 0.6 µm film, 0.35 µm etch,
    the stack's wall angle, SiO2 cladding), the ridge centred in the gap: the value the models use for
    that stack. For other stacks and layouts call ``prismpic.pdk.electrodes.field_factor``.
    """
    from prismpic.pdk.electrodes import field_factor

    return field_factor(jnp.asarray(electrode_gap, dtype=float))


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
    width: float = RIDGE_WIDTH,
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
    sidewall_angle_deg: float = 90.0,
    ridge_offset: float = 0.0,
    electrode_height: float | None = None,
) -> float:
    """Field factor f = ⟨E_x⟩_ridge / (V/g) of a GSG line by a 2-D electrostatic FEM (scikit-fem, P1).

    Solves ∇·(ε∇φ) = 0 over the cross-section: signal (φ = 1) of width ``signal_width``
    between grounds (φ = 0) at gap ``electrode_gap``, metal of ``metal_thickness``, a ridge in
    both gaps (mirrored), LN anisotropic (ε_z horizontal, ε_x vertical for X-cut,
    ``eps_ln`` = (ε_z, ε_x)), BOX on Si, air above the cladding; outer boundaries far away
    (natural condition). Returns E_x averaged uniformly over the LN column under one ridge's
    top width (ridge and slab), times g.

    Args:
        electrode_gap: signal-to-ground edge gap g (µm).
        signal_width: signal line width (µm); f changes < 0.2 % over 15–60 µm.
        width: ridge top width (µm).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        metal_thickness: electrode thickness (µm).
        clad_thickness: SiO2 above the film top when the electrodes sit on the slab (µm).
        eps_clad: relative permittivity of the cladding (1.0 for an air-clad ridge).
        sidewall_angle_deg: ridge wall angle from the horizontal (°); the ridge widens downwards.
        ridge_offset: ridge centre minus gap centre (µm), positive towards the ground.
        electrode_height: None puts the metal on the slab (bottom at the slab top); a value puts the
            metal bottom that far above the film top (µm), on a SiO2 cladding of that thickness (the
            layout of 400 nm-film foundry stacks with the electrodes above the cladding).
        hmin: mesh step at the features (µm).

    Not jittable; about a second (``prismpic.pdk.electrodes`` tabulates it for the models).
    """
    import skfem as fe

    check_range("electrode_gap", electrode_gap, width, 1000.0, unit="µm", lo_open=True)
    g, s, t = electrode_gap, signal_width, film_thickness
    slab = t - etch_depth
    spread = etch_depth / math.tan(math.radians(sidewall_angle_deg))  # half-width gained at the foot, µm
    xr = s / 2 + g / 2 + ridge_offset
    xg = s / 2 + g + ground_width
    span = 5 * xg
    fx = [0.0, s / 2, s / 2 + g, xg, xr - width / 2, xr + width / 2, xr - width / 2 - spread, xr + width / 2 + spread]
    x = _graded_axis(-span, span, fx + [-v for v in fx], hmin, max(20.0, span / 100))
    if electrode_height is None:
        m0, top = slab, t + clad_thickness
    else:
        m0 = top = t + electrode_height
    fy = [-box_thickness, 0.0, slab, t, m0, m0 + metal_thickness, top]
    y = _graded_axis(-box_thickness - span, top + metal_thickness + span, fy, hmin / 2, max(20.0, span / 100))
    mesh = fe.MeshTri.init_tensor(x, y)
    basis = fe.Basis(mesh, fe.ElementTriP1())
    ez, ex = eps_ln

    def in_ln(X, Y):
        half = width / 2 + (t - Y) / math.tan(math.radians(sidewall_angle_deg))
        ridge = (np.abs(np.abs(X) - xr) <= half) & (Y > slab) & (Y <= t)
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
    metal = (py >= m0 - tol) & (py <= m0 + metal_thickness + tol)
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
