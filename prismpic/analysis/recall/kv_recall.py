"""Recall on real keys and queries: per layer and head, each signature scheme, with and without
the photonic impairments, the attention error of the selection, and a needle-in-a-haystack test.

For one head: the keys (n_tokens, d_head) are cut into blocks (``kv_data.block_store``);
the truth is the exact block top-k of each query (``signatures.block_scores``, ``max`` of
q·k over the block: does the block hold a key the query attends to strongly). The
queries alternate between evaluation (even rows) and training (odd rows, for the learned
schemes), so a learned map never sees the queries it is judged on. Per scheme:

- ``scheme``: recall@k of the float signature top-k against the truth (S1-08's question);
- ``photonic``: recall@k of the photonic top-k under impairments against the truth;
- ``hardware``: the photonic top-k against the float signature top-k (the chip alone);
- the attention error of attending only the photonic selection (``attention_error``).

Signature dimensions follow S1-08's compression at d_head = 128 (mean 128, PCA/random/
learned 32, cascade 64): d_head, d_head/4, d_head/4, d_head/4 and d_head/2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from prismpic.analysis.recall import planted, signatures
from prismpic.analysis.recall.attention_error import attention_error
from prismpic.analysis.recall.kv_data import KVCache, block_store
from prismpic.analysis.recall.monte_carlo import PATHS, RecallConfig, adjacent_crosstalk, exact_topk, simulate_recall
from prismpic.checks import check_choice

DIM_FRACTION = {"mean": 1.0, "pca": 0.25, "random": 0.25, "learned": 0.25, "cascade": 0.5}


def scheme_dim(scheme: str, d_head: int) -> int:
    """Signature dimension of a scheme at S1-08's compression ratios."""
    check_choice("scheme", scheme, signatures.SCHEMES)
    return max(2 if scheme == "cascade" else 1, round(DIM_FRACTION[scheme] * d_head))


@dataclass(frozen=True)
class HeadData:
    """One head as a block store: blocks (n_blocks, B, d), values or None, evaluation and
    training queries, the truth scores (n_eval, n_blocks) and the softmax scale."""

    layer: int
    head: int
    blocks: np.ndarray
    values: np.ndarray | None
    eval_queries: np.ndarray
    train_queries: np.ndarray
    truth: np.ndarray
    scale: float


def head_data(cache: KVCache, layer: int, head: int, block_size: int, queries: np.ndarray | None = None) -> HeadData:
    """The head's block store and queries (all of ``queries`` are evaluated when given)."""
    k, q, v = cache.head(layer, head)
    blocks = block_store(k, block_size)
    vb = None if v is None else block_store(v, block_size, "block_size (values)")
    ev, tr = (q[0::2], q[1::2]) if queries is None else (np.atleast_2d(queries), q)
    if ev.shape[0] < 1:
        raise ValueError("the cache has no evaluation queries")
    return HeadData(layer, head, blocks, vb, ev, tr, signatures.block_scores(blocks, ev, "max"), cache.softmax_scale)


def _signatures(hd: HeadData, scheme: str) -> signatures.Signatures:
    d = scheme_dim(scheme, hd.blocks.shape[2])
    tr = hd.train_queries if scheme in ("learned", "cascade") else None
    if tr is not None and tr.shape[0] < 2:
        raise ValueError(f"scheme {scheme!r} needs >= 2 training queries (the cache's odd query rows); found {tr.shape[0]}")
    return signatures.make_signatures(hd.blocks, hd.eval_queries, scheme, d, train_queries=tr)


def _with_crosstalk(changes: dict, d: int) -> dict:
    """A case's ``crosstalk_db`` (dimension-free) as the adjacent crosstalk matrix of this d."""
    if "crosstalk_db" not in changes:
        return changes
    ch = {k: v for k, v in changes.items() if k != "crosstalk_db"}
    return {**ch, "crosstalk": adjacent_crosstalk(d, changes["crosstalk_db"])}


def scheme_row(hd: HeadData, scheme: str, cases, *, base: RecallConfig, k: int = 8, repeats: int = 4, key=0) -> list[dict]:
    """One head and scheme under each (name, config changes) case: recall rows (module docstring).
    A case may give ``crosstalk_db`` (adjacent-channel crosstalk at this scheme's d)."""
    sig = _signatures(hd, scheme)
    n_q = hd.eval_queries.shape[0]
    if k > hd.blocks.shape[0]:
        raise ValueError(f"k = {k} is outside the valid range [1, n_blocks = {hd.blocks.shape[0]}]")
    float_top = exact_topk(sig.scores(), k)
    truth_top = exact_topk(hd.truth, k)
    scheme_recall = signatures.topk_recall(float_top, truth_top).mean()
    sep = planted.measured_separation(hd.truth, k, min(20, hd.blocks.shape[0]))
    reps = lambda a: np.tile(a, (repeats, 1))  # noqa: E731
    cfg0 = base.replace(n_blocks=hd.blocks.shape[0], d=sig.d, k=k, n_trials=n_q * repeats)
    rows = []
    for name, changes in cases:
        changes = _with_crosstalk(changes, sig.d)
        r = simulate_recall(cfg0.replace(**changes), key, sig.blocks, reps(sig.queries),
                            reference_scores=reps(hd.truth), paths=PATHS, return_selected=True)
        hw = signatures.topk_recall(r.selected, reps(float_top)).mean()
        err = attention_error(reps(hd.eval_queries), hd.blocks, r.selected, hd.values, hd.scale).summary()
        rows.append({"layer": hd.layer, "head": hd.head, "scheme": scheme, "d": sig.d, "case": name,
                     "recall_scheme": float(scheme_recall), "recall": r.mean, "ci_low": r.ci_low,
                     "ci_high": r.ci_high, "recall_hardware": float(hw), "separation": sep["separation"],
                     "gap_k_20": sep["gap_k_far"], **err})
    return rows


def needle_rows(cache: KVCache, block_size: int, cases, *, base: RecallConfig, k: int = 8, scheme: str = "pca",
                heads=None, repeats: int = 16, key=0) -> list[dict]:
    """Needle-in-a-haystack per head: the fraction of planted needles whose block is in the
    exact top-k (full attention's own choice), in the float signature top-k, and in the
    photonic top-k under each case. A needle's query is the mean of its question's token
    queries; its block holds the needle's first token (needles sit at block starts)."""
    owner = np.asarray(cache.metadata.get("query_question", []))
    spans = cache.metadata.get("needle_tokens", [])
    if not spans or owner.size != cache.queries.shape[2]:
        raise ValueError("the cache has no needles (metadata 'needle_tokens' and 'query_question'): "
                         "build it with minilm.document_cache(needles=…, questions=…)")
    target = np.array([s[0] // block_size for s in spans])
    rows = []
    for layer, head in heads or [(lay, h) for lay in range(cache.n_layers) for h in range(cache.n_heads)]:
        q = cache.head(layer, head)[1]
        mq = np.stack([q[owner == i].mean(axis=0) for i in range(len(spans))])
        hd = head_data(cache, layer, head, block_size, queries=mq)
        sig = signatures.make_signatures(hd.blocks, mq, scheme, scheme_dim(scheme, hd.blocks.shape[2]))
        hit = lambda top: np.any(top == target[:, None], axis=1)  # noqa: E731
        row = {"layer": layer, "head": head, "scheme": scheme, "full": float(hit(exact_topk(hd.truth, k)).mean()),
               "signature": float(hit(exact_topk(sig.scores(), k)).mean())}
        cfg = base.replace(n_blocks=hd.blocks.shape[0], d=sig.d, k=k, n_trials=len(spans) * repeats)
        for name, changes in cases:
            r = simulate_recall(cfg.replace(**_with_crosstalk(changes, sig.d)), key, sig.blocks, np.tile(sig.queries, (repeats, 1)),
                                paths=PATHS, return_selected=True)
            row[name] = float(np.any(r.selected == np.tile(target, repeats)[:, None], axis=1).mean())
        rows.append(row)
    return rows
