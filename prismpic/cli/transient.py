"""The ``transient`` command: a circuit's waveforms, eye diagram, lifetime and settling, simulated in time.

``prismpic transient CIRCUIT [--bit-rate R] [--symbols N | --input FILE] [--set key=value ...] --out DIR`` writes
``DIR/transient.json`` and ``DIR/waveforms.png``, ``DIR/eye.png`` (``prismpic.analysis.transient.circuits``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, chosen_platform, cli_errors, parse_settings, platform_help, progress_bar, say


@app.command()
@cli_errors
def transient(
    circuit: Annotated[str, typer.Argument(help="ring_add_drop, ring_all_pass, prism_channel or ptu_column")],
    out: Annotated[Path, typer.Option("--out", help="output folder (transient.json, waveforms.png, eye.png)")],
    bit_rate: Annotated[float, typer.Option("--bit-rate", help="symbol (bit) rate, Hz")] = 10e9,
    symbols: Annotated[int | None, typer.Option("--symbols", help="symbols in the record (default 256)")] = None,
    input_: Annotated[Path | None, typer.Option("--input", help="CSV of query values in [0, 1]: a header, one column "
                                                 "per wavelength (prism_channel) or row (ptu_column), one line per "
                                                 "symbol")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="key=value: model parameter or run option")] = None,
    platform: Annotated[str | None, typer.Option("--platform", help=platform_help(
        "the ring's stack and plate height (ring_add_drop, ring_all_pass)"))] = None,
) -> None:
    """Simulate CIRCUIT in the time domain: photon lifetime, steady state against the S-parameters, settling,
    eye opening; writes DIR/transient.json and figures."""
    from prismpic.analysis.transient import circuits
    from prismpic.analysis.transient.simulate import check_run
    from prismpic.fileio import atomic_dir, check_output_dir, write_json_atomic

    circuits.check_circuit(circuit)
    if chosen_platform(set_, platform) is not None and not circuit.startswith("ring_"):
        raise ValueError(f"--platform: {circuit} runs the default ring (its only --set values are run options); a "
                         "preset applies to ring_add_drop and ring_all_pass")
    settings = parse_settings(set_, fn=_ring_model(circuit), platform=platform)
    circuits.check_settings(circuit, settings)
    inputs = None
    if input_ is not None:
        from prismpic.analysis.transient.input_file import read_query_symbols

        if symbols is not None:
            raise ValueError("give --symbols or --input, not both: the file's lines are the symbols")
        columns, unit = circuits.input_shape(circuit, settings)
        inputs = read_query_symbols(input_, columns, circuit, unit)
        symbols = inputs.shape[1]
    symbols = circuits.DEFAULT_SYMBOLS if symbols is None else symbols
    check_run(bit_rate, symbols, settings.get("samples_per_symbol", 8), "--bit-rate", "--symbols")
    check_output_dir(out, "--out")
    with progress_bar() as bar:
        task = bar.add_task(f"transient {circuit}", total=2)
        summary, traces = circuits.run_circuit(circuit, bit_rate, symbols, settings, inputs=inputs)
        bar.advance(task)
        with atomic_dir(out, "--out") as work:
            files = circuits.write_figures(traces, work, f"{circuit}, {bit_rate / 1e9:g} Gbit/s")
            write_json_atomic(work / "transient.json", {**summary, "figures": files})
        bar.advance(task)
    shown = {k: summary[k] for k in ("photon_lifetime_ps", "steady_state_error", "settling_time_ps", "eye_opening")
             if k in summary}
    say(f"wrote {out}/transient.json: " + ", ".join(f"{k} = {v:.4g}" for k, v in shown.items()))


def _ring_model(circuit: str):
    """The SAX model whose parameters a preset sets for ``circuit`` (None: the circuit takes none)."""
    if not circuit.startswith("ring_"):
        return None
    from prismpic.components import rings

    return rings.ring_add_drop_model if circuit == "ring_add_drop" else rings.ring_all_pass_model
