"""The example scripts in docs/examples run (quick settings) and their results hold up against physics."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_critical_gap_by_gradient_descent(tmp_path):
    """Descent on |t(λ_res)|² lands on Brent's root of t(gap) = a (all-pass) and t1 = a·t2 (add-drop)."""
    from prismpic.pdk.rules import RULES

    out = load("critical_gap_descent").main(quick=True, out_dir=tmp_path)
    for kind, res in out.items():
        if res["critical_gap_brent"] is not None:
            assert res["gap"] == pytest.approx(res["critical_gap_brent"], abs=1e-5), kind
            assert res["through_power"] < 1e-10, kind
        else:  # no critical gap in the rule range: the descent stops on the nearest bound
            assert res["gap"] in (pytest.approx(RULES.min_ridge_gap), pytest.approx(2.0)), kind
    assert (tmp_path / "critical_gap_descent.png").exists()


def test_fab_yield(tmp_path):
    """Monte Carlo spread ≈ linear propagation of the process σ; yield ≈ erf(range/√2σ) for a Gaussian shift
    (times the share of draws the model covers)."""
    out = load("fab_yield").main(quick=True, out_dir=tmp_path)
    rows = out["rows"]
    small = rows[0]
    assert small["sigma_shift_nm"] == pytest.approx(small["sigma_linear_nm"], rel=0.1)
    for r in rows:
        p = (1 - r["outside_model"]) * math.erf(r["trim_range_nm"] / (math.sqrt(2) * r["sigma_shift_nm"]))
        assert abs(r["yield_same_order"] - p) <= 4 * math.sqrt(p * (1 - p) / r["n"]) + 0.03
        assert r["yield_any_order"] >= r["yield_same_order"]
    same = [r["yield_same_order"] for r in rows]
    assert same == sorted(same, reverse=True)  # larger spreads, fewer trimmable rings
    assert out["trim_range_nm"] > 0 and (tmp_path / "fab_yield.png").exists()


def test_weight_lock(tmp_path):
    """Without the loop the weight error grows with ΔT; with it the error stays at the sensor/lag level."""
    out = load("weight_lock").main(quick=True, out_dir=tmp_path)
    free, locked = out["weight_error_free"], out["weight_error_locked"]
    assert np.all(np.diff(free) > 0)
    assert locked.max() < free[-1] / 5
    assert out["recall_locked"][-1] >= out["recall_free"][-1]
    assert out["recall_free"][0] == pytest.approx(out["recall_locked"][0], abs=0.05)
    assert (tmp_path / "weight_lock.png").exists()


def test_wdm_channel_plan(tmp_path):
    """A plan found for d = 32 in the C band meets the target on independent re-check; the single-radius
    family never beats the common-FSR bound Airy(FSR/d) (pigeonhole on the round-trip phase)."""
    out = load("wdm_channel_plan").main(quick=True, out_dir=tmp_path)
    search = out["search"]
    if search.best is not None:
        chk = out["check"]
        assert chk.passed and chk.worst_db <= -20.0 and chk.in_band
    else:
        assert not search.feasible and search.reason
    assert np.min(out["single_family"].values) >= out["common_fsr_bound_db"] - 0.5
    assert not out["seed_check"].in_band  # 32 × 1.6 nm does not fit the 35 nm C band


def test_prototype_dot_product():
    """Balanced currents = g Σ R c P w (the readout identity); with equal R·c they would be g·R·c·P·(w·q)."""
    out = load("prototype_dot_product").main(n=2)
    assert out["residual"] < 1e-9 and 0 < out["g"] < 1
    np.testing.assert_allclose(out["currents_a"], out["identity_a"], rtol=1e-7, atol=1e-9 * np.abs(out["currents_a"]).max())
    # readout − w·q = Σ_l (s_kl/⟨s_k⟩ − 1) w_kl q_l, bounded by the spread of R·c over the channels
    bound = out["path_spread"] * (np.abs(out["w"]) @ out["q"])
    assert np.all(np.abs(out["readout"] - out["exact"]) <= bound * (1 + 1e-9) + 1e-9 * np.abs(out["exact"]).max())
    assert np.all(out["path_spread"] < 0.1)  # R(λ) and the path vary by a few % over 1.6 nm
