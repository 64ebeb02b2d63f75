"""The physical parameters of a ring from what was measured (the line shape at λ_r, or specs), with priors.

Every fit here moves ``ring_model.VARIABLES`` (gaps, loss, the process parameters, radius and the ring's
n_eff, n_g at λ0) under the process priors (``priors.ring_priors``) and is run twice, in one batch:

- stage "geometry": the effective-index correction held at zero (a constraint residual Δn/σ_c,
  σ_c = ``SIGMA_NO_CORRECTION``): the process parameters alone must reproduce the resonances and the FSR;
- stage "corrected": Δn_eff and Δn_g free; the process parameters stay at their priors unless the coupling
  or the loss moves them.

The corrected stage is kept only when it fits significantly better: Δχ² (data + priors) > ``PULL_MAX``², the
price of a process parameter pulled 3σ from its prior (a likelihood-ratio test with the correction's two
extra parameters; Wilks, Ann. Math. Stat. 9, 60 (1938)). The result then says what the geometry within its
priors reaches and what the correction adds.

What is measured (``line_residual_fn``): the line shape at a resonance λ_r, θ(λ_r) − 2πm, h·dθ/dλ, ln κ1²,
ln κ2², ln(−ln a), whitened by its covariance: a spectrum's from the line-shape fit, or the specs' by the
closed-form Airy inversion (``ring_specs``). One compiled program serves every kind, regime and source.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.analysis.calibration import fitting
from prismpic.analysis.calibration.priors import Prior, bounds, typical_step
from prismpic.analysis.calibration.ring.linefit import LineFit
from prismpic.analysis.calibration.ring.model import (
    FIT_PARAMS,
    GENERIC,
    REFERENCE_UM,
    VARIABLES,
    full_ring_params,
    held_params,
    is_tuned,
    quantities_near,
    quantities_of,
    quantities_value,
    ridge_of,
    ring_fields,
    ring_of,
)
from prismpic.analysis.calibration.ring.start import PULL_MAX, Placement, ring_indices
from prismpic.components import ring_physics

SIGMA_NO_CORRECTION = 1e-6  # |Δn| this small is below any measurement's reach (resonance shift < 1 pm)
INDEX_BOUNDS = (1.4, 3.0)  # n_eff, n_g at λ0 of any TFLN ridge mode
STAGES = ("geometry", "corrected")


LINE_MATCHED = ("theta0", "theta1", "lk1", "lk2", "la")  # the line shape at λ_r the physics is matched to


@dataclass(frozen=True, eq=False)
class PhysicsStart:
    """Where the physics stage starts for one coupling regime, and what it is matched to.

    ``vectors``: each stage's start (ring parameters) and mode order m (``start_vectors``); ``held``: the ring
    parameters held (``model.held_params``); ``target``: the measured ``LINE_MATCHED`` values and ``whiten`` (5 × 5:
    WᵀW their inverse covariance, zero rows for what is not matched); ``known``: a resonance wavelength was
    measured (θ0 is matched); ``fit_loss``: the loss is fitted; ``line``: the line-shape fit it comes from (a
    spectrum's; None for specs)."""

    regime: str
    symmetric: bool
    vectors: dict[str, tuple[dict, int]]
    held: dict
    target: np.ndarray
    whiten: np.ndarray
    known: bool = True
    fit_loss: bool = True
    line: LineFit | None = None


@dataclass(frozen=True, eq=False)
class PhysicalSolution:
    """The physical ring of one start: the stage kept (``pick_stage``), its ``VARIABLES`` x and their covariance,
    the ring parameters p, the ``FIT_PARAMS`` vector and the specs q with their Jacobians in x (jvec, jq), the
    physics cost ½Σr² of the kept stage and of the other one, convergence, the priors' pulls of both, and the
    data rows' Σr²."""

    start: PhysicsStart
    stage: str
    x: np.ndarray
    cov: np.ndarray
    p: dict
    vec: np.ndarray
    jvec: np.ndarray
    q: dict[str, float]
    jq: dict[str, np.ndarray]
    cost: float
    other_cost: float
    ok: bool
    steps: int
    pulls: dict[str, float]
    other_pulls: dict[str, float]
    chi2_data: float

    @property
    def regime(self) -> str:
        return self.start.regime

    @property
    def corrected(self) -> bool:
        return self.stage == "corrected"

    @property
    def line_cost(self) -> float:
        """The line shape's cost (a spectrum's; 0 for specs)."""
        return 0.0 if self.start.line is None else self.start.line.cost

    @property
    def total_cost(self) -> float:
        """What the regimes are compared on: the data's line-shape cost plus the physics stage's."""
        return self.line_cost + self.cost

    @property
    def line_ok(self) -> bool:
        return self.start.line is None or self.start.line.solution.ok


@dataclass(frozen=True, eq=False)
class StageFit:
    start: PhysicsStart
    stage: str
    solution: fitting.Solution


@functools.lru_cache(maxsize=8)
def line_residual_fn(cladding: str, tuned: bool):
    """``residual(v, args)``: the physics' line shape at λ_r minus the measured one, whitened, and Δn·corr_inv.

    Every kind and regime (``GENERIC``, flags in ``args["held"]``). ``args``: ``held``, ``wl_um`` (λ_r), ``h_um``
    (the line-shape fit's half span), ``m`` (2π·m is subtracted from θ), ``target`` (the measured values of
    ``LINE_MATCHED``), ``whiten`` (5 × 5: W with WᵀW the inverse covariance of the matched ones, zero rows and
    columns for the others), ``corr_inv``. h·dθ/dλ = −h·2πL·n_g/λ² (untuned ring; tuned: θ's own derivative).
    """
    def residual(v, args):
        p = ring_of(v, args["held"], None, cladding)
        wl = args["wl_um"]
        t1, k1, t2, k2, a, theta, _ = ring_fields(wl, p, GENERIC, cladding, tuned, bus=False)
        if tuned:
            dtheta = jax.grad(lambda w: ring_fields(w, p, GENERIC, cladding, tuned, bus=False)[5])(wl)
        else:
            ng = ring_physics.ring_ng(wl, p["radius"], ridge_of(p, cladding)) + p["dng"]
            dtheta = -math.tau * math.tau * p["radius"] * ng / wl**2
        s = jnp.stack([theta - math.tau * args["m"], dtheta * args["h_um"], jnp.log(k1**2), jnp.log(k2**2 + 1e-300),
                       jnp.log(-jnp.log(a))])
        return args["whiten"] @ (s - args["target"]), jnp.stack([p["dneff"], p["dng"]]) * args["corr_inv"]

    return residual


@functools.lru_cache(maxsize=8)
def derived_fn(cladding: str, near: bool, tuned: bool):
    """jit((FIT_PARAMS vector, specs), their Jacobians in ``VARIABLES``) at the resonance nearest wl0 (µm), every
    kind (``GENERIC``); ``near``: ``ring_model.quantities_near`` (the specs at wl0) instead of Newton's search."""
    def f(v, held, wl0):
        p = ring_of(v, held, None, cladding)
        q = quantities_near(p, GENERIC, cladding, wl0) if near else quantities_of(p, GENERIC, cladding, wl0, tuned)
        return jnp.stack([p[n] for n in FIT_PARAMS]), q

    return program_cache.reuse(lambda v, held, wl0: (f(v, held, wl0), jax.jacfwd(f)(v, held, wl0)))


def start_vectors(p_start: dict, priors: dict[str, Prior], placed: Placement, wl_um: float
                  ) -> dict[str, tuple[dict, int]]:
    """Starting ``VARIABLES`` and mode order of both stages: {"geometry": (vector, m), "corrected": (vector, m)}.

    Geometry stage: the placed geometry ``p_start`` (``ring_start.place_geometry``), no correction. Corrected
    stage: the geometry at its priors, the order m nearest them, and n_eff, n_g at λ0 such that the ring
    has the measured n_eff·R and n_g·R at λ (the correction's Δn_g is λ-independent,
    Δn_eff(λ) = Δn_eff + (Δn_eff − Δn_g)(λ − λ0)/λ0).
    """
    ne_r, ng_r = placed.products
    step = wl_um / math.tau  # n_eff·R of one mode order
    out = {}
    for stage in STAGES:
        p = dict(p_start)
        m = placed.m
        if stage == "corrected":
            p.update({k: pr.mean for k, pr in priors.items()})
        r = float(p["radius"])
        ne_g, ng_g = ring_indices(p, wl_um)
        ne0, ng0 = ring_indices(p, REFERENCE_UM)
        if stage == "corrected":  # the order whose n_eff·R is nearest the geometry's
            shift = round((ne_g * r - ne_r) / step)
            m, ne_r = m + shift, ne_r + shift * step
            dng = ng_r / r - ng_g
            d = (wl_um - REFERENCE_UM) / REFERENCE_UM
            dneff = (ne_r / r - ne_g + dng * d) / (1 + d)
        else:
            dneff = dng = 0.0
        p["neff_ref"], p["ng_ref"] = ne0 + dneff, ng0 + dng
        out[stage] = (p, m)
    return out


def box_and_prior(start: dict, priors: dict[str, Prior], free: tuple[str, ...]):
    """(``fitting.Box``, (μ, 1/σ)) of ``VARIABLES`` with only ``free`` moving (the others held by a zero step)."""
    bnds, scale, mu, inv = [], [], [], []
    for n in VARIABLES:
        bnds.append(INDEX_BOUNDS if n in ("neff_ref", "ng_ref") else bounds(n, priors))
        step = 1e-4 if n in ("neff_ref", "ng_ref") else typical_step(n)
        scale.append(step if n in free else 0.0)
        pr = priors.get(n)
        mu.append(pr.mean if pr is not None else 0.0)
        inv.append(1.0 / pr.sigma if pr is not None and n in free else 0.0)
    x0 = [float(start[n] if n != "gap_drop" or start.get(n) is not None else start["gap"]) for n in VARIABLES]
    return fitting.Box.of(bnds, scale, x0), (np.array(mu), np.array(inv))


def solve_stages(residual, starts: list[PhysicsStart], priors, free_of, args_of) -> list[StageFit]:
    """Both stages of every start (one batch). ``free_of(start, stage)`` names the free ``VARIABLES``;
    ``args_of(start, stage)`` the residual's args."""
    boxes, pri, args, tags = [], [], [], []
    for st in starts:
        for stage in STAGES:
            vector, m = st.vectors[stage]
            b, pr = box_and_prior(vector, priors, free_of(st, stage))
            a = dict(args_of(st, stage), m=jnp.asarray(float(m)))
            a["corr_inv"] = jnp.asarray(1.0 / SIGMA_NO_CORRECTION if stage == "geometry" else 0.0)
            boxes.append(b)
            pri.append(pr)
            args.append(a)
            tags.append((st, stage))
    fits = fitting.solve(residual, boxes, pri, args, pad=4)  # 1 or 2 regimes × 2 stages: one program
    return [StageFit(st, stage, f) for (st, stage), f in zip(tags, fits, strict=True)]


def pick_stage(pair: list[StageFit]) -> tuple[StageFit, StageFit]:
    """(kept, the other) of a start's two stages: the corrected one only if it lowers χ² (data + priors +
    constraint) by more than PULL_MAX²."""
    geo = next(s for s in pair if s.stage == "geometry")
    cor = next(s for s in pair if s.stage == "corrected")
    cost_g, cost_c = 2 * geo.solution.cost, 2 * cor.solution.cost
    if cost_g - cost_c <= PULL_MAX**2 or not np.isfinite(cost_c):
        return geo, cor
    return cor, geo


def pulls(x: np.ndarray, priors: dict[str, Prior]) -> dict[str, float]:
    """(value − prior mean)/prior σ of each prior parameter in a ``VARIABLES`` vector."""
    return {n: (float(x[VARIABLES.index(n)]) - pr.mean) / pr.sigma for n, pr in priors.items()}


def physical(cladding: str, x: np.ndarray, held: dict, wl0_um: float, corrected: bool, near: bool,
             tuned: bool) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """The physical ring of a solution: (FIT_PARAMS vector (correction zeroed unless ``corrected``), its
    Jacobian in ``VARIABLES``, the specs at the resonance nearest wl0, their Jacobians) for the covariance
    propagation."""
    fn = derived_fn(cladding, near, tuned)
    (vec, q), (jvec, jq) = fn(jnp.asarray(x), held, float(wl0_um))
    vec = np.array(vec)
    if not corrected:
        vec[FIT_PARAMS.index("dneff")] = vec[FIT_PARAMS.index("dng")] = 0.0
        (_, q), _ = fn(jnp.asarray(_with_zero_correction(x, held, cladding)), held, float(wl0_um))
    return vec, np.asarray(jvec), {k: float(v) for k, v in q.items()}, {k: np.asarray(v) for k, v in jq.items()}


def _with_zero_correction(x: np.ndarray, held: dict, cladding: str) -> np.ndarray:
    """``x`` with neff_ref, ng_ref set to the geometry's own indices at λ0 (Δn = 0 exactly)."""
    p = {n: float(x[i]) for i, n in enumerate(VARIABLES)}
    p["cladding"] = cladding
    ne0, ng0 = ring_indices(p, REFERENCE_UM)
    y = np.array(x, float)
    y[VARIABLES.index("neff_ref")], y[VARIABLES.index("ng_ref")] = ne0, ng0
    return y



def physical_solutions(cladding: str, starts: list[PhysicsStart], residual_of, free_of, args_of,
                       priors: dict[str, Prior], design: dict, wl0_um: float, near: bool = False
                       ) -> list[PhysicalSolution]:
    """The physical solution of every start (a regime): both stages solved in one batch per residual function,
    the stage kept by ``pick_stage``, then the ring, its specs and their covariance.

    ``residual_of(start)`` is a start's residual function; ``near``: wl0 is the resonance itself (a spectrum's
    λ_r), else the specs are the resonance nearest wl0 found by Newton's method.
    """
    groups: dict = {}
    for st in starts:
        groups.setdefault(residual_of(st), []).append(st)
    out = []
    for fn, group in groups.items():
        solved = solve_stages(fn, group, priors, free_of, args_of)
        for st in group:
            kept, other = pick_stage([s for s in solved if s.start is st])
            f = kept.solution
            corrected = kept.stage == "corrected"
            vec, jvec, q, jq = physical(cladding, f.x, st.held, wl0_um, corrected, near, is_tuned(design))
            p = dict(design)
            p.update({n: float(v) for n, v in zip(FIT_PARAMS, vec, strict=True)})
            if st.symmetric:
                p["gap_drop"] = None
            out.append(PhysicalSolution(
                start=st, stage=kept.stage, x=f.x, cov=fitting.covariance(f.jac_data, f.jac_prior, 1.0), p=p,
                vec=vec, jvec=jvec, q=q, jq=jq, cost=f.cost,
                other_cost=other.solution.cost, ok=f.ok, steps=f.steps, pulls=pulls(f.x, priors),
                other_pulls=pulls(other.solution.x, priors), chi2_data=f.chi2_data))
    return out


def ring_quantities(wl0: float = 1.55, kind: str = "add_drop", **params) -> dict[str, float]:
    """Specs of a ring (as ``rings.ring_specs``, jitted) at the resonance nearest ``wl0`` (µm):
    resonance_um, fsr_nm, fwhm_nm, q_loaded, q_intrinsic, extinction_db (dB), drop_loss_db (dB),
    kappa2, kappa2_drop, round_trip_loss_db (dB), ng, neff. ``dneff``/``dng`` add the index correction.

    The resonance by Newton's method on θ = 2πL·n_eff/λ (θ' = −2πL·n_g/λ²), then the specs there by the fits'
    own compiled physics (``derived_fn``); a tuned ring (voltage, temperature) takes the jitted Newton search.
    """
    corr = {k: float(params.pop(k)) for k in ("dneff", "dng") if k in params}
    p = full_ring_params(kind, params)
    sym = kind == "all_pass" or p["gap_drop"] is None
    if is_tuned(p):
        return quantities_value(p | corr, kind, wl0)
    ne0, ng0 = ring_indices(p, REFERENCE_UM)
    dneff, dng = corr.get("dneff", 0.0), corr.get("dng", 0.0)
    v = np.array([float(p["gap"] if n == "gap_drop" and p.get(n) is None else p[n]) for n in VARIABLES[:-2]]
                 + [ne0 + dneff, ng0 + dng])
    length = math.tau * float(p["radius"])
    lam = float(wl0)

    def theta(w):
        ne, ng = ring_indices(p, w)
        d = dneff + (dneff - dng) * (w - REFERENCE_UM) / REFERENCE_UM
        return math.tau * length * (ne + d) / w, -math.tau * length * (ng + dng) / w**2

    m = round(theta(lam)[0] / math.tau)
    for _ in range(6):
        th, dth = theta(lam)
        lam -= (th - math.tau * m) / dth
    (_, q), _ = derived_fn(p["cladding"], True, False)(jnp.asarray(v), held_params(p, kind, sym), lam)
    return {k: float(x) for k, x in q.items()}
