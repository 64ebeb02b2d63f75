"""What both ring fits share after the start: the coupling regimes tried, the parameters fitted,
the choice among the solutions and their report (specs, errors, ring block, ambiguities).

A solution is a dict with at least ``regime``, ``p`` (ring parameters), ``q`` (the model's specs),
``jq`` (their Jacobian in the fitted parameters), ``cost``, ``names``, ``vec``, ``cov`` and ``bnds``.
"""

from __future__ import annotations

import math

import numpy as np

from prismpic.analysis.calibration.results import FitParam
from prismpic.analysis.calibration.ring_model import RING_BLOCK
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
