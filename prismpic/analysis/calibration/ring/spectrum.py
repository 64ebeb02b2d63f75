"""Ring calibration from a measured spectrum: line shape first, physics second, the physical model checked last.

1. ``analyze_spectrum`` finds the resonances (FSR, FWHM, extinction, drop level, noise).
2. The line shape (``ring_lineshape``, ``ring_linefit``) is fitted to every point from the closed-form Airy
   inversion of each coupling regime, with the instrument (baseline, ripple, drop offset, split resonances).
3. The physical ring (``ring_physfit``: gaps, loss, film, etch, wall angle, width, radius under the process
   priors; the effective-index correction when the geometry cannot reach the data) is fitted to the line
   shape at the resonance λ_r, whitened by its covariance: the same information as the points hold about
   those quantities, at the cost of a handful of residuals.
4. The physical model with the fitted instrument is evaluated at every point: its χ²_red and residual
   structure are the fit's; a fit whose solvers did not converge or whose χ²_red exceeds ``chi2_max`` is
   returned with ``status = "failed"`` and a one-line ``failure_reason`` (never raised, never silent).

Uncertainties: posterior 1σ from the physics stage's Jacobian (data whitened, priors), specs J·C·Jᵀ.
``wavelength_offset_nm`` (a laser sweep's offset, from a wavelength reference) is added to the wavelengths:
the spectrum alone cannot tell it from n_eff.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration import fitting
from prismpic.analysis.calibration.priors import ring_priors
from prismpic.analysis.calibration.ring.instrument import lines_misfit, windows
from prismpic.analysis.calibration.ring.linefit import (
    SpectrumData,
    instrument_steps,
    line_covariance,
    solve_lines,
)
from prismpic.analysis.calibration.ring.lineshape import LINE, MAX_ORDER, LineSetup, closed_form
from prismpic.analysis.calibration.ring.model import (
    FIT_PARAMS,
    REFERENCE_UM,
    VARIABLES,
    chebyshev_nodes,
    held_params,
    is_tuned,
    ring_fields,
)
from prismpic.analysis.calibration.ring.physfit import (
    LINE_MATCHED,
    line_residual_fn,
    physical_solutions,
    start_vectors,
)
from prismpic.analysis.calibration.ring.result import ring_result
from prismpic.analysis.calibration.ring.solutions import fit_regimes, fitted_names
from prismpic.analysis.calibration.ring.spectrum_model import DISPERSION, INSTRUMENT, physical_fn
from prismpic.analysis.calibration.ring.start import (
    PULL_MAX,
    REFERENCE_NM,
    check_ng,
    design_params,
    gap_for_kappa2,
    loss_for_a,
    place_geometry,
    ring_indices,
)
from prismpic.analysis.measurements import read_spectrum_csv
from prismpic.analysis.spectra import analyze_spectrum
from prismpic.analysis.spectra.comb import predicted_centers
from prismpic.analysis.spectra.detection import noise_sigma
from prismpic.checks import check_choice, check_range
from prismpic.components import ring_physics
from prismpic.components.ring_design import RingDesign
from prismpic.pdk.rules import RULES

CHI2_MAX = 5.0  # a physical model whose χ²_red exceeds this does not describe the data: the fit fails
# Far from resonance a measured drop port sits 40–60 dB below its peak, where bus-to-drop crosstalk, stray light
# and the detector floor set its level rather than the ring (and where a single-mode coupled-mode picture and the
# Airy response differ by tens of dB): the fit reads it within this many linewidths of each resonance.
DROP_WINDOW = 6.0
CHOICES = {"ripple": ("auto", "fit", "off"), "split": ("auto", "fit", "off"), "baseline": ("shared", "separate")}


def _check_arguments(through, drop, kind, baseline, baseline_order, radius, reference_nm, ripple, split,
                     wavelength_offset_nm, chi2_max) -> str:
    """The ring kind (checked, defaulted from the ports) after checking the other arguments."""
    if through is None and drop is None:
        raise ValueError("through = None and drop = None: give at least one port's transmission")
    kind = kind or ("add_drop" if drop is not None else "all_pass")
    check_choice("kind", kind, ("add_drop", "all_pass"))
    for name, value in (("baseline", baseline), ("ripple", ripple), ("split", split)):
        check_choice(name, value, CHOICES[name])
    if baseline_order != "auto" and (isinstance(baseline_order, bool) or not isinstance(baseline_order, int | np.integer)
                                     or not 0 <= baseline_order <= MAX_ORDER):
        raise ValueError(f"baseline_order = {baseline_order!r} must be 'auto' or an integer in [0, {MAX_ORDER}]")
    if radius is not None:
        check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    check_range("reference_nm", reference_nm, 1450.0, 1650.0, unit="nm")
    check_range("wavelength_offset_nm", wavelength_offset_nm, -5.0, 5.0, unit="nm")
    check_range("chi2_max", chi2_max, 1.0, 1e6)
    if kind == "all_pass" and drop is not None:
        raise ValueError("kind = 'all_pass' has no drop port; give kind='add_drop' or leave the drop out")
    return kind


def _spectrum(an, ports, order: int, eta: float) -> SpectrumData:
    wl = np.asarray(an.wl_nm, float)
    rn = an.resonances[an.nearest]
    data, sigma = [], []
    for p in ports:
        y = np.asarray(an.through if p == "through" else an.drop, float)
        base = np.asarray(an.baseline_through if (p == "through" or an.through is not None) else an.baseline_drop)
        # per point: the running robust σ of the normalised port (additive and multiplicative noise alike)
        s = noise_sigma(y / base) * base
        data.append(y)
        sigma.append(np.maximum(s, 1e-3 * float(np.median(s)) + 1e-12 * float(np.max(base))))
    sigma = np.stack(sigma)
    w = 1.0 / sigma
    w[:, other_family_mask(an)] = 0.0  # the other mode families: masked in every port
    fam0 = [r.center_nm for r in an.resonances if r.family == 0]
    if "drop" in ports:  # the drop port read within DROP_WINDOW linewidths of the family's resonances only
        near = np.zeros(wl.size, bool)
        for c in fam0:
            near |= np.abs(wl - c) <= DROP_WINDOW * rn.fwhm_nm
        w[ports.index("drop"), ~near] = 0.0
    fsr = an.fsr_nm * (rn.center_nm / float(np.clip(an.reference_nm, fam0[0], fam0[-1]))) ** 2
    return SpectrumData(wl, ports, np.stack(data), sigma, w, rn.center_nm, fsr, rn.fwhm_nm, tuple(fam0), eta, order,
                        envelope_order=int(an.baseline_order), split_seen=rn.split_nm is not None)


def other_family_mask(an) -> np.ndarray:
    """Points where another mode family's resonance stands out of the noise: its Lorentzian wing
    depth/(1 + (2δ/w)²) above the port's noise σ, i.e. |δ| < ½w·√(depth/σ − 1) (at least 2, at most 8 FWHM),
    around each of its resonances and each position its comb (periodic in frequency) predicts in the span, so
    that a resonance merged with one of the design's family is masked too. The model holds one family; the
    other's wings 2–4 linewidths out are still percent-deep."""
    wl = np.asarray(an.wl_nm, float)
    sigma = max(float(an.noise.get("through") or an.noise.get("drop") or 0.0), 1e-6)
    mask = np.zeros(wl.size, bool)
    for fam in sorted({r.family for r in an.resonances} - {0}):
        rs = [r for r in an.resonances if r.family == fam]
        depth = max(abs(r.depth) for r in rs)  # a doublet's fitted depth can be one mode's, or none
        fwhm = float(np.median([r.fwhm_nm for r in rs]))
        centers = [r.center_nm for r in rs] + list(predicted_centers([r.center_nm for r in rs], wl[0] - 10 * fwhm,
                                                                     wl[-1] + 10 * fwhm))
        half = float(np.clip(0.5 * fwhm * math.sqrt(max(depth / sigma - 1.0, 0.0)), 2.0 * fwhm, 8.0 * fwhm))
        for c in centers:
            mask |= np.abs(wl - c) <= half
    return mask


def _clear_resonance(an):
    """``an`` with ``nearest`` on the design family's resonance nearest the reference whose core (±1.5 FWHM) no
    other family's wing covers (``other_family_mask``), and a note when that is not the nearest one."""
    mask = other_family_mask(an)
    if not mask.any():
        return an
    wl = np.asarray(an.wl_nm, float)
    ref = an.resonances[an.nearest]
    clear = [i for i, r in enumerate(an.resonances)
             if r.family == 0 and not mask[np.abs(wl - r.center_nm) <= 1.5 * r.fwhm_nm].any()]
    if not clear or an.nearest in clear:
        return an
    i = min(clear, key=lambda k: abs(an.resonances[k].center_nm - ref.center_nm))
    note = (f"the resonance nearest the reference ({ref.center_nm:.3f} nm) lies in the wing of another mode family's "
            f"resonance: the calibration is about the nearest clear one, {an.resonances[i].center_nm:.3f} nm")
    return dataclasses.replace(an, nearest=i, notes=(*an.notes, note))


def _baseline_start(an, sp: SpectrumData, shared: bool, have_t: bool, d_peak_model: float | None) -> dict:
    """Baseline coefficients (dB polynomial in u) from the analysis's baselines; drop alone: its peak level."""
    u = (sp.wl - sp.mid) / sp.h
    out = {}
    for j, port in enumerate(sp.ports):
        if shared and j > 0:
            break
        base = an.baseline_through if (port == "through" or have_t) else an.baseline_drop
        c = np.polynomial.polynomial.polyfit(u, 10 * np.log10(base), sp.order)
        if port == "drop" and not have_t and d_peak_model:
            c[:] = 0.0
            c[0] = 10 * math.log10(float(np.max(sp.data[j])) / d_peak_model)
        pre = "" if shared else f"{port}_"
        out.update({f"{pre}u{i}": float(v) for i, v in enumerate(c)})
    return out


def _theta2_of_design(design_p: dict, sp: SpectrumData) -> float:
    """θ2 = ½h²·d²θ/dλ² of the design ring at λ_r, with its dispersion: θ'' = 2πL(2n_g/λ³ − (dn_g/dλ)/λ²) (nm).

    Held when the span shows two resonances only (their positions fix θ0 and θ1 given θ2)."""
    lam = sp.lam_r
    ng_lo = ring_indices(design_p, (lam - 1.0) * 1e-3)[1]
    ng, ng_hi = ring_indices(design_p, lam * 1e-3)[1], ring_indices(design_p, (lam + 1.0) * 1e-3)[1]
    length = math.tau * float(design_p["radius"]) * 1e3
    d2 = math.tau * length * (2 * ng / lam**3 - 0.5 * (ng_hi - ng_lo) / lam**2)
    return 0.5 * sp.h**2 * d2


def _physics_start(regime, line: dict, cov_line, names, sp: SpectrumData, design_p, priors, kind, fit_loss,
                   symmetric: bool) -> dict:
    """A physics start from a line-shape solution: geometry placed on n_eff, n_g; gaps and loss from κ², a."""
    v = line["values"]
    lam = sp.lam_r
    fsr = -math.tau * sp.h / v["theta1"]
    placed = place_geometry(design_p, priors, lam, fsr, v["theta0"])
    p = dict(placed["p"])
    wl_um = lam * 1e-3
    p["gap"] = gap_for_kappa2(p, wl_um, math.exp(v["lk1"]) / sp.eta**2)  # κ² = η²·sin²Φ
    if kind == "add_drop":
        p["gap_drop"] = p["gap"] if symmetric else gap_for_kappa2(p, wl_um, math.exp(v["lk2"]) / sp.eta**2)
    if fit_loss:
        p["loss_db_per_cm"] = loss_for_a(p, wl_um, math.exp(-math.exp(v["la"])))
    matched = [i for i, n in enumerate(LINE_MATCHED) if not (n == "lk2" and (kind == "all_pass" or symmetric))
               and not (n == "la" and not fit_loss)]
    idx = [names.index(LINE_MATCHED[i]) for i in matched]
    c = cov_line[np.ix_(idx, idx)]
    whiten = np.zeros((len(LINE_MATCHED), len(LINE_MATCHED)))  # the unmatched rows and columns stay 0
    whiten[np.ix_(matched, matched)] = np.linalg.inv(np.linalg.cholesky(c + 1e-30 * np.eye(len(idx))))
    return {"regime": regime, "symmetric": symmetric, "vectors": start_vectors(p, priors, placed, wl_um),
            "held": held_params(p, kind, symmetric), "line": line, "whiten": whiten,
            "target": np.array([v[n] for n in LINE_MATCHED]), "fit_loss": fit_loss, "pull0": placed["pull"]}


def _line_starts(an, sp: SpectrumData, kind: str, regimes, ports, shared: bool, design_p: dict, have_t: bool,
                 fit_loss: bool) -> tuple[list[dict], list[LineSetup]]:
    """The line shape's closed-form start and setup of every coupling regime (θ2 from the design's dispersion;
    without the through, the loss at the design's and the drop level from it)."""
    rn, eta = an.resonances[an.nearest], sp.eta
    starts, setups = [], []
    for regime in regimes:
        sym = kind == "add_drop" and regime == "symmetric"
        setups.append(LineSetup(kind, sym, ports, shared))
        st = closed_form(kind, regime, sp.fsr, sp.fwhm, rn.through_min, rn.drop_peak if have_t else None, eta,
                         sp.lam_r, sp.h)
        if not fit_loss:
            lossy = {k: design_p[k] for k in ("radius", "width", "film_thickness", "etch_depth", "loss_db_per_cm",
                                              "sidewall_angle_deg", "cladding")}  # what the round-trip loss reads
            a_design = ring_physics.ring_round_trip(sp.lam_r * 1e-3, RingDesign.from_params(lossy))[0]
            st["la"] = math.log(-math.log(float(a_design)))
        d_peak = None
        if not have_t:
            x = math.exp(-math.exp(st["la"])) * (eta**2 - math.exp(st["lk1"]))
            d_peak = math.exp(st["lk1"]) ** 2 * math.exp(-math.exp(st["la"])) / (1 - x) ** 2
        st.update(_baseline_start(an, sp, shared, have_t, d_peak))
        starts.append(st)
    theta2 = _theta2_of_design(design_p, sp)
    for st in starts:
        st["theta2"] = theta2
    return starts, setups


def _analysis(wl, through, drop, design_p: dict, reference_nm: float, coupling, family):
    """``analyze_spectrum`` for the calibration: baseline order chosen by the data, the family ``family`` (default
    the drawn ring's, by the design's group index); ValueError when the family has one resonance only."""
    ng_design = float(ring_indices(design_p, reference_nm * 1e-3)[1])
    an = analyze_spectrum(wl, through, drop, radius_um=float(design_p["radius"]), reference_nm=reference_nm,
                          baseline_order="auto", coupling=coupling, family=family, design_group_index=ng_design)
    if an.fsr_nm is None:
        raise ValueError(f"one resonance only in {an.wl_nm[0]:.6g}..{an.wl_nm[-1]:.6g} nm: the FSR (hence n_g) needs "
                         "at least two resonances; widen the span")
    return _clear_resonance(an)


def calibrate_ring_spectrum(
    wl_nm,
    through=None,
    drop=None,
    *,
    radius: float | None = None,
    kind: str | None = None,
    coupling: str | None = None,
    baseline: str = "shared",
    baseline_order: int | str = "auto",
    ripple: str = "auto",
    split: str = "auto",
    wavelength_offset_nm: float = 0.0,
    reference_nm: float = REFERENCE_NM,
    chi2_max: float = CHI2_MAX,
    design: dict | None = None,
    process=None,
    source: dict | None = None,
    family: int | str | None = None,
):
    """Fit the physical ring model (plus the instrument) to a measured spectrum.

    Args:
        wl_nm: wavelengths (nm) of the laser sweep, strictly increasing.
        through, drop: linear power transmission of the ports (either or both).
        radius: the drawn ring radius (µm); default the design's (the ring cell's 20 µm unless ``design`` says).
        kind: ``"add_drop"`` or ``"all_pass"``; default add-drop if ``drop`` is given, else all-pass.
        coupling: None, ``"symmetric"``, ``"under"`` or ``"over"`` (see the package docstring).
        baseline: ``"shared"`` (one baseline for both ports) or ``"separate"``.
        baseline_order: polynomial order (dB versus λ) of the baseline, 0–6 (1: offset and tilt), or ``"auto"``:
            the order the resonance analysis chose from the data (a grating-coupler passband over 100 nm: 4).
        ripple, split: ``"auto"`` (detect, then fit), ``"fit"`` or ``"off"``: the facets' Fabry–Pérot ripple and
            split resonances (backscatter doublets).
        wavelength_offset_nm: added to ``wl_nm`` (the sweep's offset against a wavelength reference).
        reference_nm: the resonance reported is the model's nearest this wavelength (nm).
        chi2_max: the largest reduced χ² of the physical model accepted as a fit.
        design: the drawn ring's other parameters (e.g. ``{"width": 1.2, "cladding": "air"}``).
        process: ``prismpic.pdk.process.Process`` of the priors (default ``DEFAULT_PROCESS``).
        source: what to record under ``source`` (file name, ...).
        family: the mode family calibrated (``analyze_spectrum``'s rule): None (the design's, by its group index),
            ``"te"``, ``"tm"``, ``"deepest"`` or a family number; the other families' resonances are masked
            (weight 0 within two linewidths) in every port.

    Returns:
        :class:`RingCalibration`; ``status`` is ``"failed"`` (with ``failure_reason``) when the fit did not
        converge or the model does not describe the data.
    """
    t_start = time.perf_counter()
    kind = _check_arguments(through, drop, kind, baseline, baseline_order, radius, reference_nm, ripple, split,
                            wavelength_offset_nm, chi2_max)
    design_p = design_params(kind, dict(design or {}, **({"radius": float(radius)} if radius is not None else {})))
    priors = ring_priors(design_p, process)
    wl_true = np.asarray(wl_nm, float) + float(wavelength_offset_nm)
    an = _analysis(wl_true, through, drop, design_p, reference_nm, coupling, family)
    rn = an.resonances[an.nearest]
    check_ng(an.fsr_nm, rn.center_nm, float(design_p["radius"]))
    have_t, have_d = through is not None, drop is not None
    regimes = fit_regimes(kind, coupling, have_d)
    ports = tuple(p for p, h in (("through", have_t), ("drop", have_d)) if h)
    shared = baseline == "shared" or len(ports) == 1
    eta = float(ring_physics.db_to_amplitude(float(design_p["coupler_loss_db"])))
    order = int(an.baseline_order) if baseline_order == "auto" else int(baseline_order)
    sp = _spectrum(an, ports, min(order, MAX_ORDER), eta)
    sp.notes.extend(an.notes)
    fit_loss = have_t  # the drop port alone fixes the total linewidth only
    n_res = sum(r.family == 0 for r in an.resonances)
    held = {"split_nm", "ripple_cos_db", "ripple_sin_db", "ripple_period_nm"}
    if not (have_t and have_d):
        held.add("drop_offset_nm")
    if n_res < 3:  # two resonance positions fix θ0 and θ1 only: the curvature stays at its 1/λ start
        held.add("theta2")
    # the line shape: closed-form starts of every regime, one batch per setup
    t_line = time.perf_counter()
    starts, setups = _line_starts(an, sp, kind, regimes, ports, shared, design_p, have_t, fit_loss)
    held_line = held | ({"la"} if not fit_loss else set())
    sols = []
    for setup in dict.fromkeys(setups):
        idx = [i for i, s in enumerate(setups) if s == setup]
        got = solve_lines(setup, sp, [starts[i] for i in idx], held_line)
        got, info = instrument_steps(setup, sp, got, held_line, ripple, split)
        for i, g in zip(idx, got, strict=True):
            g["regime"], g["info"] = regimes[i], info
            sols.append(g)
    line_s = time.perf_counter() - t_line
    # the physics, per regime, from its line shape
    t_phys = time.perf_counter()
    pstarts = []
    for g in sols:
        cov = line_covariance(g)
        ps = _physics_start(g["regime"], g, cov, g["setup"].names(), sp, design_p, priors, kind, fit_loss,
                            g["setup"].symmetric)
        ps["line_cov"] = cov
        pstarts.append(ps)

    def residual_of(st):
        return line_residual_fn(design_p["cladding"], is_tuned(design_p))

    def free_of(st, stage):
        return fitted_names(kind, st["regime"], st["fit_loss"]) + ("neff_ref", "ng_ref")

    def args_of(st, stage):
        return {"held": st["held"], "wl_um": jnp.asarray(sp.lam_r * 1e-3), "h_um": jnp.asarray(sp.h * 1e-3),
                "target": jnp.asarray(st["target"]), "whiten": jnp.asarray(st["whiten"])}

    psols = physical_solutions(kind, design_p["cladding"], pstarts, residual_of, free_of, args_of, priors, design_p,
                               sp.lam_r * 1e-3, near=not is_tuned(design_p))
    phys_s = time.perf_counter() - t_phys
    for s in psols:  # the data's own χ² for the regime: the line shape's
        s["line_cost"] = s["start"]["line"]["fit"]["cost"]
    check = {id(s): _physical_check(kind, design_p["cladding"], s, sp) for s in psols}
    return ring_result(
        kind=kind, sols=psols, design=design_p, priors=priors, regimes=regimes, have_drop=have_d, fit_loss=fit_loss,
        sp=sp, an=an, check=check, chi2_max=chi2_max, timing={"line_shape_s": line_s, "physics_s": phys_s,
                                                               "time_s": time.perf_counter() - t_start},
        source={"from": "spectrum", "radius": float(design_p["radius"]), "coupling": coupling, "baseline": baseline,
                "baseline_order": sp.order, "ripple": ripple, "split": split,
                "wavelength_offset_nm": float(wavelength_offset_nm), **(source or {})})


def _model_slopes(kind: str, cladding: str, s: dict, sp: SpectrumData) -> np.ndarray:
    """The physical ring's d ln κ1²/dx, d ln κ2²/dx, d ln(−ln a)/dx and θ2 = ½h²·d²θ/dλ² at λ_r
    (x = (λ − λ_r)/h), central differences over ±0.5 nm."""
    p = dict(held_params(s["p"]))
    p.update({n: jnp.asarray(float(v)) for n, v in zip(FIT_PARAMS, s["vec"], strict=True)})
    d_nm = 0.5
    wl = jnp.asarray([sp.lam_r - d_nm, sp.lam_r + d_nm, sp.lam_r]) * 1e-3
    _, k1, _, k2, a, th, _ = (np.asarray(f) for f in ring_fields(wl, p, kind, cladding, is_tuned(s["p"]), bus=False))
    with np.errstate(divide="ignore"):
        logs = [np.log(k1**2), np.log(k2**2) if kind == "add_drop" else np.zeros(3), np.log(-np.log(a))]
    theta2 = 0.5 * sp.h**2 * (th[0] - 2 * th[2] + th[1]) / d_nm**2
    return np.array([(v[1] - v[0]) / (2 * d_nm) * sp.h for v in logs] + [theta2])


def _line_slopes(line: dict, kind: str) -> np.ndarray:
    """The line shape's fitted slopes of ln κ1², ln κ2², ln(−ln a) per x and its θ2, NaN where the line-shape
    fit held them."""
    names, setup = line["setup"].names(), line["setup"]
    free = {names[i] for i in line["free"]}
    v = line["values"]
    k2 = "lk1_s" if setup.symmetric else "lk2_s"
    return np.array([v[n] if n in free and not (n == k2 and kind == "all_pass") else math.nan
                     for n in ("lk1_s", k2, "la_s", "theta2")])


def _physical_check(kind: str, cladding: str, s: dict, sp: SpectrumData) -> dict:
    """The physical model of solution ``s`` through the fitted instrument at every point: model, χ²_red,
    residual structure; and the same with the line shape's κ and loss slopes across the span
    (``ring_spectrum_model.dispersion_corrected``), kept when it lowers χ² by more than ``PULL_MAX``²."""
    line = s["start"]["line"]
    v, setup = line["values"], line["setup"]
    instr = np.array([v[n] for n in INSTRUMENT])
    coef = np.asarray(line["v"])[len(LINE) + len(INSTRUMENT):]
    nodes, weights = chebyshev_nodes(sp.wl[0] * 1e-3, sp.wl[-1] * 1e-3)
    args = {"nodes": jnp.asarray(nodes), "weights": jnp.asarray(weights), "wl_um": jnp.asarray(sp.wl * 1e-3),
            "u": jnp.asarray((sp.wl - sp.mid) / sp.h), "dl_nm": jnp.asarray(sp.args()["dl_nm"]),
            "fsr_nm": jnp.asarray(sp.fsr), "x": jnp.asarray((sp.wl - sp.lam_r) / sp.h), "h_nm": jnp.asarray(sp.h)}
    held = held_params(s["p"])
    fn = physical_fn(kind, cladding, sp.ports, setup.shared, MAX_ORDER, is_tuned(s["p"]))
    n = int(np.count_nonzero(sp.w))
    k = len(VARIABLES) + len(s["start"]["line"]["free"])
    model_s = _model_slopes(kind, cladding, s, sp)
    disp = np.nan_to_num(_line_slopes(line, kind) - model_s)  # a slope the line shape held stays the model's
    out = {}
    for tag, d in (("pure", np.zeros(len(DISPERSION))), ("corrected", disp)):
        model = np.asarray(fn(jnp.asarray(s["vec"]), held, jnp.asarray(instr), jnp.asarray(coef),
                              dict(args, disp=jnp.asarray(d))))
        r = (model - sp.data) * sp.w
        out[tag] = (model, r, float(np.sum(r**2)))
    pure, corr = out["pure"], out["corrected"]
    n_disp = int(np.count_nonzero(disp))
    applied = n_disp > 0 and np.isfinite(corr[2]) and pure[2] - corr[2] > PULL_MAX**2
    model, r, chi2 = corr if applied else pure
    k += n_disp if applied else 0
    scale = np.array([sp.h, sp.h, sp.h, 0.5 * sp.h**2])  # per x → per nm (θ2 → θ'' in rad/nm²)
    model_nm, added_nm = model_s / scale, (disp if applied else np.zeros_like(disp)) / scale
    # dn_g/dλ = 2n_g/λ − θ''·λ²/(2πL) (θ = 2πL·n_eff/λ; λ, L in nm), in 1/µm
    lam, length, ng = sp.lam_r, math.tau * float(s["p"]["radius"]) * 1e3, float(s["q"]["ng"])
    dng = [1e3 * (2 * ng / lam - t2 * lam**2 / (math.tau * length)) for t2 in (model_nm[3], model_nm[3] + added_nm[3])]
    by_line = [(c, m) for c, m in zip(sp.centers, lines_misfit(r, sp.sigma, sp.data, windows(sp.wl, sp.centers, sp.fwhm)),
                                        strict=True) if m is not None]
    return {"model": model, "chi2_reduced": chi2 / max(n - k, 1), "resid": r, "misfit_by_line": by_line,
            "lines_misfit": max((m for _, m in by_line), default=None),
            "structure": fitting.residual_structure(r[r != 0]), "n_points": n, "n_params": k,
            "chi2_reduced_physical": pure[2] / max(n - k, 1),
            "dispersion": {"applied": bool(applied), "delta_chi2": float(pure[2] - corr[2]),
                           "model_per_nm": dict(zip(DISPERSION, model_nm.tolist(), strict=True)),
                           "added_per_nm": dict(zip(DISPERSION, added_nm.tolist(), strict=True)),
                           "dng_dlambda_per_um": {"model": dng[0], "data": dng[1]}}}


def calibrate_ring_csv(path, **kwargs):
    """``measurements.read_spectrum_csv`` then ``calibrate_ring_spectrum`` (``radius`` in µm, optional)."""
    sp = read_spectrum_csv(path)
    src = dict(kwargs.pop("source", None) or {}, spectrum=Path(path).name)
    return calibrate_ring_spectrum(sp.wl_nm, sp.through, sp.drop, source=src, **kwargs)


__all__ = ["CHI2_MAX", "REFERENCE_UM", "calibrate_ring_csv", "calibrate_ring_spectrum"]
