"""Fuzzing every command: a valid invocation with one option replaced by a random bad value must exit with code 2,
print one error line naming the option or parameter (values literally, no markup), no traceback, and leave no file.

Each example starts from a valid command line (it would run the work) and breaks one slot: a random name, a
malformed or ill-typed value, a number outside the valid range, or an output path that cannot be written (missing
parent, a file as parent, an existing folder, a wrong suffix, a read-only folder). Budgets are multiples of the
hypothesis profile's ``max_examples`` (tests/conftest.py: "ci" by default, ``--fuzz-long`` for 50 times more).
"""

import contextlib
import math
import os
import re
import shutil
import string
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from prismpic.cli import app

runner = CliRunner()
N = settings.default.max_examples
NAME_CHARS = string.ascii_letters + string.digits + "_-[]:*"
names = st.text(NAME_CHARS, min_size=1, max_size=12).filter(lambda s: not s.startswith("-"))
finite_huge = st.floats(min_value=2.2e6, max_value=1e300) | st.floats(min_value=-1e300, max_value=-2.2e6)
non_finite = st.sampled_from(["NaN", "Infinity", "-Infinity"])
def _is_float(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


junk_text = st.text(string.ascii_letters + "%@!:[]/ ", min_size=1, max_size=10).filter(
    lambda s: s.strip() and not s.strip().startswith("-") and not _is_float(s))  # "inf", "NaN" are floats


@pytest.fixture(scope="module")
def area(tmp_path_factory):
    """Inputs shared by the examples (valid measurement files, a file to use as a parent) and a folder for outputs."""
    root = tmp_path_factory.mktemp("fuzz_cli")
    wl = np.linspace(1549.0, 1551.0, 64)
    t = 1 - 0.9 / (1 + ((wl - 1550.0) / 0.05) ** 2)
    (root / "spec.csv").write_text("wavelength_nm,through\n" + "".join(f"{float(a)!r},{float(b)!r}\n"
                                                                       for a, b in zip(wl, t, strict=True)))
    v = np.linspace(-10, 10, 41)
    (root / "mzm.csv").write_text("voltage_v,transmission\n" + "".join(
        f"{float(x)!r},{float(0.5 + 0.4 * np.cos(x / 2))!r}\n" for x in v))
    (root / "levels.csv").write_text("level,transmission_db\n0,-0.5\n1,-1.0\n")
    (root / "afile").write_text("x")
    (root / "params.json").write_text('{"schema": "prismpic.params/1", "ring": {"gap": 0.25}}')
    return root


@contextlib.contextmanager
def example_dir(area: Path):
    """A fresh folder for one example's outputs, removed afterwards."""
    d = Path(tempfile.mkdtemp(dir=area, prefix="ex"))
    try:
        yield d
    finally:
        for p in d.rglob("*"):
            with contextlib.suppress(OSError):
                p.chmod(0o755)
        shutil.rmtree(d, ignore_errors=True)


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def run_bad(area: Path, args: list[str], tokens, prepare=None, readonly: Path | None = None):
    """Invoke with ``args`` (``{ex}`` replaced by a fresh folder); assert exit 2, one error line holding one of
    ``tokens`` (strings, ``{ex}`` replaced too), no traceback, and no new file anywhere in the area."""
    with example_dir(area) as ex, pytest.MonkeyPatch.context() as mp:
        args = [a.replace("{ex}", str(ex)) for a in args]
        tokens = [t.replace("{ex}", str(ex)) for t in tokens]
        if prepare:
            prepare(ex)
        if readonly is not None or any("/ro/" in a for a in args):
            ro = ex / "ro"
            ro.mkdir(exist_ok=True)
            ro.chmod(0o555)
            real = os.access
            mp.setattr(os, "access", lambda p, m, *a, **k: False if m & os.W_OK and Path(p).resolve() == ro.resolve()
                       else real(p, m, *a, **k))
        before = tree(area)
        res = runner.invoke(app, args)
        after = tree(area)
    out = res.output
    assert res.exit_code == 2, (args, out, res.exception)
    assert "Traceback" not in out and (res.exception is None or isinstance(res.exception, SystemExit)), (args, out)
    errors = [ln for ln in out.splitlines() if ln.startswith(("error: ", "Error: "))]
    assert len(errors) == 1, (args, out)
    assert any(t in errors[0] for t in tokens), (args, tokens, errors[0])
    assert after == before, (args, sorted(after - before))


def bad_file_out(suffixes: tuple[str, ...]):
    """(path template, tokens, prepare) of an output file that must be refused."""
    def make(kind, name, bad_suffix):
        stem = name + suffixes[0]
        if kind == "missing_parent":
            return "{ex}/nope/" + stem, None
        if kind == "file_parent":
            return "{ex}/afile/" + stem, lambda ex: (ex / "afile").write_text("x")
        if kind == "existing_dir":
            return "{ex}/" + stem, lambda ex: (ex / stem).mkdir()
        if kind == "readonly":
            return "{ex}/ro/" + stem, None
        return "{ex}/" + name + bad_suffix, None

    bad_suffixes = st.sampled_from(["", ".txt", ".bak", ".gds.tmp", ".jsonx", ".png", ".csv", ".npz", ".JSON5"])
    return st.builds(make, st.sampled_from(["missing_parent", "file_parent", "existing_dir", "readonly", "suffix"]),
                     names, bad_suffixes.filter(lambda s: s.lower() not in suffixes))


def bad_dir_out():
    def make(kind, name):
        if kind == "missing_parent":
            return "{ex}/nope/" + name, None
        if kind == "file_parent":
            return "{ex}/afile/" + name, lambda ex: (ex / "afile").write_text("x")
        if kind == "is_file":
            return "{ex}/" + name, lambda ex: (ex / name).write_text("x")
        return "{ex}/ro/" + name, None

    return st.builds(make, st.sampled_from(["missing_parent", "file_parent", "is_file", "readonly"]), names)


def set_item(data, numeric: list[str], positive: list[str], known: list[str], huge: bool = False,
             tiny: list[str] = ()):
    """A bad ``--set`` item and the tokens its message must hold; ``huge``: values beyond the layout coordinate
    range too (refused by ``layout`` for any numeric cell parameter; a model's length is not bounded by it);
    ``tiny``: parameters (drawn lengths) that refuse positive values below the 1 nm database unit."""
    kinds = ["malformed", "unknown", "typed", "non_finite", "negative"] + (["huge"] if huge else []) + (
        ["tiny"] if tiny else [])
    kind = data.draw(st.sampled_from(kinds))
    if kind == "tiny":
        key = data.draw(st.sampled_from(list(tiny)))
        return f"{key}={data.draw(st.floats(1e-300, 9.99e-4)):g}", [key]
    if kind == "malformed":
        item = data.draw(st.text(NAME_CHARS + " ", min_size=1, max_size=10).filter(lambda s: "=" not in s))
        return item, ["--set"]
    if kind == "unknown":
        key = data.draw(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(lambda s: s not in known))
        return f"{key}=1", [key]
    if kind == "negative" and positive:
        key = data.draw(st.sampled_from(positive))
        return f"{key}={-data.draw(st.floats(1e-3, 1e3)):g}", [key]
    key = data.draw(st.sampled_from(numeric))
    value = {"typed": lambda: data.draw(st.sampled_from(["abc", "[1,2]", "true", '"1"', "{}", "1,2", "a:b:3"])),
             "non_finite": lambda: data.draw(non_finite),
             "huge": lambda: repr(data.draw(finite_huge)),
             "negative": lambda: data.draw(non_finite)}[kind]()
    return f"{key}={value}", [key]


# ---------------------------------------------------------------------------- layout
LAYOUT_CELLS = ["straight", "bend_euler", "taper", "sbend", "directional_coupler", "y_splitter", "ring_all_pass",
                "ring_add_drop", "phase_shifter", "pad", "heater", "edge_coupler", "pcm_cell", "photodetector", "eam"]
POSITIVE_ENDINGS = ("length", "width", "gap", "radius", "size", "thickness")
MAY_BE_ZERO = {("directional_coupler", "length")}  # lengths that may be 0 (a sub-nanometre one draws as 0)


def _numeric_params(cell):
    import inspect

    sig = inspect.signature(cell)
    return [k for k, p in sig.parameters.items() if isinstance(p.default, int | float) and not isinstance(p.default, bool)]


@settings(max_examples=3 * N)
@given(data=st.data())
def test_fuzz_layout(area, pdk, data):
    cell_name = data.draw(st.sampled_from(LAYOUT_CELLS))
    cell = pdk.cells[cell_name]
    args = ["layout", cell_name, "--out", "{ex}/x.gds"]
    prepare = None
    slot = data.draw(st.sampled_from(["name", "out", "set"]))
    if slot == "name":
        args[1] = data.draw(names.filter(lambda s: s not in pdk.cells))
        tokens = [repr(args[1])]
    elif slot == "out":
        path, prepare = data.draw(bad_file_out((".gds", ".oas")))
        args[3] = path
        tokens = ["--out"]
    else:
        numeric = _numeric_params(cell)
        positive = [k for k in numeric if k.endswith(POSITIVE_ENDINGS)]
        tiny = [k for k in positive if (cell_name, k) not in MAY_BE_ZERO]
        item, tokens = set_item(data, numeric, positive, numeric, huge=True, tiny=tiny)
        args += ["--set", item]
    run_bad(area, args, tokens, prepare)


# ---------------------------------------------------------------------------- sweep
@settings(max_examples=3 * N)
@given(data=st.data())
def test_fuzz_sweep(area, data):
    base = {"model": "ring_all_pass", "--param": ["gap=0.2,0.3"], "--wl": "1.55,1.551", "--out": "{ex}/s.csv"}
    extra: list[str] = []
    prepare = None
    slot = data.draw(st.sampled_from(["model", "param", "domain", "wl", "port", "quantity", "grad", "zip", "out",
                                      "figure", "set"]))
    if slot == "model":
        base["model"] = data.draw(names.filter(lambda s: s not in ("ring_all_pass", "ring_add_drop")))
        tokens = [repr(base["model"])]
    elif slot == "param":
        kind = data.draw(st.sampled_from(["malformed", "unknown", "range", "huge", "non_finite"]))
        if kind == "malformed":
            base["--param"] = [data.draw(junk_text.filter(lambda s: "=" not in s))]
            tokens = ["--param"]
        elif kind == "unknown":
            key = data.draw(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(
                lambda s: s not in ("gap", "radius", "width", "film_thickness", "etch_depth", "loss_db_per_cm",
                                    "coupler_loss_db", "voltage_v", "delta_t_k", "bus_length", "electrode_gap",
                                    "electrode_coverage", "electrode_width")))
            base["--param"] = [f"{key}=0.2,0.3"]
            tokens = [key]
        elif kind == "range":
            base["--param"] = ["gap=" + data.draw(junk_text)]
            tokens = ["--param gap"]
        elif kind == "huge":
            n = data.draw(st.integers(10_000_001, 10**15))
            base["--param"] = [f"gap=0.2:0.3:{n}"]
            tokens = ["--param gap"]
        else:
            base["--param"] = [f"gap=0.2,{data.draw(st.sampled_from(['nan', 'inf', '-inf']))}"]
            tokens = ["--param gap"]
    elif slot == "domain":  # values outside the model's range, on any axis, crossed with a valid one
        key, lo, hi = data.draw(st.sampled_from([("gap", 0.15, 2.0), ("width", 0.8, 2.0), ("radius", 10.0, 500.0),
                                                 ("film_thickness", 0.4, 0.8)]))
        bad = data.draw(st.floats(-1e3, lo - 1e-3) | st.floats(hi + 1e-3, 1e5))
        good = (lo + hi) / 2
        base["--param"] = [f"{key}={good!r},{bad!r}"]
        if data.draw(st.booleans()):
            base["--param"].append("loss_db_per_cm=0.5,2" if key != "gap" else "radius=20,30")
        tokens = [key] if key != "film_thickness" else [key, "etch_depth"]  # a thin film: etch_depth ≥ film
    elif slot == "wl":
        kind = data.draw(st.sampled_from(["junk", "range", "huge"]))
        if kind == "junk":
            base["--wl"] = data.draw(junk_text)
            tokens = ["--wl"]
        elif kind == "range":
            base["--wl"] = f"1.55,{data.draw(st.floats(0.1, 1.44) | st.floats(1.66, 20)):.6g}"
            tokens = ["wl"]
        else:
            base["--wl"] = f"1.5:1.6:{data.draw(st.integers(10_000_001, 10**12))}"
            tokens = ["--wl"]
    elif slot == "port":
        extra = ["--port", data.draw(junk_text | st.sampled_from(["o1,o9", "o1", "o1,o2,o3", "o3->o1"]))]
        tokens = ["port"]
    elif slot == "quantity":
        q = data.draw(junk_text.filter(lambda s: s not in ("power", "db", "phase", "real", "imag")))
        extra = ["--quantity", q]
        tokens = ["--quantity"]
    elif slot == "grad":
        extra = ["--grad", data.draw(names.filter(lambda s: s != "gap"))]
        tokens = ["--grad"]
    elif slot == "zip":
        base["--param"] = ["gap=0.2,0.3", "radius=20,25,30"]
        extra = ["--zip"]
        tokens = ["--zip"]
    elif slot == "out":
        path, prepare = data.draw(bad_file_out((".csv", ".npz")))
        base["--out"] = path
        tokens = ["--out"]
    elif slot == "figure":
        path, prepare = data.draw(bad_file_out((".png", ".pdf", ".svg")))
        extra = ["--figure", path]
        tokens = ["--figure"]
    else:
        known = ["gap", "radius", "width", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db",
                 "voltage_v", "delta_t_k", "bus_length", "electrode_gap", "electrode_coverage", "electrode_width"]
        item, tokens = set_item(data, [k for k in known if k != "gap"], ["radius", "width", "film_thickness",
                                                                         "etch_depth"], known)
        extra = ["--set", item]
    args = ["sweep", base["model"], "--wl", base["--wl"], "--out", base["--out"], *extra]
    for p in base["--param"]:
        args += ["--param", p]
    run_bad(area, args, tokens, prepare)


# ---------------------------------------------------------------------------- calibrate
RING_KNOWN = ["gap", "gap_drop", "radius", "width", "film_thickness", "etch_depth", "loss_db_per_cm",
              "coupler_loss_db", "voltage_v", "delta_t_k", "bus_length", "electrode_gap", "electrode_coverage",
              "electrode_width"]


def bad_spectrum(data, area: Path):
    """A measurement-file option value that must be refused, a prepare step writing it, and its file name (which the
    message must hold)."""
    kind = data.draw(st.sampled_from(["missing", "folder", "empty", "header_only", "nan", "text", "binary"]))
    if kind == "missing":
        return "{ex}/none.csv", None, "none.csv"
    if kind == "folder":
        return "{ex}/d.csv", lambda ex: (ex / "d.csv").mkdir(), "d.csv"
    content = {"empty": b"", "header_only": b"wavelength_nm,through\n",
               "nan": (area / "spec.csv").read_bytes().replace(b"\n1549.0", b"\nnan", 1),
               "text": data.draw(st.binary(min_size=1, max_size=64).map(lambda b: b"x,y\n" + b.replace(b"\x00", b""))),
               "binary": b"\x00\x01\x02PK\x03\x04" + data.draw(st.binary(max_size=32))}[kind]
    return "{ex}/bad.csv", lambda ex: (ex / "bad.csv").write_bytes(content), "bad.csv"


@settings(max_examples=2 * N)
@given(data=st.data())
def test_fuzz_calibrate_ring(area, data):
    opts = {"--fsr": "8.2", "--q": "1e4", "--er": "10", "--radius": "20", "--out": "{ex}/c.json"}
    extra: list[str] = []
    prepare = None
    slot = data.draw(st.sampled_from(["choice", "spec", "radius", "set", "out", "figure", "spectrum", "combo",
                                      "order"]))
    if slot == "choice":
        opt, valid = data.draw(st.sampled_from([("--kind", ("add_drop", "all_pass")),
                                                ("--coupling", ("symmetric", "under", "over")),
                                                ("--ripple", ("auto", "fit", "off")),
                                                ("--split", ("auto", "fit", "off")),
                                                ("--baseline", ("shared", "separate"))]))
        extra = [opt, data.draw(junk_text.filter(lambda s: s not in valid))]
        tokens = [opt]
    elif slot == "spec":
        opt, name, below, hi = data.draw(st.sampled_from([("--fsr", "fsr_nm", 0.0499, 200), ("--q", "q_loaded", 9.99, 1e9),
                                                          ("--er", "extinction_db", 0.0, 80)]))  # er in (0, 80]
        opts[opt] = data.draw(st.sampled_from(["nan", "inf", "-inf"]) | st.floats(-1e6, below).map(repr)
                              | st.floats(hi * 1.01, 1e300).map(repr))
        tokens = [name, opt]
    elif slot == "radius":
        opts["--radius"] = data.draw(st.sampled_from(["nan", "inf", "0", "-20"]) | st.floats(500.5, 1e12).map(repr))
        tokens = ["radius"]
    elif slot == "set":
        item, tokens = set_item(data, [k for k in RING_KNOWN if k != "gap_drop"],
                                ["gap", "radius", "width", "film_thickness", "etch_depth"], RING_KNOWN)
        extra = ["--set", item]
    elif slot == "out":
        path, prepare = data.draw(bad_file_out((".json",)))
        opts["--out"] = path
        tokens = ["--out"]
    elif slot == "figure":
        path, prepare = data.draw(bad_file_out((".png", ".pdf", ".svg")))
        extra = ["--figure", path]
        tokens = ["--figure"]
    elif slot == "spectrum":
        path, prepare, fname = bad_spectrum(data, area)
        for k in ("--fsr", "--q", "--er"):
            opts.pop(k)
        extra = ["--spectrum", path]
        tokens = [fname]
    elif slot == "order":
        extra = ["--baseline-order", str(data.draw(st.integers(-10**6, -1) | st.integers(3, 10**6)))]
        tokens = ["--baseline-order"]
    else:
        extra, tokens = data.draw(st.sampled_from([
            (["--spectrum", str(area / "spec.csv")], ["give one of"]),
            (["--drop-loss", "1", "--spectrum", str(area / "spec.csv")], ["give one of"]),
        ]))
    args = ["calibrate", "ring", *[x for kv in opts.items() for x in kv], *extra]
    run_bad(area, args, tokens, prepare)


@settings(max_examples=N)
@given(data=st.data())
def test_fuzz_calibrate_mzm(area, data):
    opts = {"--spectrum": str(area / "mzm.csv"), "--out": "{ex}/m.json"}
    extra: list[str] = []
    prepare = None
    slot = data.draw(st.sampled_from(["spectrum", "wl", "set", "out", "figure"]))
    if slot == "spectrum":
        opts["--spectrum"], prepare, fname = bad_spectrum(data, area)
        tokens = [fname]
    elif slot == "wl":
        extra = ["--wl", data.draw(st.sampled_from(["nan", "inf", "-1"]) | st.floats(2.0, 1e6).map(repr))]
        tokens = ["wl"]
    elif slot == "set":
        known = ["length", "electrode_gap", "width", "film_thickness", "etch_depth", "loss_db_per_cm"]
        item, tokens = set_item(data, known, ["length", "width", "film_thickness", "etch_depth"], known + [
            "signal_width", "ground_width", "pad_size", "transition_length", "splitter_length", "excess_loss_db",
            "imbalance_db", "bias_phase_rad", "field_factor", "cross_section", "voltage_v"])
        extra = ["--set", item]
    elif slot == "out":
        opts["--out"], prepare = data.draw(bad_file_out((".json",)))
        tokens = ["--out"]
    else:
        path, prepare = data.draw(bad_file_out((".png", ".pdf", ".svg")))
        extra = ["--figure", path]
        tokens = ["--figure"]
    run_bad(area, ["calibrate", "mzm", *[x for kv in opts.items() for x in kv], *extra], tokens, prepare)


@settings(max_examples=N)
@given(data=st.data())
def test_fuzz_calibrate_pcm(area, data):
    opts = {"--levels": str(area / "levels.csv"), "--out": "{ex}/p.json"}
    extra: list[str] = []
    prepare = None
    slot = data.draw(st.sampled_from(["levels", "wl", "set", "out"]))
    if slot == "levels":
        opts["--levels"], prepare, fname = bad_spectrum(data, area)
        tokens = [fname]
    elif slot == "wl":
        extra = ["--wl", data.draw(st.sampled_from(["nan", "inf", "-1"]) | st.floats(1.61, 1e6).map(repr)
                                   | st.floats(-1e6, 1.49).map(repr))]
        tokens = ["wl"]
    elif slot == "set":
        known = ["length", "pcm_width", "pcm_thickness", "width"]
        item, tokens = set_item(data, known, known, known + ["film_thickness", "etch_depth", "loss_db_per_cm",
                                                             "cross_section", "heater_width", "heater_overlap",
                                                             "margin", "lead_length"])
        extra = ["--set", item]
    else:
        opts["--out"], prepare = data.draw(bad_file_out((".json",)))
        tokens = ["--out"]
    run_bad(area, ["calibrate", "pcm", *[x for kv in opts.items() for x in kv], *extra], tokens, prepare)


# ---------------------------------------------------------------------------- report, claims, mode, tables
@settings(max_examples=2 * N)
@given(data=st.data())
def test_fuzz_report(area, data):
    opts = {"--out": "{ex}/rep", "--params": str(area / "params.json")}
    prepare = None
    if data.draw(st.booleans()):
        opts["--out"], prepare = data.draw(bad_dir_out())
        tokens = ["--out"]
    else:
        kind = data.draw(st.sampled_from(["missing", "folder", "json", "not_object", "ring_type", "ring_key",
                                          "ring_value", "ring_range", "kind"]))
        text = {
            "json": lambda: data.draw(st.text(min_size=1, max_size=30).filter(lambda s: not _is_json(s))),
            "not_object": lambda: data.draw(st.sampled_from(["[1, 2]", "3", '"ring"', "null", "true", "[]"])),
            "ring_type": lambda: '{"ring": ' + data.draw(st.sampled_from(["[1, 2]", "3", '"x"', "null"])) + "}",
            "ring_key": lambda: '{"ring": {"' + data.draw(st.from_regex(r"[a-z]{1,8}", fullmatch=True).filter(
                lambda s: s not in RING_KNOWN)) + '": 1}}',
            "ring_value": lambda: '{"ring": {"gap": ' + data.draw(st.sampled_from(['"abc"', "[0.2]", "true", "{}",
                                                                                   "NaN", "Infinity"])) + "}}",
            "ring_range": lambda: '{"ring": {"' + data.draw(st.sampled_from(
                ["gap\": -0.2", "gap\": 50", "radius\": 1", "width\": 9", "loss_db_per_cm\": -1"])) + "}}",
            "kind": lambda: '{"ring_kind": "' + data.draw(st.from_regex(r"[a-z_]{1,9}", fullmatch=True).filter(
                lambda s: s not in ("add_drop", "all_pass"))) + '", "ring": {}}',
        }
        if kind == "missing":
            opts["--params"] = "{ex}/none.json"
        elif kind == "folder":
            opts["--params"] = "{ex}/d.json"
            prepare = lambda ex: (ex / "d.json").mkdir()  # noqa: E731
        else:
            content = text[kind]()
            opts["--params"] = "{ex}/p.json"
            prepare = lambda ex: (ex / "p.json").write_text(content)  # noqa: E731
        tokens = ["--params", "params", "ring"]
    run_bad(area, ["report", *[x for kv in opts.items() for x in kv]], tokens, prepare)


def _is_json(s: str) -> bool:
    import json

    try:
        json.loads(s)
        return True
    except (ValueError, RecursionError):
        return False


@settings(max_examples=N)
@given(ids=st.lists(names.filter(lambda s: not re.fullmatch(r"S\d-\d\d", s)), min_size=1, max_size=3))
def test_fuzz_claims(area, ids):
    run_bad(area, ["claims", *ids], ["unknown"])


MODE_OPTIONS = {"--wl": ("wl", 1.45, 1.65), "--width": ("width", 0.8, 2.2), "--film-thickness": ("film_thickness",
                                                                                                 0.3, 0.8),
                "--radius": ("radius", 10.0, math.inf), "--sidewall-angle": ("sidewall_angle_deg", 60.0, 90.0)}


@settings(max_examples=2 * N)
@given(data=st.data())
def test_fuzz_mode(area, data):
    opt = data.draw(st.sampled_from([*MODE_OPTIONS, "--polarization", "--cladding", "--etch-depth"]))
    if opt in MODE_OPTIONS:
        name, lo, hi = MODE_OPTIONS[opt]
        outside = st.floats(-1e6, lo - 1e-3) | (st.floats(hi + 1e-3, 1e6) if math.isfinite(hi) else st.nothing())
        value = data.draw(st.sampled_from(["nan", "-inf"] + (["inf"] if math.isfinite(hi) else []))
                          | outside.map(repr) | junk_text)
        tokens = [name, opt]
    elif opt == "--etch-depth":
        value = data.draw(st.sampled_from(["nan", "0", "-0.1"]) | st.floats(0.49, 10.0).map(repr))
        tokens = ["etch_depth", opt]
    else:
        value = data.draw(junk_text.filter(lambda s: s.lower() not in ("te", "tm", "sio2", "air")))
        tokens = [opt.lstrip("-"), opt]
    run_bad(area, ["mode", opt, value], tokens)


@settings(max_examples=N)
@given(data=st.data())
def test_fuzz_tables(area, data):
    path, prepare = data.draw(bad_dir_out())
    run_bad(area, ["tables", "--out", path], ["--out"], prepare)


RECALL_FLOATS = {"--drift-ring": "drift_sigma_nm", "--drift-common": "drift_common_sigma_nm", "--fab": "fab_sigma_nm",
                 "--lock-residual": "lock_residual_nm", "--trim-v": "trim_voltage_v", "--gain-db": "gain_sigma_db",
                 "--noise-rel": "noise_rel", "--separation": "separation"}
RECALL_INTS = {"--blocks": "n_blocks", "--d": "d", "--trials": "n_trials", "--queries-per-state": "queries_per_state",
               "--k": "--k"}


@settings(max_examples=N)
@given(data=st.data())
def test_fuzz_recall(area, data):
    """A small synthetic recall run (it would finish in about a second) with one option made bad."""
    opts = {"--out": "{ex}/rec", "--synthetic": "gaussian", "--blocks": "64", "--d": "8", "--trials": "16"}
    extra = ["--no-seed-cases"]
    prepare = None
    slot = data.draw(st.sampled_from(["out", "source", "family", "float", "int", "bits", "crosstalk"]))
    if slot == "out":
        opts["--out"], prepare = data.draw(bad_dir_out())
        tokens = ["--out"]
    elif slot == "source":
        kind = data.draw(st.sampled_from(["none", "two", "kv_missing", "kv_suffix", "minilm_missing"]))
        if kind == "none":
            opts.pop("--synthetic")
        elif kind == "two":
            extra += ["--kv", str(area / "spec.csv")]
        else:
            opts.pop("--synthetic")
            extra += {"kv_missing": ["--kv", "{ex}/none.npz"], "kv_suffix": ["--kv", str(area / "spec.csv")],
                      "minilm_missing": ["--minilm", "{ex}/none.txt"]}[kind]
        tokens = ["give exactly one of", "KV file", "--minilm", "prismpic[kv]"]
    elif slot == "family":
        opts["--synthetic"] = data.draw(junk_text.filter(lambda s: s not in ("gaussian", "planted", "planted-tied")))
        tokens = ["synthetic"]
    elif slot == "float":
        opt = data.draw(st.sampled_from(sorted(RECALL_FLOATS)))
        above = st.floats(50.001, 1e6).map(repr) if opt == "--separation" else st.nothing()  # separation ≤ 50
        value = data.draw(st.sampled_from(["nan", "inf", "-inf"]) | st.floats(-1e6, -1e-6).map(repr) | above)
        extra += [opt, value]  # the ranges are [0, inf) (σ, residuals, trim) or [0, 50] (separation)
        tokens = [RECALL_FLOATS[opt], opt]
    elif slot == "int":
        opt = data.draw(st.sampled_from(sorted(RECALL_INTS)))
        opts[opt] = str(data.draw(st.integers(-10**6, 0)))
        tokens = [RECALL_INTS[opt], opt]
    elif slot == "bits":
        opt = data.draw(st.sampled_from(["--weight-bits", "--dac-bits"]))
        extra += [opt, str(data.draw(st.integers(-10**6, 0) | st.integers(33, 10**6)))]
        tokens = [opt.lstrip("-").replace("-", "_")]
    else:
        extra += ["--crosstalk-db", repr(data.draw(st.floats(1e-6, 1e6)))]
        tokens = ["crosstalk_db"]
    run_bad(area, ["recall", *[x for kv in opts.items() for x in kv], *extra], tokens, prepare)
