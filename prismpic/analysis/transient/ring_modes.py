"""Rings in the time domain: resonance modes derived from the S-parameter model's own couplers and round trip.

Choice: one coupled-mode state per resonance order kept (``n_orders``, default the nearest one) plus a direct
term that carries every other order, rather than a delay line with the round-trip delay. A delay line needs a
step of one round trip (≈ 1 ps), 10–100× finer than a symbol's samples; the modes run at the signal's step.
Exactness is kept where the checks need it: the ring's response is the Airy function of its round-trip phase
θ(ω) = θ_c + τ_rt (ω − ω_c) (Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), eqs. (3)–(4)), a meromorphic
function of the detuning Δ with poles where t₁t₂a e^{iθ} = 1,

    θ_m = 2πm + i ln(t₁t₂a),   Δ_m = (θ_m − θ_c)/τ_rt,   residue R_m = i N(θ_m)/τ_rt,

N the 2×2 numerator matrix of (through, drop; drop, add→drop). N(θ_m) = n nᵀ is rank one (one mode per order),
n = (i κ₁/√t₁, (−1)^m i κ₂/√t₂), so each order is one state ẋ = −iΔ_m x + nᵀw/√τ_rt, z = bus·n x/√τ_rt
(|x|² the stored energy in units where |w|² is power: the coupled-mode form of Haus, "Waves and Fields in
Optoelectronics", 1984, ch. 7, with 1/τ_e = κ²/(2τ_rt)). The direct term D = bus·(S(θ_c) + Σ_m R_m/Δ_m) makes
the response at the carrier (Δ = 0) equal the S-parameter model exactly, so the time-domain steady state equals
it at every wavelength, with all other orders (and neighbouring rings' resonances, which are these rings'
own modes at that carrier) included. The mode's field decays at −ln(t₁t₂a)/τ_rt, the energy twice as fast:
τ_E = −τ_rt/(2 ln(t₁t₂a)), which equals ``ring_specs``' Q_L/ω₀ to second order in 1 − t₁t₂a.
The group delay τ_rt = ∂θ/∂ω is differentiated from ``ring_physics.ring_round_trip`` (including n_g's
dispersion, ``dng`` and the tuning); bus delays (≲ 0.5 ps) are kept as their phase and loss only.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from scipy.constants import c as C_M_PER_S

from prismpic import program_cache
from prismpic.analysis.transient.statespace import LTI
from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.pdk.ridge_stack import RidgeStack

C_UM_PER_PS = C_M_PER_S * 1e-6  # µm/ps
KINDS = ("add_drop", "all_pass")


def ring_parameters(kind: str, params: dict) -> dict:
    """Every model argument of a ``kind`` ring with ``params`` applied (``rings.ring_params``; names checked)."""
    return rings.ring_params(kind, params)


def carrier_coefficients(wl, p: dict, kind: str = "add_drop", voltage_v=None, delta_t_k=None, radius=None):
    """A ring's response at carrier ``wl`` (µm, scalar): dict t1, k1, t2, k2, a, theta, tau_rt_ps, bus.

    ``p``: full ring parameters (``ring_parameters``); ``voltage_v``, ``delta_t_k``, ``radius`` override its values
    (traceable). An all-pass ring has t2 = 1, κ2 = 0. At concrete values one compiled program per ring kind,
    cladding and plate layout (``program_cache``): eagerly the round trip's derivative cost seconds.
    """
    voltage_v = p["voltage_v"] if voltage_v is None else voltage_v
    delta_t_k = p["delta_t_k"] if delta_t_k is None else delta_t_k
    radius = p["radius"] if radius is None else radius
    ring = RingDesign.from_params({**p, "radius": radius, "gap_drop": None if kind == "all_pass" else p["gap_drop"]})
    length = (ring_physics.default_bus_length(radius, ring.ridge.width) if p["bus_length"] is None
              else p["bus_length"])
    args = (jnp.asarray(wl, dtype=float), ring, voltage_v, delta_t_k, length)
    if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(args)):
        return _carrier(kind, *args)
    concrete = jax.tree_util.tree_map(lambda v: jnp.asarray(v, dtype=float), args)
    return _carrier_program(kind)(*concrete)


@functools.cache
def _carrier_program(kind: str):
    return program_cache.reuse(functools.partial(_carrier, kind), pytree_types=(RingDesign, RidgeStack))


def _carrier(kind: str, wl, ring: RingDesign, voltage_v, delta_t_k, length) -> dict:
    t1, k1, t2, k2 = ring_physics.coupler_fields(wl, ring)
    if kind == "all_pass":
        t2, k2 = jnp.ones_like(t1), jnp.zeros_like(k1)

    def round_trip(w):
        return ring_physics.ring_round_trip(w, ring, voltage_v, delta_t_k)

    (a, theta), (_, dtheta_dwl) = jax.jvp(round_trip, (wl,), (jnp.ones_like(wl),))
    dwl_domega = -(wl**2) / (2 * math.pi * C_UM_PER_PS)  # µm per (rad/ps)
    bus = ring_physics.bus_transmission(wl, length, ring.ridge, ring.loss_db_per_cm)
    return dict(t1=t1, k1=k1, t2=t2, k2=k2, a=a, theta=theta, tau_rt_ps=dtheta_dwl * dwl_domega, bus=bus)


def exact_response(co: dict, theta=None):
    """The S-parameter model's 2×2 response [[through, add→through], [drop, add→drop]] × bus (out × in: outputs
    o2, o4; inputs o1, o3) at round-trip phase ``theta`` (default the carrier's)."""
    theta = co["theta"] if theta is None else theta
    thr, drop, add_drop = ring_physics.add_drop_fields(co["t1"], co["k1"], co["t2"], co["k2"], co["a"], theta)
    return co["bus"] * jnp.array([[thr, drop], [drop, add_drop]])


def mode_poles(co: dict, n_orders: int = 1):
    """(p, m): continuous poles p (1/ps, (K,)) of the ``n_orders`` orders nearest the carrier, and the orders m."""
    x = co["t1"] * co["t2"] * co["a"]
    m0 = jnp.round(jax.lax.stop_gradient(co["theta"]) / (2 * jnp.pi))
    m = m0 + jnp.arange(n_orders) - (n_orders - 1) // 2
    delta = (2 * jnp.pi * m + 1j * jnp.log(x) - co["theta"]) / co["tau_rt_ps"]  # Δ_m (rad/ps)
    return -1j * delta, m


def ring_lti(co: dict, n_orders: int = 1) -> LTI:
    """The ring as a 2-input (o1, o3), 2-output (o2, o4) LTI system with one state per kept order (module doc)."""
    p, m = mode_poles(co, n_orders)
    delta = 1j * p
    sign = jnp.cos(jnp.pi * m)  # (−1)^m
    n1 = 1j * co["k1"] / jnp.sqrt(co["t1"]) * jnp.ones_like(sign)
    n2 = sign * 1j * co["k2"] / jnp.sqrt(co["t2"])
    n = jnp.stack([n1, n2], axis=-1) / jnp.sqrt(co["tau_rt_ps"])  # (K, 2)
    residues = 1j * n[:, :, None] * n[:, None, :]  # R_m (K, 2, 2), without the bus
    d = exact_response(co) + co["bus"] * jnp.sum(residues / delta[:, None, None], axis=0)
    return LTI(jnp.diag(p), n, co["bus"] * n.T, d)


def energy_decay_time_ps(co: dict) -> jax.Array:
    """Energy decay time (ps) of the ring's modes: −τ_rt/(2 ln t₁t₂a)."""
    return -co["tau_rt_ps"] / (2 * jnp.log(co["t1"] * co["t2"] * co["a"]))


def cascade_lti(systems: LTI, through_t, drop_t) -> LTI:
    """One PRISM channel at one carrier: d rings (stacked ``ring_lti``, leading axis d) on a through bus and a
    counter-running drop bus (``circuits.bank_model``'s star-product cascade, in state space).

    Ring j's through input is ring j−1's through output × ``through_t``; its add input is ring j+1's drop output ×
    ``drop_t[j]`` ((d − 1,)). Input: the through bus at ring 0. Outputs: (drop end at ring 0, through end at ring
    d − 1). The instantaneous bus connections are solved as a linear fractional transformation:
    z = (I − D M)⁻¹ (C x + D N u).
    """
    a, b, c, dd = systems
    d_rings = a.shape[0]
    big_a = jax.scipy.linalg.block_diag(*a)
    big_b = jax.scipy.linalg.block_diag(*b)  # (n, 2d)
    big_c = jax.scipy.linalg.block_diag(*c)  # (2d, n)
    big_d = jax.scipy.linalg.block_diag(*dd)  # (2d, 2d)
    j = jnp.arange(d_rings - 1)
    conn = jnp.zeros((2 * d_rings, 2 * d_rings), dtype=complex)
    conn = conn.at[2 * (j + 1), 2 * j].set(through_t)  # through in of ring j+1 ← through out of ring j
    conn = conn.at[2 * j + 1, 2 * (j + 1) + 1].set(drop_t)  # add in of ring j ← drop out of ring j+1
    ext = jnp.zeros((2 * d_rings, 1), dtype=complex).at[0, 0].set(1.0)
    pick = jnp.zeros((2, 2 * d_rings), dtype=complex).at[0, 1].set(1.0).at[1, 2 * d_rings - 2].set(1.0)
    g = jnp.linalg.inv(jnp.eye(2 * d_rings) - big_d @ conn)
    gc, gdn = g @ big_c, g @ big_d @ ext
    return LTI(big_a + big_b @ conn @ gc, big_b @ (conn @ gdn + ext), pick @ gc, pick @ gdn)
