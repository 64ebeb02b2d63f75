"""Fuzzing the measurement-file reader with random corruptions of valid files (and random files).

Property: ``read_spectrum_csv`` / ``read_transfer_csv`` either return data that satisfy the reader's documented
rule (finite, wavelengths increasing in range, linear transmission in [−0.02, 1.5], equal lengths), or raise a
``ValueError`` naming the file (and, when it names a line, a line the file has). No other exception escapes: no
``_csv.Error``, ``UnicodeDecodeError`` without the file name, ``IndexError``, ...
"""

import codecs
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prismpic.analysis import measurements as ms

N = settings.default.max_examples


def _spectrum_text() -> str:
    wl = np.linspace(1545.0, 1555.0, 40)
    t = 1 - 0.8 / (1 + ((wl - 1550.0) / 0.2) ** 2)
    d = 0.7 / (1 + ((wl - 1550.0) / 0.2) ** 2)
    return "# ring 7, 25 C\nwavelength_nm,through,drop_db\n" + "".join(
        f"{float(a)!r},{float(b)!r},{float(10 * np.log10(c))!r}\n" for a, b, c in zip(wl, t, d, strict=True))


def _transfer_text() -> str:
    v = np.linspace(-8, 8, 25)
    return "voltage_v,transmission_db,wavelength_nm\n" + "".join(
        f"{float(x)!r},{float(10 * np.log10(0.05 + 0.9 * np.cos(x / 3) ** 2))!r},1550.0\n" for x in v)


def _levels_text() -> str:
    return "transmission_db\n-0.4\n-1.2\n-2.5\n"


VALID = {"spectrum": _spectrum_text(), "transfer": _transfer_text(), "levels": _levels_text()}


@st.composite
def corrupted(draw, kind: str) -> bytes:
    """A valid file of ``kind`` with 1–3 random corruptions (bytes, lines, fields, encodings)."""
    data = VALID[kind].encode()
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "dup_line", "swap_lines", "drop_line",
                                   "junk_line", "field", "bom", "utf16", "latin1", "delimiter", "long_line",
                                   "quote", "crlf"]))
        lines = data.split(b"\n")
        i = draw(st.integers(0, max(len(data) - 1, 0)))
        j = draw(st.integers(0, max(len(lines) - 1, 0)))
        k = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "delete":
            data = data[:i] + data[i + draw(st.integers(1, 40)):]
        elif op == "insert":
            data = data[:i] + draw(st.binary(min_size=1, max_size=20)) + data[i:]
        elif op == "replace":
            data = data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[i + 1:]
        elif op == "truncate":
            data = data[:i]
        elif op == "dup_line":
            lines.insert(j, lines[j])
            data = b"\n".join(lines)
        elif op == "swap_lines":
            lines[j], lines[k] = lines[k], lines[j]
            data = b"\n".join(lines)
        elif op == "drop_line":
            del lines[j]
            data = b"\n".join(lines)
        elif op == "junk_line":
            lines.insert(j, draw(st.text(max_size=30)).encode("utf-8", "surrogatepass"))
            data = b"\n".join(lines)
        elif op == "field":
            fields = lines[j].split(b",")
            fields[draw(st.integers(0, len(fields) - 1))] = draw(st.sampled_from(
                [b"nan", b"inf", b"-inf", b"1e400", b"", b" ", b"abc", b"1,5", b"0x10", b"1_000", b"\xb5m", b"-1e-300",
                 b"1e308", b"-0"]))
            lines[j] = b",".join(fields)
            data = b"\n".join(lines)
        elif op == "bom":
            data = codecs.BOM_UTF8 + data
        elif op == "utf16":
            data = data.decode("utf-8", "replace").encode(draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be"])))
        elif op == "latin1":
            data = data.replace(b"#", "# µ° Müller".encode("latin-1"), 1) + "# fin ½\n".encode("cp1252")
        elif op == "delimiter":
            data = data.replace(b",", draw(st.sampled_from([b";", b"\t", b" ", b"|"])))
        elif op == "long_line":
            lines.insert(j, b"1550.0," + b"9" * draw(st.integers(60_000, 200_000)))
            data = b"\n".join(lines)
        elif op == "quote":
            data = data[:i] + b'"' + data[i:]
        else:
            data = data.replace(b"\n", b"\r\n")
    return data


def _check_error(e: ValueError, path: Path, raw: bytes):
    msg = str(e)
    assert path.name in msg, msg
    n_lines = raw.count(b"\n") + raw.count(b"\r") + 1
    for m in re.finditer(r"\bline (\d+)", msg):
        assert 1 <= int(m.group(1)) <= n_lines, (msg, n_lines)


def _read(raw: bytes, reader):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "meas.csv"
        path.write_bytes(raw)
        try:
            return reader(path), None
        except ValueError as e:
            _check_error(e, path, raw)
            return None, e


def _linear_ok(t) -> bool:
    t = np.asarray(t)
    return bool(np.all(np.isfinite(t)) and t.min() >= -ms.NEGATIVE_TOLERANCE and t.max() <= ms.LINEAR_MAX)


@settings(max_examples=20 * N)
@given(raw=corrupted("spectrum") | st.binary(max_size=200))
def test_fuzz_spectrum_reader(raw):
    sp, _ = _read(raw, ms.read_spectrum_csv)
    if sp is not None:
        wl = sp.wl_nm
        assert wl.ndim == 1 and wl.size >= ms.MIN_SPECTRUM_POINTS and np.all(np.diff(wl) > 0)
        assert ms.WL_RANGE_NM[0] <= wl[0] and wl[-1] <= ms.WL_RANGE_NM[1]
        assert sp.through is not None or sp.drop is not None
        for port in (sp.through, sp.drop):
            if port is not None:
                assert port.shape == wl.shape and _linear_ok(port)


@settings(max_examples=10 * N)
@given(raw=corrupted("transfer"))
def test_fuzz_transfer_reader(raw):
    got, _ = _read(raw, lambda p: ms.read_transfer_csv(p, ("voltage_v",), "mzm transfer curve"))
    if got is not None:
        x, t, wl, lines = got
        assert x.shape == t.shape == (len(lines),) and np.all(np.isfinite(x)) and _linear_ok(t)
        assert wl is None or (wl.shape == x.shape and np.all(np.isfinite(wl)))


@settings(max_examples=10 * N)
@given(raw=corrupted("levels"))
def test_fuzz_levels_reader(raw):
    got, _ = _read(raw, lambda p: ms.read_transfer_csv(p, ("level",), "pcm levels", x_optional=True))
    if got is not None:
        x, t, _, lines = got
        assert t.shape == (len(lines),) and _linear_ok(t) and (x is None or x.shape == t.shape)


def test_valid_files_read():
    """The uncorrupted files are valid (so every failure above comes from the corruption)."""
    for kind, reader in (("spectrum", ms.read_spectrum_csv),
                         ("transfer", lambda p: ms.read_transfer_csv(p, ("voltage_v",), "mzm transfer curve")),
                         ("levels", lambda p: ms.read_transfer_csv(p, ("level",), "pcm levels", x_optional=True))):
        got, err = _read(VALID[kind].encode(), reader)
        assert err is None and got is not None, (kind, err)


@pytest.mark.parametrize("raw,match", [
    (b"", "is empty"),
    (b"wavelength_nm,through\n", "no data rows"),
    (b"wavelength_nm,,through\n1,2,3\n", "empty column name"),
    (b"a,a\n1,2\n", "duplicated column names"),
    (b"x,y\n1,2,3\n", "line 2 has 3 fields"),
])
def test_structural_errors(raw, match):
    _, err = _read(raw, ms.read_spectrum_csv)
    assert err is not None and re.search(match, str(err)), err
