"""The circuit registry: every circuit's layout cell, netlist model and fast model."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

# Circuit modules of prismpic.circuits, each exporting CIRCUITS: dict[str, Circuit].
MODULES: tuple[str, ...] = ("splitter_tree", "bank_layout", "ptu", "kv_loop", "prototype")


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
