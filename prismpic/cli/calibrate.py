"""The ``calibrate`` commands: device models fitted to measured specs and data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from prismpic.cli.common import (
    FIGURE_SUFFIXES,
    app,
    check_distinct,
    check_in_file,
    check_out_file,
    cli_errors,
    console,
    parse_settings,
    say,
)

calibrate_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,
                            help="Calibrate device models against measured specs and data.")
app.add_typer(calibrate_app, name="calibrate")


def check_outputs(out: Path, figure: Path | None, plot: bool = True, **inputs: Path | None) -> Path | None:
    """--out (.json) and the figure (default: OUT with .png) checked before the fit; returns the figure path."""
    check_out_file(out, suffixes=(".json",))
    fig = (figure or out.with_suffix(".png")) if plot else None
    if fig is not None:
        check_out_file(fig, "--figure", suffixes=FIGURE_SUFFIXES)
    check_distinct(out=out, figure=fig, **inputs)
    return fig


def _write_outputs(result, out: Path, figure: Path | None) -> list[Path]:
    """Figure and JSON, each complete, renamed into place together once both are written."""
    from prismpic.fileio import atomic_path

    if figure is None:
        return [result.write(out)]
    with atomic_path(out, "--out") as tmp_out, atomic_path(figure, "--figure") as tmp_fig:
        result.plot(tmp_fig)
        result.write(tmp_out)
    return [figure, out]


def _design(set_: list[str] | None) -> dict:
    """``--set`` design parameters, each a number (the library then checks names and ranges)."""
    from prismpic.checks import check_number

    design = parse_settings(set_)
    for k, v in design.items():
        if not (v is None and k == "gap_drop"):
            check_number(f"--set {k}", v)
    return design


def _print_ring(cal) -> None:
    s, e = cal.specs, cal.errors
    table = Table("spec", "value", "±1σ", title=Text(f"calibrated {cal.kind} ring ({cal.source.get('from')})"))
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
        say(f"cannot separate: {a}")
    for n in cal.notes:
        say(f"note: {n}")


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
    from prismpic.analysis.calibration.ring_start import design_params
    from prismpic.checks import check_choice

    design = _design(set_)
    if kind is not None:
        check_choice("--kind", kind, ("add_drop", "all_pass"))
    if coupling is not None:
        check_choice("--coupling", coupling, ("symmetric", "under", "over"))
    check_choice("--ng-param", ng_param, ("width", "film_thickness"))
    check_choice("--baseline", baseline, ("shared", "separate"))
    if not 0 <= baseline_order <= 2:
        raise ValueError(f"--baseline-order = {baseline_order} must be an integer in [0, 2]")
    if spectrum is not None:
        check_in_file(spectrum, "--spectrum")
    fig = check_outputs(out, figure, spectrum=spectrum)
    try:
        design_params(kind or "add_drop", design)  # names and the model's range checks, before any fit
    except ValueError as e:
        raise ValueError(f"--set: {e}") from None
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
    written = _write_outputs(res, out, fig)
    _print_ring(res)
    say(f"wrote {', '.join(str(w) for w in written[::-1])}")


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

    kw = {"design": _design(set_)}
    if wl is not None:
        kw["wl"] = wl
    check_in_file(spectrum, "--spectrum")
    fig = check_outputs(out, figure, spectrum=spectrum)
    res = cal_mod.calibrate_mzm_csv(spectrum, **kw)
    written = _write_outputs(res, out, fig)
    say(f"Vπ = {res.vpi_v:.4g} ± {res.vpi_v_err:.2g} V, insertion loss = {res.insertion_loss_db:.3g} dB, "
        f"extinction = {res.extinction_db:.3g} dB")
    say(f"wrote {', '.join(str(w) for w in written[::-1])}")


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

    kw = {"design": _design(set_), "relative": not absolute}
    if wl is not None:
        kw["wl"] = wl
    check_in_file(levels, "--levels")
    check_outputs(out, None, plot=False, levels=levels)
    res = cal_mod.calibrate_pcm_csv(levels, **kw)
    written = _write_outputs(res, out, None)
    table = Table("level", "transmission (dB)", "crystalline fraction", "±1σ")
    for lv in res.levels:
        err = lv["crystalline_fraction_err"]
        table.add_row(Text(str(lv["level"])), f"{lv['transmission_db']:.4g}", f"{lv['crystalline_fraction']:.4f}",
                      "" if err is None else f"{err:.2g}")
    console.print(table)
    say(f"wrote {written[-1]}")
