"""The report: every analysis assembled into report.json, report.html and PNG figures.

Each section is a function ``section(ctx) -> dict`` that may add figures to ``ctx.figures``;
``write_report`` checks ``out_dir`` first (``fileio.check_output_dir``: parent folder, write permission,
an existing read-only folder, free space), runs them in order, then writes everything into a fresh
folder that replaces ``out_dir`` only once complete, so a failure never leaves half a report.
The page (report.html) is rendered by ``report_html`` from templates, with ``report_plots``'s interactive figures.
A platform preset (``write_report(platform=NAME)``) sets the stack the sections run on (``report.preset``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from prismpic import program_memory
from prismpic.fileio import atomic_dir, check_output_dir, jsonable, write_gds_atomic, write_text_atomic
from prismpic.pdk.platforms import Platform
from prismpic.report import preset as presets

RELEASE_ABOVE_MB = 800.0  # the report drops JAX's compiled programs when its process holds more than this and grew
RELEASE_GROWTH_MB = 50.0  # by more than this since the last drop (``program_memory.release_when_grown``: between
# sections, after each claim, inside the time-domain section)
REPORT_BYTES = 16 * 2**20  # a report folder's size, with margin (≈ 1 MB of PNGs and GDS; the HTML ≈ 6 MB, 4.8 of
# them plotly.js)


@dataclass
class ReportContext:
    """What sections share: user parameters, the platform preset, the scratch folder and the figures made."""

    params: dict
    workdir: Path
    figures: dict[str, str] = field(default_factory=dict)  # file name -> caption
    results: dict = field(default_factory=dict)  # objects later sections reuse (e.g. the link budget)
    platform: Platform | None = None  # the preset (``pdk.platforms.Platform``); None: prismpic's own stack
    off_preset: dict[str, str] = field(default_factory=dict)  # section -> what in it does not follow the preset
    release: Callable[[], None] = lambda: None  # drops compiled programs when the process grew (``write_report``)

    def figure_path(self, name: str, caption: str) -> Path:
        """Register a PNG figure and return the path to write it to."""
        self.figures[name] = caption
        return self.workdir / name

    def note_off_preset(self, section: str, note: str | None) -> None:
        """Record what in ``section`` does not follow the preset, and why (None: nothing)."""
        if note:
            self.off_preset[section] = note


def _preset(ctx: ReportContext | None):
    """The context's preset (``report.preset.DEFAULT`` for a context without one, or no context)."""
    return presets.report_platform(getattr(ctx, "platform", None))


def _ring_params(ctx: ReportContext) -> dict:
    """The report's ring: the preset's values for the ring model under the user's ring values (``--params``)."""
    return presets.ring_params(_preset(ctx), ctx.params.get("ring", {}))


def _platform(ctx: ReportContext | None) -> dict:
    """The platform at 1.55 µm on the preset's stack: stack, bulk indices and the straight ridge's TE0 along both
    in-plane crystal axes (``report.preset.platform_values``).

    The keys ``*_te_z``/``*_te_y`` carry the solver's ``crystal_axis`` argument, the crystal axis of the TE field
    (``pdk.ridge_geometry.Ridge``): ``z`` is TE polarised along z, propagating along y (it sees n_e); ``y`` is TE
    polarised along y, propagating along z (n_o). The page labels them by both (``report_sections.TE_AXES``).
    """
    return presets.platform_values(_preset(ctx))


def _devices(ctx: ReportContext) -> dict:
    """Every registered device's ports and DRC, each cell built with the preset's values it accepts."""
    from prismpic.components.registry import devices
    from prismpic.pdk import drc
    from prismpic.pdk.platforms import preset_settings

    out = {}
    for name, dev in devices().items():
        entry = {"passive": dev.passive, "reciprocal": dev.reciprocal}
        if dev.cell is not None:
            comp = dev.cell(**preset_settings(_preset(ctx), dev.cell))
            entry["ports"] = sorted(p.name for p in comp.ports)
            entry["drc_violations"] = [str(v) for v in drc(comp)]
        out[name] = entry
    return out


SPECTRUM_FSRS = 2.5  # the ring's spectrum spans λ_r ± 2.5 FSR: five resonances, four spacings for the FSR fit
POINTS_PER_FWHM = 25


def ring_spectrum_check(ring: dict, specs: dict):
    """The add-drop ring's simulated spectrum around its resonance λ_r and what ``analysis.spectra`` fits from it.

    The spectrum spans λ_r ± ``SPECTRUM_FSRS`` FSR (five resonances), so the fitted FSR is the spacing of adjacent
    resonances from a linear fit of the four spacings against their mid-wavelengths, evaluated at λ_r: the same
    wavelength as ``specs``' local FSR λ_r²/(n_g L). The two differ by the FSR's curvature over the fitted span and
    the spacing-versus-local-FSR term, both of order FSR³/λ_r² (2e-4 nm for the default ring).

    Args:
        ring: ``ring_add_drop_model`` keyword arguments (µm, dB/cm, V).
        specs: ``rings.ring_specs(**ring)`` (``resonance_um``, ``fsr_nm``, ``fwhm_nm``).

    Returns:
        (``SpectrumAnalysis``, wavelengths in nm, through |S21|², drop |S41|²).
    """

    from prismpic.analysis.spectra import analyze_spectrum
    from prismpic.components import rings

    wl0, fsr_um, fwhm_um = specs["resonance_um"], specs["fsr_nm"] * 1e-3, specs["fwhm_nm"] * 1e-3
    half = SPECTRUM_FSRS * fsr_um
    n = int(min(200_001, max(6001, np.ceil(2 * half / fwhm_um * POINTS_PER_FWHM))))
    wl = np.linspace(wl0 - half, wl0 + half, n)
    s = rings.ring_sparameters(wl, **ring)
    thr, drp = np.abs(np.asarray(s[("o1", "o2")])) ** 2, np.abs(np.asarray(s[("o1", "o4")])) ** 2
    wl_nm = wl * 1e3
    analysis = analyze_spectrum(wl_nm, thr, drp, radius_um=ring.get("radius", rings.RING_RADIUS),
                                coupling=design_coupling_regime(specs), reference_nm=wl0 * 1e3)
    return analysis, wl_nm, thr, drp


def design_coupling_regime(specs: dict) -> str:
    """Which of the through port's two readings the ring is: "under" when r1 > a·r2 (the input coupling weaker
    than the round-trip loss and the drop coupling together), else "over" (McKinnon et al., Opt. Express 17, 18971
    (2009)). A spectrum cannot tell them apart (``analysis.spectra.intrinsic_q``); the report knows its design.
    A ring with equal gaps is always "under": its drop coupling alone equals the input coupling."""
    r1 = np.sqrt(1.0 - specs["kappa2"])
    r2 = np.sqrt(1.0 - specs["kappa2_drop"])
    a = 10 ** (-specs["round_trip_loss_db"] / 20)
    return "under" if r1 > a * r2 else "over"


def _ring(ctx: ReportContext) -> dict:
    """The add-drop ring on the preset's stack (``_ring_params``): specs, spectrum, critical gap, process spread."""
    from prismpic.analysis.spectra import plot_spectrum
    from prismpic.components import ring_physics, rings

    ring = _ring_params(ctx)
    kind = ctx.params.get("ring_kind", "add_drop")
    ctx.results["ring_params"] = dict(ctx.params.get("ring", {}))  # the user's ring: the claims' (``_claims``)
    ctx.note_off_preset("ring", presets.ring_note(_preset(ctx), ctx.params.get("ring")))
    specs = rings.ring_specs(kind=kind, **ring)
    wl0 = specs["resonance_um"]
    analysis, wl_nm, thr, drp = ring_spectrum_check(ring, specs)
    plot_spectrum(analysis, ctx.figure_path("ring_spectrum.png", "Add-drop ring at the report's parameters: "
                                           "through and drop spectra with fitted resonances"))
    ctx.results["ring_specs"] = specs
    ctx.results["ring_spectrum"] = (wl_nm, thr, drp)  # nm, |S21|², |S41|²
    return {
        "radius_um": ring.get("radius", rings.RING_RADIUS),
        "gap_um": ring.get("gap", ring_physics.GAP),
        "ng": specs["ng"],
        "fsr_nm": specs["fsr_nm"],  # λ_r²/(n_g L) at the resonance λ_r (resonance_nm), n_g of the ring
        "fwhm_nm": specs["fwhm_nm"],
        "q_loaded": specs["q_loaded"],
        "q_intrinsic": specs["q_intrinsic"],
        "extinction_db": specs["extinction_db"],
        "drop_loss_db": specs["drop_loss_db"],
        "tuning_pm_per_v": specs["tuning_pm_per_v"],
        "v_per_linewidth": specs["v_per_linewidth"],
        "resonance_nm": wl0 * 1e3,
        # fsr_nm: spacing of adjacent fitted resonances, a linear fit against wavelength evaluated at fsr_wl_nm
        "spectrum_check": {"fsr_nm": analysis.fsr_nm, "fsr_wl_nm": wl0 * 1e3,
                           "fsr_pairs_nm": list(analysis.fsr_pairs_nm), "fsr_pair_wl_nm": list(analysis.fsr_wl_nm),
                           "fwhm_nm": analysis.fwhm_nm, "q_loaded": analysis.q_loaded,
                           "q_intrinsic": analysis.q_intrinsic},
        "critical_gap_um": _critical_gap(ring),
        "loss_budget": ring_loss_budget_summary(ring, wl0),
        "process_spread": _ring_process_spread(ctx, kind, ring),
        "params": ring,
    }


def ring_loss_budget_summary(ring: dict, wl: float) -> dict:
    """The ring's loss by cause from physics at ``wl`` (µm; ``components.loss_budget``: LN absorption, sidewall
    scattering, bend radiation, the tuning electrodes' gold) and over the roughness corners, beside what the ring
    model counts: the model leaves the gold out (full-vector solves, not a term it can trace), or uses the typed
    ``loss_db_per_cm`` of ``ring`` (model keyword arguments) in place of absorption and scattering."""
    from prismpic.components.loss_budget import budget_over_roughness, ring_loss_budget
    from prismpic.components.ring_design import RingDesign

    design = RingDesign.from_params(ring)
    budget = ring_loss_budget(design, wl)
    guided = budget.total_db_per_cm - budget.metal_db_per_cm
    return {**budget.as_dict(), "wl_um": wl, "typed_loss_db_per_cm": design.loss_db_per_cm,
            # Q_i scales as 1/α: the same budget without the gold, as the model counts it when its loss is physics
            "q_intrinsic_without_metal": budget.q_intrinsic * budget.total_db_per_cm / guided,
            "roughness_corners": {name: {"sigma_nm": b.roughness.sigma_nm, "correlation_nm": b.roughness.correlation_nm,
                                         "total_db_per_cm": b.total_db_per_cm, "q_intrinsic": b.q_intrinsic}
                                  for name, b in budget_over_roughness(budget, design, wl).items()}}


def _ring_process_spread(ctx: ReportContext, kind: str, ring: dict) -> dict:
    """The ring's specs at the process's nominal point (the preset's stack, ``report.preset.preset_process``), its
    ±3σ corners and 16 seeded Monte Carlo draws; {"not_computed": why} where the corners leave the tables."""
    from prismpic.analysis.process_spread import ring_process_spread

    preset = _preset(ctx)
    process = presets.preset_process(preset)
    note = presets.process_note(preset, presets.process_refusals(preset, process))
    if note is None:
        try:
            return ring_process_spread(process, kind=kind, n_samples=16, seed=0, **ring)
        except ValueError as e:  # a Monte Carlo draw outside the tables
            note = presets.process_note(preset, {}, str(e))
    ctx.note_off_preset("ring", "; ".join(filter(None, (ctx.off_preset.get("ring"), note))))
    return {"not_computed": note}


def _critical_gap(ring: dict):
    from prismpic.components import rings

    try:
        return rings.critical_gap(kind="all_pass", **{k: v for k, v in ring.items() if k not in ("gap", "gap_drop")})
    except ValueError as e:
        return str(e)


def worst_crosstalk(result, ring: dict) -> dict:
    """What the worst entry of a single-ring crosstalk matrix means for the channel it hits.

    Args:
        result: ``crosstalk.crosstalk_matrix``'s result (one ring per channel).
        ring: the shared ring parameters it was computed with (radius excluded).

    Returns:
        ``drop_fraction``: the share of channel i's power (at the foreign ring's input) that ring j drops,
        |S_o1→o4(ring j, λ_i)|²; ``own_drop_fraction``: what channel i's own ring drops of it at λ_i (their ratio
        is ``worst_db``); ``offset_fwhm``: the foreign resonance's offset from the channel in ring j's linewidths;
        ``fsr_channel_nm``, ``fsr_radius_um``: the channel λ_c and ring radius at which ``fsr_nm`` (λ_c²/(n_g L) of
        the ring serving the centre channel) is taken.
    """
    from prismpic.components import rings

    if result.family != "single":
        raise ValueError(f"result.family = {result.family!r}: worst_crosstalk reads single-ring plans only")
    i, j = result.worst_pair
    ch, r = result.channels_um, result.radii

    def drop(wl, radius):
        return float(np.abs(rings.ring_sparameters(float(wl), radius=float(radius), **ring)[("o1", "o4")]) ** 2)

    centre = int(np.argsort(ch)[result.n_channels // 2])  # as crosstalk_matrix picks the FSR it reports
    return {"drop_fraction": drop(ch[i], r[j]), "own_drop_fraction": drop(ch[i], r[i]),
            "offset_fwhm": abs(float(result.offset_nm[i, j])) / float(result.ring_fwhm_nm[j]),
            "fsr_channel_nm": float(ch[centre] * 1e3), "fsr_radius_um": float(r[centre])}


def _crosstalk(ctx: ReportContext) -> dict:
    from prismpic.analysis.system.channel_plan import seed_plan
    from prismpic.analysis.system.crosstalk import crosstalk_matrix, plot_crosstalk

    ring = {k: v for k, v in _ring_params(ctx).items() if k != "radius"}
    channels, radii = seed_plan(**ring)
    try:
        result = crosstalk_matrix(channels, radii, **ring)
    except ValueError as e:  # the bank view's operating point (each ring half a linewidth off) needs more volts
        if not str(e).startswith("voltages = "):  # than the electrodes take: a finding, not a failed report
            raise
        result = crosstalk_matrix(channels, radii, bank=False, **ring)
        ctx.note_off_preset("crosstalk", f"the bank (voltage) view is left out on {_preset(ctx).name}: holding each "
                                         f"ring half a linewidth off its channel is beyond the electrode limit ({e})")
    plot_crosstalk(result, ctx.figure_path("crosstalk.png", "Crosstalk of the seed's channel plan (32 × 1.6 nm, "
                                           "R = 20 µm): what ring j drops at channel i, every resonance order"))
    ctx.results["crosstalk"] = result
    out = result.to_dict()
    detail = worst_crosstalk(result, ring)
    out["worst_pair"].update({k: detail[k] for k in ("drop_fraction", "own_drop_fraction", "offset_fwhm")})
    out.update(fsr_channel_nm=detail["fsr_channel_nm"], fsr_radius_um=detail["fsr_radius_um"])
    return out


def _link_budget(ctx: ReportContext) -> dict:
    from prismpic.analysis.system.link_budget import modeled_link_budget, plot_waterfall, seed_link_budget

    modeled = modeled_link_budget(ring=_ring_params(ctx), stack=_preset(ctx).settings())
    seed = seed_link_budget()
    plot_waterfall(modeled, ctx.figure_path("link_budget.png", "Link budget from the models (d = 32, N = 256)"))
    plot_waterfall(seed, ctx.figure_path("link_budget_seed.png", "The seed's link budget (S1-12) for comparison"),
                   title="S1-12 link budget (seed values)")
    ctx.results["link_budget"] = modeled
    ctx.results["link_budget_seed"] = seed
    return {**modeled.to_dict(), "seed": seed.to_dict()}


def _noise(ctx: ReportContext) -> dict:
    from prismpic.analysis.system.noise import Photodiode, Receiver, noise_budget, plot_noise_breakdown

    lb = ctx.results["link_budget"]
    nb = noise_budget(1e-3 * 10 ** (lb.received_dbm / 10), photodiode=Photodiode(), receiver=Receiver(adc_bits=6),
                      dac_bits=6)
    plot_noise_breakdown(nb, ctx.figure_path("noise_breakdown.png", "Noise at the balanced detector pair "
                                             "(modeled received power, 1 GHz, 50 Ω, 6-bit ADC and DAC)"))
    ctx.results["noise"] = nb
    return {"received_dbm": lb.received_dbm, "snr_db": nb.snr_db, "enob": nb.enob,
            "terms_a2": dict(nb.terms), "signal_current_a": nb.signal_current_a}


def _recall(ctx: ReportContext) -> dict:
    from prismpic.analysis.recall import minilm
    from prismpic.analysis.recall import study as recall_study
    from prismpic.analysis.recall.monte_carlo import RecallConfig
    from prismpic.analysis.recall.seed_cases import plot_recall, recall_table, seed_nep_noise_rel

    fwhm = ctx.results["ring_specs"]["fwhm_nm"]
    rows = recall_table(base=RecallConfig(fwhm_nm=fwhm))
    plot_recall(rows, ctx.figure_path("recall.png", f"Recall@8 under the S1-14 impairments "
                                      f"(500 blocks, 100 queries, ring FWHM {fwhm * 1e3:.0f} pm)"))
    ctx.results["recall"] = rows
    nep_rel, _ = seed_nep_noise_rel()
    # the planted family on the seed's sizes: 500 blocks, d = 32, k = 8; 8 queries per chip state
    base = RecallConfig(n_blocks=500, d=32, k=8, n_trials=512, queries_per_state=8, fwhm_nm=fwhm)
    curve = recall_study.separation_curve([0, 2, 4, 6, 8], base=base, nep_rel=nep_rel)
    split = recall_study.drift_split_curve([0.0, 0.5, 0.9, 1.0], base=base, total_sigma_nm=0.01)
    heads = None
    if minilm.extra_installed():
        cache = minilm.document_cache(n_windows=8, block_size=16, n_doc_queries=32)
        heads = recall_study.minilm_study(cache, block_size=16, base=RecallConfig(queries_per_state=8, fwhm_nm=fwhm),
                                          nep_rel=nep_rel, repeats=2,  # layers 0, 3, 5 keep the report short
                                          heads=[(lay, h) for lay in (0, 3, 5) for h in range(12)])
    recall_study.plot_separation(curve, ctx.figure_path(
        "recall_separation.png", "Recall@8 of the planted family against separation S (S = 0: i.i.d. Gaussian null) "
        "under the S1-14 impairments, drift per ring (solid) and common mode (dashed)"
        + ("; crosses: all-MiniLM-L6-v2 heads (PCA signatures) at their measured separation" if heads else "")),
        minilm_rows=heads)
    recall_study.plot_drift_split(split, ctx.figure_path(
        "recall_drift_split.png", "Recall@8 against the common-mode share of a 0.01 nm drift, free and with a lock loop"))
    return {"fwhm_nm": fwhm, "cases": [{"case": n, "recall": r.mean, "ci": [r.ci_low, r.ci_high], "drop": r.drop}
                                       for n, r in rows],
            "all_impairments_case": rows[4][0],  # recall_table's fifth case: 5-bit weights, drift and NEP together
            "separation_curve": curve, "drift_split": split,
            "minilm": {"installed": heads is not None, "heads": heads or [],
                       "summary": recall_study.minilm_summary(heads, 8 * 480 // 16) if heads else None}}


def _energy(ctx: ReportContext) -> dict:
    from prismpic.analysis.system.accelerator import ptu_budget
    from prismpic.analysis.system.energy import gpu_full_scan_energy_j, prism_energy_per_query

    e = prism_energy_per_query()
    ctx.note_off_preset("energy", presets.energy_note(_preset(ctx)))
    ctx.results["energy"] = e
    return {"prism_per_query": e.to_dict(), "gpu_full_scan_4k_one_head_nj": gpu_full_scan_energy_j(4096) * 1e9,
            "ptu": {r: ptu_budget(readout=r).to_dict() for r in ("broadband", "per_wavelength")}}


def _time_domain(ctx: ReportContext) -> dict:
    """The report's ring in time: a 10 Gbit/s on/off stream on its resonance (photon lifetime against Q_L/ω₀, the
    steady state against the S-parameter model, the eye) and a weight update through the driver's RC (S1-10)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from prismpic.analysis.transient import circuits
    from prismpic.analysis.transient.analyses import weight_update_settling
    from prismpic.fileio import save_figure_atomic

    ring = _ring_params(ctx)
    summary, traces = circuits.run_circuit("ring_add_drop", settings=dict(ring))
    rate = summary["bit_rate_hz"]
    names = circuits.write_figures(traces, ctx.workdir, f"the report's ring, {rate / 1e9:g} Gbit/s", "transient_")
    ctx.figures[names[0]] = (f"The ring's drop port in time: a {rate / 1e9:g} Gbit/s on/off stream on its resonance "
                             "(dots: the S-parameter model's static value) and its step response")
    ctx.figures[names[1]] = f"Eye diagram of the ring's drop port at {rate / 1e9:g} Gbit/s (no noise: ISI only)"
    ctx.release()  # the stream's programs (≈ 0.5 GB resident on a first run) are not shared with the weight update
    w = weight_update_settling(ring=ring)
    fig, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    ax.plot(w.t_ps, w.weight, lw=1.4)
    ax.axvline(w.settling_time_ps, color="k", ls="--", lw=0.8, label=f"settled to 1 %: {w.settling_time_ps:.0f} ps")
    ax.set_xlabel("time after the driver switches (ps)")
    ax.set_ylabel("balanced weight |drop|² − |through|²")
    ax.set_xlim(0, min(float(w.t_ps[-1]), 4 * w.settling_time_ps))
    ax.legend(fontsize=8)
    save_figure_atomic(fig, ctx.figure_path("weight_update.png", "A weight update: the ring's voltage steps by half "
                                            f"a linewidth through the driver's {w.driver_tau_ps:.2g} ps RC; the "
                                            "balanced weight follows through the ring's mode (S1-10)"))
    plt.close(fig)
    keep = ("photon_lifetime_ps", "expected_lifetime_ps", "lifetime_relative_error", "steady_state_error",
            "settling_time_ps", "eye_opening", "bit_rate_hz", "symbols", "samples_per_symbol", "output_port")
    return {"ring": {k: summary[k] for k in keep},
            "weight_update": {"settling_time_ps": w.settling_time_ps, "tolerance": w.tolerance,
                              "driver_tau_ps": w.driver_tau_ps, "photon_lifetime_ps": w.photon_lifetime_ps,
                              "weight_before": w.weight_before, "weight_after": w.weight_after,
                              "claim_ns": w.claim_ns, "meets_claim": w.meets_claim}}


def _layout(ctx: ReportContext) -> dict:
    """The 8×8 prototype (S1-11) on the preset's stack (the values the cell accepts) as GDS beside the report, with
    its DRC result, the PDK's KLayout layer properties and a PNG of the GDS drawn with them."""
    from prismpic.circuits.prototype import prototype
    from prismpic.pdk import drc
    from prismpic.pdk.layers import write_lyp
    from prismpic.pdk.platforms import preset_settings
    from prismpic.report.layout_render import render_gds_png

    stack = preset_settings(_preset(ctx), prototype)
    ctx.note_off_preset("layout", presets.layout_note(_preset(ctx), prototype))
    c = prototype(**stack)
    name, lyp, png = "prototype_8x8.gds", "prismpic.lyp", "prototype_8x8.png"
    write_gds_atomic(c, ctx.workdir / name, with_metadata=False)
    write_lyp(ctx.workdir / lyp)
    violations = drc(c)
    drawn = render_gds_png(ctx.workdir / name, ctx.figure_path(png, "The 8×8 prototype (S1-11) drawn from its GDS "
                                                                    "with the PDK's layer colours"), ctx.workdir / lyp)
    return {
        "gds": name,
        "lyp": lyp,
        "png": png,
        "layers": drawn["layers"],
        "width_um": float(c.dxsize),
        "height_um": float(c.dysize),
        "instances": sum(1 for _ in c.kdb_cell.each_inst()),
        "drc_violations": [str(v) for v in violations],
        "stack": stack,
    }


def _claims(ctx: ReportContext) -> list:
    from prismpic.analysis.ledger.claims import judgements
    from prismpic.analysis.ledger.verdicts import tornado_figure

    preset = _preset(ctx)
    ctx.note_off_preset("claims", presets.claims_note(preset))
    # on another preset the ledger computes its own ring, crosstalk and link budget on prismpic's stack
    context = ctx.results if presets.is_default(preset) else {"ring_params": dict(ctx.params.get("ring", {}))}
    judged = judgements(context, after_claim=ctx.release)
    entries = [j.entry for j in judged]
    if tornado_figure(judged, ctx.workdir / "tornado.png"):  # None when no entry depends on its assumptions
        ctx.figures["tornado.png"] = ("The most influential assumptions of the entries whose verdict depends on "
                                      "them: the modeled value over each assumption's range, the others nominal")
    return [e.to_dict() for e in entries]


SECTIONS: list[tuple[str, Callable[[ReportContext], dict]]] = [
    ("platform", _platform),
    ("devices", _devices),
    ("ring", _ring),
    ("crosstalk", _crosstalk),
    ("link_budget", _link_budget),
    ("noise", _noise),
    ("recall", _recall),
    ("energy", _energy),
    ("time_domain", _time_domain),
    ("layout", _layout),
    ("claims", _claims),
]


# sections whose results a later one reads (``ctx.results``): asking for the later one runs them too
NEEDS: dict[str, tuple[str, ...]] = {"noise": ("link_budget",), "recall": ("ring",)}


def selected_sections(names: Sequence[str] | None = None) -> list[str]:
    """The sections to run, in report order: ``names`` and the sections they need (``NEEDS``); None is all.

    Raises:
        ValueError: a name that is not a section (the message lists the sections).
    """
    order = [name for name, _ in SECTIONS]
    if names is None:
        return order
    if not names:
        raise ValueError(f"sections = [] names no section; choose from {', '.join(order)}")
    wanted = set()
    for name in names:
        if name not in order:
            raise ValueError(f"sections: {name!r} is not a report section; choose from {', '.join(order)}")
        wanted |= {name, *NEEDS.get(name, ())}
    return [name for name in order if name in wanted]


def write_report(
    out_dir: str | Path = "prismpic-report",
    params: dict | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    sections: Sequence[str] | None = None,
    platform: str | Platform | None = None,
) -> dict:
    """Run the sections and write report.json, report.html and the PNGs into ``out_dir``.

    Args:
        out_dir: output folder; replaced atomically once the report is complete.
        params: user parameters (e.g. a calibrated ring from ``prismpic calibrate``); their ring values win over
            the preset's.
        progress: optional callback(section_name, done, total).
        sections: names of the sections to run (``SECTIONS``; the ones they need are added, ``NEEDS``);
            None runs all. The page shows the sections run and says which were left out.
        platform: the stack preset the sections run on: a name (``pdk.platforms.platform_names()``) or a
            ``Platform``; None is prismpic's own stack (``report.preset.DEFAULT``). report.json's
            ``platform_preset`` records it and, by section, what could not follow it (``not_followed``).

    Returns:
        The report as a dict (what report.json holds).

    Raises:
        ValueError: an unknown section or preset name (before anything runs or is written).
    """
    preset = presets.report_platform(platform)
    run = selected_sections(sections)
    out_dir = check_output_dir(out_dir, "out", need_bytes=REPORT_BYTES)  # before any section runs
    from prismpic.analysis.ledger.assumptions import assumption
    from prismpic.analysis.ledger.claim_texts import seed_claims
    from prismpic.report.html import render_report
    from prismpic.report.plots import report_figures

    with atomic_dir(out_dir) as work:
        ctx = ReportContext(params=params or {}, workdir=work, platform=preset,
                            release=program_memory.release_when_grown(RELEASE_ABOVE_MB, RELEASE_GROWTH_MB))
        report: dict = {"prismpic_version": __import__("prismpic").__version__, "timings_s": {},
                        "platform_preset": presets.record(preset),
                        "sections_left_out": [name for name, _ in SECTIONS if name not in run]}
        chosen = [(name, section) for name, section in SECTIONS if name in run]
        for i, (name, section) in enumerate(chosen):
            if progress:
                progress(name, i, len(chosen))
            t0 = time.perf_counter()
            report[name] = section(ctx)
            report["timings_s"][name] = round(time.perf_counter() - t0, 3)
            ctx.release()
        if progress:
            progress("writing", len(chosen), len(chosen))
        report["platform_preset"]["not_followed"] = dict(ctx.off_preset)
        report = jsonable(report)
        report["figures"] = dict(ctx.figures)
        write_text_atomic(work / "report.json", json.dumps(report, indent=1))
        plots = report_figures(report, ctx.results)
        used = {n for e in report.get("claims", []) for n in e.get("assumptions", ())}
        write_text_atomic(work / "report.html", render_report(
            report, ctx.figures, work, plots, claim_texts=seed_claims(),
            assumptions={n: assumption(n).to_dict() for n in sorted(used)}))
    return report
