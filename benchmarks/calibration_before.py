# ruff: noqa: E402, I001, F401, F811
# Baseline for benchmarks/bench_calibration.py: the scipy ring-spectrum calibration of prismpic/analysis/calibration/
# as of commit cffb125 (before issue 11): fitting.py, results.py (without the figure), ring_model.py, ring_start.py,
# ring_solutions.py and ring_spectrum.py, verbatim (git show cffb125:prismpic/analysis/calibration/<module>.py)
# except that the imports between these modules are removed (they share this one namespace), so that one run
# times the old and the new code on the same files.
"""The ring-spectrum calibration before issue 11 (scipy least_squares, trust-region reflective), one module."""

from __future__ import annotations

# ---------------------------------------------------------------------------- fitting.py (cffb125)

import time

import numpy as np
from scipy.optimize import least_squares


def least_squares_fit(fun, jac, x0, lb, ub, *, max_nfev: int = 200):
    """(``least_squares`` result, seconds) of a bounded fit in already scaled coordinates.

    ``x0`` is pulled 1e-12 inside the bounds; tolerances are 1e-12 (the models are smooth and cheap).
    """
    t0 = time.perf_counter()
    x0 = np.clip(np.asarray(x0, float), np.asarray(lb) + 1e-12, np.asarray(ub) - 1e-12)
    res = least_squares(fun, x0, jac=jac, bounds=(lb, ub), method="trf", x_scale="jac", xtol=1e-12, ftol=1e-12,
                        gtol=1e-12, max_nfev=max_nfev)
    return res, time.perf_counter() - t0


def scaled_bounds(bounds, origin, scales) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) bounds in the scaled coordinates z = (x − origin)/scales; ``bounds`` is [(lo, hi), ...]."""
    lo = np.array([b[0] for b in bounds], float)
    hi = np.array([b[1] for b in bounds], float)
    return (lo - origin) / scales, (hi - origin) / scales


def covariance(jac: np.ndarray, scale2: float) -> np.ndarray:
    """Parameter covariance (JᵀJ)⁻¹·``scale2`` from the residuals' Jacobian (pseudo-inverse, rcond 1e-12)."""
    jtj = jac.T @ jac
    return np.linalg.pinv(jtj, rcond=1e-12) * scale2


def correlated_pairs(names, cov, threshold: float = 0.98) -> list[str]:
    """A note for every pair of parameters whose correlation |ρ| reaches ``threshold``."""
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if sd[i] > 0 and sd[j] > 0:
                rho = cov[i, j] / (sd[i] * sd[j])
                if abs(rho) >= threshold:
                    out.append(f"{names[i]} and {names[j]} are strongly correlated (ρ = {rho:+.3f}): the data "
                               "constrain a combination of them better than either")
    return out


class ValueAndJacobian:
    """Evaluate ``fn(x) -> (value, jac)`` once per x for least_squares' separate ``fun`` and ``jac`` calls."""

    def __init__(self, fn):
        self.fn, self.x, self.out = fn, None, None

    def __call__(self, x):
        if self.x is None or not np.array_equal(x, self.x):
            self.x, self.out = np.array(x, copy=True), self.fn(x)
        return self.out

    def fun(self, x):
        """The residual vector at ``x``."""
        return self(x)[0]

    def jac(self, x):
        """The residuals' Jacobian at ``x``."""
        return self(x)[1]



# ---------------------------------------------------------------------------- results.py (cffb125)

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import sax

from prismpic.checks import check_choice
from prismpic.components import rings
from prismpic.fileio import jsonable, write_json_atomic

SCHEMA = "prismpic.params/1"


def load_params(path) -> dict:
    """Read a parameter file written by calibration and check its schema and ring block."""
    path = Path(path)
    where = f"params = {str(path)!r}"
    if not path.is_file():
        raise ValueError(f"{where} is not a readable file")
    try:
        text = path.read_bytes().decode("utf-8-sig")
        data = json.loads(text)
    except OSError as e:
        raise ValueError(f"{where} cannot be read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{where} is not UTF-8 text (byte {e.start}); JSON files are UTF-8") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{where} is not valid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise ValueError(f"{where} is not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object, got {type(data).__name__}")
    if "ring" in data:
        kind = data.get("ring_kind", "add_drop")
        if not isinstance(kind, str):
            raise ValueError(f"{where}: ring_kind = {kind!r} must be 'add_drop' or 'all_pass'")
        check_choice("ring_kind", kind, ("add_drop", "all_pass"))
        ring = data["ring"]
        if not isinstance(ring, dict):
            raise ValueError(f"{where}: the ring block must be a JSON object of ring model parameters, got "
                             f"{type(ring).__name__}")
        full = rings.ring_params(kind, ring)  # unknown keys raise
        for k, v in ring.items():
            if not (k == "gap_drop" and v is None) and (isinstance(v, bool) or not isinstance(v, int | float)):
                raise ValueError(f"{where}: ring {k} = {v!r} must be a number")
        model = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
        accepted = sax.get_settings(model)
        try:  # the model's range checks, before anything uses the parameters
            model(wl=1.55, **{k: v for k, v in full.items() if k in accepted})
        except ValueError as e:
            raise ValueError(f"{where}: ring block: {e}") from None
    return data


@dataclass(frozen=True)
class FitParam:
    """A fitted parameter: value, 1σ error, design value and bounds (in the parameter's unit)."""

    value: float
    stderr: float | None
    design: float | None = None
    bounds: tuple[float, float] | None = None

    @property
    def at_bound(self) -> bool:
        """Whether the value sits on one of its bounds (within 1e-6 of the span)."""
        if self.bounds is None:
            return False
        lo, hi = self.bounds
        tol = 1e-6 * max(1.0, abs(hi - lo)) if math.isfinite(hi - lo) else 1e-9
        return bool(self.value - lo <= tol or hi - self.value <= tol)

    def to_dict(self) -> dict:
        """The parameter's JSON block: value, stderr, design, bounds, at_bound."""
        return {"value": self.value, "stderr": self.stderr, "design": self.design,
                "bounds": list(self.bounds) if self.bounds is not None else None, "at_bound": self.at_bound}


@dataclass(frozen=True, eq=False)
class RingCalibration:
    """Result of a ring calibration (see the module docstring for the JSON it writes).

    Attributes:
        kind: ``"add_drop"`` or ``"all_pass"``.
        ring: model keyword arguments of the calibrated ring (the ``"ring"`` block).
        fitted: fitted physical parameters.
        nuisance: fitted nuisance parameters (baseline), spectrum fits only.
        specs: outputs of the calibrated model (fsr_nm, fwhm_nm, q_loaded, q_intrinsic —
            None when under/over coupling is not separable —, extinction_db, resonance_nm,
            ng, drop_loss_db, kappa2, kappa2_drop, round_trip_loss_db).
        errors: 1σ of the specs, propagated from the parameter covariance.
        measured: targets (spec fit) or ``analyze_spectrum``'s summary (spectrum fit).
        fit: fit quality and cost.
        ambiguities: what the data cannot separate.
        solutions: every regime fitted (regime, ring, q_intrinsic, cost).
        notes: assumptions and warnings.
        source: what was calibrated from.
        plot_data: arrays for the figure (spectrum fits).
    """

    kind: str
    ring: dict
    fitted: dict
    nuisance: dict
    specs: dict
    errors: dict
    measured: dict
    fit: dict
    ambiguities: tuple[str, ...]
    solutions: tuple[dict, ...]
    notes: tuple[str, ...]
    source: dict
    plot_data: dict = field(default_factory=dict, repr=False)

    def to_params(self) -> dict:
        """The JSON-ready parameter file (schema ``prismpic.params/1``)."""
        out = {"schema": SCHEMA, "ring_kind": self.kind, "ring": dict(self.ring)}
        for k in ("fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "resonance_nm", "ng",
                  "drop_loss_db", "kappa2", "kappa2_drop", "round_trip_loss_db"):
            out[k] = self.specs.get(k)
        out["errors"] = dict(self.errors)
        out["fitted"] = {k: v.to_dict() for k, v in self.fitted.items()}
        if self.nuisance:
            out["nuisance"] = {k: v.to_dict() for k, v in self.nuisance.items()}
        out["measured"] = self.measured
        out["fit"] = self.fit
        out["ambiguities"] = list(self.ambiguities)
        out["solutions"] = list(self.solutions)
        out["notes"] = list(self.notes)
        out["source"] = self.source
        return jsonable(out)

    def write(self, path) -> Path:
        """Write the parameter file atomically."""
        return write_json_atomic(path, self.to_params())



# ---------------------------------------------------------------------------- ring_model.py (cffb125)

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



# ---------------------------------------------------------------------------- ring_start.py (cffb125)

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import sax
from scipy.optimize import brentq

import prismpic  # noqa: F401  (float64)
from prismpic.checks import check_number, check_range
from prismpic.components import ring_physics, rings
from prismpic.components.lineshapes import x_from_fwhm
from prismpic.pdk import dispersion
from prismpic.pdk.rules import RULES

NG_PLAUSIBLE = (1.8, 2.8)  # group index of TFLN ridges (LN n_g ≈ 2.2–2.3 in bulk, SiO2 1.46)
REFERENCE_NM = 1550.0  # nm: the resonance reported (and assumed when none is given) is the one nearest this
# Bounds of the fitted geometry relative to the design, within the dispersion model's domain. The
# fitted value is an effective one: it also absorbs the dispersion model's own error in n_g.
FILM_SPAN = 0.1  # µm
WIDTH_SPAN = 0.5  # µm
LOSS_MAX = 50.0  # dB/cm


def design_params(kind: str, design: dict | None) -> dict:
    """All ring model arguments of the design (``design`` over the model defaults); ValueError on unknown keys."""
    design = dict(design or {})
    for k in design:
        if k not in RING_ARGS:
            raise ValueError(f"design parameter {k!r} is not a ring model parameter; valid: {sorted(RING_ARGS)}")
    if kind == "all_pass" and design.get("gap_drop") is not None:
        raise ValueError("gap_drop is not a parameter of the all-pass ring (kind='all_pass')")
    for k, v in design.items():
        if not (k == "gap_drop" and v is None):
            check_number(f"design {k}", v)
    full = full_ring_params(kind, design)
    model = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
    accepted = sax.get_settings(model)
    model(wl=1.55, **{k: v for k, v in full.items() if k in accepted})  # the model's range checks, before any fit
    return full


def _domain(name: str, etch_depth: float | None = None) -> tuple[float, float]:
    """Valid range of ``name`` (film_thickness or width) in the dispersion model's TE, bend and coupler
    tables (``dispersion.domain()``; film also through the etched fraction etch_depth/film), or (−inf, inf)."""
    lo, hi = -math.inf, math.inf
    try:
        dom = dispersion.domain()
    except Exception:  # noqa: BLE001  (a model without tables or domain: no limit)
        return lo, hi
    key = {"film_thickness": "film"}.get(name, name)
    for table, grid in (dom or {}).items():
        if table == "tm" or not isinstance(grid, dict):  # the rings use TE modes only
            continue
        for k in (key, name):
            if k in grid:
                lo, hi = max(lo, float(grid[k][0])), min(hi, float(grid[k][1]))
                break
        if name == "film_thickness" and etch_depth is not None and "etch_fraction" in grid:
            f_lo, f_hi = (float(v) for v in grid["etch_fraction"][:2])
            lo, hi = max(lo, etch_depth / f_hi), min(hi, etch_depth / f_lo)
    return lo, hi


def param_bounds(name: str, design: dict, radius_span: tuple[float, float]) -> tuple[float, float]:
    """(lo, hi) of fitted parameter ``name`` (µm, or dB/cm for the loss); the radius gets ``radius_span``."""
    if name in ("gap", "gap_drop"):
        return RULES.min_ridge_gap, ring_physics.MAX_GAP
    if name == "loss_db_per_cm":
        return 0.0, LOSS_MAX
    if name == "film_thickness":
        f = float(design["film_thickness"])
        d_lo, d_hi = _domain("film_thickness", float(design["etch_depth"]))
        return max(f - FILM_SPAN, float(design["etch_depth"]) + 0.05, d_lo), min(f + FILM_SPAN, d_hi)
    if name == "width":
        w = float(design["width"])
        d_lo, d_hi = _domain("width")
        return max(w - WIDTH_SPAN, RULES.min_ridge_width, d_lo), min(w + WIDTH_SPAN, d_hi)
    if name == "radius":
        return radius_span
    raise ValueError(name)


def param_scale(name: str, design: dict) -> float:
    """Typical step of fitted parameter ``name`` (its unit), the fit's scaling."""
    return {"gap": 0.02, "gap_drop": 0.02, "loss_db_per_cm": 0.1, "film_thickness": 0.002, "width": 0.005,
            "radius": 1e-4 * float(design["radius"])}[name]


_ring_ng_jit = jax.jit(ring_physics.ring_ng)
_ring_neff_jit = jax.jit(ring_physics.ring_neff)
_coupling_angle_jit = jax.jit(ring_physics.coupling_angle)
_bend_loss_jit = jax.jit(dispersion.bend_loss_db_per_cm)


def _ng_of(p: dict, wl_um: float, name: str, value: float) -> float:
    q = dict(p)
    q[name] = value
    return float(_ring_ng_jit(wl_um, q["radius"], q["width"], q["film_thickness"], q["etch_depth"]))


def _neff_of(p: dict, wl_um: float) -> float:
    return float(_ring_neff_jit(wl_um, p["radius"], p["width"], p["film_thickness"], p["etch_depth"]))


def check_ng(fsr_nm: float, wl_nm: float, radius: float) -> float:
    """Group index λ²/(FSR·2πR) implied by the FSR (nm) at ``wl_nm`` and the radius (µm); ValueError if
    outside ``NG_PLAUSIBLE``."""
    ng = wl_nm**2 / (fsr_nm * math.tau * radius * 1e3)
    lo, hi = NG_PLAUSIBLE
    if not lo <= ng <= hi:
        raise ValueError(
            f"radius = {radius:g} µm contradicts the FSR: fsr = {fsr_nm:.5g} nm at {wl_nm:.6g} nm implies n_g = {ng:.4g} "
            f"(FSR = λ²/(n_g·2πR)), outside the plausible range [{lo:g}, {hi:g}] of TFLN ridges; check the radius "
            f"(n_g = 2.3 would need R = {wl_nm**2 / (fsr_nm * math.tau * 2.3 * 1e3):.4g} µm)")
    return ng


def _solve_ng(p: dict, wl_um: float, name: str, ng_target: float, bounds, radius_note: str) -> float:
    """Value of ``name`` (film_thickness or width) giving the ring n_g ``ng_target``; ValueError if out of reach."""
    lo, hi = bounds
    g_lo, g_hi = _ng_of(p, wl_um, name, lo), _ng_of(p, wl_um, name, hi)
    if not min(g_lo, g_hi) <= ng_target <= max(g_lo, g_hi):
        raise ValueError(
            f"the FSR needs n_g = {ng_target:.4g}{radius_note}, but the ring model reaches n_g in "
            f"[{min(g_lo, g_hi):.4g}, {max(g_lo, g_hi):.4g}] with {name} in [{lo:.4g}, {hi:.4g}] µm "
            f"(design {float(p[name]):.4g} µm); check the radius and FSR, or calibrate the other of width/film_thickness")
    return float(brentq(lambda v: _ng_of(p, wl_um, name, v) - ng_target, lo, hi, xtol=1e-10))


def _gap_for_t(p: dict, wl_um: float, t: float) -> float:
    """Gap whose self-coupling cos Φ equals t (clipped to the gap range)."""
    lo, hi = RULES.min_ridge_gap, ring_physics.MAX_GAP

    def f(g):
        return math.cos(float(_coupling_angle_jit(wl_um, g, p["radius"], p["width"], p["film_thickness"],
                                                  p["etch_depth"]))) - t

    if f(lo) >= 0:
        return lo
    if f(hi) <= 0:
        return hi
    return float(brentq(f, lo, hi, xtol=1e-10))


def _loss_for_a(p: dict, wl_um: float, a: float) -> float:
    """Propagation loss (dB/cm, bend loss removed) giving the round-trip amplitude ``a``."""
    rt_db = -20 * math.log10(max(min(a, 1.0), 1e-6))
    bend = float(_bend_loss_jit(wl_um, p["radius"], p["width"], p["film_thickness"], p["etch_depth"]))
    return float(np.clip(rt_db / (math.tau * p["radius"] * 1e-4) - bend, 0.0, LOSS_MAX))


def _t0_from_extinction(er_db: float, x: float) -> float:
    """Through T0 at resonance from the extinction T(π)/T(0) and x = t1t2a (Airy maximum)."""
    c = (1 - x) ** 2 / (1 + x) ** 2
    e = 10 ** (er_db / 10)
    return float(np.clip((1 - c) / (e - c), 0.0, 1.0))


def _couplings(kind: str, regime: str, x: float, t0: float, d0: float | None):
    """(t1, t2, a) from x = t1t2a, T0 (and the drop peak D0); regime 'symmetric', 'under' or 'over'."""
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


def initial_params(kind, regime, design, targets, ng_param, fit_radius, radius_given) -> dict:
    """Physical starting point from spec targets: geometry (n_g, resonance), then couplings and loss.

    ``targets`` holds fsr_nm, q_loaded and optionally resonance_nm, extinction_db, drop_peak (linear);
    ``design`` is ``design_params``'s; returns the ring parameters (``design`` with the fitted ones set).
    """
    p = dict(design)
    wl_nm = targets.get("resonance_nm") or REFERENCE_NM
    wl_um = wl_nm * 1e-3
    fsr = targets["fsr_nm"]
    if not radius_given:  # radius from the FSR with the design n_g
        for _ in range(3):
            p["radius"] = wl_nm**2 / (fsr * math.tau * _ng_of(p, wl_um, ng_param, p[ng_param]) * 1e3)
        check_range("radius", p["radius"], RULES.min_bend_radius, 500.0, unit="µm")
    else:
        ng_t = check_ng(fsr, wl_nm, p["radius"])
        note = f" (FSR {fsr:.5g} nm, radius {p['radius']:g} µm)"
        p[ng_param] = _solve_ng(p, wl_um, ng_param, ng_t, param_bounds(ng_param, design, (0, 0)), note)
    if targets.get("resonance_nm") is not None and fit_radius:
        p = _place_resonance(p, wl_um, fsr, ng_param, design, fit_ng=True)
    x = x_from_fwhm(wl_nm / targets["q_loaded"], fsr)
    t0 = _t0_from_extinction(targets["extinction_db"], x) if targets.get("extinction_db") is not None else 0.1
    d0 = targets.get("drop_peak")
    t1, t2, a = _couplings(kind, regime, x, t0, d0)
    eta = ring_physics.db_to_amplitude(float(p["coupler_loss_db"]))
    p["gap"] = _gap_for_t(p, wl_um, t1 / eta)
    if kind == "add_drop":
        p["gap_drop"] = _gap_for_t(p, wl_um, t2 / eta) if regime != "symmetric" else None
    p["loss_db_per_cm"] = _loss_for_a(p, wl_um, a)
    return p


@functools.lru_cache(maxsize=4)
def _geometry_fn(ng_param: str):
    """jit((F, ∂F/∂(v, R))): F = (n_g·R, n_eff·R) of the ring at λ, v = ``ng_param`` (FSR and resonance conditions)."""

    def f(x, p, wl_um):
        q = dict(p)
        q[ng_param], q["radius"] = x[0], x[1]
        geo = (q["radius"], q["width"], q["film_thickness"], q["etch_depth"])
        return jnp.stack([ring_physics.ring_ng(wl_um, *geo) * q["radius"],
                          ring_physics.ring_neff(wl_um, *geo) * q["radius"]])

    return jax.jit(lambda x, p, w: (f(x, p, w), jax.jacfwd(f)(x, p, w)))


def _place_resonance(p: dict, wl_um: float, fsr_nm: float, ng_param: str, design: dict, fit_ng: bool) -> dict:
    """Geometry (``ng_param``, radius) with a resonance at ``wl_um`` and the FSR ``fsr_nm`` there.

    Solves n_g·R = λ²/(2π·FSR) and n_eff·R = mλ/(2π) by Newton's method, with m the order nearest
    the starting radius; when ``fit_ng`` is False only R moves (n_eff·R = mλ/2π). Among the orders
    m, m ± 1 the solution nearest the starting radius with the geometry in bounds is kept.
    """
    fn = _geometry_fn(ng_param)
    geo = {k: jnp.asarray(float(p[k])) for k in ("width", "film_thickness", "etch_depth", "radius")}
    r0, v0 = float(p["radius"]), float(p[ng_param])
    lo, hi = param_bounds(ng_param, design, (0, 0))
    target_ngr = (wl_um * 1e3) ** 2 / (math.tau * fsr_nm * 1e3)  # n_g·R in µm
    m0 = round(math.tau * r0 * _neff_of(p, wl_um) / wl_um)
    best = None
    for m in (m0, m0 - 1, m0 + 1):
        x = np.array([v0, r0])
        ok = True
        for _ in range(12):
            f, j = (np.asarray(a) for a in fn(jnp.asarray(x), geo, wl_um))
            r = f - np.array([target_ngr, m * wl_um / math.tau])
            if fit_ng:
                dx = np.linalg.solve(j, -r)
            else:
                dx = np.array([0.0, -r[1] / j[1, 1]])
            x = x + dx
            if not (lo - 0.05 <= x[0] <= hi + 0.05 and RULES.min_bend_radius <= x[1] <= 500.0):
                ok = False
                break
            if np.max(np.abs(dx / np.array([max(abs(v0), 1e-3), r0]))) < 1e-12:
                break
        if ok and lo <= x[0] <= hi and (best is None or abs(x[1] - r0) < abs(best[1] - r0)):
            best = x
    if best is None:
        raise ValueError(f"no {ng_param} in [{lo:.4g}, {hi:.4g}] µm and radius near {r0:.5g} µm put a resonance at "
                         f"{wl_um * 1e3:.4f} nm with FSR {fsr_nm:.5g} nm; check the radius and FSR")
    q = dict(p)
    q[ng_param], q["radius"] = float(best[0]), float(best[1])
    return q



# ---------------------------------------------------------------------------- ring_solutions.py (cffb125)

import math

import numpy as np

from prismpic.checks import check_choice


def fit_regimes(kind: str, coupling: str | None, have_drop: bool) -> tuple[str, ...]:
    """The coupling regimes to fit (``"symmetric"``, ``"under"``, ``"over"``) for ``coupling`` and the data."""
    check_choice("coupling", coupling, (None, "symmetric", "under", "over"))
    if kind == "all_pass":
        if coupling == "symmetric":
            raise ValueError("coupling = 'symmetric' needs an add-drop ring (kind='add_drop'); an all-pass ring "
                             "has one coupler: use None, 'under' or 'over'")
        return ("under", "over") if coupling is None else (coupling,)
    if coupling == "symmetric" or (coupling is None and not have_drop):
        return ("symmetric",)
    if not have_drop:
        raise ValueError(f"coupling = {coupling!r} with independent gaps needs the drop port (or the drop loss); "
                         "with the through port alone use coupling='symmetric' (gap_drop = gap)")
    return ("under", "over") if coupling is None else (coupling,)


def ambiguity_notes(kind, regimes, have_drop, ng_param, fit_radius) -> list[str]:
    """What the fit cannot separate, as sentences for ``RingCalibration.ambiguities``."""
    out = []
    other = "width" if ng_param == "film_thickness" else "film_thickness"
    out.append(f"{ng_param} and {other} both set n_eff and n_g: {ng_param} fitted, {other} held at its design value")
    if fit_radius:
        out.append("mode order: the neighbouring orders fit with radius ±λ/(2π·n_eff) (≈ 0.6 % of R) and a "
                   "compensating n_g; the solution nearest the given radius is kept")
    out.append("coupler excess loss and propagation loss are not separable: coupler_loss_db held, all loss in "
               "loss_db_per_cm")
    if kind == "add_drop" and regimes == ("symmetric",):
        out.append("input and drop coupling are not separated" + ("" if have_drop else " by the through port alone")
                   + ": gap_drop tied to gap (symmetric couplers assumed)")
    if len(regimes) == 2:
        out.append("under- and over-coupling fit equally (t ↔ a symmetry of |t − a·e^{iθ}|²): both solutions "
                   "are in 'solutions'; q_intrinsic is not separable")
    return out


def fitted_names(kind, regime, fit_ng, ng_param, fit_radius, fit_loss=True, fit_gap_drop=None) -> tuple[str, ...]:
    """The ring parameters a fit moves, in order (a subset of ``FIT_PARAMS``)."""
    names = ["gap"]
    if kind == "add_drop" and regime != "symmetric" and fit_gap_drop is not False:
        names.append("gap_drop")
    if fit_loss:
        names.append("loss_db_per_cm")
    if fit_ng:
        names.append(ng_param)
    if fit_radius:
        names.append("radius")
    return tuple(names)


def ring_block(kind: str, p: dict, symmetric: bool) -> dict:
    """The ``"ring"`` block of the parameter file (``RING_BLOCK`` keys; gap_drop None when tied to gap)."""
    out = {}
    for k in RING_BLOCK:
        if k == "gap_drop":
            if kind == "add_drop":
                out[k] = None if symmetric else float(p[k])
            continue
        out[k] = float(p[k])
    return out


def fitted_params(names, vec, cov, bounds, design: dict) -> dict[str, FitParam]:
    """``FitParam`` of each fitted parameter: value, 1σ from the covariance diagonal, design value, bounds."""
    return {n: FitParam(float(vec[i]), float(math.sqrt(max(cov[i, i], 0.0))),
                        float(design[n]) if design.get(n) is not None else None, bounds[i])
            for i, n in enumerate(names)}


def spec_errors(jq: dict, cov: np.ndarray) -> dict:
    """1σ of the specs, J·cov·Jᵀ with J their Jacobian in the fitted parameters (resonance in nm)."""
    out = {}
    for k in ("fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "resonance_um", "ng"):
        j = np.asarray(jq[k])
        v = float(j @ cov @ j)
        key = "resonance_nm" if k == "resonance_um" else k
        out[key] = math.sqrt(max(v, 0.0)) * (1e3 if k == "resonance_um" else 1.0)
    return out


def specs_dict(q: dict, separable: bool) -> dict:
    """The reported specs from the model's quantities (resonance in nm; q_intrinsic None if not separable)."""
    s = {k: float(v) for k, v in q.items()}
    s["resonance_nm"] = s.pop("resonance_um") * 1e3
    for k in ("through_min", "t1", "t2", "a", "neff"):
        s.pop(k, None)
    if not separable:
        s["q_intrinsic"] = None
    return s


def choose_solution(sols, design):
    """(chosen solution, decisive): the lowest cost; when all are about as good, the one nearest the design gap."""
    if len(sols) == 1:
        return sols[0], True
    costs = np.array([s["cost"] for s in sols])
    best = int(np.argmin(costs))
    others = np.delete(costs, best)
    if np.all(others > 1.1 * costs[best] + 12.5):  # Δχ² > 25 (and 20 %): the data prefer one regime
        return sols[best], True
    best = int(np.argmin([abs(s["p"]["gap"] - float(design["gap"])) for s in sols]))
    return sols[best], False


def solution_summary(kind, s) -> dict:
    """One entry of ``RingCalibration.solutions``: regime, ring block, q_intrinsic, κ², loss and cost."""
    return {"regime": s["regime"], "ring": ring_block(kind, s["p"], s["regime"] == "symmetric"),
            "q_intrinsic": s["q"]["q_intrinsic"], "kappa2": s["q"]["kappa2"], "kappa2_drop": s["q"]["kappa2_drop"],
            "loss_db_per_cm": s["p"]["loss_db_per_cm"], "cost": s["cost"]}



# ---------------------------------------------------------------------------- ring_spectrum.py (cffb125)

import math
import time
from dataclasses import dataclass
from pathlib import Path

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.measurements import read_spectrum_csv
from prismpic.analysis.spectra import analyze_spectrum
from prismpic.checks import check_choice, check_positive, check_range
from prismpic.fileio import jsonable
from prismpic.pdk.rules import RULES


@dataclass(frozen=True, eq=False)
class _Spectrum:
    """What a spectrum fit compares: the ports' data, baselines and noise over the wavelengths."""

    wl: np.ndarray  # nm
    ports: tuple[str, ...]
    data: list  # linear transmission per port
    bases: list  # analyze_spectrum's baseline per port (linear)
    sigma: list  # noise σ per port (linear), one value per point
    u: jnp.ndarray  # wavelength mapped to [−1, 1] over the span (baseline polynomial variable)
    half: float  # half span (nm)
    grid: tuple  # chebyshev_grid of the span (µm)
    shared: bool  # one baseline for every port
    order: int  # baseline polynomial order
    have_t: bool  # the through port is measured


def _spectrum(an, ports, shared, order, have_t) -> _Spectrum:
    wl = np.asarray(an.wl_nm, float)
    mid, half = 0.5 * (wl[0] + wl[-1]), 0.5 * (wl[-1] - wl[0])
    data = [np.asarray(an.through if p == "through" else an.drop, float) for p in ports]
    bases = [np.asarray(an.baseline_through if p == "through" else (an.baseline_through if have_t else
                                                                   an.baseline_drop), float) for p in ports]
    sigma = []
    for p, b in zip(ports, bases, strict=True):
        nrel = max(an.noise.get(p, 1e-4), 1e-5)
        sigma.append(np.full(wl.size, nrel * float(np.median(b))))
    return _Spectrum(wl=wl, ports=ports, data=data, bases=bases, sigma=sigma, u=jnp.asarray((wl - mid) / half),
                     half=half, grid=chebyshev_grid(wl * 1e-3), shared=shared, order=order, have_t=have_t)


def _baseline_start(sp: _Spectrum, vjf, full0, base) -> list[float]:
    """Starting baseline coefficients: the analysis's baseline (dB polynomial) per port; drop alone: its peak."""
    order = sp.order
    zeros, ones = tuple(jnp.zeros(sp.wl.size) for _ in sp.ports), tuple(jnp.ones(sp.wl.size) for _ in sp.ports)
    coefs = []
    for j, (port, b) in enumerate(zip(sp.ports, sp.bases, strict=True)):
        if sp.shared and j > 0:
            break
        cdb = np.polynomial.polynomial.polyfit(np.asarray(sp.u), 10 * np.log10(b), order)
        if port == "drop" and not sp.have_t:
            vec0 = jnp.asarray(list(full0) + [0.0] * (order + 1))
            mdl = np.asarray(vjf(vec0, base, sp.grid, sp.u, zeros, ones)[0])
            cdb[0] = 10 * math.log10(float(np.max(sp.data[j])) / float(np.max(mdl)))
            cdb[1:] = 0.0
        coefs.extend(cdb.tolist())
    return coefs


def _fit_regime(kind, regime, design_p, targets, ng_param, fit_loss, sp: _Spectrum, reference_nm) -> dict:
    """The solution (see ``ring_solutions``) of one coupling regime, with the baseline (``vec[k:]``),
    the reduced χ² and the fitted model per port."""
    t_start = time.perf_counter()
    p0 = initial_params(kind, regime, design_p, targets, ng_param, True, True)
    if not fit_loss:
        p0["loss_db_per_cm"] = float(design_p["loss_db_per_cm"])
    sym = kind == "add_drop" and regime == "symmetric"
    names = fitted_names(kind, regime, True, ng_param, True, fit_loss)
    base = held_params(p0)
    full0 = fit_vector(p0)
    cols = [FIT_PARAMS.index(n) for n in names]
    vjf = spectrum_fn(kind, FIT_PARAMS, sym, sp.ports, sp.order, sp.shared)
    coefs = _baseline_start(sp, vjf, full0, base)
    nb = len(coefs)
    r0 = float(p0["radius"])
    span = (r0 * (1 - 0.004), r0 * (1 + 0.004))
    bnds = [param_bounds(n, design_p, span) for n in names] + [(-np.inf, np.inf)] * nb
    scales = np.array([param_scale(n, p0) for n in names] + [0.05] * nb)
    origin = np.array([float(p0[n]) for n in names] + coefs)
    dj, sj = tuple(jnp.asarray(d) for d in sp.data), tuple(jnp.asarray(s) for s in sp.sigma)
    k = len(names)
    sel = cols + list(range(len(FIT_PARAMS), len(FIT_PARAMS) + nb))

    def evaluate(z):
        x = origin + z * scales
        full = np.concatenate([full0, x[k:]])
        full[cols] = x[:k]
        r, j = vjf(jnp.asarray(full), base, sp.grid, sp.u, dj, sj)
        return np.asarray(r), np.asarray(j)[:, sel] * scales

    ev = ValueAndJacobian(evaluate)
    lb, ub = scaled_bounds(bnds, origin, scales)
    res, secs = least_squares_fit(ev.fun, ev.jac, np.zeros(origin.size), lb, ub, max_nfev=300)
    vec = origin + res.x * scales
    dof = max(res.fun.size - vec.size, 1)
    chi2 = 2 * res.cost / dof
    cov_all = covariance(ev.jac(res.x) / scales, chi2)
    r_fin = ev.fun(res.x)
    n = sp.wl.size
    model = [r_fin[j * n:(j + 1) * n] * sp.sigma[j] + sp.data[j] for j in range(len(sp.ports))]
    p = dict(p0)
    p.update(zip(names, (float(v) for v in vec[:k]), strict=True))
    if sym:
        p["gap_drop"] = None
    full = full0.copy()
    full[cols] = vec[:k]
    qv, jqv = quantities_fn(kind, FIT_PARAMS, sym)(jnp.asarray(full), base, reference_nm * 1e-3)
    jqv = {kk: np.asarray(v)[..., cols] for kk, v in jqv.items()}
    q = {kk: float(v) for kk, v in qv.items()}
    return dict(regime=regime, p=p, q=q, jq={kk: np.asarray(v) for kk, v in jqv.items()}, cost=float(res.cost),
                chi2=chi2, res=res, names=names, vec=vec, cov=cov_all, bnds=bnds, k=k, model=model,
                nfev=int(res.nfev), time=time.perf_counter() - t_start, fit_secs=secs)


def _nuisance(chosen: dict, sp: _Spectrum) -> dict[str, FitParam]:
    """The fitted baseline coefficients per nm^i (c0_db, c1_db_per_nm, c2_db_per_nm2; per port if separate)."""
    k, order = chosen["k"], sp.order
    nuisance = {}
    labels = ["c0_db", "c1_db_per_nm", "c2_db_per_nm2"][: order + 1]
    for j, port in enumerate(sp.ports if not sp.shared else ("shared",)):
        for i, lab in enumerate(labels):
            idx = k + j * (order + 1) + i
            scale = sp.half**-i
            name = f"{lab}" if sp.shared else f"{port}_{lab}"
            nuisance[name] = FitParam(float(chosen["vec"][idx] * scale),
                                      float(math.sqrt(max(chosen["cov"][idx, idx], 0.0)) * scale))
    return nuisance


def _point_by_point(kind: str, chosen: dict, sp: _Spectrum) -> tuple[list[np.ndarray], float]:
    """(the fitted ring evaluated point by point by its SAX model times the baseline, per port; the
    largest relative difference from the interpolated fit model)."""
    k, order = chosen["k"], sp.order
    sd = ring_sax_model(kind)(jnp.asarray(sp.wl * 1e-3),
                              **{kk: v for kk, v in chosen["p"].items() if not (kind == "all_pass" and kk == "gap_drop")})
    exact, interp_err = [], 0.0
    for j, port in enumerate(sp.ports):
        jb = 0 if sp.shared else j
        c = chosen["vec"][k + jb * (order + 1): k + (jb + 1) * (order + 1)]
        bl = 10 ** (np.polynomial.polynomial.polyval(np.asarray(sp.u), c) / 10)
        e = bl * np.abs(np.asarray(sd[("o1", "o2") if port == "through" else ("o1", "o4")])) ** 2
        interp_err = max(interp_err, float(np.max(np.abs(e - chosen["model"][j])) / np.max(np.abs(e))))
        exact.append(e)
    return exact, interp_err


def _fit_quality(chosen: dict, sp: _Spectrum, model, interp_err: float) -> dict:
    """The ``fit`` record: method, points, parameters, reduced χ², rms residual and noise σ per port, cost."""
    res = chosen["res"]
    n_pts = int(res.fun.size)
    rms = {port: float(np.sqrt(np.mean((np.asarray(m) - d) ** 2))) for port, m, d in zip(sp.ports, model, sp.data,
                                                                                        strict=True)}
    return {"method": "spectrum: least_squares (trf, bounds) on the physical model + baseline, JAX Jacobian",
            "n_points": n_pts, "n_params": int(chosen["vec"].size), "dof": n_pts - int(chosen["vec"].size),
            "chi2_reduced": chosen["chi2"], "rms_residual": rms,
            "noise_sigma": {p: float(s[0]) for p, s in zip(sp.ports, sp.sigma, strict=True)},
            "converged": bool(res.status > 0), "nfev": chosen["nfev"], "time_s": chosen["time"],
            "least_squares_s": chosen["fit_secs"], "interpolation_error": interp_err}


def _check_arguments(through, drop, kind, ng_param, baseline, baseline_order, radius, reference_nm) -> str:
    """The ring kind (checked, defaulted from the ports) after checking the other arguments."""
    if through is None and drop is None:
        raise ValueError("through = None and drop = None: give at least one port's transmission")
    kind = kind or ("add_drop" if drop is not None else "all_pass")
    check_choice("kind", kind, ("add_drop", "all_pass"))
    check_choice("ng_param", ng_param, ("film_thickness", "width"))
    check_choice("baseline", baseline, ("shared", "separate"))
    if not isinstance(baseline_order, (int, np.integer)) or not 0 <= baseline_order <= 2:
        raise ValueError(f"baseline_order = {baseline_order!r} must be an integer in [0, 2]")
    check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    check_positive("reference_nm", reference_nm, unit="nm")
    if kind == "all_pass" and drop is not None:
        raise ValueError("kind = 'all_pass' has no drop port; give kind='add_drop' or leave the drop out")
    return kind


def calibrate_ring_spectrum(
    wl_nm,
    through=None,
    drop=None,
    *,
    radius: float,
    kind: str | None = None,
    coupling: str | None = None,
    ng_param: str = "width",
    baseline: str = "shared",
    baseline_order: int = 1,
    reference_nm: float = REFERENCE_NM,
    design: dict | None = None,
    source: dict | None = None,
) -> RingCalibration:
    """Fit the physical ring model (plus baseline nuisance parameters) to a measured spectrum.

    Args:
        wl_nm: wavelengths (nm), strictly increasing.
        through, drop: linear power transmission of the ports (either or both).
        radius: ring radius (µm) as drawn; the fit fine-tunes it (≤ 0.4 %) to place the resonances.
        kind: ``"add_drop"`` or ``"all_pass"``; default add-drop if ``drop`` is given, else all-pass.
        coupling: None, ``"symmetric"``, ``"under"`` or ``"over"`` (see the package docstring).
        ng_param: ``"film_thickness"`` or ``"width"``, the geometry fitted to the FSR.
        baseline: ``"shared"`` (one baseline for both ports) or ``"separate"``.
        baseline_order: polynomial order (dB versus λ) of the baseline, 0–2 (1: offset and tilt).
        reference_nm: the resonance reported is the model's nearest this wavelength (nm).
        design: other ring parameters, held (e.g. ``{"etch_depth": 0.3}``).
        source: what to record under ``source`` (file name, ...).

    Returns:
        :class:`RingCalibration` with the fitted model's specs, parameter errors from the Jacobian
        and the residual, fit quality and a figure (``plot``).
    """
    kind = _check_arguments(through, drop, kind, ng_param, baseline, baseline_order, radius, reference_nm)
    an = analyze_spectrum(wl_nm, through, drop, radius_um=radius, reference_nm=reference_nm,
                          baseline_order=max(baseline_order, 1))
    wl = np.asarray(an.wl_nm, float)
    if an.fsr_nm is None:
        raise ValueError(f"one resonance only in {wl[0]:.6g}..{wl[-1]:.6g} nm: the FSR (hence n_g) needs at least "
                         "two resonances; widen the span")
    rn = an.resonances[an.nearest]
    check_ng(an.fsr_nm, rn.center_nm, radius)
    have_t, have_d = through is not None, drop is not None
    regimes = fit_regimes(kind, coupling, have_d)
    design_p = design_params(kind, design)
    design_p["radius"] = float(radius)
    ports = tuple(p for p, h in (("through", have_t), ("drop", have_d)) if h)
    shared = baseline == "shared" or len(ports) == 1
    ref_c = float(np.clip(reference_nm, an.resonances[0].center_nm, an.resonances[-1].center_nm))
    fsr_c = an.fsr_nm * (rn.center_nm / ref_c) ** 2  # the FSR at the resonance used (n_g constant over the gap)
    targets = {"fsr_nm": fsr_c, "q_loaded": rn.q_loaded, "resonance_nm": rn.center_nm}
    if have_t:
        targets["extinction_db"] = rn.through_extinction_db
    if have_d and rn.drop_peak is not None and have_t:
        targets["drop_peak"] = rn.drop_peak
    fit_loss = have_t  # the drop port alone gives the total linewidth only
    order = int(baseline_order)
    sp = _spectrum(an, ports, shared, order, have_t)
    sols = [_fit_regime(kind, regime, design_p, targets, ng_param, fit_loss, sp, reference_nm) for regime in regimes]
    chosen, separable = choose_solution(sols, design_p)
    k = chosen["k"]
    specs = specs_dict(chosen["q"], separable)
    errors = spec_errors(chosen["jq"], chosen["cov"][:k, :k])
    if not separable:
        errors["q_intrinsic"] = None
    fitted = fitted_params(chosen["names"], chosen["vec"], chosen["cov"], chosen["bnds"], design_p)
    amb = ambiguity_notes(kind, regimes if not separable or len(regimes) == 1 else (chosen["regime"],), have_d,
                          ng_param, True)
    if not fit_loss:
        amb.append("the drop port alone fixes the total linewidth only: loss_db_per_cm held at its design value")
    if not shared:
        amb.append("separate baselines per port: the drop level carries no coupling information")
    amb += correlated_pairs(list(chosen["names"]), chosen["cov"][:k, :k])
    model, interp_err = _point_by_point(kind, chosen, sp)
    notes = list(an.notes)
    if chosen["chi2"] > 4.0:
        notes.append(f"reduced χ² = {chosen['chi2']:.3g} > 4: the model does not describe the data to within its noise "
                     "(check the residual figure; uncertainties are scaled by √χ²)")
    at = [n for n, fp in fitted.items() if fp.at_bound]
    if at:
        notes.append(f"parameters at their bounds: {', '.join(at)}; the data may lie outside the model's reach")
    measured = {"fsr_nm": an.fsr_nm, "fsr_err_nm": an.fsr_err_nm, "center_nm": rn.center_nm, "fwhm_nm": rn.fwhm_nm,
                "q_loaded": rn.q_loaded, "extinction_db": rn.extinction_db, "n_group": an.n_group,
                "q_intrinsic": an.q_intrinsic, "resonances_nm": [r.center_nm for r in an.resonances],
                "port": an.port}
    plot_data = {"wl_nm": wl, "ports": ports, "data": sp.data, "model": [np.asarray(m) for m in model],
                 "sigma": sp.sigma, "center_nm": rn.center_nm, "fwhm_nm": rn.fwhm_nm}
    return RingCalibration(
        kind=kind, ring=ring_block(kind, chosen["p"], chosen["regime"] == "symmetric"), fitted=fitted,
        nuisance=_nuisance(chosen, sp), specs=specs, errors=errors, measured=jsonable(measured),
        fit=jsonable(_fit_quality(chosen, sp, model, interp_err)),
        ambiguities=tuple(amb), solutions=tuple({**solution_summary(kind, s), "chi2_reduced": s["chi2"]}
                                                for s in sols),
        notes=tuple(notes), source={"from": "spectrum", "radius": radius, "coupling": coupling, "ng_param": ng_param,
                                    "baseline": baseline, "baseline_order": order, **(source or {})},
        plot_data=plot_data,
    )


def calibrate_ring_csv(path, *, radius: float, **kwargs) -> RingCalibration:
    """``measurements.read_spectrum_csv`` then ``calibrate_ring_spectrum`` (radius in µm)."""
    sp = read_spectrum_csv(path)
    return calibrate_ring_spectrum(sp.wl_nm, sp.through, sp.drop, radius=radius,
                                   source={"spectrum": Path(path).name}, **kwargs)


