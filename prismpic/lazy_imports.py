"""Libraries imported on first use: SAX (with scikit-rf, SymPy and pandas behind it) costs 1.5 CPU-s to import and
gdsfactory (with kfactory, KLayout, matplotlib, trimesh and networkx) 1.7–1.9 CPU-s after JAX, which a command that
only evaluates models (``claims``, ``transient``, ``calibrate``, ``recall``) need not pay.

``from prismpic.lazy_imports import sax`` (or ``gf``) gives an object whose attributes are the module's, imported at
the first attribute access; annotations (``-> sax.SDict``, ``-> gf.Component``) stay strings under
``from __future__ import annotations``. Cells are decorated with ``gf_cell``: gdsfactory's ``gf.cell``, applied at
the cell's first call, so that defining a cell (beside its model, in the same module) imports nothing.
"""

from __future__ import annotations

import functools
import importlib
import threading


class LazyModule:
    """A module imported when one of its attributes is first read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


sax = LazyModule("sax")
gf = LazyModule("gdsfactory")
_CELL_LOCK = threading.Lock()


def gf_cell(func):
    """``gf.cell(func)``, built at the first call: the same cell (name, settings, cache) as the eager decorator,
    with the function's name, docstring and signature from the start (``functools.wraps``)."""
    built = []

    @functools.wraps(func)
    def first_call(*args, **kwargs):
        if not built:
            with _CELL_LOCK:
                if not built:
                    built.append(importlib.import_module("gdsfactory").cell(func))
        return built[0](*args, **kwargs)

    first_call.is_gf_cell = True  # what gdsfactory's get_cells looks for
    return first_call
