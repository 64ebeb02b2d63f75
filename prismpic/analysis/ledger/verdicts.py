"""Verdicts over ranges: a claim judged at the nominal point and over its assumptions' ranges.

A ``Judge`` states one judged quantity: the model (a function of the assumption values), the seed's claimed
value (or prismpic's criterion when the seed states no number), the tolerance from ``TOLERANCES`` (one per
quantity) and the assumptions it depends on (``prismpic.analysis.ledger.assumptions``). ``judge`` evaluates it

- at the nominal point;
- at every one-at-a-time corner (each assumption at its lo and hi, the others nominal);
- at the full lo/hi factorial for up to three assumptions; for more, at the best and the worst corner (each
  assumption at the end of its range that raises, or lowers, the margin) and at ``N_SAMPLES`` seeded draws
  over the whole box (uniform, in log for log-scale assumptions);

and gives ``consistent`` (the tolerance holds at every point), ``inconsistent`` (at none) or ``depends``.
For ``depends``, each assumption whose own range changes the verdict (others nominal) is scanned on a grid
and each sign change of the margin (> 0: the tolerance holds) is solved by Brent's method
(``scipy.optimize.brentq``) into the flip condition, e.g. "consistent iff receiver noise ≤ 11.6 pA/√Hz".
A flip found only by moving several assumptions together is stated as the failing (or holding) corner.
Two sign changes inside one grid step are not resolved (grids have ``GRID`` points over the range).

``needs-data``: the judge names what data the claim needs (``Judge.needs``); a model value may still be
shown. ``tornado_figure`` draws the most influential assumptions of the ``depends`` entries.

Tolerance kinds are ``Kind`` (abs, rel, ratio, min, max) with one dispatch, ``Tolerance.band``, used by the
margin and the tornado plot alike; an unknown kind raises. A claim that is a bound ('< 2 %', 'cuts 8×') is
judged one-sided (``Judge.side``), so a better-than-claimed value is not scored inconsistent. Every entry names
its assumptions or its ``basis`` (e.g. the seed's own arithmetic). Nothing is kept between calls: ``judge``
returns a ``Judgement`` and the callers keep it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from enum import Enum

import numpy as np
from scipy import optimize

from prismpic.analysis.ledger.assumptions import assumption
from prismpic.fileio import save_figure_atomic

VERDICTS = ("consistent", "inconsistent", "depends", "needs-data")
N_SAMPLES = 8  # seeded draws over the box when an entry has more than FACTORIAL_MAX assumptions
FACTORIAL_MAX = 3
GRID = 5  # points of the flip scan over one assumption's range (plus the nominal)
XTOL = 1e-5  # flip tolerance, relative to the assumption's range (in ln x for log-scale assumptions)
SAMPLE_SEED = 0


@dataclass(frozen=True)
class Entry:
    """One judged quantity of a claim (the ledger's row)."""

    id: str
    quantity: str
    claimed: float | str | None
    criterion: str
    modeled: float | str | None
    modeled_lo: float | None
    modeled_hi: float | None
    unit: str
    verdict: str
    condition: str
    tolerance: str
    reason: str
    assumptions: tuple[str, ...] = ()
    section: str = ""
    basis: str = ""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["assumptions"] = list(self.assumptions)
        return d


class Kind(Enum):
    """How a tolerance compares a modeled value m with its target t: ``ABS`` |m − t| ≤ value; ``REL``
    |m − t| ≤ value·|t|; ``RATIO`` t/value ≤ m ≤ t·value; ``MIN`` m ≥ t; ``MAX`` m ≤ t (bounds: value unused)."""

    ABS = "abs"
    REL = "rel"
    RATIO = "ratio"
    MIN = "min"
    MAX = "max"


class Side(Enum):
    """Which side of a claimed value a claim commits to: ``BOTH`` (a value, '≈ 8.3 nm'), ``AT_MOST`` (an upper
    bound, '< 2 %', 'only 10 ps': a smaller modeled value is not a contradiction), ``AT_LEAST`` ('cuts 8×')."""

    BOTH = "both"
    AT_MOST = "at_most"
    AT_LEAST = "at_least"


# the one dispatch on a tolerance's kind: the band [lo, hi] of modeled values where it holds, for target t
_BANDS: dict[Kind, Callable[[float, float], tuple[float, float]]] = {
    Kind.ABS: lambda t, v: (t - v, t + v),
    Kind.REL: lambda t, v: (t - v * abs(t), t + v * abs(t)),
    Kind.RATIO: lambda t, v: (t / v, t * v),
    Kind.MIN: lambda t, v: (t, math.inf),
    Kind.MAX: lambda t, v: (-math.inf, t),
}


@dataclass(frozen=True)
class Tolerance:
    """How a modeled value is compared with its target (``Kind``); ``kind`` may be given as its name."""

    kind: Kind
    value: float
    text: str

    def __post_init__(self):
        try:
            object.__setattr__(self, "kind", Kind(self.kind))
        except ValueError:
            raise ValueError(f"tolerance kind {self.kind!r} is unknown; valid kinds are "
                             f"{[k.value for k in Kind]}") from None

    def band(self, target: float, side: Side | str = Side.BOTH) -> tuple[float, float]:
        """[lo, hi] of the modeled values where the tolerance holds around ``target`` (one side open for a
        claim that is a bound: ``side``)."""
        lo, hi = _BANDS[self.kind](float(target), self.value)
        side = Side(side)
        return (-math.inf if side is Side.AT_MOST else lo), (math.inf if side is Side.AT_LEAST else hi)

    def margin(self, modeled: float, target: float, side: Side | str = Side.BOTH) -> float:
        """> 0 where the tolerance holds, < 0 where it fails (continuous in ``modeled``); in ln for ``RATIO``."""
        m, t = float(modeled), float(target)
        if not (math.isfinite(m) and math.isfinite(t)):
            return -math.inf
        lo, hi = self.band(t, side)
        if self.kind is Kind.RATIO:
            if not (m > 0 and t > 0):
                return -math.inf
            return min(math.log(m / lo) if lo > 0 else math.inf, math.log(hi / m) if math.isfinite(hi) else math.inf)
        return min(m - lo, hi - m)

    @property
    def is_bound(self) -> bool:
        return self.kind in (Kind.MIN, Kind.MAX)


# One tolerance per quantity: every entry judging the same quantity uses the same row (the ledger's test
# walks the entries and checks it). Bounds carry no width: the seed's own inequality decides.
TOLERANCES = {
    "arithmetic": Tolerance("rel", 0.05, "±5 % (the seed's rounding of its own arithmetic)"),
    "arithmetic_db": Tolerance("abs", 0.05, "±0.05 dB (the seed's rounding to 0.1 dB)"),
    "loaded_q": Tolerance("ratio", 1.5, "within a factor 1.5 (Q of nominally equal rings scatters by tens of %)"),
    "fsr": Tolerance("rel", 0.03, "±3 % ('≈ 8.3 nm': n_g known to a few 0.1 %, R to the drawing)"),
    "power_dbm": Tolerance("abs", 2.0, "±2 dB (a link budget's stage losses, each known to ≈ 1 dB)"),
    "snr_db": Tolerance("abs", 1.0, "±1 dB ('≈ 37.2 dB')"),
    "loss_db": Tolerance("abs", 1.0, "±1 dB ('about 30 dB')"),
    "recall_drop": Tolerance("abs", 0.05, "±0.05 (a recall@8 Monte Carlo's 95 % CI is ≈ ±0.02–0.03)"),
    "energy": Tolerance("ratio", 2.0, "within a factor 2 (energy parts known to an order of magnitude)"),
    "energy_ratio": Tolerance("ratio", 2.0, "within a factor 2 (a ratio of energies known to factors)"),
    "latency": Tolerance("ratio", 2.0, "within a factor 2 (gate and wire delays known to factors)"),
    "intensity": Tolerance("ratio", 2.0, "within a factor 2 ('about')"),
    "impairment_range_db": Tolerance("abs", 7.5, "inside the stated range: −22.5 ± 7.5 dB"),
    "count": Tolerance("ratio", 2.0, "within a factor 2 ('≈', a cycle or stage count)"),
    "min": Tolerance("min", 0.0, "bound"),
    "max": Tolerance("max", 0.0, "bound"),
}


@dataclass(frozen=True)
class Judge:
    """One judged quantity: its model over the assumptions, the claim or criterion, the tolerance.

    ``model(point) -> float``: the modeled value at ``point`` ({assumption name: value}, every name of
    ``assumptions``). ``target``: the number compared (default ``claimed``), or a function of the point
    (a criterion that moves with an assumption, e.g. the SNR a b-bit ADC needs). ``reason``: text, or a
    function (nominal modeled value, nominal point) -> text. ``needs``: what data would judge it
    (verdict ``needs-data``). ``side``: ``Side.AT_MOST``/``AT_LEAST`` where the claim is a bound ('< 2 %',
    '≥ 8×'), so a better-than-claimed value holds. ``basis``: for an entry without assumptions, what its value
    rests on (e.g. "the seed's own arithmetic"); every entry names its assumptions or its basis.
    """

    id: str
    quantity: str
    unit: str
    model: Callable[[dict], float] | None
    tolerance: str
    claimed: float | str | None = None
    criterion: str = ""
    target: float | Callable[[dict], float] | None = None
    assumptions: tuple[str, ...] = ()
    reason: str | Callable[[float, dict], str] = ""
    section: str = ""
    needs: str = ""
    side: Side = Side.BOTH
    basis: str = ""

    def __post_init__(self):
        object.__setattr__(self, "side", Side(self.side))
        if self.tolerance not in TOLERANCES:
            raise ValueError(f"{self.id} {self.quantity!r}: tolerance {self.tolerance!r} is unknown; valid tolerances "
                             f"are {sorted(TOLERANCES)}")

    def margin(self, modeled: float, point: dict) -> float:
        """> 0 where the tolerance holds at ``point`` for the modeled value ``modeled``."""
        return TOLERANCES[self.tolerance].margin(modeled, self.target_at(point), self.side)

    def target_at(self, point: dict) -> float:
        t = self.claimed if self.target is None else self.target
        return float(t(point) if callable(t) else t)


@dataclass(frozen=True)
class Sensitivity:
    """One assumption's effect with the others nominal: modeled value and verdict at lo and hi, flips."""

    name: str
    lo: float
    hi: float
    modeled_lo: float
    modeled_hi: float
    holds_lo: bool
    holds_hi: bool
    flips: tuple[float, ...] = ()
    margin_swing: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self) | {"flips": list(self.flips)}


@dataclass
class Judgement:
    """A judged entry with what it was judged over (``points``: every evaluated point and its value)."""

    spec: Judge
    entry: Entry
    nominal: dict
    sensitivity: list[Sensitivity] = field(default_factory=list)
    points: list[tuple[dict, float]] = field(default_factory=list)
    holds_nominal: bool | None = None  # the tolerance at the nominal point (None: needs-data)

    def modeled_at(self, **values) -> float:
        """The model at the nominal point with ``values`` changed."""
        return float(self.spec.model({**self.nominal, **values}))

    def holds_at(self, **values) -> bool:
        """Whether the tolerance holds at the nominal point with ``values`` changed."""
        point = {**self.nominal, **values}
        return self.spec.margin(self.spec.model(point), point) >= 0


def tolerance_text(spec: Judge) -> str:
    """The tolerance as stated in the ledger (bounds name their threshold)."""
    tol = TOLERANCES[spec.tolerance]
    if spec.needs:
        return ""
    if not tol.is_bound:
        t = spec.claimed if spec.target is None else spec.target
        if spec.side is Side.BOTH or callable(t) or not isinstance(t, int | float):
            return tol.text
        lo, hi = tol.band(t, spec.side)
        edge = f"≤ {hi:.4g}" if spec.side is Side.AT_MOST else f"≥ {lo:.4g}"
        return f"one-sided (the claim is a bound): {edge} {spec.unit}, {tol.text}".replace(" ,", ",")
    op = "≥" if tol.kind is Kind.MIN else "≤"
    if callable(spec.target):
        return f"bound: {op} the criterion"
    t = spec.claimed if spec.target is None else spec.target
    return f"bound: {op} {float(t):.4g} {spec.unit}".rstrip()


def _design_points(names: tuple[str, ...]) -> list[dict]:
    """One-at-a-time corners, then the lo/hi factorial (≤ FACTORIAL_MAX names) or seeded draws."""
    assumptions = [assumption(n) for n in names]
    nominal = {a.name: a.nominal for a in assumptions}
    pts = []
    for a in assumptions:
        pts += [{**nominal, a.name: a.lo}, {**nominal, a.name: a.hi}]
    if len(names) <= FACTORIAL_MAX:
        for bits in range(2 ** len(names)):
            pts.append({a.name: (a.hi if bits >> i & 1 else a.lo) for i, a in enumerate(assumptions)})
    else:
        u = np.random.default_rng(SAMPLE_SEED).random((N_SAMPLES, len(names)))
        for row in u:
            pts.append({a.name: float(a.from_unit(x)) for a, x in zip(assumptions, row, strict=True)})
    return pts


def _extreme_corners(ev, nominal: dict) -> list[dict]:
    """The best and the worst lo/hi corner: each assumption at the end of its range that raises (lowers) the
    margin with the others nominal (exact extremes for a model monotone in each assumption)."""
    best, worst = {}, {}
    for n in nominal:
        a = assumption(n)
        m_lo, m_hi = ev.margin({**nominal, n: a.lo}), ev.margin({**nominal, n: a.hi})
        best[n], worst[n] = (a.hi, a.lo) if m_hi >= m_lo else (a.lo, a.hi)
    return [best, worst]


def _key(point: dict) -> tuple:
    return tuple(sorted((k, round(float(v), 12)) for k, v in point.items()))


class _Evaluator:
    """The model's value and margin at points, each point evaluated once."""

    def __init__(self, spec: Judge):
        self.spec, self.cache = spec, {}

    def value(self, point: dict) -> float:
        k = _key(point)
        if k not in self.cache:
            self.cache[k] = (dict(point), float(self.spec.model(point)))
        return self.cache[k][1]

    def margin(self, point: dict) -> float:
        return self.spec.margin(self.value(point), point)


def _flips(ev: _Evaluator, nominal: dict, name: str) -> tuple[float, ...]:
    """Values of assumption ``name`` (others nominal) where the margin changes sign."""
    a = assumption(name)
    xs = np.unique(np.append(a.grid(GRID), a.nominal))
    ms = [ev.margin({**nominal, name: float(x)}) for x in xs]
    out = []
    for (x0, m0), (x1, m1) in zip(zip(xs, ms, strict=True), zip(xs[1:], ms[1:], strict=True), strict=False):
        if (m0 >= 0) == (m1 >= 0):
            continue
        if a.integer:  # the first integer on the other side of the change
            lo, hi = int(x0), int(x1)
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if (ev.margin({**nominal, name: float(mid)}) >= 0) == (m0 >= 0):
                    lo = mid
                else:
                    hi = mid
            out.append(float(hi))
            continue
        # solve in ln x for log-scale assumptions (a tolerance relative to x), in x otherwise
        to_x = math.exp if a.scale == "log" else float
        u0, u1 = (math.log(x0), math.log(x1)) if a.scale == "log" else (float(x0), float(x1))
        xtol = XTOL * (math.log(a.hi / a.lo) if a.scale == "log" else a.hi - a.lo)
        if a.resolution is not None:  # a Monte Carlo quantity: a step function, solved to its resolution
            xtol = a.resolution / max(abs(float(x0)), 1e-300) if a.scale == "log" else a.resolution

        def f(u, to_x=to_x):
            return ev.margin({**nominal, name: to_x(u)})

        if not (math.isfinite(m0) and math.isfinite(m1)):
            u = optimize.bisect(lambda u: 1.0 if f(u) >= 0 else -1.0, u0, u1, xtol=xtol)
        else:
            u = optimize.brentq(f, u0, u1, xtol=xtol)
        out.append(float(to_x(u)))
    return tuple(out)


def _condition_for(ev: _Evaluator, nominal: dict, s: Sensitivity) -> str:
    """'consistent iff <label> ≤ x' (or ≥, or between) from the flips of one assumption."""
    a = assumption(s.name)
    holds = [ev.margin({**nominal, s.name: v}) >= 0 for v in _probe_points(a, s.flips)]
    fmt = a.format
    if len(s.flips) == 1:
        x = s.flips[0]
        if a.integer:
            return f"consistent iff {a.label} {'≥' if holds[1] else '≤'} {fmt(x if holds[1] else x - 1)}"
        return f"consistent iff {a.label} {'≥' if holds[1] else '≤'} {fmt(x)}"
    parts = []
    for i, ok in enumerate(holds):
        if not ok:
            continue
        lo = s.flips[i - 1] if i > 0 else None
        hi = s.flips[i] if i < len(s.flips) else None
        if lo is not None and hi is not None:
            parts.append(f"{fmt(lo)} ≤ {a.label} ≤ {fmt(hi)}")
        elif lo is not None:
            parts.append(f"{a.label} ≥ {fmt(lo)}")
        else:
            parts.append(f"{a.label} ≤ {fmt(hi)}")
    return "consistent iff " + " or ".join(parts)


def _probe_points(a, flips) -> list[float]:
    """One value inside each interval the flips cut [lo, hi] into."""
    edges = [a.lo, *flips, a.hi]
    return [0.5 * (x0 + x1) if not a.integer else float(math.floor(0.5 * (x0 + x1))) for x0, x1 in
            zip(edges, edges[1:], strict=False)]


def _describe(point: dict) -> str:
    return ", ".join(f"{assumption(k).label} = {assumption(k).format(v)}" for k, v in point.items())


def judge(spec: Judge, max_flips: int | None = 2) -> Judgement:
    """Evaluate ``spec`` at nominal and over its assumptions' ranges (module docstring).

    ``max_flips``: solve the flips of at most this many assumptions (those whose own range changes the
    verdict, the largest margin swing first); None solves them all (``prismpic claims ID --explain``); 0 solves
    none (the condition then names a point where the verdict differs: ``prismpic claims``' summary).
    """
    nominal = {n: assumption(n).nominal for n in spec.assumptions}
    tol_text = tolerance_text(spec)
    if spec.needs:
        m0 = float(spec.model(nominal)) if spec.model is not None else None
        entry = Entry(spec.id, spec.quantity, spec.claimed, spec.criterion, m0, None, None, spec.unit, "needs-data",
                      "", tol_text, spec.needs, spec.assumptions, spec.section, spec.basis)
        return Judgement(spec, entry, nominal)
    ev = _Evaluator(spec)
    m0 = ev.value(nominal)
    ok0 = ev.margin(nominal) >= 0
    pts = [nominal, *(_design_points(spec.assumptions) if spec.assumptions else [])]
    if len(spec.assumptions) > FACTORIAL_MAX:  # the extremes first: a flip by several assumptions names them
        pts[1 + 2 * len(spec.assumptions):1 + 2 * len(spec.assumptions)] = _extreme_corners(ev, nominal)
    oks = [ev.margin(p) >= 0 for p in pts]
    verdict = "consistent" if all(oks) else "inconsistent" if not any(oks) else "depends"
    sens = []
    for n in spec.assumptions:
        a = assumption(n)
        lo_p, hi_p = {**nominal, n: a.lo}, {**nominal, n: a.hi}
        sens.append(Sensitivity(n, a.lo, a.hi, ev.value(lo_p), ev.value(hi_p), ev.margin(lo_p) >= 0,
                                ev.margin(hi_p) >= 0, (), _swing(ev, lo_p, hi_p)))
    if verdict == "depends":
        changing = sorted((s for s in sens if len({ok0, s.holds_lo, s.holds_hi}) > 1), key=lambda s: -s.margin_swing)
        for s in changing[:max_flips]:
            sens[sens.index(s)] = replace(s, flips=_flips(ev, nominal, s.name))
    condition = ""
    if verdict == "depends":
        flipping = sorted((s for s in sens if s.flips), key=lambda s: -s.margin_swing)
        if flipping:
            conds = [_condition_for(ev, nominal, s) for s in flipping]
            condition = conds[0] if len(conds) == 1 else "; ".join(c + " (others nominal)" for c in conds)
        else:
            other = next(p for p, ok in zip(pts, oks, strict=True) if ok != ok0)
            changed = {k: v for k, v in other.items() if v != nominal.get(k)}
            condition = (f"{'consistent' if ok0 else 'inconsistent'} at nominal; "
                         f"{'inconsistent' if ok0 else 'consistent'} at {_describe(changed)}")
    values = [v for _, v in ev.cache.values() if math.isfinite(v)]
    lo = min(values) if spec.assumptions and values else None
    hi = max(values) if spec.assumptions and values else None
    reason = spec.reason(m0, nominal) if callable(spec.reason) else spec.reason
    entry = Entry(spec.id, spec.quantity, spec.claimed, spec.criterion, m0, lo, hi, spec.unit, verdict, condition,
                  tol_text, reason, spec.assumptions, spec.section, spec.basis)
    return Judgement(spec, entry, nominal, sens, list(ev.cache.values()), ok0)


def _swing(ev: _Evaluator, lo_p: dict, hi_p: dict) -> float:
    a, b = ev.margin(lo_p), ev.margin(hi_p)
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b)


# ---------------------------------------------------------------------------------------------- tables
def sensitivity_rows(j: Judgement) -> list[dict]:
    """Per assumption: range, modeled value and verdict at lo and hi (others nominal), flip values."""
    rows = []
    for s in sorted(j.sensitivity, key=lambda s: -s.margin_swing):
        a = assumption(s.name)
        rows.append({"assumption": s.name, "label": a.label, "lo": a.format(s.lo), "nominal": a.format(a.nominal),
                     "hi": a.format(s.hi), "modeled_lo": s.modeled_lo, "modeled_hi": s.modeled_hi,
                     "verdict_lo": "holds" if s.holds_lo else "fails", "verdict_hi": "holds" if s.holds_hi else "fails",
                     "flips": [a.format(x) for x in s.flips]})
    return rows


_RAW_FIELD = re.compile(r"\{[^}]*\}")
_SAYS_HOLDS = re.compile(r"\b(it holds|claim holds|holds as claimed|indeed|is consistent)\b")
_SAYS_FAILS = re.compile(r"\b(it fails|claim fails|does not hold|contradicts|is inconsistent)\b")


def text_problems(e: Entry) -> list[str]:
    """What is wrong with an entry's texts: a raw format field (``{...}``) left in the reason, condition,
    tolerance or criterion, or a reason whose words assert the opposite of the verdict ([] when none)."""
    out = [f"raw format field in {name}: {text!r}" for name, text in
           (("reason", e.reason), ("condition", e.condition), ("tolerance", e.tolerance), ("criterion", e.criterion))
           if _RAW_FIELD.search(str(text))]
    if e.verdict == "inconsistent" and _SAYS_HOLDS.search(e.reason):
        out.append(f"an inconsistent entry's reason says it holds: {e.reason!r}")
    if e.verdict == "consistent" and _SAYS_FAILS.search(e.reason):
        out.append(f"a consistent entry's reason says it fails: {e.reason!r}")
    return out


def deciding_assumption(j: Judgement) -> str:
    """What decides an entry, in a few words: the assumption whose flip decides a ``depends`` verdict (or moves the
    margin most), the entry's basis when it has no assumptions, or the data a ``needs-data`` entry needs."""
    if j.entry.verdict == "needs-data":
        return "needs data"
    if not j.sensitivity:
        return j.spec.basis
    def flips_verdict(s: Sensitivity) -> bool:  # its own range changes the verdict (flips solved or not)
        return bool(s.flips) or len({j.holds_nominal, s.holds_lo, s.holds_hi}) > 1

    ranked = sorted(j.sensitivity, key=lambda s: (not flips_verdict(s), -s.margin_swing))
    return assumption(ranked[0].name).label


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def explain_text(j: Judgement) -> str:
    """Plain-text explanation of one entry: verdict, tolerance, assumption table and sensitivity."""
    e = j.entry
    lines = [f"{e.id}: {e.quantity}",
             f"  claimed: {_fmt(e.claimed)}" + (f"   criterion: {e.criterion}" if e.criterion else ""),
             f"  modeled: {_fmt(e.modeled)} {e.unit}" + (f"   range {_fmt(e.modeled_lo)} … {_fmt(e.modeled_hi)}"
                                                         if e.modeled_lo is not None else ""),
             f"  tolerance: {e.tolerance}", f"  verdict: {e.verdict}" + (f"   ({e.condition})" if e.condition else ""),
             f"  reason: {e.reason}"] + ([f"  basis: {e.basis}"] if e.basis else [])
    if j.sensitivity:
        lines.append(f"  sensitivity (each assumption over its range, the others nominal; {len(j.points)} points "
                     "evaluated in all):")
        for r in sensitivity_rows(j):
            flips = f"   flips at {', '.join(r['flips'])}" if r["flips"] else ""
            lines.append(f"    {r['label']:<48} {r['lo']:>12} … {r['hi']:<12} modeled {_fmt(r['modeled_lo'])} "
                         f"({r['verdict_lo']}) … {_fmt(r['modeled_hi'])} ({r['verdict_hi']}){flips}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- figure
def tornado_figure(judgements, path, top: int = 5):
    """Tornado plots of the ``top`` most influential assumptions of each ``depends`` entry; PNG.

    ``judgements``: ``Judgement`` objects (``claims.judgements``). Each panel shows, per
    assumption, the modeled value as it moves over its range (the others nominal), the nominal value
    (black line) and where the tolerance holds (green). Returns the path, or None when no entry depends.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    js = [j for j in judgements if j.entry.verdict == "depends" and j.sensitivity]
    if not js:
        return None
    ncol = 2 if len(js) > 1 else 1
    nrow = math.ceil(len(js) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.2 * ncol, 2.3 * nrow + 0.6), squeeze=False)
    for ax, j in zip(axes.flat, js, strict=False):
        _tornado_panel(ax, j, top)
    for ax in list(axes.flat)[len(js):]:
        ax.axis("off")
    fig.suptitle("Most influential assumptions of the entries that depend: modeled value over each assumption's "
                 "range, others nominal (orange: it flips the verdict; green: the tolerance holds)", fontsize=9,
                 y=1 - 0.2 / fig.get_figheight(), va="top")
    # fixed margins (inches) for the truncated 6-pt labels, titles and axes: ``tight_layout`` measured every one of
    # the ≈ 35 panels' texts (2.6 of the figure's 7.7 s in the default report)
    w, h = fig.get_figwidth(), fig.get_figheight()
    fig.subplots_adjust(left=1.9 / w, right=1 - 0.25 / w, wspace=0.55, bottom=0.45 / h, top=1 - 0.8 / h, hspace=0.75)
    save_figure_atomic(fig, path, dpi=110)
    plt.close(fig)
    return path


def _tornado_panel(ax, j: Judgement, top: int) -> None:
    rows = sorted(j.sensitivity, key=lambda s: -s.margin_swing)[:top][::-1]
    m0 = float(j.entry.modeled)
    vals = [v for s in rows for v in (s.modeled_lo, s.modeled_hi) if math.isfinite(v)] + [m0]
    log = min(vals) > 0 and max(vals) / min(vals) > 20
    for i, s in enumerate(rows):
        lo, hi = sorted((s.modeled_lo, s.modeled_hi))
        ax.barh(i, hi - lo, left=lo, color="tab:orange" if s.flips else "tab:blue", height=0.6)
    ax.set_yticks(range(len(rows)), [assumption(s.name).label[:34] for s in rows], fontsize=6)
    ax.axvline(m0, color="k", lw=0.8)
    t = j.spec.target_at(j.nominal)
    x0, x1 = min(vals + [t]), max(vals + [t])
    lo, hi = TOLERANCES[j.spec.tolerance].band(t, j.spec.side)  # open sides drawn past the data
    lo = lo if math.isfinite(lo) else (x0 / 10 if log else x0 - abs(x1 - x0) - 1)
    hi = hi if math.isfinite(hi) else (x1 * 10 if log else x1 + abs(x1 - x0) + 1)
    ax.axvspan(lo, hi, color="tab:green", alpha=0.15, lw=0)
    if log:
        from matplotlib.ticker import NullFormatter

        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
    pad = (x1 / x0) ** 0.1 if log and x0 > 0 else None
    ax.set_xlim((x0 / pad, x1 * pad) if pad else (x0 - 0.1 * (x1 - x0 or 1), x1 + 0.1 * (x1 - x0 or 1)))
    ax.set_title(f"{j.entry.id}: {j.entry.quantity[:70]}", fontsize=7)
    ax.set_xlabel(j.entry.unit or "modeled", fontsize=7)
    ax.tick_params(axis="x", labelsize=6)
