"""The ``report`` and ``claims`` commands: every analysis into one report; the seed-claims ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from prismpic.cli.common import app, check_out_dir, cli_errors, console, load_params, progress_bar, say


@app.command()
@cli_errors
def report(
    out: Annotated[Path, typer.Option("--out", help="output folder")] = Path("prismpic-report"),
    params: Annotated[Path | None, typer.Option("--params", help="JSON parameter file (e.g. from calibrate)")] = None,
):
    """Run every analysis and write report.json, report.html and figures into OUT."""
    from prismpic.analysis.report import REPORT_BYTES, write_report

    check_out_dir(out, need_bytes=REPORT_BYTES)
    p = load_params(params)
    with progress_bar() as prog:
        task = prog.add_task("report", total=1)

        def step(name, done, total):
            prog.update(task, description=f"report: {name}", completed=done, total=total)

        rep = write_report(out, params=p, progress=step)
    say(f"wrote {out}/report.json, report.html and {len(rep.get('figures', {}))} figures")


@app.command()
@cli_errors
def claims(
    ids: Annotated[list[str] | None, typer.Argument(help="claim ids to judge (default: all), e.g. S1-10 S2-03")] = None,
):
    """Judge the seed documents' claims with the models and print the ledger."""
    from prismpic.analysis.claims import ledger

    def fmt(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    table = Table("id", "quantity", "claimed", "modeled", "unit", "verdict", "reason", show_lines=True)
    for e in ledger(ids=ids or None):
        colour = {"consistent": "green", "inconsistent": "red"}.get(e.verdict, "yellow")
        table.add_row(*(Text(str(v)) for v in (e.id, e.quantity, fmt(e.claimed), fmt(e.modeled), e.unit)),
                      Text(e.verdict, style=colour), Text(e.reason))
    console.print(table)
