"""Chip layouts (layouts/*.py): DRC-clean dies with facets on the die edge, deterministic GDS bytes."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prismpic.pdk import drc

LAYOUTS = Path(__file__).resolve().parents[1] / "layouts"


def _script(name):
    spec = importlib.util.spec_from_file_location(f"layouts_{name}", LAYOUTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _facets_on_edges(c):
    west = [p for p in c.ports if p.port_type == "optical" and p.orientation == 180]
    east = [p for p in c.ports if p.port_type == "optical" and p.orientation == 0]
    assert west and all(abs(p.dcenter[0]) < 1e-9 for p in west)
    assert all(abs(p.dcenter[0] - c.info["width_um"]) < 1e-9 for p in east)
    assert c.dxmin == 0 and c.dymin == 0
    assert c.dxmax == pytest.approx(c.info["width_um"]) and c.dymax == pytest.approx(c.info["height_um"])


def test_prototype_8x8_die(tmp_path):
    mod = _script("prototype_8x8")
    c = mod.build()
    assert drc(c) == []
    _facets_on_edges(c)
    assert len([p for p in c.ports if p.port_type == "electrical"]) == 8 * (8 + 4)  # 8 rings + ground + 3 PD pads
    path = mod.die_frame.write(c, tmp_path / "p.gds")
    assert path.stat().st_size > 0 and (tmp_path / "prismpic.lyp").is_file()


@pytest.mark.parametrize("name, params", [("prism_bank_chip", {"n_rows": 4, "d": 4}),
                                          ("ptu_tile_chip", {"rows": 2, "cols": 2})])
def test_small_chips_are_drc_clean(name, params):
    c = _script(name).build(**params)
    assert drc(c) == []
    _facets_on_edges(c)


def test_same_parameters_same_bytes(tmp_path):
    # two fresh processes with different hash seeds write the same die: no timestamps, no history-dependent names
    procs = []
    for seed in ("0", "1"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        cmd = [sys.executable, str(LAYOUTS / "prototype_8x8.py"), "--set", "n_rows=2", "--set", "d=2", "--no-drc",
               "--out", str(tmp_path / f"die{seed}.gds")]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    for p in procs:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0, out
    a, b = (tmp_path / "die0.gds").read_bytes(), (tmp_path / "die1.gds").read_bytes()
    assert len(a) > 10_000 and a == b
