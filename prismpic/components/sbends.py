"""S-bends: the raised-cosine S-bend's geometry and transmission, and the ``sbend`` cell and model.

y(x) = (h/2)(1 − cos πx/L) has its tightest curvature at the ends, R_min = 2L²/(π² h); the model integrates
exp(i k0 ∫ n_eff(R(s), φ(s)) ds) and the loss along the drawn curve (Gauss–Legendre nodes), so cell and model
share one shape. The splitters, couplers, modulators and the bank's drop-bus jogs are built from it.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_layout_length, check_range, concrete
from prismpic.components.model_signature import Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.waveguides import check_waveguide_params, horizontal_path, path_response
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import get_cross_section, ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(32)  # phase quadrature on [-1, 1]

_SBEND_POINTS = 201  # polyline points per drawn S-bend
_R_FLAT = 1e5  # µm: radii beyond this (near the inflection) are treated as this radius
MAX_OFFSET = 1e4  # µm: largest lateral offset of an S-bend (a die is about this wide)


# ---------------------------------------------------------------------------- S-bend geometry
def sbend_min_radius(length, offset):
    """Minimum radius of curvature (µm) of a raised-cosine S-bend: R_min = 2L²/(π² |h|)."""
    return 2.0 * length**2 / (math.pi**2 * abs(offset))


def _float(x) -> float | None:
    """``x`` as a float, or None when it is traced (checks are then skipped)."""
    a = concrete(x)
    return None if a is None else float(a)


def given_text(name: str, value) -> str:
    """``"name = value µm"`` for messages (the name alone when traced)."""
    v = _float(value)
    return name if v is None else f"{name} = {v:g} µm"


def check_sbend_radius(name: str, length, offset, offset_from: str = "") -> None:
    """ValueError naming ``name`` unless a raised-cosine S-bend of ``length`` and ``offset`` (µm) keeps
    its minimum radius 2L²/(π²|h|) ≥ the design rule's minimum bend radius (skipped when traced);
    ``offset_from`` names the parameters that set the offset (e.g. ``"dy = 50 µm"``), said in the message."""
    h = _float(offset)
    if h is None or h == 0:
        return
    shortest = math.pi * math.sqrt(RULES.min_bend_radius * abs(h) / 2.0)
    try:
        check_range(name, length, shortest, math.inf, unit="µm")
    except ValueError as e:
        if not offset_from:
            raise
        raise ValueError(f"{e} for {offset_from}: the S-bend's minimum radius 2L²/(π²h) must be ≥ "
                         f"{RULES.min_bend_radius:g} µm") from None


def check_offset_span(name: str, value, base) -> None:
    """ValueError naming ``name`` unless ``value`` (µm, a centre-to-centre spacing) exceeds ``base`` (the
    spacing of the branches before their S-bends, µm) by at most 2·``MAX_OFFSET`` (skipped when traced)."""
    lo = _float(base)
    if lo is not None:
        check_range(name, value, lo, lo + 2 * MAX_OFFSET, unit="µm", lo_open=True)


def sbend_points(length: float, offset: float, n: int = _SBEND_POINTS) -> np.ndarray:
    """``n`` (x, y) points (µm) of the raised cosine y = (offset/2)(1 − cos πx/length), x from 0 to length."""
    x = np.linspace(0.0, length, n)
    return np.stack([x, 0.5 * offset * (1.0 - np.cos(np.pi * x / length))], axis=1)


def _sbend_samples(length, offset, nodes, weights):
    """Arc-length weights, radius and direction (rad) at quadrature nodes u ∈ (0, 1) of an S-bend."""
    u = 0.5 * (nodes + 1.0)
    k = jnp.pi / length
    dy = 0.5 * offset * k * jnp.sin(k * length * u)
    d2y = 0.5 * offset * k**2 * jnp.cos(k * length * u)
    slope2 = 1.0 + dy**2
    ds = jnp.sqrt(slope2) * 0.5 * weights * length
    radius = jnp.minimum(slope2**1.5 / jnp.maximum(jnp.abs(d2y), 1e-30), _R_FLAT)
    return u, ds, radius, jnp.arctan(dy)


def sbend_length(length, offset):
    """Arc length (µm) of a raised-cosine S-bend of ``length`` along x and lateral ``offset`` (µm)."""
    _, ds, _, _ = _sbend_samples(length, offset, _NODES, _WEIGHTS)
    return jnp.sum(ds)


def sbend_response(wl, length, offset, ridge: RidgeStack, loss_db_per_cm):
    """Transmission of a raised-cosine S-bend: exp(i k0 ∫ n_eff(R(s), φ(s)) ds) and loss.

    Args:
        wl: wavelength (µm), scalar or array.
        length: length along x (µm).
        offset: lateral offset (µm), either sign.
        ridge: the ridge and its stack (``RidgeStack``: width, film, etch in µm, wall angle in degrees, cladding).
        loss_db_per_cm: propagation loss (dB/cm), None: from physics; bend radiation loss is added at the local radius.
    """
    _, ds, radius, direction = _sbend_samples(length, offset, _NODES, _WEIGHTS)
    return path_response(wl, ds, radius, direction, ridge, loss_db_per_cm)


# ---------------------------------------------------------------------------- S-bend
def _check_sbend_device(length, offset, ridge: RidgeStack, loss_db_per_cm=LOSS_DB_PER_CM):
    """Checks of an S-bend; returns (length, loss_db_per_cm), NaN where traced values are out of range."""
    length = check_layout_length("length", length)
    check_range("offset", offset, -MAX_OFFSET, MAX_OFFSET, unit="µm")
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    check_sbend_radius("length", length, offset)
    return length, loss_db_per_cm


@platform_cell
@gf_cell
def sbend(
    length: float = 20.0,
    offset: float = 2.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Raised-cosine S-bend y(x) = (offset/2)(1 − cos πx/length): a lateral jog between parallel guides.

    Args:
        length: length along x (µm); the minimum radius 2·length²/(π²|offset|) must be ≥ 10 µm.
        offset: lateral displacement of o2 from o1 (µm), either sign; 0 draws a straight.
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

                          _____ o2
                    _.-'''      ⎫ offset
        o1 _____.-''            ⎭
             length
    """
    width = ridge_width(cross_section, width)
    _check_sbend_device(length, offset, RidgeStack(width=width))
    xs = get_cross_section(cross_section, width=width)
    # points for a chord sag ≤ 0.5 nm: sag ≈ (L/n)²/(8 R_min) = π²|h|/(16 n²)
    n = min(_SBEND_POINTS, max(8, math.ceil(math.pi * math.sqrt(abs(offset) / (16 * 5e-4)))))
    pts = sbend_points(length, offset, n) if offset != 0 else np.array([[0.0, 0.0], [length, 0.0]])
    c = horizontal_path(pts).extrude(xs)
    c.info["length"] = float(length)
    c.info["min_bend_radius"] = sbend_min_radius(length, offset) if offset != 0 else math.inf
    return c


@model_of(sbend)
def sbend_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    offset: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """S-bend: t = exp(i k0 ∫ n_eff(R(s), φ(s)) ds) · 10^(−∫(α + α_bend(R(s))) ds / 20) (``sbend_response``).

    The integral runs along the drawn raised cosine (arc length, local radius and direction
    φ from crystal y, so the X-cut index n_z cos²φ + n_y sin²φ); reciprocal and, by the
    curve's point symmetry, the same both ways.

    Args:
        wl: wavelength (µm).
        length, offset, width, cross_section: as the cell.
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm), None: from physics; bend radiation loss is added at the local radius.
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
    """
    width = ridge_width(cross_section, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    length, loss_db_per_cm = _check_sbend_device(length, offset, ridge, loss_db_per_cm)
    t = sbend_response(wl, length, offset, ridge, loss_db_per_cm)
    return reciprocal({("o1", "o2"): t})


DEVICES = {"sbend": Device(
    "sbend",
    sbend,
    sbend_model,
    extremes=(
        {"length": 5.0, "offset": 0.5},
        {"length": 500.0, "offset": -100.0, "width": 0.8},
        {"length": 3.0, "offset": 0.0},
        {"length": 10.0, "offset": 0.052, "loss_db_per_cm": 0.0},
    ),
    grad_params=("length", "offset"),
    model_only=("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "sidewall_angle_deg", "cladding"),
)}
