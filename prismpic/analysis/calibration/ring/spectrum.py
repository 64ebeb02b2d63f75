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

The stages pass typed results (``linefit.LineFit``, ``physfit.PhysicsStart`` and ``PhysicalSolution``,
``check.PhysicalCheck``); every wavelength is in µm from ``prepare.prepared_spectrum`` on (nm only in the
file, the parameter file and the messages).

Uncertainties: posterior 1σ from the physics stage's Jacobian (data whitened, priors), specs J·C·Jᵀ.
``wavelength_offset_nm`` (a laser sweep's offset, from a wavelength reference) is added to the wavelengths:
the spectrum alone cannot tell it from n_eff.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from prismpic.analysis.calibration.ring.check import check_physics
from prismpic.analysis.calibration.ring.lineshape import MAX_ORDER
from prismpic.analysis.calibration.ring.model import REFERENCE_UM
from prismpic.analysis.calibration.ring.prepare import prepared_spectrum, spectrum_analysis
from prismpic.analysis.calibration.ring.result import ring_result
from prismpic.analysis.calibration.ring.stages import SpectrumPlan, fit_line_shapes, fit_physics
from prismpic.analysis.calibration.ring.start import REFERENCE_NM, design_params
from prismpic.analysis.measurements import read_spectrum_csv
from prismpic.checks import check_choice, check_range
from prismpic.components import ring_physics
from prismpic.pdk.rules import RULES

CHI2_MAX = 5.0  # a physical model whose χ²_red exceeds this does not describe the data: the fit fails
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
    an = spectrum_analysis(np.asarray(wl_nm, float) + float(wavelength_offset_nm), through, drop, design_p,
                           reference_nm, coupling, family)
    ports = tuple(p for p, y in (("through", through), ("drop", drop)) if y is not None)
    plan = SpectrumPlan.of(kind, design_p, process, an, ports, coupling, baseline, ripple, split)
    order = int(an.baseline_order) if baseline_order == "auto" else int(baseline_order)
    sp = prepared_spectrum(an, ports, min(order, MAX_ORDER),
                           float(ring_physics.db_to_amplitude(float(design_p["coupler_loss_db"]))))
    t_line = time.perf_counter()
    lines = fit_line_shapes(plan, an, sp)
    t_phys = time.perf_counter()
    sols = fit_physics(plan, lines, sp)
    physics_s = time.perf_counter() - t_phys
    checks = {s: check_physics(kind, design_p["cladding"], s, sp) for s in sols}
    timing = {"line_shape_s": t_phys - t_line, "physics_s": physics_s, "time_s": time.perf_counter() - t_start}
    return ring_result(
        plan=plan, sols=sols, checks=checks, sp=sp, an=an, chi2_max=chi2_max, timing=timing,
        source={"from": "spectrum", "radius": float(design_p["radius"]), "coupling": coupling, "baseline": baseline,
                "baseline_order": sp.order, "ripple": ripple, "split": split,
                "wavelength_offset_nm": float(wavelength_offset_nm), **(source or {})})


def calibrate_ring_csv(path, **kwargs):
    """``measurements.read_spectrum_csv`` then ``calibrate_ring_spectrum`` (``radius`` in µm, optional)."""
    sp = read_spectrum_csv(path)
    src = dict(kwargs.pop("source", None) or {}, spectrum=Path(path).name)
    return calibrate_ring_spectrum(sp.wl_nm, sp.through, sp.drop, source=src, **kwargs)


__all__ = ["CHI2_MAX", "REFERENCE_UM", "calibrate_ring_csv", "calibrate_ring_spectrum"]
