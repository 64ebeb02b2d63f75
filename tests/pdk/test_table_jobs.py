"""The table build's guided searches (``prismpic.pdk.table_jobs``) against plain searches, and a build on one-node
grids assembled from them (bend radius lines, the z bend block read off the bend pair; the coupler table's build:
``test_coupler_table.py``). The plain searches are kept as test data (``make_table_job_solves.py``); the guided ones
run here."""

from __future__ import annotations

import json
import math

import make_table_job_solves as refs
import numpy as np
import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import modesolver as ms
from prismpic.pdk import supermodes
from prismpic.pdk import table_jobs as tj
from prismpic.pdk import tables as tb

GAPS = list(refs.GAPS)  # descending, as a coupler line's gaps are solved
RADII = list(refs.RADII)
PLAIN = json.loads(refs.OUT.read_text())  # the plain searches (make_table_job_solves.py)
STALE = "the guided search left the plain one kept in tests/pdk/data: run python tests/pdk/make_table_job_solves.py"


def test_supermode_guesses_are_exact_for_an_exponential_splitting_and_a_linear_mean():
    # coupled-mode theory: n_even − n_odd ∝ exp(−γ g); the mean shifts slowly (here linearly)
    n0, gamma = 1.9, 4.0

    def pair(g):
        split, mean = 0.05 * math.exp(-gamma * g), n0 + 0.002 * (1.0 - g)
        return mean + split / 2, mean - split / 2

    done = [pair(GAPS[0]), pair(GAPS[1])]
    assert tj.supermode_guesses(n0, GAPS, []) == (n0, n0)
    assert tj.supermode_guesses(n0, GAPS, done[:1]) == done[0]
    assert tj.supermode_guesses(n0, GAPS, done) == pytest.approx(pair(GAPS[2]), abs=1e-14)


def test_bend_guess_is_exact_for_a_power_law_shift():
    straight = 1.9

    def n(r):
        return straight + 3.0 * r**-1.6

    assert tj.bend_guess(straight, RADII, [n(40.0), n(16.0)]) == pytest.approx(n(10.0), abs=1e-14)
    assert tj.bend_guess(straight, RADII, []) > straight


# at the air point's 0.1 µm gap two hybrid TE/TM even supermodes, both TE-like (TE fraction 0.529 and 0.527), 2e-4
# apart: the upper one is the highest TE-like mode
@pytest.mark.parametrize("point", refs.COUPLER_POINTS, ids=refs.point_key)
def test_coupler_line_finds_the_supermodes_of_plain_searches(point):
    clad, wl, w, t, f, a = point
    line = tj.coupler_line_job(clad, a, wl, GAPS, w, t, f)
    for gap, got, want in zip(GAPS, line, PLAIN["coupler"][refs.point_key(point)], strict=True):
        assert got == pytest.approx(want, abs=1e-9), (gap, STALE)


def test_a_gap_given_twice_is_solved_once_with_its_guess(monkeypatch):
    """At 90° walls the coupler table's merged nodes and the feet's merge are all the top gap 0 (g_t = 0); such a
    line solves each distinct gap once, guided like any other, and repeats its result (a repeated gap used to stop
    the predictions and be solved again unguided: wrong supermodes, dλ-slopes of 1e13 /µm at those nodes)."""
    calls = []
    plain = supermodes.coupled_modes

    def counted(wl, gap, *args, **kwargs):
        calls.append((gap, kwargs.get("guess")))
        return plain(wl, gap, *args, **kwargs)

    monkeypatch.setattr(supermodes, "coupled_modes", counted)
    point = refs.COUPLER_POINTS[0]
    clad, wl, w, t, f, a = point
    line = tj.coupler_line_job(clad, a, wl, [*GAPS, 0.1, 0.1], w, t, f)
    assert sorted(g for g, _ in calls) == sorted(GAPS)
    assert all(guess is not None for _, guess in calls)
    assert line[-1] == line[-2] == line[GAPS.index(0.1)]
    assert line[-1] == pytest.approx(PLAIN["coupler"][refs.point_key(point)][GAPS.index(0.1)], abs=1e-9), STALE


def test_bend_pair_line_finds_the_modes_of_plain_bend_searches():
    clad, axis, wl, w, t, f, a = point = refs.BEND_PAIR_POINT
    plain = PLAIN["bend_pair"][refs.point_key(point)]
    straight = plain["straight"]  # the straight TE0 (decoupled), the line's first guess
    line = tj.bend_pair_line_job(clad, a, axis, wl, w, t, f, RADII, straight)
    for radius, got, want in zip(RADII, line, plain["radii"], strict=True):
        assert got == pytest.approx(want, abs=1e-9), (radius, STALE)


def test_bend_pair_brackets_the_decoupled_te_index_where_the_straight_index_search_misses_it():
    # a 2 µm ridge in 0.8 µm film bent to R = 10 µm: the TE-like mode sits 0.11 above the straight index, beyond the
    # six eigenpairs nearest it (the radii solved from 40 µm down find it); the pair's eigenvalues bracket n_TE
    # (n₊ ≥ n_TE ≥ n₋ for the 2×2 [[n_TE, g], [g, n_TM]])
    clad, axis, wl, w, t, f, a = "sio2", "z", 1.45, 2.0, 0.8, 0.5, 60.0
    straight = ms.straight_mode(wl, w, t, f * t, "te", axis, clad, a, None, decouple_tm=True).neff.real
    up, _, lo, _, te, _, _ = tj.bend_pair_line_job(clad, a, axis, wl, w, t, f, RADII, straight)[RADII.index(10.0)]
    assert te > straight + 0.1
    assert up >= te - 1e-4 and te >= lo - 1e-4, (up, te, lo)


def test_a_build_on_one_node_grids_holds_the_solves_it_was_assembled_from(tmp_path, monkeypatch):
    """The build's bookkeeping (jobs, blocks, reuse), not the meshes' accuracy (``test_tables.py``,
    ``test_dispersion.py``): the straight blocks are solved once at a 50 nm step, the TM0/TE1 pair and the bend pair's
    mesh correction from 50 and 40 nm steps, instead of Richardson pairs down to 15 nm (50 -> 15 s)."""
    def one_node(grid, keep=("wl",)):
        return {k: (v if k in keep else (*v[:2], 1)) for k, v in grid.items()}

    monkeypatch.setattr(tb, "STRAIGHT_STEPS", {"sio2": {"te": (0.05,), "tm": (0.05,)}})
    monkeypatch.setattr(tb, "TM_STEPS", (0.05, 0.04))
    monkeypatch.setattr(tb, "PAIR_MESH_STEPS", (0.05, 0.04))
    te, tm = one_node(tb.STRAIGHT_TE), one_node(tb.STRAIGHT_TM)
    monkeypatch.setattr(tb, "CLADDINGS", ("sio2",))
    monkeypatch.setattr(tb, "BEND_CLADDINGS", ("sio2",))
    monkeypatch.setattr(tb, "BEND_PAIR_CLADDINGS", ("sio2",))
    monkeypatch.setattr(tb, "STRAIGHT", {"sio2": {"te": te, "tm": tm}})
    monkeypatch.setattr(tb, "STRAIGHT_TM2", {**one_node(tb.STRAIGHT_TM2), "wl": tb.STRAIGHT_TE["wl"]})  # 2 λ nodes, not 4
    monkeypatch.setattr(tb, "BEND", one_node(tb.BEND))
    monkeypatch.setattr(tb, "BEND_PAIR", one_node(tb.BEND_PAIR))
    tb.build_tables(tmp_path, workers=1)
    with np.load(tmp_path / f"{tb.TABLE_NAME}.npz") as f:
        arrays = {k: f[k] for k in f.files}
    assert not (tmp_path / f".{tb.TABLE_NAME}.cache.jsonl").exists()

    wl = 1.45  # the first λ node; every other axis has its one node, the midpoint
    _, w, t, fr, a = (float(v[0]) for v in tb.grid_nodes(tb.BEND).values())
    for axis in ("z", "y"):  # z is read off the pair block, y solved on its own
        shift, dshift = ms.bend_shift(wl, RADII[1], w, t, fr * t, axis, None, "sio2", a)
        got = [arrays[f"sio2_bend_te_{axis}_{q}"][0, 0, 0, 0, 0, 1] for q in ("dneff", "imag", "ddneff_dwl")]
        assert got == pytest.approx([shift.real, shift.imag, dshift.real], abs=1e-9), axis

    # refine the TM and pair grids' width axis around their one node (it is the middle one of three): a build that
    # reuses these tables solves only the new nodes and holds the old node bit for bit
    monkeypatch.setattr(tb, "STRAIGHT", {"sio2": {"te": te, "tm": {**tm, "width": (*tm["width"][:2], 3)}}})
    monkeypatch.setattr(tb, "STRAIGHT_TM2", {**tb.STRAIGHT_TM2, "width": (*tb.STRAIGHT_TM2["width"][:2], 3)})
    refined = tmp_path / "refined"
    meta = tb.build_tables(refined, workers=1, reuse_from=tmp_path)
    assert meta["blocks_reused"] == ["sio2_bend", "sio2_bendpair", "sio2_te"]
    n_wl = len(tb.grid_nodes(tb.STRAIGHT_TM2)["wl"])
    assert meta["n_solves_reused_from_cache"] == 2 * 2 + n_wl * len(tb.TM2_AXES["sio2"])  # TM: 2 λ × 2 axes
    with np.load(refined / f"{tb.TABLE_NAME}.npz") as f:
        new = {k: f[k] for k in f.files}
    for name in [k for k in arrays if k.startswith(("sio2_tm_", "sio2_tm2_"))]:
        assert new[name].shape[1] == 3
        np.testing.assert_array_equal(new[name][:, 1:2], arrays[name])
        assert np.all(np.isfinite(new[name]))
    for name in [k for k in arrays if not k.startswith(("sio2_tm_", "sio2_tm2_"))]:
        np.testing.assert_array_equal(new[name], arrays[name])
