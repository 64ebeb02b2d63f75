"""Docs at the point of use: every registered cell and model documents each argument (``Args:``, units in the
text) and shows its ports; the most used models carry a runnable example (run here as doctests)."""

from __future__ import annotations

import doctest
import inspect
import re

import pytest

from prismpic.components.registry import devices

DEVICES = devices()
PORT = re.compile(r"\bo\d\b")


def _args_section(doc: str) -> str:
    """The text of the ``Args:`` block (up to the next unindented line)."""
    start = doc.find("Args:")
    if start < 0:
        return ""
    out = []
    for line in doc[start + len("Args:"):].splitlines()[1:]:
        if line.strip() and not line.startswith(" "):
            break
        out.append(line)
    return "\n".join(out)


def _undocumented(fn) -> list[str]:
    args = _args_section(inspect.getdoc(fn) or "")
    names = [n for n, p in inspect.signature(fn).parameters.items() if p.kind is not p.VAR_KEYWORD]
    return [n for n in names if not re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", args)]


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_cell_documents_its_arguments_and_ports(name):
    cell = DEVICES[name].cell
    doc = inspect.getdoc(cell) or ""
    assert not _undocumented(cell), f"{name}: Args: does not name {_undocumented(cell)}"
    assert ".. code::" in doc and PORT.search(doc), f"{name}: the cell's docstring has no port diagram"


@pytest.mark.parametrize("name", sorted(DEVICES))
def test_model_documents_its_arguments_and_ports(name):
    model = DEVICES[name].model
    doc = inspect.getdoc(model) or ""
    assert not _undocumented(model), f"{name}: the model's Args: does not name {_undocumented(model)}"
    cell_ports = set(PORT.findall(inspect.getdoc(DEVICES[name].cell) or ""))
    assert "Ports, as the cell" in doc and cell_ports <= set(PORT.findall(doc)), \
        f"{name}: the model's docstring does not show the cell's ports {sorted(cell_ports)}"


EXAMPLES = ("ring_add_drop", "ring_all_pass", "straight", "y_splitter", "directional_coupler")


@pytest.mark.parametrize("name", EXAMPLES)
def test_most_used_models_have_a_runnable_example(name):
    model = inspect.unwrap(DEVICES[name].model)
    tests = doctest.DocTestFinder(recurse=False).find(model, name, globs={})
    assert tests and tests[0].examples, f"{name}: the model's docstring has no example (>>>)"
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).run(tests[0])
    assert result.failed == 0, f"{name}: its docstring example fails"
