"""``prismpic transient``: the default ring's figures, and bad input as one line, exit 2, no output."""

from __future__ import annotations

import json
import math

import pytest
from scipy.constants import c as C_M_PER_S
from typer.testing import CliRunner

from prismpic.cli import app

runner = CliRunner()


def _one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.output
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.mark.parametrize("args, needles", [
    (["mzi_lattice"], ["CIRCUIT = 'mzi_lattice' has no time-domain models", "ring_add_drop"]),
    (["ring_add_drop", "--bit-rate", "1"], ["--bit-rate = 1", "valid range"]),
    (["ring_add_drop", "--bit-rate", "nan"], ["--bit-rate = nan", "valid range"]),
    (["ring_add_drop", "--symbols", "2"], ["--symbols = 2", "valid range"]),
    (["ring_add_drop", "--set", "samples_per_symbol=1"], ["samples_per_symbol = 1", "valid range"]),
    (["ring_add_drop", "--set", "bogus=1"], ["--set: unknown ring parameter(s) ['bogus']"]),
    (["prism_channel", "--set", "bogus=1"], ["--set bogus", "not an option of prism_channel"]),
    (["ptu_column", "--set", "d=4"], ["--set d", "not an option of ptu_column"]),
    (["ptu_column", "--set", "rows=0"], ["rows = 0"]),
    (["ptu_column", "--set", "swing_v=20"], ["swing_v = 20 V", "(0, 10] V"]),
])
def test_bad_input_is_one_line_exit_2_and_no_output(tmp_path, args, needles):
    out = tmp_path / "o"
    _one_line_error(runner.invoke(app, ["transient", *args, "--out", str(out)]), *needles)
    assert not out.exists()


def test_ring_add_drop_lifetime_steady_state_and_eye(tmp_path):
    from prismpic.components import rings

    out = tmp_path / "r"
    res = runner.invoke(app, ["transient", "ring_add_drop", "--symbols", "64", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "transient.json").read_text())
    spec = rings.ring_specs(1.55, "add_drop")
    expected = spec["q_loaded"] * spec["resonance_um"] * 1e-6 / (2 * math.pi * C_M_PER_S) * 1e12
    assert abs(data["photon_lifetime_ps"] / expected - 1) < 0.02
    assert data["steady_state_error"] <= 1e-3
    assert 0.0 <= data["eye_opening"] <= 1.0 and data["bit_rate_hz"] == 10e9
    # settling of the drop power to 1 %: the field relaxes at 1/(2τ_E); the power within 1 % after ≈ 2τ_E ln(200)
    assert 0.7 < data["settling_time_ps"] / (2 * expected * math.log(200)) < 1.3
    for name in ("waveforms.png", "eye.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ptu_column_writes_its_eye_and_the_column_node_bandwidth(tmp_path):
    """One PTU column at 5 GBd: the eye (0–1) of its analog sum and its blocks' bandwidths; 128 photodiodes on one
    wire are slower than one (their junctions in parallel)."""
    from prismpic.components import detectors

    out = tmp_path / "c"
    res = runner.invoke(app, ["transient", "ptu_column", "--bit-rate", "5e9", "--symbols", "64", "--set", "rows=16",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "transient.json").read_text())
    assert 0.0 < data["eye_opening"] <= 1.0 and data["rows"] == 16
    assert data["column_bandwidth_ghz"] == pytest.approx(float(detectors.detector_bandwidth_ghz(n_diodes=16)))
    assert data["column_bandwidth_ghz"] < float(detectors.detector_bandwidth_ghz())
    for name in ("waveforms.png", "eye.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _query_csv(path, rows, columns, bad=None):
    import numpy as np

    x = np.random.default_rng(1).uniform(0.0, 1.0, (rows, columns))
    if bad is not None:
        x[5, 3] = bad
    np.savetxt(path, x, delimiter=",", header=",".join(f"q{i}" for i in range(columns)), comments="")
    return x


def test_input_file_drives_the_channel_and_bad_files_are_refused_by_line(tmp_path):
    """``--input FILE``: the file's lines are the symbols, its columns the wavelengths (a 6-bit DAC by default)."""
    good = tmp_path / "q.csv"
    _query_csv(good, 48, 4)
    out = tmp_path / "c"
    res = runner.invoke(app, ["transient", "prism_channel", "--input", str(good), "--set", "d=4", "--bit-rate", "5e9",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "transient.json").read_text())
    assert data["symbols"] == 48 and data["dac_bits"] == 6 and data["queries"] == "--input file"
    for args, needles in (
        (["--input", str(tmp_path / "nan.csv")], ["nan.csv: line 7, column 'q3' holds nan", "[0, 1]"]),
        (["--input", str(tmp_path / "wide.csv")], ["wide.csv has 5 column(s)", "takes 4, one per wavelength"]),
        (["--input", str(good), "--symbols", "48"], ["give --symbols or --input, not both"]),
        (["--input", str(tmp_path / "missing.csv")], ["missing.csv", "not a readable file"]),
    ):
        _query_csv(tmp_path / "nan.csv", 48, 4, bad=float("nan"))
        _query_csv(tmp_path / "wide.csv", 48, 5)
        bad_out = tmp_path / "bad"
        _one_line_error(runner.invoke(app, ["transient", "prism_channel", "--set", "d=4", *args, "--out",
                                            str(bad_out)]), *needles)
        assert not bad_out.exists()
    _one_line_error(runner.invoke(app, ["transient", "ring_add_drop", "--input", str(good), "--out",
                                        str(tmp_path / "r")]), "--input applies to prism_channel and ptu_column")
