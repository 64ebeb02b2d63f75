"""Recall figures against separation and drift split, and on MiniLM keys: what the report and
``prismpic recall`` show.

- ``separation_curve``: recall@k of the ``planted`` family against its separation S (0 =
  the i.i.d. Gaussian null) under the seed's impairment list (``recall_seed.seed_cases``),
  drift read per ring and as common mode;
- ``drift_split_curve``: recall@k against the common-mode fraction of a given drift σ,
  with and without a lock loop;
- ``minilm_study``: per layer and head of all-MiniLM-L6-v2 keys (``minilm``), recall@k of a
  scheme under the seed's "all together" case with per-ring and with common-mode drift,
  and each head's measured separation, so the heads can be placed on the planted curve.
"""

from __future__ import annotations

import numpy as np

from prismpic.analysis.recall import kv_recall
from prismpic.analysis.recall import seed_cases as recall_seed
from prismpic.analysis.recall.monte_carlo import PATHS, RecallConfig, simulate_recall
from prismpic.fileio import save_figure_atomic

ALL_TOGETHER = 4  # index of "5-bit + 0.01 nm + NEP" in recall_seed.seed_cases


def seed_case_sets(nep_rel: float) -> dict[str, list[tuple[str, dict]]]:
    """The seed's case list with drift per ring and with common-mode drift."""
    return {"per-ring": recall_seed.seed_cases(nep_rel), "common": recall_seed.seed_cases(nep_rel, drift="common")}


def separation_curve(separations, *, base: RecallConfig, nep_rel: float, key=0, progress=None) -> dict:
    """{"separation": S list, "cases": {drift kind: {case: [recall per S]}}, "ci": same layout}."""
    sets = seed_case_sets(nep_rel)
    # the cases without drift are the same in both sets: the common-mode set keeps only its drift cases
    sets["common"] = [(n, ch) for n, ch in sets["common"] if "drift_common_sigma_nm" in ch]
    out = {"separation": [float(s) for s in separations], "cases": {}, "ci": {}}
    total = len(separations) * sum(len(c) for c in sets.values())
    done = 0
    for kind, cases in sets.items():
        out["cases"][kind], out["ci"][kind] = {}, {}
        for name, ch in cases:
            means, cis = [], []
            for s in separations:
                r = simulate_recall(base.replace(separation=float(s), **ch), key, paths=PATHS)
                means.append(r.mean)
                cis.append([r.ci_low, r.ci_high])
                done += 1
                if progress is not None:
                    progress(done, total)
            out["cases"][kind][name], out["ci"][kind][name] = means, cis
    return out


def drift_split_curve(fractions, *, base: RecallConfig, total_sigma_nm: float = 0.01, separations=(0.0, 4.0),
                      lock_residual_nm: float = 0.001, key=0) -> dict:
    """Recall against the common-mode variance fraction f of a drift σ (σ_c² = fσ²), per
    separation, free-running and with a lock loop leaving ``lock_residual_nm``."""
    from prismpic.analysis.recall.impairments import split_drift

    out = {"common_fraction": [float(f) for f in fractions], "total_sigma_nm": total_sigma_nm,
           "lock_residual_nm": lock_residual_nm, "curves": {}}
    for s in separations:
        for lock in (None, lock_residual_nm):
            label = f"S = {s:g}" + ("" if lock is None else f", lock (residual {lock * 1e3:g} pm)")
            out["curves"][label] = [simulate_recall(base.replace(separation=float(s), lock_residual_nm=lock,
                                                                 **split_drift(total_sigma_nm, f)), key,
                                                    paths=PATHS).mean for f in fractions]
    return out


def minilm_study(cache, *, block_size: int, base: RecallConfig, nep_rel: float, scheme: str = "pca", k: int = 8,
                 repeats: int = 2, heads=None, key=0, progress=None) -> list[dict]:
    """Per head: recall@k (scheme, float and under the seed's all-together case with per-ring
    and with common-mode drift) and the head's measured separation."""
    sets = seed_case_sets(nep_rel)
    cases = [sets["per-ring"][0], sets["per-ring"][ALL_TOGETHER], sets["common"][ALL_TOGETHER]]
    heads = heads or [(lay, h) for lay in range(cache.n_layers) for h in range(cache.n_heads)]
    rows = []
    for i, (layer, head) in enumerate(heads):
        hd = kv_recall.head_data(cache, layer, head, block_size)
        r = kv_recall.scheme_row(hd, scheme, cases, base=base, k=k, repeats=repeats, key=key)
        rows.append({"layer": layer, "head": head, "scheme": scheme, "separation": r[0]["separation"],
                     "gap_k_20": r[0]["gap_k_20"], "recall_scheme": r[0]["recall_scheme"],
                     "hardware_float": r[0]["recall_hardware"], "hardware_per_ring": r[1]["recall_hardware"],
                     "hardware_common": r[2]["recall_hardware"], "recall_per_ring": r[1]["recall"],
                     "recall_common": r[2]["recall"], "kl_float": r[0]["kl_mean"], "kl_per_ring": r[1]["kl_mean"],
                     "kl_common": r[2]["kl_mean"]})
        if progress is not None:
            progress(i + 1, len(heads))
    return rows


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_separation(curve: dict, path, minilm_rows=None, k: int = 8) -> None:
    """Recall against separation per case (solid: per-ring drift, dashed: common mode), with
    MiniLM heads as points (x: measured separation, y: chip-alone recall under all together)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    s = curve["separation"]
    per_ring = list(curve["cases"]["per-ring"])
    for cases, ls in zip(curve["cases"].values(), ("-", "--"), strict=True):
        for name, means in cases.items():
            j = per_ring.index(name.replace(" common", ""))  # the same colour for the same case
            ax.plot(s, means, ls, color=f"C{j}", marker="o", ms=3, label=name)
    if minilm_rows:
        x = [r["separation"] for r in minilm_rows]
        ax.scatter(x, [r["hardware_per_ring"] for r in minilm_rows], marker="x", color="k", s=18,
                   label="MiniLM heads, all together (per-ring)", zorder=3)
        ax.scatter(x, [r["hardware_common"] for r in minilm_rows], marker="+", color="m", s=24,
                   label="MiniLM heads, all together (common)", zorder=3)
    ax.set_xlabel("separation S (bulk σ the true top-k stand above the bulk)")
    ax.set_ylabel(f"recall@{k} vs float top-{k}")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, ncol=2, loc="lower right")
    ax.set_title("Planted family (S = 0: i.i.d. Gaussian null); solid: per-ring drift, dashed: common mode", fontsize=8)
    fig.tight_layout()
    save_figure_atomic(fig, path, dpi=110)
    plt.close(fig)


def plot_drift_split(split: dict, path, k: int = 8) -> None:
    """Recall against the common-mode fraction of the drift, with and without the lock."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    for label, means in split["curves"].items():
        ax.plot(split["common_fraction"], means, "--" if "lock" in label else "-", marker="o", ms=3, label=label)
    ax.set_xlabel(f"common-mode variance fraction of drift σ = {split['total_sigma_nm'] * 1e3:g} pm")
    ax.set_ylabel(f"recall@{k}")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure_atomic(fig, path, dpi=110)
    plt.close(fig)


def heads_table(rows) -> np.ndarray:
    """(n_layers, n_heads) array of measured separations from ``minilm_study`` rows."""
    n_l = max(r["layer"] for r in rows) + 1
    n_h = max(r["head"] for r in rows) + 1
    out = np.full((n_l, n_h), np.nan)
    for r in rows:
        out[r["layer"], r["head"]] = r["separation"]
    return out


def minilm_summary(rows, n_blocks: int, k: int = 8) -> dict:
    """Medians over heads of ``minilm_study`` rows, beside the i.i.d. Gaussian null's own
    measured separation at the same number of blocks (what "no structure" gives)."""
    from prismpic.analysis.recall.planted import measured_separation

    null = measured_separation(np.random.default_rng(0).standard_normal((2000, n_blocks)), k, min(20, n_blocks))
    med = {key: float(np.median([r[key] for r in rows])) for key in
           ("separation", "gap_k_20", "recall_scheme", "hardware_float", "hardware_per_ring", "hardware_common")}
    best = max(rows, key=lambda r: r["separation"])
    return {"median": med, "null_separation": null["separation"], "null_gap_k_20": null["gap_k_far"],
            "n_blocks": n_blocks, "most_separated_head": {key: best[key] for key in ("layer", "head", "separation",
                                                                                     "hardware_per_ring",
                                                                                     "hardware_common")}}
