"""The command line: exit codes, one-line errors, no partial outputs."""

import json

from typer.testing import CliRunner

from prismpic.cli import app

runner = CliRunner()


def test_report_writes_json_and_html(tmp_path):
    out = tmp_path / "rep"
    res = runner.invoke(app, ["report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "report.json").read_text())
    assert data["platform"]["ng_te_z"] > data["platform"]["neff_te_z"]
    assert (out / "report.html").read_text().startswith("<!doctype html>")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rep")], "temporary folders left behind"


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
