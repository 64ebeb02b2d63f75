"""PRISM link budget, stage by stage, from the circuit and device models; and its SNR.

Stages (S1-12): laser → fiber–chip edge coupler → MZM (biased at quadrature for analog
encoding) → 1×N splitter tree → routing waveguide → the ring bank (the worst channel's
drop path, through every other ring) → the detector's absorption. Every loss is a model
output at the stated geometry; the seed's own stage values are run through the same
arithmetic so the two can be compared line by line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from prismpic.checks import check_power_of_two, check_range
from prismpic.components.detector_figures import RESPONSIVITY_A_PER_W

SEED_STAGES = (  # S1-12, d = 32, N = 256
    ("fiber–chip coupling", 2.0),
    ("MZM", 3.0),
    ("1×256 splitter", 25.7),
    ("waveguide (2 cm)", 1.0),
    ("MRR insertion (worst)", 3.2),
    ("chip–detector", 1.0),
)
SEED_LASER_DBM = 20.0
SEED_RECEIVED_DBM = -15.9
SEED_SNR_DB = 37.2


@dataclass(frozen=True)
class LinkBudget:
    """Stages with their losses (dB), the received power and the SNR at the detector pair."""

    laser_dbm: float
    stages: list[tuple[str, float]]
    bandwidth_hz: float
    snr_db: float
    noise_terms_a2: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total_loss_db(self) -> float:
        return sum(loss for _, loss in self.stages)

    @property
    def received_dbm(self) -> float:
        return self.laser_dbm - self.total_loss_db

    def to_dict(self) -> dict:
        return {
            "laser_dbm": self.laser_dbm,
            "stages": [{"name": n, "loss_db": loss} for n, loss in self.stages],
            "total_loss_db": self.total_loss_db,
            "received_dbm": self.received_dbm,
            "received_uw": 1e3 * 10 ** (self.received_dbm / 10),
            "bandwidth_hz": self.bandwidth_hz,
            "snr_db": self.snr_db,
            "noise_terms_a2": dict(self.noise_terms_a2),
            "notes": list(self.notes),
        }


def _snr(received_dbm: float, bandwidth_hz: float, responsivity: float, noise_kw: dict):
    from prismpic.analysis.system.noise import Photodiode, Receiver, noise_budget

    pd = Photodiode(responsivity_a_per_w=responsivity, **noise_kw.get("photodiode", {}))
    rx = Receiver(bandwidth_hz=bandwidth_hz, **noise_kw.get("receiver", {}))
    nb = noise_budget(1e-3 * 10 ** (received_dbm / 10), photodiode=pd, receiver=rx)
    return nb.snr_db, dict(nb.terms)


def seed_link_budget(bandwidth_hz: float = 1e9, noise: dict | None = None) -> LinkBudget:
    """The seed's S1-12 stage values through the same arithmetic and noise model."""
    rx_dbm = SEED_LASER_DBM - sum(v for _, v in SEED_STAGES)
    snr, terms = _snr(rx_dbm, bandwidth_hz, RESPONSIVITY_A_PER_W, noise or {})
    return LinkBudget(SEED_LASER_DBM, list(SEED_STAGES), bandwidth_hz, snr, terms, ["stage values typed from S1-12"])


def _bank_insertion_db(d: int, spacing_nm: float, ring: dict) -> tuple[float, float]:
    """Worst channel's drop-path loss (dB) through a programmed-to-+1 bank, and its index."""
    import jax.numpy as jnp

    from prismpic.circuits.bank_model import bank_fields, bank_radii, channel_plan_um

    ch = channel_plan_um(d, spacing_nm)
    radii = bank_radii(ch, **{k: v for k, v in ring.items() if k != "radius"})
    drop, _ = bank_fields(ch, radii, jnp.zeros((1, d)), **{k: v for k, v in ring.items() if k != "radius"})
    loss = -10 * np.log10(np.abs(np.asarray(drop[0])) ** 2)
    return float(np.max(loss)), int(np.argmax(loss))


def modeled_link_budget(
    laser_dbm: float = SEED_LASER_DBM,
    d: int = 32,
    n_channels: int = 256,
    spacing_nm: float = 1.6,
    bandwidth_hz: float = 1e9,
    routing_length_um: float = 5000.0,
    ring: dict | None = None,
    noise: dict | None = None,
    stack: dict | None = None,
) -> LinkBudget:
    """The link budget from the models (laser power is the total over the d wavelengths).

    Args:
        laser_dbm: laser power (dBm), total over the d wavelengths as the seed's +20 dBm.
        d: wavelengths; n_channels: N, the splitter tree's fan-out (≤ 1024, a power of two).
        spacing_nm: channel spacing (nm).
        bandwidth_hz: detection bandwidth (Hz).
        routing_length_um: waveguide from the tree to the bank and along it, beyond the tree.
        ring: ring model parameters (e.g. a calibrated ring from ``prismpic calibrate``).
        noise: overrides for ``noise.Photodiode``/``noise.Receiver`` as {"photodiode": {...}, "receiver": {...}}.
        stack: the process every stage is on (a platform preset's ``settings()``: film and etch in µm, wall angle
            in degrees, cladding, loss in dB/cm or None from physics, electrode height in µm); each stage's model takes the values it has
            parameters for, the ring's under ``ring``'s. None: the models' defaults.
    """
    from prismpic.circuits.splitter_tree import splitter_tree_fast, splitter_tree_loss_db
    from prismpic.components import detectors, io, modulators, rings
    from prismpic.pdk.platforms import accepted_settings
    from prismpic.pdk.ridge_stack import RidgeStack
    from prismpic.pdk.scattering import propagation_loss_db_per_cm
    from prismpic.pdk.stack import LOSS_DB_PER_CM

    check_power_of_two("n_channels", n_channels, 2, 1024)
    check_range("routing_length_um", routing_length_um, 0.0, 1e6, unit="µm")
    stack = dict(stack or {})
    ring = {**accepted_settings(rings.ring_add_drop_model, stack), **(ring or {})}
    wl = 1.55
    edge = -10 * math.log10(float(io.edge_coupling_efficiency(wl, **accepted_settings(io.edge_coupling_efficiency,
                                                                                        stack))))
    t_mzm = complex(modulators.mzm_model(wl=wl, bias_phase_rad=math.pi / 2,
                                         **accepted_settings(modulators.mzm_model, stack))[("o1", "o2")])
    mzm = -10 * math.log10(abs(t_mzm) ** 2)
    tree = splitter_tree_loss_db(n_channels, **accepted_settings(splitter_tree_fast, stack))
    routing = RidgeStack.from_params(stack)  # the routing guide: the default width on the stack
    wg = float(propagation_loss_db_per_cm(wl, routing, stack.get("loss_db_per_cm", LOSS_DB_PER_CM))) * routing_length_um * 1e-4
    bank, worst = _bank_insertion_db(d, spacing_nm, ring)
    eta = float(detectors.absorption_efficiency(wl))
    pd = -10 * math.log10(eta)
    stages = [
        ("fiber–chip edge coupler", edge),
        ("MZM at quadrature", mzm),
        (f"1×{n_channels} splitter tree", tree),
        (f"routing waveguide ({routing_length_um / 1e4:g} cm)", wg),
        (f"ring bank drop path (worst: channel {worst})", bank),
        ("detector absorption", pd),
    ]
    resp = float(detectors.responsivity_a_per_w(wl)) / eta  # absorption counted as a stage
    snr, terms = _snr(laser_dbm - sum(v for _, v in stages), bandwidth_hz, resp, noise or {})
    notes = [
        "laser power is the total over the d wavelengths (as S1-12's +20 dBm); per wavelength "
        f"{laser_dbm - 10 * math.log10(d):.1f} dBm",
        "received power is the total over wavelengths reaching one detector of the balanced pair",
    ]
    return LinkBudget(laser_dbm, stages, bandwidth_hz, snr, terms, notes)


def banked_snr_db(n_blocks: int, bank_size: int = 256, **kwargs) -> tuple[int, float]:
    """(banks, worst SNR) when N blocks are served by banks of ``bank_size`` channels (S1-13).

    Each bank has its own laser and 1×bank_size tree, so its SNR does not fall with N.
    """
    check_range("n_blocks", n_blocks, 1, 1e7)
    banks = math.ceil(n_blocks / bank_size)
    return banks, modeled_link_budget(n_channels=bank_size, **kwargs).snr_db


def plot_waterfall(budget: LinkBudget, path, title: str = "PRISM link budget") -> None:
    """Waterfall of power (dBm) through the stages; PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = [budget.laser_dbm]
    for _, loss in budget.stages:
        levels.append(levels[-1] - loss)
    names = ["laser"] + [n for n, _ in budget.stages]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i in range(1, len(levels)):
        ax.bar(i, levels[i - 1] - levels[i], bottom=levels[i], color="#c0392b")
        ax.text(i, levels[i - 1] + 0.3, f"−{levels[i - 1] - levels[i]:.1f}", ha="center", fontsize=8)
    ax.bar(0, 0.6, bottom=levels[0] - 0.3, color="#2e86c1")
    ax.step(range(len(levels)), levels, where="mid", color="k", lw=0.8)
    ax.axhline(levels[-1], ls="--", color="gray", lw=0.8)
    ax.text(0.98, 0.95, f"received {levels[-1]:.1f} dBm\nSNR {budget.snr_db:.1f} dB at {budget.bandwidth_hz / 1e9:g} GHz",
            transform=ax.transAxes, ha="right", va="top")
    ax.set_xticks(range(len(levels)), names, rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("power (dBm)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
