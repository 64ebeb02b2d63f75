"""Every registered device and circuit model has a typed, keyword-only signature with ``wl`` first (issue 14).

``model(wl: FloatArrayLike = 1.55, *, name: Type = default, ...) -> sax.SDict``: every argument annotated
(resolved by ``typing.get_type_hints``), every default an instance of its annotation, the cell's arguments
typed at least as widely as the cell types them, ``sax.get_settings`` equal to the signature's defaults,
and every ``FloatLike`` argument traceable by JAX, as the annotation claims.
"""

import inspect
import types
import typing

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax

from prismpic.circuits.registry import circuits
from prismpic.components.model_signature import Cladding, FloatArrayLike, FloatLike, cell_defaults, model_settings
from prismpic.components.registry import devices
from prismpic.pdk.stack import CLADDINGS

DEVICES = devices()
# (name, model, cell, values for arguments whose default is None, for the trace check)
MODELS = {name: (d.model, d.cell, d.grad_params if isinstance(d.grad_params, dict) else {})
          for name, d in DEVICES.items()}
MODELS.update({f"circuit:{name}": (c.model, c.cell, {}) for name, c in circuits().items() if c.model is not None})
NAMES = sorted(MODELS)
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY


def _sdict() -> sax.SDict: ...


SDICT = typing.get_type_hints(_sdict)["return"]


def _members(hint) -> tuple:
    """The members of a union annotation (``A | B``, ``Optional[A]``), else the annotation itself."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        return typing.get_args(hint)
    return (hint,)


def _accepts(hint, value) -> bool:
    """Whether ``value`` is an instance of the annotation ``hint`` (the forms the models use; others fail)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_accepts(h, value) for h in args)
    if hint is type(None):
        return value is None
    if origin is typing.Literal:
        return value in args
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_accepts(args[0], v) for v in value)
        return len(args) == len(value) and all(_accepts(h, v) for h, v in zip(args, value, strict=True))
    if hint is float:  # PEP 484: an int is acceptable where a float is expected; a bool is not a number here
        return isinstance(value, float | int) and not isinstance(value, bool)
    if hint in (int, str, np.ndarray, jax.Array):
        return isinstance(value, hint) and not (hint is int and isinstance(value, bool))
    raise AssertionError(f"annotation {hint!r} is not one the model signature test knows")


def _params(model) -> list[inspect.Parameter]:
    return list(inspect.signature(model).parameters.values())


def test_accepts_tells_annotations_apart():
    assert _accepts(FloatLike, 0.2) and _accepts(FloatLike, 3) and _accepts(FloatLike, jnp.asarray(0.2))
    assert not _accepts(FloatLike, None) and not _accepts(FloatLike, "0.2") and not _accepts(FloatLike, True)
    assert _accepts(FloatLike | None, None) and not _accepts(str, None)
    assert _accepts(Cladding, "air") and not _accepts(Cladding, "si3n4")
    assert _accepts(tuple[float, ...], (1.5, 1.6)) and not _accepts(tuple[float, ...], [1.5, 1.6])
    assert _accepts(FloatArrayLike, np.linspace(1.5, 1.6, 3)) and not _accepts(FloatLike, np.linspace(1.5, 1.6, 3))


def test_cladding_literal_is_the_stacks_choices():
    assert set(typing.get_args(Cladding)) == set(CLADDINGS)


@pytest.mark.parametrize("name", NAMES)
def test_signature_wl_first_then_keyword_only(name):
    model = MODELS[name][0]
    first, *rest = _params(model)
    # ground rules: model(wl=1.55, *, ...): the wavelength (µm) is the only positional argument
    assert first.name == "wl" and first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and first.default == 1.55
    assert [p.name for p in rest if p.kind is not KEYWORD_ONLY] == [], f"{name}: not keyword-only"


@pytest.mark.parametrize("name", NAMES)
def test_signature_every_argument_annotated(name):
    model = MODELS[name][0]
    hints = typing.get_type_hints(model)  # raises NameError when an annotation's name is not in the module
    assert [p.name for p in _params(model) if p.name not in hints] == [], f"{name}: unannotated"
    assert hints["wl"] == FloatArrayLike
    assert hints["return"] == SDICT


@pytest.mark.parametrize("name", NAMES)
def test_signature_defaults_match_annotations(name):
    model = MODELS[name][0]
    hints = typing.get_type_hints(model)
    bad = {p.name: (p.default, hints[p.name]) for p in _params(model) if not _accepts(hints[p.name], p.default)}
    assert bad == {}, f"{name}: default not an instance of its annotation"


@pytest.mark.parametrize("name", [n for n in NAMES if MODELS[n][1] is not None])
def test_signature_cell_arguments_typed_as_the_cell(name):
    model, cell = MODELS[name][:2]
    model_hints, cell_hints = typing.get_type_hints(model), typing.get_type_hints(inspect.unwrap(cell))
    shared = [p.name for p in _params(model) if p.name in cell_hints]
    assert shared, f"{name}: no argument shared with its cell"
    narrower = {k: (cell_hints[k], model_hints[k]) for k in shared
                if not set(_members(cell_hints[k])) <= set(_members(model_hints[k]))}
    assert narrower == {}, f"{name}: the model takes less than the cell (cell type, model type)"


@pytest.mark.parametrize("name", NAMES)
def test_signature_settings_are_the_defaults(name):
    model, cell = MODELS[name][:2]
    params = _params(model)
    assert [p.name for p in params if p.default is inspect.Parameter.empty] == [], f"{name}: argument without default"
    settings = sax.get_settings(model)
    assert settings == {p.name: p.default for p in params}
    assert model_settings(model) == settings  # prismpic's SAX-free restatement, the same dict
    if cell is not None:  # the one rule: the cell's arguments take the cell's defaults
        from_cell = cell_defaults(cell)
        assert {k: v for k, v in settings.items() if k in from_cell} == {k: from_cell[k] for k in settings
                                                                         if k in from_cell}


@pytest.mark.parametrize("name", NAMES)
def test_signature_floatlike_arguments_trace(name):
    """``jax.eval_shape`` with ``wl`` an array and every FloatLike argument traced at once (no compilation)."""
    model, _, values = MODELS[name]
    hints = typing.get_type_hints(model)
    traced = {}
    for p in _params(model)[1:]:
        if FloatLike in (hints[p.name], FloatLike | None):
            value = values.get(p.name, p.default)
            if value is not None:
                traced[p.name] = jnp.asarray(float(value))
    assert traced, f"{name}: no FloatLike argument"
    wl = jnp.linspace(1.54, 1.56, 3)
    out = jax.eval_shape(lambda wl, kw: model(wl, **kw), wl, traced)
    assert {v.shape for v in out.values()} <= {wl.shape, ()}, f"{name}: S does not follow wl's shape"


@pytest.mark.parametrize("name", [n for n in NAMES if "cladding" in inspect.signature(MODELS[n][0]).parameters])
def test_signature_cladding_outside_literal_is_rejected(name):
    model = MODELS[name][0]
    assert typing.get_type_hints(model)["cladding"] == Cladding
    with pytest.raises(ValueError, match="cladding"):
        model(cladding="si3n4")


def test_reciprocal_is_saxs():
    """``model_signature.reciprocal`` (restated to keep SAX off a model's import path) equals ``sax.reciprocal``,
    and a model evaluated in a fresh process does not import SAX."""
    import subprocess
    import sys

    import jax.numpy as jnp
    import sax

    from prismpic.components.model_signature import reciprocal

    s = {("o1", "o2"): jnp.asarray([0.5 + 0.1j]), ("o1", "o3"): jnp.asarray([0.2j]), ("o2", "o2"): jnp.asarray([0.1])}
    mine, theirs = reciprocal(s), sax.reciprocal(s)
    assert mine.keys() == theirs.keys()
    assert all(bool(jnp.all(mine[k] == theirs[k])) for k in mine)
    code = ("import sys; from prismpic.components import rings; rings.ring_add_drop_model(wl=1.55); "
            "print('sax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
