"""The ``layout`` command: the GDS of any registered cell or circuit, DRC-checked.

Exit codes: 0 written and DRC-clean; ``DRC_EXIT_CODE`` (3) written but the DRC found violations (the GDS is
kept for inspection; one summary line on stderr); 2 bad input, nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, check_out_file, check_settings, cli_errors, parse_settings, platform_help, say

DEFAULT_DIR = Path("layouts/build")
DRC_EXIT_CODE = 3  # distinct from 2 (bad input) and 1 (a bug)


def drc_summary(name: str, violations) -> str:
    """One line: how many rules ``name`` violates and their marker counts."""
    rules = "; ".join(f"{v.rule} ({v.count} marker{'s' if v.count != 1 else ''})" for v in violations)
    return f"DRC failed: {name} violates {len(violations)} rule{'s' if len(violations) != 1 else ''}: {rules}"


def check_lengths(settings: dict, option: str = "--set") -> None:
    """Every number among the settings (nested in lists too) inside the layout coordinate range (µm)."""
    from prismpic.checks import check_gds_length

    def walk(name, v):
        if isinstance(v, bool):
            return
        if isinstance(v, int | float):
            check_gds_length(f"{option} {name}", v)
        elif isinstance(v, list | tuple):
            for i, x in enumerate(v):
                walk(f"{name}[{i}]", x)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(f"{name}.{k}", x)

    for k, v in settings.items():
        walk(k, v)


def registered_cell(name: str, option: str):
    """The registered cell or circuit ``name`` (the prismpic PDK activated); ValueError naming ``option``."""
    import prismpic

    pdk = prismpic.get_pdk()
    if name not in pdk.cells:
        raise ValueError(f"{option} = {name!r} is not a registered cell or circuit; choose from {sorted(pdk.cells)}")
    return pdk.cells[name]


@app.command()
@cli_errors
def layout(
    name: Annotated[str, typer.Argument(help="registered cell or circuit name")],
    out: Annotated[Path | None, typer.Option("--out", help="GDS (.gds) or OASIS (.oas) file "
                                                           "(default layouts/build/NAME.gds)")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="cell parameter key=value (repeatable)")] = None,
    platform: Annotated[str | None, typer.Option("--platform", help=platform_help(
        "the stack the cell is drawn for (a bank's or prototype's ring radii are planned on it)"))] = None,
):
    """Write the GDS of any registered cell or circuit and DRC-check it (exit code 3 if it has violations)."""
    from prismpic.fileio import created_folder

    cell = registered_cell(name, "name")
    settings = parse_settings(set_, fn=cell, platform=platform)
    check_lengths(settings)
    check_settings(cell, settings, what=f"cell {name}")
    if out is None:  # the default folder is made (and removed again if the command fails); one the user names
        # must exist
        out = DEFAULT_DIR / f"{name}.gds"
        with created_folder(out.parent, f"--out (default {str(out)!r})"):
            return _write_layout(name, cell, settings, out)
    return _write_layout(name, cell, settings, out)


def _write_layout(name: str, cell, settings: dict, out: Path) -> None:
    """Build ``cell(**settings)``, write it to ``out`` and print its DRC result (exit code 3 with violations)."""
    from prismpic.checks import check_gds_extent
    from prismpic.fileio import write_gds_atomic
    from prismpic.pdk import drc

    check_out_file(out, suffixes=(".gds", ".oas"))
    try:
        comp = cell(**settings)
    except TypeError as e:
        raise ValueError(f"--set for {name}: {e}") from None
    check_gds_extent(comp, f"{name} with --set {settings}" if settings else name)
    write_gds_atomic(comp, out, what="--out")
    violations = drc(comp)
    say(f"wrote {out} ({comp.dxsize:.1f} × {comp.dysize:.1f} µm); DRC: "
        + ("clean" if not violations else f"{len(violations)} violation(s)"))
    for v in violations:
        say(f"  {v}")
    if violations:
        say(drc_summary(name, violations), stderr=True)
        raise typer.Exit(DRC_EXIT_CODE)
