"""Photonic tensor unit (PTU) layout: a GSST phase-change crossbar with per-crossing detection.

Topology (chosen for being realisable with power-summing, phase-free readout):

Row r carries the input x_rλ on every wavelength λ. After the row's SOA (the amplifier
"between cores", S2-09), a ladder of directional couplers taps the row: coupler c sends
the power fraction κ_c into a short branch that passes the GSST cell (r, c) and ends on
its own photodiode. The photodiodes of column c share one signal wire, so their
photocurrents add (Kirchhoff) before one TIA and ADC:

    I_c = R Σ_r Σ_λ P_rcλ,   P_rcλ = x_rλ · G_r(λ) · T_reach,c(λ) · κ_c(λ) · T_pcm(f_rc, λ).

Why not combine the rows optically onto a column waveguide and use one detector? Rows
carry the same wavelengths, so on a shared waveguide their fields interfere: the
detected power is |Σ_r a_r e^{iφ_r}|², not Σ_r |a_r|², and the phases φ_r drift with
temperature over millimetres of routing. Feldmann et al., Nature 589, 52 (2021) avoid
this by giving every row its own comb line; with 64 wavelengths on each of 128 rows that
would need 8,192 lines. A passive N:1 combiner of mutually incoherent inputs also
loses on average 1 − 1/N of the power (the combining loss, 21 dB at N = 128) and needs
N − 1 waveguide crossings per column. Per-crossing detection sums powers exactly and
needs no crossing; it costs rows × cols photodiodes per core and the capacitance of
``rows`` diodes on each column wire (e.g. 128 × ~5 fF ≈ 0.6 pF, an RC limit near 5 GHz
with 50 Ω: a design constraint for the TIA, not modelled here).

The tap design (``tap_fractions``, ``coupler_lengths``) and the geometry checks are here with the
layout; the optics of every crossing, the readouts and the weight maps are in ``ptu_model``,
whose ``ptu_fast`` (the fast model of this cell, registered there) takes its geometry defaults from ``ptu``.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from prismpic.checks import check_layout_length, check_range, gds_limit_um
from prismpic.components import pcm as pcm_mod
from prismpic.components.couplers import directional_coupler, length_for_coupling
from prismpic.components.detectors import photodetector_core
from prismpic.components.gain import soa
from prismpic.components.model_signature import CELL, cell_defaults, model_of
from prismpic.components.waveguides import straight
from prismpic.lazy_imports import gf, gf_cell
from prismpic.pdk import layers
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.rules import RULES

DESIGN_WL = 1.55  # µm, wavelength at which tap ratios and weights are set
MAX_SIZE = 1024  # rows, cols
BRANCH_CLEARANCE = 10.0  # µm between a branch's end and the next coupler
PCM_MARGIN = cell_defaults(pcm_mod.pcm_cell)["margin"]  # µm of bare ridge each side of the GSST patch


def check_count(name: str, value, hi: int = MAX_SIZE) -> int:
    """``value`` as an int; ValueError unless it is an integer in [1, ``hi``] (rows, columns, channels …)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= hi:
        raise ValueError(f"{name} = {value!r} is outside the valid range [1, {hi}] (an integer)")
    return int(value)


# ---------------------------------------------------------------------------- layout
def _detector_cell(ge_length: float, cross_section: str):
    """The crossing's photodiode: ``detectors.photodetector_core`` (contact strips, no pads: the column wire lands on them)."""
    return photodetector_core(ge_length=ge_length, cross_section=cross_section)


def _detector_length(with_detectors: bool, ge_length: float, cross_section: str) -> float:
    if not with_detectors:
        return 0.0
    d = _detector_cell(ge_length, cross_section)
    return float(d.dxmax - d.ports["o1"].dcenter[0])


@platform_cell
@gf_cell
def ptu(
    rows: int = 128,
    cols: int = 128,
    n_wavelengths: int = 64,
    row_pitch: float = 60.0,
    col_pitch: float = 300.0,
    through_fraction: float = 0.0,
    gap: float = 0.3,
    dy: float = 30.0,
    bend_length: float = 40.0,
    pcm_length: float = 30.0,
    pcm_width: float = 1.0,
    pcm_thickness: float = pcm_mod.PCM_THICKNESS,
    with_soa: bool = True,
    soa_gain_length: float = 1000.0,
    with_detectors: bool = True,
    ge_length: float = 12.0,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """PTU core: rows × cols GSST crossbar tapped from row waveguides, one photodiode per crossing.

    Each row: SOA, then per column a directional coupler (tap ratio from ``tap_fractions``)
    whose cross port feeds a ``pcm_cell`` and a photodiode; the row continues through
    the coupler's bar port and a fill straight to the next column. Instance names:
    ``amp_r{r}``, ``dc_r{r}_c{c}``, ``pcm_r{r}_c{c}``, ``pd_r{r}_c{c}``, ``fill_r{r}_c{c}``.
    Column wires and heater address lines (a second metal level) are not drawn.

    Args:
        rows: number of rows (inputs), 1 … 1024.
        cols: number of columns (outputs), 1 … 1024.
        n_wavelengths: WDM channels per row (recorded in ``info``; the broadband layout
            does not depend on it).
        row_pitch: row spacing (µm).
        col_pitch: column spacing along the row (µm); ≥ one crossing's length.
        through_fraction: power fraction passed to the next core (east ports), in [0, 1).
        gap: tap coupler gap (µm).
        dy: tap coupler port spacing = branch offset above its row (µm).
        bend_length: tap coupler S-bend length (µm).
        pcm_length: GSST patch length (µm).
        pcm_width: GSST patch width (µm).
        pcm_thickness: GSST thickness (µm; layer stack, used by the model).
        with_soa: an SOA at each row's input.
        soa_gain_length: SOA gain-section length (µm).
        with_detectors: end each branch on a photodiode; False exports the branch ends as
            ports ``t{r}_{c}`` (the optical part alone, for netlist simulation).
        ge_length: photodiode absorber length (µm); sets the responsivity.
        cross_section: optical cross-section name.

    Ports: o1 … o{rows} row inputs (west, bottom to top), o{rows+1} … o{2·rows} row
    outputs to the next core (east, top to bottom).

    .. code::

             ┌SOA┐  dc   pcm  pd     dc   pcm  pd
        o2 ──┤   ├──╮═══▓▓▓══[▣]  ───╮═══▓▓▓══[▣]  ──── o3
                    ╰───────────────╯╰───────────────
        o1 ──┤   ├──╮═══▓▓▓══[▣]  ───╮═══▓▓▓══[▣]  ──── o4
                    ╰───────────────╯╰───────────────
                     column 0          column 1
    """
    det_len = _detector_length(with_detectors, ge_length, cross_section)
    lengths, fills = check_geometry(rows, cols, n_wavelengths, row_pitch, col_pitch, through_fraction, gap, dy,
                                     bend_length, pcm_length, with_soa, soa_gain_length, cross_section, det_len)
    couplers = [directional_coupler(gap=gap, length=L, dy=dy, bend_length=bend_length, cross_section=cross_section)
                for L in lengths]
    fill_cells = [straight(length=f, cross_section=cross_section) for f in fills]
    cell = pcm_mod.pcm_cell(length=pcm_length, pcm_width=pcm_width, pcm_thickness=pcm_thickness, margin=PCM_MARGIN,
                            cross_section=cross_section)
    amp = soa(gain_length=soa_gain_length, cross_section=cross_section) if with_soa else None
    det = _detector_cell(ge_length, cross_section) if with_detectors else None
    _check_row_pitch(row_pitch, dy, couplers[0], cell, amp, det)

    xs_width = ridge_width(cross_section)
    c = gf.Component()
    east = []
    for r in range(rows):
        y = r * row_pitch
        if amp is not None:
            a = c.add_ref(amp, name=f"amp_r{r}")
            a.dmove((0.0, y))
            c.add_port(f"o{r + 1}", port=a.ports["o1"])
            end = a.ports["o2"]
        else:
            end = None
        for col in range(cols):
            dc = c.add_ref(couplers[col], name=f"dc_r{r}_c{col}")
            if end is None:
                dc.dmove((-dc.ports["o1"].dcenter[0], y - dc.ports["o1"].dcenter[1]))
                c.add_port(f"o{r + 1}", port=dc.ports["o1"])
            else:
                dc.connect("o1", end)
            _cap(c, dc.ports["o2"], xs_width)
            p = c.add_ref(cell, name=f"pcm_r{r}_c{col}")
            p.connect("o1", dc.ports["o3"])
            if det is not None:
                d = c.add_ref(det, name=f"pd_r{r}_c{col}")
                d.connect("o1", p.ports["o2"])
            else:
                c.add_port(f"t{r}_{col}", port=p.ports["o2"])
            end = dc.ports["o4"]
            if col < cols - 1:
                f = c.add_ref(fill_cells[col], name=f"fill_r{r}_c{col}")
                f.connect("o1", end)
                end = f.ports["o2"]
        east.append(end)
    for i, port in enumerate(reversed(east)):
        c.add_port(f"o{rows + 1 + i}", port=port)
    c.info["rows"] = rows
    c.info["cols"] = cols
    c.info["n_wavelengths"] = n_wavelengths
    c.info["photodiodes"] = rows * cols if with_detectors else 0
    c.info["width_um"] = float(c.dxsize)
    c.info["height_um"] = float(c.dysize)
    return c


# ---------------------------------------------------------------------------- tap design and geometry
@model_of(ptu)
def tap_fractions(cols: int = CELL, through_fraction: float = CELL) -> np.ndarray:
    """Design power tap ratios κ_c (c = 0 … cols−1) giving every column (1 − f_t)/cols of the row.

    κ_c = (1 − f_t)/(cols − c·(1 − f_t)): the power left before column c is 1 − c(1 − f_t)/cols.
    Defaults: the ``ptu`` cell's.
    """
    cols = check_count("cols", cols)
    check_range("through_fraction", through_fraction, 0.0, 1.0, hi_open=True)
    c = np.arange(cols)
    share = 1.0 - through_fraction
    return share / (cols - c * share)


@model_of(ptu)
@cache
def coupler_lengths(cols: int = CELL, through_fraction: float = CELL, gap: float = CELL, dy: float = CELL,
                    bend_length: float = CELL, cross_section: str = CELL,
                    design_wl: float = DESIGN_WL) -> tuple[float, ...]:
    """Straight coupling length (µm, rounded to the 1 nm grid) of each column's tap coupler for ``tap_fractions``.

    Geometry defaults: the ``ptu`` cell's.
    """
    return tuple(
        round(length_for_coupling(float(k), wl=design_wl, gap=gap, dy=dy, bend_length=bend_length,
                                  cross_section=cross_section), 3)
        for k in tap_fractions(cols, through_fraction)
    )


def _pcm_total(pcm_length: float) -> float:
    return pcm_length + 2 * PCM_MARGIN


def check_geometry(rows, cols, n_wavelengths, row_pitch, col_pitch, through_fraction, gap, dy, bend_length,
                    pcm_length, with_soa, soa_gain_length, cross_section, detector_length=0.0):
    """Validate the tile's parameters (as ``ptu``, µm); returns the coupler lengths and the row fill straights (µm)."""
    check_count("rows", rows)
    check_count("cols", cols)
    check_count("n_wavelengths", n_wavelengths, 4096)
    check_range("pcm_length", pcm_length, 1.0, 1000.0, unit="µm")
    lengths = coupler_lengths(cols, float(through_fraction), gap, dy, bend_length, cross_section)
    crossing = 2 * bend_length + max(lengths) + _pcm_total(pcm_length) + detector_length + BRANCH_CLEARANCE
    # the tile spans cols·col_pitch by rows·row_pitch: inside the layout coordinate range
    check_layout_length("col_pitch", col_pitch, lo=crossing, hi=gds_limit_um() / cols)
    fills = tuple(round(col_pitch - (2 * bend_length + L), 3) for L in lengths[:-1])
    check_layout_length("row_pitch", row_pitch, hi=gds_limit_um() / rows)
    if with_soa:
        check_range("soa_gain_length", soa_gain_length, 1.0, 2000.0, unit="µm")
    return lengths, fills


def ptu_netlist(tile: gf.Component) -> dict:
    """The tile's extracted netlist, ready for ``sax.circuit`` (build the tile with ``with_detectors=False``).

    Instance ``info`` is dropped: SAX 0.18 merges it over ``settings``, and ``pcm_cell``'s
    info["length"] (patch + margins) would replace the patch length. Set each cell's state
    per instance at call time, e.g. ``circuit(wl=wl, pcm_r0_c1={"crystalline_fraction": 0.3},
    amp_r0={"gain_db": 12.0})``.
    """
    net = tile.get_netlist(on_dangling_port="ignore")
    net["instances"] = {k: {kk: vv for kk, vv in v.items() if kk != "info"} for k, v in net["instances"].items()}
    return net


def _cap(c: gf.Component, port, width: float, beyond: float = 3.0) -> None:
    """Slab around the open end of an unused coupler input: the ridge ends inside the slab (DRC enclosure)."""
    x, y = port.dcenter
    sign = -1.0 if port.orientation == 180 else 1.0
    h = width / 2 + beyond
    c.add_polygon([(x, y - h), (x + sign * beyond, y - h), (x + sign * beyond, y + h), (x, y + h)], layer=layers.LAYER.LN_SLAB)


def _check_row_pitch(row_pitch, dy, coupler, cell, amp, det):
    """ValueError unless a row's devices (row, branch at +dy, SOA) clear the next row by the metal space."""
    ref = coupler.ports["o1"].dcenter[1]  # heights relative to the row's axis
    top = max(coupler.dymax - ref, dy + cell.dymax, amp.dymax if amp else -math.inf, dy + det.dymax if det else -math.inf)
    bottom = min(coupler.dymin - ref, dy + cell.dymin, amp.dymin if amp else math.inf, dy + det.dymin if det else math.inf)
    need = top - bottom + RULES.min_metal_space
    check_range("row_pitch", row_pitch, need, math.inf, unit="µm")
