"""``prismpic sweep MODEL --out FILE.sNp``: Touchstone out of any registered model (the touchstone model included);
bad input one line, exit 2, nothing written."""

import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.cli import app
from prismpic.components import touchstone as ts
from prismpic.components import waveguides

runner = CliRunner()
C = 299_792_458.0  # m/s (SI, exact)


def one_line_error(res, *parts):
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    for p in parts:
        assert p in lines[0], (p, lines[0])


def test_sweep_writes_touchstone_that_reads_back(tmp_path):
    out = tmp_path / "wg.s2p"
    res = runner.invoke(app, ["sweep", "straight", "--set", "length=250", "--wl", "1.55:1.551:11", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Touchstone order: 1 = o1, 2 = o2" in res.output
    text = out.read_text()
    assert '! prismpic' in text and 'straight {"length": 250}' in text
    wl = np.linspace(1.55, 1.551, 11)
    f = np.array([float(line.split()[0]) for line in text.splitlines() if line and line[0].isdigit()])
    np.testing.assert_allclose(f, C / (wl[::-1] * 1e-6) / 1e9, rtol=1e-15)  # GHz, ascending
    data = ts.read_touchstone(out)
    t = np.asarray(waveguides.straight_model(wl, length=250.0)[("o1", "o2")])
    np.testing.assert_allclose(data.s[:, 1, 0], t, atol=1e-12)
    np.testing.assert_allclose(data.s[:, 0, 1], t, atol=1e-12)
    np.testing.assert_allclose(data.s[:, 0, 0], 0, atol=0)

    # the file again through the netlist model `touchstone`: the same numbers
    again = tmp_path / "again.s2p"
    res = runner.invoke(app, ["sweep", "touchstone", "--set", f"path={out}", "--wl", "1.55:1.551:11",
                              "--out", str(again)])
    assert res.exit_code == 0, res.output
    np.testing.assert_allclose(ts.read_touchstone(again).s, data.s, atol=1e-12)


@pytest.mark.parametrize("args, parts", [
    (["ring_all_pass", "--out", "{d}/r.s4p"], ["r.s4p", "holds 4 port(s)", "ring_all_pass has 2", ".s2p"]),
    (["ring_all_pass", "--out", "{d}/r.s0p"], ["r.s0p", ".sNp"]),
    (["ring_all_pass", "--out", "{d}/r.s2p", "--param", "gap=0.2,0.3"], ["--param does not apply", "r.s2p"]),
    (["ring_all_pass", "--out", "{d}/r.s2p", "--figure", "{d}/r.png", "--port", "o1,o2"],
     ["--port, --figure do not apply"]),
    (["ring_all_pass", "--out", "{d}/r.csv"], ["--param is needed", "r.csv"]),
    (["ring_all_pass", "--out", "{d}/r.s2p", "--wl", "1.55,1.55"], ["--wl", "given twice"]),
    (["ring_all_pass", "--out", "{d}/r.s2p", "--set", "gap=-1", "--wl", "1.55:1.551:3"], ["gap"]),
    (["touchstone", "--set", "path={d}/missing.s2p", "--out", "{d}/r.s2p", "--wl", "1.55:1.551:3"],
     ["missing.s2p", "does not exist"]),
    (["touchstone", "--set", "path={d}/bad.s2p", "--out", "{d}/r.s2p", "--wl", "1.55:1.551:3"],
     ["bad.s2p", "does not parse"]),
    (["touchstone", "--set", "path={d}/gain.s2p", "--out", "{d}/r.s2p", "--wl", "1.55:1.551:3"],
     ["gain.s2p", "has gain", "1.15"]),
    (["touchstone", "--set", "path={d}/down.s2p", "--out", "{d}/r.s2p", "--wl", "1.55:1.551:3"],
     ["down.s2p", "increase strictly"]),
    (["touchstone", "--set", "path={d}/ok.s2p", "--set", "ports=a,b,c", "--out", "{d}/r.s2p", "--wl", "1.55:1.551:3"],
     ["ok.s2p", "declares 3 port(s)"]),
    (["touchstone", "--set", "path={d}/ok.s2p", "--out", "{d}/r.s2p", "--wl", "1.5:1.51:3"],
     ["ok.s2p", "outside the band", "does not extrapolate"]),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, args, parts):
    (tmp_path / "bad.s2p").write_text("not a touchstone file\n")
    (tmp_path / "gain.s2p").write_text("# GHz S MA R 50\n193000 0.1 0 1.05 0 1.05 0 0.1 0\n"
                                       "193100 0.1 0 1.04 0 1.04 0 0.1 0\n")
    (tmp_path / "down.s2p").write_text("# GHz S MA R 50\n193100 0.1 0 0.9 0 0.9 0 0.1 0\n"
                                       "193000 0.1 0 0.9 0 0.9 0 0.1 0\n")
    # ok.s2p spans 193.1–193.7 THz = 1.5478–1.5525 µm
    (tmp_path / "ok.s2p").write_text("# GHz S MA R 50\n193100 0.1 0 0.9 0 0.9 0 0.1 0\n"
                                     "193700 0.1 0 0.9 10 0.9 10 0.1 0\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    res = runner.invoke(app, ["sweep", *[a.format(d=tmp_path) for a in args]])
    one_line_error(res, *parts)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
