"""Straight-guide loss from physics: LN absorption plus sidewall-roughness scattering (Payne–Lacey).

Sidewall scattering. The etched wall of the rib is rough along the guide: its position wanders by a random
f(z) of RMS ``sigma_nm`` with an exponential autocorrelation of length ``correlation_nm``. Payne & Lacey, Opt.
Quantum Electron. 26, 977 (1994) give the power lost by the TE0 mode of a symmetric slab (half width d, core
n1, cladding n2) with both walls rough, in closed form:

    α = σ² / (√2 k0 d⁴ n1) · g(V) · f_e(x, γ),   g = U²V²/(1 + W),   x = W L_c/d,   γ = n2 V/(n1 W √Δ),
    f_e = x √(s + 1 − x²) / s,   s = √((1 + x²)² + 2x²γ²),

(U, W, V the slab's transverse parameters, Δ = (n1² − n2²)/2n1²). The closed form is the radiation integral of
the volume-current method, φ²(d)(n1² − n2²)² k0³/(4π n1) ∫₀^π R̃(β − n2 k0 cos θ) dθ per wall, done exactly
(``tests/pdk/test_scattering.py`` integrates it numerically).

The rib is reduced to that slab by the effective-index method: the core index is the TE0 index of the full
film, the cladding index that of the slab left beside the rib (the wall's index step is between the two), both
in the stack's claddings; the slab's width is the rib's at mid-etch (a sloped wall is wider at its foot). The
quasi-TE field is normal to the wall, the closed form is for a field along it: the prefactor differs by a factor
of order (n1/n2)² ≈ 1.3 at the default rib, which the calibration of σ absorbs; what the model carries is how the
loss moves with width, etch, film, cladding, wall angle and wavelength.

Defaults (``default_roughness()``): the correlation length is assumed (50 nm, range 20–100 nm; no TFLN figure
was read here); σ is calibrated (``calibrated_sigma_nm``) so that the rib of a 400 nm-film foundry stack
(Luxtelligence LNOI400: 1.0 µm rib, 200 nm etch, 76.5° walls, SiO2, the ``tfln400`` platform) shows that
PDK's 0.2 dB/cm at 1.55 µm. Its spread (``SIGMA_RANGE_LOSSES``) maps published losses to σ on that rib: the
lowest TFLN loss reported, 1.3 dB/m (Zhu et al., arXiv:2402.16161 (2024), Q_i 2.9e7), to the 0.37 dB/cm of a
measured air-clad ring (Wang et al., Nat. Commun. 10, 978 (2019)).

Absorption: 0.2 dB/m, the material limit of annealed ion-sliced TFLN at telecom wavelengths (Shams-Ansari et al.,
APL Photonics 7, 081301 (2022), arXiv:2203.17133: Q ≈ 1.8e8), taken as wavelength-independent over 1.45–1.65 µm.

Lengths in µm unless the name says nm; losses in dB/cm.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice, check_range, concrete
from prismpic.pdk import materials
from prismpic.pdk.bend_radiation import array_module, slab_te0_index
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import CLADDINGS

_DB_PER_CM = 1e4 * 10.0 / np.log(10.0)  # power attenuation 1/µm -> dB/cm

MATERIAL_ABSORPTION_DB_PER_CM = 0.002  # Shams-Ansari et al. (2022), 0.2 dB/m
SIGMA_NM_RANGE = (0.05, 20.0)  # nm, RMS wall roughness accepted
CORRELATION_NM_RANGE = (5.0, 500.0)  # nm, correlation length accepted
CORRELATION_NM = 50.0  # nm, assumed
CORRELATION_NM_SPREAD = (20.0, 100.0)  # nm, assumed
# the calibration rib: the tfln400 platform's xs_rwg1000 straight and its PDK loss (pdk/platforms.py)
CALIBRATION_RIDGE = RidgeStack(width=1.0, film_thickness=0.4, etch_depth=0.2, sidewall_angle_deg=76.5,
                               cladding="sio2")
CALIBRATION_LOSS_DB_PER_CM = 0.2
CALIBRATION_WL = 1.55
# published losses that bound σ on the calibration rib (dB/cm): Zhu et al. 2024, Wang et al. 2019
SIGMA_RANGE_LOSSES = (0.013, 0.37)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, kw_only=True)
class Roughness:
    """Sidewall roughness of the etched rib: a process parameter.

    Args:
        sigma_nm: RMS wall-position deviation (nm).
        correlation_nm: correlation length of its exponential autocorrelation (nm).
    """

    sigma_nm: float
    correlation_nm: float = CORRELATION_NM

    def __post_init__(self):
        check_range("sigma_nm", self.sigma_nm, *SIGMA_NM_RANGE, unit="nm")
        check_range("correlation_nm", self.correlation_nm, *CORRELATION_NM_RANGE, unit="nm")


def lateral_slab(wl, ridge: RidgeStack, crystal_axis: str = "z"):
    """The effective-index slab of a rib: (core index, cladding index, half width µm) — the TE0 indices of the full
    film and of the slab beside the rib in the stack's claddings, and half the rib's width at mid-etch."""
    check_choice("crystal_axis", crystal_axis, ("z", "y"))
    core = materials.n_ln_e(wl) if crystal_axis == "z" else materials.n_ln_o(wl)
    below = materials.n_sio2(wl)
    above = below if ridge.cladding == "sio2" else materials.n_air(wl)
    n1 = slab_te0_index(wl, ridge.film_thickness, core, below, above)
    n2 = slab_te0_index(wl, ridge.slab, core, below, above)
    xp = jnp if isinstance(ridge.sidewall_angle_deg, jax.core.Tracer) else np
    cot = 1.0 / xp.tan(xp.deg2rad(ridge.sidewall_angle_deg))
    return n1, n2, 0.5 * (ridge.width + ridge.etch_depth * cot)


def payne_lacey_per_um(wl, n1, n2, half_width, sigma_um, correlation_um):
    """Power attenuation (1/µm) of a symmetric slab's TE0 mode by both walls' roughness (Payne & Lacey 1994).

    Args:
        wl: wavelength (µm).
        n1, n2: core and cladding indices.
        half_width: core half width d (µm).
        sigma_um: RMS roughness (µm).
        correlation_um: correlation length (µm).
    """
    args = (wl, n1, n2, half_width, sigma_um, correlation_um)
    # NumPy on concrete inputs (the interpolant's nodes, the σ calibration): eager jnp compiles each op per shape
    xp = jnp if any(isinstance(a, jax.core.Tracer) for a in args) else np
    wl, n1, n2, d, sigma_um, correlation_um = (xp.asarray(a, dtype=float) for a in args)
    k0 = 2 * np.pi / wl
    nmode = xp.asarray(slab_te0_index(wl, 2 * d, n1, n2, n2))
    v = k0 * d * xp.sqrt(n1**2 - n2**2)
    u = k0 * d * xp.sqrt(xp.clip(n1**2 - nmode**2, 1e-30, None))
    w = k0 * d * xp.sqrt(xp.clip(nmode**2 - n2**2, 1e-30, None))
    delta = (n1**2 - n2**2) / (2 * n1**2)
    g = u**2 * v**2 / (1 + w)
    x = w * correlation_um / d
    gam = n2 * v / (n1 * w * xp.sqrt(delta))
    s = xp.sqrt((1 + x**2) ** 2 + 2 * x**2 * gam**2)
    f_e = x * xp.sqrt(s + 1 - x**2) / s
    return sigma_um**2 / (np.sqrt(2.0) * k0 * d**4 * n1) * g * f_e


def sidewall_scattering_db_per_cm(wl, ridge: RidgeStack, roughness: Roughness | None = None,
                                  crystal_axis: str = "z"):
    """Sidewall-roughness scattering loss of a straight rib's TE mode (dB/cm).

    Args:
        wl: wavelength (µm).
        ridge: the rib and its stack.
        roughness: the process's roughness (default ``default_roughness()``).
        crystal_axis: the crystal axis of the TE field, "z" or "y" (X-cut film).
    """
    rough = roughness or default_roughness()
    n1, n2, d = lateral_slab(wl, ridge, crystal_axis)
    alpha = payne_lacey_per_um(wl, n1, n2, d, rough.sigma_nm * 1e-3, rough.correlation_nm * 1e-3)
    return _DB_PER_CM * alpha


def straight_loss_db_per_cm(wl, ridge: RidgeStack, roughness: Roughness | None = None, crystal_axis: str = "z"):
    """A straight rib's propagation loss from physics (dB/cm): material absorption plus sidewall scattering."""
    return MATERIAL_ABSORPTION_DB_PER_CM + sidewall_scattering_db_per_cm(wl, ridge, roughness, crystal_axis)


def ring_scattering_db_per_cm(wl, ridge: RidgeStack, roughness: Roughness | None = None):
    """Sidewall scattering averaged around a ring of X-cut film (dB/cm): the TE field turns from crystal z to y,
    and the loss rate's average over the angle is the mean of the two axes' rates."""
    return 0.5 * (sidewall_scattering_db_per_cm(wl, ridge, roughness, "z")
                  + sidewall_scattering_db_per_cm(wl, ridge, roughness, "y"))


def checked_loss_db_per_cm(loss_db_per_cm):
    """A model's ``loss_db_per_cm`` checked: None (from physics) as is, a number in [0, 100] dB/cm (a ValueError
    naming it outside; NaN where a traced value is out of range, the jit contract of ``prismpic.checks``)."""
    if loss_db_per_cm is None:
        return None
    return check_range("loss_db_per_cm", loss_db_per_cm, 0.0, 100.0, unit="dB/cm")


def propagation_loss_db_per_cm(wl, ridge: RidgeStack, loss_db_per_cm=None, direction_rad=0.0):
    """A guide's propagation loss (dB/cm): ``loss_db_per_cm`` as typed, or for None the loss from physics at the
    default roughness (absorption + sidewall scattering, the closed form's interpolant ``default_scattering_fit``)
    of a TE field running at ``direction_rad`` from crystal y in the X-cut film (0: field along z; the rates mix as
    cos², sin², like the index), or around a ring for "ring" (the mean of both axes). Electrode gold is not in it
    (``components.loss_budget``)."""
    if loss_db_per_cm is not None:
        return loss_db_per_cm
    fit = default_scattering_fit(ridge.cladding)
    ring = isinstance(direction_rad, str) and direction_rad == "ring"
    # concrete inputs in NumPy (the fits' own sums): an eager jnp operation compiles a program per new shape
    xp = array_module(wl, ridge, None if ring else direction_rad)
    u = (wl, ridge.width, ridge.film_thickness, ridge.etch_depth / ridge.film_thickness, ridge.sidewall_angle_deg)
    z, y = (xp.exp(fit[axis](*u) if xp is jnp else fit[axis].numpy(*u)) for axis in ("z", "y"))
    c2 = 0.5 if ring else xp.cos(direction_rad) ** 2
    return jnp.asarray(MATERIAL_ABSORPTION_DB_PER_CM + z * c2 + y * (1.0 - c2))


# Nodes of the default-roughness interpolant over the mode tables' TE domain (``dispersion.domain()["te"]``; width
# in 1/width). Measured against the closed form at 300 random points per cladding and axis: within 1.7e-4 (SiO2),
# 5.2e-3 (air, near the slab's cut-off); (3, 6, 6, 6, 3) nodes missed by up to 9e-3.
SCATTERING_GRID = {"wl": (1.45, 1.65, 3), "width": (0.8, 2.2, 8), "film": (0.3, 0.8, 8),
                   "etch_fraction": (0.3, 0.8, 8), "angle": (60.0, 90.0, 4)}


@functools.cache
def default_scattering_fit(cladding: str) -> dict:
    """{crystal axis: ChebyshevFit of ln(sidewall scattering, dB/cm)} at the default roughness over
    (wl, width, film, etch fraction, wall angle) for one cladding: the closed form (``sidewall_scattering_db_per_cm``)
    at ``SCATTERING_GRID``'s Lobatto nodes, built once in NumPy (< 1 s). The models read it instead of the closed
    form, whose six slab-index bisections per wavelength cost ≈ 27× a straight guide's evaluation and ≈ 1 s of
    compilation in every model."""
    from prismpic.pdk.chebyshev import ChebyshevFit, coefficients_from_nodes, node_values

    check_choice("cladding", cladding, CLADDINGS)
    mesh = np.meshgrid(*(node_values(k, *v) for k, v in SCATTERING_GRID.items()), indexing="ij")
    wl, width, film, fraction, angle = mesh
    ridge = RidgeStack(width=width, film_thickness=film, etch_depth=fraction * film, sidewall_angle_deg=angle,
                       cladding=cladding)
    out = {}
    with jax.ensure_compile_time_eval():
        for axis in ("z", "y"):
            v = np.log(np.asarray(sidewall_scattering_db_per_cm(wl, ridge, default_roughness(), axis)))
            out[axis] = ChebyshevFit(SCATTERING_GRID, coefficients_from_nodes(v, range(v.ndim)))
    return out


def sigma_for_loss_nm(loss_db_per_cm: float, correlation_nm: float = CORRELATION_NM,
                      ridge: RidgeStack = CALIBRATION_RIDGE, wl: float = CALIBRATION_WL) -> float:
    """The RMS roughness (nm) at which ``ridge`` shows ``loss_db_per_cm`` (absorption included), at the given
    correlation length; α ∝ σ², so one evaluation at a reference σ scales to it."""
    check_range("loss_db_per_cm", loss_db_per_cm, MATERIAL_ABSORPTION_DB_PER_CM, 100.0, unit="dB/cm", lo_open=True)
    ref = Roughness(sigma_nm=1.0, correlation_nm=correlation_nm)
    with jax.ensure_compile_time_eval():  # a number even when first asked for under a trace
        per_nm2 = float(concrete(sidewall_scattering_db_per_cm(wl, ridge, ref)))
    return float((loss_db_per_cm - MATERIAL_ABSORPTION_DB_PER_CM) / per_nm2) ** 0.5


@functools.cache
def calibrated_sigma_nm(correlation_nm: float = CORRELATION_NM) -> float:
    """σ (nm) that gives the calibration rib its PDK loss (0.2 dB/cm) at this correlation length."""
    return sigma_for_loss_nm(CALIBRATION_LOSS_DB_PER_CM, correlation_nm)


def default_roughness() -> Roughness:
    """The default process roughness: the assumed correlation length and the σ calibrated to the foundry rib."""
    return Roughness(sigma_nm=calibrated_sigma_nm(CORRELATION_NM), correlation_nm=CORRELATION_NM)


def roughness_spread() -> dict[str, Roughness]:
    """The roughness corners: σ from the lowest published TFLN loss to a measured ring's (``SIGMA_RANGE_LOSSES``
    on the calibration rib), the correlation length over its assumed range with σ recalibrated to the foundry
    loss: {name: Roughness}."""
    lo, hi = SIGMA_RANGE_LOSSES
    out = {"default": default_roughness(),
           "smoothest published": Roughness(sigma_nm=sigma_for_loss_nm(lo), correlation_nm=CORRELATION_NM),
           "roughest published": Roughness(sigma_nm=sigma_for_loss_nm(hi), correlation_nm=CORRELATION_NM)}
    for lc in CORRELATION_NM_SPREAD:
        out[f"L_c {lc:g} nm"] = Roughness(sigma_nm=calibrated_sigma_nm(lc), correlation_nm=lc)
    return out
