"""Smoke test of prismpic on the installed gdsfactory / SAX / JAX / klujax versions (< 1 min).

It holds what the dependency ranges in ``pyproject.toml`` promise at both ends: ``.ci/run`` runs it in a second
environment on the lowest versions (``ci/lowest.txt``), and in a third beside the foundry PDK cspdk 1.4.2 (which pins
gdsfactory 9.34.x), where the foundry check below must run, not skip.
It needs nothing beyond prismpic's own dependencies (no pytest), and runs two ways:

    python tests/smoke/smoke_versions.py          # prints the versions and one line per check; exit 1 on failure
    python -m pytest tests/smoke/smoke_versions.py

The checks: import prismpic; build a cell and write its GDS (read back with KLayout); a small netlist through
``sax.circuit`` with ``prismpic.get_pdk().models`` against the structured fast model; one report section; and,
when gdsfactory foundry PDKs (cspdk, lnoi400) are installed, a prismpic cell built while each is active (an
installed one whose ``PDK`` does not import fails the check; it skips only when none is installed); and the
compilation cache the CLI turns on, stored by one process and read by the next without a warning.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np

PACKAGES = ("prismpic", "gdsfactory", "kfactory", "klayout", "sax", "jax", "jaxlib", "klujax", "numpy", "scipy",
            "cspdk", "lnoi400", "gplugins")
# gdsfactory foundry PDKs checked when installed: distribution -> modules that may hold its ``PDK`` (newest layout last)
FOUNDRY_PDKS = {"cspdk": ("cspdk.si220.cband", "cspdk.si220"), "lnoi400": ("lnoi400",)}


def installed_versions() -> dict[str, str]:
    """The installed version of each package in ``PACKAGES`` (absent ones left out)."""
    found = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return found


def test_import_sets_float64():
    import jax.numpy as jnp

    import prismpic

    assert prismpic.__version__
    assert jnp.asarray(1.0).dtype == jnp.float64  # importing prismpic enables x64 (high-Q resonances need it)


def test_cell_writes_gds(tmp_path: Path):
    """An add-drop ring written to GDS and read back: four optical ports, and the ridge layer's area is the
    annulus 2πRw plus two buses L·w (geometry, not code)."""
    import klayout.db as kdb

    from prismpic.components.rings import ring_add_drop
    from prismpic.fileio import write_gds_atomic
    from prismpic.pdk.layers import LAYER

    radius, width = 20.0, 1.4
    c = ring_add_drop(radius=radius, width=width)
    assert sorted(p.name for p in c.ports if p.name.startswith("o")) == ["o1", "o2", "o3", "o4"]
    path = write_gds_atomic(c, tmp_path / "ring.gds")
    layout = kdb.Layout()
    layout.read(str(path))
    (top,) = [layout.cell(i) for i in layout.each_top_cell()]
    ridge = layout.layer(*tuple(LAYER.LN_RIDGE))
    area_um2 = kdb.Region(top.begin_shapes_rec(ridge)).merged().area() * layout.dbu**2
    expected = 2 * math.pi * radius * width + 2 * float(c.info["bus_length"]) * width
    assert abs(area_um2 / expected - 1) < 1e-3, (area_um2, expected)


def test_netlist_through_sax_matches_fast_model():
    """A 1×2 splitter tree's extracted netlist simulated by ``sax.circuit`` with the PDK's models equals the
    Kronecker-product fast model, and conserves power within the tree's loss (|S|² summed ≤ 1)."""
    import jax.numpy as jnp
    import sax

    import prismpic
    from prismpic.circuits.splitter_tree import splitter_tree, splitter_tree_fast

    pdk = prismpic.get_pdk()
    net = splitter_tree(n_outputs=2).get_netlist()
    missing = {i["component"] for i in net["instances"].values()} - set(pdk.models)
    assert not missing, f"instances without a model: {missing}"
    circuit, _ = sax.circuit(net, pdk.models)
    wl = jnp.linspace(1.50, 1.60, 11)
    s = circuit(wl=wl)
    fast = splitter_tree_fast(wl, 2)
    for j in range(2):
        np.testing.assert_allclose(np.asarray(s[("o1", f"o{j + 2}")]), np.asarray(fast[:, j]), atol=1e-9, rtol=0)
    out = sum(np.abs(np.asarray(s[("o1", f"o{j + 2}")])) ** 2 for j in range(2))
    assert np.all(out <= 1.0) and np.all(out > 0.5), out  # passive; a 1×2 split with < 3 dB excess loss


def test_report_section_platform(tmp_path: Path):
    """The report's platform section: bulk LN indices at 1.55 µm as Zelmon et al. (JOSA B 14, 3319, 1997)
    tabulate them (n_e 2.1376, n_o 2.2111), and every guided n_eff between the oxide's 1.444 and n_o."""
    from prismpic.report.build import SECTIONS, ReportContext

    section = dict(SECTIONS)["platform"](ReportContext(params={}, workdir=tmp_path))
    assert abs(section["n_e_bulk"] - 2.1376) < 2e-4 and abs(section["n_o_bulk"] - 2.2111) < 2e-4, section
    neffs = {k: v for k, v in section.items() if k.startswith("neff")}
    assert len(neffs) >= 2 and all(1.444 < v < 2.2111 for v in neffs.values()), neffs


def test_cell_beside_foundry_pdk():
    """With a foundry PDK active, a prismpic cell builds under prismpic's platform and the foundry PDK is active
    again afterwards; the foundry's own straight still builds. Each installed foundry PDK in turn; skipped when
    none is installed."""
    import gdsfactory as gf

    from prismpic.components.rings import ring_add_drop

    pdks = foundry_pdks()
    if not pdks:
        skip("no foundry PDK installed")
    for radius, (dist, pdk) in enumerate(pdks.items(), start=30):
        pdk.activate()
        ring = ring_add_drop(radius=float(radius))  # a new cell each time, not one cached under another PDK
        assert gf.get_active_pdk().name == pdk.name, pdk.name
        assert sorted(p.name for p in ring.ports if p.name.startswith("o")) == ["o1", "o2", "o3", "o4"]
        assert gf.get_active_pdk().get_component("straight").ports, pdk.name  # the foundry's cell, its own PDK
        print(f"  beside {dist} {metadata.version(dist)}: PDK {pdk.name!r} active, prismpic cell {ring.name} built")


# run twice in fresh processes: the first compiles and stores, the second must read what the first stored
CACHE_PROBE = """
import json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as seen:
    from prismpic import user_cache
    folder = user_cache.enable_compilation_cache()
    import jax, jax.numpy as jnp
    x = jax.jit(lambda a: jnp.sin(a) @ jnp.cos(a).T)(jnp.ones((3, 3)))
    x.block_until_ready()
print(json.dumps({"folder": str(folder), "warnings": [str(w.message) for w in seen]}))
"""


def test_compilation_cache_stores_and_reads(tmp_path: Path):
    """JAX's persistent compilation cache, as the CLI turns it on (``user_cache.enable_compilation_cache``), stores a
    program and a new process reads it back, with no warning either time: on an install without ``filelock`` JAX
    warned at every lookup and compiled everything again (``jax_compilation_cache_max_size`` needs it)."""
    import json
    import subprocess

    # without the JAX cache variables this process may have set (main): the probes use their own folder
    env = {k: v for k, v in os.environ.items() if not (k.startswith("JAX_") and "CACHE" in k)}
    env["PRISMPIC_CACHE_DIR"] = str(tmp_path / "compilation-cache-probe")
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", CACHE_PROBE], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        assert Path(runs[-1]["folder"]).is_relative_to(tmp_path), runs[-1]["folder"]
        stored = sorted(p.name for p in Path(runs[-1]["folder"]).glob("jit_*-cache"))
        runs[-1]["stored"] = stored
    for run in runs:
        assert not run["warnings"], run["warnings"]
    assert runs[0]["stored"], "the first process stored no program"
    assert runs[1]["stored"] == runs[0]["stored"], "the second process compiled again instead of reading"


def foundry_pdks() -> dict:
    """The ``PDK`` object of each installed distribution in ``FOUNDRY_PDKS``, by distribution name. An installed
    distribution none of whose modules imports with a ``PDK`` is an error, not a silent skip."""
    found = {}
    for dist, modules in FOUNDRY_PDKS.items():
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        errors = []
        for name in modules:
            try:
                mod = importlib.import_module(name)
            except ImportError as e:
                errors.append(f"{name}: {e!r}")
                continue
            if hasattr(mod, "PDK"):
                found[dist] = mod.PDK
                break
            errors.append(f"{name}: no PDK")
        else:
            raise AssertionError(f"{dist} {version} is installed but has no importable PDK: " + "; ".join(errors))
    return found


class Skipped(Exception):
    """A check that does not apply to this environment (script mode)."""


def skip(reason: str) -> None:
    """Skip the current check: ``pytest.skip`` under pytest, ``Skipped`` as a plain script."""
    if os.environ.get("PYTEST_CURRENT_TEST"):  # set by pytest while it runs a test
        import pytest

        pytest.skip(reason)
    raise Skipped(reason)


CHECKS = (test_import_sets_float64, test_cell_writes_gds, test_netlist_through_sax_matches_fast_model,
          test_report_section_platform, test_cell_beside_foundry_pdk, test_compilation_cache_stores_and_reads)


def main() -> int:
    """Run every check, print one line each with its time; return 0 when all pass, 1 otherwise."""
    import inspect
    import traceback

    print("python " + sys.version.split()[0] + ", " + ", ".join(f"{k} {v}" for k, v in installed_versions().items()))
    if os.environ.get("PRISMPIC_CACHE_DIR"):  # CI keeps this folder between runs: compile once per version set
        from prismpic import user_cache

        print(f"compilation cache: {user_cache.enable_compilation_cache()}")
    failed = skipped = 0
    t_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="prismpic-smoke-") as tmp:
        for check in CHECKS:
            t0 = time.perf_counter()
            try:
                kwargs = {"tmp_path": Path(tmp)} if "tmp_path" in inspect.signature(check).parameters else {}
                check(**kwargs)
                status = "ok"
            except Skipped as e:
                skipped += 1
                status = f"skipped ({e})"
            except Exception:
                failed += 1
                status = "FAILED\n" + traceback.format_exc()
            print(f"{check.__name__:48s} {time.perf_counter() - t0:6.1f} s  {status}", flush=True)
    print(f"smoke test: {time.perf_counter() - t_all:.1f} s")
    print(f"smoke: {len(CHECKS) - failed - skipped} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
