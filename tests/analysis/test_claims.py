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
