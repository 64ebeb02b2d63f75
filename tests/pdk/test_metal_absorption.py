"""Electrode absorption from full-vector solves with gold (``pdk.metal_absorption``): the solver's gold against an
exact layered-slab root, mesh convergence and the decay law from the reference solves
(``make_metal_absorption_solves.py``), the function against them, and the ring's loss budget."""

from __future__ import annotations

import json
import math

import make_metal_absorption_solves as refs
import numpy as np
import pytest
from scipy.optimize import newton

from prismpic import user_cache
from prismpic.components import loss_budget
from prismpic.components.ring_design import DEFAULT as RING
from prismpic.pdk import dispersion, materials
from prismpic.pdk import metal_absorption as ma
from prismpic.pdk.bend_radiation import lateral_decay_per_um
from prismpic.pdk.modesolver import solve_modes
from prismpic.pdk.ridge_geometry import Mesh
from prismpic.pdk.ridge_stack import DEFAULT, RidgeStack

WL = 1.55
K0 = 2 * math.pi / WL
REFS = {case["name"]: case for case in json.loads(refs.OUT.read_text())["cases"]}
DB = 10 / math.log(10) * 1e4 * 2 * K0  # dB/cm per unit Im n_eff


def te_slab_mismatch(n, edges, eps):
    """Transfer-matrix mismatch of a layered slab's TE mode (zero at a mode), half-spaces decaying outside."""

    def decay(e):
        g = np.sqrt((K0 * n) ** 2 - K0**2 * e + 0j)
        return g if g.real > 0 else -g

    v = np.array([1.0 + 0j, decay(eps[0])])
    for j in range(1, len(eps) - 1):
        k, t = np.sqrt(K0**2 * eps[j] - (K0 * n) ** 2 + 0j), edges[j + 1] - edges[j]
        v = np.array([[np.cos(k * t), np.sin(k * t) / k], [-k * np.sin(k * t), np.cos(k * t)]]) @ v
    return v[1] + decay(eps[-1]) * v[0]


def test_solver_gold_matches_the_layered_slab_root_under_a_wide_rib():
    """A 6 µm rib (0.3 µm etch of a 600 nm film) under a gold sheet 0.4 µm above the film, the sheet ending inside the
    solver's window: its TE0 is close to the film's slab mode under the gold, whose loss the exact transfer-matrix root
    gives (exp(−iωt) convention there, Im n > 0 for loss). Measured: 2.75 / 2.65 / 2.60 dB/cm at 20 / 14 / 10 nm
    against 2.53 for the slab (the rib's lateral confinement adds ≈ 2 %): gold absorbing at a flat face converges as
    O(h), and the 20 nm step of ``metal_absorption`` overstates such a loss by ≈ 9 %."""
    box, core = float(materials.n_sio2(WL)), float(materials.n_ln_e(WL))
    gold = complex(materials.eps_au(WL))
    edges = [-1.0, 0.0, 0.6, 1.0, 1.8]  # layer j spans edges[j]..edges[j + 1]; the outer two are half-spaces
    eps = [box**2, core**2, box**2, gold, box**2]
    exact = newton(lambda n: te_slab_mismatch(n, edges, eps), 1.99 + 1e-4j, tol=1e-14, maxiter=200)
    # the window ends 1.0 µm into the box (the mode has fallen to e^-5.5 there) and 0.1 µm above the gold (its skin
    # depth is 25 nm): the wider window of session 26 (1.5 / 1.6 µm pads, 0.8 µm PML) gave the same loss within 3e-5
    mesh = Mesh(step=0.014, step_max=0.014, core_margin=0.3, pad_x=1.5, pad_below=1.0, pad_above=1.3, pml=0.5)
    modes = solve_modes(wl=WL, width=6.0, film_thickness=0.6, etch_depth=0.3, sidewall_angle_deg=90.0,
                        crystal_axis="z", symmetry="pec", num_modes=1, mesh=mesh, neff_guess=exact.real + 0.002,
                        metal=((-4.0, 4.0, 1.0, 1.8),))
    print(f"gold sheet over a 6 µm rib: {DB * modes[0].neff.imag:.3f} dB/cm (solver) against {DB * exact.imag:.3f}")
    assert modes[0].te_fraction > 0.99
    assert modes[0].neff.imag == pytest.approx(exact.imag, rel=0.06)


def test_reference_solves_converge_with_the_mesh():
    for case in REFS.values():
        coarse, mid, fine = case["loss_db_per_cm"]
        assert abs(coarse / fine - 1) < 0.03 and abs(mid / fine - 1) < 0.02, case["name"]


def test_gold_loss_decays_at_twice_the_ribs_lateral_decay_constant():
    near, far = (REFS[name]["loss_db_per_cm"][-1] for name in ("slab, 1.0 µm", "slab, 1.3 µm"))
    gamma = float(lateral_decay_per_um(WL, DEFAULT, "z"))
    assert math.log(near / far) / 0.3 == pytest.approx(2 * gamma, rel=0.05)


def test_gold_above_the_cladding_absorbs_and_gold_on_the_slab_leaks():
    """Above the cladding the loss is the gold's absorption: it follows the Drude damping 1/τ. On the slab it is
    leakage into the gold's surface plasmons (their index lies above the rib's): the damping barely matters."""
    above = REFS["cladding, 0.3 µm up, 0.3 µm beside"]
    spread = above["loss_by_relaxation_fs"]
    assert spread["11.0"] > above["loss_db_per_cm"][0] > spread["17.0"]
    assert spread["11.0"] / spread["17.0"] > 1.3
    slab = REFS["slab, 1.0 µm"]["loss_by_relaxation_fs"]
    assert slab["11.0"] / slab["17.0"] == pytest.approx(1.0, abs=0.02)


def slab_plasmon_index(wl: float, slab: float) -> complex:
    """Index of the surface plasmon that gold guides on an LN slab ``slab`` µm thick over SiO2: the TM root of the
    three-layer stack (gold and SiO2 half-spaces; the plasmon's main field is normal to the film, crystal x of X-cut,
    so the LN layer is n_o), followed from a 3 µm slab (where it is the LN/gold interface plasmon
    √(ε_m ε_d/(ε_m + ε_d))) down to ``slab``. The transfer condition is divided by the LN layer's q so its spurious
    root at q = 0 is gone."""
    k0 = 2 * math.pi / wl
    em, ed, es = complex(materials.eps_au(wl)), float(materials.n_ln_o(wl)) ** 2, float(materials.n_sio2(wl)) ** 2

    def mismatch(n, s):
        def q(e):
            return k0 * np.sqrt(n * n - e + 0j)

        qd, below, gold = q(ed), q(es) / es, q(em) / em
        return np.tanh(qd * s) / qd * ed * ((qd / ed) ** 2 + gold * below) + below + gold

    n = np.sqrt(em * ed / (em + ed))
    for s in np.geomspace(3.0, slab, 60):
        n = newton(mismatch, n, args=(s,), tol=1e-13, maxiter=200)
    return complex(n)


def test_the_leak_needs_the_slab_plasmon_above_the_ribs_index():
    """Gold on the slab leaks the rib's TE mode into the plasmon it guides on the slab beside the rib only while that
    plasmon's index lies above the rib's (a wave running off sideways needs n_sp > n_eff). Thinning the slab (a
    deeper etch of the default 600 nm film) lowers n_sp through the rib's index: the 1-D stack puts the cut-off
    between etch fractions 0.6 and 0.75. Above it the solver's leak follows α e^{2γd} ∝ 1/Re(n_sp² − n_eff²)
    (measured at 0.5 and 0.6: the products within 4 %); below it the leak is gone (29× less at 0.75 than at 0.6,
    gold 1.25 µm from each wall, 40 nm mesh)."""
    d = 1.25
    rows = []
    for fraction in (0.5, 0.6, 0.75):
        ridge = DEFAULT.replace(etch_depth=fraction * DEFAULT.film_thickness)
        n_sp = slab_plasmon_index(WL, float(ridge.slab))
        n = float(dispersion.neff(WL, ridge, math.inf, "te", "z"))
        per_side = ma.edge_absorption_db_per_cm(WL, ridge, d, d, step=0.04) / 2
        gamma = float(lateral_decay_per_um(WL, ridge, "z"))
        rows.append((n_sp.real - n, per_side, per_side * math.exp(2 * gamma * d) * (n_sp**2 - n**2).real))
        print(f"etch fraction {fraction}: n_sp − n_eff {n_sp.real - n:+.3f}, {per_side:.4f} dB/cm per side")
    (u1, _, c1), (u2, a2, c2), (u3, a3, _) = rows
    assert u1 > u2 > 0 > u3
    assert c1 == pytest.approx(c2, rel=0.15)
    assert a3 < a2 / 10


@pytest.mark.parametrize("name", ["slab, 1.0 µm", "cladding, 0.3 µm up, 0.3 µm beside"])
def test_function_matches_the_converged_reference(name, tmp_path, monkeypatch):
    """Solved in a fresh user cache, then read back from it bit for bit (a second call solves nothing)."""
    monkeypatch.setenv(user_cache.ENV, str(tmp_path / "cache"))
    case = REFS[name]
    ridge = RidgeStack(width=case["width"], film_thickness=case["film"], etch_depth=case["etch"],
                       sidewall_angle_deg=case["angle"])
    got = ma.edge_absorption_db_per_cm(WL, ridge, case["distance"], case["distance"], case["height"])
    assert got == pytest.approx(case["loss_db_per_cm"][-1], rel=0.03)
    assert len(list((tmp_path / "cache" / user_cache.ARRAY_FOLDER).glob("metal-absorption-*"))) == 1
    monkeypatch.setattr("prismpic.pdk.modesolver.solve_modes", None)  # a solve now would raise
    assert ma.edge_absorption_db_per_cm(WL, ridge, case["distance"], case["distance"], case["height"]) == got


@pytest.mark.parametrize("case", json.loads(refs.OUT.read_text())["sides"], ids=lambda c: c["name"])
def test_one_sided_and_unequal_layouts_are_halves_of_symmetric_ones(case):
    """The function solves only layouts symmetric about the rib and takes a one-sided or unequal layout as the sum
    of the halves of the symmetric ones; the reference solves the layout as drawn, without a mirror plane, on the
    same mesh (the ring's floating disk: one side at 1.5 µm, both crystal axes; and gold 1.0 and 1.3 µm away). One
    side: the same to 1e-4. Unequal sides: within 2 % (1.5 % below: the near sides' plasmons interact a little; the
    solves' own mesh error is 1.6 %)."""
    ridge = RidgeStack(width=case["width"], film_thickness=case["film"], etch_depth=case["etch"],
                       sidewall_angle_deg=case["angle"])
    right = math.inf if case["right"] is None else case["right"]
    got = ma.edge_absorption_db_per_cm(WL, ridge, case["left"], right, None, case["axis"])
    print(case["name"], got, case["loss_db_per_cm"])
    assert got == pytest.approx(case["loss_db_per_cm"], rel=1e-4 if case["right"] is None else 0.02)


def test_metal_over_the_sloped_wall_is_a_clear_error():
    with pytest.raises(ValueError, match="metal distance"):
        ma.edge_absorption_db_per_cm(WL, DEFAULT, 0.01, math.inf)


@pytest.fixture(scope="module")
def ring_specs_physics():
    """The default ring's specs with the loss from physics (absorption, scattering and bend: no gold in the compact
    path)."""
    from prismpic.components.rings import ring_specs

    return ring_specs(loss_db_per_cm=None)


def test_ring_budget_adds_up_and_its_q_matches_the_ring_model(ring_specs_physics):
    specs = ring_specs_physics
    budget = loss_budget.ring_loss_budget(RING, specs["resonance_um"])
    parts = budget.absorption_db_per_cm + budget.scattering_db_per_cm + budget.bend_db_per_cm + budget.metal_db_per_cm
    assert budget.total_db_per_cm == pytest.approx(parts, rel=1e-12)
    # 1/Q adds per cause: Q_i of the budget is the model's with the gold's rate added
    ng = specs["fsr_nm"] and specs["resonance_um"] ** 2 / (specs["fsr_nm"] * 1e-3 * 2 * math.pi * RING.radius)
    gold_rate = budget.metal_db_per_cm * math.log(10) / 10 * 1e-4 * specs["resonance_um"] / (2 * math.pi * ng)
    assert 1 / budget.q_intrinsic == pytest.approx(1 / specs["q_intrinsic"] + gold_rate, rel=2e-3)
    corners = loss_budget.budget_over_roughness(budget, RING, specs["resonance_um"])
    assert corners["smoothest published"].q_intrinsic > budget.q_intrinsic > corners["roughest published"].q_intrinsic


def test_cli_loss_prints_the_budget_and_rejects_a_rough_wall_in_one_line(ring_specs_physics):
    """``prismpic loss`` at the default ring's resonance: the gold solves are the ring-budget test's above (read back
    from the user cache, ``metal_absorption``), which is why this CLI test lives here."""
    from typer.testing import CliRunner

    from prismpic.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["loss", "--wl", repr(ring_specs_physics["resonance_um"]), "--sigma-nm", "3",
                              "--correlation-nm", "40"])
    assert res.exit_code == 0, res.output
    for cause in ("sidewall scattering", "bend radiation", "electrode gold", "intrinsic Q", "roughest"):
        assert cause in res.output
    for args, name in ((["--sigma-nm", "50"], "sigma_nm"), (["--sigma-nm", "3", "--correlation-nm", "1"],
                                                             "correlation_nm")):
        res = runner.invoke(app, ["loss", *args])
        assert res.exit_code == 2 and name in res.output and len(res.output.strip().splitlines()) == 1
