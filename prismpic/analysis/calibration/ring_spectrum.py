"""Ring calibration from a measured spectrum: the physical ring model plus baseline nuisance
parameters fitted to the through and/or drop port.

The baseline is a polynomial in dB versus wavelength (coupling offset ``c0`` in dB, tilt ``c1`` in
dB/nm, curvature ``c2`` in dB/nm²), shared by through and drop (``baseline="shared"``: one input
coupler, identical output couplers) or one per port (``"separate"``: the drop level then carries no
information). Residuals are linear transmission divided by the port's noise σ (robust estimate,
``analyze_spectrum``); the fit starts from ``analyze_spectrum``'s resonance nearest the reference
(FSR, Q, extinction, drop peak) and its Jacobian is ``jax.jacfwd`` of ``ring_model.spectrum_fn``.
Uncertainties: 1σ from cov = (JᵀJ)⁻¹·χ²_red; derived specs carry J_spec·cov·J_specᵀ.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration.fitting import (
    ValueAndJacobian,
    correlated_pairs,
    covariance,
    least_squares_fit,
    scaled_bounds,
)
from prismpic.analysis.calibration.results import FitParam, RingCalibration
from prismpic.analysis.calibration.ring_model import (
    FIT_PARAMS,
    chebyshev_grid,
    fit_vector,
    held_params,
    quantities_fn,
    ring_sax_model,
    spectrum_fn,
)
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
    check_ng,
    design_params,
    initial_params,
    param_bounds,
    param_scale,
)
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
