"""The gdsfactory PDK that cells are built under.

gdsfactory builds a cell only under an active PDK (it resolves layers and cross-sections through
it). The platform layer cannot hold the full PDK (its cells and models live in the layers above),
so it holds a light *platform* PDK: layers, layer views, layer stack and cross-sections, enough to
build any prismpic cell. ``ensure_active()`` activates it unless a prismpic PDK (this one, or the
full one from ``prismpic.get_pdk()``) is already active. The two have different names because
gdsfactory's ``Pdk.activate`` does nothing while a PDK of the same name is active.
"""

from __future__ import annotations

from functools import cache

import gdsfactory as gf

from prismpic.pdk.cross_sections import CROSS_SECTIONS
from prismpic.pdk.layers import LAYER, get_layer_views
from prismpic.pdk.stack import get_layer_stack

PDK_NAME = "prismpic_tfln"  # the full PDK
PLATFORM_PDK_NAME = "prismpic_tfln_platform"


def platform_parts() -> dict:
    """The keyword arguments of ``gf.Pdk`` that describe the platform (shared by the full PDK)."""
    return {
        "name": PDK_NAME,
        "cross_sections": dict(CROSS_SECTIONS),
        "layers": LAYER,
        "layer_views": get_layer_views(),
        "layer_stack": get_layer_stack(),
    }


@cache
def platform_pdk() -> gf.Pdk:
    """The platform PDK: layers, views, stack and cross-sections, no cells or models."""
    return gf.Pdk(**(platform_parts() | {"name": PLATFORM_PDK_NAME}))


def active_pdk_name() -> str | None:
    """Name of gdsfactory's active PDK, or None when none is active."""
    try:
        return gf.get_active_pdk().name
    except ValueError:
        return None


def ensure_active() -> None:
    """Activate the platform PDK unless a prismpic PDK is already the active one."""
    if active_pdk_name() not in (PDK_NAME, PLATFORM_PDK_NAME):
        platform_pdk().activate()
