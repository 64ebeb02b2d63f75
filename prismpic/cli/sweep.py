"""The ``sweep`` command: any registered model over parameter grids and wavelength."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import (
    FIGURE_SUFFIXES,
    app,
    check_distinct,
    check_out_file,
    check_settings,
    cli_errors,
    parse_settings,
    say,
)


def parse_axes(items: list[str]) -> dict:
    """``--param name=lo:hi:n`` / ``name=a,b,c`` options as {name: values}, each checked and capped."""
    from prismpic.analysis import sweep as sw

    axes = {}
    for item in items:
        k, sep, v = item.partition("=")
        k = k.strip()
        if not sep or not k.isidentifier():
            raise ValueError(f"--param {item!r} must look like name=lo:hi:n or name=a,b,c")
        if k in axes:
            raise ValueError(f"--param {k} is given twice")
        axes[k] = sw.parse_range(v, f"--param {k}")
    return axes


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
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (.png, .pdf or .svg; default: OUT "
                                                                 "with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="fixed model parameter key=value")] = None,
):
    """Sweep a model over parameter grids and wavelength (vectorised, with gradients); write CSV/NPZ and a figure."""
    from prismpic.analysis import sweep as sw
    from prismpic.checks import check_choice
    from prismpic.fileio import atomic_path

    axes = parse_axes(param)
    wls = sw.parse_range(wl, "--wl")
    fixed = parse_settings(set_)
    check_choice("--quantity", quantity, ("power", "db", "phase", "real", "imag"))
    ports = sw.port_pair(port)
    grads = tuple(grad or ())
    for g in grads:
        if g not in axes:
            raise ValueError(f"--grad {g!r} is not a swept parameter; swept: {sorted(axes)}")
    if len(set(grads)) != len(grads):
        raise ValueError(f"--grad {list(grads)} names a parameter twice")
    if zip_axes and len({a.size for a in axes.values()}) != 1:
        raise ValueError("--zip needs equal axis lengths, got "
                         + ", ".join(f"{k}: {a.size}" for k, a in axes.items()))
    fn = sw.model_function(model)
    check_settings(fn, {k: 0.0 for k in axes}, "--param", exclude=("wl",), what=f"model {model}")
    check_settings(fn, fixed, "--set", exclude=("wl",), what=f"model {model}")
    clash = sorted(set(fixed) & set(axes))
    if clash:
        raise ValueError(f"{clash} given both as --param and --set")
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".npz"):
        raise ValueError(f"--out = {str(out)!r} must end in .csv or .npz")
    points = sw.check_grid_size([a.size for a in axes.values()], wls.size, len(grads), zip_axes, csv=suffix == ".csv")
    fig_path = figure or out.with_suffix(".png")
    check_distinct(out=out, figure=fig_path)
    check_out_file(out, suffixes=(".csv", ".npz"),
                   need_bytes=sw.output_bytes(points, wls.size, len(axes), len(grads), suffix))
    check_out_file(fig_path, "--figure", suffixes=FIGURE_SUFFIXES)
    try:
        res = sw.sweep(fn, axes, wl=wls, fixed=fixed, output=ports, quantity=quantity, grad=grads,
                       zip_axes=zip_axes, label=f"{quantity} {model} {port}", timing=True)
    except TypeError as e:
        raise ValueError(f"{model}: {e}") from None
    with atomic_path(out, "--out") as tmp_out, atomic_path(fig_path, "--figure") as tmp_fig:
        res.save(tmp_out)  # both files are renamed into place only once both are complete
        res.plot(tmp_fig)
    say(f"{res.n_points} points × {0 if res.wl is None else res.wl.size} wavelengths in {res.seconds:.3g} s "
        f"({res.evaluations_per_second:.4g} evaluations/s; compile {res.compile_seconds:.2g} s)")
    say(f"wrote {out} and {fig_path}")
