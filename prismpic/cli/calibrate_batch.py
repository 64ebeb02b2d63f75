"""``prismpic calibrate ring --spectra ...``: a wafer of ring spectra fitted in one run (``ring_batch``).

Every option is checked before the first fit: the spectra (glob, folder or manifest), ``--out`` (a folder,
created or replaced atomically), ``--scheduler``/``--workers`` and the fit's keyword arguments. Bad files and
failed fits are reported and skipped, never abort the batch. Exit code (returned): 0 when at least one device
was fitted, 1 when none was (the folder is written either way); bad options raise ValueError (exit code 2
through ``cli_errors``).
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.table import Table

from prismpic.cli.common import check_out_dir, console, progress_bar, say

NOT_FOLDER_SUFFIXES = (".json", ".csv", ".parquet", ".png", ".pdf", ".svg")


def _check_out(out: Path) -> Path:
    out = Path(out)
    if out.suffix.lower() in NOT_FOLDER_SUFFIXES:
        raise ValueError(f"--out = {str(out)!r}: with --spectra, --out is the output folder of the batch (devices "
                         "table, wafer map, summary, process description); give a folder name without a suffix")
    return check_out_dir(out, "--out")


def _print_summary(batch, out: Path) -> None:
    from prismpic.analysis.calibration import wafer

    cols, rows = wafer.device_table(batch.results)
    table = Table("quantity", "mean", "σ (devices)", "median fit 1σ", "n", title="wafer: fitted devices")
    for name in wafer.panel_columns(batch.results):
        st = wafer.column_stats(rows, name)
        if st["n"]:
            table.add_row(name, f"{st['mean']:.6g}", "" if st["std"] is None else f"{st['std']:.3g}",
                          "" if st["median_sigma"] is None else f"{st['median_sigma']:.2g}", str(st["n"]))
    console.print(table)
    for r in batch.results:
        if r.status != "fitted":
            say(f"{r.status.replace('_', ' ')}: {r.device.file}: {r.reason}", stderr=True)
    n = len(batch.results)
    say(f"{wafer.status_counts(batch)} on {batch.engine} in {batch.wall_s:.3g} s "
        f"({n / batch.wall_s if batch.wall_s > 0 else float('nan'):.3g} spectra/s)")
    say(f"wrote {out}")


def ring_batch(spectra: str, out: Path, scheduler: str | None, workers: int, fit_kwargs: dict) -> int:
    """Fit every spectrum of ``spectra`` with ``calibrate_ring_csv(path, **fit_kwargs)`` and write the wafer
    folder ``out`` (``analysis.calibration.wafer``); returns the exit code (0: some device fitted, 1: none).

    Args:
        spectra: ``--spectra``: a glob (``'DIR/*.csv'``), a folder or a manifest CSV (file, die, x, y).
        out: ``--out``: the output folder (replaced atomically when it exists).
        scheduler: ``--scheduler tcp://HOST:PORT`` of an existing Dask cluster, or None (a LocalCluster here).
        workers: ``--workers``: LocalCluster worker processes (0: in this process, without Dask).
        fit_kwargs: keyword arguments of ``calibrate_ring_csv`` (radius in µm, kind, coupling, ...).
    """
    from prismpic.analysis.calibration import batch as batch_mod
    from prismpic.analysis.calibration import wafer

    devices = batch_mod.devices_from(spectra, "--spectra")
    scheduler, workers = batch_mod.check_engine(scheduler, workers, scheduler_what="--scheduler",
                                                workers_what="--workers")
    fit = batch_mod.default_fit()
    try:
        batch_mod.check_fit_kwargs(fit, fit_kwargs, "options")
    except ValueError as e:
        missing = re.search(r"missing a required (?:keyword-only )?argument: '(\w+)'", str(e))
        if missing:
            raise ValueError(f"--{missing[1].replace('_', '-')} is required with --spectra") from None
        raise
    out = _check_out(out)
    with progress_bar() as bar:
        task = bar.add_task("calibrating", total=len(devices))
        try:
            result = batch_mod.run_batch(devices, fit=fit, fit_kwargs=fit_kwargs, scheduler=scheduler,
                                         workers=workers, progress=lambda done, total: bar.update(task,
                                                                                                  completed=done))
        except ValueError as e:  # the scheduler did not answer
            raise ValueError(str(e).replace("scheduler = ", "--scheduler = ", 1)) from None
    wafer.write_wafer(result, out, spectra=str(spectra), what="--out")
    _print_summary(result, out)
    return 0 if result.counts["fitted"] else 1
