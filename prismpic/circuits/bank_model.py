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

import contextlib
import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.checks import check_array_1d, check_range, concrete, is_traced
from prismpic.circuits import bank_state
from prismpic.components import ring_checks, ring_physics, rings
from prismpic.components.detector_figures import RESPONSIVITY_A_PER_W
from prismpic.components.model_signature import CELL, model_of
from prismpic.components.ring_design import RingDesign
from prismpic.components.sbends import sbend_response
from prismpic.components.waveguides import straight_model
from prismpic.pdk.cross_sections import RING_RADIUS
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, SIDEWALL_ANGLE_DEG

RING_SPACING = 10.0  # µm of bus between adjacent ring cells
GRID_SPACING_NM = 1.6  # channel spacing of the wavelength grid (S1-03)
GRID_CENTER_NM = 1550.0  # centre of the wavelength grid
BANK_D = 4  # rings per channel (wavelengths) of the default bank tile (``bank_layout.prism_bank``)
PLAN_BAND_UM = (1.50, 1.60)  # channel plans must lie in the band the device models are swept over (testing.BAND_UM)
# the stack parameters a bank's ring radii depend on (``plan_radii``), as the cells that plan them take them
PLAN_STACK_KEYS = ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding")
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


def ring_design(ring: dict) -> tuple[RingDesign, dict]:
    """(design, the rest) of a bank's shared ring keywords: the ``RingDesign`` they name (``ring_add_drop_model``'s
    keywords, the cell's defaults for the absent ones; each ring's radius is its own) and the model arguments that
    are no design (voltage_v, delta_t_k, bus_length, electrode_width). ValueError naming an unknown keyword,
    traced values or not (names are static)."""
    p = rings.ring_params("add_drop", ring)
    return RingDesign.from_params(p), {k: p[k] for k in ("voltage_v", "delta_t_k", "bus_length", "electrode_width")}


def check_ring_domain(channels_um, radii, ring: dict) -> None:
    """The ring model's checks (wavelength domain, geometry, parameters: ``ring_checks.check_ring_inputs``) at the
    extreme channels and radii: a ValueError naming the parameter before a compiled bank computation (which cannot
    raise) runs. Traced inputs are not checked (as the models).
    """
    ch = check_array_1d("channels_um", channels_um, unit="µm")
    r = concrete(radii)
    if ch is None or r is None:
        return
    r = np.atleast_1d(np.asarray(r, dtype=float))
    try:
        for end in (ch.min(), ch.max()):
            for radius in {float(r.min()), float(r.max())}:
                ring_checks.check_ring_inputs(float(end), rings.ring_params("add_drop", {**ring, "radius": radius}))
    except ValueError as e:
        raise ValueError(f"channels_um: {e}" if str(e).startswith("wl") else str(e)) from None


def bank_radii(channels_um, radius0: float = RING_RADIUS, **ring) -> np.ndarray:
    """Ring radii (µm) within ±FSR/2 of ``radius0`` that put ring j's resonance on channel j at 0 V.

    Solves θ(λ_j, R) = 2πm_j by Newton's method in R (vectorised over channels), m_j the
    order nearest ``radius0``'s at λ_j.
    """
    ring_design(ring)  # unknown names
    if concrete(radius0) is not None:
        check_range("radius0", radius0, RULES.min_bend_radius, 500.0, unit="µm")
    check_ring_domain(channels_um, radius0, ring)
    static, traced = _split_static(ring)
    return np.asarray(_radii_solver(static)(jnp.asarray(channels_um, dtype=float), float(radius0), traced))


@functools.lru_cache(maxsize=16)
def _radii_solver(static: tuple):
    """Jitted Newton solve of ``bank_radii`` for one set of static ring parameters (compiled once per shape)."""

    @jax.jit
    def solve(wl, radius0, traced):
        design, rest = ring_design({**dict(static), **traced})

        def theta(r):  # one ring per channel (a scalar radius each: the plate geometry integrates over the arc)
            return jax.vmap(lambda r_j, w_j: ring_physics.ring_round_trip(
                w_j, design.replace(radius=r_j), rest["voltage_v"], rest["delta_t_k"])[1])(r, wl)

        r0 = jnp.full(wl.shape, radius0)
        m = jnp.round(theta(r0) / (2 * jnp.pi))

        def body(_, r):
            # θ and dθ/dR in one forward-mode pass (a reverse pass compiles ~3x slower for the same numbers)
            value, slope = jax.jvp(theta, (r,), (jnp.ones_like(r),))
            return r - (value - 2 * jnp.pi * m) / slope

        return jax.lax.fori_loop(0, 8, body, r0)

    return program_cache.reuse(solve)


@model_of(rings.ring_add_drop)
def plan_radii(d: int = BANK_D, spacing_nm: float = GRID_SPACING_NM, center_nm: float = GRID_CENTER_NM,
               gap: float = CELL, gap_drop: float | None = CELL, width: float = CELL,
               film_thickness: float = FILM_THICKNESS, etch_depth: float = ETCH_DEPTH,
               sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG, cladding: str = CLADDING) -> tuple[float, ...]:
    """Ring radii (µm) of a d-channel bank: ring j resonant on channel j at 0 V (``bank_radii``; cached).

    ``gap``, ``gap_drop`` and ``width`` default to the ``ring_add_drop`` cell's; the plan to the bank
    tile's (``prism_bank`` takes the same constants: it lives in ``bank_layout``, which imports this module).
    The stack (film and etch in µm, wall angle in degrees from the horizontal, cladding) sets the rings' index,
    so a bank on another stack (``pdk.platforms``) has other radii for the same plan.
    """
    check_plan(d, spacing_nm, center_nm)
    ridge = RidgeStack(width=float(width), film_thickness=float(film_thickness), etch_depth=float(etch_depth),
                       sidewall_angle_deg=float(sidewall_angle_deg), cladding=cladding)
    return _plan_radii(int(d), float(spacing_nm), float(center_nm), float(gap),
                       None if gap_drop is None else float(gap_drop), ridge)


@functools.lru_cache(maxsize=64)
def _plan_radii(d, spacing_nm, center_nm, gap, gap_drop, ridge: RidgeStack) -> tuple[float, ...]:
    with eager_while_tracing():  # concrete numbers even when called while tracing
        radii = bank_radii(channel_plan_um(d, spacing_nm, center_nm), gap=gap, gap_drop=gap_drop, **ridge.params())
    return tuple(float(r) for r in radii)


def plan_stack(physics: dict) -> dict:
    """The stack values among ``physics`` (ring model keywords) that ``plan_radii`` takes (``PLAN_STACK_KEYS``)."""
    return {k: physics[k] for k in PLAN_STACK_KEYS if k in physics}


# ---------------------------------------------------------------------------- ring cascade
def _star(a, b):
    """Redheffer star product of 2-ports (r, t, tp, rp): a on the left, b on the right."""
    ra, ta, tpa, rpa = a
    rb, tb, tpb, rpb = b
    den = 1.0 - rpa * rb
    return (ra + tpa * rb * ta / den, tb * ta / den, tpa * tpb / den, rpb + tb * rpa * tpb / den)


def ring_columns(wl, radii, **ring):
    """Voltage-independent parts of each ring's response at ``wl`` (µm), shape (d, W) each.

    The round-trip phase is exactly linear in voltage and temperature (θ = θ0 + V θ_V + ΔT θ_T,
    ``ring_physics.ring_round_trip``), so couplers, loss, θ0 and the slopes (rad/V, rad/K) are
    computed once per ring and wavelength and shared by every channel that uses the same radii.
    Keys: t1, k1, t2, k2 (coupler fields), a (round-trip amplitude), theta0, theta_v, theta_t, bus.
    """
    wl = jnp.asarray(wl, dtype=float)
    design, rest = ring_design(ring)
    v, dt = rest["voltage_v"], rest["delta_t_k"]

    def one(r):
        ring_r = design.replace(radius=r)
        t1, k1, t2, k2 = ring_physics.coupler_fields(wl, ring_r)
        a, th0 = ring_physics.ring_round_trip(wl, ring_r, v, dt)
        _, th_v = ring_physics.ring_round_trip(wl, ring_r, 1.0, dt)
        _, th_t = ring_physics.ring_round_trip(wl, ring_r, v, 1.0)
        length = ring_physics.default_bus_length(r, design.ridge.width) if rest["bus_length"] is None \
            else rest["bus_length"]
        bus = ring_physics.bus_transmission(wl, length, design.ridge, design.loss_db_per_cm)
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
    per_um = round(1 / LAYOUT_GRID_UM)  # grid steps per µm (exact)
    values = [concrete(x) for x in (radii, gap, gd, width)]
    # concrete: NumPy, left to right, as the layout computes it (XLA may reassociate the sums, and a span on a
    # half grid step would round the other way); traced: the same in jnp
    xp, (r, g, g_d, w) = ((np, [np.asarray(v, dtype=float) for v in values]) if all(v is not None for v in values)
                          else (jnp, [jnp.asarray(radii, dtype=float), gap, gd, width]))
    span = xp.round((r + g + w) * per_um) + xp.round((r + g_d + w) * per_um)
    return (span[..., 1:] - span[..., :-1]) / per_um


def spacer_transmissions(wl, ring_spacing, ring, radii, jogs=None):
    """(through, drop) field transmissions of the buses between adjacent rings: (W,) and (d − 1, W).

    The through bus is a straight ``ring_spacing`` (µm) long; the drop bus is the same straight
    where neighbouring rings have equal bus spans and a raised-cosine ``sbend`` (the layout's
    jog, ``drop_jogs_um``) where they differ. ``ring``: the ring parameters (gap, width, …);
    ``jogs`` (µm, (d − 1,)): ``drop_jogs_um`` of the radii when already known.
    """
    design, _ = ring_design(ring)
    wl = jnp.asarray(wl, dtype=float)
    n_jogs = jnp.shape(radii)[-1] - 1
    if ring_spacing <= 0:
        one = jnp.ones_like(wl, dtype=complex)
        return one, jnp.broadcast_to(one, (n_jogs,) + wl.shape)
    t = straight_model(wl=wl, length=ring_spacing, **design.ridge.params(),
                       loss_db_per_cm=design.loss_db_per_cm)[("o1", "o2")]
    if jogs is None:
        jogs = drop_jogs_um(radii, design.gap, design.gap_drop, design.ridge.width)
    flat = jogs == 0
    safe = jnp.where(flat, 1.0, jogs)  # keeps the unused branch (and its gradient) finite
    bends = jax.vmap(lambda h: sbend_response(wl, ring_spacing, h, design.ridge, design.loss_db_per_cm))(safe)
    return t, jnp.where(flat[:, None], t, bends)


# ---------------------------------------------------------------------------- prepared banks
def prepare_bank(wl, radii, ring_spacing: float = RING_SPACING, *, readout=None, wl_block: int | None = None,
                 **ring) -> bank_state.BankState:
    """A bank's optical state at wavelengths ``wl``: everything that depends neither on voltages nor on temperature.

    ``bank_state.bank_fields(state, voltages)`` and ``bank_state.balanced_currents_a(state, powers_w, voltages)``
    then cost one star product per channel, ring and wavelength. Compiled once per shapes and parameter
    set; callable under ``jax.jit``/``grad`` (traced ``wl``, ``radii`` or ring parameters give a traced
    state). Inputs are checked when concrete. Pass the state to jitted functions as an argument, not as a
    closure (a closure embeds its arrays in the compiled code).

    Args:
        wl: wavelengths (µm), scalar or (W,).
        radii: ring radii (µm), (d,) shared by every channel or (N, d) per channel (fabrication variation).
        ring_spacing: bus length between adjacent ring cells (µm).
        readout: None (fields at the channel's own ends), or (t_thr, t_drop): field transmissions (scalar or
            (W,)) from the through end and the drop end to the detectors (``bank_layout.readout_paths``).
        wl_block: wavelengths per block of the per-call kernel; None: automatic (``bank_state.block_plan``).
        **ring: other ``ring_add_drop_model`` parameters, shared by all rings (gap, loss_db_per_cm, …).
    """
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    radii = jnp.asarray(radii, dtype=float)
    if wl.ndim != 1:
        raise ValueError(f"wl has shape {wl.shape}; expected a scalar or a 1-D array of wavelengths (µm)")
    if radii.ndim not in (1, 2) or radii.shape[-1] < 1:
        raise ValueError(f"radii has shape {radii.shape}; expected (d,) or (n_channels, d) with d ≥ 1")
    check_range("ring_spacing", ring_spacing, 0.0, 1e4, unit="µm")
    if wl_block is not None and (not isinstance(wl_block, int | np.integer) or wl_block < 1):
        raise ValueError(f"wl_block = {wl_block!r} must be an integer ≥ 1 (wavelengths per block) or None")
    check_bank_inputs(wl, radii, 0.0, 0.0, ring)
    if readout is not None:
        if len(readout) != 2:
            raise ValueError(f"readout has {len(readout)} entries; expected (t_thr, t_drop) or None")
        readout = tuple(jnp.broadcast_to(jnp.asarray(x, dtype=complex), wl.shape) for x in readout)
    state = _prepare(wl, radii, ring_spacing, ring, readout)
    return state if wl_block is None else dataclasses.replace(state, wl_block=int(wl_block))


def _split_static(ring: dict):
    """(static items, traced values) of ring parameters: concrete numbers and choices are compile-time keys."""
    static, traced = {}, {}
    for k, v in ring.items():
        c = None if isinstance(v, str | None) else concrete(v)
        if isinstance(v, str | None):
            static[k] = v
        elif c is not None and c.ndim == 0:
            static[k] = float(c)
        else:
            traced[k] = jnp.asarray(v, dtype=float)
    return tuple(sorted(static.items())), traced


def _prepare(wl, radii, ring_spacing, ring, readout=None):
    static, traced = _split_static(ring)
    radii = jnp.asarray(radii, dtype=float)
    design, _ = ring_design(ring)
    jogs = (drop_jogs_um(concrete(radii), design.gap, design.gap_drop, design.ridge.width)
            if concrete(radii) is not None and ring_spacing > 0 else None)
    return _prepare_fn(float(ring_spacing), static)(jnp.atleast_1d(jnp.asarray(wl, dtype=float)), radii, traced,
                                                    readout, None if jogs is None else jnp.asarray(jogs))


@functools.lru_cache(maxsize=32)
def _prepare_fn(ring_spacing: float, static: tuple):
    @program_cache.reuse(pytree_types=(bank_state.RingCoefficients, bank_state.BankState))
    def prepare(wl, radii, traced, readout, jogs):
        ring = {**dict(static), **traced}

        def at(w):
            def one(r, h):
                return ring_columns(w, r, **ring), spacer_transmissions(w, ring_spacing, ring, r, h)

            return one(radii, jogs) if radii.ndim == 1 else jax.vmap(one)(radii, jogs)

        n_blocks, size = bank_state.block_plan(wl.size, radii.size, budget=bank_state.PREPARE_BLOCK_ELEMENTS)
        if n_blocks == 1:
            cols, spacers = at(wl)
        else:  # bounded memory: the physics of a block of wavelengths at a time
            parts = jax.lax.map(at, bank_state.blocked(wl, n_blocks, size))
            cols, spacers = jax.tree.map(lambda x: bank_state.unblocked(x, wl.size), parts)
        return bank_state.state_from_columns(wl, cols, spacers, readout)

    return prepare


def eager_while_tracing():
    """A context evaluating JAX operations on concrete values now, also inside a trace (``jax.ensure_compile_time_eval``);
    outside a trace, none: there, it would only compile every operation a second time."""
    return jax.ensure_compile_time_eval() if is_traced(jnp.zeros(())) else contextlib.nullcontext()


_STATES: dict = {}  # (key, arrays' bytes) → BankState, oldest first
_STATES_KEPT = 8


def cached_state(key, prepare, *arrays) -> bank_state.BankState:
    """``prepare(*arrays)``, remembered (the last few) per hashable ``key`` and concrete values of ``arrays``.

    Concrete arrays are prepared eagerly even while a caller is being traced, so the state is a constant
    of that compilation; any traced array: computed each time, not kept.
    """
    values = [concrete(a) for a in arrays]  # the caller's own arrays: converting them under a trace would trace them
    if any(v is None for v in values):
        return prepare(*arrays)
    values = [np.asarray(v, dtype=float) for v in values]
    full = (key, tuple((v.shape, v.tobytes()) for v in values))
    state = _STATES.pop(full, None)
    if state is None:
        with eager_while_tracing():
            state = prepare(*values)
    _STATES[full] = state
    while len(_STATES) > _STATES_KEPT:
        _STATES.pop(next(iter(_STATES)), None)
    return state


def _state(wl, radii, ring_spacing, ring) -> bank_state.BankState:
    """``prepare_bank``'s state of ``bank_fields``' arguments, kept for shared concrete radii and parameters."""
    static, traced = _split_static(ring)
    if traced or np.ndim(radii) != 1:
        return prepare_bank(wl, radii, ring_spacing, **ring)
    return cached_state(("bank_model", float(ring_spacing), static),
                        lambda w, r: prepare_bank(w, r, ring_spacing, **ring), wl, radii)


# ---------------------------------------------------------------------------- channels and banks (thin wrappers)
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
    shape = np.shape(radii)  # radii as given: a concrete array keeps the prepared state cached, even under jit
    voltages = jnp.broadcast_to(jnp.asarray(voltages, dtype=float), shape)
    dts = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), shape)
    d, t = bank_fields(wl, radii, voltages[None], dts[None], ring_spacing, **ring)
    return d[0].reshape(np.shape(wl)), t[0].reshape(np.shape(wl))


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
            p = rings.ring_params("add_drop", {**ring, "radius": radius, "delta_t_k": dt})
            ring_checks.check_ring_inputs(np.array([w.min(), w.max()]), p)


def unchecked_bank_fields(wl, radii, voltages, delta_t_k, ring_spacing, ring):
    """``bank_fields`` without its ring-parameter checks and cache: (D, T), each (N, W); traceable.

    ``radii`` (d,) or (N, d) µm, ``voltages`` (N, d) V and ``delta_t_k`` (N, d) K as arrays,
    ``ring_spacing`` in µm, ``ring`` a dict of ring parameters.
    """
    return bank_state.bank_fields(_prepare(wl, radii, ring_spacing, ring), voltages, delta_t_k)


def bank_fields(wl, radii, voltages, delta_t_k=0.0, ring_spacing: float = RING_SPACING, **ring):
    """Drop and through fields of N channels, shape (N, W), jitted.

    ``radii`` is (d,) shared by all channels or (N, d) per channel (fabrication variation);
    ``voltages`` is (N, d); ``delta_t_k`` broadcasts to (N, d). The bank's optical state
    (``prepare_bank``) is kept for the last few concrete (wl, radii, parameters) of shared radii, so a
    repeated call costs the kernel only; keep the state yourself for the fastest path.
    """
    voltages = jnp.asarray(voltages, dtype=float)
    check_range("voltages", voltages, -RULES.max_electrode_voltage_v, RULES.max_electrode_voltage_v, unit="V")
    shape = np.shape(radii)
    if voltages.ndim != 2 or voltages.shape[-1] != shape[-1] or (len(shape) == 2 and shape != voltages.shape):
        raise ValueError(f"voltages has shape {voltages.shape}; expected (n_channels, d) with d = {shape[-1]}"
                         + (f" and radii {shape}" if len(shape) == 2 else ""))
    dts = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), voltages.shape)
    return bank_state.bank_fields(_state(wl, radii, float(ring_spacing), ring), voltages, dts)


def balanced_weights(wl, radii, voltages, **kw):
    """Signed raw weights |D|² − |T|² (N, W) seen by each wavelength: the balanced PD's transfer."""
    d, t = bank_fields(wl, radii, voltages, **kw)
    return jnp.abs(d) ** 2 - jnp.abs(t) ** 2


def balanced_currents_a(powers_w, wl, radii, voltages, responsivity_a_per_w: float = RESPONSIVITY_A_PER_W, **kw):
    """Balanced photocurrents (A) of N channels for per-wavelength input powers (W) at each channel.

    ``powers_w`` has shape (W,) (the same broadcast to every channel) or (N, W).
    """
    check_range("powers_w", powers_w, 0.0, 10.0, unit="W")
    w = balanced_weights(wl, radii, voltages, **kw)
    return responsivity_a_per_w * jnp.sum(jnp.asarray(powers_w) * w, axis=-1)


def exact_scores(query, weights):
    """Exact signed inner products (N,) of a query (d,) with N weight rows (N, d)."""
    return jnp.asarray(weights) @ jnp.asarray(query)
