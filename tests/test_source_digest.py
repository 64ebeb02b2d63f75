"""The sources a cached program or array is keyed on (``prismpic.source_digest``): every prismpic module Python
imports with a module is in its closure, an edit inside the closure changes the key, one outside does not."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import prismpic
from prismpic import program_cache, source_digest, user_cache

PACKAGE = Path(prismpic.__file__).parent


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_graph_reads_every_kind_of_import_and_leaves_a_package_inits_functions_out(tmp_path):
    root = _write(tmp_path / "prismpic", {
        "__init__.py": "import os\n\ndef lazy():\n    from prismpic.heavy import thing\n",
        "heavy.py": "thing = 1\n",
        "a/__init__.py": "from prismpic.a.base import x\n",
        "a/base.py": "x = 1\n",
        "a/user.py": "from prismpic.a import (\n    base,  # a module\n    x as y,\n)\n\n"
                     "def f():\n    import prismpic.b.inner\n",
        "b/__init__.py": "",
        "b/inner.py": "import importlib\nnames = [importlib.import_module(f'prismpic.c.{n}') for n in ('p',)]\n",
        "c/__init__.py": "",
        "c/p.py": "LABEL = 'prismpic.lyp'\n",
        "c/q.py": "",
        "unrelated.py": "",
        "data/table.json": "{}",
    })
    src = source_digest.Sources.read(root, "0")
    got = src.closure({"prismpic.a.user"})
    assert got == {"prismpic", "prismpic.a", "prismpic.a.base", "prismpic.a.user", "prismpic.b", "prismpic.b.inner",
                   "prismpic.c", "prismpic.c.p", "prismpic.c.q"}  # not heavy (a function of the root's) nor unrelated
    assert src.closure({"prismpic.a.base"}) == {"prismpic", "prismpic.a", "prismpic.a.base"}
    key = src.key({"prismpic.a.user"})
    (root / "unrelated.py").write_text("changed = True\n")
    (root / "heavy.py").write_text("thing = 2\n")
    assert source_digest.Sources.read(root, "0").key({"prismpic.a.user"}) == key
    for rel, text in (("c/q.py", "q = 1\n"), ("data/table.json", "[]"), ("__init__.py", "import sys\n")):
        before = (root / rel).read_text()
        (root / rel).write_text(text)
        assert source_digest.Sources.read(root, "0").key({"prismpic.a.user"}) != key, rel
        (root / rel).write_text(before)
    assert source_digest.Sources.read(root, "0").key({"prismpic.a.user"}) == key
    assert source_digest.Sources.read(root, "1").key({"prismpic.a.user"}) != key  # another version
    with pytest.raises(ValueError, match="prismpic.nothing"):
        src.key({"prismpic.nothing"})


_IMPORTED = "import importlib, json, sys; importlib.import_module(sys.argv[1]); " \
            "print(json.dumps(sorted(m for m in sys.modules if m == 'prismpic' or m.startswith('prismpic.'))))"


@pytest.mark.parametrize("module", ["prismpic.components.ring_resonance", "prismpic.circuits.bank_model",
                                    "prismpic.analysis.calibration.ring.physfit"])
def test_every_module_python_imports_is_in_the_closure(module):
    """Python's own import machinery, in a fresh process, against the static graph: what importing the module
    loads (its function-level imports aside, which the graph also holds) lies inside its closure."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _IMPORTED, module], capture_output=True, text=True, env=env,
                         timeout=300, check=True)
    loaded = set(json.loads(out.stdout))
    closure = source_digest.imported().closure({module})
    assert loaded <= closure, sorted(loaded - closure)
    assert len(closure) < len(source_digest.imported().files)  # and not simply everything


def test_an_edit_outside_a_models_closure_keeps_its_key_and_one_inside_changes_it(tmp_path):
    copy = tmp_path / "prismpic"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    model = {"prismpic.components.ring_resonance"}
    key = source_digest.Sources.read(copy, prismpic.__version__).key(model)
    assert key == source_digest.imported().key(model)
    report = copy / "report" / "build.py"
    report.write_text(report.read_text() + "\n# an edit of the report\n")
    assert source_digest.Sources.read(copy, prismpic.__version__).key(model) == key
    physics = copy / "pdk" / "chebyshev.py"
    physics.write_text(physics.read_text() + "\n# an edit of the tables' sums\n")
    assert source_digest.Sources.read(copy, prismpic.__version__).key(model) != key


def test_a_programs_key_names_the_modules_of_the_function_and_of_what_it_closes_over(monkeypatch):
    import jax.numpy as jnp

    from prismpic.components import ring_physics
    from prismpic.pdk.ridge_stack import RidgeStack

    seen = []
    monkeypatch.setattr(user_cache, "source_key", lambda **kw: seen.append(kw["modules"]) or "k")
    monkeypatch.setattr(program_cache, "KNOWN_PACKAGES", (*program_cache.KNOWN_PACKAGES, __name__))
    ridge, ng = RidgeStack(), ring_physics.ring_ng
    program_cache.program_key(lambda x: ng(x, 20.0, ridge) + jnp.sin(x), (1.55,))
    assert set(seen[0]) == {"prismpic.components.ring_physics", "prismpic.pdk.ridge_stack"}
