"""The command line: exit codes, one-line errors, no partial outputs."""

import json

import pytest
from typer.testing import CliRunner

from prismpic.cli import app

runner = CliRunner()


def test_report_writes_json_and_html(report_dir):
    data = json.loads((report_dir / "report.json").read_text())
    assert data["platform"]["ng_te_z"] > data["platform"]["neff_te_z"]
    assert (report_dir / "report.html").read_text().startswith("<!doctype html>")
    assert not [p for p in report_dir.parent.iterdir() if p.name.startswith(".rep")], "temporary folders left behind"


def test_report_bad_out_dir_exit_2(tmp_path):
    res = runner.invoke(app, ["report", "--out", str(tmp_path / "missing" / "rep")])
    assert res.exit_code == 2
    assert "parent directory" in res.output


def test_report_bad_params_exit_2(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("{not json")
    res = runner.invoke(app, ["report", "--out", str(tmp_path / "r"), "--params", str(bad)])
    assert res.exit_code == 2 and "not valid JSON" in res.output
    assert not (tmp_path / "r").exists()


def test_layout_writes_gds_and_rejects_unknown(tmp_path):
    out = tmp_path / "s.gds"
    res = runner.invoke(app, ["layout", "straight", "--out", str(out), "--set", "length=42"])
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 0 and "DRC: clean" in res.output
    res = runner.invoke(app, ["layout", "no_such_cell"])
    assert res.exit_code == 2 and "no_such_cell" in res.output
    res = runner.invoke(app, ["layout", "straight", "--out", str(tmp_path / "b.gds"), "--set", "length=-3"])
    assert res.exit_code == 2 and "length = -3" in res.output
    assert not (tmp_path / "b.gds").exists()


def test_mode_prints_indices():
    res = runner.invoke(app, ["mode", "--wl", "1.55"])
    assert res.exit_code == 0 and "n_g" in res.output
    res = runner.invoke(app, ["mode", "--wl", "2.5"])
    assert res.exit_code == 2


def test_report_schema(report_dir):
    """report.json carries the documented sections and keys (README: report schema)."""
    out = report_dir
    data = json.loads((out / "report.json").read_text())
    for key in ("radius_um", "gap_um", "ng", "fsr_nm", "fwhm_nm", "q_loaded", "extinction_db", "tuning_pm_per_v"):
        assert key in data["ring"]
    for key in ("n_channels", "spacing_nm", "fsr_nm", "fwhm_nm", "worst_db", "worst_pair"):
        assert key in data["crosstalk"]
    lb = data["link_budget"]
    assert {"stages", "received_dbm", "snr_db", "noise_terms_a2"} <= set(lb)
    assert all({"name", "loss_db"} <= set(s) for s in lb["stages"])
    ids = {c["id"] for c in data["claims"]}
    assert len(ids) == 31
    for c in data["claims"]:
        assert {"id", "quantity", "claimed", "modeled", "unit", "verdict", "reason"} <= set(c)
    lay = data["layout"]  # the prototype GDS beside the report, DRC-clean
    assert lay["drc_violations"] == [] and (out / lay["gds"]).read_bytes()[:4] == b"\x00\x06\x00\x02"
    for name in data["figures"]:
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    td = data["time_domain"]  # the ring in time (issue 29): lifetime against Q_L/ω₀, steady state against S
    assert td["ring"]["photon_lifetime_ps"] == pytest.approx(td["ring"]["expected_lifetime_ps"], rel=0.02)
    assert td["ring"]["steady_state_error"] <= 1e-3 and 0 < td["ring"]["eye_opening"] <= 1
    assert {"transient_eye.png", "transient_waveforms.png", "weight_update.png"} <= set(data["figures"])
    tuning = [c for c in data["claims"] if c["id"] == "S1-10" and c["quantity"].startswith("tuning time")]
    assert len(tuning) == 1 and tuning[0]["modeled"] == td["weight_update"]["settling_time_ps"]  # one simulation


def test_report_shows_the_rings_loss_by_cause_and_what_its_model_counts(report_dir):
    """The ring's loss budget in the report: the causes add up to the total; Q_i = 2π n_g/(λ α) with α the total in
    1/µm (the textbook relation, with the report's own n_g and resonance); the ring model's Q_i (its spectrum's
    Airy inversion) is the same budget without the electrodes' gold, which the model leaves out; the page says so."""
    import math

    data = json.loads((report_dir / "report.json").read_text())
    ring, b = data["ring"], data["ring"]["loss_budget"]
    causes = ("absorption_db_per_cm", "scattering_db_per_cm", "bend_db_per_cm", "metal_db_per_cm")
    assert sum(b[k] for k in causes) == pytest.approx(b["total_db_per_cm"], rel=1e-12)
    assert all(b[k] > 0 for k in causes) and b["wl_um"] == pytest.approx(ring["resonance_nm"] * 1e-3)
    alpha = b["total_db_per_cm"] * math.log(10) / 10 * 1e-4  # 1/µm
    assert b["q_intrinsic"] == pytest.approx(2 * math.pi * ring["ng"] / (b["wl_um"] * alpha), rel=1e-3)
    assert b["typed_loss_db_per_cm"] is None  # the default report's ring takes its loss from physics
    assert ring["q_intrinsic"] == pytest.approx(b["q_intrinsic_without_metal"], rel=1e-4)
    assert b["q_intrinsic"] < ring["q_intrinsic"]
    qs = [c["q_intrinsic"] for c in b["roughness_corners"].values()]
    assert min(qs) < b["q_intrinsic"] < max(qs)
    page = (report_dir / "report.html").read_text()
    assert "Ring loss by cause" in page and "the ring model counts absorption, scattering and bend" in page


def test_claims_filter_and_unknown_id():
    from prismpic.analysis.ledger.claim_texts import claim_text

    res = runner.invoke(app, ["claims", "S1-01"])
    assert res.exit_code == 0 and "S1-01" in res.output and "consistent" in res.output
    assert claim_text("S1-01")[:40] in res.output.replace("\n", " ")  # the claim's own text
    res = runner.invoke(app, ["claims", "S9-99"])
    assert res.exit_code == 2 and "S9-99" in res.output


def test_claims_explain_prints_assumptions_and_sensitivity():
    res = runner.invoke(app, ["claims", "S1-18", "--explain"])
    assert res.exit_code == 0, res.output
    # the driver-power flip: 300 W over 131,072 held voltages is 2.29 mW each
    assert "driver_static_mw" in res.output and "flips at 2.29 mW" in res.output and "depends" in res.output
    res = runner.invoke(app, ["claims", "--explain"])
    assert res.exit_code == 2 and "--explain" in res.output


# ---------------------------------------------------------------------------- version, layout, tables, sweep
def test_version():
    from importlib import metadata

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"prismpic {metadata.version('prismpic')} (gdsfactory {metadata.version('gdsfactory')}")


def test_layout_exits_3_with_a_summary_when_drc_fails(tmp_path, monkeypatch):
    """A ring drawn at the default 0.2 µm gap checked against a 0.25 µm minimum ridge gap: the gap at the coupler
    is a violation, the GDS is still written (for inspection), one summary line goes to stderr, exit code 3."""
    import dataclasses

    from prismpic.cli.layout import DRC_EXIT_CODE
    from prismpic.pdk import klayout_drc
    from prismpic.pdk.rules import RULES

    strict = dataclasses.replace(RULES, min_ridge_gap=0.25)
    real = klayout_drc.drc
    monkeypatch.setattr(klayout_drc, "drc", lambda c, rules=RULES, **kw: real(c, strict, **kw))
    out = tmp_path / "r.gds"
    res = CliRunner().invoke(app, ["layout", "ring_all_pass", "--out", str(out)])
    assert DRC_EXIT_CODE == 3 and res.exit_code == 3, res.output
    assert out.stat().st_size > 0
    summary = [line for line in res.stderr.splitlines() if line.startswith("DRC failed")]
    assert len(summary) == 1 and "ring_all_pass violates 1 rule: LN_RIDGE space < 0.25 µm" in summary[0]


def test_layout_gds_gets_the_umask_mode(tmp_path):
    import os
    import stat

    previous = os.umask(0o022)
    try:
        res = runner.invoke(app, ["layout", "straight", "--out", str(tmp_path / "s.gds")])
    finally:
        os.umask(previous)
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE((tmp_path / "s.gds").stat().st_mode) == 0o644  # 0o666 & ~0o022


def test_tables_writes_to_a_user_folder_unless_install(tmp_path, monkeypatch):
    """The default --out is ./prismpic-tables, the package folder only with --install (the build is replaced by a
    recorder: the real one takes about two hours)."""
    from pathlib import Path

    from prismpic.pdk import bend_radiation as br
    from prismpic.pdk import coupler_table as ct
    from prismpic.pdk import tables as tb

    calls = []
    reuse = []
    bend_calls = []
    coupler_calls = []
    monkeypatch.setattr(tb, "build_tables", lambda out_dir, progress=None, reuse_from=None:
                        calls.append(out_dir) or reuse.append(reuse_from) or {})
    monkeypatch.setattr(br, "build_table", lambda out_dir, progress=None, reuse_from=None:
                        bend_calls.append((out_dir, reuse_from)) or {})
    monkeypatch.setattr(ct, "build_table", lambda out_dir, progress=None, reuse_from=None:
                        coupler_calls.append((out_dir, reuse_from)) or {})
    monkeypatch.setattr(tb, "DATA_DIR", tmp_path / "package-data")  # the package's folder is not touched
    (tmp_path / "package-data").mkdir()
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["tables"])
    assert res.exit_code == 0, res.output
    assert calls == [Path("prismpic-tables")] and "package's tables are unchanged" in res.output
    res = runner.invoke(app, ["tables", "--install"])
    assert res.exit_code == 0 and calls[-1] == tmp_path / "package-data"
    res = runner.invoke(app, ["tables", "--install", "--out", str(tmp_path / "t")])
    assert res.exit_code == 2 and "exclude each other" in res.output and len(calls) == 2
    assert reuse == [tb.DATA_DIR, tb.DATA_DIR]  # the package's blocks are reused unless --no-reuse
    assert bend_calls == list(zip(calls, reuse, strict=True))  # the bend radiation table goes with them
    assert coupler_calls == bend_calls  # and the coupler tables
    res = runner.invoke(app, ["tables", "--no-reuse", "--out", str(tmp_path / "t")])
    assert res.exit_code == 0 and reuse[-1] is None


def _samples_per_fwhm(wl, through):
    """Grid points inside each resonance dip's full width at half depth (the dip's own samples, no model)."""
    import numpy as np

    half = (through.max() + through.min()) / 2
    inside = through < half
    edges = np.flatnonzero(np.diff(inside.astype(int)))
    runs = [(a + 1, b + 1) for a, b in zip(edges[::2], edges[1::2], strict=False) if inside[a + 1]]
    return [b - a for a, b in runs]


def test_sweep_default_grid_resolves_the_narrowest_resonance(tmp_path):
    """Gaps 0.2 and 0.4 µm: the weaker-coupled ring has the narrower line; every dip of both holds at least
    9 samples within its FWHM (a step ≤ FWHM/10, up to where the dip's edges fall between samples), where the old
    fixed 20 pm grid put 1 or 2 samples in the 0.4 µm ring's line. A model without a resonance keeps 1,001 points."""
    import numpy as np

    out = tmp_path / "g.npz"
    res = runner.invoke(app, ["sweep", "ring_all_pass", "--param", "gap=0.2,0.4", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "narrowest resonance FWHM" in res.output and "gap = 0.4" in res.output
    data = np.load(out)
    wl, values = data["wl_um"], data["values"]
    assert wl[0] == 1.54 and wl[-1] == 1.56
    for row in values:
        counts = _samples_per_fwhm(wl, row)
        assert counts and min(counts) >= 9, counts
    coarse = np.linspace(1.54, 1.56, 1001)
    coarse_counts = _samples_per_fwhm(coarse, np.interp(coarse, wl, values[1]))
    assert max(coarse_counts) <= 2
    res = runner.invoke(app, ["sweep", "straight", "--param", "length=10,20", "--out", str(tmp_path / "s.npz")])
    assert res.exit_code == 0 and "1,001 points" in res.output and np.load(tmp_path / "s.npz")["wl_um"].size == 1001
