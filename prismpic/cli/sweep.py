"""The ``sweep`` command: any registered model over parameter grids and wavelength."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, cli_errors, console, parse_settings


@app.command()
@cli_errors
def sweep(
    model: Annotated[str, typer.Argument(help="registered model name (e.g. ring_add_drop)")],
    param: Annotated[list[str], typer.Option("--param", help="swept parameter name=lo:hi:n or name=a,b,c")],
    out: Annotated[Path, typer.Option("--out", help="output file (.csv or .npz)")],
    wl: Annotated[str, typer.Option("--wl", help="wavelengths (µm): lo:hi:n or a,b,c")] = "1.54:1.56:1001",
    port: Annotated[str, typer.Option("--port", help="S-parameter port pair")] = "o1,o2",
    quantity: Annotated[str, typer.Option("--quantity", help="power, db, phase, real or imag")] = "power",
    grad: Annotated[list[str] | None, typer.Option("--grad", help="swept parameter to differentiate by")] = None,
    zip_axes: Annotated[bool, typer.Option("--zip", help="pair the axes instead of crossing them")] = False,
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (default: OUT with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="fixed model parameter key=value")] = None,
):
    """Sweep a model over parameter grids and wavelength (vectorised, with gradients); write CSV/NPZ and a figure."""
    from prismpic.analysis import sweep as sw

    axes = {}
    for item in param:
        if "=" not in item:
            raise ValueError(f"--param {item!r} must look like name=lo:hi:n or name=a,b,c")
        k, v = item.split("=", 1)
        axes[k.strip()] = sw.parse_range(v, f"--param {k.strip()}")
    if out.suffix.lower() not in (".csv", ".npz"):
        raise ValueError(f"out = {str(out)!r} must end in .csv or .npz")
    if not out.parent.is_dir():
        raise ValueError(f"out = {str(out)!r}: the parent directory {str(out.parent)!r} does not exist")
    fn = sw.model_function(model)
    try:
        res = sw.sweep(fn, axes, wl=sw.parse_range(wl, "--wl"), fixed=parse_settings(set_), output=port,
                       quantity=quantity, grad=tuple(grad or ()), zip_axes=zip_axes,
                       label=f"{quantity} {model} {port}", timing=True)
    except TypeError as e:
        raise ValueError(f"{model}: {e}") from None
    fig = res.plot(figure or out.with_suffix(".png"))
    try:
        res.save(out)
    except BaseException:
        fig.unlink(missing_ok=True)
        raise
    console.print(f"{res.n_points} points × {0 if res.wl is None else res.wl.size} wavelengths in {res.seconds:.3g} s "
                  f"({res.evaluations_per_second:.4g} evaluations/s; compile {res.compile_seconds:.2g} s)", markup=False)
    console.print(f"wrote {out} and {fig}", markup=False)
