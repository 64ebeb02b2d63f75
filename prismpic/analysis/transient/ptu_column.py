"""One PTU column in time (S2-04's 5 GHz): ``rows`` EAM-modulated inputs, the phase-change weights, the column's
photodiodes summing on one wire (``circuits.ptu``: per-crossing detection) and the TIA; the eye of the analog sum.

Blocks, each from its device model:

- DAC: codes x ∈ [0, 1] (``devices.quantize``), a first-order rise (default ``devices.DAC_RISE_SYMBOLS`` symbols).
- EAM (``components.eam``): the drive voltage passes the EAM's RC (``eam_bandwidth_ghz``, lumped), then its power
  transmission T(V) (``eam_absorption_db``, Franz–Keldysh) acts instantaneously. The drive is pre-distorted so that
  T is linear in the code between T(0 V) and T(``swing_v``) (the inverse of T on a fine voltage grid).
- Weights: the crossings' power transmissions (PCM, broadband, static during a symbol stream), w_r ∈ [0, 1].
- Column: I(t) = R P_in Σ_r w_r T_r(t) through the column node's bandwidth, ``rows`` photodiodes in parallel
  on one wire into the load (``detectors.detector_bandwidth_ghz(n_diodes=rows)``), then the TIA (first-order,
  ``devices.TIA_BANDWIDTH_PER_BAUD`` × the symbol rate).

No noise: the eye measures inter-symbol interference only (``waveform_metrics.eye_opening``: worst error at the
best sampling instant over the full-scale span of the column's static sums).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.analysis.transient import devices, simulate, waveform_metrics
from prismpic.analysis.transient import statespace as ss
from prismpic.checks import check_range

EAM_SWING_V = 2.0  # † reverse-bias swing of a 5 GHz EAM driver (typical 1–3 V)
S2_04_RATE_HZ = 5e9  # seed S2-04: 5 GHz modulation
S2_ROWS = 128  # seed S2-02: 128 × 128 crossbars


@dataclasses.dataclass(frozen=True)
class ColumnEye:
    """Eye of one PTU column's analog sum at a symbol rate, and the bandwidths that set it (GHz)."""

    symbol_rate_hz: float
    rows: int
    eye_opening: float
    sampling_delay_ps: float
    dac_bandwidth_ghz: float
    eam_bandwidth_ghz: float
    column_bandwidth_ghz: float
    tia_bandwidth_ghz: float
    static_blocks: tuple[str, ...]


def check_options(rows=S2_ROWS, swing_v=EAM_SWING_V, tia_bandwidth_ghz=None, dac_rise_ps=None, **_) -> None:
    """ValueError naming the first out-of-range option of ``column_waveforms`` (before any simulation)."""
    from prismpic.components import eam

    if isinstance(rows, bool) or not isinstance(rows, int | np.integer) or not 1 <= rows <= 4096:
        raise ValueError(f"rows = {rows!r} is outside the valid range: an integer in [1, 4096]")
    check_range("swing_v", swing_v, 0.0, eam.EAM_MAX_REVERSE_BIAS_V, unit="V", lo_open=True)
    if tia_bandwidth_ghz is not None:
        check_range("tia_bandwidth_ghz", tia_bandwidth_ghz, 0.0, 1e4, unit="GHz", lo_open=True)
    if dac_rise_ps is not None:
        check_range("dac_rise_ps", dac_rise_ps, 0.0, 1e6, unit="ps", lo_open=True)


def eam_inverse(swing_v: float = EAM_SWING_V, wl: float = 1.55, n: int = 257) -> tuple[np.ndarray, np.ndarray]:
    """(relative transmission grid (n,) increasing from 0 to 1, drive voltage (n,) V): the EAM's power transmission
    T(V) = 10^(−A(V)/10) (``eam.eam_absorption_db`` at the cell's defaults) on [0, ``swing_v``], normalised as
    (T(V) − T(swing))/(T(0) − T(swing)); ValueError unless it falls monotonically (no swing, or above the gap)."""
    from prismpic.components import eam

    check_range("swing_v", swing_v, 0.0, eam.EAM_MAX_REVERSE_BIAS_V, unit="V", lo_open=True)
    volts = np.linspace(0.0, swing_v, n)
    t = 10 ** (-np.asarray(eam.eam_absorption_db(volts, wl=wl)) / 10)
    rel = (t - t[-1]) / (t[0] - t[-1])
    if not np.all(np.diff(rel) < 0):
        raise ValueError(f"swing_v = {swing_v:g} V: the EAM's transmission does not fall monotonically over "
                         f"[0, {swing_v:g}] V at {wl:g} µm")
    return rel[::-1].copy(), volts[::-1].copy()


def column_eye(symbol_rate_hz: float = S2_04_RATE_HZ, rows: int = S2_ROWS, n_symbols: int = 512,
               samples_per_symbol: int = 32, seed: int = 0, swing_v: float = EAM_SWING_V,
               tia_bandwidth_ghz: float | None = None, dac_rise_ps: float | None = None) -> ColumnEye:
    """Eye opening of one PTU column at ``symbol_rate_hz`` (``column_waveforms``' first result)."""
    return column_waveforms(symbol_rate_hz, rows, n_symbols, samples_per_symbol, seed, swing_v, tia_bandwidth_ghz,
                            dac_rise_ps)[0]


def column_waveforms(symbol_rate_hz: float = S2_04_RATE_HZ, rows: int = S2_ROWS, n_symbols: int = 512,
                     samples_per_symbol: int = 32, seed: int = 0, swing_v: float = EAM_SWING_V,
                     tia_bandwidth_ghz: float | None = None, dac_rise_ps: float | None = None,
                     inputs=None) -> tuple[ColumnEye, np.ndarray, np.ndarray]:
    """(eye, column output (T,), its static value per symbol (N,)) of one PTU column at ``symbol_rate_hz``: random
    inputs (6-bit codes) on ``rows`` rows, random weights in [0, 1]; both waveforms in units of one row's full
    transmission (multiply by the responsivity and the row power for amperes). The rows are simulated once per
    record (cached); another TIA reads the same column sum.

    Args:
        symbol_rate_hz: input symbol rate (Hz).
        rows: rows summed on the column (photodiodes on its wire).
        n_symbols, samples_per_symbol: the record (symbols; samples per symbol: the eye's best sampling instant is
            found on this grid, so a coarse grid under-reads the opening; 32 is within 0.003 of 128 at 5 GBd).
        seed: random inputs and weights.
        swing_v: EAM drive swing (V reverse bias).
        tia_bandwidth_ghz: TIA 3-dB bandwidth (GHz); None: ``devices.TIA_BANDWIDTH_PER_BAUD`` × the rate.
        dac_rise_ps: DAC 10–90 % rise (ps); None: ``devices.DAC_RISE_SYMBOLS`` symbols.
        inputs: the rows' values (rows, n_symbols) in [0, 1] instead of random ones (the weights stay random).
    """
    from prismpic.components import detectors

    dt = simulate.check_run(symbol_rate_hz, n_symbols, samples_per_symbol, "symbol_rate_hz", "n_symbols")
    check_options(rows, swing_v, tia_bandwidth_ghz, dac_rise_ps)
    tia_bw = devices.TIA_BANDWIDTH_PER_BAUD * symbol_rate_hz * 1e-9 if tia_bandwidth_ghz is None else tia_bandwidth_ghz
    rise = devices.DAC_RISE_SYMBOLS * 1e12 / symbol_rate_hz if dac_rise_ps is None else dac_rise_ps
    rows = int(rows)
    key = (float(symbol_rate_hz), rows, int(n_symbols), int(samples_per_symbol), int(seed), float(swing_v), float(rise))
    if inputs is None:
        summed, target, dac_bw, eam_bw = _random_row_sum(*key)
    else:
        x = np.asarray(inputs, dtype=float)
        if x.shape != (rows, int(n_symbols)):
            raise ValueError(f"inputs has shape {x.shape}; ({rows}, {n_symbols}) = (rows, n_symbols) is needed")
        summed, target, dac_bw, eam_bw = _row_sum(x, int(samples_per_symbol), int(seed), float(swing_v),
                                                  float(rise), symbol_rate_hz=float(symbol_rate_hz))
    col_bw = float(detectors.detector_bandwidth_ghz(n_diodes=rows))
    y = np.asarray(_readout(summed, col_bw, float(tia_bw), dt))
    eye, delay = waveform_metrics.eye_opening(y, target, samples_per_symbol)
    blocks = {"dac": dac_bw, "eam": eam_bw, "column": col_bw, "tia": tia_bw}
    static = tuple(k for k, bw in blocks.items() if not devices.dynamic(bw, dt))
    eye_result = ColumnEye(float(symbol_rate_hz), rows, eye, delay * dt, dac_bw, eam_bw, col_bw, float(tia_bw), static)
    return eye_result, y, np.asarray(target)


@functools.lru_cache(maxsize=8)
def _random_row_sum(symbol_rate_hz, rows, n_symbols, sps, seed, swing_v, dac_rise_ps):
    """``_row_sum`` of random 6-bit inputs (cached: another TIA reads the same record)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 1.0, (rows, n_symbols))
    return _row_sum(x, sps, seed, swing_v, dac_rise_ps, symbol_rate_hz=symbol_rate_hz, rng=rng)


def _row_sum(x, sps, seed, swing_v, dac_rise_ps, *, symbol_rate_hz, rng=None):
    """(Σ_r w_r T_r(t) (T,), its static value per symbol (N,), DAC and EAM bandwidths (GHz)) of inputs x (rows, N)
    (6-bit DAC codes), random weights in [0, 1] (from ``rng``, else drawn with ``seed``)."""
    from prismpic.components import eam

    dt = 1e12 / symbol_rate_hz / sps
    rel, volts = eam_inverse(swing_v)
    dac_bw = simulate.dac_bandwidth_ghz(dac_rise_ps)
    eam_bw = float(eam.eam_bandwidth_ghz())
    rng = np.random.default_rng(seed) if rng is None else rng
    x = np.asarray(devices.quantize(x, 6))
    w = rng.uniform(0.0, 1.0, x.shape[0])

    @jax.jit
    def rows_summed(x):
        v = jnp.repeat(jnp.interp(x, rel, volts), sps, axis=-1)  # pre-distorted drive
        v = ss.filter_real(ss.filter_real(v, dac_bw, dt), eam_bw, dt)  # a pole above Nyquist passes (exact FOH)
        return w @ jnp.interp(v, volts[::-1], rel[::-1])  # the EAM's normalised transmission at the drive

    return np.asarray(rows_summed(x)), w @ x, dac_bw, eam_bw


@jax.jit
def _readout(summed, column_bandwidth_ghz, tia_bandwidth_ghz, dt_ps):
    """The column sum through the column node's and the TIA's first-order responses."""
    return ss.filter_real(ss.filter_real(summed, column_bandwidth_ghz, dt_ps), tia_bandwidth_ghz, dt_ps)
