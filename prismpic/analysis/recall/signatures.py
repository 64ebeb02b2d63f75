"""Synthetic KV blocks, exact block top-k, and the block-signature schemes of seed S1-08.

A signature scheme turns a KV block (block_size keys of d_head values) into d weights
for one PRISM channel, and a query into a d-value sketch, such that the sketch·signature
inner product ranks blocks like the exact block score does. Schemes (all linear):

- ``mean``: the block's mean key (d = d_head); exact for the ``mean`` block score.
- ``pca``: centred mean keys projected on their top-d principal axes; the query sketch is
  the query projected on the same axes. Centring shifts every block's score for a query
  by the same q·μ, so rankings are unchanged.
- ``random``: a seeded Gaussian projection R (d_head × d, entries N(0, 1/d)) of mean key
  and query; E[(qR)·(mR)] = q·m (Johnson–Lindenstrauss).
- ``learned``: a query map A (d_head × d) and block signatures σ_b fitted by alternating
  least squares so that (qA)·σ_b matches the exact block scores (``reduce``) of a set of
  *training* queries, centred per query (only differences between blocks matter for a
  ranking). For fixed A, σ_b = (Q_train A)⁺ s_b, with s_b the block's column of training
  scores, so a new block's signature is a fixed linear function of its training scores;
  for fixed σ, A = Q⁺ S Σ⁺ᵀ. Initialised with the training queries' principal axes.
- ``cascade``: the ``pca`` mean-key signature (d_mean dims) concatenated with a learned
  stage (d − d_mean dims) fitted to the scores the first stage misses.

Scaling into the photonic weight range: a bank's signatures are divided by their largest
magnitude (one scalar per bank, so |w| ≤ 1 with the largest at exactly 1), and each query
sketch by its own largest magnitude. Both are positive scalings and keep every ranking.
Scores are reported as the normalised reading (1/d)·Σᵢ wᵢxᵢ ∈ [-1, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from prismpic.checks import check_choice, check_nonnegative

SCHEMES = ("mean", "pca", "random", "learned", "cascade")
REDUCES = ("max", "mean")


def _check_int(name: str, value, lo: int = 1, hi: int | None = None) -> int:
    if not isinstance(value, (int, np.integer)) or value < lo or (hi is not None and value > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f"[{lo}, inf)"
        raise ValueError(f"{name} = {value!r} must be an integer in {rng}")
    return int(value)


@dataclass(frozen=True)
class SyntheticKV:
    """Synthetic keys and queries with block-level topic structure.

    Attributes:
        keys: (n_blocks, block_size, d_head).
        queries: (n_queries, d_head).
        block_topics: (n_blocks,) topic of each block.
        query_targets: (n_queries,) the block whose key each query was drawn near.
    """

    keys: np.ndarray
    queries: np.ndarray
    block_topics: np.ndarray
    query_targets: np.ndarray


def synthetic_kv(
    n_blocks: int = 256,
    block_size: int = 64,
    d_head: int = 128,
    n_queries: int = 64,
    n_clusters: int = 16,
    seed: int = 0,
    *,
    block_spread: float = 0.5,
    token_spread: float = 1.0,
    query_noise: float = 1.0,
    common_offset: float = 0.0,
) -> SyntheticKV:
    """Seeded synthetic keys with topics, and queries that look for one key.

    Generative model (per component; keys and queries are finally multiplied by
    d_head^(-1/4), so q·k grows like √d_head rather than d_head; rankings do not care):

    - topic centres c_j ~ N(0, 1), j < n_clusters;
    - block b has topic z_b ~ U{0..n_clusters-1} and centre m_b = c_{z_b} + block_spread·N(0, 1);
    - token keys k_bt = m_b + token_spread·N(0, 1) + common_offset·u, u a fixed random unit
      direction times √d_head (real keys share a large common component; it moves every
      block's score for a query equally and so does not change the exact ranking);
    - query i picks a target block b_i and token t_i and is q_i = k_{b_i t_i} − common_offset·u
      + query_noise·N(0, 1).

    So the target block tops the ``max`` block score, and blocks of the same topic follow.

    Args:
        n_blocks, block_size, d_head, n_queries, n_clusters: sizes (integers ≥ 1).
        seed: NumPy seed; the same seed gives identical arrays.
        block_spread, token_spread, query_noise, common_offset: ≥ 0, in units of the
            topic-centre spread.
    """
    n_blocks = _check_int("n_blocks", n_blocks)
    block_size = _check_int("block_size", block_size)
    d_head = _check_int("d_head", d_head)
    n_queries = _check_int("n_queries", n_queries)
    n_clusters = _check_int("n_clusters", n_clusters)
    for name, v in [
        ("block_spread", block_spread),
        ("token_spread", token_spread),
        ("query_noise", query_noise),
        ("common_offset", common_offset),
    ]:
        check_nonnegative(name, v)
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n_clusters, d_head))
    topics = rng.integers(0, n_clusters, n_blocks)
    block_centres = centres[topics] + block_spread * rng.standard_normal((n_blocks, d_head))
    u = rng.standard_normal(d_head)
    u *= np.sqrt(d_head) / np.linalg.norm(u)
    keys = block_centres[:, None, :] + token_spread * rng.standard_normal((n_blocks, block_size, d_head))
    keys = keys + common_offset * u
    targets = rng.integers(0, n_blocks, n_queries)
    tokens = rng.integers(0, block_size, n_queries)
    queries = keys[targets, tokens] - common_offset * u + query_noise * rng.standard_normal((n_queries, d_head))
    scale = d_head**-0.25
    return SyntheticKV(keys=keys * scale, queries=queries * scale, block_topics=topics, query_targets=targets)


def validate_kv(keys, queries) -> tuple[np.ndarray, np.ndarray]:
    """Check shapes: keys (n_blocks, block_size, d_head), queries (n_queries, d_head) or
    (d_head,) (made 2-D); finite real values. Returns float arrays."""
    keys = np.asarray(keys)
    queries = np.asarray(queries)
    if keys.ndim != 3 or min(keys.shape) < 1:
        raise ValueError(f"keys shape {keys.shape} must be (n_blocks, block_size, d_head), all ≥ 1")
    if queries.ndim == 1:
        queries = queries[None, :]
    if queries.ndim != 2 or queries.shape[0] < 1:
        raise ValueError(f"queries shape {queries.shape} must be (n_queries, d_head) or (d_head,)")
    if queries.shape[1] != keys.shape[2]:
        raise ValueError(f"queries d_head = {queries.shape[1]} must equal keys d_head = {keys.shape[2]}")
    for name, a in [("keys", keys), ("queries", queries)]:
        if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
            raise ValueError(f"{name} dtype {a.dtype} must be real")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be finite (found NaN or inf)")
    return keys.astype(float), queries.astype(float)


def load_kv(keys_path, queries_path, *, block_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Load user keys and queries from ``.npy`` files and validate them.

    Args:
        keys_path: ``.npy`` with (n_blocks, block_size, d_head), or (n_tokens, d_head)
            together with ``block_size`` (n_tokens must be a multiple of it).
        queries_path: ``.npy`` with (n_queries, d_head) or (d_head,).
        block_size: tokens per block for 2-D keys.

    Returns:
        (keys (n_blocks, block_size, d_head), queries (n_queries, d_head)), float.
    """
    keys = np.load(Path(keys_path), allow_pickle=False)
    queries = np.load(Path(queries_path), allow_pickle=False)
    if keys.ndim == 2:
        if block_size is None:
            raise ValueError(f"keys shape {keys.shape} is 2-D: give block_size to split tokens into blocks")
        block_size = _check_int("block_size", block_size)
        if keys.shape[0] % block_size:
            raise ValueError(f"block_size = {block_size} must divide n_tokens = {keys.shape[0]}")
        keys = keys.reshape(keys.shape[0] // block_size, block_size, keys.shape[1])
    return validate_kv(keys, queries)


def block_scores(keys, queries, reduce: str = "max") -> np.ndarray:
    """Exact block scores, (n_queries, n_blocks): ``max`` or ``mean`` over the block of q·k.

    ``max`` (default) asks whether a block holds any key the query attends to strongly
    (what top-k block retrieval needs); ``mean`` equals q·(mean key).
    """
    check_choice("reduce", reduce, REDUCES)
    keys, queries = validate_kv(keys, queries)
    if reduce == "mean":
        return queries @ keys.mean(axis=1).T
    n_b, bs, d_head = keys.shape
    flat = keys.reshape(n_b * bs, d_head)
    out = np.empty((queries.shape[0], n_b))
    chunk = max(1, int(2**24 // (n_b * bs)))  # ≤ 16 M scores (128 MB) at a time
    for i in range(0, queries.shape[0], chunk):
        out[i : i + chunk] = (queries[i : i + chunk] @ flat.T).reshape(-1, n_b, bs).max(axis=2)
    return out


def exact_topk(scores, k: int) -> np.ndarray:
    """Indices of the k highest scores per row, best first, (n_queries, k); ties go to the
    lower index."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    _check_int("k", k, 1, scores.shape[1])
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


def topk_recall(selected, truth) -> np.ndarray:
    """Per-row recall |S ∩ T| / k of selected index sets against true ones, (n,)."""
    selected = np.atleast_2d(selected)
    truth = np.atleast_2d(truth)
    if selected.shape != truth.shape:
        raise ValueError(f"selected shape {selected.shape} must equal truth shape {truth.shape}")
    hits = (selected[:, :, None] == truth[:, None, :]).any(axis=2).sum(axis=1)
    return hits / truth.shape[1]


def mean_keys(keys) -> np.ndarray:
    """Mean key of each block, (n_blocks, d_head)."""
    keys = np.asarray(keys, dtype=float)
    if keys.ndim != 3:
        raise ValueError(f"keys shape {keys.shape} must be (n_blocks, block_size, d_head)")
    return keys.mean(axis=1)


def pca_basis(x, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Principal axes of the rows of x.

    Args:
        x: (n, d_in) data.
        d: number of axes, 1 ≤ d ≤ d_in.

    Returns:
        (mean (d_in,), components (d_in, d) orthonormal columns in order of decreasing
        variance, explained variance (d,) with the 1/(n − 1) normalisation).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"x shape {x.shape} must be (n ≥ 2, d_in)")
    d = _check_int("d", d, 1, x.shape[1])
    mu = x.mean(axis=0)
    # full V only when n < d_in (then U is small); otherwise the thin SVD already has all axes
    _, s, vt = np.linalg.svd(x - mu, full_matrices=x.shape[0] < x.shape[1])
    var = np.zeros(x.shape[1])
    var[: s.size] = s**2 / (x.shape[0] - 1)
    comps = vt[:d].T
    # Fix each axis's sign (largest-magnitude entry positive) so results are reproducible.
    signs = np.sign(comps[np.argmax(np.abs(comps), axis=0), np.arange(d)])
    return mu, comps * np.where(signs == 0, 1.0, signs), var[:d]


def random_projection(d_in: int, d: int, seed: int = 0) -> np.ndarray:
    """Seeded Gaussian projection (d_in, d) with entries N(0, 1/d), so E[RRᵀ] = I."""
    d_in = _check_int("d_in", d_in)
    d = _check_int("d", d)
    return np.random.default_rng(seed).standard_normal((d_in, d)) / np.sqrt(d)


@dataclass(frozen=True)
class LearnedProjection:
    """A fitted query map and the recipe for block signatures (see module docstring).

    Attributes:
        query_map: A, (d_head, d).
        train_queries: (n_train, d_head).
        reduce: block score the map was fitted to.
    """

    query_map: np.ndarray
    train_queries: np.ndarray
    reduce: str

    def block_signatures(self, keys, baseline=None) -> np.ndarray:
        """σ_b = (Q_train A)⁺ (s_b − baseline_b), (n_blocks, d); ``baseline`` (n_train,
        n_blocks) is what earlier stages already predict (cascade)."""
        s = _centred(block_scores(keys, self.train_queries, self.reduce))
        if baseline is not None:
            s = s - _centred(baseline)
        return (np.linalg.pinv(self.train_queries @ self.query_map) @ s).T


def _centred(s):
    return s - s.mean(axis=1, keepdims=True)


def fit_learned_projection(
    keys, train_queries, d: int, *, reduce: str = "max", n_iter: int = 20, baseline=None
) -> LearnedProjection:
    """Fit the learned projection by alternating least squares (module docstring).

    Args:
        keys: (n_blocks, block_size, d_head) of the bank the map is fitted on.
        train_queries: (n_train, d_head), kept apart from evaluation queries.
        d: sketch dimension.
        reduce: the block score to preserve.
        n_iter: ALS iterations (≥ 0; 0 keeps the PCA initialisation).
        baseline: scores already predicted by an earlier stage (n_train, n_blocks).
    """
    keys, q = validate_kv(keys, train_queries)
    d = _check_int("d", d, 1, q.shape[1])
    _check_int("n_iter", n_iter, 0)
    s = _centred(block_scores(keys, q, reduce))
    if baseline is not None:
        s = s - _centred(np.asarray(baseline, dtype=float))
    if q.shape[0] >= 2:
        _, a, _ = pca_basis(q, d)
    else:
        a = random_projection(q.shape[1], d)
    q_pinv = np.linalg.pinv(q)
    for _ in range(n_iter):
        sig = (np.linalg.pinv(q @ a) @ s).T  # (n_blocks, d)
        a = q_pinv @ s @ np.linalg.pinv(sig.T)
        a, _ = np.linalg.qr(a)  # same column space; keeps A well conditioned
    return LearnedProjection(query_map=a, train_queries=q, reduce=reduce)


@dataclass(frozen=True)
class Signatures:
    """Block signatures and query sketches scaled for the photonic weights.

    Attributes:
        scheme: scheme name.
        blocks: (n_blocks, d), |w| ≤ 1, max |w| = 1.
        queries: (n_queries, d), each row max |x| = 1 (all-zero rows stay zero).
        block_scale: raw signatures = blocks · block_scale.
        query_scale: (n_queries,), raw sketches = queries · query_scale[:, None].
    """

    scheme: str
    blocks: np.ndarray
    queries: np.ndarray
    block_scale: float
    query_scale: np.ndarray

    @property
    def d(self) -> int:
        """Signature dimension (number of wavelengths)."""
        return self.blocks.shape[1]

    def scores(self) -> np.ndarray:
        """Normalised photonic readings (1/d)·Σ wᵢxᵢ, (n_queries, n_blocks), in [-1, 1]."""
        return self.queries @ self.blocks.T / self.d


def scale_to_unit(raw_blocks, raw_queries, scheme: str = "custom") -> Signatures:
    """Scale a bank by its max |w| and each query sketch by its own max |x|."""
    raw_blocks = np.asarray(raw_blocks, dtype=float)
    raw_queries = np.atleast_2d(np.asarray(raw_queries, dtype=float))
    if raw_blocks.ndim != 2 or raw_queries.shape[1] != raw_blocks.shape[1]:
        raise ValueError(f"blocks {raw_blocks.shape} and queries {raw_queries.shape} must be (n, d) and (m, d)")
    bs = float(np.max(np.abs(raw_blocks)))
    bs = bs if bs > 0 else 1.0
    qs = np.max(np.abs(raw_queries), axis=1)
    qs = np.where(qs > 0, qs, 1.0)
    return Signatures(scheme, raw_blocks / bs, raw_queries / qs[:, None], bs, qs)


def make_signatures(
    keys,
    queries,
    scheme: str = "pca",
    d: int | None = None,
    *,
    train_queries=None,
    reduce: str = "max",
    seed: int = 0,
    d_mean: int | None = None,
    n_iter: int = 20,
) -> Signatures:
    """Block signatures and query sketches of one scheme, scaled into [-1, 1].

    Args:
        keys: (n_blocks, block_size, d_head).
        queries: (n_queries, d_head) to sketch.
        scheme: one of ``mean``, ``pca``, ``random``, ``learned``, ``cascade``.
        d: signature dimension; ``mean`` requires d in (None, d_head); others need
            1 ≤ d ≤ d_head (``cascade``: d ≥ 2). Default: d_head for ``mean``, else 32.
        train_queries: (n_train, d_head) for ``learned`` and ``cascade``.
        reduce: block score the learned stage preserves (``max`` or ``mean``).
        seed: for ``random``.
        d_mean: ``cascade`` first-stage dims (default d // 2).
        n_iter: ALS iterations for the learned stage.
    """
    check_choice("scheme", scheme, SCHEMES)
    check_choice("reduce", reduce, REDUCES)
    keys, queries = validate_kv(keys, queries)
    d_head = keys.shape[2]
    if d is None:
        d = d_head if scheme == "mean" else min(32, d_head)
    d = _check_int("d", d, 2 if scheme == "cascade" else 1, d_head)
    m = mean_keys(keys)
    if scheme == "mean":
        if d != d_head:
            raise ValueError(f"d = {d} must equal d_head = {d_head} for scheme 'mean'")
        return scale_to_unit(m, queries, scheme)
    if scheme in ("pca", "cascade"):
        d1 = d if scheme == "pca" else (d // 2 if d_mean is None else _check_int("d_mean", d_mean, 1, d - 1))
        if keys.shape[0] < 2:
            raise ValueError(f"n_blocks = {keys.shape[0]} must be ≥ 2 for a PCA signature")
        mu, v, _ = pca_basis(m, min(d1, d_head))
        blocks1, sketch1 = (m - mu) @ v, queries @ v
        if scheme == "pca":
            return scale_to_unit(blocks1, sketch1, scheme)
    if scheme == "random":
        r = random_projection(d_head, d, seed)
        return scale_to_unit(m @ r, queries @ r, scheme)
    if train_queries is None:
        raise ValueError(f"scheme = {scheme!r} needs train_queries (held out from the evaluation queries)")
    _, tq = validate_kv(keys, train_queries)
    if scheme == "learned":
        lp = fit_learned_projection(keys, tq, d, reduce=reduce, n_iter=n_iter)
        return scale_to_unit(lp.block_signatures(keys), queries @ lp.query_map, scheme)
    # cascade: the learned stage fits what the mean-key (PCA) stage misses on training queries
    base = (tq @ v) @ blocks1.T
    lp = fit_learned_projection(keys, tq, d - d1, reduce=reduce, n_iter=n_iter, baseline=base)
    blocks = np.concatenate([blocks1, lp.block_signatures(keys, baseline=base)], axis=1)
    sketch = np.concatenate([sketch1, queries @ lp.query_map], axis=1)
    return scale_to_unit(blocks, sketch, scheme)


def scheme_recall(signatures: Signatures, keys, queries, k: int = 8, reduce: str = "max") -> float:
    """Mean recall@k of a scheme's (float) signature ranking against the exact block top-k."""
    truth = exact_topk(block_scores(keys, queries, reduce), k)
    return float(topk_recall(exact_topk(signatures.scores(), k), truth).mean())
