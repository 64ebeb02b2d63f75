"""Off-chip I/O: the edge coupler (inverse taper) and the hollow-core-fiber delay line.

(A TFLN grating coupler is not provided: TFLN gratings exist but couple more weakly.)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np
from scipy.constants import c as C_LIGHT  # m/s

from prismpic.checks import check_choice, check_range, concrete
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.pcm import slab_te0
from prismpic.components.registry import Device
from prismpic.components.units import db_to_amplitude
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, layers, materials, scattering
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import SLAB_MARGIN, get_cross_section, ridge_width
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

# Fiber mode-field diameters at 1550 nm: SMF-28 10.4 ± 0.5 µm (Corning SMF-28 Ultra datasheet);
# lensed fibers focus to a few µm (3.2 µm taken here as typical †).
MFD_SMF28_UM = 10.4
MFD_LENSED_UM = 3.2


# ---------------------------------------------------------------------------- edge coupler physics
def _petermann_half_width(wl, n_core, n_clad, thickness):
    """Petermann-II half-width w = √(∫E²/∫E'²) (µm) of a symmetric slab's TE0 mode.

    For a Gaussian exp(−x²/w²) this returns w exactly; for other profiles it is the width
    of the Gaussian that predicts the mode's splice (mismatch) loss to second order
    (Petermann, Electron. Lett. 19, 712 (1983), in its one-dimensional form).
    """
    _, kappa, gamma, u = slab_te0(wl, n_core, n_clad, thickness)
    a = 0.5 * thickness
    e2 = a + jnp.sin(2 * u) / (2 * kappa) + jnp.cos(u) ** 2 / gamma
    de2 = kappa**2 * a - kappa * jnp.sin(2 * u) / 2 + gamma * jnp.cos(u) ** 2
    return jnp.sqrt(e2 / de2)


def gaussian_overlap(w1, w2):
    """Power coupling of two aligned 1-D Gaussians of half-widths w1, w2: 2 w1 w2/(w1² + w2²).

    A 2-D mode couples with the product over both axes; for circular modes that is
    (2 w1 w2/(w1² + w2²))² (e.g. Marcuse, Bell Syst. Tech. J. 56, 703 (1977)).
    """
    return 2 * w1 * w2 / (w1**2 + w2**2)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(64)


def _erfcx(z):
    """exp(z²) erfc(z) for z ≥ 0: direct below 20, asymptotic series above (rel. error < 3e-10)."""
    zs = jnp.minimum(z, 20.0)
    zb = jnp.maximum(z, 20.0)
    small = jnp.exp(zs**2) * jax.scipy.special.erfc(zs)
    big = (1 - 1 / (2 * zb**2) + 3 / (4 * zb**4) - 15 / (8 * zb**6)) / (zb * jnp.sqrt(jnp.pi))
    return jnp.where(z < 20.0, small, big)


def slab_gaussian_coupling(wl, n_core, n_clad, thickness, w_fiber):
    """Power coupling of a symmetric slab's TE0 profile with a centred Gaussian exp(−x²/w²), one axis.

    η = (∫ E G)² / (∫ E² ∫ G²) with E = cos(κx) in the core and cos(u) e^{−γ(|x|−a)}
    outside: core part by 64-point Gauss–Legendre, tails in closed form,
    ∫_a^∞ e^{−γ(x−a)} e^{−x²/w²} dx = (√π w/2) e^{−a²/w²} erfcx(a/w + γw/2).
    """
    _, kappa, gamma, u = slab_te0(wl, n_core, n_clad, thickness)
    a = 0.5 * thickness
    x = a * 0.5 * (_GL_NODES + 1.0)
    core = a * 0.5 * jnp.sum(_GL_WEIGHTS * jnp.cos(kappa[..., None] * x) * jnp.exp(-(x / w_fiber[..., None]) ** 2), -1)
    tail = 0.5 * jnp.sqrt(jnp.pi) * w_fiber * jnp.exp(-((a / w_fiber) ** 2)) * _erfcx(a / w_fiber + gamma * w_fiber / 2)
    overlap = 2 * (core + jnp.cos(u) * tail)
    e2 = a + jnp.sin(2 * u) / (2 * kappa) + jnp.cos(u) ** 2 / gamma
    g2 = w_fiber * jnp.sqrt(jnp.pi / 2)
    return overlap**2 / (e2 * g2)


def _eta(wl, tip_width, slab_tip_width, fiber_mfd_um, gap_index, film_thickness, etch_depth):
    wl = jnp.asarray(wl, dtype=float)
    ne, nc = materials.n_ln_e(wl), materials.n_sio2(wl)
    t_v = film_thickness - etch_depth + etch_depth * tip_width / slab_tip_width
    n_v = slab_te0(wl, ne, nc, t_v)[0]
    n_lat = slab_te0(wl, ne, nc, slab_tip_width)[0]
    w_f = 0.5 * jnp.asarray(fiber_mfd_um, dtype=float) * jnp.ones_like(wl)
    eta_y = slab_gaussian_coupling(wl, n_lat, nc, t_v, w_f)
    eta_x = slab_gaussian_coupling(wl, n_v, nc, slab_tip_width, w_f)
    n_tip = slab_te0(wl, n_v, nc, slab_tip_width)[0]
    fresnel = 1.0 - ((n_tip - gap_index) / (n_tip + gap_index)) ** 2
    return eta_x * eta_y * fresnel


_eta_jit = jax.jit(_eta)  # one compilation for the whole chain of slab solves


_TAPER_NODES, _TAPER_WEIGHTS = np.polynomial.legendre.leggauss(32)


def _taper_transmission(wl, taper_length, tip_width, ridge: RidgeStack, loss_db_per_cm, w_lo):
    """Linear ridge taper from ``tip_width`` to ``ridge`` (its width at o2): 10^(−αL/20) exp(i k0 ∫ n_eff(w(s)) ds),
    adiabatic (no conversion loss).

    n_eff from the compact dispersion model inside its width range; below it (the narrow
    tip) the model's value at the lowest tabulated width plus the change of the lateral
    effective-index slab (core n_eff of the film, cladding n_eff of the etched slab; scalar, SiO2-clad)
    from that width down to w, so that n_eff(w) stays continuous and falls towards the slab's.
    """
    u = 0.5 * (_TAPER_NODES + 1.0)
    w = tip_width + (ridge.width - tip_width) * u
    wl_n = wl[..., None]
    ne, nc = materials.n_ln_e(wl_n), materials.n_sio2(wl_n)
    n_film = slab_te0(wl_n, ne, nc, ridge.film_thickness)[0]
    n_slab = slab_te0(wl_n, ne, nc, ridge.slab)[0]
    n_tab = dispersion.neff(wl_n, ridge.replace(width=jnp.maximum(w, w_lo)), jnp.inf, "te", "z")
    n_eim = slab_te0(wl_n, n_film, n_slab, jnp.minimum(w, w_lo))[0] - slab_te0(wl_n, n_film, n_slab, w_lo)[0]
    n = n_tab + jnp.where(w < w_lo, n_eim, 0.0)
    phase = 2 * jnp.pi / wl * jnp.sum(n * 0.5 * _TAPER_WEIGHTS * taper_length, axis=-1)
    # physics (None): the scattering at the local width, held at the tables' lowest width along the narrow tip
    per_cm = scattering.propagation_loss_db_per_cm(wl_n, ridge.replace(width=jnp.maximum(w, w_lo)), loss_db_per_cm)
    loss_db = jnp.sum(per_cm * 0.5 * _TAPER_WEIGHTS, axis=-1) * taper_length * 1e-4
    return db_to_amplitude(loss_db) * jnp.exp(1j * phase)


def _check_edge(taper_length, tip_width, slab_tip_width, width):
    check_range("taper_length", taper_length, 1.0, 1e4, unit="µm")
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    hi = concrete(width)
    if hi is not None:
        check_range("tip_width", tip_width, RULES.min_ridge_width, float(hi), unit="µm")
    lo = concrete(tip_width + 2 * RULES.min_slab_enclosure)
    if lo is not None:
        check_range("slab_tip_width", slab_tip_width, float(lo), 50.0, unit="µm")


@platform_cell
@gf_cell
def edge_coupler(
    taper_length: float = 200.0,
    tip_width: float = 0.3,
    slab_tip_width: float = 4.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Inverse-taper edge coupler: ridge and slab both taper down to the chip facet at o1.

    Args:
        taper_length: taper length (µm).
        tip_width: ridge width at the facet (µm), ≥ the minimum ridge width.
        slab_tip_width: LN slab strip width at the facet (µm); sets the lateral mode size.
        width: ridge width at o2 (µm); None takes the cross-section's.
        cross_section: optical cross-section name (its slab band is matched at o2).

    .. code::

        facet
        o1 ▏▁▁▁▁▁▁▁▁▁▁▁▁▁▁▂▂▂▂▂▂▂▂▂▃▃▃▃▃▃ o2
           tip_width  ───────────────▶ width
    """
    width = ridge_width(cross_section, width)
    _check_edge(taper_length, tip_width, slab_tip_width, width)
    xs = get_cross_section(cross_section, width=width)
    c = gf.Component()
    for layer, h0, h1 in ((layers.LAYER.LN_RIDGE, tip_width / 2, width / 2),
                          (layers.LAYER.LN_SLAB, slab_tip_width / 2, width / 2 + SLAB_MARGIN)):
        c.add_polygon([(0, -h0), (taper_length, -h1), (taper_length, h1), (0, h0)], layer=layer)
    c.add_port("o1", center=(0, 0), width=tip_width, orientation=180, layer=xs.layer, port_type="optical")
    c.add_port("o2", center=(taper_length, 0), width=width, orientation=0, layer=xs.layer, port_type="optical")
    c.info["length"] = taper_length
    return c


@model_of(edge_coupler)
def tip_mode_half_widths(wl=1.55, tip_width=CELL, slab_tip_width=CELL, film_thickness=FILM_THICKNESS,
                         etch_depth=ETCH_DEPTH):
    """(w_x, w_y, n_tip): Gaussian-equivalent half-widths (µm) of the facet mode and its index.

    Effective-index model of the facet, the slab strip (``slab_tip_width`` wide) carrying
    the ridge tip, taken as a rectangle of thickness t = slab + etch × tip_width/slab_tip_width
    (the tip's cross-section spread over the strip), LN (n_e) in SiO2. Each axis is solved
    last in its own effective-index order, so that it sees the index lowered by the other
    axis's confinement: w_y from the vertical slab of thickness t whose core index is the
    n_eff of the lateral slab (width ``slab_tip_width``); w_x from the lateral slab whose core
    index is the n_eff of the vertical slab (scalar approximation on both axes). Widths by
    ``_petermann_half_width``; n_tip is the vertical-then-lateral n_eff. Tip geometry defaults:
    the ``edge_coupler`` cell's.
    """
    wl = jnp.asarray(wl, dtype=float)
    ne, nc = materials.n_ln_e(wl), materials.n_sio2(wl)
    t_v = film_thickness - etch_depth + etch_depth * tip_width / slab_tip_width
    n_v = slab_te0(wl, ne, nc, t_v)[0]
    n_lat = slab_te0(wl, ne, nc, slab_tip_width)[0]
    w_y = _petermann_half_width(wl, n_lat, nc, t_v)
    w_x = _petermann_half_width(wl, n_v, nc, slab_tip_width)
    n_tip = slab_te0(wl, n_v, nc, slab_tip_width)[0]
    return w_x, w_y, n_tip


@model_of(edge_coupler)
def edge_coupling_efficiency(wl=1.55, tip_width=CELL, slab_tip_width=CELL, fiber_mfd_um=MFD_LENSED_UM, gap_index=1.0,
                             film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH):
    """Fiber-to-facet power coupling: mode overlap on both axes × Fresnel transmission of the facet.

    η = η_x η_y [1 − ((n_tip − n_gap)/(n_tip + n_gap))²], each η the overlap of the facet
    mode's effective-index slab profile (see ``tip_mode_half_widths``) with the fiber's
    Gaussian of half-width MFD/2 (``slab_gaussian_coupling``). For Gaussian-like profiles
    it approaches ``gaussian_overlap`` with the Petermann widths; the slab's exponential
    tails couple better to a wider fiber (at the defaults 0.47 vs 0.40 vertically).
    Misalignment, the taper's mode-conversion loss and facet back-reflection are not included.
    Tip geometry defaults: the ``edge_coupler`` cell's.
    """
    check_range("wl", wl, materials.SIO2_SOURCE.wl_min_um, materials.SIO2_SOURCE.wl_max_um, unit="µm")
    return _eta_jit(jnp.asarray(wl, dtype=float), tip_width, slab_tip_width, fiber_mfd_um, gap_index, film_thickness,
                    etch_depth)


@model_of(edge_coupler)
def edge_coupler_model(
    wl: FloatArrayLike = 1.55,
    *,
    taper_length: FloatLike,
    tip_width: FloatLike,
    slab_tip_width: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    fiber_mfd_um: FloatLike = MFD_LENSED_UM,
    gap_index: FloatLike = 1.0,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Edge coupler: o1 is the fiber's mode at the facet, o2 the ridge mode.

    S21 = S12 = √η · t_taper: η from ``edge_coupling_efficiency``, t_taper the ridge taper's
    propagation (``_taper_transmission``). No reflections.

    Args:
        wl: wavelength (µm).
        taper_length, tip_width, slab_tip_width, width, cross_section: the cell's geometry.
        fiber_mfd_um: fiber mode-field diameter (µm): 3.2 lensed †, 10.4 SMF-28.
        gap_index: index between fiber and facet (1 air, ≈ 1.45 index-matching gel).
        film_thickness, etch_depth: LN film (µm).
        loss_db_per_cm: ridge propagation loss (dB/cm); None: from physics (``scattering.propagation_loss_db_per_cm``;
            along the tip narrower than the tables, at their lowest width).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding of the taper's ridge
            (``prismpic.pdk.neff``). The facet coupling η is the SiO2-clad effective-index estimate
            (``tip_mode_half_widths``) whatever the cladding: an air-clad facet is not modelled.
    """
    width = ridge_width(cross_section, width)
    _check_edge(taper_length, tip_width, slab_tip_width, width)
    check_film(film_thickness, etch_depth)
    fiber_mfd_um = check_range("fiber_mfd_um", fiber_mfd_um, 0.5, 50.0, unit="µm")  # NaN outside when traced
    gap_index = check_range("gap_index", gap_index, 1.0, 2.0)
    loss_db_per_cm = scattering.checked_loss_db_per_cm(loss_db_per_cm)
    check_choice("cladding", cladding, CLADDINGS)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    dispersion.neff(wl, ridge)  # validates wl, width, film, etch and wall angle (concrete values)
    w_lo = float(dispersion.domain()["te"]["width"][0])
    t = _edge_coupler_t(jnp.asarray(wl, dtype=float), taper_length, tip_width, slab_tip_width, fiber_mfd_um,
                        gap_index, ridge, loss_db_per_cm, w_lo)
    return reciprocal({("o1", "o2"): t})


@jax.jit
def _edge_coupler_t(wl, taper_length, tip_width, slab_tip_width, fiber_mfd_um, gap_index, ridge: RidgeStack,
                    loss_db_per_cm, w_lo):
    t = _taper_transmission(wl, taper_length, tip_width, ridge, loss_db_per_cm, w_lo)
    eta = _eta(wl, tip_width, slab_tip_width, fiber_mfd_um, gap_index, ridge.film_thickness, ridge.etch_depth)
    return jnp.sqrt(eta) * t


# ---------------------------------------------------------------------------- hollow-core fiber
# DNANF (double nested antiresonant nodeless fiber): 0.091 dB/km at 1550 nm, group index
# ≈ 1.0 (≈ 3.34 µs/km), Petrovich et al., Nat. Photon. (2025) (REFERENCES.md).
HCF_LOSS_DB_PER_KM = 0.091
HCF_GROUP_INDEX = 1.0
HCF_PHASE_INDEX = 1.0  # air core; the modal index sits ~1e-4–1e-3 below 1 (not resolved here)
HCF_BETA2_PS2_PER_KM = -2.5  # † D ≈ +2 ps/(nm·km), the low anomalous dispersion typical of NANFs
# Chip–fiber attach, each end: 1.7 dB/facet, TFLN bilayer inverse taper to a lensed fiber,
# He et al., Opt. Lett. 44, 2314 (2019) †.
HCF_COUPLING_LOSS_DB = 1.7


def _hcf_phase_cycles(wl, length_m, phase_index, group_index, beta2_ps2_per_km, wl_ref_um):
    """The three terms of φ/2π: (frac of n L/λ_ref, n_g L (1/λ − 1/λ_ref), ½ β2 L Δω²/2π)."""
    wl = jnp.asarray(wl, dtype=float)
    l_um = length_m * 1e6
    ref = jnp.modf(phase_index * l_um / wl_ref_um)[0]
    dinv_um = (wl_ref_um - wl) / (wl * wl_ref_um)  # 1/λ − 1/λ_ref (1/µm)
    first = group_index * l_um * dinv_um
    domega = 2 * jnp.pi * C_LIGHT * 1e6 * dinv_um  # rad/s
    second = 0.5 * (beta2_ps2_per_km * 1e-27) * length_m * domega**2 / (2 * jnp.pi)
    return ref, first, second


def _check_hcf(length_m, block_size):
    check_range("length_m", length_m, 0.0, 1e5, unit="m", lo_open=True)
    check_range("block_size", block_size, 10.0, 1e4, unit="µm")


@platform_cell
@gf_cell
def hcf_delay_line(
    length_m: float = 1000.0,
    block_size: float = 100.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Hollow-core-fiber delay line as a symbolic block (the fiber is off chip).

    A FLOORPLAN box with a LABEL and two ports where on-chip ridges meet the fiber attach
    points (edge couplers, lumped into the model's ``coupling_loss_db``); no waveguide
    geometry is drawn.

    Args:
        length_m: fiber length (m).
        block_size: side of the symbolic box (µm).
        width: ridge width at the ports (µm); None takes the cross-section's.
        cross_section: optical cross-section name of the ports.

    .. code::

             ┌───────────────┐
        o1 ──┤ HCF  L m      ├── o2
             └───────────────┘
    """
    width = ridge_width(cross_section, width)
    _check_hcf(length_m, block_size)
    xs = get_cross_section(cross_section, width=width)
    c = gf.Component()
    h = block_size / 2
    c.add_polygon([(0, -h), (block_size, -h), (block_size, h), (0, h)], layer=layers.LAYER.FLOORPLAN)
    c.add_label(f"HCF {length_m:g} m", position=(h, 0), layer=layers.LAYER.LABEL)
    c.add_port("o1", center=(0, 0), width=width, orientation=180, layer=xs.layer, port_type="optical")
    c.add_port("o2", center=(block_size, 0), width=width, orientation=0, layer=xs.layer, port_type="optical")
    c.info["length_m"] = length_m
    c.info["delay_s"] = float(hcf_delay_s(length_m))
    return c


@model_of(hcf_delay_line)
def hcf_phase_rad(wl=1.55, length_m=CELL, phase_index=HCF_PHASE_INDEX, group_index=HCF_GROUP_INDEX,
                  beta2_ps2_per_km=HCF_BETA2_PS2_PER_KM, wl_ref_um=1.55):
    """Unwrapped propagation phase φ(λ) = β(ω) L (rad) of the fiber, Taylor-expanded about λ_ref.

    φ = φ_ref + β1 L Δω + ½ β2 L Δω², Δω = 2πc (1/λ − 1/λ_ref), β1 = n_g/c, so the first
    term is 2π n_g L (λ_ref − λ)/(λ λ_ref) (written with the difference λ_ref − λ, which is
    exact in floating point for nearby λ: no cancellation between two 10¹⁰-rad phases);
    φ_ref = 2π n L/λ_ref reduced modulo 2π (``jnp.modf`` of the cycle count, whose float64
    rounding is ~1e-6 cycles at 10 km; the absolute phase of a km of fiber drifts by far
    more with temperature). ``length_m`` (m) defaults to the ``hcf_delay_line`` cell's.
    """
    ref, first, second = _hcf_phase_cycles(wl, length_m, phase_index, group_index, beta2_ps2_per_km, wl_ref_um)
    return 2 * jnp.pi * (ref + first + second)


def _wrapped_cycles(c):
    """c − round(c): exact in floating point (no rounding), derivative 1."""
    return c - jnp.round(jax.lax.stop_gradient(c))


@model_of(hcf_delay_line)
def hcf_delay_s(length_m=CELL, group_index=HCF_GROUP_INDEX):
    """Group delay n_g L / c (s) at the reference wavelength; ``length_m`` defaults to ``hcf_delay_line``'s."""
    return group_index * length_m / C_LIGHT


@model_of(hcf_delay_line)
def hcf_loss_db(length_m=CELL, loss_db_per_km=HCF_LOSS_DB_PER_KM, coupling_loss_db=HCF_COUPLING_LOSS_DB):
    """Insertion loss (dB): propagation plus the chip–fiber coupling at both ends (``length_m``: the cell's)."""
    return loss_db_per_km * length_m * 1e-3 + 2 * coupling_loss_db


@model_of(hcf_delay_line)
def hcf_delay_line_model(
    wl: FloatArrayLike = 1.55,
    *,
    length_m: FloatLike,
    block_size: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    loss_db_per_km: FloatLike = HCF_LOSS_DB_PER_KM,
    coupling_loss_db: FloatLike = HCF_COUPLING_LOSS_DB,
    phase_index: FloatLike = HCF_PHASE_INDEX,
    group_index: FloatLike = HCF_GROUP_INDEX,
    beta2_ps2_per_km: FloatLike = HCF_BETA2_PS2_PER_KM,
    wl_ref_um: FloatLike = 1.55,
) -> sax.SDict:
    """Fiber delay line: S21 = S12 = 10^(−loss_dB/20) exp(i φ(λ)), φ from ``hcf_phase_rad``.

    Args:
        wl: wavelength (µm).
        length_m, block_size, width, cross_section: the cell's parameters (block and ports layout only).
        loss_db_per_km: fiber attenuation (dB/km), flat over the band (< 0.2 dB/km over 66 THz).
        coupling_loss_db: chip–fiber coupling loss at each end (dB).
        phase_index, group_index: modal phase and group indices of the fiber.
        beta2_ps2_per_km: group-velocity dispersion β2 (ps²/km).
        wl_ref_um: expansion wavelength (µm).
    """
    width = ridge_width(cross_section, width)
    _check_hcf(length_m, block_size)
    loss_db_per_km = check_range("loss_db_per_km", loss_db_per_km, 0.0, 1e3, unit="dB/km")  # NaN outside, traced
    coupling_loss_db = check_range("coupling_loss_db", coupling_loss_db, 0.0, 60.0, unit="dB")
    check_range("beta2_ps2_per_km", beta2_ps2_per_km, -1e3, 1e3, unit="ps²/km")  # fibers: |β2| ≲ 10² ps²/km
    check_range("phase_index", phase_index, 0.5, 2.0)
    check_range("group_index", group_index, 0.5, 2.0)
    check_range("wl_ref_um", wl_ref_um, 0.4, 5.0, unit="µm")
    check_range("wl", wl, 0.4, 5.0, unit="µm")
    amp = db_to_amplitude(hcf_loss_db(length_m, loss_db_per_km, coupling_loss_db))
    # reduce each term to one cycle before the exponential: sin/cos of 1e8-rad arguments
    # lose digits and differ between XLA's fused and unfused kernels
    ref, first, second = _hcf_phase_cycles(wl, length_m, phase_index, group_index, beta2_ps2_per_km, wl_ref_um)
    phi = 2 * jnp.pi * (ref + _wrapped_cycles(first) + _wrapped_cycles(second))
    return reciprocal({("o1", "o2"): amp * jnp.exp(1j * phi)})


DEVICES = {
    "edge_coupler": Device(
        "edge_coupler",
        edge_coupler,
        edge_coupler_model,
        extremes=(
            {"tip_width": RULES.min_ridge_width, "slab_tip_width": 2.25, "taper_length": 10.0},
            {"tip_width": 1.0, "slab_tip_width": 12.0, "taper_length": 2000.0, "width": 2.2, "fiber_mfd_um": 10.4},
        ),
        grad_params=("tip_width", "slab_tip_width", "fiber_mfd_um"),
        model_only=("wl", "fiber_mfd_um", "gap_index", "film_thickness", "etch_depth", "loss_db_per_cm",
                    "sidewall_angle_deg", "cladding"),
    ),
    "hcf_delay_line": Device(
        "hcf_delay_line",
        hcf_delay_line,
        hcf_delay_line_model,
        extremes=({"length_m": 1.0}, {"length_m": 1e5, "block_size": 10.0}),
        grad_params=("loss_db_per_km", "coupling_loss_db"),
        model_only=("wl", "loss_db_per_km", "coupling_loss_db", "phase_index", "group_index", "beta2_ps2_per_km",
                    "wl_ref_um"),
    ),
}
