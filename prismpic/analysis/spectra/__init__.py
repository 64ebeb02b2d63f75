"""Microring resonances from a transmission spectrum: FSR, FWHM, loaded and intrinsic Q, extinction.

Works on any spectrum, a model's or a measured one: through port, drop port or both, in
linear power or dB, with noise, a tilted baseline and a coupling offset.

Pipeline (:func:`analyze_spectrum`, in :mod:`.analyze`):

1. Validate (``ValueError`` naming the parameter, the value and what is needed); the
   linear/dB rule is :mod:`prismpic.analysis.measurements`'.
2. Baseline, noise and detection (:mod:`.detection`): a polynomial baseline in dB fitted
   to the off-resonance points; peaks above 10× the local noise and 10 % of the strongest;
   a resolution check; two mode families told apart by linewidth.
3. Refinement (:mod:`.resonance_fit`): per resonance, a least-squares fit of the exact Airy
   lineshape (Lorentzian without an FSR) times a local baseline correction, through and
   drop jointly.
4. Figures of merit: extinction (:mod:`.extinction`), intrinsic Q and coupling regime
   (:mod:`.intrinsic_q`), FSR, its dispersion and the group index (:mod:`.fsr`).

Results are the dataclasses of :mod:`.results`; :func:`plot_spectrum` draws them (:mod:`.plot`).
"""

from prismpic.analysis.spectra.analyze import MIN_POINTS, analyze_spectrum
from prismpic.analysis.spectra.detection import NOISE_SIGMAS, RELATIVE_PROMINENCE
from prismpic.analysis.spectra.plot import plot_spectrum
from prismpic.analysis.spectra.resonance_fit import MAX_LOCAL_TILT
from prismpic.analysis.spectra.results import CouplingSolution, IntrinsicQ, Resonance, SpectrumAnalysis

__all__ = [
    "MAX_LOCAL_TILT",
    "MIN_POINTS",
    "NOISE_SIGMAS",
    "RELATIVE_PROMINENCE",
    "CouplingSolution",
    "IntrinsicQ",
    "Resonance",
    "SpectrumAnalysis",
    "analyze_spectrum",
    "plot_spectrum",
]
