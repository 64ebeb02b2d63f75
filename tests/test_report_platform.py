"""``prismpic report --platform NAME`` (issue 31, item 2): the sections that take stack values run on the preset's
stack, what cannot follow it says so, and without the option the report is what it was.

The stack values below are typed from the tfln400 preset's public sources (Luxtelligence LNOI400: 400 nm film,
200 nm slab, walls 13.5° from the vertical, SiO2 cladding, loss from physics: 0.2 dB/cm on its 1.0 µm rib), not read from ``pdk.platforms``; the
reference numbers come from the solvers and models called here directly. Only the platform and ring sections run
(the full report takes minutes)."""

from __future__ import annotations

import inspect
import json

import pytest
from typer.testing import CliRunner

from prismpic.cli import app
from prismpic.report import build, preset
from prismpic.report import sections as report_sections

TFLN400 = {"film_thickness": 0.4, "etch_depth": 0.2, "sidewall_angle_deg": 90.0 - 13.5, "cladding": "sio2",
           "loss_db_per_cm": None}
ELECTRODE_HEIGHT = 1.0  # µm: the metal's bottom above the LN film top, on the cladding (lnoi400/tech.py)
RIDGE_WIDTH = 1.4  # µm, the straight ridge the platform section solves (pdk.cross_sections.RIDGE_WIDTH)
RING_KEYS = ("ng", "fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "drop_loss_db",
             "tuning_pm_per_v", "v_per_linewidth")


def _taken(fn, values: dict) -> dict:
    """The entries of ``values`` that ``fn`` has a named parameter for."""
    return {k: v for k, v in values.items() if k in inspect.signature(fn).parameters}


def _tfln400_ring() -> dict:
    """The tfln400 values the ring model takes (its plates' height too)."""
    from prismpic.components import rings

    return _taken(rings.ring_add_drop_model, {**TFLN400, "electrode_height": ELECTRODE_HEIGHT})


def _run(out, *options, sections: str = "platform,ring") -> tuple[dict, str]:
    res = CliRunner().invoke(app, ["report", "--sections", sections, "--out", str(out), *options])
    assert res.exit_code == 0, res.output
    return json.loads((out / "report.json").read_text()), (out / "report.html").read_text()


@pytest.fixture(scope="module")
def tfln400(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("tfln400") / "rep", "--platform", "tfln400", sections="platform,ring,crosstalk")


@pytest.fixture(scope="module")
def no_option(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("none") / "rep")


def test_platform_table_is_the_presets_stack_solved_there(tfln400):
    from prismpic.pdk import dispersion
    from prismpic.pdk.ridge_stack import RidgeStack

    rep, page = tfln400
    p = rep["platform"]
    assert p["platform"] == "tfln400"
    assert (p["film_thickness_um"], p["etch_depth_um"], p["sidewall_angle_deg"], p["cladding"]) == (0.4, 0.2, 76.5,
                                                                                                    "sio2")
    geo = {k: TFLN400[k] for k in ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding")}
    ridge = RidgeStack(width=RIDGE_WIDTH, **geo)
    for axis in ("z", "y"):
        assert p[f"neff_te_{axis}"] == pytest.approx(float(dispersion.neff(1.55, ridge, crystal_axis=axis)),
                                                     rel=1e-12)
        assert p[f"ng_te_{axis}"] == pytest.approx(float(dispersion.ng(1.55, ridge, crystal_axis=axis)),
                                                   rel=1e-12)
    assert p["eo_overlap"] == pytest.approx(float(dispersion.eo_overlap(1.55, ridge)), rel=1e-12)
    # the 600 nm stack's n_eff is not what the table shows: the preset really moved the solve
    assert abs(p["neff_te_z"] - float(dispersion.neff(1.55, RidgeStack(width=RIDGE_WIDTH), crystal_axis="z"))) > 0.05
    # 0.4 µm is below the TM table's films (dispersion.domain: [0.5, 0.7] µm); the TE, bend, coupler tables cover it
    assert set(p["outside_domains"]) == {"tm"} and "0.4" in p["outside_domains"]["tm"]
    blocks = next(s for s in report_sections.sections(rep) if s["id"] == "platform")["blocks"]
    rows = {label: value for label, value in next(b for b in blocks if b["kind"] == "table")["rows"]}
    assert rows["film thickness"].replace("\u00a0", " ") == "400 nm"
    assert rows["etch depth"].replace("\u00a0", " ") == "200 nm"
    assert rows["sidewall angle (from the horizontal)"].replace("\u00a0", " ") == "76.5 °"
    assert 'platform preset <b>tfln400</b>' in page and "film 400" in page.replace("\u00a0", " ")


def test_report_json_records_the_preset(tfln400):
    rep, _ = tfln400
    pp = rep["platform_preset"]
    assert pp["name"] == "tfln400" and pp["default"] is False
    assert {k: pp["settings"][k] for k in TFLN400} == TFLN400
    assert pp["settings"]["electrode_height"] == ELECTRODE_HEIGHT


def test_ring_specs_are_the_models_at_the_presets_stack(tfln400):
    from prismpic.components import rings

    rep, page = tfln400
    ring = rep["ring"]
    ref = rings.ring_specs(kind="add_drop", **_tfln400_ring())
    for key in RING_KEYS:
        assert ring[key] == pytest.approx(ref[key], rel=1e-12), key
    assert ring["resonance_nm"] == pytest.approx(ref["resonance_um"] * 1e3, rel=1e-12)
    assert ring["params"] == _tfln400_ring()
    assert "on tfln400</h3>" in page  # the summary's device panel names the stack
    default = rings.ring_specs(kind="add_drop")
    assert abs(ring["fsr_nm"] - default["fsr_nm"]) > 0.1 and abs(ring["q_loaded"] / default["q_loaded"] - 1) > 0.2


def test_what_does_not_follow_the_preset_says_why(tfln400):
    """The process's film +3σ corner, 0.4 + 3 × 0.01 µm under a 0.2 µm etch, has an etch fraction 0.2/0.43 = 0.465
    below the bend table's 0.5 (dispersion.domain), so the spread is refused, not silently taken on the 600 nm
    stack. The ring follows the preset's electrode height (1 µm above the film): nothing to say about it."""
    from prismpic.pdk import dispersion

    rep, page = tfln400
    note = rep["platform_preset"]["not_followed"]["ring"]
    assert "film_thickness+3s" in note
    assert "electrode_height" not in note and _tfln400_ring()["electrode_height"] == ELECTRODE_HEIGHT
    assert 0.2 / (0.4 + 3 * 0.01) < dispersion.domain()["bend"]["etch_fraction"][0]
    assert rep["ring"]["process_spread"] == {"not_computed": rep["ring"]["process_spread"]["not_computed"]}
    assert "film_thickness+3s" in rep["ring"]["process_spread"]["not_computed"]
    assert "Not on the tfln400 preset" in page and "not followed in" in page


def test_no_option_is_prismpic_and_the_pre_preset_numbers(no_option, tmp_path):
    """Without --platform: the models' defaults, as before presets (the same calls the report made then), and
    --platform prismpic writes the same report."""
    from prismpic.components import rings
    from prismpic.pdk import dispersion
    from prismpic.pdk.ridge_stack import RidgeStack

    rep, _ = no_option
    assert rep["platform_preset"]["name"] == "prismpic" and rep["platform_preset"]["not_followed"] == {}
    p = rep["platform"]
    ridge = RidgeStack(width=RIDGE_WIDTH, film_thickness=0.6, etch_depth=0.35)
    assert p["neff_te_z"] == float(dispersion.neff(1.55, ridge, crystal_axis="z"))
    assert p["eo_overlap"] == float(dispersion.eo_overlap(1.55, ridge))
    ref = rings.ring_specs(kind="add_drop")
    assert all(rep["ring"][k] == ref[k] for k in RING_KEYS)
    named, _ = _run(tmp_path / "rep", "--platform", "prismpic")
    for r in (rep, named):
        r.pop("timings_s")
    assert named == rep


def test_bad_preset_name_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["report", "--platform", "tfln300", "--sections", "platform", "--out", str(out)])
    assert res.exit_code == 2
    line = res.output.strip()
    assert line.count("\n") == 0 and "--platform" in line and "'tfln300'" in line
    assert "prismpic" in line and "tfln400" in line
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="--platform = 'tfln300'"):
        build.write_report(out, sections=["platform"], platform="tfln300")
    assert list(tmp_path.iterdir()) == []


def test_claims_stay_on_prismpics_stack(monkeypatch, tmp_path):
    """On another preset the ledger gets only the user's ring (it computes the rest on prismpic's stack), not the
    preset's crosstalk or link budget; on prismpic's stack it reuses the report's results."""
    from prismpic.analysis.ledger import claims
    from prismpic.pdk.platforms import get_platform

    seen = []
    monkeypatch.setattr(claims, "judgements", lambda context, **options: seen.append(context) or [])
    results = {"ring_params": {"gap": 0.25}, "crosstalk": "tfln400 crosstalk", "link_budget": "tfln400 budget"}
    for name in ("tfln400", "prismpic"):
        ctx = build.ReportContext(params={"ring": {"gap": 0.25}}, workdir=tmp_path, results=dict(results),
                                  platform=get_platform(name))
        assert dict(build.SECTIONS)["claims"](ctx) == []
        assert ("claims" in ctx.off_preset) == (name == "tfln400")
    assert seen[0] == {"ring_params": {"gap": 0.25}}
    assert seen[1] == results


def test_user_ring_values_win_over_the_presets():
    ring = preset.ring_params(preset.report_platform("tfln400"), {"film_thickness": 0.45, "gap": 0.3})
    assert ring == {**_tfln400_ring(), "film_thickness": 0.45, "gap": 0.3}
    assert "film_thickness" in preset.ring_note(preset.report_platform("tfln400"), {"film_thickness": 0.45})


def test_layout_says_when_its_cell_takes_no_stack():
    def cell_without_stack(n_rows: int = 8):
        return n_rows

    tfln = preset.report_platform("tfln400")
    note = preset.layout_note(tfln, cell_without_stack)
    assert "film_thickness" in note and "cell_without_stack" in note
    assert preset.layout_note(preset.report_platform(None), cell_without_stack) is None

    def cell_with_stack(film_thickness=0.6, etch_depth=0.35, sidewall_angle_deg=76.5, cladding="sio2"):
        return film_thickness

    assert preset.layout_note(tfln, cell_with_stack) is None


def test_a_model_without_a_presets_parameter_is_named():
    def model(wl=1.55, *, film_thickness=0.6, etch_depth=0.35, sidewall_angle_deg=76.5, cladding="sio2",
              loss_db_per_cm=0.2):
        return wl

    assert preset.ignored_settings(preset.report_platform("tfln400"), model) == {"electrode_height": ELECTRODE_HEIGHT}
    assert preset.ignored_settings(preset.report_platform(None), model) == {}  # prismpic's stack: nothing to miss


def test_the_bank_view_follows_the_electrode_limit(tfln400):
    """On tfln400 holding a ring half a linewidth off its channel takes FWHM / 2 / (dλ/dV) of the ring section's
    own numbers: 173 V with the tabulated bend radiation (Q_L 4.1e3), inside the electrodes' 200 V, so the
    crosstalk section carries the bank view and no note (before session 22 the bend loss was over-stated, the
    linewidth wider, and the view was left out)."""
    rep, _ = tfln400
    ring, xt = rep["ring"], rep["crosstalk"]
    half_linewidth_v = ring["fwhm_nm"] * 1e3 / 2 / ring["tuning_pm_per_v"]
    assert half_linewidth_v < 200.0
    assert xt["worst_db"] is not None and xt["bank_worst_db"] is not None
    assert "left out" not in rep["platform_preset"]["not_followed"].get("crosstalk", "")


def test_a_bank_view_beyond_the_electrode_limit_is_left_out_and_said(tmp_path, monkeypatch):
    """With an electrode limit below tfln400's half-linewidth voltage (150 V against 173 V) the crosstalk section
    keeps its wavelength matrix, leaves the bank view out and says why (it failed the whole report before)."""
    import dataclasses

    from prismpic.analysis.system import crosstalk

    monkeypatch.setattr(crosstalk, "RULES", dataclasses.replace(crosstalk.RULES, max_electrode_voltage_v=150.0))
    rep, _ = _run(tmp_path / "rep", "--platform", "tfln400", sections="platform,ring,crosstalk")
    ring, xt = rep["ring"], rep["crosstalk"]
    assert ring["fwhm_nm"] * 1e3 / 2 / ring["tuning_pm_per_v"] > 150.0
    assert xt["worst_db"] is not None and "bank_worst_db" not in xt
    note = rep["platform_preset"]["not_followed"]["crosstalk"]
    assert "bank (voltage) view is left out on tfln400" in note and "[-150, 150] V" in note
