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

The tap ratios, the optics of every crossing, the readouts and the weight maps are in
``ptu_model`` (whose ``ptu_fast`` is the registered fast model of this cell).
"""

from __future__ import annotations

import math

import gdsfactory as gf

from prismpic.checks import check_range
from prismpic.circuits.ptu_model import PCM_MARGIN, check_geometry, ptu_fast
from prismpic.components import pcm as pcm_mod
from prismpic.components.couplers import directional_coupler
from prismpic.components.detectors import photodetector_core
from prismpic.components.gain import soa
from prismpic.components.waveguides import straight
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES


# ---------------------------------------------------------------------------- layout
def _detector_cell(ge_length: float, cross_section: str):
    """The crossing's photodiode: ``detectors.photodetector_core`` (contact strips, no pads: the column wire lands on them)."""
    return photodetector_core(ge_length=ge_length, cross_section=cross_section)


def _detector_length(with_detectors: bool, ge_length: float, cross_section: str) -> float:
    if not with_detectors:
        return 0.0
    d = _detector_cell(ge_length, cross_section)
    return float(d.dxmax - d.ports["o1"].dcenter[0])


@gf.cell
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
    c.add_polygon([(x, y - h), (x + sign * beyond, y - h), (x + sign * beyond, y + h), (x, y + h)], layer=LAYER.LN_SLAB)


def _check_row_pitch(row_pitch, dy, coupler, cell, amp, det):
    """ValueError unless a row's devices (row, branch at +dy, SOA) clear the next row by the metal space."""
    ref = coupler.ports["o1"].dcenter[1]  # heights relative to the row's axis
    top = max(coupler.dymax - ref, dy + cell.dymax, amp.dymax if amp else -math.inf, dy + det.dymax if det else -math.inf)
    bottom = min(coupler.dymin - ref, dy + cell.dymin, amp.dymin if amp else math.inf, dy + det.dymin if det else math.inf)
    need = top - bottom + RULES.min_metal_space
    check_range("row_pitch", row_pitch, need, math.inf, unit="µm")


def _register():
    from prismpic.circuits.registry import Circuit

    return {"ptu": Circuit("ptu", ptu, None, ptu_fast)}


CIRCUITS = _register()
