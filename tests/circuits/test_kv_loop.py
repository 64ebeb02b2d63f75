"""Fiber KV loop: closed-form response vs netlist simulation, FSR, OSNR per round, stationarity,
time-domain statistics, layout (DRC, LVS), bad input."""

from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.analysis.system.kv_capacity import C_M_PER_S, osnr_after_rounds_db
from prismpic.circuits.kv_loop import (
    DESIGN_WL,
    bit_errors_per_round,
    circulate,
    fsr_hz,
    kv_loop_chip,
    kv_loop_netlist,
    kv_loop_response,
    loop_parts,
    loop_rounds,
    plot_circulation,
    round_trip_loss_db,
    rounds_until_osnr,
    stationary_input_power_w,
)
from prismpic.components.gain import (
    NOISE_FIGURE_DB,
    P_SAT_OUT_DBM,
    saturated_gain_db,
    saturation_power_dbm,
    small_signal_gain_db,
)
from prismpic.components.io import HCF_GROUP_INDEX
from prismpic.pdk import drc

N_SWEEP = 2001  # one sweep length for every frequency-domain test: the device models compile once


@pytest.fixture(scope="module")
def chip():
    return kv_loop_chip()


@pytest.fixture(scope="module")
def response(chip):
    """``kv_loop_response`` at 5 dB SOA gain, jitted once for every sweep (wl and length_m traced).

    Jitted, the many small ops of the device models compile as one program instead of one by one.
    The chip fixture has already solved the loop coupler's length (a cached root solve in Python
    floats, which cannot run on tracers).
    """
    return jax.jit(lambda wl, length_m: kv_loop_response(wl, length_m=length_m, soa_gain_db=5.0))


def test_closed_form_equals_netlist_simulation(chip, response):
    """A 1 cm fiber keeps the resonances resolvable (FSR ≈ 20 GHz ≈ 0.16 nm): 2001 points over 1 nm, to 1e-9."""
    pdk = prismpic.get_pdk()
    circuit, _ = sax.circuit(kv_loop_netlist(chip, length_m=0.01), pdk.models)
    wl = jnp.linspace(1.5495, 1.5505, N_SWEEP)
    s = jax.jit(lambda wl: circuit(wl=wl, amp={"gain_db": 5.0}))(wl)[("o1", "o4")]
    fast = response(wl, 0.01)
    np.testing.assert_allclose(s, fast, atol=1e-9, rtol=0)
    depth = float(jnp.max(jnp.abs(fast)) / jnp.min(jnp.abs(fast)))
    assert depth > 1.1  # the sweep does cross resonances


def test_fsr_is_c_over_group_length():
    """FSR = c/(n_g L): 1 km of HCF (n_g ≈ 1) gives 299.79 kHz, the chip adding ~mm of ridge;
    the fiber's share of the round-trip delay is exactly n_g ΔL/c."""
    f1 = float(fsr_hz(length_m=1000.0))
    f2 = float(fsr_hz(length_m=2000.0))
    assert f1 == pytest.approx(C_M_PER_S / (HCF_GROUP_INDEX * 1000.0), rel=1e-4)
    assert 1 / f2 - 1 / f1 == pytest.approx(HCF_GROUP_INDEX * 1000.0 / C_M_PER_S, rel=1e-9)


def test_resonances_of_the_response_are_one_fsr_apart(response):
    """Dips of |S41|² over a frequency sweep of a 10 cm loop sit 1/τ apart (τ the round-trip group delay).

    The sweep starts at an anti-resonance (the transmission maximum over one FSR) and spans 3 FSR:
    exactly three dips, near 0.5, 1.5 and 2.5 FSR, none at either end (a sweep started at an
    arbitrary frequency may open on a half-resolved dip and count it).
    """
    fsr = float(fsr_hz(length_m=0.1))

    def power(nu):
        return np.abs(np.asarray(response(jnp.asarray(C_M_PER_S / nu * 1e6), 0.1))) ** 2

    nu = C_M_PER_S / (DESIGN_WL * 1e-6) + np.linspace(0.0, fsr, N_SWEEP)
    nu = nu[np.argmax(power(nu))] + np.linspace(0.0, 3.0 * fsr, N_SWEEP)
    p = power(nu)
    dips = []
    for i in range(1, len(p) - 1):
        if p[i] < p[i - 1] and p[i] <= p[i + 1]:  # parabola through the three samples around the minimum
            a, b, c = p[i - 1], p[i], p[i + 1]
            dips.append(nu[i] + 0.5 * (a - c) / (a - 2 * b + c) * (nu[1] - nu[0]))
    assert len(dips) == 3
    np.testing.assert_allclose(np.diff(dips), fsr, rtol=1e-3)


def test_osnr_falls_as_ten_log_n_with_gain_equal_to_loss():
    """Gain = loss: P_ase(n) = n·P_ase(1), OSNR(n) = OSNR(1) − 10 log10 n, the formula of kv_capacity (Olsson 1989)."""
    r = loop_rounds(1000, power_per_channel_dbm=0.0)
    n = r["round"]
    np.testing.assert_allclose(r["osnr_db"], r["osnr_db"][0] - 10 * np.log10(n), atol=1e-9)
    np.testing.assert_allclose(r["gain_db"], r["round_loss_db"], rtol=1e-12)
    # kv_capacity states the OSNR with signal and ASE at the amplifier's output
    after = float(jnp.abs(loop_parts()["after_soa"]) ** 2)
    p_dbm = 10 * np.log10(r["signal_w"][0] / after / 1e-3)
    for k in (1, 10, 1000):
        assert r["osnr_db"][k - 1] == pytest.approx(
            osnr_after_rounds_db(k, p_dbm, r["round_loss_db"], nf_db=NOISE_FIGURE_DB), abs=1e-9)
    # rounds while OSNR ≥ target: ⌊10^((OSNR₁ − target)/10)⌋
    assert rounds_until_osnr(20.0, n_max=1000) == int(np.floor(10 ** ((r["osnr_db"][0] - 20.0) / 10)))


def test_signal_is_stationary_when_gain_equals_round_trip_loss():
    r = loop_rounds(500)
    np.testing.assert_allclose(r["signal_w"], r["signal_w"][0], rtol=1e-12)
    # 1 dB more gain than loss: the stored signal grows by exactly 1 dB per round
    up = loop_rounds(20, gain=r["round_loss_db"] + 1.0)
    np.testing.assert_allclose(10 * np.log10(up["signal_w"][1:] / up["signal_w"][:-1]), 1.0, atol=1e-9)
    # the passive loss is the product of the pieces' |S|²: coupler bar, both facets and leads, fiber
    p = loop_parts(soa_gain_db=0.0)
    assert float(round_trip_loss_db()) == pytest.approx(-10 * np.log10(float(jnp.abs(p["t"] * p["A"]) ** 2)), abs=1e-12)


def test_saturated_soa_clamps_the_loop_just_below_the_loss():
    """Left to saturate, the SOA settles where the loop's total power is stationary: G·T·P + P_ase = P, so
    the gain ends just below the round-trip loss and the circulating ASE displaces the data. Without ASE
    the clamp power would solve G = G0 exp(−(G − 1) P/P_sat) at G = loss (Agrawal §6.2)."""
    r = loop_rounds(400, gain="saturated")
    g = r["gain_db"]
    assert abs(g[-1] - g[-2]) < 1e-6  # settled
    assert r["round_loss_db"] - 0.05 < g[-1] < r["round_loss_db"]
    assert np.all(np.diff(r["signal_w"][-100:]) < 0)  # the data decays under the clamp
    p = stationary_input_power_w(r["round_loss_db"])
    g0 = float(small_signal_gain_db(1000.0))
    gs = saturated_gain_db(10 * np.log10(p / 1e-3), g0, saturation_power_dbm(P_SAT_OUT_DBM, g0))
    assert float(gs) == pytest.approx(r["round_loss_db"], abs=1e-9)


def test_time_domain_levels_are_signal_plus_ase():
    """⟨|√P + n|²⟩ = P + ⟨|n|²⟩: mean '1' and '0' levels per round against loop_rounds, seeded."""
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2, 4000)
    kw = dict(length_m=10.0, power_per_channel_dbm=-10.0)
    p = circulate(bits, 30, seed=3, **kw)
    assert p.shape == (30, 4000)
    np.testing.assert_array_equal(p, circulate(bits, 30, seed=3, **kw))
    assert not np.array_equal(p, circulate(bits, 30, seed=4, **kw))
    r = loop_rounds(30, ref_bw_hz=5e9, **kw)
    ones, zeros = p[:, bits == 1], p[:, bits == 0]
    for n in (0, 9, 29):
        sig, ase = r["signal_w"][n], r["ase_w"][n]
        # standard error: '1' slots fluctuate by the signal–ASE beat, √(2·P·ASE) (one pol.) plus ASE
        se1 = np.sqrt(2 * sig * ase + ase**2) / np.sqrt(ones.shape[1])
        se0 = ase / np.sqrt(zeros.shape[1])
        assert ones[:, :][n].mean() == pytest.approx(sig + ase, abs=5 * se1)
        assert zeros[n].mean() == pytest.approx(ase, abs=5 * se0)
    errors = bit_errors_per_round(p, bits)
    assert errors[0] == 0 and errors[-1] >= errors[0]


def test_plot_writes_a_png(tmp_path):
    path = tmp_path / "loop.png"
    plot_circulation(np.full((3, 8), 1e-4), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_layout_is_drc_clean_with_facets_on_both_edges(chip):
    assert drc(chip) == []
    x = {p.name: p.dcenter for p in chip.ports if p.port_type == "optical"}
    assert x["o1"][0] == x["o2"][0] == 0.0
    assert x["o3"][0] == x["o4"][0] == pytest.approx(chip.dxmax)


def test_netlist_of_chip_and_loop(chip):
    """LVS-style: one coupler, one SOA, two edge couplers, five straights; the loop closes through the fiber."""
    net = chip.get_netlist(on_dangling_port="ignore")
    kinds = Counter(i["component"] for i in net["instances"].values())
    assert kinds == {"directional_coupler": 1, "soa": 1, "edge_coupler": 2, "straight": 5}
    counts = Counter(p for n in net["nets"] for p in (n["p1"], n["p2"]))
    assert all(v == 1 for v in counts.values())
    assert len(counts) + 4 == 4 + 2 + 2 * 2 + 5 * 2  # every optical instance port is connected or a chip port
    assert net["ports"]["o2"] == "ec_b,o1" and net["ports"]["o3"] == "ec_a,o1"
    loop = kv_loop_netlist(chip, length_m=5.0)
    assert set(loop["ports"]) == {"o1", "o4"}
    assert {"p1": "ec_a,o1", "p2": "fiber,o1"} in loop["nets"] and {"p1": "fiber,o2", "p2": "ec_b,o1"} in loop["nets"]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: kv_loop_chip(coupling=0.0), r"coupling = 0 is outside the valid range \(0, 1\)"),
        (lambda: kv_loop_chip(coupling=1.0), r"coupling = 1 is outside the valid range \(0, 1\)"),
        (lambda: kv_loop_chip(dy=20.0), r"dy = 20 µm is outside the valid range"),
        (lambda: loop_rounds(0), r"n_rounds = 0 is outside the valid range"),
        (lambda: loop_rounds(5, gain="lossless"), r"gain = 'lossless' is not one of"),
        (lambda: loop_rounds(5, length_m=-1.0), r"length_m = -1 m is outside the valid range"),
        (lambda: circulate([0, 2, 1], 3), r"bits must be a non-empty 1-D array of 0 and 1"),
        (lambda: stationary_input_power_w(25.0), r"round_loss_db = 25 dB is outside the valid range \(0, 17\.81\d*\)"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
