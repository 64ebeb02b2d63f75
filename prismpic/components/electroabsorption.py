"""Franz–Keldysh electroabsorption and electrorefraction of a bulk InGaAsP absorber (the EAM's material physics).

A uniform field F tilts the bands of a direct-gap semiconductor; the absorption edge develops an Airy
tail below the gap and oscillations above it. In the parabolic-band, no-exciton approximation the
field-induced change of the dielectric function is (Aspnes, Phys. Rev. 147, 554 (1966); Aspnes &
Rowe, Phys. Rev. B 5, 4022 (1972))

    Δε(E, F) ∝ (ħθ)^{1/2}/E² · [G(η) + i F(η)],   η = (E_g − E)/ħθ,   ħθ = (e² F² ħ²/(2μ))^{1/3},

with the electro-optical functions F(η) = π[Ai'(η)² − η Ai(η)²] − √(−η) H(−η) and
G(η) = π[Ai'(η) Bi'(η) − η Ai(η) Bi(η)] + √η H(η) (H the step function). F and G are a Hilbert pair,
so the electrorefraction (and the chirp) follow from the same formula as the absorption, Kramers–Kronig
consistently. The zero-field edge is α₀(E) = C₀ √(E − E_g)/E, so the absorption at field F is

    α(E, F) = (C₀/E) (ħθ)^{1/2} π[Ai'(η)² − η Ai(η)²],   Δn(E, F) = (λ/4π) (C₀/E) (ħθ)^{1/2} G(η),

(α = 2 k₀ κ and Δn/Δκ = G/F). Henry's chirp parameter of a small bias change is
α_H = (dΔn/dV)/(dκ/dV) = d[(ħθ)^{1/2} G]/dV ÷ d[(ħθ)^{1/2} F]/dV (Koyama & Iga, JLT 6, 87 (1988)).

Material of the stated stack (a p-i-n InP/InGaAsP/InP layer bonded over the TFLN ridge, the light moved
into it by tapers) — † typical values, not a measurement of this platform:
- E_g of InGaAsP with λ_g = 1.47 µm (43 meV above the 1.55 µm photon: the detuning of FK EAMs, 30–60 meV) †;
- μ = 0.04 m₀ (electron 0.047 m₀, heavy hole 0.46 m₀ for λ_g ≈ 1.45 µm InGaAsP; Adachi, "Physical
  Properties of III-V Semiconductor Compounds", Wiley (1992)) †;
- C₀ = 5.6e4 cm⁻¹ eV^{1/2} (direct-gap III-V edge, Chuang, "Physics of Photonic Devices", Wiley (2009),
  §9.3, fitted to GaAs; InGaAsP taken alike) †;
- a 0.3 µm intrinsic layer, built-in voltage 1.0 V (InP p-i-n) †.

Excitons (which sharpen the edge and strengthen the absorption near it) and Urbach broadening are left
out: the zero-field absorption below the gap is 0 here, and the field-induced absorption is a lower
bound near the edge.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from scipy import special
from scipy.constants import e as Q_E
from scipy.constants import hbar as HBAR
from scipy.constants import m_e as M_E

EV_UM = 1.2398419843320026  # h c/e (eV µm)
BANDGAP_WAVELENGTH_UM = 1.47  # † InGaAsP absorber
REDUCED_MASS = 0.04  # † μ/m₀
EDGE_STRENGTH_PER_M_SQRT_EV = 5.6e6  # † C₀ = 5.6e4 cm⁻¹ eV^{1/2}
INTRINSIC_THICKNESS_UM = 0.3  # † p-i-n intrinsic layer
BUILT_IN_V = 1.0  # † InP p-i-n
BANDGAP_RANGE_UM = (1.2, 1.7)  # InGaAsP lattice-matched to InP spans 0.92–1.65 µm; 1.2–1.7 for C/L-band EAMs


def _fg_numpy(eta):
    """F, G and their derivatives −π Ai² + H(−η)/(2√−η), −π Ai Bi + H(η)/(2√η), from SciPy's Airy functions."""
    eta = np.asarray(eta, dtype=float)
    ai, aip, bi, bip = special.airy(eta)
    eai, eaip, ebi, ebip = special.airye(eta)  # Ai·Bi products without overflow for η > 0
    pos = eta > 0
    ab = np.where(pos, eai * ebi, ai * bi)
    apbp = np.where(pos, eaip * ebip, aip * bip)
    root = np.sqrt(np.abs(eta))
    safe = np.where(root > 0, root, 1.0)
    f = np.pi * (aip**2 - eta * ai**2) - np.where(pos, 0.0, root)
    g = np.pi * (apbp - eta * ab) + np.where(pos, root, 0.0)
    df = -np.pi * ai**2 + np.where(pos | (root == 0), 0.0, 0.5 / safe)
    dg = -np.pi * ab + np.where(pos, 0.5 / safe, 0.0)
    return f, g, df, dg


def _fg_all(eta):
    eta = jnp.asarray(eta, dtype=float)
    shape = jax.ShapeDtypeStruct(eta.shape, jnp.float64)
    return jax.pure_callback(_fg_numpy, (shape,) * 4, eta, vmap_method="broadcast_all")


@jax.custom_jvp
def electro_optic_functions(eta):
    """Aspnes's electro-optical functions (F(η), G(η)) (module docstring), jittable and differentiable once.

    Evaluated by SciPy's Airy functions through ``jax.pure_callback``; the derivative is exact
    (F' = −π Ai² + H(−η)/(2√−η), G' = −π Ai Bi + H(η)/(2√η), from Ai'' = η Ai), infinite at η = 0 only.
    """
    f, g, _, _ = _fg_all(eta)
    return f, g


@electro_optic_functions.defjvp
def _electro_optic_functions_jvp(primals, tangents):
    (eta,), (t,) = primals, tangents
    f, g, df, dg = _fg_all(eta)
    return (f, g), (df * t, dg * t)


def field_v_per_m(voltage_v, intrinsic_thickness_um=INTRINSIC_THICKNESS_UM, built_in_v=BUILT_IN_V):
    """Field (V/m) across the intrinsic layer at reverse bias ``voltage_v`` (V): (V + V_bi)/d_i."""
    return (jnp.asarray(voltage_v, dtype=float) + built_in_v) / (jnp.asarray(intrinsic_thickness_um) * 1e-6)


def electro_optic_energy_ev(field, reduced_mass=REDUCED_MASS):
    """ħθ = (e² F² ħ²/(2μ))^{1/3} (eV) for a field (V/m) and a reduced mass (units of m₀)."""
    f = jnp.asarray(field, dtype=float)
    return (Q_E**2 * f**2 * HBAR**2 / (2 * reduced_mass * M_E)) ** (1.0 / 3.0) / Q_E


def _edge_terms(wl, field, bandgap_um, reduced_mass):
    energy = EV_UM / jnp.asarray(wl, dtype=float)
    theta = electro_optic_energy_ev(field, reduced_mass)
    eta = (EV_UM / bandgap_um - energy) / theta
    return energy, jnp.sqrt(theta), eta


def absorption_per_m(wl, field, bandgap_um=BANDGAP_WAVELENGTH_UM, reduced_mass=REDUCED_MASS,
                     edge_strength=EDGE_STRENGTH_PER_M_SQRT_EV):
    """Material absorption α(E, F) (1/m, intensity) at ``wl`` (µm) and field (V/m), > 0 (module docstring)."""
    energy, st, eta = _edge_terms(wl, field, bandgap_um, reduced_mass)
    f, _ = electro_optic_functions(eta)
    above = energy - EV_UM / bandgap_um
    zero_field = jnp.where(above > 0, jnp.sqrt(jnp.where(above > 0, above, 1.0)), 0.0)  # finite gradient below
    return edge_strength / energy * (st * f + zero_field)


def index_change(wl, field, bandgap_um=BANDGAP_WAVELENGTH_UM, reduced_mass=REDUCED_MASS,
                 edge_strength=EDGE_STRENGTH_PER_M_SQRT_EV):
    """Field-induced refractive-index change Δn(E, F) (from zero field) at ``wl`` (µm) and field (V/m)."""
    energy, st, eta = _edge_terms(wl, field, bandgap_um, reduced_mass)
    _, g = electro_optic_functions(eta)
    return jnp.asarray(wl, dtype=float) * 1e-6 / (4 * math.pi) * edge_strength / energy * st * g
