"""Ring physics shared by the ring cells and models, banks, calibration and examples: the public API.

Coupling (``coupling_angle``, ``coupler_fields``), the round trip (``ring_neff``, ``ring_ng``,
``round_trip_loss_db``, ``ring_round_trip``), tuning (``pockels_dneff_dv``, ``ring_tuning_pm_per_v``,
``thermo_optic_dneff_dt``), the bus (``bus_transmission``), the add-drop response (``add_drop_fields``)
(the checks of a ring's inputs: ``ring_checks``). Every length in µm, wavelengths in µm.
The physics and its sources are described in ``prismpic.components.rings``.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range
from prismpic.components.ring_design import (  # noqa: F401 (the ring's defaults, read as ring_physics.GAP …)
    DEFAULT,
    ELECTRODE_COVERAGE,
    ELECTRODE_GAP,
    GAP,
    RingDesign,
)
from prismpic.components.units import db_to_amplitude
from prismpic.pdk import coupler_table, dispersion, electrodes, materials, scattering
from prismpic.pdk.cross_sections import RIDGE_WIDTH, RING_RADIUS, SLAB_MARGIN
from prismpic.pdk.ridge_stack import DEFAULT as DEFAULT_RIDGE
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import LOSS_DB_PER_CM

MAX_GAP = 2.0  # µm; beyond this the coupling of the 0.3 µm-slab ridge is negligible for any ring
PLATE_CLEARANCE = 1.5  # µm, bus ridge edge to the tuning plate (rule: ≥ RULES.min_metal_to_ridge)
ELECTRODE_WIDTH = 10.0  # µm, plate height
INDEX_CORRECTION_WL_UM = 1.55  # λ0 of the effective-index correction (``index_correction``)
INDEX_CORRECTION_MAX = 0.12  # |Δn_eff|, |Δn_g| allowed: about 5 % of the ridge's n_g
_COUPLER_SPAN = 3.0  # µm: the coupler integral runs where g(z) − gap ≤ this (tail erfc(√(3γ)) < 1e-5 of Φ for γ ≥ 3/µm)
_EN, _EW = np.polynomial.legendre.leggauss(48)


# ---------------------------------------------------------------------------- coupling
def coupling_angle(wl=1.55, gap=GAP, radius=RING_RADIUS, ridge: RidgeStack = DEFAULT_RIDGE):
    """Coupling angle Φ = ∫ C(g(z)) dz (rad) of a straight bus to a ring; κ = sin Φ, t = cos Φ.

    Args:
        wl: wavelength (µm), scalar or array.
        gap: bus-to-ring edge gap at the closest point (µm).
        radius: ring radius at the ridge centre (µm).
        ridge: the ridge of bus and ring and its stack (``RidgeStack``).
    """
    check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")  # concrete values (the fits jit this)
    check_range("gap", gap, RULES.min_ridge_gap, MAX_GAP, unit="µm")
    wl = jnp.asarray(wl, dtype=float)
    g, w = coupler_local_gaps(gap, radius, ridge)
    return jnp.sum(coupling_per_um_extended(wl[..., None], g, ridge) * w, axis=-1)


def coupler_local_gaps(gap, radius, ridge: RidgeStack, xp=jnp):
    """(g, w): the coupler integral's nodes as local bus-to-ring gaps g (µm) and their weights w (µm), so that
    Φ = Σ w·C(g); ``xp`` the array module (NumPy for checks on concrete values).

    The integral runs in u = √(g − gap): the local gap g(z) = gap + R_o − √(R_o² − z²) gives z = u√(2R_o − u²),
    smooth in u, over u ∈ [0, √``_COUPLER_SPAN``] and both halves of the coupler. Its Gauss panels split where
    C(g) has a kink: the feet's merge (``coupler_table.merge_gap``; the supermode solves' slope of ln C jumps 10×
    there at 70° walls) and the start of the exponential continuation (``coupling_per_um_extended``). With fixed
    nodes across a kink, Φ would carry a small kink wherever it crosses a node as the geometry moves, and a fit over
    gaps and walls stalls on them; split there, Φ is smooth (C¹) in every parameter.
    """
    r_out = radius + ridge.width / 2
    u_merge = gap_coordinate(coupler_table.merge_gap(ridge) - gap, xp)
    u_fit = xp.maximum(gap_coordinate(fit_max_gap() - gap, xp), u_merge)
    u, du = gauss_panels([xp.zeros_like(u_merge), u_merge, u_fit, xp.full_like(u_merge, math.sqrt(_COUPLER_SPAN))],
                         (32, 32, 16), xp)
    dz_du = 2 * (r_out - u**2) / xp.sqrt(2 * r_out - u**2)
    return gap + u**2, 2 * du * dz_du


def gap_coordinate(depth, xp=jnp):
    """u = √depth (µm^½) of a local gap ``depth`` µm beyond the closest one, clipped to [0, ``_COUPLER_SPAN``], with a
    finite gradient at 0."""
    d = xp.clip(depth, 0.0, _COUPLER_SPAN)
    return xp.where(d > 0, xp.sqrt(xp.where(d > 0, d, 1.0)), 0.0)


def gauss_panels(edges, counts, xp=jnp):
    """(nodes, weights) along a last axis: Gauss–Legendre panels between consecutive ``edges`` (arrays of one shape,
    non-decreasing; a panel of zero length gets zero weights) with ``counts`` nodes each."""
    nodes, weights = [], []
    for a, b, n in zip(edges[:-1], edges[1:], counts, strict=True):
        t, w = np.polynomial.legendre.leggauss(n)
        span = (xp.asarray(b) - xp.asarray(a))[..., None]
        nodes.append(xp.asarray(a)[..., None] + span * 0.5 * (t + 1.0))
        weights.append(span * 0.5 * w)
    return xp.concatenate(nodes, axis=-1), xp.concatenate(weights, axis=-1)


def fit_max_gap() -> float:
    """Largest gap (µm) the dispersion model's coupling fit covers (its ``domain()``)."""
    return float(dispersion.domain()["coupler"]["gap"][1])


def coupling_per_um_extended(wl, gap, ridge: RidgeStack = DEFAULT_RIDGE):
    """``prismpic.pdk.coupling_per_um`` (1/µm), continued beyond the fit's largest gap g_m as an exponential.

    Evanescent coupling decays as e^{−γ g} at large gaps (coupled-mode theory); γ is the fit's
    log-slope over [g_m − 0.1, g_m]. Only the coupler integral's tail (and rings with gaps
    beyond g_m) use the continuation.
    """
    g_m = fit_max_gap()
    c = dispersion.coupling_per_um(wl, jnp.minimum(gap, g_m), ridge)
    c_m = dispersion.coupling_per_um(wl, g_m, ridge)
    gamma = jnp.log(dispersion.coupling_per_um(wl, g_m - 0.1, ridge) / c_m) / 0.1
    return jnp.where(gap > g_m, c_m * jnp.exp(-gamma * (gap - g_m)), c)


# ---------------------------------------------------------------------------- index and loss
def _direction_average(index_fn, wl, radius, ridge):
    """(f_z + f_y)/2 of a TE index function of ``prismpic.pdk.dispersion`` at the bend radius: the X-cut ring's
    round-trip average (its direction turns once, n(φ) = n_z cos²φ + n_y sin²φ)."""
    return 0.5 * (index_fn(wl, ridge, radius, "te", "z") + index_fn(wl, ridge, radius, "te", "y"))


def ring_neff(wl=1.55, radius=RING_RADIUS, ridge: RidgeStack = DEFAULT_RIDGE):
    """Round-trip-averaged n_eff of the X-cut ring: (n_z + n_y)/2 at the bend radius."""
    return _direction_average(dispersion.neff, wl, radius, ridge)


def ring_ng(wl=1.55, radius=RING_RADIUS, ridge: RidgeStack = DEFAULT_RIDGE):
    """Round-trip-averaged group index of the X-cut ring: (n_g,z + n_g,y)/2 at the bend radius."""
    return _direction_average(dispersion.ng, wl, radius, ridge)


def index_correction(wl, dneff=0.0, dng=0.0):
    """δn(λ) = Δn_eff + (Δn_eff − Δn_g)(λ − λ0)/λ0 added to the ring's n_eff (λ in µm, λ0 = 1.55 µm).

    n_eff(λ0) moves by Δn_eff and n_g = n_eff − λ·dn_eff/dλ by Δn_g at every λ: what a calibration adds when
    the geometry within its process priors cannot reproduce a measured ring (material index, stress, the
    dispersion model's own error). Both 0 for a designed ring.
    """
    return dneff + (dneff - dng) * (wl - INDEX_CORRECTION_WL_UM) / INDEX_CORRECTION_WL_UM


def round_trip_loss_db(wl=1.55, radius=RING_RADIUS, ridge: RidgeStack = DEFAULT_RIDGE,
                       loss_db_per_cm=LOSS_DB_PER_CM):
    """Propagation plus bend radiation loss (dB) of one round trip, couplers excluded; ``loss_db_per_cm`` None:
    the propagation loss from physics (``scattering.propagation_loss_db_per_cm``)."""
    bend = dispersion.bend_loss_db_per_cm(wl, radius, ridge)
    return (scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm, "ring") + bend) * 2 * jnp.pi * radius * 1e-4


def thermo_optic_dneff_dt(wl=1.55, radius=RING_RADIUS, ridge: RidgeStack = DEFAULT_RIDGE):
    """Round-trip-averaged dn_eff/dT (1/K) of the ring.

    First-order perturbation with the LN overlap Γ (``eo_overlap``, which is ∂n_eff/∂n_LN):
    Δn_eff = Γ ⟨Δn_LN⟩ + (n_ox/n_eff)(1 − f_LN) Δn_ox, with ⟨Δn_LN⟩ the angle average
    (dn_e/dT + dn_o/dT)/2 · ΔT (TE along z on half the turn), and the LN power fraction
    f_LN ≈ Γ n_eff/n_e (weak-guidance form of Γ; Wooten et al., JSTQE 6, 69 (2000)). The
    rest of the field is taken to be in SiO2. Thermal expansion of the ring is neglected.
    """
    gamma = dispersion.eo_overlap(wl, ridge)
    n = ring_neff(wl, radius, ridge)
    f_ln = jnp.clip(gamma * n / materials.n_ln_e(wl), 0.0, 1.0)
    ln = gamma * 0.5 * (materials.DNE_DT_PER_K + materials.DNO_DT_PER_K)
    ox = materials.n_sio2(wl) / n * (1.0 - f_ln) * materials.DN_SIO2_DT_PER_K
    return ln + ox


# ---------------------------------------------------------------------------- Pockels tuning
def plate_offset(radius=RING_RADIUS, width=RIDGE_WIDTH, gap=GAP, gap_drop=None):
    """Distance (µm) from the ring centre to the inner edge of each tuning plate.

    The plates lie beyond the buses (PLATE_CLEARANCE from the bus ridge); both at the
    larger of the two gaps, so that the layout is symmetric about the ring's horizontal axis.
    """
    gap_drop = gap if gap_drop is None else gap_drop
    return radius + width / 2 + jnp.maximum(gap, gap_drop) + width + PLATE_CLEARANCE


def electrode_inverse_gap(ring: RingDesign = DEFAULT):
    """1/g_eff (1/µm): the round-trip-averaged Pockels index change is ½ n_e³ r33 Γ V / g_eff.

    Electrode layout (crossing-free, two terminals): a plate beyond each bus (e1 below the
    through bus, e2 above the drop bus) and a floating metal disk inside the ring whose
    edge lies ``electrode_gap`` from each plate at the couplers. By the up–down symmetry the
    disk floats at V/2, so V = V(e2) − V(e1) drops as V/2 across each gap and the field
    points along −z (layout −y) at both the top and the bottom of the ring: the two halves
    tune the same way (a radial field from one inner electrode would cancel, since E_z
    changes sign between them). Where the ring runs along crystal y (ψ = ±90°, position
    angle from the x axis) its TE field is along z; its z-fraction is sin²ψ, so with the
    r33 term only (Zhang et al., Optica 4, 1536 (2017); Wang et al., Nat. Commun. 9 (2018)
    for X-cut ring tuning)

        Δn_eff(ψ) = ½ n_e³ r33 Γ · (V/2)/d(ψ) · sin²ψ,   d(ψ) = y_p − √(r_i² − x²), x = R cos ψ,

    a parallel-plate field over the local vertical distance d between the disk (radius r_i)
    and the plate (at y_p); averaged over the turn, with the two plates covering the arcs
    |ψ ∓ 90°| ≤ coverage·90°: 1/g_eff = (1/2π) ∫_top sin²ψ / d(ψ) dψ. Neglected: the r13
    and r42 (shear) terms of the radial-polarised parts and fringing fields; the field also
    crosses the buses (a phase on through and drop only).
    """
    psi, w, d, _ = _arc_sections(ring)
    return jnp.sum(w * jnp.sin(psi) ** 2 / d) / (2 * jnp.pi)


def _arc_sections(ring: RingDesign):
    """(ψ, weights, d(ψ), u(ψ)) on the top plate's arc: Gauss nodes of ψ (rad) with their weights, the local
    disk-to-plate distance d (µm) and the ring ridge's offset u (µm) from the middle of that gap."""
    radius = ring.radius
    y_p = plate_offset(radius, ring.ridge.width, ring.gap, ring.gap_drop)
    r_i = y_p - ring.electrode_gap
    half = ring.electrode_coverage * jnp.pi / 2
    psi = jnp.pi / 2 + half * _EN
    u = r_i**2 - (radius * jnp.cos(psi)) ** 2
    inside = u > 0
    y_d = jnp.where(inside, jnp.sqrt(jnp.where(inside, u, 1.0)), 0.0)
    d = y_p - y_d
    return psi, half * _EW, d, radius * jnp.sin(psi) - 0.5 * (y_p + y_d)


def ring_field_inverse_gap(ring: RingDesign = DEFAULT):
    """⟨f/g⟩ (1/µm): ``electrode_inverse_gap`` with the electrostatic field factor of each cross-section.

    (1/2π) ∫_top sin²ψ f(d(ψ), u(ψ))/d(ψ) dψ, with f = ``prismpic.pdk.electrodes.field_factor`` of a ridge
    offset u(ψ) from the middle of a gap d(ψ) between electrodes on the slab (``electrode_height`` None) or
    ``electrode_height`` µm above the film on the SiO2 cladding (plate and disk both), at the ring's width, film,
    etch, wall angle and cladding: the same field factor (and FEM) as the phase shifter and the MZM, so a
    ring section and a phase shifter with the same electrode cross-section shift n_eff alike. Where d
    leaves the fit's domain (2.8–20 µm; arcs far from the couplers with ``electrode_coverage`` near 1) f is
    taken at the nearest domain edge and the offset is clipped to the clearance range; the bus ridge in the
    gap and the curvature of the electrodes are left out (the fit's cross-section holds one ridge).
    """
    width = ring.ridge.width
    psi, w, d, u = _arc_sections(ring)
    g_lo, g_hi = electrodes.DOMAIN["electrode_gap"]
    g = jnp.clip(d, jnp.maximum(g_lo, width + 2 * RULES.min_metal_to_ridge), g_hi)
    umax = electrodes.offset_range(g, width)
    f = electrodes.field_factor(g, ring.ridge, jnp.clip(u, -umax, umax), ring.electrode_height)
    return jnp.sum(w * jnp.sin(psi) ** 2 * f / d) / (2 * jnp.pi)


def pockels_dneff_dv(wl=1.55, ring: RingDesign = DEFAULT):
    """Round-trip-averaged dn_eff/dV (1/V) of the ring: ½ n_e³ r33 Γ ⟨f/g⟩ (> 0: red shift).

    Γ = ``prismpic.pdk.eo_overlap``, ⟨f/g⟩ = ``ring_field_inverse_gap`` (the electrostatic field factor of
    the electrode layout, the same as the phase shifter's and the MZM's).
    """
    gamma = dispersion.eo_overlap(wl, ring.ridge)
    r33 = materials.R33_PM_PER_V * 1e-6  # µm/V
    return 0.5 * materials.n_ln_e(wl) ** 3 * r33 * gamma * ring_field_inverse_gap(ring)


def ring_tuning_pm_per_v(wl=1.55, ring: RingDesign = DEFAULT):
    """Resonance shift per volt (pm/V): Δλ/ΔV = λ (dn_eff/dV)/n_g."""
    return wl * pockels_dneff_dv(wl, ring) / ring_ng(wl, ring.radius, ring.ridge) * 1e6


def default_bus_length(radius=RING_RADIUS, width=RIDGE_WIDTH):
    """Bus length (µm) when ``bus_length`` is None: the ring's slab band plus a ridge width each side."""
    check_range("radius", radius, 0.0, math.inf, unit="µm", lo_open=True, hi_open=True)
    check_range("width", width, 0.0, math.inf, unit="µm", lo_open=True, hi_open=True)
    return 2 * (radius + width + SLAB_MARGIN)


# ---------------------------------------------------------------------------- round trip
def ring_round_trip(wl=1.55, ring: RingDesign = DEFAULT, voltage_v=0.0, delta_t_k=0.0):
    """(a, θ): round-trip field amplitude (couplers excluded) and phase (rad) of the ring at the plate voltage
    ``voltage_v`` (V) and temperature change ``delta_t_k`` (K); the calibrated index correction of the design
    (``dneff``, ``dng``: ``index_correction``) included."""
    wl = jnp.asarray(wl, dtype=float)
    n = (
        ring_neff(wl, ring.radius, ring.ridge)
        + index_correction(wl, ring.dneff, ring.dng)
        + voltage_v * pockels_dneff_dv(wl, ring)
        + delta_t_k * thermo_optic_dneff_dt(wl, ring.radius, ring.ridge)
    )
    theta = 2 * jnp.pi / wl * 2 * jnp.pi * ring.radius * n
    a = db_to_amplitude(round_trip_loss_db(wl, ring.radius, ring.ridge, ring.loss_db_per_cm))
    return a, theta


def bus_transmission(wl, length, ridge: RidgeStack = DEFAULT_RIDGE, loss_db_per_cm=LOSS_DB_PER_CM):
    """Field transmission of a straight bus of ``length`` µm along crystal y (the same as ``straight_model``);
    ``loss_db_per_cm`` None: from physics."""
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    loss = scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm)
    return db_to_amplitude(loss * length * 1e-4) * jnp.exp(2j * jnp.pi * n * length / wl)


def add_drop_fields(t1, k1, t2, k2, a, theta):
    """Through, drop, add→drop fields of an add-drop ring (buses excluded).

    Couplers [[t, iκ], [iκ, t]] (t, κ may carry an excess-loss factor η, t² + κ² = η²);
    a e^{iθ} the round trip. Bogaerts et al. (2012), eqs. (3)–(4):
    through = (t1 − η1² t2 a e^{iθ})/D, drop = −κ1κ2 √a e^{iθ/2}/D, D = 1 − t1 t2 a e^{iθ}.
    """
    e = a * jnp.exp(1j * theta)
    den = 1.0 - t1 * t2 * e
    through = (t1 - (t1**2 + k1**2) * t2 * e) / den
    drop = -k1 * k2 * jnp.sqrt(a) * jnp.exp(0.5j * theta) / den
    add_drop = (t2 - (t2**2 + k2**2) * t1 * e) / den
    return through, drop, add_drop


def ring_ports(wl, ring: RingDesign, voltage_v, delta_t_k, bus_length, kind: str) -> dict:
    """The ring's port fields, buses included: {(o1, o2): through, (o1, o4): drop, (o3, o2): drop,
    (o3, o4): add→drop} of an add-drop ring, {(o1, o2): through} of an all-pass one (``kind``); the
    physics of ``rings.ring_add_drop_model`` and ``ring_all_pass_model``. ``bus_length`` in µm."""
    t1, k1, t2, k2 = coupler_fields(wl, ring)
    if kind == "all_pass":  # no drop coupler: Bogaerts (2012), eq. (1)
        t2, k2 = 1.0, 0.0
    a, theta = ring_round_trip(wl, ring, voltage_v, delta_t_k)
    through, drop, add_drop = add_drop_fields(t1, k1, t2, k2, a, theta)
    b = bus_transmission(wl, bus_length, ring.ridge, ring.loss_db_per_cm)
    if kind == "all_pass":
        return {("o1", "o2"): b * through}
    return {("o1", "o2"): b * through, ("o1", "o4"): b * drop, ("o3", "o2"): b * drop, ("o3", "o4"): b * add_drop}


def coupler_fields(wl, ring: RingDesign = DEFAULT):
    """(t1, κ1, t2, κ2) of the input and drop couplers, with the excess-loss amplitude η on each (the drop
    coupler at ``ring.drop_gap``)."""
    eta = db_to_amplitude(ring.coupler_loss_db)
    p1 = coupling_angle(wl, ring.gap, ring.radius, ring.ridge)
    p2 = p1 if ring.gap_drop is None else coupling_angle(wl, ring.gap_drop, ring.radius, ring.ridge)
    return eta * jnp.cos(p1), eta * jnp.sin(p1), eta * jnp.cos(p2), eta * jnp.sin(p2)
