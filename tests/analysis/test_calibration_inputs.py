"""Bad measurement files for the ring calibration: one ValueError naming the file, the column or line and the
problem; on the command line one line, exit code 2, nothing written. Readable oddities (a byte-order mark,
Latin-1 bytes in a comment) are read, not refused.

The spectrum is a Lorentzian through dip 1 − 0.8/(1 + (2Δ/FWHM)²) repeating every 8 nm (a ring's line shape
near resonance, Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), eq. 7).
"""

from __future__ import annotations

import codecs

import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.analysis import calibration as cal
from prismpic.analysis import measurements as ms
from prismpic.cli import app

runner = CliRunner()


def dips(wl):
    x = (wl - 1546.0) % 8.0 - 4.0
    return 1 - 0.8 / (1 + (2 * x / 0.1) ** 2)


def text(wl, t, header="wavelength_nm,through") -> str:
    return header + "\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(wl, t, strict=True))


WL = np.linspace(1540.0, 1556.0, 400)
T = dips(WL)


def cases() -> dict[str, tuple[bytes, list[str]]]:
    """name: (file bytes, words the one error must hold)."""
    good = text(WL, T)
    lines = good.splitlines(keepends=True)
    dup = lines[:11] + [lines[10]] + lines[11:]
    swap = lines[:10] + [lines[11], lines[10]] + lines[12:]
    nan = lines[:20] + [f"{float(WL[19])!r},nan\n"] + lines[21:]  # data row 19 is line 21
    return {
        "too few points": (text(WL[:10], T[:10]).encode(), ["f.csv", "10 data rows", "at least 16"]),
        "duplicated wavelengths": ("".join(dup).encode(), ["f.csv", "duplicated", "line 12"]),
        "non-monotonic wavelengths": ("".join(swap).encode(), ["f.csv", "not monotonic", "line 12"]),
        "NaN": ("".join(nan).encode(), ["f.csv", "through", "line 21", "not finite"]),
        "nm in a µm column": (text(WL, T, "wavelength_um,through").encode(),
                              ["f.csv", "wavelength_um", "nm values in a µm column"]),
        "µm in an nm column": (text(WL * 1e-3, T).encode(), ["f.csv", "wavelength_nm", "µm values in an nm column"]),
        "Latin-1 byte in a number": ("".join(lines[:30]).encode() + f"{float(WL[29])!r},0.9".encode() + b"\xb5\n" + "".join(lines[31:]).encode(),
                                     ["f.csv", "line 31", "not a number"]),
        "giant field": ("".join(lines[:5]).encode() + f"{float(WL[4])!r},".encode() + b"9" * 70000 + b"\n" + "".join(lines[6:]).encode(),
                        ["f.csv", "line 6", "characters"]),
        "giant number": ("".join(lines[:5]).encode() + f"{float(WL[4])!r},".encode() + b"9" * 400 + b"\n" + "".join(lines[6:]).encode(),
                         ["f.csv", "line 6", "not finite"]),
        "no resonance": (text(WL, np.full(WL.size, 0.5)).encode(), ["no resonance"]),
        "empty": (b"", ["f.csv", "empty"]),
        "header only": (b"wavelength_nm,through\n", ["f.csv", "no data rows"]),
    }


@pytest.mark.parametrize("name", list(cases()))
def test_bad_file_is_one_error_naming_file_and_line(tmp_path, name):
    data, words = cases()[name]
    f = tmp_path / "f.csv"
    f.write_bytes(data)
    with pytest.raises(ValueError) as e:
        cal.calibrate_ring_csv(f, kind="all_pass")
    msg = str(e.value)
    assert all(w in msg for w in words), msg
    assert "\n" not in msg
    out = tmp_path / "o.json"
    r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(f), "--kind", "all_pass", "--out", str(out)])
    assert r.exit_code == 2 and r.output.count("\n") <= 2 and words[-1].split()[0] in r.output, r.output
    assert not out.exists() and not out.with_suffix(".png").exists()
    assert not list(tmp_path.glob(".*"))  # no temporaries left


def test_bom_and_latin1_comment_are_read(tmp_path):
    body = text(WL, T)
    f = tmp_path / "bom.csv"
    f.write_bytes(codecs.BOM_UTF8 + body.encode())
    sp = ms.read_spectrum_csv(f)
    assert sp.wl_nm.size == WL.size and sp.through == pytest.approx(T)
    g = tmp_path / "latin1.csv"
    g.write_bytes("# Messung bei 25 °C, Faser µ-Linse\n".encode("latin-1") + body.encode())
    assert ms.read_spectrum_csv(g).wl_nm == pytest.approx(WL)
    h = tmp_path / "um.csv"  # µm wavelengths in their own column, dB transmission, stored long to short
    h.write_text("wavelength_um,through_db\n" + "".join(f"{float(w) * 1e-3!r},{float(10 * np.log10(t))!r}\n"
                                                         for w, t in zip(WL[::-1], T[::-1], strict=True)))
    sp = ms.read_spectrum_csv(h)
    assert sp.wl_nm == pytest.approx(WL) and sp.through == pytest.approx(T)
