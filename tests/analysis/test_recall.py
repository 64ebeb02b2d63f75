"""recall@k Monte Carlo: exactness, analytic cases, monotonicity, determinism, sharding."""

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from prismpic.analysis.recall import monte_carlo as rc
from prismpic.analysis.recall import seed_cases as recall_seed
from prismpic.analysis.recall import signatures as sg

ALL = rc.PATHS
# One drawn-signature setup for the statistical tests; every config below compiles all
# paths in, so they share one compilation.
DRAWN = rc.RecallConfig(n_blocks=200, d=16, k=8, n_trials=200)


def test_quantizer_levels():
    # 2 bits: 4 levels -1, -1/3, 1/3, 1
    x = np.array([-1.2, -0.5, -0.1, 0.2, 0.7, 1.0])
    np.testing.assert_allclose(rc.quantize(x, 2), [-1, -1 / 3, -1 / 3, 1 / 3, 1, 1], atol=1e-15)
    # step 2/(2^b − 1): the error of a fine grid is uniform with variance step²/12
    grid = np.linspace(-1, 1, 200001)
    err = np.asarray(rc.quantize(grid, 5)) - grid
    assert np.max(np.abs(err)) <= 1 / 31 + 1e-12
    assert np.var(err) == pytest.approx((2 / 31) ** 2 / 12, rel=1e-3)


def test_lorentzian_pair_inverts_and_matches_add_drop():
    fwhm = 0.155
    w = np.linspace(-0.99, 1.0, 50)
    np.testing.assert_allclose(rc.lorentzian_weight(rc.lorentzian_detuning(w, fwhm), fwhm), w, atol=1e-12)
    # half maximum of the drop port (D = 1/2 → w = 0) at δ = FWHM/2
    assert float(rc.lorentzian_detuning(0.0, fwhm)) == pytest.approx(fwhm / 2)
    # w = -1 is capped at FSR/2: D = 1/(1 + (2·4.15/0.155)²)
    cap = 2 / (1 + (2 * 4.15 / fwhm) ** 2) - 1
    assert float(rc.lorentzian_weight(rc.lorentzian_detuning(-1.0, fwhm), fwhm)) == pytest.approx(cap)


def test_no_impairment_gives_recall_exactly_one():
    # all paths compiled in with zero parameters must pass values through exactly
    r = rc.simulate_recall(DRAWN, 0, paths=ALL)
    assert r.mean == 1.0 and r.ci_low == 1.0 and r.ci_high == 1.0
    assert np.all(r.per_trial == 1.0)


def test_recall_falls_with_drift_and_with_fewer_bits():
    drift = rc.recall_sweep(DRAWN, "drift_sigma_nm", [0.001, 0.003, 0.01, 0.03], key=1, paths=ALL)
    bits = rc.recall_sweep(DRAWN, "weight_bits", [8, 6, 4, 2], key=1, paths=ALL)
    for results in (drift, bits):
        means = [r.mean for r in results]
        assert np.all(np.diff(means) < 0), means
        assert results[0].ci_low > results[-1].ci_high


def test_determinism_and_key_dependence():
    cfg = DRAWN.replace(drift_sigma_nm=0.005, weight_bits=5, noise_rel=0.002, gain_sigma_db=0.1)
    a = rc.simulate_recall(cfg, 7, paths=ALL)
    b = rc.simulate_recall(cfg, 7, paths=ALL)
    c = rc.simulate_recall(cfg, 8, paths=ALL)
    np.testing.assert_array_equal(a.per_trial, b.per_trial)
    assert not np.array_equal(a.per_trial, c.per_trial)


# One probe setup for the analytic checks (one compilation): 2 blocks, d = 2, 4000 trials.
N_PROBE = 4000
PROBE = rc.RecallConfig(n_blocks=2, d=2, k=1, n_trials=N_PROBE)
X_PROBE = np.tile([1.0, 0.0], (N_PROBE, 1))  # reading of block c = w_c0 / 2


def _ring_errors(cfg, w0, key=0):
    """Weight error of ring 0 of both blocks in every trial (2·N_PROBE samples)."""
    w = np.array([[w0, 0.5], [w0, 0.5]])
    y, ideal = rc.photonic_scores(cfg, key, w, X_PROBE, paths=ALL)
    return (2 * (y - ideal)).ravel()


def test_two_block_swap_probability_matches_gaussian_formula():
    """Readings 0.5 and 0.4 (Δ = 0.1) with independent noise σ on each: the pair swaps
    with probability Φ(−Δ/(σ√2)), so recall@1 = 1 − Φ(−Δ/(σ√2))."""
    w = np.array([[1.0, 0.0], [0.8, 0.0]])
    for sigma in (0.1, 0.03536):
        r = rc.simulate_recall(PROBE.replace(noise_rel=sigma, confidence=0.999), 3, w, X_PROBE, paths=ALL)
        expected = 1 - norm.cdf(-0.1 / (sigma * math.sqrt(2)))
        assert r.ci_low <= expected <= r.ci_high, (sigma, r, expected)


def test_drift_maps_through_lorentzian_slope():
    """At w = 0 (δ = FWHM/2) dw/dδ = −2/FWHM, so a small drift σ gives σ_w = 2σ/FWHM."""
    sigma = 1e-4
    err = _ring_errors(PROBE.replace(drift_sigma_nm=sigma), 0.0)
    # SD of 8000 Gaussian samples: ±0.8 % (1σ); second-order terms are O(σ/FWHM) ≈ 0.1 %
    assert err.std() == pytest.approx(2 * sigma / rc.FWHM_NM, rel=0.04)


def test_fabrication_spread_minus_trim_range():
    """Trim removes offsets up to R = tuning × V_max: a fraction erf(R/(σ√2)) of rings is
    exact, the rest keep |e| − R."""
    sigma, pm_per_v, v_max = 2e-4, 5.0, 0.04  # R = 0.2 pm = 1σ
    err = _ring_errors(PROBE.replace(fab_sigma_nm=sigma, trim_pm_per_v=pm_per_v, trim_voltage_v=v_max), 0.0)
    r_nm = pm_per_v * v_max * 1e-3
    exact = np.abs(err) < 1e-12
    p0 = math.erf(r_nm / (sigma * math.sqrt(2)))  # 0.683
    assert exact.mean() == pytest.approx(p0, abs=4 * math.sqrt(p0 * (1 - p0) / err.size))
    # residual detuning |e| − R has mean σ·E[|z| − 1 | |z| > 1] = σ(φ(1)/Q(1) − 1) = 0.525σ
    resid = np.abs(err[~exact]) * rc.FWHM_NM / 2
    assert resid.mean() == pytest.approx(sigma * (norm.pdf(1.0) / norm.sf(1.0) - 1.0), rel=0.08)


def test_gain_spread_dac_and_crosstalk():
    w = np.array([[1.0, 0.5], [1.0, 0.5]])
    # splitter nonuniformity: reading × 10^(g/10), g ~ N(0, σ²) dB
    y, ideal = rc.photonic_scores(PROBE.replace(gain_sigma_db=0.5), 0, w, X_PROBE, paths=ALL)
    assert np.std(10 * np.log10(y / ideal)) == pytest.approx(0.5, rel=0.04)
    # DAC: x = 0.3 with 2 bits → 1/3 (the second wavelength meets a zero weight: 2^b levels
    # have no 0, so its x = 0 becomes ±1/3)
    w_dac = np.array([[1.0, 0.0], [0.5, 0.0]])
    x = np.tile([0.3, 0.0], (N_PROBE, 1))
    y, _ = rc.photonic_scores(PROBE.replace(dac_bits=2), 0, w_dac, x, paths=ALL)
    np.testing.assert_allclose(y, np.tile([1 / 6, 1 / 12], (N_PROBE, 1)), atol=1e-15)
    # crosstalk: ring 1 picks up a of wavelength 0 → reading (w0 + a·w1)/2
    a = 10 ** (-20 / 10)
    np.testing.assert_allclose(rc.adjacent_crosstalk(2, -20.0), [[1, a], [a, 1]])
    y, _ = rc.photonic_scores(PROBE.replace(crosstalk=rc.adjacent_crosstalk(2, -20.0)), 0, w, X_PROBE, paths=ALL)
    np.testing.assert_allclose(y, (1 + a * 0.5) / 2, atol=1e-15)


def test_caller_supplied_ring_transfer():
    """A linear transfer w = −δ turns drift ε straight into a weight error −ε."""
    cfg = PROBE.replace(drift_sigma_nm=0.01, weight_of_detuning=lambda det: -det, detuning_of_weight=lambda v: -v)
    err = _ring_errors(cfg, 0.2)
    assert err.std() == pytest.approx(0.01, rel=0.04)
    assert abs(err.mean()) < 4 * 0.01 / math.sqrt(err.size)


def test_recall_table_and_plot(tmp_path):
    # a probe-shaped bank (readings 0.5 and 0.3) shares the probe compilation
    sig = sg.Signatures("probe", np.array([[1.0, 0.0], [0.6, 0.0]]), X_PROBE, 1.0, np.ones(N_PROBE))
    rows = recall_seed.recall_table(sig, k=1)
    assert len(rows) == 6
    assert rows[0][1].mean == 1.0
    # the NEP case: σ_rel of a balanced pair, √(2(R·NEP)²B + 2qRPB + 4qI_dB)/(R·P) = 0.0178,
    # far below Δ = 0.2: a swap has probability Φ(−0.2/(0.0178·√2)) ≈ 1e-15, so recall stays 1
    rel, _ = recall_seed.seed_nep_noise_rel()
    r, p, b, e = 0.95, 25.7e-6, 1e9, 1.602176634e-19
    assert rel == pytest.approx(math.sqrt(2 * (r * 10e-12) ** 2 * b + 2 * e * r * p * b + 4 * e * 1.3e-9 * b) / (r * p))
    assert rows[3][1].mean == 1.0
    for _, res in rows:
        assert 0.0 <= res.ci_low <= res.mean <= res.ci_high <= 1.0
    assert "5-bit weights" in recall_seed.format_recall_table(rows)
    path = tmp_path / "recall.png"
    recall_seed.plot_recall(rows, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_seed_signatures_shape_and_range():
    sig = recall_seed.seed_signatures(n_blocks=20, n_queries=5, d=8)
    assert sig.blocks.shape == (20, 8) and sig.queries.shape == (5, 8)
    assert np.max(np.abs(sig.blocks)) == pytest.approx(1.0)


def test_recall_at_k_helper():
    ideal = np.array([[0.9, 0.8, 0.7, 0.1], [0.1, 0.2, 0.3, 0.4]])
    phot = np.array([[0.9, 0.1, 0.7, 0.8], [0.4, 0.3, 0.2, 0.1]])
    np.testing.assert_allclose(rc.recall_at_k(phot, ideal, 2), [0.5, 0.0])


def test_bootstrap_ci_of_bernoulli_trials():
    # 1000 trials at p = 0.3: the 95 % CI half-width ≈ 1.96·√(p(1−p)/n) = 0.0284
    v = (np.arange(1000) % 10 < 3).astype(float)
    lo, hi = rc.bootstrap_ci(v, 0.95)
    assert (hi - lo) / 2 == pytest.approx(1.96 * math.sqrt(0.21 / 1000), rel=0.1)
    assert lo < 0.3 < hi


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: rc.RecallConfig(drift_sigma_nm=-0.01), "drift_sigma_nm"),
        (lambda: rc.RecallConfig(fab_sigma_nm=-1.0), "fab_sigma_nm"),
        (lambda: rc.RecallConfig(weight_bits=0), "weight_bits"),
        (lambda: rc.RecallConfig(dac_bits=0), "dac_bits"),
        (lambda: rc.RecallConfig(n_blocks=5, k=8), "k = 8"),
        (lambda: rc.RecallConfig(noise_rel=-0.1), "noise_rel"),
        (lambda: rc.RecallConfig(noise_rel=0.1, snr_db=30.0), "snr_db"),
        (lambda: rc.RecallConfig(gain_sigma_db=-1.0), "gain_sigma_db"),
        (lambda: rc.RecallConfig(d=4, crosstalk=np.eye(3)), "crosstalk"),
        (lambda: rc.RecallConfig(weight_of_detuning=lambda d: d), "detuning_of_weight"),
        (lambda: rc.RecallConfig(confidence=1.0), "confidence"),
        (lambda: rc.simulate_recall(rc.RecallConfig(k=3, n_trials=1), 0, np.zeros((2, 4)), np.zeros((1, 4))), "k = 3"),
        (lambda: rc.simulate_recall(rc.RecallConfig(n_trials=1), 0, np.full((9, 4), 2.0), np.zeros((1, 4))), "sig"),
        (lambda: rc.simulate_recall(rc.RecallConfig(n_trials=2), 0, np.zeros((9, 4)), np.zeros((1, 4))), "queries"),
        (lambda: rc.simulate_recall(rc.RecallConfig(), 0, paths=("bogus",)), "bogus"),
        (lambda: rc.adjacent_crosstalk(4, 3.0), "crosstalk_db"),
    ],
)
def test_validation(build, match):
    with pytest.raises(ValueError, match=match):
        build()


SHARDING_SCRIPT = textwrap.dedent(
    """
    import jax, numpy as np
    from prismpic.analysis.recall import monte_carlo as rc
    assert len(jax.devices()) == 2, jax.devices()
    cfg = rc.RecallConfig(n_blocks=64, d=8, k=4, n_trials=31, drift_sigma_nm=0.004, weight_bits=5,
                          fab_sigma_nm=0.002, trim_voltage_v=0.2, noise_rel=0.003, gain_sigma_db=0.1,
                          dac_bits=5, crosstalk=rc.adjacent_crosstalk(8, -25.0))
    two = rc.simulate_recall(cfg, 11)
    one = rc.simulate_recall(cfg, 11, devices=jax.devices()[:1])
    assert two.n_shards == 2 and one.n_shards == 1, (two.n_shards, one.n_shards)
    np.testing.assert_array_equal(two.per_trial, one.per_trial)
    assert 0 < two.mean < 1
    print("OK", two.mean)
    """
)


def test_trials_shard_over_two_host_devices_with_identical_results():
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", SHARDING_SCRIPT], env=env, cwd=root, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "OK" in out.stdout
