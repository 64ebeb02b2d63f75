"""The PRISM prototype: layout, netlist simulation == structured model, programmed currents == dot products."""

import jax.numpy as jnp
import numpy as np
import pytest

from prismpic.circuits.prototype import (
    prototype,
    prototype_channels_um,
    prototype_currents_a,
    prototype_fields,
    prototype_netlist,
    prototype_netlist_fields,
    prototype_program,
)
from prismpic.circuits.registry import circuits
from prismpic.circuits.splitter_tree import splitter_tree_fast
from prismpic.components.detectors import responsivity_a_per_w
from prismpic.components.io import edge_coupler_model
from prismpic.components.waveguides import straight_model
from prismpic.pdk import drc

SMALL = dict(n_rows=2, d=2)


def test_small_prototype_layout_and_netlist():
    c = prototype(**SMALL)
    assert drc(c) == []
    assert c.ports["o1"].dcenter == pytest.approx((0.0, c.ports["o1"].dcenter[1])) and c.dxmin == 0.0  # facet at x = 0
    net, grid = prototype_netlist(**SMALL)
    kinds = [v["component"] for v in net["instances"].values()]
    assert kinds.count("ring_add_drop") == 4 and kinds.count("y_splitter") == 1 and kinds.count("edge_coupler") == 1
    assert "balanced_photodetector" not in kinds  # cut out: their inputs are the circuit's ports
    assert set(net["ports"]) == {"o1", "thr0", "drop0", "thr1", "drop1"}
    assert len(grid) == 2 and all(len(r) == 2 for r in grid)


def test_netlist_simulation_equals_structured_model():
    rng = np.random.default_rng(3)
    volts = rng.uniform(-20, 20, (2, 2))
    wl = jnp.linspace(1.546, 1.554, 81)
    fd, ft = prototype_fields(wl, volts, **SMALL)
    nd, nt = prototype_netlist_fields(wl, volts, **SMALL)
    np.testing.assert_allclose(nd, fd, atol=1e-9, rtol=0)
    np.testing.assert_allclose(nt, ft, atol=1e-9, rtol=0)
    assert float(jnp.max(jnp.abs(fd))) > 0.1  # light reaches the drop detectors


def test_programmed_currents_are_the_dot_products():
    # I_k = Σ_λ R(λ) P_λ c(λ) (η_d|D|² − η_t|T|²) with the detected weights programmed to g·w_kλ, so
    # I_k = g Σ_λ R(λ) c(λ) P_λ w_kλ, c(λ) = |t_coupler t_tree t_feed|² the common path of every row
    layout = SMALL
    rng = np.random.default_rng(11)
    w = rng.uniform(-1, 1, (2, 2))
    q = rng.uniform(0, 1, 2)
    volts, g, residual = prototype_program(w, **layout)
    assert residual < 1e-9 and 0 < g < 1
    ch = prototype_channels_um(**layout)
    p0 = 1e-3
    currents = prototype_currents_a(p0 * q, volts, **layout)
    proto = prototype(**layout)
    ec = edge_coupler_model(wl=ch)[("o1", "o2")]
    tree = splitter_tree_fast(ch, 2, pitch=proto.info["row_pitch"])
    feed = straight_model(wl=ch, length=proto.info["feed_length"])[("o1", "o2")]
    c = np.abs(np.asarray(ec * feed)[:, None] * np.asarray(tree)) ** 2  # (W, N)
    expected = g * np.einsum("l,lk,l,kl->k", np.asarray(responsivity_a_per_w(ch)), c, p0 * q, w)
    np.testing.assert_allclose(currents, expected, rtol=1e-7)
    # and the weights at the detectors really are the readout of |D|², |T|²: equal drop and through powers read 0
    zero, _, _ = prototype_program(np.zeros((2, 2)), **layout)
    assert np.max(np.abs(prototype_currents_a(p0 * q, zero, **layout))) < 1e-9 * p0


def test_registered_and_writable_by_the_cli(tmp_path):
    from typer.testing import CliRunner

    from prismpic.cli import app

    assert "prototype_8x8" in circuits() and circuits()["prototype_8x8"].fast_model is prototype_fields
    out = tmp_path / "p.gds"
    r = CliRunner().invoke(app, ["layout", "prototype_8x8", "--set", "n_rows=2", "--set", "d=2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "DRC: clean" in r.output and out.stat().st_size > 10_000


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: prototype(n_rows=6), r"n_rows = 6 must be a power of two in \[2, 1024\]"),
        (lambda: prototype(d=70), r"d = 70 is outside the valid range \[1, 63\]"),
        (lambda: prototype_fields(voltages=np.full((8, 8), 250.0)),
         r"voltages = .* is outside the valid range \[-200, 200\] V"),
        (lambda: prototype_fields(voltages=np.zeros((8, 9))), r"voltages has shape \(8, 9\); expected \(n_rows, d\)"),
        (lambda: prototype_program(np.full((2, 2), 1.5), **SMALL), r"weights = .* is outside the valid range \[-1, 1\]"),
        (lambda: prototype_program(np.zeros((2, 3)), **SMALL), r"weights has shape \(2, 3\); expected"),
        (lambda: prototype_currents_a(np.ones(3) * 1e-3, np.zeros((2, 2)), **SMALL),
         r"powers_w has shape \(3,\); expected \(2,\)"),
        (lambda: prototype_fields(foo=1), r"unknown prototype parameter\(s\) \['foo'\]"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_channel_plan_of_the_seed():
    # S1-11: 8 wavelengths on the bank's grid (1.6 nm, centred on 1550 nm)
    ch = prototype_channels_um()
    np.testing.assert_allclose(ch, (1550.0 + 1.6 * (np.arange(8) - 3.5)) * 1e-3, rtol=0, atol=1e-15)
