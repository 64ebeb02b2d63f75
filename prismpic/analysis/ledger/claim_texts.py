"""The seed documents' claims as shipped package data: ID → the claim's own text.

``data/seed_claims.json`` holds every claim of ``shared/SEEDS.md`` (the two seed design documents,
S1 = PRISM, S2 = the PTU card) with its ID, so an installed prismpic can show what each ledger entry
judges without the project's ``shared/`` folder. ``seeds_md_claims`` reads a SEEDS.md table (for the
test that keeps the two in step).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from pathlib import Path

SCHEMA = "prismpic.seed_claims/1"


@functools.lru_cache(maxsize=1)
def seed_claims() -> dict[str, str]:
    """{claim id: claim text} in the seed documents' order, from the package data."""
    raw = resources.files("prismpic.analysis.ledger").joinpath("data/seed_claims.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    if data.get("schema") != SCHEMA:
        raise ValueError(f"seed_claims.json: schema {data.get('schema')!r} is not {SCHEMA!r}")
    return dict(data["claims"])


def claim_text(claim_id: str) -> str:
    """The seed's own text of claim ``claim_id`` (ValueError naming the valid IDs for an unknown one)."""
    claims = seed_claims()
    if claim_id not in claims:
        raise ValueError(f"claim id {claim_id!r} is unknown; valid ids are {list(claims)}")
    return claims[claim_id]


def seeds_md_claims(path) -> dict[str, str]:
    """{claim id: text} of the ``| S1-01 | text |`` rows of a SEEDS.md file."""
    text = Path(path).read_text(encoding="utf-8")
    return dict(re.findall(r"^\| (S\d-\d\d) \| (.*) \|$", text, flags=re.M))
