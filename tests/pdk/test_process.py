"""The process description: corners, seeded Monte Carlo, the as-fabricated parameters, the file format."""

from __future__ import annotations

import json

import numpy as np
import pytest

from prismpic.pdk.process import DEFAULT_PROCESS, PARAMETERS, Process, apply, load_process


def test_corners_are_nominal_plus_minus_three_sigma():
    p = DEFAULT_PROCESS
    assert p.corner("nominal") == p.nominal()
    for name in PARAMETERS:
        par = getattr(p, name)
        for sign in (+1, -1):
            c = p.corner(f"{name}{'+' if sign > 0 else '-'}3s")
            assert c[name] == pytest.approx(np.clip(par.nominal + sign * 3 * par.sigma, par.lo, par.hi))
            assert all(c[k] == p.nominal()[k] for k in c if k != name)  # one parameter at a time


def test_unknown_corner_names_the_valid_ones():
    with pytest.raises(ValueError, match="corner = 'width\\+9s' is not one of.*nominal"):
        DEFAULT_PROCESS.corner("width+9s")


def test_monte_carlo_is_seeded_and_has_the_stated_spread():
    a, b = DEFAULT_PROCESS.sample(4000, seed=3), DEFAULT_PROCESS.sample(4000, seed=3)
    assert a == b
    assert a != DEFAULT_PROCESS.sample(4000, seed=4)
    for name in ("film_thickness", "width_bias", "gap_bias"):  # far from their range limits: not clipped
        par = getattr(DEFAULT_PROCESS, name)
        v = np.array([d[name] for d in a])
        # sample mean within 4 standard errors, sample σ within 4 % (σ of s ≈ σ/√(2n) ≈ 1.1 %)
        assert abs(v.mean() - par.nominal) < 4 * par.sigma / np.sqrt(v.size)
        assert v.std(ddof=1) == pytest.approx(par.sigma, rel=0.04)


def test_apply_gives_the_as_fabricated_geometry():
    values = {"width_bias": 0.03, "gap_bias": -0.02, "film_thickness": 0.61, "etch_depth": 0.34,
              "sidewall_angle_deg": 80.0, "cladding": "sio2"}
    out = apply({"width": 1.4, "gap": 0.2, "gap_drop": None, "radius": 20.0}, values)
    assert out["width"] == pytest.approx(1.43) and out["gap"] == pytest.approx(0.18)
    assert out["gap_drop"] is None and out["radius"] == 20.0
    assert out["film_thickness"] == 0.61 and out["sidewall_angle_deg"] == 80.0
    only = apply({"width": 1.4}, values, accepted=("width", "film_thickness"))
    assert set(only) == {"width", "film_thickness"}


def test_process_file_round_trip_and_bad_files(tmp_path):
    p = DEFAULT_PROCESS.with_spreads(sidewall_angle_deg=1.5)
    path = tmp_path / "process.json"
    path.write_text(json.dumps(p.to_dict()))
    assert load_process(path) == p
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="bad.json.*schema"):
        load_process(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="unknown process parameter"):
        DEFAULT_PROCESS.with_spreads(thickness=0.1)
    with pytest.raises(ValueError, match="cladding"):
        Process(cladding="water")


@pytest.mark.slow
def test_ring_spread_corners_move_the_specs_the_physical_way():
    from prismpic.analysis.process_spread import ring_process_spread
    from prismpic.components import rings

    r = ring_process_spread(n_samples=2)
    assert r["nominal"]["q_loaded"] == pytest.approx(rings.ring_specs()["q_loaded"], rel=1e-12)
    c = r["corners"]
    # a wider etched gap couples less: the loaded Q rises; a narrower one lowers it
    assert c["gap_bias+3s"]["q_loaded"] > r["nominal"]["q_loaded"] > c["gap_bias-3s"]["q_loaded"]
    # the all-pass critical gap, as drawn, moves opposite to the gap bias by exactly the bias
    bias = 3 * DEFAULT_PROCESS.gap_bias.sigma
    assert c["gap_bias+3s"]["critical_gap_um"] == pytest.approx(r["nominal"]["critical_gap_um"] - bias, abs=1e-6)
    # one resonance followed over the process: every corner's is of the nominal's order (θ = 2πm); a thicker film
    # raises n_eff and moves it to the red, a thinner one to the blue
    for name, values in DEFAULT_PROCESS.corners().items():
        ring = apply(r["design"], values, rings.ring_params("add_drop", {}))
        assert rings.resonance_order(c[name]["resonance_nm"] * 1e-3, **ring) == r["order"], name
    lam = {name: c[name]["resonance_nm"] for name in ("film_thickness-3s", "nominal", "film_thickness+3s")}
    assert lam["film_thickness+3s"] > lam["nominal"] > lam["film_thickness-3s"], lam
