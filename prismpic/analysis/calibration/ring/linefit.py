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

SPLIT_GAIN = 25.0  # Δχ² a split resonance must gain to be kept (5σ for one parameter)


@dataclass(eq=False)
class SpectrumData:
    """A spectrum prepared for the fits (wavelengths in nm, true scale; data linear; weights 1/σ, 0 = masked)."""

    wl: np.ndarray
    ports: tuple[str, ...]
    data: np.ndarray
    sigma: np.ndarray  # noise σ per port and point (linear)
    w: np.ndarray
    lam_r: float
    fsr: float
    fwhm: float
    centers: tuple[float, ...]
    eta: float
    order: int
    flags: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    envelope_order: int = 0  # the baseline order the data chose in the resonance analysis (dB polynomial)
    split_seen: bool = False  # the resonance analysis fitted the reference resonance as a doublet

    @property
    def mid(self) -> float:
        return 0.5 * (self.wl[0] + self.wl[-1])

    @property
    def h(self) -> float:
        return 0.5 * (self.wl[-1] - self.wl[0])

    def args(self) -> dict:
        """The line-shape residual's args (``ring_lineshape.residual_fn``)."""
        return {"x": jnp.asarray((self.wl - self.lam_r) / self.h), "u": jnp.asarray((self.wl - self.mid) / self.h),
                "dl_nm": jnp.asarray(ripple_coordinate(self.wl, self.mid)), "h_nm": jnp.asarray(self.h),
                "eps": jnp.asarray(self.h / self.lam_r),
                "fsr_nm": jnp.asarray(self.fsr), "eta": jnp.asarray(self.eta), "data": jnp.asarray(self.data),
                "w": jnp.asarray(self.w)}


def _bounds_scales(sp: SpectrumData, names) -> tuple[list, list]:
    step = float(np.median(np.diff(sp.wl)))
    phase_fwhm = math.tau * sp.fwhm / sp.fsr
    lk_hi = math.log(0.999 * sp.eta**2)
    b = dict(LINE_BOUNDS, lk1=(LINE_BOUNDS["lk1"][0], lk_hi), lk2=(LINE_BOUNDS["lk2"][0], lk_hi),
             drop_offset_nm=(-0.25 * sp.fsr, 0.25 * sp.fsr), split_nm=(-0.25 * sp.fsr, 0.25 * sp.fsr),  # even in ±
             ripple_cos_db=(-3.0, 3.0), ripple_sin_db=(-3.0, 3.0), ripple_period_nm=(3 * step, 0.3 * sp.fsr))
    s = {"theta0": 0.1 * phase_fwhm, "theta1": 0.1 * phase_fwhm, "theta2": 0.1 * phase_fwhm, "lk1": 0.02,
         "lk1_s": 0.02, "lk2": 0.02, "lk2_s": 0.02, "la": 0.02, "la_s": 0.02, "drop_offset_nm": 0.1 * sp.fwhm,
         "split_nm": 0.1 * sp.fwhm, "ripple_cos_db": 0.01, "ripple_sin_db": 0.01, "ripple_period_nm": 1e-3 * sp.h}
    return ([b.get(n, (-math.inf, math.inf)) for n in names], [s.get(n, 0.01) for n in names])


HOLD = 1e-6  # a held parameter: a prior of this many typical steps at its start (one compiled program for all)


def solve_lines(setup: LineSetup, sp: SpectrumData, starts: list[dict], held: set[str]) -> list[dict]:
    """Line-shape fits from ``starts`` ({name: value}; missing names 0) with ``held`` names fixed: one batch.

    Every entry the setup can move is a variable of the compiled program; the held ones (and the baseline
    coefficients above ``sp.order``) carry a prior of ``HOLD`` typical steps at their start, so that every
    choice of instrument effects shares one compilation. Returns per start: v (the full vector), values
    ({name: value}), the ``fitting.solve`` dict under "fit", free (the indices the data move), the ``start``."""
    names = setup.names()
    structural = set() if setup.kind == "add_drop" and not setup.symmetric else {"lk2", "lk2_s"}
    if "drop" not in setup.ports or "through" not in setup.ports:
        structural.add("drop_offset_nm")
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
    idx = [names.index(n) for n in variables]
    free = [names.index(n) for n, f in zip(variables, fixed, strict=True) if not f]
    n_data = int(np.count_nonzero(np.asarray(sp.w)))
    out = []
    for st, a, f in zip(starts, args, fits, strict=True):
        f["chi2_reduced"] = float(np.sum(f["data"] ** 2)) / max(n_data - len(free), 1)
        v = np.asarray(a["full0"]).copy()
        v[idx] = f["x"]
        out.append({"v": v, "fit": f, "start": st, "free": free, "variables": idx, "setup": setup,
                    "values": dict(zip(names, (float(x) for x in v), strict=True))})
    return out


def best(sols: list[dict]) -> dict:
    return min(sols, key=lambda s: s["fit"]["cost"])


def _resid(sol: dict, sp: SpectrumData) -> np.ndarray:
    return np.asarray(sol["fit"]["data"]).reshape(len(sp.ports), -1)


def _restart(sols: list[dict], **values) -> list[dict]:
    return [dict(s["values"], **values) for s in sols]


def instrument_steps(setup: LineSetup, sp: SpectrumData, sols: list[dict], held: set[str], ripple: str,
                     split: str) -> tuple[list[dict], dict]:
    """Steps 2–4 of the module docstring on the first fits ``sols``; returns (fits, {"ripple", "split"} info)."""
    info = {"ripple": None, "split": None}
    held = set(held)
    b = best(sols)
    masks = windows(sp.wl, sp.centers, sp.fwhm)
    # ripple: the relative residual (data/model − 1 = r·σ/model) away from the resonances
    if ripple != "off":
        model = sp.data - _resid(b, sp) / np.where(sp.w > 0, sp.w, np.inf)
        keep = ~np.any(masks, axis=0) if masks else np.ones(sp.wl.size, bool)
        j = 0
        rel = (sp.data[j] - model[j]) / np.maximum(model[j], 1e-12)
        found = ripple_start(sp.wl, rel, keep & (sp.w[j] > 0), float(np.median(sp.sigma[j][keep] / model[j][keep])),
                             0.25 * sp.fsr)
        if found is not None or ripple == "fit":
            r0 = found or {"period_nm": sp.h / 2, "cos_db": 0.0, "sin_db": 0.0}
            held -= {"ripple_cos_db", "ripple_sin_db", "ripple_period_nm"}
            sols = solve_lines(setup, sp, _restart(sols, ripple_cos_db=r0["cos_db"], ripple_sin_db=r0["sin_db"],
                                                   ripple_period_nm=r0["period_nm"]), held)
            info["ripple"] = found
            b = best(sols)
    # resonances the model does not describe: the worst other one masked first (it distorts the whole fit), then
    # the one the fit is about tried with split resonances; ≥ 2 resonances stay unmasked (the FSR needs them)
    ref = int(np.argmin([abs(c - sp.lam_r) for c in sp.centers]))
    masked: list[int] = []
    w0, n_flags = sp.w.copy(), len(sp.flags)
    split_tried = split == "off"
    for _ in range(len(sp.centers) + 1):
        chi = window_chi2(_resid(b, sp), masks)
        mis = lines_misfit(_resid(b, sp), sp.sigma, sp.data, masks)
        bad = [i for i, c in enumerate(chi) if i not in masked and undescribed(c, mis[i])]
        if (split == "fit" or sp.split_seen) and not split_tried:
            bad = bad or [ref]
        if not bad:
            break
        worst = max(bad, key=lambda i: chi[i] if chi[i] is not None else 0.0)
        if worst != ref and len(sp.centers) - len(masked) > 2:
            masked.append(worst)
            sp.w[:, masks[worst]] = 0.0
            sp.flags.append(f"resonance at {sp.centers[worst]:.4f} nm masked: the model does not describe it "
                            f"(window χ²/point = {chi[worst]:.3g} > {WINDOW_CHI2:g}, misfit "
                            f"{100 * (mis[worst] or 0.0):.3g} % of the line > {100 * MISFIT_MAX:g} %)")
            sols = solve_lines(setup, sp, _restart(sols), held)
            b = best(sols)
            continue
        if split_tried or ref not in bad:
            break
        split_tried = True
        tried = [solve_lines(setup, sp, [dict(s, split_nm=f * sp.fwhm) for s in _restart(sols)], held - {"split_nm"})
                 for f in (0.25, 0.5, 1.0)]
        cand = [min((t[i] for t in tried), key=lambda s: s["fit"]["cost"]) for i in range(len(sols))]
        gain = 2 * (b["fit"]["cost"] - best(cand)["fit"]["cost"])
        info["split"] = {"gain_chi2": gain, "window_chi2_before": chi[ref]}
        if split == "fit" or gain > SPLIT_GAIN:
            held -= {"split_nm"}
            if masked:  # the split may describe the masked resonances too: look at them again
                sp.w[:] = w0
                del sp.flags[n_flags:]
                masked = []
                cand = solve_lines(setup, sp, _restart(cand), held)
            sols, b = cand, best(cand)
    chi = window_chi2(_resid(b, sp), masks)
    info["reference_window_chi2"] = chi[ref]
    info["reference_window_misfit"] = mis = window_misfit(_resid(b, sp), sp.sigma, sp.data, masks[ref])
    if undescribed(chi[ref], mis):
        sp.flags.append(f"resonance at {sp.centers[ref]:.4f} nm: the model does not describe its line shape "
                        f"(window χ²/point = {chi[ref]:.3g} > {WINDOW_CHI2:g}, misfit {100 * (mis or 0.0):.3g} % of "
                        f"the line > {100 * MISFIT_MAX:g} %; a split resonance, a second mode family or a nonlinear "
                        "sweep?)")
    info["held"] = held
    return sols, info


def line_covariance(sol: dict) -> np.ndarray:
    """Covariance of the full line-shape vector (held entries 0), scaled by max(χ²_red, 1)."""
    f = sol["fit"]
    var, free = sol["variables"], sol["free"]
    cov = np.zeros((sol["v"].size, sol["v"].size))
    cov[np.ix_(var, var)] = fitting.covariance(f["jac_data"], f["jac_prior"], f["chi2_reduced"])
    held = [i for i in var if i not in free]
    cov[held, :] = 0.0
    cov[:, held] = 0.0
    return cov
