"""Phase-change (GSST) weight cell on the TFLN ridge: cell, model, levels and programming energy.

Physics: the crystalline fraction f sets the patch's complex index (``materials.n_gsst``,
Lorentz–Lorenz effective medium). The patch on top of the ridge perturbs the guided TE
mode. First-order perturbation theory (e.g. Snyder & Love, "Optical Waveguide Theory"
(1983), §18; Chen, "Foundations for Guided-Wave Optics" (2007))

    Δβ = (k0²/2β) ∫ Δε |E|² dA / ∫ |E|² dA   →   Δn_eff = Γ_pcm (n_pcm² − n_clad²) / (2 n_eff),

with Γ_pcm = ∫_patch |E|² / ∫ |E|² (``pcm_confinement``, ``delta_neff``), holds only for very
thin patches here: GSST (n ≈ 3.3 → 5.1 + 0.35i) is far denser than LN (2.14), so the field
in the layer grows with its thickness. Against the exact SiO2/LN/GSST/SiO2 slab the
first-order Δn_eff is 8 % low at 10 nm amorphous and 25 % low at 30 nm; crystalline, its
Re is 30 % and its Im (the absorption) 2× low already at 10 nm; at 30 nm the exact loaded
mode is pulled into the GSST (Re n_eff > n_LN).

The model (``pcm_delta_neff``) therefore solves the vertical problem exactly and keeps
first order only laterally (effective-index method):
1. vertical: TE0 of the SiO2/LN/GSST/SiO2 slab (complex n_eff, Newton with continuation in
   the layer thickness, ``film_neff_with_layer``) → n_v' under the patch, n_v without;
2. lateral: the patch changes the lateral core permittivity by n_v'² − n_v² over its width;
   Δn_eff = f_x (n_v'² − n_v²)/(2 n_eff), with f_x the fraction of the lateral TE0 |E|²
   (ridge width, core n_v, cladding n_eff of the etched slab; scalar) under the patch.
The TE field is tangential to the patch, so |E| is continuous across it (no D correction).
Reflections and the mode mismatch at the patch ends are neglected; they matter once the
crystalline loaded mode leaves the LN (thick patches, > ~20 nm).

Check of the first-order lateral estimate against the full-vector FD mode solver
(``prismpic.pdk.modesolver``, 1.4 × 0.6 µm ridge, 0.3 µm etch, 1.55 µm): Γ/t = 0.538 vs
0.491 µm⁻¹ (patch 1.4 µm wide), 0.460 vs 0.448 (1.0 µm), 0.313 vs 0.321 (0.6 µm).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from jax.scipy.special import ndtri

from prismpic.checks import check_between, check_choice, check_layout_length, check_positive, check_range
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.units import db_to_amplitude
from prismpic.components.waveguides import straight
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, layers, materials, scattering
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import (
    CLADDING,
    CLADDINGS,
    ETCH_DEPTH,
    FILM_THICKNESS,
    LOSS_DB_PER_CM,
    SIDEWALL_ANGLE_DEG,
    check_film,
)

# Electrical programming (REFERENCES.md): 4-bit programming at 1.7 nJ per dB of
# transmission change (Zhou et al., Nat. Commun. (2023)); heat pulses of µs duration.
ENERGY_PER_DB_NJ = 1.7
SET_PULSE_S = 1e-6  # † crystallisation (set) pulse, µs scale
RESET_PULSE_S = 1e-6  # † amorphisation (reset, melt-quench) pulse, µs scale or shorter
PCM_THICKNESS = 0.01  # µm; thin enough that the crystalline loaded mode stays in the LN (see module doc)


# ---------------------------------------------------------------------------- slab optics
@functools.partial(jax.jit, static_argnames=("n_bisect",))
def slab_te0(wl, n_core, n_clad, thickness, n_bisect: int = 60):
    """TE0 mode of a symmetric slab: (n_eff, κ, γ, u) with u = κ d/2 (µm⁻¹ for κ, γ).

    Solves u tan u = √(V² − u²), V = k0 (d/2) √(n_core² − n_clad²), u ∈ (0, min(V, π/2)),
    by bisection (no gradient) and two Newton steps (which carry the implicit-function
    gradient). Jittable and differentiable in every argument.
    """
    k0 = 2 * jnp.pi / jnp.asarray(wl, dtype=float)
    a = 0.5 * jnp.asarray(thickness, dtype=float)
    v = k0 * a * jnp.sqrt(n_core**2 - n_clad**2)

    def f(u, v):
        return u * jnp.tan(u) - jnp.sqrt(v**2 - u**2)

    vs = jax.lax.stop_gradient(v)
    hi0 = jnp.minimum(vs, jnp.pi / 2)

    def bisect(_, lohi):
        lo, hi = lohi
        mid = 0.5 * (lo + hi)
        pos = f(mid, vs) > 0
        return jnp.where(pos, lo, mid), jnp.where(pos, mid, hi)

    lo, hi = jax.lax.fori_loop(0, n_bisect, bisect, (jnp.zeros_like(hi0), hi0))
    u = jax.lax.stop_gradient(0.5 * (lo + hi))
    for _ in range(2):
        du = jnp.tan(u) + u / jnp.cos(u) ** 2 + u / jnp.sqrt(v**2 - u**2)
        u = u - f(u, v) / du
    kappa = u / a
    gamma = jnp.sqrt(v**2 - u**2) / a
    n_eff = jnp.sqrt(n_core**2 - (kappa / k0) ** 2)
    return n_eff, kappa, gamma, u


def _norm(a, kappa, gamma, u):
    """∫ |E|² over the slab mode E = cos(κy) inside, cos(u) e^{−γ(|y|−a)} outside."""
    return a + jnp.sin(2 * u) / (2 * kappa) + jnp.cos(u) ** 2 / gamma


def slab_surface_confinement_per_um(wl, n_core, n_clad, thickness):
    """|E(surface)|² / ∫|E|² dy (µm⁻¹) of a symmetric slab's TE0 mode: Γ per unit thickness of a thin top layer."""
    _, kappa, gamma, u = slab_te0(wl, n_core, n_clad, thickness)
    return jnp.cos(u) ** 2 / _norm(0.5 * thickness, kappa, gamma, u)


def delta_neff(gamma, n_layer, n_clad, n_eff):
    """First-order Δn_eff = Γ (n_layer² − n_clad²)/(2 n_eff) of a thin layer replacing cladding (complex)."""
    return gamma * (n_layer**2 - n_clad**2) / (2 * n_eff)


def _te_characteristic(neff, k0, n_film, film_thickness, n_layer, layer_thickness, n_clad):
    """TE dispersion function of clad/film/layer/clad: zero at a guided mode (transfer matrix of E, E')."""
    gc = k0 * jnp.sqrt(neff**2 - n_clad**2)
    e, de = jnp.ones_like(neff), gc  # E ∝ exp(γ y) in the lower cladding
    for n, t in ((n_film, film_thickness), (n_layer, layer_thickness)):
        q = k0 * jnp.sqrt(n**2 - neff**2)
        c, s = jnp.cos(q * t), jnp.sin(q * t)
        e, de = e * c + de * s / q, -e * q * s + de * c
    return de + gc * e  # E ∝ exp(−γ y) in the upper cladding


def film_neff_with_layer(wl, n_layer, layer_thickness, film_thickness=FILM_THICKNESS, n_film=None, n_clad=None,
                         n_steps: int = 40, n_newton: int = 3, n_final: int = 6):
    """Complex n_eff of the TE0 mode of the SiO2/LN/layer/SiO2 slab (exact, no perturbation).

    Newton's method on the transfer-matrix dispersion function, followed from the bare film
    (``slab_te0``) by continuation in the layer thickness (``n_steps`` steps of ``n_newton``
    iterations, then ``n_final``), so the root stays on the film's fundamental branch.
    Jittable and differentiable (the final iterations give the implicit-function derivative).

    Args:
        wl: wavelength (µm).
        n_layer: complex index of the top layer (Im > 0 absorbing).
        layer_thickness: top-layer thickness (µm).
        film_thickness: LN film thickness (µm).
        n_film: film index (default n_e: TE field along crystal z); n_clad: default SiO2.
    """
    wl = jnp.asarray(wl, dtype=float)
    n_film = materials.n_ln_e(wl) if n_film is None else n_film
    n_clad = materials.n_sio2(wl) if n_clad is None else n_clad
    n0 = slab_te0(wl, n_film, n_clad, film_thickness)[0]
    return _film_neff_with_layer(wl, n0, n_layer, layer_thickness, film_thickness, n_film, n_clad, n_steps, n_newton,
                                 n_final)


@functools.partial(jax.jit, static_argnames=("n_steps", "n_newton", "n_final"))
def _film_neff_with_layer(wl, n0, n_layer, layer_thickness, film_thickness, n_film, n_clad, n_steps, n_newton, n_final):
    k0 = 2 * jnp.pi / wl
    n_layer = jnp.asarray(n_layer, dtype=complex)
    n0, n_layer = jnp.broadcast_arrays(n0 + 0j, n_layer)

    def newton(n, t, args):
        k0, n_film, film_thickness, n_layer, n_clad = args

        def f(x):
            return _te_characteristic(x, k0, n_film + 0j, film_thickness, n_layer, t, n_clad + 0j)

        val, der = jax.jvp(f, (n,), (jnp.ones_like(n),))  # elementwise, holomorphic
        return n - val / der

    args = (k0, n_film, film_thickness, n_layer, n_clad)
    frozen = jax.tree_util.tree_map(jax.lax.stop_gradient, (n0, layer_thickness, args))

    def step(i, n):
        n0_, t_, args_ = frozen
        t = t_ * jnp.minimum((i // n_newton + 1) / n_steps, 1.0)
        return newton(n, t, args_)

    n = jax.lax.fori_loop(0, n_steps * n_newton + n_final, step, frozen[0])
    # one Newton step outside the loop, from the root: carries the implicit-function derivative
    return newton(jax.lax.stop_gradient(n), layer_thickness, args)


# ---------------------------------------------------------------------------- validation
def _check_pcm(length, pcm_width, pcm_thickness, width, margin, heater_width, heater_overlap, lead_length):
    check_range("length", length, 0.1, 1000.0, unit="µm")
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_between("pcm_width", pcm_width, RULES.min_pcm_width, width)
    check_range("pcm_thickness", pcm_thickness, 0.001, 0.05, unit="µm")
    check_range("margin", margin, 0.0, 1000.0, unit="µm", lo_open=True)
    check_range("heater_width", heater_width, RULES.min_metal_width, 100.0, unit="µm")
    check_between("heater_overlap", heater_overlap, 0.0, margin)
    check_layout_length("lead_length", lead_length)
    # the heater's two leads must not overlap: patch + overlaps span at least two lead widths
    check_between("length", length, 2 * heater_width - 2 * heater_overlap, 1000.0)


# ---------------------------------------------------------------------------- cell
@platform_cell
@gf_cell
def pcm_cell(
    length: float = 20.0,
    pcm_width: float = 1.0,
    pcm_thickness: float = PCM_THICKNESS,
    width: float | None = None,
    margin: float = 5.0,
    heater_width: float = 3.0,
    heater_overlap: float = 1.0,
    lead_length: float = 10.0,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """GSST patch centred on a straight ridge, with a heater above it (set/reset by heat pulses).

    The heater (layers.LAYER.HEATER, above the SiO2 cladding) covers the patch plus
    ``heater_overlap`` at each end, with leads to e1 (south, west end) and e2 (north,
    east end).

    Args:
        length: patch length along the ridge (µm).
        pcm_width: patch width (µm), ≤ ridge width (the patch lies inside LN_RIDGE).
        pcm_thickness: patch thickness (µm); not drawn (layer stack), used by the model.
        width: ridge width (µm); None takes the cross-section's.
        margin: bare ridge before and after the patch (µm).
        heater_width: heater strip and lead width (µm).
        heater_overlap: heater beyond each end of the patch (µm), ≤ margin.
        lead_length: heater lead length from the ridge axis (µm).
        cross_section: optical cross-section name.

    .. code::

                                   ┃ e2
                 ┏━━━━━━━━━━━━━━━━━┛  heater
        o1 ══════╪▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓╪══════ o2   ▓ GSST patch
                 ┃
                 ┃ e1
          margin      length       margin
    """
    width = ridge_width(cross_section, width)
    _check_pcm(length, pcm_width, pcm_thickness, width, margin, heater_width, heater_overlap, lead_length)
    c = gf.Component()
    wg = c.add_ref(straight(length=length + 2 * margin, width=width, cross_section=cross_section))
    x0, x1 = margin, margin + length
    c.add_polygon([(x0, -pcm_width / 2), (x1, -pcm_width / 2), (x1, pcm_width / 2), (x0, pcm_width / 2)], layer=layers.LAYER.PCM)
    xa, xb, hw = x0 - heater_overlap, x1 + heater_overlap, heater_width / 2
    c.add_polygon(
        [(xa, -lead_length), (xa + heater_width, -lead_length), (xa + heater_width, -hw), (xb, -hw), (xb, lead_length),
         (xb - heater_width, lead_length), (xb - heater_width, hw), (xa, hw)],
        layer=layers.LAYER.HEATER,
    )
    c.add_port("e1", center=(xa + hw, -lead_length), width=heater_width, orientation=270, layer=layers.LAYER.HEATER,
               port_type="electrical")
    c.add_port("e2", center=(xb - hw, lead_length), width=heater_width, orientation=90, layer=layers.LAYER.HEATER,
               port_type="electrical")
    c.add_ports(wg.ports)
    c.info["length"] = length + 2 * margin
    c.info["pcm_thickness"] = pcm_thickness
    return c


# ---------------------------------------------------------------------------- model
@model_of(pcm_cell)
def pcm_confinement(wl=1.55, pcm_width=CELL, pcm_thickness=CELL, width=CELL, film_thickness=FILM_THICKNESS,
                    etch_depth=ETCH_DEPTH, cross_section=CELL):
    """First-order Γ_pcm: fraction of the ridge TE mode's |E|² in a thin centred patch (effective-index estimate).

    Vertical: TE0 of the SiO2/LN(n_e)/SiO2 slab of the film thickness, |E|² per unit
    thickness at its top surface; lateral: ``lateral_fraction``. Geometry defaults: ``pcm_cell``'s.
    """
    width = ridge_width(cross_section, width)
    wl = jnp.asarray(wl, dtype=float)
    gy = slab_surface_confinement_per_um(wl, materials.n_ln_e(wl), materials.n_sio2(wl), film_thickness)
    return gy * pcm_thickness * lateral_fraction(wl, pcm_width, width, film_thickness, etch_depth)


@model_of(pcm_cell)
def lateral_fraction(wl=1.55, pcm_width=CELL, width=CELL, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH,
                     cross_section=CELL):
    """Fraction f_x of the lateral TE0 |E|² within ±pcm_width/2 (effective-index lateral slab, scalar).

    ``pcm_width``, ``width`` (None: the cross-section's) and ``cross_section`` default to ``pcm_cell``'s.
    """
    width = ridge_width(cross_section, width)
    wl = jnp.asarray(wl, dtype=float)
    ne, nc = materials.n_ln_e(wl), materials.n_sio2(wl)
    n_film = slab_te0(wl, ne, nc, film_thickness)[0]
    n_slab = slab_te0(wl, ne, nc, film_thickness - etch_depth)[0]
    _, kx, gx, ux = slab_te0(wl, n_film, n_slab, width)
    return (0.5 * pcm_width + jnp.sin(kx * pcm_width) / (2 * kx)) / _norm(0.5 * width, kx, gx, ux)


@model_of(pcm_cell)
def pcm_delta_neff(wl=1.55, crystalline_fraction=0.0, pcm_width=CELL, pcm_thickness=CELL, width=CELL,
                   film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH, cross_section=CELL,
                   sidewall_angle_deg=SIDEWALL_ANGLE_DEG, cladding=CLADDING):
    """Complex Δn_eff of the ridge TE mode under the patch: f_x (n_v'² − n_v²)/(2 n_eff) (see module doc).

    Geometry defaults: ``pcm_cell``'s (``width`` None: the cross-section's). n_eff is the ridge's at the
    process's film, etch, wall angle (°) and cladding (``prismpic.pdk.neff``); the patch's slabs (vertical and
    lateral) are the SiO2-clad effective-index estimates whatever the cladding (the patch lies under the
    heater's oxide).
    """
    width = ridge_width(cross_section, width)
    check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    return ridge_delta_neff(wl, crystalline_fraction, pcm_width, pcm_thickness, ridge)


def ridge_delta_neff(wl, crystalline_fraction, pcm_width, pcm_thickness, ridge: RidgeStack):
    """``pcm_delta_neff`` (complex) of a patch on ``ridge``: what the models compute once they hold their ridge.

    Args:
        wl: wavelength (µm).
        crystalline_fraction: f ∈ [0, 1] of the GSST.
        pcm_width: patch width (µm).
        pcm_thickness: patch thickness (µm).
        ridge: the ridge and its stack (``RidgeStack``: width, film, etch in µm, wall angle in degrees, cladding).
    """
    wl = jnp.asarray(wl, dtype=float)
    ne, nc = materials.n_ln_e(wl), materials.n_sio2(wl)
    n_v = slab_te0(wl, ne, nc, ridge.film_thickness)[0]
    n_v1 = film_neff_with_layer(wl, materials.n_gsst(wl, crystalline_fraction), pcm_thickness, ridge.film_thickness,
                                ne, nc)
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    fx = lateral_fraction(wl, pcm_width, ridge.width, ridge.film_thickness, ridge.etch_depth)
    return fx * (n_v1**2 - n_v**2) / (2 * n)


@model_of(pcm_cell)
def pcm_transmission(
    wl=1.55,
    crystalline_fraction=0.0,
    length=CELL,
    pcm_width=CELL,
    pcm_thickness=CELL,
    width=CELL,
    margin=CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    loss_db_per_cm=LOSS_DB_PER_CM,
    cross_section=CELL,
    sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
    cladding=CLADDING,
):
    """Complex field transmission o1→o2 of the cell (bare ridge + patch section).

    t = 10^(−α(L + 2m)/20) exp(i k0 [n_eff (L + 2m) + Δn_eff L]), Δn_eff from ``pcm_delta_neff``.
    Reflections and scattering at the patch ends are neglected. Geometry defaults: ``pcm_cell``'s
    (``width`` None: the cross-section's).
    """
    width = ridge_width(cross_section, width)
    # the cell's ranges (``_check_pcm``); traced values come back NaN outside them (the jit contract)
    crystalline_fraction = check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    length = check_range("length", length, 0.1, 1000.0, unit="µm")
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")  # pcm_width's bound
    pcm_width = check_between("pcm_width", pcm_width, RULES.min_pcm_width, width)
    pcm_thickness = check_range("pcm_thickness", pcm_thickness, 0.001, 0.05, unit="µm")
    margin = check_range("margin", margin, 0.0, 1000.0, unit="µm", lo_open=True)
    loss_db_per_cm = scattering.checked_loss_db_per_cm(loss_db_per_cm)
    materials.n_gsst(wl, crystalline_fraction)  # validate wl for the GSST data (concrete values)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    dispersion.neff(wl, ridge)  # validate the ridge geometry for the dispersion model
    return _pcm_transmission(jnp.asarray(wl, dtype=float), crystalline_fraction, length, pcm_width, pcm_thickness,
                             margin, ridge, loss_db_per_cm)


@jax.jit
def _pcm_transmission(wl, crystalline_fraction, length, pcm_width, pcm_thickness, margin, ridge: RidgeStack,
                      loss_db_per_cm):
    """Jitted core of ``pcm_transmission``: one compilation for the slab solves and the dispersion model (the
    ridge's cladding is static: one compilation per cladding)."""
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    dn = ridge_delta_neff(wl, crystalline_fraction, pcm_width, pcm_thickness, ridge)
    total = length + 2 * margin
    amp = db_to_amplitude(scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm) * total * 1e-4)
    return amp * jnp.exp(2j * jnp.pi / wl * (n * total + dn * length))


@model_of(pcm_cell)
def pcm_cell_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    pcm_width: FloatLike,
    pcm_thickness: FloatLike,
    width: FloatLike | None,
    margin: FloatLike,
    heater_width: FloatLike,
    heater_overlap: FloatLike,
    lead_length: FloatLike,
    cross_section: str,
    crystalline_fraction: FloatLike = 0.0,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """GSST weight cell: passive (absorbing), reciprocal two-port; see ``pcm_transmission``.

    Args:
        wl: wavelength (µm), 1.50–1.60 (range of the GSST data).
        length, pcm_width, pcm_thickness, width, margin, heater_width, heater_overlap, lead_length,
            cross_section: the cell's geometry (µm; heater parameters are layout only).
        crystalline_fraction: f ∈ [0, 1], 0 amorphous (transparent), 1 crystalline (absorbing).
        film_thickness, etch_depth: LN film (µm).
        loss_db_per_cm: ridge propagation loss (dB/cm); None: from physics (``scattering.propagation_loss_db_per_cm``).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (see ``pcm_delta_neff``).
    """
    width = ridge_width(cross_section, width)
    _check_pcm(length, pcm_width, pcm_thickness, width, margin, heater_width, heater_overlap, lead_length)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    check_film(film_thickness, etch_depth)
    check_choice("cladding", cladding, CLADDINGS)
    scattering.checked_loss_db_per_cm(loss_db_per_cm)
    t = pcm_transmission(wl, crystalline_fraction, length=length, pcm_width=pcm_width, pcm_thickness=pcm_thickness,
                         margin=margin, loss_db_per_cm=loss_db_per_cm, **ridge.params())
    return reciprocal({("o1", "o2"): t})


# ---------------------------------------------------------------------------- figures
def transmission_db(wl=1.55, crystalline_fraction=0.0, **geometry):
    """Power transmission (dB) of the cell; ``geometry`` as for ``pcm_transmission``."""
    t = pcm_transmission(wl, crystalline_fraction, **geometry)
    return 10.0 * jnp.log10(jnp.abs(t) ** 2)


def transmission_range_db(wl=1.55, **geometry):
    """Transmission change (dB, ≥ 0) from amorphous (f = 0) to crystalline (f = 1)."""
    return transmission_db(wl, 0.0, **geometry) - transmission_db(wl, 1.0, **geometry)


@model_of(pcm_cell)
def phase_range_rad(wl=1.55, length=CELL, **geometry):
    """Phase change (rad, unwrapped) from amorphous to crystalline: k0 Re(Δn_eff,c − Δn_eff,a) L.

    ``length`` (µm) defaults to ``pcm_cell``'s; ``geometry``: the other keyword arguments of ``pcm_delta_neff``.
    """
    dn = pcm_delta_neff(wl, 1.0, **geometry) - pcm_delta_neff(wl, 0.0, **geometry)
    return 2 * jnp.pi / jnp.asarray(wl, dtype=float) * jnp.real(dn) * length


def level_spacing_sigmas(error_rate=1e-3):
    """Spacing k (in noise σ) between adjacent levels for a symbol error rate ``error_rate``.

    Gaussian noise, thresholds midway: an interior level is misread with probability
    2 Q(k/2), so k = 2 Q⁻¹(error_rate/2) (k ≈ 6.58 at 1e-3).
    """
    check_range("error_rate", error_rate, 0.0, 0.5, lo_open=True, hi_open=True)
    return -2.0 * ndtri(jnp.asarray(error_rate, dtype=float) / 2.0)


def distinguishable_levels(transmission_range, noise_sigma, error_rate=1e-3):
    """Number of levels separable over a transmission range: ⌊range / (k σ)⌋ + 1.

    Args:
        transmission_range: T_max − T_min (linear power transmission, or any unit shared with σ).
        noise_sigma: standard deviation of the read-out transmission noise (same unit).
        error_rate: target probability of misreading an interior level (sets k).
    """
    check_range("transmission_range", transmission_range, 0.0, math.inf)
    check_positive("noise_sigma", noise_sigma)
    k = level_spacing_sigmas(error_rate)
    return jnp.floor(jnp.asarray(transmission_range, dtype=float) / (k * noise_sigma)).astype(int) + 1


def programming_energy_nj(transmission_step_db, energy_per_db_nj=ENERGY_PER_DB_NJ):
    """Electrical energy (nJ) to change the transmission by ``transmission_step_db`` (either sign).

    Linear in the step at 1.7 nJ/dB (Zhou et al., Nat. Commun. (2023), 4-bit programming).
    """
    check_positive("energy_per_db_nj", energy_per_db_nj, unit="nJ/dB")
    return energy_per_db_nj * jnp.abs(jnp.asarray(transmission_step_db, dtype=float))


DEVICES = {
    "pcm_cell": Device(
        "pcm_cell",
        pcm_cell,
        pcm_cell_model,
        passive=True,
        reciprocal=True,
        extremes=(
            {"length": 0.5, "pcm_width": RULES.min_pcm_width, "margin": 2.0, "heater_overlap": 2.0, "heater_width": 2.0},
            {"length": 200.0, "pcm_width": 2.2, "width": 2.2, "pcm_thickness": 0.05, "crystalline_fraction": 1.0},
            {"crystalline_fraction": 0.5, "width": 0.8, "pcm_width": 0.8},
        ),
        grad_params=("pcm_thickness", "pcm_width", "length"),
        model_only=("wl", "crystalline_fraction", "film_thickness", "etch_depth", "loss_db_per_cm",
                    "sidewall_angle_deg", "cladding"),
    ),
}
