"""SOA gain in time: the carrier rate equation of a chain of SOAs carrying WDM channels, time-stepped.

Each stage s holds one carrier density N_s (``soa_physics``); its input is the previous stage's output
times the stage's passive transmission, all channels in one waveguide. Propagation delays are left out:
every channel of a stage sees the same delay, so they only shift the time axis. The output of a stage is
P_k,out(t) = η² G_k(N_s(t)) P_k,in(t) (η the taper transmission), the gain seen instantly by the light
(the reservoir model of Agrawal & Olsson, IEEE JQE 25, 2297 (1989): valid while the gain changes slowly
against the ≈ 12 ps transit time of 1 mm), with the gain-induced phase −α_H/2 · Γ a (N − N_ref) L.

Time stepping: diffrax's Tsit5 (explicit 5th-order Runge–Kutta) with a PID step-size controller
(rtol = atol = 1e-8 on N/N_tr), the input powers a linear interpolation of their samples and the steps
clipped to land on every sample (``ClipStepSizeController(step_ts=…)``: the input has a kink there, and
without the clipping the controller spends its step budget rejecting steps across NRZ edges). The
equation is a few scalar ODEs
with rates 1/τ_eff = dR/dN + ∂(stimulated)/∂N ≈ 1–20 /ns: not stiff at the tens-of-ps sample spacing of
a 5 GBd signal (an explicit solver takes steps of the sample spacing; an implicit one would buy nothing
but Jacobian solves), and the controller shrinks the step where saturation makes τ_eff short. Reverse-mode
gradients go through diffrax's checkpointed adjoint.
"""

from __future__ import annotations

from typing import NamedTuple

import diffrax
import jax
import jax.numpy as jnp

from prismpic.checks import check_range
from prismpic.components import soa_physics as sp

RTOL = 1e-8
ATOL = 1e-8  # on N/N_tr (order 1)


class ChainParams(NamedTuple):
    """Operating parameters of a chain of identical SOAs (SI and µm as named)."""

    pump: jax.Array  # η_i J/(q d) (m⁻³ s⁻¹), ``soa_physics.pump_rate``
    wl: jax.Array  # channel wavelengths (µm), (channels,)
    length_um: jax.Array  # gain length (µm)
    peak_um: jax.Array  # gain peak (µm)
    curvature: jax.Array  # κ of the gain spectrum
    taper_transmission: jax.Array  # η of one TFLN ↔ III-V transition
    stage_transmission: jax.Array  # passive transmission from one SOA's output to the next SOA's input
    lifetime_scale: jax.Array  # factor on the recombination rates


def stage_gains(n, prm: ChainParams):
    """Gain G_k(N_s) of each stage's gain section for each channel, (stages, channels)."""
    return jnp.exp(sp.net_gain_np(n[:, None], prm.wl, prm.length_um, prm.peak_um, prm.curvature))


def chain_powers(n, p_in_w, prm: ChainParams):
    """Input power per channel at each stage's gain section (stages, channels) and the chain's output (channels,).

    Args:
        n: carrier densities (m⁻³), (stages,).
        p_in_w: power per channel at the first stage's input port (W), (channels,).
        prm: the chain's parameters.
    """
    gains = stage_gains(n, prm)
    eta = prm.taper_transmission

    def step(p, g):
        at_gain = p * eta
        return at_gain * g * eta * prm.stage_transmission, at_gain

    out, at_gain = jax.lax.scan(step, p_in_w, gains)
    return at_gain, out


def chain_rhs(n, p_in_w, prm: ChainParams):
    """dN_s/dt (m⁻³ s⁻¹) of every stage for the first stage's input powers ``p_in_w`` (W, (channels,))."""
    at_gain, _ = chain_powers(n, p_in_w, prm)
    return sp.carrier_rhs(n, prm.pump, at_gain, prm.wl, prm.length_um, prm.peak_um, prm.curvature,
                          lifetime_scale=prm.lifetime_scale)


def steady_chain(p_in_w, prm: ChainParams, stages: int):
    """Steady-state carrier densities (stages,) for constant input powers ``p_in_w`` (W, (channels,)), stage by stage."""
    def step(p, _):
        at_gain = p * prm.taper_transmission
        n = sp.steady_carrier_density(prm.pump, at_gain, prm.wl, prm.length_um, prm.peak_um, prm.curvature,
                                      lifetime_scale=prm.lifetime_scale)
        g = jnp.exp(sp.net_gain_np(n, prm.wl, prm.length_um, prm.peak_um, prm.curvature))
        return at_gain * g * prm.taper_transmission * prm.stage_transmission, n

    _, n = jax.lax.scan(step, jnp.asarray(p_in_w, dtype=float), None, length=stages)
    return n


def simulate_chain(t_s, p_in_w, prm: ChainParams, stages: int, n0=None, max_steps: int | None = None):
    """Carrier densities of a chain of SOAs driven by sampled input powers: N_s(t), (samples, stages).

    Args:
        t_s: sample times (s), (samples,), increasing.
        p_in_w: power per channel at the first stage's input at those times (W), (samples, channels);
            linearly interpolated between samples.
        prm: the chain's parameters (``ChainParams``).
        stages: number of SOAs.
        n0: carrier densities at t_s[0] (m⁻³, (stages,)); None: the steady state for the time-averaged input.
        max_steps: solver step budget (None: 32 per sample).

    Jittable with ``stages`` and ``max_steps`` static; differentiable in every array argument. NaN everywhere
    when the solver fails (``max_steps`` reached): the caller names the cause.
    """
    t_s = jnp.asarray(t_s, dtype=float)
    p_in_w = jnp.asarray(p_in_w, dtype=float)
    if n0 is None:
        n0 = steady_chain(jnp.mean(p_in_w, axis=0), prm, stages)
    scale = sp.MEDIUM.n_tr_m3
    t0 = t_s[0]
    tau = t_s - t0
    drive = diffrax.LinearInterpolation(ts=tau, ys=p_in_w)

    def rhs(t, x, args):
        return chain_rhs(x * scale, drive.evaluate(t), prm) / scale

    dt = tau[1] - tau[0]
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(rhs), diffrax.Tsit5(), t0=tau[0], t1=tau[-1], dt0=dt, y0=jnp.asarray(n0) / scale,
        saveat=diffrax.SaveAt(ts=tau),
        stepsize_controller=diffrax.ClipStepSizeController(diffrax.PIDController(rtol=RTOL, atol=ATOL), step_ts=tau),
        max_steps=max_steps if max_steps is not None else 32 * int(t_s.shape[0]),
        throw=False,  # a failed solve gives NaN (below): diffrax's runtime error is a host callback, which JAX's
    )  # persistent cache refuses, so the chain would compile again in every process
    ok = sol.result == diffrax.RESULTS.successful
    return jnp.where(ok, sol.ys * scale, jnp.nan)


def chain_outputs(n_t, p_in_w, prm: ChainParams):
    """Power per channel at each stage's output port, (samples, stages, channels), from ``simulate_chain``'s N_s(t).

    The output port is after the SOA's output taper, before the passive stage loss.
    """
    def one(n, p):
        at_gain, _ = chain_powers(n, p, prm)
        return at_gain * stage_gains(n, prm) * prm.taper_transmission

    return jax.vmap(one)(n_t, jnp.asarray(p_in_w, dtype=float))


def gain_phase_rad(n, n_ref, length_um, med: sp.GainMedium = sp.MEDIUM):
    """Gain-induced phase change −α_H/2 · Γ a (N − N_ref) L (rad) of the field, relative to density ``n_ref``.

    Henry's linewidth-enhancement factor α_H ties the index change to the gain change (Henry, IEEE JQE 18,
    259 (1982)): δφ = −(α_H/2) δ(ln G). Args: carrier densities (m⁻³), gain length (µm).
    """
    d_np = med.confinement * med.diff_gain_m2 * (jnp.asarray(n) - n_ref) * jnp.asarray(length_um) * 1e-6
    return -0.5 * med.henry_alpha * d_np


def chain_params(wl, *, gain_length=1000.0, current_density_ka_per_cm2=sp.CURRENT_DENSITY_KA_PER_CM2,
                 stage_loss_db=10.0, lifetime_scale=1.0, taper_loss_db=sp.TAPER_LOSS_DB, gain_peak_um=1.55,
                 gain_fwhm_nm=None) -> ChainParams:
    """``ChainParams`` of identical SOAs (the ``soa`` model's parameters) with a passive loss between them.

    Args:
        wl: channel wavelengths (µm), (channels,).
        gain_length: gain-section length (µm).
        current_density_ka_per_cm2: bias (kA/cm²).
        stage_loss_db: passive loss from one SOA's output port to the next one's input port (dB).
        lifetime_scale: factor on the recombination rates and pump (``gain.operating_point``).
        taper_loss_db: loss of one TFLN ↔ III-V transition (dB).
        gain_peak_um: gain peak (µm).
        gain_fwhm_nm: FWHM of the material gain (nm, ``gain.gain_curvature``); None: ``gain.GAIN_FWHM_NM``.
    """
    from prismpic.components import gain

    j, scale, taper_loss_db = gain.check_bias(current_density_ka_per_cm2, lifetime_scale, taper_loss_db)
    check_range("gain_length", gain_length, 1.0, 2000.0, unit="µm")
    check_range("stage_loss_db", stage_loss_db, 0.0, 60.0, unit="dB")
    check_range("wl", wl, 1.2, 1.8, unit="µm")
    fwhm = gain.GAIN_FWHM_NM if gain_fwhm_nm is None else gain_fwhm_nm
    f = jnp.asarray
    return ChainParams(
        pump=sp.pump_rate(j, lifetime_scale=scale), wl=jnp.atleast_1d(f(wl, dtype=float)), length_um=f(gain_length, dtype=float),
        peak_um=f(gain_peak_um, dtype=float), curvature=gain.gain_curvature(fwhm),
        taper_transmission=10.0 ** (-f(taper_loss_db, dtype=float) / 10.0),
        stage_transmission=10.0 ** (-f(stage_loss_db, dtype=float) / 10.0), lifetime_scale=f(scale, dtype=float))
