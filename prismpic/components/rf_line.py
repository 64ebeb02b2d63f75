"""Travelling-wave RF line of the MZM: impedance and RF index of the coplanar line, RF loss, EO bandwidth.

The MZM's high-frequency response (``mzm_eo_response``, ``mzm_bandwidth_ghz``) is the
standard traveling-wave result with RF loss, velocity and impedance mismatch (e.g.
Ghione, Semiconductor Devices for High-Speed Optoelectronics, CUP 2009, ch. 6; Zhu et
al., Adv. Opt. Photon. 13, 242 (2021)); n_RF and Z0 of the coplanar line come from a
quasi-static partial-capacitance model (``cpw_line``). Lengths in µm, frequencies in GHz.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from scipy.constants import c as C_M_PER_S

from prismpic.checks import check_choice, check_positive, check_range
from prismpic.components.model_signature import CELL, model_of
from prismpic.components.modulators import mzm, mzm_modulation_length
from prismpic.pdk import dispersion, materials
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import (
    BOX_THICKNESS,
    CLAD_THICKNESS,
    CLADDING,
    CLADDINGS,
    ETCH_DEPTH,
    FILM_THICKNESS,
    SIDEWALL_ANGLE_DEG,
)

C_UM_PER_NS = C_M_PER_S / 1e3  # speed of light (µm/ns), so f in GHz gives β in 1/µm
# RF loss of a gold coplanar line on TFLN with a ~5 µm gap: ≈ 0.7 dB cm⁻¹ GHz^-1/2 †
# (Wang et al., Nature 562, 101 (2018); micro-structured electrodes reach less,
# Kharel et al., Optica 8, 357 (2021)).
RF_LOSS_DB_PER_CM_SQRT_GHZ = 0.7
EO_3DB_RESPONSE = 10 ** (-3 / 20)  # electrical 3 dB: 20·log10 m(f) = −3 dB (VNA EO S21 convention)


# ---------------------------------------------------------------------------- coplanar line
def _agm(a, b, n: int = 24):
    for _ in range(n):
        a, b = 0.5 * (a + b), jnp.sqrt(a * b)
    return a


def _k_ratio(k):
    """K(k)/K(k') by the arithmetic–geometric mean, K(k)/K(k') = AGM(1, k)/AGM(1, k')."""
    kp = jnp.sqrt((1.0 - k) * (1.0 + k))
    return _agm(1.0, k) / _agm(1.0, kp)


def _layer_k(s, w, h):
    """k of a CPW layer boundary at depth h: sinh(πs/4h)/sinh(π(s+2w)/4h), overflow-free."""
    a = jnp.pi * s / (4 * h)
    b = jnp.pi * (s + 2 * w) / (4 * h)
    return jnp.exp(a - b) * (-jnp.expm1(-2 * a)) / (-jnp.expm1(-2 * b))


@model_of(mzm)
def cpw_line(
    signal_width=CELL,
    electrode_gap=CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    clad_thickness=CLAD_THICKNESS,
    box_thickness=BOX_THICKNESS,
    cladding=CLADDING,
):
    """(n_RF, Z0 in Ω) of the GSG coplanar line on the platform stack, quasi-static (defaults: ``mzm``'s line).

    Partial-capacitance (conformal-mapping) model of a CPW with wide grounds and thin
    conductors on a layered substrate (Gevorgian et al., IEEE T-MTT 43, 772 (1995);
    Simons, Coplanar Waveguide Circuits, Wiley 2001, §2.2): below the metal the LN slab
    (anisotropic, ε = √(ε_z ε_x) over a thickness scaled by √(ε_z/ε_x)), the BOX and the
    Si substrate; above, the SiO2 cladding (``clad_thickness`` over the ridge top) and air, or air only
    (``cladding="air"``). ε_eff = C/C_air, n_RF = √ε_eff,
    Z0 = 30π K(k0')/(√ε_eff K(k0)), k0 = S/(S + 2g). An approximation: the parallel
    partial capacitances are exact only for ε falling away from the metal (here the BOX
    lies under the LN over the Si), metal thickness and dispersion are neglected;
    expect ≈ 10 % in n_RF and Z0.
    """
    check_positive("signal_width", signal_width, unit="µm")
    check_positive("electrode_gap", electrode_gap, unit="µm")
    check_choice("cladding", cladding, CLADDINGS)
    s, w = signal_width, electrode_gap
    ez, ex = materials.LN_EPS_RF
    slab = film_thickness - etch_depth
    k0r = _k_ratio(jnp.asarray(s / (s + 2 * w), dtype=float))

    def half(layers):
        total, depth = 0.0, 0.0
        for (thick, eps), (_, eps_next) in zip(layers[:-1], layers[1:], strict=True):
            depth = depth + thick
            total = total + (eps - eps_next) * _k_ratio(_layer_k(s, w, depth))
        return total + layers[-1][1] * k0r

    below = [
        (slab * math.sqrt(ez / ex), math.sqrt(ez * ex)),
        (box_thickness, materials.EPS_SIO2_RF),
        (None, materials.EPS_SI_RF),
    ]
    above = [(None, 1.0)]  # air-clad: the half-space above the metal is air
    if cladding == "sio2":
        above = [(etch_depth + clad_thickness, materials.EPS_SIO2_RF), *above]
    eps_eff = (half(below) + half(above)) / (2 * k0r)
    return jnp.sqrt(eps_eff), 30 * jnp.pi / (jnp.sqrt(eps_eff) * k0r)


# ---------------------------------------------------------------------------- EO response and bandwidth
def _mean_exp(q, length):
    """(1 − e^{−qL})/(qL), the mean of e^{−qz} over [0, L], finite at q = 0."""
    ql = q * length
    small = jnp.abs(ql) < 1e-6
    safe = jnp.where(small, 1.0, ql)
    return jnp.where(small, 1.0 - ql / 2, (1.0 - jnp.exp(-safe)) / safe)


def mzm_eo_response(
    f_ghz,
    length=5000.0,
    n_rf=2.3,
    n_g=2.3,
    rf_loss_db_per_cm_sqrt_ghz=RF_LOSS_DB_PER_CM_SQRT_GHZ,
    z0_ohm=50.0,
    z_source_ohm=50.0,
    z_load_ohm=50.0,
):
    """Normalised traveling-wave EO response m(f) = |V_eff(f)| / |V_eff(0)|.

    The optical wave samples the line voltage V(z) = V⁺(e^{−γz} + Γ_L e^{−2γL} e^{γz})
    while it moves at c/n_g: V_eff = V⁺ [F(α + iβ_m) + Γ_L e^{−2γL} F(−γ − iβ_o)],
    F(q) = (1 − e^{−qL})/(qL), γ = α + iβ_RF, β_RF = 2πf n_RF/c, β_o = 2πf n_g/c,
    β_m = β_RF − β_o = 2πf (n_RF − n_g)/c, α = α0 √f; V⁺ = V_s Z0/(Z0 + Z_S)/(1 − Γ_S Γ_L e^{−2γL}).
    Matched impedances reduce it to |(1 − e^{−(α+iβ_m)L})/((α+iβ_m)L)| (e.g. Zhu et al.,
    Adv. Opt. Photon. 13, 242 (2021)). ``length``: the traveling-wave length (µm; for ``mzm`` its
    ``mzm_modulation_length``, not the cell's straight ``length``), α0 in dB cm⁻¹ GHz^-1/2.
    """
    f = jnp.asarray(f_ghz, dtype=float)
    alpha = rf_loss_db_per_cm_sqrt_ghz / (20 * jnp.log10(jnp.e)) * jnp.sqrt(jnp.abs(f)) * 1e-4  # Np/µm
    beta_rf = 2 * jnp.pi * f * n_rf / C_UM_PER_NS
    beta_o = 2 * jnp.pi * f * n_g / C_UM_PER_NS
    gamma = alpha + 1j * beta_rf
    gl = (z_load_ohm - z0_ohm) / (z_load_ohm + z0_ohm)
    gs = (z_source_ohm - z0_ohm) / (z_source_ohm + z0_ohm)
    e2 = jnp.exp(-2 * gamma * length)
    vplus = z0_ohm / (z0_ohm + z_source_ohm) / (1 - gs * gl * e2)
    veff = vplus * (_mean_exp(gamma - 1j * beta_o, length) + gl * e2 * _mean_exp(-gamma - 1j * beta_o, length))
    v0 = z_load_ohm / (z_load_ohm + z_source_ohm)
    return jnp.abs(veff) / v0


def _first_crossing(fn, level, f_max_ghz, n=4000):
    """Lowest f (GHz) in (0, f_max] with fn(f) = level, or inf when fn stays above it."""
    from scipy.optimize import brentq

    grid = np.concatenate([[1e-3], np.geomspace(1e-3, f_max_ghz, n)[1:]])
    vals = np.asarray(fn(grid)) - level
    below = np.flatnonzero(vals < 0)
    if below.size == 0:
        return math.inf
    i = int(below[0])
    if i == 0:
        return float(grid[0])
    return float(brentq(lambda x: float(fn(np.asarray(x))) - level, grid[i - 1], grid[i], xtol=1e-9, rtol=1e-12))


@model_of(mzm)
def mzm_bandwidth_ghz(
    length=CELL,
    electrode_gap=CELL,
    signal_width=CELL,
    pad_size=CELL,
    transition_length=CELL,
    width=CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    wl=1.55,
    rf_loss_db_per_cm_sqrt_ghz=RF_LOSS_DB_PER_CM_SQRT_GHZ,
    z_source_ohm=50.0,
    z_load_ohm=50.0,
    n_rf=None,
    z0_ohm=None,
    f_max_ghz=2000.0,
    cross_section=CELL,
    sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
    cladding=CLADDING,
) -> float:
    """Electrical 3-dB EO bandwidth (GHz): the lowest f with 20·log10 m(f) = −3 dB (inf if none ≤ f_max).

    The 3-dB point of the detected RF power (EO S21, the convention of Wang et al. 2018);
    the optical 3-dB point (m = 1/2) lies higher. The traveling-wave length is the
    modulation length of ``modulators.mzm`` (``modulators.mzm_modulation_length``); n_RF
    and Z0 come from ``cpw_line`` at the straight section unless given; n_g from
    ``prismpic.pdk.ng`` (at the process's film, etch, wall angle and cladding; the line sees only the
    cladding). Geometry defaults are the ``mzm`` cell's (``width`` None: the cross-section's).
    """
    width = ridge_width(cross_section, width)
    check_range("rf_loss_db_per_cm_sqrt_ghz", rf_loss_db_per_cm_sqrt_ghz, 0.0, 100.0)
    lm = float(mzm_modulation_length(length, signal_width, pad_size, transition_length))
    line_n, line_z = cpw_line(signal_width, electrode_gap, film_thickness, etch_depth, cladding=cladding)
    n_rf = float(line_n) if n_rf is None else n_rf
    z0 = float(line_z) if z0_ohm is None else z0_ohm
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    n_g = float(dispersion.ng(wl, ridge))
    response = jax.jit(
        lambda f: mzm_eo_response(f, lm, n_rf, n_g, rf_loss_db_per_cm_sqrt_ghz, z0, z_source_ohm, z_load_ohm)
    )
    return _first_crossing(response, EO_3DB_RESPONSE, f_max_ghz)
