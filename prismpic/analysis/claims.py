"""The claims ledger: every numbered claim of the seed documents judged by the models.

Each ``@claim("S1-xx")`` function computes its entries from prismpic's physics and returns
``Entry`` objects; the verdict follows from comparing the modeled with the claimed value
under a stated tolerance, never from a table typed by hand. ``ledger()`` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

VERDICTS = ("consistent", "inconsistent", "needs-data")
SEEDS_MD = Path(__file__).resolve().parents[2].parent / "shared" / "SEEDS.md"


@dataclass(frozen=True)
class Entry:
    """One judged quantity of a claim."""

    id: str
    quantity: str
    claimed: float | str | None
    modeled: float | str | None
    unit: str
    verdict: str
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)


_CLAIMS: dict[str, Callable[[dict], list[Entry]]] = {}


def claim(claim_id: str):
    """Register a function that judges ``claim_id``."""

    def deco(fn):
        _CLAIMS[claim_id] = fn
        return fn

    return deco


def compare(claim_id, quantity, claimed, modeled, unit, *, rel=None, abs_=None, why_ok="", why_not="") -> Entry:
    """An entry whose verdict is |modeled − claimed| within rel·|claimed| or abs_."""
    tol = (rel * abs(claimed) if rel is not None else 0.0) + (abs_ or 0.0)
    ok = abs(modeled - claimed) <= tol
    return Entry(
        claim_id, quantity, claimed, modeled, unit, "consistent" if ok else "inconsistent", why_ok if ok else why_not
    )


def bound(claim_id, quantity, claimed, modeled, unit, *, kind: str, why_ok="", why_not="") -> Entry:
    """An entry for a claim of the form 'modeled ≤ claimed' (kind='max') or '≥' (kind='min')."""
    ok = modeled <= claimed if kind == "max" else modeled >= claimed
    return Entry(
        claim_id, quantity, claimed, modeled, unit, "consistent" if ok else "inconsistent", why_ok if ok else why_not
    )


def needs_data(claim_id, quantity, claimed, unit, reason, modeled=None) -> Entry:
    """An entry the toolkit cannot judge without user data (e.g. an LLM's KV cache)."""
    return Entry(claim_id, quantity, claimed, modeled, unit, "needs-data", reason)


def seed_ids(path: Path = SEEDS_MD) -> list[str]:
    """Claim IDs listed in SEEDS.md (S1-01 …), in order."""
    import re

    if not path.is_file():
        return sorted(_CLAIMS)
    return re.findall(r"^\| (S\d-\d\d) \|", path.read_text(), flags=re.M)


def ledger(context: dict | None = None, ids: list[str] | None = None) -> list[Entry]:
    """Judge every claim (or ``ids``); ``context`` carries shared results (e.g. the link budget)."""
    context = context or {}
    known = set(_CLAIMS)
    if ids is not None:
        unknown = sorted(set(ids) - known)
        if unknown:
            raise ValueError(f"claim ids {unknown} are unknown; valid ids are {sorted(known)}")
    out: list[Entry] = []
    for cid in ids or sorted(known):
        out.extend(_CLAIMS[cid](context))
    return out


# ----------------------------------------------------------------------------- S1: PRISM
@claim("S1-01")
def _s1_01(ctx):
    from prismpic.analysis.energy import kv_cache_bytes

    b = kv_cache_bytes(layers=32, kv_heads=8, d_head=128, tokens=128 * 1024, bytes_per_value=2)
    return [
        compare(
            "S1-01",
            "KV cache of Llama-3.1-8B at 128K tokens (fp16)",
            16.0,
            b / 2**30,
            "GiB",
            rel=0.01,
            why_ok="2 (K,V) × 32 layers × 8 KV heads × 128 × 131072 tokens × 2 B = 16 GiB",
            why_not="2·layers·heads·d_h·tokens·bytes differs from the claim",
        )
    ]


@claim("S2-03")
def _s2_03(ctx):
    from prismpic.analysis.accelerator import ptu_budget

    per = ptu_budget(readout="per_wavelength")
    bb = ptu_budget(readout="broadband")
    claimed = 128 * 128 * 64
    return [
        compare(
            "S2-03",
            "MACs per clock per core, per-wavelength readout",
            claimed,
            per.macs_per_clock_core,
            "MAC",
            rel=1e-9,
            why_ok=f"holds only with a demux and {per.detectors_per_core} detectors+ADCs per core "
            "(PCM weights are broadband: wavelengths carry a batch of input vectors)",
        ),
        compare(
            "S2-03",
            "MACs per clock per core, broadband readout (one detector per column)",
            claimed,
            bb.macs_per_clock_core,
            "MAC",
            rel=1e-9,
            why_not="a column detector sums all wavelengths: y = Σ_r W_rc Σ_λ x_rλ gives rows×cols MACs, 64× fewer",
        ),
    ]


@claim("S2-04")
def _s2_04(ctx):
    from prismpic.analysis.accelerator import ptu_budget

    out = []
    for readout in ("per_wavelength", "broadband"):
        b = ptu_budget(readout=readout)
        out.append(
            bound(
                "S2-04",
                f"card throughput at 5 GHz, {readout} readout",
                1.3e15,
                b.flops_card,
                "FLOP/s",
                kind="min",
                why_ok=f"2 FLOP × {b.macs_per_clock_card:.3g} MAC × 5e9/s = {b.flops_card:.3g} FLOP/s exceeds 1.3 PFLOPS"
                + (
                    f"; but {b.adcs_card:,} ADCs at 5 GS/s draw {b.adc_power_w / 1e3:.3g} kW"
                    if b.adc_power_w > 1e3
                    else ""
                ),
                why_not="below the claim",
            )
        )
    return out


@claim("S2-08")
def _s2_08(ctx):
    from prismpic.analysis.accelerator import ptu_budget

    b = ptu_budget()
    return [
        compare(
            "S2-08",
            "photonic multiply gates (PCM cells) per card",
            2.1e6,
            b.weights_card,
            "cells",
            rel=0.01,
            why_ok="128 cores × 128 × 128 crossings = 2.10 M",
            why_not="cores × rows × cols differs",
        ),
    ]


@claim("S2-06")
def _s2_06(ctx):
    from prismpic.analysis.energy import kv_cache_bytes
    from prismpic.analysis.kv_capacity import bits_in_flight, fiber_length_for_bytes

    per_km = bits_in_flight(1000.0, 5e9, 64) / 8
    need = fiber_length_for_bytes(kv_cache_bytes(), 5e9, 64) / 1e3
    return [
        Entry(
            "S2-06",
            "KV bytes held per km of hollow-core fiber (64 λ × 5 GBd OOK)",
            "context limited only by loop length",
            per_km,
            "B/km",
            "inconsistent",
            f"n_g≈1 gives 3.34 µs/km, so 1 km holds {per_km / 1e3:.0f} kB; S1-01's 16 GiB needs {need:,.0f} km of fiber",
        ),
    ]
