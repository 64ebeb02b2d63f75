"""The physical impairment model around the recall Monte Carlo: detector noise from the link
budget, the drift split, and recall over two impairments at a time (heatmaps).

Detector noise is referenced to full scale, the light that reaches the detectors: σ_rel =
RMS noise current / (R·P_rx), P_rx the received power of the link budget (``noise``,
``link_budget``). Drift is a common-mode part (the chip's temperature, one shift per chip
state) plus a per-ring part (local gradients): a total σ splits as σ_c² = f·σ²,
σ_ring² = (1 − f)·σ², f the common fraction; a lock loop removes the common part up to
its residual (``RecallConfig.lock_residual_nm``). Weights, DAC, crosstalk and splitter
spread are as in ``recall``.

Heatmap axes (``AXES``): any ``RecallConfig`` field (``weight_bits``, ``drift_sigma_nm``,
``drift_common_sigma_nm``, ``separation``, …) or a derived one: ``nep_pw_per_rthz`` (the
detector's NEP → σ_rel at the base power), ``drift_total_nm`` and ``common_fraction``
(the split above; the other of the two is taken from ``base_drift``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from prismpic.analysis.recall.monte_carlo import PATHS, RecallConfig, simulate_recall
from prismpic.analysis.system import noise
from prismpic.checks import check_range
from prismpic.fileio import save_figure_atomic

DERIVED = ("nep_pw_per_rthz", "drift_total_nm", "common_fraction")


def detector_noise_budget(nep_w_per_rthz: float | None = 10e-12, power_w: float = noise.SEED_S1_12_POWER_W,
                          bandwidth_hz: float = noise.SEED_S1_12_BANDWIDTH_HZ) -> noise.NoiseBudget:
    """Noise of a balanced Ge pair (0.95 A/W, 1.3 nA dark) with the given NEP per diode, shot
    and dark noise, no separate thermal term (the NEP holds it), at received power ``power_w``
    (W, the full scale) and bandwidth ``bandwidth_hz``."""
    return noise.noise_budget(
        power_w,
        photodiode=noise.Photodiode(nep_w_per_rthz=nep_w_per_rthz),
        receiver=noise.Receiver(bandwidth_hz=bandwidth_hz, load_resistance_ohm=None),
    )


def detector_noise_rel(nep_w_per_rthz: float | None = 10e-12, power_w: float = noise.SEED_S1_12_POWER_W,
                       bandwidth_hz: float = noise.SEED_S1_12_BANDWIDTH_HZ) -> float:
    """σ_rel (RMS noise over the full-scale current R·P) of ``detector_noise_budget``."""
    return detector_noise_budget(nep_w_per_rthz, power_w, bandwidth_hz).relative_noise


def received_power_w(budget) -> float:
    """The received power (W) of a ``link_budget.LinkBudget``."""
    return 1e-3 * 10 ** (budget.received_dbm / 10)


def split_drift(total_sigma_nm: float, common_fraction: float) -> dict:
    """RecallConfig fields of a drift σ split into common mode (variance fraction f) and per ring."""
    check_range("total_sigma_nm", total_sigma_nm, 0.0, math.inf, unit="nm")
    check_range("common_fraction", common_fraction, 0.0, 1.0)
    return {"drift_common_sigma_nm": total_sigma_nm * math.sqrt(common_fraction),
            "drift_sigma_nm": total_sigma_nm * math.sqrt(1.0 - common_fraction)}


def axis_changes(name: str, value, *, power_w: float, bandwidth_hz: float, base_drift: tuple[float, float]) -> dict:
    """Config changes of one axis value; ``base_drift`` = (total σ nm, common fraction)."""
    if name == "nep_pw_per_rthz":
        return {"noise_rel": detector_noise_rel(float(value) * 1e-12, power_w, bandwidth_hz)}
    if name == "drift_total_nm":
        return split_drift(float(value), base_drift[1])
    if name == "common_fraction":
        return split_drift(base_drift[0], float(value))
    if name not in RecallConfig.__dataclass_fields__:
        raise ValueError(f"axis {name!r} is neither a RecallConfig field nor one of {list(DERIVED)}")
    return {name: int(value) if name in ("weight_bits", "dac_bits") else float(value)}


@dataclass(frozen=True)
class RecallGrid:
    """Mean recall (and CI) over a grid of two impairments: ``mean[i, j]`` at y[i], x[j]."""

    x_name: str
    x_values: np.ndarray
    y_name: str
    y_values: np.ndarray
    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    k: int = 8
    label: str = ""
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"x": self.x_name, "x_values": self.x_values.tolist(), "y": self.y_name,
                "y_values": self.y_values.tolist(), "recall": self.mean.tolist(), "ci_low": self.ci_low.tolist(),
                "ci_high": self.ci_high.tolist(), "k": self.k, "label": self.label, **self.extra}


def recall_grid(base: RecallConfig, x_name: str, x_values, y_name: str, y_values, *, key=0, signatures=None,
                queries=None, reference_scores=None, power_w: float = noise.SEED_S1_12_POWER_W,
                bandwidth_hz: float = noise.SEED_S1_12_BANDWIDTH_HZ, base_drift=(0.01, 0.0), label: str = "",
                progress=None) -> RecallGrid:
    """``simulate_recall`` on every (y, x) pair (common random numbers, one compilation)."""
    xs, ys = np.asarray(x_values, dtype=float), np.asarray(y_values, dtype=float)
    mean, lo, hi = (np.zeros((ys.size, xs.size)) for _ in range(3))
    kw = dict(power_w=power_w, bandwidth_hz=bandwidth_hz, base_drift=base_drift)
    for i, yv in enumerate(ys):
        for j, xv in enumerate(xs):
            cfg = base.replace(**axis_changes(y_name, yv, **kw), **axis_changes(x_name, xv, **kw))
            r = simulate_recall(cfg, key, signatures, queries, reference_scores=reference_scores, paths=PATHS)
            mean[i, j], lo[i, j], hi[i, j] = r.mean, r.ci_low, r.ci_high
            if progress is not None:
                progress(i * xs.size + j + 1, xs.size * ys.size)
    return RecallGrid(x_name, xs, y_name, ys, mean, lo, hi, base.k, label)


def plot_grids(grids, path, title: str = "") -> None:
    """Heatmaps of ``RecallGrid``s side by side (recall@k in colour, values printed); PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(grids), figsize=(4.6 * len(grids), 4.0), squeeze=False)
    for ax, g in zip(axes[0], grids, strict=True):
        im = ax.imshow(g.mean, origin="lower", vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(g.x_values.size), [f"{v:g}" for v in g.x_values], fontsize=7)
        ax.set_yticks(range(g.y_values.size), [f"{v:g}" for v in g.y_values], fontsize=7)
        for i in range(g.y_values.size):
            for j in range(g.x_values.size):
                ax.text(j, i, f"{g.mean[i, j]:.2f}", ha="center", va="center", fontsize=6,
                        color="w" if g.mean[i, j] < 0.6 else "k")
        ax.set_xlabel(g.x_name)
        ax.set_ylabel(g.y_name)
        ax.set_title(g.label or f"recall@{g.k}", fontsize=9)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="recall@k")
    if title:
        fig.suptitle(title, fontsize=10)
    save_figure_atomic(fig, path, dpi=110)
    plt.close(fig)
