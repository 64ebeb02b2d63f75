"""A ring's resonance, specs and S-parameters as one compiled program each per ring kind, cladding and plate layout.

``rings.ring_specs``, ``rings.resonance_wavelength`` and ``rings.ring_sparameters`` validate their arguments (the
ring model's own checks) and call the programs here (``rings.critical_gap`` its coupling angle); the physics is
``ring_physics``'s. The resonance is θ(λ) = 2πm solved by Newton's method inside the program (a
``lax.while_loop`` with the eager loop's tolerance and step limit), so a sweep over parameters (process corners,
a ledger's flip search) reuses one compiled program instead of dispatching the dispersion fits operation by
operation (≈ 0.5 CPU-s a ring, against milliseconds once compiled).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.components import ring_physics
from prismpic.components.ring_design import RingDesign
from prismpic.components.ring_physics import (
    add_drop_fields,
    bus_transmission,
    coupler_fields,
    db_to_amplitude,
    default_bus_length,
    ring_ng,
    ring_ports,
    ring_round_trip,
    ring_tuning_pm_per_v,
    round_trip_loss_db,
    thermo_optic_dneff_dt,
)
from prismpic.pdk.ridge_stack import RidgeStack

NEWTON_STEPS = 50  # at most; quadratic convergence on a ring at rest, linear (rate ~|Δn_g|/n_g) when tuned
NEWTON_TOL_UM = 1e-14
SPECS = ("resonance_um", "fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "drop_loss_db",
         "tuning_pm_per_v", "v_per_linewidth", "thermal_pm_per_k", "kappa2", "kappa2_drop", "round_trip_loss_db",
         "ng")
_PYTREES = (RingDesign, RidgeStack)


def _traced(p: dict) -> tuple[RingDesign, dict]:
    """(design, operating point) of a full ring dict (``rings.ring_params``), every number an array: the design
    with ``gap_drop`` None read as ``gap`` (as every formula reads it), and {voltage_v, delta_t_k, bus_length}
    with the default bus for None, so that one program serves every layout of a cladding and plate placement
    (the static parts of the design's tree)."""
    ring = RingDesign.from_params(p)
    ring = jax.tree_util.tree_map(lambda v: jnp.asarray(float(v)), ring.replace(gap_drop=ring.drop_gap))
    bus = default_bus_length(p["radius"], p["width"]) if p["bus_length"] is None else p["bus_length"]
    return ring, {k: jnp.asarray(float(v)) for k, v in (("voltage_v", p["voltage_v"]),
                                                        ("delta_t_k", p["delta_t_k"]), ("bus_length", bus))}


def _theta(wl, ring: RingDesign, op: dict):
    """Round-trip phase θ(λ) (rad) of the ring at the operating point ``op``."""
    return ring_round_trip(wl, ring, op["voltage_v"], op["delta_t_k"])[1]


def _ng(wl, ring: RingDesign):
    return ring_ng(wl, ring.radius, ring.ridge) + ring.dng


def _resonance(wl0, order, ring: RingDesign, op: dict):
    """λ (µm) with θ(λ) = 2π·order (order NaN: the order nearest ``wl0``), by Newton's method from ``wl0``;
    slope dθ/dλ = −2πL n_g/λ² (exact at rest)."""
    m = jnp.where(jnp.isnan(order), jnp.round(_theta(wl0, ring, op) / (2 * jnp.pi)), order)
    length = 2 * jnp.pi * ring.radius

    def step(state):
        wl, _, i = state
        s = (_theta(wl, ring, op) - 2 * jnp.pi * m) / (-2 * jnp.pi * length * _ng(wl, ring) / wl**2)
        return wl - s, s, i + 1

    def more(state):
        _, s, i = state
        return (i < NEWTON_STEPS) & ((i == 0) | (jnp.abs(s) >= NEWTON_TOL_UM))

    return jax.lax.while_loop(more, step, (jnp.asarray(wl0, dtype=float), jnp.asarray(jnp.inf), 0))[0]


def _specs(wl0, order, ring: RingDesign, op: dict, kind: str) -> dict:
    """The specs of ``rings.ring_specs`` (its docstring holds the formulas) at the resonance ``_resonance``."""
    lam = _resonance(wl0, order, ring, op)
    ng = _ng(lam, ring)
    length = 2 * jnp.pi * ring.radius
    t1, k1, t2, k2 = coupler_fields(lam, ring)
    if kind == "all_pass":
        t2, k2 = jnp.asarray(1.0), jnp.asarray(0.0)
    eta_rt = db_to_amplitude(ring.coupler_loss_db) ** (2 if kind == "add_drop" else 1)  # coupler passes per turn
    loss_db = round_trip_loss_db(lam, ring.radius, ring.ridge, ring.loss_db_per_cm)
    a = db_to_amplitude(loss_db)
    x = t1 * t2 * a
    fsr = lam**2 / (ng * length)
    # half maximum of the Airy line 1/(1 + 4x sin²(θ/2)/(1 − x)²): θ_½ = 2 asin((1 − x)/(2√x));
    # → (1 − x)/√x (Bogaerts' form) for high finesse
    u = (1 - x) / (2 * jnp.sqrt(x))
    fwhm = jnp.where(u <= 1, 2 * jnp.arcsin(jnp.minimum(u, 1.0)) * lam**2 / (jnp.pi * ng * length), jnp.nan)
    alpha_i = -2 * jnp.log(a * eta_rt) / length  # power loss per µm, ring + couplers
    q_i = jnp.where(alpha_i > 0, 2 * jnp.pi * ng / (lam * jnp.where(alpha_i > 0, alpha_i, 1.0)), jnp.inf)
    res = add_drop_fields(t1, k1, t2, k2, a, 0.0)
    anti = add_drop_fields(t1, k1, t2, k2, a, jnp.pi)
    bus = jnp.abs(bus_transmission(lam, op["bus_length"], ring.ridge, ring.loss_db_per_cm)) ** 2
    tune = ring_tuning_pm_per_v(lam, ring)
    thermal = lam * thermo_optic_dneff_dt(lam, ring.radius, ring.ridge) / ng * 1e6
    ext = 10 * jnp.log10(jnp.abs(anti[0]) ** 2) - 10 * jnp.log10(jnp.abs(res[0]) ** 2)
    drop_loss = -10 * jnp.log10(jnp.abs(res[1]) ** 2 * bus) if kind == "add_drop" else jnp.nan
    return {"resonance_um": lam, "fsr_nm": fsr * 1e3, "fwhm_nm": fwhm * 1e3, "q_loaded": lam / fwhm,
            "q_intrinsic": q_i, "extinction_db": ext, "drop_loss_db": drop_loss, "tuning_pm_per_v": tune,
            "v_per_linewidth": fwhm * 1e6 / tune, "thermal_pm_per_k": thermal, "kappa2": k1**2,
            "kappa2_drop": k2**2, "round_trip_loss_db": loss_db, "ng": ng}


@functools.cache
def _specs_program(kind: str):
    return program_cache.reuse(lambda wl0, order, ring, op: _specs(wl0, order, ring, op, kind),
                               pytree_types=_PYTREES)


@functools.cache
def _resonance_program():
    return program_cache.reuse(_resonance, pytree_types=_PYTREES)


@functools.cache
def _phase_program():
    return program_cache.reuse(_theta, pytree_types=_PYTREES)


def _order(order) -> float:
    return math.nan if order is None else float(order)


def specs(p: dict, kind: str, wl0: float, order: int | None = None) -> dict[str, float]:
    """The specs of the ring ``p`` (every model argument, validated: ``rings.ring_specs``) at the resonance of
    ``order`` (None: the one nearest ``wl0``, µm)."""
    out = _specs_program(kind)(float(wl0), _order(order), *_traced(p))
    return {k: float(out[k]) for k in SPECS}


def resonance_wavelength(p: dict, wl0: float, order: int | None = None) -> float:
    """The resonance (µm) of ``order`` (None: the one nearest ``wl0``) of the validated ring ``p``."""
    return float(_resonance_program()(float(wl0), _order(order), *_traced(p)))


def port_fields(p: dict, kind: str, wl) -> dict:
    """The port fields (``ring_physics.ring_ports``) of the validated ring ``p`` at the wavelengths ``wl`` (µm)."""
    fields = _ports_program(kind)(jnp.asarray(wl, dtype=float), *_traced(p))
    return {tuple(key.split(",")): v for key, v in fields.items()}


@functools.cache
def _ports_program(kind: str):
    # string keys ("o1,o2"): jax.export serializes dictionaries with string keys only (a tuple-keyed SDict was
    # traced again in every run)
    def ports(wl, ring, op):
        fields = ring_ports(wl, ring, op["voltage_v"], op["delta_t_k"], op["bus_length"], kind)
        return {",".join(key): v for key, v in fields.items()}

    return program_cache.reuse(ports, pytree_types=_PYTREES)


def coupling_angle(wl, gap, radius, ridge: RidgeStack) -> float:
    """``ring_physics.coupling_angle`` (rad) at concrete values (µm), by one compiled program per cladding: what a
    root search over the gap calls (``rings.critical_gap``)."""
    traced = jax.tree_util.tree_map(lambda v: jnp.asarray(float(v)), ridge)
    return float(_coupling_program()(*(jnp.asarray(float(v)) for v in (wl, gap, radius)), traced))


@functools.cache
def _coupling_program():
    return program_cache.reuse(ring_physics.coupling_angle, pytree_types=(RidgeStack,))


def round_trip_phase(p: dict, wl) -> np.ndarray:
    """θ(λ) (rad) of the validated ring ``p`` at the wavelengths ``wl`` (µm)."""
    return np.asarray(_phase_program()(jnp.asarray(wl, dtype=float), *_traced(p)))
