"""PRISM weight banks: channel plan, structured fast model, weight programming, layout.

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
construction.
"""

from __future__ import annotations

import functools
import math

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range, concrete
from prismpic.components import electrical, rings
from prismpic.components.couplers import sbend, sbend_response
from prismpic.components.detectors import balanced_photodetector
from prismpic.components.waveguides import bend_euler, bend_euler_model, straight, straight_model
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES

C_NM_PER_S = 299792458e9
RING_SPACING = 10.0  # µm of bus between adjacent ring cells


# ---------------------------------------------------------------------------- channel plan
def channel_plan_um(d: int = 32, spacing_nm: float = 1.6, center_nm: float = 1550.0) -> np.ndarray:
    """Wavelengths (µm) of d channels on a uniform grid centred on ``center_nm`` (S1-03: 1.6 nm)."""
    check_range("d", d, 1, 1024)
    check_range("spacing_nm", spacing_nm, 0.01, 100.0, unit="nm")
    return (center_nm + spacing_nm * (np.arange(d) - (d - 1) / 2)) * 1e-3


_RT_KEYS = ("width", "gap", "gap_drop", "electrode_gap", "electrode_coverage", "film_thickness", "etch_depth",
            "loss_db_per_cm", "voltage_v", "delta_t_k")


def bank_radii(channels_um, radius0: float = rings.RING_RADIUS, **ring) -> np.ndarray:
    """Ring radii (µm) within ±FSR/2 of ``radius0`` that put ring j's resonance on channel j at 0 V.

    Solves θ(λ_j, R) = 2πm_j by Newton's method in R (vectorised over channels), m_j the
    order nearest ``radius0``'s at λ_j.
    """
    p = {k: v for k, v in ring.items() if k in _RT_KEYS}
    wl = jnp.asarray(channels_um, dtype=float)

    def theta(r, w):
        return rings.ring_round_trip(w, r, **p)[1]

    dtheta = jax.vmap(jax.grad(theta))
    theta_v = jax.vmap(theta)
    m = jnp.round(theta_v(jnp.full(wl.shape, float(radius0)), wl) / (2 * jnp.pi))

    @jax.jit
    def solve(r):
        def body(_, r):
            return r - (theta_v(r, wl) - 2 * jnp.pi * m) / dtheta(r, wl)

        return jax.lax.fori_loop(0, 8, body, r)

    return np.asarray(solve(jnp.full(wl.shape, float(radius0))))


# ---------------------------------------------------------------------------- fast model
def _star(a, b):
    """Redheffer star product of 2-ports (r, t, tp, rp): a on the left, b on the right."""
    ra, ta, tpa, rpa = a
    rb, tb, tpb, rpb = b
    den = 1.0 - rpa * rb
    return (ra + tpa * rb * ta / den, tb * ta / den, tpa * tpb / den, rpb + tb * rpa * tpb / den)


_MODEL_KEYS = ("gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage", "electrode_width",
               "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db")


def ring_columns(wl, radii, **ring):
    """Voltage-independent parts of each ring's response at ``wl``, shape (d, W) each.

    The round-trip phase is exactly linear in voltage and temperature (θ = θ0 + V θ_V + ΔT θ_T,
    ``rings.ring_round_trip``), so couplers, loss, θ0 and the slopes are computed once per
    ring and wavelength and shared by every channel that uses the same radii.
    """
    wl = jnp.asarray(wl, dtype=float)
    p = {k: v for k, v in ring.items() if k in _MODEL_KEYS}
    rt = {k: v for k, v in p.items() if k in _RT_KEYS}
    cp = {k: p[k] for k in ("width", "film_thickness", "etch_depth") if k in p}

    def one(r):
        t1, k1, t2, k2 = rings._couplers(wl, p.get("gap", rings.GAP), p.get("gap_drop"), r,
                                         cp.get("width", rings.RIDGE_WIDTH),
                                         cp.get("film_thickness", rings.FILM_THICKNESS),
                                         cp.get("etch_depth", rings.ETCH_DEPTH), p.get("coupler_loss_db", 0.0))
        a, th0 = rings.ring_round_trip(wl, r, **rt)
        _, th_v = rings.ring_round_trip(wl, r, **{**rt, "voltage_v": 1.0})
        _, th_t = rings.ring_round_trip(wl, r, **{**rt, "delta_t_k": 1.0})
        length = rings.default_bus_length(r, cp.get("width", rings.RIDGE_WIDTH)) if p.get("bus_length") is None \
            else p["bus_length"]
        bus = rings._bus(wl, length, cp.get("width", rings.RIDGE_WIDTH), cp.get("film_thickness", rings.FILM_THICKNESS),
                         cp.get("etch_depth", rings.ETCH_DEPTH), p.get("loss_db_per_cm", rings.LOSS_DB_PER_CM))
        return dict(t1=t1, k1=k1, t2=t2, k2=k2, a=a, theta0=th0, theta_v=th_v - th0, theta_t=th_t - th0, bus=bus)

    return jax.vmap(one)(jnp.asarray(radii, dtype=float))


def _fields_from_columns(cols, spacers, voltages, delta_t_k):
    """Star-product cascade of d rings for one channel, given ``ring_columns`` and ``_spacer``."""
    theta = cols["theta0"] + voltages[:, None] * cols["theta_v"] + delta_t_k[:, None] * cols["theta_t"]
    thr, drop, add_drop = rings.add_drop_fields(cols["t1"], cols["k1"], cols["t2"], cols["k2"], cols["a"], theta)
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


LAYOUT_GRID_UM = 0.001  # the GDS database unit: port positions are multiples of it


def drop_jogs_um(radii, gap=rings.GAP, gap_drop=None, width=rings.RIDGE_WIDTH):
    """Lateral drop-bus offsets (µm) between adjacent rings of a channel, as drawn, shape (…, d − 1).

    With the through bus straight, ring j's drop bus lies s_j = [R_j + gap + w] + [R_j + gap_drop + w]
    above it (the ring cell puts each bus at ±(R + gap + w) from the ring centre, [·] rounded
    to the layout grid), so the drop bus jogs by s_{j+1} − s_j between rings j and j + 1.
    """
    gd = gap if gap_drop is None else gap_drop
    r = jnp.asarray(radii, dtype=float)

    def snap(x):
        return jnp.round(x / LAYOUT_GRID_UM) * LAYOUT_GRID_UM

    span = snap(r + gap + width) + snap(r + gd + width)
    return span[..., 1:] - span[..., :-1]


def _spacer(wl, ring_spacing, ring, radii):
    """(through, drop) transmissions of the bus between adjacent rings: (W,) and (d − 1, W).

    The through bus is a straight ``ring_spacing`` long; the drop bus is the same straight
    where neighbouring rings have equal bus spans and a raised-cosine ``sbend`` (the layout's
    jog, ``drop_jogs_um``) where they differ.
    """
    sp = {k: v for k, v in ring.items() if k in ("width", "film_thickness", "etch_depth", "loss_db_per_cm")}
    wl = jnp.asarray(wl, dtype=float)
    n_jogs = jnp.shape(radii)[-1] - 1
    if ring_spacing <= 0:
        one = jnp.ones_like(wl, dtype=complex)
        return one, jnp.broadcast_to(one, (n_jogs,) + wl.shape)
    t = straight_model(wl=wl, length=ring_spacing, **sp)[("o1", "o2")]
    jogs = drop_jogs_um(radii, ring.get("gap", rings.GAP), ring.get("gap_drop"), ring.get("width", rings.RIDGE_WIDTH))
    flat = jogs == 0
    safe = jnp.where(flat, 1.0, jogs)  # keeps the unused branch (and its gradient) finite
    geo = (ring.get("width", rings.RIDGE_WIDTH), ring.get("film_thickness", rings.FILM_THICKNESS),
           ring.get("etch_depth", rings.ETCH_DEPTH), ring.get("loss_db_per_cm", rings.LOSS_DB_PER_CM))
    bends = jax.vmap(lambda h: sbend_response(wl, ring_spacing, h, *geo))(safe)
    return t, jnp.where(flat[:, None], t, bends)


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
    return _fields_from_columns(ring_columns(wl, radii, **ring), _spacer(wl, ring_spacing, ring, radii), voltages,
                                dts)


def _bank(wl, radii, voltages, dts, ring_spacing, ring):
    if radii.ndim == 1:
        cols = ring_columns(wl, radii, **ring)
        spacer = _spacer(wl, ring_spacing, ring, radii)
        return jax.vmap(lambda v, t: _fields_from_columns(cols, spacer, v, t))(voltages, dts)
    return jax.vmap(lambda r, v, t: _fields_from_columns(ring_columns(wl, r, **ring), _spacer(wl, ring_spacing, ring, r),
                                                         v, t))(radii, voltages, dts)


@functools.lru_cache(maxsize=32)
def _compiled_bank(ring_spacing: float, ring_items: tuple):
    ring = dict(ring_items)
    return jax.jit(lambda wl, r, v, t: _bank(wl, r, v, t, ring_spacing, ring))


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
    r_np = concrete(radii)
    if r_np is not None:
        for r in (float(np.min(r_np)), float(np.max(r_np))):
            rings.ring_add_drop_model(wl=1.55, radius=r, **ring)  # validation only
    if concrete(radii) is None or concrete(voltages) is None or concrete(dts) is None:
        return _bank(wl, radii, voltages, dts, float(ring_spacing), ring)
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


# ---------------------------------------------------------------------------- weight programming
def _raw_weight_fn(channels_um, radii, ring_spacing, ring):
    """raw(v) = |D|² − |T|² at the channel wavelengths for one channel's voltages v (d,)."""
    cols = ring_columns(channels_um, radii, **ring)
    spacer = _spacer(channels_um, ring_spacing, ring, radii)
    zeros_t = jnp.zeros(jnp.shape(radii)[-1])

    def raw(v):
        d, t = _fields_from_columns(cols, spacer, v, zeros_t)
        return jnp.abs(d) ** 2 - jnp.abs(t) ** 2

    return raw, cols


def weight_gain(channels_um, radii, max_voltage_v: float = RULES.max_electrode_voltage_v,
                ring_spacing: float = RING_SPACING, **ring) -> float:
    """Common scale g: raw weights span [−g, g] with |V| ≤ ``max_voltage_v`` on every ring.

    g = min over channels of (raw weight at 0 V, −raw weight at ``max_voltage_v``), so that
    target weights in [−1, 1] map to raw = g·w inside what every ring can reach.
    """
    raw, _ = _raw_weight_fn(jnp.asarray(channels_um, dtype=float), jnp.asarray(radii, dtype=float), ring_spacing, ring)
    d = len(radii)
    both = jax.jit(jax.vmap(raw))(jnp.stack([jnp.zeros(d), jnp.full(d, max_voltage_v)]))
    return float(jnp.minimum(jnp.min(both[0]), jnp.min(-both[1])))


def program_weights(targets, channels_um, radii, *, gain: float | None = None, iterations: int = 20,
                    ring_spacing: float = RING_SPACING, **ring):
    """Ring voltages (N, d) whose balanced weights at the channels equal gain·targets.

    A calibrated inverse: Newton's method on the full bank model (all rings, all resonance
    orders, inter-ring coupling), per channel, starting from the single-ring Lorentzian
    inverse: detuning δθ = ((1 − x)/√x)·√((1 − w)/(1 + w)) in round-trip phase, x = t1 t2 a
    (half width at half maximum (1 − x)/√x; Bogaerts et al. 2012), V = δθ/θ_V. Raises
    ValueError for targets outside [−1, 1] or mismatched shapes.

    Returns:
        (voltages, residual): voltages (V) and the largest |raw − gain·target| left.
    """
    targets = jnp.atleast_2d(jnp.asarray(targets, dtype=float))
    check_range("targets", targets, -1.0, 1.0)
    channels_um = jnp.asarray(channels_um, dtype=float)
    radii = jnp.asarray(radii, dtype=float)
    if targets.shape[-1] != radii.shape[-1] or channels_um.shape != radii.shape[-1:]:
        raise ValueError(f"targets has shape {targets.shape}, radii {radii.shape}, channels {channels_um.shape}: "
                         "the last axes must all equal d")
    g = weight_gain(channels_um, radii, ring_spacing=ring_spacing, **ring) if gain is None else gain
    raw, cols = _raw_weight_fn(channels_um, radii, ring_spacing, ring)
    idx = jnp.arange(radii.shape[-1])
    x = (cols["t1"] * cols["t2"] * cols["a"])[idx, idx]
    hwhm = (1 - x) / jnp.sqrt(x)
    w0 = jnp.clip(targets * g, -0.999, 0.999)
    v = hwhm * jnp.sqrt((1 - w0) / (1 + w0)) / jnp.abs(cols["theta_v"][idx, idx])
    vmax = RULES.max_electrode_voltage_v

    def one(vrow, target_row):
        # Levenberg–Marquardt steps, each limited to 20 % of the voltage range
        def body(_, vr):
            jac = jax.jacfwd(raw)(vr)
            f = raw(vr) - g * target_row
            jtj = jac.T @ jac
            dv = jnp.linalg.solve(jtj + 1e-9 * jnp.trace(jtj) * jnp.eye(jtj.shape[0]), jac.T @ f)
            dv = dv / jnp.maximum(1.0, jnp.max(jnp.abs(dv)) / (0.2 * vmax))
            return jnp.clip(vr - dv, -vmax, vmax)

        return jax.lax.fori_loop(0, iterations, body, vrow)

    volts = _jit_vmap(one)(v, targets)
    residual = float(jnp.max(jnp.abs(jax.vmap(raw)(volts) - g * targets)))
    return volts, residual


def _jit_vmap(fn):
    return jax.jit(jax.vmap(fn))


def exact_scores(query, weights):
    """Exact signed inner products (N,) of a query (d,) with N weight rows (N, d)."""
    return jnp.asarray(weights) @ jnp.asarray(query)


def concrete_or_none(x):
    """NumPy value of ``x`` or None when traced (re-exported for callers' checks)."""
    return concrete(x)


# ---------------------------------------------------------------------------- layout
# A bank is N identical rows (ring j of every row on channel j; the weights are voltages). A row
# (``prism_row``) is a channel whose drop output turns up at the west end and returns east above
# the ring pads to the balanced detector beside the through output. Ridges then enclose the strip
# above the drop bus, so each ring's upper plate gets its own pad there (probe/flip-chip) and the
# lower plates share a ground rail south of the through bus. Lengths are integer nm, so every
# connection closes exactly on the GDS grid, and ``readout_paths`` uses the same lengths.
PLAN_BAND_UM = (1.50, 1.60)  # channel plans must lie in the band the device models are swept over (testing.BAND_UM)
PAD_SIZE = 54.0  # µm: a 50 µm opening (the minimum) in 2 µm of metal fits the 58.8 µm ring pitch
BEND_RADIUS = 20.0  # µm, Euler bends of the drop-port return path
LEAD = 2.0  # µm of metal between a plate's trace and its pad or the ground rail
RAIL_WIDTH = 5.0  # µm, the rail joining a channel's lower plates
GROUND_CLEARANCE = 2.0  # µm, through-bus ridge edge to the ground pad
END_CAP = 3.0  # µm of slab beyond the open add port of the last ring
ROW_SPACE = 5.0  # µm between the bounding boxes of adjacent rows
DETECTOR_PAD = 60.0  # µm, pads of the balanced photodetector (smaller when the ring pads are)
_NM = 1000  # layout grid steps per µm


def _nm(x: float) -> int:
    return round(x * _NM)


def _um(n: int) -> float:
    return n / _NM


def _pad_margin(pad_size: float) -> float:
    """Metal around a pad's opening: 5 µm, less when the pad is within 10 µm of the minimum opening."""
    return min(5.0, (pad_size - RULES.min_pad_size) / 2)


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


def plan_radii(d: int = 4, spacing_nm: float = 1.6, center_nm: float = 1550.0, gap: float = rings.GAP,
               gap_drop: float | None = None, width: float = rings.RIDGE_WIDTH) -> tuple[float, ...]:
    """Ring radii (µm) of a d-channel bank: ring j resonant on channel j at 0 V (``bank_radii``; cached)."""
    check_plan(d, spacing_nm, center_nm)
    return _plan_radii(int(d), float(spacing_nm), float(center_nm), float(gap),
                       None if gap_drop is None else float(gap_drop), float(width))


@functools.lru_cache(maxsize=64)
def _plan_radii(d, spacing_nm, center_nm, gap, gap_drop, width) -> tuple[float, ...]:
    with jax.ensure_compile_time_eval():  # concrete numbers even when called while tracing
        radii = bank_radii(channel_plan_um(d, spacing_nm, center_nm), gap=gap, gap_drop=gap_drop, width=width)
    return tuple(float(r) for r in radii)


@gf.cell
def prism_channel(
    radii: tuple[float, ...] = (20.0, 20.0, 20.0, 20.0),
    ring_spacing: float = RING_SPACING,
    gap: float = rings.GAP,
    gap_drop: float | None = None,
    width: float = rings.RIDGE_WIDTH,
) -> gf.Component:
    """One PRISM channel: d add-drop rings on a through bus (bottom) and a drop bus (top).

    The through bus is straight; rings of different radii put their drop buses at
    different heights, so neighbouring drop buses are joined by a raised-cosine ``sbend``
    ``ring_spacing`` long whose offset is the height difference (``drop_jogs_um``); equal
    heights get a straight.

    Args:
        radii: ring radii (µm), one per wavelength channel.
        ring_spacing: bus length between adjacent ring cells (µm).
        gap: through-bus–ring gap of every ring (µm).
        gap_drop: drop-bus–ring gap (µm); None takes ``gap``.
        width: ridge width of rings and buses (µm).

    Ports: o1 through-bus input (left), o2 through output (right), o3 drop-bus end (right,
    unused), o4 drop output (left); e{2j+1}/e{2j+2} the lower/upper plates of ring j.

    .. code::

        o4 ═══╤══════~╤═══════╤═══ o3    drop bus (light runs right → left), jogs ~
             (r0)    (r1)    (r2)
        o1 ═══╧═══════╧═══════╧═══ o2    through bus
    """
    check_range("ring_spacing", ring_spacing, 0.0, 1e4, unit="µm")
    radii = tuple(float(r) for r in radii)
    if len(radii) < 1:
        raise ValueError("radii must name at least one ring")
    jogs = np.asarray(drop_jogs_um(np.asarray(radii), gap, gap_drop, width))
    if jogs.size and np.any(jogs != 0):
        h = float(np.max(np.abs(jogs)))
        shortest = math.pi * math.sqrt(RULES.min_bend_radius * h / 2)  # raised cosine: R_min = 2L²/(π²h) ≥ 10 µm
        check_range("ring_spacing", ring_spacing, shortest, 1e4, unit="µm")
    c = gf.Component()
    prev = None
    for j, r in enumerate(radii):
        ring = c << rings.ring_add_drop(radius=r, gap=gap, gap_drop=gap_drop, width=width)
        if prev is None:
            c.add_port("o1", port=ring.ports["o1"])
            c.add_port("o4", port=ring.ports["o4"])
        elif ring_spacing > 0:
            bottom = c << straight(length=ring_spacing, width=width)
            bottom.connect("o1", prev.ports["o2"])
            ring.connect("o1", bottom.ports["o2"])
            offset = _um(_nm(ring.ports["o4"].dcenter[1]) - _nm(prev.ports["o3"].dcenter[1]))
            top = c << (straight(length=ring_spacing, width=width) if offset == 0 else
                        sbend(length=ring_spacing, offset=offset, width=width))
            top.connect("o1", prev.ports["o3"])
        else:
            ring.connect("o1", prev.ports["o2"])
        c.add_port(f"e{2 * j + 1}", port=ring.ports["e1"])
        c.add_port(f"e{2 * j + 2}", port=ring.ports["e2"])
        prev = ring
    c.add_port("o2", port=prev.ports["o2"])
    c.add_port("o3", port=prev.ports["o3"])
    c.info["d"] = len(radii)
    return c


def _check_row(radii, pad_size, bend_radius):
    check_range("bend_radius", bend_radius, RULES.min_bend_radius, 1e4, unit="µm")
    if len(radii) < 1:
        raise ValueError("radii must name at least one ring")
    check_range("pad_size", pad_size, RULES.min_pad_size, 1000.0, unit="µm")


def _row_plan(radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius) -> dict:
    """Positions (integer nm, row frame: channel o1 at the origin) and lengths of a channel's readout.

    Drop path from o4: straight ``u`` (left), a clockwise Euler bend up, straight ``v1``, a
    clockwise bend right, straight ``ret`` over the signal pads, a clockwise bend down,
    straight ``v2``, a counter-clockwise bend right, straight ``inp`` into the detector's
    o2. Through path from o2: straight ``thr`` into the detector's o1.
    """
    ch = prism_channel(radii=radii, ring_spacing=ring_spacing, gap=gap, gap_drop=gap_drop, width=width)
    ox, oy = (_nm(v) for v in ch.ports["o1"].dcenter)

    def at(name):
        x, y = ch.ports[name].dcenter
        return _nm(x) - ox, _nm(y) - oy

    d = len(radii)
    x_ch, _ = at("o2")
    _, s0 = at("o4")
    xs = [at(f"e{2 * j + 2}")[0] for j in range(d)]
    e2_top = max(at(f"e{2 * j + 2}")[1] for j in range(d))
    e1_bottom = min(at(f"e{2 * j + 1}")[1] for j in range(d))
    gaps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
    if gaps:
        check_range("pad_size", pad_size, RULES.min_pad_size, _um(min(gaps)) - RULES.min_metal_space, unit="µm")
    p, w, clear = _nm(pad_size), _nm(width), _nm(RULES.min_metal_to_ridge)
    bend = bend_euler(radius=bend_radius, width=width)
    dx, dy = (_nm(v) for v in bend.ports["o2"].dcenter)
    det = balanced_photodetector(pad_size=min(DETECTOR_PAD, pad_size), width=width)
    pd_pitch = _nm(det.ports["o2"].dcenter[1] - det.ports["o1"].dcenter[1])
    y_pad = e2_top + _nm(LEAD)
    y_r = y_pad + p + clear + w // 2 + 500  # return bus: ≥ 1 µm (+0.5 margin) above the pads' metal
    u = max(0, clear + w // 2 + 500 - (xs[0] - p // 2))  # U-turn left of the first pad
    v1 = y_r - s0 - 2 * dy
    v2 = y_r - 2 * dy - pd_pitch
    x_v = max(xs[-1] + p - p // 2 + clear + dx, x_ch + _nm(END_CAP) + clear + w)  # descent clears pads and add port
    gx0 = x_ch + _nm(RULES.min_metal_space)  # ground pad
    x_pd = max(x_v + dx + _nm(2.0), gx0 + p + _nm(RULES.min_metal_space))
    ret = (x_v - dx) - (-u)
    inp = x_pd - (x_v + dx)
    for name, v in (("v1", v1), ("v2", v2), ("ret", ret), ("inp", inp)):
        if v < 0:
            raise ValueError(f"bend_radius = {bend_radius:g} µm is too large for this channel's readout ({name} < 0)")
    return dict(x_ch=x_ch, s0=s0, xs=xs, y_pad=y_pad, e1_bottom=e1_bottom, y_r=y_r, u=u, v1=v1, v2=v2, ret=ret,
                inp=inp, thr=x_pd - x_ch, x_pd=x_pd, gx0=gx0, dx=dx, dy=dy, pd_pitch=pd_pitch)


def _place_chain(c, start_port, parts):
    """Connect ``parts`` (cell, mirrored) head to tail from ``start_port``; return the last o2 port."""
    port = start_port
    for cell, mirrored in parts:
        ref = c << cell
        if mirrored:
            ref.dmirror_y()
        ref.connect("o1", port)
        port = ref.ports["o2"]
    return port


def _drop_path(plan, bend_radius, width):
    """(cell, mirrored) sequence of the drop path (see ``_row_plan``); zero-length straights left out."""
    bend = bend_euler(radius=bend_radius, width=width)

    def seg(n):
        return [(straight(length=_um(n), width=width), False)] if n > 0 else []

    return (seg(plan["u"]) + [(bend, True)] + seg(plan["v1"]) + [(bend, True)] + seg(plan["ret"]) + [(bend, True)]
            + seg(plan["v2"]) + [(bend, False)] + seg(plan["inp"]))


@gf.cell
def prism_row(
    radii: tuple[float, ...] = (20.0, 20.0, 20.0, 20.0),
    ring_spacing: float = RING_SPACING,
    gap: float = rings.GAP,
    gap_drop: float | None = None,
    width: float = rings.RIDGE_WIDTH,
    pad_size: float = PAD_SIZE,
    bend_radius: float = BEND_RADIUS,
) -> gf.Component:
    """A PRISM channel with its readout: balanced photodetector, a signal pad per ring, a ground rail.

    The drop output (o4, left) turns up and returns to the right above the signal pads,
    then down into the detector beside the through output, so both ports reach one
    balanced pair (``balanced_photodetector``: through at o1, drop at o2).

    Electrodes: ring j's upper plate (V(e2)) has its own pad right above it; the lower
    plates are joined by a rail below the through bus to one ground pad, so V_j = V(pad j)
    with the ground pad at 0 V. The strip between the drop bus and the return path is
    closed by ridges (drop bus, rings, return path), so its pads cannot be wired to a die
    edge in one metal layer: they are probe or flip-chip pads (PAD opening ≥ 50 µm).

    Args:
        radii: ring radii (µm), one per wavelength channel.
        ring_spacing: bus length between adjacent ring cells (µm).
        gap: through-bus–ring gap (µm).
        gap_drop: drop-bus–ring gap (µm); None takes ``gap``.
        width: ridge width (µm).
        pad_size: side of the signal and ground pads (µm), ≤ the ring pitch − 2 µm.
        bend_radius: minimum radius of the return path's Euler bends (µm).

    Ports: o1 input (west). Electrical: e1 … e_d signal pads (north edge), e_{d+1} ground
    pad, e_{d+2} … e_{d+4} the detector's pads (through outer, difference, drop outer).

    .. code::

        ╭──────────────────────────────────╮   return path
        │  [p0]   [p1]   [p2]   [p3]       │   signal pads
        │    ┃      ┃      ┃      ┃        │
        ╰═o4═╤══════╤══════╤══════╤═══o3   │   drop bus
            (r0)   (r1)   (r2)   (r3)      ╰──[▓ PD
        o1 ══╧══════╧══════╧══════╧═════════[▓   through
           ┗━━━━━━┻━━━━━━┻━━━━━━┻━━[gnd]        ground rail
    """
    radii = tuple(float(r) for r in radii)
    _check_row(radii, pad_size, bend_radius)
    plan = _row_plan(radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius)
    d = len(radii)
    c = gf.Component()
    ch_cell = prism_channel(radii=radii, ring_spacing=ring_spacing, gap=gap, gap_drop=gap_drop, width=width)
    ch = c << ch_cell
    x0, y0 = ch_cell.ports["o1"].dcenter
    ch.dmove((-_um(_nm(x0)), -_um(_nm(y0))))
    c.add_port("o1", port=ch.ports["o1"])
    # readout optics
    thr = c << straight(length=_um(plan["thr"]), width=width)
    thr.connect("o1", ch.ports["o2"])
    det = c << balanced_photodetector(pad_size=min(DETECTOR_PAD, pad_size), width=width)
    det.connect("o1", thr.ports["o2"])
    end = _place_chain(c, ch.ports["o4"], _drop_path(plan, bend_radius, width))
    if _nm(end.dcenter[0]) != _nm(det.ports["o2"].dcenter[0]) or _nm(end.dcenter[1]) != _nm(det.ports["o2"].dcenter[1]):
        raise RuntimeError(f"drop path ends at {end.dcenter}, detector o2 at {det.ports['o2'].dcenter}")
    x, y = ch.ports["o3"].dcenter  # the unused add port ends inside a slab cap
    h = width / 2 + END_CAP
    c.add_polygon([(x, y - h), (x + END_CAP, y - h), (x + END_CAP, y + h), (x, y + h)], layer=LAYER.LN_SLAB)
    # electrodes: a pad above each ring, a rail under the lower plates to the ground pad
    signal = electrical.pad(size=pad_size, opening_margin=_pad_margin(pad_size))
    y_rail = _um(plan["e1_bottom"]) - LEAD
    for j in range(d):
        e2 = ch.ports[f"e{2 * j + 2}"]
        lead = c << electrical.electrode_trace(length=round(_um(plan["y_pad"]) + 1.0 - e2.dcenter[1], 3),
                                               width=e2.width)
        lead.connect("e1", e2)
        pj = c << signal
        pj.dmove((_um(plan["xs"][j]), _um(plan["y_pad"]) + pad_size / 2))
        c.add_port(f"e{j + 1}", port=pj.ports["e2"])
        e1 = ch.ports[f"e{2 * j + 1}"]
        down = c << electrical.electrode_trace(length=round(e1.dcenter[1] - y_rail + 1.0, 3), width=e1.width)
        down.connect("e1", e1)
    x_rail = _um(plan["xs"][0]) - ch.ports["e1"].width / 2
    gx0 = _um(plan["gx0"])
    rail = c << electrical.electrode_trace(length=round(gx0 + 1.0 - x_rail, 3), width=RAIL_WIDTH)
    rail.dmove((x_rail, y_rail - RAIL_WIDTH / 2))
    gnd = c << signal
    top = -(width / 2 + GROUND_CLEARANCE)
    gnd.dmove((gx0 + pad_size / 2, top - pad_size / 2))
    c.add_port(f"e{d + 1}", port=gnd.ports["e4"])
    for k, name in enumerate(("e1", "e2", "e3")):
        c.add_port(f"e{d + 2 + k}", port=det.ports[name])
    c.info["d"] = d
    c.info["length_um"] = float(c.dxsize)
    c.info["height_um"] = float(c.dysize)
    return c


def readout_paths(wl=1.55, radii=(20.0, 20.0, 20.0, 20.0), ring_spacing=RING_SPACING, gap=rings.GAP, gap_drop=None,
                  width=rings.RIDGE_WIDTH, pad_size=PAD_SIZE, bend_radius=BEND_RADIUS, film_thickness=rings.FILM_THICKNESS,
                  etch_depth=rings.ETCH_DEPTH, loss_db_per_cm=rings.LOSS_DB_PER_CM):
    """(through, drop) transmissions (W,) from the channel's o2 and o4 to the detector inputs of ``prism_row``.

    The same straight and Euler-bend models the netlist uses, once per segment of the drawn path.
    """
    radii = tuple(float(r) for r in np.asarray(radii, dtype=float))
    _check_row(radii, pad_size, bend_radius)
    plan = _row_plan(radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius)
    wl = jnp.asarray(wl, dtype=float)
    phys = dict(width=width, film_thickness=film_thickness, etch_depth=etch_depth, loss_db_per_cm=loss_db_per_cm)

    def s(n):
        return straight_model(wl=wl, length=_um(n), **phys)[("o1", "o2")] if n > 0 else 1.0

    bend = bend_euler_model(wl=wl, radius=bend_radius, **phys)[("o1", "o2")]
    drop = s(plan["u"]) * s(plan["v1"]) * s(plan["ret"]) * s(plan["v2"]) * s(plan["inp"]) * bend**4
    return s(plan["thr"]) * jnp.ones_like(wl), drop * jnp.ones_like(wl)


def _row_cell_kwargs(ring_spacing, gap, gap_drop, width, pad_size, bend_radius):
    return dict(ring_spacing=ring_spacing, gap=gap, gap_drop=gap_drop, width=width, pad_size=pad_size,
                bend_radius=bend_radius)


def min_channel_pitch(radii, **row) -> float:
    """Smallest channel pitch (µm) of a bank of ``prism_row``s: the row's height plus ``ROW_SPACE``."""
    r = prism_row(radii=tuple(float(x) for x in radii), **row)
    return math.ceil(r.dysize + ROW_SPACE)


@gf.cell
def prism_bank(
    n_channels: int = 4,
    d: int = 4,
    spacing_nm: float = 1.6,
    center_nm: float = 1550.0,
    ring_spacing: float = RING_SPACING,
    gap: float = rings.GAP,
    gap_drop: float | None = None,
    width: float = rings.RIDGE_WIDTH,
    pad_size: float = PAD_SIZE,
    bend_radius: float = BEND_RADIUS,
    channel_pitch: float | None = None,
) -> gf.Component:
    """A PRISM bank tile: ``n_channels`` identical ``prism_row``s stacked at ``channel_pitch``.

    Ring j of every channel is resonant on channel j of the plan (``plan_radii``), so all rows
    are one cell; the weights live in the voltages.

    Args:
        n_channels: channels (rows), 1 … 4096.
        d: rings per channel = wavelengths; the plan must lie in ``PLAN_BAND_UM``.
        spacing_nm: wavelength grid spacing (nm).
        center_nm: centre of the wavelength grid (nm).
        ring_spacing, gap, gap_drop, width, pad_size, bend_radius: as ``prism_row``.
        channel_pitch: row pitch (µm); None takes ``min_channel_pitch``.

    Ports: o1 … oN the channel inputs (west, bottom to top); electrical e{k·(d+4) + i} the
    pads of row k (i as ``prism_row``'s e{i}).
    """
    if not isinstance(n_channels, int | np.integer) or not 1 <= n_channels <= 4096:
        raise ValueError(f"n_channels = {n_channels!r} is outside the valid range [1, 4096]")
    radii = plan_radii(d, spacing_nm, center_nm, gap, gap_drop, width)
    row_kw = _row_cell_kwargs(ring_spacing, gap, gap_drop, width, pad_size, bend_radius)
    row = prism_row(radii=radii, **row_kw)
    need = min_channel_pitch(radii, **row_kw)
    pitch = need if channel_pitch is None else channel_pitch
    check_range("channel_pitch", pitch, need, 1e5, unit="µm")
    c = gf.Component()
    n_e = d + 4
    for k in range(n_channels):
        r = c.add_ref(row, name=f"row{k}")
        r.dmove((0.0, k * pitch))
        c.add_port(f"o{k + 1}", port=r.ports["o1"])
        for i in range(n_e):
            c.add_port(f"e{k * n_e + i + 1}", port=r.ports[f"e{i + 1}"])
    c.info["n_channels"] = n_channels
    c.info["d"] = d
    c.info["channel_pitch"] = float(pitch)
    c.info["radii"] = list(radii)
    return c


def prism_bank_fields(wl, voltages, *, d: int = 4, spacing_nm: float = 1.6, center_nm: float = 1550.0,
                      ring_spacing: float = RING_SPACING, gap: float = rings.GAP, gap_drop: float | None = None,
                      width: float = rings.RIDGE_WIDTH, pad_size: float = PAD_SIZE, bend_radius: float = BEND_RADIUS,
                      delta_t_k=0.0, **physics):
    """Fast model of ``prism_bank``: fields (E_drop, E_through) (N, W) at the detector inputs per unit input field.

    ``bank_fields`` of the channels times the drawn readout paths (``readout_paths``).
    ``voltages`` is (N, d); ``physics`` holds ring model parameters (loss_db_per_cm,
    film_thickness, etch_depth, coupler_loss_db, electrode_* …). Compiled once per set of
    parameters and cached; traceable (jit, grad) in wl, voltages and delta_t_k.
    """
    key = (int(d), float(spacing_nm), float(center_nm), float(ring_spacing), float(gap),
           None if gap_drop is None else float(gap_drop), float(width), float(pad_size), float(bend_radius),
           tuple(sorted(physics.items())))
    f = _bank_readout(*key)
    voltages = jnp.asarray(voltages, dtype=float)
    if concrete(voltages) is not None:
        vmax = RULES.max_electrode_voltage_v
        if voltages.ndim != 2 or voltages.shape[-1] != d:
            raise ValueError(f"voltages has shape {voltages.shape}; expected (n_channels, d) with d = {d}")
        check_range("voltages", voltages, -vmax, vmax, unit="V")
    dts = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), voltages.shape)
    check_range("delta_t_k", dts, -150.0, 300.0, unit="K")
    return f(jnp.atleast_1d(jnp.asarray(wl, dtype=float)), voltages, dts)


@functools.lru_cache(maxsize=32)
def _bank_readout(d, spacing_nm, center_nm, ring_spacing, gap, gap_drop, width, pad_size, bend_radius, physics):
    physics = dict(physics)
    radii = plan_radii(d, spacing_nm, center_nm, gap, gap_drop, width)
    ring = dict(gap=gap, width=width, **({} if gap_drop is None else {"gap_drop": gap_drop}), **physics)
    geo = {k: physics[k] for k in ("film_thickness", "etch_depth", "loss_db_per_cm") if k in physics}
    for r in (min(radii), max(radii)):
        rings.ring_add_drop_model(wl=1.55, radius=r, **ring)  # validation only, eagerly
    readout_paths(1.55, radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius, **geo)

    def f(wl, voltages, dts):
        d_f, t_f = _bank(wl, jnp.asarray(radii), voltages, dts, ring_spacing, ring)
        t_thr, t_drop = readout_paths(wl, radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius, **geo)
        return d_f * t_drop, t_f * t_thr

    return jax.jit(f)


def _register():
    from prismpic.circuits.registry import Circuit

    return {
        "prism_channel": Circuit("prism_channel", prism_channel, None, channel_fields),
        "prism_row": Circuit("prism_row", prism_row, None, None),
        "prism_bank": Circuit("prism_bank", prism_bank, None, prism_bank_fields),
    }


CIRCUITS = _register()
