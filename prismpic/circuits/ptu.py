"""Photonic tensor unit (PTU): a GSST phase-change crossbar with per-crossing detection.

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

The tap ratios share each row's light equally between the columns and pass a fraction
``through_fraction`` on to the next core (lossless design, at ``design_wl``):
κ_c = (1 − f_t)/(cols − c·(1 − f_t)) (so κ = 1/(cols − c) for f_t = 0). The intrinsic
1/cols split (21 dB at cols = 128) is the broadcast cost of a crossbar; the couplers'
dispersion makes κ_c wavelength dependent (the "channel gains").

Readouts (``prismpic.analysis.accelerator`` counts them per card):

- ``broadband``: one summing node per column: y_c = Σ_r W_rc Σ_λ x_rλ·g_rcλ, i.e. rows ×
  cols useful MACs on wavelength-summed inputs (GSST absorption is broadband).
- ``per_wavelength``: every crossing's branch goes through a wavelength demultiplexer
  (insertion loss ``demux_loss_db``) onto one photodiode per wavelength; the λ-th diodes
  of a column share a wire: Y = Wᵀ X (cols × λ), rows × cols × λ MACs, at the cost of
  rows × cols demultiplexers and rows × cols × λ photodiodes per core. (Summing rows at a
  fixed wavelength needs the sum to be a power sum, so the demux cannot come after an
  optical row combiner; see above.) The layout draws the broadband variant.

Weights: W ∈ [0, 1] maps linearly onto the cell's power transmission between the
crystalline (W = 0) and amorphous (W = 1) states at ``design_wl``. Signed weights use a
differential pair of columns (2j: positive part, 2j+1: negative part), read as
I_2j − I_2j+1; the crystalline floor T(f = 1), common to both, cancels.
"""

from __future__ import annotations

import math
from functools import cache

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice, check_range
from prismpic.components import pcm as pcm_mod
from prismpic.components.couplers import directional_coupler, directional_coupler_model, length_for_coupling
from prismpic.components.gain import (
    P_SAT_OUT_DBM,
    saturated_gain_db,
    saturation_power_dbm,
    small_signal_gain_db,
    soa,
    soa_model,
)
from prismpic.components.waveguides import straight, straight_model
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM

READOUTS = ("broadband", "per_wavelength")
DESIGN_WL = 1.55  # µm, wavelength at which tap ratios and weights are set
MAX_SIZE = 1024  # rows, cols
BRANCH_CLEARANCE = 10.0  # µm between a branch's end and the next coupler
PCM_MARGIN = 5.0  # µm of bare ridge each side of the GSST patch (pcm_cell's margin)


# ---------------------------------------------------------------------------- validation and geometry
def _check_count(name: str, value, hi: int = MAX_SIZE) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= hi:
        raise ValueError(f"{name} = {value!r} is outside the valid range [1, {hi}] (an integer)")
    return int(value)


def tap_fractions(cols: int, through_fraction: float = 0.0) -> np.ndarray:
    """Design power tap ratios κ_c (c = 0 … cols−1) giving every column (1 − f_t)/cols of the row.

    κ_c = (1 − f_t)/(cols − c·(1 − f_t)): the power left before column c is 1 − c(1 − f_t)/cols.
    """
    cols = _check_count("cols", cols)
    check_range("through_fraction", through_fraction, 0.0, 1.0, hi_open=True)
    c = np.arange(cols)
    share = 1.0 - through_fraction
    return share / (cols - c * share)


@cache
def coupler_lengths(cols: int, through_fraction: float = 0.0, gap: float = 0.3, dy: float = 30.0,
                    bend_length: float = 40.0, cross_section: str = "xs_ridge",
                    design_wl: float = DESIGN_WL) -> tuple[float, ...]:
    """Straight coupling length (µm, rounded to the 1 nm grid) of each column's tap coupler for ``tap_fractions``."""
    return tuple(
        round(length_for_coupling(float(k), wl=design_wl, gap=gap, dy=dy, bend_length=bend_length,
                                  cross_section=cross_section), 3)
        for k in tap_fractions(cols, through_fraction)
    )


def _pcm_total(pcm_length: float) -> float:
    return pcm_length + 2 * PCM_MARGIN


def _check_geometry(rows, cols, n_wavelengths, row_pitch, col_pitch, through_fraction, gap, dy, bend_length,
                    pcm_length, with_soa, soa_gain_length, cross_section, detector_length=0.0):
    """Validate the tile's parameters; returns the coupler lengths and the row fill straights (µm)."""
    _check_count("rows", rows)
    _check_count("cols", cols)
    _check_count("n_wavelengths", n_wavelengths, 4096)
    check_range("pcm_length", pcm_length, 1.0, 1000.0, unit="µm")
    lengths = coupler_lengths(cols, float(through_fraction), gap, dy, bend_length, cross_section)
    crossing = 2 * bend_length + max(lengths) + _pcm_total(pcm_length) + detector_length + BRANCH_CLEARANCE
    check_range("col_pitch", col_pitch, crossing, math.inf, unit="µm")
    fills = tuple(round(col_pitch - (2 * bend_length + L), 3) for L in lengths[:-1])
    check_range("row_pitch", row_pitch, 0.0, math.inf, unit="µm", lo_open=True)
    if with_soa:
        check_range("soa_gain_length", soa_gain_length, 1.0, 2000.0, unit="µm")
    return lengths, fills


# ---------------------------------------------------------------------------- layout
def _detector_cell(ge_length: float, cross_section: str):
    """The crossing's photodiode: ``detectors.photodetector_core`` (contact strips, no pads: the column wire lands on them)."""
    from prismpic.components.detectors import photodetector_core

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
    lengths, fills = _check_geometry(rows, cols, n_wavelengths, row_pitch, col_pitch, through_fraction, gap, dy,
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


# ---------------------------------------------------------------------------- optics
CHEB_NODES = 24  # Chebyshev nodes in f: interpolation error of Δn_eff < 1e-15 (checked against pcm_delta_neff)


def _chebyshev(n: int = CHEB_NODES):
    """Chebyshev points of the second kind on [0, 1] and their barycentric weights."""
    k = np.arange(n)
    w = (-1.0) ** k
    w[0] *= 0.5
    w[-1] *= 0.5
    return jnp.asarray((1.0 - np.cos(np.pi * k / (n - 1))) / 2.0), jnp.asarray(w)


def _barycentric(f, nodes, weights, values):
    """Interpolant of ``values`` (K, λ) given at ``nodes`` (K,), evaluated at f (…): shape (…, λ)."""
    d = f[..., None] - nodes
    hit = d == 0.0
    q = weights / jnp.where(hit, 1.0, d)
    interp = jnp.einsum("...k,kl->...l", q, values) / jnp.sum(q, axis=-1)[..., None]
    exact = jnp.einsum("...k,kl->...l", hit.astype(values.dtype), values)
    return jnp.where(jnp.any(hit, axis=-1)[..., None], exact, interp)


def _pcm_table(wl, pcm_length, pcm_width, pcm_thickness, width, film_thickness, etch_depth, loss_db_per_cm):
    """Per-wavelength pieces of |t|²: Im Δn_eff at the Chebyshev nodes (K, λ), the bare-ridge loss and 4π L/λ."""
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    nodes, weights = _chebyshev()
    dn = pcm_mod.pcm_delta_neff(wl[None, :], nodes[:, None], pcm_width, pcm_thickness, width, film_thickness,
                                etch_depth)
    total = pcm_length + 2 * PCM_MARGIN
    bare = 10.0 ** (-loss_db_per_cm * total * 1e-4 / 10.0)
    return nodes, weights, jnp.imag(dn), bare, 4 * jnp.pi / wl * pcm_length


def _pcm_from_table(f, table):
    nodes, weights, im_dn, bare, k = table
    return bare * jnp.exp(-k * _barycentric(jnp.asarray(f, dtype=float), nodes, weights, im_dn))


def pcm_power_transmission(wl=DESIGN_WL, crystalline_fraction=0.0, pcm_length=30.0, pcm_width=1.0,
                           pcm_thickness=pcm_mod.PCM_THICKNESS, width=1.4, film_thickness=FILM_THICKNESS,
                           etch_depth=ETCH_DEPTH, loss_db_per_cm=LOSS_DB_PER_CM):
    """|t|² of ``pcm_cell`` for fractions f (…) at wavelengths wl (λ,): shape (…, λ).

    The physics of ``pcm.pcm_transmission``, |t|² = 10^(−α(L+2m)/10) exp(−2 k0 Im Δn_eff(f, λ) L),
    with Δn_eff from ``pcm.pcm_delta_neff`` evaluated at ``CHEB_NODES`` Chebyshev points in f per
    wavelength and interpolated (barycentric formula; Δn_eff is analytic in f): a crossbar of
    rows × cols × λ cells then costs K × λ mode solves instead of one per cell.
    """
    check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    table = _pcm_table(wl, pcm_length, pcm_width, pcm_thickness, width, film_thickness, etch_depth, loss_db_per_cm)
    return _pcm_from_table(crystalline_fraction, table)


def tap_transmissions(wl=DESIGN_WL, cols=128, through_fraction=0.0, col_pitch=300.0, gap=0.3, dy=30.0,
                      bend_length=40.0, cross_section="xs_ridge", loss_db_per_cm=LOSS_DB_PER_CM):
    """Power from a row's tap ladder input to each branch (cols, λ) and to the east port (λ,).

    From the device models of the drawn couplers and fill straights:
    T_c = Π_{c'<c} |bar_c'|² |fill_c'|² · |cross_c|².
    """
    lengths, fills = _check_geometry(1, cols, 1, 1.0, col_pitch, through_fraction, gap, dy, bend_length, 1.0, False,
                                     1.0, cross_section)
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    s = directional_coupler_model(wl, gap=gap, length=jnp.asarray(lengths)[:, None], dy=dy, bend_length=bend_length,
                                  cross_section=cross_section, loss_db_per_cm=loss_db_per_cm)
    bar, cross = jnp.abs(s[("o1", "o4")]) ** 2, jnp.abs(s[("o1", "o3")]) ** 2
    if fills:
        fill = jnp.abs(straight_model(wl, length=jnp.asarray(fills)[:, None], cross_section=cross_section,
                                      loss_db_per_cm=loss_db_per_cm)[("o1", "o2")]) ** 2
        hop = bar[:-1] * fill
    else:
        hop = jnp.ones((0, wl.size))
    reach = jnp.concatenate([jnp.ones((1, wl.size)), jnp.cumprod(hop, axis=0)], axis=0)
    return reach * cross, reach[-1] * bar[-1]


def soa_power_gain(wl=DESIGN_WL, soa_gain_db=None, soa_gain_length=1000.0, cross_section="xs_ridge"):
    """|S21|² of the row SOAs (rows or 1, λ) at operating gain(s) ``soa_gain_db`` (peak, dB; None: small-signal)."""
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    g = small_signal_gain_db(soa_gain_length) if soa_gain_db is None else soa_gain_db
    g = jnp.atleast_1d(jnp.asarray(g, dtype=float))[:, None]
    return jnp.abs(soa_model(wl, gain_length=soa_gain_length, cross_section=cross_section, gain_db=g)[("o1", "o2")]) ** 2


def _check_arrays(x_w, crystalline_fraction, wl):
    x = jnp.asarray(x_w, dtype=float)
    f = jnp.asarray(crystalline_fraction, dtype=float)
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    if f.ndim != 2:
        raise ValueError(f"crystalline_fraction has shape {f.shape}; expected (rows, cols)")
    if x.ndim != 2 or x.shape != (f.shape[0], wl.size):
        raise ValueError(
            f"x_w has shape {x.shape}; expected (rows, n_wavelengths) = ({f.shape[0]}, {wl.size}) "
            "from crystalline_fraction (rows, cols) and wl (n_wavelengths,)"
        )
    _check_count("rows", f.shape[0])
    _check_count("cols", f.shape[1])
    check_range("crystalline_fraction", f, 0.0, 1.0)
    check_range("x_w", x, 0.0, math.inf, unit="W")
    return x, f, wl


def ptu_optical_powers(
    x_w,
    crystalline_fraction,
    wl=DESIGN_WL,
    *,
    soa_gain_db=None,
    with_soa: bool = True,
    col_pitch: float = 300.0,
    through_fraction: float = 0.0,
    gap: float = 0.3,
    dy: float = 30.0,
    bend_length: float = 40.0,
    pcm_length: float = 30.0,
    pcm_width: float = 1.0,
    pcm_thickness: float = pcm_mod.PCM_THICKNESS,
    soa_gain_length: float = 1000.0,
    cross_section: str = "xs_ridge",
    loss_db_per_cm=LOSS_DB_PER_CM,
):
    """Optical powers (W) at every crossing's photodiode (rows, cols, λ) and at the east ports (rows, λ).

    P_rcλ = x_rλ · G_r(λ) · T_c(λ) · T_pcm(f_rc, λ): row SOA (``soa_power_gain``), tap ladder
    (``tap_transmissions``), GSST cell (``pcm_power_transmission``). Jittable and vmappable in
    ``x_w``, ``crystalline_fraction``, ``wl`` and ``soa_gain_db``.

    Args:
        x_w: input power per row and wavelength (rows, λ), W, at the row inputs (before the SOA).
        crystalline_fraction: f_rc ∈ [0, 1] of each cell (rows, cols).
        wl: wavelengths (λ,), µm.
        soa_gain_db: SOA operating peak gain, scalar or per row (rows,), dB; None: each row's SOA
            saturated by the row's total input power (``row_soa_gain_db``), which makes the
            output nonlinear in ``x_w`` (give a gain for a linear crossbar).
        with_soa … cross_section: the cell's geometry (as ``ptu``).
        loss_db_per_cm: ridge propagation loss (dB/cm).
    """
    x, f, wl = _check_arrays(x_w, crystalline_fraction, wl)
    width = ridge_width(cross_section)
    tap, east = tap_transmissions(wl, f.shape[1], through_fraction, col_pitch, gap, dy, bend_length, cross_section,
                                  loss_db_per_cm)
    t_pcm = pcm_power_transmission(wl, f, pcm_length, pcm_width, pcm_thickness, width, loss_db_per_cm=loss_db_per_cm)
    if with_soa and soa_gain_db is None:
        soa_gain_db = row_soa_gain_db(x, soa_gain_length)
    xg = x * soa_power_gain(wl, soa_gain_db, soa_gain_length, cross_section) if with_soa else x
    return jnp.einsum("rl,cl,rcl->rcl", xg, tap, t_pcm), xg * east[None, :]


def ptu_fast(
    x_w,
    crystalline_fraction,
    wl=DESIGN_WL,
    *,
    readout: str = "broadband",
    responsivity_a_per_w=None,
    ge_length: float = 12.0,
    demux_loss_db: float = 0.0,
    **geometry,
):
    """Column photocurrents (A) of a PTU core: (cols,) for ``broadband``, (cols, λ) for ``per_wavelength``.

    I_c = Σ_λ R(λ) Σ_r P_rcλ (broadband) or I_cλ = R(λ)·10^(−demux_loss_db/10) Σ_r P_rcλ, with P
    from ``ptu_optical_powers`` (``geometry``: its keyword arguments). One einsum over the crossbar.

    Args:
        x_w: input powers (rows, λ), W.
        crystalline_fraction: (rows, cols), in [0, 1].
        wl: wavelengths (λ,), µm.
        readout: "broadband" or "per_wavelength".
        responsivity_a_per_w: photodiode responsivity (A/W), scalar or (λ,); None: the Ge
            absorber's ``detectors.responsivity_a_per_w(wl, ge_length)``.
        ge_length: photodiode absorber length (µm), as the cell.
        demux_loss_db: insertion loss of each crossing's demultiplexer (per_wavelength), dB.
    """
    check_choice("readout", readout, READOUTS)
    check_range("demux_loss_db", demux_loss_db, 0.0, 30.0, unit="dB")
    p, _ = ptu_optical_powers(x_w, crystalline_fraction, wl, **geometry)
    resp = photodiode_responsivity(wl, ge_length) if responsivity_a_per_w is None else responsivity_a_per_w
    check_range("responsivity_a_per_w", resp, 0.0, 10.0, unit="A/W", lo_open=True)
    resp = jnp.broadcast_to(jnp.asarray(resp, dtype=float), (p.shape[-1],))
    if readout == "broadband":
        return jnp.einsum("rcl,l->c", p, resp)
    return 10.0 ** (-demux_loss_db / 10.0) * jnp.einsum("rcl,l->cl", p, resp)


def photodiode_responsivity(wl=DESIGN_WL, ge_length: float = 12.0):
    """Responsivity (A/W, (λ,)) of the crossing photodiode: ``detectors.responsivity_a_per_w``."""
    from prismpic.components.detectors import responsivity_a_per_w

    return responsivity_a_per_w(jnp.atleast_1d(jnp.asarray(wl, dtype=float)), ge_length)


def row_soa_gain_db(x_w, soa_gain_length: float = 1000.0, p_sat_out_dbm: float = P_SAT_OUT_DBM):
    """Saturated peak gain (dB) of each row's SOA for its total input power Σ_λ x_rλ (rows,).

    ``gain.saturated_gain_db`` with G0 from the gain length and P_sat from the −3 dB output
    saturation power (homogeneous saturation by the total power over all channels).
    """
    x = jnp.asarray(x_w, dtype=float)
    check_range("x_w", x, 0.0, math.inf, unit="W")
    g0 = small_signal_gain_db(soa_gain_length)
    p_dbm = 10.0 * jnp.log10(jnp.maximum(jnp.sum(x, axis=-1), 1e-30) / 1e-3)
    return saturated_gain_db(p_dbm, g0, saturation_power_dbm(p_sat_out_dbm, g0))


# ---------------------------------------------------------------------------- weights
def _weight_map(wl, pcm_length, pcm_width, pcm_thickness, cross_section, loss_db_per_cm):
    """f ↦ W = (T(f) − T(1))/(T(0) − T(1)) at one wavelength, from one Chebyshev table."""
    check_range("wl", wl, 1.2, 1.8, unit="µm")
    table = _pcm_table(jnp.asarray(wl, dtype=float).reshape(1), pcm_length, pcm_width, pcm_thickness,
                       ridge_width(cross_section), FILM_THICKNESS, ETCH_DEPTH, loss_db_per_cm)
    t0, t1 = (_pcm_from_table(jnp.asarray(v), table)[0] for v in (0.0, 1.0))
    return lambda f: (_pcm_from_table(f, table)[..., 0] - t1) / (t0 - t1)


def fractions_to_weights(crystalline_fraction, wl=DESIGN_WL, *, pcm_length=30.0, pcm_width=1.0,
                         pcm_thickness=pcm_mod.PCM_THICKNESS, cross_section="xs_ridge", loss_db_per_cm=LOSS_DB_PER_CM):
    """Normalised weights W = (T(f) − T(1))/(T(0) − T(1)) at ``wl`` (scalar µm), T the cell's |t|²."""
    check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    return _weight_map(wl, pcm_length, pcm_width, pcm_thickness, cross_section, loss_db_per_cm)(crystalline_fraction)


def weights_to_fractions(weights, wl=DESIGN_WL, *, pcm_length=30.0, pcm_width=1.0, pcm_thickness=pcm_mod.PCM_THICKNESS,
                         cross_section="xs_ridge", loss_db_per_cm=LOSS_DB_PER_CM, n_iter: int = 60):
    """Crystalline fractions programming weights W ∈ [0, 1] (inverse of ``fractions_to_weights``).

    T(f) falls monotonically with f (GSST's extinction grows with crystallinity), so a
    bisection on f ∈ [0, 1] with ``n_iter`` halvings (60: below 1e-18) inverts it; jittable.
    """
    check_range("weights", weights, 0.0, 1.0)
    w = jnp.asarray(weights, dtype=float)
    to_w = _weight_map(wl, pcm_length, pcm_width, pcm_thickness, cross_section, loss_db_per_cm)

    def step(_, lohi):
        lo, hi = lohi
        mid = 0.5 * (lo + hi)
        above = to_w(mid) > w  # still too transparent: crystallise more
        return jnp.where(above, mid, lo), jnp.where(above, hi, mid)

    lo, hi = jax.lax.fori_loop(0, n_iter, step, (jnp.zeros_like(w), jnp.ones_like(w)))
    return 0.5 * (lo + hi)


def signed_weights_to_fractions(weights, wl=DESIGN_WL, **kwargs):
    """Fractions (rows, 2n) for signed weights (rows, n) in [−1, 1] on differential column pairs.

    Column 2j holds max(w, 0), column 2j+1 max(−w, 0); ``differential_readout`` subtracts them.
    """
    check_range("weights", weights, -1.0, 1.0)
    w = jnp.asarray(weights, dtype=float)
    pair = jnp.stack([jnp.maximum(w, 0.0), jnp.maximum(-w, 0.0)], axis=-1).reshape(w.shape[:-1] + (-1,))
    return weights_to_fractions(pair, wl, **kwargs)


def differential_readout(currents, readout: str = "broadband"):
    """I_2j − I_2j+1 over the column axis ((cols,) broadband, (cols, λ) per wavelength)."""
    check_choice("readout", readout, READOUTS)
    i = jnp.asarray(currents)
    axis = -1 if readout == "broadband" else -2
    if i.shape[axis] % 2:
        raise ValueError(f"currents has {i.shape[axis]} columns; a differential readout needs an even number")
    i = jnp.moveaxis(i, axis, 0)
    return jnp.moveaxis(i[0::2] - i[1::2], 0, axis)


# ---------------------------------------------------------------------------- counts and noise
def ptu_readout_counts(rows: int = 128, cols: int = 128, n_wavelengths: int = 64, readout: str = "broadband",
                       cores: int = 128) -> dict:
    """Photodiodes, demultiplexers and summing nodes (TIA + ADC) per core, and ADCs per card.

    Summing nodes and card ADCs are ``accelerator.ptu_budget``'s detectors and ADCs.
    """
    from prismpic.analysis.accelerator import PtuConfig, ptu_budget

    check_choice("readout", readout, READOUTS)
    for name, v in (("rows", rows), ("cols", cols), ("n_wavelengths", n_wavelengths), ("cores", cores)):
        _check_count(name, v, 10**6)
    b = ptu_budget(PtuConfig(rows=rows, cols=cols, n_wavelengths=n_wavelengths, cores=cores), readout=readout)
    per_wl = readout == "per_wavelength"
    return {
        "photodiodes_per_core": rows * cols * (n_wavelengths if per_wl else 1),
        "demultiplexers_per_core": rows * cols if per_wl else 0,
        "summing_nodes_per_core": b.detectors_per_core,
        "adcs_card": b.adcs_card,
        "macs_per_clock_core": b.macs_per_clock_core,
    }


def column_snr_db(
    x_w,
    crystalline_fraction,
    wl=DESIGN_WL,
    *,
    column: int = 0,
    soa_gain_db=None,
    nf_db: float | None = None,
    upstream_loss_db: float = 0.0,
    soa_bandwidth_nm: float | None = None,
    photodiode=None,
    receiver=None,
    **geometry,
) -> dict:
    """SNR (dB) of a broadband column summing node with the row SOAs on and with them replaced by a waveguide.

    The input ``x_w`` first loses ``upstream_loss_db`` (the previous cores). With SOAs, each
    row's gain is ``soa_gain_db`` or, when None, the saturated gain for the row's total
    input (``row_soa_gain_db``), and each SOA adds ASE n_sp·hν·(G − 1) per polarization over
    its gain bandwidth (broadband detectors see all of it) times the SOA-to-diode
    transmission; G, ν and that transmission are the row's input-power-weighted means over
    the wavelengths. Each row's diode contributes shot, dark and ASE-beat variances from
    ``analysis.noise.noise_budget`` (one diode each, variances add); the column's TIA or
    load noise is counted once.

    Args:
        x_w, crystalline_fraction, wl: as ``ptu_optical_powers``.
        column: the column read.
        soa_gain_db: SOA peak gain (dB, scalar or (rows,)); None: saturated by each row's input.
        nf_db: SOA noise figure (dB); None: ``gain.NOISE_FIGURE_DB``.
        upstream_loss_db: loss of the inputs before this core (dB).
        soa_bandwidth_nm: optical bandwidth of the ASE reaching a diode (nm); None: the SOA's
            gain FWHM (broadband diodes have no filter).
        photodiode: ``noise.Photodiode``; None: the Ge diode's responsivity (mean over ``wl``),
            ``noise.Photodiode``'s dark current.
        receiver: ``noise.Receiver`` of the column; None: 5 GHz, 50 Ω.
        **geometry: as ``ptu_optical_powers`` (and ``ge_length``).

    Returns:
        dict with ``snr_without_db``, ``snr_with_db``, ``gain_db`` (rows,), and the column
        currents (A) ``current_without_a``, ``current_with_a``.
    """
    import dataclasses

    from prismpic.analysis import noise
    from prismpic.components.gain import GAIN_FWHM_NM, NOISE_FIGURE_DB

    nf_db = NOISE_FIGURE_DB if nf_db is None else nf_db
    bw_nm = GAIN_FWHM_NM if soa_bandwidth_nm is None else soa_bandwidth_nm
    check_range("upstream_loss_db", upstream_loss_db, 0.0, 100.0, unit="dB")
    x = jnp.asarray(x_w, dtype=float) * 10.0 ** (-upstream_loss_db / 10.0)
    _, f, wl = _check_arrays(x, crystalline_fraction, wl)
    if photodiode is None:
        r = float(jnp.mean(photodiode_responsivity(wl, geometry.pop("ge_length", 12.0))))
        photodiode = noise.Photodiode(responsivity_a_per_w=r)
    geometry.pop("ge_length", None)
    receiver = noise.Receiver(bandwidth_hz=5e9) if receiver is None else receiver
    check_range("column", column, 0, f.shape[1] - 1)
    sl = geometry.get("soa_gain_length", 1000.0)
    gain = row_soa_gain_db(x, sl) if soa_gain_db is None else jnp.broadcast_to(jnp.asarray(soa_gain_db, float),
                                                                                (f.shape[0],))
    geo = dict(geometry, with_soa=True)
    p_off = np.asarray(ptu_optical_powers(x, f, wl, soa_gain_db=0.0, **geo)[0])[:, column, :]
    p_on = np.asarray(ptu_optical_powers(x, f, wl, soa_gain_db=gain, **geo)[0])[:, column, :]
    xn = np.asarray(x)
    quiet = dataclasses.replace(receiver, load_resistance_ohm=None, input_noise_a_per_rthz=None, adc_bits=None)
    thermal = noise.noise_budget(0.0, photodiode=dataclasses.replace(photodiode, dark_current_a=0.0),
                                 receiver=receiver, balanced=False).terms.get("thermal", 0.0)
    xg_on = xn * np.asarray(soa_power_gain(wl, gain, sl, geometry.get("cross_section", "xs_ridge")))
    out = {"gain_db": np.asarray(gain)}
    for key, p, amp in (("without", p_off, False), ("with", p_on, True)):
        var, sig = thermal, 0.0
        for r in range(f.shape[0]):
            pr = float(p[r].sum())
            a = None
            if amp and xn[r].sum() > 0:
                # the row's input-power-weighted gain, wavelength and SOA-to-diode transmission
                wl_r = float(np.sum(xn[r] * np.asarray(wl)) / xn[r].sum())
                g_r = float(xg_on[r].sum() / xn[r].sum())
                after = float(p[r].sum() / xg_on[r].sum())
                b_o = noise.C_LIGHT * bw_nm * 1e-9 / (wl_r * 1e-6) ** 2
                a = noise.Amplifier(gain_db=10 * math.log10(g_r), nf_db=nf_db, optical_bandwidth_hz=b_o,
                                    loss_after_db=-10 * math.log10(max(after, 1e-300)), wavelength_um=wl_r)
            nb = noise.noise_budget(pr, photodiode=photodiode, receiver=quiet, amplifier=a, balanced=False)
            var += nb.total_variance_a2
            sig += nb.signal_current_a
        out[f"snr_{key}_db"] = 10 * math.log10(sig**2 / var)
        out[f"current_{key}_a"] = sig
    return out


def _register():
    from prismpic.circuits.registry import Circuit

    return {"ptu": Circuit("ptu", ptu, None, ptu_fast)}


CIRCUITS = _register()
