"""WDM crosstalk of ring banks and channel plans: the matrix against the ring model and the Airy
lineshape, the seed's plan, the bank and thermal views, the plan checker and optimizer.

Expected values come from ``rings.ring_specs`` (FSR = λ²/(n_g L), FWHM, resonance, drop loss)
and textbook lineshapes, so they follow the dispersion model when its numbers change.
"""

import json
import math

import numpy as np
import pytest

from prismpic.analysis.system import channel_plan as cp
from prismpic.analysis.system import crosstalk as xt
from prismpic.circuits import bank_model as pb
from prismpic.components import lineshapes, rings


def db(x):
    return 10 * np.log10(x)


@pytest.fixture(scope="module")
def spec():
    return rings.ring_specs(1.55)


@pytest.fixture(scope="module")
def easy(spec):
    """4 channels at FSR/8: d·spacing = FSR/2 < FSR, spacing ≫ FWHM; no other order within 5·FSR/8."""
    s = spec["fsr_nm"] / 8
    ch = pb.channel_plan_um(4, s)
    r = pb.bank_radii(ch)
    return s, ch, r, xt.crosstalk_matrix(ch, r, thermal_decay_length_um=20.0)


@pytest.fixture(scope="module")
def alias(spec):
    """4 channels at 1.02·FSR/3: channel 3 lies 2 % of an FSR beyond ring 0's next order."""
    ch = pb.channel_plan_um(4, 1.02 * spec["fsr_nm"] / 3)
    r = pb.bank_radii(ch)
    return ch, r, xt.crosstalk_matrix(ch, r, bank=False)


# ---------------------------------------------------------------------------- analytic
def test_airy_lineshape():
    # coefficient of finesse F = 4x/(1 − x)² of a ring with x = t1 t2 a, whose exact FWHM in
    # phase is 4 arcsin((1 − x)/(2√x)) (half maximum of 1/(1 + F sin²(φ/2)))
    x, fsr = 0.93, 8.0
    fwhm = fsr * 4 * math.asin((1 - x) / (2 * math.sqrt(x))) / (2 * math.pi)
    assert lineshapes.coefficient_of_finesse(fsr, fwhm) == pytest.approx(4 * x / (1 - x) ** 2, rel=1e-12)
    assert lineshapes.airy(fwhm / 2, fsr, fwhm) == pytest.approx(0.5, rel=1e-12)
    assert lineshapes.airy([0.0, fsr, -3 * fsr], fsr, fwhm) == pytest.approx([1, 1, 1])  # every order
    # Lorentzian limit near the line: 1/(1 + (2Δ/FWHM)²); sin²z = z²(1 − z²/3 + …) in both Δ and FWHM
    dl = 3 * fwhm
    rel = (math.pi * dl / fsr) ** 2 / 3 + (math.pi * fwhm / (2 * fsr)) ** 2 / 3
    assert lineshapes.airy(dl, fsr, fwhm) == pytest.approx(lineshapes.lorentzian(dl, fwhm), rel=rel)
    # pigeonhole bound: Airy at FSR/d
    assert cp.common_fsr_bound_db(16, fsr, fwhm) == pytest.approx(db(lineshapes.airy(fsr / 16, fsr, fwhm)))
    m = xt.airy_crosstalk_matrix([1.550, 1.551, 1.558], fsr, fwhm)
    assert np.diag(m) == pytest.approx([0, 0, 0], abs=1e-12)
    assert m[0, 1] == pytest.approx(db(lineshapes.airy(1.0, fsr, fwhm)))


# ---------------------------------------------------------------------------- the matrix
def test_matrix_is_the_ring_models_drop_ratio(alias):
    ch, r, res = alias
    assert np.diag(res.matrix) == pytest.approx(np.zeros(4), abs=1e-9)
    drop = np.array([np.abs(np.asarray(rings.ring_add_drop_model(wl=ch, radius=rj)[("o1", "o4")])) ** 2 for rj in r])
    expected = db(drop.T / np.diag(drop)[:, None])  # [i, j]: ring j at λ_i over ring i at λ_i
    np.testing.assert_allclose(res.matrix, expected, atol=1e-8)
    # bank radii put every ring on its channel: the own order is the nearest one
    assert np.all(np.diag(res.order) == 0)
    assert res.n_channels == 4 and res.spacing_nm == pytest.approx(np.diff(ch).mean() * 1e3)
    assert json.loads(json.dumps(res.to_dict()))["worst_pair"]["channel"] == res.worst_pair[0]


def test_airy_cross_check_from_ring_specs(alias, spec):
    ch, r, res = alias
    # independent of this module: ring j's resonance nearest λ_i and the local FSR from ring_specs,
    # and the linewidth at λ_i (ring i's, on its channel: the coupling and loss at λ_i set the
    # tail there); the Airy phase 2πΔ/FSR is linear in Δ ≤ FSR/2 (error ~Δ/λ): < 0.1 dB
    own = [rings.ring_specs(float(ch[i]), radius=float(r[i])) for i in range(4)]
    for i in range(4):
        for j in range(4):
            s = rings.ring_specs(float(ch[i]), radius=float(r[j]))
            offset = (ch[i] - s["resonance_um"]) * 1e3
            airy = lineshapes.airy(offset, s["fsr_nm"], own[i]["fwhm_nm"])
            assert db(airy) == pytest.approx(res.matrix[i, j], abs=0.1)
            assert res.offset_nm[i, j] == pytest.approx(offset, abs=1e-5)
            assert res.order[i, j] == round((s["resonance_um"] - ch[j]) * 1e3 / s["fsr_nm"])
    # 1.02·FSR end to end: channel 3 is served by ring 0's next order (to the red), 2 % of an FSR away
    # plus the change of FSR = λ²/(n_g L) between the reference resonance and the middle of the span
    # (n_g taken constant: its dispersion over the span moves this by < 0.01 nm); the other way round, order −1
    assert res.order[3, 0] == 1 and res.order[0, 3] == -1
    mid = 0.5 * (ch[0] + ch[3])
    expected = (ch[3] - ch[0]) * 1e3 - spec["fsr_nm"] * (mid / spec["resonance_um"]) ** 2
    assert res.offset_nm[3, 0] == pytest.approx(expected, abs=0.02)
    assert res.worst_pair in ((3, 0), (0, 3))


def test_symmetry_from_physics(alias):
    ch, r, res = alias
    # ring j meets channel i through order k exactly when ring i meets channel j through order −k, at
    # opposite offsets: Δ_ij + Δ_ji is the difference of two spans of |k| FSRs, ring j's above λ_j and
    # ring i's below λ_i, which lie |Δ| apart (FSR ∝ λ²/n_g: ≲ 3|Δ|/λ) and belong to radii R_j, R_i
    np.testing.assert_array_equal(res.order, -res.order.T)
    k = np.abs(res.order)
    rel = 3 * np.abs(res.offset_nm) * 1e-3 / ch[:, None] + np.abs(r[:, None] - r[None, :]) / r[None, :]
    assert np.all(np.abs(res.offset_nm + res.offset_nm.T) <= k * res.fsr_nm * rel + 1e-6)
    # so X is symmetric where both rings share the linewidth: tails scale as FWHM², which changes over the plan
    s_lo, s_hi = (rings.ring_specs(float(ch[k]), radius=float(r[k])) for k in (0, -1))
    spread = abs(db(s_lo["fwhm_nm"] / s_hi["fwhm_nm"]))
    off = ~np.eye(4, dtype=bool)
    assert np.max(np.abs(res.matrix - res.matrix.T)[off]) <= 2 * spread + 0.05


def test_easy_plan_is_limited_by_the_adjacent_lorentzian(easy, spec):
    s, ch, r, res = easy
    i, j = res.worst_pair
    assert abs(i - j) == 1 and res.worst_order == 0
    centre = rings.ring_specs(float(ch[2]), radius=float(r[2]))  # the ring the result describes
    assert res.fsr_nm == pytest.approx(centre["fsr_nm"], rel=1e-6)
    assert res.fwhm_nm == pytest.approx(centre["fwhm_nm"], rel=1e-6)
    # the worst pair: ring j's main line at one spacing from channel i, with the linewidth at λ_i
    here = rings.ring_specs(float(ch[i]), radius=float(r[i]))
    airy = lineshapes.airy(s, here["fsr_nm"], here["fwhm_nm"])
    assert res.worst_db == pytest.approx(db(airy), abs=0.05)
    # ≈ the Lorentzian: they differ by sin(πs/FSR)/(πs/FSR) (0.22 dB at FSR/8), and the linewidth
    # at the band centre differs from that at λ_i
    lorentz = lineshapes.lorentzian(s, spec["fwhm_nm"])
    tol = abs(db(airy / lineshapes.lorentzian(s, here["fwhm_nm"]))) + 2 * abs(db(here["fwhm_nm"] / spec["fwhm_nm"]))
    assert res.worst_db == pytest.approx(db(lorentz), abs=tol + 0.05)
    assert tol < 0.5


def test_seed_plan_worst_pair_is_an_alias(spec):
    ch, r = cp.seed_plan()  # S1-03: 32 channels at 1.6 nm; S1-10: R = 20 µm
    assert len(ch) == 32 and np.diff(ch) * 1e3 == pytest.approx(np.full(31, 1.6))
    fsr, fwhm = spec["fsr_nm"], spec["fwhm_nm"]
    # the physics: 32·1.6 nm > FSR, so rings meet foreign channels through other orders; the 32
    # channels' phases on one FSR put two within FSR/32 (pigeonhole), far closer than the 1.6 nm
    # neighbour, so the worst entry must be an alias
    assert 32 * 1.6 > fsr
    # (the radii differ by up to half an FSR's worth, which moves the rings' phases apart by up to
    # π·span/λ ≈ 0.1 rad, half of 2π/32: allow 1.5·FSR/32)
    reach = 1.5 * fsr / 32
    bound = db(lineshapes.airy(reach, fsr, fwhm))
    assert bound > db(lineshapes.lorentzian(1.6, fwhm)) + 6
    res = xt.crosstalk_matrix(ch, r, bank=False)
    i, j = res.worst_pair
    assert res.worst_db >= bound
    assert abs(i - j) >= 2 and res.worst_order != 0
    s = rings.ring_specs(float(ch[i]), radius=float(r[j]))
    assert abs(ch[i] - s["resonance_um"]) * 1e3 <= reach  # the responsible line, within ~FSR/d of channel i
    assert abs(s["resonance_um"] - ch[j]) * 1e3 >= 0.5 * fsr  # … and not ring j's own line
    # the alias is |i − j|·1.6 nm ≈ k·FSR away, the FSR walking with λ² over the span
    k = res.worst_order
    lo, hi = sorted((ch[i], ch[j]))
    f_lo, f_hi = (rings.ring_specs(float(lam))["fsr_nm"] for lam in (lo, hi))
    assert min(f_lo, f_hi) * abs(k) - fwhm <= abs(ch[i] - ch[j]) * 1e3 <= max(f_lo, f_hi) * abs(k) + fwhm


# ---------------------------------------------------------------------------- bank and thermal views
def test_bank_view_within_the_coherent_bound(easy, spec):
    s, ch, r, res = easy
    b = res.bank_matrix
    assert np.diag(b) == pytest.approx(np.zeros(4), abs=1e-9)
    # at the operating point ring j sits half a linewidth red of channel j: u = 2Δ/FWHM from its line
    assert res.bank_voltages * spec["tuning_pm_per_v"] * 1e-3 == pytest.approx(np.full(4, spec["fwhm_nm"] / 2),
                                                                                rel=0.05)
    # Lorentzian ring: |∂w_j/∂u| = D0 at u = 1 (w = D0(1 − u²)/(1 + u²)); a foreign ring changes the
    # drop and through fields at λ_i by |∂S/∂u| = 1/(1 + u²) each, times amplitudes ≤ 1, and w_i by
    # at most 2·(1 + 1)/(1 + u²): B ≤ 4/(D0 (1 + u²)) (coherent, field crosstalk: 1/Δ², not 1/Δ³)
    d0 = 10 ** (-spec["drop_loss_db"] / 10)
    for i in range(4):
        for j in range(4):
            if i != j:
                u = 2 * ((ch[i] - ch[j]) * 1e3 - spec["fwhm_nm"] / 2) / spec["fwhm_nm"]
                assert b[i, j] <= db(4 / (d0 * (1 + u**2)))
    assert res.bank_worst_db == pytest.approx(np.max(b[~np.eye(4, dtype=bool)]))


def test_thermal_view_follows_the_decay_length(easy, spec):
    s, ch, r, res = easy
    pos = xt.ring_positions_um(r)
    # centre-to-centre: each cell's bus 2(R + w + 3 µm slab margin) and 10 µm of bus between cells
    pitch = np.array([(r[k] + r[k + 1]) + 2 * (rings.RIDGE_WIDTH + 3.0) + 10.0 for k in range(3)])
    np.testing.assert_allclose(np.diff(pos), pitch, rtol=1e-9)
    assert res.to_dict()["thermal_decay_length_um"] == 20.0 and res.thermal_matrix.shape == (4, 4)
    # heating ring j warms ring i by exp(−s/L) and moves w_i through ring i's own line, at ring i's
    # slope (∂w/∂T ∝ ∂w/∂V: both shift the round-trip phase, dn/dT over dn/dV the same for every
    # ring to < 1 %); ring j's own shift adds at most the coherent optical crosstalk
    # B ≤ 4/(D0(1 + u²)) (see the bank test)
    length = 200.0
    long = xt.crosstalk_matrix(ch, r, thermal_decay_length_um=length)
    slope = np.abs(long.bank_slopes_per_v)
    d0 = 10 ** (-spec["drop_loss_db"] / 10)
    for i in range(4):
        for j in range(4):
            if i != j:
                k = math.exp(-abs(pos[i] - pos[j]) / length)
                u = 2 * ((ch[i] - ch[j]) * 1e3 - spec["fwhm_nm"] / 2) / spec["fwhm_nm"]
                tol = db(1 + 4 / (d0 * (1 + u**2)) / k) + 0.05
                assert long.thermal_matrix[i, j] == pytest.approx(db(k * slope[i] / slope[j]), abs=tol)


def test_vernier_pair_multiplies_the_drops(alias):
    ch, r, single = alias
    rb = pb.bank_radii(ch, 15.0)
    res = xt.crosstalk_matrix(ch, np.stack([r, rb], -1))
    other = xt.crosstalk_matrix(ch, rb, bank=False)
    np.testing.assert_allclose(res.matrix, single.matrix + other.matrix, atol=1e-9)
    np.testing.assert_allclose(res.through_matrix, single.matrix, atol=1e-9)
    assert res.bank_matrix is None and res.family == "vernier"
    fa, fb = (rings.ring_specs(float(ch[2]), radius=float(x[2]))["fsr_nm"] for x in (r, rb))
    assert res.fsr_nm == pytest.approx(fa * fb / abs(fa - fb), rel=0.01)  # common FSR of the pair
    assert res.worst_db < single.worst_db
    # a balanced readout also sees the through bus, which the bus-coupled ring depletes on its own
    both = cp.check_channel_plan(ch, np.stack([r, rb], -1), -1.0, readout="balanced")
    assert both.worst_db == pytest.approx(single.worst_db) and both.worst_pair == single.worst_pair


def test_plot(alias, tmp_path):
    path = xt.plot_crosstalk(alias[2], tmp_path / "xt.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    with pytest.raises(ValueError, match="bank"):
        xt.plot_crosstalk(alias[2], tmp_path / "b.png", which="bank")


# ---------------------------------------------------------------------------- plans
def test_check_channel_plan(alias):
    ch, r, res = alias
    ok = cp.check_channel_plan(ch, r, target_db=res.worst_db + 0.5)
    assert ok.passed and ok.margin_db == pytest.approx(0.5)
    bad = cp.check_channel_plan(ch, r, target_db=res.worst_db - 0.5, band_nm=(1530.0, 1565.0))
    assert not bad.passed and "order" in bad.reason
    out = cp.check_channel_plan(ch, r, target_db=-1.0, band_nm=(1551.0, 1565.0))
    assert not out.passed and not out.in_band and "outside the band" in out.reason


def test_optimizer_finds_an_easy_plan(spec):
    search = cp.optimize_channel_plan(4, band_nm=(1546.0, 1554.0), target_db=-15.0, n_spacings=300)
    assert search.feasible and search.best is not None
    best = search.best
    lam = best.channels_um * 1e3
    assert lam.min() >= 1546.0 - 1e-9 and lam.max() <= 1554.0 + 1e-9
    check = cp.check_channel_plan(best.channels_um, best.radii, -15.0)
    assert check.passed and check.worst_db == pytest.approx(best.worst_db)
    # 4 channels on one radius family: no plan beats the pigeonhole bound (phases FSR/4 apart)
    assert best.worst_db >= cp.common_fsr_bound_db(4, spec["fsr_nm"], spec["fwhm_nm"]) - 0.5
    assert all(q.worst_db <= -15.0 for q in search.plans)


def test_optimizer_says_none_exists(spec):
    # 4 rings of one radius family: the pigeonhole bound from the ring's FSR and FWHM (C band centre)
    c = rings.ring_specs(1.5475)
    bound = db(1 / (1 + lineshapes.coefficient_of_finesse(c["fsr_nm"], c["fwhm_nm"]) * math.sin(math.pi / 4) ** 2))
    search = cp.optimize_channel_plan(4, target_db=bound - 1.5, n_spacings=300)
    assert search.adjacent_bound_db < bound - 1.5  # the C band leaves room: only the FSR forbids it
    assert not search.feasible and search.best is None and search.plans == []
    assert "pigeonhole" in search.reason
    assert search.common_fsr_bound_db > bound - 1.5
    # (bound from the resonance nearest 1547.5 nm, up to FSR/2 away: the linewidth there differs by < 0.5 dB)
    assert search.closest.worst_db >= bound - 0.5
    # adjacent channels: 16 channels in 2 nm are 0.133 nm apart; a target below that Lorentzian is impossible
    s = 2.0 / 15
    target = db(lineshapes.lorentzian(s, spec["fwhm_nm"])) - 6.0
    none = cp.optimize_channel_plan(16, band_nm=(1549.0, 1551.0), target_db=target, family="per_channel_radii",
                                    radius_range=(19.0, 21.0))
    assert not none.feasible and none.best is None and "adjacent" in none.reason


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: xt.crosstalk_matrix([1.55], [20.0]), "channels_um"),
        (lambda: xt.crosstalk_matrix([1.55, 1.55], [20.0, 20.0]), "repeated"),
        (lambda: xt.crosstalk_matrix([1.55, 3.0], [20.0, 20.0]), "channels_um"),
        (lambda: xt.crosstalk_matrix([1.55, 1.56], [20.0]), "radii"),
        (lambda: xt.crosstalk_matrix([1.55, 1.56], [20.0, 5.0]), "radii"),
        (lambda: xt.crosstalk_matrix([1.55, 1.56], [20.0, 20.0], gapp=0.3), "unknown ring parameter"),
        (lambda: xt.crosstalk_matrix([1.55, 1.56], [20.0, 20.0], gap=0.01), "gap"),
        (lambda: xt.crosstalk_matrix([1.55, 1.56], [20.0, 20.0], thermal_decay_length_um=-1.0),
         "thermal_decay_length_um"),
        (lambda: cp.check_channel_plan([1.55, 1.56], [20.0, 20.0], target_db=3.0), "target_db"),
        (lambda: cp.optimize_channel_plan(1), "d = 1"),
        (lambda: cp.optimize_channel_plan(8, family="triple"), "family"),
        (lambda: cp.optimize_channel_plan(8, band_nm=(1565.0, 1530.0)), "band_nm"),
        (lambda: cp.optimize_channel_plan(8, radius_range=(30.0, 15.0)), "radius_range"),
        (lambda: cp.optimize_channel_plan(8, family="vernier", readout="through"), "readout"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_every_ring_setting_reaches_the_crosstalk_physics():
    """The wall angle, cladding and index correction of the user's ring reach the crosstalk's round trip (they
    were once dropped silently): dneff moves θ at 1.55 µm by (2π/λ)·2πR·dneff exactly (``index_correction``),
    and another wall angle moves it at all."""
    base = xt.ring_settings({})
    theta0 = float(xt.round_trip_phase(1.55, 20.0, base))
    dn = 0.005
    shifted = float(xt.round_trip_phase(1.55, 20.0, {**base, "dneff": dn}))
    assert shifted - theta0 == pytest.approx(2 * math.pi / 1.55 * 2 * math.pi * 20.0 * dn, rel=1e-9)
    walled = float(xt.round_trip_phase(1.55, 20.0, {**base, "sidewall_angle_deg": 85.0}))
    assert abs(walled - theta0) > 0.1  # rad: a steeper wall narrows the ridge's foot (≈ 1e-3 in n_eff)
