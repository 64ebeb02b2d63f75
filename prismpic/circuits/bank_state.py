"""A PRISM bank's prepared optical state and the per-call kernel: fields and balanced currents.

A bank's response splits into what depends only on wavelength and geometry — coupler fields, round-trip
loss, the round-trip phase at 0 V and its slopes per volt and per kelvin, buses, spacers, readout paths —
and what depends on the ring voltages and temperatures. ``bank_model.prepare_bank`` computes the first
once into a ``BankState`` (a pytree: keep it, pass it to ``jax.jit``-ed functions as an argument); the
functions here take it with voltages and cost one star product per (channel, ring, wavelength)::

    state = bank_model.prepare_bank(wl, radii)               # once per wavelength grid and geometry
    i = bank_state.balanced_currents_a(state, powers_w, v)   # per call: (N,) A

The cascade (``bank_model``'s module docstring) is a Redheffer star product of 2-ports (r, t, t', r').
Ring j, with s = e^{iθ_j/2} (θ_j its round-trip phase), z = a s², couplers (t1, κ1), (t2, κ2) with
excess-loss factors η1, η2 and its bus b, has (Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), eqs. 3–4)
r = r' = −bκ1κ2√a s/Δ, t = b(t1 − η1²t2 z)/Δ, t' = b(t2 − η2²t1 z)/Δ, Δ = 1 − t1t2 z, and
t t' − r r' = b²(t1t2 − η1²η2² z)/Δ (expand: t1²t2² + η1²η2² collects the cross terms). The spacer
before ring j (through-bus field t_s, drop-bus field d_s) is folded into the ring's coefficients. Starring
the cascade (R, T, T', R') with ring j then needs a single division:
N = 1 − t1t2a s² − α s R', α = t_s d_s β, β = −bκ1κ2√a, and

    R ← R + α s T' T / N,   T ← T (p + q s²)/N,   T' ← T' (u + w s²)/N,   R' ← (β s + R'(σ + τ s²))/N,

p = t_s b t1, q = −t_s b η1²t2 a, u = d_s b t2, w = −d_s b η2²t1 a, σ = t_s d_s b² t1t2, τ = −t_s d_s b² η1²η2² a.
The balanced currents' gradient is a hand-written reverse sweep of these four lines (``jax.custom_vjp``):
it keeps (T, T', R', s) per ring instead of every intermediate. Wavelengths are processed in blocks of at
most ``BLOCK_ELEMENTS`` channel-ring-wavelengths (``jax.lax.map``, each block rematerialised under a
gradient), so memory stays bounded however many wavelengths are asked for.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

from prismpic.checks import check_range, concrete
from prismpic.components.detector_figures import RESPONSIVITY_A_PER_W
from prismpic.pdk.rules import RULES

BLOCK_ELEMENTS = 2**25  # channel·ring·wavelengths per block: the currents' gradient keeps 64 B of each (2 GiB)
PREPARE_BLOCK_ELEMENTS = 2**14  # ring·wavelengths per block of ``prepare_bank``: its physics needs ≈ 90 kB of each
DELTA_T_RANGE_K = (-150.0, 300.0)  # the ring model's temperature range (``ring_checks.check_ring_physics``)


class RingCoefficients(NamedTuple):
    """Voltage-independent coefficients of every ring of a bank, shape (d, W) or (d, N, W) (per-channel radii).

    Attributes:
        phase0: half the round-trip phase at 0 V and ΔT = 0, θ0/2 (rad).
        phase_per_v: its slope in voltage, ∂(θ/2)/∂V (rad/V; exact: the phase is linear in V).
        phase_per_k: its slope in temperature, ∂(θ/2)/∂T (rad/K).
        loop: t1 t2 a, the round trip's field factor through both couplers (real, 1).
        drop_in: α, the drop numerator with the spacers before the ring (complex, 1).
        drop_back: β, the add→through (r') numerator (complex, 1).
        thr0, thr1: p, q of the through numerator p + q s² (complex, 1).
        add0, add1: u, w of the add→drop numerator u + w s² (complex, 1).
        det0, det1: σ, τ of t t' − r r' = (σ + τ s²)/Δ (complex, 1).
    """

    phase0: jax.Array
    phase_per_v: jax.Array
    phase_per_k: jax.Array
    loop: jax.Array
    drop_in: jax.Array
    drop_back: jax.Array
    thr0: jax.Array
    thr1: jax.Array
    add0: jax.Array
    add1: jax.Array
    det0: jax.Array
    det1: jax.Array


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class BankState:
    """A bank's optical state at a wavelength grid (``bank_model.prepare_bank``); a pytree.

    Attributes:
        wl: wavelengths (µm), (W,).
        rings: the rings' coefficients (``RingCoefficients``), (d, W) each, or (d, N, W) for per-channel radii.
        readout_thr: field transmission from the through bus's end to its detector, (W,) (1: none).
        readout_drop: field transmission from the drop bus's end to its detector, (W,) (1: none).
        wl_block: wavelengths per block of the kernel (static); None: as many as ``BLOCK_ELEMENTS`` allows.
    """

    wl: jax.Array
    rings: RingCoefficients
    readout_thr: jax.Array
    readout_drop: jax.Array
    wl_block: int | None = dataclasses.field(default=None, metadata=dict(static=True))

    @property
    def d(self) -> int:
        """Rings per channel."""
        return self.rings.phase0.shape[0]

    @property
    def n_channels(self) -> int | None:
        """Channels the state is specific to (per-channel radii), or None when shared by any number."""
        return self.rings.phase0.shape[1] if self.rings.phase0.ndim == 3 else None


def state_from_columns(wl, cols: dict, spacers, readout=None, wl_block: int | None = None) -> BankState:
    """The ``BankState`` of rings given their columns (``bank_model.ring_columns``) and spacers.

    Args:
        wl: wavelengths (µm), (W,).
        cols: t1, k1, t2, k2 (coupler fields), a (round-trip amplitude), theta0 (rad), theta_v (rad/V),
            theta_t (rad/K), bus (field), each (d, W) or (N, d, W).
        spacers: (through, drop) bus fields between adjacent rings, (…, W) and (…, d − 1, W).
        readout: None, or (t_thr, t_drop), field transmissions (scalar or (W,)) from the through and drop
            ends of the channel to the detectors.
        wl_block: wavelengths per kernel block; None: automatic.
    """
    wl = jnp.asarray(wl, dtype=float)
    through, drop = spacers
    t1, k1, t2, k2, a, b = (cols[k] for k in ("t1", "k1", "t2", "k2", "a", "bus"))
    one = jnp.ones_like(b[..., :1, :])
    ts = jnp.concatenate([one, jnp.broadcast_to(through[..., None, :], b[..., 1:, :].shape)], axis=-2)
    ds = jnp.concatenate([one, jnp.broadcast_to(drop, b[..., 1:, :].shape)], axis=-2)
    eta1, eta2 = t1**2 + k1**2, t2**2 + k2**2
    beta = -b * k1 * k2 * jnp.sqrt(a)
    b2 = ts * ds * b * b
    raw = (0.5 * cols["theta0"], 0.5 * cols["theta_v"], 0.5 * cols["theta_t"], t1 * t2 * a, ts * ds * beta, beta,
           ts * b * t1, -ts * b * eta1 * t2 * a, ds * b * t2, -ds * b * eta2 * t1 * a, b2 * t1 * t2,
           -b2 * eta1 * eta2 * a)
    rings = RingCoefficients(*(jnp.moveaxis(x, -2, 0) for x in raw))  # ring axis first: the scan runs over it
    r_thr, r_drop = (1.0, 1.0) if readout is None else readout
    return BankState(wl, rings, jnp.broadcast_to(jnp.asarray(r_thr, dtype=complex), wl.shape),
                     jnp.broadcast_to(jnp.asarray(r_drop, dtype=complex), wl.shape), wl_block)


# ---------------------------------------------------------------------------- the kernel
def _ring_step(carry, k: RingCoefficients, v, t):
    """The cascade ``carry`` (R, T, T', R') starred with one ring; also returns its s = e^{iθ/2}."""
    big_r, big_t, big_tp, big_rp = carry
    phase = k.phase0 + v[:, None] * k.phase_per_v
    if t is not None:
        phase = phase + t[:, None] * k.phase_per_k
    s = jnp.exp(1j * phase)
    e = s * s
    als = k.drop_in * s
    inv = 1.0 / (1.0 - k.loop * e - als * big_rp)
    return (big_r + als * big_tp * big_t * inv, big_t * (k.thr0 + k.thr1 * e) * inv,
            big_tp * (k.add0 + k.add1 * e) * inv, (k.drop_back * s + big_rp * (k.det0 + k.det1 * e)) * inv), s


def _start(n, n_wl):
    one = jnp.ones((n, n_wl), dtype=complex)
    zero = jnp.zeros((n, n_wl), dtype=complex)
    return zero, one, one, zero


def _xs(rings, v, t):
    return rings, v.T, None if t is None else t.T


def _cascade(rings: RingCoefficients, v, t):
    """(R, T), each (N, W): the channel's drop-end and through-end fields, voltages v (N, d), ΔT t (N, d)."""
    def body(c, x):
        return _ring_step(c, *x)[0], None

    (big_r, big_t, _, _), _ = jax.lax.scan(body, _start(v.shape[0], rings.phase0.shape[-1]), _xs(rings, v, t))
    return big_r, big_t


def _power(x):
    return x.real**2 + x.imag**2


@jax.custom_vjp
def _currents(rings: RingCoefficients, v, t, w_drop, w_thr):
    """Σ_λ (w_drop |R|² − w_thr |T|²), (N,); weights (W,) or (N, W)."""
    big_r, big_t = _cascade(rings, v, t)
    return jnp.sum(w_drop * _power(big_r) - w_thr * _power(big_t), axis=-1)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class _Wanted:
    """Which inputs of ``_currents`` a gradient asks for (static)."""

    rings: tuple = dataclasses.field(metadata=dict(static=True))
    v: bool = dataclasses.field(metadata=dict(static=True))
    t: bool = dataclasses.field(metadata=dict(static=True))


def _currents_fwd(rings, v, t, w_drop, w_thr):
    want = _Wanted(tuple(x.perturbed for x in rings), v.perturbed, t is not None and t.perturbed)
    rings = RingCoefficients(*(x.value for x in rings))
    v, w_drop, w_thr = v.value, w_drop.value, w_thr.value
    t = None if t is None else t.value

    def body(c, x):
        new, s = _ring_step(c, *x)
        return new, (c[1], c[2], c[3], s)

    (big_r, big_t, _, _), res = jax.lax.scan(body, _start(v.shape[0], rings.phase0.shape[-1]), _xs(rings, v, t))
    out = jnp.sum(w_drop * _power(big_r) - w_thr * _power(big_t), axis=-1)
    return out, (rings, v, t, w_drop, w_thr, big_r, big_t, res, want)


def _like(ct, x):
    """A cotangent (N, W) reduced to the shape of the coefficient slice ``x`` ((W,) or (N, W)), real if x is."""
    ct = ct.sum(axis=0) if ct.ndim > x.ndim else ct
    return 2 * ct if jnp.iscomplexobj(x) else 2 * ct.real


def _currents_bwd(resid, g):
    rings, v, t, w_drop, w_thr, big_r, big_t, res, want = resid
    if isinstance(g, SymbolicZero):
        return RingCoefficients(*(None for _ in rings)), None, None, None, None
    gw = g[:, None]
    zero = jnp.zeros_like(big_r)
    # holomorphic adjoints a: d(Σ g·I) = 2 Re Σ a·dx over the complex quantities x
    adj0 = (gw * w_drop * jnp.conj(big_r), -gw * w_thr * jnp.conj(big_t), zero, zero)

    def body(adj, x):
        k, vj, tj, (big_t, big_tp, big_rp, s) = x
        a_r, a_t, a_tp, a_rp = adj
        e = s * s
        als = k.drop_in * s
        inv = 1.0 / (1.0 - k.loop * e - als * big_rp)
        q_r, q_t, q_tp, q_rp = a_r * inv, a_t * inv, a_tp * inv, a_rp * inv
        tpt = big_tp * big_t
        p_t, u_t, d_t = k.thr0 + k.thr1 * e, k.add0 + k.add1 * e, k.det0 + k.det1 * e
        a_n = -(q_r * als * tpt + q_t * big_t * p_t + q_tp * big_tp * u_t + q_rp * (k.drop_back * s + big_rp * d_t)) * inv
        a_s = (q_r * k.drop_in * tpt + 2 * s * (q_t * big_t * k.thr1 + q_tp * big_tp * k.add1 + q_rp * big_rp * k.det1)
               + q_rp * k.drop_back - a_n * (2 * k.loop * s + k.drop_in * big_rp))
        ct_phase = -2 * jnp.imag(a_s * s)  # ds = i s dφ
        new = (a_r, q_r * als * big_tp + q_t * p_t, q_r * als * big_t + q_tp * u_t, q_rp * d_t - a_n * als)
        holo = dict(loop=lambda: -a_n * e, drop_in=lambda: s * (q_r * tpt - a_n * big_rp), drop_back=lambda: q_rp * s,
                    thr0=lambda: q_t * big_t, thr1=lambda: q_t * big_t * e, add0=lambda: q_tp * big_tp,
                    add1=lambda: q_tp * big_tp * e, det0=lambda: q_rp * big_rp, det1=lambda: q_rp * big_rp * e)
        real = dict(phase0=lambda: ct_phase, phase_per_v=lambda: ct_phase * vj[:, None],
                    phase_per_k=lambda: ct_phase * (0.0 if tj is None else tj[:, None]))

        def ct(name):
            x = getattr(k, name)
            if name in real:
                c = jnp.broadcast_to(real[name](), ct_phase.shape)
                return c.sum(axis=0) if c.ndim > x.ndim else c
            return _like(holo[name](), x)

        cts = tuple(ct(n) if w else None for n, w in zip(RingCoefficients._fields, want.rings, strict=True))
        ct_v = jnp.sum(ct_phase * k.phase_per_v, axis=-1) if want.v else None
        ct_t = jnp.sum(ct_phase * k.phase_per_k, axis=-1) if want.t else None
        return new, (cts, ct_v, ct_t)

    _, (cts, ct_v, ct_t) = jax.lax.scan(body, adj0, (rings, v.T, None if t is None else t.T, res), reverse=True)

    def weight_ct(ct, w):
        return ct.sum(axis=0) if w.ndim < ct.ndim else ct

    return (RingCoefficients(*cts), None if ct_v is None else ct_v.T, None if ct_t is None else ct_t.T,
            weight_ct(gw * _power(big_r), w_drop), weight_ct(-gw * _power(big_t), w_thr))


_currents.defvjp(_currents_fwd, _currents_bwd, symbolic_zeros=True)


# ---------------------------------------------------------------------------- blocks of wavelengths
def block_plan(n_wl: int, per_wl: int, wl_block: int | None = None,
               budget: int = BLOCK_ELEMENTS) -> tuple[int, int]:
    """(blocks, wavelengths per block) for ``n_wl`` wavelengths of ``per_wl`` elements (channel-rings) each.

    Args:
        n_wl: wavelengths.
        per_wl: elements per wavelength (channels × rings per channel).
        wl_block: wavelengths per block; None: the most that keep a block within ``budget`` elements.
        budget: elements per block when ``wl_block`` is None.
    """
    cap = max(1, budget // max(1, per_wl)) if wl_block is None else wl_block
    n_blocks = -(-n_wl // min(cap, n_wl))
    return n_blocks, -(-n_wl // n_blocks)


def blocked(x, n_blocks: int, size: int, fill=None):
    """``x`` (…, W) as wavelength blocks (n_blocks, …, size); the padding repeats the last wavelength, or is ``fill``."""
    pad = n_blocks * size - x.shape[-1]
    if pad:
        tail = x[..., -1:] if fill is None else jnp.full(x.shape[:-1] + (1,), fill, dtype=x.dtype)
        x = jnp.concatenate([x, jnp.broadcast_to(tail, x.shape[:-1] + (pad,))], axis=-1)
    return jnp.moveaxis(x.reshape(x.shape[:-1] + (n_blocks, size)), -2, 0)


def unblocked(x, n_wl: int):
    """Wavelength blocks ``x`` (n_blocks, …, size) joined back into (…, n_wl)."""
    x = jnp.moveaxis(x, 0, -2)
    return x.reshape(x.shape[:-2] + (-1,))[..., :n_wl]


@jax.jit
def _fields(state: BankState, v, t):
    n_wl = state.wl.shape[-1]
    n_blocks, size = block_plan(n_wl, v.shape[0] * state.d, state.wl_block)
    if n_blocks == 1:
        big_r, big_t = _cascade(state.rings, v, t)
    else:
        blocks = jax.tree.map(lambda x: blocked(x, n_blocks, size), state.rings)
        big_r, big_t = jax.lax.map(jax.checkpoint(lambda k: _cascade(k, v, t)), blocks)
        big_r, big_t = unblocked(big_r, n_wl), unblocked(big_t, n_wl)
    return big_r * state.readout_drop, big_t * state.readout_thr


@jax.jit
def _block_currents(state: BankState, powers, v, t):
    w_drop = powers * _power(state.readout_drop)
    w_thr = powers * _power(state.readout_thr)
    n_blocks, size = block_plan(state.wl.shape[-1], v.shape[0] * state.d, state.wl_block)
    if n_blocks == 1:
        return _currents(state.rings, v, t, w_drop, w_thr)
    xs = (jax.tree.map(lambda x: blocked(x, n_blocks, size), state.rings), blocked(w_drop, n_blocks, size, 0.0),
          blocked(w_thr, n_blocks, size, 0.0))
    return jnp.sum(jax.lax.map(jax.checkpoint(lambda x: _currents(x[0], v, t, x[1], x[2])), xs), axis=0)


# ---------------------------------------------------------------------------- per call
def checked_inputs(state: BankState, voltages, delta_t_k=None):
    """(voltages (N, d) V, ΔT (N, d) K or None) as arrays; ValueError naming the input when one is invalid.

    Concrete values out of range raise; traced ones become NaN there (``prismpic.checks``). A concrete
    ΔT of 0 everywhere is None, and the kernel skips the temperature term.
    """
    v = jnp.asarray(voltages, dtype=float)
    n = state.n_channels
    if v.ndim != 2 or v.shape[1] != state.d or (n is not None and v.shape[0] != n):
        raise ValueError(f"voltages has shape {v.shape}; expected (n_channels, d) with d = {state.d}"
                         + ("" if n is None else f" and n_channels = {n} (the state's per-channel radii)"))
    vmax = RULES.max_electrode_voltage_v
    v = check_range("voltages", v, -vmax, vmax, unit="V")
    if delta_t_k is None:
        return v, None
    t = jnp.asarray(delta_t_k, dtype=float)
    try:
        t = jnp.broadcast_to(t, v.shape)
    except ValueError:
        raise ValueError(f"delta_t_k has shape {t.shape}; expected a scalar or a shape that broadcasts to the "
                         f"voltages' {v.shape}") from None
    t = check_range("delta_t_k", t, *DELTA_T_RANGE_K, unit="K")
    c = concrete(t)
    return v, (None if c is not None and not c.any() else t)


def bank_fields(state: BankState, voltages, delta_t_k=None):
    """(E_drop, E_thr), each (N, W): the detectors' fields per unit input field of N channels.

    Args:
        state: the bank's optical state (``bank_model.prepare_bank``); with a readout, the fields at its
            detectors, else at the channel's drop end (left) and through end (right).
        voltages: ring voltages (V), (N, d).
        delta_t_k: temperature changes (K), broadcast to (N, d); None: 0.
    """
    v, t = checked_inputs(state, voltages, delta_t_k)
    return _fields(state, v, t)


def balanced_weights(state: BankState, voltages, delta_t_k=None):
    """Signed raw weights |E_drop|² − |E_thr|², (N, W): the balanced detector's transfer per wavelength.

    Args:
        state: the bank's optical state (``bank_model.prepare_bank``).
        voltages: ring voltages (V), (N, d).
        delta_t_k: temperature changes (K), broadcast to (N, d); None: 0.
    """
    e_drop, e_thr = bank_fields(state, voltages, delta_t_k)
    return _power(e_drop) - _power(e_thr)


def balanced_currents_a(state: BankState, powers_w, voltages, delta_t_k=None, responsivity_a_per_w: float = RESPONSIVITY_A_PER_W):
    """Balanced photocurrents (A), (N,): R Σ_λ P_λ (|E_drop|² − |E_thr|²) of N channels.

    Differentiable in reverse mode (``jax.grad``, ``jax.vjp``) in every input, the state included; the
    reverse sweep is hand-written (module docstring) and costs about as much as the forward. Forward mode
    (``jax.jvp``, ``jacfwd``) is not defined for it: differentiate ``balanced_weights`` for that.

    Args:
        state: the bank's optical state (``bank_model.prepare_bank``).
        powers_w: optical power per wavelength at each channel's input (W), (W,) or (N, W).
        voltages: ring voltages (V), (N, d).
        delta_t_k: temperature changes (K), broadcast to (N, d); None: 0.
        responsivity_a_per_w: detector responsivity R (A/W).
    """
    v, t = checked_inputs(state, voltages, delta_t_k)
    p = jnp.asarray(check_range("powers_w", powers_w, 0.0, 10.0, unit="W"), dtype=float)
    n_wl = state.wl.shape[-1]
    if p.ndim not in (1, 2) or p.shape[-1] != n_wl or (p.ndim == 2 and p.shape[0] != v.shape[0]):
        raise ValueError(f"powers_w has shape {p.shape}; expected ({n_wl},) or ({v.shape[0]}, {n_wl}): one power "
                         "per wavelength of the state, for every channel or per channel")
    return responsivity_a_per_w * _block_currents(state, p, v, t)
