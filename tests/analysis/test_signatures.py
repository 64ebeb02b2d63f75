"""Synthetic KV data, exact block top-k, and the signature schemes."""

import numpy as np
import pytest

from prismpic.analysis.recall import signatures as sg


@pytest.fixture(scope="module")
def kv():
    return sg.synthetic_kv(n_blocks=120, block_size=16, d_head=32, n_queries=40, n_clusters=6, seed=3)


def test_synthetic_kv_shapes_seed_and_structure(kv):
    assert kv.keys.shape == (120, 16, 32)
    assert kv.queries.shape == (40, 32)
    again = sg.synthetic_kv(n_blocks=120, block_size=16, d_head=32, n_queries=40, n_clusters=6, seed=3)
    np.testing.assert_array_equal(kv.keys, again.keys)
    np.testing.assert_array_equal(kv.queries, again.queries)
    other = sg.synthetic_kv(n_blocks=120, block_size=16, d_head=32, n_queries=40, n_clusters=6, seed=4)
    assert not np.array_equal(kv.keys, other.keys)


def test_synthetic_queries_find_their_block_and_topic():
    """At d_head = 256 the scores concentrate: per component the target key has |k|² ≈
    1 + 0.25 + 1 = 2.25 (topic, block, token variances), so q·k_target ≈ 576 ± 55, while
    another token of the same block gives ≈ 1.25·256 = 320 with fluctuations ≈ 35 (max of
    16 tokens ≈ +2σ), and other topics ≈ 0: the target block tops the max score and its
    topic mates (≈ 256) fill the rest of the top-8 ahead of other topics."""
    kv = sg.synthetic_kv(n_blocks=60, block_size=16, d_head=256, n_queries=40, n_clusters=4, seed=3)
    top = sg.exact_topk(sg.block_scores(kv.keys, kv.queries, "max"), 8)
    assert np.mean(top[:, 0] == kv.query_targets) >= 0.95
    same = kv.block_topics[top[:, 1:]] == kv.block_topics[kv.query_targets][:, None]
    assert same.mean() >= 0.9


def test_common_offset_does_not_change_exact_ranking():
    a = sg.synthetic_kv(60, 8, 16, 10, 4, seed=1)
    b = sg.synthetic_kv(60, 8, 16, 10, 4, seed=1, common_offset=3.0)
    for reduce in sg.REDUCES:
        np.testing.assert_array_equal(
            sg.exact_topk(sg.block_scores(a.keys, a.queries, reduce), 8),
            sg.exact_topk(sg.block_scores(b.keys, b.queries, reduce), 8),
        )


def test_block_scores_definitions():
    rng = np.random.default_rng(0)
    keys = rng.standard_normal((5, 4, 3))
    q = rng.standard_normal((2, 3))
    brute_max = np.array([[max(q[i] @ keys[b, t] for t in range(4)) for b in range(5)] for i in range(2)])
    np.testing.assert_allclose(sg.block_scores(keys, q, "max"), brute_max, rtol=1e-12)
    np.testing.assert_allclose(sg.block_scores(keys, q, "mean"), q @ keys.mean(axis=1).T, rtol=1e-12)


def test_exact_topk_order_and_ties():
    s = np.array([[0.1, 0.5, 0.5, -1.0, 0.3]])
    np.testing.assert_array_equal(sg.exact_topk(s, 3), [[1, 2, 4]])
    np.testing.assert_array_equal(sg.topk_recall([[1, 2, 4]], [[4, 1, 0]]), [2 / 3])


def test_pca_recovers_known_axes_and_variance_order():
    rng = np.random.default_rng(1)
    n, d_in = 4000, 12
    u, _ = np.linalg.qr(rng.standard_normal((d_in, d_in)))
    sigmas = np.array([5.0, 3.0, 2.0, 1.0])  # rank-4 data with known axes u[:, :4]
    x = (rng.standard_normal((n, 4)) * sigmas) @ u[:, :4].T + 7.0
    mu, comps, var = sg.pca_basis(x, 4)
    np.testing.assert_allclose(mu, x.mean(axis=0))
    np.testing.assert_allclose(np.abs(np.sum(comps * u[:, :4], axis=0)), 1.0, atol=2e-3)
    # sample variances of the axes: σ²·(1 ± a few/√n)
    np.testing.assert_allclose(var, sigmas**2, rtol=0.08)
    assert np.all(np.diff(var) < 0)
    np.testing.assert_allclose(comps.T @ comps, np.eye(4), atol=1e-12)


def test_random_projection_preserves_inner_products_jl():
    """For unit u, v with u·v = c and R with N(0, 1/d) entries, (uR)·(vR) has mean c and
    variance (1 + c²)/d."""
    d_in, d, c, n_rep = 64, 32, 0.6, 400
    u = np.zeros(d_in)
    u[0] = 1
    v = np.zeros(d_in)
    v[0], v[1] = c, np.sqrt(1 - c**2)
    vals = np.array([(u @ r) @ (v @ r) for r in (sg.random_projection(d_in, d, seed) for seed in range(n_rep))])
    sd = np.sqrt((1 + c**2) / d)
    assert abs(vals.mean() - c) < 4 * sd / np.sqrt(n_rep)
    # the sample SD of 400 draws is within ±15 % of the true SD with > 99.9 % probability
    assert vals.std(ddof=1) == pytest.approx(sd, rel=0.15)
    np.testing.assert_array_equal(sg.random_projection(8, 4, 5), sg.random_projection(8, 4, 5))


@pytest.mark.parametrize("scheme, d", [("mean", None), ("pca", 32)])
def test_identity_scheme_reproduces_exact_topk(kv, scheme, d):
    """Mean key (d = d_head) and full-rank PCA are exact for the mean block score."""
    sig = sg.make_signatures(kv.keys, kv.queries, scheme, d)
    assert sig.d == 32
    truth = sg.exact_topk(sg.block_scores(kv.keys, kv.queries, "mean"), 8)
    np.testing.assert_array_equal(sg.exact_topk(sig.scores(), 8), truth)
    assert sg.scheme_recall(sig, kv.keys, kv.queries, 8, "mean") == 1.0


def test_scaling_into_unit_range(kv):
    sig = sg.make_signatures(kv.keys, kv.queries, "random", 16, seed=2)
    assert np.max(np.abs(sig.blocks)) == pytest.approx(1.0)
    np.testing.assert_allclose(np.max(np.abs(sig.queries), axis=1), 1.0)
    raw_scores = (sig.queries * sig.query_scale[:, None]) @ (sig.blocks * sig.block_scale).T
    np.testing.assert_array_equal(sg.exact_topk(raw_scores, 5), sg.exact_topk(sig.scores(), 5))


def test_learned_projection_exact_on_rank_d_data():
    """Keys and queries in a d-dim subspace: the mean-score matrix has rank ≤ d, the ALS fit
    is exact, and held-out queries are ranked exactly."""
    rng = np.random.default_rng(2)
    d_head, d, n_blocks = 24, 6, 50
    basis, _ = np.linalg.qr(rng.standard_normal((d_head, d)))
    keys = rng.standard_normal((n_blocks, 8, d)) @ basis.T
    train = rng.standard_normal((60, d)) @ basis.T
    test = rng.standard_normal((20, d)) @ basis.T
    for scheme, dim in [("learned", d), ("cascade", 2 * d)]:
        sig = sg.make_signatures(keys, test, scheme, dim, train_queries=train, reduce="mean")
        truth = sg.block_scores(keys, test, "mean")
        got = sig.scores() * sig.query_scale[:, None] * sig.block_scale * sig.d
        centred = truth - truth.mean(axis=1, keepdims=True)
        np.testing.assert_allclose(got - got.mean(axis=1, keepdims=True), centred, atol=1e-9)


def test_load_kv_roundtrip_and_validation(tmp_path, kv):
    kp, qp = tmp_path / "k.npy", tmp_path / "q.npy"
    np.save(kp, kv.keys.reshape(-1, 32))
    np.save(qp, kv.queries)
    keys, queries = sg.load_kv(kp, qp, block_size=16)
    np.testing.assert_array_equal(keys, kv.keys)
    np.testing.assert_array_equal(queries, kv.queries)
    with pytest.raises(ValueError, match="block_size"):
        sg.load_kv(kp, qp)
    with pytest.raises(ValueError, match="block_size"):
        sg.load_kv(kp, qp, block_size=7)
    np.save(qp, kv.queries[:, :10])
    with pytest.raises(ValueError, match="d_head"):
        sg.load_kv(kp, qp, block_size=16)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda kv: sg.make_signatures(kv.keys, kv.queries, "bogus"), "scheme"),
        (lambda kv: sg.make_signatures(kv.keys, kv.queries, "mean", 16), "d = 16"),
        (lambda kv: sg.make_signatures(kv.keys, kv.queries, "pca", 64), "d = 64"),
        (lambda kv: sg.make_signatures(kv.keys, kv.queries, "learned", 8), "train_queries"),
        (lambda kv: sg.block_scores(kv.keys, kv.queries, "median"), "reduce"),
        (lambda kv: sg.exact_topk(np.zeros((2, 5)), 6), "k = 6"),
        (lambda kv: sg.validate_kv(kv.keys[0], kv.queries), "keys shape"),
        (lambda kv: sg.validate_kv(kv.keys, np.full((2, 32), np.nan)), "finite"),
        (lambda kv: sg.synthetic_kv(n_blocks=0), "n_blocks"),
        (lambda kv: sg.synthetic_kv(query_noise=-1.0), "query_noise"),
    ],
)
def test_validation(kv, call, match):
    with pytest.raises(ValueError, match=match):
        call(kv)
