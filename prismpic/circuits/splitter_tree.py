"""1×N Y-branch splitter tree: layout, netlist simulation and the structured fast model.

Level l (0 … L−1, L = log2 N) holds 2^l ``y_splitter``s. Each splitter output is routed
to the next level by a mirrored pair of 90° Euler bends joined by a vertical straight
and a short horizontal stub; both branches of a splitter are mirror images, so every
path from the input to an output passes the same devices and the tree's response is
a Kronecker product of per-level branch factors (the fast model).
"""

from __future__ import annotations

import functools
import math

import jax.numpy as jnp

from prismpic.checks import GDS_DBU_UM, check_layout_length, check_power_of_two, check_range, gds_limit_um
from prismpic.components.couplers import y_splitter, y_splitter_model
from prismpic.components.model_signature import CELL, model_of
from prismpic.components.sbends import MAX_OFFSET
from prismpic.components.waveguides import bend_euler, bend_euler_model, euler_footprint, straight, straight_model
from prismpic.lazy_imports import gf, gf_cell
from prismpic.pdk.activation import platform_cell

MAX_OUTPUTS = 1024
STUB = 5.0  # µm of straight after each route, before the next splitter


def _geometry(n_outputs: int, pitch: float, bend_radius: float, output_separation: float):
    """Per-level vertical straight lengths (µm) and the Euler bend footprint (as drawn: ``euler_footprint``)."""
    levels = int(math.log2(n_outputs))
    b = euler_footprint(bend_radius)  # footprint (dx, dy) of a 90° bend
    verticals = []
    for lvl in range(levels):
        offset = pitch * 2.0 ** (levels - lvl - 2)  # child centre above/below the parent's
        v = offset - output_separation / 2 - 2 * b[1]
        verticals.append(v)
    return levels, (b[0], b[1]), verticals


def _check(n_outputs, pitch, bend_radius, output_separation):
    n = check_power_of_two("n_outputs", n_outputs, 2, MAX_OUTPUTS)
    # the outputs span (N − 1)·pitch: inside the layout coordinate range
    check_layout_length("pitch", pitch, hi=gds_limit_um() / n)
    # its own span first (its lower bound, the splitter's branches, is the y_splitter's check), then the pitch's
    # lower bound, which follows it
    check_range("output_separation", output_separation, 0.0, 2 * MAX_OFFSET, unit="µm", lo_open=True)
    levels, (_, bdy), verticals = _geometry(n, pitch, bend_radius, output_separation)
    min_pitch = 2 * (output_separation / 2 + 2 * bdy)
    check_range("pitch", pitch, min_pitch, math.inf, unit="µm", lo_open=True)
    return n, levels, verticals


@platform_cell
@gf_cell
def splitter_tree(
    n_outputs: int = 8,
    pitch: float = 127.0,
    bend_radius: float = 20.0,
    splitter_length: float = 30.0,
    output_separation: float = 5.0,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """1×N tree of Y-branches with outputs on a regular pitch.

    Args:
        n_outputs: N, a power of two in [2, 1024].
        pitch: output spacing (µm); must exceed the footprint of the last level's bends.
        bend_radius: minimum radius of the routing Euler bends (µm).
        splitter_length: S-bend length of each ``y_splitter`` (µm).
        output_separation: branch spacing at each splitter's output (µm).
        cross_section: optical cross-section name.

    .. code::

                     ┌─ o2 … (bottom to top: o2 … oN+1)
             ┌──Y──┤
         o1 ─Y     └─
             └──Y──┬─
                   └─ oN+1
    """
    n, levels, verticals = _check(n_outputs, pitch, bend_radius, output_separation)
    split = y_splitter(length=splitter_length, output_separation=output_separation, cross_section=cross_section)
    bend = bend_euler(radius=bend_radius, cross_section=cross_section)
    stub = straight(length=STUB, cross_section=cross_section)
    c = gf.Component()
    first = c << split
    c.add_port("o1", port=first.ports["o1"])
    frontier = [first]
    for lvl in range(levels):
        # a vertical shorter than the database unit is none (the bends meet)
        vert = straight(length=verticals[lvl], cross_section=cross_section) if verticals[lvl] >= GDS_DBU_UM else None
        nxt = []
        for sp in frontier:
            for port_name, up in (("o3", False), ("o2", True)):  # bottom branch first
                b1 = c << bend
                if not up:
                    b1.dmirror_y()
                b1.connect("o1", sp.ports[port_name])
                last = b1
                if vert is not None:
                    v = c << vert
                    v.connect("o1", last.ports["o2"])
                    last = v
                b2 = c << bend
                if up:
                    b2.dmirror_y()
                b2.connect("o1", last.ports["o2"])
                s = c << stub
                s.connect("o1", b2.ports["o2"])
                if lvl < levels - 1:
                    child = c << split
                    child.connect("o1", s.ports["o2"])
                    nxt.append(child)
                else:
                    nxt.append(s)
        frontier = nxt
    for i, s in enumerate(frontier):
        c.add_port(f"o{i + 2}", port=s.ports["o2"])
    c.info["n_outputs"] = n
    c.info["levels"] = levels
    return c


@model_of(splitter_tree)
def splitter_tree_fast(
    wl=1.55,
    n_outputs: int = CELL,
    pitch: float = CELL,
    bend_radius: float = CELL,
    splitter_length: float = CELL,
    output_separation: float = CELL,
    cross_section: str = CELL,
    excess_loss_db=0.2,
    imbalance_db=0.0,
    loss_db_per_cm=None,
    film_thickness=None,
    etch_depth=None,
    sidewall_angle_deg=None,
    cladding=None,
):
    """Complex transmissions (…, N) from o1 to o2 … oN+1 (bottom to top), by Kronecker products.

    Uses the same device models the netlist does, once per level instead of once per
    instance: O(N) work and memory, no circuit solve. Geometry defaults: the ``splitter_tree``
    cell's. ``excess_loss_db`` and ``imbalance_db`` apply to every splitter. The physics (loss in dB/cm, film and
    etch in µm, wall angle in degrees, cladding) passes to every device model; None keeps the models' defaults.
    """
    n, levels, verticals = _check(n_outputs, pitch, bend_radius, output_separation)
    loss = {k: v for k, v in dict(loss_db_per_cm=loss_db_per_cm, film_thickness=film_thickness, etch_depth=etch_depth,
                                  sidewall_angle_deg=sidewall_angle_deg, cladding=cladding).items() if v is not None}
    wl = jnp.asarray(wl, dtype=float)
    ys = y_splitter_model(
        wl=wl,
        length=splitter_length,
        output_separation=output_separation,
        cross_section=cross_section,
        excess_loss_db=excess_loss_db,
        imbalance_db=imbalance_db,
        **loss,
    )
    bend = bend_euler_model(wl=wl, radius=bend_radius, cross_section=cross_section, **loss)[("o1", "o2")]
    stub = straight_model(wl=wl, length=STUB, cross_section=cross_section, **loss)[("o1", "o2")]
    amp = jnp.ones(wl.shape + (1,), dtype=complex)
    for lvl in range(levels):
        route = bend * bend * stub
        if verticals[lvl] >= GDS_DBU_UM:  # as the layout: a shorter vertical is none
            route = (
                route * straight_model(wl=wl, length=verticals[lvl], cross_section=cross_section, **loss)[("o1", "o2")]
            )
        branch = jnp.stack([ys[("o1", "o3")], ys[("o1", "o2")]], axis=-1) * route[..., None]
        amp = (amp[..., :, None] * branch[..., None, :]).reshape(wl.shape + (-1,))
    return amp


TRACED = ("excess_loss_db", "imbalance_db", "loss_db_per_cm", "film_thickness", "etch_depth", "sidewall_angle_deg")


def splitter_tree_loss_db(n_outputs: int, **kwargs) -> float:
    """Insertion loss (dB) at 1.55 µm from the input to the average output of the tree (``splitter_tree_fast``'s
    keywords).

    One compiled program per tree size, layout and set of physics keywords (``TRACED``, whose values it takes as
    arguments), reused across runs (``program_cache``): evaluated op by op, a 1×1024 tree cost ≈ 3 CPU-s a process
    (the ledger asks at every assumption point). A physics value out of its range is NaN in that program (the models'
    checks under a trace); the tree is then evaluated op by op, whose checks raise the ``ValueError`` naming it."""
    numbers = {k: float(v) for k, v in kwargs.items() if k in TRACED and v is not None}
    static = tuple(sorted((k, v) for k, v in kwargs.items() if k not in numbers))
    loss = float(_tree_loss_program(int(n_outputs), static, tuple(sorted(numbers)))(numbers))
    return loss if math.isfinite(loss) else _tree_loss_db(n_outputs, **kwargs)


def _tree_loss_db(n_outputs: int, **kwargs):
    return -10 * jnp.log10(jnp.mean(jnp.abs(splitter_tree_fast(1.55, n_outputs, **kwargs)) ** 2))


@functools.lru_cache(maxsize=16)
def _tree_loss_program(n_outputs: int, static: tuple, names: tuple):
    from prismpic import program_cache

    return program_cache.reuse(lambda numbers: _tree_loss_db(n_outputs, **dict(static), **numbers))


def seed_splitter_loss_db(n_outputs: int, excess_db_per_stage: float = 0.2) -> float:
    """The seed's formula (S1-05): 10·log10 N + 0.2·⌈log2 N⌉ dB."""
    return 10 * math.log10(n_outputs) + excess_db_per_stage * math.ceil(math.log2(n_outputs))


def _register():
    from prismpic.circuits.registry import Circuit

    return {"splitter_tree": Circuit("splitter_tree", splitter_tree, None, splitter_tree_fast)}


CIRCUITS = _register()
