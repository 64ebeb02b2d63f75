"""``prismpic report --sections``: only the sections asked for (and those they need) run; a wrong name is one
line and exit code 2 with nothing written. And an error inside a report about a file outside its output folder is
passed on as itself, never reported as the output folder's fault."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from prismpic.cli import app
from prismpic.fileio import OutputError, atomic_dir
from prismpic.report.build import NEEDS, SECTIONS, selected_sections

ALL = [name for name, _ in SECTIONS]


def test_a_section_brings_the_sections_it_needs_in_report_order():
    assert selected_sections(None) == ALL
    assert selected_sections(["noise"]) == ["link_budget", "noise"]
    assert selected_sections(["recall", "platform"]) == ["platform", "ring", "recall"]
    for name, needs in NEEDS.items():  # every dependency is a section that runs before its user
        assert all(ALL.index(n) < ALL.index(name) for n in needs)


@pytest.mark.parametrize("names", [["nois"], []])
def test_a_wrong_section_name_is_refused_with_the_choices(names):
    with pytest.raises(ValueError, match="choose from platform, devices, ring"):
        selected_sections(names)


def test_cli_runs_only_the_sections_asked_for(tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["report", "--sections", "platform", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rep = json.loads((out / "report.json").read_text())
    assert "platform" in rep and not set(ALL[1:]) & set(rep)
    assert rep["sections_left_out"] == ALL[1:]
    assert "sections left out: devices" in res.output
    assert (out / "report.html").stat().st_size > 0


def test_cli_wrong_section_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["report", "--sections", "platform,nois", "--out", str(out)])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0 and "'nois' is not a report section" in res.output
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_missing_input_inside_the_body_is_not_the_outputs_fault(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("kept")  # a user's file: the folder must not be replaced
    missing = tmp_path / "elsewhere" / "table.json"
    with pytest.raises(FileNotFoundError) as info:
        with atomic_dir(tmp_path / "fresh") as work:
            (work / "part.txt").write_text("half")
            missing.read_text()
    assert not isinstance(info.value, OutputError) and str(missing) in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary left, nothing else written
    assert (out / "old.txt").read_text() == "kept"


def test_a_failure_writing_the_output_still_names_the_output(tmp_path):
    with pytest.raises(OutputError, match="out = .*fresh.*cannot write"):
        with atomic_dir(tmp_path / "fresh") as work:
            (work / "no-such-sub" / "x.txt").write_text("x")  # FileNotFoundError about a path in the output


def test_compiled_programs_are_released_when_the_process_is_large_and_grew(monkeypatch):
    """``release_when_grown``: the release runs when the resident memory is above its limit and grew by more than
    its step since the last release (here 100 MB touched), and not otherwise; ``judgements`` calls it between
    claims, once per change of claim."""
    import numpy as np

    from prismpic import program_memory as pm
    from prismpic.analysis.ledger.claims import judgements

    released = []
    monkeypatch.setattr(pm, "release_compiled_programs", lambda: released.append(pm.resident_mb()))
    start = pm.resident_mb()
    assert start > 0
    after = pm.release_when_grown(start + 50.0, growth_mb=50.0)
    after()
    assert released == []
    block = np.ones(100 * 2**20 // 8)  # 100 MB, every page written: above the limit, grown by more than the step
    after()
    assert len(released) == 1
    after()  # still above the limit, but the base moved to where the release left it: no growth since
    assert len(released) == 1
    high = pm.release_when_grown(pm.resident_mb() + 500.0, growth_mb=50.0)
    more = np.ones(100 * 2**20 // 8)
    high()  # grown, but below the limit
    assert len(released) == 1
    del block, more

    calls = []
    judged = judgements(ids=["S1-01", "S2-04", "S2-06"], after_claim=lambda: calls.append(1))
    assert len({j.spec.id for j in judged}) == 3 and len(calls) == 2
