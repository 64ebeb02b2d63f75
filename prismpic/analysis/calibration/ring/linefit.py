"""The line-shape stage of a spectrum fit, with the instrument effects found and fitted (or flagged).

Steps, each a batch of ``fitting.solve`` (the coupling regimes side by side):

1. the line shape from the closed-form start of every regime (``ring_lineshape.closed_form``);
2. ripple: if the residual away from the resonances holds a significant sinusoid (``ring_instrument``),
   refit with the ripple free (``ripple="auto"``; ``"fit"`` always, ``"off"`` never);
3. resonances the model does not describe (``instrument.undescribed``: window χ² > ``WINDOW_CHI2`` and a
   systematic misfit > ``MISFIT_MAX`` of the line): the worst of the others is masked
   (weight 0), flagged and the line shape refitted, while at least two resonances remain;
4. split resonance: when the resonance the fit is about is the one not described, refit with the splitting
   free from three starts (¼, ½, 1 FWHM), kept if it lowers χ² by more than 25 (``split="auto"``, also tried
   when the resonance analysis found that resonance split; ``"fit"`` always, ``"off"`` never); if it is still not described the fit fails (its specs would be a mis-fit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration import fitting
from prismpic.analysis.calibration.ring.instrument import (
    MISFIT_MAX,
    WINDOW_CHI2,
    lines_misfit,
    ripple_coordinate,
    ripple_start,
    undescribed,
    window_chi2,
    window_misfit,
    windows,
)
from prismpic.analysis.calibration.ring.lineshape import LINE_BOUNDS, MAX_ORDER, LineSetup, residual_fn
from prismpic.components.units import NM_PER_UM

SPLIT_GAIN = 25.0  # Δχ² a split resonance must gain to be kept (5σ for one parameter)


@dataclass(eq=False)
class SpectrumData:
    """A spectrum prepared for the fits: wavelengths in µm (true scale; converted once from the file's nm), data
    linear, weights 1/σ (0 = masked). ``flags``, ``notes`` and ``w`` grow as the instrument steps mask lines."""

    wl_um: np.ndarray
    ports: tuple[str, ...]
    data: np.ndarray
    sigma: np.ndarray  # noise σ per port and point (linear)
    w: np.ndarray
    lam_um: float  # the resonance the fit is about
    fsr_um: float
    fwhm_um: float
    centers_um: tuple[float, ...]  # the design family's resonances
    eta: float  # the coupler's excess-loss amplitude
    order: int  # the baseline's polynomial order
    flags: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    envelope_order: int = 0  # the baseline order the data chose in the resonance analysis (dB polynomial)
    split_seen: bool = False  # the resonance analysis fitted the reference resonance as a doublet

    @property
    def mid_um(self) -> float:
        return 0.5 * (self.wl_um[0] + self.wl_um[-1])

    @property
    def h_um(self) -> float:
        """The half span."""
        return 0.5 * (self.wl_um[-1] - self.wl_um[0])

    @property
    def x(self) -> np.ndarray:
        """The line shape's variable (λ − λ_r)/h."""
        return (self.wl_um - self.lam_um) / self.h_um

    @property
    def u(self) -> np.ndarray:
        """The baseline's variable (λ − mid)/h."""
        return (self.wl_um - self.mid_um) / self.h_um

    def args(self) -> dict:
        """The line-shape residual's args (``ring_lineshape.residual_fn``)."""
        return {"x": jnp.asarray(self.x), "u": jnp.asarray(self.u),
                "dl_um": jnp.asarray(ripple_coordinate(self.wl_um, self.mid_um)), "h_um": jnp.asarray(self.h_um),
                "eps": jnp.asarray(self.h_um / self.lam_um), "fsr_um": jnp.asarray(self.fsr_um),
                "eta": jnp.asarray(self.eta), "data": jnp.asarray(self.data), "w": jnp.asarray(self.w)}


@dataclass(frozen=True, eq=False)
class InstrumentFindings:
    """What the instrument steps found: the ripple (``ripple_start``'s finding, µm), the split resonance tried
    ({"gain_chi2", "window_chi2_before"}), the reference resonance's window χ²/point and misfit after them, and
    the names the line shape held in the end."""

    ripple: dict | None
    split: dict | None
    reference_window_chi2: float | None
    reference_window_misfit: float | None
    held: frozenset[str]


@dataclass(frozen=True, eq=False)
class LineFit:
    """A line-shape fit of one start: the full vector (``setup.names()``), the solver's ``fitting.Solution``
    (χ²_red over the weighted points less the free entries), the indices of the solver's variables and of those
    the data move (the others held); after the instrument steps, the coupling regime and their findings."""

    setup: LineSetup
    vector: np.ndarray
    solution: fitting.Solution
    variables: tuple[int, ...]
    free: tuple[int, ...]
    regime: str = ""
    instrument: InstrumentFindings | None = None

    @property
    def values(self) -> dict[str, float]:
        return dict(zip(self.setup.names(), (float(x) for x in self.vector), strict=True))

    @property
    def cost(self) -> float:
        return self.solution.cost

    def residual(self, n_ports: int) -> np.ndarray:
        """The weighted residual (model − data)/σ, ports × points."""
        return np.asarray(self.solution.data).reshape(n_ports, -1)

    def covariance(self) -> np.ndarray:
        """Covariance of the full vector (held entries 0), scaled by max(χ²_red, 1)."""
        f = self.solution
        var = list(self.variables)
        cov = np.zeros((self.vector.size, self.vector.size))
        cov[np.ix_(var, var)] = fitting.covariance(f.jac_data, f.jac_prior, f.chi2_reduced)
        held = [i for i in var if i not in self.free]
        cov[held, :] = 0.0
        cov[:, held] = 0.0
        return cov


def _bounds_scales(sp: SpectrumData, names) -> tuple[list, list]:
    step = float(np.median(np.diff(sp.wl_um)))
    phase_fwhm = math.tau * sp.fwhm_um / sp.fsr_um
    lk_hi = math.log(0.999 * sp.eta**2)
    quarter = (-0.25 * sp.fsr_um, 0.25 * sp.fsr_um)  # the split is even in ±
    b = dict(LINE_BOUNDS, lk1=(LINE_BOUNDS["lk1"][0], lk_hi), lk2=(LINE_BOUNDS["lk2"][0], lk_hi),
             drop_offset_um=quarter, split_um=quarter, ripple_cos_db=(-3.0, 3.0), ripple_sin_db=(-3.0, 3.0),
             ripple_period_um=(3 * step, 0.3 * sp.fsr_um))
    s = {"theta0": 0.1 * phase_fwhm, "theta1": 0.1 * phase_fwhm, "theta2": 0.1 * phase_fwhm, "lk1": 0.02,
         "lk1_s": 0.02, "lk2": 0.02, "lk2_s": 0.02, "la": 0.02, "la_s": 0.02, "drop_offset_um": 0.1 * sp.fwhm_um,
         "split_um": 0.1 * sp.fwhm_um, "ripple_cos_db": 0.01, "ripple_sin_db": 0.01,
         "ripple_period_um": 1e-3 * sp.h_um}
    return ([b.get(n, (-math.inf, math.inf)) for n in names], [s.get(n, 0.01) for n in names])


HOLD = 1e-6  # a held parameter: a prior of this many typical steps at its start (one compiled program for all)


def solve_lines(setup: LineSetup, sp: SpectrumData, starts: list[dict], held: set[str]) -> list[LineFit]:
    """Line-shape fits from ``starts`` ({name: value}; missing names 0) with ``held`` names fixed: one batch.

    Every entry the setup can move is a variable of the compiled program; the held ones (and the baseline
    coefficients above ``sp.order``) carry a prior of ``HOLD`` typical steps at their start, so that every
    choice of instrument effects shares one compilation."""
    names = setup.names()
    structural = set() if setup.kind == "add_drop" and not setup.symmetric else {"lk2", "lk2_s"}
    if "drop" not in setup.ports or "through" not in setup.ports:
        structural.add("drop_offset_um")
    variables = tuple(n for n in names if n not in structural)
    setup = replace(setup, free=variables)
    unused = {f"{s}u{i}" for s in ("", "through_", "drop_") for i in range(sp.order + 1, MAX_ORDER + 1)}
    fixed = [n in held or n in unused for n in variables]
    bnds, scales = _bounds_scales(sp, variables)
    inv = np.array([1.0 / (HOLD * sc) if f else 0.0 for f, sc in zip(fixed, scales, strict=True)])
    boxes, args, priors = [], [], []
    base = sp.args()
    for st in starts:
        full0 = np.array([float(st.get(n, 0.0)) for n in names])
        box = fitting.Box.of(bnds, scales, [full0[names.index(n)] for n in variables])
        boxes.append(box)
        priors.append((box.x0, inv))
        args.append(dict(base, full0=jnp.asarray(full0)))
    fits = fitting.solve(residual_fn(setup), boxes, priors, args, pad=2)  # 1 or 2 regimes: one program
    idx = tuple(names.index(n) for n in variables)
    free = tuple(names.index(n) for n, f in zip(variables, fixed, strict=True) if not f)
    n_data = int(np.count_nonzero(np.asarray(sp.w)))
    out = []
    for a, f in zip(args, fits, strict=True):
        v = np.asarray(a["full0"]).copy()
        v[list(idx)] = f.x
        chi2 = f.chi2_data / max(n_data - len(free), 1)
        out.append(LineFit(setup=setup, vector=v, solution=replace(f, chi2_reduced=chi2), variables=idx, free=free))
    return out


def best(sols: list[LineFit]) -> LineFit:
    return min(sols, key=lambda s: s.cost)


def _restart(sols: list[LineFit], **values) -> list[dict]:
    return [dict(s.values, **values) for s in sols]


def _fit_ripple(setup, sp: SpectrumData, sols: list[LineFit], held: set[str], ripple: str):
    """Step 2: (fits, the ripple found or None, held) — refitted with the ripple free when the residual away from
    the resonances holds one (or ``ripple == "fit"``)."""
    if ripple == "off":
        return sols, None, held
    b = best(sols)
    masks = windows(sp.wl_um, sp.centers_um, sp.fwhm_um)
    # the relative residual (data/model − 1 = r·σ/model) away from the resonances, through the first port
    model = sp.data - b.residual(len(sp.ports)) / np.where(sp.w > 0, sp.w, np.inf)
    keep = ~np.any(masks, axis=0) if masks else np.ones(sp.wl_um.size, bool)
    rel = (sp.data[0] - model[0]) / np.maximum(model[0], 1e-12)
    found = ripple_start(sp.wl_um, rel, keep & (sp.w[0] > 0), float(np.median(sp.sigma[0][keep] / model[0][keep])),
                         0.25 * sp.fsr_um)
    if found is None and ripple != "fit":
        return sols, None, held
    r0 = found or {"period": sp.h_um / 2, "cos_db": 0.0, "sin_db": 0.0}
    held = held - {"ripple_cos_db", "ripple_sin_db", "ripple_period_um"}
    sols = solve_lines(setup, sp, _restart(sols, ripple_cos_db=r0["cos_db"], ripple_sin_db=r0["sin_db"],
                                           ripple_period_um=r0["period"]), held)
    return sols, found, held


def _mask_note(sp: SpectrumData, i: int, chi: float, mis: float | None) -> str:
    return (f"resonance at {NM_PER_UM * sp.centers_um[i]:.4f} nm masked: the model does not describe it (window χ²/point "
            f"= {chi:.3g} > {WINDOW_CHI2:g}, misfit {100 * (mis or 0.0):.3g} % of the line > {100 * MISFIT_MAX:g} %)")


def instrument_steps(setup: LineSetup, sp: SpectrumData, sols: list[LineFit], held: set[str], ripple: str,
                     split: str) -> tuple[list[LineFit], InstrumentFindings]:
    """Steps 2–4 of the module docstring on the first fits ``sols``; returns (fits, what the steps found).

    Long because the masking and the split trial interleave: a split may describe the masked lines too."""
    sols, found, held = _fit_ripple(setup, sp, sols, set(held), ripple)
    b = best(sols)
    n_ports = len(sp.ports)
    masks = windows(sp.wl_um, sp.centers_um, sp.fwhm_um)
    split_info = None
    # resonances the model does not describe: the worst other one masked first (it distorts the whole fit), then
    # the one the fit is about tried with split resonances; ≥ 2 resonances stay unmasked (the FSR needs them)
    ref = int(np.argmin([abs(c - sp.lam_um) for c in sp.centers_um]))
    masked: list[int] = []
    w0, n_flags = sp.w.copy(), len(sp.flags)
    split_tried = split == "off"
    for _ in range(len(sp.centers_um) + 1):
        chi = window_chi2(b.residual(n_ports), masks)
        mis = lines_misfit(b.residual(n_ports), sp.sigma, sp.data, masks)
        bad = [i for i, c in enumerate(chi) if i not in masked and undescribed(c, mis[i])]
        if (split == "fit" or sp.split_seen) and not split_tried:
            bad = bad or [ref]
        if not bad:
            break
        worst = max(bad, key=lambda i: chi[i] if chi[i] is not None else 0.0)
        if worst != ref and len(sp.centers_um) - len(masked) > 2:
            masked.append(worst)
            sp.w[:, masks[worst]] = 0.0
            sp.flags.append(_mask_note(sp, worst, chi[worst], mis[worst]))
            sols = solve_lines(setup, sp, _restart(sols), held)
            b = best(sols)
            continue
        if split_tried or ref not in bad:
            break
        split_tried = True
        tried = [solve_lines(setup, sp, [dict(s, split_um=f * sp.fwhm_um) for s in _restart(sols)], held - {"split_um"})
                 for f in (0.25, 0.5, 1.0)]
        cand = [min((t[i] for t in tried), key=lambda s: s.cost) for i in range(len(sols))]
        gain = 2 * (b.cost - best(cand).cost)
        split_info = {"gain_chi2": gain, "window_chi2_before": chi[ref]}
        if split == "fit" or gain > SPLIT_GAIN:
            held -= {"split_um"}
            if masked:  # the split may describe the masked resonances too: look at them again
                sp.w[:] = w0
                del sp.flags[n_flags:]
                masked = []
                cand = solve_lines(setup, sp, _restart(cand), held)
            sols, b = cand, best(cand)
    chi_ref = window_chi2(b.residual(n_ports), masks)[ref]
    mis_ref = window_misfit(b.residual(n_ports), sp.sigma, sp.data, masks[ref])
    if undescribed(chi_ref, mis_ref):
        sp.flags.append(f"resonance at {NM_PER_UM * sp.centers_um[ref]:.4f} nm: the model does not describe its line shape "
                        f"(window χ²/point = {chi_ref:.3g} > {WINDOW_CHI2:g}, misfit {100 * (mis_ref or 0.0):.3g} % "
                        f"of the line > {100 * MISFIT_MAX:g} %; a split resonance, a second mode family or a nonlinear "
                        "sweep?)")
    return sols, InstrumentFindings(ripple=found, split=split_info, reference_window_chi2=chi_ref,
                                    reference_window_misfit=mis_ref, held=frozenset(held))
