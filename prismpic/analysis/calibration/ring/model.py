"""The ring physics of the calibration fits, jitted and differentiable.

The same ``ring_physics`` functions as ``rings.ring_add_drop_model`` / ``ring_all_pass_model`` (couplers, round
trip, bus; sidewall angle and cladding included), arranged for fitting: the ring's specs as functions of the
parameter vector ``FIT_PARAMS`` (with their Jacobian by ``jax.jacfwd``) and the ring's fields at given
wavelengths (``ring_fields``, which the spectrum model evaluates at Chebyshev nodes of the span).

Effective-index correction: ``dneff`` and ``dng`` (both 0 unless a fit needs them) add
δn(λ) = Δn_eff + (Δn_eff − Δn_g)(λ − λ0)/λ0 to the ring's n_eff, λ0 = ``REFERENCE_UM``: then
n_eff(λ0) moves by Δn_eff and n_g = n_eff − λ dn_eff/dλ by Δn_g at every λ; the round-trip phase gains
2π·L·δn(λ)/λ. It stands for what the geometry within its priors cannot reproduce (the dispersion model's
own error, material index, stress, ...).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice
from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.components.units import db_to_amplitude
from prismpic.pdk import scattering
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import CLADDINGS

RING_ARGS = ("radius", "gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage",
             "electrode_width", "electrode_height", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltage_v",
             "delta_t_k", "sidewall_angle_deg", "cladding")
# keys written to the "ring" block (model keyword arguments of the calibrated ring)
RING_BLOCK = ("radius", "gap", "gap_drop", "width", "film_thickness", "etch_depth", "sidewall_angle_deg", "cladding",
              "loss_db_per_cm", "coupler_loss_db", "dneff", "dng")
# every parameter a ring fit may move: the jitted functions take them all (one compilation per ring kind
# and cladding) and a fit uses the Jacobian columns of the ones it moves
FIT_PARAMS = ("gap", "gap_drop", "loss_db_per_cm", "film_thickness", "etch_depth", "sidewall_angle_deg", "width",
              "radius", "dneff", "dng")
CORRECTION = ("dneff", "dng")
# the kind of the jitted physics fits: an add-drop ring whose all-pass and symmetric cases are traced flags of
# ``held_params`` (one compilation serves every kind and coupling regime)
GENERIC = "ring"
REFERENCE_UM = ring_physics.INDEX_CORRECTION_WL_UM  # λ0 of the effective-index correction (µm)
# what the solvers move: FIT_PARAMS with the ring's indices at λ0 in place of the correction (``ring_of``)
VARIABLES = tuple(n for n in FIT_PARAMS if n not in CORRECTION) + ("neff_ref", "ng_ref")
N_NODES = 8  # Chebyshev nodes over a spectrum's span for the ring's slowly varying ingredients
_HELD = ("bus_length", "electrode_gap", "electrode_coverage", "electrode_height", "coupler_loss_db", "voltage_v",
         "delta_t_k")


def ring_sax_model(kind: str):
    """The SAX model of a ring of ``kind`` (``"add_drop"`` or ``"all_pass"``)."""
    return rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model


def full_ring_params(kind: str, params: dict) -> dict:
    """All model keyword arguments (defaults filled in) of a ring of ``kind``; an all-pass ignores gap_drop. The
    loss is a number the fits move: where it is from physics (None, the models' default) it is that loss around
    the ring at 1.55 µm (``scattering.propagation_loss_db_per_cm``)."""
    p = rings.ring_params(kind, {k: v for k, v in params.items() if not (kind == "all_pass" and k == "gap_drop")})
    if p["loss_db_per_cm"] is None:
        p["loss_db_per_cm"] = float(scattering.propagation_loss_db_per_cm(1.55, RidgeStack.from_params(p), None, "ring"))
    return p


def fit_vector(p: dict) -> np.ndarray:
    """Values of ``FIT_PARAMS`` from a parameter dict (gap_drop None → gap; the correction 0 when absent)."""
    out = []
    for n in FIT_PARAMS:
        v = p.get(n, 0.0 if n in CORRECTION else None)
        out.append(float(p["gap"] if n == "gap_drop" and v is None else v))
    return np.array(out)


def held_params(p: dict, kind: str = "add_drop", symmetric: bool | None = None) -> dict:
    """The ring's parameters outside ``FIT_PARAMS`` as the jitted functions take them (floats as arrays,
    bus_length and electrode_height None kept: static structure), with the flags of the ``GENERIC`` kind: ``all_pass`` (1: no drop
    coupler) and ``symmetric`` (1: gap_drop = gap; default: gap_drop None or an all-pass ring). The cladding is
    not among them (a static choice)."""
    check_choice("cladding", p.get("cladding", "sio2"), CLADDINGS)
    out = {k: None if p.get(k) is None else jnp.asarray(float(p[k])) for k in _HELD}
    sym = (p.get("gap_drop") is None or kind == "all_pass") if symmetric is None else symmetric or kind == "all_pass"
    out["all_pass"] = jnp.asarray(float(kind == "all_pass"))
    out["symmetric"] = jnp.asarray(float(sym))
    return out


def _params(vec, held, symmetric: bool) -> dict:
    p = dict(held)
    p.update({n: vec[i] for i, n in enumerate(FIT_PARAMS)})
    if symmetric:
        p["gap_drop"] = p["gap"]
    return p


def ridge_of(p: dict, cladding: str) -> RidgeStack:
    """The ridge of the fit's ring ``p`` (width, film, etch and wall angle from ``p``, the static ``cladding``)."""
    return RidgeStack(width=p["width"], film_thickness=p["film_thickness"], etch_depth=p["etch_depth"],
                      sidewall_angle_deg=p["sidewall_angle_deg"], cladding=cladding)


def design_of(p: dict, kind: str, cladding: str) -> RingDesign:
    """The ``RingDesign`` of the fit's ring ``p`` (an all-pass ring's drop gap None), without the index correction:
    the fits add it to θ themselves (``ring_fields``)."""
    return RingDesign(radius=p["radius"], gap=p["gap"], gap_drop=p["gap_drop"] if kind != "all_pass" else None,
                      electrode_gap=p["electrode_gap"], electrode_coverage=p["electrode_coverage"],
                      electrode_height=p["electrode_height"], loss_db_per_cm=p["loss_db_per_cm"],
                      coupler_loss_db=p["coupler_loss_db"], ridge=ridge_of(p, cladding))


def ring_of(v, held: dict, symmetric: bool | None, cladding: str) -> dict:
    """The ring's model parameters (``FIT_PARAMS`` and ``held``) from a vector of ``VARIABLES`` (jnp).

    The solvers move n_eff and n_g at λ0 (``neff_ref``, ``ng_ref``: what resonance positions and the FSR
    measure) rather than the correction: Δn_eff = neff_ref − n_eff(geometry, λ0), Δn_g = ng_ref − n_g(geometry,
    λ0). The resonances then move with two well-scaled variables and not with the geometry (1σ of film
    thickness moves them by tens of linewidths), which keeps the Gauss–Newton steps in their linear range;
    without the correction a constraint holds Δn at zero (``ring_physfit``).
    """
    p = dict(held)
    p.update({n: v[i] for i, n in enumerate(VARIABLES)})
    if symmetric is None:  # the GENERIC kind: the flag is traced
        p["gap_drop"] = jnp.where(held["symmetric"] > 0, p["gap"], p["gap_drop"])
    elif symmetric:
        p["gap_drop"] = p["gap"]
    ridge = ridge_of(p, cladding)
    p["dneff"] = p.pop("neff_ref") - ring_physics.ring_neff(REFERENCE_UM, p["radius"], ridge)
    p["dng"] = p.pop("ng_ref") - ring_physics.ring_ng(REFERENCE_UM, p["radius"], ridge)
    return p


def index_correction(wl, p):
    """δn(λ) of the effective-index correction of ring ``p`` (``ring_physics.index_correction``); λ in µm."""
    return ring_physics.index_correction(wl, p["dneff"], p["dng"])


def ring_fields(wl, p: dict, kind: str, cladding: str, tuned: bool = True, bus: bool = True):
    """(t1, κ1, t2, κ2, a, θ, |bus|²) of the ring ``p`` at wavelengths ``wl`` (µm): the couplers, round-trip
    amplitude and phase (with the index correction) and the bus power transmission, as the SAX models use.

    ``kind``: "add_drop", "all_pass" or ``GENERIC`` (the flag ``p["all_pass"]`` decides). ``tuned`` False (the
    ring's voltage_v and delta_t_k are 0): θ = 2π·L·n_eff/λ without the Pockels and
    thermo-optic terms (the same value at a fraction of the cost); ``bus`` False: |bus|² is 1."""
    ring = design_of(p, kind, cladding)
    t1, k1, t2, k2 = ring_physics.coupler_fields(wl, ring)
    if kind == "all_pass":
        t2, k2 = jnp.ones_like(t1), jnp.zeros_like(k1)
    elif kind == GENERIC:
        ap = p["all_pass"] > 0
        t2, k2 = jnp.where(ap, 1.0, t2), jnp.where(ap, 0.0, k2)
    if tuned:
        a, theta = ring_physics.ring_round_trip(wl, ring, p["voltage_v"], p["delta_t_k"])
    else:
        theta = 2 * jnp.pi / wl * 2 * jnp.pi * p["radius"] * ring_physics.ring_neff(wl, ring.radius, ring.ridge)
        a = db_to_amplitude(ring_physics.round_trip_loss_db(wl, ring.radius, ring.ridge, ring.loss_db_per_cm))
    theta = theta + 2 * jnp.pi * (2 * jnp.pi * p["radius"]) * index_correction(wl, p) / wl
    bus2 = jnp.ones_like(theta)
    if bus:
        bl = ring_physics.default_bus_length(p["radius"], p["width"]) if p["bus_length"] is None else p["bus_length"]
        bus2 = jnp.abs(ring_physics.bus_transmission(wl, bl, ring.ridge, ring.loss_db_per_cm)) ** 2
    return t1, k1, t2, k2, a, theta, bus2


def is_tuned(p: dict) -> bool:
    """Whether the ring ``p`` carries a voltage or a temperature change (concrete values)."""
    return bool(float(p.get("voltage_v") or 0.0) or float(p.get("delta_t_k") or 0.0))


def _specs(lam, fields, ng, neff, p: dict, kind: str, ridge: RidgeStack) -> dict:
    """The specs of ``rings.ring_specs`` from the ring's ingredients (``fields`` at λ ≈ the resonance ``lam``)."""
    t1, k1, t2, k2, a, _, bus = fields
    length = math.tau * p["radius"]
    eta = db_to_amplitude(p["coupler_loss_db"])
    eta_rt = jnp.where(p["all_pass"] > 0, eta, eta**2) if kind == GENERIC else eta ** (2 if kind == "add_drop" else 1)
    loss_db = ring_physics.round_trip_loss_db(lam, p["radius"], ridge, p["loss_db_per_cm"])
    x = t1 * t2 * a
    fsr = lam**2 / (ng * length)
    # Airy half maximum θ_½ = 2 asin((1 − x)/(2√x)) (as ``ring_specs``)
    fwhm = 2 * jnp.arcsin(jnp.minimum((1 - x) / (2 * jnp.sqrt(x)), 1.0)) * lam**2 / (jnp.pi * ng * length)
    alpha_i = -2 * jnp.log(a * eta_rt) / length
    q_i = math.tau * ng / (lam * alpha_i)
    thr0, drop0, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, 0.0)
    thr_pi, _, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, jnp.pi)
    t_min = jnp.abs(thr0) ** 2
    ext = 10 * jnp.log10(jnp.abs(thr_pi) ** 2) - 10 * jnp.log10(t_min + 1e-300)
    drop_loss = -10 * jnp.log10(jnp.abs(drop0) ** 2 * bus + 1e-300)
    return {
        "resonance_um": lam, "fsr_nm": fsr * 1e3, "fwhm_nm": fwhm * 1e3, "q_loaded": lam / fwhm,
        "q_intrinsic": q_i, "extinction_db": ext, "through_min": t_min, "drop_loss_db": drop_loss,
        "kappa2": k1**2, "kappa2_drop": k2**2, "round_trip_loss_db": loss_db, "ng": ng, "neff": neff,
        "t1": t1, "t2": t2, "a": a,
    }


def quantities_of(p: dict, kind: str, cladding: str, wl0, tuned: bool = True):
    """Specs of a ring as JAX scalars (the formulas of ``rings.ring_specs``, jittable and differentiable).

    The resonance is found by Newton's method on θ(λ) = 2πm from ``wl0``; its derivative
    is the implicit one, −(∂θ/∂p)/(∂θ/∂λ).
    """
    def theta(wl):
        return ring_fields(wl, p, kind, cladding, tuned, bus=False)[5]

    dtheta = jax.grad(theta)
    sg = jax.lax.stop_gradient
    m = jnp.round(sg(theta(wl0)) / math.tau)
    lam = jax.lax.fori_loop(0, 6, lambda _, x: x - (theta(x) - math.tau * m) / dtheta(x), sg(jnp.asarray(wl0, float)))
    lam = sg(lam)
    lam = lam - (theta(lam) - math.tau * m) / sg(dtheta(lam))
    ridge = ridge_of(p, cladding)
    ng = ring_physics.ring_ng(lam, p["radius"], ridge) + p["dng"]
    neff = ring_physics.ring_neff(lam, p["radius"], ridge) + index_correction(lam, p)
    return _specs(lam, ring_fields(lam, p, kind, cladding, tuned), ng, neff, p, kind, ridge)


def quantities_near(p: dict, kind: str, cladding: str, wl):
    """Specs of an untuned ring at ``wl`` (µm), and its resonance nearest ``wl`` by two Newton steps on θ with
    θ' = −2πL·n_g/λ² (the second with n_eff at the first's λ): exact when the resonance is at ``wl`` (a
    spectrum's λ_r, a given resonance), and the specs at the reference otherwise (FSR ∝ λ² differs by 2Δλ/λ
    from the resonance's)."""
    ridge = ridge_of(p, cladding)
    fields = ring_fields(wl, p, kind, cladding, tuned=False)
    ng = ring_physics.ring_ng(wl, p["radius"], ridge) + p["dng"]
    neff = ring_physics.ring_neff(wl, p["radius"], ridge) + index_correction(wl, p)
    length = math.tau * p["radius"]
    theta = fields[5]
    m = jnp.round(jax.lax.stop_gradient(theta) / math.tau)
    lam = wl - (theta - math.tau * m) / (-math.tau * length * ng / wl**2)
    theta1 = math.tau * length * (ring_physics.ring_neff(lam, p["radius"], ridge) + index_correction(lam, p)) / lam
    lam = lam - (theta1 - math.tau * m) / (-math.tau * length * ng / lam**2)
    return _specs(wl, fields, ng, neff, p, kind, ridge) | {"resonance_um": lam}


def quantities_value(p: dict, kind: str, wl0: float) -> dict[str, float]:
    """Specs of the ring parameter dict ``p`` (``full_ring_params``'s, optionally with dneff/dng) at the resonance
    nearest ``wl0`` (µm) by Newton's search, evaluated eagerly (tuned rings: voltage or temperature)."""
    full = dict(held_params(p, kind))
    for k in FIT_PARAMS:
        v = p.get(k, 0.0 if k in CORRECTION else None)
        full[k] = jnp.asarray(float(p["gap"] if k == "gap_drop" and v is None else v))
    return {k: float(v) for k, v in quantities_of(full, kind, p["cladding"], float(wl0)).items()}


def chebyshev_nodes(lo_um: float, hi_um: float, n: int = N_NODES) -> tuple[np.ndarray, np.ndarray]:
    """(nodes (n,), barycentric weights (n,)) of the Chebyshev–Lobatto points over [lo, hi] (µm), increasing."""
    k = np.arange(n)
    x = np.cos(np.pi * k / (n - 1))[::-1]
    nodes = lo_um + (x + 1) * 0.5 * (hi_um - lo_um)
    w = ((-1.0) ** k * np.where((k == 0) | (k == n - 1), 0.5, 1.0))[::-1]  # Berrut & Trefethen, SIAM Rev. 46 (2004)
    return nodes, w


def barycentric(x, nodes, weights, values):
    """Barycentric interpolation of ``values`` (…, n) at the nodes to the points ``x`` (jittable; x at a node
    gets the node's value)."""
    d = x[:, None] - nodes[None, :]
    exact = d == 0
    m = weights / jnp.where(exact, 1.0, d)
    m = jnp.where(exact.any(axis=1, keepdims=True), exact.astype(float), m)
    m = m / m.sum(axis=1, keepdims=True)
    return values @ m.T
