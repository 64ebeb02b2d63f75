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

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_range, concrete
from prismpic.components import rings
from prismpic.components.waveguides import straight, straight_model
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


def _fields_from_columns(cols, spacer_t, voltages, delta_t_k):
    """Star-product cascade of d rings for one channel, given ``ring_columns``."""
    theta = cols["theta0"] + voltages[:, None] * cols["theta_v"] + delta_t_k[:, None] * cols["theta_t"]
    thr, drop, add_drop = rings.add_drop_fields(cols["t1"], cols["k1"], cols["t2"], cols["k2"], cols["a"], theta)
    b = cols["bus"]
    # 2-port per ring: (r, t, tp, rp) = (D, T, T', D')
    two = (b * drop, b * thr, b * add_drop, b * drop)
    zero = jnp.zeros_like(spacer_t)
    spacer = (zero, spacer_t, spacer_t, zero)

    def step(carry, x):
        return _star(_star(carry, spacer), x), None

    first = tuple(x[0] for x in two)
    rest = tuple(x[1:] for x in two)
    (d_tot, t_tot, _, _), _ = jax.lax.scan(step, first, rest)
    return d_tot, t_tot


def _spacer(wl, ring_spacing, ring):
    sp = {k: v for k, v in ring.items() if k in ("width", "film_thickness", "etch_depth", "loss_db_per_cm")}
    wl = jnp.asarray(wl, dtype=float)
    return straight_model(wl=wl, length=ring_spacing, **sp)[("o1", "o2")] if ring_spacing > 0 else jnp.ones_like(
        wl, dtype=complex)


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
    return _fields_from_columns(ring_columns(wl, radii, **ring), _spacer(wl, ring_spacing, ring), voltages, dts)


def _bank(wl, radii, voltages, dts, ring_spacing, ring):
    spacer = _spacer(wl, ring_spacing, ring)
    if radii.ndim == 1:
        cols = ring_columns(wl, radii, **ring)
        return jax.vmap(lambda v, t: _fields_from_columns(cols, spacer, v, t))(voltages, dts)
    return jax.vmap(lambda r, v, t: _fields_from_columns(ring_columns(wl, r, **ring), spacer, v, t))(radii, voltages, dts)


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
    spacer = _spacer(channels_um, ring_spacing, ring)
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
@gf.cell
def prism_channel(
    radii: tuple[float, ...] = (20.0, 20.0, 20.0, 20.0),
    ring_spacing: float = RING_SPACING,
    gap: float = rings.GAP,
) -> gf.Component:
    """One PRISM channel: d add-drop rings on a through bus (bottom) and a drop bus (top).

    Args:
        radii: ring radii (µm), one per wavelength channel.
        ring_spacing: bus length between adjacent ring cells (µm).
        gap: bus–ring gap of every ring (µm).

    Ports: o1 through-bus input (left), o2 through output (right), o3 drop-bus end (right,
    unused), o4 drop output (left); e{2j+1}/e{2j+2} the plates of ring j.

    .. code::

        o4 ═══╤═══════╤═══════╤═══ o3    drop bus (light runs right → left)
             (r0)    (r1)    (r2)
        o1 ═══╧═══════╧═══════╧═══ o2    through bus
    """
    check_range("ring_spacing", ring_spacing, 0.0, 1e4, unit="µm")
    radii = tuple(float(r) for r in radii)
    if len(radii) < 1:
        raise ValueError("radii must name at least one ring")
    if max(radii) - min(radii) > 1e-9:
        raise ValueError(f"radii = {radii}: the layout needs equal radii (bus jogs for unequal radii are not drawn yet)")
    c = gf.Component()
    prev = None
    for j, r in enumerate(radii):
        ring = c << rings.ring_add_drop(radius=r, gap=gap)
        if prev is not None:
            bottom = c << straight(length=ring_spacing) if ring_spacing > 0 else None
            top = c << straight(length=ring_spacing) if ring_spacing > 0 else None
            if bottom is not None:
                bottom.connect("o1", prev.ports["o2"])
                ring.connect("o1", bottom.ports["o2"])
                top.connect("o2", prev.ports["o3"])
            else:
                ring.connect("o1", prev.ports["o2"])
        else:
            c.add_port("o1", port=ring.ports["o1"])
            c.add_port("o4", port=ring.ports["o4"])
        c.add_port(f"e{2 * j + 1}", port=ring.ports["e1"])
        c.add_port(f"e{2 * j + 2}", port=ring.ports["e2"])
        prev = ring
    c.add_port("o2", port=prev.ports["o2"])
    c.add_port("o3", port=prev.ports["o3"])
    c.info["d"] = len(radii)
    return c


def _register():
    from prismpic.circuits.registry import Circuit

    return {"prism_channel": Circuit("prism_channel", prism_channel, None, channel_fields)}


CIRCUITS = _register()
