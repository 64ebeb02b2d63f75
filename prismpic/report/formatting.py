"""Numbers for reading: engineering notation with SI prefixes and 3–4 significant figures, unit-aware.

``fmt(1.28e12, "ps")`` → ``1.28 s``, ``fmt(0.0819, "nm")`` → ``81.9 pm``, ``fmt(18904.37)`` → ``18.9 × 10³``,
``fmt(-18.19, "dBm")`` → ``−18.2 dBm``, ``fmt_range(8.1846, 8.2568, "nm")`` → ``8.18–8.26 nm``.

A value in a unit with an SI base (s, W, J, Hz, V, A, F, Ω, m, FLOPS, B; also the numerator of ``pm/V``,
``nJ/query``) keeps its unit while 1 ≤ |v| < 10⁴ (so wavelengths stay in nm: 1549 nm) and is otherwise
rescaled to the prefix that puts the mantissa in [1, 1000). Other units (dB, dBm, %, ×, GiB, bits, '')
are not rescaled; their values read plainly for 10⁻³ ≤ |v| < 10⁴ and otherwise in powers of ten that are
multiples of three, as the prefixes are (``18.9 × 10³``).

A range has one style: both ends in the one prefix (or power of ten) that the larger end takes, each end with
3 significant figures (more where needed to tell the ends apart): ``2.26–112 × 10³``, ``0.0000628–101 fW``,
never ``2262 – 1.12 × 10⁵`` or ``62.8 zW – 101 fW``.
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
    """``v`` (|v| < 10⁴ after rounding) with ``sig`` significant figures, at least all four digits from 1000 up."""
    if abs(_rounded(v, sig)) >= 1000:
        return f"{v:.{max(0, sig - 4)}f}"
    return f"{v:.{sig}g}"


def _power_of_ten(e: int) -> str:
    return f"{NBSP}×{NBSP}10{str(e).translate(_SUPERSCRIPT)}"


def _engineering(v: float, sig: int) -> str:
    """``v`` as ``m × 10ⁿ``, n a multiple of 3 and 1 ≤ |m| < 1000 with ``sig`` significant figures."""
    mant, exp = f"{v:.{sig - 1}e}".split("e")  # rounded first: 999.96e3 is 1.00e6, not 1000 × 10³
    e3 = 3 * math.floor(int(exp) / 3)
    return f"{float(mant) * 10.0 ** (int(exp) - e3):.{sig}g}" + _power_of_ten(e3)


def plain(v: float, sig: int = SIG) -> str:
    """A number without unit: plain for 10⁻³ ≤ |v| < 10⁴, else ``m × 10ⁿ`` (n a multiple of 3)."""
    if v == 0:
        return "0"
    r = abs(_rounded(v, sig))
    text = _mantissa(v, sig) if 1e-3 <= r < 1e4 else _engineering(v, sig)
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


def _decimals(m: float, sig: int) -> int:
    """Decimals that give ``m`` ``sig`` significant figures (none from 1000 up: four digits, as ``fmt``)."""
    if m == 0:
        return 0
    return max(0, sig - 1 - math.floor(math.log10(abs(_rounded(m, sig)))))


def _trimmed(text: str) -> str:
    """``2.50`` → ``2.5``, ``20.0`` → ``20``: trailing zeros after the point dropped, as ``%g`` does; an integer part
    of five digits or more grouped by thin spaces (``101 000``), as ``fmt`` groups integers."""
    text = text.rstrip("0").rstrip(".") if "." in text else text
    whole, dot, frac = text.partition(".")
    digits = whole.lstrip("-")
    if len(digits) > 4:
        whole = whole[: len(whole) - len(digits)] + f"{int(digits):,}".replace(",", "\u202f")
    return whole + dot + frac


def range_ends(lo: float, hi: float, sig: int = SIG) -> tuple[str, str]:
    """The two mantissas of a range in one scale, as text: each end with ``sig`` significant figures (all four digits
    from 1000 to 9999), both with more decimals where that many would show the ends equal (``8.218``, ``8.219``)."""
    lo, hi = (_rounded(x, sig) if abs(x) >= 1e4 else x for x in (lo, hi))  # 100 531 → 101 000; 1549 keeps 4
    dl, dh = _decimals(lo, sig), _decimals(hi, sig)
    a, b = f"{lo:.{dl}f}", f"{hi:.{dh}f}"
    extra = 0
    while a == b and lo != hi and extra < 12:
        extra += 1
        d = max(dl, dh) + extra
        a, b = f"{lo:.{d}f}", f"{hi:.{d}f}"
    return _trimmed(a), _trimmed(b)


MAX_DECIMALS = 6  # a range end never reads 0.0000628: the scale is lowered first


def _decimals_shown(text: str) -> int:
    return len(text.partition(".")[2])


def _range_scale(lo: float, hi: float, unit: str | None, sig: int) -> tuple[float, str, str]:
    """(factor dividing both ends, unit to print, power-of-ten suffix) of the range ``lo``–``hi``: the larger end's
    prefix or power of ten, lowered by thousands while the smaller end would read below 0.001 in it (or either end
    need more than ``MAX_DECIMALS``) and the larger one stays under 10⁶ (``0.0628–101 000 aW``, not
    ``0.0000628–101 fW``)."""
    big, small = max(abs(lo), abs(hi)), min(abs(lo), abs(hi))
    factor, shown, prefixed = _display_unit(big, unit, sig)
    parsed = parse_unit(unit)
    if prefixed and parsed is not None:
        exp0, base, rest = parsed
        e = exp0 + round(math.log10(factor))
        lowest = 0 if base in COUNTS else min(EXP_PREFIX)

        def scale(x: int) -> tuple[float, str, str]:
            return 10.0 ** (x - exp0), EXP_PREFIX[x] + base + rest, ""
    else:
        r = _rounded(big, sig)
        e = 0 if 1e-3 <= r < 1e4 else 3 * math.floor(int(f"{r:e}".split("e")[1]) / 3)
        lowest = -300

        def scale(x: int) -> tuple[float, str, str]:
            return 10.0**x, unit or "", _power_of_ten(x) if x else ""
    while e - 3 >= lowest:
        f = scale(e)[0]
        ends = range_ends(lo / f, hi / f, sig)
        crowded = (small and _rounded(small / f, sig) < 1e-3) or max(map(_decimals_shown, ends)) > MAX_DECIMALS
        if not crowded or _rounded(big / f, sig) >= 1e3:
            break
        e -= 3
    return scale(e)


def fmt_range(lo, hi, unit: str | None = "", sig: int = SIG) -> str:
    """``lo``–``hi`` in ``unit`` in one style: one prefix or power of ten for both ends, the one the larger end
    takes unless the smaller would read below 0.001 in it (``8.18–8.26 nm``, ``2.26–112 × 10³``, ``0.0628–101 000
    aW``); ``to`` instead of the dash when an end is negative (``−3.2 to 4.1 dB``)."""
    if lo is None or hi is None:
        return fmt(hi if lo is None else lo, unit, sig)
    lo, hi = sorted((float(lo), float(hi)))
    if lo == hi:
        return fmt(lo, unit, sig)
    big = max(abs(lo), abs(hi))
    if not math.isfinite(big):
        return "n/a"
    factor, shown, suffix = _range_scale(lo, hi, unit, sig)
    a, b = range_ends(lo / factor, hi / factor, sig)
    sep = f"{NBSP}to{NBSP}" if lo < 0 else "–"
    return _join(_signed(f"{a}{sep}{b}") + suffix, shown)
