"""Batch accounting (issue 25, part 4): every device ends fitted, failed, bad input or not run, and the outputs say so.

Each test reproduces one failure the audit found:

- a killed Dask scheduler looked like failed fits (exit 0, a complete-looking folder, process.json from 2 devices):
  now the devices are *not run*, the exit code is 3, no process.json, and ``--resume`` fits only the missing ones;
- an internal error of the fit could be filed as a bad input file: now only the reader's refusal makes bad input;
- ``--scheduler tls://`` could not be used (no security configuration was passed): now ``--tls-*`` certificates
  build a ``distributed.security.Security`` (a real TLS cluster here, certificates made with ``openssl``);
- die names went unescaped into devices.csv (a formula ran when a spreadsheet opened it), reasons spanned lines.

The fits are the cheap ones of ``wafer_fault_fits`` (milliseconds; ``delay_s`` makes them slow on purpose) on
tiny synthetic spectra (a Lorentzian dip, 40 points).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from wafer_fault_fits import quick_fit, raising_fit

from prismpic.analysis.calibration import batch, wafer
from prismpic.analysis.calibration.batch import Batch, Device, DeviceResult, fit_device, run_batch
from prismpic.pdk import process as process_mod

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


def write_dip(path: Path, center_nm: float = 1550.0, n: int = 40) -> Path:
    wl = np.linspace(1549.0, 1551.0, n)
    through = 1 - 0.8 / (1 + ((wl - center_nm) / 0.05) ** 2)
    rows = zip(wl.tolist(), through.tolist(), strict=True)
    path.write_text("wavelength_nm,through\n" + "".join(f"{w!r},{t!r}\n" for w, t in rows))
    return path


def spectra(folder: Path, n: int) -> list[Device]:
    folder.mkdir(exist_ok=True)
    for i in range(n):
        write_dip(folder / f"die{i:02d}_x{i % 5}_y{i // 5}.csv", 1549.5 + 0.05 * i)
    return batch.devices_from(str(folder / "*.csv"))


def calls_of(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


# ----------------------------------------------------------------------------- statuses of one device
def test_only_the_reader_makes_bad_input(tmp_path, monkeypatch):
    """A ValueError on a file the reader accepts is *failed* (the fit's reason, one line); the reader's refusal is
    *bad input* (the reader's reason); an internal error (KeyError, IndexError, ZeroDivisionError, an OSError on
    a readable file, a bug in the reader) is *failed* "internal error", even on a file the reader refuses."""
    good = write_dip(tmp_path / "good.csv")
    lines = good.read_text().splitlines()
    lines[5] = lines[5].split(",")[0] + ",nan"
    nan = tmp_path / "nan.csv"
    nan.write_text("\n".join(lines) + "\n")
    missing = str(tmp_path / "missing.csv")

    def run(path, error):
        return fit_device(Device(0, str(path), Path(path).name, "d"), raising_fit, {"error": error})

    r = fit_device(Device(0, str(good), "good.csv", "d"), quick_fit, {})
    assert r.status == "fitted" and r.params["dip_nm"][0] == pytest.approx(1550.0, abs=0.03)
    assert r.input_digest.startswith("sha256:")
    r = run(good, "value")
    assert (r.status, r.reason) == ("failed", "the fit found no resonance in this spectrum")
    r = run(nan, "value")
    assert r.status == "bad_input" and "not finite" in r.reason and "\n" not in r.reason
    r = run(missing, "missing")
    assert r.status == "bad_input" and "missing.csv" in r.reason and "not a readable file" in r.reason
    for error, name in (("key", "KeyError"), ("index", "IndexError"), ("zero", "ZeroDivisionError")):
        for path in (good, nan, missing):
            r = run(path, error)
            assert r.status == "failed" and r.reason.startswith(f"internal error ({name}"), (error, path)
    r = run(good, "nospace")
    assert r.status == "failed" and r.reason.startswith("internal error (OSError")

    def reader_bug(path):
        raise TypeError("a bug in the reader")

    monkeypatch.setattr(batch, "read_spectrum_csv", reader_bug)
    r = run(nan, "value")
    assert r.status == "failed" and "internal error (TypeError: a bug in the reader)" in r.reason


def test_reasons_are_one_line_and_short():
    long = "line one\nline two\r\n\tthree " + "x" * 1000
    assert batch.one_line(long).startswith("line one line two three x")
    assert len(batch.one_line(long)) == batch.MAX_REASON_CHARS and batch.one_line(long).endswith("…")
    assert batch.one_line("short") == "short"


def test_infrastructure_errors_are_not_run():
    """The exceptions of a lost scheduler, dead workers, a cancelled task: *not run*, one line, the cause first."""
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError

    dev = Device(0, "/x/a.csv", "a.csv", "a")
    lost = FutureCancelledError("fit_device-1f2e", "scheduler-connection-lost",
                                "Client lost the connection to the scheduler.\nPlease check your connection.")
    cases = ((lost, "the connection to the Dask scheduler was lost"),
             (CommClosedError("in <TCP>: Stream is closed"), "the connection to the Dask scheduler was lost"),
             (TimeoutError("timed out"), "the connection to the Dask scheduler was lost"),
             (KilledWorker("fit_device-1", SimpleNamespace(address="tcp://w:1"), 3), "the Dask workers running it died"),
             (FutureCancelledError("fit_device-2", "unknown"), "its Dask task was cancelled"),
             (ModuleNotFoundError("No module named 'x'"), "its Dask task did not complete"))
    for exc, cause in cases:
        r = batch.not_run(dev, exc)
        assert r.status == "not_run" and r.reason.startswith(f"not run: {cause} ({type(exc).__name__}")
        assert "\n" not in r.reason and len(r.reason) <= batch.MAX_REASON_CHARS


# ----------------------------------------------------------------------------- the outputs
def _fitted(i, die=None, file=None):
    return DeviceResult(Device(i, f"/w/{i}.csv", file or f"{i}.csv", die or f"d{i}", float(i), -2.0), "fitted",
                        params={"width": (1.4 + 0.001 * i, 0.0005)}, design={"width": 1.4}, notes=("ok",))


def test_csv_text_cells_are_escaped_and_one_line(tmp_path):
    """Die and file names, reasons and notes that a spreadsheet would run as formulas get a leading '; reasons and
    notes are one line; numbers stay numbers; the Parquet table keeps the values as they are."""
    evil = "=HYPERLINK(\"http://x\",\"click\")"
    results = [_fitted(0, die=evil, file="+cmd.csv"),
               DeviceResult(Device(1, "/w/1.csv", "@a.csv", "-1", 1.0, -3.0), "failed", "-bad\nsecond line",
                            notes=("\tnote one", "two\nlines")),
               DeviceResult(Device(2, "/w/2.csv", "\tTAB.csv", "plain", 2.0, 0.0), "not_run", "not run: x")]
    cols, rows = wafer.device_table(results)
    parsed = list(csv.DictReader(io.StringIO(wafer.table_csv(cols, rows))))
    assert [p["die"] for p in parsed] == ["'" + evil, "'-1", "plain"]
    assert [p["file"] for p in parsed] == ["'+cmd.csv", "'@a.csv", "'\tTAB.csv"]
    assert parsed[1]["reason"] == "'-bad second line" and parsed[1]["notes"] == "note one | two lines"
    assert [p["y"] for p in parsed] == ["-2.0", "-3.0", "0.0"] and parsed[0]["width"] == repr(1.4)
    assert [p["status"] for p in parsed] == ["fitted", "failed", "not_run"]
    out = wafer.write_wafer(Batch(tuple(results), "test", 1.0, "f", {}), tmp_path / "w")
    import pyarrow.parquet as pq

    table = pq.read_table(out / "devices.parquet").to_pylist()
    assert table[0]["die"] == evil and table[1]["reason"] == "-bad\nsecond line" and table[1]["y"] == -3.0


@pytest.mark.parametrize(("n_fitted", "n_not_run", "written"), [(4, 0, False), (5, 0, True), (6, 1, False)])
def test_process_file_needs_a_complete_batch_of_enough_devices(tmp_path, n_fitted, n_not_run, written):
    results = [_fitted(i) for i in range(n_fitted)]
    results += [DeviceResult(Device(n_fitted + i, f"/w/n{i}.csv", f"n{i}.csv", f"n{i}"), "not_run", "not run: lost")
                for i in range(n_not_run)]
    done = Batch(tuple(results), "test", 1.0, "f", {})
    out = wafer.write_wafer(done, tmp_path / "w")
    summary = json.loads((out / "summary.json").read_text())
    assert (out / "process.json").exists() is written and summary["process_file"]["written"] is written
    assert summary["complete"] is (n_not_run == 0) and summary["counts"]["not_run"] == n_not_run
    assert summary["process_file"]["min_fitted"] == wafer.MIN_FITTED_FOR_PROCESS == 5
    if written:
        assert process_mod.load_process(out / "process.json").width_bias.nominal == pytest.approx(0.002, abs=1e-9)
    else:
        assert summary["process"] == {}
        assert ("not run" if n_not_run else "fewer than 5") in summary["process_file"]["why"]
    assert len(summary["not_run"]) == n_not_run and len(list((out / "records").glob("*.json"))) == len(results)


# ----------------------------------------------------------------------------- records and resume
def test_records_round_trip_and_resume_refits_only_what_changed(tmp_path):
    folder = tmp_path / "spectra"
    devices = spectra(folder, 6)
    (folder / "die05_x0_y1.csv").write_text("wavelength_nm,through\n1,2\n")  # too few points: bad input
    log = tmp_path / "calls.log"
    kw = {"calls": str(log)}
    first = run_batch(devices, fit=quick_fit, fit_kwargs=kw, workers=0)
    assert first.counts == {"fitted": 5, "failed": 0, "bad_input": 1, "not_run": 0, "total": 6}
    out = wafer.write_wafer(first, tmp_path / "w")
    records = wafer.read_records(out)
    assert records == first.results  # every field, the (value, 1σ) tuples included
    assert all(r.fit_key == batch.fit_key(first.fit, kw) for r in records)
    log.unlink()
    again = run_batch(devices, fit=quick_fit, fit_kwargs=kw, workers=0, previous=records)
    assert not log.exists() and again.reused == 6 and again.results == first.results
    write_dip(folder / "die02_x2_y0.csv", 1550.3)  # the file changed: fitted again
    (out / "records" / "0003_die03_x3_y0.json").write_text("{not json")  # a broken record: fitted again
    again = run_batch(devices, fit=quick_fit, fit_kwargs=kw, workers=0, previous=wafer.read_records(out))
    assert sorted(calls_of(log)) == ["die02_x2_y0", "die03_x3_y0"] and again.reused == 4
    assert again.results[2].params["dip_nm"][0] == pytest.approx(1550.3, abs=0.03)
    log.unlink()
    other = run_batch(devices, fit=quick_fit, fit_kwargs=kw | {"delay_s": 0.0}, workers=0, previous=records)
    assert other.reused == 0 and len(calls_of(log)) == 5  # other fit options: nothing reused
    old = wafer.record_of(first.results[5]) | {"status": "bad_file"}  # a record of an older prismpic
    assert wafer.result_of_record(json.loads(json.dumps(old))).status == "bad_input"


# ----------------------------------------------------------------------------- a scheduler killed mid-batch
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def external_cluster(tmp_path):
    """A ``dask scheduler`` and one ``dask worker`` (no nanny) in their own processes; yields (address, scheduler
    process); both are killed (by their pid) afterwards."""
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    logs = open(tmp_path / "dask.log", "wb")  # noqa: SIM115  (closed below)
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=logs, stderr=logs, env=env)]
    address = f"tcp://127.0.0.1:{port}"
    procs.append(subprocess.Popen([str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-nanny",
                                   "--no-dashboard", "--death-timeout", "60"], stdout=logs, stderr=logs, env=env))
    try:
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=60)
            client.run(lambda: __import__("prismpic.analysis.calibration.batch") and None)  # the worker's imports
        yield address, procs[0]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)
        logs.close()


def _kill_when(log: Path, n_calls: int, proc: subprocess.Popen) -> threading.Thread:
    """A thread that SIGKILLs ``proc`` once ``log`` holds ``n_calls`` fits (or after 120 s)."""
    def watch():
        t_end = time.monotonic() + 120
        while len(calls_of(log)) < n_calls and time.monotonic() < t_end:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_killed_scheduler_leaves_devices_not_run_and_resume_fits_only_them(external_cluster, tmp_path,
                                                                           monkeypatch, capsys):
    """``calibrate ring --spectra`` on an external scheduler SIGKILLed after 3 fits: exit code 3, the devices
    without a result *not run* (one-line reasons naming the lost scheduler; none failed), the folder written
    without process.json and marked incomplete, a message saying to use --resume; then ``--resume`` (here, in
    this process) fits exactly the devices not run, exit code 0, process.json written."""
    from prismpic.cli.calibrate_batch import EXIT_INCOMPLETE, ring_batch

    address, scheduler = external_cluster
    monkeypatch.setattr(batch, "default_fit", lambda: quick_fit)
    devices = spectra(tmp_path / "spectra", 16)
    log = tmp_path / "calls.log"
    kw = {"delay_s": 0.3, "calls": str(log)}
    pattern = str(tmp_path / "spectra" / "*.csv")
    watcher = _kill_when(log, 3, scheduler)
    code = ring_batch(pattern, tmp_path / "w", address, 1, dict(kw))
    watcher.join(timeout=5)
    assert scheduler.poll() is not None and code == EXIT_INCOMPLETE == 3
    err = capsys.readouterr().err
    assert "devices not run (the connection to the Dask scheduler was lost)" in err and "--resume" in err
    out = tmp_path / "w"
    summary = json.loads((out / "summary.json").read_text())
    counts = summary["counts"]
    assert counts["not_run"] >= 8 and counts["failed"] == counts["bad_input"] == 0
    assert counts["fitted"] + counts["not_run"] == 16 and summary["complete"] is False
    assert not (out / "process.json").exists() and "not run" in summary["process_file"]["why"]
    lost = {r["die"] for r in summary["not_run"]}
    assert all(r["reason"].startswith("not run: the connection to the Dask scheduler was lost") for r in
               summary["not_run"])
    rows = list(csv.DictReader(io.StringIO((out / "devices.csv").read_text())))
    assert {r["die"] for r in rows if r["status"] == "not_run"} == lost
    assert all("\n" not in r["reason"] for r in rows)

    log.unlink()
    assert ring_batch(pattern, out, None, 0, dict(kw), resume=True) == 0
    assert sorted(calls_of(log)) == sorted(lost)  # only the missing devices were fitted
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True and summary["counts"]["fitted"] == 16 and summary["run"]["reused"] == 16 - len(lost)
    assert (out / "process.json").is_file() and len(devices) == 16


# ----------------------------------------------------------------------------- TLS
def _certificates(folder: Path) -> dict[str, Path]:
    """A CA and a certificate it signed (for the scheduler, the workers and the client), made with openssl."""
    def run(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=prismpic-test-ca")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "req.csr", "-subj", "/CN=localhost")
    run("x509", "-req", "-in", "req.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "cert.pem",
        "-days", "2")
    return {"ca": folder / "ca.pem", "cert": folder / "cert.pem", "key": folder / "key.pem"}


def test_tls_options_are_checked_first(tmp_path):
    from prismpic.cli.calibrate_batch import ring_batch

    write_dip(tmp_path / "a.csv")
    pem = write_dip(tmp_path / "any.pem")
    tls, tcp = "tls://127.0.0.1:8786", "tcp://127.0.0.1:8786"
    for scheduler, files, match in (
            (tls, {}, "--scheduler = 'tls://127.0.0.1:8786' is an encrypted .*--tls-ca-file, --tls-cert, --tls-key"),
            (tcp, {"tls_cert": pem}, "--tls-cert: TLS certificates go with --scheduler tls://"),
            (None, {"tls_ca_file": pem}, "--tls-ca-file: TLS certificates go with --scheduler tls://"),
            (tls, {"tls_ca_file": pem}, "--tls-cert, --tls-key missing"),
            (tls, {"tls_ca_file": pem, "tls_cert": pem, "tls_key": tmp_path / "no.pem"}, "--tls-key = .*no.pem.* "
                                                                                         "does not exist")):
        with pytest.raises(ValueError, match=match):
            ring_batch(str(tmp_path / "a.csv"), tmp_path / "w", scheduler, 1, {"radius": 20.0}, **files)
    with pytest.raises(ValueError, match="scheduler = 'tls://127.0.0.1:8786' is an encrypted"):
        run_batch([], fit=quick_fit, scheduler=tls, workers=1)
    assert not (tmp_path / "w").exists()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make certificates")
def test_batch_over_a_tls_scheduler(tmp_path, monkeypatch):
    """A LocalCluster listening on tls:// only: ``--scheduler tls://... --tls-ca-file --tls-cert --tls-key`` runs
    the batch over it (exit code 0, every device fitted)."""
    from distributed import LocalCluster
    from distributed.security import Security

    from prismpic.cli.calibrate_batch import ring_batch

    pem = _certificates(tmp_path)
    server = Security(tls_ca_file=str(pem["ca"]), tls_scheduler_cert=str(pem["cert"]),
                      tls_scheduler_key=str(pem["key"]), tls_worker_cert=str(pem["cert"]),
                      tls_worker_key=str(pem["key"]), tls_client_cert=str(pem["cert"]),
                      tls_client_key=str(pem["key"]), require_encryption=True)
    monkeypatch.setattr(batch, "default_fit", lambda: quick_fit)
    spectra(tmp_path / "spectra", 4)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://", security=server,
                      dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        code = ring_batch(str(tmp_path / "spectra"), tmp_path / "w", cluster.scheduler_address, 1, {},
                          tls_ca_file=pem["ca"], tls_cert=pem["cert"], tls_key=pem["key"])
    summary = json.loads((tmp_path / "w" / "summary.json").read_text())
    assert code == 0 and summary["counts"]["fitted"] == 4 and summary["run"]["engine"].startswith("Dask scheduler tls://")


def test_out_must_not_hold_the_inputs(tmp_path, monkeypatch):
    from prismpic.cli.calibrate_batch import ring_batch

    monkeypatch.setattr(batch, "default_fit", lambda: quick_fit)
    spectra(tmp_path / "spectra", 2)
    with pytest.raises(ValueError, match="--out = .*spectra.* contains the input"):
        ring_batch(str(tmp_path / "spectra" / "*.csv"), tmp_path / "spectra", None, 0, {})
    assert sorted(p.name for p in (tmp_path / "spectra").iterdir()) == ["die00_x0_y0.csv", "die01_x1_y0.csv"]
