"""The package's structure (docs/ARCHITECTURE.md): module size, one-way imports, no private names across modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "prismpic"
MAX_LINES = 600
# Layers, lowest first: a module may import its own layer and those below, never one above.
LAYERS = ("prismpic.pdk", "prismpic.components", "prismpic.circuits", "prismpic.analysis", "prismpic.report")
ABOVE_ALL = ("prismpic.pdk_registry", "prismpic.cli")  # nothing in the layers imports these


def _sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py") if ".venv" not in p.parts)


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(tree: ast.AST, module: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, imported module, names) for every import, at any depth (function-level included)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name, ()) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".")[: -node.level] if not module.endswith("__init__") else module.split(".")
                base = ".".join([*pkg, base] if base else pkg)
            out.append((node.lineno, base, tuple(a.name for a in node.names)))
    return out


def _layer(module: str) -> int | None:
    for i, name in enumerate(LAYERS):
        if module == name or module.startswith(name + "."):
            return i
    return None


@pytest.mark.parametrize("path", _sources("prismpic"), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_is_short(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines (> {MAX_LINES}): split it along its seams"


def test_imports_flow_one_way():
    bad = []
    for path in _sources("prismpic"):
        module = _module_name(path)
        own = _layer(module)
        for line, target, names in _imports(ast.parse(path.read_text()), module):
            targets = [target] + [f"{target}.{n}" for n in names]
            for t in targets:
                layer = _layer(t)
                above = own is not None and ((layer is not None and layer > own)
                                             or any(t == a or t.startswith(a + ".") for a in ABOVE_ALL))
                if above:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {t}")
                    break
    assert not bad, "imports against the layering pdk <- components <- circuits <- analysis <- report:\n" + "\n".join(bad)


def _prismpic_aliases(tree: ast.AST) -> dict[str, str]:
    """Local names bound to prismpic modules (``import prismpic.x as y``, ``from prismpic import x``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("prismpic"):
                    names[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prismpic"):
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def test_no_private_name_used_across_modules():
    bad = []
    for path in _sources("prismpic", "layouts", "docs", "benchmarks"):
        tree = ast.parse(path.read_text())
        aliases = _prismpic_aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prismpic"):
                bad += [f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}.{a.name}"
                        for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if any(part.startswith("_") and part != "__init__" for part in node.module.split(".")):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno} imports the private module {node.module}")
            elif (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                  and isinstance(node.value, ast.Name) and node.value.id in aliases):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    assert not bad, "private names used outside their module:\n" + "\n".join(bad)


def test_physical_constants_come_from_scipy():
    typed = [f"{p.relative_to(ROOT)}:{i}" for p in _sources("prismpic") for i, line in
             enumerate(p.read_text().splitlines(), 1) if "299792458" in line.replace("_", "").replace(".", "")]
    assert not typed, "the speed of light typed by hand (use scipy.constants.c):\n" + "\n".join(typed)


# The top package (prismpic/__init__.py) switches JAX to float64 and builds the full PDK; modules of the layers
# below reach neither it nor the registry above them (its version string is metadata, not a layer).
TOP_PACKAGE_NAMES_ALLOWED = ("__version__",)


def test_layers_do_not_reach_the_top_package():
    bad = []
    for path in _sources("prismpic"):
        module = _module_name(path)
        if _layer(module) is None:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                bad += [f"{path.relative_to(ROOT)}:{node.lineno} imports the top package"
                        for a in node.names if a.name == "prismpic"]
            elif isinstance(node, ast.ImportFrom) and node.module == "prismpic" and not node.level:
                bad += [f"{path.relative_to(ROOT)}:{node.lineno} imports prismpic.{a.name}" for a in node.names
                        if a.name not in TOP_PACKAGE_NAMES_ALLOWED and not (PACKAGE / f"{a.name}.py").exists()]
    assert not bad, "modules of the layers reach the top package (float64 is on for any prismpic import):\n" + \
        "\n".join(bad)


def test_float64_is_switched_in_one_place():
    switches = [f"{p.relative_to(ROOT)}:{i}" for p in _sources("prismpic") if p != PACKAGE / "__init__.py"
                for i, line in enumerate(p.read_text().splitlines(), 1)
                if "jax_enable_x64" in line or "JAX_ENABLE_X64" in line]
    assert not switches, "float64 switched outside prismpic/__init__.py:\n" + "\n".join(switches)


MAX_FUNCTION_LINES = 80


def _body_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function's body, its signature and docstring left out."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return fn.end_lineno - body[0].lineno + 1 if body else 0


def test_long_functions_say_why():
    """A function body over MAX_FUNCTION_LINES lines says why in its docstring ("Long because ...")."""
    bad = []
    for path in _sources("prismpic"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _body_lines(node) > MAX_FUNCTION_LINES:
                if "Long because" not in (ast.get_docstring(node) or ""):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({_body_lines(node)} lines)")
    assert not bad, f"functions over {MAX_FUNCTION_LINES} lines without a reason:\n" + "\n".join(bad)
