"""Recirculating hollow-core-fiber loop for KV data (seed S2-06): layout, netlist, loop physics.

The on-chip part (``kv_loop_chip``) is a 2×2 directional coupler of power coupling κ, an
SOA and two edge couplers to the fiber; the fiber is the ``hcf_delay_line`` block, joined
to the chip's facet ports by ``kv_loop_netlist`` (a fiber cannot be drawn as a two-port
touching both facets, so its two nets are added to the extracted chip netlist).

::

     o2 facet B ◁═EC═══─SOA─═══╮          ╭═══EC═▷ o3 facet A
                  (fiber returns) ╲ dc κ ╱  (fiber leaves)
     o1 input ═══════════════════╯      ╰═════════════ o4 drop

New data enters at o1 and crosses (κ) into the loop; each round trip the loop light passes
the coupler's bar (1 − κ) and the fraction κ leaves at the drop port o4, where it is read.

Frequency domain: with t, k the coupler's bar and cross amplitudes and A the round trip
o3 → fiber → SOA → o2, the input-to-drop response is S41 = a_in a_drop [t + k² A/(1 − tA)]
(a ring resonator with gain). Its free spectral range is c/Σ n_g L, about 300 kHz for a
1 km fiber (n_g ≈ 1). With |tA| ≥ 1 (gain ≥ round-trip loss) the loop is at or above the
lasing threshold: a stored pattern is then only stationary on average, and in a real loop
the saturated SOA clamps the total power (``stationary_input_power_w``).

Time domain (``loop_rounds``, ``circulate``): per round the signal is multiplied by
g_rt = |tA|² and the SOA adds ASE 2 n_sp hν (G − 1) B per polarization pair in a bandwidth
B (``gain.ase_psd_w_per_hz``); ASE then circulates like the signal, so with g_rt = 1 it
grows linearly and the OSNR falls as 10·log10 n (``analysis.kv_capacity``, Olsson 1989).
Not modelled: cross-gain modulation between WDM channels in the SOA (gain dynamics < 1 ns
at 5 GBd patterns), fiber nonlinearity (negligible in air-core fiber), polarization drift,
timing drift when the loop delay is not a whole number of slots.
"""

from __future__ import annotations

import math
from functools import cache

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np
from scipy.constants import c as C_M_PER_S

from prismpic.checks import check_layout_length, check_positive, check_range
from prismpic.components.couplers import directional_coupler, directional_coupler_model, length_for_coupling
from prismpic.components.gain import (
    NOISE_FIGURE_DB,
    P_SAT_OUT_DBM,
    ase_psd_w_per_hz,
    gain_spectrum_db,
    saturated_gain_db,
    saturation_power_dbm,
    small_signal_gain_db,
    soa,
    soa_model,
)
from prismpic.components.io import (
    HCF_GROUP_INDEX,
    edge_coupler,
    edge_coupler_model,
    hcf_delay_line,
    hcf_delay_line_model,
)
from prismpic.components.model_signature import CELL, cell_defaults, model_of
from prismpic.components.waveguides import straight, straight_model
from prismpic.fileio import save_figure_atomic
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import SLAB_MARGIN, ridge_width
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import LOSS_DB_PER_CM

DESIGN_WL = 1.55
OSNR_REF_BW_HZ = 12.5e9  # 0.1 nm at 1550 nm, the usual OSNR reference bandwidth
GAIN_MODES = ("compensate", "saturated")
LEAD_MAX_UM = 1e5  # µm: a chip's straights are shorter than a wafer is wide (the loop's straights stay in the layout range)
FIBER_LENGTH_M = cell_defaults(hcf_delay_line)["length_m"]  # the loop's default fiber: the hcf_delay_line cell's


# ---------------------------------------------------------------------------- geometry
def _lengths(coupling, gap, dy, bend_length, soa_gain_length, soa_taper_length, ec_taper_length, lead_length,
             cross_section):
    """(coupler length, bus input straight, drop straight) in µm for the chip's layout."""
    check_layout_length("lead_length", lead_length, hi=LEAD_MAX_UM)
    lc = coupler_length(coupling, gap, dy, bend_length, cross_section)
    soa_len = soa_gain_length + 2 * soa_taper_length
    bus_in = round(ec_taper_length + 2 * lead_length + soa_len, 3)
    drop = round(lead_length + ec_taper_length, 3)
    return lc, bus_in, drop


# ---------------------------------------------------------------------------- layout
@platform_cell
@gf.cell
def kv_loop_chip(
    coupling: float = 0.1,
    gap: float = 0.3,
    dy: float = 40.0,
    bend_length: float = 40.0,
    soa_gain_length: float = 1000.0,
    soa_taper_length: float = 100.0,
    ec_taper_length: float = 200.0,
    ec_tip_width: float = 0.3,
    lead_length: float = 50.0,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """On-chip part of the fiber KV loop: coupler, SOA and two fiber-attach edge couplers.

    Instances: ``dc`` (directional coupler), ``amp`` (SOA), ``ec_a`` (east facet, light to
    the fiber), ``ec_b`` (west facet, light from the fiber), straights ``lead_b``, ``lead_c``
    (SOA to coupler), ``lead_a``, ``bus_in``, ``bus_out``.

    Args:
        coupling: design power coupling κ of the coupler at 1.55 µm (sets its length).
        gap: coupler gap (µm).
        dy: spacing of the loop line and the bus (µm); must clear the SOA's III-V.
        bend_length: coupler S-bend length (µm).
        soa_gain_length: SOA gain length (µm).
        soa_taper_length: SOA III-V taper length (µm).
        ec_taper_length: edge-coupler taper length (µm).
        ec_tip_width: edge-coupler tip width (µm).
        lead_length: straights between facet, SOA and coupler (µm).
        cross_section: optical cross-section name.

    Ports: o1 input (west, bus), o2 fiber return (west facet), o3 fiber out (east facet),
    o4 drop (east, bus).

    .. code::

        o2 ◁EC═lead_b═SOA═lead_c═╮   ╭═lead_a═EC▷ o3
                                  dc
        o1 ═══════bus_in═════════╯   ╰══bus_out═══ o4
    """
    lc, bus_in, drop = _lengths(coupling, gap, dy, bend_length, soa_gain_length, soa_taper_length, ec_taper_length,
                                lead_length, cross_section)
    amp_cell = soa(gain_length=soa_gain_length, taper_length=soa_taper_length, cross_section=cross_section)
    # the SOA's III-V and contacts must clear the bus ridge's slab by the metal space
    clear = amp_cell.dymax + ridge_width(cross_section) / 2 + SLAB_MARGIN + RULES.min_metal_space
    check_range("dy", dy, clear, math.inf, unit="µm")
    ec = edge_coupler(taper_length=ec_taper_length, tip_width=ec_tip_width, cross_section=cross_section)
    lead = straight(length=lead_length, cross_section=cross_section)
    c = gf.Component()
    ec_b = c.add_ref(ec, name="ec_b")
    ec_b.dmove((0.0, dy / 2))
    lb = c.add_ref(lead, name="lead_b")
    lb.connect("o1", ec_b.ports["o2"])
    amp = c.add_ref(amp_cell, name="amp")
    amp.connect("o1", lb.ports["o2"])
    lcs = c.add_ref(lead, name="lead_c")
    lcs.connect("o1", amp.ports["o2"])
    dc = c.add_ref(directional_coupler(gap=gap, length=lc, dy=dy, bend_length=bend_length,
                                       cross_section=cross_section), name="dc")
    dc.connect("o2", lcs.ports["o2"])
    la = c.add_ref(lead, name="lead_a")
    la.connect("o1", dc.ports["o3"])
    ec_a = c.add_ref(ec, name="ec_a")
    ec_a.connect("o2", la.ports["o2"])
    b_in = c.add_ref(straight(length=bus_in, cross_section=cross_section), name="bus_in")
    b_in.connect("o2", dc.ports["o1"])
    b_out = c.add_ref(straight(length=drop, cross_section=cross_section), name="bus_out")
    b_out.connect("o1", dc.ports["o4"])
    c.add_port("o1", port=b_in.ports["o1"])
    c.add_port("o2", port=ec_b.ports["o1"])
    c.add_port("o3", port=ec_a.ports["o1"])
    c.add_port("o4", port=b_out.ports["o2"])
    c.info["coupler_length"] = lc
    return c


# ---------------------------------------------------------------------------- coupler design and netlist
@model_of(kv_loop_chip)
@cache
def coupler_length(coupling: float = CELL, gap: float = CELL, dy: float = CELL, bend_length: float = CELL,
                   cross_section: str = CELL) -> float:
    """Straight length (µm, 1 nm grid) of the loop coupler for power coupling ``coupling`` at 1.55 µm.

    Defaults: the ``kv_loop_chip`` cell's.
    """
    check_range("coupling", coupling, 0.0, 1.0, lo_open=True, hi_open=True)
    return round(length_for_coupling(coupling, wl=DESIGN_WL, gap=gap, dy=dy, bend_length=bend_length,
                                     cross_section=cross_section), 3)


@model_of(hcf_delay_line)
def kv_loop_netlist(chip: gf.Component, length_m: float = CELL, fiber_coupling_loss_db: float = 0.0,
                    block_size: float = CELL) -> dict:
    """Netlist of the closed loop: the chip's extracted netlist plus the fiber and its two nets.

    The fiber instance ``fiber`` (``hcf_delay_line``) joins o3 (east facet) to o2 (west
    facet), ``length_m`` and ``block_size`` defaulting to that cell's. Its model's lumped
    ``coupling_loss_db`` is set to ``fiber_coupling_loss_db``
    (default 0: the edge couplers on the chip already carry the facet loss). Instance
    ``info`` is dropped: SAX 0.18 merges it over ``settings``. Ports: o1 (input), o4 (drop).
    """
    check_positive("length_m", length_m, unit="m")
    net = chip.get_netlist(on_dangling_port="ignore")
    inst = {k: {kk: vv for kk, vv in v.items() if kk != "info"} for k, v in net["instances"].items()}
    inst["fiber"] = {"component": "hcf_delay_line",
                     "settings": {"length_m": length_m, "block_size": block_size,
                                  "coupling_loss_db": fiber_coupling_loss_db}}
    ports = dict(net["ports"])
    nets = list(net["nets"]) + [{"p1": ports.pop("o3"), "p2": "fiber,o1"}, {"p1": "fiber,o2", "p2": ports.pop("o2")}]
    ports = {k: v for k, v in ports.items() if k in ("o1", "o4")}
    return {"instances": inst, "nets": nets, "ports": ports, "placements": net.get("placements", {})}


# ---------------------------------------------------------------------------- frequency domain
@model_of(kv_loop_chip)
def loop_parts(
    wl=DESIGN_WL,
    *,
    length_m: float = FIBER_LENGTH_M,
    soa_gain_db=None,
    fiber_coupling_loss_db: float = 0.0,
    coupling: float,
    gap: float,
    dy: float,
    bend_length: float,
    soa_gain_length: float,
    soa_taper_length: float,
    ec_taper_length: float,
    ec_tip_width: float,
    lead_length: float,
    cross_section: str,
    loss_db_per_cm=LOSS_DB_PER_CM,
) -> dict:
    """Complex transmissions of the loop's pieces from the device models at the chip's geometry.

    ``coupling`` … ``cross_section`` default to the ``kv_loop_chip`` cell's, ``length_m`` (m) to the
    ``hcf_delay_line`` cell's.

    Returns dict: ``t`` (coupler bar), ``k`` (cross), ``a_in`` (o1 → coupler), ``a_drop``
    (coupler → o4), ``to_fiber`` (coupler o3 → facet A), ``fiber``, ``from_fiber`` (facet B →
    SOA input), ``soa``, ``after_soa`` (SOA → coupler o2), ``A`` (round trip outside the
    coupler, o3 → o2), ``gain_db`` (the SOA's operating peak gain).
    """
    lc, bus_in, drop = _lengths(coupling, gap, dy, bend_length, soa_gain_length, soa_taper_length, ec_taper_length,
                                lead_length, cross_section)
    wl = jnp.asarray(wl, dtype=float)
    loss = {"loss_db_per_cm": loss_db_per_cm}
    g = small_signal_gain_db(soa_gain_length) if soa_gain_db is None else soa_gain_db
    dc = directional_coupler_model(wl, gap=gap, length=lc, dy=dy, bend_length=bend_length, cross_section=cross_section,
                                   **loss)
    lead = straight_model(wl, length=lead_length, cross_section=cross_section, **loss)[("o1", "o2")]
    ec = edge_coupler_model(wl, taper_length=ec_taper_length, tip_width=ec_tip_width, cross_section=cross_section,
                            **loss)[("o1", "o2")]
    amp = soa_model(wl, gain_length=soa_gain_length, taper_length=soa_taper_length, cross_section=cross_section,
                    gain_db=g)[("o1", "o2")]
    fiber = hcf_delay_line_model(wl, length_m=length_m, coupling_loss_db=fiber_coupling_loss_db)[("o1", "o2")]
    parts = {
        "t": dc[("o2", "o3")],
        "k": dc[("o1", "o3")],
        "a_in": straight_model(wl, length=bus_in, cross_section=cross_section, **loss)[("o1", "o2")],
        "a_drop": straight_model(wl, length=drop, cross_section=cross_section, **loss)[("o1", "o2")],
        "to_fiber": lead * ec,
        "fiber": fiber,
        "from_fiber": ec * lead,
        "soa": amp,
        "after_soa": lead,
        "gain_db": jnp.asarray(g, dtype=float),
    }
    parts["A"] = parts["to_fiber"] * fiber * parts["from_fiber"] * amp * lead
    return parts


def kv_loop_response(wl=DESIGN_WL, **kwargs):
    """Input (o1) → drop (o4) transmission of the closed loop: a_in a_drop [t + k² A/(1 − t A)].

    The closed form of the ring with gain; ``kwargs`` as ``loop_parts``. Diverges where
    |tA| → 1 at resonance (lasing threshold).
    """
    p = loop_parts(wl, **kwargs)
    t, k, a = p["t"], p["k"], p["A"]
    return p["a_in"] * p["a_drop"] * (t + k * k * a / (1.0 - t * a))


def round_trip_phase_rad(wl=DESIGN_WL, **kwargs):
    """Round-trip phase arg(t A) (rad, wrapped to (−π, π]) of the loop light at the coupler."""
    p = loop_parts(wl, **kwargs)
    return jnp.angle(p["t"] * p["A"])


def _pair(wl, length_m):
    """(wl, wl + δ) stacked on a last axis, δ giving ~0.3 rad of round-trip phase (fiber + ~1 cm of chip)."""
    wl = jnp.asarray(wl, dtype=float)
    delta = 0.3 * wl**2 / (2 * jnp.pi * (HCF_GROUP_INDEX * length_m + 0.03) * 1e6)
    return jnp.stack([wl, wl + delta], axis=-1)


def round_trip_delay_s(wl=DESIGN_WL, **kwargs):
    """Round-trip group delay τ = −(λ²/2πc) dφ/dλ (s) of arg(tA); the FSR is 1/τ.

    dφ/dλ from the phase difference Im log(z₂/z₁) over a step δλ small enough that it stays
    below π (no unwrapping), with δλ the exact difference of the two float wavelengths.
    """
    w = _pair(wl, kwargs.get("length_m", FIBER_LENGTH_M))
    p = loop_parts(w, **kwargs)
    z = p["t"] * p["A"]
    dphi = jnp.imag(jnp.log(z[..., 1] / z[..., 0]))
    dwl = (w[..., 1] - w[..., 0]) * 1e-6
    wl_m = w[..., 0] * 1e-6
    return -(wl_m**2) / (2 * jnp.pi * C_M_PER_S) * dphi / dwl


def fsr_hz(wl=DESIGN_WL, **kwargs):
    """Free spectral range (Hz) of the loop, 1/τ (``round_trip_delay_s``)."""
    return 1.0 / round_trip_delay_s(wl, **kwargs)


def round_trip_loss_db(wl=DESIGN_WL, **kwargs):
    """Passive round-trip loss (dB) seen by the loop light: −10 log10(|t A|²/G_soa), all but the gain."""
    p = loop_parts(wl, **kwargs)
    return -10.0 * jnp.log10(jnp.abs(p["t"] * p["A"]) ** 2 / jnp.abs(p["soa"]) ** 2)


# ---------------------------------------------------------------------------- rounds (power, ASE, OSNR, phase)
@model_of(kv_loop_chip)
def stationary_input_power_w(round_loss_db, soa_gain_length: float = CELL, p_sat_out_dbm: float = P_SAT_OUT_DBM):
    """Total SOA input power (W) at which its saturated gain equals ``round_loss_db``: the loop's clamp.

    ``soa_gain_length`` (µm) defaults to the ``kv_loop_chip`` cell's.

    From G = G0 exp(−(G − 1) P/P_sat): P = P_sat ln(G0/G)/(G − 1) (``gain.saturated_gain_db``'s
    relation solved for P); ValueError when the small-signal gain G0 cannot reach the loss.
    """
    g0_db = float(small_signal_gain_db(soa_gain_length))
    check_range("round_loss_db", round_loss_db, 0.0, g0_db, unit="dB", lo_open=True, hi_open=True)
    g, g0 = 10 ** (round_loss_db / 10), 10 ** (g0_db / 10)
    p_sat = 1e-3 * 10 ** (float(saturation_power_dbm(p_sat_out_dbm, g0_db)) / 10)
    return p_sat * math.log(g0 / g) / (g - 1.0)


def loop_rounds(
    n_rounds: int,
    wl=DESIGN_WL,
    *,
    power_per_channel_dbm: float = 0.0,
    channels: int = 64,
    gain: str | float = "compensate",
    nf_db: float = NOISE_FIGURE_DB,
    ref_bw_hz: float = OSNR_REF_BW_HZ,
    ase_bandwidth_hz: float | None = None,
    p_sat_out_dbm: float = P_SAT_OUT_DBM,
    **kwargs,
) -> dict:
    """Signal, accumulated ASE, OSNR and phase of stored data for rounds 1 … n at the coupler's loop input.

    Round n's light has made n trips (o3 → fiber → SOA → o2). With g_rt = |tA|² (gain
    included) and P_ase the ASE one SOA pass adds at the coupler (both polarizations, in
    ``ref_bw_hz``): P_s(n) = P_s(1) g_rt^(n−1), P_ase(n) = P_ase · Σ_{j<n} g_rt^j.

    Args:
        n_rounds: number of round trips, ≥ 1.
        wl: wavelength (µm, scalar).
        power_per_channel_dbm: power of one channel launched into the input o1 (dBm).
        channels: WDM channels sharing the SOA (for saturation).
        gain: "compensate" (SOA gain at ``wl`` = passive round-trip loss: g_rt = 1),
            "saturated" (each round, the peak gain the SOA saturates to under the total power
            entering it: all channels plus the circulating ASE over ``ase_bandwidth_hz``, taken
            at ``wl`` on the gain spectrum), or a fixed gain at ``wl`` in dB.
        nf_db: SOA noise figure (dB).
        ref_bw_hz: OSNR reference bandwidth (Hz).
        ase_bandwidth_hz: optical bandwidth of the circulating ASE that loads the SOA (no
            filter: the SOA's gain FWHM); only for ``gain="saturated"``.
        p_sat_out_dbm: SOA −3 dB output saturation power (dBm).
        **kwargs: the loop's geometry and fiber, as ``loop_parts`` (not ``soa_gain_db``).

    Returns:
        dict of arrays over rounds: ``round`` (1 … n), ``signal_w`` (per channel),
        ``ase_w`` (in ``ref_bw_hz``), ``osnr_db``, ``gain_db`` (SOA gain used in that round),
        ``phase_rad`` (accumulated round-trip phase, wrapped), ``drop_signal_w`` (what the drop
        port reads), and ``round_loss_db`` (the passive round-trip loss).
    """
    from prismpic.components.gain import GAIN_FWHM_NM

    if isinstance(n_rounds, bool) or not isinstance(n_rounds, (int, np.integer)) or not 1 <= n_rounds <= 10**7:
        raise ValueError(f"n_rounds = {n_rounds!r} is outside the valid range [1, 1e+07] (an integer)")
    check_range("channels", channels, 1, 10**4)
    check_range("ref_bw_hz", ref_bw_hz, 0.0, math.inf, unit="Hz", lo_open=True)
    if "soa_gain_db" in kwargs:
        raise ValueError("soa_gain_db: pass the SOA gain as gain = <dB>, 'compensate' or 'saturated'")
    check_range("wl", wl, 1.2, 1.8, unit="µm")
    pair = loop_parts(_pair(float(wl), kwargs.get("length_m", FIBER_LENGTH_M)), soa_gain_db=0.0, **kwargs)
    passive = {k: v[..., 0] for k, v in pair.items() if k != "gain_db"}  # gain 0 dB: the passive loop
    loss_db = float(-10 * jnp.log10(jnp.abs(passive["t"] * passive["A"]) ** 2))
    sl = kwargs.get("soa_gain_length", cell_defaults(kv_loop_chip)["soa_gain_length"])
    g0_db = float(small_signal_gain_db(sl))
    b_ase = ase_bandwidth_hz if ase_bandwidth_hz is not None else C_M_PER_S * GAIN_FWHM_NM * 1e-9 / (float(wl) * 1e-6) ** 2
    p_ch = 1e-3 * 10 ** (power_per_channel_dbm / 10)
    launch = p_ch * float(jnp.abs(passive["a_in"] * passive["k"]) ** 2)  # into the loop at o3
    t_soa_in = float(jnp.abs(passive["to_fiber"] * passive["fiber"] * passive["from_fiber"]) ** 2)  # o3 → SOA input
    t_after = float(jnp.abs(passive["after_soa"]) ** 2)
    t_bar = float(jnp.abs(passive["t"]) ** 2)

    if isinstance(gain, str):
        if gain not in GAIN_MODES:
            raise ValueError(f"gain = {gain!r} is not one of {list(GAIN_MODES)} or a gain in dB")
    else:
        check_range("gain", gain, 0.0, 60.0, unit="dB")
    p_sat_dbm = float(saturation_power_dbm(p_sat_out_dbm, g0_db))

    def gain_for(total_in_w):
        if gain == "compensate":
            return loss_db
        if gain == "saturated":
            peak = saturated_gain_db(10 * jnp.log10(total_in_w / 1e-3), g0_db, p_sat_dbm)
            return gain_spectrum_db(float(wl), peak)
        return float(gain)

    def one_round(carry, _):
        sig_o3, ase_o3, ase_wide_o3 = carry  # at the coupler's o3, leaving into the fiber path
        s_in, a_in_, w_in = sig_o3 * t_soa_in, ase_o3 * t_soa_in, ase_wide_o3 * t_soa_in
        g_db = gain_for(channels * s_in + w_in)
        g = 10.0 ** (jnp.asarray(g_db) / 10.0)
        s_psd = ase_psd_w_per_hz(g_db, nf_db, float(wl))  # per polarization
        s2, a2 = s_in * g * t_after, (a_in_ * g + 2 * s_psd * ref_bw_hz) * t_after
        w2 = (w_in * g + 2 * s_psd * b_ase) * t_after
        out = (s2, a2, jnp.asarray(g_db, dtype=float))
        return (s2 * t_bar, a2 * t_bar, w2 * t_bar), out

    init = (jnp.asarray(launch), jnp.asarray(0.0), jnp.asarray(0.0))
    _, (sig, ase, g_db) = jax.lax.scan(one_round, init, None, length=n_rounds)
    n = np.arange(1, n_rounds + 1)
    phase = np.angle(np.exp(1j * n * float(jnp.angle(passive["t"] * passive["A"]))))
    k_drop = float(jnp.abs(passive["k"] * passive["a_drop"]) ** 2)
    sig, ase = np.asarray(sig), np.asarray(ase)
    return {
        "round": n,
        "signal_w": sig,
        "ase_w": ase,
        "osnr_db": 10 * np.log10(sig / ase),
        "gain_db": np.asarray(g_db),
        "phase_rad": phase,
        "drop_signal_w": sig * k_drop,
        "round_loss_db": loss_db,
    }


def rounds_until_osnr(target_osnr_db: float, n_max: int = 10**6, **kwargs) -> int:
    """Rounds for which the OSNR stays ≥ ``target_osnr_db`` (0 if even the first falls short); ``kwargs`` as ``loop_rounds``."""
    osnr = loop_rounds(n_max, **kwargs)["osnr_db"]
    below = np.nonzero(osnr < target_osnr_db)[0]
    return int(below[0]) if below.size else n_max


# ---------------------------------------------------------------------------- time domain
def slots_in_loop(symbol_rate_hz: float = 5e9, wl=DESIGN_WL, **kwargs) -> int:
    """Symbol slots the loop holds: round(τ · symbol rate), τ the round-trip group delay."""
    check_positive("symbol_rate_hz", symbol_rate_hz, unit="Hz")
    return int(round(float(round_trip_delay_s(wl, **kwargs)) * symbol_rate_hz))


def circulate(bits, n_rounds: int, *, symbol_rate_hz: float = 5e9, seed: int = 0, wl=DESIGN_WL, **kwargs):
    """Detected power (W) of a stored pattern for rounds 1 … n: array (n_rounds, slots), with ASE noise.

    One channel; slot s holds bit b_s. The field in each slot is propagated round by round,
    E ← √g_rt E + n, where n is the ASE of one SOA pass in the slot's bandwidth (the symbol
    rate), a circular complex Gaussian in each of two polarizations with ⟨|n|²⟩ = S_ase B at
    the coupler (S_ase per polarization from ``gain.ase_psd_w_per_hz``). The detected power is
    |E_x|² + |E_y|² (signal in x). Gains and powers follow ``loop_rounds`` (same ``kwargs``);
    the pattern is assumed to fill a whole number of slots (no timing drift).

    Args:
        bits: 0/1 pattern (slots,).
        n_rounds: number of round trips.
        symbol_rate_hz: slot rate (Hz); the noise bandwidth of a slot.
        seed: random seed (NumPy ``default_rng``).
        wl: wavelength (µm).
        **kwargs: as ``loop_rounds`` (power, channels, gain, nf_db, geometry …).
    """
    b = np.asarray(bits)
    if b.ndim != 1 or b.size == 0 or not np.all((b == 0) | (b == 1)):
        raise ValueError(f"bits must be a non-empty 1-D array of 0 and 1; got shape {b.shape}")
    check_positive("symbol_rate_hz", symbol_rate_hz, unit="Hz")
    r = loop_rounds(n_rounds, wl, ref_bw_hz=symbol_rate_hz, **kwargs)
    sig, ase = r["signal_w"], r["ase_w"]
    # per-round growth of signal and of ASE, and the ASE one pass adds (both in the slot bandwidth)
    g_rt = np.concatenate([[1.0], sig[1:] / sig[:-1]])
    added = ase - np.concatenate([[0.0], ase[:-1] * g_rt[1:]])
    rng = np.random.default_rng(seed)
    shape = (b.size,)
    ex = np.sqrt(sig[0]) * b.astype(complex)
    ey = np.zeros(shape, complex)
    out = np.empty((n_rounds, b.size))
    for n in range(n_rounds):
        if n > 0:
            ex, ey = ex * np.sqrt(g_rt[n]), ey * np.sqrt(g_rt[n])
        sigma = np.sqrt(added[n] / 4.0)  # each quadrature of each polarization: ⟨|n|²⟩ = added/2 per pol.
        ex = ex + sigma * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
        ey = ey + sigma * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
        out[n] = np.abs(ex) ** 2 + np.abs(ey) ** 2
    return out


def bit_errors_per_round(powers, bits) -> np.ndarray:
    """Errors per round deciding each slot against the midpoint of that round's mean 1 and 0 levels."""
    p = np.asarray(powers)
    b = np.asarray(bits).astype(bool)
    if p.ndim != 2 or p.shape[1] != b.size:
        raise ValueError(f"powers has shape {p.shape}; expected (n_rounds, {b.size}) for bits of length {b.size}")
    if b.all() or not b.any():
        raise ValueError("bits must contain both 0 and 1 to set a decision threshold")
    threshold = 0.5 * (p[:, b].mean(axis=1) + p[:, ~b].mean(axis=1))
    return np.sum((p > threshold[:, None]) != b[None, :], axis=1)


def plot_circulation(powers, path, symbol_rate_hz: float = 5e9, title: str | None = None) -> None:
    """Heat map (PNG) of the power in each slot (``circulate``), rounds × slots, in dBm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = np.asarray(powers)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        im = ax.imshow(10 * np.log10(np.maximum(p, 1e-15) / 1e-3), aspect="auto", origin="lower",
                       interpolation="nearest", extent=(0, p.shape[1] / symbol_rate_hz * 1e9, 0.5, p.shape[0] + 0.5),
                       cmap="magma")
        ax.set_xlabel("time within the loop (ns)")
        ax.set_ylabel("round")
        ax.set_title(title or f"stored pattern over {p.shape[0]} rounds")
        fig.colorbar(im, ax=ax, label="power at the coupler (dBm)")
        fig.tight_layout()
        save_figure_atomic(fig, path, dpi=120)
    finally:
        plt.close(fig)


def _register():
    from prismpic.circuits.registry import Circuit

    return {"kv_loop_chip": Circuit("kv_loop_chip", kv_loop_chip, None, kv_loop_response)}


CIRCUITS = _register()
