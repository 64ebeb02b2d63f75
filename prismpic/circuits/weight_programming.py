"""Weight programming: ring voltages whose detected balanced weights equal target weights.

The inverse of the bank model (``bank_model``): per channel, find voltages v (d,) with
raw(v) = g·w, raw the detected weights η_d|D|² − η_t|T|² at the channel wavelengths (all
rings, all resonance orders, inter-ring coupling) and g a common scale every ring reaches.
One solver serves the banks (``program_weights``) and the prototype
(``prototype.prototype_program``): Levenberg–Marquardt from the single-ring Lorentzian inverse.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from prismpic.checks import check_range
from prismpic.circuits.bank_model import RING_SPACING, fields_from_columns, ring_columns, spacer_transmissions
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


def detected_weight_fn(cols, spacers, eta_drop=1.0, eta_thr=1.0):
    """raw(v) (W,) = η_d|D|² − η_t|T|² of one channel at ΔT = 0, for its ring voltages v (V, (d,)).

    ``cols`` and ``spacers`` from ``ring_columns`` and ``spacer_transmissions`` at the channel
    wavelengths; ``eta_drop``/``eta_thr`` the power transmissions (scalar or (W,)) from the
    channel's ends to the detectors (1: the channel's own ends).
    """
    zeros_t = jnp.zeros(jnp.shape(cols["theta0"])[0])

    def raw(v):
        d, t = fields_from_columns(cols, spacers, v, zeros_t)
        return eta_drop * jnp.abs(d) ** 2 - eta_thr * jnp.abs(t) ** 2

    return raw


def reachable_gain(raw_batch, d: int, max_voltage_v: float = RULES.max_electrode_voltage_v) -> float:
    """Common weight scale g: raw weights span [−g, g] with |V| ≤ ``max_voltage_v`` (V) on every ring.

    g = min over channels of (raw weight at 0 V, −raw weight at ``max_voltage_v``);
    ``raw_batch`` maps voltages (2, d) to raw weights (2, d).
    """
    both = raw_batch(jnp.stack([jnp.zeros(d), jnp.full(d, max_voltage_v)]))
    return float(jnp.minimum(jnp.min(both[0]), jnp.min(-both[1])))


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


def programmed_voltages(raw, cols, targets, gain, iterations: int):
    """Voltages (V, (N, d)) with raw(v_k) = gain·targets_k for each row k of ``targets`` (N, d); traceable.

    ``raw`` from ``detected_weight_fn`` and its ``cols``; Levenberg–Marquardt per row from the
    Lorentzian start.
    """
    start = lorentzian_start(cols, targets * gain)
    return jax.vmap(lambda v, t: levenberg_marquardt(raw, v, gain * t, iterations))(start, targets)


def _bank_weight_fn(channels_um, radii, ring_spacing, ring):
    """(raw, cols) of one bank channel: |D|² − |T|² at the channel wavelengths, and its ring columns."""
    cols = ring_columns(channels_um, radii, **ring)
    return detected_weight_fn(cols, spacer_transmissions(channels_um, ring_spacing, ring, radii)), cols


def weight_gain(channels_um, radii, max_voltage_v: float = RULES.max_electrode_voltage_v,
                ring_spacing: float = RING_SPACING, **ring) -> float:
    """Common scale g: raw weights span [−g, g] with |V| ≤ ``max_voltage_v`` (V) on every ring.

    g = min over channels of (raw weight at 0 V, −raw weight at ``max_voltage_v``), so that
    target weights in [−1, 1] map to raw = g·w inside what every ring can reach.
    """
    raw, _ = _bank_weight_fn(jnp.asarray(channels_um, dtype=float), jnp.asarray(radii, dtype=float), ring_spacing, ring)
    return reachable_gain(jax.jit(jax.vmap(raw)), len(radii), max_voltage_v)


def program_weights(targets, channels_um, radii, *, gain: float | None = None, iterations: int = 20,
                    ring_spacing: float = RING_SPACING, **ring):
    """Ring voltages (N, d) whose balanced weights at the channels equal gain·targets.

    A calibrated inverse: Levenberg–Marquardt on the full bank model (all rings, all resonance
    orders, inter-ring coupling), per channel, starting from the single-ring Lorentzian
    inverse (``lorentzian_start``). Raises ValueError for targets outside [−1, 1] or
    mismatched shapes.

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
    raw, cols = _bank_weight_fn(channels_um, radii, ring_spacing, ring)
    volts = jax.jit(lambda t: programmed_voltages(raw, cols, t, g, iterations))(targets)
    residual = float(jnp.max(jnp.abs(jax.vmap(raw)(volts) - g * targets)))
    return volts, residual
