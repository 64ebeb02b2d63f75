"""Verdicts over ranges: tolerances, the flip solver against closed forms, the flips moving verdicts, the figure."""

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import constants

from prismpic.analysis.ledger import claims, verdicts
from prismpic.analysis.ledger.assumptions import assumption
from prismpic.analysis.ledger.claims_s1_system import RINGS_S1_18, bank_area_mm2, bitonic_topk_stages
from prismpic.analysis.ledger.verdicts import TOLERANCES, Judge, Tolerance, judge


def test_tolerance_margins():
    assert Tolerance("abs", 1.0, "").margin(37.5, 37.2) == pytest.approx(0.7)
    assert Tolerance("rel", 0.03, "").margin(8.0, 8.3) < 0 < Tolerance("rel", 0.03, "").margin(8.1, 8.3)
    r = Tolerance("ratio", 2.0, "")
    assert r.margin(2.0, 1.0) == pytest.approx(0.0, abs=1e-12) and r.margin(0.4, 1.0) < 0 < r.margin(0.6, 1.0)
    assert Tolerance("min", 0, "").margin(26.0, 25.0) > 0 > Tolerance("max", 0, "").margin(26.0, 25.0)
    assert Tolerance("ratio", 2.0, "").margin(-1.0, 1.0) == -math.inf


def _stage_judge(claimed_ns):
    return Judge("T-01", "test latency", "ns", lambda p: 45 * p["compare_stage_ps"] * 1e-3, "latency",
                 claimed=claimed_ns, assumptions=("compare_stage_ps",))


def test_band_flips_match_the_closed_form():
    a = assumption("compare_stage_ps")
    j = judge(_stage_judge(7.0))
    assert j.entry.verdict == "depends"
    # 45 stages × t within a factor 2 of 7 ns: t between 7/2/45 ns and 7·2/45 ns
    assert j.sensitivity[0].flips == pytest.approx((7e3 / 2 / 45, 7e3 * 2 / 45), rel=1e-6)
    assert "≤" in j.entry.condition and a.label in j.entry.condition
    assert j.entry.modeled_lo == pytest.approx(45 * a.lo * 1e-3) and j.entry.modeled_hi == pytest.approx(45 * a.hi * 1e-3)


def test_whole_range_verdicts():
    lo, hi = (45 * assumption("compare_stage_ps").lo * 1e-3, 45 * assumption("compare_stage_ps").hi * 1e-3)
    assert judge(_stage_judge(1000.0)).entry.verdict == "inconsistent"  # 2.25–45 ns is never within 2× of 1 µs
    wide = Judge("T-02", "test", "ns", lambda p: 45 * p["compare_stage_ps"] * 1e-3, "max", claimed=2 * hi,
                 assumptions=("compare_stage_ps",))
    e = judge(wide).entry
    assert e.verdict == "consistent" and e.condition == "" and e.tolerance.startswith("bound: ≤")
    assert lo < hi


def _seed_link_context():
    """A context with a stated link budget: +20 dBm, the coupler, and 37 dB of other stages, so that one bank's
    SNR crosses 25 dB inside the laser-share range (the solver's checks need no bank-model run)."""
    from prismpic.analysis.system.link_budget import LinkBudget

    stages = [("fiber–chip edge coupler", 3.5), ("splitter tree, routing, ring bank, detector", 37.0)]
    return {"link_budget": LinkBudget(20.0, stages, 1e9, math.nan)}


def _solved(ids):
    return [j for j in claims.judgements(_seed_link_context(), ids=ids, max_flips=None) if j.entry.verdict == "depends"]


def _assert_flips_move_the_verdict(j):
    found = False
    for s in j.sensitivity:
        a = assumption(s.name)
        for x in s.flips:
            found = True
            if a.integer:
                below, above = j.holds_at(**{s.name: x - 1}), j.holds_at(**{s.name: x})
            elif a.scale == "log":
                below, above = j.holds_at(**{s.name: x * (1 - 1e-4)}), j.holds_at(**{s.name: x * (1 + 1e-4)})
            else:
                d = 1e-4 * (a.hi - a.lo)
                below, above = j.holds_at(**{s.name: x - d}), j.holds_at(**{s.name: x + d})
            assert below != above, (j.entry.id, j.entry.quantity, s.name, x)
    return found


@pytest.mark.parametrize("cid", ["S1-04", "S1-13", "S1-16", "S1-17", "S1-18", "S2-10"])
def test_flip_conditions_move_the_verdict(cid):
    js = _solved([cid])
    assert js, f"{cid}: no entry depends"
    assert all(j.entry.condition.startswith(("consistent iff", "consistent at", "inconsistent at")) for j in js)
    assert any(_assert_flips_move_the_verdict(j) for j in js)


def test_receiver_flip_is_the_closed_form_noise_density():
    # SNR = I²/((2qI + 2q·2·I_dark + i_n²)·B) at S1-12's −15.9 dBm into 0.95 A/W, 1.3 nA dark, B = 1 GHz:
    # 37.2 ± 1 dB brackets i_n
    i = 0.95 * 1e-3 * 10 ** (-15.9 / 10)
    b = 1e9

    def i_n(snr_db):
        var = i**2 / 10 ** (snr_db / 10) / b - 2 * constants.e * i - 4 * constants.e * 1.3e-9
        return math.sqrt(var) * 1e12

    j = next(j for j in claims.judgements(_seed_link_context(), ids=["S1-12"]) if j.entry.quantity.startswith("SNR"))
    assert j.entry.verdict == "depends"
    assert j.sensitivity[0].flips == pytest.approx((i_n(38.2), i_n(36.2)), rel=1e-5)


def test_bank_laser_share_flip_is_the_closed_form():
    # S1-13 on the seed's stages with the nominal coupler: the share of +20 dBm at which the SNR is 25 dB,
    # from I² − s·B·2q·I − s·B·(4q·I_dark + i_n²) = 0, s = 10^2.5
    from prismpic.analysis.ledger.claims_context import modeled_responsivity

    ctx = _seed_link_context()
    j = claims.judgements(ctx, ids=["S1-13"], max_flips=None)[0]
    share = next(s for s in j.sensitivity if s.name == "bank_laser_share")
    assert share.flips, "the stated link puts the 25 dB flip inside the share range"
    s_lin, b, q = 10**2.5, 1e9, constants.e
    i_n = assumption("receiver_noise_pa_per_rthz").nominal * 1e-12
    c1, c0 = s_lin * b * 2 * q, s_lin * b * (4 * q * 1.3e-9 + i_n**2)
    current = (c1 + math.sqrt(c1**2 + 4 * c0)) / 2
    stages = sum(v for n, v in ctx["link_budget"].stages if not n.startswith("fiber–chip"))
    p_rx_w = 1e-3 * 10 ** ((20.0 - stages - assumption("coupler_loss_db").nominal) / 10)
    assert share.flips == pytest.approx((current / modeled_responsivity() / p_rx_w,), rel=1e-5)


def test_deployment_flips_are_the_arithmetic():
    js = {j.entry.quantity.split(":")[0]: j for j in claims.judgements(ids=["S1-18"])}
    drivers = next(j for q, j in js.items() if q.startswith("static power"))
    assert drivers.sensitivity[0].flips == pytest.approx((300.0 / RINGS_S1_18 * 1e3,), rel=1e-5)
    # one floorplan: the bumps cover the 4 banks of the area row (4 × the bank's area at the nominal channel pitch)
    bumps = next(j for q, j in js.items() if q.startswith("electrode routing"))
    area = next(j for q, j in js.items() if q.startswith("area of one"))
    bank_mm2 = area.entry.modeled
    assert bank_mm2 == pytest.approx(bank_area_mm2(assumption("channel_pitch_um").nominal))
    pitch = next(s for s in bumps.sensitivity if s.name == "bump_pitch_um")
    assert pitch.flips == pytest.approx((math.sqrt(4 * bank_mm2 * 1e6 / RINGS_S1_18),), rel=1e-5)
    assert assumption("bump_pitch_um").lo <= 10.0  # hybrid bonding is inside the pitch range


def _bitonic_sort_rows(x):
    """Rows sorted descending by a bitonic sorting network; (rows, stages)."""
    k = x.shape[1]
    idx = np.arange(k)
    stages, size = 0, 2
    while size <= k:
        stride = size // 2
        while stride >= 1:
            x = _exchange(x, idx, stride, (idx & size) == 0)
            stages, stride = stages + 1, stride // 2
        size *= 2
    return x, stages


def _exchange(x, idx, stride, desc):
    partner = idx ^ stride
    low = idx < partner
    a, b, d = x[:, idx[low]], x[:, partner[low]], desc[low]
    out = x.copy()
    out[:, idx[low]] = np.where(d, np.maximum(a, b), np.minimum(a, b))
    out[:, partner[low]] = np.where(d, np.minimum(a, b), np.maximum(a, b))
    return out


def _bitonic_topk(values, k):
    x, stages = _bitonic_sort_rows(np.asarray(values, float).reshape(-1, k))
    idx = np.arange(k)
    while x.shape[0] > 1:
        x = np.maximum(x[0::2], x[1::2][:, ::-1])  # a bitonic row holding the top k of the pair
        stages += 1
        stride = k // 2
        while stride >= 1:
            x = _exchange(x, idx, stride, np.ones(k, bool))
            stages, stride = stages + 1, stride // 2
    return x[0], stages


@pytest.mark.parametrize("n,k", [(64, 8), (1024, 32)])
def test_bitonic_stage_count_from_a_running_network(n, k):
    v = np.random.default_rng(n).standard_normal(n)
    top, stages = _bitonic_topk(v, k)
    assert np.array_equal(top, np.sort(v)[::-1][:k])
    assert bitonic_topk_stages(n, k) == stages


def test_tornado_figure(tmp_path):
    judged = claims.judgements(ids=["S1-17", "S1-18"])
    out = verdicts.tornado_figure(judged, tmp_path / "tornado.png")
    assert out is not None and (tmp_path / "tornado.png").read_bytes()[:4] == b"\x89PNG"
    none = [j for j in judged if j.entry.verdict != "depends"]
    assert verdicts.tornado_figure(none, tmp_path / "none.png") is None and not (tmp_path / "none.png").exists()


def test_no_verdict_or_tolerance_is_typed_in_the_judges():
    root = Path(claims.__file__).parent
    for name in ("claims_s1_device.py", "claims_s1_system.py", "claims_s2.py"):
        tree = ast.parse((root / name).read_text())
        typed = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in verdicts.VERDICTS]
        assert not typed, f"{name} types verdicts {typed}"
    for spec in claims.specs():
        assert spec.tolerance in TOLERANCES, (spec.id, spec.quantity)
