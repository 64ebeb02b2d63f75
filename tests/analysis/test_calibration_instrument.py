"""Instrument effects in ring spectra: split resonances, a masked resonance, a second mode family, the drop port's
wavelength offset and the sweep's absolute offset, on the textbook rings of ``test_calibration_acceptance``.

A split resonance (backscatter doublet): the ring's two standing-wave modes at φ ± δ each carry half the
travelling wave (coupled-mode theory, e.g. Li et al., Opt. Express 20, 13617 (2012)), so the through field is
½[t(φ + δ) + t(φ − δ)] with the all-pass field t(φ) = (r − a·e^{iφ})/(1 − ra·e^{iφ}) (Bogaerts et al. 2012, eq. 1).
A second ring on the same bus multiplies the through fields.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_calibration_acceptance import device, measure, nominal_indices, phase, transmission

from prismpic.analysis import calibration as cal


def field(wl_nm, dev, dphi=0.0):
    """All-pass through field of the textbook ring at round-trip phase φ + dphi."""
    phi = phase(np.asarray(wl_nm) * 1e-3, dev) + dphi
    a, r = dev["a"], math.sqrt(1 - dev["k1sq"])
    return (r - a * np.exp(1j * phi)) / (1 - r * a * np.exp(1j * phi))


def with_instrument(wl, power, seed=3):
    base = 10 ** ((-5 + 0.04 * (wl - wl.mean())) / 10)
    return power * base + 0.002 * base.mean() * np.random.default_rng(seed).standard_normal(wl.size)


@pytest.fixture(scope="module")
def ring():
    ng0, n00 = nominal_indices()
    dev = device("all_pass", ng0, n00, 5e4, "under", 15.0)
    wl, _, _, tr = measure(dev)
    half = 0.6 * tr["resonance_nm"] / tr["q_loaded"]  # half-splitting: 0.6 FWHM
    dphi = 2 * np.pi * half / tr["fsr_nm"]
    return dev, wl, tr, half, 0.5 * (field(wl, dev, dphi) + field(wl, dev, -dphi))


@pytest.mark.slow
def test_split_resonances_are_detected_and_fitted(ring):
    dev, wl, tr, half, split = ring
    res = cal.calibrate_ring_spectrum(wl, with_instrument(wl, np.abs(split) ** 2), kind="all_pass")
    assert res.status == "fitted", res.failure_reason
    assert res.nuisance["split_nm"].value == pytest.approx(half, rel=0.05)
    assert any("split resonance fitted" in n for n in res.notes)
    # the linewidth is the modes' own, not the doublet's envelope
    assert res.specs["q_loaded"] == pytest.approx(tr["q_loaded"], rel=0.05)
    assert res.specs["resonance_nm"] == pytest.approx(tr["resonance_nm"], abs=0.005)


@pytest.mark.slow
def test_one_split_resonance_elsewhere_is_masked_and_flagged(ring):
    dev, wl, tr, half, split = ring
    t = np.abs(field(wl, dev)) ** 2
    other = wl < tr["resonance_nm"] - tr["fsr_nm"] / 2  # the resonance below the one the fit is about
    t[other] = np.abs(split[other]) ** 2
    res = cal.calibrate_ring_spectrum(wl, with_instrument(wl, t), kind="all_pass")
    assert res.status == "fitted", res.failure_reason
    assert len(res.flags) == 1 and "masked" in res.flags[0]
    flagged = float(res.flags[0].split(" at ")[1].split(" nm")[0])
    assert flagged == pytest.approx(tr["resonance_nm"] - tr["fsr_nm"], abs=0.1)  # the lower neighbour
    assert res.specs["q_loaded"] == pytest.approx(tr["q_loaded"], rel=0.05)


@pytest.mark.slow
def test_a_second_mode_family_is_a_failed_fit_not_a_result(ring):
    """Two rings on one bus: no single ring (split or not) describes the dips; the fit says so."""
    dev, wl, tr, _, _ = ring
    ng0, n00 = nominal_indices()
    second = device("all_pass", ng0 * 1.004, n00, 3e4, "under", 10.0)
    t = np.abs(field(wl, dev)) ** 2 * np.abs(field(wl, second)) ** 2
    res = cal.calibrate_ring_spectrum(wl, with_instrument(wl, t), kind="all_pass")
    assert res.failed and "does not describe" in res.failure_reason
    assert res.to_dict()["status"] == "failed"


@pytest.mark.slow
def test_drop_port_offset_and_sweep_offset():
    ng0, n00 = nominal_indices()
    dev = device("add_drop", ng0, n00, 2e4, "under", 15.0)
    wl, t, d, tr = measure(dev)
    _, d_late = transmission(wl + 0.02, dev)  # the drop detector reads 20 pm late
    res = cal.calibrate_ring_spectrum(wl, t, with_instrument(wl, d_late))
    assert res.status == "fitted", res.failure_reason
    assert res.nuisance["drop_offset_nm"].value == pytest.approx(0.02, abs=0.001)
    # a constant offset of the whole sweep moves every resonance alike: indistinguishable from n_eff, so the fit
    # reports the resonance in the sweep's scale and says so; given from a reference it is removed
    wl_off, t_off, d_off, _ = measure(dev, wavelength_offset_nm=0.05)
    res = cal.calibrate_ring_spectrum(wl_off, t_off, d_off)
    assert res.specs["resonance_nm"] == pytest.approx(tr["resonance_nm"] - 0.05, abs=0.005)
    assert any("wavelength offset" in a for a in res.ambiguities)
    res = cal.calibrate_ring_spectrum(wl_off, t_off, d_off, wavelength_offset_nm=0.05)
    assert res.specs["resonance_nm"] == pytest.approx(tr["resonance_nm"], abs=0.005)
