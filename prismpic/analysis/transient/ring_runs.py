"""One ring in the time domain: photon lifetime, steady state against the S-parameter model, settling, eye.

The ring is ``ring_add_drop_model`` / ``ring_all_pass_model`` with the given parameters; the carrier sits on the
resonance nearest 1.55 µm (``rings.ring_specs``). Each figure is simulated (``ring_modes`` + ``statespace``) and
set beside what the frequency-domain model says: the lifetime beside Q_L·λ/(2πc) from ``ring_specs``, the settled
fields beside the S-parameters at 43 wavelengths (±5 linewidths, half an FSR, the next resonance).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from scipy.constants import c as C_M_PER_S

from prismpic import program_cache
from prismpic.analysis.transient import ring_modes, waveform_metrics
from prismpic.analysis.transient import statespace as ss
from prismpic.analysis.transient.devices import DAC_RISE_SYMBOLS
from prismpic.analysis.transient.simulate import check_run, dac_bandwidth_ghz

SETTLE_LIFETIMES = 40.0  # CW records run this many energy lifetimes before their last sample is read
SETTLING_TOL = 0.01  # settling: within 1 % of the final power


@dataclasses.dataclass(frozen=True)
class RingTransient:
    """Results of ``ring_transient`` (times in ps, powers in units of the input power)."""

    kind: str
    resonance_um: float
    q_loaded: float
    photon_lifetime_ps: float
    expected_lifetime_ps: float
    steady_state_error: float
    settling_time_ps: float
    eye_opening: float
    bit_rate_hz: float
    symbols: int
    samples_per_symbol: int
    n_orders: int
    t_ps: np.ndarray
    p_in: np.ndarray
    p_out: np.ndarray
    p_static: np.ndarray
    eye_delay: int
    step_t_ps: np.ndarray
    step_p: np.ndarray

    def summary(self) -> dict:
        """The scalar results (the CLI's transient.json)."""
        keys = ("kind", "resonance_um", "q_loaded", "photon_lifetime_ps", "expected_lifetime_ps",
                "steady_state_error", "settling_time_ps", "eye_opening", "bit_rate_hz", "symbols",
                "samples_per_symbol", "n_orders")
        out = {k: getattr(self, k) for k in keys}
        out["lifetime_relative_error"] = self.photon_lifetime_ps / self.expected_lifetime_ps - 1.0
        out["output_port"] = "drop (o4)" if self.kind == "add_drop" else "through (o2)"
        return out


def _systems(wls, p, kind, n_orders):
    return jax.vmap(lambda w: ring_modes.ring_lti(ring_modes.carrier_coefficients(w, p, kind), n_orders))(wls)


@functools.lru_cache(maxsize=16)
def _systems_program(p, kind: str, n_orders: int):
    return program_cache.reuse(lambda wls: _systems(wls, p, kind, n_orders), pytree_types=(ss.LTI,))


def output_index(kind: str) -> int:
    """The port a ring's eye is read at: drop (o4, index 1) for add-drop, through (o2, index 0) for all-pass."""
    return 1 if kind == "add_drop" else 0


@program_cache.reuse(pytree_types=(ss.Discrete,))
def _last_outputs(disc: ss.Discrete, u):
    """The last output sample (W, p) of each of the discretised systems ``disc`` (W leading) for the inputs u."""
    return jax.vmap(lambda ds: ss.run(ds, u)[-1])(disc)


def steady_state_error(kind: str, p: dict, wls, n_orders: int = 1) -> tuple[float, float]:
    """(error, record_ps): the largest relative difference between the simulated settled outputs (input o1 switched
    on from darkness, read after ``SETTLE_LIFETIMES`` lifetimes) and the S-parameter model, over ``wls`` (µm)."""
    from prismpic.components import rings

    wls = jnp.asarray(wls, dtype=float)
    systems = _systems_program(_frozen(p), kind, n_orders)(wls)
    tau = float(np.max(np.asarray(ring_modes.energy_decay_time_ps(ring_modes.carrier_coefficients(wls[0], p, kind)))))
    dt = tau / 4
    n = int(SETTLE_LIFETIMES * tau / dt)
    u = jnp.zeros((n, 2), dtype=complex).at[:, 0].set(1.0)
    disc = ss.discretize(systems, dt)
    y_last = _last_outputs(disc, u)  # (W, 2)
    args = {k: v for k, v in p.items() if not (kind == "all_pass" and k == "gap_drop")}
    s = rings.ring_sparameters(np.asarray(wls), kind, **args)  # the S-parameter models' physics, compiled
    ref = np.stack([s[("o1", "o2")], s[("o1", "o4")]] if kind == "add_drop" else [s[("o1", "o2")]], axis=-1)
    sim = np.asarray(y_last)[:, :ref.shape[-1]]
    return float(np.max(np.abs(sim - ref) / np.abs(ref))), n * dt


class _frozen(dict):
    """A hashable dict (static jit argument)."""

    def __hash__(self):
        return hash(tuple(sorted((k, v if not isinstance(v, list) else tuple(v)) for k, v in self.items())))


def photon_lifetime_ps(sys: ss.LTI, tau_guess_ps: float) -> tuple[float, np.ndarray, np.ndarray]:
    """(τ, t, energy): the stored energy Σ|x|² of a ring charged by CW at o1, then left alone, and its decay time
    (``waveform_metrics.decay_time``), simulated at τ_guess/20 steps."""
    dt = tau_guess_ps / 20
    x0 = -jnp.linalg.solve(sys.a, sys.b @ jnp.array([1.0, 0.0], dtype=complex))
    n = int(12 * tau_guess_ps / dt)
    xs = ss.run_states(ss.discretize(sys, dt), jnp.zeros((n, 2), dtype=complex), x0)
    energy = np.sum(np.abs(np.asarray(xs)) ** 2, axis=-1)
    t = np.arange(n) * dt
    return waveform_metrics.decay_time(t, energy), t, energy


def ring_transient(kind: str = "add_drop", bit_rate_hz: float = 10e9, symbols: int = 256,
                   samples_per_symbol: int = 8, n_orders: int = 1, seed: int = 0, dac_rise_ps: float | None = None,
                   **params) -> RingTransient:
    """Simulate one ring: lifetime, steady state, settling after a step, and the eye of an NRZ stream.

    Args:
        kind: "add_drop" or "all_pass".
        bit_rate_hz: NRZ bit rate (Hz) of the eye.
        symbols: bits in the eye's record.
        samples_per_symbol: samples per bit.
        n_orders: resonance orders kept (odd).
        seed: seed of the random bits.
        dac_rise_ps: 10–90 % rise (ps) of the drive's edges; default ``DAC_RISE_SYMBOLS`` bits.
        **params: ring model parameters (geometry and physics).
    """
    from prismpic.checks import check_choice
    from prismpic.components import rings

    check_choice("kind", kind, ring_modes.KINDS)
    dt = check_run(bit_rate_hz, symbols, samples_per_symbol)
    if not isinstance(n_orders, int) or n_orders < 1 or n_orders % 2 == 0 or n_orders > 9:
        raise ValueError(f"n_orders = {n_orders!r} is outside the valid range: an odd integer in [1, 9]")
    p = ring_modes.ring_parameters(kind, params)
    spec = rings.ring_specs(1.55, kind, **params)
    lam = spec["resonance_um"]
    co = ring_modes.carrier_coefficients(lam, p, kind)
    sys = ring_modes.ring_lti(co, n_orders)
    ss.check_step(dt, -np.real(np.diag(np.asarray(sys.a))), "samples_per_symbol",
                  scale=dt * samples_per_symbol)
    expected = spec["q_loaded"] * lam * 1e-6 / (2 * math.pi * C_M_PER_S) * 1e12
    tau, _, _ = photon_lifetime_ps(sys, float(ring_modes.energy_decay_time_ps(co)))
    fwhm, fsr = spec["fwhm_nm"] * 1e-3, spec["fsr_nm"] * 1e-3
    wls = np.concatenate([lam + fwhm * np.linspace(-5, 5, 41), [lam + fsr / 2, lam + fsr]])
    err, _ = steady_state_error(kind, p, wls, n_orders)
    port = output_index(kind)
    # step response at the resonance (fine steps)
    dts = tau / 20
    n_step = int(20 * tau / dts)
    u_step = jnp.zeros((n_step, 2), dtype=complex).at[n_step // 10:, 0].set(1.0)
    y_step = np.abs(np.asarray(ss.run(ss.discretize(sys, dts), u_step))[:, port]) ** 2
    t_step = np.arange(n_step) * dts
    settle = waveform_metrics.settling_time(t_step, y_step, SETTLING_TOL, t_step[n_step // 10])
    # NRZ eye
    bits = np.random.default_rng(seed).integers(0, 2, symbols).astype(float)
    rise = DAC_RISE_SYMBOLS * 1e12 / bit_rate_hz if dac_rise_ps is None else dac_rise_ps
    drive = ss.filter_real(jnp.repeat(jnp.asarray(bits), samples_per_symbol), dac_bandwidth_ghz(rise), dt)
    u = jnp.zeros((drive.size, 2), dtype=complex).at[:, 0].set(drive)
    x0 = -jnp.linalg.solve(sys.a, sys.b @ u[0])
    p_out = np.abs(np.asarray(ss.run(ss.discretize(sys, dt), u, x0))[:, port]) ** 2
    h0 = np.asarray(ss.steady_state_gain(sys))[port, 0]
    p_static = abs(h0) ** 2 * bits
    eye, delay = waveform_metrics.eye_opening(p_out, p_static, samples_per_symbol)
    return RingTransient(kind, lam, spec["q_loaded"], tau, expected, err, settle, eye, float(bit_rate_hz),
                         int(symbols), int(samples_per_symbol), int(n_orders), np.arange(drive.size) * dt,
                         np.asarray(drive) ** 2, p_out, p_static, delay, t_step - t_step[n_step // 10], y_step)
