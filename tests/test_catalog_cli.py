"""``prismpic list`` and ``prismpic info``: the registered cells, models and circuits, and one cell in detail."""

import inspect
import json

import pytest
from typer.testing import CliRunner

from prismpic.circuits.registry import circuits
from prismpic.cli import app
from prismpic.cli.catalog import arg_docs, unit_from_name, unit_in
from prismpic.pdk_registry import cells, models

runner = CliRunner()


def test_list_names_every_registered_cell_model_and_circuit():
    res = runner.invoke(app, ["list", "--json"])
    assert res.exit_code == 0, res.output
    found = json.loads(res.stdout)
    assert [r["name"] for r in found["cells"]] == list(cells())
    assert [r["name"] for r in found["models"]] == list(models())
    assert [r["name"] for r in found["circuits"]] == list(circuits())
    kinds = {r["name"]: r["kind"] for r in found["cells"]}
    assert kinds["ring_all_pass"] == "device" and kinds["pad"] == "electrical" and kinds["prism_bank"] == "circuit"
    res = runner.invoke(app, ["list", "models"])
    assert res.exit_code == 0 and res.stdout.startswith(f"models ({len(models())}):")
    assert "ring_add_drop" in res.stdout and "cells (" not in res.stdout
    assert all(len(line) <= 80 for line in res.stdout.splitlines())  # CliRunner's terminal: 80 columns


def test_list_rejects_an_unknown_kind():
    res = runner.invoke(app, ["list", "gadgets"])
    assert res.exit_code == 2 and "kind = 'gadgets'" in res.output and len(res.output.strip().splitlines()) == 1


def test_info_ring_all_pass_ports_parameters_model_and_drc():
    """Ports where the ring's geometry puts them: the bus centre at y = −(R + w/2 + gap + w/2) below the ring's
    centre, its ends at x = ±bus_length/2 with the default bus length 2(R + w + slab margin); electrical ports facing
    out (270°, 90°). Units from the docstrings; the sidewall default is the stack's."""
    from prismpic.components.rings import ring_all_pass
    from prismpic.pdk.cross_sections import SLAB_MARGIN
    from prismpic.pdk.stack import SIDEWALL_ANGLE_DEG

    res = runner.invoke(app, ["info", "ring_all_pass", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    defaults = {p["name"]: p["default"] for p in info["parameters"]}
    r, w, gap = defaults["radius"], defaults["width"], defaults["gap"]
    assert defaults == {k: v.default for k, v in inspect.signature(ring_all_pass).parameters.items()}
    ports = {p["name"]: p for p in info["ports"]}
    half = r + w + SLAB_MARGIN
    assert (ports["o1"]["x"], ports["o1"]["y"], ports["o1"]["orientation"]) == pytest.approx((-half, -(r + w + gap), 180))
    assert (ports["o2"]["x"], ports["o2"]["y"], ports["o2"]["orientation"]) == pytest.approx((half, -(r + w + gap), 0))
    assert ports["o1"]["width"] == pytest.approx(w) and ports["o1"]["cross_section"] == "xs_ridge"
    assert ports["o1"]["type"] == "optical" and ports["e1"]["type"] == "electrical"
    assert (ports["e1"]["orientation"], ports["e2"]["orientation"]) == (270, 90)
    assert ports["e1"]["x"] == pytest.approx(0) and ports["e1"]["y"] == pytest.approx(-ports["e2"]["y"])
    units = {p["name"]: p["unit"] for p in info["parameters"]}
    assert units["radius"] == units["gap"] == "µm" and units["electrode_coverage"] == ""
    model = info["model"]
    assert model["function"] == "prismpic.components.rings.ring_all_pass_model" and model["ports"] == ["o1", "o2"]
    mp = {p["name"]: p for p in model["parameters"]}
    assert mp["wl"]["unit"] == "µm" and mp["loss_db_per_cm"]["unit"] == "dB/cm" and mp["voltage_v"]["unit"] == "V"
    assert mp["sidewall_angle_deg"]["default"] == SIDEWALL_ANGLE_DEG and mp["sidewall_angle_deg"]["unit"] == "°"
    assert mp["cladding"]["unit"] == "" and mp["radius"]["from_cell"] and not mp["voltage_v"]["from_cell"]
    assert info["drc"]["clean"] and info["drc"]["violations"] == []


def test_info_text_and_a_circuit_without_a_model():
    res = runner.invoke(app, ["info", "ptu", "--set", "rows=2", "--set", "cols=2", "--set", "n_wavelengths=2",
                              "--no-drc"])
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert text.startswith("ptu: ") and "with rows = 2, cols = 2, n_wavelengths = 2" in text
    assert "model: none" in text and "fast model: prismpic.circuits.ptu_model.ptu_fast" in text and "DRC" not in text


@pytest.mark.parametrize("args, tokens", [(["info", "no_such_cell"], ["name = 'no_such_cell'", "ring_all_pass"]),
                                          (["info", "ring_all_pass", "--set", "radius=abc"], ["radius", "number"]),
                                          (["info", "ring_all_pass", "--set", "radius=1"], ["radius = 1"])])
def test_info_bad_input_is_one_line_exit_2(args, tokens):
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
    assert all(t in res.output for t in tokens), res.output


def test_units_from_docstrings_and_names():
    def f(wl=1.55, *, a, b, c, d=0.0):
        """Example.

        Args:
            wl: wavelength (µm).
            a, b,
                c: shared entry (µm).
            d: wall angle from the horizontal (°; 90 = vertical).
        """

    docs = arg_docs(f)
    assert set(docs) == {"wl", "a", "b", "c", "d"} and docs["c"] == "shared entry (µm)."
    assert unit_in(docs["d"]) == "°" and unit_in("fraction of the circumference, in [0.1, 1]") is None
    assert [unit_from_name(n) for n in ("loss_db_per_cm", "voltage_v", "delta_t_k", "length_m", "gap")] == [
        "dB/cm", "V", "K", "m", None]
