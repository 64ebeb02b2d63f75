"""The claims ledger: every seed claim has a judge and a packaged text; entries are well formed; the same quantity
has one tolerance; arithmetic claims are judged by their formula; the loaded-Q flip is the tolerance edge."""

import math
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from scipy import constants

from prismpic.analysis.ledger import claims
from prismpic.analysis.ledger.claim_texts import claim_text, seed_claims, seeds_md_claims
from prismpic.analysis.ledger.claims import VERDICTS, ledger, seed_ids
from prismpic.analysis.ledger.verdicts import TOLERANCES, judge

SEEDS_MD = Path(__file__).resolve().parents[3] / "shared" / "SEEDS.md"
CHEAP = ["S1-01", "S1-07", "S1-08", "S1-09", "S1-16", "S1-17", "S1-18", "S1-19", "S2-01", "S2-02", "S2-03", "S2-04",
         "S2-05", "S2-06", "S2-07", "S2-08", "S2-09", "S2-10", "S2-11"]


def test_every_seed_id_has_a_judge_and_a_packaged_text():
    ids = seed_ids()
    assert ids[0] == "S1-01" and "S2-11" in ids and len(ids) == 31
    assert not sorted(set(ids) - set(claims.judges())), "claims without a judge"
    assert all(claim_text(i) for i in ids)
    with pytest.raises(ValueError, match="S9-99"):
        claim_text("S9-99")


@pytest.mark.skipif(not SEEDS_MD.is_file(), reason="shared/SEEDS.md is not beside the repository")
def test_packaged_texts_are_the_seeds_md_texts():
    assert seed_claims() == seeds_md_claims(SEEDS_MD)


def test_unknown_claim_id_is_refused():
    with pytest.raises(ValueError, match="S9-99"):
        ledger(ids=["S9-99"])


def _value_judges():
    """(quantity stem, unit) → tolerance texts of every entry of the ledger judged as a value (not a bound)."""
    groups = defaultdict(set)
    for spec in claims.specs():
        if not TOLERANCES[spec.tolerance].is_bound and not spec.needs:
            groups[(spec.quantity.split(":")[0].split(",")[0].strip(), spec.unit)].add(spec.tolerance)
    return groups


def test_equal_quantities_share_one_tolerance():
    groups = _value_judges()
    assert ("loaded Q", "") in groups and ("recall@8 drop", "fraction") in groups
    shared = {k: v for k, v in groups.items() if len(v) > 1}
    assert not shared, f"the same quantity judged with different tolerances: {shared}"


def test_cheap_entries_are_well_formed(report_ledger):
    for e in [e for e in report_ledger if e.id in CHEAP]:
        assert e.verdict in VERDICTS and e.reason, (e.id, e.quantity)
        assert (e.condition != "") == (e.verdict == "depends"), (e.id, e.quantity, e.condition)
        assert e.tolerance or e.verdict == "needs-data"
        assert e.criterion == "" or not isinstance(e.claimed, float), (e.id, "criterion beside a claimed number")
        assert (e.modeled_lo is None) == (not e.assumptions or e.verdict == "needs-data")
        d = e.to_dict()
        assert set(d) == {"id", "quantity", "claimed", "criterion", "modeled", "modeled_lo", "modeled_hi", "unit",
                          "verdict", "condition", "tolerance", "reason", "assumptions", "section", "basis"}
    assert {e.id for e in report_ledger} >= set(CHEAP)


def test_arithmetic_claims_judged_by_formula():
    entries = {(e.id, e.quantity.split(":")[0]): e for e in ledger(ids=["S1-01", "S2-04", "S2-06"])}
    kv = entries[("S1-01", "KV cache of Llama-3.1-8B at 128K tokens (fp16)")]
    assert kv.verdict == "consistent" and kv.modeled == pytest.approx(2 * 32 * 8 * 128 * 131072 * 2 / 2**30)
    intensity = entries[("S1-01", "arithmetic intensity of decode attention over the KV cache")]
    # each KV byte read feeds 4 query heads × (q·K + a·V) = 4 × 2 × 2 FLOPs per 2-byte K and 2-byte V value pair
    assert intensity.modeled == pytest.approx(4.0) and intensity.verdict == "inconsistent"
    flops = entries[("S2-04", "card throughput")]
    assert flops.modeled == pytest.approx(128 * 128 * 128 * 64 * 2 * 5e9) and flops.verdict == "inconsistent"
    fiber = entries[("S2-06", "hollow-core fiber holding S1-01's 16 GiB KV cache in flight")]
    # 16 GiB × 8 bits over 64 λ × 5 GBd × 3.3356 µs/km (n_g = 1)
    assert fiber.modeled == pytest.approx(2**34 * 8 / (64 * 5e9 * 1e3 / constants.c), rel=1e-9)
    assert fiber.verdict == "inconsistent"


def test_loaded_q_flips_are_the_tolerance_edge():
    from prismpic.components import rings
    from prismpic.pdk.process import DEFAULT_PROCESS, apply

    tol = TOLERANCES["loaded_q"].value
    edges = (12500.0 / tol, 12500.0 * tol)
    found = 0
    # judged over the two process parameters that move Q most (the others' corners cost ring solves, not logic)
    for spec in claims.specs(ids=["S1-11"]):
        if not spec.quantity.startswith("loaded Q"):
            continue
        j = judge(replace(spec, assumptions=("etch_depth", "gap_bias")), max_flips=None)
        gap = 0.2 if "200 nm" in j.entry.quantity else 0.3
        for s in j.sensitivity:
            for x in s.flips:  # the ring model itself, outside the ledger, gives Q at a tolerance edge there
                values = DEFAULT_PROCESS.nominal() | {s.name: x}
                q = rings.ring_specs(1.55, "add_drop", **apply({"gap": gap, "width": 1.4}, values))["q_loaded"]
                assert min(abs(q / e - 1) for e in edges) < 1e-4, (gap, s.name, x, q)
                found += 1
    assert found, "no process parameter moves S1-11's loaded Q across the tolerance"


def test_whole_ledger_is_well_formed(report_ledger):
    from prismpic.analysis.ledger.verdicts import text_problems

    entries = report_ledger
    assert {e.id for e in entries} == set(seed_ids())
    groups = defaultdict(set)
    for e in entries:
        assert e.verdict in VERDICTS and e.reason, (e.id, e.quantity)
        assert e.assumptions or e.basis or e.verdict == "needs-data", (e.id, e.quantity)
        assert text_problems(e) == [], (e.id, e.quantity)
        assert (e.condition != "") == (e.verdict == "depends"), (e.id, e.quantity)
        if e.tolerance and not e.tolerance.startswith(("bound", "one-sided")):
            groups[(e.quantity.split(":")[0].split(",")[0].strip(), e.unit)].add(e.tolerance)
    assert all(len(v) == 1 for v in groups.values()), groups
    # issue 29: the speed claims carry a value simulated in time (prismpic.analysis.transient), finite
    simulated = {e.id for e in entries if "simulated in time" in e.quantity and math.isfinite(float(e.modeled))}
    assert {"S1-10", "S1-12", "S1-17", "S2-04", "S2-09"} <= simulated
