"""Libraries imported on first use: SAX (with scikit-rf, SymPy and pandas behind it) costs 1.5 CPU-s to import,
which a command that only evaluates models (``claims``, ``transient``, ``calibrate``) need not pay.

``from prismpic.lazy_imports import sax`` gives an object whose attributes are the module's, imported at the first
attribute access; annotations (``-> sax.SDict``) stay strings under ``from __future__ import annotations``.
"""

from __future__ import annotations

import importlib


class LazyModule:
    """A module imported when one of its attributes is first read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


sax = LazyModule("sax")
