"""A closed-form ring fit of a spectrum file, milliseconds per spectrum: a batch's quick look and test fit.

``closed_form_ring_csv(path, *, radius, ...)`` has the form of ``calibrate_ring_csv`` (so ``batch.run_batch``
takes either) and returns a ``ClosedFormRing`` with ``fitted`` (``Estimate`` value and σ), ``specs``,
``errors``, ``notes`` and ``failed``/``failure_reason``. It is the closed-form spectrum analysis
(``analysis.spectra.analyze_spectrum``): FSR → n_g = λ²/(FSR·2πR), FWHM → Q_L, and the exact Airy inversion of
each resonance (x, T0 and the drop peak D0 → r1, r2, a; McKinnon et al., Opt. Express 17, 18971 (2009)) →
κ² = 1 − r², loss = −20·log10(a)/L. No geometry is fitted: the physical parameters are those of the Airy
model, not the process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from prismpic.analysis.measurements import read_spectrum_csv
from prismpic.analysis.spectra import analyze_spectrum
from prismpic.analysis.spectra.intrinsic_q import coupling_solutions
from prismpic.fileio import jsonable


@dataclass(frozen=True)
class Estimate:
    """A value and its 1σ (None when not known), in the unit its name says."""

    value: float
    sigma: float | None

    def to_dict(self) -> dict:
        """{"value", "sigma"}."""
        return {"value": self.value, "sigma": self.sigma}


@dataclass(frozen=True, eq=False)
class ClosedFormRing:
    """``closed_form_ring_csv``'s result: physical parameters, specs with 1σ, notes, failure flag."""

    kind: str
    fitted: dict
    specs: dict
    errors: dict
    notes: tuple[str, ...]
    source: dict
    failed: bool = False
    failure_reason: str = ""

    def to_dict(self) -> dict:
        """JSON-ready summary."""
        return jsonable({"kind": self.kind, "fitted": {k: v.to_dict() for k, v in self.fitted.items()},
                         "specs": self.specs, "errors": self.errors, "notes": list(self.notes),
                         "source": self.source, "failed": self.failed, "failure_reason": self.failure_reason})


def _solution(res, length_um: float):
    """The chosen Airy solution (r1, r2, a) of a resonance, or None (ambiguous, no FSR, no through port)."""
    iq = res.intrinsic
    if iq is None or iq.ambiguous or res.fsr_local_nm is None:
        return None
    if iq.regime == "critical":
        return coupling_solutions(res.q_loaded, 0.0, res.drop_peak, res.center_nm, res.fwhm_nm, res.fsr_local_nm,
                                  length_um)[0]
    return next(s for s in iq.solutions if s.regime == iq.regime)


def _mean_sem(values: list[float]) -> Estimate:
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(mean, None)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return Estimate(mean, math.sqrt(var / n))


def closed_form_ring_csv(path, *, radius: float, coupling: str | None = None,
                         reference_nm: float = 1550.0) -> ClosedFormRing:
    """Ring parameters of a spectrum CSV in closed form (``analyze_spectrum``), milliseconds per file.

    n_g = λ²/(FSR·2πR) at ``reference_nm``; the specs (Q_L, extinction, resonance, FWHM, Q_i) are those of the
    resonance nearest it; κ² = 1 − r1² (and κ²_drop = 1 − r2²) and the loss −20·log10(a)/L come from the exact
    Airy inversion of every resonance of the main family (mean ± standard error over them). ``coupling``
    (None, "under", "over", "symmetric") resolves under/over coupling as in ``analyze_spectrum``; without it
    κ² and loss are left out when ambiguous. The result is ``failed`` when the resonance nearest
    ``reference_nm`` has no physical inversion (a > 1 or r > 1: e.g. a drop port normalised to another power).

    Args:
        path: spectrum CSV (``measurements.read_spectrum_csv``).
        radius: ring radius (µm).
        coupling: see above.
        reference_nm: wavelength (nm) the specs refer to.
    """
    sp = read_spectrum_csv(path)
    name = Path(path).name
    an = analyze_spectrum(sp.wl_nm, sp.through, sp.drop, radius_um=radius, coupling=coupling,
                          reference_nm=reference_nm)
    if an.fsr_nm is None:
        raise ValueError(f"{name}: one resonance only in {sp.wl_nm[0]:.6g}..{sp.wl_nm[-1]:.6g} nm: the FSR (hence "
                         "n_g) needs at least two; widen the span")
    length = 2 * math.pi * float(radius)
    rn = an.resonances[an.nearest]
    ng = float(an.n_group)
    specs = {"fsr_nm": an.fsr_nm, "fwhm_nm": rn.fwhm_nm, "q_loaded": rn.q_loaded, "q_intrinsic": an.q_intrinsic,
             "extinction_db": rn.extinction_db, "resonance_nm": rn.center_nm, "ng": ng}
    errors = {"fsr_nm": an.fsr_err_nm, "fwhm_nm": rn.fwhm_err_nm, "q_loaded": rn.q_loaded_err,
              "extinction_db": rn.extinction_err_db, "resonance_nm": rn.center_err_nm,
              "ng": ng * an.fsr_err_nm / an.fsr_nm}
    notes = list(an.notes)
    source = {"from": "closed-form spectrum analysis", "spectrum": name, "radius": radius, "coupling": coupling}
    kind = "add_drop" if sp.drop is not None else "all_pass"
    chosen = _solution(rn, length)
    if chosen is not None and not chosen.physical:
        reason = (f"{name}: the Airy inversion of the resonance at {rn.center_nm:.4f} nm has no physical solution "
                  f"(a = {chosen.a:.4g}, r1 = {chosen.r1:.4g}, r2 = {chosen.r2:.4g}); are the ports normalised to "
                  "the same input power?")
        return ClosedFormRing(kind, {}, specs, errors, tuple(notes), source, True, reason)
    sols = [s for s in (_solution(r, length) for r in an.resonances if r.family == 0) if s is not None and s.physical]
    fitted = {}
    if chosen is None or not sols:
        notes.append("under/over coupling not separable (or through port missing): κ² and loss not reported; "
                     "give coupling='under'|'over'|'symmetric'")
    else:
        fitted["loss_db_per_cm"] = _mean_sem([s.loss_db_per_cm for s in sols])
        fitted["kappa2"] = _mean_sem([1 - s.r1**2 for s in sols])
        if sp.drop is not None and sp.through is not None:
            fitted["kappa2_drop"] = _mean_sem([1 - s.r2**2 for s in sols])
    return ClosedFormRing(kind, fitted, jsonable(specs), jsonable(errors), tuple(notes), source)
