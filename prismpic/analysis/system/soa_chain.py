"""Cross-gain modulation in a chain of SOAs carrying 64 WDM channels, one of them modulated at 5 GBd (S2-09).

The SOAs between the PTU's cores share one gain among all wavelengths: a channel's data modulate the
carrier density, and with it the gain every other channel sees (cross-gain modulation, XGM). This
simulates the carrier rate equation of each SOA in time (``components.soa_dynamics``: the same
physics as the ``soa`` model's steady state) for a chain of identical SOAs, each followed by the
stage's passive loss, and returns the relative gain ripple imposed on the unmodulated channels after
each stage, over input power and carrier lifetime. The carrier lifetime is the named uncertainty: it
sets how much of the 5 GBd data's spectrum the gain follows (the gain responds as a low-pass of corner
1/(2π τ_eff)); it is varied by scaling the recombination rates and pump together, which keeps the
unsaturated gain (the lifetime's range is the ledger's ``soa_lifetime_ps`` assumption).

The modulated channel carries on–off NRZ data (PRBS-7, 8 samples per symbol, linear edges), average
power equal to the others' (``n_modulated`` > 1: several, each its own shift of the PRBS); the ripple
is std/mean (and peak-to-peak/mean) of the gain a channel has accumulated up to a stage's output (for a
CW channel, its output power's ripple), after the first 16 symbols, worst over the CW channels.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.checks import check_range
from prismpic.components import gain
from prismpic.components import soa_dynamics as sd

N_CHANNELS = 64  # S2-02
GRID_NM = 0.8  # 100 GHz at 1.55 µm (S2-02)
SYMBOL_RATE_HZ = 5e9  # S2-04 / S2-09
SAMPLES_PER_SYMBOL = 8
SKIP_SYMBOLS = 16


@dataclass(frozen=True)
class XgmResult:
    """Cross-gain ripple of a chain of SOAs; arrays are (lifetimes, powers, stages).

    Attributes:
        carrier_lifetime_ps: unsaturated differential carrier lifetime of each case (ps), (lifetimes,).
        channel_power_dbm: power per channel at the first SOA's input (dBm), (powers,).
        stages: stage number 1 … S, (stages,).
        ripple_rms: worst std/mean over the CW channels (all channels when all carry data) of the gain a
            channel has accumulated up to each stage's output (for a CW channel: its output power's ripple).
        ripple_pp: worst (max − min)/mean of the same.
        output_power_dbm: mean power per channel at each stage's output, at the channel nearest the gain peak.
        gain_db: mean chip gain of each stage at that channel (dB).
        symbol_rate_hz, n_channels, modulated_channel, n_modulated, stage_loss_db: the case simulated.
    """

    carrier_lifetime_ps: np.ndarray
    channel_power_dbm: np.ndarray
    stages: np.ndarray
    ripple_rms: np.ndarray
    ripple_pp: np.ndarray
    output_power_dbm: np.ndarray
    gain_db: np.ndarray
    symbol_rate_hz: float
    n_channels: int
    modulated_channel: int
    n_modulated: int
    stage_loss_db: float


def channel_wavelengths(n_channels: int = N_CHANNELS, spacing_nm: float = GRID_NM, center_um: float = 1.55):
    """Wavelengths (µm) of ``n_channels`` channels ``spacing_nm`` apart, centred on ``center_um``."""
    return center_um + (np.arange(n_channels) - (n_channels - 1) / 2) * spacing_nm * 1e-3


def prbs7(n_bits: int) -> np.ndarray:
    """PRBS-7 bits (x⁷ + x⁶ + 1, seed all ones; ITU-T O.150), ``n_bits`` of them, as 0/1 integers."""
    state, out = 0x7F, np.empty(n_bits, dtype=int)
    for i in range(n_bits):
        bit = ((state >> 6) ^ (state >> 5)) & 1
        state = ((state << 1) | bit) & 0x7F
        out[i] = bit
    return out


def modulated_input(channel_power_w, n_symbols: int, modulated_channel: int, n_channels: int = N_CHANNELS,
                    symbol_rate_hz: float = SYMBOL_RATE_HZ, n_modulated: int = 1):
    """Sample times (s, (T,)) and input powers (W, (T, channels)): CW channels and on–off NRZ channels.

    Channels ``modulated_channel`` … + ``n_modulated`` − 1 (wrapping) carry 0 or 2·P with PRBS-7 data,
    each its own cyclic shift of the sequence (127 // n_modulated symbols apart, so they are uncorrelated
    over the simulated window), so their mean is P like the CW channels'; sampled at
    ``SAMPLES_PER_SYMBOL`` per symbol (linear interpolation between samples).
    """
    bits = prbs7(n_symbols + 127)
    sps = SAMPLES_PER_SYMBOL
    t = np.arange(n_symbols * sps) / (symbol_rate_hz * sps)
    p = np.full((t.size, n_channels), float(channel_power_w))
    for i in range(n_modulated):
        shift = (i * (127 // n_modulated)) % 127
        p[:, (modulated_channel + i) % n_channels] = 2.0 * channel_power_w * np.repeat(bits[shift:shift + n_symbols],
                                                                                        sps)
    return t, p


def _ripple(t, p, prm, mask, skip, stages):
    """Ripple of the gain each channel has accumulated after each stage (std/mean and peak-to-peak/mean)."""
    return _ripple_program(stages)(t, p, prm, mask, skip)


@functools.lru_cache(maxsize=8)
def _ripple_program(stages: int):
    return program_cache.reuse(lambda t, p, prm, mask, skip: _chain_ripple(t, p, prm, mask, skip, stages),
                               pytree_types=(sd.ChainParams,))


def _chain_ripple(t, p, prm, mask, skip, stages):
    n = sd.simulate_chain(t, p, prm, stages)
    eta2 = prm.taper_transmission**2
    gains = jnp.cumprod(jax.vmap(lambda x: sd.stage_gains(x, prm))(n) * eta2, axis=1)  # (T, S, C), at each output
    w = (jnp.arange(t.shape[0]) >= skip)[:, None, None]
    cnt = jnp.sum(w)
    mean = jnp.sum(gains * w, axis=0) / cnt
    std = jnp.sqrt(jnp.sum(((gains - mean) * w) ** 2, axis=0) / cnt)
    big = jnp.where(w, gains, -jnp.inf).max(axis=0)
    small = jnp.where(w, gains, jnp.inf).min(axis=0)
    rms = jnp.max(jnp.where(mask, std / mean, 0.0), axis=-1)
    pp = jnp.max(jnp.where(mask, (big - small) / mean, 0.0), axis=-1)
    out = jnp.sum(sd.chain_outputs(n, p, prm) * w, axis=0) / cnt  # mean output power per stage and channel
    return rms, pp, out


def cross_gain_ripple(
    channel_power_dbm=(-10.0, -5.0, 0.0),
    stages: int = 10,
    carrier_lifetimes_ps=None,
    *,
    stage_loss_db: float = 10.0,
    n_symbols: int = 128,
    n_channels: int = N_CHANNELS,
    modulated_channel: int | None = None,
    n_modulated: int = 1,
    symbol_rate_hz: float = SYMBOL_RATE_HZ,
    gain_length: float = 1000.0,
    current_density_ka_per_cm2: float = gain.CURRENT_DENSITY_KA_PER_CM2,
) -> XgmResult:
    """Cross-gain ripple on the CW channels of a chain of SOAs, one channel carrying NRZ data.

    Args:
        channel_power_dbm: power per channel at the first SOA's input port (dBm), one run each.
        stages: SOAs in the chain (1–128; S2-09: between the 128 cores).
        carrier_lifetimes_ps: unsaturated differential carrier lifetimes to run (ps, 10–5000); None: the
            ``soa_lifetime_ps`` assumption's low and high ends around the model's own value.
        stage_loss_db: passive loss from an SOA's output to the next SOA's input (dB; S2-09's stage loss).
        n_symbols: NRZ symbols simulated (32–4096).
        n_channels: WDM channels (2–128) on the 100 GHz grid around 1.55 µm.
        modulated_channel: index of the (first) modulated channel; None: the middle one.
        n_modulated: channels carrying data (1 … n_channels), from ``modulated_channel`` on, each its own
            shift of the PRBS; the ripple is taken over the CW channels, or over all when all carry data.
        symbol_rate_hz: symbol rate (Hz, 0.1–100 GBd).
        gain_length: SOA gain length (µm).
        current_density_ka_per_cm2: SOA bias (kA/cm²).
    """
    if isinstance(stages, bool) or not isinstance(stages, (int, np.integer)) or not 1 <= stages <= 128:
        raise ValueError(f"stages = {stages!r} is outside the valid range [1, 128] (an integer)")
    if not isinstance(n_symbols, (int, np.integer)) or not 32 <= n_symbols <= 4096:
        raise ValueError(f"n_symbols = {n_symbols!r} is outside the valid range [32, 4096] (an integer)")
    if not isinstance(n_channels, (int, np.integer)) or not 2 <= n_channels <= 128:
        raise ValueError(f"n_channels = {n_channels!r} is outside the valid range [2, 128] (an integer)")
    mod = n_channels // 2 if modulated_channel is None else modulated_channel
    if not isinstance(mod, (int, np.integer)) or not 0 <= mod < n_channels:
        raise ValueError(f"modulated_channel = {mod!r} is outside the valid range [0, {n_channels - 1}]")
    if not isinstance(n_modulated, (int, np.integer)) or not 1 <= n_modulated <= n_channels:
        raise ValueError(f"n_modulated = {n_modulated!r} is outside the valid range [1, {n_channels}] (an integer)")
    powers = np.atleast_1d(np.asarray(channel_power_dbm, dtype=float))
    check_range("channel_power_dbm", powers, -40.0, 20.0, unit="dBm")
    check_range("symbol_rate_hz", symbol_rate_hz, 1e8, 1e11, unit="Hz")
    nominal_ps = float(gain.operating_point(gain_length, current_density_ka_per_cm2)["differential_lifetime_ps"])
    if carrier_lifetimes_ps is None:
        from prismpic.analysis.ledger.assumptions import assumption

        a = assumption("soa_lifetime_ps")
        carrier_lifetimes_ps = (a.lo, nominal_ps, a.hi)
    taus = np.atleast_1d(np.asarray(carrier_lifetimes_ps, dtype=float))
    check_range("carrier_lifetimes_ps", taus, 10.0, 5000.0, unit="ps")
    scales = nominal_ps / taus
    gain.check_bias(current_density_ka_per_cm2, scales)
    check_range("stage_loss_db", stage_loss_db, 0.0, 60.0, unit="dB")
    wl = channel_wavelengths(n_channels)
    dist = np.abs(wl - gain.GAIN_PEAK_UM)
    dist[mod] = np.inf
    probe = int(np.argmin(dist))  # the CW channel nearest the gain peak
    data = (mod + np.arange(n_modulated)) % n_channels
    cw = ~np.isin(np.arange(n_channels), data)
    mask = jnp.asarray(cw if cw.any() else ~cw)  # the CW channels, or every channel when all carry data
    shape = (taus.size, powers.size, stages)
    rms, pp, out_dbm, g_db = (np.empty(shape) for _ in range(4))
    for i, s in enumerate(scales):
        prm = sd.chain_params(wl, gain_length=gain_length, current_density_ka_per_cm2=current_density_ka_per_cm2,
                              stage_loss_db=stage_loss_db, lifetime_scale=float(s))
        for k, pdbm in enumerate(powers):
            t, p = modulated_input(1e-3 * 10 ** (pdbm / 10), n_symbols, mod, n_channels, symbol_rate_hz, n_modulated)
            r, q, mean = _ripple(t, p, prm, mask, SKIP_SYMBOLS * SAMPLES_PER_SYMBOL, int(stages))
            if not np.all(np.isfinite(np.asarray(mean))):
                raise ValueError(f"the carrier rate equations of the {stages}-stage chain did not converge at "
                                 f"{pdbm:g} dBm per channel and carrier lifetime {taus[i]:g} ps (step budget spent): "
                                 "shorten the chain or raise the carrier lifetime")
            rms[i, k], pp[i, k] = np.asarray(r), np.asarray(q)
            mean = np.asarray(mean)[:, probe]
            out_dbm[i, k] = 10 * np.log10(mean / 1e-3)
            p_stage_in = np.concatenate([[p[:, probe].mean()], mean[:-1] * 10 ** (-stage_loss_db / 10)])
            g_db[i, k] = 10 * np.log10(mean / p_stage_in)
    return XgmResult(carrier_lifetime_ps=taus, channel_power_dbm=powers, stages=np.arange(1, stages + 1),
                     ripple_rms=rms, ripple_pp=pp, output_power_dbm=out_dbm, gain_db=g_db,
                     symbol_rate_hz=float(symbol_rate_hz), n_channels=int(n_channels), modulated_channel=int(mod),
                     n_modulated=int(n_modulated),
                     stage_loss_db=float(stage_loss_db))
