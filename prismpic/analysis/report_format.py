"""Numbers for reading: engineering notation with SI prefixes and 3–4 significant figures, unit-aware.

``fmt(1.28e12, "ps")`` → ``1.28 s``, ``fmt(0.0819, "nm")`` → ``81.9 pm``, ``fmt(18904.37)`` → ``1.89 × 10⁴``,
``fmt(-18.19, "dBm")`` → ``−18.2 dBm``, ``fmt_range(8.1846, 8.2568, "nm")`` → ``8.18–8.26 nm``.

A value in a unit with an SI base (s, W, J, Hz, V, A, F, Ω, m, FLOPS, B; also the numerator of ``pm/V``,
``nJ/query``) keeps its unit while 1 ≤ |v| < 10⁴ (so wavelengths stay in nm: 1549 nm) and is otherwise
rescaled to the prefix that puts the mantissa in [1, 1000). Other units (dB, dBm, %, ×, GiB, bits, '')
are not rescaled; their values read plainly for 10⁻³ ≤ |v| < 10⁴ and in powers of ten otherwise (ranges in
multiples of three: ``7.4–27.4 × 10³``).
"""

from __future__ import annotations

import math

SIG = 3  # significant figures (4 for mantissas ≥ 1000: 1549 nm)
PREFIX_EXP = {"a": -18, "f": -15, "p": -12, "n": -9, "µ": -6, "u": -6, "m": -3, "": 0,
              "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
EXP_PREFIX = {e: p for p, e in PREFIX_EXP.items() if p != "u"}
SI_BASES = ("FLOPS", "FLOP", "Hz", "s", "W", "J", "V", "A", "F", "Ω", "m", "B")  # B: bytes (kB = 1000 B)
COUNTS = ("FLOPS", "FLOP", "B")  # counted units take no prefix below one (0.0039 FLOP/byte, not 3.9 mFLOP/byte)
MINUS = "\u2212"
NBSP = "\u00a0"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def parse_unit(unit: str | None) -> tuple[int, str, str] | None:
    """(prefix exponent, SI base, rest) of a unit such as ``ps``, ``µm``, ``pm/V``; None if it has no SI base."""
    if not unit:
        return None
    num, slash, den = unit.partition("/")
    rest = slash + den
    for base in SI_BASES:
        if num == base:
            return 0, base, rest
    for base in SI_BASES:
        prefix = num[: -len(base)]
        if num.endswith(base) and prefix in PREFIX_EXP:
            return PREFIX_EXP[prefix], base, rest
    return None


def _signed(text: str) -> str:
    return text.replace("-", MINUS)


def _rounded(v: float, sig: int) -> float:
    return float(f"{v:.{sig}g}")


def _mantissa(v: float, sig: int) -> str:
    """``v`` (|v| < 10⁴ after rounding) with ``sig`` significant figures, all four digits from 1000 up."""
    if abs(_rounded(v, sig)) >= 1000:
        return f"{v:.0f}"
    return f"{v:.{sig}g}"


def _power_of_ten(e: int) -> str:
    return f"{NBSP}×{NBSP}10{str(e).translate(_SUPERSCRIPT)}"


def _scientific(v: float, sig: int) -> str:
    mant, exp = f"{v:.{sig - 1}e}".split("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return mant + _power_of_ten(int(exp))


def plain(v: float, sig: int = SIG) -> str:
    """A number without unit: plain for 10⁻³ ≤ |v| < 10⁴, else ``m × 10ⁿ``."""
    if v == 0:
        return "0"
    r = abs(_rounded(v, sig))
    text = _mantissa(v, sig) if 1e-3 <= r < 1e4 else _scientific(v, sig)
    return _signed(text)


def _prefix_scale(v: float, exp0: int, sig: int) -> int:
    """The engineering exponent (multiple of 3, within the prefixes) for ``v`` given in 10^exp0 units."""
    si = _rounded(v * 10.0**exp0, sig)
    e3 = 3 * math.floor(math.log10(abs(si)) / 3)
    return max(-18, min(18, e3))


def _display_unit(v: float, unit: str | None, sig: int) -> tuple[float, str, bool]:
    """(factor dividing v, unit to print, whether the number is scaled by an SI prefix) for ``v`` in ``unit``."""
    parsed = parse_unit(unit)
    if parsed is None:
        return 1.0, unit or "", False
    exp0, base, rest = parsed
    if v == 0 or 1 <= abs(_rounded(v, sig)) < 1e4:
        return 1.0, (EXP_PREFIX[exp0] + base + rest) if exp0 in EXP_PREFIX else unit, True
    e3 = _prefix_scale(v, exp0, sig)
    if base in COUNTS:
        e3 = max(e3, 0)
    return 10.0 ** (e3 - exp0), EXP_PREFIX[e3] + base + rest, True


def _join(number: str, unit: str) -> str:
    if not unit:
        return number
    sep = "" if unit in ("%", "×") else NBSP
    return f"{number}{sep}{unit}"


def fmt(value, unit: str | None = "", sig: int = SIG) -> str:
    """``value`` in ``unit`` as text: None → —, str as given, numbers in engineering notation with the unit."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and len(value) == 2 and all(_is_number(x) for x in value):
        return fmt_range(value[0], value[1], unit, sig)
    if not _is_number(value):
        return str(value)
    if isinstance(value, int) and parse_unit(unit) is None and abs(value) < 10**6:
        number = f"{value:,}".replace(",", "\u202f") if abs(value) >= 10**4 else str(value)
        return _join(_signed(number), unit or "")
    v = float(value)
    if not math.isfinite(v):
        return "n/a"
    factor, shown, prefixed = _display_unit(v, unit, sig)
    number = _signed(_mantissa(v / factor, sig)) if prefixed and v != 0 else plain(v, sig)
    return _join(number, shown)


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def fmt_range(lo, hi, unit: str | None = "", sig: int = SIG) -> str:
    """``lo``–``hi`` in ``unit`` with one scale for both ends (``8.18–8.26 nm``, ``7.4–27.4 × 10³``)."""
    if lo is None or hi is None:
        return fmt(hi if lo is None else lo, unit, sig)
    lo, hi = sorted((float(lo), float(hi)))
    if lo == hi:
        return fmt(lo, unit, sig)
    big = max(abs(lo), abs(hi))
    if not math.isfinite(big):
        return "n/a"
    if big == 0:
        return fmt(0.0, unit, sig)
    factor, shown, prefixed = _display_unit(big, unit, sig)
    suffix = ""
    if not prefixed:
        r = _rounded(big, sig)
        if not 1e-3 <= r < 1e4:
            e = 3 * math.floor(math.log10(r) / 3)
            factor, suffix = 10.0**e, _power_of_ten(e)
    ml, mh = lo / factor, hi / factor
    decimals = max(0, sig - 1 - math.floor(math.log10(max(abs(ml), abs(mh)))))
    while lo != hi and f"{ml:.{decimals}f}" == f"{mh:.{decimals}f}" and decimals < 8:
        decimals += 1
    small = min(abs(ml), abs(mh))
    if small != 0 and small < 10.0 ** (1 - decimals):  # the smaller end would keep one digit: each its own scale
        a, b = fmt(lo, unit, sig), fmt(hi, unit, sig)
        tail = NBSP + b.rsplit(NBSP, 1)[-1] if NBSP in b else ""
        if tail and a.endswith(tail):
            a = a[: -len(tail)]
        return f"{a}{NBSP}to{NBSP}{b}" if lo < 0 else f"{a}{NBSP}–{NBSP}{b}"
    a, b = f"{ml:.{decimals}f}", f"{mh:.{decimals}f}"
    while "." in a and "." in b and a.endswith("0") and b.endswith("0"):  # 2.0–20.0 → 2–20
        a, b = a[:-1].rstrip("."), b[:-1].rstrip(".")
    sep = f"{NBSP}to{NBSP}" if lo < 0 else "–"
    text = _signed(f"{a}{sep}{b}") + suffix
    return _join(text, shown)
