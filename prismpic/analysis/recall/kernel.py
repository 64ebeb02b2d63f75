"""The jitted chip-state kernel of the recall Monte Carlo (the model is in ``recall.py``).

One chip state = one draw of every static or slow impairment (ring drift, fabrication
residual, splitter gains) and, for a drawn bank, the bank itself; G consecutive trials
(queries) are read on it, each with its own detector noise. The reading of query g on
channel c is

    y_gc = g_c · [ y0_gc + Σᵢ ΔW_ci x̃_gi / d ] + σ_rel · n_gc,   y0_gc = Σᵢ W_q,ci x̃_gi / d,

with W_q the quantized weights, x̃ = X·DAC(x) the query after DAC and crosstalk, and
ΔW = f(δ + ε) − f(δ) the weight error of ring detuning error ε (f the ring transfer,
δ = f⁻¹(W_q)); ΔW is computed in float32 (it is a perturbation: its float32 rounding is
≈ 10⁻⁷ of itself) and is exactly 0 where ε = 0, so a path compiled in with zero strength
passes values through exactly. Recall needs no sort: the ideal top-k block i is in the
photonic top-k iff its rank #{j: y_j > y_i} + #{j < i: y_j = y_i} is below k (ties to
the lower index, as ``lax.top_k``), k·N comparisons per trial.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from prismpic.analysis.recall import counter_rng as rng
from prismpic.analysis.recall import planted
from prismpic.components.lineshapes import lorentzian

STREAM_RING, STREAM_COMMON, STREAM_GAIN, STREAM_NOISE = 3, 4, 5, 6  # planted uses 0–2


class Static(NamedTuple):
    """What the compilation depends on: sizes, the paths compiled in, the ring transfer."""

    k: int
    n_blocks: int
    d: int
    group: int
    synthetic: bool
    wq: bool
    dac: bool
    drift: bool
    common: bool
    fab: bool
    noise: bool
    gain: bool
    xt: bool
    w_of_d: Callable | None
    d_of_w: Callable | None
    want: str  # "hits", "selected" or "scores"


def quantize(x, bits):
    """Uniform quantizer with 2^bits levels over [-1, 1] (±1 included); x is clipped."""
    steps = 2.0**bits - 1.0
    return jnp.round((jnp.clip(x, -1.0, 1.0) + 1.0) * 0.5 * steps) / steps * 2.0 - 1.0


def lorentzian_weight(detuning_nm, fwhm_nm):
    """Balanced weight w = D − T = 2D − 1 of a lossless symmetric add-drop ring,
    D = 1/(1 + (2δ/FWHM)²) (Lorentzian near resonance)."""
    return 2.0 * lorentzian(detuning_nm, fwhm_nm) - 1.0  # ×2 is exact in floating point


def lorentzian_detuning(w, fwhm_nm, max_detuning_nm):
    """Inverse of ``lorentzian_weight`` on δ ≥ 0: δ = (FWHM/2)·√((1 − w)/(1 + w)),
    capped at ``max_detuning_nm``."""
    w = jnp.clip(w, -1.0, 1.0)
    ratio = (1.0 - w) / jnp.maximum(1.0 + w, 1e-300)
    return jnp.minimum(0.5 * fwhm_nm * jnp.sqrt(ratio), max_detuning_nm)


def ring_paths(st: Static) -> bool:
    return st.drift or st.common or st.fab


def prepare_weights(w, p, st: Static):
    """(W_q, δ in float32) of a bank (N, d): weight quantization and the programmed detuning."""
    wq = jnp.where(p["weight_bits"] > 0, quantize(w, jnp.maximum(p["weight_bits"], 1.0)), w) if st.wq else w
    if not ring_paths(st):
        return wq, jnp.zeros((1, 1), jnp.float32)
    if st.d_of_w is None:
        det = lorentzian_detuning(wq.astype(jnp.float32), p["fwhm"].astype(jnp.float32), p["max_det"].astype(jnp.float32))
    else:
        det = st.d_of_w(wq.astype(jnp.float32))
    return wq, jnp.asarray(det, jnp.float32)


def prepare_queries(x, p, st: Static):
    """x̃ = X·DAC(x) of queries (..., d)."""
    if st.dac:
        x = jnp.where(p["dac_bits"] > 0, quantize(x, jnp.maximum(p["dac_bits"], 1.0)), x)
    if st.xt:
        x = x @ p["xt"].T
    return x


def _ring_error(key64, s, wq, det, p, st: Static):
    """ΔW (N, d) float32 of one state: drift (per ring + common mode) and the fabrication residual."""
    f32 = jnp.float32
    z_ring, z_fab = rng.normal_pair(rng.stream_seed(key64, s, STREAM_RING), wq.shape)
    eps = jnp.zeros(wq.shape, f32)
    if st.drift:
        eps = eps + p["drift"].astype(f32) * z_ring
    if st.common:
        eps = eps + p["common"].astype(f32) * rng.normal(rng.stream_seed(key64, s, STREAM_COMMON), ())
    if st.fab:
        e = p["fab"].astype(f32) * z_fab
        trim = p["trim"].astype(f32)
        eps = eps + (e - jnp.clip(e, -trim, trim))
    if st.w_of_d is None:
        fwhm = p["fwhm"].astype(f32)
        dw = lorentzian_weight(det + eps, fwhm) - lorentzian_weight(det, fwhm)
    else:
        dw = st.w_of_d(det + eps) - st.w_of_d(det)
    return jnp.where(eps == 0, f32(0.0), dw)


def topk_indices(v, k: int):
    """Indices of the k largest entries along the last axis, best first, ties to the lower
    index (as ``lax.top_k``): k masked argmax passes (XLA's CPU top_k on float64 is ~20×
    slower at n = 1024, k = 8)."""
    if k > 32:
        return jax.lax.top_k(v, k)[1]
    pos = jnp.arange(v.shape[-1])
    out = []
    for _ in range(k):
        i = jnp.argmax(v, axis=-1)
        out.append(i)
        v = jnp.where(pos == i[..., None], -jnp.inf, v)
    return jnp.stack(out, axis=-1)


def hits_of(y, ideal_idx, k: int):
    """How many of the ideal top-k indices (…, k) are in the top-k of readings y (…, N)."""
    yi = jnp.take_along_axis(y, ideal_idx, axis=-1)[..., None]  # (…, k, 1)
    pos = jnp.arange(y.shape[-1])
    above = (y[..., None, :] > yi) | ((y[..., None, :] == yi) & (pos < ideal_idx[..., None]))
    return jnp.sum(jnp.sum(above, axis=-1) < k, axis=-1)


def topk_mask(v, k: int):
    """Boolean mask (…, N) of the k largest entries along the last axis, ties to the lower
    index. The k-th largest value t comes from k passes of (max below the last, count
    equal): plain reductions, far cheaper on XLA's CPU than argmax passes or a sort; then
    the entries above t and the first (k − #above) entries equal to t."""
    m = jnp.full(v.shape[:-1], jnp.inf, v.dtype)
    t = jnp.full(v.shape[:-1], -jnp.inf, v.dtype)
    taken = jnp.zeros(v.shape[:-1], jnp.int32)
    for _ in range(k):
        m = jnp.max(jnp.where(v < m[..., None], v, -jnp.inf), axis=-1)
        t = jnp.where(taken < k, m, t)
        taken = taken + jnp.where(taken < k, jnp.sum(v == m[..., None], axis=-1), 0)
    above = v > t[..., None]
    eq = v == t[..., None]
    room = k - jnp.sum(above, axis=-1, keepdims=True)
    return above | (eq & (jnp.cumsum(eq, axis=-1) <= room))


def state_readings(key64, s, wq, det, xt, p, st: Static):
    """Photonic readings (G, N) of queries x̃ (G, d) on bank W_q (N, d) in chip state s."""
    w_eff = wq
    if ring_paths(st):
        w_eff = wq + _ring_error(key64, s, wq, det, p, st).astype(wq.dtype)
    y = xt @ w_eff.T / st.d
    if st.gain:
        g = rng.normal(rng.stream_seed(key64, s, STREAM_GAIN), (st.n_blocks,)).astype(y.dtype)
        y = y * 10 ** (p["gain"] * g / 10)
    if st.noise:
        y = y + p["noise"] * rng.normal(rng.stream_seed(key64, s, STREAM_NOISE), y.shape).astype(y.dtype)
    return y


def _finish(y, ideal_idx, ideal, st: Static):
    if st.want == "hits":
        return hits_of(y, ideal_idx, st.k)
    if st.want == "selected":
        return hits_of(y, ideal_idx, st.k), topk_indices(y, st.k)
    return y, ideal


def bank_state(key64, s, bank, p, st: Static):
    """One state of a given bank: ``bank`` holds W_q, δ (N, d), x̃ (Q, d), the ideal top-k
    (Q, k) and ideal readings (Q, N, only for ``want == 'scores'``); trial t = s·G + g reads
    query t mod Q."""
    q_idx = (s.astype(jnp.int64) * st.group + jnp.arange(st.group)) % bank["xt"].shape[0]
    y = state_readings(key64, s, bank["wq"], bank["det"], bank["xt"][q_idx], p, st)
    ideal = bank["ideal"][q_idx] if st.want == "scores" else None
    return _finish(y, bank["topk"][q_idx], ideal, st)


def drawn_state(key64, s, p, st: Static):
    """One state of a drawn bank (``planted`` family, separation p['separation'])."""
    w, x, _ = planted.planted_state(key64, s, st.n_blocks, st.d, st.k, st.group, p["separation"], p["spread"])
    ideal = x @ w.T / st.d
    wq, det = prepare_weights(w, p, st)
    y = state_readings(key64, s, wq, det, prepare_queries(x, p, st), p, st)
    if st.want == "hits":
        return jnp.sum(topk_mask(ideal, st.k) & topk_mask(y, st.k), axis=-1)
    return _finish(y, topk_indices(ideal, st.k), ideal, st)


def run_states(key64, states, bank, p, st: Static):
    """Every state of ``states`` (vmapped): see ``bank_state`` / ``drawn_state``."""
    if st.synthetic:
        return jax.vmap(lambda s: drawn_state(key64, s, p, st))(states)
    return jax.vmap(lambda s: bank_state(key64, s, bank, p, st))(states)


run_states_jit = jax.jit(run_states, static_argnames=("st",))
