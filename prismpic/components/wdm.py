"""Ring WDM demultiplexer and multiplexer: one add-drop ring per channel on a common bus.

Each ring's radius is chosen so that a resonance sits on its channel: θ(λ_k, R_k) = 2π m_k,
θ = (2π/λ)·2πR·n̄_eff(λ, R) (``ring_physics.ring_round_trip``), with m_k the order that keeps R_k
nearest the nominal ``radius``; the radii are then snapped to the 1 nm layout grid, as the
GDS can hold them (and as gdsfactory's netlist records them). The snapping leaves each
resonance up to |dλ/dR|·0.5 nm off its channel; ``trim_voltages_v`` gives the Pockels
voltages that put it back.

Rings are placed along the through bus with channel 0 last (rightmost), so that the drop
ports, numbered counter-clockwise as gdsfactory does, are o3 = channel 0, o4 = channel 1, …
Light enters o1; ring k drops channel k to o{3+k}, the rest leaves at o2. The add ports are
terminated. Since no light is reflected, S has only (o1, o2) and (o1, o{3+k}):

    S(o2, o1) = Π_k T_k · s^(N−1),   S(o{3+k}, o1) = D_k · b · Π_{rings before k} T · s^(#before)

with T, D the rings' through and drop, s a bus link and b the drop bend. The multiplexer is
the same structure used backwards (reciprocity): channel k enters o{3+k} and leaves at o1.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from prismpic.checks import check_range, concrete
from prismpic.components import ring_checks, ring_physics, rings
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.ring_design import RingDesign
from prismpic.components.waveguides import bend_euler, bend_euler_model, straight, straight_model
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import layers
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import RIDGE_WIDTH, RING_RADIUS, SLAB_MARGIN
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

# 200 GHz grid around 1550 nm (1.6 nm spacing), four channels inside one FSR (≈ 8 nm) of a 20 µm ring.
CHANNELS_UM = (1.5480, 1.5496, 1.5512, 1.5528)
SPACING = 40.0  # µm of through bus between neighbouring rings (the drop bend needs ~36)
MIN_SPACING = 36.0
MAX_CHANNELS = 16
GRID_UM = 0.001  # layout grid; ring radii are snapped to it


def _check_channels(channels_um) -> None:
    if not isinstance(channels_um, tuple | list) or not 1 <= len(channels_um) <= MAX_CHANNELS:
        raise ValueError(f"channels_um = {channels_um!r} must be a tuple of 1 to {MAX_CHANNELS} wavelengths (µm)")
    for i, wl in enumerate(channels_um):
        check_range(f"channels_um[{i}]", wl, 1.2, 2.0, unit="µm")


def _check_span(channels_um, radius, width) -> None:
    """The plan must fit inside one FSR, or a ring would also drop another channel."""
    if len(channels_um) < 2 or concrete(radius) is None or concrete(width) is None:
        return
    lo, hi = min(channels_um), max(channels_um)
    mid = 0.5 * (lo + hi)
    with jax.ensure_compile_time_eval():  # concrete even inside a caller's jit
        fsr = mid**2 / (float(ring_physics.ring_ng(mid, radius, RidgeStack(width=width))) * 2 * math.pi * float(radius))
    check_range("channels_um span", hi - lo, 0.0, fsr, unit="µm", hi_open=True)


def _theta(wl, r, ridge: RidgeStack):
    return 2 * jnp.pi / wl * 2 * jnp.pi * r * ring_physics.ring_neff(wl, r, ridge)


@jax.jit
def _solve_radius(wl, radius, ridge: RidgeStack):
    def theta(r):
        return _theta(wl, r, ridge)

    dtheta = jax.grad(theta)
    m = jax.lax.stop_gradient(jnp.round(theta(radius) / (2 * jnp.pi)))
    # the loop, not 6 unrolled copies of θ and dθ/dR: the gradient is only dR/d radius = 1 (below)
    r = jax.lax.fori_loop(0, 6, lambda _, r: r - (theta(r) - 2 * jnp.pi * m) / dtheta(r),
                          jax.lax.stop_gradient(radius))
    snapped = jnp.round(r / GRID_UM) * GRID_UM
    return radius + jax.lax.stop_gradient(snapped - radius)


# ---------------------------------------------------------------------------- cells
def _build(channels_um, radius, gap, width, spacing, electrode_gap, electrode_coverage, electrode_width,
           electrode_height):
    _check_channels(channels_um)
    check_range("spacing", spacing, MIN_SPACING, 1e4, unit="µm")
    ring_checks.check_ring_geometry(radius, width, gap, None, None, electrode_gap, electrode_coverage, electrode_width)
    _check_span(channels_um, radius, width)
    n = len(channels_um)
    radii = _float_radii(channels_um, radius, width)
    c = gf.Component()
    link = straight(length=spacing, width=width)
    bend = bend_euler(angle=90.0, width=width)
    prev = None
    for p in range(n):
        k = n - 1 - p  # channel k at position p
        ring = c.add_ref(
            rings.ring_add_drop(radius=radii[k], gap=gap, width=width, electrode_gap=electrode_gap,
                                electrode_coverage=electrode_coverage, electrode_width=electrode_width,
                                electrode_height=electrode_height),
            name=f"ring_ch{k}",
        )
        if prev is None:
            c.add_port("o1", port=ring.ports["o1"])
        else:
            s = c.add_ref(link, name=f"link_{p}")
            s.connect("o1", prev.ports["o2"])
            ring.connect("o1", s.ports["o2"])
        b = c.add_ref(bend, name=f"drop_bend_ch{k}")
        b.connect("o1", ring.ports["o4"], mirror=True)
        c.add_port(f"o{3 + k}", port=b.ports["o2"])
        # terminate the unused add port: slab beyond the ridge end
        x3, y3 = ring.ports["o3"].center
        half = width / 2 + SLAB_MARGIN
        c.add_polygon([(x3, y3 - half), (x3 + 2.0, y3 - half), (x3 + 2.0, y3 + half), (x3, y3 + half)],
                      layer=layers.LAYER.LN_SLAB)
        c.add_port(f"e{p + 1}", port=ring.ports["e1"])
        c.add_port(f"e{2 * n - p}", port=ring.ports["e2"])
        prev = ring
    c.add_port("o2", port=prev.ports["o2"])
    c.info["radii"] = radii
    c.info["drop_ports"] = [f"o{3 + k}" for k in range(n)]
    c.info["electrodes"] = [(f"e{n - k}", f"e{n + 1 + k}") for k in range(n)]  # (lower, upper) plate of channel k
    return c


@platform_cell
@gf_cell
def wdm_demux(
    channels_um: tuple[float, ...] = CHANNELS_UM,
    radius: float = RING_RADIUS,
    gap: float = ring_physics.GAP,
    width: float = RIDGE_WIDTH,
    spacing: float = SPACING,
    electrode_gap: float = ring_physics.ELECTRODE_GAP,
    electrode_coverage: float = ring_physics.ELECTRODE_COVERAGE,
    electrode_width: float = ring_physics.ELECTRODE_WIDTH,
    electrode_height: float | None = None,
) -> gf.Component:
    """Ring WDM demultiplexer: one add-drop ring per channel along a common bus.

    Args:
        channels_um: channel wavelengths (µm), 1 to 16, spanning less than one FSR.
        radius: nominal ring radius (µm); each ring's radius is solved near it.
        gap: bus-to-ring gap of every coupler (µm).
        width: ridge width (µm).
        spacing: through bus between neighbouring rings (µm).
        electrode_gap: tuning-electrode gap of each ring (µm), as ``ring_add_drop``.
        electrode_coverage: tuning-plate coverage of each ring, as ``ring_add_drop``.
        electrode_width: tuning-plate height (µm).
        electrode_height: None (plates on the slab) or their height above the film (µm), as ``ring_add_drop``.

    Ports: o1 input, o2 through, o{3+k} drop of channel k (facing up); e-ports the rings'
    tuning plates, ``info["electrodes"][k]`` = (lower, upper) of channel k.

    .. code::

              o{2+N}  ...     o4        o3
                ║             ║         ║
             ╔══╝ ▯        ╔══╝ ▯    ╔══╝ ▯      (▯ terminated add port)
               (ch N−1)  …   (ch 1)    (ch 0)
        o1 ════════════ ... ══════════════════ o2
    """
    return _build(channels_um, radius, gap, width, spacing, electrode_gap, electrode_coverage, electrode_width,
                  electrode_height)


@platform_cell
@gf_cell
def wdm_mux(
    channels_um: tuple[float, ...] = CHANNELS_UM,
    radius: float = RING_RADIUS,
    gap: float = ring_physics.GAP,
    width: float = RIDGE_WIDTH,
    spacing: float = SPACING,
    electrode_gap: float = ring_physics.ELECTRODE_GAP,
    electrode_coverage: float = ring_physics.ELECTRODE_COVERAGE,
    electrode_width: float = ring_physics.ELECTRODE_WIDTH,
    electrode_height: float | None = None,
) -> gf.Component:
    """Ring WDM multiplexer: the demultiplexer used backwards (reciprocity).

    Args:
        channels_um, radius, gap, width, spacing, electrode_gap, electrode_coverage, electrode_width,
            electrode_height: as ``wdm_demux`` (µm; coverage a fraction).

    Ports: o{3+k} input of channel k, o1 the multiplexed output; o2 receives nothing from
    the channel inputs (it is the express input that passes to o1 between the channels).

    .. code::

              o{2+N}  ...     o4        o3       inputs, channel N−1 … 0
                ║             ║         ║
             ╔══╝ ▯        ╔══╝ ▯    ╔══╝ ▯      (▯ terminated add port)
               (ch N−1)  …   (ch 1)    (ch 0)
        o1 ════════════ ... ══════════════════ o2
        output                                 express input
    """
    return _build(channels_um, radius, gap, width, spacing, electrode_gap, electrode_coverage, electrode_width,
                  electrode_height)


# ---------------------------------------------------------------------------- model
@model_of(wdm_demux)
def channel_radii(channels_um=CELL, radius=CELL, width=CELL, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH,
                  sidewall_angle_deg=SIDEWALL_ANGLE_DEG, cladding=CLADDING):
    """Ring radii (µm, on the 1 nm grid) whose resonances sit on the channels (defaults: ``wdm_demux``'s).

    Newton's method on θ(λ_k, R) − 2π m_k in R (6 steps; θ is nearly linear in R), m_k the
    order nearest the nominal ``radius``, for the process given (film, etch, wall angle in °, cladding). Jittable. The grid snap passes the gradient to
    ``radius`` only (dR_k/d radius = 1): the drawn radii are held under other parameters.
    """
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    solved = jax.vmap(lambda wl: _solve_radius(wl, radius, ridge))(jnp.asarray(channels_um, dtype=float))
    return tuple(solved)


def _float_radii(channels_um, radius, width) -> list[float]:
    return [round(float(r), 3) for r in channel_radii(tuple(channels_um), radius, width)]


@model_of(wdm_demux)
def wdm_demux_model(
    wl: FloatArrayLike = 1.55,
    *,
    channels_um: tuple[float, ...],
    radius: FloatLike,
    gap: FloatLike,
    width: FloatLike,
    spacing: FloatLike,
    electrode_gap: FloatLike,
    electrode_coverage: FloatLike,
    electrode_width: FloatLike,
    electrode_height: FloatLike | None,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    coupler_loss_db: FloatLike = 0.0,
    voltages_v: tuple[FloatLike, ...] | None = None,
    delta_t_k: FloatLike = 0.0,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Cascade of the rings' add-drop models, links and drop bends (see the module docstring).

    Args:
        wl: wavelength (µm).
        channels_um, radius, gap, width, spacing, electrode_gap, electrode_coverage, electrode_width,
            electrode_height: geometry, as ``wdm_demux``.
        film_thickness, etch_depth, loss_db_per_cm, coupler_loss_db, delta_t_k, sidewall_angle_deg, cladding:
            as ``ring_add_drop_model``.
        voltages_v: per-channel tuning voltage (V), a tuple like ``channels_um``; None is all zero.
    """
    _check_channels(channels_um)
    check_range("spacing", spacing, MIN_SPACING, 1e4, unit="µm")
    ring_checks.check_ring_geometry(radius, width, gap, None, None, electrode_gap, electrode_coverage, electrode_width)
    _check_span(channels_um, radius, width)
    n = len(channels_um)
    volts = (0.0,) * n if voltages_v is None else tuple(voltages_v)
    if len(volts) != n:
        raise ValueError(f"voltages_v has {len(volts)} entries; channels_um has {n}")
    wl = jnp.asarray(wl, dtype=float)
    # the rings are designed (radii drawn) for the nominal wafer stack; the model then runs them on its own
    radii = jnp.stack(channel_radii(tuple(channels_um), radius, width))
    common = dict(gap=gap, width=width, electrode_gap=electrode_gap, electrode_coverage=electrode_coverage,
                  electrode_width=electrode_width, electrode_height=electrode_height, film_thickness=film_thickness,
                  etch_depth=etch_depth,
                  loss_db_per_cm=loss_db_per_cm, coupler_loss_db=coupler_loss_db, delta_t_k=delta_t_k,
                  sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    wg = dict(width=width, film_thickness=film_thickness, etch_depth=etch_depth, loss_db_per_cm=loss_db_per_cm,
              sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    s = straight_model(wl=wl, length=spacing, **wg)[("o1", "o2")]
    b = bend_euler_model(wl=wl, angle=90.0, **wg)[("o1", "o2")]
    # the rings one by one: vmapping them compiles faster under jit (6 s against 7 s) but evaluates 1.5x slower
    # eagerly (batched primitives compile anew); the radius solve above is vmapped (it is the larger graph)
    through, drop = [], []
    for k in range(n):
        r = rings.ring_add_drop_model(wl=wl, radius=radii[k], voltage_v=volts[k], **common)
        through.append(r[("o1", "o2")])
        drop.append(r[("o1", "o4")])
    path = jnp.ones_like(wl, dtype=complex)  # o1 to the current ring's input
    sdict = {}
    for p in range(n):
        k = n - 1 - p
        sdict[("o1", f"o{3 + k}")] = path * drop[k] * b
        path = path * through[k] * (s if p < n - 1 else 1.0)
    sdict[("o1", "o2")] = path
    return reciprocal(sdict)


@model_of(wdm_demux)
def trim_voltages_v(channels_um=CELL, radius=CELL, *, gap, width, electrode_gap, electrode_coverage, electrode_width,
                    **params) -> tuple[float, ...]:
    """Per-channel voltages (V) that move each grid-snapped ring's resonance onto its channel.

    V_k = (λ_k − λ_res,k)/(dλ/dV), linear Pockels tuning (exact to first order in Δn).

    Args:
        channels_um, radius, gap, width, electrode_gap, electrode_coverage, electrode_width: the
            demux's geometry, as ``wdm_demux`` (whose defaults they take).
        **params: other ``ring_add_drop_model`` parameters shared by the rings (not ``voltage_v``).
    """
    ring = dict(gap=gap, width=width, electrode_gap=electrode_gap, electrode_coverage=electrode_coverage,
                electrode_width=electrode_width, **params)
    radii = _float_radii(channels_um, radius, width)
    design = RingDesign.from_params(ring)
    out = []
    for wl, r in zip(channels_um, radii, strict=True):
        lam = rings.resonance_wavelength(wl, "add_drop", radius=r, **ring)
        tune = float(ring_physics.ring_tuning_pm_per_v(lam, design.replace(radius=r))) * 1e-6
        out.append((wl - lam) / tune)
    return tuple(out)


def wdm_demux_model_for(channels_um) -> sax.Model:
    """``wdm_demux_model`` with ``channels_um`` as its default, for netlists with another channel count.

    The model's ports follow ``len(channels_um)``; SAX learns ports by calling a model with
    its defaults, so a circuit holding a demux of other than the default channel count
    needs this model under the cell's name (e.g. ``models["wdm_demux"] = wdm_demux_model_for(plan)``).
    """
    _check_channels(channels_um)
    plan = tuple(channels_um)

    def model(wl=1.55, channels_um=plan, **kwargs) -> sax.SDict:
        return wdm_demux_model(wl, channels_um=channels_um, **kwargs)

    model.__name__ = f"wdm_demux_model_{len(plan)}ch"
    return model


# Extremes keep the default channel count: the ports follow len(channels_um) (see wdm_demux_model_for).
_EXTREMES = (
    {"channels_um": (1.5464, 1.5488, 1.5512, 1.5536), "spacing": MIN_SPACING, "gap": 0.15},
    {"channels_um": (1.5300, 1.5308, 1.5316, 1.5324), "radius": 60.0, "gap": 0.3, "width": 1.0,
     "loss_db_per_cm": 1.0, "voltages_v": (10.0, -10.0, 0.0, 5.0), "delta_t_k": 20.0},
)

DEVICES = {
    "wdm_demux": Device(
        "wdm_demux",
        wdm_demux,
        wdm_demux_model,
        extremes=_EXTREMES,
        grad_params={"gap": ring_physics.GAP, "delta_t_k": 2.0},  # width moves every line: FD too coarse (as ring radius)
        model_only=("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltages_v",
                    "delta_t_k", "sidewall_angle_deg", "cladding"),
    ),
    "wdm_mux": Device(
        "wdm_mux",
        wdm_mux,
        wdm_demux_model,
        extremes=_EXTREMES[:1],
        model_only=("wl", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltages_v",
                    "delta_t_k", "sidewall_angle_deg", "cladding"),
    ),
}
