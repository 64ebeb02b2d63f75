"""The seed's S1-14 impairment cases: recall@8 of PRISM's top-k under each listed impairment.

``recall_table`` runs ``prismpic.analysis.recall.monte_carlo.simulate_recall`` on the seed's setup (500 blocks,
100 queries, k = 8): ideal, 5-bit weights, 0.01 nm drift, a 10 pW/√Hz NEP at S1-12's received power,
all together, and 6-bit weights with 0.02 nm drift; ``plot_recall`` draws them.
"""

from __future__ import annotations

import numpy as np

from prismpic.analysis.recall import impairments, signatures
from prismpic.analysis.recall.monte_carlo import PATHS, RecallConfig, RecallResult, simulate_recall
from prismpic.analysis.system import noise
from prismpic.fileio import save_figure_atomic


def seed_nep_noise_rel(
    power_w: float = noise.SEED_S1_12_POWER_W,
    bandwidth_hz: float = noise.SEED_S1_12_BANDWIDTH_HZ,
    nep_w_per_rthz: float = 10e-12,
) -> tuple[float, noise.NoiseBudget]:
    """σ_rel of seed S1-14's NEP case: a balanced Ge pair (0.95 A/W, 1.3 nA) with NEP
    10 pW/√Hz per diode, shot and dark noise, no separate thermal term (the NEP holds
    it), at S1-12's 25.7 µW and 1 GHz (``impairments.detector_noise_rel``)."""
    budget = impairments.detector_noise_budget(nep_w_per_rthz, power_w, bandwidth_hz)
    return budget.relative_noise, budget


def seed_cases(nep_rel: float, nep_w_per_rthz: float = 10e-12, drift: str = "per-ring") -> list[tuple[str, dict]]:
    """The seed's S1-14 impairment list as (name, RecallConfig changes). ``drift`` says how
    the seed's drift σ is read: ``per-ring`` (every ring its own, the seed's implicit
    model) or ``common`` (one common-mode shift of the whole chip)."""
    field_name = {"per-ring": "drift_sigma_nm", "common": "drift_common_sigma_nm"}.get(drift)
    if field_name is None:
        raise ValueError(f"drift = {drift!r} must be 'per-ring' or 'common'")
    tag = "" if drift == "per-ring" else " common"
    return [
        ("float (no impairment)", {}),
        ("5-bit weights", {"weight_bits": 5}),
        (f"drift{tag} σ = 0.01 nm", {field_name: 0.01}),
        (f"NEP {nep_w_per_rthz * 1e12:g} pW/√Hz (σ_rel = {nep_rel:.4f})", {"noise_rel": nep_rel}),
        (f"5-bit + 0.01 nm{tag} + NEP", {"weight_bits": 5, field_name: 0.01, "noise_rel": nep_rel}),
        (f"6-bit + drift{tag} 0.02 nm", {"weight_bits": 6, field_name: 0.02}),
    ]


def seed_signatures(
    n_blocks: int = 500, n_queries: int = 100, *, scheme: str = "pca", d: int = 32, seed: int = 0
) -> signatures.Signatures:
    """The bank and sketches ``recall_table`` uses: ``synthetic_kv`` (64-token blocks,
    d_head = 128, 16 topics) → scheme (default PCA to d = 32); learned schemes get
    n_queries separate training queries."""
    kv = signatures.synthetic_kv(n_blocks, 64, 128, 2 * n_queries, 16, seed)
    ev, tr = kv.queries[:n_queries], kv.queries[n_queries:]
    return signatures.make_signatures(kv.keys, ev, scheme, d, train_queries=tr)


def recall_table(
    signatures: signatures.Signatures | None = None,
    *,
    n_blocks: int = 500,
    n_trials: int = 100,
    k: int = 8,
    key=0,
    nep_w_per_rthz: float = 10e-12,
    power_w: float = noise.SEED_S1_12_POWER_W,
    bandwidth_hz: float = noise.SEED_S1_12_BANDWIDTH_HZ,
    base: RecallConfig | None = None,
    paths=PATHS,
) -> list[tuple[str, RecallResult]]:
    """The seed's S1-14 cases, recall@8 with CI over ``n_trials`` queries × ``n_blocks``.

    Cases: ideal; 5-bit weights; drift σ = 0.01 nm; NEP 10 pW/√Hz at 25.7 µW and 1 GHz
    (``seed_nep_noise_rel``); all three together; 6-bit weights + drift σ = 0.02 nm.

    Args:
        signatures: a ``Signatures`` with n_trials query rows; default ``seed_signatures``.
        n_blocks, n_trials, k: the seed's setup 500, 100, 8.
        key: PRNG seed or key (the same for every case: common random numbers).
        nep_w_per_rthz, power_w, bandwidth_hz: the NEP case's detector.
        base: config the cases modify (ring transfer, crosstalk, ...); sizes are set here.
        paths: impairment paths compiled in (default all, so every case and any ``base``
            share one compilation).
    """
    sig = seed_signatures(n_blocks, n_trials) if signatures is None else signatures
    base = (base or RecallConfig()).replace(n_blocks=sig.blocks.shape[0], d=sig.d, k=k, n_trials=sig.queries.shape[0])
    nep_rel, _ = seed_nep_noise_rel(power_w, bandwidth_hz, nep_w_per_rthz)
    cases = seed_cases(nep_rel, nep_w_per_rthz)
    return [
        (name, simulate_recall(base.replace(**ch), key, sig.blocks, sig.queries, paths=paths)) for name, ch in cases
    ]


def format_recall_table(rows) -> str:
    """Text table of ``recall_table`` rows."""
    out = [f"{'case':<40}{'recall@k':>9}{'95% CI':>18}{'drop':>8}"]
    for name, r in rows:
        out.append(f"{name:<40}{r.mean:>9.3f}   [{r.ci_low:.3f}, {r.ci_high:.3f}]{r.drop:>8.1%}")
    return "\n".join(out)


def plot_recall(results, path) -> None:
    """Bar chart of recall@k with CI error bars; ``results`` is a list of (label,
    ``RecallResult``) as ``recall_table`` returns. Writes a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [name for name, _ in results]
    mean = np.array([r.mean for _, r in results])
    err = np.array([[r.mean - r.ci_low for _, r in results], [r.ci_high - r.mean for _, r in results]])
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(results) + 1.5))
    y = np.arange(len(results))[::-1]
    ax.barh(y, mean, xerr=err, color="tab:blue", capsize=3)
    for yi, m in zip(y, mean, strict=True):
        ax.text(0.01, yi, f"{m:.3f}", va="center", ha="left", color="w", fontsize=8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(0, 1)
    k = results[0][1].k if results else 8
    conf = results[0][1].confidence if results else 0.95
    ax.set_xlabel(f"recall@{k} vs float top-{k} (bars: {conf:.0%} bootstrap CI)")
    fig.tight_layout()
    save_figure_atomic(fig, path, dpi=120)
    plt.close(fig)
