"""Weight programming: ring voltages whose detected balanced weights equal target weights.

The inverse of the bank model (``bank_model``): per channel, find voltages v (d,) with
raw(v) = g·w, raw the detected weights η_d|D|² − η_t|T|² at the channel wavelengths (all
rings, all resonance orders, inter-ring coupling) and g a common scale every ring reaches.
One solver serves the banks (``program_weights``) and the prototype
(``prototype.prototype_program``): Levenberg–Marquardt from the single-ring Lorentzian inverse.

The Lorentzian is even in the detuning, so each ring can reach its weight detuned either way; the two ways
differ where another ring's neighbouring resonance order lies near the channel (a plan wider than the free
spectral range: the 8-channel, 1.6 nm plan of 20 µm rings puts ring j's next order 0.18 nm from channel j + 5).
From the all-positive start such a row can stall at a residual of order 1 (the 8×8 prototype's example weights:
0.93). ``weight_solver`` therefore searches the detuning directions of the rows left above ``PROGRAM_TOL``
(greedy: each round keeps, per row, the best of its directions and their single flips), and the callers raise
a ValueError naming the row and the ring when a row still cannot be reached.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range
from prismpic.circuits.bank_model import (
    RING_SPACING,
    check_ring_domain,
    drop_jogs_um,
    fields_from_columns,
    ring_columns,
    spacer_transmissions,
)
from prismpic.pdk.rules import RULES

# Levenberg–Marquardt damping λ = LM_DAMPING · tr(JᵀJ). From the Lorentzian start the Jacobian is
# near-diagonal (ring j dominates channel j) and well conditioned, so the loop is in effect
# Gauss–Newton; λ only keeps the solve regular where a column vanishes (a ring at its resonance
# peak, where ∂w/∂V = 0, or clipped at ±V_max), and the step limit bounds such steps. λ scales the
# step along each singular direction by σ²/(σ² + λ) and leaves the fixed point raw(v) = g·w
# unchanged, so the smaller of the two former values is kept: 1e-12 (~5000 times the float64
# round-off ε·tr(JᵀJ)) stays closest to Gauss–Newton. Measured on banks (d = 4…16) and the
# prototype (2×2, 8×8), targets in [−1, 1] and at ±1: 1e-12 and 1e-9 both leave residuals
# 3e-13 … 6e-12 after 10 or more iterations.
LM_DAMPING = 1e-12
MAX_STEP_FRACTION = 0.2  # largest voltage step per iteration, as a fraction of the electrode voltage limit
# largest |raw − g·w| a programmed row may leave, in weight units (÷ g): far below a 6-bit weight step (1/32);
# a reachable row converges to ~1e-12
PROGRAM_TOL = 1e-6


class WeightData(NamedTuple):
    """What one channel's detected weights depend on besides its ring voltages (a pytree: the jitted solver
    takes it as an argument, so one compilation serves every bank or row of the same shape).

    ``cols`` and ``spacers`` from ``ring_columns`` and ``spacer_transmissions`` at the channel wavelengths;
    ``eta_drop``/``eta_thr`` the power transmissions (scalar or (W,)) from the channel's ends to the detectors
    (1: the channel's own ends).
    """

    cols: dict
    spacers: tuple
    eta_drop: jax.Array
    eta_thr: jax.Array


def weight_data(cols, spacers, eta_drop=1.0, eta_thr=1.0) -> WeightData:
    """``WeightData`` with the efficiencies as float arrays."""
    return WeightData(cols, tuple(spacers), jnp.asarray(eta_drop, dtype=float), jnp.asarray(eta_thr, dtype=float))


def detected_weights(data: WeightData, v):
    """raw(v) (W,) = η_d|D|² − η_t|T|² of one channel at ΔT = 0, for its ring voltages v (V, (d,))."""
    d, t = fields_from_columns(data.cols, data.spacers, v, jnp.zeros(jnp.shape(data.cols["theta0"])[0]))
    return data.eta_drop * jnp.abs(d) ** 2 - data.eta_thr * jnp.abs(t) ** 2


@jax.jit
def detected_weights_batch(data: WeightData, volts):
    """``detected_weights`` of each row of ``volts`` (V, (N, d)): (N, W)."""
    return jax.vmap(lambda v: detected_weights(data, v))(volts)


def reachable_gain(data: WeightData, max_voltage_v: float = RULES.max_electrode_voltage_v) -> float:
    """Common weight scale g: raw weights span [−g, g] with |V| ≤ ``max_voltage_v`` (V) on every ring.

    g = min over channels of (raw weight at 0 V, −raw weight at ``max_voltage_v``).
    """
    d = jnp.shape(data.cols["theta0"])[0]
    both = np.asarray(detected_weights_batch(data, jnp.stack([jnp.zeros(d), jnp.full(d, max_voltage_v)])))
    g = float(min(both[0].min(), (-both[1]).min()))
    if not g > 0:  # a ring reads ≤ 0 on resonance (0 V), or ≥ 0 fully detuned (V_max)
        j0, j1 = int(np.argmin(both[0])), int(np.argmax(both[1]))
        at = (f"with every ring at 0 V (on resonance) channel {j0} reads the raw weight {both[0, j0]:.3g} ≤ 0"
              if both[0, j0] <= 0 else
              f"with every ring at {max_voltage_v:g} V (detuned) channel {j1} reads the raw weight {both[1, j1]:.3g} ≥ 0")
        raise ValueError(f"no common weight scale g > 0: {at}; another ring's resonance order falls on the channel, as "
                         "in a plan wider than the free spectral range (check the plan with "
                         "prismpic.analysis.system.channel_plan.check_channel_plan)")
    return g


def lorentzian_start(cols, weights):
    """Voltages (V, (…, d)) of the single-ring Lorentzian inverse for raw weights ``weights`` (…, d).

    Detuning δθ = ((1 − x)/√x)·√((1 − w)/(1 + w)) in round-trip phase, x = t1 t2 a (half width
    at half maximum (1 − x)/√x; Bogaerts et al. 2012), V = δθ/|θ_V| with ring j on channel j.
    """
    idx = jnp.arange(jnp.shape(cols["theta0"])[0])
    x = (cols["t1"] * cols["t2"] * cols["a"])[idx, idx]
    hwhm = (1 - x) / jnp.sqrt(x)
    w0 = jnp.clip(weights, -0.999, 0.999)
    return hwhm * jnp.sqrt((1 - w0) / (1 + w0)) / jnp.abs(cols["theta_v"][idx, idx])


def levenberg_marquardt(raw, v0, goal, iterations: int):
    """Voltages (V, (d,)) from ``v0`` reducing |raw(v) − goal|² by ``iterations`` Levenberg–Marquardt steps.

    Each step is limited to ``MAX_STEP_FRACTION`` of the electrode voltage limit and the
    voltages are clipped to ±``RULES.max_electrode_voltage_v``; traceable.
    """
    vmax = RULES.max_electrode_voltage_v

    def body(_, vr):
        jac = jax.jacfwd(raw)(vr)
        f = raw(vr) - goal
        jtj = jac.T @ jac
        dv = jnp.linalg.solve(jtj + LM_DAMPING * jnp.trace(jtj) * jnp.eye(jtj.shape[0]), jac.T @ f)
        dv = dv / jnp.maximum(1.0, jnp.max(jnp.abs(dv)) / (MAX_STEP_FRACTION * vmax))
        return jnp.clip(vr - dv, -vmax, vmax)

    return jax.lax.fori_loop(0, iterations, body, v0)


def programmed_voltages(raw, cols, targets, gain, iterations: int, signs=None):
    """Voltages (V, (N, d)) with raw(v_k) = gain·targets_k for each row k of ``targets`` (N, d); traceable.

    ``raw`` from ``detected_weight_fn`` and its ``cols``; Levenberg–Marquardt per row from the
    Lorentzian start, each ring detuned in the direction of ``signs`` (N, d) of ±1 (default +1).
    """
    start = lorentzian_start(cols, targets * gain)
    if signs is not None:
        start = start * signs
    return jax.vmap(lambda v, t: levenberg_marquardt(raw, v, gain * t, iterations))(start, targets)


def sign_search_step(raw, cols, targets, gain, iterations: int, signs):
    """One round of the detuning-direction search; traceable. For each row: Levenberg–Marquardt from its
    directions ``signs`` (N, d) and from each of their d single flips; returns the best's (signs, voltages,
    largest |raw − gain·target|), each stacked over the rows."""
    d = targets.shape[-1]
    flips = jnp.concatenate([jnp.ones((1, d)), 1.0 - 2.0 * jnp.eye(d)])  # (d + 1, d): keep, then flip ring j
    start = lorentzian_start(cols, targets * gain)

    def row(t, s, v0):
        cand = s[None, :] * flips
        volts = jax.vmap(lambda c: levenberg_marquardt(raw, c * v0, gain * t, iterations))(cand)
        res = jax.vmap(lambda v: jnp.max(jnp.abs(raw(v) - gain * t)))(volts)
        i = jnp.argmin(res)
        return cand[i], volts[i], res[i]

    return jax.vmap(row)(targets, signs, start)


@functools.partial(jax.jit, static_argnames="iterations")
def _first_voltages(data: WeightData, targets, gain, iterations: int):
    return programmed_voltages(lambda v: detected_weights(data, v), data.cols, targets, gain, iterations)


@functools.partial(jax.jit, static_argnames="iterations")
def _sign_search(data: WeightData, targets, gain, signs, iterations: int):
    return sign_search_step(lambda v: detected_weights(data, v), data.cols, targets, gain, iterations, signs)


def weight_solver(data: WeightData, iterations: int):
    """``solve(targets (N, d), gain, tol=PROGRAM_TOL) -> (voltages (N, d), errors (N, d))``, errors = raw − gain·targets:
    Levenberg–Marquardt from the Lorentzian start, then, while a row's largest |error| exceeds tol·gain, rounds of
    ``sign_search_step`` (at most d, stopping when no row improves). The steps are jitted once per shape of
    ``data`` and ``targets`` (module-level functions taking the data as an argument), so every bank, row or call of
    the same size reuses the compiled code."""

    def errors(volts, t, gain):
        return np.asarray(detected_weights_batch(data, volts) - gain * t)

    def solve(targets, gain, tol: float = PROGRAM_TOL):
        t = jnp.asarray(targets, dtype=float)
        g = jnp.asarray(gain, dtype=float)
        volts = _first_voltages(data, t, g, iterations)
        err = errors(volts, t, g)
        signs = jnp.ones_like(t)
        for _ in range(t.shape[-1]):
            worst = np.max(np.abs(err), axis=-1)
            if worst.max() <= tol * abs(gain):
                break
            signs, new, _ = _sign_search(data, t, g, signs, iterations)
            new_err = errors(new, t, g)
            if not np.any(np.max(np.abs(new_err), axis=-1) < worst * (1 - 1e-9)):
                break
            volts, err = new, new_err
        return volts, err

    return solve


def check_programmed(errors, gain: float, tol: float | None = PROGRAM_TOL, channels_um=None) -> float:
    """The largest |raw − gain·target| of ``errors`` (N, d); ValueError naming the row and ring when it exceeds
    ``tol``·gain (``tol`` None: never)."""
    err = np.abs(np.asarray(errors))
    residual = float(err.max()) if err.size else 0.0
    if tol is not None and residual > tol * abs(gain):
        k, j = np.unravel_index(int(np.argmax(err)), err.shape)
        at = "" if channels_um is None else f" ({float(np.asarray(channels_um)[j]) * 1e3:.3f} nm)"
        n_bad = int(np.sum(err.max(axis=-1) > tol * abs(gain)))
        raise ValueError(f"targets row {k} cannot be programmed: ring {j}{at} stays {err[k, j] / abs(gain):.3g} (in "
                         f"weight units) from its target after searching the rings' detuning directions, above tol = "
                         f"{tol:g} ({n_bad} of {err.shape[0]} rows); another ring's resonance order likely lies on the "
                         "channel (check the plan with prismpic.analysis.system.channel_plan.check_channel_plan), or pass "
                         "tol=None for the closest voltages")
    return residual


def _bank_weight_data(channels_um, radii, ring_spacing, ring) -> WeightData:
    """``WeightData`` of one bank channel (the detectors at the channel's own ends): the ring model's checks
    eagerly at the extreme channels and radii, then one compiled program (an eager evaluation compiles each
    primitive on its own: ~17 CPU-s for a d = 8 bank, against ~3 compiled)."""
    check_ring_domain(channels_um, radii, ring)
    choices = tuple(sorted((k, v) for k, v in ring.items() if isinstance(v, str | None)))
    numbers = {k: v for k, v in ring.items() if not isinstance(v, str | None)}
    # the drop-bus jogs as the layout rounds them (NumPy on concrete radii; see drop_jogs_um)
    jogs = drop_jogs_um(radii, **{k: ring[k] for k in ("gap", "gap_drop", "width") if k in ring})
    return _weight_data_compiled(jnp.asarray(channels_um, dtype=float), jnp.asarray(radii, dtype=float),
                                 jnp.asarray(jogs, dtype=float), numbers, float(ring_spacing), choices)


@functools.partial(jax.jit, static_argnames=("ring_spacing", "choices"))
def _weight_data_compiled(channels_um, radii, jogs, numbers, ring_spacing, choices) -> WeightData:
    ring = {**numbers, **dict(choices)}
    return weight_data(ring_columns(channels_um, radii, **ring),
                       spacer_transmissions(channels_um, ring_spacing, ring, radii, jogs))


def weight_gain(channels_um, radii, max_voltage_v: float = RULES.max_electrode_voltage_v,
                ring_spacing: float = RING_SPACING, **ring) -> float:
    """Common scale g: raw weights span [−g, g] with |V| ≤ ``max_voltage_v`` (V) on every ring.

    g = min over channels of (raw weight at 0 V, −raw weight at ``max_voltage_v``), so that
    target weights in [−1, 1] map to raw = g·w inside what every ring can reach.
    """
    data = _bank_weight_data(jnp.asarray(channels_um, dtype=float), jnp.asarray(radii, dtype=float), ring_spacing, ring)
    return reachable_gain(data, max_voltage_v)


def program_weights(targets, channels_um, radii, *, gain: float | None = None, iterations: int = 20,
                    ring_spacing: float = RING_SPACING, tol: float | None = PROGRAM_TOL, **ring):
    """Ring voltages (N, d) whose balanced weights at the channels equal gain·targets.

    A calibrated inverse: Levenberg–Marquardt on the full bank model (all rings, all resonance
    orders, inter-ring coupling), per channel, starting from the single-ring Lorentzian
    inverse (``lorentzian_start``) and searching the detuning directions where that stalls
    (``weight_solver``). Raises ValueError for targets outside [−1, 1], mismatched shapes, and
    a row left further than ``tol``·gain from its target (``tol`` None: return the closest).

    Returns:
        (voltages, residual): voltages (V) and the largest |raw − gain·target| left.
    """
    targets = jnp.atleast_2d(jnp.asarray(targets, dtype=float))
    check_range("targets", targets, -1.0, 1.0)
    channels_um = jnp.asarray(channels_um, dtype=float)
    radii = jnp.asarray(radii, dtype=float)
    if targets.shape[-1] != radii.shape[-1] or channels_um.shape != radii.shape[-1:]:
        raise ValueError(f"targets has shape {targets.shape}, radii {radii.shape}, channels {channels_um.shape}: "
                         "the last axes must all equal d")
    g = weight_gain(channels_um, radii, ring_spacing=ring_spacing, **ring) if gain is None else gain
    data = _bank_weight_data(channels_um, radii, ring_spacing, ring)
    volts, errors = weight_solver(data, iterations)(targets, g, PROGRAM_TOL if tol is None else tol)
    return volts, check_programmed(errors, g, tol, channels_um)
