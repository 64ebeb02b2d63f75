"""Cross-sections of the platform: the ridge, the routing ridge and metal traces.

A waveguide cross-section is a ridge (LN_RIDGE) with an LN_SLAB band around it. The
width of a cross-section is what the dispersion model needs; film thickness and etch
depth are properties of the wafer (``prismpic.pdk.stack``).
"""

from __future__ import annotations

import gdsfactory as gf
from gdsfactory.cross_section import CrossSection, Section

from prismpic.checks import check_choice, check_range
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import RIDGE_WIDTH, RING_RADIUS

SLAB_MARGIN = 3.0  # µm of slab drawn on each side of a ridge
ROUTE_RADIUS = 80.0  # µm, routing bends: radiation loss negligible at this radius


def _ridge(width: float, radius: float, radius_min: float) -> CrossSection:
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    return gf.cross_section.cross_section(
        width=width,
        layer=LAYER.LN_RIDGE,
        sections=(Section(width=width + 2 * SLAB_MARGIN, layer=LAYER.LN_SLAB, name="slab"),),
        radius=radius,
        radius_min=radius_min,
        port_names=("o1", "o2"),
        port_types=("optical", "optical"),
    )


@gf.xsection
def xs_ridge(width: float = RIDGE_WIDTH, radius: float = RING_RADIUS) -> CrossSection:
    """The seed's X-cut ridge (1.4 µm wide on a 0.6 µm film), default bend radius 20 µm."""
    return _ridge(width, radius, RULES.min_bend_radius)


@gf.xsection
def xs_route(width: float = RIDGE_WIDTH, radius: float = ROUTE_RADIUS) -> CrossSection:
    """Routing ridge: the same ridge with large bends (80 µm) for negligible bend loss."""
    return _ridge(width, radius, RULES.min_bend_radius)


@gf.xsection
def xs_metal(width: float = 10.0) -> CrossSection:
    """Electrode metal trace (Au)."""
    check_range("width", width, RULES.min_metal_width, 1000.0, unit="µm")
    return gf.cross_section.cross_section(
        width=width,
        layer=LAYER.ELECTRODE,
        port_names=("e1", "e2"),
        port_types=("electrical", "electrical"),
        radius=None,
    )


@gf.xsection
def xs_heater(width: float = 3.0) -> CrossSection:
    """Resistive heater trace."""
    check_range("width", width, RULES.min_metal_width, 100.0, unit="µm")
    return gf.cross_section.cross_section(
        width=width, layer=LAYER.HEATER, port_names=("e1", "e2"), port_types=("electrical", "electrical"), radius=None
    )


CROSS_SECTIONS = {"xs_ridge": xs_ridge, "xs_route": xs_route, "xs_metal": xs_metal, "xs_heater": xs_heater}
OPTICAL_CROSS_SECTIONS = ("xs_ridge", "xs_route")


def _name_and_width(cross_section) -> tuple[str, float | None]:
    # gdsfactory's routers hand cells CrossSection objects; netlists hold their names.
    if isinstance(cross_section, CrossSection):
        return cross_section.name, cross_section.width
    return cross_section, None


def ridge_width(cross_section: str | CrossSection = "xs_ridge", width: float | None = None) -> float:
    """Ridge width (µm) of an optical cross-section (name or object), or ``width`` when given."""
    name, xs_width = _name_and_width(cross_section)
    check_choice("cross_section", name, OPTICAL_CROSS_SECTIONS)
    if width is not None:
        return width
    return RIDGE_WIDTH if xs_width is None else xs_width


def get_cross_section(cross_section: str | CrossSection = "xs_ridge", **kwargs) -> CrossSection:
    """Return a cross-section by name or object (ValueError for unknown names).

    Activates the light platform PDK (``prismpic.pdk.activation``), under which the cell that asked for
    the cross-section is built; the full PDK with cells and models is not built.
    """
    from prismpic.pdk.activation import ensure_active  # activation imports this module

    name, _ = _name_and_width(cross_section)
    check_choice("cross_section", name, CROSS_SECTIONS)
    ensure_active()
    return CROSS_SECTIONS[name](**kwargs)
