"""The two fitting stages of a spectrum calibration: the line shape of every coupling regime (closed-form starts,
then the instrument steps), then the physical ring matched to each line shape at λ_r. Wavelengths in µm."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration.priors import Prior, ring_priors
from prismpic.analysis.calibration.ring.linefit import LineFit, SpectrumData, instrument_steps, solve_lines
from prismpic.analysis.calibration.ring.lineshape import LineSetup, closed_form
from prismpic.analysis.calibration.ring.model import held_params, is_tuned
from prismpic.analysis.calibration.ring.physfit import (
    LINE_MATCHED,
    PhysicalSolution,
    PhysicsStart,
    line_residual_fn,
    physical_solutions,
    start_vectors,
)
from prismpic.analysis.calibration.ring.solutions import fit_regimes, fitted_names
from prismpic.analysis.calibration.ring.start import gap_for_kappa2, loss_for_a, place_geometry, ring_indices
from prismpic.components import ring_physics
from prismpic.components.ring_design import RingDesign

INSTRUMENT_HELD = frozenset({"split_um", "ripple_cos_db", "ripple_sin_db", "ripple_period_um"})  # until found


@dataclass(frozen=True, eq=False)
class SpectrumPlan:
    """What a spectrum fit does: the ring kind, the design (every ring model argument) and its priors, the
    coupling regimes tried, the ports read, one baseline or one per port, whether the loss is fitted (the drop
    port alone fixes the total linewidth only), the line-shape entries held from the start, and the ripple and
    split choices (``"auto"``, ``"fit"``, ``"off"``)."""

    kind: str
    design: dict
    priors: dict[str, Prior]
    regimes: tuple[str, ...]
    ports: tuple[str, ...]
    shared: bool
    fit_loss: bool
    held: frozenset[str]
    ripple: str
    split: str

    @classmethod
    def of(cls, kind: str, design: dict, process, an, ports: tuple[str, ...], coupling, baseline: str, ripple: str,
           split: str) -> SpectrumPlan:
        have_t, have_d = "through" in ports, "drop" in ports
        held = set(INSTRUMENT_HELD)
        if not (have_t and have_d):
            held.add("drop_offset_um")
        if sum(r.family == 0 for r in an.resonances) < 3:  # two positions fix θ0, θ1 only: θ2 stays at its start
            held.add("theta2")
        if not have_t:
            held.add("la")
        return cls(kind=kind, design=design, priors=ring_priors(design, process),
                   regimes=fit_regimes(kind, coupling, have_d), ports=ports,
                   shared=baseline == "shared" or len(ports) == 1, fit_loss=have_t, held=frozenset(held),
                   ripple=ripple, split=split)

    @property
    def have_through(self) -> bool:
        return "through" in self.ports

    @property
    def have_drop(self) -> bool:
        return "drop" in self.ports


def _baseline_start(an, sp: SpectrumData, shared: bool, have_t: bool, d_peak_model: float | None) -> dict:
    """Baseline coefficients (dB polynomial in u) from the analysis's baselines; drop alone: its peak level."""
    out = {}
    for j, port in enumerate(sp.ports):
        if shared and j > 0:
            break
        base = an.baseline_through if (port == "through" or have_t) else an.baseline_drop
        c = np.polynomial.polynomial.polyfit(sp.u, 10 * np.log10(base), sp.order)
        if port == "drop" and not have_t and d_peak_model:
            c[:] = 0.0
            c[0] = 10 * math.log10(float(np.max(sp.data[j])) / d_peak_model)
        pre = "" if shared else f"{port}_"
        out.update({f"{pre}u{i}": float(v) for i, v in enumerate(c)})
    return out


def _theta2_of_design(design_p: dict, sp: SpectrumData) -> float:
    """θ2 = ½h²·d²θ/dλ² of the design ring at λ_r, with its dispersion: θ'' = 2πL(2n_g/λ³ − (dn_g/dλ)/λ²).

    Held when the span shows two resonances only (their positions fix θ0 and θ1 given θ2)."""
    lam, d = sp.lam_um, 1e-3  # n_g's slope over ±1 nm
    ng_lo, ng, ng_hi = (ring_indices(design_p, w)[1] for w in (lam - d, lam, lam + d))
    length = math.tau * float(design_p["radius"])
    d2 = math.tau * length * (2 * ng / lam**3 - (ng_hi - ng_lo) / (2 * d) / lam**2)
    return 0.5 * sp.h_um**2 * d2


def line_starts(plan: SpectrumPlan, an, sp: SpectrumData) -> list[dict]:
    """The line shape's closed-form start of every coupling regime (θ2 from the design's dispersion; without the
    through, the loss at the design's and the drop level from it)."""
    rn, eta, have_t = an.resonances[an.nearest], sp.eta, plan.have_through
    theta2 = _theta2_of_design(plan.design, sp)
    starts = []
    for regime in plan.regimes:
        st = closed_form(plan.kind, regime, sp.fsr_um, sp.fwhm_um, rn.through_min, rn.drop_peak if have_t else None,
                         eta, sp.lam_um, sp.h_um)
        if not plan.fit_loss:
            lossy = {k: plan.design[k] for k in ("radius", "width", "film_thickness", "etch_depth", "loss_db_per_cm",
                                                 "sidewall_angle_deg", "cladding")}  # what the round-trip loss reads
            a_design = ring_physics.ring_round_trip(sp.lam_um, RingDesign.from_params(lossy))[0]
            st["la"] = math.log(-math.log(float(a_design)))
        d_peak = None
        if not have_t:
            x = math.exp(-math.exp(st["la"])) * (eta**2 - math.exp(st["lk1"]))
            d_peak = math.exp(st["lk1"]) ** 2 * math.exp(-math.exp(st["la"])) / (1 - x) ** 2
        st.update(_baseline_start(an, sp, plan.shared, have_t, d_peak))
        st["theta2"] = theta2
        starts.append(st)
    return starts


def fit_line_shapes(plan: SpectrumPlan, an, sp: SpectrumData) -> list[LineFit]:
    """Stage 1: the line shape of every regime from its closed-form start, then the instrument steps; one batch
    per setup (the symmetric regime and the independent ones are different programs)."""
    starts = line_starts(plan, an, sp)
    setups = [LineSetup(plan.kind, plan.kind == "add_drop" and r == "symmetric", plan.ports, plan.shared)
              for r in plan.regimes]
    fits: list[LineFit | None] = [None] * len(starts)
    for setup in dict.fromkeys(setups):
        idx = [i for i, s in enumerate(setups) if s == setup]
        got = solve_lines(setup, sp, [starts[i] for i in idx], set(plan.held))
        got, found = instrument_steps(setup, sp, got, set(plan.held), plan.ripple, plan.split)
        for i, g in zip(idx, got, strict=True):
            fits[i] = dataclasses.replace(g, regime=plan.regimes[i], instrument=found)
    return fits


def physics_start(plan: SpectrumPlan, line: LineFit, sp: SpectrumData) -> PhysicsStart:
    """The physics start of a line shape: geometry placed on its n_eff and n_g, gaps and loss from its κ² and a,
    and the line shape at λ_r with its covariance as the target (whitened)."""
    v, lam, kind = line.values, sp.lam_um, plan.kind
    symmetric = line.setup.symmetric
    placed = place_geometry(plan.design, plan.priors, lam, -math.tau * sp.h_um / v["theta1"], v["theta0"])
    p = dict(placed.p)
    p["gap"] = gap_for_kappa2(p, lam, math.exp(v["lk1"]) / sp.eta**2)  # κ² = η²·sin²Φ
    if kind == "add_drop":
        p["gap_drop"] = p["gap"] if symmetric else gap_for_kappa2(p, lam, math.exp(v["lk2"]) / sp.eta**2)
    if plan.fit_loss:
        p["loss_db_per_cm"] = loss_for_a(p, lam, math.exp(-math.exp(v["la"])))
    matched = [i for i, n in enumerate(LINE_MATCHED) if not (n == "lk2" and (kind == "all_pass" or symmetric))
               and not (n == "la" and not plan.fit_loss)]
    names = line.setup.names()
    idx = [names.index(LINE_MATCHED[i]) for i in matched]
    c = line.covariance()[np.ix_(idx, idx)]
    whiten = np.zeros((len(LINE_MATCHED), len(LINE_MATCHED)))  # the unmatched rows and columns stay 0
    whiten[np.ix_(matched, matched)] = np.linalg.inv(np.linalg.cholesky(c + 1e-30 * np.eye(len(idx))))
    return PhysicsStart(regime=line.regime, symmetric=symmetric, vectors=start_vectors(p, plan.priors, placed, lam),
                        held=held_params(p, kind, symmetric), target=np.array([v[n] for n in LINE_MATCHED]),
                        whiten=whiten, fit_loss=plan.fit_loss, line=line)


def fit_physics(plan: SpectrumPlan, lines: list[LineFit], sp: SpectrumData) -> list[PhysicalSolution]:
    """Stage 2: the physical ring of every line shape (both stages of ``ring_physfit``, one batch)."""
    cladding, tuned = plan.design["cladding"], is_tuned(plan.design)
    residual = line_residual_fn(cladding, tuned)

    def free_of(st: PhysicsStart, stage: str):
        return fitted_names(plan.kind, st.regime, st.fit_loss) + ("neff_ref", "ng_ref")

    def args_of(st: PhysicsStart, stage: str):
        return {"held": st.held, "wl_um": jnp.asarray(sp.lam_um), "h_um": jnp.asarray(sp.h_um),
                "target": jnp.asarray(st.target), "whiten": jnp.asarray(st.whiten)}

    starts = [physics_start(plan, line, sp) for line in lines]
    return physical_solutions(cladding, starts, lambda st: residual, free_of, args_of, plan.priors, plan.design,
                              sp.lam_um, near=not tuned)
