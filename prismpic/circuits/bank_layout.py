"""PRISM bank cells — channel, row with readout, bank tile — and their fast models as drawn.

A bank is N identical rows (ring j of every row on channel j; the weights are voltages). A row
(``prism_row``) is a channel whose drop output turns up at the west end and returns east above
the ring pads to the balanced detector beside the through output. Ridges then enclose the strip
above the drop bus, so each ring's upper plate gets its own pad there (probe/flip-chip) and the
lower plates share a ground rail south of the through bus. Lengths are integer nm, so every
connection closes exactly on the GDS grid, and ``readout_paths`` uses the same lengths.
``prism_bank_fields`` is the bank tile's fast model: the channel cascade (``bank_model``) times
the drawn readout paths.
"""

from __future__ import annotations

import functools
import math

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import GDS_DBU_UM, check_range, concrete
from prismpic.circuits import bank_state
from prismpic.circuits.bank_model import (
    BANK_D,
    GRID_CENTER_NM,
    GRID_SPACING_NM,
    RING_SPACING,
    cached_state,
    channel_fields,
    drop_jogs_um,
    eager_while_tracing,
    plan_radii,
    plan_stack,
    prepare_bank,
)
from prismpic.components import electrical, ring_physics, rings
from prismpic.components.detectors import balanced_photodetector
from prismpic.components.model_signature import CELL, model_of
from prismpic.components.ring_checks import check_ring_inputs
from prismpic.components.sbends import sbend
from prismpic.components.waveguides import bend_euler, bend_euler_model, straight, straight_model
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import RIDGE_WIDTH
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

PAD_SIZE = 54.0  # µm: a 50 µm opening (the minimum) in 2 µm of metal fits the 58.8 µm ring pitch
BEND_RADIUS = 20.0  # µm, Euler bends of the drop-port return path
LEAD = 2.0  # µm of metal between a plate's trace and its pad or the ground rail
RAIL_WIDTH = 5.0  # µm, the rail joining a channel's lower plates
GROUND_CLEARANCE = 2.0  # µm, through-bus ridge edge to the ground pad
END_CAP = 3.0  # µm of slab beyond the open add port of the last ring
ROW_SPACE = 5.0  # µm between the bounding boxes of adjacent rows
DETECTOR_PAD = 60.0  # µm, pads of the balanced photodetector (smaller when the ring pads are)
_NM = 1000  # layout grid steps per µm


def nm_from_um(x: float) -> int:
    """Length or position ``x`` (µm) in integer layout grid steps (nm)."""
    return round(x * _NM)


def um_from_nm(n: int) -> float:
    """Integer layout grid steps ``n`` (nm) in µm."""
    return n / _NM


def _pad_margin(pad_size: float) -> float:
    """Metal around a pad's opening: 5 µm, less when the pad is within 10 µm of the minimum opening."""
    return min(5.0, (pad_size - RULES.min_pad_size) / 2)


@platform_cell
@gf.cell
def prism_channel(
    radii: tuple[float, ...] = (20.0, 20.0, 20.0, 20.0),
    ring_spacing: float = RING_SPACING,
    gap: float = ring_physics.GAP,
    gap_drop: float | None = None,
    width: float = RIDGE_WIDTH,
    electrode_height: float | None = None,
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
        electrode_height: the rings' plates on the slab (None) or this high above the film (µm), as
            ``ring_add_drop``.

    Ports: o1 through-bus input (left), o2 through output (right), o3 drop-bus end (right,
    unused), o4 drop output (left); e{2j+1}/e{2j+2} the lower/upper plates of ring j.

    .. code::

        o4 ═══╤══════~╤═══════╤═══ o3    drop bus (light runs right → left), jogs ~
             (r0)    (r1)    (r2)
        o1 ═══╧═══════╧═══════╧═══ o2    through bus
    """
    check_range("ring_spacing", ring_spacing, 0.0, 1e4, unit="µm")
    if 0 < ring_spacing < GDS_DBU_UM:
        raise ValueError(f"ring_spacing = {ring_spacing:g} µm is shorter than the layout's 1 nm database unit: give 0 "
                         f"(abutting rings) or a value in [{GDS_DBU_UM:g}, 10000] µm")
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
        ring = c << rings.ring_add_drop(radius=r, gap=gap, gap_drop=gap_drop, width=width,
                                        electrode_height=electrode_height)
        if prev is None:
            c.add_port("o1", port=ring.ports["o1"])
            c.add_port("o4", port=ring.ports["o4"])
        elif ring_spacing > 0:
            bottom = c << straight(length=ring_spacing, width=width)
            bottom.connect("o1", prev.ports["o2"])
            ring.connect("o1", bottom.ports["o2"])
            offset = um_from_nm(nm_from_um(ring.ports["o4"].dcenter[1]) - nm_from_um(prev.ports["o3"].dcenter[1]))
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


def row_plan(radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius) -> dict:
    """Positions (integer nm, row frame: channel o1 at the origin) and lengths of ``prism_row``'s readout.

    Arguments as ``prism_row`` (µm). Keys: the segment lengths below, the channel's o2 x
    ``x_ch`` and o4 y ``s0``, pad centres ``xs``, pad row ``y_pad``, rail ``e1_bottom``, return
    bus ``y_r``, detector ``x_pd`` and ``pd_pitch``, ground pad ``gx0``, bend extent ``dx``, ``dy``.

    Drop path from o4: straight ``u`` (left), a clockwise Euler bend up, straight ``v1``, a
    clockwise bend right, straight ``ret`` over the signal pads, a clockwise bend down,
    straight ``v2``, a counter-clockwise bend right, straight ``inp`` into the detector's
    o2. Through path from o2: straight ``thr`` into the detector's o1.
    """
    ch = prism_channel(radii=radii, ring_spacing=ring_spacing, gap=gap, gap_drop=gap_drop, width=width)
    ox, oy = (nm_from_um(v) for v in ch.ports["o1"].dcenter)

    def at(name):
        x, y = ch.ports[name].dcenter
        return nm_from_um(x) - ox, nm_from_um(y) - oy

    d = len(radii)
    x_ch, _ = at("o2")
    _, s0 = at("o4")
    xs = [at(f"e{2 * j + 2}")[0] for j in range(d)]
    e2_top = max(at(f"e{2 * j + 2}")[1] for j in range(d))
    e1_bottom = min(at(f"e{2 * j + 1}")[1] for j in range(d))
    gaps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
    if gaps:
        check_range("pad_size", pad_size, RULES.min_pad_size, um_from_nm(min(gaps)) - RULES.min_metal_space, unit="µm")
    p, w, clear = nm_from_um(pad_size), nm_from_um(width), nm_from_um(RULES.min_metal_to_ridge)
    bend = bend_euler(radius=bend_radius, width=width)
    dx, dy = (nm_from_um(v) for v in bend.ports["o2"].dcenter)
    det = balanced_photodetector(pad_size=min(DETECTOR_PAD, pad_size), width=width)
    pd_pitch = nm_from_um(det.ports["o2"].dcenter[1] - det.ports["o1"].dcenter[1])
    y_pad = e2_top + nm_from_um(LEAD)
    y_r = y_pad + p + clear + w // 2 + 500  # return bus: ≥ 1 µm (+0.5 margin) above the pads' metal
    u = max(0, clear + w // 2 + 500 - (xs[0] - p // 2))  # U-turn left of the first pad
    v1 = y_r - s0 - 2 * dy
    v2 = y_r - 2 * dy - pd_pitch
    x_v = max(xs[-1] + p - p // 2 + clear + dx, x_ch + nm_from_um(END_CAP) + clear + w)  # descent clears pads and add port
    gx0 = x_ch + nm_from_um(RULES.min_metal_space)  # ground pad
    x_pd = max(x_v + dx + nm_from_um(2.0), gx0 + p + nm_from_um(RULES.min_metal_space))
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
    """(cell, mirrored) sequence of the drop path (see ``row_plan``); zero-length straights left out."""
    bend = bend_euler(radius=bend_radius, width=width)

    def seg(n):
        return [(straight(length=um_from_nm(n), width=width), False)] if n > 0 else []

    return (seg(plan["u"]) + [(bend, True)] + seg(plan["v1"]) + [(bend, True)] + seg(plan["ret"]) + [(bend, True)]
            + seg(plan["v2"]) + [(bend, False)] + seg(plan["inp"]))


@platform_cell
@gf.cell
def prism_row(
    radii: tuple[float, ...] = (20.0, 20.0, 20.0, 20.0),
    ring_spacing: float = RING_SPACING,
    gap: float = ring_physics.GAP,
    gap_drop: float | None = None,
    width: float = RIDGE_WIDTH,
    pad_size: float = PAD_SIZE,
    bend_radius: float = BEND_RADIUS,
    electrode_height: float | None = None,
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
        electrode_height: the rings' plates on the slab (None) or this high above the film (µm).

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
    plan = row_plan(radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius)
    d = len(radii)
    c = gf.Component()
    ch_cell = prism_channel(radii=radii, ring_spacing=ring_spacing, gap=gap, gap_drop=gap_drop, width=width,
                            electrode_height=electrode_height)
    ch = c << ch_cell
    x0, y0 = ch_cell.ports["o1"].dcenter
    ch.dmove((-um_from_nm(nm_from_um(x0)), -um_from_nm(nm_from_um(y0))))
    c.add_port("o1", port=ch.ports["o1"])
    # readout optics
    thr = c << straight(length=um_from_nm(plan["thr"]), width=width)
    thr.connect("o1", ch.ports["o2"])
    det = c << balanced_photodetector(pad_size=min(DETECTOR_PAD, pad_size), width=width)
    det.connect("o1", thr.ports["o2"])
    end = _place_chain(c, ch.ports["o4"], _drop_path(plan, bend_radius, width))
    if nm_from_um(end.dcenter[0]) != nm_from_um(det.ports["o2"].dcenter[0]) or nm_from_um(end.dcenter[1]) != nm_from_um(det.ports["o2"].dcenter[1]):
        raise RuntimeError(f"drop path ends at {end.dcenter}, detector o2 at {det.ports['o2'].dcenter}")
    x, y = ch.ports["o3"].dcenter  # the unused add port ends inside a slab cap
    h = width / 2 + END_CAP
    c.add_polygon([(x, y - h), (x + END_CAP, y - h), (x + END_CAP, y + h), (x, y + h)], layer=LAYER.LN_SLAB)
    # electrodes: a pad above each ring, a rail under the lower plates to the ground pad
    signal = electrical.pad(size=pad_size, opening_margin=_pad_margin(pad_size))
    y_rail = um_from_nm(plan["e1_bottom"]) - LEAD
    for j in range(d):
        e2 = ch.ports[f"e{2 * j + 2}"]
        lead = c << electrical.electrode_trace(length=round(um_from_nm(plan["y_pad"]) + 1.0 - e2.dcenter[1], 3),
                                               width=e2.width)
        lead.connect("e1", e2)
        pj = c << signal
        pj.dmove((um_from_nm(plan["xs"][j]), um_from_nm(plan["y_pad"]) + pad_size / 2))
        c.add_port(f"e{j + 1}", port=pj.ports["e2"])
        e1 = ch.ports[f"e{2 * j + 1}"]
        down = c << electrical.electrode_trace(length=round(e1.dcenter[1] - y_rail + 1.0, 3), width=e1.width)
        down.connect("e1", e1)
    x_rail = um_from_nm(plan["xs"][0]) - ch.ports["e1"].width / 2
    gx0 = um_from_nm(plan["gx0"])
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


@model_of(prism_row)
def readout_paths(wl=1.55, radii=CELL, ring_spacing=CELL, gap=CELL, gap_drop=CELL, width=CELL, pad_size=CELL,
                  bend_radius=CELL, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH,
                  loss_db_per_cm=LOSS_DB_PER_CM, sidewall_angle_deg=SIDEWALL_ANGLE_DEG, cladding=CLADDING):
    """(through, drop) transmissions (W,) from the channel's o2 and o4 to the detector inputs of ``prism_row``.

    The same straight and Euler-bend models the netlist uses, once per segment of the drawn path, at the
    process's film, etch, wall angle (°) and cladding. Geometry defaults: the ``prism_row`` cell's.
    """
    radii = tuple(float(r) for r in np.asarray(radii, dtype=float))
    _check_row(radii, pad_size, bend_radius)
    with eager_while_tracing():  # the row's layout, built concretely even when first called under jit
        plan = row_plan(radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius)
    wl = jnp.asarray(wl, dtype=float)
    phys = dict(width=width, film_thickness=film_thickness, etch_depth=etch_depth, loss_db_per_cm=loss_db_per_cm,
                sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)

    def s(n):
        return straight_model(wl=wl, length=um_from_nm(n), **phys)[("o1", "o2")] if n > 0 else 1.0

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


@platform_cell
@gf.cell
def prism_bank(
    n_channels: int = 4,
    d: int = BANK_D,
    spacing_nm: float = GRID_SPACING_NM,
    center_nm: float = GRID_CENTER_NM,
    ring_spacing: float = RING_SPACING,
    gap: float = ring_physics.GAP,
    gap_drop: float | None = None,
    width: float = RIDGE_WIDTH,
    pad_size: float = PAD_SIZE,
    bend_radius: float = BEND_RADIUS,
    channel_pitch: float | None = None,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
    cladding: str = CLADDING,
    electrode_height: float | None = None,
) -> gf.Component:
    """A PRISM bank tile: ``n_channels`` identical ``prism_row``s stacked at ``channel_pitch``.

    Ring j of every channel is resonant on channel j of the plan (``plan_radii``), so all rows
    are one cell; the weights live in the voltages.

    Args:
        n_channels: channels (rows), 1 … 4096.
        d: rings per channel = wavelengths; the plan must lie in ``bank_model.PLAN_BAND_UM``.
        spacing_nm: wavelength grid spacing (nm).
        center_nm: centre of the wavelength grid (nm).
        ring_spacing, gap, gap_drop, width, pad_size, bend_radius: as ``prism_row``.
        channel_pitch: row pitch (µm); None takes ``min_channel_pitch``.
        film_thickness, etch_depth: the LN film and ridge etch (µm) the rings are planned on (``plan_radii``).
        sidewall_angle_deg: ridge wall angle from the horizontal (°) the rings are planned on.
        cladding: ``"sio2"`` or ``"air"`` above the ridges.
        electrode_height: the rings' plates on the slab (None) or this high above the film (µm).

    Ports: o1 … oN the channel inputs (west, bottom to top); electrical e{k·(d+4) + i} the
    pads of row k (i as ``prism_row``'s e{i}).
    """
    if not isinstance(n_channels, int | np.integer) or not 1 <= n_channels <= 4096:
        raise ValueError(f"n_channels = {n_channels!r} is outside the valid range [1, 4096]")
    radii = plan_radii(d, spacing_nm, center_nm, gap, gap_drop, width, film_thickness, etch_depth, sidewall_angle_deg,
                       cladding)
    row_kw = _row_cell_kwargs(ring_spacing, gap, gap_drop, width, pad_size, bend_radius)
    row = prism_row(radii=radii, **row_kw, electrode_height=electrode_height)
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


@model_of(prism_bank)
def prism_bank_fields(wl, voltages, *, d: int, spacing_nm: float, center_nm: float, ring_spacing: float, gap: float,
                      gap_drop: float | None, width: float, pad_size: float, bend_radius: float, film_thickness: float,
                      etch_depth: float, sidewall_angle_deg: float, cladding: str, electrode_height: float | None,
                      delta_t_k=0.0, **physics):
    """Fast model of ``prism_bank``: fields (E_drop, E_through) (N, W) at the detector inputs per unit input field.

    ``bank_fields`` of the channels times the drawn readout paths (``readout_paths``); the geometry
    (``d`` … ``bend_radius``), the stack (film, etch, wall angle, cladding) and the rings' plate height default
    to the ``prism_bank`` cell's. ``voltages`` is (N, d); ``physics`` holds the other ring model parameters (loss_db_per_cm,
    coupler_loss_db, electrode_* …). Compiled once per set of parameters and cached; traceable (jit, grad) in wl,
    voltages and delta_t_k.
    """
    physics = {**physics, "film_thickness": film_thickness, "etch_depth": etch_depth,
               "sidewall_angle_deg": sidewall_angle_deg, "cladding": cladding, "electrode_height": electrode_height}
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
    return bank_state.bank_fields(cached_state(key, f, wl), voltages, dts)


@functools.lru_cache(maxsize=32)
def _bank_readout(d, spacing_nm, center_nm, ring_spacing, gap, gap_drop, width, pad_size, bend_radius, physics):
    physics = dict(physics)
    radii = plan_radii(d, spacing_nm, center_nm, gap, gap_drop, width, **plan_stack(physics))
    ring = dict(gap=gap, width=width, **({} if gap_drop is None else {"gap_drop": gap_drop}), **physics)
    geo = {k: physics[k] for k in ("film_thickness", "etch_depth", "loss_db_per_cm", "sidewall_angle_deg", "cladding")
           if k in physics}
    with eager_while_tracing():  # validation (and the row's layout, built once), eagerly even under jit
        for r in (min(radii), max(radii)):
            check_ring_inputs(1.55, rings.ring_params("add_drop", {**ring, "radius": r}))
        readout_paths(1.55, radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius, **geo)

    def f(wl):  # the tile's optical state (bank_model.prepare_bank) with its drawn readout paths
        readout = readout_paths(wl, radii, ring_spacing, gap, gap_drop, width, pad_size, bend_radius, **geo)
        return prepare_bank(wl, radii, ring_spacing, readout=readout, **ring)

    return jax.jit(f)


def _register():
    from prismpic.circuits.registry import Circuit

    return {
        "prism_channel": Circuit("prism_channel", prism_channel, None, channel_fields),
        "prism_row": Circuit("prism_row", prism_row, None, None),
        "prism_bank": Circuit("prism_bank", prism_bank, None, prism_bank_fields),
    }


CIRCUITS = _register()
