"""The prismpic gdsfactory PDK: the platform plus every registered cell and model.

It sits above ``components`` and ``circuits`` (it imports both registries), so nothing below
imports it; cells are built under the light platform PDK of ``prismpic.pdk.activation`` until
``get_pdk()`` activates this full one. ``PDK.models[name]`` is the SAX model of the cell ``name``.
"""

from __future__ import annotations

from functools import cache

import gdsfactory as gf

from prismpic.circuits.registry import circuits
from prismpic.components.electrical import CELLS as ELECTRICAL_CELLS
from prismpic.components.registry import devices
from prismpic.pdk.activation import platform_parts


def cells() -> dict:
    """Every registered cell function, by name: devices, electrical cells and circuits."""
    found = {name: d.cell for name, d in devices().items() if d.cell is not None}
    found.update(ELECTRICAL_CELLS)
    found.update({name: circ.cell for name, circ in circuits().items()})
    return found


def models() -> dict:
    """Every registered SAX model, by cell name: devices and circuits that have one."""
    found = {name: d.model for name, d in devices().items()}
    found.update({name: circ.model for name, circ in circuits().items() if circ.model is not None})
    return found


@cache
def _build() -> gf.Pdk:
    return gf.Pdk(cells=cells(), models=models(), **platform_parts())


def get_pdk() -> gf.Pdk:
    """Return the prismpic PDK, activated (so cell and cross-section names resolve)."""
    pdk = _build()
    pdk.activate()
    return pdk
