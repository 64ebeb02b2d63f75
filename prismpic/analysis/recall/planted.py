"""Synthetic banks with a stated top-k separation: the planted family and the i.i.d. Gaussian null.

Recall under impairments depends above all on how far the true top-k stand above the
other blocks, so every synthetic recall figure is given against a separation S.

One chip state holds a bank of N signatures (d values) and G ≤ d queries:

- queries x_1 … x_G orthonormal: the first G columns of a Haar-random orthogonal matrix
  (QR of a d × G Gaussian matrix, signs of R's diagonal folded in);
- bulk signatures z_b ~ N(0, I_d), i.i.d.;
- query g owns k planted blocks T_g (disjoint, evenly spaced from a random offset; the
  bulk is i.i.d., so their positions matter only for exact ties), w_b = z_b + (S + (τ − 1)·(z_b·x_g))·x_g, so that w_b·x_g = S + τ·(z_b·x_g).

For query g every block outside T_g scores z_b·x_g ~ N(0, 1), independently across
blocks (the queries are orthogonal, so other queries' plants do not show in its scores),
and its planted blocks score N(S, τ²): S is how many bulk σ the planted top-k stand above
the bulk's mean. Members (``FAMILIES``):

- ``gaussian``: S = 0, the i.i.d. Gaussian null (bank and query i.i.d. Gaussian, as the
  PRISM authors' own recall code draws them); every score N(0, 1);
- ``planted``: τ = 1, the bulk's distribution shifted by S for the k planted blocks;
- ``planted-tied``: τ = 0, the k planted blocks tied at exactly S.

The true top-k is each query's ideal (float) top-k: the planted set when S is well above
the bulk's maximum (≈ 3.2 at N = 1024), a mix of planted and bulk blocks at S ≈ 2.
Scaling into the photonic range as ``signatures.scale_to_unit``: the bank by its largest
|w|, each query by its own largest |x| (positive scalings keep every ranking).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.analysis.recall import counter_rng as rng
from prismpic.checks import check_choice, check_range

FAMILIES = {"gaussian": 1.0, "planted": 1.0, "planted-tied": 0.0}  # name -> planted spread τ
STREAM_BANK, STREAM_QUERY, STREAM_PERM = 0, 1, 2


def family_params(name: str, separation: float) -> tuple[float, float]:
    """(separation S, planted spread τ) of a named family; ``gaussian`` needs S = 0."""
    check_choice("synthetic", name, tuple(FAMILIES))
    check_range("separation", separation, 0.0, 50.0)
    if name == "gaussian" and separation != 0:
        raise ValueError(f"separation = {separation:g} must be 0 for the 'gaussian' null model (use 'planted')")
    return float(separation), FAMILIES[name]


def check_sizes(n_blocks: int, d: int, k: int, group: int) -> None:
    """The family needs G ≤ d orthogonal queries and G·k ≤ N disjoint planted blocks."""
    if group > d:
        raise ValueError(f"queries_per_state = {group} must be <= d = {d} (orthogonal queries of one bank)")
    if group * k > n_blocks:
        raise ValueError(f"queries_per_state × k = {group * k} must be <= n_blocks = {n_blocks} (disjoint planted sets)")


def planted_state(key64, state, n_blocks: int, d: int, k: int, group: int, separation, spread):
    """One chip state's bank and queries (jnp, traceable in ``state``, S and τ).

    Returns:
        (bank (N, d) scaled to max |w| = 1, queries (G, d) each scaled to max |x| = 1,
        planted (G, k) block indices of each query).
    """
    z = rng.normal(rng.stream_seed(key64, state, STREAM_BANK), (n_blocks, d)).astype(jnp.float64)
    a = rng.normal(rng.stream_seed(key64, state, STREAM_QUERY), (d, group)).astype(jnp.float64)
    q, r = jnp.linalg.qr(a)
    x = (q * jnp.where(jnp.diagonal(r) < 0, -1.0, 1.0)).T  # (G, d) orthonormal, Haar
    # planted blocks: G·k positions evenly spaced from a random offset (the bulk is i.i.d., so
    # where they sit only matters for exact ties, broken to the lower index)
    step = n_blocks // (group * k)
    offset = (rng.bits(rng.stream_seed(key64, state, STREAM_PERM), ()) % jnp.uint64(n_blocks)).astype(jnp.int64)
    j = jnp.arange(group * k)
    planted = ((offset + j * step) % n_blocks).reshape(group, k)
    rel = (jnp.arange(n_blocks) - offset) % n_blocks
    owner = jnp.where((rel % step == 0) & (rel // step < group * k), rel // step // k, -1)
    zx = z @ x.T  # (N, G) bulk scores z_b·x_g
    coef = jnp.where(owner[:, None] == jnp.arange(group), separation + (spread - 1.0) * zx, 0.0)
    w = z + coef @ x
    w = w / jnp.max(jnp.abs(w))
    x = x / jnp.max(jnp.abs(x), axis=1, keepdims=True)
    return w, x, planted


def draw_planted(n_states: int, n_blocks: int = 1024, d: int = 32, k: int = 8, group: int = 8,
                 separation: float = 0.0, spread: float = 1.0, key=0):
    """NumPy arrays of ``n_states`` states: banks (S, N, d), queries (S, G, d), planted (S, G, k);
    the same draws ``recall.simulate_recall`` makes for a drawn bank with this key."""
    check_sizes(n_blocks, d, k, group)
    check_range("spread", spread, 0.0, 1.0)
    key64 = rng.key_to_u64(key)
    f = jax.jit(jax.vmap(lambda s: planted_state(key64, s, n_blocks, d, k, group, separation, spread)))
    w, x, p = f(jnp.arange(n_states, dtype=jnp.uint64))
    return np.asarray(w), np.asarray(x), np.asarray(p)


def measured_separation(scores, k: int = 8, far: int = 20) -> dict:
    """How far a score set's top-k stand above the rest, in the family's terms.

    Per query (row): S = (mean of the top k − mean of the others) / SD of the others (the
    family's separation), and the gap between the k-th and the ``far``-th score in the same
    SD. Returns the medians over queries: {"separation", "gap_k_far", "k", "far"}.
    """
    s = -np.sort(-np.atleast_2d(np.asarray(scores, dtype=float)), axis=1)
    if not 1 <= k < far <= s.shape[1] or s.shape[1] - k < 2:
        raise ValueError(f"k = {k}, far = {far} must satisfy 1 <= k < far <= n_blocks = {s.shape[1]}")
    rest = s[:, k:]
    sd = np.maximum(rest.std(axis=1, ddof=1), 1e-300)
    sep = (s[:, :k].mean(axis=1) - rest.mean(axis=1)) / sd
    gap = (s[:, k - 1] - s[:, far - 1]) / sd
    return {"separation": float(np.median(sep)), "gap_k_far": float(np.median(gap)), "k": k, "far": far}
