"""The ``layout`` command: the GDS of any registered cell or circuit, DRC-checked."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, cli_errors, console, parse_settings


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
