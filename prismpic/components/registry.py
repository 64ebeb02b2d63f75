"""The device registry: every cell paired with its model and how to test them."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

# Device-family modules of prismpic.components, each exporting DEVICES: dict[str, Device].
MODULES = (
    "waveguides",
    "rings",
    "couplers",
    "sbends",
    "modulators",
    "eam",
    "gain",
    "pcm",
    "detectors",
    "io",
    "wdm",
    "electrical",
)


@dataclass(frozen=True)
class Device:
    """A gdsfactory cell and the SAX model that shares its parameters.

    Attributes:
        name: registry name; ``PDK.cells[name]`` and ``PDK.models[name]``.
        cell: the ``@gf.cell`` function (``None`` for model-only entries).
        model: the SAX model ``model(wl=1.55, **params) -> SDict``.
        passive: the model must satisfy max singular value of S ≤ 1.
        reciprocal: the model must satisfy S = Sᵀ.
        extremes: extreme valid parameter sets, applied to the cell and the model alike.
        grad_params: float parameters whose gradients are checked against finite differences,
            at the model's default, or a dict ``{name: value}`` for parameters whose default is None.
        model_only: parameters the model takes but the cell does not (e.g. ``wl``, voltages).
    """

    name: str
    cell: Callable | None
    model: Callable
    passive: bool = True
    reciprocal: bool = True
    extremes: tuple[dict, ...] = ()
    grad_params: tuple[str, ...] | dict[str, float] = ()
    model_only: tuple[str, ...] = field(default_factory=tuple)


def devices() -> dict[str, Device]:
    """All registered devices, by name."""
    found: dict[str, Device] = {}
    for module in MODULES:
        mod = importlib.import_module(f"prismpic.components.{module}")
        found.update(getattr(mod, "DEVICES", {}))
    return found
