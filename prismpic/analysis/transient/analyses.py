"""Analyses from simulated waveforms, as typed results for the ledger and the report: the eye opening of a PRISM
channel versus symbol rate, the settling of a ring weight update (driver RC + ring, exponential midpoint) against
S1-10's 1 ns, the end-to-end latency of one query against S1-17's 10 ps of optical transit, and the receiver's
SNR at a received power (S1-12's 25.7 µW at 1 GHz) from noisy waveforms.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.analysis.transient import devices, ring_modes, simulate, statespace, waveform_metrics

S1_10_TUNING_NS = 1.0  # seed S1-10: ring tuning in under 1 ns
S1_17_TRANSIT_PS = 10.0  # seed S1-17: 10 ps of optical transit
S1_12_RECEIVED_W = 25.7e-6  # seed S1-12: −15.9 dBm per detector
S1_12_RATE_HZ = 1e9  # seed S1-12: the SNR is stated at 1 GHz
EYE_RATES_HZ = (1e9, 2.5e9, 5e9, 10e9, 20e9, 40e9)


@dataclasses.dataclass(frozen=True)
class EyeRow:
    """Eye opening (0–1, ``waveform_metrics.eye_opening``) of a d-wavelength channel at one symbol rate."""

    d: int
    symbol_rate_hz: float
    eye_opening: float
    sampling_delay_ps: float
    static_blocks: tuple[str, ...]


def with_rate(setup: simulate.ChannelSetup, symbol_rate_hz: float, n_symbols: int,
              samples_per_symbol: int | None = None) -> simulate.ChannelSetup:
    """``setup`` at another symbol rate (and samples per symbol): the rings, MZM and detectors are kept; the
    receiver (its default bandwidth follows the rate), the step and the static blocks are recomputed."""
    sps = setup.samples_per_symbol if samples_per_symbol is None else samples_per_symbol
    dt = simulate.check_run(symbol_rate_hz, n_symbols, sps, "symbol_rate_hz", "n_symbols")
    back = devices.backend(setup.wl, symbol_rate_hz)
    rise = devices.DAC_RISE_SYMBOLS * 1e12 / symbol_rate_hz
    blocks = {"dac": simulate.dac_bandwidth_ghz(rise), "mzm": setup.front.mzm_bandwidth_ghz,
              "detector": back.pd_bandwidth_ghz, "tia": back.tia_bandwidth_ghz}
    static = tuple(k for k, bw in blocks.items() if not devices.dynamic(bw, dt))
    return dataclasses.replace(setup, back=back, symbol_rate_hz=float(symbol_rate_hz), dt_ps=dt, static_blocks=static,
                               samples_per_symbol=int(sps), dac_rise_ps=float(rise))


def samples_needed(setup: simulate.ChannelSetup, volts, symbol_rate_hz: float, at_least: int = 8) -> int:
    """The fewest samples per symbol (≥ ``at_least``) whose step resolves the channel's fastest ring pole
    (``simulate.check_channel_step``: rate·Δt ≤ π)."""
    rates = np.asarray(simulate.ring_mode_rates(setup.cols, volts))
    return max(int(at_least), math.ceil(float(rates.max()) * 1e12 / symbol_rate_hz / math.pi))


def eye_versus_rate(d: int = 8, rates_hz=EYE_RATES_HZ, n_symbols: int = 256, seed: int = 0,
                    samples_per_symbol: int = 32, setup: simulate.ChannelSetup | None = None) -> list[EyeRow]:
    """Eye opening of a d-wavelength PRISM channel versus symbol rate: random on/off query symbols on every
    wavelength, ring voltages random within ±1 linewidth of tuning, no noise (ISI only: ring lifetime, DAC rise,
    MZM, detector and TIA bandwidths). Samples per symbol: ``samples_per_symbol``, raised where a slow rate needs
    more to resolve the rings (``samples_needed``); the eye's best instant is searched on that grid, so a coarse
    grid under-reads the opening (d = 32 at 2.5 GBd: 0.947 at 8 samples per symbol, 0.968 at 32)."""
    from prismpic.components import rings

    base = setup or simulate.channel_setup(d, rates_hz[0], samples_per_symbol, n_symbols=n_symbols, dac_bits=1)
    rng = np.random.default_rng(seed)
    v_lw = rings.ring_specs(1.55, "add_drop")["v_per_linewidth"]
    volts = rng.uniform(-v_lw, v_lw, base.wl.size)
    sym = rng.integers(0, 2, (base.wl.size, n_symbols)).astype(float)
    target = None
    rows = []
    for rate in rates_hz:
        st = with_rate(base, rate, n_symbols, samples_needed(base, volts, rate, samples_per_symbol))
        simulate.check_channel_step(st, volts)
        y = np.asarray(jax.jit(lambda s, v, st=st: simulate.query_waveforms(st, s, v)["current_a"])(sym, volts))
        if target is None:
            target = np.asarray(simulate.static_currents(st, sym, volts))
        eye, delay = waveform_metrics.eye_opening(y, target, st.samples_per_symbol)
        rows.append(EyeRow(int(base.wl.size), float(rate), eye, delay * st.dt_ps, st.static_blocks))
    return rows


@dataclasses.dataclass(frozen=True)
class WeightUpdate:
    """Settling of one ring's balanced weight after its voltage steps (driver RC + ring modes, time-varying)."""

    settling_time_ps: float
    tolerance: float
    driver_tau_ps: float
    photon_lifetime_ps: float
    weight_before: float
    weight_after: float
    t_ps: np.ndarray
    weight: np.ndarray
    claim_ns: float = S1_10_TUNING_NS

    @property
    def meets_claim(self) -> bool:
        """Whether the update settles within S1-10's time."""
        return self.settling_time_ps <= self.claim_ns * 1e3


def weight_update_settling(v_from: float = 0.0, v_to: float | None = None, ring_capacitance_ff: float = 20.0,
                           driver_resistance_ohm: float = devices.DRIVER_RESISTANCE_OHM, tolerance: float = 0.01,
                           ring: dict | None = None, n_orders: int = 1) -> WeightUpdate:
    """Time for a ring's balanced weight |drop|² − |through|² to settle within ``tolerance`` of its step after the
    driver switches the voltage from ``v_from`` to ``v_to`` (default: half a linewidth of tuning) through its RC.

    The ring's resonance follows the electrode voltage V(t) = V₁ + (V₀ − V₁) e^{−t/RC} (Pockels: instantaneous), so
    the mode equations are linear but time-varying, ẋ = A(V(t)) x + B(V(t)) u (``simulate.systems_from_columns``
    at each instant): stepped by the exponential midpoint rule (``_weight_step``), the carrier on the ring's 0 V
    resonance, the ring settled before the step. One compiled program per ring and ``n_orders`` (voltages, RC and
    span are its inputs), so a sweep over drivers costs one compile.
    """
    ring_items = tuple(sorted((ring or {}).items()))
    spec, cols = _step_ring(ring_items)
    v_to = 0.5 * spec["v_per_linewidth"] if v_to is None else float(v_to)
    tau_rc = devices.driver_tau_ps(ring_capacitance_ff, driver_resistance_ohm)
    tau_e = spec["q_loaded"] * spec["resonance_um"] / (2 * math.pi * ring_modes.C_UM_PER_PS)
    t_end = 40 * tau_e + 10 * tau_rc
    ts, w = (np.asarray(a) for a in _weight_step(int(n_orders))(cols, float(v_from), v_to, tau_rc, t_end))
    settle = waveform_metrics.settling_time(ts, w, tolerance)
    return WeightUpdate(settle, tolerance, tau_rc, tau_e, float(w[0]), float(w[-1]), ts, w)


@functools.lru_cache(maxsize=8)
def _step_ring(ring_items: tuple) -> tuple[dict, dict]:
    """(``rings.ring_specs`` at 1.55 µm, ``simulate.ring_columns`` at its resonance) of the ring ``dict(ring_items)``."""
    from prismpic.circuits import bank_model
    from prismpic.components import rings

    ring = dict(ring_items)
    spec = rings.ring_specs(1.55, "add_drop", **ring)
    ring = rings.ring_params("add_drop", ring)  # every setting named: one trace for every corner
    radius = ring.pop("radius")
    numbers = {k: float(v) for k, v in ring.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    static = tuple(sorted((k, v) for k, v in ring.items() if k not in numbers))
    cols = _columns_program(static, tuple(sorted(numbers)), bank_model.RING_SPACING)(
        np.array([spec["resonance_um"]]), np.array([radius]), {k: np.asarray(v) for k, v in numbers.items()})
    return spec, cols


@functools.lru_cache(maxsize=8)
def _columns_program(static: tuple, numeric_names: tuple, ring_spacing: float):
    """jit((wl, radii, {numeric ring settings}) → ``simulate.ring_columns``): one trace per set of names, the
    settings' values traced (a process corner costs no new compile)."""
    return program_cache.reuse(lambda w, r, num: simulate.ring_columns(w, r, {**dict(static), **num}, ring_spacing))


SUBSTEPS = 2  # exponential steps per saved sample of the weight update


@functools.lru_cache(maxsize=4)
def _weight_step(n_orders: int, n_samples: int = 4001):
    """jit((cols, v_from, v_to, τ_RC, t_end) → (t, weight(t)), ``n_samples`` points over [0, t_end] (ps)).

    The mode equations ẋ = A(V(t))x + B(V(t))u are linear: each step h holds A and B at the step's midpoint and
    advances exactly, x ← e^{Ah}x + A⁻¹(e^{Ah} − 1)Bu (``statespace.discretize``, zero-order hold), the
    exponential midpoint rule (second-order Magnus; Hochbruck & Ostermann, Acta Numerica 19, 209 (2010)): exact
    for a voltage step, error O(h³·d²A/dt²) per step otherwise (h = t_end/8,000 ≲ 0.05 ps for the ledger's drivers).
    Unconditionally stable for the stiff detuned modes, and a lax.scan: cheap to trace."""
    u = jnp.ones((1,), complex)

    def run(cols, v_from, v_to, tau_rc, t_end):
        def system(t):
            v = v_to + (v_from - v_to) * jnp.exp(-t / tau_rc)
            return jax.tree_util.tree_map(lambda a: a[0], simulate.systems_from_columns(cols, v, 0.0, n_orders))

        h = t_end / ((n_samples - 1) * SUBSTEPS)

        def step(x, pg):
            x = pg[0] @ x + pg[1] @ u
            return x, x

        def weight(t, x):
            s = system(t)
            y = s.c @ x + s.d @ u
            return jnp.abs(y[0]) ** 2 - jnp.abs(y[1]) ** 2

        x0 = simulate.settled_state(system(0.0), u)
        mid = (jnp.arange((n_samples - 1) * SUBSTEPS) + 0.5) * h
        disc = statespace.discretize(jax.vmap(system)(mid), h, hold="zoh")  # every step's e^{Ah} at once
        _, xs = jax.lax.scan(step, x0, (disc.phi, disc.g0))
        xs = jnp.concatenate([x0[None], xs[SUBSTEPS - 1::SUBSTEPS]])
        ts = jnp.linspace(0.0, t_end, n_samples)
        return ts, jax.vmap(weight)(ts, xs)

    return program_cache.reuse(run)


@dataclasses.dataclass(frozen=True)
class QueryLatency:
    """End-to-end latency of one query: the electro-optic chain's delay (DAC code to half the TIA output step,
    simulated) plus the optical transit of the tree and the bank (group delay of the routed path)."""

    electro_optic_ps: float
    optical_transit_ps: float
    total_ps: float
    claim_transit_ps: float = S1_17_TRANSIT_PS


def query_latency(d: int = 32, symbol_rate_hz: float = 5e9, n_channels: int = 1024, channel_pitch_um: float = 127.0,
                  setup: simulate.ChannelSetup | None = None) -> QueryLatency:
    """Latency of one query through a d-wavelength channel: all query values step from 0 to 1 at one symbol edge;
    the delay to half the final TIA current is simulated (``simulate.query_waveforms``, 16 samples per symbol);
    the transit of a routed 1×``n_channels`` tree plus one channel (``ledger.claims_s1_system.tree_path_um``,
    ``system.energy.optical_transit_ps``) is added (bus delays are not in the ring modes)."""
    from prismpic.analysis.ledger.claims_s1_system import tree_path_um
    from prismpic.analysis.system.energy import optical_transit_ps
    from prismpic.components import rings

    n_sym = 32
    st = setup or simulate.channel_setup(d, symbol_rate_hz, 16, n_symbols=n_sym, dac_bits=1)
    sym = np.zeros((st.wl.size, n_sym))
    sym[:, n_sym // 2:] = 1.0
    volts = np.zeros(st.wl.size)  # every ring on its wavelength: the largest drop signal
    y = np.asarray(program_cache.reuse(lambda s, v: simulate.query_waveforms(st, s, v)["current_a"])(sym, volts))
    edge = n_sym // 2 * st.samples_per_symbol
    half = 0.5 * (y[edge - 1] + y[-1])
    after = np.flatnonzero(np.sign(y[edge:] - half) == np.sign(y[-1] - half))
    k = edge + int(after[0])
    # linear interpolation between the samples around the crossing; the DAC code changes at the edge
    frac = (half - y[k - 1]) / (y[k] - y[k - 1]) if y[k] != y[k - 1] else 0.0
    eo = ((k - 1 + frac) - edge) * st.dt_ps
    ng = rings.ring_specs(1.55, "add_drop", **st.ring)["ng"]
    transit = optical_transit_ps(tree_path_um(n_channels, channel_pitch_um), ng)
    return QueryLatency(float(eo), float(transit), float(eo + transit))


def ledger_channel(d: int = 32, symbol_rate_hz: float = S1_12_RATE_HZ, ring: dict | None = None,
                   at_least: int = 8) -> simulate.ChannelSetup:
    """The seed's d-wavelength channel (S1-03's 1.6 nm plan) at ``symbol_rate_hz`` with a 6-bit DAC (S1-04), its
    samples per symbol raised until the step resolves every ring pole with all rings on their channels."""
    base = simulate.channel_setup(d, symbol_rate_hz, at_least, n_symbols=64, ring=ring)
    sps = samples_needed(base, np.zeros(d), symbol_rate_hz, at_least)
    return base if sps == base.samples_per_symbol else with_rate(base, symbol_rate_hz, 64, sps)


@dataclasses.dataclass(frozen=True)
class ReceiverSnr:
    """SNR of a channel's balanced receiver measured on simulated waveforms at the eye's sampling instants.

    The noise is the noisy minus the noiseless waveform of the same symbols: shot noise (signal and dark current,
    through the detectors' bandwidth and the TIA's) and the TIA's input noise (through its bandwidth), which are
    independent, so their variances add; ``tia_var_per_density`` is the TIA part per unit density (Hz), i.e. its
    noise-equivalent bandwidth; ``mean_detector_current_a`` is the two detectors' summed mean photocurrent and dark
    current at the sampling instants (it sets the shot noise, 2q⟨I⟩ per hertz). The lasers' intensity noise is kept
    per unit RIN (1/Hz) in ``rin_var_per_unit``; ``mean_square_line_current_a2`` = Σ_λ ⟨(R (P_drop − P_thr))²⟩ of
    the lines' balanced currents sets it (RIN · noise bandwidth · that sum, the lines uncorrelated). Signal: the
    full-scale balanced current (every query value 1 minus every value 0, rings on their channels), as the seed's
    SNR counts it.
    """

    symbol_rate_hz: float
    received_power_w: float
    full_scale_a: float
    shot_var_a2: float
    tia_var_per_density: float
    n_samples: int
    tia_bandwidth_ghz: float
    pd_bandwidth_ghz: float
    mean_detector_current_a: float
    rin_var_per_unit: float
    mean_square_line_current_a2: float

    def snr_db(self, tia_noise_a_per_rthz: float, rin_db_per_hz: float | None = None) -> float:
        """SNR (dB) with a TIA of input noise density ``tia_noise_a_per_rthz`` (A/√Hz) and lasers of RIN
        ``rin_db_per_hz`` (dB/Hz, each wavelength its own line; None: none)."""
        rin = 0.0 if rin_db_per_hz is None else 10 ** (rin_db_per_hz / 10)
        var = self.shot_var_a2 + tia_noise_a_per_rthz**2 * self.tia_var_per_density + rin * self.rin_var_per_unit
        return 10 * math.log10(self.full_scale_a**2 / var)

    @property
    def relative_uncertainty_db(self) -> float:
        """One standard deviation (dB) of a variance estimated from ``n_samples`` Gaussian samples, √(2/n)."""
        return 10 * math.log10(1 + math.sqrt(2 / self.n_samples))


def receiver_snr(setup: simulate.ChannelSetup, received_power_w: float = S1_12_RECEIVED_W, n_symbols: int = 1024,
                 seed: int = 0) -> ReceiverSnr:
    """SNR of ``setup``'s receiver when its drop detector receives ``received_power_w`` (W, summed over the
    carriers) at full scale: random 6-bit query values on every carrier, every ring on its channel (0 V), one
    optical run and four receiver runs (noiseless; shot noise only; with a unit TIA density; with a unit RIN), each
    noise's variance kept apart (``ReceiverSnr``)."""
    from prismpic.checks import check_range
    from prismpic.circuits import bank_model

    check_range("received_power_w", received_power_w, 0.0, 1.0, unit="W", lo_open=True)
    simulate.check_run(setup.symbol_rate_hz, n_symbols, setup.samples_per_symbol, "symbol_rate_hz", "n_symbols")
    volts = np.zeros(setup.radii.size)
    drop, _ = bank_model.channel_fields(setup.wl, setup.radii, volts, 0.0, setup.ring_spacing, **setup.ring)
    t_on = devices.mzm_field(setup.front, devices.drive_volts(setup.front, jnp.ones((setup.wl.size, 1))))[:, 0]
    per_watt = float(np.sum(np.abs(np.asarray(t_on)) ** 2 * np.abs(np.asarray(drop)) ** 2))
    st = dataclasses.replace(setup, front=dataclasses.replace(setup.front, power_w=received_power_w / per_watt))
    rng = np.random.default_rng(seed)
    sym = rng.uniform(0.0, 1.0, (st.wl.size, n_symbols))
    optics = program_cache.reuse(lambda s, v: simulate.channel_optics(st, s, v))(sym, volts)
    key = jax.random.PRNGKey(seed)

    @program_cache.reuse
    def receive(optics, density, rin):
        clean = simulate.received_current(st, optics)
        noisy = simulate.received_current(st, optics, key, True, density, rin)
        return clean, noisy

    clean, shot = (np.asarray(a) for a in receive(optics, 0.0, 0.0))
    _, both = (np.asarray(a) for a in receive(optics, 1e-12, 0.0))
    _, with_rin = (np.asarray(a) for a in receive(optics, 0.0, 1e-12))
    ones, zeros = np.ones((st.wl.size, 1)), np.zeros((st.wl.size, 1))
    static = np.asarray(simulate.static_currents(st, np.concatenate([sym, ones, zeros], axis=1), volts))
    target, ends = static[:n_symbols], static[n_symbols:]
    _, delay = waveform_metrics.eye_opening(clean, target, st.samples_per_symbol)
    idx = np.arange(2, n_symbols - 3) * st.samples_per_symbol + delay
    resp = np.asarray(st.back.responsivity_a_per_w)[:, None]
    total = np.sum(resp * np.asarray(optics["p_drop_w"] + optics["p_thr_w"]), axis=0) + 2 * st.back.dark_current_a
    lines = resp * np.asarray(optics["p_drop_w"] - optics["p_thr_w"])  # (W, T)
    return ReceiverSnr(st.symbol_rate_hz, float(received_power_w), float(ends[0] - ends[1]),
                       float(np.var(shot[idx] - clean[idx])), float(np.var((both[idx] - shot[idx]) / 1e-12)),
                       int(idx.size), st.back.tia_bandwidth_ghz, st.back.pd_bandwidth_ghz, float(np.mean(total[idx])),
                       float(np.var(with_rin[idx] - shot[idx]) / 1e-12),
                       float(np.mean(np.sum(lines[:, idx] ** 2, axis=0))))
