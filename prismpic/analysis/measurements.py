"""Measured data in: the one CSV reader and the one rule for linear versus dB transmission.

Files: a header line (column names, case-insensitive), then numeric rows; blank lines and lines
starting with ``#`` are skipped. Wavelength columns are ``wavelength_nm`` or ``wavelength_um``;
transmission columns ending in ``_db`` hold dB, the others linear power.

Encodings and dialects: UTF-8 with or without a byte-order mark (Excel's "CSV UTF-8"), UTF-16 with
a byte-order mark (Excel's "Unicode text"); other bytes are decoded as Windows-1252 (Excel's
"CSV" on Western Windows; a superset of Latin-1's printable range), so a stray ``µ`` or ``°`` in a
comment or a unit does not stop the reader. The separator is the header line's first of ``,``
``;`` or tab; numbers use a decimal point; each line is one row (a quoted field never spans lines).
Files over ``MAX_FILE_BYTES``, with NUL bytes (binary data, UTF-16 without a byte-order mark), or
with a line over ``MAX_LINE_CHARS`` characters are refused with the file and line named.

The linear/dB rule (used for files and for arrays given to ``analyze_spectrum`` alike):

- linear power transmission lies in [−0.02, 1.5]: normalised to the input power, with detector
  offset noise down to −0.02 and up to +1.8 dB of normalisation error tolerated;
- dB transmission lies at or below 10·log10(1.5) ≈ +1.76 dB (the same bound), and a dB column whose
  values all lie in [0, 1.5] (and vary) is refused as linear data mislabelled as dB;
- values must be finite;
- a wavelength column holds its unit's values: nm numbers (100–20000) in ``wavelength_um``, or µm numbers
  (0.1–20) in ``wavelength_nm``, are refused naming the column and the fix.

Every failure is a ValueError naming the file (or array), the column, the line (or index), the value
and what is expected.
"""

from __future__ import annotations

import codecs
import csv
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LINEAR_MAX = 1.5  # largest linear power transmission accepted (normalisation error tolerated)
NEGATIVE_TOLERANCE = 0.02  # linear values down to −0.02 pass (detector offset noise)
DB_MAX = 10.0 * math.log10(LINEAR_MAX)  # the same bound in dB (+1.76 dB)
MIN_SPECTRUM_POINTS = 16  # fewest samples accepted in a spectrum
WL_RANGE_NM = (100.0, 20000.0)  # plausible wavelengths (nm): outside, the unit is wrong
MAX_FILE_BYTES = 256 * 2**20  # a measurement file larger than this is refused (not read into memory)
MAX_LINE_CHARS = 65536  # longest line accepted (below the csv module's 128 KiB field limit)
DELIMITERS = (",", ";", "\t")
# columns that mark a kind of measurement file, with the command that reads it: a transfer-curve or level file
# holding another kind's column is refused saying which kind it is (its own columns would be misread)
FILE_KINDS = {
    "voltage_v": "an MZM transfer curve (prismpic calibrate mzm --spectrum)",
    "level": "PCM levels (prismpic calibrate pcm --levels)",
    **{c: "a ring spectrum (prismpic calibrate ring --spectrum)" for c in ("through", "through_db", "drop", "drop_db")},
}


def _first_bad(mask) -> int:
    return int(np.flatnonzero(mask)[0])


def linear_transmission(values, *, name: str, db: bool, lines: list[int] | None = None,
                        db_label: str = "scale='db'", linear_hint: str = "pass scale='linear'",
                        db_hint: str = "dB data need scale='db'", where: str = "") -> np.ndarray:
    """Linear power transmission from ``values`` (dB when ``db``), checked by the module's rule.

    Args:
        values: 1-D array of transmission values.
        name: the column or argument name, for messages.
        db: whether ``values`` are in dB.
        lines: the file line of each value (messages then say "at line N"; else the array index).
        db_label, linear_hint, db_hint: how the caller's user declares dB or linear data.
        where: prefix for messages (e.g. ``"file.csv: "``).
    """
    a = np.asarray(values, dtype=float)

    def at(i):
        return f" at line {lines[i]}" if lines is not None else f" at index {i}"

    bad = ~np.isfinite(a)
    if bad.any():
        i = _first_bad(bad)
        label = f"{name} = {a[i]}{at(i)}" if lines is not None else f"{name}[{i}] = {a[i]}"
        raise ValueError(f"{where}{label} is not finite; {name} must be finite ({int(bad.sum())} NaN/infinite "
                         "values)")
    if db:
        if a.size and a.min() >= 0.0 and a.max() <= LINEAR_MAX and np.ptp(a) > 0:
            raise ValueError(f"{where}{name} = (min {a.min():.4g}, max {a.max():.4g}) with {db_label} looks like "
                             f"linear transmission (all values in [0, {LINEAR_MAX:g}]); {linear_hint}")
        if a.max() > DB_MAX:
            i = int(np.argmax(a))
            raise ValueError(f"{where}{name} = {a[i]:.4g} dB{at(i)} is above {DB_MAX:+.2f} dB: a passive chip's "
                             "transmission is at most 0 dB (normalize to the input power)")
        return 10.0 ** (a / 10.0)
    if a.min() < -NEGATIVE_TOLERANCE:
        i = int(np.argmin(a))
        raise ValueError(f"{where}{name} = {a[i]:.4g}{at(i)}: negative values; linear power transmission must "
                         f"be >= 0 (>= -{NEGATIVE_TOLERANCE:g} tolerated as noise); {db_hint}")
    if a.max() > LINEAR_MAX:
        i = int(np.argmax(a))
        raise ValueError(f"{where}{name} = {a[i]:.4g}{at(i)} exceeds {LINEAR_MAX:g}: linear transmission must "
                         f"be normalized to the input power (<= 1); {db_hint}")
    return a  # small negative values (noise) are kept: clipping them would bias floors


def check_wavelengths_nm(wl, *, name: str = "wl_nm", locate: Callable[[int], str] = lambda i: f"[{i}]",
                         where: str = "", min_points: int = MIN_SPECTRUM_POINTS) -> np.ndarray:
    """A 1-D, finite, strictly increasing wavelength array in nm within ``WL_RANGE_NM`` (ValueError otherwise)."""
    wl = np.asarray(wl, dtype=float)
    if wl.ndim != 1:
        raise ValueError(f"{where}{name} must be a 1-D array, got shape {wl.shape}")
    if wl.size < min_points:
        raise ValueError(f"{where}{name} has {wl.size} points; a spectrum needs at least {min_points}")
    bad = ~np.isfinite(wl)
    if bad.any():
        i = _first_bad(bad)
        raise ValueError(f"{where}{name}{locate(i)} = {wl[i]} is not finite; wavelengths must be finite numbers in nm")
    d = np.diff(wl)
    if np.any(d <= 0):
        i = _first_bad(d <= 0)
        what = "duplicated" if d[i] == 0 else "decreasing: not monotonic"
        raise ValueError(f"{where}{name} must be strictly increasing: {name}{locate(i + 1)} = {wl[i + 1]:.9g} nm <= "
                         f"{name}{locate(i)} = {wl[i]:.9g} nm ({what}); sort the data and remove duplicates")
    lo, hi = WL_RANGE_NM
    if wl[0] < lo or wl[-1] > hi:
        raise ValueError(f"{where}{name} spans {wl[0]:.6g}..{wl[-1]:.6g} nm, outside the valid range [{lo:g}, {hi:g}] "
                         "nm; is the unit right (wavelength_nm vs wavelength_um)?")
    return wl


# ---------------------------------------------------------------------------- CSV files
@dataclass(frozen=True, eq=False)
class MeasurementTable:
    """A measurement CSV: lower-case column names, float data (rows × columns) and each row's line number."""

    path: Path
    header: list[str]
    data: np.ndarray
    lines: list[int]

    @property
    def name(self) -> str:
        return self.path.name

    def locate(self, i: int) -> str:
        """Position text of data row ``i`` for messages."""
        return f" at line {self.lines[i]}"

    def pick(self, names: tuple[str, ...], what: str) -> str | None:
        """The one column of ``names`` present (None if none; ValueError if several)."""
        found = [n for n in names if n in self.header]
        if len(found) > 1:
            raise ValueError(f"{self.name}: give one of the columns {found} for the {what}, not several")
        return found[0] if found else None

    def column(self, name: str) -> np.ndarray:
        """A column's values, checked finite."""
        a = self.data[:, self.header.index(name)].copy()
        bad = ~np.isfinite(a)
        if bad.any():
            i = _first_bad(bad)
            raise ValueError(f"{self.name}: column {name} = {a[i]} at line {self.lines[i]} is not finite "
                             f"({int(bad.sum())} NaN/infinite values); remove or fix them")
        return a

    def check_column_range(self, name: str, values: np.ndarray, lo: float, hi: float, unit: str, why: str) -> None:
        """ValueError naming the file, the column, the first line outside [lo, hi] (``unit``) and ``why`` (the
        physics that sets the range)."""
        bad = (values < lo) | (values > hi)
        if bad.any():
            i = _first_bad(bad)
            u = f" {unit}" if unit else ""
            raise ValueError(f"{self.name}: column {name} = {values[i]:.6g}{u} at line {self.lines[i]} is outside the "
                             f"valid range [{lo:g}, {hi:g}]{u} ({why}; {int(bad.sum())} of {values.size} values "
                             "outside)")

    def transmission(self, name: str) -> np.ndarray:
        """Linear power transmission of a column (dB when its name ends in ``_db``), by the module's rule."""
        db = name.endswith("_db")
        return linear_transmission(
            self.column(name), name=f"column {name}", db=db, lines=self.lines, where=f"{self.name}: ",
            db_label="a dB column name", linear_hint=f"name it {name[:-3]!r} or give dB values",
            db_hint=f"dB values go in a column named {name + '_db'!r}")

    def wavelength_column(self, col: str) -> np.ndarray:
        """The values of wavelength column ``col`` (``wavelength_nm`` or ``wavelength_um``), checked to be in
        the column's unit: nm values in a µm column (or µm in an nm one) name the column, the lines and the fix."""
        w = self.column(col)
        lo_um, hi_um = (v * 1e-3 for v in WL_RANGE_NM)
        span = f"{w.min():.6g}..{w.max():.6g} (lines {self.lines[0]}..{self.lines[-1]})"
        if col == "wavelength_um" and w.min() >= WL_RANGE_NM[0] and w.max() <= WL_RANGE_NM[1]:
            raise ValueError(f"{self.name}: column wavelength_um holds {span}: nm values in a µm column; name the "
                             "column wavelength_nm (or give µm)")
        if col == "wavelength_nm" and w.min() >= lo_um and w.max() <= hi_um:
            raise ValueError(f"{self.name}: column wavelength_nm holds {span}: µm values in an nm column; name the "
                             "column wavelength_um (or give nm)")
        return w

    def wavelength_um(self, required: bool = True) -> np.ndarray | None:
        """The wavelength column in µm (``wavelength_nm`` or ``wavelength_um``), or None if absent and optional."""
        col = self.pick(("wavelength_nm", "wavelength_um"), "wavelength")
        if col is None:
            if required:
                raise ValueError(f"{self.name}: no wavelength column; found columns {self.header}, need "
                                 "'wavelength_nm' or 'wavelength_um'")
            return None
        w = self.wavelength_column(col)
        return w * (1e-3 if col == "wavelength_nm" else 1.0)


def _is_float(c: str) -> bool:
    try:
        float(c)
        return True
    except ValueError:
        return False


def decode_text(data: bytes, where: str) -> str:
    """Text of a measurement file's bytes (see the module docstring for the encodings); ``where`` names the
    file in errors."""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(enc)
            except UnicodeDecodeError as e:
                line = data[: e.start].count(b"\n") + 1
                raise ValueError(f"{where}: invalid {enc} text at line {line} (byte {e.start}); save the file as "
                                 "UTF-8") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data[:nul].count(b"\n") + 1
        raise ValueError(f"{where} is not a text file: a NUL byte at line {line} (byte {nul}); "
                         "binary data, or UTF-16 without a byte-order mark: save it as CSV (UTF-8)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # a few undefined bytes become U+FFFD, never an error


def _lines(text: str) -> list[str]:
    """Physical lines (\\n, \\r\\n or \\r endings; not str.splitlines, which also splits at form feeds and
    Unicode separators and would shift the line numbers from what an editor shows)."""
    return re.split(r"\r\n|\r|\n", text)


def _delimiter(text: str) -> str:
    for line in _lines(text):
        if line.strip() and not line.lstrip().startswith("#"):
            found = [d for d in DELIMITERS if d in line]
            return min(found, key=line.index) if found else ","
    return ","


def _rows(text: str, where: str):
    """(line number, fields) of the data and header lines of ``text`` (blank and ``#`` lines skipped), each
    line parsed on its own (a quote never runs into the next line); ValueErrors name the line."""
    delim = _delimiter(text)
    for lineno, line in enumerate(_lines(text), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(line) > MAX_LINE_CHARS:
            raise ValueError(f"{where}: line {lineno} has {len(line):,} characters, more than the "
                             f"{MAX_LINE_CHARS:,} a measurement row may have (not a measurement file?)")
        try:
            row = next(csv.reader((line,), delimiter=delim, strict=True), [])
        except csv.Error as e:
            raise ValueError(f"{where}: line {lineno} is not valid CSV ({e}; an unbalanced quote?)") from None
        yield lineno, row


def read_table(path, what: str) -> MeasurementTable:
    """Read a measurement CSV (header, numeric rows; blank and # lines skipped). ``what`` names it in errors."""
    path = Path(path)
    where = f"{what} {path.name}"
    if not path.is_file():
        raise ValueError(f"{what} = {str(path)!r} is not a readable file")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{where} has {size / 2**20:.4g} MiB, more than the {MAX_FILE_BYTES // 2**20} MiB a "
                             "measurement file may have")
        data = path.read_bytes()
    except OSError as e:
        raise ValueError(f"{what} = {str(path)!r} cannot be read ({e.strerror})") from None
    text = decode_text(data, where)
    rows, lines = [], []
    header = None
    n_used = 0
    for lineno, row in _rows(text, where):
        if all(not c.strip() for c in row):
            continue
        if header is None:
            header = [c.strip().lower() for c in row]
            while header and not header[-1]:  # trailing separators (spreadsheet exports)
                header.pop()
            n_used = len(header)
            if not header or any(not h for h in header):
                raise ValueError(f"{where}: line {lineno}: the header {row} has an empty column name")
            continue
        fields = row
        if len(row) > n_used and not any(c.strip() for c in row[n_used:]):
            fields = row[:n_used]
        if len(fields) != n_used:
            raise ValueError(f"{where}: line {lineno} has {len(fields)} fields, the header has "
                             f"{n_used} ({', '.join(header)})")
        try:
            rows.append([float(c) for c in fields])
        except ValueError:
            bad = next(c for c in fields if not _is_float(c)).strip()
            hint = "; numbers need a decimal point, not a comma" if _is_float(bad.replace(",", ".", 1)) else ""
            raise ValueError(f"{where}: line {lineno} holds {bad!r}, not a number{hint}") from None
        lines.append(lineno)
    if header is None:
        raise ValueError(f"{where} is empty: a header line and data rows are needed")
    if len(set(header)) != len(header):
        raise ValueError(f"{where}: duplicated column names in the header {header}")
    if not rows:
        raise ValueError(f"{where} has a header ({', '.join(header)}) but no data rows")
    return MeasurementTable(path, header, np.asarray(rows, float).reshape(len(rows), len(header)), lines)


# ---------------------------------------------------------------------------- ring spectra
@dataclass(frozen=True, eq=False)
class MeasuredSpectrum:
    """A ring spectrum read from CSV: wavelengths (nm, increasing) and linear power transmission."""

    wl_nm: np.ndarray
    through: np.ndarray | None
    drop: np.ndarray | None
    path: str = ""


def read_spectrum_csv(path) -> MeasuredSpectrum:
    """Read a ring spectrum CSV (header; ``wavelength_nm`` or ``wavelength_um``; ``through_db``/``drop_db``
    in dB or ``through``/``drop`` linear; either or both ports). Raises ValueError on bad input."""
    table = read_table(path, "spectrum")
    fname = table.name
    wcol = table.pick(("wavelength_nm", "wavelength_um"), "wavelength")
    if wcol is None:
        raise ValueError(f"{fname}: no wavelength column; found columns {table.header}, need 'wavelength_nm' or "
                         "'wavelength_um'")
    tcol = table.pick(("through_db", "through"), "through port")
    dcol = table.pick(("drop_db", "drop"), "drop port")
    if tcol is None and dcol is None:
        raise ValueError(f"{fname}: no transmission column; found columns {table.header}, need one or both of "
                         "'through_db'/'through' and 'drop_db'/'drop' (dB or linear)")
    if table.data.shape[0] < MIN_SPECTRUM_POINTS:
        raise ValueError(f"{fname} has {table.data.shape[0]} data rows; a spectrum needs at least "
                         f"{MIN_SPECTRUM_POINTS}")
    wl = table.wavelength_column(wcol)
    if wcol == "wavelength_um":
        wl = wl * 1e3
    if np.all(np.diff(wl) < 0):  # a scan stored from long to short wavelength
        table = MeasurementTable(table.path, table.header, table.data[::-1], table.lines[::-1])
        wl = wl[::-1]
    check_wavelengths_nm(wl, name=wcol, locate=table.locate, where=f"{fname}: ")
    through = table.transmission(tcol) if tcol else None
    drop = table.transmission(dcol) if dcol else None
    return MeasuredSpectrum(wl, through, drop, str(path))


def read_transfer_csv(path, x_names: tuple[str, ...], what: str, *, x_optional: bool = False,
                      x_range: tuple[float, float, str, str] | None = None,
                      wl_range_um: tuple[float, float, str] | None = None):
    """(x, linear transmission, wavelength µm or None, line numbers) from a CSV with an ``x_names`` column and
    ``transmission_db`` or ``transmission``; ``x_names=()`` reads no x column, ``x_optional`` returns x = None
    when the file has none of ``x_names``.

    Every column must be one of these (or ``wavelength_nm``/``wavelength_um``): another kind's column
    (``FILE_KINDS``) is refused naming that kind, any other column as unknown. ``x_range`` (lo, hi, unit, why) and
    ``wl_range_um`` (lo, hi µm, why) range-check the x and wavelength columns, naming the column, the line and why.
    """
    table = read_table(path, what)
    known = (*x_names, "transmission_db", "transmission", "wavelength_nm", "wavelength_um")
    for col in table.header:
        if col in known:
            continue
        if col in FILE_KINDS:
            raise ValueError(f"{table.name}: column {col!r} marks {FILE_KINDS[col]}, not {what} (columns "
                             f"{', '.join(known)})")
        raise ValueError(f"{table.name}: unknown column {col!r}; {what} files have the columns {', '.join(known)}")
    xcol = table.pick(x_names, x_names[0]) if x_names else None
    tcol = table.pick(("transmission_db", "transmission"), "transmission")
    if tcol is None or (xcol is None and x_names and not x_optional):
        need = " and ".join(([f"{'/'.join(x_names)!r}"] if x_names else []) + ["'transmission_db' or 'transmission'"])
        raise ValueError(f"{table.name}: found columns {table.header}, need {need}")
    x = table.column(xcol) if xcol else None
    if x is not None and x_range is not None:
        table.check_column_range(xcol, x, *x_range)
    t = table.transmission(tcol)
    wl = table.wavelength_um(required=False)
    if wl is not None and wl_range_um is not None:
        lo, hi, why = wl_range_um
        wcol = table.pick(("wavelength_nm", "wavelength_um"), "wavelength")
        scale = 1e3 if wcol == "wavelength_nm" else 1.0
        table.check_column_range(wcol, wl * scale, lo * scale, hi * scale, "nm" if scale > 1 else "µm", why)
    return x, t, wl, table.lines
