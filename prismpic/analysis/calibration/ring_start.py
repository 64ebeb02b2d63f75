"""Where a ring fit starts and how far it may go: design, bounds, scales and the closed-form initial guess.

The starting point is physical: the geometry from the FSR (n_g) and the resonance (n_eff·R = mλ/2π),
then the couplings and the loss from the linewidth and extinction through the Airy line of the
round-trip amplitude x = t1·t2·a. Shared by the fits to specs and to spectra.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import sax
from scipy.optimize import brentq

import prismpic  # noqa: F401  (float64)
from prismpic.analysis.calibration.ring_model import RING_ARGS, full_ring_params
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
