"""What both ring fits share after the start: the coupling regimes tried, the parameters fitted,
the choice among the solutions and their report (specs, errors, ring block, ambiguities).

A solution is a ``physfit.PhysicalSolution``.
"""

from __future__ import annotations

import math

import numpy as np

from prismpic.analysis.calibration.results import FitParam
from prismpic.analysis.calibration.ring.model import RING_BLOCK
from prismpic.checks import check_choice
from prismpic.components import ring_physics
from prismpic.pdk.rules import RULES


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


def ambiguity_notes(kind, regimes, have_drop, corrected: bool, resonance_known: bool = True) -> list[str]:
    """What the fit cannot separate, as sentences for ``RingCalibration.ambiguities``."""
    out = ["film thickness, etch depth, sidewall angle and width all set n_eff and n_g (and the coupling and bend "
           "loss): the data fix combinations of them; each is reported with its posterior and prior σ "
           "(determined_by says which of the two fixes it)"]
    if corrected:
        out.append("with the effective-index correction the process parameters no longer set the resonances: they "
                   "stay at their priors unless the coupling or the loss moves them")
    if resonance_known:
        out.append("mode order: the neighbouring orders fit with n_eff ± λ/L; the order nearest the priors is kept, "
                   "and a wavelength offset of the laser sweep is indistinguishable from n_eff (give "
                   "wavelength_offset_nm from a wavelength reference)")
    out.append("coupler excess loss and propagation loss are not separable: coupler_loss_db held, all loss in "
               "loss_db_per_cm (the bend loss from the dispersion model follows the etch depth and film)")
    if kind == "add_drop" and regimes == ("symmetric",):
        out.append("input and drop coupling are not separated" + ("" if have_drop else " by the through port alone")
                   + ": gap_drop tied to gap (symmetric couplers assumed)")
    if len(regimes) == 2:
        out.append("under- and over-coupling fit equally (t ↔ a symmetry of |t − a·e^{iθ}|²): both solutions "
                   "are in 'solutions'; q_intrinsic is not separable")
    return out


def fitted_names(kind, regime, fit_loss=True, fit_gap_drop=None, coupling: bool = True) -> tuple[str, ...]:
    """The physical parameters a fit moves (``VARIABLES`` names, the index variables excluded); ``coupling``
    False: neither the gaps nor the loss (an FSR-only fit)."""
    names = ["gap"] if coupling else []
    if coupling and kind == "add_drop" and regime != "symmetric" and fit_gap_drop is not False:
        names.append("gap_drop")
    if fit_loss and coupling:
        names.append("loss_db_per_cm")
    names += ["film_thickness", "etch_depth", "sidewall_angle_deg", "width", "radius"]
    return tuple(names)


def electrode_gap_for(p: dict) -> float:
    """The design's electrode gap, moved into the range the ring model's electrode layout allows for the fitted
    gaps (``ring_checks.check_ring_geometry``: the floating disk ≥ min_metal_to_ridge from the ring and at least
    min_metal_width across). The electrodes follow the drawn gap; the fitted (as-fabricated) one may lie beyond
    it, and the electrode gap sets the Pockels tuning only."""
    r, w = float(p["radius"]), float(p["width"])
    gd = p["gap"] if p.get("gap_drop") is None else p["gap_drop"]
    y_p = float(ring_physics.plate_offset(r, w, float(p["gap"]), float(gd)))
    lo, hi = y_p - (r - w / 2 - RULES.min_metal_to_ridge), y_p - RULES.min_metal_width / 2
    return float(min(max(float(p["electrode_gap"]), lo + 1e-9), hi - 1e-9))


def ring_block(kind: str, p: dict, symmetric: bool) -> dict:
    """The ``"ring"`` block of the parameter file (``RING_BLOCK`` keys and the electrode gap; gap_drop None when
    tied to gap)."""
    out = {}
    for k in RING_BLOCK:
        if k == "gap_drop":
            if kind == "add_drop":
                out[k] = None if symmetric else float(p[k])
            continue
        out[k] = p[k] if k == "cladding" else float(p[k])
    out["electrode_gap"] = electrode_gap_for(p)
    if p.get("electrode_height") is not None:  # the design's raised plates (they set the Pockels tuning only)
        out["electrode_height"] = float(p["electrode_height"])
    return out


def fitted_params(names, values: dict, cov: np.ndarray, index: dict, bounds: dict, design: dict,
                  priors: dict) -> dict[str, FitParam]:
    """``FitParam`` of each name: value, 1σ from ``cov`` (rows ``index[name]``), design, bounds and prior."""
    out = {}
    for n in names:
        i = index[n]
        pr = priors.get(n)
        d = design.get(n)
        out[n] = FitParam(float(values[n]), float(math.sqrt(max(cov[i, i], 0.0))),
                          float(d) if isinstance(d, int | float) else None, bounds.get(n),
                          None if pr is None else pr.mean, None if pr is None else pr.sigma)
    return out


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
    """(chosen solution, decisive): the lowest total cost (line shape and physics); when all are about as good,
    the one nearest the design gap."""
    if len(sols) == 1:
        return sols[0], True
    costs = np.array([s.total_cost for s in sols])
    best = int(np.argmin(costs))
    others = np.delete(costs, best)
    if np.all(others > 1.1 * costs[best] + 12.5):  # Δχ² > 25 (and 20 %): the data prefer one regime
        return sols[best], True
    best = int(np.argmin([abs(s.p["gap"] - float(design["gap"])) for s in sols]))
    return sols[best], False


def solution_summary(kind, s) -> dict:
    """One entry of ``RingCalibration.solutions``: regime, stage, ring block, q_intrinsic, κ², loss, the total cost
    and the data's part of the physics stage (Σr²)."""
    return {"regime": s.regime, "stage": s.stage, "ring": ring_block(kind, s.p, s.regime == "symmetric"),
            "q_intrinsic": s.q["q_intrinsic"], "kappa2": s.q["kappa2"], "kappa2_drop": s.q["kappa2_drop"],
            "loss_db_per_cm": s.p["loss_db_per_cm"], "dneff": s.p.get("dneff", 0.0), "dng": s.p.get("dng", 0.0),
            "cost": s.total_cost, "chi2_data": s.chi2_data}
