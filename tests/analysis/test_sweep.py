"""Vectorised sweeps: equal to point-by-point evaluation, gradients equal to finite differences, files, CLI."""

import csv
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.analysis import sweep as sw
from prismpic.cli import app
from prismpic.components import ring_physics, rings

runner = CliRunner()
WL = np.linspace(1.545, 1.555, 201)


def test_sweep_equals_point_by_point_and_fsr():
    res = sw.sweep(rings.ring_all_pass_model, {"gap": [0.2, 0.45], "radius": [20.0, 30.0]}, wl=WL, output="o1,o2")
    assert res.values.shape == (2, 2, WL.size) and res.n_points == 4
    for i, g in enumerate([0.2, 0.45]):
        for j, r in enumerate([20.0, 30.0]):
            direct = np.abs(np.asarray(rings.ring_all_pass_model(WL, gap=g, radius=r)[("o1", "o2")])) ** 2
            # jitted+vmapped vs eager: rounding of n_eff (~1e-15 relative through the Chebyshev sums) is ~1e-12 rad
            # of the ~10³ rad round-trip phase, amplified near resonance by d ln P/dθ ~ F ~ 10²: ~1e-10 relative
            np.testing.assert_allclose(res.values[i, j], direct, rtol=1e-9, atol=1e-15)
    # passive all-pass ring: |S|² ≤ 1 everywhere, dips one FSR = λ²/(n_g 2πR) apart
    assert res.values.max() <= 1.0 + 1e-12
    fine = sw.sweep(rings.ring_all_pass_model, {"radius": [20.0]}, wl=np.linspace(1.542, 1.558, 4001), output="o1,o2")
    t = fine.values[0]
    dips = np.flatnonzero((t[1:-1] < t[:-2]) & (t[1:-1] < t[2:])) + 1
    lam = fine.wl[dips]
    fsr = np.diff(lam).mean()
    ng = float(ring_physics.ring_ng(lam.mean(), 20.0))
    assert fsr == pytest.approx(lam.mean() ** 2 / (ng * 2 * math.pi * 20.0), rel=2e-3)


def test_gradients_match_finite_differences():
    gaps = np.array([0.2, 0.35])
    wl = np.array([1.5490, 1.5500, 1.5510])
    res = sw.sweep(rings.ring_add_drop_model, {"gap": gaps, "loss_db_per_cm": [0.5, 2.0]}, wl=wl, output="o1,o4",
                   grad=("gap", "loss_db_per_cm"))
    h = 1e-6
    drop_j = jax.jit(lambda gap, lo: jnp.abs(rings.ring_add_drop_model(wl, gap=gap, loss_db_per_cm=lo)[("o1", "o4")]) ** 2)

    def drop(gap, lo):
        return np.asarray(drop_j(gap, lo))

    for i, g in enumerate(gaps):
        for j, loss in enumerate([0.5, 2.0]):
            fd_g = (drop(g + h, loss) - drop(g - h, loss)) / (2 * h)
            fd_l = (drop(g, loss + h) - drop(g, loss - h)) / (2 * h)
            np.testing.assert_allclose(res.grads["gap"][i, j], fd_g, rtol=1e-5, atol=1e-8)
            np.testing.assert_allclose(res.grads["loss_db_per_cm"][i, j], fd_l, rtol=1e-5, atol=1e-8)


def test_zip_axes_batches_and_callables():
    def lorentz(x=0.0, w=1.0):  # a user function without wl
        return 1.0 / (1.0 + (2 * x / w) ** 2)

    res = sw.sweep(lorentz, {"x": [0.0, 0.5, 1.0], "w": [1.0, 1.0, 2.0]}, zip_axes=True, quantity="value",
                   grad=("x",), batch_size=2)
    np.testing.assert_allclose(res.values, [1.0, 0.5, 0.5])
    np.testing.assert_allclose(res.grads["x"], [0.0, -1.0, -0.5])  # d/dx 1/(1 + 4x²/w²) = −(8x/w²)/(1 + 4x²/w²)²
    with pytest.raises(ValueError, match="zip_axes needs equal axis lengths"):
        sw.sweep(lorentz, {"x": [0.0, 1.0], "w": [1.0]}, zip_axes=True, quantity="value")


def test_bad_sweeps():
    with pytest.raises(ValueError, match=r"gap = 0.1 µm is outside the valid range"):
        sw.sweep(rings.ring_add_drop_model, {"gap": [0.1, 0.3]}, wl=WL, output="o1,o2")
    with pytest.raises(ValueError, match="not an S-parameter"):
        sw.sweep(rings.ring_all_pass_model, {"gap": [0.3]}, wl=WL, output="o1,o4")
    with pytest.raises(ValueError, match="grad = 'radius' is not a swept parameter"):
        sw.sweep(rings.ring_all_pass_model, {"gap": [0.3]}, wl=WL, output="o1,o2", grad=("radius",))
    with pytest.raises(ValueError, match="both swept and fixed"):
        sw.sweep(rings.ring_all_pass_model, {"gap": [0.3]}, wl=WL, output="o1,o2", fixed={"gap": 0.2})
    with pytest.raises(ValueError, match="lo:hi:n"):
        sw.parse_range("1:2", "--wl")


def test_files_round_trip(tmp_path):
    res = sw.sweep(rings.ring_all_pass_model, {"gap": [0.25, 0.3]}, wl=WL[:5], output="o1,o2", quantity="db",
                   grad=("gap",))
    npz = np.load(res.save(tmp_path / "s.npz"))
    np.testing.assert_array_equal(npz["values"], res.values)
    np.testing.assert_array_equal(npz["axis_gap"], [0.25, 0.3])
    np.testing.assert_array_equal(npz["grad_gap"], res.grads["gap"])
    rows = list(csv.DictReader(open(res.save(tmp_path / "s.csv"))))
    assert len(rows) == 2 * 5
    assert float(rows[6]["gap"]) == 0.3 and float(rows[6]["wl_um"]) == pytest.approx(WL[1])
    assert float(rows[6][res.label or "db"]) == pytest.approx(res.values[1, 1], rel=1e-15)
    with pytest.raises(ValueError, match=".csv or .npz"):
        res.save(tmp_path / "s.txt")
    assert not list(tmp_path.glob(".*"))


def test_cli_sweep(tmp_path):
    out = tmp_path / "gap.csv"
    r = runner.invoke(app, ["sweep", "ring_all_pass", "--param", "gap=0.2:0.4:3", "--wl", "1.549:1.551:11",
                            "--grad", "gap", "--out", str(out)])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 33 and (tmp_path / "gap.png").exists()
    direct = abs(complex(rings.ring_all_pass_model(1.549, gap=0.3)[("o1", "o2")])) ** 2
    # rel 1e-9: jit vs eager rounding amplified by the resonance (see test_sweep_equals_point_by_point_and_fsr)
    assert float(rows[11][[k for k in rows[0] if k.startswith("power")][0]]) == pytest.approx(direct, rel=1e-9)
    bad = tmp_path / "bad.csv"
    for args, msg in ((["--param", "gap=0.05:0.3:3"], "gap = 0.05"), (["--param", "gapp"], "name=lo:hi:n"),
                      (["--param", "gap=0.2,0.3", "--port", "o1,o9"], "not an S-parameter")):
        r = runner.invoke(app, ["sweep", "ring_all_pass", *args, "--out", str(bad)])
        assert r.exit_code == 2 and msg in r.output, r.output
        assert not bad.exists() and not bad.with_suffix(".png").exists()
    r = runner.invoke(app, ["sweep", "no_such_model", "--param", "gap=0.2", "--out", str(bad)])
    assert r.exit_code == 2 and "no_such_model" in r.output


def test_throughput_is_measured():
    t = sw.ring_sweep_throughput(n_gaps=20, n_wl=101, repeats=1)
    assert t["evaluations_per_s"] > 0 and t["wavelength_points_per_s"] == pytest.approx(101 * t["evaluations_per_s"])
