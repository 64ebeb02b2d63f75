"""The prismpic gdsfactory PDK: the platform plus every registered cell and model.

It sits above ``components`` and ``circuits`` (it imports both registries), so nothing below
imports it; cells are built under the light platform PDK of ``prismpic.pdk.activation`` until
``get_pdk()`` activates this full one. ``PDK.models[name]`` is the SAX model of the cell ``name``.

gdsfactory finds it as ``prismpic.PDK`` (``gf.get_active_pdk(name="prismpic")``, or ``pdk: prismpic`` in
gdsfactory's configuration); ``build_pdk()`` builds it once without activating it, ``get_pdk()`` also
activates it. Every prismpic cell is defined under ``activation.platform_cell``: called while another PDK
is active (gdsfactory's generic one, say), directly or through ``PDK.cells``, a cell builds under the
prismpic platform PDK and the other PDK is active again afterwards.
"""

from __future__ import annotations

from functools import cache, partial

import gdsfactory as gf

from prismpic.circuits.registry import circuits, models
from prismpic.components.electrical import CELLS as ELECTRICAL_CELLS
from prismpic.components.registry import devices
from prismpic.pdk.activation import platform_parts
from prismpic.pdk.platforms import Platform, get_platform, preset_settings


def cells() -> dict:
    """Every registered cell, by name: devices, electrical cells and circuits (each a ``platform_cell``: it builds
    under the prismpic platform PDK and restores the PDK that was active before)."""
    found = {name: d.cell for name, d in devices().items() if d.cell is not None}
    found.update(ELECTRICAL_CELLS)
    found.update({name: circ.cell for name, circ in circuits().items()})
    return found


def platform_models(platform: str | Platform) -> dict:
    """Every model of ``build_pdk().models`` with the preset's stack values as its defaults (``functools.partial``),
    so ``sax.circuit(netlist, platform_models("tfln400"))`` simulates on that stack; a netlist's own settings
    still win. ``platform``: a name of ``prismpic.pdk.platforms.PLATFORMS`` or a ``Platform``."""
    preset = get_platform(platform)
    found = {}
    for name, model in models().items():
        values = preset_settings(preset, model)
        found[name] = partial(model, **values) if values else model
    return found


@cache
def build_pdk() -> gf.Pdk:
    """The prismpic PDK, built once and not activated (``prismpic.PDK``), with every registered model
    (``prismpic.circuits.registry.models``)."""
    return gf.Pdk(cells=cells(), models=models(), **platform_parts())


def get_pdk() -> gf.Pdk:
    """Return the prismpic PDK, activated (so cell and cross-section names resolve)."""
    pdk = build_pdk()
    pdk.activate()
    return pdk
