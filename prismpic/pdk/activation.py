"""The gdsfactory PDK that prismpic cells are built under, and the reversible way to switch to it.

gdsfactory builds a cell under its one active PDK, a process-wide setting: layers, layer names and
cross-section names resolve through it, and activating a PDK re-registers its layers in the shared
layout (and drops the empty layers of the previous one). So a prismpic cell has to be built with a
prismpic PDK active; under gdsfactory's generic PDK, say, the prismpic-only layers (PCM 30/0, ...)
are not registered and the cell cannot be drawn.

The platform layer cannot hold the full PDK (its cells and models live in the layers above), so it
holds a light *platform* PDK: layers, layer views, layer stack and cross-sections, enough to build
any prismpic cell. The two PDKs have different names because gdsfactory's ``Pdk.activate`` does
nothing while a PDK of the same name is active.

The reversible path (gdsfactory's public ``get_active_pdk`` and ``Pdk.activate`` only):

- ``with activated():`` makes the platform PDK active for the block, unless a prismpic PDK already
  is, and afterwards activates again the PDK that was active before (gdsfactory's generic PDK, a
  foundry PDK, ...); cells built inside keep their geometry when the other PDK comes back (gdsfactory
  keeps every layer that holds shapes).
- ``platform_cell(cell)`` wraps a cell function so that each call builds inside ``activated()``: the
  cells registered in the full PDK (``prismpic.PDK.cells``, ``prismpic.pdk_registry.cells()``) are
  wrapped, so building one from a script that uses another PDK leaves that PDK active.
- ``ensure_active()``, called at the top of a cell body, activates the platform PDK when no prismpic
  PDK is active and leaves it active: it is the one-way fallback for a cell function called directly,
  outside ``activated()`` (there is no hook after a cell body that could switch back).

When no PDK was active before, the platform PDK stays active afterwards: gdsfactory has no public way
to deactivate a PDK (and with none active it would fall back to its configured default).
The active PDK is one per process, not per thread: do not build cells of two PDKs in parallel threads.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from functools import cache

from prismpic.checks import GDS_DBU_UM, check_gds_extent, gds_limit_um, layout_extent_um
from prismpic.lazy_imports import gf
from prismpic.pdk import layers
from prismpic.pdk.cross_sections import cross_sections
from prismpic.pdk.stack import get_layer_stack

# a built cell reaching this far from the origin (µm) is beyond the layout coordinate range (check_gds_extent)
GDS_LIMIT_GUARD_UM = gds_limit_um() - 2 * GDS_DBU_UM
PDK_NAME = "prismpic_tfln"  # the full PDK
PLATFORM_PDK_NAME = "prismpic_tfln_platform"
PRISMPIC_PDK_NAMES = (PDK_NAME, PLATFORM_PDK_NAME)  # and PDK_NAME@preset, the full PDK on a platform preset


def is_prismpic_pdk(name: str | None) -> bool:
    """Whether ``name`` is one of prismpic's PDKs (the full one, the platform one, or the full one on a preset)."""
    return name in PRISMPIC_PDK_NAMES or (name or "").startswith(PDK_NAME + "@")


def platform_parts() -> dict:
    """The keyword arguments of ``gf.Pdk`` that describe the platform (shared by the full PDK)."""
    return {
        "name": PDK_NAME,
        "cross_sections": dict(cross_sections()),
        "layers": layers.LAYER,
        "layer_views": layers.get_layer_views(),
        "layer_stack": get_layer_stack(),
    }


@cache
def platform_pdk() -> gf.Pdk:
    """The platform PDK: layers, views, stack and cross-sections, no cells or models."""
    return gf.Pdk(**(platform_parts() | {"name": PLATFORM_PDK_NAME}))


def active_pdk() -> gf.Pdk | None:
    """gdsfactory's active PDK, or None when none is active (``gf.get_active_pdk`` may first activate the one
    named by gdsfactory's configuration, ``CONF.pdk``, as gdsfactory itself would)."""
    try:
        return gf.get_active_pdk()
    except ValueError:
        return None


def active_pdk_name() -> str | None:
    """Name of gdsfactory's active PDK, or None when none is active."""
    pdk = active_pdk()
    return None if pdk is None else pdk.name


def ensure_active() -> None:
    """Activate the platform PDK unless a prismpic PDK is already the active one (one way; see the module)."""
    if not is_prismpic_pdk(active_pdk_name()):
        platform_pdk().activate()


@contextlib.contextmanager
def activated(pdk: gf.Pdk | None = None) -> Iterator[gf.Pdk]:
    """Make a prismpic PDK active for the block, then activate again the PDK that was active before.

    Args:
        pdk: the PDK to activate (default: the platform PDK). Without ``pdk``, nothing changes when a prismpic
            PDK (platform or full) is already active.

    Yields:
        the PDK active inside the block.
    """
    previous = active_pdk()
    if previous is not None and (previous is pdk or (pdk is None and is_prismpic_pdk(previous.name))):
        yield previous
        return
    target = platform_pdk() if pdk is None else pdk
    target.activate(force=True)
    try:
        yield target
    finally:
        if previous is not None:
            previous.activate(force=True)


def platform_cell(cell: Callable) -> Callable:
    """``cell`` (a ``@gf.cell`` function) wrapped so that every call builds inside ``activated()``.

    The wrapper keeps the cell's name, docstring, signature and attributes (``functools.wraps``); nested
    calls, made while a prismpic PDK is active, switch nothing. The built cell must lie inside the layout
    coordinate range (``checks.check_gds_extent``): a cell whose lengths add up beyond it is refused (the cells
    check each length parameter; this catches their sums).
    """
    @functools.wraps(cell)
    def build(*args, **kwargs):
        with activated():
            component = cell(*args, **kwargs)
        if layout_extent_um(component) >= GDS_LIMIT_GUARD_UM:  # refused with the call that built it
            given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            check_gds_extent(component, f"{cell.__name__}({given})")
        return component

    build.platform_cell = True  # what tests look for: the cell restores the user's PDK
    return build
