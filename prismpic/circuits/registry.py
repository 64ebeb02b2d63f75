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


def circuits() -> dict[str, Circuit]:
    """All registered circuits, by name."""
    found: dict[str, Circuit] = {}
    for module in MODULES:
        mod = importlib.import_module(f"prismpic.circuits.{module}")
        found.update(getattr(mod, "CIRCUITS", {}))
    return found
