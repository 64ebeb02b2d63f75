"""The ``calibrate`` commands: device models fitted to measured specs and data."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Column, Table
from rich.text import Text

from prismpic.cli.common import (
    FIGURE_SUFFIXES,
    app,
    check_distinct,
    check_in_file,
    check_out_file,
    chosen_platform,
    cli_errors,
    console,
    parse_settings,
    platform_help,
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


def _design(set_: list[str] | None, platform: str | None = None, model=None) -> dict:
    """``--set`` design parameters, each a number (the library then checks names and ranges), over the values
    ``model`` takes from the platform preset (``--platform`` or ``--set platform=NAME``)."""
    from prismpic.checks import check_number
    from prismpic.pdk.platforms import preset_settings

    preset = chosen_platform(set_, platform)
    design = parse_settings([s for s in set_ or [] if s.partition("=")[0].strip() != "platform"])
    for k, v in design.items():
        if not (v is None and k == "gap_drop"):
            check_number(f"--set {k}", v)
    return design if preset is None else {**preset_settings(preset, model), **design}


def _print_ring(cal) -> None:
    s, e = cal.specs, cal.errors
    table = Table("spec", "value", "±1σ", title=Text(f"calibrated {cal.kind} ring ({cal.source.get('from')})"))
    for k, fmt in (("fsr_nm", ".5g"), ("fwhm_nm", ".4g"), ("q_loaded", ".5g"), ("q_intrinsic", ".4g"),
                   ("extinction_db", ".4g"), ("resonance_nm", ".4f"), ("ng", ".5g")):
        v, err = s.get(k), e.get(k)
        table.add_row(k, "not separable" if v is None else format(v, fmt), "" if err is None else f"{err:.2g}")
    console.print(table)
    t2 = Table(Column("parameter", no_wrap=True), "value", "±1σ", "prior (±1σ)", "fixed by", "design",
               title="fitted physical parameters (±1σ posterior; fixed by: the data or the prior)")
    for k, fp in cal.fitted.items():
        prior = "" if fp.prior_sigma is None else f"{fp.prior_mean:.6g} ± {fp.prior_sigma:.2g}"
        t2.add_row(k, f"{fp.value:.6g}", "" if fp.sigma is None else f"{fp.sigma:.2g}", prior,
                   fp.determined_by or "data", "" if fp.design is None else f"{fp.design:.6g}")
    for k, fp in cal.nuisance.items():
        t2.add_row(f"(nuisance) {k}", f"{fp.value:.5g}", "" if fp.sigma is None else f"{fp.sigma:.2g}", "", "", "")
    console.print(t2)
    if cal.correction.get("applied"):
        say(f"effective-index correction applied: Δn_eff = {cal.correction['dneff']:+.5f}, Δn_g = "
            f"{cal.correction['dng']:+.5f} at {cal.correction['wl0_um']:g} µm ({cal.correction['reason']})")
    if "chi2_reduced" in cal.fit:
        rs = cal.fit.get("residual_structure") or {}
        extra = "" if rs.get("runs_z") is None else (f", residual runs z = {rs['runs_z']:.2g}, lag-1 ρ = "
                                                      f"{rs['lag1_autocorrelation']:.2g}")
        say(f"fit: reduced χ² = {cal.fit['chi2_reduced']:.3g} over {cal.fit['n_points']} points{extra}, "
            f"{cal.fit['time_s']:.2f} s")
    for a in cal.ambiguities:
        say(f"cannot separate: {a}")
    for n in cal.notes:
        if not n.startswith("effective-index correction applied"):  # said above
            say(f"note: {n}")
    for f in cal.flags:
        say(f"flag: {f}")


def _ring_model(kind: str | None):
    """The ring model of ``--kind`` (the design's defaults and the preset's values come from it)."""
    from prismpic.components import rings

    return rings.ring_all_pass_model if kind == "all_pass" else rings.ring_add_drop_model


def _ring_kwargs(kind, coupling, baseline, baseline_order, ripple, split, wavelength_offset, chi2_max) -> dict:
    """The spectrum-fit keyword arguments of the options, each checked (names as the options)."""
    from prismpic.analysis.calibration.ring.spectrum import CHOICES
    from prismpic.checks import check_choice, check_range

    if kind is not None:
        check_choice("--kind", kind, ("add_drop", "all_pass"))
    if coupling is not None:
        check_choice("--coupling", coupling, ("symmetric", "under", "over"))
    check_choice("--baseline", baseline, CHOICES["baseline"])
    check_choice("--ripple", ripple, CHOICES["ripple"])
    check_choice("--split", split, CHOICES["split"])
    baseline_order = _baseline_order(baseline_order)
    check_range("--wavelength-offset", wavelength_offset, -5.0, 5.0, unit="nm")
    check_range("--chi2-max", chi2_max, 1.0, 1e6)
    return {"kind": kind, "coupling": coupling, "baseline": baseline, "baseline_order": baseline_order,
            "ripple": ripple, "split": split, "wavelength_offset_nm": wavelength_offset, "chi2_max": chi2_max}


def _baseline_order(value: str) -> int | str:
    """``--baseline-order``: 'auto' (the data's order) or an integer 0–6."""
    from prismpic.analysis.calibration.ring.lineshape import MAX_ORDER

    if value == "auto":
        return value
    try:
        order = int(value)
    except ValueError:
        order = -1
    if not 0 <= order <= MAX_ORDER:
        raise ValueError(f"--baseline-order = {value} must be 'auto' or an integer in [0, {MAX_ORDER}]")
    return order


def _family(value: str | None):
    """``--family``: None, 'te', 'tm', 'deepest' or a family number (int)."""
    if value is None or value in ("te", "tm", "deepest"):
        return value
    if value.isdigit():
        return int(value)
    raise ValueError(f"--family = {value!r} must be te, tm, deepest or a family number N >= 0")


def _process(path: Path | None):
    """The ``--process`` description (checked now), or None for the default process."""
    if path is None:
        return None
    from prismpic.pdk.process import load_process

    check_in_file(path, "--process")
    try:
        return load_process(path)
    except ValueError as e:
        raise ValueError(f"--process: {e}") from None


@calibrate_app.command("ring")
@cli_errors
def calibrate_ring_cmd(
    out: Annotated[Path, typer.Option("--out", help="parameter file to write (.json); with --spectra the folder")],
    spectrum: Annotated[Path | None, typer.Option("--spectrum", help="measured spectrum CSV")] = None,
    spectra: Annotated[str | None, typer.Option("--spectra", help="a wafer: glob ('DIR/*.csv'), folder or manifest "
                                                                  "CSV (file, die, x, y)")] = None,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="with --spectra: tcp://HOST:PORT (or "
                                                                      "tls://, with --tls-*) of a Dask scheduler "
                                                                      "(default: a local cluster)")] = None,
    workers: Annotated[int, typer.Option("--workers", help="with --spectra: local Dask workers")] = 2,
    resume: Annotated[bool, typer.Option("--resume", help="with --spectra: keep the devices recorded in --out "
                                                          "(same options, unchanged files), fit only the rest; exit "
                                                          "code 3 means some device did not run: resume")] = False,
    tls_ca_file: Annotated[Path | None, typer.Option("--tls-ca-file", help="with --scheduler tls://: CA "
                                                                           "certificate (PEM)")] = None,
    tls_cert: Annotated[Path | None, typer.Option("--tls-cert", help="with --scheduler tls://: client "
                                                                     "certificate (PEM)")] = None,
    tls_key: Annotated[Path | None, typer.Option("--tls-key", help="with --scheduler tls://: client private key "
                                                                   "(PEM)")] = None,
    fsr: Annotated[float | None, typer.Option("--fsr", help="free spectral range (nm)")] = None,
    q: Annotated[float | None, typer.Option("--q", help="loaded Q")] = None,
    er: Annotated[float | None, typer.Option("--er", help="through-port extinction (dB)")] = None,
    resonance: Annotated[float | None, typer.Option("--resonance", help="a resonance wavelength (nm)")] = None,
    radius: Annotated[float | None, typer.Option("--radius", help="drawn ring radius (µm); optional, default "
                                                                  "the ring cell's (20)")] = None,
    drop_loss: Annotated[float | None, typer.Option("--drop-loss", help="drop loss at resonance (dB)")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="add_drop or all_pass")] = None,
    coupling: Annotated[str | None, typer.Option("--coupling", help="symmetric, under or over")] = None,
    baseline: Annotated[str, typer.Option("--baseline", help="shared or separate (spectrum)")] = "shared",
    baseline_order: Annotated[str, typer.Option("--baseline-order", help="baseline polynomial order in dB, 0-6, "
                                                                         "or auto (chosen by the data)")] = "auto",
    ripple: Annotated[str, typer.Option("--ripple", help="facet Fabry-Perot ripple: auto, fit or off")] = "auto",
    split: Annotated[str, typer.Option("--split", help="split resonances (backscatter): auto, fit or off")] = "auto",
    wavelength_offset: Annotated[float, typer.Option("--wavelength-offset", help="added to the sweep's "
                                                                                 "wavelengths (nm)")] = 0.0,
    chi2_max: Annotated[float, typer.Option("--chi2-max", help="largest reduced chi2 accepted as a fit")] = 5.0,
    keep_failed: Annotated[bool, typer.Option("--keep-failed", help="write the parameter file of a failed fit "
                                                                    "(marked failed)")] = False,
    process: Annotated[Path | None, typer.Option("--process", help="process description JSON (priors; default "
                                                                   "the built-in process)")] = None,
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (default: OUT with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="design ring parameter key=value")] = None,
    platform: Annotated[str | None, typer.Option("--platform", help=platform_help(
        "the design stack the physical fit starts from and centres its priors on"))] = None,
    family: Annotated[str | None, typer.Option("--family", help="mode family of a spectrum: te, tm, deepest or a "
                                                                "number N (by increasing FSR); default the "
                                                                "design's")] = None,
    line_shape_only: Annotated[bool, typer.Option("--line-shape-only", help="with --spectrum: the line shape "
                                                                            "only (FSR, n_g with --radius, Q_L, Q_i, "
                                                                            "regime, ER, λ_r per resonance), for "
                                                                            "a ring of any platform; no physical "
                                                                            "fit")] = False,
):
    """Fit the ring model's physical parameters to specs (--fsr --q --er), a measured --spectrum or a wafer of
    --spectra. A fit that fails (no convergence, or a χ² the model cannot explain) exits with code 1; with
    --spectra: 1 when no device was fitted, 3 when some device did not run (lost Dask scheduler or workers:
    the folder is written without process.json; run the same command with --resume)."""
    if line_shape_only and chosen_platform(set_, platform) is not None:
        raise ValueError("--platform sets the stack of the physical fit; --line-shape-only runs none")
    design = _design(set_) if line_shape_only else _design(set_, platform, _ring_model(kind))
    if radius is not None:
        from prismpic.checks import check_range
        from prismpic.pdk.rules import RULES

        check_range("--radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
        design["radius"] = radius
    if line_shape_only:  # no model needed (nor imported)
        if spectrum is None or spectra is not None:
            raise ValueError("--line-shape-only reads one --spectrum FILE.csv")
        check_in_file(spectrum, "--spectrum")
        fig = check_outputs(out, figure, spectrum=spectrum)
        _line_shape(spectrum, out, fig, radius, coupling, _family(family), design)
        return
    from prismpic.analysis import calibration as cal_mod
    from prismpic.analysis.calibration.ring.start import design_params

    kw = _ring_kwargs(kind, coupling, baseline, baseline_order, ripple, split, wavelength_offset, chi2_max)
    kw["family"] = _family(family)
    proc = _process(process)
    try:
        design_params(kind or "add_drop", design)  # names and the model's range checks, before any fit
    except ValueError as e:
        raise ValueError(f"--set: {e}") from None
    specs_given = [n for n, v in (("--fsr", fsr), ("--q", q), ("--er", er), ("--drop-loss", drop_loss),
                                  ("--resonance", resonance)) if v is not None]
    sources = [n for n, v in (("--spectrum", spectrum), ("--spectra", spectra)) if v is not None]
    if len(sources) > 1 or (sources and specs_given):
        raise ValueError(f"give one of --spectrum, --spectra or the specs (--fsr --q --er); got "
                         f"{', '.join(sources + specs_given)}")
    batch_only = [n for n, v in (("--scheduler", scheduler), ("--workers", None if workers == 2 else workers),
                                 ("--resume", resume or None), ("--tls-ca-file", tls_ca_file),
                                 ("--tls-cert", tls_cert), ("--tls-key", tls_key)) if v is not None]
    if spectra is None and batch_only:
        raise ValueError(f"{', '.join(batch_only)}: options of a --spectra batch")
    if spectra is not None:
        if figure is not None or keep_failed:
            raise ValueError("--figure and --keep-failed are for one spectrum; a --spectra batch writes its own "
                             "figures and marks failed devices in its table")
        from prismpic.cli.calibrate_batch import ring_batch

        fit_kwargs = {k: v for k, v in kw.items() if v is not None} | {"design": design}
        if proc is not None:
            fit_kwargs["process"] = proc
        raise typer.Exit(ring_batch(spectra, out, scheduler, workers, fit_kwargs, resume=resume,
                                    tls_ca_file=tls_ca_file, tls_cert=tls_cert, tls_key=tls_key))
    if spectrum is not None:
        check_in_file(spectrum, "--spectrum")
    fig = check_outputs(out, figure, spectrum=spectrum, process=process)
    if spectrum is not None:
        with _naming(spectrum):
            res = cal_mod.calibrate_ring_csv(spectrum, design=design, process=proc, **kw)
    else:
        if fsr is None:
            raise ValueError("give --spectrum FILE.csv, or the specs: --fsr (with --q --er for the coupling and loss)")
        if (q is None) != (er is None):
            raise ValueError(f"{'--q' if er is None else '--er'} without {'--er' if er is None else '--q'}: give both "
                             "(the coupling and the loss need both) or neither (the FSR alone fits the indices)")
        spectrum_only = [n for n, v, d in (("--baseline", baseline, "shared"), ("--baseline-order", baseline_order, "auto"),
                                           ("--ripple", ripple, "auto"), ("--split", split, "auto"),
                                           ("--wavelength-offset", wavelength_offset, 0.0),
                                           ("--family", family, None)) if v != d]
        if spectrum_only:
            raise ValueError(f"{', '.join(spectrum_only)}: options of a --spectrum fit, not of a fit to specs")
        res = cal_mod.calibrate_ring_specs(fsr, q, er, resonance_nm=resonance, kind=kind or "add_drop",
                                           coupling=coupling, drop_loss_db=drop_loss, design=design, process=proc)
    if res.failed:
        written = _write_outputs(res, out, fig) if keep_failed else []
        kept = f"; wrote {', '.join(str(w) for w in written[::-1])} (marked failed)" if written else \
            " (nothing written; --keep-failed writes the failed fit's parameter file)"
        say(f"error: fit failed: {res.failure_reason}{kept}", stderr=True)
        raise typer.Exit(1)
    written = _write_outputs(res, out, fig)
    _print_ring(res)
    say(f"wrote {', '.join(str(w) for w in written[::-1])}")


@contextlib.contextmanager
def _naming(spectrum: Path):
    """A ValueError about the spectrum's content names the file (unless it does already)."""
    try:
        yield
    except ValueError as e:
        if spectrum.name in str(e):
            raise
        raise ValueError(f"{spectrum.name}: {e}") from None


def _line_shape(spectrum: Path, out: Path, fig: Path, radius, coupling, family, design: dict) -> None:
    """``--line-shape-only``: ``analyze_spectrum`` of the file, written as JSON with its figure."""
    import json

    from prismpic.analysis.measurements import read_spectrum_csv
    from prismpic.analysis.spectra import analyze_spectrum, plot_spectrum
    from prismpic.fileio import atomic_path, jsonable

    sp = read_spectrum_csv(spectrum)
    ng = None
    if family in ("te", "tm"):  # the design's (TFLN) TE family
        from prismpic.analysis.calibration.ring.start import design_params, ring_indices

        dp = design_params("add_drop" if sp.drop is not None else "all_pass", dict(design, radius=radius or 20.0))
        ng = float(ring_indices(dp, 1.55)[1])
    with _naming(spectrum):
        an = analyze_spectrum(sp.wl_nm, sp.through, sp.drop, radius_um=radius, coupling=coupling, family=family,
                              design_group_index=ng if radius is not None or ng is None else None)
    doc = {"kind": "ring line shape", "source": {"spectrum": spectrum.name}, "radius_um": radius,
           "physical_stage": "not run (--line-shape-only): the line shape holds for a ring of any platform; the "
                             "physical fit (gaps, loss, film, etch) models TFLN rings only",
           "analysis": an.to_dict()}
    with atomic_path(out, "--out") as tmp_out, atomic_path(fig, "--figure") as tmp_fig:
        plot_spectrum(an, tmp_fig, title=spectrum.name)
        tmp_out.write_text(json.dumps(jsonable(doc), indent=2, allow_nan=False) + "\n")
    ng_txt = f", n_g {an.n_group:.4g}" if an.n_group is not None else " (n_g needs --radius)"
    fsr_txt = f"FSR {an.fsr_nm:.4g} nm" if an.fsr_nm is not None else "one resonance (no FSR)"
    say(f"{len(an.resonances)} resonances; at {an.center_nm:.4f} nm: {fsr_txt}{ng_txt}, Q_L {an.q_loaded:.4g}, "
        f"ER {an.extinction_db:.3g} dB; physical stage not run (--line-shape-only)")
    for n in an.notes:
        say(f"note: {n}")
    say(f"wrote {fig}, {out}")


@calibrate_app.command("mzm")
@cli_errors
def calibrate_mzm_cmd(
    spectrum: Annotated[Path, typer.Option("--spectrum", help="transfer curve CSV: voltage_v, transmission[_db]")],
    out: Annotated[Path, typer.Option("--out", help="parameter file to write (.json)")],
    wl: Annotated[float | None, typer.Option("--wl", help="wavelength (µm), if not in the file")] = None,
    figure: Annotated[Path | None, typer.Option("--figure", help="figure (default: OUT with .png)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="design mzm_model parameter key=value")] = None,
    platform: Annotated[str | None, typer.Option("--platform", help=platform_help(
        "the design stack and electrode layout of the modulator"))] = None,
):
    """Vπ, insertion loss and extinction of an MZM from its transfer curve (mzm_model fitted)."""
    from prismpic.analysis import calibration as cal_mod
    from prismpic.components.modulators import mzm_model

    kw = {"design": _design(set_, platform, mzm_model)}
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
