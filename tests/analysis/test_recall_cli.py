"""``prismpic recall``: tables and figures for each data source; bad input is one line and exit 2."""

import csv
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.analysis.recall import kv_data, minilm
from prismpic.cli import app

runner = CliRunner()


def test_synthetic_family_writes_tables_and_figures(tmp_path):
    out = tmp_path / "syn"
    res = runner.invoke(app, ["recall", "--synthetic", "planted", "--separation", "6", "--blocks", "128", "--d", "16",
                              "--trials", "256", "--weight-bits", "6", "--drift-common", "0.01", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "recall.json").read_text())
    rows = {r["case"]: r for r in data["rows"]}
    assert rows["float (no impairment) [per-ring]"]["recall"] == 1.0
    assert 0.0 < rows["configured"]["recall"] <= 1.0
    with open(out / "recall.csv") as f:
        assert len(list(csv.DictReader(f))) == len(data["rows"])
    for name in ("recall_vs_separation.png", "recall_vs_drift_split.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"


def test_kv_file_per_head_rows(tmp_path):
    r = np.random.default_rng(0)
    path = kv_data.save_kv(tmp_path / "c.npz", kv_data.KVCache(r.standard_normal((1, 1, 256, 16)),
                                                               r.standard_normal((1, 1, 12, 16))))
    out = tmp_path / "kv"
    res = runner.invoke(app, ["recall", "--kv", str(path), "--block-size", "16", "--scheme", "mean", "--scheme", "pca",
                              "--trials", "2", "--crosstalk-db", "-20", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = json.loads((out / "recall.json").read_text())["rows"]
    assert {r["scheme"] for r in rows} == {"mean", "pca"}
    ideal = [r for r in rows if r["case"] == "float (no impairment)"]
    assert all(r["recall_hardware"] == 1.0 for r in ideal)


@pytest.mark.parametrize(
    "args, match",
    [
        (["--synthetic", "planted", "--kv", "x.npz"], "exactly one of --kv, --minilm, --synthetic"),
        (["--synthetic", "gaussian", "--separation", "2"], "separation = 2 must be 0"),
        (["--synthetic", "nope"], "synthetic = 'nope'"),
        (["--synthetic", "planted", "--blocks", "4", "--k", "8"], "k = 8"),
        (["--synthetic", "planted", "--nep", "10", "--noise-rel", "0.1"], "--nep = 10 or --noise-rel"),
        (["--kv", "missing.npz"], "does not exist"),
        (["--kv", "BAD", "--block-size", "24"], "--block-size = 24 must divide n_tokens = 256"),
        (["--kv", "BAD", "--k", "99", "--block-size", "16"], "--k = 99 is outside"),
        (["--kv", "BAD", "--heads", "3:0"], "--heads '3:0'"),
        (["--kv", "NAN"], "'keys' holds NaN"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, match):
    r = np.random.default_rng(0)
    good = kv_data.save_kv(tmp_path / "c.npz", kv_data.KVCache(r.standard_normal((1, 1, 256, 16)),
                                                               r.standard_normal((1, 1, 4, 16))))
    with open(tmp_path / "nan.npz", "wb") as f:
        np.savez(f, keys=np.full((1, 1, 8, 4), np.nan), queries=np.zeros((1, 1, 2, 4)))
    args = [{"BAD": str(good), "NAN": str(tmp_path / "nan.npz")}.get(a, a) for a in args]
    out = tmp_path / "o"
    res = runner.invoke(app, ["recall", *args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert match in res.output and res.output.strip().count("\n") == 0, res.output
    assert not out.exists()


@pytest.mark.skipif(not minilm.extra_installed(), reason="needs the kv extra (.ci/run installs it)")
def test_minilm_source_with_needles(tmp_path):
    out = tmp_path / "mini"
    res = runner.invoke(app, ["recall", "--minilm", "python-docs", "--windows", "4", "--block-size", "16",
                              "--heads", "5:3", "--scheme", "pca", "--no-seed-cases", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = json.loads((out / "recall.json").read_text())["rows"]
    needle = [r for r in rows if r["case"] == "needle"]
    assert len(needle) == 1 and 0.0 <= needle[0]["full"] <= 1.0
    assert (out / "recall_per_head.png").exists()
