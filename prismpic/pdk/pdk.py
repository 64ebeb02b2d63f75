"""The gdsfactory PDK object: cells, cross-sections, layers, views, stack and models."""

from __future__ import annotations

from functools import cache

import gdsfactory as gf

from prismpic.pdk.cross_sections import CROSS_SECTIONS
from prismpic.pdk.layers import LAYER, get_layer_views
from prismpic.pdk.stack import get_layer_stack


@cache
def _build() -> gf.Pdk:
    from prismpic.circuits.registry import circuits
    from prismpic.components.electrical import CELLS as ELECTRICAL_CELLS
    from prismpic.components.registry import devices

    devs = devices()
    cells = {name: d.cell for name, d in devs.items() if d.cell is not None}
    cells.update(ELECTRICAL_CELLS)
    models = {name: d.model for name, d in devs.items()}
    for name, circ in circuits().items():
        cells[name] = circ.cell
        if circ.model is not None:
            models[name] = circ.model
    return gf.Pdk(
        name="prismpic_tfln",
        cells=cells,
        cross_sections=dict(CROSS_SECTIONS),
        layers=LAYER,
        layer_views=get_layer_views(),
        layer_stack=get_layer_stack(),
        models=models,
    )


def get_pdk() -> gf.Pdk:
    """Return the prismpic PDK, activated (so cross-section names resolve)."""
    pdk = _build()
    pdk.activate()
    return pdk


def ensure_active() -> None:
    """Activate the prismpic PDK unless it is already the active one."""
    from gdsfactory.pdk import _ACTIVE_PDK

    if _ACTIVE_PDK is None or _ACTIVE_PDK.name != "prismpic_tfln":
        get_pdk()
