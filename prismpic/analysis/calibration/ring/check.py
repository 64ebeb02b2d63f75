"""The last stage of a spectrum calibration: the physical ring of a solution, through its fitted instrument, against
every point; and the same with the line shape's own κ, loss and n_g slopes across the span, kept when the data
ask for it. Wavelengths in µm; the dispersion figures per nm in the result (as the parameter file writes them)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.analysis.calibration import fitting
from prismpic.analysis.calibration.ring.instrument import lines_misfit, windows
from prismpic.analysis.calibration.ring.linefit import LineFit, SpectrumData
from prismpic.analysis.calibration.ring.lineshape import LINE, MAX_ORDER
from prismpic.analysis.calibration.ring.model import (
    FIT_PARAMS,
    VARIABLES,
    chebyshev_nodes,
    held_params,
    is_tuned,
    ring_fields,
)
from prismpic.analysis.calibration.ring.physfit import PhysicalSolution
from prismpic.analysis.calibration.ring.spectrum_model import DISPERSION, INSTRUMENT, physical_fn
from prismpic.analysis.calibration.ring.start import PULL_MAX

PER_NM = np.array([1e-3, 1e-3, 1e-3, 1e-6])  # DISPERSION per µm (θ'' per µm²) → per nm (per nm²)


@dataclass(frozen=True, eq=False)
class PhysicalCheck:
    """The physical model of one solution at every point: the model (ports × points), the weighted residual,
    χ²_red with and without the dispersion correction (``chi2_reduced`` is the one kept), each line's systematic
    misfit as (center µm, fraction of the line), the worst, the residual's structure (runs test, lag-1 ρ), the
    points and parameters counted, and the dispersion block (applied, Δχ², slopes per nm, dn_g/dλ per µm)."""

    model: np.ndarray
    resid: np.ndarray
    chi2_reduced: float
    chi2_reduced_physical: float
    misfit_by_line: tuple[tuple[float, float], ...]
    lines_misfit: float | None
    structure: dict
    n_points: int
    n_params: int
    dispersion: dict


@functools.cache
def _fields_fn(kind: str, cladding: str, tuned: bool):
    """jit(``(wl, vec, held) -> ring_fields``) without the bus: one compiled program, not an eager evaluation."""
    def fields(wl, vec, held):
        p = dict(held)
        p.update({n: vec[i] for i, n in enumerate(FIT_PARAMS)})
        return jnp.stack(ring_fields(wl, p, kind, cladding, tuned, bus=False))

    return program_cache.reuse(fields)


def _model_slopes(kind: str, cladding: str, s: PhysicalSolution, sp: SpectrumData) -> np.ndarray:
    """The physical ring's d ln κ1²/dx, d ln κ2²/dx, d ln(−ln a)/dx and θ2 = ½h²·d²θ/dλ² at λ_r
    (x = (λ − λ_r)/h), central differences over ±0.5 nm."""
    d = 0.5e-3
    wl = jnp.asarray([sp.lam_um - d, sp.lam_um + d, sp.lam_um])
    fields = _fields_fn(kind, cladding, is_tuned(s.p))(wl, jnp.asarray(np.asarray(s.vec, float)), held_params(s.p))
    _, k1, _, k2, a, th, _ = np.asarray(fields)
    with np.errstate(divide="ignore"):
        logs = [np.log(k1**2), np.log(k2**2) if kind == "add_drop" else np.zeros(3), np.log(-np.log(a))]
    theta2 = 0.5 * sp.h_um**2 * (th[0] - 2 * th[2] + th[1]) / d**2
    return np.array([(v[1] - v[0]) / (2 * d) * sp.h_um for v in logs] + [theta2])


def _line_slopes(line: LineFit, kind: str) -> np.ndarray:
    """The line shape's fitted slopes of ln κ1², ln κ2², ln(−ln a) per x and its θ2, NaN where the line-shape
    fit held them."""
    names, setup = line.setup.names(), line.setup
    free = {names[i] for i in line.free}
    v = line.values
    k2 = "lk1_s" if setup.symmetric else "lk2_s"
    return np.array([v[n] if n in free and not (n == k2 and kind == "all_pass") else math.nan
                     for n in ("lk1_s", k2, "la_s", "theta2")])


def _dispersion_block(s: PhysicalSolution, sp: SpectrumData, model_s, disp, applied: bool, delta_chi2: float) -> dict:
    """The ``dispersion_correction`` block: the model's slopes and what the data add, per nm; dn_g/dλ (1/µm) of
    the model and of the data, dn_g/dλ = 2n_g/λ − θ''·λ²/(2πL) (θ = 2πL·n_eff/λ)."""
    scale = np.array([sp.h_um, sp.h_um, sp.h_um, 0.5 * sp.h_um**2])  # per x → per µm (θ2 → θ'' in rad/µm²)
    model_um, added_um = model_s / scale, (disp if applied else np.zeros_like(disp)) / scale
    lam, length, ng = sp.lam_um, math.tau * float(s.p["radius"]), float(s.q["ng"])
    dng = [2 * ng / lam - t2 * lam**2 / (math.tau * length) for t2 in (model_um[3], model_um[3] + added_um[3])]
    return {"applied": bool(applied), "delta_chi2": float(delta_chi2),
            "model_per_nm": dict(zip(DISPERSION, (model_um * PER_NM).tolist(), strict=True)),
            "added_per_nm": dict(zip(DISPERSION, (added_um * PER_NM).tolist(), strict=True)),
            "dng_dlambda_per_um": {"model": dng[0], "data": dng[1]}}


def check_physics(kind: str, cladding: str, s: PhysicalSolution, sp: SpectrumData) -> PhysicalCheck:
    """The physical model of solution ``s`` through the fitted instrument at every point; and the same with the
    line shape's κ and loss slopes across the span (``spectrum_model.dispersion_corrected``), kept when it lowers
    χ² by more than ``PULL_MAX``²."""
    line = s.start.line
    v = line.values
    instr = np.array([v[n] for n in INSTRUMENT])
    coef = np.asarray(line.vector)[len(LINE) + len(INSTRUMENT):]
    nodes, weights = chebyshev_nodes(sp.wl_um[0], sp.wl_um[-1])
    args = {"nodes": jnp.asarray(nodes), "weights": jnp.asarray(weights), "wl_um": jnp.asarray(sp.wl_um),
            "u": jnp.asarray(sp.u), "dl_um": sp.args()["dl_um"], "fsr_um": jnp.asarray(sp.fsr_um),
            "x": jnp.asarray(sp.x), "h_um": jnp.asarray(sp.h_um)}
    fn = physical_fn(kind, cladding, sp.ports, line.setup.shared, MAX_ORDER, is_tuned(s.p))
    n = int(np.count_nonzero(sp.w))
    k = len(VARIABLES) + len(line.free)
    model_s = _model_slopes(kind, cladding, s, sp)
    disp = np.nan_to_num(_line_slopes(line, kind) - model_s)  # a slope the line shape held stays the model's
    out = {}
    for tag, d in (("pure", np.zeros(len(DISPERSION))), ("corrected", disp)):
        model = np.asarray(fn(jnp.asarray(s.vec), held_params(s.p), jnp.asarray(instr), jnp.asarray(coef),
                              dict(args, disp=jnp.asarray(d))))
        r = (model - sp.data) * sp.w
        out[tag] = (model, r, float(np.sum(r**2)))
    pure, corr = out["pure"], out["corrected"]
    n_disp = int(np.count_nonzero(disp))
    applied = n_disp > 0 and np.isfinite(corr[2]) and pure[2] - corr[2] > PULL_MAX**2
    model, r, chi2 = corr if applied else pure
    k += n_disp if applied else 0
    by_line = tuple((c, m) for c, m in zip(sp.centers_um, lines_misfit(r, sp.sigma, sp.data,
                                                                       windows(sp.wl_um, sp.centers_um, sp.fwhm_um)),
                                           strict=True) if m is not None)
    return PhysicalCheck(
        model=model, resid=r, chi2_reduced=chi2 / max(n - k, 1), chi2_reduced_physical=pure[2] / max(n - k, 1),
        misfit_by_line=by_line, lines_misfit=max((m for _, m in by_line), default=None),
        structure=fitting.residual_structure(r[r != 0]), n_points=n, n_params=k,
        dispersion=_dispersion_block(s, sp, model_s, disp, applied, pure[2] - corr[2]))
