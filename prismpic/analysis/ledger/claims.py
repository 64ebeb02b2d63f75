"""The claims ledger: every numbered claim of the seed documents judged by the models, over its assumptions.

Each ``@claim("S1-xx")`` function (in ``claims_s1_device``, ``claims_s1_system`` and ``claims_s2``) returns
``verdicts.Judge`` objects: a model of the judged quantity as a function of named assumptions
(``assumptions``) or its stated basis, the seed's claimed value or prismpic's criterion, the quantity's one
tolerance and, where the claim is a bound, its side.
``verdicts.judge`` evaluates each at nominal and over the assumptions' ranges and gives the verdict
(``consistent``, ``inconsistent``, ``depends`` with the condition that flips it, or ``needs-data``);
no verdict is typed by hand. ``ledger()`` runs them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from prismpic.analysis.ledger.claim_texts import claim_text, seed_claims
from prismpic.analysis.ledger.verdicts import VERDICTS, Entry, Judge, Judgement, judge

__all__ = ["VERDICTS", "Entry", "Judge", "claim", "claim_text", "judgements", "judges", "ledger",
           "markdown_table", "seed_ids", "specs"]

JUDGE_MODULES = ("prismpic.analysis.ledger.claims_s1_device", "prismpic.analysis.ledger.claims_s1_system",
                 "prismpic.analysis.ledger.claims_s2")
_CLAIMS: dict[str, Callable[[dict], list[Judge]]] = {}


def claim(claim_id: str):
    """Register a function ``fn(context) -> list[Judge]`` that judges ``claim_id``."""

    def deco(fn):
        _CLAIMS[claim_id] = fn
        return fn

    return deco


def judges() -> dict[str, Callable[[dict], list[Judge]]]:
    """{claim id: its judge function} for every registered claim (the judge modules imported once)."""
    for name in JUDGE_MODULES:
        importlib.import_module(name)
    return dict(_CLAIMS)


def seed_ids() -> list[str]:
    """Claim IDs of the seed documents (S1-01 …), in order, from the package data."""
    return list(seed_claims())


def specs(context: dict | None = None, ids: list[str] | None = None) -> list[Judge]:
    """The ``Judge`` of every entry of every claim (or of ``ids``), in the seed's order, not yet evaluated."""
    context = {} if context is None else context
    known = judges()
    if ids is not None:
        unknown = sorted(set(ids) - set(known))
        if unknown:
            raise ValueError(f"claim ids {unknown} are unknown; valid ids are {sorted(known)}")
    order = [i for i in seed_ids() if i in known] + sorted(set(known) - set(seed_ids()))
    out: list[Judge] = []
    for cid in order if ids is None else [i for i in order if i in set(ids)]:
        out.extend(known[cid](context))
    return out


def judgements(context: dict | None = None, ids: list[str] | None = None, *,
               max_flips: int | None = 2, after_claim: Callable[[], None] | None = None) -> list[Judgement]:
    """Judge every claim (or ``ids``) over its assumptions; ``context`` carries shared results (e.g. the
    report's link budget, ring specs, crosstalk) so they are computed once. ``max_flips``: see
    ``verdicts.judge`` (None: solve the flip of every assumption that changes a verdict). ``after_claim``: called
    after each claim's entries are judged (the report releases compiled programs there)."""
    out: list[Judgement] = []
    for i, s in enumerate(specs(context, ids)):
        if after_claim is not None and i and s.id != out[-1].spec.id:
            after_claim()
        out.append(judge(s, max_flips))
    return out


def ledger(context: dict | None = None, ids: list[str] | None = None) -> list[Entry]:
    """The ledger's entries: ``judgements(context, ids)`` as ``Entry`` rows."""
    return [j.entry for j in judgements(context, ids)]


def markdown_table(entries: list[Entry]) -> str:
    """The ledger as a Markdown table (one row per entry), for the README."""

    def fmt(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return "" if v is None else str(v)

    rows = ["| id | quantity | claimed / criterion | modeled (range) | unit | verdict | condition |",
            "|---|---|---|---|---|---|---|"]
    for e in entries:
        claimed = fmt(e.claimed) if not e.criterion else f"{fmt(e.claimed)} — criterion: {e.criterion}"
        modeled = fmt(e.modeled) + (f" ({fmt(e.modeled_lo)} … {fmt(e.modeled_hi)})" if e.modeled_lo is not None else "")
        cells = [e.id, e.quantity, claimed, modeled, e.unit, f"**{e.verdict}**", e.condition]
        rows.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    return "\n".join(rows)
