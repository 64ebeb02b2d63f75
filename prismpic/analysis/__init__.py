"""Analyses: spectra, crosstalk, link budget, noise/SNR, impairments to recall@k, energy, calibration."""
