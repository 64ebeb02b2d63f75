"""``prismpic claims``' summary: one line per entry whose id and verdict are whole on an 80-column screen (the
texts give way), read back against the ledger's own judgement of the same entries."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from prismpic.cli import app, common

IDS = ["S1-01", "S1-03"]  # seed arithmetic only: quick to judge


def test_summary_keeps_ids_and_verdicts_whole(width=80):
    from prismpic.analysis.ledger.claims import specs
    from prismpic.analysis.ledger.verdicts import judge

    expected = [judge(s, max_flips=0).entry for s in specs(ids=IDS)]
    # the console's width only (not the ``monkeypatch`` fixture: the test runs on the exported programs, conftest)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(common.console, "width", width)
        res = CliRunner().invoke(app, ["claims", *IDS])
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if line[:2] in ("S1", "S2")]
    rows = [r for r in rows if "  " in r]  # the table's rows, not the claims' texts printed above it
    assert len(rows) == len(expected)
    for row, entry in zip(rows, expected, strict=True):
        assert len(row.rstrip()) <= width
        assert row.startswith(entry.id) and f"  {entry.verdict}  " in row + "  "
