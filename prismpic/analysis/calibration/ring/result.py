"""A ring calibration's report from its physical solutions: the choice among regimes, the fitted parameters with
posterior and prior σ, the specs and their errors, the index correction, the fit's status and the notes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from prismpic.analysis.calibration.fitting import correlated_pairs
from prismpic.analysis.calibration.priors import DN_MAX, bounds
from prismpic.analysis.calibration.results import FitParam, RingCalibration
from prismpic.analysis.calibration.ring.check import PhysicalCheck
from prismpic.analysis.calibration.ring.instrument import MISFIT_MAX, WINDOW_CHI2, undescribed
from prismpic.analysis.calibration.ring.linefit import SpectrumData
from prismpic.analysis.calibration.ring.lineshape import LINE, MAX_ORDER
from prismpic.analysis.calibration.ring.model import FIT_PARAMS, REFERENCE_UM
from prismpic.analysis.calibration.ring.physfit import PhysicalSolution
from prismpic.analysis.calibration.ring.solutions import (
    ambiguity_notes,
    choose_solution,
    fitted_names,
    fitted_params,
    ring_block,
    solution_summary,
    spec_errors,
    specs_dict,
)
from prismpic.analysis.calibration.ring.spectrum_model import INSTRUMENT
from prismpic.analysis.calibration.ring.stages import SpectrumPlan
from prismpic.analysis.calibration.ring.start import PULL_MAX
from prismpic.components.units import NM_PER_UM
from prismpic.fileio import jsonable


def _correction(s: PhysicalSolution) -> dict:
    """The ``index_correction`` block: applied, Δn_eff, Δn_g at λ0 and why (Δχ² between the physics stages)."""
    applied = s.corrected
    dneff, dng = (float(s.p["dneff"]), float(s.p["dng"])) if applied else (0.0, 0.0)
    worst = max((s.other_pulls if applied else s.pulls).items(), key=lambda kv: abs(kv[1]))
    if applied:
        reason = (f"the process parameters within their priors do not reproduce the resonances and FSR: without "
                  f"the correction {worst[0]} would sit {worst[1]:+.1f}σ from its prior (Δχ² = "
                  f"{2 * (s.other_cost - s.cost):.3g} > {PULL_MAX**2:g}); Δn_eff = {dneff:+.5f}, "
                  f"Δn_g = {dng:+.5f} at {REFERENCE_UM:g} µm added instead")
    else:
        reason = (f"not needed: the process parameters reproduce the data within {PULL_MAX:g}σ of their priors "
                  f"(largest pull: {worst[0]} {worst[1]:+.2f}σ)")
    return {"applied": applied, "dneff": dneff, "dng": dng, "wl0_um": REFERENCE_UM, "reason": reason}


@dataclass(frozen=True, eq=False)
class PhysicalReport:
    """What both ring fits report from their physical solutions: the chosen one and whether the data decided it
    (``separable``), the fitted parameters (with priors), the specs and their 1σ, the index-correction block,
    ambiguities, notes, every solution's summary and the priors."""

    chosen: PhysicalSolution
    separable: bool
    fitted: dict[str, FitParam]
    specs: dict
    errors: dict
    correction: dict
    ambiguities: list[str]
    notes: list[str]
    solutions: tuple[dict, ...]
    priors: dict


def physical_report(kind: str, sols: list[PhysicalSolution], design: dict, priors: dict, regimes, have_drop: bool,
                    fit_loss: bool, resonance_known: bool = True, coupling: bool = True) -> PhysicalReport:
    """The ``PhysicalReport`` of the solutions; a regime whose fit failed is out of reach unless all did."""
    good = [s for s in sols if s.ok and s.line_ok]
    chosen, separable = choose_solution(good or sols, design)
    names = fitted_names(kind, chosen.regime, fit_loss, coupling=coupling) + (("dneff", "dng") if chosen.corrected
                                                                                 else ())
    cov_fit = chosen.jvec @ chosen.cov @ chosen.jvec.T
    bnds = {n: bounds(n, priors) for n in names}
    bnds.update({n: (-DN_MAX, DN_MAX) for n in ("dneff", "dng")})
    fitted = fitted_params(names, chosen.p, cov_fit, {n: FIT_PARAMS.index(n) for n in names}, bnds, design, priors)
    specs = specs_dict(chosen.q, separable)
    errors = spec_errors(chosen.jq, chosen.cov)
    if not separable:
        errors["q_intrinsic"] = None
    regs = tuple(s.regime for s in sols) if not separable or len(sols) == 1 else (chosen.regime,)
    amb = ambiguity_notes(kind, regs, have_drop, chosen.corrected, resonance_known)
    rows = [FIT_PARAMS.index(n) for n in names]
    amb += correlated_pairs(list(names), cov_fit[np.ix_(rows, rows)])
    corr = _correction(chosen)
    notes = []
    if chosen.corrected:
        notes.append("effective-index correction applied: " + corr["reason"])
    prior_only = [n for n, fp in fitted.items() if fp.determined_by == "prior"]
    data_fixed = [n for n, fp in fitted.items() if fp.determined_by == "data"]
    fixed = ", ".join(data_fixed) or "none of the process parameters"
    notes.append(f"determined by the data (posterior σ < ½ prior σ): {fixed}; by the priors: "
                 f"{', '.join(prior_only) or 'none'}")
    at = [n for n, fp in fitted.items() if fp.at_bound]
    if at:
        notes.append(f"parameters at their bounds: {', '.join(at)}; the data may lie outside the model's reach")
    return PhysicalReport(chosen=chosen, separable=separable, fitted=fitted, specs=specs, errors=errors,
                          correction=corr, ambiguities=amb, notes=notes,
                          solutions=tuple(jsonable(solution_summary(kind, s)) for s in sols),
                          priors={k: v.to_dict() for k, v in priors.items()})


ER_POORLY_KNOWN_DB = 0.5  # a fitted extinction with a larger 1σ gets a note


def _nuisance(sol: PhysicalSolution, sp: SpectrumData) -> dict[str, FitParam]:
    """The instrument's and the baseline's fitted parameters, in the parameter file's units: wavelengths in nm,
    the baseline per nm^i (c0_db, c1_db_per_nm, ...)."""
    line = sol.start.line
    names = line.setup.names()
    cov = line.covariance()
    h_nm = sp.h_um * NM_PER_UM
    out = {}
    for i in line.free:
        n = names[i]
        if n in LINE:
            continue
        val, sd = float(line.vector[i]), math.sqrt(max(cov[i, i], 0.0))
        if n == "split_um":  # the model is even in the splitting
            val = abs(val)
        if n.endswith("_um"):
            n, val, sd = n[:-3] + "_nm", val * NM_PER_UM, sd * NM_PER_UM
        elif n not in INSTRUMENT:  # u^k coefficient → per nm^k
            pre, k = n.rsplit("u", 1)
            k = int(k)
            n = pre + ("c0_db" if k == 0 else "c1_db_per_nm" if k == 1 else f"c{k}_db_per_nm{k}")
            val, sd = val * h_nm**-k, sd * h_nm**-k
        out[n] = FitParam(val, sd)
    return out


def _failure(sol: PhysicalSolution, chk: PhysicalCheck, chi2_max: float, sp: SpectrumData) -> str:
    """The one-line failure reason ("" for a fit), naming the baseline when the data chose a higher order."""
    reason = _failure_cause(sol, chk, chi2_max, sp)
    if reason and sp.envelope_order > sp.order:
        reason += (f"; the baseline: the spectrum's envelope needs order {sp.envelope_order} (chosen by the data, a "
                   f"grating-coupler passband?) > baseline_order = {sp.order}: use --baseline-order auto (or <= "
                   f"{MAX_ORDER}) or crop the span around the resonance")
    return reason


def _failure_cause(sol: PhysicalSolution, chk: PhysicalCheck, chi2_max: float, sp: SpectrumData) -> str:
    line = sol.start.line.solution
    found = sol.start.line.instrument
    ref_chi, ref_mis = found.reference_window_chi2, found.reference_window_misfit
    if undescribed(ref_chi, ref_mis):
        return (f"the model does not describe the resonance at {sp.lam_um * NM_PER_UM:.4f} nm (window χ²/point = "
                f"{ref_chi:.3g} > {WINDOW_CHI2:g}, misfit {100 * (ref_mis or 0.0):.3g} % of the line > "
                f"{100 * MISFIT_MAX:g} %): see the flags")
    if not line.ok:
        return f"the line-shape fit did not converge in {line.steps} iterations (χ²_red = {line.chi2_reduced:.3g})"
    if not sol.ok:
        return f"the physical fit did not converge in {sol.steps} iterations"
    if not math.isfinite(chk.chi2_reduced) or (chk.chi2_reduced > chi2_max
                                                and (chk.lines_misfit is None or chk.lines_misfit > MISFIT_MAX)):
        reason = (f"the physical model does not describe the data: reduced χ² = {chk.chi2_reduced:.3g} > "
                  f"chi2_max = {chi2_max:g} (line shape alone: {line.chi2_reduced:.3g}), misfit "
                  f"{100 * (chk.lines_misfit or 0.0):.3g} % of the lines > {100 * MISFIT_MAX:g} %")
        return reason + _where_it_misses(chk.misfit_by_line, sp)
    return ""


def _where_it_misses(by_line, sp: SpectrumData) -> str:
    """When the model holds at λ_r and misses far from it: the dispersion across the span, and the remedy."""
    if not by_line:
        return ""
    at_ref = min(by_line, key=lambda cm: abs(cm[0] - sp.lam_um))
    worst = max(by_line, key=lambda cm: cm[1])
    if at_ref[1] > MISFIT_MAX or abs(worst[0] - sp.lam_um) < 1.5 * sp.fsr_um:
        return ""
    held = [c * NM_PER_UM for c, m in by_line if m <= MISFIT_MAX]
    return (f" at {worst[0] * NM_PER_UM:.2f} nm but {100 * at_ref[1]:.2g} % at λ_r = {sp.lam_um * NM_PER_UM:.2f} nm: "
            "the couplers' and the loss's dispersion across the span differ from the model's (it holds over "
            f"{min(held):.1f}–{max(held):.1f} nm); crop the span to that range")


def _spectrum_notes(plan: SpectrumPlan, chosen: PhysicalSolution, chk: PhysicalCheck, rep: PhysicalReport,
                    sp: SpectrumData, reason: str) -> list[str]:
    """The notes of a spectrum fit: the instrument found, the dispersion correction, a poorly known extinction,
    an approximate or structured fit."""
    found, line = chosen.start.line.instrument, chosen.start.line
    notes = list(sp.notes) + rep.notes
    if found.ripple:
        r = found.ripple
        notes.append(f"Fabry–Pérot ripple detected and fitted: {r['amplitude_db']:.3g} dB, period "
                     f"{r['period'] * NM_PER_UM:.4g} nm ({r['sigmas']:.1f}σ)")
    if found.split and "split_um" not in found.held:
        notes.append(f"split resonance fitted: half-splitting {abs(line.values['split_um']) * 1e6:.3g} pm "
                     f"(χ² lower by {found.split['gain_chi2']:.3g})")
    disp = chk.dispersion
    if disp["applied"]:
        m, a = disp["model_per_nm"], disp["added_per_nm"]
        parts = [f"{label} {100 * (m[k] + a[k]):+.3g} %/nm (model {100 * m[k]:+.3g} %/nm)"
                 for k, label in (("dlnk1_dx", "κ1²"), ("dlnk2_dx", "κ2²"), ("dlnloss_dx", "loss"))
                 if a[k] != 0.0]
        g = disp["dng_dlambda_per_um"]
        if a["theta2"] != 0.0:
            parts.append(f"dn_g/dλ {g['data']:+.3g}/µm (model {g['model']:+.3g}/µm)")
        notes.append(f"dispersion correction applied: across the span the data's {'; '.join(parts)} "
                     f"(Δχ² = {disp['delta_chi2']:.3g} > {PULL_MAX**2:g}; pure physical model: χ²_red = "
                     f"{chk.chi2_reduced_physical:.3g}); the physical parameters hold at λ_r = "
                     f"{sp.lam_um * NM_PER_UM:.4f} nm")
    er_sd = rep.errors.get("extinction_db")
    if er_sd is not None and er_sd > ER_POORLY_KNOWN_DB:
        notes.append(f"the extinction is poorly determined at this signal-to-noise ratio: "
                     f"{rep.specs['extinction_db']:.3g} ± {er_sd:.2g} dB (1σ); the dip's bottom is at the noise")
    if chk.chi2_reduced > 2.0 and not reason:
        notes.append(f"reduced χ² = {chk.chi2_reduced:.3g}: the model describes the data only approximately "
                     f"(it misses the lines by {100 * (chk.lines_misfit or 0.0):.3g} % of their depth at most, "
                     f"within {100 * MISFIT_MAX:g} %: at this noise χ² measures the instrument; see the residual "
                     "figure; uncertainties are scaled by √χ²)")
    rs = chk.structure
    if rs["runs_z"] is not None and rs["runs_z"] < -5:
        notes.append(f"the residual is structured (runs test z = {rs['runs_z']:.1f}, lag-1 ρ = "
                     f"{rs['lag1_autocorrelation']:.2f}): a feature of the data the model misses")
    return notes


def ring_result(*, plan: SpectrumPlan, sols: list[PhysicalSolution], checks: dict, sp: SpectrumData, an,
                chi2_max: float, timing: dict, source: dict) -> RingCalibration:
    """The ``RingCalibration`` of a spectrum fit (``ring_spectrum``): the solutions compared on the data's
    line-shape cost plus the physics stage's; measured values and plot data in nm (the file's units)."""
    rep = physical_report(plan.kind, sols, plan.design, plan.priors, plan.regimes, plan.have_drop, plan.fit_loss)
    chosen = rep.chosen
    chk = checks[chosen]
    reason = _failure(chosen, chk, chi2_max, sp)
    line, found = chosen.start.line, chosen.start.line.instrument
    notes = _spectrum_notes(plan, chosen, chk, rep, sp, reason)
    if not plan.fit_loss:
        rep.ambiguities.append("the drop port alone fixes the total linewidth only: loss_db_per_cm held at its "
                               "design value")
    v = line.values
    measured = {"fsr_nm": an.fsr_nm, "fsr_err_nm": an.fsr_err_nm, "center_nm": sp.lam_um * NM_PER_UM,
                "fwhm_nm": sp.fwhm_um * NM_PER_UM, "q_loaded": an.resonances[an.nearest].q_loaded,
                "extinction_db": an.resonances[an.nearest].extinction_db, "n_group": an.n_group,
                "resonances_nm": [c * NM_PER_UM for c in sp.centers_um], "port": an.port,
                "line_shape": {k: v[k] for k in LINE},
                "line_shape_fsr_nm": -2 * math.pi * sp.h_um * NM_PER_UM / v["theta1"]}
    lf = line.solution
    fit = {"method": "spectrum: line shape (jitted Levenberg–Marquardt, every point) → physical ring (process "
                     "priors) → physical model checked at every point",
           "n_points": chk.n_points, "n_params": chk.n_params, "dof": chk.n_points - chk.n_params,
           "chi2_reduced": chk.chi2_reduced, "chi2_reduced_line_shape": lf.chi2_reduced,
           "chi2_reduced_physical": chk.chi2_reduced_physical, "dispersion_correction": chk.dispersion,
           "physics_mismatch_chi2": chosen.chi2_data, "residual_structure": chk.structure,
           "rms_residual": {p: float(np.sqrt(np.mean((m - d) ** 2))) for p, m, d in
                            zip(sp.ports, chk.model, sp.data, strict=True)},
           "noise_sigma": {p: float(np.median(s)) for p, s in zip(sp.ports, sp.sigma, strict=True)},
           "converged": bool(lf.ok and chosen.ok), "steps_line_shape": lf.steps,
           "steps_physics": chosen.steps, "regime": chosen.regime, "stage": chosen.stage,
           "baseline_order": sp.order, "max_baseline_order": MAX_ORDER,
           "reference_window_chi2": found.reference_window_chi2,
           "reference_window_misfit": found.reference_window_misfit, **timing}
    plot_data = {"wl_nm": sp.wl_um * NM_PER_UM, "ports": sp.ports, "data": list(sp.data), "model": list(chk.model),
                 "sigma": list(sp.sigma), "center_nm": sp.lam_um * NM_PER_UM, "fwhm_nm": sp.fwhm_um * NM_PER_UM}
    return RingCalibration(
        kind=plan.kind, ring=ring_block(plan.kind, chosen.p, chosen.regime == "symmetric"), fitted=rep.fitted,
        nuisance=_nuisance(chosen, sp), specs=rep.specs, errors=rep.errors, measured=jsonable(measured),
        fit=jsonable(fit), ambiguities=tuple(rep.ambiguities), solutions=rep.solutions, notes=tuple(notes),
        source=source, status="failed" if reason else "fitted", failure_reason=reason, correction=rep.correction,
        priors=rep.priors, flags=tuple(sp.flags), plot_data=plot_data)
