"""The fitting core shared by the ring, MZM and PCM calibrations: bounded, regularised least squares in JAX.

Solver: Levenberg–Marquardt with Marquardt's diagonal scaling (the damping follows the largest diagonal of
JᵀJ seen, Moré, "The Levenberg–Marquardt algorithm", LNM 630 (1978)) and Nielsen's damping update (Madsen,
Nielsen & Tingleff, "Methods for non-linear least squares problems" (2004), alg. 3.16), written as one
``lax.while_loop``, jitted end to end and mapped (``lax.map``) over a batch of problems of equal shape (both
coupling regimes of a ring, spectra of equal length, the levels of a PCM cell): one compiled call solves
the batch, with no Python between iterations. Each iteration costs one forward-mode Jacobian and a
(parameters × parameters) Cholesky solve. Chosen over ``scipy.optimize.least_squares`` (the path before issue
11: Python between iterations, one problem at a time, an SVD of the full Jacobian per iteration) and over
``optimistix.LevenbergMarquardt`` 0.1.0 (jittable and vmappable too, but it damps with λ·I, which is not
invariant to the parameters' scales, and rebuilds the damped Jacobian by JVPs and factors it by QR for
every trial step: measured here about three Jacobians per iteration and 200 iterations without
convergence on a ring spectrum that this solver fits in 20–40).

Coordinates: the solver moves z, every component of order one per typical step ``scale``. A parameter with
bounds [lo, hi] is x = mid + half·sin(u0 + z·scale/half) (the sine transform of MINUIT, F. James, "MINUIT
reference manual" (1994), §1.3), so that every iterate lies inside the bounds and dx/dz = scale at the start;
an unbounded one is x = x0 + z·scale. A zero ``scale`` holds a parameter.

Bounds that bind: the sine transform's slope vanishes on a bound, so a minimum that lies there (a propagation
loss the model's bend loss already exceeds) is approached along a folded valley, slowly, and can look converged
well above its cost. So the iteration keeps an active set (Nocedal & Wright, "Numerical Optimization" (2006),
§16.5): a free bounded parameter within ``PIN_TOL`` typical steps of a bound that its own Newton step would
cross (the cost falls towards the bound: the KKT sign of an active bound, ibid. §12.3) is held on that bound,
and released when that step turns inward; each change re-centres the transform at the current point. No library
offers this jitted and vmapped: optimistix and jaxopt have no bounded Levenberg–Marquardt, SciPy's
``least_squares(method="trf")`` runs in Python.

Priors: a Gaussian prior N(μ, σ) on x adds the residual (x − μ)/σ, so the solution is the maximum a posteriori
estimate (Tarantola, "Inverse Problem Theory" (2005), §3.2). Covariance: C = (J_dᵀJ_d / s² + J_pᵀJ_p)⁻¹ in x,
J_d the data residuals' Jacobian (residuals in units of their noise σ), s² = max(χ²_red, 1) (a misfit widens
the data's errors, never the priors'), J_p the Jacobian of the priors and constraints.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache

MAX_STEPS = 200  # Levenberg–Marquardt iterations per problem
FTOL = 1e-9  # an accepted step that lowers the cost by less than this fraction ends the iteration (converged)
F_FLAT = 1e-10  # as does a gradient whose diagonal Newton step would lower the cost by less than this
F_ZERO = 1e-12  # a cost (½Σr², residuals in σ) this small is an exact fit
F_ABS = 1e-4  # a change of ½χ² this small is no change (Δχ² = 1 is 1σ of one parameter)
MU_MAX = 1e30  # or a damping this large (no step lowers the cost any more)
PIN_TOL = 1e-3  # a bounded parameter this many typical steps from a bound, pushed outward, is held on it
MAX_SET_CHANGES = 20  # changes of the set of parameters held on their bounds, per problem


@dataclass(frozen=True)
class Box:
    """Bounds and scaling of a parameter vector: lower/upper bounds (±inf: unbounded), typical step, start."""

    lo: np.ndarray
    hi: np.ndarray
    scale: np.ndarray
    x0: np.ndarray

    @classmethod
    def of(cls, bounds, scale, x0) -> Box:
        """From [(lo, hi), ...], typical steps and the start (pulled 1 % of the span inside finite bounds, where
        the transform's slope is still 14 % of its largest)."""
        lo = np.array([b[0] for b in bounds], float)
        hi = np.array([b[1] for b in bounds], float)
        x0 = np.asarray(x0, float).copy()
        fin = np.isfinite(lo) & np.isfinite(hi)
        span = np.where(fin, hi - lo, 0.0)
        x0 = np.where(fin, np.clip(x0, lo + 0.01 * span, hi - 0.01 * span), x0)
        return cls(lo, hi, np.asarray(scale, float), x0)

    def arrays(self) -> dict:
        """The transform's arrays (mid, half, u0, scale, x0, finite mask, the bounds) as the jitted solver takes
        them."""
        fin = np.isfinite(self.lo) & np.isfinite(self.hi)
        lo, hi = np.where(fin, self.lo, 0.0), np.where(fin, self.hi, 1.0)
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        u0 = np.where(fin, np.arcsin(np.clip((self.x0 - mid) / half, -1.0, 1.0)), 0.0)
        return {"mid": mid, "half": half, "u0": u0, "scale": self.scale, "x0": self.x0, "fin": fin.astype(float),
                "lo": lo, "hi": hi}


def to_x(z, t):
    """Physical parameters x from the solver's z (``Box.arrays`` in ``t``); jittable."""
    bounded = t["mid"] + t["half"] * jnp.sin(t["u0"] + z * t["scale"] / t["half"])
    return jnp.where(t["fin"] > 0, bounded, t["x0"] + z * t["scale"])


def dx_dz(z, t):
    """The transform's slope dx/dz (diagonal), 0 for held parameters."""
    return jnp.where(t["fin"] > 0, t["scale"] * jnp.cos(t["u0"] + z * t["scale"] / t["half"]), t["scale"])


def bound_pushed_out(x, g, h, t):
    """Mask of the free bounded parameters within ``PIN_TOL`` typical steps of a bound that their own Newton step
    x − g/h would cross (g, h: the cost's gradient and curvature diag JᵀJ in x; ``t`` the problem's ``Box.arrays``)."""
    newton = x - g / jnp.where(h > 0, h, 1.0)
    near = PIN_TOL * t["scale"]
    bounded = (t["fin"] > 0) & (t["scale"] > 0) & (h > 0)
    return bounded & (((x - t["lo"] <= near) & (newton < t["lo"])) | ((t["hi"] - x <= near) & (newton > t["hi"])))


def held_on_bounds(t, x, pin):
    """The transform ``t`` (``Box.arrays``) re-centred at x: parameters in ``pin`` held on their nearer bound,
    the others starting at x (a bounded one at least min(``PIN_TOL`` typical steps, 1 % of the half span) inside,
    where the transform's slope lets it move)."""
    lo, hi = t["lo"], t["hi"]
    fin = (t["fin"] > 0) & ~pin
    margin = jnp.minimum(PIN_TOL * t["scale"], 0.01 * t["half"])
    x0 = jnp.where(pin, jnp.where(x - lo <= hi - x, lo, hi), jnp.where(fin, jnp.clip(x, lo + margin, hi - margin), x))
    u0 = jnp.where(fin, jnp.arcsin(jnp.clip((x0 - t["mid"]) / t["half"], -1.0, 1.0)), 0.0)
    return dict(t, x0=x0, u0=u0, scale=jnp.where(pin, 0.0, t["scale"]), fin=fin.astype(float))


def levenberg_marquardt(fx, t0, n_res: int, max_steps: int = MAX_STEPS):
    """Minimise ½|fx(x)|² over the box of ``t0`` (``Box.arrays``; jittable, vmappable; ``n_res`` residuals) from
    its start: returns (x, steps, converged, fx(x), its Jacobian in x, held parameters' columns zero).

    The first iteration only evaluates the start (one compiled copy of the Jacobian); an iteration that changes
    the set of parameters held on their bounds re-centres the transform there instead of stepping.
    """
    def value_jac(z, t):
        x = to_x(z, t)
        return fx(x), jax.jacfwd(fx)(x)

    def body(c):
        z, t, r, jx, changes, d, mu, nu, k, _ = c
        first = k == 0
        pin = (t["scale"] == 0) & (t0["scale"] > 0)  # held on a bound by the active set
        x = to_x(z, t)
        j = jx * dx_dz(z, t)
        a = j.T @ j
        g = j.T @ r
        new_pin = bound_pushed_out(x, jx.T @ r, jnp.sum(jx * jx, axis=0), t0)
        change = ~first & (changes < MAX_SET_CHANGES) & jnp.any(new_pin != pin)
        t_new = jax.tree.map(lambda u, v: jnp.where(change, u, v), held_on_bounds(t0, x, new_pin), t)
        d = jnp.maximum(d, jnp.diag(a))
        h = jnp.where(first | change, 0.0, -jnp.linalg.solve(a + mu * jnp.diag(d), g))
        z_new = jnp.where(change, 0.0, z + h)
        r_new, jx_new = value_jac(z_new, t_new)
        f, f_new = 0.5 * r @ r, 0.5 * r_new @ r_new
        pred = 0.5 * h @ (mu * d * h - g)
        rho = (f - f_new) / jnp.maximum(pred, 1e-300)
        ok = first | change | (jnp.isfinite(f_new) & (rho > 0))
        # the cost stagnates (MINPACK's ftol test), is 0, or a Gauss–Newton-like step (small damping) lowers ½χ²
        # by less than F_ABS: the parameters would move by less than 1 % of their σ
        small = ((f - f_new) <= FTOL * f) | (f_new <= F_ZERO) | (((f - f_new) <= F_ABS) & (mu <= 1e-2))
        flat = 0.5 * jnp.sum(g * g / d) <= F_FLAT  # a diagonal Newton step would lower ½χ² by less than F_FLAT
        done = ~first & ~change & ((ok & small) | flat)
        z = jnp.where(ok, z_new, z)
        r = jnp.where(ok, r_new, r)
        jx = jnp.where(ok, jx_new, jx)
        d = jnp.where(change, 1e-300, d)  # the re-centred transform scales z anew
        mu = jnp.where(first | change, mu, jnp.where(ok, mu * jnp.maximum(1 / 3, 1 - (2 * rho - 1) ** 3), mu * nu))
        nu = jnp.where(ok, 2.0, 2 * nu)
        return z, t_new, r, jx, changes + change, d, mu, nu, k + 1, done | (mu > MU_MAX)

    def cond(c):
        return (c[8] < max_steps + 1) & ~c[9]

    n = t0["x0"].size
    init = (jnp.zeros(n), t0, jnp.zeros(n_res), jnp.zeros((n_res, n)), 0, jnp.full(n, 1e-300), 1e-3, 2.0, 0, False)
    z, t, r, jx, _, _, mu, _, k, done = jax.lax.while_loop(cond, body, init)
    # ended by its tolerances, or because no step along any damping lowers the cost (a minimum to rounding)
    return to_x(z, t), k - 1, done & jnp.all(jnp.isfinite(r)), r, jx * (dx_dz(z, t) != 0)


@functools.lru_cache(maxsize=64)
def batch_solver(residual, max_steps: int = MAX_STEPS):
    """One compiled program for ``residual(x, args) -> (data residuals, constraint residuals)`` that solves a batch,
    one problem after the other (``lax.map``: the solver is traced once; under ``vmap`` its while loop was traced to
    a batching fixpoint and compiled with every carry batched, half again the compile time of a ring fit's first
    call, for no faster solve on a CPU).

    Data residuals are in units of their noise (they make χ²); constraint residuals (possibly empty) are
    regularising terms like the priors. Called as ``fn(transform, prior_mu, prior_inv_sigma, args)``, every
    leaf with a leading batch axis (``transform`` from ``Box.arrays``; ``prior_inv_sigma`` 0 where a parameter
    has no prior). Returns a dict of batched arrays: ``x`` (solution), ``data`` and ``prior`` (residuals; the
    prior block holds the priors then the constraints), ``jac_data`` and ``jac_prior`` (their Jacobians in
    x; a parameter held on a bound has a zero column), ``steps`` and ``ok`` (the solver converged within
    ``max_steps``).
    """
    def regular(x, mu, inv_sig, args):
        return jnp.concatenate([(x - mu) * inv_sig, residual(x, args)[1]])

    def full(x, mu, inv_sig, args):
        return jnp.concatenate([residual(x, args)[0], regular(x, mu, inv_sig, args)])

    def one(t, mu, inv_sig, args):
        x0 = to_x(jnp.zeros_like(t["x0"]), t)
        n = jax.eval_shape(lambda y: residual(y, args)[0], x0).shape[0]
        n_res = jax.eval_shape(full, x0, mu, inv_sig, args).shape[0]
        x, steps, ok, r, jx = levenberg_marquardt(lambda y: full(y, mu, inv_sig, args), t, n_res, max_steps)
        return {"x": x, "data": r[:n], "prior": r[n:], "jac_data": jx[:n], "jac_prior": jx[n:], "steps": steps,
                "ok": ok}

    return program_cache.reuse(lambda *batch: jax.lax.map(lambda a: one(*a), batch))


@dataclass(frozen=True)
class Solution:
    """One solved problem of ``solve`` (NumPy arrays): the parameters ``x``, the data and prior residuals (in
    units of their σ) with their Jacobians in x (held parameters' columns zero), the iterations taken, whether
    it converged, cost = ½Σr² (data and priors) and χ²_red (data residuals over n_data − n_free)."""

    x: np.ndarray
    data: np.ndarray
    prior: np.ndarray
    jac_data: np.ndarray
    jac_prior: np.ndarray
    steps: int
    ok: bool
    cost: float
    chi2_reduced: float

    @property
    def chi2_data(self) -> float:
        """Σr² of the data residuals."""
        return float(np.sum(self.data**2))


def solve(residual, boxes: list[Box], priors: list[tuple[np.ndarray, np.ndarray]], args: list[dict],
          max_steps: int = MAX_STEPS, pad: int = 1) -> list[Solution]:
    """Solve a batch of problems of one shape (one ``Box``, prior (μ, 1/σ) and ``args`` per problem).

    ``pad``: the batch is filled up to a multiple of it with copies of the last problem, so that batches of
    different sizes share one compiled program. Returns one ``Solution`` per problem (χ²_red over the data
    residuals' count minus the vector's length).
    """
    n_problems = len(boxes)
    extra = -n_problems % pad
    boxes, priors, args = boxes + boxes[-1:] * extra, priors + priors[-1:] * extra, args + args[-1:] * extra
    # every leaf a float64 NumPy array first: Python floats and NumPy scalars alike (no weak types), one program
    stack = functools.partial(jax.tree.map, lambda *a: jnp.asarray(np.stack([np.asarray(v, dtype=float) for v in a])))
    t = stack(*[b.arrays() for b in boxes])
    mu = jnp.asarray(np.stack([np.asarray(p[0], dtype=float) for p in priors]))
    inv = jnp.asarray(np.stack([np.asarray(p[1], dtype=float) for p in priors]))
    out = batch_solver(residual, max_steps)(t, mu, inv, stack(*args))
    out = jax.tree.map(np.asarray, out)
    results = []
    for i in range(n_problems):
        r = {k: v[i] for k, v in out.items()}
        n, k = r["data"].size, r["x"].size
        results.append(Solution(
            x=r["x"], data=r["data"], prior=r["prior"], jac_data=r["jac_data"], jac_prior=r["jac_prior"],
            steps=int(r["steps"]), ok=bool(r["ok"]),
            cost=0.5 * float(np.sum(r["data"] ** 2) + np.sum(r["prior"] ** 2)),
            chi2_reduced=float(np.sum(r["data"] ** 2)) / max(n - k, 1)))
    return results


def covariance(jac_data: np.ndarray, jac_prior: np.ndarray, chi2_reduced: float, floor: bool = True) -> np.ndarray:
    """Posterior covariance (J_dᵀJ_d/s² + J_pᵀJ_p)⁻¹, s² = max(χ²_red, 1) (pseudo-inverse, rcond 1e-13).

    ``floor`` False: s² = χ²_red, for residuals whose noise σ is not known beforehand (the residual's own
    scatter estimates it). Rows and columns of the parameters the fit held are zero."""
    s2 = max(float(chi2_reduced), 1.0) if floor else max(float(chi2_reduced), 1e-300)
    h = jac_data.T @ jac_data / s2 + jac_prior.T @ jac_prior
    # a parameter the fit held (a zero Jacobian column: held, or on a bound by the active set) has no variance;
    # left in, the equilibration below would divide the pseudo-inverse's rounding residue in its row by d² ≈ 0
    # and report it (and every spec that depends on it) with σ ≈ 1e137
    moved = np.diag(h) > 0
    cov = np.zeros_like(h)
    hm = h[np.ix_(moved, moved)]
    d = np.sqrt(np.diag(hm))  # equilibrate before inverting (columns differ by decades)
    cov[np.ix_(moved, moved)] = np.linalg.pinv(hm / np.outer(d, d), rcond=1e-13, hermitian=True) / np.outer(d, d)
    return cov


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


def residual_structure(r: np.ndarray) -> dict:
    """Whether normalised residuals look like white noise: lag-1 autocorrelation and the Wald–Wolfowitz runs test.

    ``runs_z`` is (runs − E)/σ of the sign runs (Wald & Wolfowitz, Ann. Math. Stat. 11, 147 (1940)); white noise
    gives |z| ≲ 3 and lag-1 ρ ≈ 0 ± 1/√n; a model that misses a feature gives long runs (z ≪ −3).
    """
    r = np.asarray(r, float)
    r = r[np.isfinite(r) & (r != 0)]
    n = r.size
    if n < 8:
        return {"lag1_autocorrelation": None, "runs_z": None, "n": int(n)}
    c = r - r.mean()
    rho = float(np.sum(c[1:] * c[:-1]) / max(np.sum(c * c), 1e-300))
    s = r > 0
    n1, n2 = int(s.sum()), int(n - s.sum())
    runs = 1 + int(np.sum(s[1:] != s[:-1]))
    mean = 1 + 2 * n1 * n2 / n
    var = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    z = (runs - mean) / math.sqrt(var) if var > 0 else 0.0
    return {"lag1_autocorrelation": rho, "runs_z": float(z), "n": int(n)}
