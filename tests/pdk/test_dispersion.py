"""Compact dispersion model: agreement with fresh mode solves, jit/grad, limits, validation."""

import json
from dataclasses import asdict
from pathlib import Path

import jax
import jax.numpy as jnp
import make_fresh_solves as refs
import numpy as np
import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import dispersion as dsp
from prismpic.pdk import modesolver as ms
from prismpic.pdk.ridge_stack import FIELDS, RidgeStack

FRESH = Path(__file__).with_name("data") / "fresh_solves.json"


def test_tables_were_built_with_the_current_solver_mesh():
    # fresh solves below use Mesh(); stale tables (other mesh) would compare unlike with like
    assert dsp._model().meta["solver"]["mesh"] == asdict(ms.Mesh())


def _ridge(p: dict) -> RidgeStack:
    """The ridge of a kept solve (its short keys; the stack's wall angle and cladding)."""
    return RidgeStack(width=p["width"], film_thickness=p["film"], etch_depth=p["etch"])


def _fresh() -> dict:
    """Full-vector solves kept as test data (``make_fresh_solves.py``, the script that makes them)."""
    return json.loads(FRESH.read_text())


def test_cached_solves_are_the_current_solvers():
    """The kept solves were made with today's mesh, and the solver still gives the first TE point to 1e-9: a
    change to the solver makes this fail until ``python tests/pdk/make_fresh_solves.py`` is run again."""
    data = _fresh()
    assert data["mesh"] == asdict(ms.Mesh())
    p = data["straight"][0]
    assert p["polarization"] == "te"
    n, g = refs.richardson(p["wl"], p["width"], p["film"], p["etch"], polarization="te", crystal_axis=p["crystal_axis"])
    assert n == pytest.approx(p["neff"], abs=1e-9) and g == pytest.approx(p["ng"], abs=1e-8)


def test_straight_model_reproduces_fresh_solves():
    # 7 points drawn uniformly over the TE and TM domains, both crystal axes (Richardson 20/10 nm, as the tables)
    points = _fresh()["straight"]
    assert {(p["polarization"], p["crystal_axis"]) for p in points} == {("te", "z"), ("te", "y"), ("tm", "z"),
                                                                        ("tm", "y")}
    for p in points:
        args = (p["wl"], _ridge(p))
        kw = dict(polarization=p["polarization"], crystal_axis=p["crystal_axis"])
        assert abs(float(dsp.neff(*args, **kw)) - p["neff"]) < 1e-3, p
        assert abs(float(dsp.ng(*args, **kw)) - p["ng"]) < 5e-3, p


def test_bend_model_reproduces_fresh_solves():
    # the model's bend is the bend eigenmode itself (TE-labelled, the TE/TM mixing included): a full bend solve,
    # Richardson 20/10 nm (the model's TE/TM crossing is mesh-corrected: a 30 nm solve puts it ≈ 1e-3 off in detuning)
    points = _fresh()["bend"]
    assert {p["crystal_axis"] for p in points} == {"z", "y"}
    for p in points:
        args = (p["wl"], _ridge(p))
        kw = dict(radius=p["radius"], crystal_axis=p["crystal_axis"])
        assert abs(float(dsp.neff(*args, **kw)) - p["neff"]) < 1e-3, p
        assert abs(float(dsp.ng(*args, **kw)) - p["ng"]) < 5e-3, p


def test_overlap_area_and_coupling_reproduce_fresh_solves():
    p = _fresh()["overlap"]
    wl, ridge = p["wl"], _ridge(p)
    assert float(dsp.eo_overlap(wl, ridge)) == pytest.approx(p["ln_overlap"], abs=0.01)
    assert float(dsp.mode_area_um2(wl, ridge)) == pytest.approx(p["mode_area_um2"], rel=0.03)
    assert float(dsp.coupling_per_um(wl, p["gap"], ridge)) == pytest.approx(p["coupling_per_um"], rel=0.02)


def test_default_ridge_in_published_range():
    # 600 nm X-cut film, 1.4 µm ridge, TE: n_g ≈ 2.26–2.30 (shared/REFERENCES.md)
    assert 2.20 < float(dsp.ng()) < 2.36
    assert float(dsp.neff()) < 2.1376 - 0.1  # below bulk n_e (Zelmon 1997)


def test_group_index_is_the_phase_model_derivative():
    # n_g = n − λ dn/dλ with dn/dλ by central differences of neff itself
    for kw in ({}, {"radius": 22.0}, {"crystal_axis": "y"}):
        h = 1e-5
        dn = (dsp.neff(1.55 + h, **kw) - dsp.neff(1.55 - h, **kw)) / (2 * h)
        assert float(dsp.ng(1.55, **kw)) == pytest.approx(float(dsp.neff(1.55, **kw) - 1.55 * dn), abs=1e-8)


def test_jit_and_broadcasting():
    wl = jnp.linspace(1.5, 1.6, 4)
    w = jnp.array([[1.2], [1.6]])
    eager = dsp.neff(wl, RidgeStack(width=w, film_thickness=0.6, etch_depth=0.35), 30.0)
    jitted = jax.jit(lambda a, b: dsp.neff(a, RidgeStack(width=b, film_thickness=0.6, etch_depth=0.35), 30.0))(wl, w)
    assert eager.shape == (2, 4)
    np.testing.assert_allclose(jitted, eager, rtol=0, atol=1e-14)
    np.testing.assert_allclose(jax.jit(dsp.ng)(wl), dsp.ng(wl), rtol=0, atol=1e-14)


@pytest.mark.parametrize("argnum", [0, 1, 2, 3, 4])
def test_grad_matches_finite_differences(argnum):
    x0 = [1.55, 1.4, 0.6, 0.35, 25.0]
    h = [1e-5, 1e-5, 1e-5, 1e-5, 1e-3][argnum]

    def f(v):
        args = list(x0)
        args[argnum] = v
        wl, w, t, e, r = args
        return dsp.neff(wl, RidgeStack(width=w, film_thickness=t, etch_depth=e), r)

    g = jax.jit(jax.grad(f))(x0[argnum])
    fd = (f(x0[argnum] + h) - f(x0[argnum] - h)) / (2 * h)
    assert float(g) == pytest.approx(float(fd), rel=1e-5, abs=1e-9)


def test_straight_limit_of_the_bend_model():
    for fn in (dsp.neff, dsp.ng):
        assert float(fn(radius=1e9)) == pytest.approx(float(fn()), abs=1e-10)
    assert float(dsp.bend_loss_db_per_cm(radius=jnp.inf)) == 0.0
    g = jax.grad(lambda r: dsp.neff(radius=r))(jnp.inf)
    assert float(g) == 0.0


def test_bend_loss_falls_with_radius():
    loss = dsp.bend_loss_db_per_cm(1.55, jnp.array([12.0, 20.0, 30.0, 60.0]))
    assert np.all(np.diff(np.asarray(loss)) < 0)
    assert float(loss[0]) > 1.0


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"wl": 1.3}, "wl"),
        ({"width": 5.0}, "width"),
        ({"width": -1.0}, "width"),
        ({"film_thickness": 0.2}, "film_thickness"),
        ({"etch_depth": 0.6}, "etch_depth"),
        ({"etch_depth": 0.0}, "etch_depth"),
        ({"radius": 3.0}, "radius"),
        ({"radius": 0.0}, "radius"),
        ({"polarization": "x"}, "polarization"),
        ({"crystal_axis": "x"}, "crystal_axis"),
        ({"polarization": "tm", "radius": 20.0}, "radius"),
        ({"radius": 20.0, "width": 2.1}, "width"),
    ],
)
def test_out_of_domain_raises(kwargs, name):
    # the ridge's keywords (``RidgeStack`` fields) go in as the ridge
    call = {**{k: v for k, v in kwargs.items() if k not in FIELDS}, "ridge": RidgeStack.from_params(kwargs)}
    with pytest.raises(ValueError, match=name):
        dsp.neff(**call)
    if "polarization" not in kwargs and "crystal_axis" not in kwargs:
        with pytest.raises(ValueError, match=name):
            dsp.ng(**call)


def test_other_functions_validate():
    with pytest.raises(ValueError, match="gap"):
        dsp.coupling_per_um(gap=2.0)
    with pytest.raises(ValueError, match="wl"):
        dsp.eo_overlap(wl=1.8)
    with pytest.raises(ValueError, match="radius"):
        dsp.bend_loss_db_per_cm(radius=2.0)


def test_coupling_falls_with_gap():
    c = dsp.coupling_per_um(1.55, jnp.array([0.2, 0.25, 0.3, 0.6]))
    assert np.all(np.diff(np.asarray(c)) < 0)
    assert np.all(np.asarray(c) > 0)
