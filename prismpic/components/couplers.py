"""Splitters and couplers: Y-branch 1×2 splitter and directional coupler; cells and models.

Both are built from raised-cosine S-bends, y(x) = (h/2)(1 − cos πx/L), whose curvature
peaks at the ends: R_min = 2L²/(π² h). Cell and model share that shape, so the model
integrates the phase (and the directional coupler its coupling) along the drawn path.
Port order follows gdsfactory: the splitter is o1 (input), o2 (upper output), o3 (lower
output), as ``gf.components.mmi1x2``; the coupler is o1 (bottom left), o2 (top left),
o3 (top right), o4 (bottom right), as ``gf.components.coupler``.

The models take the process (wafer) parameters as ``waveguides``' do (``film_thickness``, ``etch_depth``,
``sidewall_angle_deg``, ``cladding``, with the stack's defaults); widths and gaps are the ridge tops' as
drawn, so with sloped walls the ridges' feet are closer than ``gap`` (``prismpic.pdk.coupling_per_um``).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_layout_length, check_range
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.ring_physics import coupling_per_um_extended, fit_max_gap, gauss_panels
from prismpic.components.sbends import (
    check_offset_span,
    check_sbend_radius,
    given_text,
    sbend_min_radius,
    sbend_points,
    sbend_response,
)
from prismpic.components.units import db_to_amplitude, db_to_power
from prismpic.components.waveguides import check_waveguide_params, horizontal_path
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import coupler_table, dispersion, scattering
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import SLAB_MARGIN, get_cross_section, ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(32)  # phase quadrature on [-1, 1]


# ---------------------------------------------------------------------------- tapers
def _taper_response(wl, length, ridge: RidgeStack, width2, loss_db_per_cm):
    """Linear taper along crystal y from ``ridge`` (its width at the start) to ``width2`` (µm): phase
    ∫ k0 n_eff(w(s)) ds, propagation loss.

    Widths beyond the dispersion tables' maximum (the Y-branch's 2w + tip_gap ≈ 3 µm
    junction) take the index at that maximum: the fundamental mode's n_eff changes by
    < 1e-2 there, a phase common to both branches that does not affect the split.
    """
    # Gauss–Legendre over the part of the taper inside the tables, the clipped part exactly:
    # a quadrature across the kink at w_max would be good to only ~1e-4 rad.
    w_max = dispersion.domain()["te"]["width"][1]
    wl = jnp.asarray(wl, dtype=float)
    width1 = ridge.width
    dw = width2 - width1
    cross = jnp.clip((w_max - width1) / jnp.where(dw == 0, 1.0, dw), 0.0, 1.0)
    ua, ub = jnp.where(dw < 0, cross, 0.0), jnp.where(dw > 0, cross, 1.0)
    u = ua + (ub - ua) * 0.5 * (_NODES + 1.0)
    w = jnp.minimum(width1 + dw * u, w_max)
    n = dispersion.neff(wl[..., None], ridge.replace(width=w), jnp.inf, "te", "z")
    n_max = dispersion.neff(wl, ridge.replace(width=w_max), jnp.inf, "te", "z")
    opl = jnp.sum(n * 0.5 * _WEIGHTS, axis=-1) * (ub - ua) * length + n_max * (1.0 - (ub - ua)) * length
    phase = 2 * jnp.pi / wl * opl
    per_cm = scattering.propagation_loss_db_per_cm(wl[..., None], ridge.replace(width=w), loss_db_per_cm)
    per_cm_max = scattering.propagation_loss_db_per_cm(wl, ridge.replace(width=w_max), loss_db_per_cm)
    loss_db = (jnp.sum(per_cm * 0.5 * _WEIGHTS, axis=-1) * (ub - ua) + per_cm_max * (1.0 - (ub - ua))) * length * 1e-4
    return db_to_amplitude(loss_db) * jnp.exp(1j * phase)


def _add_slabbed_polygon(c: gf.Component, points, xs) -> None:
    """Ridge polygon plus its slab grown by the cross-section's slab margin."""
    c.add_polygon(points, layer=xs.layer)
    poly = gf.kdb.DPolygon([gf.kdb.DPoint(*p) for p in points]).sized(SLAB_MARGIN)
    c.add_polygon(poly, layer=xs.sections[1].layer)


# ---------------------------------------------------------------------------- Y-splitter
def _check_y_splitter(length, output_separation, taper_length, tip_gap, width):
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_range("tip_gap", tip_gap, RULES.min_ridge_gap, 10.0, unit="µm")
    check_layout_length("taper_length", taper_length)
    check_offset_span("output_separation", output_separation, width + tip_gap)
    check_layout_length("length", length)
    check_sbend_radius("length", length, (output_separation - width - tip_gap) / 2,
                       given_text("output_separation", output_separation))


@platform_cell
@gf_cell
def y_splitter(
    length: float = 30.0,
    output_separation: float = 5.0,
    taper_length: float = 10.0,
    tip_gap: float = 0.2,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Y-branch 1×2 splitter: a linear taper to two ridges that part in raised-cosine S-bends.

    Args:
        length: length of the S-bend section along x (µm); its minimum radius
            2L²/(π² h), h = (output_separation − width − tip_gap)/2, must be ≥ 10 µm.
        output_separation: centre-to-centre spacing of o2 and o3 (µm).
        taper_length: length of the input taper from ``width`` to 2·width + tip_gap (µm).
        tip_gap: gap between the branches where they leave the taper (µm), the blunt
            tip a lithographic process leaves; ≥ the minimum ridge gap.
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

                              ___________ o2
                    ____----''
         o1 ____.--'   ___________________
                '--.__ tip_gap
                      ''----.____________ o3
            taper_length  length
    """
    width = ridge_width(cross_section, width)
    _check_y_splitter(length, output_separation, taper_length, tip_gap, width)
    xs = get_cross_section(cross_section, width=width)
    c = gf.Component()
    wide = 2 * width + tip_gap
    _add_slabbed_polygon(
        c, [(0, -width / 2), (taper_length, -wide / 2), (taper_length, wide / 2), (0, width / 2)], xs
    )
    offset = (output_separation - width - tip_gap) / 2
    path = horizontal_path(sbend_points(length, offset))
    arm = path.extrude(xs)
    y0 = (width + tip_gap) / 2
    top = c << arm
    top.dmove((taper_length, y0))
    bot = c << arm
    bot.dmirror_y()
    bot.dmove((taper_length, -y0))
    c.add_port("o1", center=(0, 0), width=width, orientation=180, layer=xs.layer)
    c.add_port("o2", port=top.ports["o2"])
    c.add_port("o3", port=bot.ports["o2"])
    c.info["min_bend_radius"] = sbend_min_radius(length, offset)
    c.info["path_length"] = float(taper_length + path.length())
    return c


@model_of(y_splitter)
def y_splitter_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    output_separation: FloatLike,
    taper_length: FloatLike,
    tip_gap: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    excess_loss_db: FloatLike = 0.2,
    imbalance_db: FloatLike = 0.0,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Y-branch: S₂₁ = √(ηr/(1+r)) t, S₃₁ = √(η/(1+r)) t, all else 0.

    η = 10^(−excess_loss_db/10) is the junction's excess loss, a device parameter
    (default 0.2 dB per stage, the seed's figure S1-05); r = 10^(imbalance_db/10) =
    P(o2)/P(o3); t is the propagation through taper and S-bend (phase, loss, bend loss).
    A lossless matched 3-port cannot exist: light entering o2 and o3 out of phase is
    radiated at the junction, so S is passive (largest singular value √η), not unitary.
    One stage costs 10·log10(2) + excess_loss_db; cascading gives the seed's
    10·log10 N + 0.2·log2 N.

    Args:
        wl: wavelength (µm), scalar or array.
        length, output_separation, taper_length, tip_gap, width, cross_section: as the cell.
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm); None: from physics (``scattering.propagation_loss_db_per_cm``).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
        excess_loss_db: junction excess loss (dB), in [0, 10].
        imbalance_db: 10·log10 P(o2)/P(o3) (dB), in [−10, 10].

    Example: two equal halves of what the junction passes (no propagation loss):
    >>> import numpy as np
    >>> from prismpic.components.couplers import y_splitter_model
    >>> s = y_splitter_model(1.55, loss_db_per_cm=0.0, excess_loss_db=0.2)
    >>> upper, lower = float(abs(s["o1", "o2"]) ** 2), float(abs(s["o1", "o3"]) ** 2)
    >>> bool(np.isclose(upper, lower)), bool(np.isclose(upper + lower, 10 ** (-0.2 / 10), rtol=1e-3))
    (True, True)
    """
    width = ridge_width(cross_section, width)
    _check_y_splitter(length, output_separation, taper_length, tip_gap, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    excess_loss_db = check_range("excess_loss_db", excess_loss_db, 0.0, 10.0, unit="dB")  # NaN outside, traced
    imbalance_db = check_range("imbalance_db", imbalance_db, -10.0, 10.0, unit="dB")
    wide = 2 * width + tip_gap
    t = _taper_response(wl, taper_length, ridge, wide, loss_db_per_cm)
    offset = (output_separation - width - tip_gap) / 2
    t = t * sbend_response(wl, length, offset, ridge, loss_db_per_cm)
    eta = db_to_power(excess_loss_db)
    r = 10.0 ** (imbalance_db / 10.0)
    return reciprocal({("o1", "o2"): jnp.sqrt(eta * r / (1 + r)) * t, ("o1", "o3"): jnp.sqrt(eta / (1 + r)) * t})


# ---------------------------------------------------------------------------- directional coupler
def _check_dc(gap, length, dy, bend_length, width):
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_range("gap", gap, RULES.min_ridge_gap, 10.0, unit="µm")
    check_layout_length("length", length, lo=0.0)
    check_offset_span("dy", dy, gap + width)
    check_layout_length("bend_length", bend_length)
    check_sbend_radius("bend_length", bend_length, (dy - gap - width) / 2, given_text("dy", dy))


@platform_cell
@gf_cell
def _dc_arm(gap: float, length: float, dy: float, bend_length: float, width: float, cross_section: str) -> gf.Component:
    """Upper arm of a directional coupler: S-bend in, straight at gap/2 + width/2, S-bend out."""
    xs = get_cross_section(cross_section, width=width)
    h = (dy - gap - width) / 2
    s = sbend_points(bend_length, -h)
    pts = [s + (-bend_length, dy / 2)]
    right = sbend_points(bend_length, h) + (length, (gap + width) / 2)
    pts.append(right if length > 0 else right[1:])
    return horizontal_path(np.concatenate(pts)).extrude(xs)


@platform_cell
@gf_cell
def directional_coupler(
    gap: float = 0.3,
    length: float = 50.0,
    dy: float = 10.0,
    bend_length: float = 40.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Symmetric directional coupler: two ridges at ``gap`` over ``length`` with raised-cosine S-bend arms.

    Args:
        gap: edge-to-edge gap of the ridges in the straight section (µm).
        length: length of the straight coupling section (µm), may be 0.
        dy: centre-to-centre spacing of o1 and o2 (and of o3 and o4) (µm).
        bend_length: length of each S-bend along x (µm); its minimum radius
            2L²/(π² h), h = (dy − gap − width)/2, must be ≥ 10 µm.
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

            bend_length     length      bend_length
         o2 ____                               ____ o3
                 '--.___________________.--'         |
                     ___________________    gap      | dy
         o1 ____.--'                     '--.____ o4 |
    """
    width = ridge_width(cross_section, width)
    _check_dc(gap, length, dy, bend_length, width)
    arm = _dc_arm(gap, length, dy, bend_length, width, cross_section)
    c = gf.Component()
    top = c << arm
    bot = c << arm
    bot.dmirror_y()
    c.add_port("o1", port=bot.ports["o1"])
    c.add_port("o2", port=top.ports["o1"])
    c.add_port("o3", port=top.ports["o2"])
    c.add_port("o4", port=bot.ports["o2"])
    c.info["min_bend_radius"] = sbend_min_radius(bend_length, (dy - gap - width) / 2)
    return c


def _arm_coupling(wl, gap, dy, bend_length, ridge: RidgeStack):
    """∫ C(g(x)) dx over one S-bend pair of ``ridge`` (``RidgeStack``), g(x) = gap + 2·y(x) the local edge-to-edge
    gap (µm)."""
    h = (dy - gap - ridge.width) / 2

    def arm_position(g):  # u ∈ [0, 1] along the arm where the local gap is g, with finite gradients at the ends
        x = jnp.clip((g - gap) / h, 0.0, 2.0)
        inside = (x > 0) & (x < 2)
        return jnp.where(inside, jnp.arccos(1.0 - jnp.where(inside, x, 1.0)) / jnp.pi, jnp.where(x > 0, 1.0, 0.0))

    # split where C(g) has a kink (the feet's merge; the fit's end, beyond which it is continued as an exponential),
    # so that each Gauss–Legendre piece integrates a smooth function and the sum is smooth in the geometry
    u_merge = arm_position(coupler_table.merge_gap(ridge))
    u_fit = jnp.maximum(arm_position(fit_max_gap()), u_merge)
    u, du = gauss_panels([jnp.zeros_like(u_merge), u_merge, u_fit, jnp.ones_like(u_merge)], (32, 64, 64))
    g = gap + h * (1.0 - jnp.cos(jnp.pi * u))
    wl = jnp.asarray(wl, dtype=float)
    c = coupling_per_um_extended(wl[..., None], g, ridge)
    return jnp.sum(c * du, axis=-1) * bend_length


def _coupling_phase(wl, gap, length, dy, bend_length, ridge: RidgeStack):
    """``coupling_phase`` (rad) of the checked geometry (µm) and ``ridge`` (``RidgeStack``)."""
    c0 = coupling_per_um_extended(wl, gap, ridge)
    return c0 * length + 2.0 * _arm_coupling(wl, gap, dy, bend_length, ridge)


@model_of(directional_coupler)
def coupling_phase(
    wl=1.55,
    gap=CELL,
    length=CELL,
    dy=CELL,
    bend_length=CELL,
    width=CELL,
    cross_section: str = CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
    cladding=CLADDING,
):
    """Accumulated coupling Φ = C(gap)·length + 2∫C(g(x))dx (rad); power coupling is sin²Φ.

    Geometry (µm) as ``directional_coupler``, whose defaults it takes.

    Supermode (coupled-mode) picture of two identical guides: C = πΔn/λ from
    ``prismpic.components.rings.coupling_per_um_extended`` (the mode-solver fit, continued
    exponentially beyond its largest gap), integrated over the straight section and the gap
    profile of both S-bend pairs (the bends measured along x, the small-slope limit).
    """
    width = ridge_width(cross_section, width)
    _check_dc(gap, length, dy, bend_length, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    return _coupling_phase(wl, gap, length, dy, bend_length, ridge)


@model_of(directional_coupler)
def length_for_coupling(
    power_coupling=0.5,
    wl=1.55,
    gap=CELL,
    dy=CELL,
    bend_length=CELL,
    width=CELL,
    cross_section: str = CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
    cladding=CLADDING,
) -> float:
    """Shortest straight length (µm) giving sin²Φ = ``power_coupling``, the S-bend arms accounted.

    Geometry (µm) as ``directional_coupler``, whose defaults it takes.

    L = (arcsin √κ² − 2∫C dx)/C(gap); ValueError when the arms alone couple more.
    """
    check_range("power_coupling", power_coupling, 0.0, 1.0)
    width = ridge_width(cross_section, width)
    _check_dc(gap, 0.0, dy, bend_length, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    arms = 2.0 * float(_arm_coupling(wl, gap, dy, bend_length, ridge))
    c0 = float(coupling_per_um_extended(wl, gap, ridge))
    target = math.asin(math.sqrt(power_coupling))
    if arms > target:
        raise ValueError(
            f"power_coupling = {power_coupling:g} is below what the S-bend arms alone give "
            f"({math.sin(arms) ** 2:g} at gap {gap:g} µm); valid range [{math.sin(arms) ** 2:g}, 1]"
        )
    return (target - arms) / c0


@model_of(directional_coupler)
def directional_coupler_model(
    wl: FloatArrayLike = 1.55,
    *,
    gap: FloatLike,
    length: FloatLike,
    dy: FloatLike,
    bend_length: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Lossless-coupling directional coupler: through t·cos Φ, cross −i t·sin Φ.

    Φ from ``coupling_phase``; t is the propagation of one arm (S-bend, straight,
    S-bend: phase ∫k0 n_eff ds, propagation and bend loss). Through: o1→o4, o2→o3;
    cross: o1→o3, o2→o4. Unitary when ``loss_db_per_cm`` = 0.

    Args:
        wl: wavelength (µm), scalar or array.
        gap, length, dy, bend_length, width, cross_section: as the cell (µm; the cross-section a name).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm); None: from physics (``scattering.propagation_loss_db_per_cm``).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).

    Example: a 3 dB coupler's length from the coupling phase, then its split (lossless):
    >>> import numpy as np
    >>> from prismpic.components.couplers import coupling_phase, directional_coupler_model
    >>> phi0 = float(coupling_phase(1.55, length=0.0))  # the S-bends' share of Φ
    >>> per_um = float(coupling_phase(1.55, length=1.0)) - phi0
    >>> s = directional_coupler_model(1.55, length=(np.pi / 4 - phi0) / per_um, loss_db_per_cm=0.0)
    >>> round(float(abs(s["o1", "o3"]) ** 2), 3), round(float(abs(s["o1", "o4"]) ** 2), 3)
    (0.5, 0.5)
    """
    width = ridge_width(cross_section, width)
    _check_dc(gap, length, dy, bend_length, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    phi = _coupling_phase(wl, gap, length, dy, bend_length, ridge)
    wl = jnp.asarray(wl, dtype=float)
    h = (dy - gap - width) / 2
    bend = sbend_response(wl, bend_length, h, ridge, loss_db_per_cm)
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    loss_db = scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm) * length * 1e-4
    straight = db_to_amplitude(loss_db) * jnp.exp(2j * jnp.pi * n * length / wl)
    t = bend**2 * straight
    through = t * jnp.cos(phi)
    cross = -1j * t * jnp.sin(phi)
    return reciprocal(
        {("o1", "o4"): through, ("o2", "o3"): through, ("o1", "o3"): cross, ("o2", "o4"): cross}
    )


DEVICES = {
    "y_splitter": Device(
        "y_splitter",
        y_splitter,
        y_splitter_model,
        extremes=(
            {"length": 12.0, "output_separation": 4.0, "tip_gap": RULES.min_ridge_gap, "taper_length": 1.0},
            {"length": 300.0, "output_separation": 80.0, "width": 0.8, "tip_gap": 1.0},
        ),
        grad_params=("length", "output_separation", "taper_length"),
        model_only=("excess_loss_db", "imbalance_db", "sidewall_angle_deg", "cladding"),
    ),
    "directional_coupler": Device(
        "directional_coupler",
        directional_coupler,
        directional_coupler_model,
        extremes=(
            {"gap": RULES.min_ridge_gap, "length": 0.0, "dy": 3.0, "bend_length": 10.0},
            {"gap": 2.0, "length": 2000.0, "dy": 50.0, "bend_length": 200.0, "width": 1.0},
        ),
        grad_params=("gap", "length", "bend_length"),
        model_only=("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "sidewall_angle_deg", "cladding"),
    ),
}

