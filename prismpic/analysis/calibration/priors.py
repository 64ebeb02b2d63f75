"""What a ring fit knows before the data: the process spreads as Gaussian priors, and every fitted parameter's bounds.

Priors (``ring_priors``) come from the process description (``prismpic.pdk.process.DEFAULT_PROCESS`` unless
another is given, e.g. the spreads measured on a wafer): the film thickness, etch depth and sidewall angle are
N(design, process σ); the width is N(drawn + width_bias nominal, width_bias σ) (the fitted width is the etched
top width; ``width - drawn`` is the width bias); the radius is N(drawn, ``RADIUS_SIGMA_UM``). Gaps, loss, the
effective-index correction and the instrument's parameters have no prior: the data fix them.

Bounds: the process table range of each parameter intersected with the dispersion model's domain
(``dispersion.domain()``: the TE, bend and coupler tables; the etch depth through the etched fraction of the
film), so that a fit never leaves the tables; gaps within the design rules and ``ring_physics.MAX_GAP``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from prismpic.components import ring_physics
from prismpic.pdk import dispersion
from prismpic.pdk.process import DEFAULT_PROCESS, Process
from prismpic.pdk.rules import RULES

# The mask radius: drawn to the writer's grid; the etch moves both ridge edges, not the centre line.
RADIUS_SIGMA_UM = 0.01  # assumption: 10 nm (1σ) between the drawn and the fabricated ring centre line
RADIUS_SPAN = 0.005  # bounds: ±0.5 % of the drawn radius
LOSS_MAX = 100.0  # dB/cm: the ring models' own range (check_ring_physics)
# Effective-index correction (added only when the geometry within its priors cannot reproduce the data):
# Δn_eff and Δn_g at REFERENCE_UM, bounded to ±DN_MAX (about ±5 % of the ridge's n_g).
DN_MAX = ring_physics.INDEX_CORRECTION_MAX
PRIOR_PARAMS = ("film_thickness", "etch_depth", "sidewall_angle_deg", "width", "radius")
GEOMETRY = ("film_thickness", "etch_depth", "sidewall_angle_deg", "width")


@dataclass(frozen=True)
class Prior:
    """A Gaussian prior N(mean, sigma) on a fitted parameter, its bounds and where the numbers come from."""

    mean: float
    sigma: float
    lo: float
    hi: float
    source: str

    def to_dict(self) -> dict:
        return {"mean": self.mean, "sigma": self.sigma, "bounds": [self.lo, self.hi], "source": self.source}


def _te_domain(key: str) -> tuple[float, float]:
    """The range of ``key`` common to the TE, bend and coupler tables (the ring uses TE modes only)."""
    lo, hi = -math.inf, math.inf
    for table, grid in dispersion.domain().items():
        if table != "tm" and isinstance(grid, dict) and key in grid:
            lo, hi = max(lo, float(grid[key][0])), min(hi, float(grid[key][1]))
    return lo, hi


def ring_priors(design: dict, process: Process | None = None) -> dict[str, Prior]:
    """Priors and bounds of the process-dependent ring parameters (``PRIOR_PARAMS``) around ``design``.

    ``design`` holds the drawn ring (``design_params``); ``process`` the spreads (default ``DEFAULT_PROCESS``).
    """
    proc = process or DEFAULT_PROCESS
    film, etch = float(design["film_thickness"]), float(design["etch_depth"])
    f_lo, f_hi = _te_domain("film")
    e_lo, e_hi = _te_domain("etch_fraction")
    a_lo, a_hi = _te_domain("angle")
    w_lo, w_hi = _te_domain("width")
    pf, pe, pa, pw = proc.film_thickness, proc.etch_depth, proc.sidewall_angle_deg, proc.width_bias
    src = "process description: " + ("DEFAULT_PROCESS" if process is None else "given")
    out = {
        "film_thickness": Prior(film, pf.sigma, max(pf.lo, f_lo, etch / e_hi), min(pf.hi, f_hi, etch / e_lo),
                                f"{src} ({pf.source})"),
        "etch_depth": Prior(etch, pe.sigma, max(pe.lo, e_lo * film), min(pe.hi, e_hi * film, film - 0.05),
                            f"{src} ({pe.source})"),
        "sidewall_angle_deg": Prior(float(design["sidewall_angle_deg"]), pa.sigma, max(pa.lo, a_lo),
                                    min(pa.hi, a_hi), f"{src} ({pa.source})"),
    }
    w = float(design["width"])
    out["width"] = Prior(w + pw.nominal, pw.sigma, max(w + pw.lo, w_lo, RULES.min_ridge_width), min(w + pw.hi, w_hi),
                         f"{src}: drawn width + width_bias ({pw.source})")
    r = float(design["radius"])
    out["radius"] = Prior(r, RADIUS_SIGMA_UM, r * (1 - RADIUS_SPAN), r * (1 + RADIUS_SPAN),
                          f"assumption: the drawn radius to {RADIUS_SIGMA_UM * 1e3:g} nm (1σ)")
    for name, p in out.items():
        if not p.lo < p.hi:  # e.g. a 400 nm film etched 200 nm: etch/film sits on the tables' 0.5 edge
            raise ValueError(f"design {name} = {p.mean:.6g}: the process and the dispersion tables leave it no room "
                             f"to fit, [{p.lo:.6g}, {p.hi:.6g}] (film {film:g} µm, etch {etch:g} µm: etch/film "
                             f"{etch / film:.3g} must stay within the tables' {e_lo:g}–{e_hi:g} as film and etch "
                             "move)")
        if not p.lo <= p.mean <= p.hi:
            raise ValueError(f"design {name} = {p.mean:.6g} lies outside the range the process and the dispersion "
                             f"tables allow a fit, [{p.lo:.6g}, {p.hi:.6g}]")
    return out


def bounds(name: str, priors: dict[str, Prior]) -> tuple[float, float]:
    """(lo, hi) of fitted parameter ``name`` (µm, dB/cm, degrees; Δn dimensionless)."""
    if name in priors:
        return priors[name].lo, priors[name].hi
    if name in ("gap", "gap_drop"):
        return RULES.min_ridge_gap, ring_physics.MAX_GAP
    if name == "loss_db_per_cm":
        return 0.0, LOSS_MAX
    if name in ("dneff", "dng"):
        return -DN_MAX, DN_MAX
    raise ValueError(name)


def typical_step(name: str) -> float:
    """A typical change of fitted parameter ``name`` (its unit): the solver's scaling."""
    return {"gap": 0.01, "gap_drop": 0.01, "loss_db_per_cm": 0.3, "film_thickness": 0.01, "etch_depth": 0.01,
            "sidewall_angle_deg": 3.0, "width": 0.02, "radius": 0.01, "dneff": 1e-3, "dng": 1e-3}[name]
