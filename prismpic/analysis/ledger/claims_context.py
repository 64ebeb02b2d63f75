"""Shared, cached model results the ledger's judges evaluate at many assumption points.

The report passes its results (``ring_params``, ``ring_specs``, ``link_budget``, ``crosstalk`` …) as the
context; what is missing is computed once here. Point-dependent results (the ring at a process point, recall
at a separation and drift split) are cached per process in this module, so a ledger evaluated over ranges,
and evaluated again, costs little.
"""

from __future__ import annotations

import functools
import math

from prismpic.analysis.ledger.assumptions import assumption
from prismpic.components.detector_figures import RESPONSIVITY_A_PER_W

PROCESS_NAMES = ("film_thickness", "etch_depth", "sidewall_angle_deg", "width_bias", "gap_bias")
RING_NAMES = (*PROCESS_NAMES, "loss_db_per_cm", "bend_loss_scale")
WAFER = ("film_thickness", "etch_depth", "sidewall_angle_deg")
MAX_LOSS_DB_PER_CM = 100.0  # the ring model's valid range of loss_db_per_cm (ring_checks.check_ring_physics)
RECALL_SIZES = {"n_blocks": 500, "d": 32, "k": 8, "n_trials": 512, "queries_per_state": 8}  # S1-14's 500 blocks


def get(ctx: dict, key: str, make):
    """A shared result from the context, computed once when absent."""
    if key not in ctx:
        ctx[key] = make()
    return ctx[key]


def ring_params(ctx: dict) -> dict:
    """The drawn ring of the report (``ring_params``; {} = the model defaults)."""
    return dict(ctx.get("ring_params") or {})


@functools.lru_cache(maxsize=4096)
def _ring_specs_cached(design: tuple, values: tuple) -> dict:
    from prismpic.components import rings
    from prismpic.pdk.process import apply

    accepted = rings.ring_params("add_drop", {})
    return rings.ring_specs(1.55, "add_drop", **apply(dict(design), dict(values), accepted))


def ring_at(ctx: dict, point: dict) -> dict:
    """Specs (``rings.ring_specs``) of the report's drawn ring at a process point.

    ``point`` may hold the process parameters, ``loss_db_per_cm``, ``bend_loss_scale`` and ``ring_gap_um`` (the
    drawn gap); each wafer parameter moves the ring's own value by (point − the assumption's nominal), so the
    nominal point is the report's ring itself (a calibrated film thickness stays calibrated).
    """
    design, values = ring_design_at(ctx, point)
    key = lambda d: tuple(sorted((k, round(float(v), 12) if isinstance(v, float) else v)  # noqa: E731
                                 for k, v in d.items()))
    return _ring_specs_cached(key(design), key(values))


def ring_design_at(ctx: dict, point: dict) -> tuple[dict, dict]:
    """(drawn ring parameters, process values) of the report's ring at ``point`` (``ring_at``).

    ``bend_loss_scale`` s scales the ring's bend radiation loss: (s − 1) × the fitted bend loss of the
    as-etched ridge at that point is added to the propagation loss (the round trip's loss is (propagation +
    bend) × length, ``ring_physics.round_trip_loss_db``), so s = 1 is the model itself. Below 1 the ring's loss
    falls by at most its propagation loss (the model refuses a negative loss): the low end is clipped there; the
    added loss is clipped at the model's ``MAX_LOSS_DB_PER_CM`` (a ring past it has no resonance to speak of).
    """
    from prismpic.components import rings
    from prismpic.pdk import dispersion, scattering
    from prismpic.pdk.ridge_stack import RidgeStack

    design = ring_params(ctx)
    base = rings.ring_params("add_drop", design)
    values = {}
    for k in WAFER:
        if k in point:
            values[k] = base[k] + point[k] - assumption(k).nominal
    values["width_bias"] = point.get("width_bias", 0.0)
    values["gap_bias"] = point.get("gap_bias", 0.0)
    if "ring_gap_um" in point:
        design["gap"] = base["gap"] + point["ring_gap_um"] - assumption("ring_gap_um").nominal
    design.setdefault("width", base["width"])
    design.setdefault("gap", base["gap"])
    geo = {**base, **values}
    ridge = RidgeStack(width=design["width"] + values["width_bias"], film_thickness=geo["film_thickness"],
                       etch_depth=geo["etch_depth"], sidewall_angle_deg=geo["sidewall_angle_deg"],
                       cladding=base["cladding"])
    loss_scale = point.get("loss_db_per_cm", assumption("loss_db_per_cm").nominal) / assumption("loss_db_per_cm").nominal
    if loss_scale != 1.0:  # the ring's own loss (from physics when None, at 1.55 µm) scaled as the assumption
        own = float(scattering.propagation_loss_db_per_cm(1.55, ridge, base["loss_db_per_cm"], "ring"))
        design["loss_db_per_cm"] = own * loss_scale
    scale = point.get("bend_loss_scale", 1.0)
    if scale != 1.0:
        bend = float(dispersion.bend_loss_db_per_cm(1.55, base["radius"], ridge))
        prop = design.get("loss_db_per_cm", base["loss_db_per_cm"])
        if prop is None:  # from physics
            prop = float(scattering.propagation_loss_db_per_cm(1.55, ridge, None, "ring"))
        design["loss_db_per_cm"] = min(max(0.0, prop + (scale - 1.0) * bend), MAX_LOSS_DB_PER_CM)
    return design, values


@functools.lru_cache(maxsize=1024)
def _weight_range_cached(design: tuple, values: tuple, resonance_um: float, max_voltage_v: float) -> float:
    from prismpic.components import rings
    from prismpic.pdk.process import apply

    params = apply(dict(design), dict(values), rings.ring_params("add_drop", {}))

    def weight(v):
        s = rings.ring_sparameters(resonance_um, **{**rings.ring_params("add_drop", params), "voltage_v": v})
        return float(abs(s[("o1", "o4")]) ** 2 - abs(s[("o1", "o2")]) ** 2)

    at_zero, detuned = weight(0.0), -weight(max_voltage_v)
    if detuned < at_zero:  # the other tuning direction may reach further (its call skipped where it cannot matter)
        detuned = max(detuned, -weight(-max_voltage_v))
    return min(at_zero, detuned)


def ring_weight_range(ctx: dict, point: dict) -> float:
    """Signed weight range g of one ring at ``point`` (``ring_at``): |D|² − |T|² at its resonance reaches +g at
    0 V and −g at the electrode voltage limit (either sign) (``RULES.max_electrode_voltage_v``); negative where the ring
    cannot read a positive weight on resonance or a negative one detuned (drop below through)."""
    from prismpic.pdk.rules import RULES

    design, values = ring_design_at(ctx, point)
    key = lambda d: tuple(sorted((k, round(float(v), 12) if isinstance(v, float) else v)  # noqa: E731
                                 for k, v in d.items()))
    lam = round(float(ring_at(ctx, point)["resonance_um"]), 12)
    return _weight_range_cached(key(design), key(values), lam, float(RULES.max_electrode_voltage_v))


def nominal_ring(ctx: dict) -> dict:
    """The ring's specs at the nominal point."""
    return ring_at(ctx, {})


# ---------------------------------------------------------------------------------------------- link and noise
def link(ctx: dict):
    """The modeled link budget (d = 32, N = 256) of the report, or computed."""
    from prismpic.analysis.system.link_budget import modeled_link_budget

    return get(ctx, "link_budget", lambda: modeled_link_budget(ring=ctx.get("ring_params")))


def link_seed(ctx: dict):
    """The seed's S1-12 stage values through prismpic's arithmetic."""
    from prismpic.analysis.system.link_budget import seed_link_budget

    return get(ctx, "link_budget_seed", seed_link_budget)


def modeled_received_dbm(ctx: dict, point: dict) -> float:
    """Received power (dBm) of the modeled link with the point's coupler loss, waveguide loss and laser share."""
    lb = link(ctx)
    total = 0.0
    for name, loss in lb.stages:
        if name.startswith("fiber–chip") and "coupler_loss_db" in point:
            loss = point["coupler_loss_db"]
        elif name.startswith("routing") and "loss_db_per_cm" in point:
            loss = loss * point["loss_db_per_cm"] / assumption("loss_db_per_cm").nominal
        elif name.startswith("ring bank"):
            loss = loss + point.get("bank_loss_vs_model_db", 0.0)
        total += loss
    return lb.laser_dbm + 10 * math.log10(point.get("bank_laser_share", 1.0)) - total


def modeled_responsivity() -> float:
    """Responsivity (A/W) the modeled link uses after its absorption stage."""
    from prismpic.components import detectors

    return float(detectors.responsivity_a_per_w(1.55)) / float(detectors.absorption_efficiency(1.55))


def snr_db(power_dbm: float, noise_pa_per_rthz: float, responsivity: float = RESPONSIVITY_A_PER_W, bandwidth_hz: float = 1e9) -> float:
    """SNR (dB) of the balanced pair at ``power_dbm`` with a receiver of input noise density (pA/√Hz)."""
    from prismpic.analysis.system.noise import Photodiode, Receiver, noise_budget

    rx = Receiver(bandwidth_hz=bandwidth_hz, input_noise_a_per_rthz=noise_pa_per_rthz * 1e-12)
    return noise_budget(1e-3 * 10 ** (power_dbm / 10), photodiode=Photodiode(responsivity_a_per_w=responsivity),
                        receiver=rx).snr_db


# ---------------------------------------------------------------------------------------------- recall
@functools.lru_cache(maxsize=2048)
def _recall_cached(fwhm_nm: float, changes: tuple, separation: float):
    from prismpic.analysis.recall.monte_carlo import PATHS, RecallConfig, simulate_recall

    cfg = RecallConfig(**RECALL_SIZES, fwhm_nm=fwhm_nm, separation=separation, **dict(changes))
    return simulate_recall(cfg, 0, paths=PATHS)


def recall_planted(ctx: dict, point: dict, *, drift_nm: float = 0.0, **changes):
    """Recall@8 (``RecallResult``) of the planted family on S1-14's 500 blocks (512 trials, 8 per chip state)
    at the point's separation, with a total drift σ ``drift_nm`` split by the point's common-mode fraction and
    other ``RecallConfig`` changes; the ring's own linewidth. Common random numbers (key 0) at every point."""
    from prismpic.analysis.recall.impairments import split_drift

    if drift_nm > 0:
        f = point.get("drift_common_fraction", assumption("drift_common_fraction").nominal)
        changes = {**changes, **split_drift(drift_nm, f)}
    sep = point.get("separation", assumption("separation").nominal)
    fwhm = round(float(nominal_ring(ctx)["fwhm_nm"]), 9)
    return _recall_cached(fwhm, tuple(sorted(changes.items())), round(float(sep), 9))


def nep_noise_rel(nep_w_per_rthz: float = 10e-12) -> float:
    """σ_rel of S1-14's NEP case referred to full scale (S1-12's 25.7 µW at 1 GHz)."""
    from prismpic.analysis.recall.seed_cases import seed_nep_noise_rel

    return seed_nep_noise_rel(nep_w_per_rthz=nep_w_per_rthz)[0]


# ---------------------------------------------------------------------------------------------- time domain
def transient_channel(ctx: dict):
    """The seed's 32-wavelength channel of the report's ring at S1-12's 1 GHz (``transient.analyses.ledger_channel``)."""
    from prismpic.analysis.transient.analyses import ledger_channel

    ring = {k: v for k, v in ring_params(ctx).items() if k != "radius"}
    return get(ctx, "transient_channel", lambda: ledger_channel(ring=ring))


def simulated_latency(ctx: dict):
    """One query's latency through ``transient_channel`` (``QueryLatency``; its transit at a 127 µm pitch)."""
    from prismpic.analysis.transient.analyses import query_latency

    return get(ctx, "query_latency", lambda: query_latency(32, setup=transient_channel(ctx)))


def simulated_snr(ctx: dict):
    """The receiver SNR of ``transient_channel`` at S1-12's 25.7 µW per detector (``ReceiverSnr``, 512 symbols)."""
    from prismpic.analysis.transient.analyses import receiver_snr

    return get(ctx, "receiver_snr", lambda: receiver_snr(transient_channel(ctx), n_symbols=512))
