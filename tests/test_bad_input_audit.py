"""Issue 25 (silent garbage, crashes and wrong blame, correctness): each input that was accepted, crashed or blamed
the wrong parameter is refused with one ValueError naming the parameter (or option), the value and the valid range;
on the command line one line and exit code 2.

- lengths in cells: at least one database unit (1 nm) and inside the 32-bit layout coordinate range;
- the parameter given is the one blamed (an S-bend's offset, not its length);
- ``--params`` keys, PCM level files (every column, other kinds of file), KV files, MZM and EAM physics ranges;
- the weight programmer reaches the example's weights, or says which row it cannot reach.
"""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.checks import gds_limit_um
from prismpic.cli import app

runner = CliRunner()


def one_line_exit_2(args: list[str], *words: str) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, (args, res.output, res.exception)
    out = res.output.strip()
    assert out.count("\n") == 0 and "Traceback" not in out, out
    assert all(w in out for w in words), (words, out)
    return out


# ---------------------------------------------------------------------------- layout lengths
def test_layout_refuses_a_length_below_one_database_unit(tmp_path):
    """`layout straight --set length=1e-9` wrote a degenerate (−2 × −2 µm) GDS, "DRC: clean"."""
    out = tmp_path / "s.gds"
    one_line_exit_2(["layout", "straight", "--set", "length=1e-9", "--out", str(out)],
                    "length = 1e-09 µm", "[0.001,", "database unit")
    assert not out.exists()


TINY = [  # (cell, parameter, extra settings): lengths that built a degenerate or empty shape, or crashed in gdsfactory
    ("straight", "length", {}), ("taper", "length", {}), ("electrode_trace", "length", {}), ("heater", "length", {}),
    ("wire_straight", "length", {}), ("phase_shifter", "length", {}), ("eam", "absorber_length", {}),
    ("eam", "taper_length", {}), ("soa", "taper_length", {}), ("photodetector", "input_length", {}),
    ("photodetector", "lead_length", {}), ("y_splitter", "taper_length", {}), ("pcm_cell", "lead_length", {}),
    ("kv_loop_chip", "lead_length", {}), ("ptu", "ge_length", {"rows": 2, "cols": 2, "n_wavelengths": 2}),
    ("bend_circular", "angle", {}), ("bend_euler", "angle", {}),
]


@pytest.mark.parametrize("cell, param, extra", TINY)
def test_cells_refuse_sub_nanometre_lengths(pdk, cell, param, extra):
    with pytest.raises(ValueError, match=rf"^{param} = 1e-09 (µm|deg) is outside the valid range \["):
        pdk.cells[cell](**extra, **{param: 1e-9})


HUGE = [  # (cell, parameter, extra settings): built and silently clipped (or wrapped) to the coordinate range
    ("straight", "length", {}), ("taper", "length", {}), ("sbend", "length", {}),
    ("directional_coupler", "length", {}), ("directional_coupler", "bend_length", {}),
    ("y_splitter", "length", {}), ("y_splitter", "taper_length", {}), ("mzm", "length", {}),
    ("mzm", "transition_length", {}), ("phase_shifter", "length", {}), ("eam", "absorber_length", {}),
    ("heater", "length", {}), ("electrode_trace", "length", {}), ("soa", "taper_length", {}),
    ("photodetector", "lead_length", {}), ("balanced_photodetector", "lead_length", {}),
    ("pcm_cell", "lead_length", {}), ("kv_loop_chip", "lead_length", {}), ("splitter_tree", "pitch", {}),
    ("ptu", "row_pitch", {"rows": 2, "cols": 2, "n_wavelengths": 2}),
    ("ptu", "col_pitch", {"rows": 2, "cols": 2, "n_wavelengths": 2}),
]


@pytest.mark.parametrize("cell, param, extra", HUGE)
def test_cells_refuse_lengths_beyond_the_layout_range(pdk, cell, param, extra):
    with pytest.raises(ValueError, match=rf"^{param} = 1e\+12 µm is outside the valid range"):
        pdk.cells[cell](**extra, **{param: 1e12})


def test_a_cell_whose_lengths_add_up_beyond_the_range_is_refused(pdk):
    """Each length inside the range, their sum outside: refused with the call that built it."""
    length = gds_limit_um() - 5.0  # the contact beyond it reaches past the range
    with pytest.raises(ValueError, match=r"^heater\(length=2147478\.647\) extends to .* coordinate range"):
        pdk.cells["heater"](length=length)


def test_defaults_build_inside_the_range(pdk):
    from prismpic.checks import layout_extent_um

    for name in ("straight", "mzm", "splitter_tree", "directional_coupler"):
        assert 0 < layout_extent_um(pdk.cells[name]()) < 1e4


# ---------------------------------------------------------------------------- the parameter given is blamed
@pytest.mark.parametrize("cell, kw, blamed", [
    ("y_splitter", {"output_separation": 1e300}, "output_separation = 1e+300 µm is outside the valid range"),
    ("directional_coupler", {"dy": 1e300}, "dy = 1e+300 µm is outside the valid range"),
    ("splitter_tree", {"output_separation": 1e12}, "output_separation = 1e+12 µm is outside the valid range"),
    ("pad_array", {"size": 1e12}, "size = 1e+12 µm is outside the valid range"),
    ("kv_loop_chip", {"dy": 1e12}, "dy = 1e+12 µm is outside the valid range"),
])
def test_the_parameter_given_is_blamed(pdk, cell, kw, blamed):
    with pytest.raises(ValueError, match="^" + blamed.replace("+", r"\+")):
        pdk.cells[cell](**kw)


def test_an_offset_inside_its_range_is_named_beside_the_length_it_needs(pdk):
    from prismpic.components.couplers import directional_coupler_model, y_splitter_model

    with pytest.raises(ValueError, match=r"^length = 30 µm is outside .* for output_separation = 10000 µm"):
        pdk.cells["y_splitter"](output_separation=1e4)
    with pytest.raises(ValueError, match=r"^bend_length = 40 µm is outside .* for dy = 5000 µm"):
        directional_coupler_model(dy=5e3)
    with pytest.raises(ValueError, match=r"^output_separation = 1e\+300 µm"):
        y_splitter_model(output_separation=1e300)


def test_pcm_width_range_follows_a_valid_width():
    """`calibrate pcm --set width=-1` printed "pcm_width = 1 µm is outside the valid range [0.2, −1] µm"."""
    from prismpic.analysis import calibration as cal

    with pytest.raises(ValueError, match=r"^width = -1 µm is outside the valid range \[0\.25, "):
        cal.calibrate_pcm([0.9], design={"width": -1.0})


# ---------------------------------------------------------------------------- model physics ranges
def test_mzm_bias_phase_is_bounded_and_nan_under_jit():
    from prismpic.components.modulators import MAX_BIAS_PHASE_RAD, mzm_model

    with pytest.raises(ValueError, match=r"^bias_phase_rad = 1e\+300 rad is outside the valid range \[-12\.5664, "
                                         r"12\.5664\] rad"):
        mzm_model(bias_phase_rad=1e300)
    t = jax.jit(lambda b: mzm_model(bias_phase_rad=b)[("o1", "o2")])
    assert np.isnan(complex(t(1e300)))
    assert np.isfinite(complex(t(MAX_BIAS_PHASE_RAD)))


# ---------------------------------------------------------------------------- --params keys
def test_params_with_an_unknown_key_is_refused(tmp_path):
    """A --params file with "rnig" instead of "ring" ran the default ring."""
    from prismpic.analysis.calibration import load_params

    f = tmp_path / "p.json"
    f.write_text(json.dumps({"schema": "prismpic.params/1", "rnig": {"gap": 0.25}}))
    with pytest.raises(ValueError, match=r"unknown key 'rnig' \(did you mean 'ring'\?\); valid keys: \["):
        load_params(f)
    out = tmp_path / "rep"
    one_line_exit_2(["report", "--params", str(f), "--out", str(out)], "'rnig'", "'ring'")
    assert not out.exists()


def test_every_key_a_calibration_writes_is_accepted(tmp_path):
    """The ring, MZM and PCM parameter files read back (the keys are ``results.PARAM_KEYS``)."""
    from prismpic.analysis import calibration as cal
    from prismpic.analysis.calibration.results import PARAM_KEYS
    from prismpic.components import modulators, pcm

    ring = cal.calibrate_ring_specs(8.3, 12500, 15.0, radius=20.0)
    t0 = float(pcm.transmission_db(1.55, 0.0))
    levels = cal.calibrate_pcm(10 ** ((np.array([float(pcm.transmission_db(1.55, f)) for f in (0.2, 0.7)]) - t0) / 10))
    v = np.linspace(-20.0, 20.0, 41)
    t = np.abs(np.asarray(modulators.mzm_model(1.55, voltage_v=v, bias_phase_rad=0.3)[("o1", "o2")])) ** 2
    mzm = cal.calibrate_mzm(v, t)
    for name, res in (("ring", ring), ("pcm", levels), ("mzm", mzm)):
        params = res.to_params()
        assert set(params) <= PARAM_KEYS, (name, set(params) - PARAM_KEYS)
        assert cal.load_params(res.write(tmp_path / f"{name}.json"))["schema"] == "prismpic.params/1"


# ---------------------------------------------------------------------------- PCM level files
def _levels(tmp_path, text: str):
    f = tmp_path / "lv.csv"
    f.write_text(text)
    return f


def test_an_mzm_curve_is_not_read_as_pcm_levels(tmp_path):
    """An MZM transfer curve given to `calibrate pcm --levels` was fitted as 81 PCM levels."""
    v = np.linspace(-10, 10, 81)
    f = _levels(tmp_path, "voltage_v,transmission\n" + "".join(f"{float(x)!r},{float(0.5 + 0.4 * np.cos(x / 2))!r}\n"
                                                                 for x in v))
    out = tmp_path / "p.json"
    one_line_exit_2(["calibrate", "pcm", "--levels", str(f), "--out", str(out)],
                    "lv.csv", "'voltage_v'", "MZM transfer curve", "calibrate mzm")
    assert not out.exists()


@pytest.mark.parametrize("text, words", [
    ("level,transmission_db,wavelength_um\n0,-0.5,5.0\n1,-1.0,5.0\n",
     ["column wavelength_um = 5 µm at line 2", "[1.5, 1.6] µm", "GSST"]),
    ("level,transmission_db,wavelength_nm\n0,-0.5,1300\n1,-1.0,1300\n",
     ["column wavelength_nm = 1300 nm at line 2", "[1500, 1600] nm"]),
    ("level,transmission_db,wavelength\n0,-0.5,1.55\n1,-1.0,1.55\n", ["unknown column 'wavelength'", "wavelength_um"]),
    ("level,transmission_db\n0,-0.5\n-3,-1.0\n", ["column level = -3 at line 3", "[0, 65535]"]),
    ("wavelength_nm,through\n1550,0.5\n1551,0.4\n", ["'through'", "ring spectrum"]),
])
def test_every_pcm_column_is_range_checked(tmp_path, text, words):
    from prismpic.analysis import calibration as cal

    f = _levels(tmp_path, text)
    with pytest.raises(ValueError) as e:
        cal.calibrate_pcm_csv(f)
    assert all(w in str(e.value) for w in words), str(e.value)
    one_line_exit_2(["calibrate", "pcm", "--levels", str(f), "--out", str(tmp_path / "p.json")], words[0])


# ---------------------------------------------------------------------------- KV files
def test_a_corrupt_npz_is_one_line_naming_kv_and_the_file(tmp_path):
    """`recall --kv` on a corrupt .npz was "internal error (BadZipFile)", exit 1."""
    from prismpic.analysis.recall import kv_data

    f = tmp_path / "bad.npz"
    f.write_bytes(b"PK\x03\x04 not really a zip file")
    with pytest.raises(ValueError, match=r"^KV file 'bad.npz' is not a readable \.npz \(BadZipFile: "):
        kv_data.load_kv(f)
    one_line_exit_2(["recall", "--kv", str(f), "--out", str(tmp_path / "o")], "--kv", "'bad.npz'", "not a readable")
    r = np.random.default_rng(0)
    good = kv_data.save_kv(tmp_path / "g.npz", kv_data.KVCache(r.standard_normal((1, 1, 16, 4)),
                                                               r.standard_normal((1, 1, 2, 4))))
    data = good.read_bytes()
    for cut in (len(data) // 2, len(data) - 30):  # truncated
        f.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="is not a readable .npz"):
            kv_data.load_kv(f)


# ---------------------------------------------------------------------------- weight programming
def _six_channel_bank():
    from prismpic.circuits.bank_model import bank_radii, channel_plan_um

    ch = channel_plan_um(6, spacing_nm=1.6)  # 8 nm: ring 0's next order lies 0.18 nm from channel 5
    return ch, bank_radii(ch)


def test_weights_the_one_sided_start_missed_are_reached():
    """The 8×8 prototype's example printed "programming residual 0.93": from the all-positive detuning start,
    rows whose rings alias onto another channel stall; the detuning-direction search reaches them."""
    from prismpic.circuits.weight_programming import program_weights, weight_gain

    ch, radii = _six_channel_bank()
    g = weight_gain(ch, radii)
    targets = np.array([[-0.83, -0.53, 0.6, 0.16, -0.81, -0.13],  # both stall (0.1, 0.6) from the one-sided start
                        [-0.4, 0.48, 0.44, -0.56, 0.66, 0.32]])
    volts, residual = program_weights(targets, ch, radii, gain=g)
    assert residual < 1e-9 * g
    # gain 1.3 asks row 0's −0.83 for a raw weight of −1.08, below −|T|² ≥ −1: no passive ring reaches it
    with pytest.raises(ValueError, match=r"targets row \d cannot be programmed: ring \d \(15\d\d\.\d{3} nm\) stays "):
        program_weights(targets, ch, radii, gain=1.3)
    _, far = program_weights(targets, ch, radii, gain=1.3, tol=None)
    assert far >= 0.83 * 1.3 - 1  # at least the 1.079 − 1 it cannot go below


def test_no_common_weight_scale_is_refused():
    """16 channels at 1.6 nm span three free spectral ranges: the 'gain' came out negative (−0.66)."""
    from prismpic.circuits.bank_model import bank_radii, channel_plan_um
    from prismpic.circuits.weight_programming import weight_gain

    ch = channel_plan_um(16, spacing_nm=1.6)
    with pytest.raises(ValueError, match=r"^no common weight scale g > 0: .* at 200 V .*check_channel_plan"):
        weight_gain(ch, bank_radii(ch))

