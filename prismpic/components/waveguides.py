"""Waveguides: straight, Euler and circular bends, linear taper; cells and models.

Models take their phase from the compact dispersion model at the cell's geometry,
integrated along the path, and their loss from ``loss_db_per_cm`` plus the bend's
radiation loss at the local radius of curvature. Convention for X-cut LN: the layout's
x axis is crystal y, so a horizontal ridge guides TE light polarised along crystal z
(n_e). Along a bend the direction turns by φ and n_eff(φ) = n_z cos²φ + n_y sin²φ,
with n_z, n_y the mode indices for propagation along crystal y and z.

Process (wafer) parameters of every model, with the stack's defaults (``prismpic.pdk.stack``):
``film_thickness``, ``etch_depth`` (µm), ``sidewall_angle_deg`` (ridge wall from the horizontal, 90 =
vertical) and ``cladding`` ("sio2" or "air"). They belong to the layer stack, not to the mask, so
the cells do not take them; ``width`` is the ridge's top width as drawn. Each model turns its ridge keywords
into one ``RidgeStack`` (``prismpic.pdk.ridge_stack``), the value the helpers (``neff_along``, ``path_response``,
``check_waveguide_params``) take.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import GDS_DBU_UM, check_between, check_choice, check_layout_length, check_positive, check_range
from prismpic.components.model_signature import Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.units import db_to_amplitude
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, scattering
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import RIDGE_WIDTH, default_radius, get_cross_section, ridge_width
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

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)  # quadrature on [-1, 1]


def neff_along(wl, ridge: RidgeStack, radius, direction_rad):
    """n_eff of the TE mode for a local radius and direction φ from crystal y (X-cut): n_z cos²φ + n_y sin²φ.

    Args:
        wl: wavelength (µm).
        ridge: the ridge and its stack (``RidgeStack``: width, film, etch in µm, wall angle in degrees, cladding).
        radius: local radius of curvature of the ridge centre (µm); ``jnp.inf`` straight.
        direction_rad: local direction φ from crystal y (rad).
    """
    nz = dispersion.neff(wl, ridge, radius, "te", "z")
    ny = dispersion.neff(wl, ridge, radius, "te", "y")
    c2 = jnp.cos(direction_rad) ** 2
    return nz * c2 + ny * (1.0 - c2)


def path_response(wl, ds, radius, direction, ridge: RidgeStack, loss_db_per_cm):
    """Field transmission exp(i k0 ∫ n_eff ds) · 10^(−∫(α + α_bend) ds/20) of a path sampled at quadrature nodes.

    Args:
        wl: wavelength (µm), scalar or array.
        ds: arc-length quadrature weights (µm), one per node.
        radius: local radius of curvature (µm) at each node (``jnp.inf`` straight).
        direction: local direction φ from crystal y (rad) at each node.
        ridge: the ridge and its stack (``RidgeStack``: width, film, etch in µm, wall angle in degrees, cladding).
        loss_db_per_cm: propagation loss (dB/cm), or None for physics (``scattering.propagation_loss_db_per_cm``);
            the bend radiation loss at the local radius is added.
    """
    wl = jnp.asarray(wl, dtype=float)
    n = neff_along(wl[..., None], ridge, radius, direction)
    phase = 2 * jnp.pi / wl * jnp.sum(n * ds, axis=-1)
    bend_db_per_cm = dispersion.bend_loss_db_per_cm(wl[..., None], radius, ridge)
    straight_db_per_cm = scattering.propagation_loss_db_per_cm(wl[..., None], ridge, loss_db_per_cm, direction)
    loss_db = jnp.sum((straight_db_per_cm + bend_db_per_cm) * ds, axis=-1) * 1e-4
    return db_to_amplitude(loss_db) * jnp.exp(1j * phase)


def _two_port(t) -> sax.SDict:
    return reciprocal({("o1", "o2"): t})


def check_waveguide_params(ridge: RidgeStack, loss_db_per_cm):
    """ValueError unless the ridge's width (µm, the design rules' range), film and etch (µm) and cladding and the
    loss (dB/cm, in [0, 100]) are valid; returns the loss (NaN where a traced loss is out of range).

    The wall angle's range is the dispersion tables' (checked there, ``prismpic.pdk.dispersion.domain``).

    Args:
        ridge: the ridge and its stack (``RidgeStack``).
        loss_db_per_cm: propagation loss (dB/cm); None: from physics (returned as None).
    """
    check_range("width", ridge.width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_film(ridge.film_thickness, ridge.etch_depth)
    check_choice("cladding", ridge.cladding, CLADDINGS)
    return scattering.checked_loss_db_per_cm(loss_db_per_cm)


def horizontal_path(points) -> gf.Path:
    """A gdsfactory path through ``points`` (µm, shape (n, 2)) whose ends point along +x (start and end angle 0°).

    The angles are set on the path, not passed to ``gf.Path``, which takes them as arguments only from gdsfactory
    9.41 on (prismpic supports gdsfactory from 9.4, for foundry PDKs that pin older versions).
    """
    path = gf.Path(points)
    path.start_angle = path.end_angle = 0.0
    return path


# ---------------------------------------------------------------------------- straight
@platform_cell
@gf_cell
def straight(length: float = 10.0, width: float | None = None, cross_section: str = "xs_ridge") -> gf.Component:
    """Straight ridge waveguide.

    Args:
        length: length (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

        o1 ────────────── o2
               length
    """
    check_layout_length("length", length)
    xs = get_cross_section(cross_section, width=ridge_width(cross_section, width))
    c = gf.path.straight(length=length).extrude(xs)
    c.info["length"] = length
    c.add_route_info(cross_section=xs, length=length)
    return c


@model_of(straight)
def straight_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Straight ridge along crystal y: t = 10^(−αL/20) exp(i 2π n_eff L / λ).

    Args:
        wl: wavelength (µm), scalar or array.
        length, width, cross_section: as the cell (µm; the cross-section a name).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm), None: from physics (absorption and sidewall scattering,
            ``scattering.propagation_loss_db_per_cm``); bend radiation loss is added at the local radius.
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).

    Example: 1 cm at 0.2 dB/cm loses 0.2 dB:
    >>> import numpy as np
    >>> from prismpic.components.waveguides import straight_model
    >>> s = straight_model(wl=np.array([1.55]), length=1e4, loss_db_per_cm=0.2)
    >>> round(float(-20 * np.log10(abs(s["o1", "o2"][0]))), 6)
    0.2
    """
    width = ridge_width(cross_section, width)
    length = check_positive("length", length, unit="µm")  # NaN if traced and not positive
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    wl = jnp.asarray(wl, dtype=float)
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    loss = scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm)
    t = db_to_amplitude(loss * length * 1e-4) * jnp.exp(2j * jnp.pi * n * length / wl)
    return _two_port(t)


# ---------------------------------------------------------------------------- bends
def _check_bend(radius, angle):
    """Checks of a bend; returns (radius, angle), NaN where traced values are out of range. The arc is at least
    one layout database unit long (a shorter bend draws nothing)."""
    radius = check_range("radius", radius, RULES.min_bend_radius, 1e5, unit="µm")
    angle = check_range("angle", angle, 0.0, 180.0, unit="deg", lo_open=True)
    return radius, check_between("angle", angle, GDS_DBU_UM / radius * 180.0 / math.pi, 180.0, unit="deg")


@platform_cell
@gf_cell
def bend_circular(
    radius: float | None = None, angle: float = 90.0, width: float | None = None, cross_section: str = "xs_ridge"
) -> gf.Component:
    """Circular bend.

    Args:
        radius: bend radius (µm); None takes the cross-section's.
        angle: turning angle (degrees, counter-clockwise).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

                 o2
                 │
              ╭──╯   radius
        o1 ───╯
    """
    xs = get_cross_section(cross_section, width=ridge_width(cross_section, width))
    radius = xs.radius if radius is None else radius
    _check_bend(radius, angle)
    c = gf.path.arc(radius=radius, angle=angle).extrude(xs)
    c.info["length"] = float(radius * math.radians(angle))
    c.info["radius"] = radius
    c.add_route_info(cross_section=xs, length=c.info["length"], n_bend_90=abs(angle / 90.0))
    return c


@model_of(bend_circular)
def bend_circular_model(
    wl: FloatArrayLike = 1.55,
    *,
    radius: FloatLike | None,
    angle: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Circular bend entering along crystal y; phase ∫ k0 n_eff(R, φ) ds over the arc.

    Args:
        wl: wavelength (µm), scalar or array.
        radius, angle, width, cross_section: as the cell (µm, degrees; the cross-section a name).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm), None: from physics (absorption and sidewall scattering,
            ``scattering.propagation_loss_db_per_cm``); bend radiation loss is added at the local radius.
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
    """
    width = ridge_width(cross_section, width)
    radius = default_radius(cross_section) if radius is None else radius
    radius, angle = _check_bend(radius, angle)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    theta = jnp.deg2rad(angle)
    u = 0.5 * (_NODES + 1.0)  # fraction of the arc at each node
    ds = radius * theta * 0.5 * _WEIGHTS
    rad = radius * jnp.ones_like(u)
    t = path_response(wl, ds, rad, theta * u, ridge, loss_db_per_cm)
    return _two_port(t)


def euler_length(radius, angle_deg, p):
    """Length (µm) of an Euler bend with minimum radius ``radius`` and Euler fraction ``p``.

    Curvature ramps linearly over a clothoid of angle pθ/2 at each end (length
    2Rθ_e each, since θ_e = s0/(2R)) around an arc of angle (1 − p)θ: L = Rθ(1 + p).
    """
    return radius * jnp.deg2rad(angle_deg) * (1.0 + p)


@platform_cell
@gf_cell
def bend_euler(
    radius: float | None = None,
    angle: float = 90.0,
    p: float = 0.5,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Euler bend whose ``radius`` is the minimum radius of curvature.

    Args:
        radius: minimum radius of curvature (µm); None takes the cross-section's.
        angle: turning angle (degrees).
        p: fraction of the bend that is an Euler (clothoid) curve, in [0, 1].
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

                 o2
                 │
              ╭──╯   curvature rising from 0 to 1/radius and back
        o1 ───╯
    """
    xs = get_cross_section(cross_section, width=ridge_width(cross_section, width))
    radius = xs.radius if radius is None else radius
    _check_bend(radius, angle)
    check_range("p", p, 0.0, 1.0)
    path = gf.path.euler(radius=radius, angle=angle, p=p, use_eff=False)
    c = path.extrude(xs)
    c.info["length"] = float(path.length())
    c.info["radius_min"] = radius
    c.add_route_info(cross_section=xs, length=c.info["length"], n_bend_90=abs(angle / 90.0))
    return c


def euler_footprint(radius: float, angle: float = 90.0, p: float = 0.5) -> tuple[float, float]:
    """(dx, dy) (µm) from o1 to o2 of ``bend_euler(radius=radius, angle=angle, p=p)`` as drawn, without drawing it:
    the path's end ∫(cos φ, sin φ) ds over the clothoids and the arc (the φ(s) of ``bend_euler_model``), on the
    database grid the port snaps to (``checks.GDS_DBU_UM``). A test holds it to the drawn cell's port."""
    _check_bend(radius, angle)
    check_range("p", p, 0.0, 1.0)
    theta = math.radians(angle)
    s0, arc = radius * p * theta, radius * (1.0 - p) * theta
    x, w = np.polynomial.legendre.leggauss(64)
    u, w = 0.5 * (x + 1.0), 0.5 * w
    phi_in = (s0 * u) ** 2 / (2 * radius * s0) if s0 > 0 else np.zeros_like(u)
    phi_arc = p * theta / 2 + (1.0 - p) * theta * u
    ends = [sum(length * np.sum(w * f(phi)) for length, phi in ((s0, phi_in), (arc, phi_arc), (s0, theta - phi_in)))
            for f in (np.cos, np.sin)]
    return tuple(float(np.round(e / GDS_DBU_UM) * GDS_DBU_UM) for e in ends)


@model_of(bend_euler)
def bend_euler_model(
    wl: FloatArrayLike = 1.55,
    *,
    radius: FloatLike | None,
    angle: FloatLike,
    p: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Euler bend: ∫ k0 n_eff(R(s), φ(s)) ds over two clothoids and the central arc.

    Args:
        wl: wavelength (µm), scalar or array.
        radius, angle, p, width, cross_section: as the cell (minimum radius in µm, degrees, Euler fraction).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm), None: from physics (absorption and sidewall scattering,
            ``scattering.propagation_loss_db_per_cm``); bend radiation loss is added at the local radius.
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
    """
    width = ridge_width(cross_section, width)
    radius = default_radius(cross_section) if radius is None else radius
    radius, angle = _check_bend(radius, angle)
    p = check_range("p", p, 0.0, 1.0)  # NaN outside when traced
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    theta = jnp.deg2rad(angle)
    s0 = radius * p * theta  # clothoid length: θ_e = pθ/2 = s0/(2R)
    arc = radius * (1.0 - p) * theta
    u = 0.5 * (_NODES + 1.0)
    w = 0.5 * _WEIGHTS
    # clothoid in: curvature s/(R s0), direction s²/(2 R s0)
    s_in = s0 * u
    r_in = radius / jnp.maximum(u, 1e-12)
    phi_in = s_in**2 / (2 * radius * jnp.maximum(s0, 1e-12))
    # arc
    phi_arc = p * theta / 2 + (1.0 - p) * theta * u
    # clothoid out, mirrored
    phi_out = theta - phi_in[::-1]
    rad = jnp.concatenate([r_in, radius * jnp.ones_like(u), r_in[::-1]])
    phi = jnp.concatenate([phi_in, phi_arc, phi_out])
    ds = jnp.concatenate([s0 * w, arc * w, s0 * w[::-1]])
    t = path_response(wl, ds, rad, phi, ridge, loss_db_per_cm)
    return _two_port(t)


# ---------------------------------------------------------------------------- taper
@platform_cell
@gf_cell
def taper(
    length: float = 10.0, width1: float = RIDGE_WIDTH, width2: float | None = None, cross_section: str = "xs_ridge"
) -> gf.Component:
    """Linear ridge taper.

    Args:
        length: length (µm).
        width1: ridge width at o1 (µm).
        width2: ridge width at o2 (µm); None keeps width1.
        cross_section: optical cross-section name (slab band and layers).

    .. code::

                 ___------ o2   width2
        o1 ------
                 ‾‾‾------
          width1   length
    """
    width2 = width1 if width2 is None else width2
    check_layout_length("length", length)
    check_range("width1", width1, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_range("width2", width2, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    xs = get_cross_section(cross_section, width=width1)
    c = gf.Component()
    for layer, grow in ((xs.layer, 0.0), *((sec.layer, (sec.width - xs.width) / 2) for sec in xs.sections[1:])):
        h1, h2 = width1 / 2 + grow, width2 / 2 + grow
        c.add_polygon([(0, -h1), (length, -h2), (length, h2), (0, h1)], layer=layer)
    c.add_port("o1", center=(0, 0), width=width1, orientation=180, layer=xs.layer)
    c.add_port("o2", center=(length, 0), width=width2, orientation=0, layer=xs.layer)
    c.info["length"] = length
    return c


@model_of(taper)
def taper_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    width1: FloatLike,
    width2: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Adiabatic linear taper: phase ∫ k0 n_eff(w(s)) ds; mode-conversion loss neglected.

    Args:
        wl: wavelength (µm), scalar or array.
        length, width1, width2, cross_section: as the cell (µm; the cross-section a name).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm), None: from physics at the local width (averaged along the taper).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
    """
    width2 = width1 if width2 is None else width2
    length = check_positive("length", length, unit="µm")  # NaN if traced and not positive
    check_range("width1", width1, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    ridge = RidgeStack(width=width2, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)  # the checks' width: o2's
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    u = 0.5 * (_NODES + 1.0)
    wl = jnp.asarray(wl, dtype=float)
    n = dispersion.neff(wl[..., None], ridge.replace(width=width1 + (width2 - width1) * u), jnp.inf, "te", "z")
    phase = 2 * jnp.pi / wl * jnp.sum(n * 0.5 * _WEIGHTS * length, axis=-1)
    per_cm = scattering.propagation_loss_db_per_cm(wl[..., None], ridge.replace(width=width1 + (width2 - width1) * u),
                                                   loss_db_per_cm)
    t = db_to_amplitude(jnp.sum(per_cm * 0.5 * _WEIGHTS, axis=-1) * length * 1e-4) * jnp.exp(1j * phase)
    return _two_port(t)


# model arguments that are not cell arguments: the wavelength and the process (physics, not mask)
MODEL_ONLY = ("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "sidewall_angle_deg", "cladding")
DEVICES = {
    "straight": Device(
        "straight",
        straight,
        straight_model,
        extremes=({"length": 1.0}, {"length": 1e5, "width": 2.2}, {"width": 0.8, "loss_db_per_cm": 1.0}),
        grad_params={"length": 10.0, "width": 1.4, "film_thickness": 0.6},
        model_only=MODEL_ONLY,
    ),
    "bend_circular": Device(
        "bend_circular",
        bend_circular,
        bend_circular_model,
        extremes=({"radius": RULES.min_bend_radius, "angle": 180.0, "loss_db_per_cm": 1.0},
                  {"radius": 500.0, "angle": 1.0}),
        grad_params={"radius": 20.0, "width": 1.4},
        model_only=MODEL_ONLY,
    ),
    "bend_euler": Device(
        "bend_euler",
        bend_euler,
        bend_euler_model,
        extremes=({"radius": RULES.min_bend_radius, "p": 1.0}, {"radius": 300.0, "p": 0.0, "angle": 180.0}),
        grad_params={"radius": 20.0, "p": 0.5},
        model_only=MODEL_ONLY,
    ),
    "taper": Device(
        "taper",
        taper,
        taper_model,
        extremes=({"length": 20.0, "width1": 0.8, "width2": 2.2, "loss_db_per_cm": 1.0},
                  {"length": 500.0, "width1": 2.2, "width2": 1.0}),
        grad_params={"length": 10.0, "width1": 1.4, "width2": 2.0},
        model_only=MODEL_ONLY,
    ),
}
