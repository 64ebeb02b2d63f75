"""The example scripts in docs/examples run (quick settings) and their results hold up against physics; they write
only where they are told (the current folder or ``--out``), never into the source tree; the README shows only
commands that exist and links only to files in the repository."""

import contextlib
import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _docs_tree() -> dict:
    """Every file under docs/ (size, mtime) and the figures at the repository's top: what an example could clobber."""
    files = {str(p.relative_to(ROOT)): (p.stat().st_size, p.stat().st_mtime_ns) for p in (ROOT / "docs").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    return {"docs": files, "top": sorted(p.name for p in ROOT.glob("*.png"))}


@pytest.fixture
def in_tmp(tmp_path):
    """Run in an empty current folder; the source tree must be as it was afterwards. ``contextlib.chdir``, not
    ``monkeypatch.chdir``: a test that asks for ``monkeypatch`` runs without the exported programs (conftest), and
    the current folder is not in a program's key (these tests took 2× as long)."""
    before = _docs_tree()
    with contextlib.chdir(tmp_path):
        yield tmp_path
    assert _docs_tree() == before, "an example wrote into the source tree"


def test_critical_gap_by_gradient_descent(in_tmp):
    """Descent on |t(λ_res)|² lands on Brent's root of t(gap) = a (all-pass) and t1 = a·t2 (add-drop)."""
    from prismpic.pdk.rules import RULES

    out = load("critical_gap_descent").cli(["--quick"])
    for kind, res in out.items():
        if res["critical_gap_brent"] is not None:
            assert res["gap"] == pytest.approx(res["critical_gap_brent"], abs=1e-5), kind
            assert res["through_power"] < 1e-10, kind
        else:  # no critical gap in the rule range: the descent stops on the nearest bound
            assert res["gap"] in (pytest.approx(RULES.min_ridge_gap), pytest.approx(2.0)), kind
    assert (in_tmp / "critical_gap_descent.png").exists()


def test_fab_yield(in_tmp):
    """Monte Carlo spread ≈ linear propagation of the process σ; yield ≈ erf(range/√2σ) for a Gaussian shift
    (times the share of draws the model covers)."""
    (in_tmp / "figures").mkdir()
    out = load("fab_yield").cli(["--quick", "--out", "figures"])
    rows = out["rows"]
    small = rows[0]
    assert small["sigma_shift_nm"] == pytest.approx(small["sigma_linear_nm"], rel=0.1)
    for r in rows:
        p = (1 - r["outside_model"]) * math.erf(r["trim_range_nm"] / (math.sqrt(2) * r["sigma_shift_nm"]))
        assert abs(r["yield_same_order"] - p) <= 4 * math.sqrt(p * (1 - p) / r["n"]) + 0.03
        assert r["yield_any_order"] >= r["yield_same_order"]
    same = [r["yield_same_order"] for r in rows]
    assert same == sorted(same, reverse=True)  # larger spreads, fewer trimmable rings
    assert out["trim_range_nm"] > 0 and (in_tmp / "figures" / "fab_yield.png").exists()


def test_weight_lock(in_tmp):
    """Without the loop the weight error grows with ΔT; with it the error stays at the sensor/lag level."""
    out = load("weight_lock").cli(["--quick"])
    free, locked = out["weight_error_free"], out["weight_error_locked"]
    assert np.all(np.diff(free) > 0)
    assert locked.max() < free[-1] / 5
    assert out["recall_locked"][-1] >= out["recall_free"][-1]
    assert out["recall_free"][0] == pytest.approx(out["recall_locked"][0], abs=0.05)
    assert (in_tmp / "weight_lock.png").exists()


def test_wdm_channel_plan(in_tmp):
    """A plan found for d = 32 in the C band meets the target on independent re-check; the single-radius
    family never beats the common-FSR bound Airy(FSR/d) (pigeonhole on the round-trip phase)."""
    out = load("wdm_channel_plan").cli(["--quick"])
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


def test_ring_critical_coupling(in_tmp):
    """All-pass ring: the through extinction peaks at the critical gap (t = a, Bogaerts et al. 2012, eq. 1) and the
    loaded Q rises with the gap (weaker coupling, 1/Q_L = 1/Q_i + 1/Q_c) but stays below the intrinsic Q."""
    out = load("ring_critical_coupling").cli(["--quick"])
    assert out["path"] == Path("ring_coupling.png") and (in_tmp / "ring_coupling.png").exists()
    gaps, ap = out["gaps"], out["all_pass"]
    if out["critical_gap"] is not None:
        assert gaps[int(np.argmax([s["extinction_db"] for s in ap]))] == pytest.approx(out["critical_gap"])
    q = [s["q_loaded"] for s in ap]
    assert np.all(np.diff(q) > 0) and all(s["q_loaded"] < s["q_intrinsic"] for s in ap)


def test_an_out_folder_that_does_not_exist_is_one_line_and_exit_2(in_tmp, capsys):
    with pytest.raises(SystemExit) as e:
        load("weight_lock").cli(["--out", "missing"])
    assert e.value.code == 2 and "--out 'missing' is not an existing folder" in capsys.readouterr().err


# ---------------------------------------------------------------------------- README
def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_links_only_to_files_in_the_repository():
    text = _readme()
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"<img[^>]+src=\"([^\"]+)\"", text)
    assert targets, "the README links nothing (it shows a picture)"
    for target in targets:
        path = target.split("#", 1)[0]
        assert "://" not in target and not target.startswith(("/", "mailto:")), target
        if path:
            resolved = (ROOT / path).resolve()
            assert resolved.is_relative_to(ROOT) and resolved.exists(), target
    assert "../" not in text, "a path outside the repository"
    assert "docs/readme_figure.png" in targets


def test_readme_shows_only_commands_that_exist():
    """Every `prismpic <command> [<subcommand>]` in the README's code is a command of the installed CLI."""
    from typer.main import get_command

    from prismpic.cli import app

    cli = get_command(app)
    code = " ".join(re.findall(r"```.*?```", _readme(), flags=re.S) + re.findall(r"`[^`\n]+`", _readme()))
    shown = re.findall(r"(?<![\w.\-\[])prismpic ([a-z][\w-]*)(?: ([a-z][\w-]*))?", code)
    assert len(shown) >= 10
    for name, sub in shown:
        assert name in cli.commands, f"prismpic {name}"
        group = cli.commands[name]
        if hasattr(group, "commands") and sub:
            assert sub in group.commands, f"prismpic {name} {sub}"


def test_foreign_pdk_cross_section(in_tmp):
    """An MZI drawn under another PDK's cross-section name, mapped to the 400 nm preset: its fringe period is
    λ²/(n_g·ΔL) with the foundry PDK's own n_g = 2.22 for that rib (lnoi400/models.py, xs_rwg1000) to 2 %, and
    with prismpic's n_g of the 1.0 µm ridge on the preset to 0.5 %."""
    from prismpic.pdk import dispersion
    from prismpic.pdk.platforms import preset_settings
    from prismpic.pdk.ridge_stack import RidgeStack

    mod = load("foreign_pdk_cross_section")
    out = mod.cli(["--quick"])
    fringe = out["fringe_nm"]["tfln400"]
    wl0 = 1.55
    assert fringe == pytest.approx(wl0**2 / (2.22 * mod.DELTA_LENGTH_UM) * 1e3, rel=0.02)
    ridge = RidgeStack(width=1.0, **preset_settings("tfln400", RidgeStack))
    ng = float(dispersion.ng(wl0, ridge, polarization="te", crystal_axis="z"))
    assert fringe == pytest.approx(wl0**2 / (ng * mod.DELTA_LENGTH_UM) * 1e3, rel=0.005)
    assert (in_tmp / "foreign_mzi.png").exists()
