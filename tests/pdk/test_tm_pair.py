"""The TM0/TE1 pair behind the TM n_eff of the compact model (``table_jobs.tm2_elements``, ``dispersion``)."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import jax
import numpy as np
import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import dispersion, table_jobs
from prismpic.pdk import tables as tb
from prismpic.pdk.ridge_stack import RidgeStack


def _modes_of(a_te1, b_tm0, g):
    """Eigenmodes (n_eff, TE fraction) of the 2×2 index matrix [[n_TE1, g], [g, n_TM0]] with pure basis modes."""
    vals, vecs = np.linalg.eigh(np.array([[a_te1, g], [g, b_tm0]]))
    return [SimpleNamespace(neff=complex(vals[k]), te_fraction=float(vecs[0, k] ** 2), confinement=0.9)
            for k in (1, 0)]  # highest first, as the solver returns them


@pytest.mark.parametrize("a_te1, b_tm0, g", [(1.84, 1.86, 0.008), (1.87, 1.86, 0.005), (1.80, 1.85, 0.01)])
def test_pair_elements_recover_the_uncoupled_matrix(a_te1, b_tm0, g):
    trace, detuning, coupling = table_jobs.tm2_elements(_modes_of(a_te1, b_tm0, g))
    assert trace == pytest.approx(a_te1 + b_tm0, abs=1e-12)
    assert detuning == pytest.approx(b_tm0 - a_te1, abs=1e-12)
    assert coupling == pytest.approx(g, abs=1e-12)


def _pair_grid():
    """A smooth uncoupled pair on a 5 × 5 × 3 Lobatto grid: (n_TM0, n_TE1, coupling) per node."""
    u, v, w = np.meshgrid(*(tb.lobatto(n) for n in (5, 5, 3)), indexing="ij")
    n_tm0 = 1.86 + 0.02 * u + 0.01 * v * w
    n_te1 = 1.80 + 0.03 * u - 0.01 * v
    return n_tm0, n_te1, 0.010 + 0.002 * u * v


def test_continued_pair_keeps_every_node_s_tm_index_and_bridges_unpaired_and_unsolved_nodes():
    """Nodes encoded as TM0 alone (``table_jobs.UNPAIRED``) keep their TM eigenvalue exactly; their detuning and
    coupling, and all three elements at an unsolved (NaN) node, come back near the pair's own (a placeholder is 0.04
    off in detuning)."""
    n_tm0, n_te1, g = _pair_grid()
    elements = [np.empty_like(n_tm0) for _ in range(3)]
    tm_index = np.empty_like(n_tm0)
    for idx in np.ndindex(n_tm0.shape):
        modes = _modes_of(n_te1[idx], n_tm0[idx], g[idx])
        for k, value in enumerate(table_jobs.tm2_elements(modes)):
            elements[k][idx] = value
        tm_index[idx] = max(m.neff.real for m in modes if m.te_fraction < 0.5)
    true = [a.copy() for a in elements]
    unpaired = np.zeros(n_tm0.shape, bool)
    unpaired[-2:, :2, 0] = True  # a corner, as a cut-off leaves it
    elements[0][unpaired] = 2 * tm_index[unpaired] - table_jobs.UNPAIRED[0]
    elements[1][unpaired], elements[2][unpaired] = table_jobs.UNPAIRED
    for a in elements:
        a[2, 2, 1] = np.nan
    trace, detuning, coupling = dispersion.tm2_continued(*elements)
    eigen = 0.5 * trace + 0.5 * np.sign(detuning) * np.sqrt(detuning**2 + 4 * coupling**2)
    np.testing.assert_allclose(eigen[unpaired], tm_index[unpaired], rtol=0, atol=1e-12)
    for got, want in zip((trace, detuning, coupling), true, strict=True):
        assert np.all(np.isfinite(got))
        filled = unpaired.copy()
        filled[2, 2, 1] = True
        assert np.max(np.abs(got - want)[filled]) <= 2e-3
        np.testing.assert_array_equal(got[~filled], want[~filled])


def _shipped():
    base = tb.DATA_DIR / tb.TABLE_NAME
    with np.load(base.with_suffix(".npz")) as f:
        return json.loads(base.with_suffix(".json").read_text()), {k: f[k] for k in f.files}


@pytest.mark.skipif(not any(tb.TM2_AXES.values()), reason="the TM0/TE1 pair block is not built yet (tables.TM2_AXES)")
def test_pair_model_gives_the_tm_tables_own_mode_at_their_shared_nodes():
    # the TM block solves the TM-labelled mode itself; the pair block the same mode among the pair, on a grid that
    # holds every TM node (Lobatto nodes nest: λ ends, 3 of the 5 widths and films). Both are Richardson 30/15 nm
    # solves, so away from the crossing itself (TE fraction < 0.4, where the label cannot flip between the two steps)
    # the model of the pair must give the TM table's own value there, to well within the 3e-4 target.
    meta, arrays = _shipped()
    assert meta["tm2_grid"] == json.loads(json.dumps(tb.STRAIGHT_TM2))
    tm, tm2 = tb.grid_nodes(tb.STRAIGHT_TM), tb.grid_nodes(tb.STRAIGHT_TM2)
    worst = 0.0
    for clad in tb.CLADDINGS:
        for axis in tb.TM2_AXES[clad]:
            assert arrays[f"{clad}_tm2_{axis}_trace"].shape == tuple(len(v) for v in tm2.values())
            ref, frac = arrays[f"{clad}_tm_{axis}_neff"], arrays[f"{clad}_tm_{axis}_te_fraction"]
            for idx in np.ndindex(*ref.shape):
                if not frac[idx] < 0.4:
                    continue
                wl, w, t, f, a = (float(v[i]) for v, i in zip(tm.values(), idx, strict=True))
                ridge = RidgeStack(width=w, film_thickness=t, etch_depth=f * t, sidewall_angle_deg=a, cladding=clad)
                n = float(dispersion.neff(wl, ridge, polarization="tm", crystal_axis=axis))
                worst = max(worst, abs(n - ref[idx]))
    assert worst < 1e-4, worst


def test_tm_group_index_is_differentiable_in_the_width():
    geo = dict(polarization="tm", crystal_axis="y")

    def ng_of(w):
        ridge = RidgeStack(width=w, film_thickness=0.56, etch_depth=0.36, sidewall_angle_deg=78.0, cladding="air")
        return dispersion.ng(1.50, ridge, **geo)

    w, h = 1.2, 1e-4
    grad = float(jax.jit(jax.grad(ng_of))(w))
    fd = (float(ng_of(w + h)) - float(ng_of(w - h))) / (2 * h)
    assert math.isfinite(grad)
    assert grad == pytest.approx(fd, rel=1e-4, abs=1e-6)
