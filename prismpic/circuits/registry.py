"""The circuit registry: every circuit's layout cell, netlist model and fast model."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

# Circuit modules of prismpic.circuits, each exporting CIRCUITS: dict[str, Circuit].
# ptu_model registers the ptu cell (its fast model imports the cell, so the layout module cannot).
MODULES: tuple[str, ...] = ("splitter_tree", "bank_layout", "ptu_model", "kv_loop", "prototype")


@dataclass(frozen=True)
class Circuit:
    """A composition: its layout cell, an optional SAX model, an optional fast model."""

    name: str
    cell: Callable
    model: Callable | None = None
    fast_model: Callable | None = None


def models() -> dict[str, Callable]:
    """Every registered SAX model, by cell name: devices and circuits that have one, and the file models
    (``touchstone``: S-parameters read from the file its settings name), which have no cell."""
    from prismpic.components.registry import devices
    from prismpic.components.touchstone import FILE_MODELS

    found = {name: d.model for name, d in devices().items()}
    found.update({name: circ.model for name, circ in circuits().items() if circ.model is not None})
    return {**found, **FILE_MODELS}


def circuits() -> dict[str, Circuit]:
    """All registered circuits, by name."""
    found: dict[str, Circuit] = {}
    for module in MODULES:
        mod = importlib.import_module(f"prismpic.circuits.{module}")
        found.update(getattr(mod, "CIRCUITS", {}))
    return found
