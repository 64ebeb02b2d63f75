"""A batch of ring spectra (a wafer): one fit per file, in this process or on Dask, with identical results.

Inputs (``devices_from``): a glob (``"DIR/*.csv"``; a folder means its ``*.csv``), a single spectrum file,
or a manifest CSV with a ``file`` column (paths relative to the manifest) and optional ``die``, ``x``, ``y``
(die position, any unit; other columns are ignored). Without a manifest the die is the file's stem and its
position is read from the name when it holds one (``..._x3_y-2...`` or ``X03Y-02``), else unknown.

Per device (``fit_device``): the fit (``calibrate_ring_csv(path, **fit_kwargs)`` by default, or any function
of the same form) gives a result or raises. Every device ends with one status (``STATUSES``): *fitted*;
*failed* (the fit's reason: a result flagged ``failed``, a ValueError on a file the reader accepts, or an
"internal error": any other exception, an OSError on a file the reader accepts, an error of the reader itself);
*bad_input* (the reader's reason: the fit raised ValueError or OSError *and* ``measurements.read_spectrum_csv``
refuses the file, so an internal error is never bad input); *not_run* (its Dask task did not complete: the
scheduler connection lost, its workers dead, cancelled; infrastructure, no verdict on the device). None stops
the batch. Reasons are one line (``one_line``). A result is plain data (values, 1σ, specs, notes, the JSON
parameter file, the input file's SHA-256, a key of the fit and its options), whichever process computed it.

Resume (``run_batch(previous=...)``, previous results from ``wafer.read_records``): a device is not fitted again
when its previous status is final (fitted, failed, bad input) with the same file (absolute path) and die, the
same bytes (``file_digest``) and the same fit and options (``fit_key``).

Engine (``run_batch``): ``workers=0`` runs the fits here, one after the other; ``workers>=1`` starts a Dask
``LocalCluster`` here (that many worker processes, one thread each, scratch in a temporary folder removed
afterwards, this process's JAX compilation cache shared: ``user_cache.worker_environment``, one compile per
machine, and its traced programs when it reuses them, as the CLI does: ``program_cache``); ``scheduler="tcp://HOST:PORT"`` sends the fits to an existing cluster, whose workers must import the
same prismpic and see the spectrum files at the same absolute paths (a shared file system); a tls:// (or wss://)
one needs a ``distributed.security.Security`` or TLS in the Dask configuration. Results come back in input
order, so the table does not depend on the engine. Cluster and client are closed on every way out (errors, Ctrl-C).

``closed_form_fit.closed_form_ring_csv`` is a fast fit of the same form (the closed-form spectrum analysis,
milliseconds per spectrum), for a first look at a wafer and for the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import glob
import hashlib
import inspect
import json
import logging
import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError  # the base of Dask's FutureCancelledError
from dataclasses import dataclass, field
from pathlib import Path

from prismpic import program_cache, program_memory, user_cache
from prismpic.analysis.measurements import decode_text, read_spectrum_csv
from prismpic.fileio import jsonable

STATUSES = ("fitted", "failed", "bad_input", "not_run")
FINAL = ("fitted", "failed", "bad_input")  # statuses a resumed batch keeps (not_run devices are fitted again)
MAX_REASON_CHARS = 300  # a reason longer than this is cut (with …): it is one cell of the device table
MAX_WORKERS = 1024
CONNECT_TIMEOUT_S = 20.0  # waiting for an existing scheduler to answer, s
CLOSE_TIMEOUT_S = 10.0  # waiting for the client to close (its scheduler may be gone), s
TLS_SCHEMES = ("tls", "wss")  # scheduler addresses whose connection is encrypted: they need certificates
TLS_CONFIG_KEYS = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")
_POSITION = re.compile(r"(?i)(?<![a-z0-9])x(-?\d+)[_\-]?y(-?\d+)(?![0-9])")
_SCHEDULER = re.compile(r"^(tcp|tls|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(\d{1,5})$")
_MAGIC = re.compile(r"[*?\[]")


# ---------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class Device:
    """One spectrum of the batch: input order, absolute path, the name as given, die name and position."""

    index: int
    path: str
    file: str
    die: str
    x: float = math.nan
    y: float = math.nan


def _position(stem: str) -> tuple[float, float]:
    m = _POSITION.search(stem)
    return (float(m[1]), float(m[2])) if m else (math.nan, math.nan)


def _is_manifest(path: Path) -> bool:
    """Whether ``path``'s first header line (blank and # lines skipped) has a ``file`` column."""
    try:
        with path.open("rb") as f:
            text = decode_text(f.read(65536), path.name)
    except (OSError, ValueError):
        return False
    for line in re.split(r"\r\n|\r|\n", text):
        if line.strip() and not line.lstrip().startswith("#"):
            return "file" in [c.strip().strip('"').lower() for c in re.split(r"[,;\t]", line)]
    return False


def _number(text: str, where: str, col: str) -> float:
    if not text.strip():
        return math.nan
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"{where}: column {col} = {text.strip()!r} is not a number") from None
    if not math.isfinite(v):
        raise ValueError(f"{where}: column {col} = {text.strip()!r} must be a finite number (or empty: unknown)")
    return v


def read_manifest(path, what: str = "spectra") -> list[Device]:
    """The devices of a manifest CSV (``file`` [, ``die``, ``x``, ``y``]); ValueError naming the line otherwise.

    Files are relative to the manifest's folder; a listed file that is missing is kept (it becomes a bad input
    of the batch, not an error here). Die names default to the file stem and must be unique.
    """
    import csv

    path = Path(path)
    where = f"{what} = {str(path)!r}"
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ValueError(f"{where} cannot be read ({e.strerror})") from None
    text = decode_text(data, f"{what} {path.name}")
    lines = [(i, ln) for i, ln in enumerate(re.split(r"\r\n|\r|\n", text), 1)
             if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise ValueError(f"{where} is empty: a header line (file, die, x, y) and one row per spectrum are needed")
    delim = next((d for d in (",", ";", "\t") if d in lines[0][1]), ",")
    header = [c.strip().lower() for c in next(csv.reader([lines[0][1]], delimiter=delim))]
    if "file" not in header:
        raise ValueError(f"{where}: the header {header} has no 'file' column (a manifest needs file[, die, x, y])")
    if len(set(header)) != len(header):
        raise ValueError(f"{where}: duplicated column names in the header {header}")
    col = {k: header.index(k) for k in ("file", "die", "x", "y") if k in header}
    devices, seen = [], {}
    for lineno, line in lines[1:]:
        at = f"{where}, line {lineno}"
        try:
            row = next(csv.reader([line], delimiter=delim, strict=True))
        except csv.Error as e:
            raise ValueError(f"{at} is not valid CSV ({e})") from None
        if len(row) < len(header):
            raise ValueError(f"{at} has {len(row)} fields, the header has {len(header)} ({', '.join(header)})")
        name = row[col["file"]].strip()
        if not name:
            raise ValueError(f"{at}: the file column is empty")
        file = Path(name).expanduser()
        full = file if file.is_absolute() else path.resolve().parent / file
        die = row[col["die"]].strip() if "die" in col else ""
        die = die or file.stem
        if die in seen:
            raise ValueError(f"{at}: die {die!r} is listed already at line {seen[die]}; die names must be unique")
        seen[die] = lineno
        x = _number(row[col["x"]], at, "x") if "x" in col else math.nan
        y = _number(row[col["y"]], at, "y") if "y" in col else math.nan
        devices.append(Device(len(devices), str(full), name, die, x, y))
    if not devices:
        raise ValueError(f"{where} has a header but no rows: list one spectrum file per row")
    return devices


def devices_from(spectra: str, what: str = "spectra") -> list[Device]:
    """The devices of ``spectra``: a glob, a folder (its ``*.csv``), a manifest CSV or one spectrum file.

    ValueError naming ``what`` when nothing matches or the manifest is malformed.
    """
    if not isinstance(spectra, str | os.PathLike) or not str(spectra).strip():
        raise ValueError(f"{what} = {spectra!r} must be a glob ('DIR/*.csv'), a folder or a manifest CSV")
    text = os.path.expanduser(str(spectra))
    p = Path(text)
    if not _MAGIC.search(text):
        if p.is_dir():
            text = str(p / "*.csv")
        elif p.is_file():
            if _is_manifest(p):
                return read_manifest(p, what)
            return [Device(0, str(p.resolve()), str(spectra), p.stem, *_position(p.stem))]
        else:
            raise ValueError(f"{what} = {str(spectra)!r} does not exist (give a glob such as 'DIR/*.csv', a folder "
                             "or a manifest CSV with columns file, die, x, y)")
    files = sorted(f for f in glob.glob(text, recursive=True) if Path(f).is_file())
    if not files:
        raise ValueError(f"{what} = {str(spectra)!r} matches no file")
    return [Device(i, str(Path(f).resolve()), f, Path(f).stem, *_position(Path(f).stem)) for i, f in enumerate(files)]


# ---------------------------------------------------------------------------- one device
@dataclass(frozen=True)
class DeviceResult:
    """One device's outcome as plain data (identical whichever process computed it; ``seconds`` aside).

    Attributes:
        device: the input.
        status: one of ``STATUSES``: ``"fitted"``, ``"failed"`` (the fit's reason), ``"bad_input"`` (the
            reader's reason) or ``"not_run"`` (its Dask task did not complete).
        reason: why it failed, was refused or did not run, on one line ("" when fitted).
        params: fitted physical parameter → (value, 1σ or None), in the fit's units.
        design: design value of the parameters that have one (e.g. the drawn width).
        specs: spec → (value, 1σ or None) of the fitted model.
        quality: chi2_reduced, converged, n_points when the fit reports them.
        notes: the fit's notes and ambiguities.
        record: the JSON-ready parameter file (``to_params()`` or ``to_dict()`` of the result).
        seconds: wall time of the device (reading and fit), s.
        input_digest: ``file_digest`` of the input file when the device ran ("" when it did not).
        fit_key: ``fit_key`` of the fit and its options (set by ``run_batch``; "" otherwise).
    """

    device: Device
    status: str
    reason: str = ""
    params: dict = field(default_factory=dict)
    design: dict = field(default_factory=dict)
    specs: dict = field(default_factory=dict)
    quality: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    record: dict | None = None
    seconds: float = 0.0
    input_digest: str = ""
    fit_key: str = ""


def one_line(text, limit: int = MAX_REASON_CHARS) -> str:
    """``text`` on one line (every run of whitespace, line breaks included, one space), cut to ``limit``
    characters with a final "…"."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def file_digest(path) -> str:
    """``"sha256:HEX"`` of the file's bytes, or ``"unreadable (why)"``: a resumed batch fits a device again when
    its file changed."""
    try:
        with open(path, "rb") as f:
            return "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as e:
        return f"unreadable ({e.strerror or type(e).__name__})"


def fit_key(fit_name: str, fit_kwargs: dict) -> str:
    """A key of the fit (its qualified name) and its keyword arguments: SHA-256 of both as sorted JSON."""
    text = json.dumps([fit_name, jsonable(fit_kwargs)], sort_keys=True, separators=(",", ":"), default=repr)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _float(v) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _sigma(fp) -> float | None:
    """1σ of a fitted parameter (``sigma`` or ``stderr``, whichever the result class names it)."""
    s = getattr(fp, "sigma", None)
    return _float(getattr(fp, "stderr", None) if s is None else s)


def _fitted_of(cal) -> dict:
    params = getattr(cal, "params", None)
    return params if isinstance(params, dict) else dict(getattr(cal, "fitted", {}) or {})


def result_of(device: Device, cal, seconds: float, input_digest: str = "") -> DeviceResult:
    """A fit result (``RingCalibration``, ``ClosedFormRing`` or alike) as a ``DeviceResult``."""
    if bool(getattr(cal, "failed", False)):
        reason = str(getattr(cal, "failure_reason", "") or "the fit reports a failure")
        return DeviceResult(device, "failed", one_line(reason), notes=tuple(getattr(cal, "notes", ())),
                            seconds=seconds, input_digest=input_digest)
    fitted = _fitted_of(cal)
    params = {str(k): (_float(fp.value), _sigma(fp)) for k, fp in fitted.items()}
    design = {str(k): d for k, fp in fitted.items() if (d := _float(getattr(fp, "design", None))) is not None}
    errors = getattr(cal, "errors", {}) or {}
    specs = {str(k): (_float(v), _float(errors.get(k))) for k, v in (getattr(cal, "specs", {}) or {}).items()
             if not isinstance(v, dict | list | tuple)}
    fit = getattr(cal, "fit", {}) or {}
    quality = {k: fit[k] for k in ("chi2_reduced", "converged", "n_points") if k in fit}
    notes = tuple(str(n) for n in (*getattr(cal, "ambiguities", ()), *getattr(cal, "notes", ())))
    record = cal.to_params() if hasattr(cal, "to_params") else (cal.to_dict() if hasattr(cal, "to_dict") else None)
    return DeviceResult(device, "fitted", "", params, design, specs, jsonable(quality), notes, jsonable(record),
                        seconds, input_digest)


def internal_error(e: BaseException) -> str:
    """The reason of a device whose fit hit a bug (an exception no input explains)."""
    return f"internal error ({type(e).__name__}: {e}); a bug in the fit, please report it"


def reader_refusal(path) -> str | None:
    """The reader's reason for refusing the spectrum file ``path``, or None when it reads it."""
    try:
        read_spectrum_csv(path)
    except OSError as e:
        return f"{Path(path).name}: cannot be read ({e.strerror or e})"
    except ValueError as e:
        return str(e)
    return None


def failure_of(path, e: Exception) -> tuple[str, str]:
    """(status, reason) of a device whose fit raised ``e`` (module docstring): ``bad_input`` with the reader's
    reason only when ``e`` is a ValueError or an OSError and the reader refuses the file; otherwise ``failed``
    with the fit's ValueError message or an internal error."""
    if not isinstance(e, ValueError | OSError):
        return "failed", internal_error(e)
    try:
        refusal = reader_refusal(path)
    except Exception as bug:  # noqa: BLE001  (the reader's own bug: not the file's fault)
        return "failed", internal_error(bug)
    if refusal is not None:
        return "bad_input", refusal
    return "failed", internal_error(e) if isinstance(e, OSError) else str(e)


def fit_device(device: Device, fit: Callable, fit_kwargs: dict, reuse_programs: bool = False) -> DeviceResult:
    """``fit(path, **fit_kwargs)`` of ``device``'s file as a ``DeviceResult`` (fitted, failed or bad input);
    never raises for an exception of the fit (``failure_of`` accounts for it). ``reuse_programs``: inside
    ``program_cache.enabled()`` (a cluster's worker then reads the programs its caller exported)."""
    program_memory.release_near_map_limit()  # a worker fitting spectra of many lengths keeps each one's programs
    t0, digest = time.perf_counter(), file_digest(device.path)
    try:
        with program_cache.enabled() if reuse_programs else contextlib.nullcontext():
            cal = fit(device.path, **fit_kwargs)
    except Exception as e:  # noqa: BLE001  (one device's error never aborts a wafer: accounted for)
        status, reason = failure_of(device.path, e)
        return DeviceResult(device, status, one_line(reason), seconds=time.perf_counter() - t0, input_digest=digest)
    try:
        return result_of(device, cal, time.perf_counter() - t0, digest)
    except Exception as e:  # noqa: BLE001  (a result this module cannot read: the fit's bug, never the input's)
        return DeviceResult(device, "failed", one_line(internal_error(e)), seconds=time.perf_counter() - t0,
                            input_digest=digest)


def not_run(device: Device, e: BaseException) -> DeviceResult:
    """The result of a device whose Dask task did not complete because of ``e`` (the infrastructure's fault:
    ``run_batch(previous=...)`` fits it again)."""
    text, name = str(e), type(e).__name__
    if "connection-lost" in text or isinstance(e, OSError | TimeoutError):
        return DeviceResult(device, "not_run", f"not run: the connection to the Dask scheduler was lost ({name})")
    if name == "KilledWorker":
        cause = "the Dask workers running it died"
    elif isinstance(e, asyncio.CancelledError | CancelledError):
        cause = "its Dask task was cancelled"
    else:
        cause = "its Dask task did not complete"
    return DeviceResult(device, "not_run", one_line(f"not run: {cause} ({name}: {text})"))


# ---------------------------------------------------------------------------- checks before a batch
def default_fit() -> Callable:
    """The per-device fit of a batch: ``calibration.calibrate_ring_csv``."""
    from prismpic.analysis.calibration import calibrate_ring_csv

    return calibrate_ring_csv


def check_engine(scheduler: str | None, workers, *, scheduler_what: str = "scheduler",
                 workers_what: str = "workers") -> tuple[str | None, int]:
    """(scheduler, workers) checked: a ``tcp://HOST:PORT`` address (also tls, ws, wss) or None; workers an
    integer in [0, MAX_WORKERS] (0: in this process), not 0 together with a scheduler."""
    if isinstance(workers, bool) or not isinstance(workers, int | float) or not float(workers).is_integer():
        raise ValueError(f"{workers_what} = {workers!r} must be an integer (0: no Dask, fits in this process)")
    workers = int(workers)
    if not 0 <= workers <= MAX_WORKERS:
        raise ValueError(f"{workers_what} = {workers} is outside the valid range [0, {MAX_WORKERS}] "
                         "(0: no Dask, fits in this process)")
    if scheduler is not None:
        m = _SCHEDULER.match(str(scheduler).strip())
        if m is None or not 1 <= int(m[3]) <= 65535:
            raise ValueError(f"{scheduler_what} = {scheduler!r} must be a Dask scheduler address such as "
                             "tcp://HOST:PORT (port 1–65535)")
        if workers == 0:
            raise ValueError(f"{workers_what} = 0 runs the fits in this process; it cannot be combined with "
                             f"{scheduler_what} = {scheduler!r}")
        scheduler = str(scheduler).strip()
    return scheduler, workers


def is_tls(scheduler: str | None) -> bool:
    """Whether the scheduler address is encrypted (``TLS_SCHEMES``)."""
    return scheduler is not None and str(scheduler).split("://", 1)[0].lower() in TLS_SCHEMES


def check_security(scheduler: str | None, security, what: str = "scheduler"):
    """``security`` (a ``distributed.security.Security`` or None) checked against ``scheduler``: a tls:// or
    wss:// scheduler needs one, or a TLS setup in the Dask configuration (``TLS_CONFIG_KEYS``: then a ``Security``
    reading it is returned); any other scheduler (or none: a LocalCluster) takes none. ValueError otherwise."""
    import dask.config
    from distributed.security import Security

    if not is_tls(scheduler):
        if security is not None:
            raise ValueError(f"security: TLS goes with a tls:// {what} (an existing scheduler); {what} = {scheduler!r}")
        return None
    if security is not None:
        if not isinstance(security, Security):
            raise ValueError(f"security = {security!r} must be a distributed.security.Security")
        return security
    if all(dask.config.get(k, None) for k in TLS_CONFIG_KEYS):
        return Security(require_encryption=True)  # reads distributed.comm.tls.* from the configuration
    raise ValueError(f"{what} = {scheduler!r} is an encrypted (TLS) address and no certificates are given: pass "
                     f"security= (a distributed.security.Security) or set {' and '.join(TLS_CONFIG_KEYS)} (and "
                     "distributed.comm.tls.client.key) in the Dask configuration")


def check_fit_kwargs(fit: Callable, fit_kwargs: dict, what: str = "fit_kwargs") -> dict:
    """``fit_kwargs`` checked against ``fit(path, **fit_kwargs)``'s signature before any fit (names, required
    ones); for ``calibrate_ring_csv`` also against ``calibrate_ring_spectrum``, which receives its extras."""
    if not isinstance(fit_kwargs, dict):
        raise ValueError(f"{what} = {fit_kwargs!r} must be a dict of keyword arguments of the fit")
    sig = inspect.signature(fit)
    try:
        sig.bind("spectrum.csv", **fit_kwargs)
    except TypeError as e:
        raise ValueError(f"{what}: {e} (the fit is {getattr(fit, '__name__', fit)!r})") from None
    extra = [k for k in fit_kwargs if k not in sig.parameters]
    if extra and fit is default_fit():
        from prismpic.analysis.calibration import calibrate_ring_spectrum

        inner = inspect.signature(calibrate_ring_spectrum).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in inner.values()):
            valid = sorted(set(sig.parameters) - {"path", "kwargs"} | (set(inner) - {"wl_nm", "through", "drop",
                                                                                     "source"}))
            bad = [k for k in extra if k not in inner]
            if bad:
                raise ValueError(f"{what}: calibrate_ring_csv has no parameter {bad[0]!r}; valid: {valid}")
    return fit_kwargs


# ---------------------------------------------------------------------------- the engine
@dataclass(frozen=True)
class Batch:
    """A finished batch: one ``DeviceResult`` per input, in input order, and how it ran (``reused``: results kept
    from a previous run, ``run_batch(previous=...)``)."""

    results: tuple[DeviceResult, ...]
    engine: str
    wall_s: float
    fit: str
    fit_kwargs: dict
    reused: int = 0

    @property
    def counts(self) -> dict[str, int]:
        """Number of devices per status (``STATUSES``) and in total."""
        out = {s: sum(r.status == s for r in self.results) for s in STATUSES}
        return out | {"total": len(self.results)}

    @property
    def complete(self) -> bool:
        """Whether every device ran (no ``not_run``): only then are the batch's statistics the wafer's."""
        return not any(r.status == "not_run" for r in self.results)


def _close(client) -> None:
    """Close ``client``; a scheduler that is gone already is no error at this point (the results are in)."""
    with contextlib.suppress(OSError, TimeoutError, CancelledError, asyncio.CancelledError):
        client.close(timeout=CLOSE_TIMEOUT_S)


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int, security=None):
    """A ``distributed.Client``: on a fresh ``LocalCluster`` (``workers`` processes, 1 thread each, scratch in a
    temporary folder) or connected to ``scheduler`` (with ``security``, a ``distributed.security.Security``, for
    tls://); closed (and the cluster shut down) on exit."""
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler is None:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="prismpic-dask-"))
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, local_directory=scratch,
                dashboard_address=None, silence_logs=logging.ERROR, env=user_cache.worker_environment()))
            client = Client(cluster)
        else:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT_S, security=security)
            except (OSError, TimeoutError) as e:
                raise ValueError(f"scheduler = {scheduler!r}: cannot connect to a Dask scheduler there "
                                 f"({one_line(e)})") from None
        stack.callback(_close, client)
        yield client


@contextlib.contextmanager
def _quiet_client():
    """Dask's client logger at CRITICAL: a lost scheduler is reported per device (not run), not as tracebacks."""
    log = logging.getLogger("distributed.client")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


def _on_dask(devices, fit, fit_kwargs, scheduler, workers, security, progress) -> list[DeviceResult]:
    from distributed import as_completed

    out: list[DeviceResult | None] = [None] * len(devices)
    lost: BaseException = CancelledError("the Dask client stopped before the task completed")
    with _quiet_client(), dask_client(scheduler, workers, security) as client:
        futures = client.map(fit_device, devices, fit=fit, fit_kwargs=fit_kwargs,
                             reuse_programs=program_cache.is_enabled(), pure=False)  # as the caller does
        where = {f.key: i for i, f in enumerate(futures)}
        done = as_completed(futures)
        for n_done in range(1, len(futures) + 1):
            try:
                fut = next(done)
            except (Exception, asyncio.CancelledError) as e:  # noqa: BLE001  (the client failed: the rest did not run)
                lost = e
                break
            i = where[fut.key]
            try:
                out[i] = fut.result()
            except (Exception, asyncio.CancelledError) as e:  # noqa: BLE001  (fit_device never raises: the task did not complete)
                out[i] = not_run(devices[i], e)
            fut.release()
            progress(n_done, len(devices))
    return [r if r is not None else not_run(d, lost) for r, d in zip(out, devices, strict=True)]


def _serial(devices, fit, fit_kwargs, progress) -> list[DeviceResult]:
    results = []
    for dev in devices:
        results.append(fit_device(dev, fit, fit_kwargs))
        progress(len(results), len(devices))
    return results


def reusable(devices: Sequence[Device], previous: Sequence[DeviceResult], key: str) -> dict[int, DeviceResult]:
    """Position in ``devices`` → the previous result kept for it (module docstring: a final status, the same file
    and die, unchanged bytes, the same ``fit_key``), carrying the current device (its index and position)."""
    by_file = {(r.device.path, r.device.die): r for r in previous if r.status in FINAL and r.fit_key == key}
    kept = {}
    for i, dev in enumerate(devices):
        r = by_file.get((dev.path, dev.die))
        if r is not None and r.input_digest == file_digest(dev.path):
            kept[i] = dataclasses.replace(r, device=dev)
    return kept


def run_batch(devices: Sequence[Device], *, fit: Callable | None = None, fit_kwargs: dict | None = None,
              scheduler: str | None = None, workers: int = 2, security=None,
              previous: Sequence[DeviceResult] = (), progress: Callable[[int, int], None] | None = None) -> Batch:
    """Fit every device (``fit_device``) here (``workers=0``), on a LocalCluster of ``workers`` processes, or
    on the cluster of ``scheduler``, except those a previous result covers (``reusable``); ``progress(done,
    total)`` after each device. Options are checked first.

    Args:
        devices: from ``devices_from``.
        fit: ``fit(path, **fit_kwargs)`` returning a result (default ``calibrate_ring_csv``); on Dask it must
            be importable by the workers (a module-level function).
        fit_kwargs: keyword arguments of the fit (e.g. ``{"radius": 20.0}``, µm).
        scheduler: ``tcp://HOST:PORT`` (or tls://, ws://, wss://) of an existing Dask scheduler, or None.
        workers: LocalCluster worker processes, in [0, MAX_WORKERS]; 0 runs the fits in this process without Dask.
        security: ``distributed.security.Security`` (CA, client certificate and key) of a tls:// or wss://
            scheduler; None takes the Dask configuration's TLS setup (``check_security``).
        previous: results of an earlier run of the same batch (``wafer.read_records``): devices with a final
            result there (fitted, failed, bad input; same file bytes, fit and options) are not fitted again.
        progress: called with (devices done, total), reused devices counted as done from the start.

    Returns:
        A ``Batch`` (results in input order: identical for every engine). Devices whose Dask task did not
        complete are ``not_run`` (``Batch.complete`` is False): run again with ``previous=`` its results.
    """
    fit = fit or default_fit()
    fit_kwargs = check_fit_kwargs(fit, dict(fit_kwargs or {}))
    scheduler, workers = check_engine(scheduler, workers)
    security = check_security(scheduler, security)
    devices = list(devices)
    name = f"{getattr(fit, '__module__', '')}.{getattr(fit, '__qualname__', repr(fit))}"
    key = fit_key(name, fit_kwargs)
    kept = reusable(devices, previous, key)
    todo = [d for i, d in enumerate(devices) if i not in kept]
    report = progress or (lambda done, total: None)
    if kept:
        report(len(kept), len(devices))

    def step(done, total):
        report(len(kept) + done, len(devices))

    t0 = time.perf_counter()
    if workers == 0 or not todo:
        fresh = _serial(todo, fit, fit_kwargs, step)
    else:
        fresh = _on_dask(todo, fit, fit_kwargs, scheduler, workers, security, step)
    fresh_iter = iter(dataclasses.replace(r, fit_key=key) for r in fresh)
    results = tuple(kept[i] if i in kept else next(fresh_iter) for i in range(len(devices)))
    engine = ("serial (this process)" if workers == 0 else f"Dask scheduler {scheduler}" if scheduler else
              f"Dask LocalCluster ({workers} worker processes)")
    return Batch(results, engine, time.perf_counter() - t0, name, jsonable(fit_kwargs), len(kept))
