"""The ``report`` command: every analysis into one report (report.json, report.html, figures)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import (
    app,
    check_out_clear_of_inputs,
    check_out_dir,
    cli_errors,
    load_params,
    progress_bar,
    say,
)
from prismpic.pdk.platforms import platform_names

PLATFORM_HELP = (f"stack preset ({', '.join(platform_names())}): the sections run on its film, etch, wall angle, "
                 "cladding and loss (--params ring values win); the claims stay on prismpic's own stack; default "
                 "prismpic")


@app.command()
@cli_errors
def report(
    out: Annotated[Path, typer.Option("--out", help="output folder")] = Path("prismpic-report"),
    params: Annotated[Path | None, typer.Option("--params", help="JSON parameter file (e.g. from calibrate)")] = None,
    sections: Annotated[str | None, typer.Option(
        "--sections", help="comma-separated sections to run (platform, devices, ring, crosstalk, link_budget, noise, "
                           "recall, energy, time_domain, layout, claims; those they need are added); default all")] = None,
    platform: Annotated[str | None, typer.Option("--platform", help=PLATFORM_HELP)] = None,
):
    """Run every analysis and write report.html (open it in a browser), report.json, figures and the prototype's
    GDS into OUT."""
    import time

    from prismpic.report.build import REPORT_BYTES, selected_sections, write_report
    from prismpic.report.preset import report_platform

    preset = report_platform(platform)  # a wrong name: one line, exit code 2, before anything else
    chosen = None if sections is None else selected_sections([s.strip() for s in sections.split(",") if s.strip()])
    check_out_dir(out, need_bytes=REPORT_BYTES)
    check_out_clear_of_inputs(out, [params])
    p = load_params(params)
    t0 = time.perf_counter()
    with progress_bar() as prog:
        task = prog.add_task("report", total=1)

        def step(name, done, total):
            prog.update(task, description=f"report: {name}", completed=done, total=total)

        rep = write_report(out, params=p, progress=step, sections=chosen, platform=preset)
    size_mb = (out / "report.html").stat().st_size / 1e6
    gds = rep.get("layout", {}).get("gds")
    left_out = rep.get("sections_left_out") or []
    off = sorted((rep.get("platform_preset") or {}).get("not_followed") or {})
    say(f"wrote {out}/report.html ({size_mb:.1f} MB), report.json, {len(rep.get('figures', {}))} figures"
        + (f" and {gds}" if gds else "") + f" in {time.perf_counter() - t0:.0f} s"
        + (f" (sections left out: {', '.join(left_out)})" if left_out else "")
        + f"; platform {preset.name}" + (f" (not followed in: {', '.join(off)}; see the page)" if off else ""))
