"""One registry of the named assumptions the claims ledger judges over: nominal value, plausible range, source.

A verdict that rests on an unknown (the receiver, the drift split, how separated the data are, an energy
part known to an order of magnitude, the comparator technology, ...) is judged over that unknown's range,
not at one point (``prismpic.analysis.ledger.verdicts``). Each unknown is one ``Assumption`` here, reused by every
claim that depends on it, so the same quantity has the same range everywhere.

Sources: the process parameters (film, etch, sidewall angle, width and gap bias) are the fabrication
process's own (``prismpic.pdk.process.DEFAULT_PROCESS``), over its ±3σ corners; energy parts take their
low / mid / high figures as ``lo`` / ``nominal`` / ``hi`` (mid = the default of
``prismpic.analysis.system.energy`` or ``accelerator``); a figure marked † was recalled rather than read from
its source (as in ``energy.py``); "assumption" marks a range chosen here, with the reason.
Values are in the unit named (pA/√Hz, fJ/step, ns, ...), not necessarily SI.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from prismpic.pdk.process import DEFAULT_PROCESS, PARAMETERS, SIGMAS_PER_CORNER


@dataclass(frozen=True)
class Assumption:
    """A named unknown: nominal value, plausible range [lo, hi], unit and source.

    ``scale`` "log" spreads grids and samples evenly in log (quantities known to a factor);
    ``integer`` marks a count or a bit width (grids and samples take integers).
    """

    name: str
    label: str
    nominal: float
    lo: float
    hi: float
    unit: str
    source: str
    scale: str = "linear"
    integer: bool = False
    resolution: float | None = None  # flips are solved to this (unit as the value); None: 1e-5 of the range

    def __post_init__(self):
        if not self.lo <= self.nominal <= self.hi:
            raise ValueError(f"assumption {self.name}: nominal {self.nominal} outside [{self.lo}, {self.hi}]")
        if self.scale not in ("linear", "log") or (self.scale == "log" and self.lo <= 0):
            raise ValueError(f"assumption {self.name}: scale {self.scale!r} needs 'linear', or 'log' with lo > 0")

    def grid(self, n: int = 9) -> np.ndarray:
        """``n`` values spanning [lo, hi] (log-spaced for ``scale="log"``; every integer when fewer than n)."""
        if self.integer:
            ints = np.arange(math.ceil(self.lo), math.floor(self.hi) + 1, dtype=float)
            if ints.size <= max(n, 2):
                return ints
            return np.unique(np.round(self._span(n)))
        return self._span(n)

    def _span(self, n: int) -> np.ndarray:
        if self.scale == "log":
            return np.geomspace(self.lo, self.hi, n)
        return np.linspace(self.lo, self.hi, n)

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        """Values at fractions ``u`` ∈ [0, 1] of the range (in log for log scale; rounded for integers)."""
        u = np.asarray(u, float)
        v = (self.lo * (self.hi / self.lo) ** u) if self.scale == "log" else self.lo + (self.hi - self.lo) * u
        return np.round(v) if self.integer else v

    def format(self, value: float) -> str:
        """``value`` with the unit, e.g. '10 pA/√Hz'."""
        num = f"{int(round(value))}" if self.integer else f"{value:.3g}"
        return f"{num} {self.unit}".strip()

    def to_dict(self) -> dict:
        return {"name": self.name, "label": self.label, "nominal": self.nominal, "lo": self.lo, "hi": self.hi,
                "unit": self.unit, "source": self.source, "scale": self.scale, "integer": self.integer}


def _process_assumptions() -> list[Assumption]:
    labels = {"film_thickness": "LN film thickness", "etch_depth": "ridge etch depth",
              "sidewall_angle_deg": "ridge sidewall angle (from the horizontal)",
              "width_bias": "etched − drawn ridge width", "gap_bias": "etched − drawn coupling gap"}
    out = []
    for name in PARAMETERS:
        p = getattr(DEFAULT_PROCESS, name)
        step = SIGMAS_PER_CORNER * p.sigma
        out.append(Assumption(name, labels[name], p.nominal, max(p.lo, p.nominal - step), min(p.hi, p.nominal + step),
                              p.unit, f"process ±{SIGMAS_PER_CORNER:g}σ corners (prismpic.pdk.process): {p.source}"))
    return out


def _edge_coupler_loss_db() -> float:
    from prismpic.components import io

    return -10 * math.log10(float(io.edge_coupling_efficiency(1.55)))


def _physics_loss_db_per_cm() -> float:
    """The default straight ridge's propagation loss from physics at 1.55 µm (dB/cm)."""
    from prismpic.pdk import scattering
    from prismpic.pdk.ridge_stack import DEFAULT

    return float(scattering.propagation_loss_db_per_cm(1.55, DEFAULT))


def _build() -> dict[str, Assumption]:
    """{name: Assumption} of every unknown. Long because it is the registry's one table: one entry per
    assumption, with its range and source, grouped by subject."""
    from prismpic.analysis.system.accelerator import PtuConfig
    from prismpic.analysis.system.energy import GpuScanParams, PrismEnergyParams
    from prismpic.components import ring_physics

    e, g, ptu = PrismEnergyParams(), GpuScanParams(), PtuConfig()
    edge = _edge_coupler_loss_db()
    items = [
        *_process_assumptions(),
        # ---- ring and link
        Assumption("ring_gap_um", "drawn ring–bus coupling gap", ring_physics.GAP, 0.2, 0.3, "µm",
                   "S1-11: rings coupled through 200–300 nm gaps (S1-10 states no gap); nominal the model's default"),
        Assumption("loss_db_per_cm", "waveguide propagation loss", _physics_loss_db_per_cm(), 0.027, 1.0, "dB/cm",
                   "TFLN ridges from 0.027 dB/cm (2.7 dB/m, intrinsic Q ≈ 10⁷: Zhang et al., Optica 4, 1536 (2017)) "
                   "to ~1 dB/cm in less mature processes (assumption); nominal the default ridge's loss from physics "
                   "at 1.55 µm (absorption + sidewall scattering, σ calibrated on the lnoi400 rib's 0.2 dB/cm: "
                   "pdk.scattering); every guide's loss scales with it", "log"),
        Assumption("bend_loss_scale", "ring bend radiation loss, relative to the tabulated leaky-mode solves", 1.0,
                   0.7, 1.4, "×",
                   "prismpic.pdk.bend_radiation: PML bend solves at R = 10–40 µm, both crystal axes, averaged around "
                   "the ring; against fresh solves at the default ring (etch 0.32–0.38 µm) within 20 % (the table's "
                   "decoupled TE sits 10 % above the coupled mode along z), off the grid 0.72–1.1 where the loss "
                   "exceeds 0.01 dB/cm; Tidy3D's mode solver and prismpic's agree within 3–13 % (issue 26). Range "
                   "0.7–1.4: assumption covering these; the etch's own spread is the etch_depth assumption's. Below "
                   "1 the ring's loss can fall by at most its propagation loss (claims_context.ring_design_at)", "log"),
        Assumption("bank_loss_vs_model_db", "ring bank's worst-channel drop loss, relative to the modeled stage",
                   0.0, -4.0, 3.0, "dB", "−4 … +3 dB around the modeled bank stage (prismpic.analysis.system.link_budget: a "
                   "programmed-to-+1 bank, worst channel): assumption (neighbouring orders, the drop path's routing); "
                   "the rings' own loss is ranged by bend_loss_scale and the process. The range was set when the "
                   "stage was 6.9 dB (−4 dB then reached S1-12's 3.2 dB); with the tabulated bend radiation it is "
                   "13.7 dB"),
        Assumption("coupler_loss_db", "fiber–chip edge-coupler loss", edge, min(1.0, edge), max(5.0, edge), "dB",
                   "nominal: prismpic.components.io edge coupler at 1.55 µm; range: assumption (mode-size converters "
                   "reach ≈ 1–2 dB/facet, untapered facets several dB)"),
        Assumption("receiver_noise_pa_per_rthz", "receiver input-referred current noise", 10.0, 1.0, 20.0,
                   "pA/√Hz", "assumption: GHz CMOS/SiGe TIAs ≈ 1–20 pA/√Hz (10 pA/√Hz an ordinary part); a bare 50 Ω "
                   "load is √(4kT/50 Ω) = 18.2 pA/√Hz at 300 K", "log"),
        Assumption("ln_resistivity_ohm_m", "resistivity of the LN film under the electrodes", 1e14, 1e11, 1e16,
                   "Ω·m", "assumption: congruent LN is a good insulator (dark conductivity ≈ 1e-16–1e-18 S/cm †); "
                   "range widened to leaky films and interfaces", "log"),
        Assumption("dac_baseline_bits", "resolution of the DAC the 6-bit one replaces", 8, 8, 11, "bit",
                   "assumption: an 8-bit GS/s DAC; 11 bit = fp16's significand", "linear", True),
        Assumption("bank_laser_share", "share of S1-12's +20 dBm laser each bank receives", 1.0, 0.25, 1.0, "",
                   "1 = every bank its own +20 dBm laser; 1/4 = one laser split over S1-13's 4 banks"),
        # ---- recall data and drift
        Assumption("separation", "data separation S of the true top-k (bulk σ)", 0.0, 0.0, 8.0, "σ",
                   "prismpic.analysis.recall.planted: 0 = the i.i.d. Gaussian null (the PRISM authors' recall model); "
                   "2–8 = increasingly separated top blocks (retrieval-like heads; recall issue); the range runs to "
                   "8 σ so that flips near 6 σ are not at its edge", resolution=0.01),
        Assumption("drift_common_fraction", "common-mode share of the drift variance", 0.9, 0.0, 1.0, "",
                   "assumption: a chip's temperature drift is largely common to all rings (0.9), local gradients the "
                   "rest; 0 = every ring its own drift (the seed's implicit model)", resolution=0.001),
        # ---- energy parts (lo / mid / high)
        Assumption("laser_wall_plug_efficiency", "laser wall-plug efficiency", e.laser_wall_plug_efficiency, 0.05,
                   0.3, "", "energy.py: DFB/comb sources 10–20 % †; range widened to 5–30 %", "log"),
        Assumption("dac_fom_pj_per_step", "query DAC energy per step", e.dac_fom_j_per_step * 1e12, 0.03, 0.3,
                   "pJ/step", "energy.py: ≈ 0.1 pJ per step for GS/s DACs † (order of magnitude)", "log"),
        Assumption("ring_capacitance_ff", "ring electrode capacitance", e.ring_capacitance_f * 1e15, 10.0, 50.0,
                   "fF", "energy.py: Pockels ring electrodes ≈ 10–50 fF †", "log"),
        Assumption("ring_voltage_v", "mean ring programming voltage", e.ring_voltage_v, 10.0, 40.0, "V",
                   "energy.py: tens of V (3–7 pm/V tuning, REFERENCES.md)"),
        Assumption("update_interval_queries", "queries between signature updates", e.update_interval_queries, 64.0,
                   512.0, "", "S1-07: signatures change every 64–512 tokens", "log"),
        Assumption("tia_power_1ghz_mw", "TIA power per balanced pair (1 GHz)", e.tia_power_w * 1e3, 1.0, 10.0, "mW",
                   "energy.py: CMOS TIAs 1–10 mW at ~1 GHz †", "log"),
        Assumption("adc_fom_fj_per_step", "ADC Walden figure of merit", e.adc_fom_walden_j_per_step * 1e15, 5.0,
                   50.0, "fJ/step", "energy.py/accelerator.py: ≈ 5–50 fJ/step at GS/s (Murmann ADC survey: the best "
                   "GS/s converters ≈ 5 fJ/step) †", "log"),
        Assumption("sort_fj_per_compare", "energy of one compare-and-swap", e.sort_energy_j_per_compare * 1e15, 20.0,
                   200.0, "fJ", "energy.py: one 8-bit compare-and-swap in a modern CMOS node ≈ 50 fJ †; "
                   "range assumption", "log"),
        Assumption("selected_k", "blocks selected and fetched per query", 8, 8, 32, "blocks",
                   "S1-14 judges recall@8; S1-15 selects k = 32", "log", True),
        Assumption("hbm_pj_per_bit", "HBM read energy", g.hbm_energy_j_per_bit * 1e12, 2.0, 6.0, "pJ/bit",
                   "energy.py: HBM2 ≈ 3.9 pJ/bit (O'Connor et al., MICRO 2017) †; range assumption (newer stacks "
                   "lower, controller and PHY included higher)", "log"),
        Assumption("signature_pj_per_bit", "read energy of the block signatures", 1.0, 0.1, g.hbm_energy_j_per_bit
                   * 1e12, "pJ/bit", "assumption: 256 × 32 signatures (16 kB per head) fit on-chip SRAM/L2 "
                   "(≈ 0.1–1 pJ/bit with wires) or stay in HBM (3.9 pJ/bit)", "log"),
        Assumption("flop_pj", "GPU energy per fp16 FLOP incl. operand delivery", g.flop_energy_j * 1e12, 0.2, 1.0,
                   "pJ", "energy.py: ≈ 0.5 pJ †; range assumption", "log"),
        Assumption("gqa_group", "query heads per KV head", 4, 1, 4, "", "Llama-3.1-8B: 32 query heads over 8 KV heads "
                   "(S1-01's 4-way GQA); 1 = multi-head attention", "linear", True),
        Assumption("decode_step_ms", "time of one decode step", 20.0, 10.0, 50.0, "ms",
                   "energy.py: an 8B model on one GPU ≈ 20 ms per token †; range assumption", "log"),
        # ---- electronics: clock, comparators, drivers, packaging
        Assumption("compare_stage_ps", "delay of one compare-and-swap stage", 250.0, 50.0, 1000.0, "ps",
                   "assumption: ≈ 50–100 ps combinational in a modern CMOS node; 1000 ps = one registered stage per "
                   "1 GHz clock (the seed's electronics)", "log"),
        Assumption("channel_pitch_um", "pitch between PRISM channels", 127.0, 90.0, 127.0, "µm",
                   "splitter-tree output pitch of prismpic.circuits.splitter_tree (127 µm); ≈ 90 µm = the ring cell's "
                   "height (densest row stacking)"),
        Assumption("driver_static_mw", "static power per held ring voltage", 1.0, 0.01, 10.0, "mW",
                   "assumption: 10 µW = shared DACs refreshing sample-and-hold electrodes; 10 mW = a dedicated "
                   "tens-of-volt amplifier per ring", "log"),
        Assumption("bump_pitch_um", "bump / pad pitch to the driver chip", 100.0, 9.0, 150.0, "µm",
                   "assumption: 9 µm hybrid (Cu–Cu direct) bonding (≤ 10 µm, e.g. TSMC SoIC †), 40 µm micro-bumps, to "
                   "150 µm flip-chip (C4) bumps; nominal 100 µm flip-chip", "log"),
        Assumption("driver_output_ohm", "output resistance of the ring's voltage driver", 50.0, 25.0, 1000.0, "Ω",
                   "assumption: a 50 Ω RF driver; tens-of-volt amplifiers and sample-and-hold switches up to ≈ 1 kΩ",
                   "log"),
        Assumption("laser_tia_duty", "share of each decode query slot the laser and TIAs are on", 1.0, 1e-5, 1.0,
                   "", "decode gives one query per layer and KV head per step (32 × 8 per ≈ 20 ms: a 78 µs slot); 1 = "
                   "a CW laser and biased TIAs; 1e-5 = both gated to ≈ 1 ns per slot (assumption: burst-mode parts)",
                   "log"),
        Assumption("chip_temperature_swing_k", "temperature excursion of the chip between re-calibrations", 1.0,
                   0.01, 10.0, "K", "assumption: 0.01 K = a stabilised TEC loop; 1 K an ordinary one; 10 K an "
                   "uncontrolled card in a server's airflow", "log"),
        Assumption("electronic_bytes_per_cycle", "memory bytes an electronic scorer reads per clock", 128.0, 32.0,
                   1024.0, "B", "assumption: 128 B/cycle = one GPU SM's L1 port †; 32 B a narrow ASIC SRAM port; "
                   "≈ 1 kB an HBM3 stack at ≈ 1 GHz †", "log"),
        Assumption("pcm_write_us", "time of one PCM cell's write pulse", 100.0, 1.0, 1000.0, "µs",
                   "assumption: GSST amorphises under sub-µs–µs pulses and crystallises under ≈ 10 µs–ms ones "
                   "(Zhang et al., Nat. Nanotechnol. 16, 661 (2021) †); a model switch writes both ways", "log"),
        Assumption("pcm_parallel_writes", "PCM cells written at once", 16384.0, 128.0, 2097152.0, "cells",
                   "assumption: one row per core at a time (128 × 128) nominal; 128 = one heater driver per core; "
                   "2.1 M = every cell at once (power-limited)", "log", True),
        Assumption("pcm_cell_loss_db", "insertion loss of one PCM cell with its crossing", 0.1, 0.02, 0.5, "dB",
                   "assumption: low-loss waveguide crossings ≈ 0.02–0.2 dB †, GSST's amorphous k ≈ 10⁻⁴ "
                   "(REFERENCES.md) adds little; 0.5 dB a lossy cell", "log"),
        Assumption("hcf_loss_db_per_km", "hollow-core fiber loss", 0.091, 0.08, 0.2, "dB/km",
                   "REFERENCES.md: DNANF 0.091 dB/km at 1550 nm, < 0.2 dB/km over 66 THz (Petrovich et al., "
                   "Nat. Photon. (2025))", "log"),
        Assumption("detector_integration_loss_db", "coupling loss to a heterogeneously integrated Ge detector",
                   1.0, 0.5, 3.0, "dB", "assumption: Ge is not grown on LN; a bonded or transfer-printed Ge(-on-Si) "
                   "detector couples through a taper or grating (≈ 0.5–3 dB †); nominal S1-12's 1 dB chip–detector "
                   "stage"),
        # ---- PTU readout and amplifiers
        Assumption("adc_bits", "ADC resolution", ptu.adc_bits, 4, 8, "bit",
                   "accelerator.py: 8 bit; S1-14/S1-20 rank with 4–6 bit", "linear", True),
        Assumption("laser_rin_db_per_hz", "laser relative intensity noise (each wavelength its own line)", -150.0,
                   -160.0, -130.0, "dB/Hz", "noise.Laser: −150 dB/Hz for a telecom DFB †; −160 the quietest DFBs, "
                   "−130 a comb line or an amplified source † (range assumption)", resolution=0.1),
        Assumption("tia_bandwidth_per_baud", "TIA bandwidth per symbol rate", 0.75, 0.5, 1.5, "",
                   "assumption: NRZ receivers are designed at ≈ 0.5–0.75 × the baud rate (transient.devices: 0.75); a "
                   "multilevel analog readout may take up to ≈ 1.5× at more noise", resolution=0.005),
        Assumption("tia_power_5ghz_mw", "TIA power (5 GHz)", ptu.tia_power_w * 1e3, 2.0, 10.0, "mW",
                   "accelerator.py: several mW at 5 GHz †; range assumption", "log"),
        Assumption("soa_nf_db", "SOA noise figure", 7.0, 6.5, 10.0, "dB", "REFERENCES.md: SOA NF 7–10 dB, best < 6.5 dB"),
        Assumption("soa_stages", "SOA stages a signal passes", 10, 1, 127, "", "S2-09: SOAs between the 128 cores "
                   "(up to 127 in a chain) and in the loop; nominal 10 (assumption)", "log", True),
        Assumption("soa_lifetime_ps", "SOA effective carrier lifetime", 300.0, 100.0, 1000.0, "ps",
                   "REFERENCES.md: SOA gain dynamics < 1 ns; range assumption", "log"),
        Assumption("ptu_channel_dbm", "power per wavelength at an SOA", 0.0, -10.0, 3.0, "dBm",
                   "assumption (the fiber-loop model's 0 dBm per channel as nominal)"),
        Assumption("stage_loss_db", "loss an SOA stage restores", 10.0, 3.0, 15.0, "dB",
                   "assumption (the fiber-loop model's 10 dB as nominal)"),
        Assumption("bits_per_symbol", "bits per symbol in the fiber loop", 1, 1, 4, "bit", "S2-06: OOK (1 bit); "
                   "up to PAM-16 (4 bit), assumption", "linear", True),
    ]
    return {a.name: a for a in items}


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, Assumption]:
    """Every named assumption, {name: Assumption} (built once)."""
    return _build()


def assumption(name: str) -> Assumption:
    """The assumption ``name`` (ValueError naming the valid names for an unknown one)."""
    reg = registry()
    if name not in reg:
        raise ValueError(f"assumption {name!r} is unknown; valid names are {sorted(reg)}")
    return reg[name]


def nominal_point(names) -> dict[str, float]:
    """{name: nominal} of the assumptions ``names``."""
    return {n: assumption(n).nominal for n in names}


def assumption_rows(names) -> list[dict]:
    """The table ``prismpic claims ID --explain`` prints: one row per assumption."""
    return [assumption(n).to_dict() for n in names]
