"""Optical and electro-optic material data, as differentiable functions of wavelength.

Wavelengths in µm. Each function checks (when its argument is concrete) that the
wavelength lies inside the range its source covers and raises ``ValueError`` otherwise.
Figures marked † were recalled from the literature rather than read from the paper;
see ../shared/REFERENCES.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range


@dataclass(frozen=True)
class Source:
    """Where a material figure comes from and where it is valid (µm)."""

    citation: str
    wl_min_um: float
    wl_max_um: float


def _sellmeier(wl, a, b):
    """n from n² = 1 + Σ Aᵢ λ² / (λ² − Bᵢ), λ in µm, Bᵢ in µm² (a JAX array; summed in NumPy on concrete input,
    where each eager jnp operation would compile once per shape)."""
    xp = jnp if isinstance(wl, jax.core.Tracer) else np
    wl2 = xp.asarray(wl, dtype=float) ** 2
    n2 = 1.0 + sum(ai * wl2 / (wl2 - bi) for ai, bi in zip(a, b, strict=True))
    return jnp.asarray(xp.sqrt(n2))


def _checked(name: str, src: Source, wl):
    check_range(f"wl (for {name})", wl, src.wl_min_um, src.wl_max_um, unit="µm")


# Congruent LiNbO3, Zelmon, Small & Jundt, JOSA B 14, 3319 (1997); 0.4–5.0 µm, 21 °C.
LN_E_SOURCE = Source("Zelmon, Small, Jundt, JOSA B 14, 3319 (1997), congruent LN, extraordinary", 0.4, 5.0)
LN_O_SOURCE = Source("Zelmon, Small, Jundt, JOSA B 14, 3319 (1997), congruent LN, ordinary", 0.4, 5.0)
_LN_E = ((2.9804, 0.5981, 8.9543), (0.02047, 0.0666, 416.08))
_LN_O = ((2.6734, 1.2290, 12.614), (0.01764, 0.05914, 474.6))


def n_ln_e(wl):
    """Extraordinary index of congruent LiNbO3 (field along crystal z)."""
    _checked("n_ln_e", LN_E_SOURCE, wl)
    return _sellmeier(wl, *_LN_E)


def n_ln_o(wl):
    """Ordinary index of congruent LiNbO3 (field along crystal x or y)."""
    _checked("n_ln_o", LN_O_SOURCE, wl)
    return _sellmeier(wl, *_LN_O)


# Fused silica, Malitson, JOSA 55, 1205 (1965); 0.21–3.71 µm, 20 °C.
SIO2_SOURCE = Source("Malitson, JOSA 55, 1205 (1965)", 0.21, 3.71)
_SIO2 = ((0.6961663, 0.4079426, 0.8974794), (0.0684043**2, 0.1162414**2, 9.896161**2))


def n_sio2(wl):
    """Refractive index of fused silica."""
    _checked("n_sio2", SIO2_SOURCE, wl)
    return _sellmeier(wl, *_SIO2)


AIR_SOURCE = Source("n = 1 (dispersion of air, ~3e-4, neglected)", 0.2, 20.0)


def n_air(wl):
    """Refractive index of air (taken as 1)."""
    _checked("n_air", AIR_SOURCE, wl)
    return jnp.ones_like(jnp.asarray(wl, dtype=float))


# Crystalline Si at 293 K, H. H. Li, J. Phys. Chem. Ref. Data 9, 561 (1980):
# n² = ε + A/λ² + B λ1²/(λ² − λ1²); 1.2–14 µm.
SI_SOURCE = Source("H. H. Li, J. Phys. Chem. Ref. Data 9, 561 (1980), 293 K", 1.2, 14.0)


def n_si(wl):
    """Refractive index of crystalline silicon (substrate)."""
    _checked("n_si", SI_SOURCE, wl)
    wl2 = jnp.asarray(wl, dtype=float) ** 2
    eps, a, b, l1 = 11.6858, 0.939816, 0.00810461, 1.1071
    return jnp.sqrt(eps + a / wl2 + b * l1**2 / (wl2 - l1**2))


# Tensile-strained Ge-on-Si near its direct gap: n ≈ 4.28 and absorption
# α ≈ 4000 /cm at 1.55 µm falling to ≈ 1000 /cm at 1.60 µm † (e.g. Michel, Liu &
# Kimerling, Nat. Photon. 4, 527 (2010)). Linear interpolation, 1.45–1.65 µm only.
GE_SOURCE = Source("Ge-on-Si near 1.55 µm, Michel, Liu, Kimerling, Nat. Photon. 4, 527 (2010) †", 1.45, 1.65)


def alpha_ge_per_cm(wl):
    """Absorption coefficient of tensile-strained Ge-on-Si (1/cm)."""
    _checked("alpha_ge_per_cm", GE_SOURCE, wl)
    wl = jnp.asarray(wl, dtype=float)
    return jnp.interp(wl, jnp.array([1.45, 1.55, 1.60, 1.65]), jnp.array([8000.0, 4000.0, 1000.0, 200.0]))


def n_ge(wl):
    """Complex index of Ge-on-Si, n + i k with k = α λ / 4π."""
    wl = jnp.asarray(wl, dtype=float)
    k = alpha_ge_per_cm(wl) * 1e2 * wl * 1e-6 / (4 * jnp.pi)
    return 4.28 - 0.02 * (wl - 1.55) + 1j * k


# Ge2Sb2Se4Te1 at 1.55 µm, Zhang et al., Nat. Commun. 10, 4279 (2019) †. Its
# dispersion over the C band is small against the state contrast; held constant
# and valid 1.50–1.60 µm only.
GSST_SOURCE = Source("Zhang et al., Nat. Commun. 10, 4279 (2019) †, held constant over the C band", 1.50, 1.60)
GSST_AMORPHOUS = 3.3 + 1e-4j
GSST_CRYSTALLINE = 5.1 + 0.35j


def n_gsst(wl, crystalline_fraction=0.0):
    """Complex index of GSST with a crystalline fraction in [0, 1].

    Effective medium by the Lorentz–Lorenz relation, as used for partially
    crystallised PCMs (e.g. Ríos et al., Nat. Photon. 9, 725 (2015)):
    (ε−1)/(ε+2) = f (ε_c−1)/(ε_c+2) + (1−f)(ε_a−1)/(ε_a+2).
    """
    _checked("n_gsst", GSST_SOURCE, wl)
    check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    f = jnp.asarray(crystalline_fraction, dtype=float)
    ea, ec = GSST_AMORPHOUS**2, GSST_CRYSTALLINE**2
    ll = f * (ec - 1) / (ec + 2) + (1 - f) * (ea - 1) / (ea + 2)
    eps = (1 + 2 * ll) / (1 - ll)
    return jnp.sqrt(eps) * jnp.ones_like(jnp.asarray(wl, dtype=float))


# Evaporated gold, Drude fit of Olmon et al., Phys. Rev. B 86, 235147 (2012): ħω_p = 8.45 eV, τ = 14 ± 3 fs,
# fitted over 0.05–4.14 eV; used 1.2–5 µm, below the interband edge (≈ 2.4 eV, 0.5 µm) it leaves out.
AU_SOURCE = Source("Olmon et al., Phys. Rev. B 86, 235147 (2012), evaporated Au, Drude fit", 1.2, 5.0)
AU_PLASMA_EV = 8.45
AU_RELAXATION_FS = 14.0
AU_RELAXATION_FS_RANGE = (11.0, 17.0)
_HBAR_EV_FS = 0.6582119569  # ħ in eV·fs
_HC_EV_UM = 1.239841984  # hc in eV·µm


def eps_au(wl, relaxation_fs=AU_RELAXATION_FS):
    """Complex relative permittivity of gold, ε = 1 − ω_p²/(ω(ω + i/τ)) (Im ε > 0: absorbing)."""
    _checked("eps_au", AU_SOURCE, wl)
    check_range("relaxation_fs", relaxation_fs, 1.0, 100.0, unit="fs")
    energy = _HC_EV_UM / jnp.asarray(wl, dtype=float)
    damping = _HBAR_EV_FS / jnp.asarray(relaxation_fs, dtype=float)
    return 1.0 - AU_PLASMA_EV**2 / (energy * (energy + 1j * damping))


# Electro-optic and thermo-optic coefficients of congruent LN near 1.55 µm.
R33_PM_PER_V = 30.9  # † standard bulk value (clamped, high frequency)
R13_PM_PER_V = 9.6  # † standard bulk value
DNE_DT_PER_K = 3.3e-5  # † Moretti et al., J. Appl. Phys. 98, 036101 (2005), 1.55 µm, 300 K
DNO_DT_PER_K = 0.3e-5  # † same source; the ordinary index barely moves
DN_SIO2_DT_PER_K = 0.95e-5  # fused silica near 1.55 µm, e.g. Leviton & Frey, Proc. SPIE 6273 (2006)
EO_SOURCE = "r33, r13: standard bulk values for congruent LiNbO3 (e.g. Weis & Gaylord, Appl. Phys. A 37, 191 (1985))"
LN_EPS_RF = (28.0, 44.0)  # relative permittivity at RF, (z, x/y) axes, Weis & Gaylord (1985)
EPS_SIO2_RF = 3.9  # relative permittivity of thermal/PECVD SiO2 at RF † (standard value)
EPS_SI_RF = 11.7  # relative permittivity of high-resistivity Si (substrate) at RF † (standard value)


def dn_dt(material: str):
    """Thermo-optic coefficient dn/dT (1/K) near 1.55 µm for 'ln_e', 'ln_o' or 'sio2'."""
    table = {"ln_e": DNE_DT_PER_K, "ln_o": DNO_DT_PER_K, "sio2": DN_SIO2_DT_PER_K}
    if material not in table:
        raise ValueError(f"material = {material!r} is not one of {sorted(table)}")
    return table[material]
