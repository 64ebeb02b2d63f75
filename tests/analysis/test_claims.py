"""The claims ledger covers every seed claim, each with a valid verdict and a reason."""

import pytest

from prismpic.analysis.claims import VERDICTS, ledger, seed_ids


def test_every_entry_is_well_formed():
    for e in ledger():
        assert e.verdict in VERDICTS
        assert e.reason, f"{e.id} {e.quantity}: empty reason"
        assert e.unit is not None


def test_unknown_claim_id_is_refused():
    with pytest.raises(ValueError, match="S9-99"):
        ledger(ids=["S9-99"])


def test_seed_ids_are_read():
    ids = seed_ids()
    assert ids[0] == "S1-01" and "S2-11" in ids and len(ids) == 31


def test_ledger_covers_every_seed_claim():
    from prismpic.analysis.claims import _CLAIMS

    missing = sorted(set(seed_ids()) - set(_CLAIMS))
    assert not missing, f"claims without a judge: {missing}"


def test_arithmetic_claims_judged_by_formula():
    entries = {(e.id, e.quantity): e for e in ledger(ids=["S1-01", "S2-08", "S2-06"])}
    kv = next(e for (i, _), e in entries.items() if i == "S1-01")
    assert kv.verdict == "consistent" and kv.modeled == pytest.approx(16.0)
    fiber = next(e for (i, _), e in entries.items() if i == "S2-06")
    # 64 λ × 5 GBd × 3.3356 µs/km / 8 bits = 133 kB per km
    assert fiber.modeled == pytest.approx(64 * 5e9 * 1000 / 299792458.0 / 8, rel=1e-9)
    assert fiber.verdict == "inconsistent"
