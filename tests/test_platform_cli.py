"""Platform presets on the command line beyond ``sweep`` and ``mode``: ``layout`` draws for the preset's stack,
``lvs`` rebuilds the schematic on it, ``info`` shows the defaults it gives, ``calibrate`` starts its fit from it; a
name that is not a preset, or a preset where none applies, is one line and exit code 2."""

import json

import pytest
from typer.testing import CliRunner

from prismpic.cli import app

runner = CliRunner()
BANK = ["--set", "n_channels=1", "--set", "d=2"]


def _one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output, res.output
    for n in needles:
        assert n in lines[0], lines[0]


def test_layout_on_the_preset_is_what_lvs_rebuilds_on_it_and_not_the_default(tmp_path):
    gds = tmp_path / "bank.gds"
    res = runner.invoke(app, ["layout", "prism_bank", *BANK, "--platform", "tfln400", "--out", str(gds)])
    assert res.exit_code == 0, res.output
    via_set = tmp_path / "bank_set.gds"
    res = runner.invoke(app, ["layout", "prism_bank", *BANK, "--set", "platform=tfln400", "--out", str(via_set)])
    assert res.exit_code == 0, res.output
    assert gds.read_bytes() == via_set.read_bytes()
    clean = runner.invoke(app, ["lvs", str(gds), "--circuit", "prism_bank", *BANK, "--platform", "tfln400"])
    assert clean.exit_code == 0, clean.output
    # against the default stack's schematic both rings have other radii
    wrong = runner.invoke(app, ["lvs", str(gds), "--circuit", "prism_bank", *BANK])
    assert wrong.exit_code == 3, wrong.output
    radius_lines = [x for x in wrong.stdout.splitlines() if x.startswith("parameters") and "radius" in x]
    assert len(radius_lines) == 2, wrong.stdout


def test_info_shows_the_defaults_the_preset_gives_cell_and_model():
    res = runner.invoke(app, ["info", "mzm", "--platform", "tfln400", "--no-drc", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    params = {p["name"]: p for p in data["model"]["parameters"]}
    for name, value in dict(film_thickness=0.4, etch_depth=0.2, sidewall_angle_deg=76.5, cladding="sio2",
                            electrode_height=1.0).items():
        assert params[name]["default"] == pytest.approx(value) if name != "cladding" else params[name]["default"] == value
        assert params[name]["from_platform"]
    assert not params["length"].get("from_platform")
    assert data["platform"]["name"] == "tfln400" and set(data["platform"]["outside_tables"]) == {"tm"}
    text = runner.invoke(app, ["info", "mzm", "--set", "platform=tfln400", "--no-drc"])
    assert text.exit_code == 0 and "platform: tfln400" in text.stdout
    assert any(line.split()[:4] == ["electrode_height", "1", "µm", "platform"] for line in text.stdout.splitlines())


def test_calibrate_design_takes_the_preset_under_the_users_values():
    from prismpic.cli.calibrate import _design
    from prismpic.components import rings

    got = _design(["gap=0.25", "film_thickness=0.45"], "tfln400", rings.ring_add_drop_model)
    assert got == dict(film_thickness=0.45, etch_depth=0.2, sidewall_angle_deg=76.5, cladding="sio2",
                       loss_db_per_cm=None, electrode_height=1.0, gap=0.25)
    assert _design(["gap=0.25"]) == {"gap": 0.25}


@pytest.mark.parametrize("args, needles", [
    (["layout", "ring_add_drop", "--platform", "lnoi999"], ["--platform = 'lnoi999' is not a platform preset"]),
    (["layout", "ring_add_drop", "--set", "platform=lnoi999"], ["--set platform = 'lnoi999' is not a platform"]),
    (["layout", "ring_add_drop", "--platform", "tfln400", "--set", "platform=prismpic"], ["disagree"]),
    (["info", "ring_add_drop", "--platform", "lnoi999"], ["--platform = 'lnoi999' is not a platform preset"]),
    (["info", "ring_add_drop", "--set", "platform=lnoi999"], ["--set platform = 'lnoi999'"]),
    (["calibrate", "ring", "--out", "o.json", "--fsr", "8", "--q", "1e4", "--er", "10", "--platform", "lnoi999"],
     ["--platform = 'lnoi999'"]),
    (["calibrate", "ring", "--out", "o.json", "--spectrum", "s.csv", "--line-shape-only", "--platform", "tfln400"],
     ["--line-shape-only runs none"]),
    (["calibrate", "mzm", "--out", "o.json", "--spectrum", "s.csv", "--set", "platform=lnoi999"],
     ["--set platform = 'lnoi999'"]),
    (["transient", "ring_add_drop", "--out", "o", "--platform", "lnoi999"], ["--platform = 'lnoi999'"]),
    # the 400 nm film etched 200 nm sits on the tables' etch/film = 0.5 edge: a fit of film and etch has no room
    (["calibrate", "ring", "--out", "o.json", "--fsr", "8.39", "--q", "3342", "--er", "4.27", "--platform", "tfln400"],
     ["design film_thickness = 0.4: the process and the dispersion tables leave it no room to fit", "etch/film 0.5"]),
    (["transient", "prism_channel", "--out", "o", "--platform", "tfln400"], ["a preset applies to ring_add_drop"]),
])
def test_a_wrong_preset_is_one_line_and_exit_2(tmp_path, monkeypatch, args, needles):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text("wavelength_nm,through\n1550,0.5\n")
    _one_line_error(runner.invoke(app, args), *needles)
    assert not any((tmp_path / name).exists() for name in ("o.json", "o", "layouts"))
