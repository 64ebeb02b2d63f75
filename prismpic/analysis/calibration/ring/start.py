"""Where a ring fit starts: the design, the closed-form Airy inversion and the geometry that places the resonances.

The start is physical and global: the couplings and the loss follow from the linewidth, extinction and drop
level by inverting the Airy line for each coupling regime (``couplings``), and the geometry from the resonance
position and the FSR (``place_geometry``: the smallest change of the process parameters, in units of their
prior σ, that gives the ring the measured n_eff·R and n_g·R, over the mode orders m, m ± 1). When no change
within ``PULL_MAX`` σ does, the geometry stays at its priors and the effective-index correction takes the
difference (``needs_correction``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from scipy.optimize import brentq

from prismpic import program_cache
from prismpic.analysis.calibration.priors import GEOMETRY, LOSS_MAX, Prior
from prismpic.analysis.calibration.ring.model import RING_ARGS, full_ring_params
from prismpic.checks import check_choice, check_number, check_range
from prismpic.components import ring_physics
from prismpic.components.ring_checks import check_ring_inputs
from prismpic.components.units import NM_PER_UM
from prismpic.pdk import dispersion
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDINGS

NG_PLAUSIBLE = (1.8, 2.8)  # group index of TFLN ridges (LN n_g ≈ 2.2–2.3 in bulk, SiO2 1.46)
REFERENCE_NM = 1550.0  # nm: the resonance reported (and assumed when none is given) is the one nearest this
PULL_MAX = 3.0  # σ: a process parameter further than this from its prior needs the index correction instead
PLACED = (*GEOMETRY, "radius")
Z_MAX = 6.0  # the placement searches within ±Z_MAX σ of the priors (beyond, the correction takes over)


def design_params(kind: str, design: dict | None) -> dict:
    """All ring model arguments of the design (``design`` over the model defaults); ValueError on unknown keys."""
    design = dict(design or {})
    for k in design:
        if k not in RING_ARGS:
            raise ValueError(f"design parameter {k!r} is not a ring model parameter; valid: {sorted(RING_ARGS)}")
    if kind == "all_pass" and design.get("gap_drop") is not None:
        raise ValueError("gap_drop is not a parameter of the all-pass ring (kind='all_pass')")
    for k, v in design.items():
        if k == "cladding":
            if not isinstance(v, str):
                raise ValueError(f"design cladding = {v!r} must be one of {list(CLADDINGS)}")
            check_choice("design cladding", v, CLADDINGS)
        elif not (k in ("gap_drop", "bus_length", "electrode_height", "loss_db_per_cm") and v is None):
            check_number(f"design {k}", v)
    full = full_ring_params(kind, design)
    check_ring_inputs(1.55, full)  # the model's range checks, before any fit (without evaluating it)
    return full


def check_ng(fsr_um: float, wl_um: float, radius: float) -> float:
    """Group index λ²/(FSR·2πR) implied by the FSR at ``wl_um`` (both µm) and the radius (µm); ValueError if
    outside ``NG_PLAUSIBLE``."""
    ng = wl_um**2 / (fsr_um * math.tau * radius)
    lo, hi = NG_PLAUSIBLE
    if not lo <= ng <= hi:
        raise ValueError(
            f"radius = {radius:g} µm contradicts the FSR: fsr = {fsr_um * NM_PER_UM:.5g} nm at {wl_um * NM_PER_UM:.6g} nm implies "
            f"n_g = {ng:.4g} (FSR = λ²/(n_g·2πR)), outside the plausible range [{lo:g}, {hi:g}] of TFLN ridges; check "
            f"the radius (n_g = 2.3 would need R = {wl_um**2 / (fsr_um * math.tau * 2.3):.4g} µm), or, for a ring of "
            "another platform (silicon, silicon nitride), read its line shape with --line-shape-only "
            "(analyze_spectrum): the physical stage models TFLN only")
    return ng


def t0_from_extinction(er_db: float, x: float) -> float:
    """Through T0 at resonance from the extinction T(π)/T(0) and x = t1t2a (Airy maximum)."""
    c = (1 - x) ** 2 / (1 + x) ** 2
    e = 10 ** (er_db / 10)
    return float(np.clip((1 - c) / (e - c), 0.0, 1.0))


def couplings(kind: str, regime: str, x: float, t0: float, d0: float | None):
    """(t1, t2, a) from x = t1t2a, T0 (and the drop peak D0); regime 'symmetric', 'under' or 'over'.

    Through at resonance: √T0 = |t1 − t2·a|/(1 − x) (Bogaerts 2012, eq. (3) at θ = 0), so t1 and t2·a are the
    two roots of y² − (√(T0(1 − x)² + 4x))·y + x = 0 with difference √T0(1 − x); 'under' takes t1 the larger
    (weaker coupling than the loss), 'over' the smaller. The drop peak D0 = (1 − t1²)(1 − t2²)a/(1 − x)²
    separates t2 from a; 'symmetric' sets t1 = t2.
    """
    rt0 = math.sqrt(max(t0, 0.0))
    if kind == "add_drop" and regime == "symmetric":
        s = rt0 * (1 - x)
        t = (s + math.sqrt(s * s + 4 * x)) / 2
        return t, t, x / (t * t)
    big = math.sqrt(t0 * (1 - x) ** 2 + 4 * x)
    dif = rt0 * (1 - x)
    hi_, lo_ = (big + dif) / 2, (big - dif) / 2
    r1, v = (hi_, lo_) if regime == "under" else (lo_, hi_)
    r1 = min(r1, 0.9999)
    if kind == "all_pass" or d0 is None:
        return r1, 1.0, min(v, 1.0)
    k = d0 * (1 - x) ** 2 / max(1 - r1 * r1, 1e-12)
    a = min((k + math.sqrt(k * k + 4 * v * v)) / 2, 1.0)
    return r1, min(v / a, 0.9999), a


@functools.lru_cache(maxsize=4)
def _index_fn(cladding: str):
    """jit((F, ∂F/∂PLACED)): F = (n_eff·R, n_g·R) of the ring at λ (µm) for the geometry vector ``PLACED``."""
    def f(x, wl_um):
        film, etch, angle, width, radius = (x[i] for i in range(5))
        ridge = RidgeStack(width=width, film_thickness=film, etch_depth=etch, sidewall_angle_deg=angle,
                           cladding=cladding)
        return jnp.stack([ring_physics.ring_neff(wl_um, radius, ridge) * radius,
                          ring_physics.ring_ng(wl_um, radius, ridge) * radius])

    return program_cache.reuse(lambda x, w: (f(x, w), jax.jacfwd(f)(x, w)))


def ring_indices(p: dict, wl_um: float) -> tuple[float, float]:
    """(n_eff, n_g) of the ring ``p`` (geometry only) at ``wl_um``."""
    x = jnp.asarray([float(p[k]) for k in PLACED])
    f, _ = _index_fn(p["cladding"])(x, float(wl_um))
    return float(f[0]) / float(p["radius"]), float(f[1]) / float(p["radius"])


@dataclass(frozen=True)
class Placement:
    """A geometry placed on a resonance and an FSR: the ring parameters ``p``, the largest |Δ|/σ of the process
    parameters from their priors (``pull``), the mode order m, the products (n_eff·R, n_g·R) (µm) needed at the
    wavelength, and the resonance phase θ0 placed."""

    p: dict
    pull: float
    m: int
    products: tuple[float, float]
    theta0: float


def place_geometry(p: dict, priors: dict[str, Prior], wl_um: float, fsr_um: float, theta0: float = 0.0,
                   resonance: bool = True) -> Placement:
    """The geometry nearest its priors with a resonance at ``wl_um`` (its phase θ0 from it) and the FSR ``fsr_um``.

    Minimum-norm Gauss–Newton steps in z = (x − μ)/σ solve n_eff·R = (m + θ0/2π)·λ/(2π) and
    n_g·R = λ²/(2π·FSR); of the orders m0, m0 ± 1 the one with the smallest pull is kept. Without a known
    ``resonance`` only the FSR condition is solved (the order is the one nearest the geometry found).
    """
    fn = _index_fn(p["cladding"])
    mu = np.array([priors[k].mean for k in PLACED])
    sig = np.array([priors[k].sigma for k in PLACED])
    lo = np.array([priors[k].lo for k in PLACED])
    hi = np.array([priors[k].hi for k in PLACED])
    ng_r = wl_um**2 / (math.tau * fsr_um)  # n_g·R (µm)
    f0, _ = fn(jnp.asarray(mu), wl_um)
    m0 = round(math.tau * float(f0[0]) / wl_um - theta0 / math.tau)
    best = None
    for m in (m0, m0 - 1, m0 + 1) if resonance else (m0,):
        target = np.array([(m + theta0 / math.tau) * wl_um / math.tau, ng_r])
        z = np.zeros(5)
        for _ in range(8):
            x = np.clip(mu + z * sig, lo, hi)
            f, j = (np.asarray(v) for v in fn(jnp.asarray(x), wl_um))
            if not (np.all(np.isfinite(f)) and np.all(np.isfinite(j))):  # left the tables (joint etch/film domain)
                break
            js, rhs = j * sig, target - f
            if not resonance:
                js, rhs = js[1:], rhs[1:]
            dz = js.T @ np.linalg.solve(js @ js.T, rhs + js @ z) - z  # minimum-norm z with J z ≈ target
            z = np.clip(z + dz, -Z_MAX, Z_MAX)
            if np.max(np.abs(dz)) < 1e-9:
                break
        x = np.clip(mu + z * sig, lo, hi)
        if not np.all(np.isfinite(np.asarray(fn(jnp.asarray(x), wl_um)[0]))):
            continue
        pull = float(np.max(np.abs((x - mu) / sig)))
        if best is None or pull < best[0]:
            best = (pull, m, x, target)
    if best is None:  # no order reachable inside the tables: the priors, and the correction does the rest
        x = mu
        target = np.array([(m0 + theta0 / math.tau) * wl_um / math.tau, ng_r])
        best = (math.inf, m0, x, target)
    pull, m, x, target = best
    if not resonance:  # the order (and the resonance) the placed geometry has
        ne_r = float(fn(jnp.asarray(x), wl_um)[0][0])
        m = round(math.tau * ne_r / wl_um - theta0 / math.tau)
        target = np.array([(m + theta0 / math.tau) * wl_um / math.tau, ng_r])
    q = dict(p)
    q.update({k: float(v) for k, v in zip(PLACED, x, strict=True)})
    return Placement(p=q, pull=pull, m=int(m), products=(float(target[0]), float(target[1])), theta0=theta0)


def concrete_ridge(p: dict) -> RidgeStack:
    """The ridge of the ring parameters ``p`` with every number a Python float."""
    return jax.tree.map(float, RidgeStack.from_params(p))


@functools.cache
def _kappa2_fn():
    """jit(sin²Φ) over a vector of gaps at (wl, radius, ridge); one program per cladding (static in the ridge)."""
    def k2(wl, gap, radius, ridge):
        return jnp.sin(ring_physics.coupling_angle(wl, gap, radius, ridge)) ** 2

    return program_cache.reuse(jax.vmap(k2, in_axes=(None, 0, None, None)), pytree_types=(RidgeStack,))


def gap_for_kappa2(p: dict, wl_um: float, kappa2: float) -> float:
    """Gap whose power coupling sin²Φ(gap) is ``kappa2`` (clipped to the gap range): a grid, then brentq."""
    lo, hi = RULES.min_ridge_gap, ring_physics.MAX_GAP
    geo = (float(p["radius"]), concrete_ridge(p))
    fn = _kappa2_fn()
    grid = np.linspace(lo, hi, 64)
    k = np.asarray(fn(wl_um, jnp.asarray(grid), *geo))
    if not (np.all(np.isfinite(k)) and math.isfinite(kappa2)):
        raise ValueError(f"gap search: κ² = {kappa2!r} or the coupling model at {p} is not finite")
    if kappa2 >= k[0]:
        return float(lo)
    if kappa2 <= k[-1]:
        return float(hi)
    i = int(np.flatnonzero(k < kappa2)[0])
    return float(brentq(lambda g: float(fn(wl_um, jnp.asarray([g]), *geo)[0]) - kappa2, grid[i - 1], grid[i],
                        xtol=1e-9))


def loss_for_a(p: dict, wl_um: float, a: float) -> float:
    """Propagation loss (dB/cm, bend loss removed, clipped to [0, LOSS_MAX]) giving the round-trip amplitude ``a``."""
    rt_db = -20 * math.log10(max(min(a, 1.0), 1e-6))
    bend = float(dispersion.bend_loss_db_per_cm(wl_um, float(p["radius"]), concrete_ridge(p)))
    return float(np.clip(rt_db / (math.tau * float(p["radius"]) * 1e-4) - bend, 0.0, LOSS_MAX))


def check_reference(reference_nm) -> None:
    check_range("reference_nm", reference_nm, 1450.0, 1650.0, unit="nm")
