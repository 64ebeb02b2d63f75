"""The ``mode`` and ``tables`` commands: the ridge's modes and the dispersion tables behind them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from prismpic.cli.common import app, cli_errors, console, progress_bar


@app.command()
@cli_errors
def mode(
    wl: Annotated[float, typer.Option(help="wavelength (µm)")] = 1.55,
    width: Annotated[float, typer.Option(help="ridge width (µm)")] = 1.4,
    film_thickness: Annotated[float, typer.Option(help="LN film thickness (µm)")] = 0.6,
    etch_depth: Annotated[float, typer.Option(help="etch depth (µm)")] = 0.35,
    radius: Annotated[float, typer.Option(help="bend radius (µm); inf for straight")] = float("inf"),
    solve: Annotated[bool, typer.Option(help="also run the full-vector mode solver")] = False,
):
    """Print n_eff, n_g and Γ of the ridge from the compact model (and a fresh solve)."""
    from prismpic.pdk import dispersion

    geo = dict(width=width, film_thickness=film_thickness, etch_depth=etch_depth)
    table = Table("quantity", "TE, crystal z", "TE, crystal y", title=f"ridge at λ = {wl} µm, R = {radius} µm")
    table.add_row(
        "n_eff (compact)", *(f"{float(dispersion.neff(wl, **geo, radius=radius, crystal_axis=a)):.5f}" for a in "zy")
    )
    table.add_row(
        "n_g (compact)", *(f"{float(dispersion.ng(wl, **geo, radius=radius, crystal_axis=a)):.5f}" for a in "zy")
    )
    table.add_row("Γ (EO overlap)", f"{float(dispersion.eo_overlap(wl, **geo)):.4f}", "")
    if solve:
        from prismpic.pdk import modesolver

        vals = [modesolver.solve_ridge_summary(wl=wl, **geo, radius=radius, crystal_axis=a) for a in "zy"]
        table.add_row("n_eff (solver)", *(f"{v['neff']:.5f}" for v in vals))
        table.add_row("n_g (solver)", *(f"{v['ng']:.5f}" for v in vals))
    console.print(table)


@app.command()
@cli_errors
def tables(
    out: Annotated[Path | None, typer.Option(help="output folder (default: the package data folder)")] = None,
):
    """Regenerate the dispersion tables from the mode solver (minutes)."""
    from prismpic.pdk import tables as tb

    with progress_bar() as prog:
        task = prog.add_task("mode solves", total=1)
        tb.build_tables(out_dir=out, progress=lambda done, total: prog.update(task, completed=done, total=total))
    console.print("tables written")


# ---------------------------------------------------------------------------- calibrate, sweep
