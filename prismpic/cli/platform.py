"""The ``mode``, ``loss`` and ``tables`` commands: the ridge's modes, a ring's loss by cause and the dispersion tables
behind them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from prismpic.cli.common import app, check_out_dir, check_out_file, cli_errors, console, progress_bar, say
from prismpic.pdk.platforms import platform_names
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, RIDGE_WIDTH, RING_RADIUS, SIDEWALL_ANGLE_DEG


def mode_geometry(platform: str | None, **given) -> dict:
    """The stack ``mode`` solves: the options given (not None) over the preset's values (``--platform``), over
    prismpic's defaults; keys ``film_thickness``, ``etch_depth``, ``sidewall_angle_deg``, ``cladding``."""
    from prismpic.pdk.platforms import get_platform

    preset = get_platform(platform or "prismpic", "--platform").settings()
    return {k: preset[k] if given[k] is None else given[k] for k in given}


@app.command()
@cli_errors
def mode(
    wl: Annotated[float, typer.Option(help="wavelength (µm)")] = 1.55,
    width: Annotated[float, typer.Option(help="ridge top width, as drawn (µm)")] = RIDGE_WIDTH,
    film_thickness: Annotated[float | None, typer.Option(help=f"LN film thickness (µm; default {FILM_THICKNESS:g} "
                                                              "or the platform's)")] = None,
    etch_depth: Annotated[float | None, typer.Option(help=f"etch depth (µm; default {ETCH_DEPTH:g} or the "
                                                          "platform's)")] = None,
    sidewall_angle: Annotated[float | None, typer.Option(help="sidewall angle from the horizontal (°; 90 = vertical; "
                                                              f"default {SIDEWALL_ANGLE_DEG:g} or the platform's)")]
    = None,
    cladding: Annotated[str | None, typer.Option(help=f"cladding above the ridge: sio2 or air (default {CLADDING} "
                                                      "or the platform's)")] = None,
    polarization: Annotated[str, typer.Option(help="te or tm")] = "te",
    radius: Annotated[float, typer.Option(help="bend radius (µm); inf for straight")] = float("inf"),
    solve: Annotated[bool, typer.Option(help="also run the full-vector mode solver")] = False,
    platform: Annotated[str | None, typer.Option("--platform", help=f"stack preset ({', '.join(platform_names())}): "
                                                                     "film, etch, wall angle and cladding; the "
                                                                     "options above win")] = None,
):
    """Print n_eff, n_g and Γ of the ridge from the compact model (and a fresh solve), for both propagation
    directions in the X-cut film, with the geometry they are for."""
    import math

    from prismpic.pdk import dispersion
    from prismpic.pdk.ridge_geometry import mode_label
    from prismpic.pdk.ridge_stack import RidgeStack

    stack = mode_geometry(platform, film_thickness=film_thickness, etch_depth=etch_depth,
                          sidewall_angle_deg=sidewall_angle, cladding=cladding)
    film_thickness, etch_depth = stack["film_thickness"], stack["etch_depth"]
    sidewall_angle, cladding = stack["sidewall_angle_deg"], stack["cladding"]
    geo = dict(width=width, film_thickness=film_thickness, etch_depth=etch_depth)
    wall = dict(sidewall_angle_deg=sidewall_angle, cladding=cladding)
    ridge = RidgeStack.from_params({**geo, **wall})
    pol = polarization.lower()
    bend = "straight" if math.isinf(radius) else f"bend radius {radius:g} µm"
    title = (f"{'platform ' + platform + ': ' if platform else ''}"
             f"ridge {width:g} µm wide (top), film {film_thickness:g} µm, etch {etch_depth:g} µm "
             f"(slab {film_thickness - etch_depth:.4g} µm), wall {sidewall_angle:g}°, {cladding} cladding, {bend}, "
             f"λ = {wl:g} µm")
    table = Table("quantity", *(mode_label(pol, a) for a in "zy"), title=title)
    table.add_row("n_eff (compact)", *(f"{float(dispersion.neff(wl, ridge, radius, pol, a)):.5f}" for a in "zy"))
    table.add_row("n_g (compact)", *(f"{float(dispersion.ng(wl, ridge, radius, pol, a)):.5f}" for a in "zy"))
    table.add_row("Γ (EO overlap, TE, E ∥ z)", f"{float(dispersion.eo_overlap(wl, ridge)):.4f}", "")
    if solve:
        from prismpic.pdk import modesolver

        vals = [modesolver.solve_ridge_summary(wl=wl, **geo, radius=radius, polarization=pol, crystal_axis=a, **wall)
                for a in "zy"]
        table.add_row("n_eff (solver)", *(f"{v['neff']:.5f}" for v in vals))
        table.add_row("n_g (solver)", *(f"{v['ng']:.5f}" for v in vals))
    console.print(table)


LOSS_DEVICES = ("ring", "mzm", "phase_shifter")


def cell_default(device: str, name: str) -> float:
    """The default of parameter ``name`` of the cell ``device`` (``mzm`` or ``phase_shifter``)."""
    import inspect

    from prismpic.components import modulators

    return float(inspect.signature(getattr(modulators, device)).parameters[name].default)


@app.command()
@cli_errors
def loss(
    device: Annotated[str, typer.Option(help="ring, mzm (push-pull) or phase_shifter")] = "ring",
    wl: Annotated[float, typer.Option(help="wavelength (µm)")] = 1.55,
    radius: Annotated[float | None, typer.Option(help=f"ring radius (µm; ring only, default {RING_RADIUS:g})")]
    = None,
    electrode_gap: Annotated[list[float] | None, typer.Option(help="electrode edge-to-edge gap (µm; mzm and "
                                                                   "phase_shifter only, default 5, the cells'); "
                                                                   "repeat it to compare gaps")] = None,
    length: Annotated[float | None, typer.Option(help="section length for its loss in dB (µm; mzm and "
                                                      "phase_shifter only, default the cell's)")] = None,
    width: Annotated[float, typer.Option(help="ridge top width, as drawn (µm)")] = RIDGE_WIDTH,
    sigma_nm: Annotated[float | None, typer.Option(help="RMS sidewall roughness (nm; default: calibrated to the "
                                                        "foundry rib, pdk/scattering.py)")] = None,
    correlation_nm: Annotated[float, typer.Option(help="roughness correlation length (nm)")] = 50.0,
    platform: Annotated[str | None, typer.Option("--platform", help=f"stack preset ({', '.join(platform_names())})")]
    = None,
):
    """Print a device's loss by cause from physics (absorption, sidewall scattering, bend radiation, the electrodes'
    gold) and the same over the process's roughness corners: for the ring with its intrinsic Q, for an MZM arm or a
    phase shifter between its electrodes with Vπ·L and Vπ·L·α (the voltage–loss figure)."""
    from prismpic.checks import check_choice
    from prismpic.pdk import scattering
    from prismpic.pdk.platforms import get_platform
    from prismpic.pdk.ridge_stack import RidgeStack

    check_choice("--device", device, LOSS_DEVICES)
    ring = device == "ring"
    for name, value in (("--radius", radius), ("--electrode-gap", electrode_gap or None), ("--length", length)):
        if value is not None and (name == "--radius") != ring:
            raise ValueError(f"{name} does not apply to --device {device}")
    rough = None if sigma_nm is None else scattering.Roughness(sigma_nm=sigma_nm, correlation_nm=correlation_nm)
    preset = get_platform(platform or "prismpic", "--platform").settings()
    ridge = RidgeStack.from_params({**preset, "width": width})
    stack = (f"ridge {width:g} µm, film {ridge.film_thickness:g} µm, etch {ridge.etch_depth:g} µm, wall "
             f"{ridge.sidewall_angle_deg:g}°, {ridge.cladding}, λ = {wl:g} µm")
    if ring:
        _print_ring_budget(ridge, RING_RADIUS if radius is None else radius, preset["electrode_height"], wl, rough,
                           stack)
    else:
        gaps = electrode_gap or [cell_default(device, "electrode_gap")]
        length = cell_default(device, "length") if length is None else length
        if len(gaps) == 1:
            _print_pockels_budget(device, ridge, gaps[0], length, preset["electrode_height"], wl, rough, stack)
        else:
            _print_pockels_gaps(device, ridge, gaps, length, preset["electrode_height"], wl, rough, stack)


def _print_ring_budget(ridge, radius: float, electrode_height, wl: float, rough, stack: str) -> None:
    from prismpic.components.loss_budget import budget_over_roughness, ring_loss_budget
    from prismpic.components.ring_design import RingDesign

    ring = RingDesign(radius=radius, electrode_height=electrode_height, ridge=ridge)
    budget = ring_loss_budget(ring, wl, rough)
    console.print(f"ring R = {radius:g} µm, {stack}; roughness σ {budget.roughness.sigma_nm:.2f} nm, "
                  f"L_c {budget.roughness.correlation_nm:g} nm")
    table = Table("cause", "dB/cm")
    for name, key in (("LN absorption", "absorption_db_per_cm"), ("sidewall scattering", "scattering_db_per_cm"),
                      ("bend radiation", "bend_db_per_cm"), ("electrode gold", "metal_db_per_cm"),
                      ("total", "total_db_per_cm")):
        table.add_row(name, f"{budget.as_dict()[key]:.4g}")
    table.add_row("intrinsic Q", f"{budget.q_intrinsic:.4g}")
    console.print(table)
    corners = Table("roughness corner", "σ (nm)", "L_c (nm)", "scattering (dB/cm)", "total (dB/cm)", "Q_i",
                    title="over the process's roughness (pdk/scattering.py: roughness_spread)")
    for name, b in budget_over_roughness(budget, ring, wl).items():
        corners.add_row(name, f"{b.roughness.sigma_nm:.2f}", f"{b.roughness.correlation_nm:g}",
                        f"{b.scattering_db_per_cm:.4g}", f"{b.total_db_per_cm:.4g}", f"{b.q_intrinsic:.4g}")
    console.print(corners)


def _pockels_budgets(device: str, ridge, gaps: list[float], length: float, electrode_height, wl: float,
                     rough) -> list:
    """The Pockels section's budget at each gap (``loss_budget.pockels_loss_budget``), the options checked first."""
    from prismpic.checks import check_range
    from prismpic.components.loss_budget import pockels_loss_budget
    from prismpic.components.modulators import check_electrode_clearance

    check_range("--length", length, 1.0, 1e5, unit="µm")
    for gap in gaps:
        check_electrode_clearance("--electrode-gap", gap, float(ridge.width), electrode_height=electrode_height)
    return [pockels_loss_budget(ridge, gap, wl, electrode_height, device == "mzm", rough) for gap in gaps]


def _print_pockels_budget(device: str, ridge, gap: float, length: float, electrode_height, wl: float, rough,
                          stack: str) -> None:
    from prismpic.components.loss_budget import pockels_loss_budget
    from prismpic.pdk import scattering

    push_pull = device == "mzm"
    (budget,) = _pockels_budgets(device, ridge, [gap], length, electrode_height, wl, rough)
    place = "on the slab" if electrode_height is None else f"{electrode_height:g} µm above the film"
    console.print(f"{device} section, electrode gap {gap:g} µm ({place}), {stack}; roughness σ "
                  f"{budget.roughness.sigma_nm:.2f} nm, L_c {budget.roughness.correlation_nm:g} nm")
    table = Table("cause", "dB/cm", f"dB over {length:g} µm")
    for name, key in (("LN absorption", "absorption_db_per_cm"), ("sidewall scattering", "scattering_db_per_cm"),
                      ("electrode gold", "metal_db_per_cm"), ("total", "total_db_per_cm")):
        value = budget.as_dict()[key]
        table.add_row(name, f"{value:.4g}", f"{value * length * 1e-4:.4g}")
    console.print(table)
    console.print(f"Vπ·L {budget.vpi_l_v_cm:.4g} V·cm ({'push-pull' if push_pull else 'one arm'}), Vπ "
                  f"{budget.vpi_l_v_cm * 1e4 / length:.4g} V over {length:g} µm; Vπ·L·α {budget.vpi_loss_v_db:.4g} V·dB")
    corners = Table("roughness corner", "σ (nm)", "L_c (nm)", "scattering (dB/cm)", "total (dB/cm)", "Vπ·L·α (V·dB)",
                    title="over the process's roughness (pdk/scattering.py: roughness_spread)")
    for name, r in scattering.roughness_spread().items():
        b = pockels_loss_budget(ridge, gap, wl, electrode_height, push_pull, r)  # the gold is read back, not solved
        corners.add_row(name, f"{r.sigma_nm:.2f}", f"{r.correlation_nm:g}", f"{b.scattering_db_per_cm:.4g}",
                        f"{b.total_db_per_cm:.4g}", f"{b.vpi_loss_v_db:.4g}")
    console.print(corners)


def _print_pockels_gaps(device: str, ridge, gaps: list[float], length: float, electrode_height, wl: float, rough,
                        stack: str) -> None:
    """One row per electrode gap: Vπ·L, the gold, the section's loss and Vπ·L·α (the least marked)."""
    budgets = _pockels_budgets(device, ridge, gaps, length, electrode_height, wl, rough)
    least = min(range(len(gaps)), key=lambda i: budgets[i].vpi_loss_v_db)
    console.print(f"{device} section over electrode gaps, {stack}; roughness σ {budgets[0].roughness.sigma_nm:.2f} nm")
    table = Table("gap (µm)", "Vπ·L (V·cm)", "gold (dB/cm)", "total (dB/cm)", f"dB over {length:g} µm",
                  "Vπ·L·α (V·dB)")
    for i, (gap, b) in enumerate(zip(gaps, budgets, strict=True)):
        table.add_row(f"{gap:g}", f"{b.vpi_l_v_cm:.4g}", f"{b.metal_db_per_cm:.4g}", f"{b.total_db_per_cm:.4g}",
                      f"{b.loss_db(length):.4g}", f"{b.vpi_loss_v_db:.4g}" + (" (least)" if i == least else ""))
    console.print(table)


DEFAULT_TABLES_DIR = Path("prismpic-tables")


@app.command()
@cli_errors
def tables(
    out: Annotated[Path | None, typer.Option(help="output folder, created if missing (default ./prismpic-tables)")]
    = None,
    install: Annotated[bool, typer.Option("--install", help="write into the package's own data folder instead, "
                                                            "replacing the tables every model reads")] = False,
    reuse: Annotated[bool, typer.Option("--reuse/--no-reuse", help="copy every block the package's tables already "
                                                                  "hold with the same grid and mesh (default) "
                                                                  "instead of solving it again")] = True,
):
    """Regenerate the dispersion, coupler and bend radiation tables from the mode solver (about 60 + 55 + 22 minutes
    on 2 cores; restartable).

    The tables go to --out (default ./prismpic-tables); the tables the models read (the package's data folder,
    prismpic/pdk/data) change only with --install. Tables built with --out are installed by copying their
    dispersion_tables.*, coupler_tables.* and bend_radiation.* files into that folder. With --reuse (default) only the blocks
    whose grid or mesh differs from the package's tables are solved (--no-reuse: all of them).
    """
    from prismpic.pdk import bend_radiation as br
    from prismpic.pdk import coupler_table as ct
    from prismpic.pdk import tables as tb

    if install and out is not None:
        raise ValueError(f"--out = {str(out)!r} and --install exclude each other: --install writes into the "
                         f"package data folder {str(tb.DATA_DIR)!r}")
    target = tb.DATA_DIR if install else (DEFAULT_TABLES_DIR if out is None else out)
    what = "--install" if install else "--out"
    if target.exists():
        if not target.is_dir():
            raise ValueError(f"{what} = {str(target)!r} exists and is not a directory")
        for name in ("dispersion_tables.npz", f"{ct.TABLE_NAME}.npz", f"{br.TABLE_NAME}.npz"):
            check_out_file(target / name, what)
    else:
        check_out_dir(target, what)
    from prismpic.fileio import created_folder

    with created_folder(target, what), progress_bar() as prog:
        task = prog.add_task("mode solves", total=1)
        tb.build_tables(out_dir=target, progress=lambda done, total: prog.update(task, completed=done, total=total),
                        reuse_from=tb.DATA_DIR if reuse else None)
        task = prog.add_task("coupler solves", total=1)
        ct.build_table(out_dir=target, progress=lambda done, total: prog.update(task, completed=done, total=total),
                       reuse_from=tb.DATA_DIR if reuse else None)
        task = prog.add_task("bend radiation solves", total=1)
        br.build_table(out_dir=target, progress=lambda done, total: prog.update(task, completed=done, total=total),
                       reuse_from=tb.DATA_DIR if reuse else None)
    say(f"tables written to {target}" + ("" if install else f"; the package's tables are unchanged (to use these, "
                                                             f"copy dispersion_tables.*, {ct.TABLE_NAME}.* and {br.TABLE_NAME}.* into "
                                                             f"{tb.DATA_DIR})"))


# ---------------------------------------------------------------------------- calibrate, sweep
