"""The fitting core shared by the ring, MZM and PCM calibrations.

Fits run ``scipy.optimize.least_squares`` (trust-region reflective, bounds) in scaled coordinates
z = (x − origin)/scale, so that every parameter moves by O(1); the Jacobian comes from JAX.
Uncertainties are 1σ from cov = (JᵀJ)⁻¹·s² (s² the reduced χ², or 1 for residuals already in σ).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import least_squares


def least_squares_fit(fun, jac, x0, lb, ub, *, max_nfev: int = 200):
    """(``least_squares`` result, seconds) of a bounded fit in already scaled coordinates.

    ``x0`` is pulled 1e-12 inside the bounds; tolerances are 1e-12 (the models are smooth and cheap).
    """
    t0 = time.perf_counter()
    x0 = np.clip(np.asarray(x0, float), np.asarray(lb) + 1e-12, np.asarray(ub) - 1e-12)
    res = least_squares(fun, x0, jac=jac, bounds=(lb, ub), method="trf", x_scale="jac", xtol=1e-12, ftol=1e-12,
                        gtol=1e-12, max_nfev=max_nfev)
    return res, time.perf_counter() - t0


def scaled_bounds(bounds, origin, scales) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) bounds in the scaled coordinates z = (x − origin)/scales; ``bounds`` is [(lo, hi), ...]."""
    lo = np.array([b[0] for b in bounds], float)
    hi = np.array([b[1] for b in bounds], float)
    return (lo - origin) / scales, (hi - origin) / scales


def covariance(jac: np.ndarray, scale2: float) -> np.ndarray:
    """Parameter covariance (JᵀJ)⁻¹·``scale2`` from the residuals' Jacobian (pseudo-inverse, rcond 1e-12)."""
    jtj = jac.T @ jac
    return np.linalg.pinv(jtj, rcond=1e-12) * scale2


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


class ValueAndJacobian:
    """Evaluate ``fn(x) -> (value, jac)`` once per x for least_squares' separate ``fun`` and ``jac`` calls."""

    def __init__(self, fn):
        self.fn, self.x, self.out = fn, None, None

    def __call__(self, x):
        if self.x is None or not np.array_equal(x, self.x):
            self.x, self.out = np.array(x, copy=True), self.fn(x)
        return self.out

    def fun(self, x):
        """The residual vector at ``x``."""
        return self(x)[0]

    def jac(self, x):
        """The residuals' Jacobian at ``x``."""
        return self(x)[1]
