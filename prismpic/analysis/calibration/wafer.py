"""A calibrated wafer: the device table (CSV, Parquet), wafer map and histograms (PNG), summary statistics and
the measured process description, written together into one output folder.

Folder written by ``write_wafer`` (atomically: a failed run leaves the previous folder or none)::

    devices.csv, devices.parquet   one row per device (``device_table``): index, file, die, x, y, status
                                   (fitted | failed | bad_input | not_run), reason, then per fitted parameter
                                   NAME and NAME_sigma (1σ), the process offsets derived from them (width_bias =
                                   width − drawn width, gap_bias = gap − drawn gap), per spec NAME and
                                   NAME_sigma, chi2_reduced, converged, n_points, notes. Values of devices
                                   not fitted are empty (a failed fit never looks like a result). In the CSV,
                                   reasons and notes are one line and a text cell starting with = + - @, tab
                                   or CR gets a leading ' (``csv_text``: no formula runs when a spreadsheet
                                   opens it); the Parquet file keeps the values as they are.
    wafer_map.png                  die x/y coloured by each fitted parameter (and n_g, Q_L, ER); failed
                                   dies ×, bad inputs ○, not run +
    histograms.png                 the fitted devices' distribution of the same quantities
    summary.json                   ``complete`` (no device not run), counts per status, mean/σ/min/max/median
                                   1σ per parameter and spec, the failed, bad-input and not-run devices with
                                   their reasons, whether process.json was written and why, how the batch ran
                                   (engine, fit, devices reused from a previous run, spectra/s)
    process.json                   only for a complete batch of at least ``MIN_FITTED_FOR_PROCESS`` fitted
                                   devices: the ``prismpic.pdk.process`` description (``load_process`` reads
                                   it), the process parameters the fits determine with the measured nominal
                                   and spread, the others the base process's
    devices/NNNN_DIE.json          the parameter file of each fitted device
    records/NNNN_DIE.json          every device's result (``record_of``), what a resumed batch reuses
                                   (``read_records``, ``batch.run_batch(previous=...)``)

Measured spread of a process parameter: the devices' sample variance s² contains each fit's own variance
σᵢ², so the process σ is √(max(s² − ⟨σᵢ²⟩, 0)) (method of moments for y = x + ε, ε independent of x). A
parameter counts as determined by the data when its median fit σ is below half its prior (base-process)
σ; otherwise the fits mostly return the prior and their spread says nothing about the process.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
from pathlib import Path

import numpy as np

from prismpic.analysis.calibration.batch import STATUSES, Batch, Device, DeviceResult, one_line
from prismpic.fileio import atomic_dir, check_output_dir, jsonable, save_figure_atomic, write_atomic, write_json_atomic
from prismpic.pdk import process as process_mod

LEAD = ("index", "file", "die", "x", "y", "status", "reason")
QUALITY = ("chi2_reduced", "converged", "n_points")
DERIVED = {"width_bias": "width", "gap_bias": "gap"}  # process offset ← fitted parameter (minus its design)
MAP_SPECS = ("ng", "q_loaded", "extinction_db")  # specs shown next to the parameters in the figures
MAX_PANELS = 9
DETERMINED_RATIO = 0.5  # determined by the data: median fit σ below this fraction of the prior σ
SCHEMA = "prismpic.wafer/2"  # 2: statuses bad_input and not_run, process.json only from enough devices, records/
RECORD_SCHEMA = "prismpic.wafer.device/1"
OLD_STATUS_NAMES = {"bad_file": "bad_input"}  # status names of older records → today's
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell starting so as a formula (OWASP)
ONE_LINE_COLUMNS = ("reason", "notes")
MIN_FITTED_FOR_PROCESS = 5
"""Fewest fitted devices that process.json is written from. The process σ is a sample standard deviation: from
n devices its 95 % confidence interval is σ̂·[√((n−1)/χ²₀.₉₇₅), √((n−1)/χ²₀.₀₂₅)] (χ² with n − 1 degrees of
freedom), [0.60, 2.87]·σ̂ at n = 5 and [0.52, 6.28]·σ̂ at n = 3: from fewer the spread is too uncertain to drive
a Monte Carlo."""


# ---------------------------------------------------------------------------- the table
def _derived(res: DeviceResult) -> dict:
    """Process offsets (value, 1σ) derived from fitted parameters that carry a design (drawn) value."""
    out = {}
    for name, src in DERIVED.items():
        if name in res.params or src not in res.params or src not in res.design:
            continue
        v, s = res.params[src]
        out[name] = (None if v is None else v - res.design[src], s)
    return out


def table_columns(results) -> tuple[list[str], list[str], list[str]]:
    """(parameter, derived process, spec) names of the table, each in order of first appearance."""
    params, derived, specs = [], [], []
    for r in results:
        params += [k for k in r.params if k not in params]
        derived += [k for k in _derived(r) if k not in derived]
    for r in results:
        specs += [k for k in r.specs if k not in specs and k not in params and k not in derived]
    return params, derived, specs


def device_table(results) -> tuple[list[str], list[dict]]:
    """(column names, one row per device): see the module docstring. Numbers are floats or None."""
    params, derived, specs = table_columns(results)
    cols = list(LEAD)
    for name in (*params, *derived, *specs):
        cols += [name, f"{name}_sigma"]
    cols += [*QUALITY, "notes"]
    rows = []
    for r in results:
        d = r.device
        row = dict.fromkeys(cols)
        row.update(index=d.index, file=d.file, die=d.die, x=_finite(d.x), y=_finite(d.y), status=r.status,
                   reason=r.reason, notes=" | ".join(r.notes))
        if r.status == "fitted":
            for name, (v, s) in (*r.params.items(), *_derived(r).items(),
                                 *((k, v) for k, v in r.specs.items() if k in specs)):
                row[name], row[f"{name}_sigma"] = v, s
            for k in QUALITY:
                row[k] = r.quality.get(k)
        rows.append(row)
    return cols, rows


def _finite(v):
    return float(v) if v is not None and math.isfinite(v) else None


def csv_text(text: str) -> str:
    """A text cell made safe for a spreadsheet: a leading ' when it starts with = + - @, tab or CR (OWASP's
    CSV-injection guidance), so that it is shown as text, never run as a formula."""
    return f"'{text}" if text.startswith(FORMULA_START) else text


def _cell(v, col: str) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    if isinstance(v, int):
        return str(v)
    return csv_text(one_line(v, limit=len(str(v))) if col in ONE_LINE_COLUMNS else str(v))


def table_csv(cols: list[str], rows: list[dict]) -> str:
    """The table as CSV text (floats in full precision, empty for missing; text cells: ``csv_text``, reasons and
    notes on one line)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_text(c) for c in cols])
    for row in rows:
        w.writerow([_cell(row[c], c) for c in cols])
    return buf.getvalue()


def _arrow_type(col: str):
    import pyarrow as pa

    if col in ("file", "die", "status", "reason", "notes"):
        return pa.string()
    if col in ("index", "n_points"):
        return pa.int64()
    if col == "converged":
        return pa.bool_()
    return pa.float64()


def write_parquet(path, cols: list[str], rows: list[dict]) -> Path:
    """The table as Parquet (typed columns, nulls for missing), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for c in cols:
        t = _arrow_type(c)
        vals = [row[c] for row in rows]
        if t == pa.int64():
            vals = [None if v is None else int(v) for v in vals]
        elif t == pa.bool_():
            vals = [None if v is None else bool(v) for v in vals]
        elif t == pa.float64():
            vals = [_finite(float(v)) if v is not None else None for v in vals]
        arrays[c] = pa.array(vals, type=t)
    table = pa.table(arrays)
    return write_atomic(path, lambda f: pq.write_table(table, f), binary=True, what="parquet table")


# ---------------------------------------------------------------------------- statistics
def _values(rows, name) -> tuple[np.ndarray, np.ndarray]:
    """Finite values of column ``name`` over the fitted rows, and their 1σ (NaN where unknown)."""
    v, s = [], []
    for row in rows:
        if row["status"] == "fitted" and row.get(name) is not None and math.isfinite(row[name]):
            v.append(row[name])
            sig = row.get(f"{name}_sigma")
            s.append(sig if sig is not None and math.isfinite(sig) else math.nan)
    return np.asarray(v, float), np.asarray(s, float)


def column_stats(rows, name) -> dict:
    """n, mean, std (1σ, ddof 1), min, max and the median fit 1σ of a column over the fitted devices."""
    v, s = _values(rows, name)
    if v.size == 0:
        return {"n": 0}
    known = s[np.isfinite(s)]
    return jsonable({"n": int(v.size), "mean": float(v.mean()), "std": float(v.std(ddof=1)) if v.size > 1 else None,
                     "min": float(v.min()), "max": float(v.max()),
                     "median_sigma": float(np.median(known)) if known.size else None})


def measured_process(rows, base: process_mod.Process = process_mod.DEFAULT_PROCESS
                     ) -> tuple[process_mod.Process, dict]:
    """(the process description with the measured nominal and spread of every process parameter the fits
    determine, {parameter: what was done and why}); see the module docstring."""
    new, report = {}, {}
    for name in process_mod.PARAMETERS:
        prior = getattr(base, name)
        v, s = _values(rows, name)
        if v.size == 0:
            report[name] = {"measured": False, "why": "not among the fitted parameters: base process kept"}
            continue
        if v.size < 2:
            report[name] = {"measured": False, "why": "fewer than 2 fitted devices: base process kept"}
            continue
        known = s[np.isfinite(s)]
        med = float(np.median(known)) if known.size else None
        if med is not None and prior.sigma > 0 and med >= DETERMINED_RATIO * prior.sigma:
            report[name] = {"measured": False, "median_fit_sigma": med, "prior_sigma": prior.sigma,
                            "why": f"median fit σ {med:.3g} {prior.unit} ≥ {DETERMINED_RATIO:g}× the prior σ "
                                   f"{prior.sigma:.3g} {prior.unit}: the data do not determine it; base process kept"}
            continue
        mean, std = float(v.mean()), float(v.std(ddof=1))
        fit_var = float(np.mean(known**2)) if known.size == v.size else None
        spread = math.sqrt(max(std**2 - fit_var, 0.0)) if fit_var is not None else std
        nominal = float(np.clip(mean, prior.lo, prior.hi))
        how = (f"σ = √(s² − ⟨σ_fit²⟩) with s = {std:.4g}, ⟨σ_fit²⟩^½ = {math.sqrt(fit_var):.4g} {prior.unit}"
               if fit_var is not None else
               f"σ = the devices' standard deviation {std:.4g} {prior.unit} (fit σ unknown)")
        clipped = (f"; mean {mean:.6g} clipped to the valid range [{prior.lo:g}, {prior.hi:g}]"
                   if nominal != mean else "")
        new[name] = process_mod.ProcessParameter(nominal, spread, prior.lo, prior.hi, prior.unit,
                                                 f"measured: mean of {v.size} fitted devices; {how}{clipped}")
        report[name] = {"measured": True, "n": int(v.size), "mean": mean, "std": std, "sigma": spread,
                        "median_fit_sigma": med, "why": new[name].source}
    return dataclasses.replace(base, **new), jsonable(report)


def process_file_verdict(counts: dict) -> tuple[bool, str]:
    """(whether process.json is written, why): only from a complete batch (no device not run) with at least
    ``MIN_FITTED_FOR_PROCESS`` fitted devices."""
    if counts["not_run"]:
        return False, (f"{counts['not_run']} of {counts['total']} devices not run: the batch is incomplete (resume "
                       "it); a process is not measured from part of a wafer")
    if counts["fitted"] < MIN_FITTED_FOR_PROCESS:
        return False, (f"{counts['fitted']} fitted devices, fewer than {MIN_FITTED_FOR_PROCESS}: their spread is too "
                       "uncertain to describe the process")
    return True, f"measured from {counts['fitted']} fitted devices"


def _listed(batch: Batch, status: str) -> list[dict]:
    return [{"index": r.device.index, "die": r.device.die, "file": r.device.file, "reason": r.reason}
            for r in batch.results if r.status == status]


def wafer_summary(batch: Batch, cols: list[str], rows: list[dict], process_report: dict, spectra: str) -> dict:
    """The ``summary.json`` content (see the module docstring); ``process_report`` is ``measured_process``'s,
    shown only when process.json is written."""
    params, derived, specs = table_columns(batch.results)
    written, why = process_file_verdict(batch.counts)
    n_run = len(batch.results) - batch.reused
    return jsonable({
        "schema": SCHEMA, "spectra": spectra, "complete": batch.complete, "counts": batch.counts,
        "parameters": {k: column_stats(rows, k) for k in (*params, *derived)},
        "specs": {k: column_stats(rows, k) for k in specs},
        **{s: _listed(batch, s) for s in STATUSES if s != "fitted"},
        "process_file": {"written": written, "why": why, "min_fitted": MIN_FITTED_FOR_PROCESS},
        "process": process_report if written else {},
        "run": {"engine": batch.engine, "fit": batch.fit, "fit_kwargs": batch.fit_kwargs, "wall_s": batch.wall_s,
                "reused": batch.reused, "spectra_per_s": n_run / batch.wall_s if batch.wall_s > 0 else None,
                "device_seconds_total": math.fsum(r.seconds for r in batch.results)},
        "columns": cols,
    })


# ---------------------------------------------------------------------------- figures
def panel_columns(results) -> list[str]:
    """The quantities drawn: the fitted parameters, the derived process offsets, then n_g, Q_L, ER."""
    params, derived, specs = table_columns(results)
    return [*params, *derived, *(s for s in MAP_SPECS if s in specs)][:MAX_PANELS]


def _grid(n: int):
    from matplotlib.figure import Figure

    ncols = min(3, max(n, 1))
    nrows = max(1, math.ceil(n / ncols))
    fig = Figure(figsize=(4.4 * ncols, 3.8 * nrows), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False).ravel()


def plot_wafer_map(rows: list[dict], names: list[str], path) -> Path:
    """Die x/y coloured by each of ``names`` (fitted dies), failed dies ×, bad inputs ○, not run +; PNG (or the
    suffix's)."""
    placed = [r for r in rows if r["x"] is not None and r["y"] is not None]
    fig, axes = _grid(max(len(names), 1))
    if not placed or not names:
        axes[0].text(0.5, 0.5, "no die positions: give a manifest with columns file, die, x, y\n(or names such as "
                     "..._x3_y-2.csv)" if not placed else "no fitted parameter", ha="center", va="center",
                     transform=axes[0].transAxes)
    size = float(np.clip(4000.0 / max(len(placed), 1), 12.0, 400.0))
    for ax, name in zip(axes, names if placed else [], strict=False):
        ok = [r for r in placed if r["status"] == "fitted" and r.get(name) is not None]
        if ok:
            sc = ax.scatter([r["x"] for r in ok], [r["y"] for r in ok], c=[r[name] for r in ok], marker="s", s=size,
                            cmap="viridis")
            fig.colorbar(sc, ax=ax, shrink=0.85)
        for status, marker, kw in (("failed", "x", {"c": "red"}), ("bad_input", "o", {"facecolors": "none",
                                                                                      "edgecolors": "black"}),
                                   ("not_run", "+", {"c": "grey"})):
            sel = [r for r in placed if r["status"] == status]
            if sel:
                ax.scatter([r["x"] for r in sel], [r["y"] for r in sel], marker=marker, s=size * 0.6,
                           label=f"{status.replace('_', ' ')} ({len(sel)})", **kw)
        if any(r["status"] != "fitted" for r in placed):
            ax.legend(loc="lower right", fontsize=7, framealpha=0.7)
        ax.set_title(name)
        ax.set_xlabel("die x")
        ax.set_ylabel("die y")
        ax.set_aspect("equal", adjustable="datalim")
    for ax in axes[len(names):] if placed else axes[1:]:
        ax.set_visible(False)
    return save_figure_atomic(fig, path, what="wafer map")


def plot_histograms(rows: list[dict], names: list[str], path) -> Path:
    """Histogram of each of ``names`` over the fitted devices, titled with mean ± σ (n)."""
    from matplotlib.ticker import MaxNLocator

    fig, axes = _grid(max(len(names), 1))
    if not names:
        axes[0].text(0.5, 0.5, "no fitted device", ha="center", va="center", transform=axes[0].transAxes)
    for ax, name in zip(axes, names, strict=False):
        v, _ = _values(rows, name)
        if v.size:
            ax.hist(v, bins=int(np.clip(np.sqrt(v.size) * 1.5, 5, 30)), color="tab:blue", alpha=0.8)
        sd = f" ± {v.std(ddof=1):.3g}" if v.size > 1 else ""
        ax.set_title(f"{name}: {v.mean():.5g}{sd} (n = {v.size})" if v.size else f"{name}: no value", fontsize=9)
        ax.set_xlabel(name)
        ax.set_ylabel("devices")
        ax.xaxis.set_major_locator(MaxNLocator(5))
    for ax in axes[max(len(names), 1):]:
        ax.set_visible(False)
    return save_figure_atomic(fig, path, what="histograms")


# ---------------------------------------------------------------------------- the folder
def _record_name(res: DeviceResult) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.\-]+", "_", res.device.die).strip("._")[:80] or "device"
    return f"{res.device.index:04d}_{safe}.json"


def record_of(res: DeviceResult) -> dict:
    """A device's result as the JSON of ``records/`` (every field of ``DeviceResult``; ``result_of_record``
    reads it back equal)."""
    return jsonable({"schema": RECORD_SCHEMA, **dataclasses.asdict(res)})


def status_of(name) -> str:
    """A recorded status as today's (older records: ``bad_file`` is ``bad_input``); ValueError if unknown."""
    status = OLD_STATUS_NAMES.get(name, name)
    if status not in STATUSES:
        raise ValueError(f"status = {name!r} is not one of {', '.join(STATUSES)}")
    return status


def _pairs(d) -> dict:
    return {str(k): (v[0], v[1]) for k, v in (d or {}).items()}


def _coordinate(v) -> float:
    return math.nan if v is None else float(v)


def result_of_record(data) -> DeviceResult:
    """The ``DeviceResult`` of a ``record_of`` dict; ValueError, KeyError or TypeError when it is malformed."""
    if not isinstance(data, dict) or data.get("schema") != RECORD_SCHEMA:
        raise ValueError(f"not a {RECORD_SCHEMA} record")
    d = data["device"]
    device = Device(int(d["index"]), str(d["path"]), str(d["file"]), str(d["die"]), _coordinate(d["x"]),
                    _coordinate(d["y"]))
    return DeviceResult(device, status_of(data["status"]), str(data["reason"]), _pairs(data["params"]),
                        dict(data["design"]), _pairs(data["specs"]), dict(data["quality"]),
                        tuple(str(n) for n in data["notes"]), data["record"], float(data["seconds"]),
                        str(data["input_digest"]), str(data["fit_key"]))


def read_records(out) -> tuple[DeviceResult, ...]:
    """The device results recorded in the wafer folder ``out`` (``records/``), for ``run_batch(previous=...)``;
    () when it has none. A record that cannot be read is skipped: its device is fitted again."""
    folder = Path(out) / "records"
    if not folder.is_dir():
        return ()
    results = []
    for path in sorted(folder.glob("*.json")):
        try:
            results.append(result_of_record(json.loads(path.read_bytes())))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
    return tuple(results)


def write_wafer(batch: Batch, out, *, spectra: str = "",
                base_process: process_mod.Process = process_mod.DEFAULT_PROCESS, what: str = "out") -> Path:
    """Write the output folder ``out`` (see the module docstring) atomically; returns ``out``. process.json only
    when ``process_file_verdict`` allows it."""
    out = Path(out)
    check_output_dir(out, what)
    cols, rows = device_table(batch.results)
    process, process_report = measured_process(rows, base_process)
    names = panel_columns(batch.results)
    with atomic_dir(out, what) as work:
        write_atomic(work / "devices.csv", lambda f: f.write(table_csv(cols, rows)), what="device table")
        write_parquet(work / "devices.parquet", cols, rows)
        plot_wafer_map(rows, names, work / "wafer_map.png")
        plot_histograms(rows, names, work / "histograms.png")
        write_json_atomic(work / "summary.json", wafer_summary(batch, cols, rows, process_report, spectra),
                          what="summary")
        if process_file_verdict(batch.counts)[0]:
            write_json_atomic(work / "process.json", process.to_dict(), what="process description")
        for sub in ("devices", "records"):
            (work / sub).mkdir()
        for r in batch.results:
            if r.status == "fitted" and r.record is not None:
                write_json_atomic(work / "devices" / _record_name(r), r.record, what="device parameter file")
            write_json_atomic(work / "records" / _record_name(r), record_of(r), what="device record")
    return out


def status_counts(batch: Batch) -> str:
    """One line: the number of devices per status, and in total."""
    c = batch.counts
    return ", ".join(f"{c[s]} {s.replace('_', ' ')}" for s in STATUSES) + f" of {c['total']}"
