"""The highest query rate: inter-symbol error of a simulated channel against the first-order recursion of a
dominant TIA pole, and the rate search over a recall Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prismpic.analysis.transient import query_rate, simulate
from prismpic.components import rings


def test_isi_of_a_dominant_tia_pole_is_the_first_order_recursion():
    """TIA τ = 318 ps against 200 ps symbols, every other block ≲ 10 ps: sampled at each symbol's end the current
    follows y_n = s_n + (y_{n−1} − s_n) e^{−T/τ}, s_n the static (S-parameter) current of query n. The RMS of
    y_n − s_n over full scale is the simulated ISI; the other blocks' few-ps delays: 10 %."""
    rate, n, f_tia = 5e9, 128, 0.5
    setup = simulate.channel_setup(2, rate, 16, n_symbols=n, dac_rise_ps=1.0, tia_bandwidth_ghz=f_tia)
    rms = query_rate.isi_rms(setup, n)
    rng = np.random.default_rng(0)
    v_lw = rings.ring_specs(1.55, "add_drop")["v_per_linewidth"]
    volts = rng.uniform(-0.5 * v_lw, 0.5 * v_lw, 2)
    sym = rng.uniform(0.0, 1.0, (2, n))
    s = np.asarray(simulate.static_currents(setup, sym, volts))
    full = float(np.asarray(simulate.static_currents(setup, np.ones((2, 1)), np.zeros(2)))[0])
    a = math.exp(-(1e12 / rate) / (1e3 / (2 * math.pi * f_tia)))
    y = np.empty(n)
    y[0] = s[0]
    for k in range(1, n):
        y[k] = s[k] + (y[k - 1] - s[k]) * a
    expected = np.sqrt(np.mean((y - s)[2:n - 3] ** 2)) / full
    assert rms == pytest.approx(expected, rel=0.1)


def test_highest_rate_lies_between_the_last_passing_and_first_failing_rates():
    r = query_rate.highest_query_rate(2, (0.5e9, 5e9, 40e9), n_trials=128, n_blocks=100, n_symbols=64,
                                      tia_bandwidth_ghz=2.0, recall_drop=0.05)
    assert r.isi_rms_rel[0] < r.isi_rms_rel[1] < r.isi_rms_rel[2]
    ok = [r.recall_static - x <= 0.05 for x in r.recall]
    assert ok[0] and not ok[-1]
    j = ok.index(False)
    assert r.rates_hz[j - 1] <= r.highest_rate_hz <= r.rates_hz[j]


def test_bad_rates_are_refused_by_name():
    with pytest.raises(ValueError, match="rates_hz"):
        query_rate.highest_query_rate(2, (5e9, 1e9))
    with pytest.raises(ValueError, match="recall_drop"):
        query_rate.highest_query_rate(2, (1e9, 5e9), recall_drop=0.0)
