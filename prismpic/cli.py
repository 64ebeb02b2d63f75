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
    """A parameter file (e.g. written by ``prismpic calibrate``), checked by ``calibration.load_params``; {} for None."""
    from prismpic.analysis.calibration import load_params as load_checked

    return {} if path is None else load_checked(path)


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
    from prismpic.fileio import write_gds_atomic
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
    write_gds_atomic(comp, out)
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
        table.add_row(e.id, e.quantity, fmt(e.claimed), fmt(e.modeled), e.unit, f"[{colour}]{e.verdict}[/]", e.reason)
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


# ---------------------------------------------------------------------------- calibrate, sweep
calibrate_app = typer.Typer(no_args_is_help=True, help="Calibrate device models against measured specs and data.")
app.add_typer(calibrate_app, name="calibrate")


def _write_outputs(result, out: Path, figure: Path | None, plot: bool = True) -> list[Path]:
    """Figure then JSON, each atomically; the figure is removed again if the JSON cannot be written."""
    written = []
    if out.suffix.lower() != ".json":
        raise ValueError(f"out = {str(out)!r} must end in .json")
    if not out.parent.is_dir():
        raise ValueError(f"out = {str(out)!r}: the parent directory {str(out.parent)!r} does not exist")
    if plot:
        fig = figure or out.with_suffix(".png")
        written.append(result.plot(fig))
    try:
        written.append(result.write(out))
    except BaseException:
        for w in written:
            w.unlink(missing_ok=True)
        raise
    return written


def _print_ring(cal) -> None:
    s, e = cal.specs, cal.errors
    table = Table("spec", "value", "±1σ", title=f"calibrated {cal.kind} ring ({cal.source.get('from')})")
    for k, fmt in (("fsr_nm", ".5g"), ("fwhm_nm", ".4g"), ("q_loaded", ".5g"), ("q_intrinsic", ".4g"),
                   ("extinction_db", ".4g"), ("resonance_nm", ".4f"), ("ng", ".5g")):
        v, err = s.get(k), e.get(k)
        table.add_row(k, "not separable" if v is None else format(v, fmt), "" if err is None else f"{err:.2g}")
    console.print(table)
    t2 = Table("parameter", "value", "±1σ", "design", title="fitted physical parameters")
    for k, fp in cal.fitted.items():
        t2.add_row(k, f"{fp.value:.6g}", "" if fp.stderr is None else f"{fp.stderr:.2g}",
                   "" if fp.design is None else f"{fp.design:.6g}")
    for k, fp in cal.nuisance.items():
        t2.add_row(f"(nuisance) {k}", f"{fp.value:.5g}", "" if fp.stderr is None else f"{fp.stderr:.2g}", "")
    console.print(t2)
    if "chi2_reduced" in cal.fit:
        console.print(f"fit: reduced χ² = {cal.fit['chi2_reduced']:.3g} over {cal.fit['n_points']} points, "
                      f"{cal.fit['time_s']:.2f} s", markup=False)
    for a in cal.ambiguities:
        console.print(f"cannot separate: {a}", markup=False)
    for n in cal.notes:
        console.print(f"note: {n}", markup=False)


@calibrate_app.command("ring")
@cli_errors
def calibrate_ring_cmd(
    out: Annotated[Path, typer.Option("--out", help="parameter file to write (.json)")],
    spectrum: Annotated[Path | None, typer.Option("--spectrum", help="measured spectrum CSV")] = None,
    fsr: Annotated[float | None, typer.Option("--fsr", help="free spectral range (nm)")] = None,
    q: Annotated[float | None, typer.Option("--q", help="loaded Q")] = None,
    er: Annotated[float | None, typer.Option("--er", help="through-port extinction (dB)")] = None,
    resonance: Annotated[float | None, typer.Option("--resonance", help="a resonance wavelength (nm)")] = None,
    radius: Annotated[float | None, typer.Option("--radius", help="ring radius (µm)")] = None,
    drop_loss: Annotated[float | None, typer.Option("--drop-loss", help="drop loss at resonance (dB)")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="add_drop or all_pass")] = None,
    coupling: Annotated[str | None, typer.Option("--coupling", help="symmetric, under or over")] = None,
    ng_param: Annotated[str, typer.Option("--ng-param", help="geometry fitted to n_g: width or film_thickness")] = "width",
    baseline: Annotated[str, typer.Option("--baseline", help="shared or separate (spectrum)")] = "shared",
    baseline_order: Annotated[int, typer.Option("--baseline-order", help="baseline polynomial order in dB")] = 1,
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (default: OUT with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="design ring parameter key=value")] = None,
):
    """Fit the ring model's physical parameters to specs (--fsr --q --er) or a measured --spectrum."""
    from prismpic.analysis import calibration as cal_mod

    design = parse_settings(set_)
    specs_given = [n for n, v in (("--fsr", fsr), ("--q", q), ("--er", er)) if v is not None]
    if spectrum is not None:
        if specs_given or drop_loss is not None:
            raise ValueError(f"give --spectrum or the specs (--fsr --q --er), not both ({', '.join(specs_given)} given)")
        if radius is None:
            raise ValueError("--spectrum needs --radius (µm): the ring length fixes n_g from the measured FSR")
        if resonance is not None:
            raise ValueError("--resonance is measured from --spectrum; leave it out")
        res = cal_mod.calibrate_ring_csv(spectrum, radius=radius, kind=kind, coupling=coupling, ng_param=ng_param,
                                         baseline=baseline, baseline_order=baseline_order, design=design)
    else:
        missing = [n for n, v in (("--fsr", fsr), ("--q", q), ("--er", er)) if v is None]
        if missing:
            raise ValueError(f"give --spectrum FILE.csv, or all of --fsr --q --er (missing {' '.join(missing)})")
        res = cal_mod.calibrate_ring_specs(fsr, q, er, resonance_nm=resonance, radius=radius, kind=kind or "add_drop",
                                           coupling=coupling, drop_loss_db=drop_loss, ng_param=ng_param,
                                           design=design)
    written = _write_outputs(res, out, figure)
    _print_ring(res)
    console.print(f"wrote {', '.join(str(w) for w in written[::-1])}", markup=False)


@calibrate_app.command("mzm")
@cli_errors
def calibrate_mzm_cmd(
    spectrum: Annotated[Path, typer.Option("--spectrum", help="transfer curve CSV: voltage_v, transmission[_db]")],
    out: Annotated[Path, typer.Option("--out", help="parameter file to write (.json)")],
    wl: Annotated[float | None, typer.Option("--wl", help="wavelength (µm), if not in the file")] = None,
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (default: OUT with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="design mzm_model parameter key=value")] = None,
):
    """Vπ, insertion loss and extinction of an MZM from its transfer curve (mzm_model fitted)."""
    from prismpic.analysis import calibration as cal_mod

    kw = {"design": parse_settings(set_)}
    if wl is not None:
        kw["wl"] = wl
    res = cal_mod.calibrate_mzm_csv(spectrum, **kw)
    written = _write_outputs(res, out, figure)
    console.print(f"Vπ = {res.vpi_v:.4g} ± {res.vpi_v_err:.2g} V, insertion loss = {res.insertion_loss_db:.3g} dB, "
                  f"extinction = {res.extinction_db:.3g} dB", markup=False)
    console.print(f"wrote {', '.join(str(w) for w in written[::-1])}", markup=False)


@calibrate_app.command("pcm")
@cli_errors
def calibrate_pcm_cmd(
    levels: Annotated[Path, typer.Option("--levels", help="CSV: [level,] transmission[_db] [, wavelength_nm]")],
    out: Annotated[Path, typer.Option("--out", help="parameter file to write (.json)")],
    absolute: Annotated[bool, typer.Option("--absolute", help="levels are absolute, not relative to amorphous")] = False,
    wl: Annotated[float | None, typer.Option("--wl", help="wavelength (µm), if not in the file")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="pcm cell geometry key=value")] = None,
):
    """Crystalline fraction of each measured transmission level of a GSST cell."""
    from prismpic.analysis import calibration as cal_mod

    kw = {"design": parse_settings(set_), "relative": not absolute}
    if wl is not None:
        kw["wl"] = wl
    res = cal_mod.calibrate_pcm_csv(levels, **kw)
    written = _write_outputs(res, out, None, plot=False)
    table = Table("level", "transmission (dB)", "crystalline fraction", "±1σ")
    for lv in res.levels:
        err = lv["crystalline_fraction_err"]
        table.add_row(str(lv["level"]), f"{lv['transmission_db']:.4g}", f"{lv['crystalline_fraction']:.4f}",
                      "" if err is None else f"{err:.2g}")
    console.print(table)
    console.print(f"wrote {written[-1]}", markup=False)


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


def main() -> None:  # pragma: no cover
    sys.exit(app())


if __name__ == "__main__":  # pragma: no cover
    main()
