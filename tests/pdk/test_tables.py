"""The shipped dispersion tables against the grids of ``prismpic.pdk.tables``, and block reuse of a rebuild."""

from __future__ import annotations

import json

import numpy as np

from prismpic.pdk import dispersion
from prismpic.pdk import tables as tb


def _shipped():
    base = tb.DATA_DIR / tb.TABLE_NAME
    with np.load(base.with_suffix(".npz")) as f:
        return json.loads(base.with_suffix(".json").read_text()), {k: f[k] for k in f.files}


def test_shipped_tables_were_solved_as_the_code_specifies():
    # every block (grid, mesh steps, mesh) recorded in the json is what block_specs() asks for now
    meta, arrays = _shipped()
    assert meta["blocks"] == tb.block_specs()
    for clad in tb.CLADDINGS:
        for pol in ("te", "tm"):
            shape = tuple(v[2] for v in tb.STRAIGHT[clad][pol].values())
            for axis in tb.AXES:
                assert arrays[f"{clad}_{pol}_{axis}_neff"].shape == shape, (clad, pol, axis)


def test_air_clad_te_has_its_own_denser_grid_over_the_same_domain():
    assert tb.STRAIGHT["air"]["te"]["film"][2] > tb.STRAIGHT["sio2"]["te"]["film"][2]
    assert tb.STRAIGHT_STEPS["air"]["te"] is not None  # Richardson-extrapolated in the mesh step
    for pol in ("te", "tm"):
        for k, v in tb.STRAIGHT["air"][pol].items():
            assert v[:2] == tb.STRAIGHT["sio2"][pol][k][:2], (pol, k)
            assert dispersion.domain()[pol][k] == tuple(v[:2])


def test_a_rebuild_with_nothing_changed_reuses_every_block_bit_for_bit(tmp_path):
    meta = tb.build_tables(tmp_path, reuse_from=tb.DATA_DIR)
    assert meta["n_solves"] == 0
    assert meta["blocks_reused"] == sorted(tb.block_specs())
    _, old = _shipped()
    with np.load(tmp_path / f"{tb.TABLE_NAME}.npz") as f:
        assert sorted(f.files) == sorted(old)
        for k in f.files:
            assert np.array_equal(f[k], old[k], equal_nan=True), k
