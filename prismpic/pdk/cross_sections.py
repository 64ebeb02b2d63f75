"""Cross-sections of the platform: the ridge, the routing ridge and metal traces.

A waveguide cross-section is a ridge (LN_RIDGE) with an LN_SLAB band around it. The
width of a cross-section is what the dispersion model needs; film thickness and etch
depth are properties of the wafer (``prismpic.pdk.stack``).

gdsfactory's ``xsection`` registers a factory by building its default cross-section, so the factories are
registered at their first use (``cross_sections()``), not when the models import this module's widths.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import TYPE_CHECKING

from prismpic.checks import check_choice, check_range
from prismpic.lazy_imports import gf
from prismpic.pdk import layers
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import RIDGE_WIDTH, RING_RADIUS

if TYPE_CHECKING:
    from gdsfactory import CrossSection

SLAB_MARGIN = 3.0  # µm of slab drawn on each side of a ridge
ROUTE_RADIUS = 80.0  # µm, routing bends: radiation loss negligible at this radius


def _ridge(width: float, radius: float, radius_min: float) -> CrossSection:
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    return gf.cross_section.cross_section(
        width=width,
        layer=layers.LAYER.LN_RIDGE,
        sections=(gf.cross_section.Section(width=width + 2 * SLAB_MARGIN, layer=layers.LAYER.LN_SLAB, name="slab"),),
        radius=radius,
        radius_min=radius_min,
        port_names=("o1", "o2"),
        port_types=("optical", "optical"),
    )


def _xs_ridge(width: float = RIDGE_WIDTH, radius: float = RING_RADIUS) -> CrossSection:
    """The seed's X-cut ridge (1.4 µm wide on a 0.6 µm film), default bend radius 20 µm."""
    return _ridge(width, radius, RULES.min_bend_radius)


def _xs_route(width: float = RIDGE_WIDTH, radius: float = ROUTE_RADIUS) -> CrossSection:
    """Routing ridge: the same ridge with large bends (80 µm) for negligible bend loss."""
    return _ridge(width, radius, RULES.min_bend_radius)


def _xs_metal(width: float = 10.0) -> CrossSection:
    """Electrode metal trace (Au)."""
    check_range("width", width, RULES.min_metal_width, 1000.0, unit="µm")
    return gf.cross_section.cross_section(
        width=width,
        layer=layers.LAYER.ELECTRODE,
        port_names=("e1", "e2"),
        port_types=("electrical", "electrical"),
        radius=None,
    )


def _xs_heater(width: float = 3.0) -> CrossSection:
    """Resistive heater trace."""
    check_range("width", width, RULES.min_metal_width, 100.0, unit="µm")
    return gf.cross_section.cross_section(
        width=width, layer=layers.LAYER.HEATER, port_names=("e1", "e2"), port_types=("electrical", "electrical"), radius=None
    )


FACTORIES = {f.__name__.lstrip("_"): f for f in (_xs_ridge, _xs_route, _xs_metal, _xs_heater)}
OPTICAL_CROSS_SECTIONS = ("xs_ridge", "xs_route")


@functools.cache
def cross_sections() -> dict:
    """The platform's cross-section factories by name, each registered with gdsfactory (``gf.xsection``: a
    cross-section built with the defaults is named after its factory)."""
    return {name: gf.xsection(factory) for name, factory in FACTORIES.items()}


def _registered(name: str):
    """The factory ``name`` as registered (``cross_sections``), with its own signature and docstring."""
    factory = FACTORIES[name]
    factory.__name__ = factory.__qualname__ = name  # xsection names the default cross-section after it

    @functools.wraps(factory)
    def build(*args, **kwargs) -> CrossSection:
        return cross_sections()[name](*args, **kwargs)

    return build


xs_ridge, xs_route, xs_metal, xs_heater = (_registered(name) for name in FACTORIES)


def _name_and_width(cross_section) -> tuple[str, float | None]:
    # gdsfactory's routers hand cells CrossSection objects; netlists hold their names. A CrossSection exists only
    # once gdsfactory is imported, so a model given a name does not import it.
    gdsfactory = sys.modules.get("gdsfactory")
    if gdsfactory is not None and isinstance(cross_section, gdsfactory.CrossSection):
        return cross_section.name, cross_section.width
    return cross_section, None


def ridge_width(cross_section: str | CrossSection = "xs_ridge", width: float | None = None) -> float:
    """Ridge width (µm) of an optical cross-section (name or object), or ``width`` when given."""
    name, xs_width = _name_and_width(cross_section)
    check_choice("cross_section", name, OPTICAL_CROSS_SECTIONS)
    if width is not None:
        return width
    return RIDGE_WIDTH if xs_width is None else xs_width


def default_radius(cross_section: str | CrossSection = "xs_ridge") -> float | None:
    """Default bend radius (µm) of a cross-section (name or object): its factory's ``radius`` default, read without
    building it (so a model that needs only this number does not import gdsfactory)."""
    name, _ = _name_and_width(cross_section)
    check_choice("cross_section", name, FACTORIES)
    if not isinstance(cross_section, str):
        return cross_section.radius
    radius = inspect.signature(FACTORIES[name]).parameters.get("radius")
    return None if radius is None else radius.default


def get_cross_section(cross_section: str | CrossSection = "xs_ridge", **kwargs) -> CrossSection:
    """Return a cross-section by name or object (ValueError for unknown names).

    Activates the light platform PDK (``prismpic.pdk.activation``), under which the cell that asked for
    the cross-section is built; the full PDK with cells and models is not built.
    """
    from prismpic.pdk.activation import ensure_active  # activation imports this module

    name, _ = _name_and_width(cross_section)
    check_choice("cross_section", name, FACTORIES)
    ensure_active()
    return cross_sections()[name](**kwargs)
