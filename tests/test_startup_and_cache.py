"""Commands that start light, the user cache (compiled programs, the catalog) and the terminal texts of
``list``, ``info`` and ``mode``."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prismpic import user_cache
from prismpic.cli import app

runner = CliRunner()


def run_python(code: str, env: dict | None = None) -> str:
    """``code`` in a fresh interpreter; with ``env``, without the test run's own JAX cache variables (conftest)."""
    base = {k: v for k, v in os.environ.items() if not (env and k.startswith("JAX_") and "CACHE" in k)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**base, **(env or {})})
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_neither_jax_nor_gdsfactory(flag):
    """Nor NumPy (0.1 CPU-s of the 0.2 that ``--version`` costs): the stack's constants and the platform names the
    help text lists come without it."""
    code = ("import sys\nfrom prismpic.cli import app\n"
            f"try:\n    app([{flag!r}])\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code\n"
            "print('MODULES', *(m in sys.modules for m in ('jax', 'gdsfactory', 'sax', 'numpy')))")
    out = run_python(code)
    assert "MODULES False False False False" in out


def test_ring_specs_and_the_ledger_context_do_not_import_sax():
    """Models give their settings without SAX (``model_signature.model_settings``): a ring's specs and the crosstalk
    and ledger modules leave SAX, scikit-rf and SymPy unimported (≈ 0.9 CPU-s a ``prismpic claims`` need not pay)."""
    out = run_python("import sys\nfrom prismpic.components import rings\nfrom prismpic.analysis.ledger import claims\n"
                     "from prismpic.analysis.system import crosstalk\nclaims.judges()\n"
                     "print(round(rings.ring_specs()['fsr_nm'], 1) > 0, [m for m in ('sax', 'skrf', 'sympy') "
                     "if m in sys.modules])")
    assert out.split() == ["True", "[]"]


def test_models_and_the_time_domain_do_not_import_gdsfactory():
    """Cells are decorated lazily (``lazy_imports.gf_cell``) and ``LAYER``/the cross-sections are made at first use,
    and the splitter tree's fast model reads its bends' footprint without drawing them (``euler_footprint``), so
    evaluating models, a ring's specs, a weight update in time and a tree leaves gdsfactory (with kfactory, KLayout,
    matplotlib, trimesh) unimported (≈ 1.8 CPU-s); building a cell afterwards imports it and draws on the layers."""
    out = run_python("import sys\nfrom prismpic.components import rings, waveguides\n"
                     "from prismpic.analysis.transient import analyses\n"
                     "rings.ring_add_drop_model(wl=1.55)\nwaveguides.bend_euler_model(wl=1.55, radius=20.0)\n"
                     "rings.ring_specs(1.55, 'add_drop')\nanalyses.weight_update_settling()\n"
                     "from prismpic.circuits import splitter_tree\nsplitter_tree.splitter_tree_fast(wl=1.55, n_outputs=8)\n"
                     "print('MODULES', [m for m in ('gdsfactory', 'kfactory', 'klayout') if m in sys.modules])\n"
                     "c = rings.ring_add_drop()\nfrom prismpic.pdk.layers import LAYER\n"
                     "print('CELL', 'gdsfactory' in sys.modules, sorted(c.ports.keys()) if hasattr(c.ports, 'keys') "
                     "else sorted(p.name for p in c.ports), (1, 0) in [tuple(l) for l in c.layers] or "
                     "LAYER.LN_RIDGE in c.layers)")
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in out.splitlines() if " " in line}
    assert lines["MODULES"] == "[]"
    assert lines["CELL"].startswith("True") and lines["CELL"].endswith("True")


def test_importing_prismpic_enables_float64_without_importing_jax():
    out = run_python("import sys, prismpic\nprint('jax' in sys.modules)\nimport jax.numpy as jnp\n"
                     "print(jnp.asarray(1.0).dtype, jnp.asarray(1).dtype)")
    assert out.split() == ["False", "float64", "int64"]
    # JAX imported first: prismpic sets its config
    out = run_python("import jax\nimport prismpic\nimport jax.numpy as jnp\nprint(jnp.asarray(1.0).dtype)")
    assert out.split() == ["float64"]


RING_S = ("import jax, jax.numpy as jnp, numpy as np\nfrom prismpic import user_cache\n"
          "print(user_cache.enable_compilation_cache())\n"
          "from prismpic.components import rings\n"
          "s = jax.jit(lambda wl: rings.ring_add_drop_model(wl, gap=0.25))(jnp.linspace(1.545, 1.555, 7))\n"
          "print(np.asarray(s[('o1', 'o2')]).tobytes().hex())\n")


def test_results_identical_with_and_without_the_compilation_cache(tmp_path):
    on = {user_cache.ENV: str(tmp_path / "cache")}
    cold = run_python(RING_S, on).splitlines()
    entries = list((tmp_path / "cache" / user_cache.JAX_FOLDER).rglob("*-cache"))
    assert entries, "the first run writes compiled programs"
    warm = run_python(RING_S, on).splitlines()
    off = run_python(RING_S, {user_cache.ENV: "off"}).splitlines()
    assert off[0] == "None" and cold[0] == warm[0] != "None"
    assert cold[-1] == warm[-1] == off[-1]  # bit for bit



def test_a_jax_cache_folder_the_user_set_stands_and_loads_quietly(tmp_path):
    """A ``JAX_COMPILATION_CACHE_DIR`` the user set is the one used; the process that reads programs back from it
    prints nothing of XLA's C++ log (it printed two lines per program: "Loading XLA:CPU AOT result ... SIGILL")."""
    base = {k: v for k, v in os.environ.items() if not (k.startswith("JAX_") and "CACHE" in k)}
    base.pop("TF_CPP_MIN_LOG_LEVEL", None)
    env = {**base, user_cache.ENV: str(tmp_path / "cache"), "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "mine"),
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}
    code = "from prismpic import user_cache\nuser_cache.enable_compilation_cache()\n" + RING_S  # as the CLI: before JAX
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    assert runs[0].stdout.splitlines()[0] == str(tmp_path / "mine") and list((tmp_path / "mine").glob("*-cache"))
    assert runs[0].stdout == runs[1].stdout
    assert "XLA:CPU" not in runs[1].stderr and "pjrt" not in runs[1].stderr, runs[1].stderr[-2000:]


def test_a_folder_prismpic_did_not_make_is_neither_used_nor_cleared(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    (mine / "jax" / "cpu-0123").mkdir(parents=True)
    keep = [mine / "notes.txt", mine / "jax" / "cpu-0123" / "x-cache"]
    for p in keep:
        p.write_text("the user's")
    monkeypatch.setenv(user_cache.ENV, str(mine))
    assert user_cache.ready_root() is None
    with pytest.raises(ValueError, match="not a folder prismpic made"):
        user_cache.clear()
    res = runner.invoke(app, ["cache", "--clear"])
    assert res.exit_code == 2 and "not a folder prismpic made" in res.output
    assert all(p.read_text() == "the user's" for p in keep)


def test_clear_removes_cache_entries_and_nothing_else(tmp_path, monkeypatch):
    root = tmp_path / "c"
    monkeypatch.setenv(user_cache.ENV, str(root))
    assert user_cache.ready_root() == root and (root / user_cache.MARKER).is_file()
    host = root / user_cache.JAX_FOLDER / user_cache.host_folder()
    host.mkdir(parents=True)
    entries = [host / "jit_f-abc-cache", host / "jit_f-abc-atime"]
    for p in entries:
        p.write_bytes(b"12345")
    assert user_cache.cached_json("catalog-x", lambda: {"a": 1}) == {"a": 1}
    assert user_cache.cached_json("catalog-x", lambda: {"a": 2}) == {"a": 1}  # read back, not recomputed
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    others = [root / "README", host / "notes.txt"]
    for p in others:
        p.write_text("the user's")
    (host / "link-cache").symlink_to(victim)
    assert user_cache.usage()["entries"] == 3
    count, size = user_cache.clear()
    assert count == 3 and size >= 10
    assert not any(p.exists() for p in entries)
    assert all(p.read_text() == "the user's" for p in others) and victim.read_text() == "keep"
    assert (host / "link-cache").is_symlink()
    res = runner.invoke(app, ["cache"])
    assert res.exit_code == 0 and str(root) in res.output and "0 entries" in res.output


def test_cache_off(monkeypatch):
    monkeypatch.setenv(user_cache.ENV, "off")
    assert user_cache.cache_root() is None and user_cache.enable_compilation_cache() is None
    assert user_cache.cached_json("catalog-y", lambda: [1]) == [1]
    res = runner.invoke(app, ["cache"])
    assert res.exit_code == 0 and "off" in res.output


def test_the_cache_key_follows_the_sources_contents_not_their_times(tmp_path):
    """A changed source file gives a new key, so ``list`` never shows a stale catalog; a copy of the same sources
    (a fresh clone, a reinstall: new modification times) keeps the key, so its cached entries are found."""
    import prismpic

    package = Path(prismpic.__file__).parent
    copy = tmp_path / "prismpic"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    src = copy / "checks.py"
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    key = user_cache.source_key(copy)
    assert key == user_cache.source_key(package)
    src.write_text(src.read_text() + "\n# changed\n")
    assert user_cache.source_key(copy) != key
    src.write_text(src.read_text()[: -len("\n# changed\n")])
    assert user_cache.source_key(copy) == key


def test_list_fits_80_columns_and_info_prints_plain_text():
    res = runner.invoke(app, ["list"])
    assert res.exit_code == 0 and max(len(line) for line in res.stdout.splitlines()) <= 80
    res = runner.invoke(app, ["info", "ring_add_drop", "--no-drc"])
    assert res.exit_code == 0, res.output
    assert "``" not in res.stdout and max(len(line) for line in res.stdout.splitlines()) <= 80
    rows = {line.split()[0]: line for line in res.stdout.splitlines() if line.strip().startswith(("dneff", "dng"))}
    assert "group-index" in rows["dng"] and "group-index" not in rows["dneff"]
    data = json.loads(runner.invoke(app, ["info", "ring_add_drop", "--no-drc", "--json"]).stdout)
    assert data["model"]["ports"] == ["o1", "o2", "o3", "o4"]


def test_mode_echoes_its_geometry_and_names_the_propagation_direction(monkeypatch):
    from prismpic.cli import common

    monkeypatch.setattr(common.console, "width", 200)  # one line per table row, whatever the worker's terminal
    res = runner.invoke(app, ["mode", "--width", "1.2", "--etch-depth", "0.3"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "1.2 µm wide" in out and "etch 0.3 µm" in out and "straight" in out and "inf" not in out
    # crystal_axis "z": TE field along crystal z (n_e < n_o, so the lower index), propagating along y
    head = next(line for line in out.splitlines() if "quantity" in line)
    assert head.index("TE (E ∥ z), propagating along y") < head.index("TE (E ∥ y), propagating along z")
    neff = [float(x) for x in next(line for line in out.splitlines() if "n_eff" in line).split("│")[2:4]]
    assert neff[0] < neff[1]
    res = runner.invoke(app, ["mode", "--radius", "30"])
    assert "bend radius 30 µm" in res.stdout


def test_a_second_info_of_the_same_cell_reads_the_catalog_and_prints_the_same(tmp_path):
    """``info`` keeps its result in the user cache's catalog (``catalog.cached_cell_info``): in a fresh process
    with that cache a second ``info`` of the same cell and settings prints the same text and JSON without importing
    gdsfactory or JAX (the cell built, its model traced and its DRC run once); bad input is refused and
    never kept."""
    env = {user_cache.ENV: str(tmp_path / "cache")}

    def info(*args: str) -> str:
        code = ("import sys\nfrom prismpic.cli import app\n"
                f"try:\n    app(['info', 'directional_coupler', *{list(args)!r}])\n"
                "except SystemExit as e:\n    print('EXIT', e.code)\n"
                "print('MODULES', 'jax' in sys.modules, 'gdsfactory' in sys.modules)")
        return run_python(code, env)

    first, second = info("--set", "gap=0.31"), info("--set", "gap=0.31")
    assert "MODULES True True" in first and "MODULES False False" in second, (first[-200:], second[-200:])
    assert first.split("MODULES")[0] == second.split("MODULES")[0] and "0.31" in first
    as_json = info("--set", "gap=0.31", "--json")  # the same entry, printed as JSON
    assert "MODULES False False" in as_json
    data = json.loads(as_json.split("EXIT")[0])
    assert data["settings"]["gap"] == 0.31 and data["model"]["ports"] == ["o1", "o2", "o3", "o4"]
    entries = sorted(p.name for p in (tmp_path / "cache").rglob("info-*.json"))
    assert len(entries) == 1
    bad = runner.invoke(app, ["info", "directional_coupler", "--set", "gap=-0.31"], env=env)  # in this process
    assert bad.exit_code == 2 and "gap = -0.31" in bad.output
    assert sorted(p.name for p in (tmp_path / "cache").rglob("info-*.json")) == entries
    good = runner.invoke(app, ["info", "directional_coupler", "--set", "gap=0.31"], env=env)  # the same cache
    assert good.exit_code == 0 and good.output == first.split("EXIT")[0]
