"""The ``prismpic`` command line: report, layout, mode, tables."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Physics-level modeling of TFLN photonic chips.")
console = Console()
err_console = Console(stderr=True)


def cli_errors(fn):
    """Turn a library ValueError into a one-line message and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, FileNotFoundError) as e:
            err_console.print(f"error: {e}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_settings(items: list[str] | None) -> dict:
    """Parse ``key=value`` pairs (values as JSON where possible, else strings)."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--set {item!r} must look like key=value")
        k, v = item.split("=", 1)
        out[k.strip()] = _parse_value(v.strip())
    return out


def load_params(path: Path | None) -> dict:
    """Read a JSON parameter file (e.g. written by ``prismpic calibrate``)."""
    if path is None:
        return {}
    if not path.is_file():
        raise ValueError(f"params = {str(path)!r} is not a readable file")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"params = {str(path)!r} is not valid JSON: {e.msg} at line {e.lineno}") from None


@app.command()
@cli_errors
def report(
    out: Annotated[Path, typer.Option("--out", help="output folder")] = Path("prismpic-report"),
    params: Annotated[Path | None, typer.Option("--params", help="JSON parameter file (e.g. from calibrate)")] = None,
):
    """Run every analysis and write report.json, report.html and figures into OUT."""
    from prismpic.analysis.report import write_report

    p = load_params(params)
    with _progress() as prog:
        task = prog.add_task("report", total=1)

        def step(name, done, total):
            prog.update(task, description=f"report: {name}", completed=done, total=total)

        rep = write_report(out, params=p, progress=step)
    console.print(f"wrote {out}/report.json, report.html and {len(rep.get('figures', {}))} figures")


@app.command()
@cli_errors
def layout(
    name: Annotated[str, typer.Argument(help="registered cell or circuit name")],
    out: Annotated[Path | None, typer.Option("--out", help="GDS file (default layouts/build/NAME.gds)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="cell parameter key=value (repeatable)")] = None,
):
    """Write the GDS of any registered cell or circuit."""
    import prismpic
    from prismpic.pdk import drc

    pdk = prismpic.get_pdk()
    if name not in pdk.cells:
        raise ValueError(f"name = {name!r} is not a registered cell; choose from {sorted(pdk.cells)}")
    settings = parse_settings(set_)
    try:
        comp = pdk.cells[name](**settings)
    except TypeError as e:
        raise ValueError(f"--set for {name}: {e}") from None
    out = out or Path("layouts/build") / f"{name}.gds"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.gds")
    comp.write_gds(tmp)
    tmp.replace(out)
    violations = drc(comp)
    console.print(
        f"wrote {out} ({comp.dxsize:.1f} × {comp.dysize:.1f} µm); DRC: "
        + ("clean" if not violations else f"{len(violations)} violation(s)")
    )
    for v in violations:
        console.print(f"  {v}", markup=False)


@app.command()
@cli_errors
def mode(
    wl: Annotated[float, typer.Option(help="wavelength (µm)")] = 1.55,
    width: Annotated[float, typer.Option(help="ridge width (µm)")] = 1.4,
    film_thickness: Annotated[float, typer.Option(help="LN film thickness (µm)")] = 0.6,
    etch_depth: Annotated[float, typer.Option(help="etch depth (µm)")] = 0.3,
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

    with _progress() as prog:
        task = prog.add_task("mode solves", total=1)
        tb.build_tables(out_dir=out, progress=lambda done, total: prog.update(task, completed=done, total=total))
    console.print("tables written")


def main() -> None:  # pragma: no cover
    sys.exit(app())


if __name__ == "__main__":  # pragma: no cover
    main()
