"""A batch of ring spectra (a wafer): one fit per file, in this process or on Dask, with identical results.

Inputs (``devices_from``): a glob (``"DIR/*.csv"``; a folder means its ``*.csv``), a single spectrum file,
or a manifest CSV with a ``file`` column (paths relative to the manifest) and optional ``die``, ``x``, ``y``
(die position, any unit; other columns are ignored). Without a manifest the die is the file's stem and its
position is read from the name when it holds one (``..._x3_y-2...`` or ``X03Y-02``), else unknown.

Per device (``fit_device``): the fit (``calibrate_ring_csv(path, **fit_kwargs)`` by default, or any
function of the same form) gives a result or raises. A ValueError on a file that ``measurements.
read_spectrum_csv`` refuses (or an unreadable file) makes a *bad file*, with the reader's message; any other
ValueError, a result flagged ``failed`` (``failure_reason``) or an unexpected exception (reason "internal
error ...") marks the device *failed*. Neither stops the batch. A device result is plain data (values, 1σ,
specs, notes, the JSON parameter file), the same whichever process computed it.

Engine (``run_batch``): ``workers=0`` runs the fits here, one after the other; ``workers>=1`` starts a Dask
``LocalCluster`` on this machine (that many worker processes, one thread each, its scratch files in a
temporary folder removed afterwards); ``scheduler="tcp://HOST:PORT"`` sends the fits to an existing cluster,
whose workers must import the same prismpic and see the spectrum files at the same absolute paths (a shared
file system). Results come back in input order, so the table does not depend on the engine. The cluster and
client are closed on the way out, on errors and Ctrl-C included.

``closed_form_fit.closed_form_ring_csv`` is a fast fit of the same form (the closed-form spectrum analysis,
milliseconds per spectrum), for a first look at a wafer and for the tests.
"""

from __future__ import annotations

import contextlib
import glob
import inspect
import logging
import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prismpic.analysis.measurements import decode_text, read_spectrum_csv
from prismpic.fileio import jsonable

STATUSES = ("fitted", "failed", "bad_file")
MAX_WORKERS = 1024
CONNECT_TIMEOUT_S = 20.0  # waiting for an existing scheduler to answer
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
            head = f.read(65536)
    except OSError:
        return False
    try:
        text = decode_text(head, path.name)
    except ValueError:
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

    Files are relative to the manifest's folder; a listed file that is missing is kept (it becomes a bad file
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
        status: ``"fitted"``, ``"failed"`` (the fit raised or flagged a failure) or ``"bad_file"``.
        reason: why it failed or was refused ("" when fitted).
        params: fitted physical parameter → (value, 1σ or None), in the fit's units.
        design: design value of the parameters that have one (e.g. the drawn width).
        specs: spec → (value, 1σ or None) of the fitted model.
        quality: chi2_reduced, converged, n_points when the fit reports them.
        notes: the fit's notes and ambiguities.
        record: the JSON-ready parameter file (``to_params()`` or ``to_dict()`` of the result).
        seconds: wall time of the device (reading and fit).
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


def result_of(device: Device, cal, seconds: float) -> DeviceResult:
    """A fit result (``RingCalibration``, ``ClosedFormRing`` or alike) as a ``DeviceResult``."""
    failed = bool(getattr(cal, "failed", False))
    if failed:
        reason = str(getattr(cal, "failure_reason", "") or "the fit reports a failure")
        return DeviceResult(device, "failed", " ".join(reason.split()), notes=tuple(getattr(cal, "notes", ())),
                            seconds=seconds)
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
                        seconds)


def fit_device(device: Device, fit: Callable, fit_kwargs: dict) -> DeviceResult:
    """``fit(path, **fit_kwargs)`` of ``device``'s file as a ``DeviceResult``; never raises for bad data."""
    t0 = time.perf_counter()

    def done(status, reason):
        return DeviceResult(device, status, " ".join(str(reason).split()), seconds=time.perf_counter() - t0)

    try:
        cal = fit(device.path, **fit_kwargs)
    except ValueError as e:
        try:  # a file the reader refuses is a bad file (the reader's message), else the fit failed on it
            read_spectrum_csv(device.path)
        except ValueError as bad:
            return done("bad_file", bad)
        except OSError as bad:
            return done("bad_file", f"{Path(device.path).name}: cannot be read ({bad.strerror or bad})")
        return done("failed", e)
    except OSError as e:
        return done("bad_file", f"{Path(device.path).name}: cannot be read ({e.strerror or e})")
    except Exception as e:  # noqa: BLE001  (one device's bug must not abort a wafer: reported as such)
        return done("failed", f"internal error ({type(e).__name__}: {e}); a bug in the fit, please report it")
    return result_of(device, cal, time.perf_counter() - t0)


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
    """A finished batch: one ``DeviceResult`` per input, in input order, and how it ran."""

    results: tuple[DeviceResult, ...]
    engine: str
    wall_s: float
    fit: str
    fit_kwargs: dict

    @property
    def counts(self) -> dict[str, int]:
        """Number of devices per status (``STATUSES``) and in total."""
        out = {s: sum(r.status == s for r in self.results) for s in STATUSES}
        return out | {"total": len(self.results)}


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int):
    """A ``distributed.Client``: on a fresh ``LocalCluster`` (``workers`` processes, 1 thread each, scratch in a
    temporary folder) or connected to ``scheduler``; closed (and the cluster shut down) on exit."""
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler is None:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="prismpic-dask-"))
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, local_directory=scratch,
                dashboard_address=None, silence_logs=logging.ERROR))
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(scheduler, timeout=CONNECT_TIMEOUT_S))
            except (OSError, TimeoutError) as e:
                raise ValueError(f"scheduler = {scheduler!r}: cannot connect to a Dask scheduler there ({e})") from None
        yield client


def _on_dask(devices, fit, fit_kwargs, scheduler, workers, progress) -> list[DeviceResult]:
    from distributed import as_completed

    out: list[DeviceResult | None] = [None] * len(devices)
    with dask_client(scheduler, workers) as client:
        futures = client.map(fit_device, devices, fit=fit, fit_kwargs=fit_kwargs, pure=False)
        where = {f.key: i for i, f in enumerate(futures)}
        for n_done, fut in enumerate(as_completed(futures), 1):
            i = where[fut.key]
            try:
                out[i] = fut.result()
            except Exception as e:  # noqa: BLE001  (a worker died or the task could not run: that device fails)
                out[i] = DeviceResult(devices[i], "failed", f"Dask task failed ({type(e).__name__}: {e})")
            fut.release()
            progress(n_done, len(devices))
    return out


def run_batch(devices: Sequence[Device], *, fit: Callable | None = None, fit_kwargs: dict | None = None,
              scheduler: str | None = None, workers: int = 2,
              progress: Callable[[int, int], None] | None = None) -> Batch:
    """Fit every device (``fit_device``) here (``workers=0``), on a LocalCluster of ``workers`` processes, or
    on the cluster of ``scheduler``; ``progress(done, total)`` after each device. Options are checked first.

    Args:
        devices: from ``devices_from``.
        fit: ``fit(path, **fit_kwargs)`` returning a result (default ``calibrate_ring_csv``); on Dask it must
            be importable by the workers (a module-level function).
        fit_kwargs: keyword arguments of the fit (e.g. ``{"radius": 20.0}``, µm).
        scheduler: ``tcp://HOST:PORT`` of an existing Dask scheduler, or None.
        workers: LocalCluster worker processes; 0 runs the fits in this process without Dask.
        progress: called with (devices done, total).

    Returns:
        A ``Batch`` (results in input order: identical for every engine).
    """
    fit = fit or default_fit()
    fit_kwargs = check_fit_kwargs(fit, dict(fit_kwargs or {}))
    scheduler, workers = check_engine(scheduler, workers)
    devices = list(devices)
    progress = progress or (lambda done, total: None)
    t0 = time.perf_counter()
    if workers == 0:
        results = []
        for dev in devices:
            results.append(fit_device(dev, fit, fit_kwargs))
            progress(len(results), len(devices))
        engine = "serial (this process)"
    else:
        results = _on_dask(devices, fit, fit_kwargs, scheduler, workers, progress)
        engine = f"Dask scheduler {scheduler}" if scheduler else f"Dask LocalCluster ({workers} worker processes)"
    name = f"{getattr(fit, '__module__', '')}.{getattr(fit, '__qualname__', repr(fit))}"
    return Batch(tuple(results), engine, time.perf_counter() - t0, name, jsonable(fit_kwargs))
