"""Unit conversions shared by the models: decibels of a loss (NumPy and JAX arrays alike) and nm per µm."""

from __future__ import annotations

NM_PER_UM = 1e3  # the physics works in µm; files, parameter files and messages in nm


def db_to_amplitude(db):
    """Field amplitude 10^(−dB/20) of a loss of ``db`` dB."""
    return 10.0 ** (-db / 20.0)


def db_to_power(db):
    """Power fraction 10^(−dB/10) of a loss of ``db`` dB."""
    return 10.0 ** (-db / 10.0)
