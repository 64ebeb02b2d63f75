"""The ``sweep`` command: any registered model over parameter grids and wavelength.

Without ``--wl`` the wavelength grid spans ``DEFAULT_WL_UM`` with a step that resolves the narrowest ring
resonance the sweep can meet: for a ring model (``RING_MODELS``) the loaded linewidth (FWHM, from
``rings.ring_specs``: the Airy line of the model's own coupler and round-trip physics) is computed at both
ends of the band and at the corners of the swept ring parameters, and the step is at most FWHM /
``POINTS_PER_FWHM``; the point count stays within [``MIN_WL_POINTS``, ``MAX_WL_POINTS``] and the grid-size
limits. Models without a resonance get ``MIN_WL_POINTS`` points.

``--out FILE.sNp`` writes every S-parameter of the model at the ``--set`` values as a Touchstone file
(``components.touchstone``), N the model's port count; ``--param``, ``--port``, ``--quantity``, ``--grad``,
``--zip`` and ``--figure`` do not apply there and are refused.
"""

from __future__ import annotations

import itertools
import math
import re
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
from prismpic.pdk.platforms import platform_names

DEFAULT_WL_UM = (1.54, 1.56)
MAX_TOUCHSTONE_POINTS = 200_001  # wavelengths of one Touchstone file (a 4-port: ≈ 160 MB of text)
TOUCHSTONE_SUFFIX = re.compile(r"\.s\d+p$", re.IGNORECASE)
MIN_WL_POINTS = 1001  # 20 pm steps over the default band: the grid of a model without a resonance
MAX_WL_POINTS = 20001  # 1 pm steps over the default band: resolves (FWHM/10) lines of 10 pm and wider (Q ≲ 1.5e5)
POINTS_PER_FWHM = 10
MAX_FWHM_POINTS = 16  # parameter points at which the linewidth is computed (else each axis end alone)
# models made of rings, and the ring each is built from (rings.ring_specs' kind); the WDM rings are add-drop
# rings with both gaps equal to ``gap`` and radii within a fraction of an FSR of ``radius``
RING_MODELS = {"ring_add_drop": "add_drop", "ring_all_pass": "all_pass", "wdm_demux": "add_drop",
               "wdm_mux": "add_drop"}


def narrowest_fwhm_nm(model: str, fixed: dict, axes: dict, zip_axes: bool,
                      band: tuple[float, float] = DEFAULT_WL_UM) -> tuple[float, dict] | None:
    """The narrowest loaded linewidth (nm) of ``model``'s rings over the sweep, and the parameters where it occurs;
    None for a model without rings. Computed at both band ends and at the corners of the swept ring parameters
    (the points of a zipped sweep), from ``rings.ring_specs``."""
    import numpy as np

    from prismpic.components import rings

    kind = RING_MODELS.get(model)
    if kind is None:
        return None
    names = set(rings.ring_params(kind, {}))
    base = {k: v for k, v in fixed.items() if k in names}
    swept = {k: np.asarray(v, float) for k, v in axes.items() if k in names}
    if zip_axes and swept:
        n = next(iter(swept.values())).size
        idx = range(n) if n <= MAX_FWHM_POINTS else sorted({int(f(a)) for a in swept.values()
                                                            for f in (np.argmin, np.argmax)})
        points = [{k: float(a[i]) for k, a in swept.items()} for i in idx]
    else:
        ends = {k: sorted({float(a.min()), float(a.max())}) for k, a in swept.items()}
        points = [dict(zip(ends, combo, strict=True)) for combo in itertools.product(*ends.values())]
        if len(points) > MAX_FWHM_POINTS:
            first = {k: float(a[0]) for k, a in swept.items()}
            points = [{**first, k: v} for k, e in ends.items() for v in e]
    best = None
    for point in points or [{}]:
        params = {**base, **point}
        for wl0 in band:
            fwhm = rings.ring_specs(wl0, kind, **params)["fwhm_nm"]
            if math.isfinite(fwhm) and (best is None or fwhm < best[0]):
                best = (fwhm, point)
    return best


def default_wl_grid(model: str, fixed: dict, axes: dict, zip_axes: bool, n_grad: int, csv: bool):
    """The default wavelengths (µm) of a sweep (see the module docstring) and a line describing them."""
    import numpy as np

    from prismpic.analysis import sweep as sw

    lo, hi = DEFAULT_WL_UM
    sizes = [np.size(a) for a in axes.values()]
    points = (sizes[0] if zip_axes else math.prod(sizes)) if sizes else 1
    budget = sw.MAX_VALUES // max(points * (1 + n_grad), 1)
    if csv:
        budget = min(budget, sw.MAX_CSV_ROWS // max(points, 1))
    found = narrowest_fwhm_nm(model, fixed, axes, zip_axes)
    if found is None:
        n = MIN_WL_POINTS
        why = "no resonance"
    else:
        fwhm, where = found
        n = max(MIN_WL_POINTS, math.ceil((hi - lo) * 1e3 / (fwhm / POINTS_PER_FWHM)) + 1)
        at = ", ".join(f"{k} = {v:g}" for k, v in where.items())
        why = f"narrowest resonance FWHM {fwhm * 1e3:.3g} pm{' at ' + at if at else ''}"
        if n > min(MAX_WL_POINTS, budget):
            n = max(2, min(MAX_WL_POINTS, budget))
            why += (f"; capped at {n:,} points, which under-resolve it (FWHM/{fwhm / ((hi - lo) * 1e3 / (n - 1)):.2g})"
                    ": give --wl over a narrower band")
    step_pm = (hi - lo) * 1e6 / (n - 1)
    return np.linspace(lo, hi, n), f"wavelengths {lo:g}–{hi:g} µm, {n:,} points, step {step_pm:.3g} pm ({why})"


def sweep_touchstone(model: str, out: Path, wl: str | None, set_: list[str] | None,
                     platform: str | None = None) -> None:
    """``sweep MODEL --out FILE.sNp``: every S-parameter of the model at the ``--set`` values, written as Touchstone
    (``components.touchstone.write_touchstone``: frequency ascending, port order in the comment lines)."""
    from natsort import natsorted

    from prismpic.analysis import sweep as sw
    from prismpic.components import touchstone as ts

    n_file = ts.touchstone_port_count(out, "--out")
    wls = None if wl is None else sw.parse_range(wl, "--wl", max_n=MAX_TOUCHSTONE_POINTS)
    fn = sw.model_function(model)
    fixed = parse_settings(set_, fn=fn, platform=platform)
    check_settings(fn, fixed, "--set", exclude=("wl",), what=f"model {model}")
    if wls is not None:
        wls = ts.checked_wavelengths(wls, "--wl")
    check_out_file(out)
    probe = DEFAULT_WL_UM[0] if wls is None else float(wls[0])
    try:  # the model's ports at one wavelength (its range checks run here, eagerly) before any grid
        ports = natsorted({p for pair in fn(wl=probe, **fixed) for p in pair})
    except TypeError as e:
        raise ValueError(f"{model}: {e}") from None
    if len(ports) != n_file:
        raise ValueError(f"--out = {str(out)!r}: a .s{n_file}p file holds {n_file} port(s) but model {model} has "
                         f"{len(ports)} ({', '.join(ports)}); name it .s{len(ports)}p")
    grid_note = None
    if wls is None:
        wls, grid_note = default_wl_grid(model, fixed, {}, False, 0, csv=False)
    # ~25 characters per number, two numbers per entry, N² entries and a frequency per wavelength
    check_out_file(out, need_bytes=wls.size * (50 * n_file**2 + 25) + 4096)
    ts.write_touchstone(out, fn, wls, settings=fixed, name=model, what="--out")
    if grid_note:
        say(grid_note)
    order = ", ".join(f"{i} = {p}" for i, p in enumerate(ports, 1))
    say(f"wrote {out}: {model}, {len(ports)} ports (Touchstone order: {order}), {wls.size:,} wavelengths "
        f"{wls[0]:g}–{wls[-1]:g} µm, frequency ascending")


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
    out: Annotated[Path, typer.Option("--out", help="output file: .csv or .npz (a sweep over --param grids), or "
                                                    ".sNp (Touchstone, N the model's port count: all S-parameters "
                                                    "at the --set values)")],
    param: Annotated[list[str] | None, typer.Option("--param", help="swept parameter name=lo:hi:n or name=a,b,c "
                                                                     "(.csv/.npz)")] = None,
    wl: Annotated[str | None, typer.Option("--wl", help="wavelengths (µm): lo:hi:n or a,b,c (default 1.54:1.56 "
                                                          "with a step ≤ FWHM/10 of the narrowest ring resonance, "
                                                          "1,001–20,001 points)")] = None,
    port: Annotated[str | None, typer.Option("--port", help="S-parameter port pair (default o1,o2)")] = None,
    quantity: Annotated[str | None, typer.Option("--quantity", help="power, db, phase, real or imag (default "
                                                                    "power)")] = None,
    grad: Annotated[list[str] | None, typer.Option("--grad", help="swept parameter to differentiate by")] = None,
    zip_axes: Annotated[bool, typer.Option("--zip", help="pair the axes instead of crossing them")] = False,
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (.png, .pdf or .svg; default: OUT "
                                                                 "with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="fixed model parameter key=value "
                                                                 "(platform=NAME: as --platform)")] = None,
    platform: Annotated[str | None, typer.Option("--platform", help=f"stack preset ({', '.join(platform_names())}): its film, "
                                                                     "etch, wall angle, cladding and loss; --set "
                                                                     "and --param values win")] = None,
):
    """Sweep a model over parameter grids and wavelength (vectorised, with gradients); write CSV/NPZ and a figure,
    or all its S-parameters as a Touchstone file (.sNp)."""
    from prismpic.analysis import sweep as sw
    from prismpic.checks import check_choice
    from prismpic.fileio import atomic_path

    if TOUCHSTONE_SUFFIX.search(out.name):
        given = [name for name, v in (("--param", param), ("--port", port), ("--quantity", quantity),
                                      ("--grad", grad), ("--zip", zip_axes), ("--figure", figure)) if v]
        if given:
            verb = "does" if len(given) == 1 else "do"
            raise ValueError(f"{', '.join(given)} {verb} not apply to a Touchstone file (--out = {str(out)!r}): it "
                             "holds every S-parameter of the model at the --set values; sweep parameters into .csv or "
                             ".npz")
        sweep_touchstone(model, out, wl, set_, platform)
        return
    if not param:
        raise ValueError(f"--param is needed for --out = {str(out)!r} (a .csv/.npz sweep), e.g. --param gap=0.2:0.4:5; "
                         "or write every S-parameter at fixed settings to a Touchstone file (--out FILE.s2p)")
    port = port or "o1,o2"
    quantity = quantity or "power"
    axes = parse_axes(param)
    wls = None if wl is None else sw.parse_range(wl, "--wl")
    fn = sw.model_function(model)
    fixed = parse_settings(set_, fn=fn, platform=platform, exclude=tuple(axes))
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
    check_settings(fn, {k: 0.0 for k in axes}, "--param", exclude=("wl",), what=f"model {model}")
    check_settings(fn, fixed, "--set", exclude=("wl",), what=f"model {model}")
    clash = sorted(set(fixed) & set(axes))
    if clash:
        raise ValueError(f"{clash} given both as --param and --set")
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".npz"):
        raise ValueError(f"--out = {str(out)!r} must end in .csv, .npz or .sNp (Touchstone)")
    sizes = [a.size for a in axes.values()]
    fig_path = figure or out.with_suffix(".png")
    check_distinct(out=out, figure=fig_path)
    check_out_file(out, suffixes=(".csv", ".npz"))  # the paths first; free space once the grid is known
    check_out_file(fig_path, "--figure", suffixes=FIGURE_SUFFIXES)
    grid_note = None
    if wls is None:  # the default grid takes a few linewidth computations: the parameter grid is checked first
        sw.check_grid_size(sizes, 1, len(grads), zip_axes, csv=suffix == ".csv")
        wls, grid_note = default_wl_grid(model, fixed, axes, zip_axes, len(grads), csv=suffix == ".csv")
    points = sw.check_grid_size(sizes, wls.size, len(grads), zip_axes, csv=suffix == ".csv")
    check_out_file(out, suffixes=(".csv", ".npz"),
                   need_bytes=sw.output_bytes(points, wls.size, len(axes), len(grads), suffix))
    try:
        res = sw.sweep(fn, axes, wl=wls, fixed=fixed, output=ports, quantity=quantity, grad=grads,
                       zip_axes=zip_axes, label=f"{quantity} {model} {port}", timing=True)
    except TypeError as e:
        raise ValueError(f"{model}: {e}") from None
    with atomic_path(out, "--out") as tmp_out, atomic_path(fig_path, "--figure") as tmp_fig:
        res.save(tmp_out)  # both files are renamed into place only once both are complete
        res.plot(tmp_fig)
    if grid_note:
        say(grid_note)
    say(f"{res.n_points} points × {0 if res.wl is None else res.wl.size} wavelengths in {res.seconds:.3g} s "
        f"({res.evaluations_per_second:.4g} evaluations/s; compile {res.compile_seconds:.2g} s)")
    say(f"wrote {out} and {fig_path}")
