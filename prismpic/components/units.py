"""Decibel conversions of a loss, shared by the device models (NumPy and JAX arrays alike)."""

from __future__ import annotations


def db_to_amplitude(db):
    """Field amplitude 10^(−dB/20) of a loss of ``db`` dB."""
    return 10.0 ** (-db / 20.0)


def db_to_power(db):
    """Power fraction 10^(−dB/10) of a loss of ``db`` dB."""
    return 10.0 ** (-db / 10.0)
