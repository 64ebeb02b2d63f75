"""The ``mode`` and ``tables`` commands: the ridge's modes and the dispersion tables behind them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from prismpic.cli.common import app, check_out_dir, check_out_file, cli_errors, console, progress_bar, say
from prismpic.pdk.cross_sections import RIDGE_WIDTH
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, SIDEWALL_ANGLE_DEG


@app.command()
@cli_errors
def mode(
    wl: Annotated[float, typer.Option(help="wavelength (µm)")] = 1.55,
    width: Annotated[float, typer.Option(help="ridge top width, as drawn (µm)")] = RIDGE_WIDTH,
    film_thickness: Annotated[float, typer.Option(help="LN film thickness (µm)")] = FILM_THICKNESS,
    etch_depth: Annotated[float, typer.Option(help="etch depth (µm)")] = ETCH_DEPTH,
    sidewall_angle: Annotated[float, typer.Option(help="sidewall angle from the horizontal (°; 90 = vertical)")]
    = SIDEWALL_ANGLE_DEG,
    cladding: Annotated[str, typer.Option(help="cladding above the ridge: sio2 or air")] = CLADDING,
    polarization: Annotated[str, typer.Option(help="te or tm")] = "te",
    radius: Annotated[float, typer.Option(help="bend radius (µm); inf for straight")] = float("inf"),
    solve: Annotated[bool, typer.Option(help="also run the full-vector mode solver")] = False,
):
    """Print n_eff, n_g and Γ of the ridge from the compact model (and a fresh solve)."""
    from prismpic.pdk import dispersion

    geo = dict(width=width, film_thickness=film_thickness, etch_depth=etch_depth)
    wall = dict(sidewall_angle_deg=sidewall_angle, cladding=cladding)
    pol = polarization.lower()
    table = Table("quantity", f"{pol.upper()}, crystal z", f"{pol.upper()}, crystal y",
                  title=f"ridge at λ = {wl} µm, R = {radius} µm, wall {sidewall_angle:g}°, {cladding} cladding")
    table.add_row("n_eff (compact)", *(f"{float(dispersion.neff(wl, **geo, radius=radius, polarization=pol, crystal_axis=a, **wall)):.5f}"  # noqa: E501
                                       for a in "zy"))
    table.add_row("n_g (compact)", *(f"{float(dispersion.ng(wl, **geo, radius=radius, polarization=pol, crystal_axis=a, **wall)):.5f}"  # noqa: E501
                                     for a in "zy"))
    table.add_row("Γ (EO overlap, TE)", f"{float(dispersion.eo_overlap(wl, **geo, **wall)):.4f}", "")
    if solve:
        from prismpic.pdk import modesolver

        vals = [modesolver.solve_ridge_summary(wl=wl, **geo, radius=radius, polarization=pol, crystal_axis=a, **wall)
                for a in "zy"]
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

    if out is not None:
        if out.exists():
            if not out.is_dir():
                raise ValueError(f"--out = {str(out)!r} exists and is not a directory")
            check_out_file(out / "dispersion_tables.npz", "--out")
        else:
            check_out_dir(out)
    with progress_bar() as prog:
        task = prog.add_task("mode solves", total=1)
        tb.build_tables(out_dir=out, progress=lambda done, total: prog.update(task, completed=done, total=total))
    say("tables written")


# ---------------------------------------------------------------------------- calibrate, sweep
