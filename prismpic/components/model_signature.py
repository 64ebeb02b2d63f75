"""One source of defaults per device: a model's geometry arguments take their defaults from its cell.

A model lists the cell's geometry arguments by name and ``@model_of(cell)`` fills their defaults from
the cell's signature (one place to change them), so ``sax.get_settings`` and netlists see the full
signature. Two ways to mark such an argument:

- keyword-only without a default (models: ``model(wl=1.55, *, radius, gap, ...)``);
- the default ``CELL`` (helpers that are also called positionally: ``vpi(wl=1.55, length=CELL)``).

Physics-only arguments (loss, voltage, temperature, ...) keep their own defaults. A default given in
both places is an error at import time.

Every model argument is annotated with the types below (``tests/components/test_model_signatures.py``):
``wl: FloatArrayLike``; a real number ``FloatLike`` (the cell's ``float``, which the model may receive
traced by ``jax.jit``/``grad``/``vmap``), ``FloatLike | None`` where the cell has ``float | None``;
``cross_section: str``; ``cladding: Cladding``.

Example::

    @model_of(ring_all_pass)
    def ring_all_pass_model(wl: FloatArrayLike = 1.55, *, radius: FloatLike, gap: FloatLike, width: FloatLike,
                            loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM) -> sax.SDict: ...
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Literal, TypeAlias

import jax
import numpy as np

FloatLike: TypeAlias = float | jax.Array
"""A real scalar: a Python float (an int counts) or a 0-d JAX array, possibly a tracer (jit, grad, vmap)."""

FloatArrayLike: TypeAlias = float | np.ndarray | jax.Array
"""A real scalar or array of any shape, e.g. the wavelengths ``wl`` (µm); the S-parameters take its shape."""

Cladding: TypeAlias = Literal["sio2", "air"]
"""The cladding above the ridges: ``prismpic.pdk.stack.CLADDINGS``."""

_EMPTY = inspect.Parameter.empty


class _CellDefault:
    def __repr__(self) -> str:
        return "CELL"


CELL = _CellDefault()  # default marker: "the cell's default for this argument"


def reciprocal(sdict: dict) -> dict:
    """The S-dict with S[j, i] = S[i, j] added for every given (i, j): ``sax.reciprocal`` (sax/s.py), restated
    here because importing SAX costs 1.5 CPU-s (scikit-rf, SymPy, pandas) that evaluating a model need not pay."""
    return {**sdict, **{(p2, p1): v for (p1, p2), v in sdict.items()}}


def model_settings(model: Callable) -> dict:
    """{argument: default} of a model, every argument that has one (``wl`` included): ``sax.get_settings``
    (sax/utils.py) for a plain signature, restated so that asking a model's settings does not import SAX."""
    return {n: p.default for n, p in inspect.signature(model).parameters.items() if p.default is not _EMPTY}


def cell_defaults(cell: Callable) -> dict:
    """The keyword defaults of a cell function (``@gf.cell`` wrappers are unwrapped)."""
    sig = inspect.signature(inspect.unwrap(cell))
    return {n: p.default for n, p in sig.parameters.items() if p.default is not _EMPTY}


def _takes_cell_default(p: inspect.Parameter) -> bool:
    return p.default is CELL or (p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is _EMPTY)


def port_diagram_text(cell: Callable) -> str:
    """The cell's port diagram (the ``.. code::`` block of its docstring), as a docstring section for its model."""
    doc = inspect.getdoc(inspect.unwrap(cell)) or ""
    start = doc.find(".. code::")
    if start < 0:
        return ""
    block = doc[start + len(".. code::"):].split("\n\n", 1)[1] if "\n\n" in doc[start:] else ""
    lines = []
    for line in block.splitlines():
        if line and not line.startswith(" "):
            break
        lines.append(line)
    art = "\n".join(f"    {line}" if line else "" for line in lines).rstrip()
    name = getattr(inspect.unwrap(cell), "__name__", "cell")
    return f"\n\n    Ports, as the cell ``{name}`` draws them::\n\n{art}\n"


def model_of(cell: Callable) -> Callable[[Callable], Callable]:
    """Decorator: give the function's marked arguments (see the module) the defaults of ``cell``; a model's
    docstring (a function named ``*_model``) gains the cell's port diagram.

    Raises TypeError at decoration time when a marked argument is not an argument of the cell, or
    when the function restates a default the cell already holds.
    """
    defaults = cell_defaults(cell)
    cell_name = getattr(cell, "__name__", repr(cell))

    def decorate(fn: Callable) -> Callable:
        sig = inspect.signature(fn)
        params = []
        for p in sig.parameters.values():
            if _takes_cell_default(p):
                if p.name not in defaults:
                    raise TypeError(f"{fn.__name__}: argument {p.name!r} takes a cell default but is not an "
                                    f"argument of the cell {cell_name} (its arguments: {sorted(defaults)})")
                p = p.replace(default=defaults[p.name])
            elif p.name in defaults and p.name != "wl":
                raise TypeError(f"{fn.__name__}: argument {p.name!r} restates a default of the cell {cell_name}; "
                                "mark it (keyword-only without a default, or default CELL)")
            params.append(p)
        full = sig.replace(parameters=params)
        marked = [p.name for p in sig.parameters.values() if _takes_cell_default(p)]
        filled = {name: full.parameters[name].default for name in marked}
        positional = any(sig.parameters[n].kind is not inspect.Parameter.KEYWORD_ONLY for n in marked)

        if positional:
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                bound = full.bind(*args, **kwargs)
                bound.apply_defaults()
                return fn(*bound.args, **bound.kwargs)
        else:
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                for name, value in filled.items():
                    kwargs.setdefault(name, value)
                return fn(*args, **kwargs)

        wrapper.__signature__ = full
        wrapper.cell = cell
        if fn.__name__.endswith("_model"):
            wrapper.__doc__ = (fn.__doc__ or "").rstrip() + port_diagram_text(cell)
        return wrapper

    return decorate
