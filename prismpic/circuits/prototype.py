"""The 8×8 PRISM prototype (S1-11): WDM input, Y-splitter tree, ring-bank rows, balanced readout.

Light of d wavelengths enters through an edge coupler, a 1×N tree of Y-branches
(``splitter_tree``) splits it into N rows, and each row is a ``prism_row``: a bus with d
add-drop rings (ring j resonant on channel j, 200–300 nm gaps), each with its own
electrodes and pad, whose through and drop ports end on a balanced Ge photodetector pair.
Row k's current is

    I_k = Σ_λ R(λ) P_λ (|E_drop,kλ|² − |E_thr,kλ|²),

with P_λ the power of wavelength λ in the input fiber, E the fields at the two detector
inputs per unit input field and R(λ) the detectors' responsivity
(``detectors.responsivity_a_per_w``). Ring voltages set the signed weights
(``prototype_program``), so the currents are the N inner products of the input powers
with the rows' weights (Tait et al., Sci. Rep. 7, 7430 (2017)).

Two simulations of the same layout: ``prototype_fields`` (structured: edge coupler ×
tree Kronecker product × ring cascade × readout paths, all from the device models) and
``prototype_netlist_fields`` (``sax.circuit`` on the flat netlist extracted from the
layout, detectors cut out and their inputs exposed as ports). They agree to rounding.
"""

from __future__ import annotations

import functools

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_power_of_two, check_range
from prismpic.circuits.bank_layout import (
    BEND_RADIUS,
    min_channel_pitch,
    prism_bank,
    prism_bank_fields,
    readout_paths,
    row_plan,
    um_from_nm,
)
from prismpic.circuits.bank_model import (
    GRID_CENTER_NM,
    GRID_SPACING_NM,
    channel_plan_um,
    check_plan,
    plan_radii,
    plan_stack,
    ring_columns,
    spacer_transmissions,
)
from prismpic.circuits.netlists import ABSORBERS, flat_netlist
from prismpic.circuits.splitter_tree import splitter_tree, splitter_tree_fast
from prismpic.circuits.weight_programming import (
    PROGRAM_TOL,
    check_programmed,
    reachable_gain,
    weight_data,
    weight_solver,
)
from prismpic.components import ring_physics
from prismpic.components.detectors import balanced_photodetector, responsivity_a_per_w
from prismpic.components.io import edge_coupler, edge_coupler_model
from prismpic.components.model_signature import cell_defaults, model_of
from prismpic.components.waveguides import straight, straight_model
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import RIDGE_WIDTH, SLAB_MARGIN
from prismpic.pdk.platforms import accepted_settings
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

FEED_MARGIN = 5.0  # µm between the splitter tree's last bends and a row's drop-path U-turn


# ---------------------------------------------------------------------------- layout
def _feed_length(plan: dict, width: float) -> float:
    """Straight between the tree and a row: longer than the row's U-turn reaches west of its input."""
    return um_from_nm(plan["u"] + plan["dx"]) + width / 2 + SLAB_MARGIN + FEED_MARGIN


def _check(n_rows, d, spacing_nm, center_nm, gap, gap_drop):
    check_power_of_two("n_rows", n_rows, 2, 1024)
    check_plan(d, spacing_nm, center_nm)
    check_range("gap", gap, RULES.min_ridge_gap, ring_physics.MAX_GAP, unit="µm")


@platform_cell
@gf.cell
def prototype(
    n_rows: int = 8,
    d: int = 8,
    spacing_nm: float = GRID_SPACING_NM,
    center_nm: float = GRID_CENTER_NM,
    gap: float = ring_physics.GAP,
    gap_drop: float | None = None,
    ring_spacing: float = 40.0,
    pad_size: float = 80.0,
    bend_radius: float = BEND_RADIUS,
    row_pitch: float | None = None,
    taper_length: float = 200.0,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
    cladding: str = CLADDING,
    electrode_height: float | None = None,
) -> gf.Component:
    """PRISM prototype: edge coupler → 1×N Y-splitter tree → N ``prism_row``s of d rings each.

    Args:
        n_rows: N rows (channels), a power of two in [2, 1024].
        d: rings per row = wavelengths of the plan (``bank_model.check_plan``).
        spacing_nm: wavelength grid spacing (nm).
        center_nm: grid centre (nm).
        gap: bus–ring gap (µm); the seed's rings use 0.2–0.3.
        gap_drop: drop-bus gap (µm); None takes ``gap``.
        ring_spacing: bus between ring cells (µm); 40 µm gives room for 80 µm pads.
        pad_size: signal and ground pad side (µm).
        bend_radius: Euler bend radius of the drop-port return paths (µm).
        row_pitch: row pitch (µm) = the tree's output pitch; None takes the smallest.
        taper_length: edge-coupler taper length (µm).
        film_thickness, etch_depth, sidewall_angle_deg, cladding: the stack the rings are planned on (µm, µm, °
            from the horizontal, ``"sio2"``/``"air"``), as ``prism_bank``; the models simulate on it.
        electrode_height: the rings' plates on the slab (None) or this high above the film (µm), as ``prism_bank``.

    Ports: o1 the facet (west, at x = 0); electrical e… the bank's pads (``prism_bank``).

    .. code::

                      ┌─ feed ── row N−1: rings, pads, PD pair
        o1 ▷──Y─ … ─Y─┤   …
                      └─ feed ── row 0
    """
    _check(n_rows, d, spacing_nm, center_nm, gap, gap_drop)
    stack = dict(film_thickness=film_thickness, etch_depth=etch_depth, sidewall_angle_deg=sidewall_angle_deg,
                 cladding=cladding)
    radii = plan_radii(d, spacing_nm, center_nm, gap, gap_drop, RIDGE_WIDTH, **stack)
    row_kw = dict(ring_spacing=ring_spacing, gap=gap, gap_drop=gap_drop, width=RIDGE_WIDTH, pad_size=pad_size,
                  bend_radius=bend_radius)
    need = min_channel_pitch(radii, **row_kw)
    pitch = need if row_pitch is None else check_range("row_pitch", row_pitch, need, 1e5, unit="µm")
    plan = row_plan(radii, **row_kw)
    c = gf.Component()
    ec = c << edge_coupler(taper_length=taper_length)
    c.add_port("o1", port=ec.ports["o1"])
    tree = c << splitter_tree(n_outputs=n_rows, pitch=pitch)
    tree.connect("o1", ec.ports["o2"])
    feed = straight(length=round(_feed_length(plan, RIDGE_WIDTH), 3))
    bank = c << prism_bank(n_channels=n_rows, d=d, spacing_nm=spacing_nm, center_nm=center_nm, channel_pitch=pitch,
                           **row_kw, **stack, electrode_height=electrode_height)
    for k in range(n_rows):
        f = c << feed
        f.connect("o1", tree.ports[f"o{k + 2}"])
        if k == 0:
            bank.connect("o1", f.ports["o2"])
    for p in bank.ports:
        if p.port_type == "electrical":
            c.add_port(p.name, port=p)
    for key, value in dict(n_rows=n_rows, d=d, row_pitch=float(pitch), radii=list(radii),
                           feed_length=feed.info["length"]).items():
        c.info[key] = value
    return c


# ---------------------------------------------------------------------------- parameters
_CELL_DEFAULTS = cell_defaults(prototype)


def prototype_params(**layout) -> dict:
    """The prototype's layout parameters: ``prototype``'s defaults updated by ``layout`` (ValueError for unknown names)."""
    unknown = sorted(set(layout) - set(_CELL_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown prototype parameter(s) {unknown}; valid: {sorted(_CELL_DEFAULTS)}")
    p = {**_CELL_DEFAULTS, **layout}
    _check(p["n_rows"], p["d"], p["spacing_nm"], p["center_nm"], p["gap"], p["gap_drop"])
    return p


def prototype_channels_um(**layout) -> np.ndarray:
    """Wavelengths (µm) of the prototype's d channels."""
    p = prototype_params(**layout)
    return channel_plan_um(p["d"], p["spacing_nm"], p["center_nm"])


def _row_kw(p):
    return dict(ring_spacing=p["ring_spacing"], gap=p["gap"], gap_drop=p["gap_drop"], width=RIDGE_WIDTH,
                pad_size=p["pad_size"], bend_radius=p["bend_radius"])


def _radii(p) -> tuple[float, ...]:
    """The ring radii of the layout ``p`` (``prototype_params``), planned on its stack."""
    return plan_radii(p["d"], p["spacing_nm"], p["center_nm"], p["gap"], p["gap_drop"], RIDGE_WIDTH, **plan_stack(p))


def _pitch(p) -> float:
    radii = _radii(p)
    return min_channel_pitch(radii, **_row_kw(p)) if p["row_pitch"] is None else p["row_pitch"]


def _check_voltages(voltages, p):
    v = jnp.asarray(voltages, dtype=float)
    if v.shape != (p["n_rows"], p["d"]):
        raise ValueError(f"voltages has shape {v.shape}; expected (n_rows, d) = ({p['n_rows']}, {p['d']})")
    vmax = RULES.max_electrode_voltage_v
    check_range("voltages", v, -vmax, vmax, unit="V")
    return v


# ---------------------------------------------------------------------------- fast model
def prototype_fields(wl=None, voltages=None, *, delta_t_k=0.0, loss_db_per_cm=LOSS_DB_PER_CM,
                     excess_loss_db=0.2, fiber_mfd_um=None, **layout):
    """(E_drop, E_thr), shape (N, W): fields at each row's two detector inputs per unit field in the fiber.

    Structured model of ``prototype(**layout)``: edge coupler × splitter-tree branch × feed
    (``prototype_common_path``) × ring cascade and readout path (``prism_bank_fields``).

    Args:
        wl: wavelengths (µm), shape (W,); None takes the channel plan.
        voltages: ring voltages (V), shape (n_rows, d); None is 0 V.
        delta_t_k: temperature change of the rings (K), scalar or (n_rows, d).
        loss_db_per_cm: waveguide propagation loss (dB/cm), everywhere; None: from physics (each guide's own).
        excess_loss_db: excess loss of each Y-branch (dB).
        fiber_mfd_um: fiber mode-field diameter (µm); None takes the edge coupler's default.
        **layout: ``prototype`` parameters.
    """
    p = prototype_params(**layout)
    wl = channel_plan_um(p["d"], p["spacing_nm"], p["center_nm"]) if wl is None else wl
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    if wl.ndim != 1:
        raise ValueError(f"wl has shape {wl.shape}; expected (W,)")
    voltages = jnp.zeros((p["n_rows"], p["d"])) if voltages is None else _check_voltages(voltages, p)
    dts = jnp.broadcast_to(jnp.asarray(delta_t_k, dtype=float), voltages.shape)
    check_range("delta_t_k", dts, -150.0, 300.0, unit="K")
    loss = None if loss_db_per_cm is None else float(loss_db_per_cm)  # None: from physics
    f = _fast(tuple(sorted(p.items())), loss, float(excess_loss_db), fiber_mfd_um)
    n = wl.shape[0]
    bucket = max(128, 1 << (n - 1).bit_length())  # pad wl to a power of two: one compilation serves many lengths
    e_drop, e_thr = f(jnp.concatenate([wl, jnp.full(bucket - n, wl[-1])]), voltages, dts)
    return e_drop[:, :n], e_thr[:, :n]


@functools.lru_cache(maxsize=16)
def _fast(items: tuple, loss_db_per_cm: float | None, excess_loss_db: float, fiber_mfd_um):
    """``prototype_fields`` for one layout and physics, jitted over (wl, voltages, delta_t_k) and cached."""
    p = dict(items)
    phys = dict(loss_db_per_cm=loss_db_per_cm)
    path = dict(phys, excess_loss_db=excess_loss_db, fiber_mfd_um=fiber_mfd_um)
    stack = {**plan_stack(p), "electrode_height": p["electrode_height"]}  # prism_bank_fields takes them as its
    # cell's
    prototype_common_path(1.55, **path, **p)  # validation, eagerly

    def f(wl, voltages, dts):
        e_drop, e_thr = prism_bank_fields(wl, voltages, d=p["d"], spacing_nm=p["spacing_nm"],
                                          center_nm=p["center_nm"], delta_t_k=dts, **_row_kw(p), **phys, **stack)
        common = prototype_common_path(wl, **path, **p)
        return common * e_drop, common * e_thr

    return jax.jit(f)


def prototype_common_path(wl=None, *, loss_db_per_cm=LOSS_DB_PER_CM, excess_loss_db=0.2, fiber_mfd_um=None,
                          **layout):
    """Field transmission (N, W) from the fiber to row k's bank input: edge coupler × tree output k × feed.

    The part of ``prototype_fields`` common to a row's drop and through paths (its power |·|² is
    c_k(λ) of the readout identity I_k = g Σ_λ R(λ) c_k(λ) P_λ w_kλ); traceable in ``wl``.

    Args:
        wl: wavelengths (µm), shape (W,); None takes the channel plan.
        loss_db_per_cm, excess_loss_db, fiber_mfd_um: as ``prototype_fields``.
        **layout: ``prototype`` parameters.
    """
    p = prototype_params(**layout)
    wl = channel_plan_um(p["d"], p["spacing_nm"], p["center_nm"]) if wl is None else wl
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    phys = dict(loss_db_per_cm=loss_db_per_cm, **plan_stack(p))
    ec_kw = {} if fiber_mfd_um is None else {"fiber_mfd_um": fiber_mfd_um}
    plan = row_plan(_radii(p), **_row_kw(p))
    ec = edge_coupler_model(wl=wl, taper_length=p["taper_length"], **ec_kw,
                            **accepted_settings(edge_coupler_model, phys))[("o1", "o2")]
    tree = splitter_tree_fast(wl, p["n_rows"], pitch=_pitch(p), excess_loss_db=excess_loss_db,
                              **accepted_settings(splitter_tree_fast, phys))  # (W, N)
    feed = straight_model(wl=wl, length=round(_feed_length(plan, RIDGE_WIDTH), 3), **phys)[("o1", "o2")]
    return (ec * feed)[None, :] * tree.T


@model_of(balanced_photodetector)
def prototype_currents_a(powers_w, voltages, *, wl=None, ge_length: float, method: str = "fast", **kwargs):
    """Balanced photocurrents (A) of the N rows: I_k = Σ_λ R(λ) P_λ (|E_drop|² − |E_thr|²).

    Args:
        powers_w: power of each wavelength in the input fiber (W), shape (W,) (W = d on the plan).
        voltages: ring voltages (V), shape (n_rows, d).
        wl: wavelengths (µm) of ``powers_w``; None takes the channel plan.
        ge_length: detector absorber length (µm); sets R(λ) (``responsivity_a_per_w``); default: the rows'
            ``balanced_photodetector``'s.
        method: "fast" (``prototype_fields``) or "netlist" (``prototype_netlist_fields``).
        **kwargs: ``prototype`` layout parameters and the physics of ``prototype_fields``.
    """
    p = prototype_params(**{k: v for k, v in kwargs.items() if k in _CELL_DEFAULTS})
    wl = channel_plan_um(p["d"], p["spacing_nm"], p["center_nm"]) if wl is None else wl
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    powers_w = jnp.asarray(powers_w, dtype=float)
    if powers_w.shape != wl.shape:
        raise ValueError(f"powers_w has shape {powers_w.shape}; expected {wl.shape}, one power per wavelength")
    check_range("powers_w", powers_w, 0.0, 1.0, unit="W")
    if method == "fast":
        e_drop, e_thr = prototype_fields(wl, voltages, **kwargs)
    elif method == "netlist":
        e_drop, e_thr = prototype_netlist_fields(wl, voltages, **kwargs)
    else:
        raise ValueError(f"method = {method!r} is not one of ['fast', 'netlist']")
    r = responsivity_a_per_w(wl, ge_length)
    return jnp.sum(r * powers_w * (jnp.abs(e_drop) ** 2 - jnp.abs(e_thr) ** 2), axis=-1)


# ---------------------------------------------------------------------------- netlist simulation
@functools.lru_cache(maxsize=8)
def _netlist_circuit(items: tuple):
    import sax

    from prismpic.circuits.registry import models as registered_models

    p = dict(items)
    comp = prototype(**p)
    stack = plan_stack(p)  # every model that takes the stack simulates on the layout's (film, etch, wall, cladding)
    models = {name: (functools.partial(m, **found) if (found := accepted_settings(m, stack)) else m)
              for name, m in registered_models().items()}
    net, placements = flat_netlist(comp, models)
    # name the detector inputs by row (detectors sorted by y): thr{k} (PD o1), drop{k} (PD o2)
    dets = sorted((n for n, v in placements.items() if v[0] in ABSORBERS), key=lambda n: placements[n][2])
    rename = {f"{n},{port}": f"{kind}{k}" for k, n in enumerate(dets) for port, kind in (("o1", "thr"), ("o2", "drop"))}
    net["ports"] = {rename.get(k, k): v for k, v in net["ports"].items()}
    # rings by row (y of the ring, nearest row) and by x within the row
    pitch = comp.info["row_pitch"]
    ring_names = [n for n, v in placements.items() if v[0] == "ring_add_drop"]
    y0 = min(placements[n][2] for n in ring_names)
    grid = [[None] * p["d"] for _ in range(p["n_rows"])]
    for k in range(p["n_rows"]):
        row = sorted((n for n in ring_names if round((placements[n][2] - y0) / pitch) == k),
                     key=lambda n: placements[n][1])
        if len(row) != p["d"]:
            raise RuntimeError(f"row {k} has {len(row)} rings, expected {p['d']}")
        grid[k] = row
    circuit, _ = sax.circuit(net, models)
    return circuit, grid, net


def prototype_netlist(**layout) -> tuple[dict, list[list[str]]]:
    """Flat SAX netlist of ``prototype(**layout)`` (detectors cut out) and the ring instance names [row][ring].

    Ports: ``o1`` (facet), ``thr{k}``/``drop{k}`` the inputs of row k's detector pair.
    """
    p = prototype_params(**layout)
    _, grid, net = _netlist_circuit(tuple(sorted(p.items())))
    return net, grid


def prototype_netlist_fields(wl=None, voltages=None, **layout):
    """(E_drop, E_thr), shape (N, W), by ``sax.circuit`` on the layout's flat netlist (its stack, default loss).

    The circuit is compiled once per layout (cached); slow beyond a few hundred instances.
    """
    p = prototype_params(**layout)
    wl = channel_plan_um(p["d"], p["spacing_nm"], p["center_nm"]) if wl is None else wl
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    voltages = np.zeros((p["n_rows"], p["d"])) if voltages is None else np.asarray(_check_voltages(voltages, p))
    circuit, grid, _ = _netlist_circuit(tuple(sorted(p.items())))
    settings = {grid[k][j]: {"voltage_v": float(voltages[k, j])} for k in range(p["n_rows"]) for j in range(p["d"])}
    s = circuit(wl=wl, **settings)
    e_drop = jnp.stack([s[("o1", f"drop{k}")] for k in range(p["n_rows"])])
    e_thr = jnp.stack([s[("o1", f"thr{k}")] for k in range(p["n_rows"])])
    return e_drop, e_thr


# ---------------------------------------------------------------------------- weights
@functools.lru_cache(maxsize=16)
def _programmer(items: tuple, phys_items: tuple, iterations: int):
    """Jitted pieces of ``prototype_program`` for one layout and physics (compiled once, cached).

    raw(v) (d,) = η_d|D|² − η_t|T|² on the channel plan for one row's voltages v: the weights
    the detectors see (η_d, η_t the readout paths' power transmissions; the common factor of
    coupler, tree and feed left out).
    """
    p, phys = dict(items), dict(phys_items)
    ch = channel_plan_um(p["d"], p["spacing_nm"], p["center_nm"])
    radii = _radii(p)
    ring = dict(gap=p["gap"], width=RIDGE_WIDTH, **({} if p["gap_drop"] is None else {"gap_drop": p["gap_drop"]}),
                **phys)
    wg = accepted_settings(readout_paths, phys)  # the waveguides' physics (no plates)
    readout_paths(1.55, radii, p["ring_spacing"], p["gap"], p["gap_drop"], RIDGE_WIDTH, p["pad_size"],
                  p["bend_radius"], **wg)  # validation, eagerly

    @jax.jit
    def columns():  # one compilation instead of many eager dispatches
        t_thr, t_drop = readout_paths(ch, radii, p["ring_spacing"], p["gap"], p["gap_drop"], RIDGE_WIDTH,
                                      p["pad_size"], p["bend_radius"], **wg)
        r = jnp.asarray(radii)
        return (ring_columns(ch, r, **ring), spacer_transmissions(ch, p["ring_spacing"], ring, r),
                jnp.abs(t_drop) ** 2, jnp.abs(t_thr) ** 2)

    data = weight_data(*columns())
    return data, weight_solver(data, iterations)


def prototype_program(weights, *, gain: float | None = None, iterations: int = 30,
                      loss_db_per_cm=LOSS_DB_PER_CM, tol: float | None = PROGRAM_TOL, **layout):
    """Ring voltages (n_rows, d) that make every row's detected weights equal gain·weights.

    Levenberg–Marquardt on the detected weights η_d|D|² − η_t|T|² of the full row model (all
    rings, all resonance orders, the drop path's extra loss), from the single-ring Lorentzian
    inverse, searching the rings' detuning directions where that stalls
    (``weight_programming.weight_solver``). gain defaults to the largest common
    scale every ring reaches within the electrode voltage limit: min over rings of (raw at 0 V,
    −raw at V_max) (``weight_programming.reachable_gain``). A row left further than ``tol``·gain from
    its weights is a ValueError naming it (``tol`` None: return the closest voltages).

    Returns:
        (voltages, gain, residual): the largest |raw − gain·w| left in ``residual``.
    """
    p = prototype_params(**layout)
    w = jnp.asarray(weights, dtype=float)
    if w.shape != (p["n_rows"], p["d"]):
        raise ValueError(f"weights has shape {w.shape}; expected (n_rows, d) = ({p['n_rows']}, {p['d']})")
    check_range("weights", w, -1.0, 1.0)
    # the rings simulate on the layout's stack and plates
    phys = {"loss_db_per_cm": loss_db_per_cm, **plan_stack(p), "electrode_height": p["electrode_height"]}
    data, solve = _programmer(tuple(sorted(p.items())), tuple(sorted(phys.items())), iterations)
    g = reachable_gain(data) if gain is None else gain
    volts, errors = solve(w, g, PROGRAM_TOL if tol is None else tol)
    return volts, g, check_programmed(errors, g, tol, prototype_channels_um(**layout))


def _register():
    from prismpic.circuits.registry import Circuit

    return {"prototype_8x8": Circuit("prototype_8x8", prototype, None, prototype_fields)}


CIRCUITS = _register()
