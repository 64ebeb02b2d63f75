"""The command line: exit codes, one-line errors, no partial outputs."""

import json

import pytest
from typer.testing import CliRunner

from prismpic.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """One full ``prismpic report`` run (about a minute), shared by the report tests."""
    out = tmp_path_factory.mktemp("report") / "rep"
    res = runner.invoke(app, ["report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


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


def test_claims_filter_and_unknown_id():
    res = runner.invoke(app, ["claims", "S1-01"])
    assert res.exit_code == 0 and "S1-01" in res.output and "consistent" in res.output
    res = runner.invoke(app, ["claims", "S9-99"])
    assert res.exit_code == 2 and "S9-99" in res.output
