"""The time-domain simulator: a baseband envelope per WDM carrier through DAC, MZM, a PRISM channel's rings,
the balanced detectors and the TIA; jitted, differentiable, vmapped over carriers (and over channels by the
caller's ``jax.vmap``).

Each carrier's rings are one LTI system (``ring_modes.cascade_lti``), discretised exactly (FOH,
``statespace.discretize``) and stepped by ``jax.lax.scan``; the MZM is memoryless after its first-order RF
response; detectors and TIA are real first-order blocks. The only nonlinearity (|field|² at the detectors, the
MZM's cosine) is memoryless, so no ODE solver is needed here; a time-varying ring (a weight update) is stepped by the exponential midpoint
rule (``analyses.weight_update_settling``). Time in ps throughout.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.analysis.transient import devices, ring_modes
from prismpic.analysis.transient import statespace as ss
from prismpic.checks import check_range

SYMBOL_RATE_RANGE_HZ = (1e8, 2e11)
SYMBOLS_RANGE = (16, 1 << 20)
SPS_RANGE = (2, 256)


def check_run(symbol_rate_hz, n_symbols, samples_per_symbol, rate_option: str = "bit_rate",
              symbols_option: str = "symbols") -> float:
    """Checked (symbol rate, symbols, samples per symbol); returns the step Δt (ps)."""
    lo, hi = SYMBOL_RATE_RANGE_HZ
    try:
        rate = float(symbol_rate_hz)
    except (TypeError, ValueError):
        raise ValueError(f"{rate_option} = {symbol_rate_hz!r} must be a number in [{lo:g}, {hi:g}] Hz") from None
    if not (lo <= rate <= hi):
        raise ValueError(f"{rate_option} = {symbol_rate_hz!r} Hz is outside the valid range [{lo:g}, {hi:g}] Hz")
    for name, v, (a, b) in ((symbols_option, n_symbols, SYMBOLS_RANGE),
                            ("samples_per_symbol", samples_per_symbol, SPS_RANGE)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not a <= v <= b:
            raise ValueError(f"{name} = {v!r} is outside the valid range: an integer in [{a}, {b}]")
    return 1e12 / rate / samples_per_symbol


# ---------------------------------------------------------------------------- rings per carrier
WL_STEP_REL = 1e-6  # relative wavelength step of the central difference that gives the group delay ∂θ/∂ω


def ring_columns(wl, radii, ring: dict, ring_spacing: float) -> dict:
    """Voltage-independent ring data of one channel at carriers ``wl`` (µm): ``bank_model.ring_columns`` (couplers,
    round-trip amplitude, θ0 and its slopes θ_V, θ_T, bus; (d, W) each) plus the round-trip group delay and its
    slopes, ``tau0``, ``tau_v``, ``tau_t`` (ps, ps/V, ps/K; central differences of θ over ω: θ is exactly linear in
    V and T, so is ∂θ/∂ω), and the spacer transmissions ``thr_t`` (W,), ``drop_t`` (d − 1, W). Traceable."""
    from prismpic.circuits import bank_model

    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    n = wl.shape[0]
    eps = WL_STEP_REL
    cols = bank_model.ring_columns(jnp.concatenate([wl, wl * (1 + eps), wl * (1 - eps)]), radii, **ring)
    base = {k: v[:, :n] for k, v in cols.items()}
    omega = 2 * jnp.pi * ring_modes.C_UM_PER_PS / wl  # rad/ps
    d_omega = omega / (1 + eps) - omega / (1 - eps)
    for key, out in (("theta0", "tau0"), ("theta_v", "tau_v"), ("theta_t", "tau_t")):
        base[out] = (cols[key][:, n:2 * n] - cols[key][:, 2 * n:]) / d_omega
    base["thr_t"], base["drop_t"] = bank_model.spacer_transmissions(wl, ring_spacing, ring, radii)
    return base


def systems_from_columns(cols: dict, voltages, delta_t_k, n_orders: int = 1) -> ss.LTI:
    """One channel's rings as an LTI system per carrier: A (W, n, n), B (W, n, 1), C (W, 2, n), D (W, 2, 1);
    outputs (drop end, through end). ``cols``: ``ring_columns``; ``voltages``, ``delta_t_k``: (d,) or scalars."""
    d = cols["t1"].shape[0]
    v = jnp.broadcast_to(jnp.asarray(voltages, dtype=float), (d,))[:, None]
    t = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), (d,))[:, None]
    co = {k: cols[k] for k in ("t1", "k1", "t2", "k2", "a", "bus")}
    co["theta"] = cols["theta0"] + v * cols["theta_v"] + t * cols["theta_t"]
    co["tau_rt_ps"] = cols["tau0"] + v * cols["tau_v"] + t * cols["tau_t"]

    def per_carrier(c, tt, dt):
        rings_lti = jax.vmap(lambda x: ring_modes.ring_lti(x, n_orders))(c)
        return ring_modes.cascade_lti(rings_lti, tt, dt)

    return jax.vmap(per_carrier, in_axes=(1, 0, 1))(co, cols["thr_t"], cols["drop_t"])


def channel_systems(wl, radii, voltages, delta_t_k, ring: dict, ring_spacing: float, n_orders: int = 1) -> ss.LTI:
    """``systems_from_columns`` of ``ring_columns``: the rings of one channel per carrier, from geometry."""
    return systems_from_columns(ring_columns(wl, radii, ring, ring_spacing), voltages, delta_t_k, n_orders)


def settled_state(sys: ss.LTI, u0):
    """The state that holds constant input u0 (1-D, m) at rest: x = −A⁻¹ B u0."""
    return -jnp.linalg.solve(sys.a, sys.b @ u0)


def run_rings(systems: ss.LTI, u, dt_ps):
    """Outputs (W, T, p) of the per-carrier systems for inputs u (W, T), each starting settled at its first input."""
    disc = ss.discretize(systems, dt_ps)

    def one(sys, dsys, w):
        return ss.run(dsys, w[:, None], settled_state(sys, w[:1]))

    return jax.vmap(one)(systems, disc, u)


# ---------------------------------------------------------------------------- the PRISM channel
@dataclasses.dataclass(frozen=True)
class ChannelSetup:
    """Everything a channel run needs besides its symbols (build with ``channel_setup``)."""

    wl: np.ndarray
    radii: np.ndarray
    ring: dict
    ring_spacing: float
    n_orders: int
    front: devices.Frontend
    back: devices.Backend
    symbol_rate_hz: float
    samples_per_symbol: int
    dt_ps: float
    static_blocks: tuple[str, ...]
    cols: dict
    dac_rise_ps: float


def channel_setup(d: int = 8, symbol_rate_hz: float = 5e9, samples_per_symbol: int = 8, *, n_symbols: int = 64,
                  spacing_nm: float | None = None, ring: dict | None = None, ring_spacing: float | None = None,
                  n_orders: int = 1, dac_bits: int = 6, power_w: float = 1e-3, dac_rise_ps: float | None = None,
                  tia_bandwidth_ghz: float | None = None, mzm: dict | None = None,
                  rin_db_per_hz: float | None = None) -> ChannelSetup:
    """A d-wavelength PRISM channel on the bank's channel plan (``bank_model.channel_plan_um``, ``plan_radii``).

    Args:
        d: wavelengths = rings (1–64).
        symbol_rate_hz: query symbol rate (Hz).
        samples_per_symbol: simulation samples per symbol.
        n_symbols: symbols per run (checked here).
        spacing_nm: channel spacing (default the plan's 1.6 nm).
        ring: ``ring_add_drop_model`` parameters shared by the rings (no radius).
        ring_spacing: bus between ring cells (µm; default ``bank_model.RING_SPACING``).
        n_orders: resonance orders kept per ring (odd).
        dac_bits, power_w, mzm, rin_db_per_hz: ``devices.frontend``.
        dac_rise_ps: DAC 10–90 % rise (ps); default ``devices.DAC_RISE_SYMBOLS`` symbols.
        tia_bandwidth_ghz: ``devices.backend``.
    """
    from prismpic.circuits import bank_model

    dt = check_run(symbol_rate_hz, n_symbols, samples_per_symbol, "symbol_rate_hz", "n_symbols")
    if isinstance(d, bool) or not isinstance(d, int | np.integer) or not 1 <= d <= 64:
        raise ValueError(f"d = {d!r} is outside the valid range: an integer in [1, 64]")
    if not isinstance(n_orders, int | np.integer) or n_orders < 1 or n_orders % 2 == 0 or n_orders > 9:
        raise ValueError(f"n_orders = {n_orders!r} is outside the valid range: an odd integer in [1, 9]")
    ring = dict(ring or {})
    spacing = bank_model.GRID_SPACING_NM if spacing_nm is None else spacing_nm
    wl = bank_model.channel_plan_um(d, spacing)
    radii = np.asarray(bank_model.plan_radii(d, spacing, **{k: ring[k] for k in ("gap", "gap_drop", "width")
                                                             if k in ring}, **bank_model.plan_stack(ring)))
    front = devices.frontend(wl, dac_bits=dac_bits, power_w=power_w, mzm=mzm, rin_db_per_hz=rin_db_per_hz)
    back = devices.backend(wl, symbol_rate_hz, tia_bandwidth_ghz=tia_bandwidth_ghz)
    rise = devices.DAC_RISE_SYMBOLS * 1e12 / symbol_rate_hz if dac_rise_ps is None else dac_rise_ps
    check_range("dac_rise_ps", rise, 0.0, 1e6, unit="ps", lo_open=True)
    blocks = {"dac": dac_bandwidth_ghz(rise), "mzm": front.mzm_bandwidth_ghz, "detector": back.pd_bandwidth_ghz,
              "tia": back.tia_bandwidth_ghz}
    static = tuple(k for k, bw in blocks.items() if not devices.dynamic(bw, dt))
    spacing_um = float(bank_model.RING_SPACING if ring_spacing is None else ring_spacing)
    bank_model.check_bank_inputs(wl, radii, 0.0, 0.0, ring)
    cols = program_cache.reuse(lambda w, r: ring_columns(w, r, ring, spacing_um))(wl, radii)
    cols = {k: np.asarray(v) for k, v in cols.items()}
    return ChannelSetup(wl, radii, ring, spacing_um, int(n_orders), front, back, float(symbol_rate_hz),
                        int(samples_per_symbol), dt, static, cols, float(rise))


def dac_bandwidth_ghz(rise_ps: float) -> float:
    """3-dB bandwidth (GHz) of a first-order block with 10–90 % rise ``rise_ps``: ln 9/(2π t_r)."""
    return math.log(9.0) / (2 * math.pi * rise_ps) * 1e3


def query_waveforms(setup: ChannelSetup, symbols, voltages, key=None, noise: bool = False, delta_t_k=0.0):
    """Simulate one query stream through the channel (traceable in ``symbols`` and ``voltages``).

    Args:
        setup: ``channel_setup``.
        symbols: query values in [0, 1], (W, N) (one row per wavelength).
        voltages: ring voltages (V), (d,).
        key: ``jax.random`` key for shot and TIA noise (needed when ``noise``).
        noise: add shot noise (detectors) and TIA input noise.
        delta_t_k: ring temperature change (K), scalar or (d,).

    Returns:
        dict: ``current_a`` (T,) the balanced TIA output referred to its input (A); ``p_drop_w``, ``p_thr_w`` (T,)
        optical powers at the detectors; ``field_in`` (W, T) the MZM output fields (√W).
    """
    optics = channel_optics(setup, symbols, voltages, delta_t_k)
    return {"current_a": received_current(setup, optics, key, noise), "p_drop_w": jnp.sum(optics["p_drop_w"], axis=0),
            "p_thr_w": jnp.sum(optics["p_thr_w"], axis=0), "field_in": optics["field_in"]}


def channel_optics(setup: ChannelSetup, symbols, voltages, delta_t_k=0.0) -> dict:
    """The optical half of ``query_waveforms``: DAC, MZM and rings. Returns ``field_in`` (W, T) the MZM output
    fields (√W) and ``p_drop_w``, ``p_thr_w`` (W, T) each carrier's power at the drop and through detectors (W)."""
    field = mzm_fields(setup, symbols)
    return {"field_in": field, **ring_powers(setup, field, voltages, delta_t_k)}


def mzm_fields(setup: ChannelSetup, symbols):
    """The MZM output fields (W, T) (√W): the DAC codes of ``symbols`` (W, N) through the DAC's and the MZM's
    responses, pre-distorted so that the power is linear in the code."""
    sps, dt = setup.samples_per_symbol, setup.dt_ps
    codes = devices.quantize(jnp.asarray(symbols, dtype=float), setup.front.dac_bits)
    volts = jnp.repeat(devices.drive_volts(setup.front, codes), sps, axis=-1)
    if "dac" not in setup.static_blocks:
        volts = ss.filter_real(volts, dac_bandwidth_ghz(setup.dac_rise_ps), dt)
    if "mzm" not in setup.static_blocks:
        volts = ss.filter_real(volts, setup.front.mzm_bandwidth_ghz, dt)
    return math.sqrt(setup.front.power_w) * devices.mzm_field(setup.front, volts)


def ring_powers(setup: ChannelSetup, field, voltages, delta_t_k=0.0) -> dict:
    """``p_drop_w``, ``p_thr_w`` (W, T): each carrier's power at the drop and through detectors after the rings."""
    systems = systems_from_columns(setup.cols, voltages, delta_t_k, setup.n_orders)
    out = run_rings(systems, field, setup.dt_ps)  # (W, T, 2): drop end, through end
    return {"p_drop_w": jnp.abs(out[..., 0]) ** 2, "p_thr_w": jnp.abs(out[..., 1]) ** 2}


def bank_currents(setup: ChannelSetup, symbols, voltages, tree_power: float = 1.0, key=None, noise: bool = False,
                  delta_t_k=0.0):
    """A bank of N channels fed by one set of MZMs through a 1×N splitter tree: the channels share the query
    waveforms, each receives ``tree_power`` of the MZMs' power (the tree's transmission to one output, e.g.
    ``splitter_tree`` loss at N outputs) and has its own ring voltages, detectors and TIA. Vmapped over channels.

    Args:
        setup: ``channel_setup`` (``power_w``: per carrier at the MZMs).
        symbols: query values in [0, 1], (W, N_symbols).
        voltages: ring voltages (V), (N, d): one row per channel.
        tree_power: power transmission of the tree to each channel, in (0, 1].
        key, noise: as ``query_waveforms`` (each channel its own noise, ``jax.random.fold_in(key, channel)``).
        delta_t_k: ring temperature change (K), scalar or (d,), shared.

    Returns:
        (N, T) balanced TIA input currents (A).
    """
    check_range("tree_power", tree_power, 0.0, 1.0, lo_open=True)
    field = math.sqrt(tree_power) * mzm_fields(setup, symbols)
    volts = jnp.atleast_2d(jnp.asarray(voltages, dtype=float))

    def one(v, n):
        optics = ring_powers(setup, field, v, delta_t_k)
        return received_current(setup, optics, None if key is None else jax.random.fold_in(key, n), noise)

    return jax.vmap(one)(volts, jnp.arange(volts.shape[0]))


def received_current(setup: ChannelSetup, optics: dict, key=None, noise: bool = False, tia_noise_a_per_rthz=None,
                     rin_per_hz=None):
    """The receiver half of ``query_waveforms``: the balanced detectors (responsivity, dark current, shot noise,
    bandwidth) and the TIA (input noise, bandwidth); the balanced current (T,) referred to the TIA input (A).

    With ``noise``, the lasers' intensity noise too (``setup.front.rin_per_hz``): each carrier's power at both
    detectors moves by the same relative δ_λ(t), so the balanced pair keeps R (P_drop − P_thr) δ_λ of it. It is
    applied at the detectors, not ahead of the rings: the rings pass intensity noise unchanged within the
    receiver's band when their linewidth is much wider than the TIA's (the simulated steady state).

    Args:
        setup: ``channel_setup``.
        optics: ``channel_optics``.
        key, noise: as ``query_waveforms``.
        tia_noise_a_per_rthz: TIA input noise density (A/√Hz, traceable); None: ``setup.back``'s.
        rin_per_hz: the lasers' RIN (linear, 1/Hz, traceable); None: ``setup.front``'s.
    """
    dt = setup.dt_ps
    resp = jnp.asarray(setup.back.responsivity_a_per_w)[:, None]
    i_drop = jnp.sum(resp * optics["p_drop_w"], axis=0) + setup.back.dark_current_a
    i_thr = jnp.sum(resp * optics["p_thr_w"], axis=0) + setup.back.dark_current_a
    current = _receiver_filters(setup, i_drop, i_thr, "foh")
    if not noise:
        return current
    # white noise: independent samples held over each step (statespace.discretize, "zoh"); shot noise 2qI
    # (one-sided) of each detector, the TIA's input noise after the detectors, both of variance S/(2Δt) per sample
    dt_s = dt * 1e-12
    k1, k2, k3 = jax.random.split(key, 3)
    n_drop = jnp.sqrt(devices.Q_E * jnp.abs(i_drop) / dt_s) * jax.random.normal(k1, i_drop.shape)
    n_thr = jnp.sqrt(devices.Q_E * jnp.abs(i_thr) / dt_s) * jax.random.normal(k2, i_thr.shape)
    rin = setup.front.rin_per_hz if rin_per_hz is None else rin_per_hz
    delta = jnp.sqrt(rin / (2 * dt_s)) * jax.random.normal(jax.random.fold_in(key, 4), optics["p_drop_w"].shape)
    n_drop = n_drop + jnp.sum(resp * optics["p_drop_w"] * delta, axis=0)
    n_thr = n_thr + jnp.sum(resp * optics["p_thr_w"] * delta, axis=0)
    density = setup.back.tia_noise_a_per_rthz if tia_noise_a_per_rthz is None else tia_noise_a_per_rthz
    n_tia = density / math.sqrt(2 * dt_s) * jax.random.normal(k3, current.shape)
    return current + _receiver_filters(setup, n_drop, n_thr, "zoh", n_tia)


def _receiver_filters(setup: ChannelSetup, i_drop, i_thr, hold: str, at_tia=0.0):
    """(i_drop − i_thr) through the detectors' bandwidth, plus ``at_tia``, through the TIA's (dynamic blocks)."""
    if "detector" not in setup.static_blocks:
        i_drop, i_thr = ss.filter_real(jnp.stack([i_drop, i_thr]), setup.back.pd_bandwidth_ghz, setup.dt_ps,
                                       hold=hold)
    current = i_drop - i_thr + at_tia
    if "tia" not in setup.static_blocks:
        current = ss.filter_real(current, setup.back.tia_bandwidth_ghz, setup.dt_ps, hold=hold)
    return current


def ring_mode_rates(cols: dict, voltages, delta_t_k=0.0):
    """Field decay rates (1/ps, (d, W)) of each ring's own modes, −ln(t₁t₂a)/τ_rt: the device poles of the channel."""
    d = cols["t1"].shape[0]
    v = jnp.broadcast_to(jnp.asarray(voltages, dtype=float), (d,))[:, None]
    t = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), (d,))[:, None]
    tau = cols["tau0"] + v * cols["tau_v"] + t * cols["tau_t"]
    return -jnp.log(cols["t1"] * cols["t2"] * cols["a"]) / tau


def check_channel_step(setup: ChannelSetup, voltages, delta_t_k=0.0) -> None:
    """ValueError naming ``samples_per_symbol`` when the step aliases the fastest ring pole (``statespace.check_step``).

    The poles checked are the rings' own (``ring_mode_rates``). Rings that share a carrier on nearly the same
    resonance (ring j and j + FSR/spacing) also form coupled supermodes that decay faster, up to the number of
    rings sharing it; the exact discretisation integrates an unresolved one as quasi-static (it has settled
    within a sample), so it does not limit the step.
    """
    rates = np.asarray(ring_mode_rates(setup.cols, voltages, delta_t_k))
    ss.check_step(setup.dt_ps, rates, "samples_per_symbol", scale=setup.dt_ps * setup.samples_per_symbol)


def static_currents(setup: ChannelSetup, symbols, voltages, delta_t_k=0.0):
    """The balanced current (A) each symbol gives at rest, from the S-parameter models alone (MZM ``mzm_model``
    through ``devices.mzm_field``' coefficients, the bank's ``channel_fields``), (N,)."""
    from prismpic.circuits import bank_model

    codes = devices.quantize(jnp.asarray(symbols, dtype=float), setup.front.dac_bits)
    t = devices.mzm_field(setup.front, devices.drive_volts(setup.front, codes))
    d_f, t_f = bank_model.channel_fields(setup.wl, setup.radii, voltages, delta_t_k, setup.ring_spacing,
                                         **setup.ring)
    resp = np.asarray(setup.back.responsivity_a_per_w)[:, None]
    w = (jnp.abs(d_f) ** 2 - jnp.abs(t_f) ** 2)[:, None]
    return jnp.sum(resp * setup.front.power_w * jnp.abs(t) ** 2 * w, axis=0)
