"""The ring physics of the calibration fits, jitted and differentiable.

The same ``ring_physics`` functions as ``rings.ring_add_drop_model`` / ``ring_all_pass_model``,
arranged for fitting: the ring's specs as functions of a parameter vector (with their Jacobian by
``jax.jacfwd``), and the spectrum model evaluated on a Chebyshev grid of the span.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.components import ring_physics, rings
from prismpic.pdk.stack import CLADDING, SIDEWALL_ANGLE_DEG

RING_ARGS = ("radius", "gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage",
             "electrode_width", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltage_v",
             "delta_t_k")
# keys written to the "ring" block
RING_BLOCK = ("radius", "gap", "gap_drop", "width", "film_thickness", "etch_depth", "loss_db_per_cm",
              "coupler_loss_db")
# every parameter a ring fit may move: the jitted functions take them all (one compilation per ring kind)
# and a fit uses the Jacobian columns of the ones it moves
FIT_PARAMS = ("gap", "gap_drop", "loss_db_per_cm", "film_thickness", "width", "radius")
N_NODES = 16  # Chebyshev nodes over a spectrum's span for the ring's slowly varying ingredients
# process parameters of the ring models that the fits do not take yet: they run at the stack's values
# (a design cannot set them: they are not in RING_ARGS, and the parameter file's ring block does not hold them)
STACK_ONLY = {"sidewall_angle_deg": SIDEWALL_ANGLE_DEG, "cladding": CLADDING}


def ring_sax_model(kind: str):
    """The SAX model of a ring of ``kind`` (``"add_drop"`` or ``"all_pass"``)."""
    return rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model


def full_ring_params(kind: str, params: dict) -> dict:
    """All model keyword arguments (defaults filled in) of a ring of ``kind``; an all-pass ignores gap_drop."""
    return rings.ring_params(kind, {k: v for k, v in params.items() if not (kind == "all_pass" and k == "gap_drop")})


def _quantities(p: dict, kind: str, wl0):
    """Specs of a ring as JAX scalars (the formulas of ``rings.ring_specs``, jittable and differentiable).

    The resonance is found by Newton's method on θ(λ) = 2πm from ``wl0``; its derivative
    is the implicit one, −(∂θ/∂p)/(∂θ/∂λ).
    """
    gd = p["gap_drop"] if kind == "add_drop" else None

    def theta(wl):
        return ring_physics.ring_round_trip(wl, p["radius"], p["width"], p["gap"], gd, p["electrode_gap"],
                                            p["electrode_coverage"], p["film_thickness"], p["etch_depth"],
                                            p["loss_db_per_cm"], p["voltage_v"], p["delta_t_k"])[1]

    dtheta = jax.grad(theta)
    sg = jax.lax.stop_gradient
    m = jnp.round(sg(theta(wl0)) / math.tau)
    lam = jax.lax.fori_loop(0, 6, lambda _, x: x - (theta(x) - math.tau * m) / dtheta(x), sg(jnp.asarray(wl0, float)))
    lam = sg(lam)
    lam = lam - (theta(lam) - math.tau * m) / sg(dtheta(lam))
    geo = (p["radius"], p["width"], p["film_thickness"], p["etch_depth"])
    ng = ring_physics.ring_ng(lam, *geo)
    length = math.tau * p["radius"]
    t1, k1, t2, k2 = ring_physics.coupler_fields(lam, p["gap"], gd, p["radius"], p["width"], p["film_thickness"],
                                                 p["etch_depth"], p["coupler_loss_db"])
    if kind == "all_pass":
        t2, k2 = 1.0, 0.0
    eta = ring_physics.db_to_amplitude(p["coupler_loss_db"])
    eta_rt = eta ** (2 if kind == "add_drop" else 1)
    loss_db = ring_physics.round_trip_loss_db(lam, *geo, p["loss_db_per_cm"])
    a = ring_physics.db_to_amplitude(loss_db)
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
    bl = ring_physics.default_bus_length(p["radius"], p["width"]) if p["bus_length"] is None else p["bus_length"]
    bus = jnp.abs(ring_physics.bus_transmission(lam, bl, p["width"], p["film_thickness"], p["etch_depth"],
                                                p["loss_db_per_cm"])) ** 2
    drop_loss = -10 * jnp.log10(jnp.abs(drop0) ** 2 * bus + 1e-300)
    return {
        "resonance_um": lam, "fsr_nm": fsr * 1e3, "fwhm_nm": fwhm * 1e3, "q_loaded": lam / fwhm,
        "q_intrinsic": q_i, "extinction_db": ext, "through_min": t_min, "drop_loss_db": drop_loss,
        "kappa2": k1**2, "kappa2_drop": k2**2, "round_trip_loss_db": loss_db, "ng": ng,
        "neff": ring_physics.ring_neff(lam, *geo), "t1": t1, "t2": t2, "a": a,
    }


@functools.lru_cache(maxsize=16)
def quantities_fn(kind: str, names: tuple, symmetric: bool):
    """jit((specs, their Jacobian)) of the ring as a function of the vector of ``names``.

    Called as ``fn(vec, held, wl0)``: ``held`` from ``held_params``, ``wl0`` (µm) the wavelength
    whose nearest resonance is reported; ``symmetric`` ties gap_drop to gap.
    """

    def f(vec, base, wl0):
        p = dict(base)
        p.update({n: vec[i] for i, n in enumerate(names)})
        if symmetric:
            p["gap_drop"] = p["gap"]
        return _quantities(p, kind, wl0)

    def value_and_jac(vec, base, wl0):
        return f(vec, base, wl0), jax.jacfwd(f)(vec, base, wl0)

    return jax.jit(value_and_jac)


def fit_vector(p: dict) -> np.ndarray:
    """Values of ``FIT_PARAMS`` from a parameter dict (gap_drop None → gap, unused then)."""
    return np.array([float(p["gap"] if n == "gap_drop" and p.get(n) is None else p[n]) for n in FIT_PARAMS])


def held_params(p: dict) -> dict:
    """The parameters outside ``FIT_PARAMS`` as the jitted functions take them: floats as arrays,
    None kept (static structure), bus_length and gap_drop always present; ValueError unless the
    ``STACK_ONLY`` parameters hold the stack's values."""
    for k, v in STACK_ONLY.items():
        if k in p and p[k] != v:
            raise ValueError(f"{k} = {p[k]!r}: ring calibration runs at the stack's {k} ({v!r}) only")
    out = {k: None if v is None else jnp.asarray(float(v)) for k, v in p.items()
           if k not in FIT_PARAMS and k not in STACK_ONLY}
    out.setdefault("bus_length", None)
    out.setdefault("gap_drop", None)
    return out


def ring_quantities(wl0: float = 1.55, kind: str = "add_drop", **params) -> dict[str, float]:
    """Specs of a ring (as ``rings.ring_specs``, jitted) at the resonance nearest ``wl0`` (µm):
    resonance_um, fsr_nm, fwhm_nm, q_loaded, q_intrinsic, extinction_db (dB), drop_loss_db (dB),
    kappa2, kappa2_drop, round_trip_loss_db (dB), ng, neff."""
    p = full_ring_params(kind, params)
    sym = kind == "add_drop" and p["gap_drop"] is None
    out, _ = quantities_fn(kind, FIT_PARAMS, sym)(jnp.asarray(fit_vector(p)), held_params(p), float(wl0))
    return {k: float(v) for k, v in out.items()}


def chebyshev_grid(wl_um: np.ndarray, n: int = N_NODES):
    """(nodes (n,) in µm, interpolation matrix (len(wl_um), n)): barycentric Chebyshev–Lobatto interpolation
    over the span of ``wl_um`` (µm, increasing)."""
    lo, hi = float(wl_um[0]), float(wl_um[-1])
    k = np.arange(n)
    x = np.cos(np.pi * k / (n - 1))[::-1]  # Lobatto points, increasing
    nodes = lo + (x + 1) * 0.5 * (hi - lo)
    w = (-1.0) ** k * np.where((k == 0) | (k == n - 1), 0.5, 1.0)  # barycentric weights (Berrut & Trefethen 2004)
    w = w[::-1]
    d = wl_um[:, None] - nodes[None, :]
    exact = d == 0
    d = np.where(exact, 1.0, d)
    m = w / d
    m = m / m.sum(axis=1, keepdims=True)
    rows = exact.any(axis=1)
    m[rows] = exact[rows].astype(float)
    return jnp.asarray(nodes), jnp.asarray(m)


@functools.lru_cache(maxsize=16)
def spectrum_fn(kind: str, names: tuple, symmetric: bool, ports: tuple, order: int, shared: bool):
    """jit((residual vector, its Jacobian)): physical model times baseline versus the data, over the noise σ.

    Called as ``fn(vec, held, grid, u, data, sigma)``: ``vec`` holds the ``names`` then the baseline
    coefficients (dB polynomial of order ``order`` in u ∈ [−1, 1] over the span; one set if
    ``shared``, else one per port), ``grid`` is ``chebyshev_grid``'s, ``data``/``sigma`` one array per port.

    The ring's ingredients that vary slowly with λ (t, κ, a, θ and the bus loss; θ is 2πL·n_eff(λ)/λ)
    are evaluated at ``N_NODES`` Chebyshev nodes of the span and interpolated (barycentric; the
    error is of order (span/λ)^N_NODES), then combined by ``ring_physics.add_drop_fields`` at every data
    point: the same physics as ``ring_add_drop_model`` at a fraction of the cost of evaluating the
    dispersion fits at thousands of wavelengths. The fit reports the largest difference from the
    model evaluated point by point (``interpolation_error``).
    """
    n_base = order + 1
    n_phys = len(names)

    def model(vec, base, grid, u):
        p = dict(base)
        p.update({n: vec[i] for i, n in enumerate(names)})
        gd = p["gap"] if symmetric else (p["gap_drop"] if kind == "add_drop" else None)
        nodes, interp = grid
        # the ring's smooth ingredients (couplers, round-trip amplitude and phase, bus loss) at the
        # Chebyshev nodes of the span, the same functions ring_add_drop_model / ring_all_pass_model use
        t1, k1, t2, k2 = ring_physics.coupler_fields(nodes, p["gap"], gd, p["radius"], p["width"],
                                                     p["film_thickness"], p["etch_depth"], p["coupler_loss_db"])
        if kind == "all_pass":
            t2, k2 = jnp.ones_like(t1), jnp.zeros_like(k1)
        a, theta = ring_physics.ring_round_trip(nodes, p["radius"], p["width"], p["gap"], gd, p["electrode_gap"],
                                                p["electrode_coverage"], p["film_thickness"], p["etch_depth"],
                                                p["loss_db_per_cm"], p["voltage_v"], p["delta_t_k"])
        bl = ring_physics.default_bus_length(p["radius"], p["width"]) if p["bus_length"] is None else p["bus_length"]
        bus2 = jnp.abs(ring_physics.bus_transmission(nodes, bl, p["width"], p["film_thickness"], p["etch_depth"],
                                                     p["loss_db_per_cm"])) ** 2
        t1, k1, t2, k2, a, theta, bus2 = (interp @ x for x in (t1, k1, t2, k2, a, theta, bus2))
        through, drop, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, theta)
        out = []
        for j, port in enumerate(ports):
            k = 0 if shared else j
            c = vec[n_phys + k * n_base: n_phys + (k + 1) * n_base]
            base_db = sum(c[i] * u**i for i in range(n_base))
            field_ = through if port == "through" else drop
            out.append(10 ** (base_db / 10) * bus2 * jnp.abs(field_) ** 2)
        return out

    def resid(vec, base, grid, u, data, sigma):
        m = model(vec, base, grid, u)
        return jnp.concatenate([(mi - di) / si for mi, di, si in zip(m, data, sigma, strict=True)])

    def value_and_jac(vec, base, grid, u, data, sigma):
        return resid(vec, base, grid, u, data, sigma), jax.jacfwd(resid)(vec, base, grid, u, data, sigma)

    return jax.jit(value_and_jac)
