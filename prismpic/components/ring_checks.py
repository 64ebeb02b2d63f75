"""Checks of a ring's inputs (geometry, physics, the ranges its physics meets), shared by the ring cells and models,
the WDM rings and the banks: ValueError naming the parameter, its value and the valid range.
"""

from __future__ import annotations

import numpy as np

from prismpic.checks import check_choice, check_range, concrete
from prismpic.components.ring_design import RingDesign
from prismpic.components.ring_physics import (
    INDEX_CORRECTION_MAX,
    MAX_GAP,
    PLATE_CLEARANCE,
    coupler_local_gaps,
    fit_max_gap,
)
from prismpic.pdk import dispersion, electrodes
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, CLADDINGS, check_film


def _concrete_all(*xs) -> bool:
    return all(concrete(x) is not None for x in xs)


def check_ring_geometry(radius, width, gap, gap_drop, bus_length, electrode_gap, electrode_coverage, electrode_width):
    check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    check_range("width", width, RULES.min_ridge_width, 5.0, unit="µm")
    check_range("gap", gap, RULES.min_ridge_gap, MAX_GAP, unit="µm")
    if gap_drop is not None:
        check_range("gap_drop", gap_drop, RULES.min_ridge_gap, MAX_GAP, unit="µm")
    check_range("electrode_coverage", electrode_coverage, 0.1, 1.0)
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 200.0, unit="µm")
    if bus_length is not None and _concrete_all(radius, width):
        check_range("bus_length", bus_length, 2 * (float(radius) + float(width)), 1e4, unit="µm")
    gd = gap if gap_drop is None else gap_drop
    if _concrete_all(radius, width, gap, gd):
        r, w = float(radius), float(width)
        y_p = r + w / 2 + max(float(gap), float(gd)) + w + PLATE_CLEARANCE  # plate_offset, in Python floats
        lo = y_p - (r - w / 2 - RULES.min_metal_to_ridge)  # disk ≥ 1 µm from the ring
        hi = y_p - RULES.min_metal_width / 2  # disk at least 2 µm across
        try:
            check_range("electrode_gap", electrode_gap, lo, hi, unit="µm")
        except ValueError as e:  # the range follows the other parameters: say which
            raise ValueError(f"{e} for radius = {r:g} µm, width = {w:g} µm and gap = {max(float(gap), float(gd)):g} "
                             "µm") from None


def check_ring_physics(ring: RingDesign, voltage_v=0.0, delta_t_k=0.0) -> RingDesign:
    """ValueError unless the ring's physics inputs are valid (the wall angle's range: the dispersion tables';
    ``electrode_height``: the field-factor fit's, and raised plates only on a SiO2 cladding).

    Returns the design as given, with NaN for a traced loss that is out of range (the jit contract of
    ``prismpic.checks``: a negative loss must not turn into gain).
    """
    ridge = ring.ridge
    check_film(ridge.film_thickness, ridge.etch_depth)
    check_choice("cladding", ridge.cladding, CLADDINGS)
    loss_db_per_cm = ring.loss_db_per_cm
    if loss_db_per_cm is not None:  # None: from physics
        loss_db_per_cm = check_range("loss_db_per_cm", loss_db_per_cm, 0.0, 100.0, unit="dB/cm")
    coupler_loss_db = check_range("coupler_loss_db", ring.coupler_loss_db, 0.0, 10.0, unit="dB")
    v = RULES.max_electrode_voltage_v
    check_range("voltage_v", voltage_v, -v, v, unit="V")
    check_range("delta_t_k", delta_t_k, -150.0, 300.0, unit="K")
    for name, dn in (("dneff", ring.dneff), ("dng", ring.dng)):
        check_range(name, dn, -INDEX_CORRECTION_MAX, INDEX_CORRECTION_MAX)
    check_plate_height(ring.electrode_height, ridge.cladding)
    return ring.replace(loss_db_per_cm=loss_db_per_cm, coupler_loss_db=coupler_loss_db)


def check_plate_height(electrode_height, cladding=CLADDING) -> None:
    """ValueError unless ``electrode_height`` (µm, or None: plates on the slab) lies in the field-factor fit's
    range and, when given, the cladding it stands on is SiO2."""
    if electrode_height is None:
        return
    lo, hi = electrodes.DOMAIN["electrode_height"]
    check_range("electrode_height", electrode_height, lo, hi, unit="µm")
    if cladding != "sio2":
        h = concrete(electrode_height)
        raise ValueError(f"electrode_height = {'(traced)' if h is None else format(float(h), 'g')} µm needs the SiO2 "
                         f"cladding to stand on; cladding = {cladding!r} (give None: tuning plates on the slab)")


def check_ring_inputs(wl, p: dict) -> None:
    """ValueError for whatever the ring models (``rings.ring_add_drop_model``, ``ring_all_pass_model``) refuse at
    these concrete values, in the order they meet it, without evaluating their physics: what callers run before
    compiled ring code, which cannot raise. ``wl`` (µm) scalar or array; ``p`` every model argument
    (``rings.ring_params``; ``gap_drop`` None for an all-pass ring). Traced values are skipped, as in the models.

    The models' own checks are the reference: a test holds the two to the same parameter over random inputs.
    """
    check_ring_geometry(p["radius"], p["width"], p["gap"], p["gap_drop"], p["bus_length"], p["electrode_gap"],
                        p["electrode_coverage"], p["electrode_width"])
    ring = check_ring_physics(RingDesign.from_params(p), p["voltage_v"], p["delta_t_k"])
    vals = [concrete(p[k]) for k in ("radius", "width", "film_thickness", "etch_depth", "sidewall_angle_deg")]
    w = concrete(wl)
    if w is None or any(v is None for v in vals):
        return
    radius, width, film, etch, angle = (float(np.asarray(v)) for v in vals)
    ridge = RidgeStack(width=width, film_thickness=film, etch_depth=etch, sidewall_angle_deg=angle,
                       cladding=ring.ridge.cladding)
    w = np.asarray(w, dtype=float)
    g_m = fit_max_gap()
    for gap in dict.fromkeys(g for g in (p["gap"], p["gap_drop"]) if g is not None):
        g = concrete(gap)
        if g is None:
            continue
        local, _ = coupler_local_gaps(float(np.asarray(g)), radius, ridge, xp=np)  # as ``coupling_angle`` takes them
        dispersion.check_coupler_inputs(w[..., None], np.minimum(local, g_m), ridge)
    for axis in ("z", "y"):  # the round trip's two crystal directions at the bend radius
        dispersion.check_mode_inputs(w, ridge, radius, "te", axis)
