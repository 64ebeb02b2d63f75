"""The ``claims`` command: the seed-claims ledger, each claim judged over its assumptions.

By default one summary table (id, quantity, verdict, what decides it); ``--explain`` prints each claim's entries
with the tolerance, the reason, the assumption table and each assumption's sensitivity.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from prismpic.cli.common import app, cli_errors, console, progress_bar, say

COLOURS = {"consistent": "green", "inconsistent": "red", "depends": "yellow", "needs-data": "blue"}
QUANTITY_CHARS, DECIDED_CHARS = 52, 40  # the summary's text columns: the table fits a 120-column screen


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def summary_table(judged) -> Table:
    """One row per entry: id, quantity, verdict, the deciding assumption (or the entry's basis)."""
    from prismpic.analysis.ledger.verdicts import deciding_assumption

    # the id and the verdict always show in full; the two texts share what the screen leaves (at most their
    # QUANTITY_CHARS and DECIDED_CHARS), cut with an ellipsis
    texts = max(20, min(QUANTITY_CHARS + DECIDED_CHARS, console.width - 5 - 12 - 6))
    n_quantity = min(QUANTITY_CHARS, round(texts * QUANTITY_CHARS / (QUANTITY_CHARS + DECIDED_CHARS)))
    n_decided = min(DECIDED_CHARS, texts - n_quantity)
    table = Table(box=None, pad_edge=False)
    for name, width in (("id", 5), ("quantity", n_quantity), ("verdict", 12), ("decided by", n_decided)):
        table.add_column(name, no_wrap=True, width=width)
    for j in judged:
        e = j.entry
        table.add_row(e.id, Text(_short(e.quantity, n_quantity)), Text(e.verdict, style=COLOURS.get(e.verdict, "")),
                      Text(_short(deciding_assumption(j), n_decided)))
    return table


def _entry_table(entries) -> Table:
    table = Table("quantity", "claimed / criterion", "modeled (range)", "unit", "verdict", "condition",
                  show_lines=True)
    for e in entries:
        claimed = _fmt(e.claimed) + (f"\ncriterion: {e.criterion}" if e.criterion else "")
        modeled = _fmt(e.modeled) + (f"\n({_fmt(e.modeled_lo)} … {_fmt(e.modeled_hi)})"
                                     if e.modeled_lo is not None else "")
        table.add_row(Text(e.quantity), Text(claimed), Text(modeled), Text(e.unit),
                      Text(e.verdict, style=COLOURS.get(e.verdict, "")), Text(e.condition))
    return table


def _assumption_table(names) -> Table:
    from prismpic.analysis.ledger.assumptions import assumption

    table = Table("assumption", "nominal", "range", "source", show_lines=True)
    for n in names:
        a = assumption(n)
        table.add_row(Text(f"{n}\n{a.label}"), Text(a.format(a.nominal)), Text(f"{a.format(a.lo)} … {a.format(a.hi)}"),
                      Text(a.source))
    return table


@app.command()
@cli_errors
def claims(
    ids: Annotated[list[str] | None, typer.Argument(help="claim ids to judge (default: all), e.g. S1-10 S2-03")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="each claim's entries in detail: claimed value or "
                                          "criterion, modeled value and range, tolerance, condition, reason, the "
                                          "assumption table and each assumption's sensitivity")] = False,
):
    """Judge the seed documents' claims over their assumptions: a summary table (id, quantity, verdict, what decides
    it) by default; ``--explain`` for the detail."""
    from collections import Counter

    from prismpic.analysis.ledger.claims import claim_text, specs
    from prismpic.analysis.ledger.verdicts import explain_text, judge

    if explain and not ids:
        raise ValueError("--explain needs claim ids, e.g. prismpic claims S1-12 --explain (without ids: the summary)")
    todo = specs(ids=ids or None)
    judged = []
    with progress_bar() as prog:
        task = prog.add_task("claims", total=len(todo))
        for i, spec in enumerate(todo):
            prog.update(task, description=f"claims: {spec.id}", completed=i)
            judged.append(judge(spec, max_flips=None if explain else 0))  # the summary shows no flip values
        prog.update(task, description="claims", completed=len(todo))
    if not explain:
        for cid in dict.fromkeys(j.entry.id for j in judged) if ids else ():
            say(f"{cid}: {claim_text(cid)}")
        console.print(summary_table(judged))
    else:
        for cid in dict.fromkeys(j.entry.id for j in judged):
            mine = [j for j in judged if j.entry.id == cid]
            say(f"\n{cid}: {claim_text(cid)}")
            console.print(_entry_table([j.entry for j in mine]))
            for j in mine:
                say(explain_text(j))
                if j.entry.assumptions:
                    console.print(_assumption_table(j.entry.assumptions))
    counts = Counter(j.entry.verdict for j in judged)
    say(f"{len(judged)} entries: " + ", ".join(f"{counts[v]} {v}" for v in COLOURS if counts[v])
        + ("" if explain else "  (prismpic claims [IDS] --explain for the detail)"))
