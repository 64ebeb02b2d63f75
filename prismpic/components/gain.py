"""Semiconductor optical amplifier (III-V bonded on the TFLN ridge): cell, model, saturation and ASE.

SAX is linear, so the model takes the operating gain ``gain_db`` (at the gain peak); the
saturated gain for a given total input power comes from ``saturated_gain_db`` and is fed
back as that parameter (see DESIGN.md, "Models that are not S-parameters").

Device figures below are typical published values (REFERENCES.md, "SOA (typical)": gain
15–30 dB, P_sat +8 to +13 dBm, NF 7–10 dB; vendor data and reviews), not measurements of
this platform's SOA: marked † where assumed.
"""

from __future__ import annotations

import functools
import math

import gdsfactory as gf
import jax
import jax.numpy as jnp
import sax
from scipy.constants import c as C_LIGHT  # m/s
from scipy.constants import h as H_PLANCK  # J s

from prismpic.checks import check_between, check_choice, check_layout_length, check_positive, check_range
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of
from prismpic.components.registry import Device
from prismpic.components.waveguides import straight
from prismpic.pdk import dispersion
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, CLADDINGS, ETCH_DEPTH, FILM_THICKNESS, SIDEWALL_ANGLE_DEG, check_film

# Typical SOA figures (REFERENCES.md). † assumed within the published ranges.
NET_GAIN_DB_PER_MM = 20.0  # † 20 dB small-signal gain from the 1 mm default gain section (typical 15–30 dB)
P_SAT_OUT_DBM = 10.0  # −3 dB output saturation power (typical +8 to +13 dBm)
NOISE_FIGURE_DB = 8.0  # typical 7–10 dB
GAIN_PEAK_UM = 1.55  # † gain peak placed at the C-band centre
GAIN_FWHM_NM = 100.0  # † FWHM of the net modal gain spectrum g(λ) of an InGaAsP MQW gain medium


# ---------------------------------------------------------------------------- physics helpers
def gain_spectrum_db(wl, gain_db, gain_peak_um=GAIN_PEAK_UM, gain_fwhm_nm=GAIN_FWHM_NM):
    """Gain (dB) at ``wl`` (µm) for a peak gain ``gain_db``.

    The dB gain is the net modal gain g(λ) times the length, so it scales with a parabolic
    g(λ) = g_p [1 − 2 ((λ − λ_p)/FWHM)²] (half maximum at λ_p ± FWHM/2), the usual
    near-peak approximation of a semiconductor gain spectrum (e.g. Connelly,
    "Semiconductor Optical Amplifiers", Kluwer (2002), ch. 2).
    """
    detune_nm = (jnp.asarray(wl, dtype=float) - gain_peak_um) * 1e3
    return gain_db * (1.0 - 2.0 * (detune_nm / gain_fwhm_nm) ** 2)


def saturation_power_dbm(p_sat_out_dbm=P_SAT_OUT_DBM, small_signal_gain_db=20.0):
    """Saturation power P_sat (dBm) of the gain medium from the −3 dB output saturation power.

    For G = G0 exp(−(G − 1) P_in/P_sat), G = G0/2 is reached at the output power
    P_out,3dB = G0 ln2/(G0 − 2) · P_sat, so P_sat = P_out,3dB (G0 − 2)/(G0 ln 2) (needs G0 > 2).
    """
    check_range("small_signal_gain_db", small_signal_gain_db, 10 * math.log10(2.0), 60.0, unit="dB", lo_open=True)
    g0 = 10.0 ** (jnp.asarray(small_signal_gain_db, dtype=float) / 10.0)
    return p_sat_out_dbm + 10.0 * jnp.log10((g0 - 2.0) / (g0 * jnp.log(2.0)))


def saturated_gain_db(input_power_dbm_total, small_signal_gain_db, p_sat_dbm, n_iter: int = 60):
    """Saturated gain (dB) for a total input power summed over all WDM channels.

    Solves the homogeneous-saturation relation G = G0 exp(−(G − 1) P_in/P_sat) (Agrawal,
    "Fiber-Optic Communication Systems", Wiley, §6.2 / amplifier saturation), P_sat being the
    gain medium's saturation power (``saturation_power_dbm`` converts from the −3 dB output
    saturation power). Newton iteration on y = ln G: f(y) = y − ln G0 + (eʸ − 1) p with
    p = P_in/P_sat; f is increasing and convex and f(ln G0) ≥ 0, so Newton from y = ln G0
    decreases monotonically onto the root. A fixed number of steps keeps it jittable and
    differentiable (the last steps at the root give the implicit-function derivative).

    Args:
        input_power_dbm_total: total input power (dBm), all channels together.
        small_signal_gain_db: G0 (dB), ≥ 0.
        p_sat_dbm: saturation power of the gain medium (dBm).
        n_iter: Newton steps (60 converge to machine precision for p·G0 up to 1e12).
    """
    check_range("small_signal_gain_db", small_signal_gain_db, 0.0, 60.0, unit="dB")
    return _saturated_gain_db(input_power_dbm_total, small_signal_gain_db, p_sat_dbm, n_iter)


@functools.partial(jax.jit, static_argnames=("n_iter",))
def _saturated_gain_db(input_power_dbm_total, small_signal_gain_db, p_sat_dbm, n_iter):
    p = 10.0 ** ((jnp.asarray(input_power_dbm_total, dtype=float) - jnp.asarray(p_sat_dbm, dtype=float)) / 10.0)
    ln_g0 = jnp.asarray(small_signal_gain_db, dtype=float) * (jnp.log(10.0) / 10.0)
    p, ln_g0 = jnp.broadcast_arrays(p, ln_g0)

    def step(_, y):
        ey = jnp.exp(y)
        return y - (y - ln_g0 + (ey - 1.0) * p) / (1.0 + p * ey)

    y = jax.lax.fori_loop(0, n_iter, step, ln_g0)
    return y * (10.0 / jnp.log(10.0))


def ase_psd_w_per_hz(gain_db, nf_db=NOISE_FIGURE_DB, wl=1.55):
    """ASE power spectral density (W/Hz) per polarization at the amplifier output.

    S_ASE = n_sp h ν (G − 1) with the spontaneous-emission factor from the high-gain
    noise figure NF ≈ 2 n_sp (Olsson, J. Lightwave Technol. 7, 1071 (1989)).

    Args:
        gain_db: gain G (dB).
        nf_db: noise figure (dB).
        wl: wavelength (µm).
    """
    check_range("nf_db", nf_db, 10 * math.log10(2.0) - 1e-9, 30.0, unit="dB")
    nu = C_LIGHT / (jnp.asarray(wl, dtype=float) * 1e-6)
    n_sp = 10.0 ** (jnp.asarray(nf_db, dtype=float) / 10.0) / 2.0
    g = 10.0 ** (jnp.asarray(gain_db, dtype=float) / 10.0)
    return n_sp * H_PLANCK * nu * (g - 1.0)


# ---------------------------------------------------------------------------- cell
def _check_soa(gain_length, taper_length, soa_width, tip_width, contact_width, contact_gap, width):
    check_range("gain_length", gain_length, 1.0, 2000.0, unit="µm")  # ≤ 40 dB small-signal gain
    check_layout_length("taper_length", taper_length, hi=1e4)  # III-V tapers are 50–300 µm long †
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_range("contact_width", contact_width, RULES.min_metal_width, 200.0, unit="µm")
    check_range("contact_gap", contact_gap, RULES.min_metal_to_ridge, 100.0, unit="µm")
    # the contacts sit on the III-V
    check_between("soa_width", soa_width, width + 2 * (contact_gap + contact_width), 500.0)
    check_between("tip_width", tip_width, 0.1, soa_width)


@platform_cell
@gf.cell
def soa(
    gain_length: float = 1000.0,
    taper_length: float = 100.0,
    soa_width: float = 30.0,
    tip_width: float = 0.5,
    contact_width: float = 10.0,
    contact_gap: float = 3.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Heterogeneously bonded III-V SOA over a straight TFLN ridge, with III-V tapers.

    The ridge runs through; the III-V (LAYER.SOA) widens from ``tip_width`` to
    ``soa_width`` over ``taper_length`` at each end (mode transfer into the gain section).
    The contacts (ELECTRODE) lie on the III-V beside the ridge, ``contact_gap`` from its
    edge (the design rules keep metal off the ridge). e1: south contact, e2: north contact.

    Args:
        gain_length: length of the full-width gain section (µm).
        taper_length: III-V taper length at each end (µm).
        soa_width: width of the bonded III-V in the gain section (µm).
        tip_width: III-V taper tip width (µm).
        contact_width: width of each contact strip (µm).
        contact_gap: contact edge to ridge edge (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

                 ┌──────────── e2 ───────────┐
          ◁━━━━━━┥ III-V  gain_length        ┝━━━━━━▷
        o1 ══════╪═══════════════════════════╪══════ o2
                 └──────────── e1 ───────────┘
          taper                               taper
    """
    width = ridge_width(cross_section, width)
    _check_soa(gain_length, taper_length, soa_width, tip_width, contact_width, contact_gap, width)
    total = gain_length + 2 * taper_length
    c = gf.Component()
    wg = c.add_ref(straight(length=total, width=width, cross_section=cross_section))
    x0, x1, x2, x3 = 0.0, taper_length, taper_length + gain_length, total
    h, t = soa_width / 2, tip_width / 2
    c.add_polygon([(x0, -t), (x1, -h), (x2, -h), (x3, -t), (x3, t), (x2, h), (x1, h), (x0, t)], layer=LAYER.SOA)
    y_in = width / 2 + contact_gap
    for name, sign in (("e1", -1), ("e2", 1)):
        ya, yb = sign * y_in, sign * (y_in + contact_width)
        c.add_polygon([(x1, ya), (x2, ya), (x2, yb), (x1, yb)], layer=LAYER.ELECTRODE)
        c.add_port(
            name, center=((x1 + x2) / 2, yb), width=gain_length, orientation=90 if sign > 0 else 270,
            layer=LAYER.ELECTRODE, port_type="electrical",
        )
    c.add_ports(wg.ports)
    c.info["length"] = total
    c.info["small_signal_gain_db"] = float(small_signal_gain_db(gain_length))
    return c


@model_of(soa)
def small_signal_gain_db(gain_length=CELL, net_gain_db_per_mm=NET_GAIN_DB_PER_MM):
    """Small-signal gain G0 (dB) of a gain section: net modal gain (dB/mm) × length (µm → mm).

    ``gain_length`` (µm) defaults to the ``soa`` cell's.
    """
    check_positive("gain_length", gain_length, unit="µm")
    return net_gain_db_per_mm * jnp.asarray(gain_length, dtype=float) * 1e-3


@model_of(soa)
def soa_model(
    wl: FloatArrayLike = 1.55,
    *,
    gain_length: FloatLike,
    taper_length: FloatLike,
    soa_width: FloatLike,
    tip_width: FloatLike,
    contact_width: FloatLike,
    contact_gap: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    gain_db: FloatLike | None = None,
    gain_peak_um: FloatLike = GAIN_PEAK_UM,
    gain_fwhm_nm: FloatLike = GAIN_FWHM_NM,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """SOA as a linear two-port at its operating gain: S21 = S12 = √G(λ) e^{iφ}, no reflection.

    Args:
        wl: wavelength (µm).
        gain_length … cross_section: the cell's geometry (the contact and III-V outline
            parameters are layout only).
        gain_db: operating gain at the peak (dB, chip-level o1→o2, tapers included), e.g.
            from ``saturated_gain_db``; None takes the small-signal gain of ``gain_length``.
        gain_peak_um: gain-peak wavelength (µm).
        gain_fwhm_nm: FWHM of the net modal gain spectrum (nm).
        film_thickness, etch_depth: LN film (µm).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).

    φ is the ridge's propagation phase 2π n_eff L/λ over the whole cell (the hybrid III-V
    mode's index and the gain-induced (Henry α) phase are not modelled). Linear gain is
    reciprocal (Lorentz reciprocity holds in a non-magnetic medium); it is not passive.
    """
    width = ridge_width(cross_section, width)
    _check_soa(gain_length, taper_length, soa_width, tip_width, contact_width, contact_gap, width)
    check_film(film_thickness, etch_depth)
    check_choice("cladding", cladding, CLADDINGS)
    check_range("gain_fwhm_nm", gain_fwhm_nm, 1.0, 1000.0, unit="nm")
    check_range("gain_peak_um", gain_peak_um, 1.2, 1.8, unit="µm")
    if gain_db is None:
        gain_db = small_signal_gain_db(gain_length)
    check_range("gain_db", gain_db, -40.0, 50.0, unit="dB")
    wl = jnp.asarray(wl, dtype=float)
    total = gain_length + 2 * taper_length
    n = dispersion.neff(wl, width, film_thickness, etch_depth, jnp.inf, "te", "z",
                        sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    g_db = gain_spectrum_db(wl, gain_db, gain_peak_um, gain_fwhm_nm)
    t = 10.0 ** (g_db / 20.0) * jnp.exp(2j * jnp.pi * n * total / wl)
    return sax.reciprocal({("o1", "o2"): t})


DEVICES = {
    "soa": Device(
        "soa",
        soa,
        soa_model,
        passive=False,
        reciprocal=True,
        extremes=(
            {"gain_length": 100.0, "taper_length": 10.0, "soa_width": 7.4, "contact_width": 2.0, "contact_gap": 1.0},
            {"gain_length": 2000.0, "taper_length": 300.0, "width": 2.2},
        ),
        grad_params=("gain_fwhm_nm", "gain_peak_um"),
        model_only=("wl", "gain_db", "gain_peak_um", "gain_fwhm_nm", "film_thickness", "etch_depth",
                    "sidewall_angle_deg", "cladding"),
    ),
}
