"""Noise terms against their textbook formulas, SNR scaling laws, and the inverse."""

import math

import pytest

from prismpic.analysis.system import noise as nz

# Constants typed in from CODATA 2018 (exact SI values), independent of scipy.
E = 1.602176634e-19
KB = 1.380649e-23
H = 6.62607015e-34
C = 299792458.0


def test_terms_match_textbook_formulas():
    p, r, idark, b, rl, t = 25.7e-6, 0.95, 1.3e-9, 1e9, 50.0, 300.0
    nep, rin_db, bits_adc, bits_dac, d, w = 10e-12, -150.0, 6, 5, 32, 0.5
    budget = nz.noise_budget(
        p,
        photodiode=nz.Photodiode(r, idark, nep),
        receiver=nz.Receiver(bandwidth_hz=b, temperature_k=t, load_resistance_ohm=rl, adc_bits=bits_adc),
        laser=nz.Laser(rin_db),
        dac_bits=bits_dac,
        n_wavelengths=d,
        weight=w,
    )
    i = r * p
    expected = {
        "shot": 2 * E * i * b,  # both diodes: I_T + I_D = R·P
        "dark": 2 * E * 2 * idark * b,
        "thermal": 4 * KB * t * b / rl,
        "nep": 2 * (r * nep) ** 2 * b,
        "rin": (w * i) ** 2 * 10 ** (rin_db / 10) * b,  # common-mode part cancels
        "adc": (2 * i / 2**bits_adc / math.sqrt(12)) ** 2,
        "dac": (i * w) ** 2 * (2 / (2**bits_dac - 1)) ** 2 / 12 / d,
    }
    assert set(budget.terms) == set(expected)
    for name, var in expected.items():
        assert budget.terms[name] == pytest.approx(var, rel=1e-9), name
    assert budget.signal_current_a == pytest.approx(i)
    assert budget.snr_db == pytest.approx(10 * math.log10(i**2 / sum(expected.values())), rel=1e-12)
    assert budget.enob == pytest.approx((budget.snr_db - 1.76) / 6.02)


def test_tia_noise_density_replaces_load():
    b = 2e9
    budget = nz.noise_budget(1e-5, receiver=nz.Receiver(bandwidth_hz=b, input_noise_a_per_rthz=10e-12))
    assert budget.terms["thermal"] == pytest.approx((10e-12) ** 2 * b)


def test_single_diode_counts_one_dark_current_and_full_rin():
    p, r, b = 1e-4, 0.95, 1e9
    budget = nz.noise_budget(
        p,
        photodiode=nz.Photodiode(nep_w_per_rthz=1e-12),
        receiver=nz.Receiver(bandwidth_hz=b),
        laser=nz.Laser(-140.0),
        balanced=False,
        weight=0.0,  # ignored for one diode: it sees the whole intensity noise
    )
    assert budget.terms["dark"] == pytest.approx(2 * E * 1.3e-9 * b)
    assert budget.terms["nep"] == pytest.approx((r * 1e-12) ** 2 * b)
    assert budget.terms["rin"] == pytest.approx((r * p) ** 2 * 1e-14 * b)


def test_rin_imbalance_and_uncorrelated_lines():
    p, r, b, eps = 1e-4, 0.95, 1e9, 0.05
    budget = nz.noise_budget(
        p, receiver=nz.Receiver(bandwidth_hz=b, balance_error=eps), laser=nz.Laser(-150.0, 4), weight=0.0
    )
    assert budget.terms["rin"] == pytest.approx((eps * r * p) ** 2 * 1e-15 * b / 4)


def test_ase_terms_follow_olsson():
    p, r, b = 20e-6, 0.95, 1e9
    g_db, nf_db, bo, loss, wl = 20.0, 7.0, 200e9, 3.0, 1.55
    amp = nz.Amplifier(gain_db=g_db, nf_db=nf_db, optical_bandwidth_hz=bo, loss_after_db=loss, wavelength_um=wl)
    g, f = 10 ** (g_db / 10), 10 ** (nf_db / 10)
    n_sp = (f * g - 1) / (2 * (g - 1))  # F = 2 n_sp (G − 1)/G + 1/G
    assert n_sp == pytest.approx(f / 2, rel=0.02)  # NF ≈ 2 n_sp at high gain
    s = n_sp * H * C / (wl * 1e-6) * (g - 1) * 10 ** (-loss / 10)
    budget = nz.noise_budget(p, receiver=nz.Receiver(bandwidth_hz=b), amplifier=amp)
    assert budget.terms["signal_ase"] == pytest.approx(4 * r**2 * p * s * b, rel=1e-9)
    assert budget.terms["ase_ase"] == pytest.approx(r**2 * s**2 * (2 * bo - b) * b, rel=1e-9)
    assert budget.terms["ase_shot"] == pytest.approx(2 * E * r * s * bo * b, rel=1e-9)


def test_shot_limited_snr_rises_10_db_per_decade_and_thermal_limited_20():
    shot_only = dict(photodiode=nz.Photodiode(dark_current_a=0.0), receiver=nz.Receiver(load_resistance_ohm=None))
    assert nz.snr_db(1e-4, **shot_only) - nz.snr_db(1e-5, **shot_only) == pytest.approx(10.0, abs=1e-9)
    # 50 Ω at 1 µW: shot noise is 0.1 % of thermal, so the slope is 20 dB/decade to < 0.01 dB
    thermal = dict(receiver=nz.Receiver(load_resistance_ohm=50.0))
    assert nz.snr_db(1e-6, **thermal) - nz.snr_db(1e-7, **thermal) == pytest.approx(20.0, abs=0.01)


def test_seed_operating_point_with_named_assumptions():
    """S1-12: 25.7 µW per detector at 1 GHz. With 0.95 A/W, shot noise of the pair and a
    50 Ω load at 300 K, SNR = I²/(2qIB + 4kTB/R) — 32.5 dB, not the seed's 37.2 dB."""
    p, b = 25.7e-6, 1e9
    i = 0.95 * p
    expected = 10 * math.log10(i**2 / (2 * E * i * b + 4 * KB * 300 * b / 50))
    budget = nz.noise_budget(p, photodiode=nz.Photodiode(dark_current_a=0.0))
    assert budget.snr_db == pytest.approx(expected, abs=1e-9)
    assert 32.4 < expected < 32.6
    # shot-noise limit of the same power: I/(2qB) → 48.8 dB
    shot_limit = 10 * math.log10(i / (2 * E * b))
    no_thermal = nz.noise_budget(
        p, photodiode=nz.Photodiode(dark_current_a=0.0), receiver=nz.Receiver(load_resistance_ohm=None)
    )
    assert no_thermal.snr_db == pytest.approx(shot_limit, abs=1e-9)


def test_laser_power_for_snr_inverts_forward():
    loss = 35.9  # seed S1-12: +20 dBm laser → −15.9 dBm at the detector
    kwargs = dict(receiver=nz.Receiver(load_resistance_ohm=50.0, adc_bits=8), laser=nz.Laser(-150.0))
    for target in (20.0, 30.0):
        p_dbm = nz.laser_power_for_snr(target, loss, **kwargs)
        p_det = 1e-3 * 10 ** ((p_dbm - loss) / 10)
        assert nz.snr_db(p_det, **kwargs) == pytest.approx(target, abs=1e-6)
    # the seed's own +20 dBm gives what the forward budget says
    snr_at_seed = nz.snr_db(1e-3 * 10 ** ((20 - loss) / 10), **kwargs)
    assert nz.laser_power_for_snr(snr_at_seed, loss, **kwargs) == pytest.approx(20.0, abs=1e-6)


def test_unreachable_snr_raises():
    # a 6-bit ADC spanning ±I_fs caps SNR at I²/((2I/2^6)²/12) = 3·4^6 (40.9 dB) at any power
    cap = 10 * math.log10(3 * 4**6)
    with pytest.raises(ValueError, match="target_snr_db"):
        nz.laser_power_for_snr(cap + 1.0, 30.0, receiver=nz.Receiver(adc_bits=6))


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: nz.Photodiode(responsivity_a_per_w=-1.0), "responsivity_a_per_w"),
        (lambda: nz.Photodiode(dark_current_a=-1e-9), "dark_current_a"),
        (lambda: nz.Receiver(bandwidth_hz=0.0), "bandwidth_hz"),
        (lambda: nz.Receiver(adc_bits=0), "adc_bits"),
        (lambda: nz.Laser(rin_db_per_hz=10.0), "rin_db_per_hz"),
        (lambda: nz.Amplifier(nf_db=-1.0), "nf_db"),
        (lambda: nz.noise_budget(-1e-6), "power_w"),
        (lambda: nz.noise_budget(1e-6, weight=1.5), "weight"),
        (lambda: nz.noise_budget(1e-6, dac_bits=0), "dac_bits"),
        (lambda: nz.noise_budget(1e-6, amplifier=nz.Amplifier(optical_bandwidth_hz=1e8)), "optical_bandwidth_hz"),
        (lambda: nz.laser_power_for_snr(20.0, -3.0), "loss_db"),
    ],
)
def test_validation(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_breakdown_and_plot(tmp_path):
    budget = nz.noise_budget(25.7e-6, receiver=nz.Receiver(adc_bits=6), laser=nz.Laser(), dac_bits=5)
    table = budget.breakdown()
    for name in budget.terms:
        assert name in table
    path = tmp_path / "noise.png"
    nz.plot_noise_breakdown(budget, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
