"""``prismpic lvs``: exit 0 when layout and schematic agree, 3 with the mismatches on stdout and one summary line on
stderr, 2 with one line for bad input (a GDS or netlist that is absent or does not parse, a GDS without the circuit's
cell, a netlist against a GDS without port metadata, options that do not go together)."""

import klayout.db as kdb
import pytest
import yaml
from typer.testing import CliRunner

from prismpic.circuits.splitter_tree import splitter_tree
from prismpic.cli import app

runner = CliRunner()
N = 4
DEVICES = (N - 1) + 2 * 2 * 2 * (N - 1)  # splitters; two bends and two straights on each of the 2(N-1) branches


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 1×4 splitter tree written by ``prismpic layout`` (with metadata) and without metadata, and its netlist."""
    d = tmp_path_factory.mktemp("lvs")
    res = runner.invoke(app, ["layout", "splitter_tree", "--set", f"n_outputs={N}", "--out", str(d / "tree.gds")])
    assert res.exit_code == 0, res.output
    tree = splitter_tree(n_outputs=N)
    tree.write_gds(d / "bare.gds", with_metadata=False)
    (d / "tree.yml").write_text(yaml.safe_dump(tree.get_netlist(recursive=True, on_dangling_port="ignore")))
    return d


def _one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.output
    for n in needles:
        assert n in lines[0], lines[0]


def test_clean_against_the_circuit_and_against_its_netlist_file(files):
    for schematic in (["--circuit", "splitter_tree", "--set", f"n_outputs={N}"], ["--netlist", str(files / "tree.yml")]):
        res = runner.invoke(app, ["lvs", str(files / "tree.gds"), *schematic])
        assert res.exit_code == 0, res.output
        assert f"LVS clean: {DEVICES} devices" in res.stdout and res.stderr == ""
    res = runner.invoke(app, ["lvs", str(files / "bare.gds"), "--circuit", "splitter_tree", "--set", f"n_outputs={N}"])
    assert res.exit_code == 0 and "note: top-level port names not checked" in res.stdout, res.output


def test_a_deleted_bend_exits_3_with_the_instance_on_stdout(files, tmp_path):
    layout = kdb.Layout()
    layout.read(str(files / "tree.gds"))
    top = layout.top_cell()
    bend = min((i for i in top.each_inst() if i.cell.name.startswith("bend_euler")),
               key=lambda i: (i.dcplx_trans.disp.x, i.dcplx_trans.disp.y))
    bend.delete()
    layout.write(str(tmp_path / "cut.gds"))
    res = runner.invoke(app, ["lvs", str(tmp_path / "cut.gds"), "--netlist", str(files / "tree.yml")])
    assert res.exit_code == 3, res.output
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("missing    bend_euler")
    assert res.stderr.strip().splitlines() == [f"LVS failed: 1 mismatch (1 missing) between {DEVICES - 1} layout and "
                                               f"{DEVICES} schematic devices"]


def test_a_circuit_built_with_other_parameters_fails(files):
    res = runner.invoke(app, ["lvs", str(files / "tree.gds"), "--circuit", "splitter_tree", "--set",
                              f"n_outputs={N}", "--set", "pitch=130"])
    assert res.exit_code == 3, res.output
    assert "parameters" in res.stdout and res.stderr.startswith("LVS failed:")


@pytest.mark.parametrize("args, needles", [
    (["absent.gds", "--circuit", "splitter_tree"], ["GDS = ", "absent.gds' does not exist"]),
    (["junk.gds", "--circuit", "splitter_tree"], ["junk.gds' cannot be read as GDS or OASIS"]),
    (["tree.gds", "--netlist", "bad.yml"], ["--netlist = ", "bad.yml' does not parse as YAML"]),
    (["tree.gds", "--netlist", "list.json"], ["list.json' is not a netlist"]),
    (["tree.gds", "--circuit", "ring_all_pass"], ["tree.gds' has no cell 'ring_all_pass", "its top cells"]),
    (["tree.gds", "--netlist", "other.yml"], ["tree.gds' has no cell 'prototype' nor any 'prototype' cell"]),
    (["bare.gds", "--netlist", "tree.yml"], ["bare.gds' carries no port metadata", "--circuit"]),
    (["tree.gds"], ["give the schematic as --netlist FILE or as --circuit NAME"]),
    (["tree.gds", "--netlist", "tree.yml", "--circuit", "splitter_tree"], ["one of them"]),
    (["tree.gds", "--netlist", "tree.yml", "--set", "n_outputs=4"], ["--set and --platform take parameters of --circuit"]),
    (["tree.gds", "--netlist", "tree.yml", "--platform", "tfln400"], ["with --netlist the netlist holds them"]),
    (["tree.gds", "--circuit", "no_such_cell"], ["--circuit = 'no_such_cell' is not a registered cell"]),
    (["tree.gds", "--circuit", "splitter_tree", "--platform", "lnoi999"], ["--platform = 'lnoi999' is not a platform preset"]),
    (["tree.gds", "--circuit", "splitter_tree", "--set", "colour=3"], ["has no parameter 'colour'"]),
])
def test_bad_input_is_one_line_and_exit_2(files, args, needles):
    (files / "junk.gds").write_text("not a layout\n")
    (files / "bad.yml").write_text("instances: {a: [\n")
    (files / "list.json").write_text("[1, 2]\n")
    (files / "other.yml").write_text("prototype: {instances: {}, placements: {}}\n")  # another circuit's netlist
    argv = [str(files / a) if a.endswith((".gds", ".yml", ".json")) else a for a in args]
    _one_line_error(runner.invoke(app, ["lvs", *argv]), *needles)


def test_lvs_is_listed_in_help():
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0 and "lvs" in res.stdout
