"""Splitter tree: fast model vs sax.circuit on the extracted netlist, LVS, DRC, loss vs the seed's formula."""

import math
from collections import Counter

import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.circuits.splitter_tree import (
    STUB,
    seed_splitter_loss_db,
    splitter_tree,
    splitter_tree_fast,
    splitter_tree_loss_db,
)
from prismpic.components.couplers import y_splitter
from prismpic.components.waveguides import bend_euler, bend_euler_model
from prismpic.pdk import drc, scattering
from prismpic.pdk.ridge_stack import RidgeStack

TYPED = 0.2  # dB/cm, a typed loss (the override of the physics default)


@pytest.fixture(scope="module")
def tree4():
    return splitter_tree(n_outputs=4)


def test_fast_model_equals_netlist_simulation(tree4):
    pdk = prismpic.get_pdk()
    circuit, _ = sax.circuit(tree4.get_netlist(), pdk.models)
    wl = jnp.linspace(1.50, 1.60, 41)
    s = circuit(wl=wl)
    fast = splitter_tree_fast(wl, 4)
    for j in range(4):
        np.testing.assert_allclose(s[("o1", f"o{j + 2}")], fast[:, j], atol=1e-9, rtol=0)


def test_netlist_has_the_instances_and_connections_of_a_tree(tree4):
    """LVS-style: N−1 splitters, two bends + stub (+ vertical) per branch, every internal port connected once."""
    net = tree4.get_netlist()
    kinds = Counter(i["component"] for i in net["instances"].values())
    n, branches = 4, 2 * 3
    assert kinds["y_splitter"] == n - 1
    assert kinds["bend_euler"] == 2 * branches
    assert kinds["straight"] == 2 * branches  # a stub and a vertical per branch at this pitch
    counts = Counter(p for net_ in net["nets"] for p in (net_["p1"], net_["p2"]))
    assert all(v == 1 for v in counts.values()), "a port connected twice"
    total_ports = sum({"y_splitter": 3, "bend_euler": 2, "straight": 2}[k] * v for k, v in kinds.items())
    assert len(counts) + len(net["ports"]) == total_ports, "dangling instance ports"


@pytest.mark.parametrize("n", [2, 8, 64])
def test_layout_is_drc_clean_with_ports(n):
    c = splitter_tree(n_outputs=n)
    assert drc(c) == []
    ys = [c.ports[f"o{j + 2}"].dcenter[1] for j in range(n)]
    np.testing.assert_allclose(np.diff(ys), 127.0, atol=1e-3)


def _path_length_um(n, pitch=127.0):
    """One root-to-leaf path from the layout's own cells: splitters, bends, verticals, stubs."""
    split = y_splitter()
    bend = bend_euler(radius=20.0)
    bdy = bend.ports["o2"].dcenter[1]
    levels = int(math.log2(n))
    total = levels * (split.info["path_length"] + 2 * bend.info["length"] + STUB)
    total += sum(pitch * 2.0 ** (levels - l - 2) - 2.5 - 2 * bdy for l in range(levels))
    return total


def test_loss_is_the_seed_formula_plus_propagation_and_bends():
    # ideal 1/N split with 0.2 dB per stage is the seed's formula (S1-05); the routed tree
    # adds α·(path length) and the bends' radiation loss — large for big N (the tree is tall)
    for n in (2, 16, 256, 1024):
        levels = int(math.log2(n))
        bend_db = -20 * math.log10(
            abs(complex(bend_euler_model(wl=1.55, radius=20.0, loss_db_per_cm=0.0)[("o1", "o2")]))
        )
        expect = seed_splitter_loss_db(n) + TYPED * _path_length_um(n) * 1e-4 + 2 * levels * bend_db
        assert splitter_tree_loss_db(n, loss_db_per_cm=TYPED) == pytest.approx(expect, abs=1e-6)
        # from physics (the default) the guides along x and y scatter at their own crystal axis's rate
        lo, hi = sorted(float(scattering.straight_loss_db_per_cm(1.55, RidgeStack(), None, a)) for a in "zy")
        seed = seed_splitter_loss_db(n) + 2 * levels * bend_db
        assert seed + lo * _path_length_um(n) * 1e-4 < splitter_tree_loss_db(n) < seed + hi * _path_length_um(n) * 1e-4
    assert _path_length_um(1024) > 6e4  # a 1×1024 tree at 127 µm pitch is 13 cm tall: > 6 cm per path


def test_balanced_tree_splits_power_equally():
    t = np.abs(np.asarray(splitter_tree_fast(1.55, 32, excess_loss_db=0.0))) ** 2
    np.testing.assert_allclose(t, t[0], rtol=1e-12)


def test_imbalance_skews_outputs_geometrically():
    # each stage sends r/(1+r) up; the top output gets (r/(1+r))^L
    r_db, n = 1.0, 8
    r = 10 ** (r_db / 10)
    t = splitter_tree_fast(1.55, n, excess_loss_db=0.0, imbalance_db=r_db)
    p = np.abs(np.asarray(t)) ** 2
    assert p[-1] / p.sum() == pytest.approx((r / (1 + r)) ** 3, rel=1e-9)
    assert p[0] / p.sum() == pytest.approx((1 / (1 + r)) ** 3, rel=1e-9)


@pytest.mark.parametrize("n", [3, 0, 2048])
def test_bad_n_outputs(n):
    with pytest.raises(ValueError, match=rf"n_outputs = {n} must be a power of two in \[2, 1024\]"):
        splitter_tree_fast(1.55, n)


def test_pitch_too_small():
    with pytest.raises(ValueError, match=r"pitch = 20 µm is outside the valid range"):
        splitter_tree(n_outputs=4, pitch=20.0)
