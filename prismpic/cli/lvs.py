"""The ``lvs`` command: layout versus schematic of a GDS against a netlist file or a rebuilt circuit.

Exit codes: 0 layout and schematic agree; ``LVS_EXIT_CODE`` (3) they differ (one line per mismatch on stdout,
one summary line on stderr); 2 bad input (a GDS or netlist that does not exist or parse, a GDS without the cell
to check, a netlist file checked against a GDS without port metadata).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, check_settings, cli_errors, parse_settings, platform_help, say
from prismpic.cli.layout import check_lengths, registered_cell

LVS_EXIT_CODE = 3  # distinct from 2 (bad input) and 1 (a bug)


@app.command()
@cli_errors
def lvs(
    gds: Annotated[Path, typer.Argument(help="GDS or OASIS file to check")],
    netlist: Annotated[Path | None, typer.Option("--netlist", help="gdsfactory netlist, YAML or JSON, flat or "
                                                                   "recursive (the GDS must carry port metadata)")]
    = None,
    circuit: Annotated[str | None, typer.Option("--circuit", help="registered cell or circuit to rebuild and "
                                                                  "compare")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="--circuit parameter key=value (repeatable)")]
    = None,
    platform: Annotated[str | None, typer.Option("--platform", help=platform_help(
        "the stack --circuit is rebuilt for (a bank's ring radii follow it)"))] = None,
):
    """Layout versus schematic: the GDS's devices and connections against the netlist (exit code 3 on mismatches)."""
    from prismpic.circuits.lvs import lvs_result, read_netlist
    from prismpic.circuits.lvs_extract import read_gds

    if (netlist is None) == (circuit is None):
        raise ValueError("give the schematic as --netlist FILE or as --circuit NAME (one of them)")
    if circuit is None and (set_ or platform is not None):
        raise ValueError("--set and --platform take parameters of --circuit; with --netlist the netlist holds them")
    where = f"GDS = {str(gds)!r}"
    if netlist is not None:
        data = read_netlist(netlist, "--netlist")
        result = lvs_result(read_gds(gds, "GDS"), netlist=data, what=where,
                            netlist_name=f"--netlist = {str(netlist)!r}")
    else:
        cell = registered_cell(circuit, "--circuit")
        settings = parse_settings(set_, fn=cell, platform=platform)
        check_lengths(settings)
        check_settings(cell, settings, what=f"cell {circuit}")
        layout = read_gds(gds, "GDS")  # before the (possibly long) build
        try:
            component = cell(**settings)
        except TypeError as e:
            raise ValueError(f"--set for {circuit}: {e}") from None
        result = lvs_result(layout, component=component, what=where, netlist_name=f"--circuit {circuit}")
    for m in result.mismatches:
        say(m.line())
    for note in result.notes:
        say(f"note: {note}")
    if result.clean:
        say(result.summary())
        return
    say(result.summary(), stderr=True)
    raise typer.Exit(LVS_EXIT_CODE)

