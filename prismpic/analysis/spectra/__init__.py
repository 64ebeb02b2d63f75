"""Microring resonances from a transmission spectrum: FSR, FWHM, loaded and intrinsic Q, extinction.

Works on any spectrum, a model's or a measured one: through port, drop port or both, in
linear power or dB, with noise, a tilted baseline and a coupling offset.

Pipeline (:func:`analyze_spectrum`, in :mod:`.analyze`):

1. Validate (``ValueError`` naming the parameter, the value and what is needed); the
   linear/dB rule is :mod:`prismpic.analysis.measurements`'.
2. Baseline, noise and detection (:mod:`.detection`): a polynomial baseline in dB fitted
   to the off-resonance points, its order chosen by the data (a grating-coupler passband is
   followed); peaks above 10× the local noise and 10 % of the strongest; a resolution check
   (a badly sampled resonance is dropped); through dips confirmed by drop peaks when the drop
   shows any.
3. Identification (:mod:`.comb`): ripple (dips closer than 4 linewidths) set apart; mode
   families as combs periodic in frequency, each reported; the family analysed chosen by
   ``family`` (default the design's, by ``design_group_index``); thermal triangles
   (asymmetric dips) dropped with that reason, a spectrum of only those refused.
4. Refinement (:mod:`.resonance_fit`): per resonance, a least-squares fit of the exact Airy
   lineshape (Lorentzian without an FSR) times a local baseline correction, through and
   drop jointly, the other families' resonances left out; a split resonance refitted as a
   doublet (:mod:`.doublet`); dips on a detector floor give a lower bound on the extinction.
5. Figures of merit: extinction (:mod:`.extinction`), intrinsic Q and coupling regime
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
