"""``prismpic calibrate ring --spectra ...``: a wafer of ring spectra fitted in one run (``ring_batch``).

Every option is checked before the first fit: the spectra (glob, folder or manifest), ``--out`` (a folder,
created or replaced atomically, never one holding an input), ``--scheduler``/``--workers``, the TLS certificates
of a tls:// scheduler and the fit's keyword arguments. Each device ends fitted, failed, bad input or not run
(``analysis.calibration.batch``); none aborts the batch. ``--resume`` reuses the per-device records already in
``--out`` (final results with the same fit options and unchanged files) and fits only the other devices.

Exit code (returned), the folder written in every case: 0 when the batch is complete and some device was fitted,
1 when none was fitted, ``EXIT_INCOMPLETE`` (3) when some device did not run (the Dask scheduler or its workers
were lost): no process.json then, and the message says to run the same command with ``--resume``. Bad options
raise ValueError (exit code 2 through ``cli_errors``).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from rich.table import Table

from prismpic.cli.common import check_in_file, check_out_dir, console, progress_bar, say

NOT_FOLDER_SUFFIXES = (".json", ".csv", ".parquet", ".png", ".pdf", ".svg")
EXIT_INCOMPLETE = 3  # some device did not run: resume with --resume
TLS_OPTIONS = ("--tls-ca-file", "--tls-cert", "--tls-key")


def _check_out(out: Path, devices, spectra: str) -> Path:
    from prismpic.fileio import check_out_clear_of_inputs

    out = Path(out)
    if out.suffix.lower() in NOT_FOLDER_SUFFIXES:
        raise ValueError(f"--out = {str(out)!r}: with --spectra, --out is the output folder of the batch (devices "
                         "table, wafer map, summary, process description); give a folder name without a suffix")
    inputs = [Path(d.path) for d in devices]
    if Path(spectra).expanduser().is_file():  # a manifest (or the one spectrum)
        inputs.append(Path(spectra).expanduser())
    check_out_clear_of_inputs(out, inputs, what="--out")
    return check_out_dir(out, "--out")


def tls_security(scheduler: str | None, ca_file: Path | None, cert: Path | None, key: Path | None):
    """The ``distributed.security.Security`` of ``--scheduler`` (``batch.check_security`` for the rules): a tls://
    or wss:// address needs ``--tls-ca-file``, ``--tls-cert`` and ``--tls-key`` (readable PEM files) or a TLS
    setup in the Dask configuration; the options go with such an address only. ValueError naming the option."""
    from prismpic.analysis.calibration import batch as batch_mod

    given = [opt for opt, v in zip(TLS_OPTIONS, (ca_file, cert, key), strict=True) if v is not None]
    if not batch_mod.is_tls(scheduler):
        if given:
            raise ValueError(f"{', '.join(given)}: TLS certificates go with --scheduler tls://HOST:PORT (an "
                             f"encrypted connection to an existing scheduler); --scheduler = {scheduler!r}")
        return None
    if not given:
        try:
            return batch_mod.check_security(scheduler, None, "--scheduler")  # the Dask configuration's TLS setup
        except ValueError:
            raise ValueError(f"--scheduler = {scheduler!r} is an encrypted (TLS) address: give {', '.join(TLS_OPTIONS)} "
                             "(PEM files), or set distributed.comm.tls.ca-file, .client.cert and .client.key in the "
                             "Dask configuration") from None
    missing = [opt for opt in TLS_OPTIONS if opt not in given]
    if missing:
        raise ValueError(f"--scheduler = {scheduler!r}: {', '.join(missing)} missing; a TLS connection needs "
                         f"{', '.join(TLS_OPTIONS)} together")
    from distributed.security import Security

    ca, crt, k = (str(check_in_file(Path(v).expanduser(), opt).resolve())
                  for opt, v in zip(TLS_OPTIONS, (ca_file, cert, key), strict=True))
    return Security(tls_ca_file=ca, tls_client_cert=crt, tls_client_key=k, require_encryption=True)


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
        if r.status not in ("fitted", "not_run"):
            say(f"{r.status.replace('_', ' ')}: {r.device.file}: {r.reason}", stderr=True)
    n = len(batch.results) - batch.reused
    reused = f"; {batch.reused} reused from --out's records" if batch.reused else ""
    say(f"{wafer.status_counts(batch)} on {batch.engine} in {batch.wall_s:.3g} s "
        f"({n / batch.wall_s if batch.wall_s > 0 else float('nan'):.3g} spectra/s){reused}")
    written, why = wafer.process_file_verdict(batch.counts)
    if not written and batch.complete:  # an incomplete batch says so in its error line
        say(f"no process.json: {why}")
    say(f"wrote {out}")


def _incomplete(batch) -> str:
    """The error line of a batch with devices not run: how many, the commonest cause, how to resume."""
    lost = [r for r in batch.results if r.status == "not_run"]
    cause, _ = Counter(r.reason.split(" (")[0].removeprefix("not run: ") for r in lost).most_common(1)[0]
    return (f"error: {len(lost)} of {len(batch.results)} devices not run ({cause}); the batch is incomplete and "
            "process.json was not written. Run the same command again with --resume: it keeps the devices "
            "recorded in --out and fits only the missing ones")


def ring_batch(spectra: str, out: Path, scheduler: str | None, workers: int, fit_kwargs: dict, *,
               resume: bool = False, tls_ca_file: Path | None = None, tls_cert: Path | None = None,
               tls_key: Path | None = None) -> int:
    """Fit every spectrum of ``spectra`` with ``calibrate_ring_csv(path, **fit_kwargs)`` and write the wafer
    folder ``out`` (``analysis.calibration.wafer``); returns the exit code (module docstring: 0, 1 or 3).

    Args:
        spectra: ``--spectra``: a glob (``'DIR/*.csv'``), a folder or a manifest CSV (file, die, x, y).
        out: ``--out``: the output folder (replaced atomically when it exists).
        scheduler: ``--scheduler tcp://HOST:PORT`` (or tls://) of an existing Dask cluster, or None (a
            LocalCluster here).
        workers: ``--workers``: LocalCluster worker processes (0: in this process, without Dask).
        fit_kwargs: keyword arguments of ``calibrate_ring_csv`` (radius in µm, kind, coupling, ...).
        resume: ``--resume``: reuse the device records of ``out`` (``wafer.read_records``).
        tls_ca_file: ``--tls-ca-file``: PEM file of the CA of a tls:// scheduler.
        tls_cert: ``--tls-cert``: PEM file of this client's certificate.
        tls_key: ``--tls-key``: PEM file of this client's private key.
    """
    from prismpic.analysis.calibration import batch as batch_mod
    from prismpic.analysis.calibration import wafer

    devices = batch_mod.devices_from(spectra, "--spectra")
    scheduler, workers = batch_mod.check_engine(scheduler, workers, scheduler_what="--scheduler",
                                                workers_what="--workers")
    security = tls_security(scheduler, tls_ca_file, tls_cert, tls_key)
    fit = batch_mod.default_fit()
    try:
        batch_mod.check_fit_kwargs(fit, fit_kwargs, "options")
    except ValueError as e:
        missing = re.search(r"missing a required (?:keyword-only )?argument: '(\w+)'", str(e))
        if missing:
            raise ValueError(f"--{missing[1].replace('_', '-')} is required with --spectra") from None
        raise
    out = _check_out(out, devices, spectra)
    previous = wafer.read_records(out) if resume else ()
    if resume and not previous:
        say(f"--resume: {out} holds no device records; fitting all {len(devices)} devices")
    with progress_bar() as bar:
        task = bar.add_task("calibrating", total=len(devices))
        try:
            result = batch_mod.run_batch(devices, fit=fit, fit_kwargs=fit_kwargs, scheduler=scheduler,
                                         workers=workers, security=security, previous=previous,
                                         progress=lambda done, total: bar.update(task, completed=done))
        except ValueError as e:  # the scheduler did not answer
            raise ValueError(str(e).replace("scheduler = ", "--scheduler = ", 1)) from None
    wafer.write_wafer(result, out, spectra=str(spectra), what="--out")
    _print_summary(result, out)
    if not result.complete:
        say(_incomplete(result), stderr=True)
        return EXIT_INCOMPLETE
    return 0 if result.counts["fitted"] else 1
