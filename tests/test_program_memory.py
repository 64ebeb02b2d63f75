"""Compiled programs held in memory (``prismpic.program_memory``): each takes memory maps and releasing them gives
the maps back; the count agrees with the kernel's other listing of the same maps (/proc/self/smaps)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

from prismpic import program_memory as pm

pytestmark = pytest.mark.skipif(pm.memory_map_count() is None, reason="no /proc/self/maps on this system")


def test_programs_hold_memory_maps_and_the_release_gives_them_back():
    """60 distinct one-line programs take ≥ 2 maps each (LLVM maps a program's code and data sections apart);
    released, the process holds at least 60 fewer."""
    assert jax.config.jax_compilation_cache_dir  # the release drops programs only when the disk cache can reload them
    pm.release_compiled_programs()
    before = pm.memory_map_count()
    fns = [jax.jit(lambda x, k=k: jnp.sin(x) * k + x**2) for k in range(60)]
    for k, f in enumerate(fns):
        f(jnp.ones(k + 1)).block_until_ready()
    held = pm.memory_map_count()
    assert held - before >= 2 * len(fns), (before, held)
    del fns
    pm.release_compiled_programs()
    assert pm.memory_map_count() <= held - 60, (before, held, pm.memory_map_count())


def test_the_map_count_and_the_limit_are_the_kernels():
    with open("/proc/self/smaps") as f:  # one header line per map: "start-end perms offset dev inode [path]"
        smaps = sum(1 for line in f if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line))
    assert abs(pm.memory_map_count() - smaps) <= 2  # the two reads are moments apart
    limit = pm.map_limit()
    assert limit is not None and limit > smaps
    assert pm.near_map_limit(smaps / limit / 2) and not pm.near_map_limit(1.0)


def test_a_batch_releases_before_a_fit_only_near_the_map_limit(tmp_path, monkeypatch):
    """``calibration.batch.fit_device`` (serial and on each Dask worker) releases the compiled programs before a fit
    when the process holds 40 % of the map limit, and not otherwise (a file with too few points: no fit runs)."""
    from prismpic.analysis.calibration import batch, calibrate_ring_csv

    path = tmp_path / "D+0+0.csv"
    path.write_text("wavelength_nm,through\n1550.0,0.5\n1550.1,0.4\n")
    device = batch.Device(0, str(path), path.name, "D+0+0")
    released, near = [], [True]
    monkeypatch.setattr(pm, "near_map_limit", lambda fraction=pm.MAP_LIMIT_FRACTION: near[0])
    monkeypatch.setattr(pm, "release_compiled_programs", lambda: released.append(1))
    assert batch.fit_device(device, calibrate_ring_csv, {"radius": 20.0}).status == "bad_input"
    assert released == [1]
    near[0] = False
    assert batch.fit_device(device, calibrate_ring_csv, {"radius": 20.0}).status == "bad_input"
    assert released == [1]
