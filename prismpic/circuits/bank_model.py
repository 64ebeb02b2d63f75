"""PRISM weight banks: the channel plan and the structured fast model of d-ring channels.

A channel is a through bus carrying the d query wavelengths past d add-drop rings; each
ring drops part of the light into a drop bus that runs the other way, so the channel is
a cascade of 2-ports whose "left" port is (through-bus in, drop-bus out) and "right" port
(through-bus out, drop-bus in). Ring j's 2-port S is [[D, D'], [T, T']] with T = S(o1→o2),
D = S(o1→o4), D' = S(o3→o2), T' = S(o3→o4) from ``ring_add_drop_model``; the cascade is
the Redheffer star product, which keeps every ring–ring round trip (inter-ring cavities).
Balanced detection reads I = ℜ Σ_λ P_λ (|D_tot(λ)|² − |T_tot(λ)|²) (drop PD at the left end
of the drop bus minus through PD at the right end of the through bus), a signed weighted
sum (Tait et al., JLT 32, 3427 (2014); Sci. Rep. 7, 7430 (2017)).

Every ring sees every wavelength with all its resonance orders: rings of one radius
family share an FSR (≈ 8 nm at R = 20 µm), so on a 1.6 nm grid over 32 channels each ring
is near resonance with several channels — the crosstalk this model includes by
construction. The cells are in ``bank_layout``, the inverse problem (voltages for target
weights) in ``weight_programming``.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_array_1d, check_range, concrete
from prismpic.components import ring_physics, rings
from prismpic.components.couplers import sbend_response
from prismpic.components.model_signature import CELL, cell_defaults, model_of
from prismpic.components.waveguides import straight_model
from prismpic.pdk.cross_sections import RING_RADIUS
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM

RING_SPACING = 10.0  # µm of bus between adjacent ring cells
GRID_SPACING_NM = 1.6  # channel spacing of the wavelength grid (S1-03)
GRID_CENTER_NM = 1550.0  # centre of the wavelength grid
BANK_D = 4  # rings per channel (wavelengths) of the default bank tile (``bank_layout.prism_bank``)
PLAN_BAND_UM = (1.50, 1.60)  # channel plans must lie in the band the device models are swept over (testing.BAND_UM)
LAYOUT_GRID_UM = 0.001  # the GDS database unit: port positions are multiples of it


# ---------------------------------------------------------------------------- channel plan
def channel_plan_um(d: int = 32, spacing_nm: float = GRID_SPACING_NM, center_nm: float = GRID_CENTER_NM) -> np.ndarray:
    """Wavelengths (µm) of d channels on a uniform grid centred on ``center_nm`` (S1-03: 1.6 nm; d = 32: the seed's)."""
    check_range("d", d, 1, 1024)
    check_range("spacing_nm", spacing_nm, 0.01, 100.0, unit="nm")
    check_range("center_nm", center_nm, 0.0, math.inf, unit="nm", lo_open=True, hi_open=True)
    return (center_nm + spacing_nm * (np.arange(d) - (d - 1) / 2)) * 1e-3


def check_plan(d: int, spacing_nm: float, center_nm: float) -> None:
    """ValueError unless the d-channel plan lies in ``PLAN_BAND_UM`` (the band the models cover)."""
    if not isinstance(d, int | np.integer) or d < 1:
        raise ValueError(f"d = {d!r} must be an integer ≥ 1")
    check_range("spacing_nm", spacing_nm, 0.01, 100.0, unit="nm")
    lo, hi = (x * 1e3 for x in PLAN_BAND_UM)
    check_range("center_nm", center_nm, lo, hi, unit="nm")
    d_max = int(math.floor(2 * min(center_nm - lo, hi - center_nm) / spacing_nm + 1e-9)) + 1
    half = spacing_nm * (d - 1) / 2
    if center_nm - half < lo - 1e-9 or center_nm + half > hi + 1e-9:
        raise ValueError(f"d = {d} is outside the valid range [1, {d_max}]: {d} channels at {spacing_nm:g} nm around "
                         f"{center_nm:g} nm leave the {lo:g}–{hi:g} nm band of the channel plan")


_WALL_KEYS = ("sidewall_angle_deg", "cladding")  # process: ridge wall angle (°) and cladding, as film and etch
_RT_KEYS = ("width", "gap", "gap_drop", "electrode_gap", "electrode_coverage", "film_thickness", "etch_depth",
            "loss_db_per_cm", "voltage_v", "delta_t_k", *_WALL_KEYS)


def bank_radii(channels_um, radius0: float = RING_RADIUS, **ring) -> np.ndarray:
    """Ring radii (µm) within ±FSR/2 of ``radius0`` that put ring j's resonance on channel j at 0 V.

    Solves θ(λ_j, R) = 2πm_j by Newton's method in R (vectorised over channels), m_j the
    order nearest ``radius0``'s at λ_j.
    """
    p = {k: v for k, v in ring.items() if k in _RT_KEYS}
    ch = check_array_1d("channels_um", channels_um, unit="µm")
    if ch is not None:  # the ring model's own checks (wavelength domain, geometry), eagerly, at the channel ends
        check_range("radius0", radius0, RULES.min_bend_radius, 500.0, unit="µm")
        try:
            rings.ring_add_drop_model(wl=np.array([ch.min(), ch.max()]), radius=float(radius0), **p)
        except ValueError as e:
            raise ValueError(f"channels_um: {e}" if str(e).startswith("wl") else str(e)) from None
    wl = jnp.asarray(channels_um, dtype=float)

    def theta(r, w):
        return ring_physics.ring_round_trip(w, r, **p)[1]

    dtheta = jax.vmap(jax.grad(theta))
    theta_v = jax.vmap(theta)
    m = jnp.round(theta_v(jnp.full(wl.shape, float(radius0)), wl) / (2 * jnp.pi))

    @jax.jit
    def solve(r):
        def body(_, r):
            return r - (theta_v(r, wl) - 2 * jnp.pi * m) / dtheta(r, wl)

        return jax.lax.fori_loop(0, 8, body, r)

    return np.asarray(solve(jnp.full(wl.shape, float(radius0))))


@model_of(rings.ring_add_drop)
def plan_radii(d: int = BANK_D, spacing_nm: float = GRID_SPACING_NM, center_nm: float = GRID_CENTER_NM,
               gap: float = CELL, gap_drop: float | None = CELL, width: float = CELL) -> tuple[float, ...]:
    """Ring radii (µm) of a d-channel bank: ring j resonant on channel j at 0 V (``bank_radii``; cached).

    ``gap``, ``gap_drop`` and ``width`` default to the ``ring_add_drop`` cell's; the plan to the bank
    tile's (``prism_bank`` takes the same constants: it lives in ``bank_layout``, which imports this module).
    """
    check_plan(d, spacing_nm, center_nm)
    return _plan_radii(int(d), float(spacing_nm), float(center_nm), float(gap),
                       None if gap_drop is None else float(gap_drop), float(width))


@functools.lru_cache(maxsize=64)
def _plan_radii(d, spacing_nm, center_nm, gap, gap_drop, width) -> tuple[float, ...]:
    with jax.ensure_compile_time_eval():  # concrete numbers even when called while tracing
        radii = bank_radii(channel_plan_um(d, spacing_nm, center_nm), gap=gap, gap_drop=gap_drop, width=width)
    return tuple(float(r) for r in radii)


# ---------------------------------------------------------------------------- ring cascade
def _star(a, b):
    """Redheffer star product of 2-ports (r, t, tp, rp): a on the left, b on the right."""
    ra, ta, tpa, rpa = a
    rb, tb, tpb, rpb = b
    den = 1.0 - rpa * rb
    return (ra + tpa * rb * ta / den, tb * ta / den, tpa * tpb / den, rpb + tb * rpa * tpb / den)


_RING_CELL = cell_defaults(rings.ring_add_drop)  # the ring geometry a channel takes where ``ring`` gives none
_MODEL_KEYS = ("gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage", "electrode_width",
               "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", *_WALL_KEYS)


def ring_columns(wl, radii, **ring):
    """Voltage-independent parts of each ring's response at ``wl`` (µm), shape (d, W) each.

    The round-trip phase is exactly linear in voltage and temperature (θ = θ0 + V θ_V + ΔT θ_T,
    ``ring_physics.ring_round_trip``), so couplers, loss, θ0 and the slopes (rad/V, rad/K) are
    computed once per ring and wavelength and shared by every channel that uses the same radii.
    Keys: t1, k1, t2, k2 (coupler fields), a (round-trip amplitude), theta0, theta_v, theta_t, bus.
    """
    wl = jnp.asarray(wl, dtype=float)
    p = {k: v for k, v in ring.items() if k in _MODEL_KEYS}
    rt = {k: v for k, v in p.items() if k in _RT_KEYS}
    width = p.get("width", _RING_CELL["width"])
    film = p.get("film_thickness", FILM_THICKNESS)
    etch = p.get("etch_depth", ETCH_DEPTH)
    wall = {k: p[k] for k in _WALL_KEYS if k in p}

    def one(r):
        t1, k1, t2, k2 = ring_physics.coupler_fields(wl, p.get("gap", _RING_CELL["gap"]), p.get("gap_drop"), r, width,
                                                     film, etch, p.get("coupler_loss_db", 0.0), **wall)
        a, th0 = ring_physics.ring_round_trip(wl, r, **rt)
        _, th_v = ring_physics.ring_round_trip(wl, r, **{**rt, "voltage_v": 1.0})
        _, th_t = ring_physics.ring_round_trip(wl, r, **{**rt, "delta_t_k": 1.0})
        length = ring_physics.default_bus_length(r, width) if p.get("bus_length") is None else p["bus_length"]
        bus = ring_physics.bus_transmission(wl, length, width, film, etch, p.get("loss_db_per_cm", LOSS_DB_PER_CM),
                                            **wall)
        return dict(t1=t1, k1=k1, t2=t2, k2=k2, a=a, theta0=th0, theta_v=th_v - th0, theta_t=th_t - th0, bus=bus)

    return jax.vmap(one)(jnp.asarray(radii, dtype=float))


def fields_from_columns(cols, spacers, voltages, delta_t_k):
    """(D_tot, T_tot), each (W,): one channel's drop-end and through-end fields per unit input field.

    The star-product cascade of its d rings, given their ``ring_columns`` ``cols``, the buses
    between them (``spacer_transmissions``), ring voltages (V, (d,)) and temperature changes (K, (d,)).
    """
    theta = cols["theta0"] + voltages[:, None] * cols["theta_v"] + delta_t_k[:, None] * cols["theta_t"]
    thr, drop, add_drop = ring_physics.add_drop_fields(cols["t1"], cols["k1"], cols["t2"], cols["k2"], cols["a"], theta)
    b = cols["bus"]
    # 2-port per ring: (r, t, tp, rp) = (D, T, T', D')
    two = (b * drop, b * thr, b * add_drop, b * drop)
    through_t, drop_t = spacers  # (W,) and (d − 1, W): the drop bus jogs between rings of unequal radius
    zero = jnp.zeros_like(through_t)

    def step(carry, x):
        ring, dt = x
        return _star(_star(carry, (zero, through_t, dt, zero)), ring), None

    first = tuple(x[0] for x in two)
    rest = tuple(x[1:] for x in two)
    (d_tot, t_tot, _, _), _ = jax.lax.scan(step, first, (rest, drop_t))
    return d_tot, t_tot


@model_of(rings.ring_add_drop)
def drop_jogs_um(radii, gap=CELL, gap_drop=CELL, width=CELL):
    """Lateral drop-bus offsets (µm) between adjacent rings of a channel, as drawn, shape (…, d − 1).

    With the through bus straight, ring j's drop bus lies s_j = [R_j + gap + w] + [R_j + gap_drop + w]
    above it (the ring cell puts each bus at ±(R + gap + w) from the ring centre, [·] rounded
    to the layout grid), so the drop bus jogs by s_{j+1} − s_j between rings j and j + 1.
    ``gap``, ``gap_drop`` and ``width`` default to the ``ring_add_drop`` cell's.
    """
    gd = gap if gap_drop is None else gap_drop
    r = jnp.asarray(radii, dtype=float)

    def snap(x):
        return jnp.round(x / LAYOUT_GRID_UM) * LAYOUT_GRID_UM

    span = snap(r + gap + width) + snap(r + gd + width)
    return span[..., 1:] - span[..., :-1]


def spacer_transmissions(wl, ring_spacing, ring, radii):
    """(through, drop) field transmissions of the buses between adjacent rings: (W,) and (d − 1, W).

    The through bus is a straight ``ring_spacing`` (µm) long; the drop bus is the same straight
    where neighbouring rings have equal bus spans and a raised-cosine ``sbend`` (the layout's
    jog, ``drop_jogs_um``) where they differ. ``ring``: the ring parameters (gap, width, …).
    """
    sp = {k: v for k, v in ring.items() if k in ("width", "film_thickness", "etch_depth", "loss_db_per_cm", *_WALL_KEYS)}
    wl = jnp.asarray(wl, dtype=float)
    n_jogs = jnp.shape(radii)[-1] - 1
    if ring_spacing <= 0:
        one = jnp.ones_like(wl, dtype=complex)
        return one, jnp.broadcast_to(one, (n_jogs,) + wl.shape)
    t = straight_model(wl=wl, length=ring_spacing, **sp)[("o1", "o2")]
    jogs = drop_jogs_um(radii, **{k: ring[k] for k in ("gap", "gap_drop", "width") if k in ring})
    flat = jogs == 0
    safe = jnp.where(flat, 1.0, jogs)  # keeps the unused branch (and its gradient) finite
    geo = (ring.get("width", _RING_CELL["width"]), ring.get("film_thickness", FILM_THICKNESS),
           ring.get("etch_depth", ETCH_DEPTH), ring.get("loss_db_per_cm", LOSS_DB_PER_CM))
    wall = {k: ring[k] for k in _WALL_KEYS if k in ring}
    bends = jax.vmap(lambda h: sbend_response(wl, ring_spacing, h, *geo, **wall))(safe)
    return t, jnp.where(flat[:, None], t, bends)


# ---------------------------------------------------------------------------- channels and banks
def channel_fields(wl, radii, voltages, delta_t_k=0.0, ring_spacing: float = RING_SPACING, **ring):
    """(D_tot, T_tot): drop-end and through-end fields of one channel at wavelengths ``wl``.

    Args:
        wl: wavelengths (µm), shape (W,).
        radii: ring radii (µm), shape (d,).
        voltages: ring voltages (V), shape (d,).
        delta_t_k: temperature change (K), scalar or (d,).
        ring_spacing: bus length between adjacent ring cells (µm).
        **ring: other ``ring_add_drop_model`` parameters (gap, loss_db_per_cm, …), shared by all rings.
    """
    radii = jnp.asarray(radii, dtype=float)
    voltages = jnp.broadcast_to(jnp.asarray(voltages, dtype=float), radii.shape)
    dts = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), radii.shape)
    check_bank_inputs(wl, radii, voltages, dts, ring)
    return fields_from_columns(ring_columns(wl, radii, **ring), spacer_transmissions(wl, ring_spacing, ring, radii),
                               voltages, dts)


def check_bank_inputs(wl, radii, voltages, delta_t_k, ring: dict) -> None:
    """ValueError unless voltages lie within the electrode limit and the ring model accepts the wavelengths, the
    radii and the temperatures at their extremes (concrete values only; skipped when traced)."""
    vmax = RULES.max_electrode_voltage_v
    check_range("voltages", voltages, -vmax, vmax, unit="V")
    vals = [concrete(x) for x in (wl, radii, delta_t_k)]
    if any(v is None for v in vals):
        return
    w, r, t = (np.atleast_1d(np.asarray(v, dtype=float)) for v in vals)
    check_range("wl", w, -math.inf, math.inf, unit="µm", lo_open=True, hi_open=True)
    check_range("radii", r, RULES.min_bend_radius, 500.0, unit="µm")
    check_range("delta_t_k", t, -math.inf, math.inf, unit="K", lo_open=True, hi_open=True)
    for radius in {float(r.min()), float(r.max())}:
        for dt in {float(t.min()), float(t.max())}:
            rings.ring_add_drop_model(wl=np.array([w.min(), w.max()]), radius=radius, delta_t_k=dt, **ring)


def unchecked_bank_fields(wl, radii, voltages, delta_t_k, ring_spacing, ring):
    """``bank_fields`` without its checks and cache: (D, T), each (N, W); traceable.

    ``radii`` (d,) or (N, d) µm, ``voltages`` (N, d) V and ``delta_t_k`` (N, d) K as arrays,
    ``ring_spacing`` in µm, ``ring`` a dict of ring parameters.
    """
    if radii.ndim == 1:
        cols = ring_columns(wl, radii, **ring)
        spacer = spacer_transmissions(wl, ring_spacing, ring, radii)
        return jax.vmap(lambda v, t: fields_from_columns(cols, spacer, v, t))(voltages, delta_t_k)
    return jax.vmap(lambda r, v, t: fields_from_columns(ring_columns(wl, r, **ring),
                                                        spacer_transmissions(wl, ring_spacing, ring, r),
                                                        v, t))(radii, voltages, delta_t_k)


@functools.lru_cache(maxsize=32)
def _compiled_bank(ring_spacing: float, ring_items: tuple):
    ring = dict(ring_items)
    return jax.jit(lambda wl, r, v, t: unchecked_bank_fields(wl, r, v, t, ring_spacing, ring))


def bank_fields(wl, radii, voltages, delta_t_k=0.0, ring_spacing: float = RING_SPACING, **ring):
    """Drop and through fields of N channels, shape (N, W), jitted.

    ``radii`` is (d,) shared by all channels (ring columns computed once) or (N, d) per
    channel (fabrication variation); ``voltages`` is (N, d); ``delta_t_k`` broadcasts to
    (N, d). Ring parameters are validated once, eagerly.
    """
    voltages = jnp.asarray(voltages, dtype=float)
    check_range("voltages", voltages, -RULES.max_electrode_voltage_v, RULES.max_electrode_voltage_v, unit="V")
    radii = jnp.asarray(radii, dtype=float)
    if voltages.ndim != 2 or voltages.shape[-1] != radii.shape[-1] or (radii.ndim == 2 and radii.shape != voltages.shape):
        raise ValueError(f"voltages has shape {voltages.shape}; expected (n_channels, d) with d = {radii.shape[-1]}"
                         + (f" and radii {radii.shape}" if radii.ndim == 2 else ""))
    dts = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), voltages.shape)
    check_bank_inputs(wl, radii, voltages, dts, ring)
    if concrete(radii) is None or concrete(voltages) is None or concrete(dts) is None:
        return unchecked_bank_fields(wl, radii, voltages, dts, float(ring_spacing), ring)
    f = _compiled_bank(float(ring_spacing), tuple(sorted(ring.items())))
    return f(jnp.asarray(wl, dtype=float), radii, voltages, dts)


def balanced_weights(wl, radii, voltages, **kw):
    """Signed raw weights |D|² − |T|² (N, W) seen by each wavelength: the balanced PD's transfer."""
    d, t = bank_fields(wl, radii, voltages, **kw)
    return jnp.abs(d) ** 2 - jnp.abs(t) ** 2


def balanced_currents_a(powers_w, wl, radii, voltages, responsivity_a_per_w: float = 0.95, **kw):
    """Balanced photocurrents (A) of N channels for per-wavelength input powers (W) at each channel.

    ``powers_w`` has shape (W,) (the same broadcast to every channel) or (N, W).
    """
    check_range("powers_w", powers_w, 0.0, 10.0, unit="W")
    w = balanced_weights(wl, radii, voltages, **kw)
    return responsivity_a_per_w * jnp.sum(jnp.asarray(powers_w) * w, axis=-1)


def exact_scores(query, weights):
    """Exact signed inner products (N,) of a query (d,) with N weight rows (N, d)."""
    return jnp.asarray(weights) @ jnp.asarray(query)
