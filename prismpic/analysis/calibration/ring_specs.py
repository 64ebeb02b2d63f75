"""Ring calibration from specs: the physical parameters whose model reproduces FSR, Q and extinction
(and optionally a resonance wavelength and the drop loss).

The residuals are the model's specs minus the targets over their assumed 1σ (``SPEC_SIGMA``; Q in
log); a regime whose best fit misses a target is excluded, and none left is a ValueError.
"""

from __future__ import annotations

import math
import time

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration.fitting import (
    ValueAndJacobian,
    correlated_pairs,
    covariance,
    least_squares_fit,
    scaled_bounds,
)
from prismpic.analysis.calibration.results import RingCalibration
from prismpic.analysis.calibration.ring_model import FIT_PARAMS, fit_vector, held_params, quantities_fn
from prismpic.analysis.calibration.ring_solutions import (
    ambiguity_notes,
    choose_solution,
    fit_regimes,
    fitted_names,
    fitted_params,
    ring_block,
    solution_summary,
    spec_errors,
    specs_dict,
)
from prismpic.analysis.calibration.ring_start import (
    REFERENCE_NM,
    design_params,
    initial_params,
    param_bounds,
    param_scale,
)
from prismpic.checks import check_choice, check_range
from prismpic.pdk.rules import RULES

# Assumed 1σ uncertainties of user-given specs (for the parameter uncertainties of a spec fit).
SPEC_SIGMA = {"fsr_rel": 1e-3, "q_rel": 0.02, "extinction_db": 0.5, "resonance_nm": 1e-3, "drop_loss_db": 0.2}
# spec residuals: (target name, name in the model's quantities, compared in log?)
_SPEC_TARGETS = (("fsr_nm", "fsr_nm", False), ("q_loaded", "q_loaded", True), ("extinction_db", "extinction_db", False),
                 ("resonance_nm", "resonance_um", False), ("drop_loss_db", "drop_loss_db", False))


def _spec_residuals(q, jq, targets, sig):
    """Weighted residuals and Jacobian of the spec targets present in ``targets`` (NumPy)."""
    r, j = [], []
    for tname, qname, log in _SPEC_TARGETS:
        if targets.get(tname) is None:
            continue
        v, dv = float(q[qname]), np.asarray(jq[qname], float)
        if qname == "resonance_um":
            v, dv = v * 1e3, dv * 1e3
        if log:
            r.append((math.log(v) - math.log(targets[tname])) / sig[tname])
            j.append(dv / v / sig[tname])
        else:
            r.append((v - targets[tname]) / sig[tname])
            j.append(dv / sig[tname])
    return np.asarray(r), np.stack(j)


def _check_specs(fsr_nm, q_loaded, extinction_db, resonance_nm, radius, kind, drop_loss_db, ng_param) -> None:
    check_choice("kind", kind, ("add_drop", "all_pass"))
    check_choice("ng_param", ng_param, ("film_thickness", "width"))
    check_range("fsr_nm", fsr_nm, 0.05, 200.0, unit="nm")
    check_range("q_loaded", q_loaded, 10.0, 1e9)
    check_range("extinction_db", extinction_db, 0.0, 80.0, unit="dB", lo_open=True)
    if resonance_nm is not None:
        check_range("resonance_nm", resonance_nm, 1000.0, 2000.0, unit="nm")
    if radius is not None:
        check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    if drop_loss_db is not None:
        if kind != "add_drop":
            raise ValueError("drop_loss_db needs an add-drop ring (kind='add_drop')")
        check_range("drop_loss_db", drop_loss_db, 0.0, 60.0, unit="dB")
    fwhm = (resonance_nm or REFERENCE_NM) / q_loaded
    if fwhm >= fsr_nm / 2:
        raise ValueError(f"q_loaded = {q_loaded:g} gives FWHM = {fwhm:.4g} nm, not below FSR/2 = {fsr_nm / 2:.4g} nm: "
                         "no resonance (raise Q or check the FSR)")


def _fit_regime(kind, regime, design_p, targets, sig, ng_param, fit_ng, fit_radius, radius_given, wl0) -> dict:
    """The solution (see ``ring_solutions``) of one coupling regime: start, bounded fit, specs and covariance."""
    t_start = time.perf_counter()
    p0 = initial_params(kind, regime, design_p, targets, ng_param, fit_radius, radius_given)
    names = fitted_names(kind, regime, fit_ng, ng_param, fit_radius)
    sym = kind == "add_drop" and regime == "symmetric"
    qfn = quantities_fn(kind, FIT_PARAMS, sym)
    base = held_params(p0)
    cols = [FIT_PARAMS.index(n) for n in names]
    full0 = fit_vector(p0)
    r0 = float(p0["radius"])
    span = (r0 * (1 - 0.004), r0 * (1 + 0.004)) if radius_given else (RULES.min_bend_radius, 500.0)
    bnds = [param_bounds(n, design_p, span) for n in names]
    scales = np.array([param_scale(n, p0) for n in names])
    origin = np.array([float(p0[n]) for n in names])

    def evaluate(z):
        full = full0.copy()
        full[cols] = origin + z * scales
        q, jq = qfn(jnp.asarray(full), base, wl0)
        r, j = _spec_residuals(q, {k: np.asarray(v)[..., cols] for k, v in jq.items()}, targets, sig)
        return r, j * scales

    ev = ValueAndJacobian(evaluate)
    lb, ub = scaled_bounds(bnds, origin, scales)
    res, secs = least_squares_fit(ev.fun, ev.jac, np.zeros(len(names)), lb, ub)
    vec = origin + res.x * scales
    cov = covariance(ev.jac(res.x) / scales, 1.0)
    full = full0.copy()
    full[cols] = vec
    qv, jqv = qfn(jnp.asarray(full), base, wl0)
    jqv = {k: np.asarray(v)[..., cols] for k, v in jqv.items()}
    q = {k: float(v) for k, v in qv.items()}
    p = dict(p0)
    p.update(zip(names, (float(v) for v in vec), strict=True))
    if sym:
        p["gap_drop"] = None
    return dict(regime=regime, p=p, q=q, jq={k: np.asarray(v) for k, v in jqv.items()}, cost=float(res.cost),
                res=res, names=names, vec=vec, cov=cov, bnds=bnds, time=time.perf_counter() - t_start,
                fit_secs=secs, nfev=int(res.nfev))


def _unreached(s, targets, sig) -> str | None:
    """None if solution ``s`` meets every spec target, else what it misses (and which parameters hit bounds)."""
    q = s["q"]
    ach = {"fsr_nm": q["fsr_nm"], "q_loaded": q["q_loaded"], "extinction_db": q["extinction_db"]}
    tol = {"fsr_nm": 0.2 * sig["fsr_nm"], "q_loaded": 0.01, "extinction_db": 0.05}
    if targets.get("resonance_nm") is not None:
        ach["resonance_nm"] = q["resonance_um"] * 1e3
        tol["resonance_nm"] = 0.5e-3
    if targets.get("drop_loss_db") is not None:
        ach["drop_loss_db"] = q["drop_loss_db"]
        tol["drop_loss_db"] = 0.05
    missed = []
    for k, v in ach.items():
        t = targets[k]
        err = abs(math.log(v / t)) if k == "q_loaded" else abs(v - t)
        if err > tol[k]:
            missed.append(f"{k} = {t:.6g} (closest {v:.6g})")
    if not missed:
        return None
    at = [f"{n} = {s['p'][n]:.4g} in [{b[0]:.4g}, {b[1]:.4g}]" for n, b in zip(s["names"], s["bnds"], strict=True)
          if min(abs(s["p"][n] - b[0]), abs(b[1] - s["p"][n])) <= 1e-6 * max(1.0, abs(b[1]))]
    return (f"{s['regime']} coupling misses " + ", ".join(missed)
            + (" with " + ", ".join(at) + " at its bound" if at else ""))


def calibrate_ring_specs(
    fsr_nm: float,
    q_loaded: float,
    extinction_db: float,
    *,
    resonance_nm: float | None = None,
    radius: float | None = None,
    kind: str = "add_drop",
    coupling: str | None = None,
    drop_loss_db: float | None = None,
    ng_param: str = "width",
    design: dict | None = None,
) -> RingCalibration:
    """Physical ring parameters whose model reproduces the given specs.

    Args:
        fsr_nm: free spectral range (nm) near the resonance.
        q_loaded: loaded Q (λ/FWHM).
        extinction_db: through-port extinction T(anti-resonance)/T(resonance) (dB).
        resonance_nm: a resonance wavelength (nm); the radius is then fine-tuned to put one there.
        radius: ring radius (µm); None derives it from the FSR with the design n_g.
        kind: ``"add_drop"`` or ``"all_pass"``.
        coupling: None, ``"symmetric"`` (add-drop, gap_drop = gap), ``"under"`` or ``"over"``.
        drop_loss_db: add-drop drop loss at resonance (dB); with it gap_drop is fitted too.
        ng_param: ``"film_thickness"`` or ``"width"``, the geometry fitted to the FSR.
        design: other ring model parameters (held), e.g. ``{"etch_depth": 0.3}``.

    Returns:
        :class:`RingCalibration`; ``errors`` propagate the assumed spec uncertainties ``SPEC_SIGMA``.

    Raises:
        ValueError: bad specs, a radius inconsistent with the FSR, or specs the model cannot reach.
    """
    _check_specs(fsr_nm, q_loaded, extinction_db, resonance_nm, radius, kind, drop_loss_db, ng_param)
    wl_nm = resonance_nm or REFERENCE_NM
    design_p = design_params(kind, design)
    radius_given = radius is not None
    if radius_given:
        design_p["radius"] = float(radius)
    have_drop = drop_loss_db is not None
    regimes = fit_regimes(kind, coupling, have_drop)
    fit_radius = resonance_nm is not None or not radius_given
    fit_ng = radius_given or resonance_nm is not None  # FSR and resonance need two geometry parameters
    targets = {"fsr_nm": float(fsr_nm), "q_loaded": float(q_loaded), "extinction_db": float(extinction_db),
               "resonance_nm": None if resonance_nm is None else float(resonance_nm)}
    if have_drop:
        targets["drop_loss_db"] = float(drop_loss_db)
        targets["drop_peak"] = 10 ** (-drop_loss_db / 10)
    sig = {"fsr_nm": SPEC_SIGMA["fsr_rel"] * fsr_nm, "q_loaded": SPEC_SIGMA["q_rel"],
           "extinction_db": SPEC_SIGMA["extinction_db"], "resonance_nm": SPEC_SIGMA["resonance_nm"],
           "drop_loss_db": SPEC_SIGMA["drop_loss_db"]}
    wl0 = wl_nm * 1e-3
    sols = [_fit_regime(kind, regime, design_p, targets, sig, ng_param, fit_ng, fit_radius, radius_given, wl0)
            for regime in regimes]
    # every solution must meet the specs: drop regimes out of reach, fail if none is left
    missed = [_unreached(s, targets, sig) for s in sols]
    if all(m is not None for m in missed):
        raise ValueError("specs out of the ring model's reach: " + "; ".join(missed)
                         + " (check the specs, or calibrate with another kind, coupling or ng_param)")
    excluded = [f"the {m} (excluded)" for m in missed if m is not None]
    sols = [s for s, m in zip(sols, missed, strict=True) if m is None]
    chosen, separable = choose_solution(sols, design_p)
    specs = specs_dict(chosen["q"], separable)
    errors = spec_errors(chosen["jq"], chosen["cov"])
    if not separable:
        errors["q_intrinsic"] = None
    fitted = fitted_params(chosen["names"], chosen["vec"], chosen["cov"], chosen["bnds"], design_p)
    amb = ambiguity_notes(kind, tuple(s["regime"] for s in sols), have_drop, ng_param, fit_radius)
    amb += correlated_pairs(list(chosen["names"]), chosen["cov"])
    notes = excluded + [f"parameter errors propagate assumed spec uncertainties: FSR {SPEC_SIGMA['fsr_rel']:.1%}, Q "
                        f"{SPEC_SIGMA['q_rel']:.0%}, extinction {SPEC_SIGMA['extinction_db']} dB, resonance "
                        f"{SPEC_SIGMA['resonance_nm'] * 1e3:g} pm"]
    if not radius_given:
        notes.append(f"radius derived from the FSR with the design n_g: {chosen['p']['radius']:.5g} µm")
    if resonance_nm is None:
        notes.append("no resonance wavelength given: resonance_nm is the model's, not a target")
    fit = {"method": "specs: least_squares (trf) on the model's specs, JAX Jacobian", "n_points": len(chosen["res"].fun),
           "n_params": len(chosen["names"]), "dof": len(chosen["res"].fun) - len(chosen["names"]),
           "cost": chosen["cost"], "max_spec_error_sigma": float(np.max(np.abs(chosen["res"].fun))),
           "converged": bool(chosen["res"].status > 0), "nfev": chosen["nfev"], "time_s": chosen["time"]}
    return RingCalibration(
        kind=kind, ring=ring_block(kind, chosen["p"], chosen["regime"] == "symmetric"), fitted=fitted, nuisance={},
        specs=specs, errors=errors, measured={k: v for k, v in targets.items() if k != "drop_peak"}, fit=fit,
        ambiguities=tuple(amb), solutions=tuple(solution_summary(kind, s) for s in sols), notes=tuple(notes),
        source={"from": "specs", "radius_given": radius, "coupling": coupling, "ng_param": ng_param},
        plot_data={"wl0": wl0},
    )
