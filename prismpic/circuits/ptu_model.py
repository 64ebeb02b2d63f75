"""Photonic tensor unit (PTU) crossbar model: tap ladder, GSST cells, row SOAs, column photocurrents.

The crossbar drawn by ``ptu.ptu``: row r carries x_rλ; after the row's SOA, coupler c taps the
power fraction κ_c into a branch through GSST cell (r, c) onto its own photodiode, and the
photodiodes of column c share one wire, so

    I_c = R Σ_r Σ_λ P_rcλ,   P_rcλ = x_rλ · G_r(λ) · T_reach,c(λ) · κ_c(λ) · T_pcm(f_rc, λ).

The tap ratios share each row's light equally between the columns and pass a fraction
``through_fraction`` on to the next core (lossless design, at ``design_wl``):
κ_c = (1 − f_t)/(cols − c·(1 − f_t)) (so κ = 1/(cols − c) for f_t = 0). The intrinsic
1/cols split (21 dB at cols = 128) is the broadcast cost of a crossbar; the couplers'
dispersion makes κ_c wavelength dependent (the "channel gains").

Readouts (counted per core and card by ``analysis.ptu_readout``):

- ``broadband``: one summing node per column: y_c = Σ_r W_rc Σ_λ x_rλ·g_rcλ, i.e. rows ×
  cols useful MACs on wavelength-summed inputs (GSST absorption is broadband).
- ``per_wavelength``: every crossing's branch goes through a wavelength demultiplexer
  (insertion loss ``demux_loss_db``) onto one photodiode per wavelength; the λ-th diodes
  of a column share a wire: Y = Wᵀ X (cols × λ), rows × cols × λ MACs, at the cost of
  rows × cols demultiplexers and rows × cols × λ photodiodes per core. (Summing rows at a
  fixed wavelength needs the sum to be a power sum, so the demux cannot come after an
  optical row combiner; see ``ptu``.) The layout draws the broadband variant.

Weights: W ∈ [0, 1] maps linearly onto the cell's power transmission between the
crystalline (W = 0) and amorphous (W = 1) states at ``design_wl``. Signed weights use a
differential pair of columns (2j: positive part, 2j+1: negative part), read as
I_2j − I_2j+1; the crystalline floor T(f = 1), common to both, cancels.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice, check_range
from prismpic.circuits.ptu import (  # the tile's geometry; tap_fractions and coupler_lengths are re-exported
    DESIGN_WL,
    PCM_MARGIN,
    check_count,
    check_geometry,
    ptu,
)
from prismpic.circuits.ptu import coupler_lengths as coupler_lengths
from prismpic.circuits.ptu import tap_fractions as tap_fractions
from prismpic.components import pcm as pcm_mod
from prismpic.components.couplers import directional_coupler_model
from prismpic.components.detectors import responsivity_a_per_w
from prismpic.components.gain import (
    P_SAT_OUT_DBM,
    saturated_gain_db,
    saturation_power_dbm,
    small_signal_gain_db,
    soa_model,
)
from prismpic.components.model_signature import CELL, model_of
from prismpic.components.waveguides import straight_model
from prismpic.pdk import scattering
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

READOUTS = ("broadband", "per_wavelength")


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


def _pcm_table(wl, pcm_length, pcm_width, pcm_thickness, width, film_thickness, etch_depth, loss_db_per_cm,
               sidewall_angle_deg=SIDEWALL_ANGLE_DEG, cladding=CLADDING):
    """Per-wavelength pieces of |t|²: Im Δn_eff at the Chebyshev nodes (K, λ), the bare-ridge loss and 4π L/λ."""
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    nodes, weights = _chebyshev()
    dn = pcm_mod.pcm_delta_neff(wl[None, :], nodes[:, None], pcm_width, pcm_thickness, width, film_thickness,
                                etch_depth, sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    total = pcm_length + 2 * PCM_MARGIN
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    bare = 10.0 ** (-scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm) * total * 1e-4 / 10.0)
    return nodes, weights, jnp.imag(dn), bare, 4 * jnp.pi / wl * pcm_length


def _pcm_from_table(f, table):
    nodes, weights, im_dn, bare, k = table
    return bare * jnp.exp(-k * _barycentric(jnp.asarray(f, dtype=float), nodes, weights, im_dn))


@model_of(ptu)
def pcm_power_transmission(wl=DESIGN_WL, crystalline_fraction=0.0, pcm_length=CELL, pcm_width=CELL,
                           pcm_thickness=CELL, width=None, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH,
                           loss_db_per_cm=LOSS_DB_PER_CM, cross_section=CELL, sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
                           cladding=CLADDING):
    """|t|² of ``pcm_cell`` for fractions f (…) at wavelengths wl (λ,): shape (…, λ).

    Patch geometry and ``cross_section`` default to the ``ptu`` cell's; ``width`` (µm) None takes the
    cross-section's ridge width.

    The physics of ``pcm.pcm_transmission``, |t|² = 10^(−α(L+2m)/10) exp(−2 k0 Im Δn_eff(f, λ) L),
    with Δn_eff from ``pcm.pcm_delta_neff`` evaluated at ``CHEB_NODES`` Chebyshev points in f per
    wavelength and interpolated (barycentric formula; Δn_eff is analytic in f): a crossbar of
    rows × cols × λ cells then costs K × λ mode solves instead of one per cell.
    """
    width = ridge_width(cross_section, width)
    check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    table = _pcm_table(wl, pcm_length, pcm_width, pcm_thickness, width, film_thickness, etch_depth, loss_db_per_cm,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    return _pcm_from_table(crystalline_fraction, table)


@model_of(ptu)
def tap_transmissions(wl=DESIGN_WL, cols=CELL, through_fraction=CELL, col_pitch=CELL, gap=CELL, dy=CELL,
                      bend_length=CELL, cross_section=CELL, loss_db_per_cm=LOSS_DB_PER_CM):
    """Power from a row's tap ladder input to each branch (cols, λ) and to the east port (λ,).

    From the device models of the drawn couplers and fill straights:
    T_c = Π_{c'<c} |bar_c'|² |fill_c'|² · |cross_c|². Geometry defaults: the ``ptu`` cell's.
    """
    lengths, fills = check_geometry(1, cols, 1, 1.0, col_pitch, through_fraction, gap, dy, bend_length, 1.0, False,
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


@model_of(ptu)
def soa_power_gain(wl=DESIGN_WL, soa_gain_db=None, soa_gain_length=CELL, cross_section=CELL):
    """|S21|² of the row SOAs (rows or 1, λ) at operating gain(s) ``soa_gain_db`` (peak, dB; None: small-signal).

    ``soa_gain_length`` and ``cross_section`` default to the ``ptu`` cell's.
    """
    wl = jnp.atleast_1d(jnp.asarray(wl, dtype=float))
    g = small_signal_gain_db(soa_gain_length) if soa_gain_db is None else soa_gain_db
    g = jnp.atleast_1d(jnp.asarray(g, dtype=float))[:, None]
    return jnp.abs(soa_model(wl, gain_length=soa_gain_length, cross_section=cross_section, gain_db=g)[("o1", "o2")]) ** 2


def check_crossbar_arrays(x_w, crystalline_fraction, wl):
    """(x_w, crystalline_fraction, wl) as arrays (rows, λ) W, (rows, cols), (λ,) µm; ValueError on bad shapes or values."""
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
    check_count("rows", f.shape[0])
    check_count("cols", f.shape[1])
    check_range("crystalline_fraction", f, 0.0, 1.0)
    check_range("x_w", x, 0.0, math.inf, unit="W")
    return x, f, wl


@model_of(ptu)
def ptu_optical_powers(
    x_w,
    crystalline_fraction,
    wl=DESIGN_WL,
    *,
    soa_gain_db=None,
    with_soa: bool,
    col_pitch: float,
    through_fraction: float,
    gap: float,
    dy: float,
    bend_length: float,
    pcm_length: float,
    pcm_width: float,
    pcm_thickness: float,
    soa_gain_length: float,
    cross_section: str,
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
        with_soa … cross_section: the cell's geometry (as ``ptu``, whose defaults they take).
        loss_db_per_cm: ridge propagation loss (dB/cm).
    """
    x, f, wl = check_crossbar_arrays(x_w, crystalline_fraction, wl)
    width = ridge_width(cross_section)
    tap, east = tap_transmissions(wl, f.shape[1], through_fraction, col_pitch, gap, dy, bend_length, cross_section,
                                  loss_db_per_cm)
    t_pcm = pcm_power_transmission(wl, f, pcm_length, pcm_width, pcm_thickness, width, loss_db_per_cm=loss_db_per_cm,
                                   cross_section=cross_section)
    if with_soa and soa_gain_db is None:
        soa_gain_db = row_soa_gain_db(x, soa_gain_length)
    xg = x * soa_power_gain(wl, soa_gain_db, soa_gain_length, cross_section) if with_soa else x
    return jnp.einsum("rl,cl,rcl->rcl", xg, tap, t_pcm), xg * east[None, :]


@model_of(ptu)
def ptu_fast(
    x_w,
    crystalline_fraction,
    wl=DESIGN_WL,
    *,
    readout: str = "broadband",
    responsivity_a_per_w=None,
    ge_length: float,
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
        ge_length: photodiode absorber length (µm), as the cell (whose default it takes).
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


@model_of(ptu)
def photodiode_responsivity(wl=DESIGN_WL, ge_length: float = CELL):
    """Responsivity (A/W, (λ,)) of the crossing photodiode, ``detectors.responsivity_a_per_w`` (ge_length: ptu's)."""
    return responsivity_a_per_w(jnp.atleast_1d(jnp.asarray(wl, dtype=float)), ge_length)


@model_of(ptu)
def row_soa_gain_db(x_w, soa_gain_length: float = CELL, p_sat_out_dbm: float = P_SAT_OUT_DBM):
    """Saturated peak gain (dB) of each row's SOA for its total input power Σ_λ x_rλ (rows,).

    ``gain.saturated_gain_db`` with G0 from the gain length and P_sat from the −3 dB output
    saturation power (homogeneous saturation by the total power over all channels). ``soa_gain_length``
    defaults to the ``ptu`` cell's.
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


@model_of(ptu)
def fractions_to_weights(crystalline_fraction, wl=DESIGN_WL, *, pcm_length, pcm_width, pcm_thickness, cross_section,
                         loss_db_per_cm=LOSS_DB_PER_CM):
    """Normalised weights W = (T(f) − T(1))/(T(0) − T(1)) at ``wl`` (scalar µm), T the cell's |t|².

    Patch geometry and ``cross_section`` default to the ``ptu`` cell's.
    """
    check_range("crystalline_fraction", crystalline_fraction, 0.0, 1.0)
    return _weight_map(wl, pcm_length, pcm_width, pcm_thickness, cross_section, loss_db_per_cm)(crystalline_fraction)


@model_of(ptu)
def weights_to_fractions(weights, wl=DESIGN_WL, *, pcm_length, pcm_width, pcm_thickness, cross_section,
                         loss_db_per_cm=LOSS_DB_PER_CM, n_iter: int = 60):
    """Crystalline fractions programming weights W ∈ [0, 1] (inverse of ``fractions_to_weights``; geometry: ptu's).

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


def _register():
    from prismpic.circuits.registry import Circuit

    return {"ptu": Circuit("ptu", ptu, None, ptu_fast)}


CIRCUITS = _register()
