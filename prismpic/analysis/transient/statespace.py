"""Linear state-space blocks and their exact discretisation: the time-stepping core of the transient room.

Every linear part (a ring's resonance modes, a detector's, TIA's, driver's RC) is a continuous LTI system
ẋ = A x + B u, y = C x + D u, time in ps. It is discretised exactly for an input that is piecewise linear between
samples (first-order hold, FOH; Franklin, Powell & Workman, "Digital Control of Dynamic Systems", 3rd ed.,
§6.3.2): with F = [[A, B, 0], [0, 0, I], [0, 0, 0]] and E = exp(F Δt),

    x[n+1] = Φ x[n] + (Γ₁ − Γ₂/Δt) u[n] + (Γ₂/Δt) u[n+1],  Φ = E₁₁, Γ₁ = E₁₂, Γ₂ = E₁₃,

and stepped by ``jax.lax.scan``. The scheme is exact for FOH input, unconditionally stable and insensitive to
stiffness (a ring's mode detuned by half an FSR oscillates ~10³ times faster than it decays; the matrix
exponential integrates it exactly), so the step is limited by resolution, not stability: a decay rate faster
than π/Δt (a time constant shorter than Δt/π) is not resolved by the samples, and ``check_step`` refuses it.
For constant input the discrete steady state is x = −A⁻¹B u, the continuous one: the time-domain steady
state equals the frequency response at the carrier, whatever the step.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.scipy.linalg import expm

from prismpic import program_cache


class LTI(NamedTuple):
    """A continuous LTI system ẋ = A x + B u, y = C x + D u (time in ps; A in 1/ps); leading axes batch."""

    a: jax.Array
    b: jax.Array
    c: jax.Array
    d: jax.Array


class Discrete(NamedTuple):
    """FOH discretisation: x[n+1] = phi x[n] + g0 u[n] + g1 u[n+1]; y = C x + D u."""

    phi: jax.Array
    g0: jax.Array
    g1: jax.Array
    c: jax.Array
    d: jax.Array


def check_step(dt_ps: float, rates_per_ps, option: str = "dt_ps", scale: float = 1.0) -> None:
    """ValueError unless every decay rate (1/ps) is resolved by the step: rate·Δt ≤ π (concrete values only).

    Args:
        dt_ps: the time step (ps).
        rates_per_ps: decay rates |Re p| of the poles (1/ps).
        option: the option the user sets the step with (named in the message).
        scale: the option's value per ps of step (e.g. samples per symbol: ``scale`` = its value × Δt), so the
            message gives the valid range of the option itself.
    """
    import numpy as np

    try:
        rate = float(np.max(np.abs(np.asarray(rates_per_ps, dtype=float))))
    except (TypeError, jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
        return
    if not math.isfinite(float(dt_ps)) or dt_ps <= 0:
        raise ValueError(f"{option}: time step {dt_ps!r} ps must be finite and > 0")
    if rate * dt_ps > math.pi:
        dt_max = math.pi / rate
        if option == "dt_ps":
            raise ValueError(f"dt_ps = {dt_ps:g} is outside the valid range (0, {dt_max:.4g}] ps: the fastest pole "
                             f"(decay rate {rate:.4g}/ps, time constant {1 / rate:.4g} ps) would be aliased")
        value = scale / dt_ps
        raise ValueError(f"{option} = {value:g} is outside the valid range [{math.ceil(scale / dt_max)}, ∞): the step "
                         f"{dt_ps:.4g} ps aliases the fastest pole (decay rate {rate:.4g}/ps, time constant "
                         f"{1 / rate:.4g} ps)")


def discretize(sys: LTI, dt_ps, hold: str = "foh") -> Discrete:
    """Exact discretisation of ``sys`` at step ``dt_ps`` (ps), vectorised over leading batch axes.

    ``hold``: "foh" (input linear between samples: waveforms) or "zoh" (input held over each step: white noise,
    whose samples are independent; linear interpolation between them would remove part of its power above
    ~1/(4Δt), lowering the filtered variance by several per cent at a few samples per filter time constant).
    """
    if hold not in ("foh", "zoh"):
        raise ValueError(f"hold = {hold!r} must be 'foh' or 'zoh'")
    phi, g0, g1 = _DISCRETE_MATRICES[hold](jnp.asarray(sys.a), jnp.asarray(sys.b), dt_ps)
    return Discrete(phi, g0, g1, sys.c, sys.d)


def _discrete_matrices(a, b, dt_ps, hold: str):
    """(Φ, Γ₀, Γ₁) of ``discretize``: one compiled program per shape and hold, reused across runs (an eager ``vmap``
    of ``expm`` traced it at every call: 0.5 s each, six times in the report; its lowering alone costs ≈ 0.3 s)."""
    n, m = a.shape[-1], b.shape[-1]
    batch = a.shape[:-2]
    dtype = jnp.result_type(a, b)
    f = jnp.zeros(batch + (n + 2 * m, n + 2 * m), dtype=dtype)
    f = f.at[..., :n, :n].set(a * dt_ps)
    f = f.at[..., :n, n:n + m].set(b * dt_ps)
    f = f.at[..., n:n + m, n + m:].set(jnp.eye(m, dtype=dtype))
    flat = f.reshape((-1,) + f.shape[-2:])
    e = jax.vmap(expm)(flat).reshape(f.shape)
    phi, gam1, gam2 = e[..., :n, :n], e[..., :n, n:n + m], e[..., :n, n + m:]
    if hold == "zoh":  # x[n+1] = Φ x[n] + Γ₁ u[n]
        return phi, gam1, jnp.zeros_like(gam2)
    return phi, gam1 - gam2, gam2


def run(disc: Discrete, u, x0=None):
    """Outputs y[n] (T, p) of one discretised system for inputs u (T, m); x0 (n,) the initial state (default 0).

    Vectorise over systems with ``jax.vmap`` (carriers, channels). Called outside a trace, it runs one compiled
    program per shape, reused across runs (``program_cache``)."""
    u = jnp.asarray(u)
    dtype = jnp.result_type(disc.phi, u)
    x0 = jnp.zeros(disc.phi.shape[-1], dtype=dtype) if x0 is None else jnp.asarray(x0, dtype=dtype)
    return _OUTPUTS(disc, u, x0)


def _outputs(disc: Discrete, u, x0):
    # the outputs are formed inside the scan: only (T, p) is kept, not the (T, n) states (a 32-ring bus over
    # 10⁴ samples and 32 carriers held 0.2 GB of states, and as much again of precomputed drive)
    def step(x, uu):
        u0, u1 = uu
        return disc.phi @ x + disc.g0 @ u0 + disc.g1 @ u1, disc.c @ x + disc.d @ u0

    x_last, ys = jax.lax.scan(step, x0, (u[:-1], u[1:]))
    return jnp.concatenate([ys, (disc.c @ x_last + disc.d @ u[-1])[None]], axis=0)


def run_states(disc: Discrete, u, x0=None):
    """States x[n] (T, n) of one discretised system for inputs u (T, m) (as ``run``)."""
    u = jnp.asarray(u)
    dtype = jnp.result_type(disc.phi, u)
    x0 = jnp.zeros(disc.phi.shape[-1], dtype=dtype) if x0 is None else jnp.asarray(x0, dtype=dtype)
    return _STATES(disc, u, x0)


def _states(disc: Discrete, u, x0):
    drive = u[:-1] @ disc.g0.T + u[1:] @ disc.g1.T

    def step(x, v):
        return disc.phi @ x + v, x

    x_last, xs = jax.lax.scan(step, x0, drive)
    return jnp.concatenate([xs, x_last[None]], axis=0)


_OUTPUTS = program_cache.reuse(_outputs, pytree_types=(Discrete,))
_DISCRETE_MATRICES = {hold: program_cache.reuse(functools.partial(_discrete_matrices, hold=hold))
                      for hold in ("foh", "zoh")}
_STATES = program_cache.reuse(_states, pytree_types=(Discrete,))


def steady_state_gain(sys: LTI):
    """DC gain D − C A⁻¹ B of a continuous system (the response to constant input)."""
    return sys.d - sys.c @ jnp.linalg.solve(sys.a, sys.b)


def frequency_response(sys: LTI, omega_per_ps):
    """H(Δ) = D + C (−iΔ − A)⁻¹ B at baseband angular frequencies Δ (rad/ps), time convention e^{−iΔt}
    (the optical models' e^{+iβL} propagation); shape (F, p, m)."""
    eye = jnp.eye(sys.a.shape[-1])

    def one(w):
        return sys.d + sys.c @ jnp.linalg.solve(-1j * w * eye - sys.a, sys.b)

    return jax.vmap(one)(jnp.asarray(omega_per_ps, dtype=float))


def lowpass_lti(f3db_ghz, order: int = 1) -> LTI:
    """Real low-pass of ``order`` equal first-order poles with overall 3-dB bandwidth ``f3db_ghz`` (GHz), DC gain 1.

    Each pole at ω_p = 2π f₃ /√(2^{1/n} − 1) so that the cascade is 3 dB down at f₃ (n = ``order``).
    """
    wp = 2 * jnp.pi * jnp.asarray(f3db_ghz, dtype=float) * 1e-3 / jnp.sqrt(2.0 ** (1.0 / order) - 1.0)  # rad/ps
    a = -wp * (jnp.eye(order) - jnp.eye(order, k=-1))
    b = jnp.zeros((order, 1)).at[0, 0].set(1.0) * wp
    c = jnp.zeros((1, order)).at[0, -1].set(1.0)
    return LTI(a, b, c, jnp.zeros((1, 1)))


def lowpass_rate_per_ps(f3db_ghz, order: int = 1) -> float:
    """Decay rate (1/ps) of each pole of ``lowpass_lti``."""
    return 2 * math.pi * float(f3db_ghz) * 1e-3 / math.sqrt(2.0 ** (1.0 / order) - 1.0)


def filter_real(u, f3db_ghz, dt_ps, order: int = 1, hold: str = "foh"):
    """Real waveforms u (..., T) through ``lowpass_lti(f3db_ghz, order)`` at step ``dt_ps``, starting settled at
    u[..., 0] (the block has been at its first value for a long time). Batched over leading axes. ``hold``: as
    ``discretize`` ("zoh" for white-noise samples)."""
    u = jnp.asarray(u, dtype=float)
    disc = discretize(lowpass_lti(f3db_ghz, order), dt_ps, hold)
    return _FILTERED(disc, u.reshape((-1, u.shape[-1]))).reshape(u.shape)


def _filtered(disc: Discrete, flat):
    def one(w):
        return _outputs(disc, w[:, None], jnp.full(disc.phi.shape[-1], w[0]))[:, 0]

    return jax.vmap(one)(flat)


_FILTERED = program_cache.reuse(_filtered, pytree_types=(Discrete,))
