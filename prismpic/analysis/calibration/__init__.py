"""Calibration: the device models' physical parameters that reproduce measured specs and spectra.

Calibration never swaps the physics for a curve: it searches the *physical* parameters of
the same models the circuits use (``rings.ring_add_drop_model`` / ``ring_all_pass_model``,
``modulators.mzm_model``, ``pcm.pcm_transmission``) so that their outputs match the
measurement. Specs (FSR, Q, extinction) are outputs of the fitted model, never inputs.

Where things are:

- ``results``: result classes (``RingCalibration``, ``FitParam``), the parameter-file schema
  (``SCHEMA``) and ``load_params``;
- ``fitting``: the least-squares core shared by every fit (bounds, scaling, covariance);
- ``ring_model``: the jitted ring physics of the fits (``ring_quantities``, spectrum model);
- ``ring_start``: design, bounds and the closed-form starting point of a ring fit;
- ``ring_solutions``: coupling regimes, choice among solutions and their report;
- ``ring_specs``: ``calibrate_ring_specs``; ``ring_spectrum``: ``calibrate_ring_spectrum``,
  ``calibrate_ring_csv``; ``ring_figure``: ``plot_ring_calibration``;
- ``mzm``: ``calibrate_mzm``, ``calibrate_mzm_csv``; ``pcm``: ``calibrate_pcm``, ``calibrate_pcm_csv``.

Measurement files are read by ``prismpic.analysis.measurements``.

Ring: fitted parameters and what fixes each
--------------------------------------------
- ``gap`` (and ``gap_drop`` when the drop port or the drop loss is given): the coupling,
  through κ = sin Φ(gap) of ``ring_physics.coupling_angle``;
- ``loss_db_per_cm``: the round-trip loss (bend loss comes from the dispersion model);
- ``width`` (default) or ``film_thickness`` (``ng_param``): sets n_g, hence the FSR = λ²/(n_g 2πR)
  (within the dispersion model's domain: ±0.5 µm width, ±0.1 µm film; n_g moves little with
  either, so the measured FSR must lie within about ±1 % of the model's at the given radius);
- ``radius``: fine-tunes the resonance (a shift of up to ±FSR/2 needs |ΔR|/R ≤ FSR/2λ,
  0.3 % at 20 µm); only when a resonance wavelength is known (or no radius is given).

What specs cannot separate (reported under ``ambiguities``):

- under- versus over-coupling: |t − a e^{iθ}|²/|1 − t a e^{iθ}|² is symmetric in t ↔ a,
  so an all-pass through port (and, in coupled-mode terms γ1 ↔ γi + γ2, an add-drop ring
  even with both ports) fits both solutions equally (McKinnon et al., Opt. Express 17,
  18971 (2009)); both are fitted and reported, the one nearest the design gap is kept
  unless ``coupling`` says which holds. An add-drop ring with equal gaps
  (``coupling="symmetric"``, gap_drop = gap as the cell's default) is unique;
- the through port alone cannot tell drop coupling from loss: gap_drop is tied to gap;
- film thickness versus width (both move n_eff and n_g): one is fitted, the other held;
- the mode order m: the neighbouring orders fit with ΔR ≈ λ/(2π n_eff) (≈ 0.6 % of R)
  and a compensating n_g; the solution nearest the given (or design) radius is kept;
- coupler excess loss versus propagation loss: ``coupler_loss_db`` is held at its design
  value and all loss goes into ``loss_db_per_cm``.

Spectrum fits add baseline nuisance parameters (see ``ring_spectrum``). Every fit is
``scipy.optimize.least_squares`` (trust-region reflective, bounds) with the Jacobian from
``jax.jacfwd`` of the jitted physical model. Uncertainties: 1σ from cov = (JᵀJ)⁻¹·χ²_red
(specs: from the assumed spec uncertainties ``SPEC_SIGMA``), and derived specs carry
J_spec·cov·J_specᵀ.
"""

from prismpic.analysis.calibration.mzm import MzmCalibration, calibrate_mzm, calibrate_mzm_csv
from prismpic.analysis.calibration.pcm import PcmCalibration, calibrate_pcm, calibrate_pcm_csv
from prismpic.analysis.calibration.priors import PRIOR_PARAMS, RADIUS_SIGMA_UM, Prior, ring_priors
from prismpic.analysis.calibration.results import SCHEMA, FitParam, RingCalibration, load_params
from prismpic.analysis.calibration.ring_figure import plot_ring_calibration
from prismpic.analysis.calibration.ring_model import FIT_PARAMS, N_NODES, RING_ARGS, RING_BLOCK
from prismpic.analysis.calibration.ring_physfit import ring_quantities
from prismpic.analysis.calibration.ring_specs import SPEC_SIGMA, calibrate_ring_specs
from prismpic.analysis.calibration.ring_spectrum import (
    CHI2_MAX,
    calibrate_ring_csv,
    calibrate_ring_record,
    calibrate_ring_spectrum,
)
from prismpic.analysis.calibration.ring_start import NG_PLAUSIBLE, PULL_MAX, REFERENCE_NM

__all__ = [
    "CHI2_MAX",
    "FIT_PARAMS",
    "NG_PLAUSIBLE",
    "N_NODES",
    "PRIOR_PARAMS",
    "PULL_MAX",
    "RADIUS_SIGMA_UM",
    "REFERENCE_NM",
    "RING_ARGS",
    "RING_BLOCK",
    "SCHEMA",
    "SPEC_SIGMA",
    "FitParam",
    "MzmCalibration",
    "PcmCalibration",
    "Prior",
    "RingCalibration",
    "calibrate_mzm",
    "calibrate_mzm_csv",
    "calibrate_pcm",
    "calibrate_pcm_csv",
    "calibrate_ring_csv",
    "calibrate_ring_record",
    "calibrate_ring_spectrum",
    "calibrate_ring_specs",
    "load_params",
    "plot_ring_calibration",
    "ring_priors",
    "ring_quantities",
]
