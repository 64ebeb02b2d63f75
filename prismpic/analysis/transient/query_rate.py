"""The highest query rate a PRISM channel's hardware supports: inter-symbol interference from simulated waveforms,
carried into recall@k.

A channel's hardware is fixed (the rings, the MZMs, a DAC of given rise, detectors, a TIA of given bandwidth) and
queries stream through it at a rate R. At each R the channel is simulated (``simulate.query_waveforms``, no noise,
random 6-bit query values on every wavelength, ring voltages random within ±½ linewidth); the inter-symbol error
is the waveform at the eye's sampling instant minus the static (S-parameter) value of the same query, and its RMS
over the record, relative to the full-scale current (every query value 1, every ring on its channel), is the
score error. That error enters the recall Monte Carlo (``recall.monte_carlo``) as Gaussian score noise of the same
RMS (a model: the error is a sum over the previous queries' values, independent of the current one). The highest
rate is the largest one whose recall@k stays within ``recall_drop`` of the static recall, interpolated in log R
between the grid's last passing and first failing rates.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import numpy as np

from prismpic.analysis.transient import analyses, devices, simulate, waveform_metrics

RATES_HZ = (0.25e9, 0.5e9, 1e9, 2e9, 5e9, 10e9, 20e9)
DAC_RISE_PS = 25.0  # † a 10 GS/s-class DAC (¼ of a 10 GBd symbol)
TIA_BANDWIDTH_GHZ = 7.5  # † a 10 GBd NRZ receiver (0.75 × 10 GHz)


@dataclasses.dataclass(frozen=True)
class QueryRate:
    """ISI and recall@k of a channel over query rates; ``highest_rate_hz`` (NaN when even the slowest rate fails,
    inf when the fastest passes)."""

    d: int
    rates_hz: tuple[float, ...]
    isi_rms_rel: tuple[float, ...]
    recall: tuple[float, ...]
    recall_static: float
    recall_drop: float
    highest_rate_hz: float
    dac_rise_ps: float
    tia_bandwidth_ghz: float


def at_rate(setup: simulate.ChannelSetup, symbol_rate_hz: float, n_symbols: int,
            samples_per_symbol: int) -> simulate.ChannelSetup:
    """``setup``'s hardware (DAC rise, MZM, rings, detectors, TIA) driven at another symbol rate: only the step,
    the rate and which blocks the step resolves change."""
    dt = simulate.check_run(symbol_rate_hz, n_symbols, samples_per_symbol, "symbol_rate_hz", "n_symbols")
    blocks = {"dac": simulate.dac_bandwidth_ghz(setup.dac_rise_ps), "mzm": setup.front.mzm_bandwidth_ghz,
              "detector": setup.back.pd_bandwidth_ghz, "tia": setup.back.tia_bandwidth_ghz}
    static = tuple(k for k, bw in blocks.items() if not devices.dynamic(bw, dt))
    return dataclasses.replace(setup, symbol_rate_hz=float(symbol_rate_hz), dt_ps=dt,
                               samples_per_symbol=int(samples_per_symbol), static_blocks=static)


def isi_rms(setup: simulate.ChannelSetup, n_symbols: int = 256, seed: int = 0) -> float:
    """RMS inter-symbol error of ``setup``'s channel relative to its full-scale current (module docstring)."""
    from prismpic.components import rings

    rng = np.random.default_rng(seed)
    d = setup.radii.size
    v_lw = rings.ring_specs(1.55, "add_drop", **setup.ring)["v_per_linewidth"]
    volts = rng.uniform(-0.5 * v_lw, 0.5 * v_lw, d)
    sym = rng.uniform(0.0, 1.0, (setup.wl.size, n_symbols))
    simulate.check_channel_step(setup, volts)
    y = np.asarray(jax.jit(lambda s, v: simulate.query_waveforms(setup, s, v)["current_a"])(sym, volts))
    target = np.asarray(simulate.static_currents(setup, sym, volts))
    full = float(np.asarray(simulate.static_currents(setup, np.ones((setup.wl.size, 1)), np.zeros(d)))[0])
    _, delay = waveform_metrics.eye_opening(y, target, setup.samples_per_symbol)
    idx = np.arange(2, n_symbols - 3)
    err = y[idx * setup.samples_per_symbol + delay] - target[idx]
    return float(np.sqrt(np.mean(err**2)) / abs(full))


def highest_query_rate(d: int = 32, rates_hz=RATES_HZ, *, dac_rise_ps: float = DAC_RISE_PS,
                       tia_bandwidth_ghz: float = TIA_BANDWIDTH_GHZ, recall_drop: float = 0.01, k: int = 8,
                       n_blocks: int = 500, n_trials: int = 512, separation: float = 0.0, n_symbols: int = 256,
                       seed: int = 0, ring: dict | None = None) -> QueryRate:
    """The highest query rate of a d-wavelength channel at which recall@k stays within ``recall_drop`` of its static
    value (module docstring).

    Args:
        d: wavelengths = rings (the seed's 32).
        rates_hz: query rates (Hz), increasing.
        dac_rise_ps: the DAC's 10–90 % rise (ps), fixed hardware.
        tia_bandwidth_ghz: the TIA's 3-dB bandwidth (GHz), fixed hardware.
        recall_drop: the recall@k loss allowed (0.01: within 1 %).
        k, n_blocks, n_trials, separation: the recall Monte Carlo (planted banks of ``separation`` bulk σ).
        n_symbols: symbols per simulated record.
        seed: queries, ring voltages and the Monte Carlo's key.
        ring: ``ring_add_drop_model`` parameters shared by the rings (no radius).
    """
    from prismpic.analysis.recall.monte_carlo import RecallConfig, simulate_recall
    from prismpic.checks import check_range

    rates = [float(r) for r in rates_hz]
    if len(rates) < 2 or any(b <= a for a, b in zip(rates[:-1], rates[1:], strict=True)):
        raise ValueError(f"rates_hz = {rates_hz!r} must hold at least two increasing rates (Hz)")
    check_range("recall_drop", recall_drop, 0.0, 1.0, lo_open=True, hi_open=True)
    base = simulate.channel_setup(d, rates[0], 8, n_symbols=n_symbols, ring=ring, dac_rise_ps=dac_rise_ps,
                                  tia_bandwidth_ghz=tia_bandwidth_ghz)
    isi = []
    for rate in rates:
        sps = analyses.samples_needed(base, np.zeros(d), rate, 8)
        isi.append(isi_rms(at_rate(base, rate, n_symbols, sps), n_symbols, seed))
    cfg = dict(n_blocks=n_blocks, d=d, k=k, n_trials=n_trials, separation=separation)
    static = simulate_recall(RecallConfig(**cfg), seed, paths=("noise",)).mean
    recall = [simulate_recall(RecallConfig(**cfg, noise_rel=e), seed, paths=("noise",)).mean for e in isi]
    ok = [static - r <= recall_drop for r in recall]
    if not ok[0]:
        best = math.nan
    elif all(ok):
        best = math.inf
    else:
        j = ok.index(False)  # first failing rate; interpolate the drop in log rate from the last passing one
        lo, hi = static - recall[j - 1], static - recall[j]
        f = (recall_drop - lo) / (hi - lo) if hi > lo else 0.0
        best = math.exp(math.log(rates[j - 1]) + f * (math.log(rates[j]) - math.log(rates[j - 1])))
    return QueryRate(int(d), tuple(rates), tuple(isi), tuple(recall), float(static), float(recall_drop), best,
                     float(dac_rise_ps), float(tia_bandwidth_ghz))
