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
from prismpic.pdk.activation import PDK_NAME, platform_parts
from prismpic.pdk.platforms import Platform, accepted_settings, get_platform, preset_settings
from prismpic.pdk.stack import get_layer_stack


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
    return _with_preset(models(), get_platform(platform))


def platform_cells(platform: str | Platform) -> dict:
    """Every cell of ``cells()`` with the preset's values as defaults where the cell takes them: the cells whose
    geometry follows from the stack (``prism_bank`` and ``prototype_8x8`` plan their ring radii on it) are drawn
    for that stack, the others are unchanged. ``platform``: a preset name or a ``Platform``."""
    return _with_preset(cells(), get_platform(platform))


def _with_preset(functions: dict, preset: Platform) -> dict:
    found = {}
    for name, fn in functions.items():
        values = preset_settings(preset, fn)
        found[name] = partial(fn, **values) if values else fn
    return found


def pdk_name(platform: str | Platform | None = None) -> str:
    """The gdsfactory name of prismpic's PDK on ``platform`` (None or the ``"prismpic"`` preset: the default stack)."""
    preset = get_platform(platform or "prismpic")
    return PDK_NAME if preset == get_platform("prismpic") else f"{PDK_NAME}@{preset.name}"


def build_pdk(platform: str | Platform | None = None) -> gf.Pdk:
    """The prismpic PDK, built once and not activated (``prismpic.PDK``), with every registered model
    (``prismpic.circuits.registry.models``); on a preset (``platform``, a name of ``pdk.platforms.PLATFORMS`` or a
    ``Platform``) its cells and models take the preset's values (``platform_cells``, ``platform_models``) and its
    layer stack is the preset's."""
    return _built_pdk(get_platform(platform or "prismpic"))


@cache
def _built_pdk(preset: Platform) -> gf.Pdk:
    if preset == get_platform("prismpic"):
        return gf.Pdk(cells=cells(), models=models(), **platform_parts())
    stack = accepted_settings(get_layer_stack, preset.settings())
    return gf.Pdk(cells=platform_cells(preset), models=platform_models(preset),
                  **(platform_parts() | {"name": pdk_name(preset), "layer_stack": get_layer_stack(**stack)}))


def get_pdk(platform: str | Platform | None = None) -> gf.Pdk:
    """Return the prismpic PDK (on ``platform``'s stack when given, a preset name), activated (so cell and
    cross-section names resolve)."""
    pdk = build_pdk(platform)
    pdk.activate()
    return pdk
