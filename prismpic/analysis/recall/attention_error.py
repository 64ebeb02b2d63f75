"""What a block selection costs the attention: captured mass, KL divergence, output error.

Full attention of a query q over the store's tokens: p_t = softmax(β·q·k_t) (β the
softmax scale, 1/√d by default), output o = Σ_t p_t v_t. Attending only the tokens of the
selected blocks S renormalises p over them: p'_t = p_t / m for t ∈ S, m = Σ_{t∈S} p_t the
attention mass the selection captures, output o' = Σ_{t∈S} p'_t v_t. Then

- KL(p' ‖ p) = Σ_{t∈S} p'_t log(p'_t / p_t) = −log m (KL(p ‖ p') is infinite whenever a
  token with p_t > 0 is dropped, so the defined direction is the one reported);
- the relative output error ‖o' − o‖ / ‖o‖.

A miss among near-tied blocks costs little mass; a miss of the one block holding most of
the attention costs almost all of it, which recall@k alone cannot tell apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AttentionError:
    """Per-query effect of a selection (arrays of n_queries).

    Attributes:
        mass: attention mass m the selected blocks capture.
        kl: KL(p' ‖ p) = −log m (nats).
        output_rel_error: ‖o' − o‖/‖o‖, or NaN without values.
    """

    mass: np.ndarray
    kl: np.ndarray
    output_rel_error: np.ndarray

    def summary(self) -> dict:
        """Means and the worst query."""
        return {"mass_mean": float(np.mean(self.mass)), "kl_mean": float(np.mean(self.kl)),
                "kl_max": float(np.max(self.kl)), "output_rel_error_mean": float(np.mean(self.output_rel_error)),
                "output_rel_error_max": float(np.max(self.output_rel_error))}


def attention_error(queries, blocks, selected, values=None, scale: float | None = None) -> AttentionError:
    """Effect of attending only the ``selected`` blocks.

    Args:
        queries: (n_queries, d).
        blocks: keys (n_blocks, block_size, d).
        selected: (n_queries, k) block indices per query.
        values: (n_blocks, block_size, d_v) or None.
        scale: softmax scale β (default 1/√d).
    """
    q = np.atleast_2d(np.asarray(queries, dtype=float))
    kb = np.asarray(blocks, dtype=float)
    sel = np.atleast_2d(np.asarray(selected))
    if kb.ndim != 3 or kb.shape[2] != q.shape[1]:
        raise ValueError(f"blocks shape {kb.shape} must be (n_blocks, block_size, d = {q.shape[1]})")
    if sel.shape[0] != q.shape[0] or sel.dtype.kind not in "iu" or sel.min() < 0 or sel.max() >= kb.shape[0]:
        raise ValueError(f"selected ({sel.dtype}, shape {sel.shape}) must be (n_queries = {q.shape[0]}, k) indices "
                         f"in [0, {kb.shape[0] - 1}]")
    beta = 1.0 / np.sqrt(q.shape[1]) if scale is None else float(scale)
    n_b, bs, _ = kb.shape
    logits = beta * (q @ kb.reshape(n_b * bs, -1).T)  # (Q, T)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    pb = p.reshape(q.shape[0], n_b, bs)
    keep = np.zeros((q.shape[0], n_b), bool)
    np.put_along_axis(keep, sel, True, axis=1)
    mass = np.clip((pb.sum(axis=2) * keep).sum(axis=1), 1e-300, 1.0)
    err = np.full(q.shape[0], np.nan)
    if values is not None:
        vb = np.asarray(values, dtype=float)
        if vb.shape[:2] != kb.shape[:2]:
            raise ValueError(f"values shape {vb.shape} must be (n_blocks, block_size, d_v) = ({n_b}, {bs}, …)")
        v = vb.reshape(n_b * bs, -1)
        o = p @ v
        o_sel = ((pb * keep[:, :, None]).reshape(q.shape[0], -1) @ v) / mass[:, None]
        err = np.linalg.norm(o_sel - o, axis=1) / np.maximum(np.linalg.norm(o, axis=1), 1e-300)
    return AttentionError(mass=mass, kl=-np.log(mass), output_rel_error=err)
