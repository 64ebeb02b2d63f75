"""Microring resonators on X-cut TFLN: all-pass and add-drop rings; cells, models and specs.

Physics, all derived from the geometry (the one rule):

- Bus–ring coupling: point coupler from coupled-mode theory. The local edge-to-edge gap
  between the straight bus and the ring's outer edge (radius R_o = R + w/2) is
  g(z) = gap + R_o − √(R_o² − z²); with C(g) = ``prismpic.pdk.coupling_per_um`` of two
  parallel identical ridges, Φ = ∫ C(g(z)) dz, κ = sin Φ, t = cos Φ (lossless, unitary,
  reciprocal; e.g. Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), sec. 2). When C is
  exponential, C0 e^{−γg}, Φ → C0 e^{−γ gap} √(2πR_o/γ). The phase mismatch between the
  bent ring mode and the bus mode is neglected, as in that standard treatment.
- Round trip: the ring direction φ (from crystal y) turns once; the TE index of X-cut LN
  is n_eff(φ) = n_z cos²φ + n_y sin²φ (``waveguides.neff_along``), so
  Φ_rt = (2π/λ) R ∫₀^{2π} n_eff dφ = (2π/λ)·2πR·(n_z + n_y)/2, because ∫₀^{2π} cos²φ dφ = π.
  Likewise n_g = (n_g,z + n_g,y)/2, and each half of the ring (coupler to coupler) carries
  exactly half the phase (n_eff has period π in φ).
- Loss: ``loss_db_per_cm`` plus the bend radiation loss at R, and a coupler excess loss
  ``coupler_loss_db`` per coupler pass (amplitude η = 10^(−dB/20) on t and κ).
- Response: the add-drop / all-pass formulas of Bogaerts et al. (2012), eqs. (1)–(4),
  written as S-parameters with the half-round-trip factor on the drop path (Yariv,
  Electron. Lett. 36, 321 (2000)).
- Pockels tuning (see ``ring_field_inverse_gap``: the electrode layout's parallel-plate geometry times the
  electrostatic field factor of each cross-section, the same as the phase shifter's) and the thermo-optic shift
  (``thermo_optic_dneff_dt``) change the angle-averaged n_eff of the round trip.

Layout convention (as ``waveguides``): layout x = crystal y, layout +y = crystal +z, so the
horizontal buses and the top and bottom of the ring guide TE light polarised along z.

Process (wafer) parameters of the models and specs, with the stack's defaults (``prismpic.pdk.stack``):
``film_thickness``, ``etch_depth``, ``sidewall_angle_deg`` (ridge wall from the horizontal, 90 = vertical)
and ``cladding``; the cells do not take them (the layer stack does). ``width`` is the top width and
``gap`` the gap between the ridge tops, as drawn on the mask.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice, check_number, check_range
from prismpic.components import ring_resonance
from prismpic.components.model_signature import (
    Cladding,
    FloatArrayLike,
    FloatLike,
    model_of,
    model_settings,
    reciprocal,
)
from prismpic.components.registry import Device
from prismpic.components.ring_checks import (
    check_plate_height,
    check_ring_geometry,
    check_ring_inputs,
    check_ring_physics,
)
from prismpic.components.ring_design import RingDesign
from prismpic.components.ring_physics import (
    ELECTRODE_COVERAGE,
    ELECTRODE_GAP,
    ELECTRODE_WIDTH,
    GAP,
    MAX_GAP,
    db_to_amplitude,
    default_bus_length,
    plate_offset,
    ring_ports,
    round_trip_loss_db,
)
from prismpic.components.waveguides import straight
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, layers
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import RIDGE_WIDTH, RING_RADIUS, SLAB_MARGIN
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

TRACE_WIDTH = 10.0  # µm, electrode lead
TRACE_LENGTH = 10.0  # µm
_SAG = 0.001  # µm, polygon sag of drawn circles


# ---------------------------------------------------------------------------- cells
def _circle_points(radius: float, n: int) -> list[tuple[float, float]]:
    t = 2 * np.pi * np.arange(n) / n - np.pi / 2  # a vertex at −90° and (n % 4 == 0) at +90°
    return list(zip(radius * np.cos(t), radius * np.sin(t), strict=True))


def _n_vertices(radius: float) -> int:
    n = math.ceil(2 * math.pi / (2 * math.sqrt(2 * _SAG / radius)))
    return 4 * math.ceil(n / 4)


@platform_cell
@gf_cell
def ring_shape(radius: float = RING_RADIUS, width: float = RIDGE_WIDTH) -> gf.Component:
    """Closed ring ridge (LN_RIDGE) with its slab band (LN_SLAB), centred on the origin.

    Args:
        radius: ridge-centre radius (µm).
        width: ridge width (µm).
    """
    import klayout.db as kdb  # with gdsfactory, which a cell has imported by now

    c = gf.Component()
    for layer, half in ((layers.LAYER.LN_RIDGE, width / 2), (layers.LAYER.LN_SLAB, width / 2 + SLAB_MARGIN)):
        r_out, r_in = radius + half, max(radius - half, 0.0)
        poly = kdb.DPolygon([kdb.DPoint(x, y) for x, y in _circle_points(r_out, _n_vertices(r_out))])
        if r_in > 0:
            poly.insert_hole([kdb.DPoint(x, y) for x, y in _circle_points(r_in, _n_vertices(r_out))])
        c.add_polygon(poly, layer=layer)
    return c


@platform_cell
@gf_cell
def floating_disk(radius: float = 10.0) -> gf.Component:
    """Floating metal disk (ELECTRODE) centred on the origin.

    Args:
        radius: disk radius (µm).
    """
    check_range("radius", radius, 0.0, 1e4, unit="µm", lo_open=True)
    c = gf.Component()
    c.add_polygon(_circle_points(radius, _n_vertices(radius)), layer=layers.LAYER.ELECTRODE)
    return c


def _add_plate(c: gf.Component, y_edge: float, half_x: float, height: float, up: bool, port: str) -> None:
    s = 1.0 if up else -1.0
    y0, y1 = y_edge, y_edge + s * height
    c.add_polygon([(-half_x, y0), (half_x, y0), (half_x, y1), (-half_x, y1)], layer=layers.LAYER.ELECTRODE)
    tw = min(TRACE_WIDTH, 0.002 * math.floor(half_x / 0.001))  # even number of 1 nm grid steps
    y2 = y1 + s * TRACE_LENGTH
    c.add_polygon([(-tw / 2, y1), (tw / 2, y1), (tw / 2, y2), (-tw / 2, y2)], layer=layers.LAYER.ELECTRODE)
    c.add_port(port, center=(0.0, y2), width=tw, orientation=90 if up else 270, layer=layers.LAYER.ELECTRODE,
               port_type="electrical")


def _ring_cell(radius, gap, gap_drop, width, bus_length, electrode_gap, electrode_coverage, electrode_width,
               electrode_height, drop: bool) -> gf.Component:
    c = gf.Component()
    c.add_ref(ring_shape(radius=radius, width=width))
    length = default_bus_length(radius, width) if bus_length is None else bus_length
    bus = straight(length=length, width=width)
    y_b = radius + gap + width  # bus centre line below the ring centre
    through = c.add_ref(bus)
    through.move((-length / 2, -y_b))
    c.add_port("o1", port=through.ports["o1"])
    c.add_port("o2", port=through.ports["o2"])
    if drop:
        gd = gap if gap_drop is None else gap_drop
        top = c.add_ref(bus)
        top.move((-length / 2, radius + gd + width))
        c.add_port("o3", port=top.ports["o2"])
        c.add_port("o4", port=top.ports["o1"])
    y_p = float(plate_offset(radius, width, gap, gap_drop if drop else None))
    c.add_ref(floating_disk(radius=y_p - electrode_gap))
    half_x = radius * math.sin(electrode_coverage * math.pi / 2)
    _add_plate(c, -y_p, half_x, electrode_width, up=False, port="e1")
    _add_plate(c, y_p, half_x, electrode_width, up=True, port="e2")
    c.info["bus_length"] = length
    c.info["plate_offset"] = y_p
    c.info["electrode_height"] = electrode_height  # µm above the film (None: on the slab); the GDS has no heights
    return c


@platform_cell
@gf_cell
def ring_add_drop(
    radius: float = RING_RADIUS,
    gap: float = GAP,
    gap_drop: float | None = None,
    width: float = RIDGE_WIDTH,
    bus_length: float | None = None,
    electrode_gap: float = ELECTRODE_GAP,
    electrode_coverage: float = ELECTRODE_COVERAGE,
    electrode_width: float = ELECTRODE_WIDTH,
    electrode_height: float | None = None,
) -> gf.Component:
    """Add-drop microring with Pockels tuning plates and a floating inner disk.

    Args:
        radius: ring radius at the ridge centre (µm).
        gap: through-bus-to-ring edge gap (µm).
        gap_drop: drop-bus-to-ring edge gap (µm); None takes ``gap``.
        width: ridge width of ring and buses (µm).
        bus_length: length of each bus (µm); None takes 2(radius + width + slab margin).
        electrode_gap: floating disk edge to each plate at the couplers (µm).
        electrode_coverage: fraction of the circumference under the two plates, in [0.1, 1].
        electrode_width: plate height (µm).
        electrode_height: None: plates and disk on the slab; else their metal's height above the film top (µm),
            on the SiO2 cladding (the layout of 400 nm-film foundry stacks, ``pdk.platforms``).

    Ports o1 input, o2 through, o3 add, o4 drop; e1 lower plate, e2 upper plate (V = V(e2) − V(e1)).

    .. code::

                      e2
            ┌─────────┴─────────┐  plate
        o4 ══════════════════════ o3   drop bus
                  ╭───────╮
                 ╱  ┌───┐  ╲
                │   │ ● │   │   ring around a floating disk
                 ╲  └───┘  ╱
                  ╰───────╯
        o1 ══════════════════════ o2   through bus
            └─────────┬─────────┘  plate
                      e1
    """
    check_ring_geometry(radius, width, gap, gap_drop, bus_length, electrode_gap, electrode_coverage, electrode_width)
    check_plate_height(electrode_height)
    return _ring_cell(radius, gap, gap_drop, width, bus_length, electrode_gap, electrode_coverage, electrode_width,
                      electrode_height, drop=True)


@platform_cell
@gf_cell
def ring_all_pass(
    radius: float = RING_RADIUS,
    gap: float = GAP,
    width: float = RIDGE_WIDTH,
    bus_length: float | None = None,
    electrode_gap: float = ELECTRODE_GAP,
    electrode_coverage: float = ELECTRODE_COVERAGE,
    electrode_width: float = ELECTRODE_WIDTH,
    electrode_height: float | None = None,
) -> gf.Component:
    """All-pass microring with Pockels tuning plates (the upper plate mirrors the lower one).

    Args:
        radius: ring radius at the ridge centre (µm).
        gap: bus-to-ring edge gap (µm).
        width: ridge width of ring and bus (µm).
        bus_length: bus length (µm); None takes 2(radius + width + slab margin).
        electrode_gap: floating disk edge to each plate at ψ = ±90° (µm).
        electrode_coverage: fraction of the circumference under the two plates, in [0.1, 1].
        electrode_width: plate height (µm).
        electrode_height: None: plates and disk on the slab; else their height above the film top (µm), on the
            SiO2 cladding, as ``ring_add_drop``.

    Ports o1 input, o2 through; e1 lower plate, e2 upper plate (V = V(e2) − V(e1)).

    .. code::

                      e2
            ┌─────────┴─────────┐  plate
                  ╭───────╮
                 │  ( ● )  │      ring around a floating disk
                  ╰───────╯
        o1 ══════════════════════ o2
            └─────────┬─────────┘  plate
                      e1
    """
    check_ring_geometry(radius, width, gap, None, bus_length, electrode_gap, electrode_coverage, electrode_width)
    check_plate_height(electrode_height)
    return _ring_cell(radius, gap, None, width, bus_length, electrode_gap, electrode_coverage, electrode_width,
                      electrode_height, drop=False)


# ---------------------------------------------------------------------------- models
@model_of(ring_add_drop)
def ring_add_drop_model(
    wl: FloatArrayLike = 1.55,
    *,
    radius: FloatLike,
    gap: FloatLike,
    gap_drop: FloatLike | None,
    width: FloatLike,
    bus_length: FloatLike | None,
    electrode_gap: FloatLike,
    electrode_coverage: FloatLike,
    electrode_width: FloatLike,
    electrode_height: FloatLike | None,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    coupler_loss_db: FloatLike = 0.0,
    voltage_v: FloatLike = 0.0,
    delta_t_k: FloatLike = 0.0,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
    dneff: FloatLike = 0.0,
    dng: FloatLike = 0.0,
) -> sax.SDict:
    """Add-drop ring: S(o1→o2) through, S(o1→o4) drop, S(o3→o4) add→drop, S(o3→o2) add→through.

    Args:
        wl: wavelength (µm).
        radius, gap, gap_drop, width, bus_length, electrode_gap, electrode_coverage,
            electrode_width, electrode_height: geometry, as ``ring_add_drop``.
        film_thickness: LN film thickness (µm).
        etch_depth: ridge etch depth (µm).
        loss_db_per_cm: propagation loss of ring and buses (dB/cm); bend loss is added. None: from physics
            (absorption and sidewall scattering, ``scattering.propagation_loss_db_per_cm``).
        coupler_loss_db: excess loss per coupler pass (dB).
        voltage_v: V(e2) − V(e1) (V).
        delta_t_k: temperature change (K).
        sidewall_angle_deg: ridge sidewall angle from the horizontal (°; 90 = vertical), within the
            dispersion tables' range (``prismpic.pdk.dispersion.domain()``).
        cladding: "sio2" or "air" above the ridges.
        dneff: effective-index correction of a calibrated ring: its n_eff at 1.55 µm moves by this
            (``ring_physics.index_correction``; a calibration writes it when the geometry within its priors
            cannot reach the measured ring; 0 for a designed ring).
        dng: group-index correction of a calibrated ring: its n_g moves by this at every wavelength
            (``ring_physics.index_correction``; 0 for a designed ring).

    Example: on resonance the drop port takes most of the light, and no power is created:
    >>> from prismpic.components.rings import ring_add_drop_model, ring_specs
    >>> s = ring_add_drop_model(wl=ring_specs()["resonance_um"])
    >>> through, drop = float(abs(s["o1", "o2"]) ** 2), float(abs(s["o1", "o4"]) ** 2)
    >>> bool(through + drop <= 1.0), bool(drop > 10 * through)
    (True, True)
    """
    check_ring_geometry(radius, width, gap, gap_drop, bus_length, electrode_gap, electrode_coverage, electrode_width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    design = RingDesign(radius=radius, gap=gap, gap_drop=gap_drop, electrode_gap=electrode_gap,
                        electrode_coverage=electrode_coverage, electrode_height=electrode_height,
                        loss_db_per_cm=loss_db_per_cm, coupler_loss_db=coupler_loss_db, dneff=dneff, dng=dng, ridge=ridge)
    ring = check_ring_physics(design, voltage_v, delta_t_k)
    length = default_bus_length(radius, width) if bus_length is None else bus_length
    return reciprocal(ring_ports(jnp.asarray(wl, dtype=float), ring, voltage_v, delta_t_k, length, "add_drop"))


@model_of(ring_all_pass)
def ring_all_pass_model(
    wl: FloatArrayLike = 1.55,
    *,
    radius: FloatLike,
    gap: FloatLike,
    width: FloatLike,
    bus_length: FloatLike | None,
    electrode_gap: FloatLike,
    electrode_coverage: FloatLike,
    electrode_width: FloatLike,
    electrode_height: FloatLike | None,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    coupler_loss_db: FloatLike = 0.0,
    voltage_v: FloatLike = 0.0,
    delta_t_k: FloatLike = 0.0,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
    dneff: FloatLike = 0.0,
    dng: FloatLike = 0.0,
) -> sax.SDict:
    """All-pass ring: S(o1→o2) = (t − η² a e^{iθ})/(1 − t a e^{iθ}) times the bus (Bogaerts 2012, eq. 1).

    Args:
        wl, radius, gap, width, bus_length, electrode_gap, electrode_coverage, electrode_width, electrode_height,
            film_thickness,
            etch_depth, loss_db_per_cm, coupler_loss_db, voltage_v, delta_t_k, sidewall_angle_deg, cladding,
            dneff, dng: as ``ring_add_drop_model`` (µm, dB/cm, dB, V, K, °).

    Example: the through dip at resonance is the extinction ``ring_specs`` reports:
    >>> import numpy as np
    >>> from prismpic.components.rings import ring_all_pass_model, ring_specs
    >>> spec = ring_specs(kind="all_pass")
    >>> lam, fsr = spec["resonance_um"], spec["fsr_nm"] * 1e-3
    >>> on, off = (float(abs(ring_all_pass_model(wl=w)["o1", "o2"]) ** 2) for w in (lam, lam + fsr / 2))
    >>> bool(abs(10 * np.log10(off / on) - spec["extinction_db"]) < 0.05)
    True
    """
    check_ring_geometry(radius, width, gap, None, bus_length, electrode_gap, electrode_coverage, electrode_width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    design = RingDesign(radius=radius, gap=gap, electrode_gap=electrode_gap, electrode_coverage=electrode_coverage,
                        electrode_height=electrode_height, loss_db_per_cm=loss_db_per_cm,
                        coupler_loss_db=coupler_loss_db, dneff=dneff, dng=dng, ridge=ridge)
    ring = check_ring_physics(design, voltage_v, delta_t_k)
    length = default_bus_length(radius, width) if bus_length is None else bus_length
    return reciprocal(ring_ports(jnp.asarray(wl, dtype=float), ring, voltage_v, delta_t_k, length, "all_pass"))


# ---------------------------------------------------------------------------- specs
def ring_params(kind: str, params: dict) -> dict:
    """Every model argument of a ``kind`` ring (``"add_drop"``/``"all_pass"``): defaults updated by ``params``.

    Unknown names raise ValueError; an all-pass ring has ``gap_drop = None``.
    """
    check_choice("kind", kind, ("add_drop", "all_pass"))
    model = ring_add_drop_model if kind == "add_drop" else ring_all_pass_model
    full = model_settings(model)
    full.pop("wl", None)
    unknown = sorted(set(params) - set(full))
    if unknown:
        raise ValueError(f"unknown ring parameter(s) {unknown}; valid: {sorted(full)}")
    full.update(params)
    if kind == "all_pass":
        full["gap_drop"] = None
    return full


def _validated(kind: str, params: dict, wl0) -> dict:
    """Every model argument of the ring (``ring_params``), checked as the model checks them at ``wl0`` (µm)."""
    p = ring_params(kind, params)
    check_ring_inputs(wl0, p)
    return p


def resonance_order(wl0=1.55, kind: str = "add_drop", **params) -> int:
    """Longitudinal order m (θ = 2πm) of the resonance nearest ``wl0`` (µm)."""
    p = _validated(kind, params, wl0)
    return round(float(ring_resonance.round_trip_phase(p, wl0)) / (2 * math.pi))


def _checked_order(p: dict, kind: str, order) -> int | None:
    """``order`` checked against the orders whose resonance lies inside the tabulated band (None passes)."""
    if order is None:
        return None
    m = check_number("order", order, integer=True)
    lo, hi = dispersion.domain()["te"]["wl"]
    th_lo, th_hi = ring_resonance.round_trip_phase(p, [lo, hi]) / (2 * math.pi)
    check_range("order", m, math.ceil(th_hi), math.floor(th_lo))
    return m


def resonance_wavelength(wl0=1.55, kind: str = "add_drop", order: int | None = None, **params) -> float:
    """Resonance wavelength (µm) of order ``order`` (default: the one nearest ``wl0``): θ(λ) = 2πm solved by
    Newton's method from ``wl0`` (``ring_resonance``: one compiled program).

    The slope is dθ/dλ = −2πL n_g/λ² (n_g = n − λ dn/dλ), exact for the unperturbed ring;
    with voltage or temperature the iteration still converges (linearly, rate ~ |Δn_g|/n_g).
    """
    p = _validated(kind, params, wl0)
    return ring_resonance.resonance_wavelength(p, wl0, _checked_order(p, kind, order))


def ring_specs(wl0=1.55, kind: str = "add_drop", order: int | None = None, **params) -> dict[str, float]:
    """Specs of a ring (outputs of its geometry and physics), at the resonance of order ``order`` (default: the
    one nearest ``wl0``; ``resonance_order``), computed by one compiled program (``ring_resonance``).

    Formulas (Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), eqs. (5)–(9)), with t_i, κ_i
    carrying the coupler excess loss and a the round-trip amplitude:
    FSR = λ²/(n_g L); FWHM = 2 asin((1 − x)/(2√x)) λ²/(π n_g L), x = t1t2a (t2 = 1 for all-pass),
    which is Bogaerts' (1 − x) λ²/(π n_g L √x) at high finesse;
    loaded Q = λ/FWHM; intrinsic Q = 2π n_g/(λ α_i), with α_i the power loss per length of
    ring and couplers (a_i² = e^{−α_i L}, a_i = a η1 η2); through extinction = T(anti-resonance)/T(resonance);
    drop loss = −10 log10 |drop|² at resonance (buses included); tuning from
    ``ring_tuning_pm_per_v``; V per linewidth = FWHM / tuning.

    Args:
        wl0: wavelength (µm) near which the resonance is taken.
        kind: "add_drop" or "all_pass".
        order: longitudinal order of the resonance (to follow one resonance as the ring changes).
        **params: model parameters (geometry and physics) of that ring.

    Returns:
        dict with resonance_um, fsr_nm, fwhm_nm, q_loaded, q_intrinsic, extinction_db,
        drop_loss_db (NaN for all-pass), tuning_pm_per_v, v_per_linewidth, thermal_pm_per_k,
        kappa2 (input coupler power coupling), kappa2_drop, round_trip_loss_db, ng.
    """
    p = _validated(kind, params, wl0)
    return ring_resonance.specs(p, kind, wl0, _checked_order(p, kind, order))


def ring_sparameters(wl=1.55, kind: str = "add_drop", **params) -> dict:
    """The ring model's S-parameters at concrete parameters (``ring_add_drop_model``, ``ring_all_pass_model``:
    the same physics, ``ring_physics.ring_ports``, and the same checks) by one compiled program per ring kind,
    cladding, plate layout and shape of ``wl`` (``ring_resonance``): for sweeps over concrete values, where the
    model evaluated operation by operation costs ≈ 0.1 CPU-s a call.

    Args:
        wl: wavelength(s) (µm).
        kind: "add_drop" or "all_pass".
        **params: model parameters (geometry and physics) of that ring.
    """
    p = _validated(kind, params, wl)
    return reciprocal(ring_resonance.port_fields(p, kind, wl))


def critical_gap(wl=1.55, kind: str = "all_pass", **params) -> float:
    """Gap (µm) at which the through port is critically coupled (zero at resonance).

    All-pass: t = η a (κ² = 1 − η²a², i.e. coupling equals round-trip loss). Add-drop: the
    input gap at which t1 = η² a t2 for the given ``gap_drop`` (an add-drop with equal gaps
    is never exactly critical unless lossless). Root of t(gap) − target by Brent's method
    over [RULES.min_ridge_gap, MAX_GAP]; ValueError if there is none (under-coupled even
    at the smallest gap, or over-coupled at MAX_GAP).

    Args:
        wl: wavelength (µm).
        kind: "all_pass" or "add_drop".
        **params: model parameters other than ``gap`` (``gap_drop`` for add-drop; default the cell's gap).
    """
    from scipy.optimize import brentq

    if "gap" in params:
        raise ValueError("critical_gap solves for gap; do not pass it")
    ring = RingDesign.from_params(_validated(kind, params, wl))  # the compiled coupling below cannot raise
    eta = db_to_amplitude(ring.coupler_loss_db)
    a = float(db_to_amplitude(round_trip_loss_db(wl, ring.radius, ring.ridge, ring.loss_db_per_cm)))
    if kind == "all_pass":
        target = eta * a
    else:  # "gap" is not in params: the drop gap defaults to the cell's gap
        target = eta**2 * a * math.cos(ring_resonance.coupling_angle(wl, ring.drop_gap, ring.radius, ring.ridge))

    def f(g):
        return math.cos(ring_resonance.coupling_angle(wl, g, ring.radius, ring.ridge)) - target

    lo, hi = RULES.min_ridge_gap, MAX_GAP
    if f(lo) * f(hi) > 0:
        raise ValueError(
            f"no critical gap in [{lo:g}, {hi:g}] µm for {kind} (t(gap) − target = {f(lo):.3g} .. {f(hi):.3g})"
        )
    return float(brentq(f, lo, hi, xtol=1e-9))


DEVICES = {
    "ring_add_drop": Device(
        "ring_add_drop",
        ring_add_drop,
        ring_add_drop_model,
        extremes=(
            {"radius": RULES.min_bend_radius, "gap": RULES.min_ridge_gap, "gap_drop": 0.5, "loss_db_per_cm": 1.0},
            {"radius": 100.0, "gap": 1.0, "width": 2.0, "electrode_gap": 9.0, "electrode_coverage": 1.0,
             "electrode_height": 2.0},
            {"width": 0.8, "bus_length": 200.0, "electrode_coverage": 0.1, "electrode_width": 2.0,
             "electrode_height": 0.3, "loss_db_per_cm": 0.0, "coupler_loss_db": 0.5, "voltage_v": 100.0,
             "delta_t_k": 50.0},
        ),
        # radius moves the resonance by ~30 rad/µm of round-trip phase: the kit's finite-difference
        # step (2e-4 µm) is too coarse near a Q ~ 1e4 line, so its gradient is tested in test_rings.
        grad_params={"gap": GAP, "width": RIDGE_WIDTH, "voltage_v": 20.0, "delta_t_k": 5.0, "loss_db_per_cm": 0.5},
        model_only=("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltage_v",
                    "delta_t_k", "sidewall_angle_deg", "cladding", "dneff", "dng"),
    ),
    "ring_all_pass": Device(
        "ring_all_pass",
        ring_all_pass,
        ring_all_pass_model,
        extremes=(
            {"radius": RULES.min_bend_radius, "gap": RULES.min_ridge_gap, "electrode_gap": 5.5, "loss_db_per_cm": 1.0},
            {"radius": 100.0, "gap": 1.5, "width": 2.0, "electrode_gap": 10.0, "electrode_coverage": 1.0,
             "electrode_height": 1.0, "loss_db_per_cm": 0.0, "voltage_v": -200.0},
        ),
        grad_params={"gap": GAP, "width": RIDGE_WIDTH, "voltage_v": 20.0, "coupler_loss_db": 0.1},
        model_only=("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltage_v",
                    "delta_t_k", "sidewall_angle_deg", "cladding", "dneff", "dng"),
    ),
}
