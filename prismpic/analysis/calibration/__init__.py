"""Calibration: the device models' physical parameters that reproduce measured specs and spectra.

Calibration never swaps the physics for a curve: it searches the *physical* parameters of the same models
the circuits use (``ring_physics`` behind ``rings.ring_add_drop_model`` / ``ring_all_pass_model``,
``modulators.mzm_model``, ``pcm.pcm_transmission``) so that their outputs match the measurement. Specs (FSR,
Q, extinction) are outputs of the fitted model, never inputs.

Where things are:

- ``fitting``: the least-squares core of every fit (ring, MZM, PCM): bounded, regularised Levenberg–Marquardt
  in JAX, jitted and vmapped over batches; covariance, correlations, residual structure;
- ``priors``: the process spreads as priors (``ring_priors``) and every fitted parameter's bounds;
- ``ring/``: the ring calibration, a pipeline of typed stages (wavelengths in µm inside; nm only in files, the
  parameter file and messages):

  - ``ring/spectrum``: ``calibrate_ring_spectrum``, ``calibrate_ring_csv``: the pipeline, its arguments checked;
  - ``ring/prepare``: the resonance analysis, the family calibrated, weights and masks → ``SpectrumData`` (µm);
  - ``ring/stages``: ``SpectrumPlan``; stage 1 the line shape of every regime (``linefit.LineFit``, with the
    instrument steps' ``InstrumentFindings``), stage 2 the physics (``physfit.PhysicsStart`` →
    ``physfit.PhysicalSolution``);
  - ``ring/check``: stage 3, the physical model at every point (``PhysicalCheck``);
  - ``ring/result``: the choice among solutions (``PhysicalReport``) and the ``RingCalibration``;
  - ``ring/lineshape``, ``ring/spectrum_model``, ``ring/instrument``, ``ring/linefit``: the line shape and the
    instrument (baseline, ripple, drop offset, split resonances), their detection and fit;
  - ``ring/model``: the jitted ring physics of the fits (fields, specs, the effective-index correction);
  - ``ring/start``: design, the closed-form Airy inversion and the geometry placement (the global start);
  - ``ring/physfit``: the physical parameters from the line shape or specs under the priors, two stages
    (geometry only, or with the index correction); ``ring_quantities``;
  - ``ring/solutions``, ``results``: regimes, the choice among solutions, the result classes
    (``RingCalibration``, ``FitParam``), the parameter-file schema (``SCHEMA``) and ``load_params``;
  - ``ring/specs``: ``calibrate_ring_specs``; ``ring/figure``;
- ``mzm``: ``calibrate_mzm``, ``calibrate_mzm_csv``; ``pcm``: ``calibrate_pcm``, ``calibrate_pcm_csv``;
- ``batch``, ``wafer``: a wafer of spectra on Dask (``prismpic calibrate ring --spectra``).

Measurement files are read by ``prismpic.analysis.measurements``.

Ring: fitted parameters and what fixes each
--------------------------------------------
- ``gap`` (and ``gap_drop`` with both ports or the drop loss): the coupling, κ = sin Φ(gap);
- ``loss_db_per_cm``: the round-trip loss beyond the dispersion model's bend loss;
- the process parameters ``film_thickness``, ``etch_depth``, ``sidewall_angle_deg``, ``width`` (as etched:
  width − drawn = width bias) and ``radius``, each with its process prior: the resonance positions and the FSR
  fix n_eff·R and n_g·R, i.e. combinations of them; ``determined_by`` says whether the data (posterior σ < ½
  prior σ) or the prior fixes each;
- ``dneff``, ``dng`` (only when needed): the effective-index correction, Δn_eff and Δn_g at 1.55 µm, when the
  process parameters within their priors cannot reproduce the resonances and the FSR (Δχ² > 9 against it):
  reported in ``correction`` and on the console (the dispersion model's own error, material index, ...).

The cladding is a choice (``design={"cladding": "air"}``), not fitted.

What the data cannot separate (reported under ``ambiguities``):

- under- versus over-coupling: |t − a e^{iθ}|²/|1 − t a e^{iθ}|² is symmetric in t ↔ a, so an all-pass
  through port (and, in coupled-mode terms γ1 ↔ γi + γ2, an add-drop ring even with both ports) fits both
  solutions equally (McKinnon et al., Opt. Express 17, 18971 (2009)); both are fitted and reported, the one
  nearest the design gap is kept unless ``coupling`` says which holds. Equal gaps (``coupling="symmetric"``)
  are unique;
- the through port alone cannot tell drop coupling from loss: gap_drop is tied to gap;
- film, etch, wall angle and width (all move n_eff, n_g, the coupling and the bend loss): the priors decide
  what the data leave open;
- the mode order m and a constant offset of the laser sweep (both only shift n_eff): the order nearest the
  priors is kept; give ``wavelength_offset_nm`` from a reference;
- coupler excess loss versus propagation loss: ``coupler_loss_db`` is held at its design value.

Failure is a result, never a silent one: a fit that did not converge, whose physical model's χ²_red exceeds
``chi2_max`` or that cannot describe the resonance it is about has ``status = "failed"`` and a one-line
``failure_reason``; bad input raises ValueError. Uncertainties: posterior 1σ of the physics fit (data
whitened by the line shape's covariance, priors), specs J·C·Jᵀ.
"""

from prismpic.analysis.calibration.mzm import MzmCalibration, calibrate_mzm, calibrate_mzm_csv
from prismpic.analysis.calibration.pcm import PcmCalibration, calibrate_pcm, calibrate_pcm_csv
from prismpic.analysis.calibration.priors import PRIOR_PARAMS, RADIUS_SIGMA_UM, Prior, ring_priors
from prismpic.analysis.calibration.results import SCHEMA, FitParam, RingCalibration, load_params
from prismpic.analysis.calibration.ring.figure import plot_ring_calibration
from prismpic.analysis.calibration.ring.model import FIT_PARAMS, N_NODES, RING_ARGS, RING_BLOCK
from prismpic.analysis.calibration.ring.physfit import ring_quantities
from prismpic.analysis.calibration.ring.specs import SPEC_SIGMA, calibrate_ring_specs
from prismpic.analysis.calibration.ring.spectrum import (
    CHI2_MAX,
    calibrate_ring_csv,
    calibrate_ring_spectrum,
)
from prismpic.analysis.calibration.ring.start import NG_PLAUSIBLE, PULL_MAX, REFERENCE_NM

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
    "calibrate_ring_spectrum",
    "calibrate_ring_specs",
    "load_params",
    "plot_ring_calibration",
    "ring_priors",
    "ring_quantities",
]
