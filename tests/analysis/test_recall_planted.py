"""The planted family, the closed-form recall under Gaussian score noise, the drift split and
lock loop, exact top-k semantics, the clustered bootstrap and batching invariance."""

import math

import numpy as np
import pytest
from scipy.stats import binom, norm

from prismpic.analysis.recall import impairments, planted
from prismpic.analysis.recall import kernel as kern
from prismpic.analysis.recall import monte_carlo as rc
from prismpic.analysis.recall import seed_cases as recall_seed

N, D, K, G = 1024, 32, 8, 8


def test_planted_scores_follow_the_family():
    """Bulk scores N(0, 1) and planted ones N(S, τ²), in units of the bulk σ of each query."""
    s = 3.0
    w, x, pl = planted.draw_planted(8, N, D, K, G, separation=s, spread=1.0, key=4)
    assert w.shape == (8, N, D) and x.shape == (8, G, D) and pl.shape == (8, G, K)
    assert np.allclose(np.abs(w).max(axis=(1, 2)), 1.0) and np.allclose(np.abs(x).max(axis=2), 1.0)
    scores = np.einsum("snd,sgd->sgn", w, x)
    # bulk σ of query g: |x_g|/max|w_unscaled| — the planted-tied member gives the exact unit below
    planted_z, bulk_z = [], []
    for st in range(8):
        for g in range(G):
            sc = scores[st, g]
            mask = np.zeros(N, bool)
            mask[pl[st, g]] = True
            sd = sc[~mask].std()
            bulk_z.append(sc[~mask] / sd)
            planted_z.append(sc[mask] / sd)
    bulk_z, planted_z = np.concatenate(bulk_z), np.concatenate(planted_z)
    assert abs(bulk_z.mean()) < 4 / math.sqrt(bulk_z.size)
    # 512 planted scores N(3, 1): mean within 4 standard errors, SD within 15 %
    assert planted_z.mean() == pytest.approx(s, abs=4 / math.sqrt(planted_z.size) + 0.02)
    assert planted_z.std() == pytest.approx(1.0, rel=0.15)
    # the queries of one state are orthogonal (so other queries' plants do not show)
    xu = x[0] / np.linalg.norm(x[0], axis=1, keepdims=True)
    np.testing.assert_allclose(xu @ xu.T, np.eye(G), atol=1e-12)


def test_gaussian_null_matches_iid_separation_and_family_checks():
    """S = 0: every score i.i.d. N(0, 1); the measured separation of the top 8 of 1024 is the
    mean of the top 8 order statistics, ≈ 2.8 (E of the 8 largest of 1024 normals)."""
    w, x, _ = planted.draw_planted(4, N, D, K, G, separation=0.0, key=1)
    sep = planted.measured_separation(np.einsum("snd,sgd->sgn", w, x).reshape(-1, N), K)
    iid = planted.measured_separation(np.random.default_rng(0).standard_normal((4000, N)), K)
    assert sep["separation"] == pytest.approx(iid["separation"], abs=0.1)
    assert iid["separation"] == pytest.approx(2.8, abs=0.1)
    with pytest.raises(ValueError, match="separation = 2 must be 0"):
        planted.family_params("gaussian", 2.0)
    with pytest.raises(ValueError, match="queries_per_state = 40"):
        rc.simulate_recall(rc.RecallConfig(n_blocks=N, d=D, k=K, queries_per_state=40), 0)


def _closed_form_recall(r, s_sep, k, m):
    """Recall of a tied planted set at S under reading noise r (both in bulk σ): module test docstring."""
    t = np.linspace(-7, 7, 701)[:, None]
    y = s_sep + r[None, :] * t
    pa = norm.sf(t)  # another planted reading above y
    pb = norm.sf(y / np.sqrt(1 + r[None, :] ** 2))  # a bulk reading above y
    a = np.arange(k)[:, None, None]
    inside = (binom.pmf(a, k - 1, pa[None]) * binom.cdf(k - 1 - a, m, pb[None])).sum(axis=0)
    return np.trapezoid(norm.pdf(t) * inside, t[:, 0], axis=0)


def test_planted_recall_matches_closed_form_for_gaussian_score_noise():
    """Closed form. ``planted-tied`` at separation S: query g's k planted blocks read exactly S
    and its M = N − k bulk blocks read z_b ~ N(0, 1) i.i.d. (bulk σ units); detector noise adds
    n ~ N(0, r²) to every reading independently, r = σ_rel/σ_bulk with σ_bulk the bulk σ of
    that query's readings (= the planted reading / S, since the planted read S·σ_bulk). For
    S = 8 the ideal top-k is the planted set (P(max of 1016 normals > 8) ≈ 1e-12). Readings
    are then independent: planted y ~ N(S, r²), bulk y ~ N(0, 1 + r²). A planted block is in
    the photonic top-k iff fewer than k other readings exceed it; given its reading y the
    counts above are independent binomials A ~ Bin(k − 1, Q((y − S)/r)) and
    B ~ Bin(M, Q(y/√(1 + r²))), so by symmetry over the planted blocks

        recall = ∫ φ(t) · P(A + B ≤ k − 1 | y = S + r·t) dt,
        P(A + B ≤ k − 1) = Σ_{a<k} Bin(a; k − 1, Q(t)) · BinCDF(k − 1 − a; M, Q(y/√(1 + r²))),

    a 1-D quadrature, averaged over the trials' r (σ_bulk varies with each state's scaling
    by max |w| and max |x|; conditioning on the max of 32 k entries leaves the scores'
    distribution unchanged to O(1/32 k))."""
    s_sep, sigma_rel, n_trials = 8.0, 0.035, 4096
    cfg = rc.RecallConfig(n_blocks=N, d=D, k=K, n_trials=n_trials, queries_per_state=G, separation=s_sep,
                          planted_spread=0.0, noise_rel=sigma_rel, confidence=0.99)
    res = rc.simulate_recall(cfg, 5)
    w, x, pl = planted.draw_planted(n_trials // G, N, D, K, G, separation=s_sep, spread=0.0, key=5)
    planted_reading = np.einsum("sgd,sgd->sg", w[np.arange(w.shape[0])[:, None], pl[:, :, 0]], x) / D
    r = (sigma_rel / (planted_reading / s_sep)).ravel()
    r_grid = np.linspace(r.min(), r.max(), 40)  # the recall is smooth in r: interpolate
    expected = np.interp(r, r_grid, _closed_form_recall(r_grid, s_sep, K, N - K)).mean()
    assert 0.3 < expected < 0.9  # a regime where recall is informative
    assert res.ci_low <= expected <= res.ci_high, (res, expected)


def test_common_mode_drift_alone_leaves_a_well_separated_top_k_intact():
    """A common shift moves every ring's weight by the same smooth function of its weight, so
    at S = 8 (planted top-k 8 bulk σ above the bulk) the top-k survives σ_c = 0.01 nm
    (6 % of the linewidth), while the same σ drawn per ring (independent errors) loses blocks."""
    base = rc.RecallConfig(n_blocks=N, d=D, k=K, n_trials=2048, queries_per_state=G, separation=8.0)
    common = rc.simulate_recall(base.replace(drift_common_sigma_nm=0.01), 2, paths=rc.PATHS)
    ring = rc.simulate_recall(base.replace(drift_sigma_nm=0.01), 2, paths=rc.PATHS)
    assert common.mean >= 0.995, common
    assert ring.ci_high < common.ci_low, (ring, common)
    # the lock loop removes the common part up to its residual
    locked = rc.simulate_recall(base.replace(drift_common_sigma_nm=0.05, lock_residual_nm=0.0), 2, paths=rc.PATHS)
    assert locked.mean == 1.0


def test_split_drift_and_detector_noise_from_the_link_budget():
    ch = impairments.split_drift(0.02, 0.75)
    assert ch["drift_common_sigma_nm"] ** 2 + ch["drift_sigma_nm"] ** 2 == pytest.approx(0.02**2)
    assert ch["drift_common_sigma_nm"] == pytest.approx(0.02 * math.sqrt(0.75))
    # σ_rel = √(2(R·NEP)²B + 2qRPB + 4qI_dB)/(R·P): referenced to the received full scale
    r, p, b, e = 0.95, 10e-6, 1e9, 1.602176634e-19
    assert impairments.detector_noise_rel(10e-12, p, b) == pytest.approx(
        math.sqrt(2 * (r * 10e-12) ** 2 * b + 2 * e * r * p * b + 4 * e * 1.3e-9 * b) / (r * p))
    with pytest.raises(ValueError, match="common_fraction"):
        impairments.split_drift(0.01, 1.5)
    with pytest.raises(ValueError, match="axis 'bogus'"):
        impairments.axis_changes("bogus", 1.0, power_w=p, bandwidth_hz=b, base_drift=(0.01, 0.0))
    cases = recall_seed.seed_cases(0.01, drift="common")
    assert cases[2][1] == {"drift_common_sigma_nm": 0.01}


def test_recall_grid_is_monotone_in_both_axes(tmp_path):
    base = rc.RecallConfig(n_blocks=256, d=16, k=8, n_trials=512, queries_per_state=8)
    g = impairments.recall_grid(base, "drift_sigma_nm", [0.0, 0.01, 0.03], "separation", [0.0, 6.0])
    assert g.mean.shape == (2, 3) and g.mean[0, 0] == 1.0 and g.mean[1, 0] == 1.0
    assert np.all(np.diff(g.mean, axis=1) < 0) and np.all(g.mean[1, 1:] > g.mean[0, 1:])
    impairments.plot_grids([g], tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"


def test_topk_semantics_ties_to_lower_index():
    v = np.array([[0.1, 0.5, 0.5, -1.0, 0.3, 0.5], [3.0, 2.0, 2.0, 2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(rc.exact_topk(v, 2), [[1, 2], [0, 1]])
    np.testing.assert_array_equal(rc.exact_topk(v, 3), [[1, 2, 5], [0, 1, 2]])
    mask = np.asarray(kern.topk_mask(v, 3))
    np.testing.assert_array_equal(mask, [[0, 1, 1, 0, 0, 1], [1, 1, 1, 0, 0, 0]])
    rows = np.random.default_rng(1).integers(0, 5, (200, 40)).astype(float)  # many ties
    for k in (1, 4, 9):
        ref = np.argsort(-rows, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(rc.exact_topk(rows, k), ref)
        m = np.asarray(kern.topk_mask(rows, k))
        np.testing.assert_array_equal(np.sort(np.nonzero(m)[1].reshape(-1, k), axis=1), np.sort(ref, axis=1))
        np.testing.assert_array_equal(np.asarray(kern.topk_indices(rows, k)), ref)


def test_bootstrap_by_level_counts_matches_index_resampling():
    """Resampling the counts of recall's k + 1 levels is the same distribution as resampling
    trial indices: both CIs agree within the resampling noise."""
    v = np.random.default_rng(2).integers(0, 9, 3000) / 8
    by_counts = rc.bootstrap_ci(v, 0.95, n_boot=4000)
    by_index = rc.bootstrap_ci(v + np.arange(v.size) * 1e-12, 0.95, n_boot=4000)  # distinct values: index path
    assert by_counts == pytest.approx(by_index, abs=0.002)  # half-width 0.012; endpoint noise of 4000 resamples ≈ 0.0005
    half = 1.96 * v.std() / math.sqrt(v.size)
    assert (by_counts[1] - by_counts[0]) / 2 == pytest.approx(half, rel=0.1)
    clustered = rc.bootstrap_ci(np.repeat(v[:375], 8), 0.95, cluster_size=8)  # 375 states of 8 equal trials
    assert (clustered[1] - clustered[0]) / 2 == pytest.approx(1.96 * v[:375].std() / math.sqrt(375), rel=0.15)


def test_results_do_not_depend_on_chunking():
    cfg = rc.RecallConfig(n_blocks=128, d=16, k=4, n_trials=77, queries_per_state=4, drift_sigma_nm=0.004,
                          drift_common_sigma_nm=0.003, weight_bits=5, fab_sigma_nm=0.002, trim_voltage_v=0.2,
                          noise_rel=0.003, gain_sigma_db=0.1, dac_bits=5, crosstalk=rc.adjacent_crosstalk(16, -25.0),
                          separation=2.0)
    a = rc.simulate_recall(cfg, 11, chunk_states=1)
    b = rc.simulate_recall(cfg, 11, chunk_states=7)
    c = rc.simulate_recall(cfg, 11)
    np.testing.assert_array_equal(a.per_trial, b.per_trial)
    np.testing.assert_array_equal(a.per_trial, c.per_trial)
    assert 0 < a.mean < 1
    calls = []
    rc.simulate_recall(cfg, 11, chunk_states=5, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (20, 20) and len(calls) == 4


BANK_SHARDING_SCRIPT = """
import jax, numpy as np
from prismpic.analysis.recall import monte_carlo as rc
assert len(jax.devices()) == 2, jax.devices()
r = np.random.default_rng(0)
w = r.uniform(-1, 1, (96, 8)); x = r.uniform(-1, 1, (45, 8))
cfg = rc.RecallConfig(n_blocks=96, d=8, k=4, n_trials=45, queries_per_state=4, drift_sigma_nm=0.004, drift_common_sigma_nm=0.004,
                      weight_bits=5, noise_rel=0.003, gain_sigma_db=0.1, crosstalk=rc.adjacent_crosstalk(8, -25.0))
two = rc.simulate_recall(cfg, 3, w, x, chunk_states=3, return_selected=True)
one = rc.simulate_recall(cfg, 3, w, x, devices=jax.devices()[:1], return_selected=True)
assert two.n_shards == 2 and one.n_shards == 1
np.testing.assert_array_equal(two.per_trial, one.per_trial)
np.testing.assert_array_equal(two.selected, one.selected)
assert 0 < two.mean < 1
print("OK")
"""


def test_given_bank_is_bit_identical_over_devices_and_chunks():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", BANK_SHARDING_SCRIPT], env=env, cwd=root, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "OK" in out.stdout
