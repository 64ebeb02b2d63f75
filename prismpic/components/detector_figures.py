"""Measured figures of the reference Ge photodetector: the receivers' defaults where the Ge model is not used.

Source: Shi et al., Photonics Res. 12, 1 (2024) (REFERENCES.md), Ge-on-Si at 1.55 µm. The Ge model of
``detectors`` derives its responsivity from the absorber and reaches this figure with its default 12 µm absorber.
Kept apart from ``detectors`` so the receiver arithmetic (``analysis.system.noise``) does not import the cells.
"""

from __future__ import annotations

RESPONSIVITY_A_PER_W = 0.95  # A/W
DARK_CURRENT_A = 1.3e-9  # A
