"""Carrier rate equation of a heterogeneous III-V SOA on TFLN: gain, saturation, recovery time, ASE, noise figure.

One carrier density N (m⁻³) averaged over the active region (volume V = w d L) obeys

    dN/dt = η_i J/(q d) − R(N) − Σ_k Γ g_k(N) P_k,in L·exprel(h_k)/(h ν_k V/L),

R(N) = A N + B N² + C N³ (so τ(N) = N/R(N)), g_k(N) = a (N − N_tr) − κ (λ_k − λ_p)² the material
gain (parabolic spectrum around the peak, Connelly, IEEE JQE 37, 439 (2001), eq. 6, without its cubic
term), and h_k = ln G_k = (Γ g_k − α_int) L the net gain in nepers; exprel(x) = (eˣ − 1)/x. The last
term is the stimulated (or, below transparency, absorbed) photon flux: with dP/dz = (Γ g − α_int) P and
g uniform along z, ∫₀ᴸ Γ g P dz = Γ g L exprel(h) P_in. This is the reservoir model of Agrawal &
Olsson, IEEE JQE 25, 2297 (1989), with a carrier-dependent lifetime and internal loss; it assumes
the gain changes slowly against the transit time (≈ 12 ps for 1 mm) and neglects the carriers that
the ASE itself consumes (≲ 10 % below ≈ 25 dB of gain).

With B = C = α_int = 0 (τ constant) the steady state is exactly G = G0 exp(−(G − 1) P_in/P_sat) with
P_sat = h ν w d/(Γ a τ) (Agrawal & Olsson): ``tests/components/test_gain.py`` checks this.

Material of the stated stack (an InGaAsP multi-quantum-well gain section bonded over the TFLN ridge;
the hybrid mode has a few per cent of its power in the wells). † are typical published values, not a
measurement of this platform:

- a = 5e-20 m², N_tr = 1.5e24 m⁻³: differential gain and transparency density of compressively strained
  InGaAsP quantum wells at 1.55 µm (Coldren, Corzine & Mašanović, "Diode Lasers and Photonic Integrated
  Circuits", 2nd ed., Wiley (2012), ch. 4 and app. 11: dg/dN ≈ 3–8e-16 cm², N_tr ≈ 1.5–2e18 cm⁻³) †.
- A = 1e8 s⁻¹, B = 1e-16 m³/s, C = 3e-41 m⁶/s: defect, radiative and Auger recombination of InGaAsP at
  1.55 µm (Coldren et al. (2012) table 4.1: A ≈ 1e8 s⁻¹, B ≈ 0.3–1e-10 cm³/s, C ≈ 3e-29 cm⁶/s;
  Connelly (2001) table I, C = 3e-41 m⁶/s) †.
- Γ = 0.05, d = 6 × 8 nm wells, w = 3 µm active width, α_int = 10 cm⁻¹, η_i = 0.8: a low-confinement
  heterogeneous SOA (Davenport et al., IEEE JSTQE 22, 3100111 (2016): III-V/Si SOAs with 3–7 % well
  confinement, 10–15 cm⁻¹ internal loss, P_sat,out 10–17 dBm) †; biased at 3 kA/cm² (SOAs run at
  2–5 kA/cm²) it gives ≈ 19 dB/mm of net gain, P_sat ≈ 12 dBm, a 500 ps differential lifetime.
- Henry α = 5 for the gain-induced phase (α_H = 3–8 for InGaAsP MQW gain media, Henry, IEEE JQE 18,
  259 (1982); Agrawal & Olsson (1989)) †.

The noise figure follows from the inversion: n_sp = N/(N − N_tr) (linear-gain approximation, Agrawal &
Dutta, "Semiconductor Lasers", 2nd ed. (1993), §2.2), internal loss raises it to
n_sp Γg/(Γg − α_int) (Olsson, JLT 7, 1071 (1989)), and F = 2 n_sp,eff (G − 1)/G + 1/G, divided by the input
taper's transmission.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
from scipy.constants import c as C_LIGHT  # m/s
from scipy.constants import e as Q_E  # C
from scipy.constants import h as H_PLANCK  # J s

from prismpic.checks import check_range


class GainMedium(NamedTuple):
    """Material and waveguide parameters of the SOA's active region (SI units; see the module docstring)."""

    diff_gain_m2: float = 5e-20  # a †
    n_tr_m3: float = 1.5e24  # N_tr †
    a_per_s: float = 1e8  # defect recombination A †
    b_m3_per_s: float = 1e-16  # radiative B †
    c_m6_per_s: float = 3e-41  # Auger C †
    confinement: float = 0.05  # Γ of the wells †
    active_thickness_m: float = 48e-9  # d: 6 wells × 8 nm †
    active_width_m: float = 3e-6  # w †
    internal_loss_per_m: float = 1000.0  # α_int, 10 cm⁻¹ †
    injection_efficiency: float = 0.8  # η_i †
    henry_alpha: float = 5.0  # α_H †


MEDIUM = GainMedium()
CURRENT_DENSITY_KA_PER_CM2 = 3.0  # † default bias: 3 kA/cm² over the active width (90 mA per mm at w = 3 µm)
TAPER_LOSS_DB = 0.5  # † loss of one TFLN ↔ III-V mode transfer (adiabatic tapers: 0.2–1 dB)
LIFETIME_SCALE_RANGE = (0.1, 10.0)  # recombination rates scaled by this (carrier lifetime ÷ the factor)


def photon_energy_j(wl):
    """Photon energy h ν (J) at ``wl`` (µm)."""
    return H_PLANCK * C_LIGHT / (jnp.asarray(wl, dtype=float) * 1e-6)


def exprel(x):
    """(eˣ − 1)/x, equal to 1 at x = 0 and finite everywhere (a Taylor form near 0 keeps its gradient finite)."""
    x = jnp.asarray(x, dtype=float)
    small = jnp.abs(x) < 1e-6
    xs = jnp.where(small, 1.0, x)
    return jnp.where(small, 1.0 + x / 2.0 + x * x / 6.0, jnp.expm1(xs) / xs)


def recombination_rate(n, med: GainMedium = MEDIUM, lifetime_scale=1.0):
    """R(N) = A N + B N² + C N³ (m⁻³ s⁻¹), every rate multiplied by ``lifetime_scale``."""
    n = jnp.asarray(n, dtype=float)
    return lifetime_scale * n * (med.a_per_s + n * (med.b_m3_per_s + n * med.c_m6_per_s))


def differential_lifetime_s(n, med: GainMedium = MEDIUM, lifetime_scale=1.0):
    """Small-signal carrier lifetime 1/(dR/dN) (s) without stimulated emission."""
    n = jnp.asarray(n, dtype=float)
    return 1.0 / (lifetime_scale * (med.a_per_s + n * (2 * med.b_m3_per_s + 3 * n * med.c_m6_per_s)))


def pump_rate(current_density_ka_per_cm2, med: GainMedium = MEDIUM, lifetime_scale=1.0):
    """Carrier injection η_i J/(q d) (m⁻³ s⁻¹) for a current density in kA/cm² (1 kA/cm² = 1e7 A/m²).

    ``lifetime_scale`` multiplies it with the recombination rates, so the unsaturated carrier density (and
    the small-signal gain) stays that of the unscaled medium while the lifetime changes.
    """
    return lifetime_scale * med.injection_efficiency * jnp.asarray(current_density_ka_per_cm2, dtype=float) * 1e7 / (
        Q_E * med.active_thickness_m)


def gain_curvature_per_m3(fwhm_nm, n_ref, med: GainMedium = MEDIUM):
    """κ (m⁻¹ per m² of detuning) that gives the material gain a FWHM ``fwhm_nm`` at carrier density ``n_ref``."""
    half = jnp.asarray(fwhm_nm, dtype=float) * 0.5e-9
    return med.diff_gain_m2 * (n_ref - med.n_tr_m3) / (2.0 * half**2)


def material_gain_per_m(n, wl, peak_um, curvature, med: GainMedium = MEDIUM):
    """g(N, λ) = a (N − N_tr) − κ (λ − λ_p)² (m⁻¹); ``wl`` and ``peak_um`` in µm."""
    det_m = (jnp.asarray(wl, dtype=float) - peak_um) * 1e-6
    return med.diff_gain_m2 * (jnp.asarray(n, dtype=float) - med.n_tr_m3) - curvature * det_m**2


def net_gain_np(n, wl, length_um, peak_um, curvature, med: GainMedium = MEDIUM):
    """ln G = (Γ g(N, λ) − α_int) L (nepers) of the gain section, ``length_um`` in µm."""
    g = material_gain_per_m(n, wl, peak_um, curvature, med)
    return (med.confinement * g - med.internal_loss_per_m) * jnp.asarray(length_um, dtype=float) * 1e-6


def stimulated_rate(n, p_in_w, wl, length_um, peak_um, curvature, med: GainMedium = MEDIUM):
    """Carriers removed per volume and time (m⁻³ s⁻¹) by channels of input power ``p_in_w`` (W) at ``wl`` (µm).

    Σ_k Γ g_k exprel(h_k) P_k/(h ν_k w d), summed over the last axis; negative below transparency
    (absorbed photons create carriers).
    """
    length_m = jnp.asarray(length_um, dtype=float) * 1e-6
    g = material_gain_per_m(n[..., None], wl, peak_um, curvature, med)
    h = (med.confinement * g - med.internal_loss_per_m) * length_m[..., None]
    flux = med.confinement * g * exprel(h) * p_in_w / photon_energy_j(wl)
    return jnp.sum(flux, axis=-1) / (med.active_width_m * med.active_thickness_m)


def carrier_rhs(n, pump, p_in_w, wl, length_um, peak_um, curvature, med: GainMedium = MEDIUM, lifetime_scale=1.0):
    """dN/dt (m⁻³ s⁻¹) of the rate equation (module docstring) for the input powers ``p_in_w`` (W, (..., channels)).

    Args:
        n: carrier density N (m⁻³), any batch shape.
        pump: η_i J/(q d) (m⁻³ s⁻¹), from ``pump_rate``.
        p_in_w: input power per channel (W), the batch shape of ``n`` plus a channel axis.
        wl: channel wavelengths (µm), (channels,).
        length_um: gain-section length (µm).
        peak_um: gain-peak wavelength (µm).
        curvature: κ of ``gain_curvature_per_m3``.
        med: the gain medium.
        lifetime_scale: factor on every recombination rate.
    """
    n = jnp.asarray(n, dtype=float)
    return pump - recombination_rate(n, med, lifetime_scale) - stimulated_rate(
        n, p_in_w, wl, length_um, peak_um, curvature, med)


def _bisect_then_newton(f, hi, n_bisect=80, n_newton=4):
    """Root of a decreasing scalar f on [0, hi] (f(0) > 0 > f(hi)): bisection, then Newton polishing."""
    def bis(_, ab):
        a, b = ab
        m = 0.5 * (a + b)
        pos = f(m) > 0
        return jnp.where(pos, m, a), jnp.where(pos, b, m)

    a, b = jax.lax.fori_loop(0, n_bisect, bis, (jnp.zeros_like(hi), hi))
    x = 0.5 * (a + b)

    def newton(_, x):
        fx, dfx = jax.jvp(f, (x,), (jnp.ones_like(x),))
        step = jnp.where(dfx < 0, fx / jnp.where(dfx < 0, dfx, -1.0), 0.0)
        return jnp.clip(x - step, a, b)

    return jax.lax.fori_loop(0, n_newton, newton, x)


def steady_carrier_density(pump, p_in_w, wl, length_um, peak_um, curvature, med: GainMedium = MEDIUM,
                           lifetime_scale=1.0):
    """Steady-state N (m⁻³) of ``carrier_rhs`` for a scalar pump and channel powers ``p_in_w`` (W, (channels,)).

    dN/dt is strictly decreasing in N (recombination and the stimulated term both grow with N), so the root
    is unique; it is bracketed in [0, N_hi] with C N_hi³ far above the pump, found by bisection and Newton,
    and differentiated by the implicit-function theorem (``jax.lax.custom_root``).
    """
    p_in_w = jnp.asarray(p_in_w, dtype=float)

    def f(n):
        return carrier_rhs(n, pump, p_in_w, wl, length_um, peak_um, curvature, med, lifetime_scale)

    hi = jnp.asarray(2e26, dtype=float)  # C·N³ = 2.4e38 m⁻³/s at 2e26: 1e4× the pump of 100 kA/cm²

    def solve(g, _):
        return _bisect_then_newton(g, hi)

    def tangent_solve(g, y):
        return y / g(1.0)

    return jax.lax.custom_root(f, hi / 2, solve, tangent_solve)


def inversion_factor(n, med: GainMedium = MEDIUM):
    """n_sp = N/(N − N_tr) at the gain peak (linear-gain approximation); NaN at or below transparency."""
    n = jnp.asarray(n, dtype=float)
    d = n - med.n_tr_m3
    return jnp.where(d > 0, n / jnp.where(d > 0, d, 1.0), jnp.nan)


def effective_inversion(n, net_np, length_um, med: GainMedium = MEDIUM):
    """n_sp Γg/(Γg − α_int) (Olsson 1989) for a net gain ``net_np`` (nepers) over ``length_um`` (µm); NaN unless inverted."""
    gnet = jnp.asarray(net_np, dtype=float) / (jnp.asarray(length_um, dtype=float) * 1e-6)
    return inversion_factor(n, med) * (gnet + med.internal_loss_per_m) / jnp.where(gnet > 0, gnet, jnp.nan)


def ase_psd_w_per_hz(n, net_np, length_um, wl, taper_transmission=1.0, med: GainMedium = MEDIUM):
    """ASE power spectral density (W/Hz, one polarization) at the SOA's output port: n_sp,eff h ν (G − 1) η_out.

    Olsson, JLT 7, 1071 (1989), with n_sp,eff of ``effective_inversion``; NaN unless inverted.
    """
    return (effective_inversion(n, net_np, length_um, med) * photon_energy_j(wl) * jnp.expm1(net_np)
            * taper_transmission)


def noise_figure(n, net_np, length_um, taper_transmission=1.0, med: GainMedium = MEDIUM):
    """Noise figure F (linear) of the gain section at the peak, referred to the SOA's input (before the taper).

    F = [2 n_sp Γg/(Γg − α_int)·(G − 1)/G + 1/G]/η_in with G = e^{net_np}, Γg − α_int = net_np/L
    (Olsson, JLT 7, 1071 (1989)); NaN where the medium is not inverted.
    """
    gain = jnp.exp(net_np)
    nsp_eff = effective_inversion(n, net_np, length_um, med)
    return (2.0 * nsp_eff * (gain - 1.0) / gain + 1.0 / gain) / taper_transmission


def check_lifetime_scale(lifetime_scale):
    """``lifetime_scale`` within ``LIFETIME_SCALE_RANGE`` (returned, NaN outside when traced)."""
    return check_range("lifetime_scale", lifetime_scale, *LIFETIME_SCALE_RANGE)


def db(x_np):
    """Nepers of power gain ln G → dB."""
    return x_np * (10.0 / math.log(10.0))
