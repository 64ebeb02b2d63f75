"""Semiconductor optical amplifier (III-V bonded on the TFLN ridge): cell, model, saturation and ASE.

The gain comes from the carrier rate equation of ``soa_physics`` (bias current density, input power,
wavelength → carrier density → gain, lifetime, saturation power, noise figure); its dynamics are in
``soa_dynamics``. SAX is linear, so the model takes the operating point: either the bias and the
total input power (``soa_model(current_density_ka_per_cm2=…, input_power_dbm=…)``, solved from the rate
equation's steady state) or a given operating peak gain ``gain_db`` (e.g. from ``saturated_gain_db``),
see DESIGN.md, "Models that are not S-parameters".

The default SOA's small-signal gain, output saturation power and noise figure (``P_SAT_OUT_DBM``,
``NOISE_FIGURE_DB``) are outputs of the rate equation at the default bias and 1 mm of gain; they fall
in the typical published ranges (REFERENCES.md, "SOA (typical)": gain 15–30 dB, P_sat +8 to +13 dBm,
NF 7–10 dB, best < 6.5 dB).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from scipy.constants import c as C_LIGHT  # m/s
from scipy.constants import h as H_PLANCK  # J s

from prismpic.checks import check_between, check_choice, check_layout_length, check_positive, check_range
from prismpic.components import soa_physics as sp
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.waveguides import straight
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, layers
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, CLADDINGS, ETCH_DEPTH, FILM_THICKNESS, SIDEWALL_ANGLE_DEG, check_film

GAIN_PEAK_UM = 1.55  # † gain peak placed at the C-band centre
GAIN_FWHM_NM = 100.0  # † FWHM of the material gain g(λ) of the InGaAsP MQW at the default bias, unsaturated
CURRENT_DENSITY_KA_PER_CM2 = sp.CURRENT_DENSITY_KA_PER_CM2
TAPER_LOSS_DB = sp.TAPER_LOSS_DB
CURRENT_RANGE_KA_PER_CM2 = (0.0, 20.0)  # 20 kA/cm²: beyond any CW SOA bias (thermal rollover)
SMALL_SIGNAL_DBM = -60.0  # an input that does not saturate (60 dB below P_sat)


# ---------------------------------------------------------------------------- rate-equation operating point
def check_bias(current_density_ka_per_cm2, lifetime_scale=1.0, taper_loss_db=TAPER_LOSS_DB):
    """Check the bias current density (kA/cm²), lifetime scale and taper loss (dB); return them (NaN if traced)."""
    j = check_range("current_density_ka_per_cm2", current_density_ka_per_cm2, *CURRENT_RANGE_KA_PER_CM2,
                    unit="kA/cm²")
    return j, sp.check_lifetime_scale(lifetime_scale), check_range("taper_loss_db", taper_loss_db, 0.0, 10.0, unit="dB")


@jax.jit
def gain_curvature(gain_fwhm_nm=GAIN_FWHM_NM):
    """κ of the parabolic gain spectrum (``soa_physics``): FWHM ``gain_fwhm_nm`` (nm) of the material gain at
    the unsaturated carrier density of the default bias (a property of the material, whatever the bias)."""
    pump = sp.pump_rate(CURRENT_DENSITY_KA_PER_CM2)
    n0 = sp.steady_carrier_density(pump, jnp.zeros(1), jnp.ones(1) * GAIN_PEAK_UM, 1000.0, GAIN_PEAK_UM, 0.0)
    return sp.gain_curvature_per_m3(gain_fwhm_nm, n0)  # at the peak and no input, κ does not enter n0


def operating_point(
    gain_length=1000.0,
    current_density_ka_per_cm2=CURRENT_DENSITY_KA_PER_CM2,
    input_power_dbm=SMALL_SIGNAL_DBM,
    wl=GAIN_PEAK_UM,
    gain_peak_um=GAIN_PEAK_UM,
    gain_fwhm_nm=GAIN_FWHM_NM,
    lifetime_scale=1.0,
    taper_loss_db=TAPER_LOSS_DB,
) -> dict:
    """Steady state of the SOA's carrier rate equation (``soa_physics``) for one input signal.

    Args:
        gain_length: gain-section length (µm).
        current_density_ka_per_cm2: bias current density over the active width (kA/cm²).
        input_power_dbm: signal power at the SOA's input port, before its taper (dBm).
        wl: signal wavelength (µm).
        gain_peak_um: gain-peak wavelength (µm).
        gain_fwhm_nm: FWHM of the material gain at the default bias, unsaturated (nm).
        lifetime_scale: factor on the recombination rates and the pump (the lifetime ÷ it, the
            unsaturated gain unchanged): the carrier lifetime as an uncertainty.
        taper_loss_db: loss of each TFLN ↔ III-V transition (dB).

    Returns:
        dict of arrays: ``gain_db`` (chip-level o1→o2 at ``wl``, tapers included),
        ``carrier_density_m3``, ``carrier_lifetime_ps`` (N/R(N)), ``differential_lifetime_ps``
        (1/(dR/dN)), ``effective_lifetime_ps`` (1/(−∂(dN/dt)/∂N): the small-signal gain recovery time,
        stimulated emission included), ``saturation_power_dbm`` (h ν w d/(Γ a τ_diff) of the gain medium),
        ``noise_figure_db`` (at ``wl``, input-referred, NaN without inversion), ``ase_psd_w_per_hz`` (one
        polarization at the output port, n_sp,eff h ν (G − 1) η), ``bias_current_ma``.
    """
    j, scale, taper_loss_db = check_bias(current_density_ka_per_cm2, lifetime_scale, taper_loss_db)
    gain_length = check_range("gain_length", gain_length, 1.0, 2000.0, unit="µm")
    input_power_dbm = check_range("input_power_dbm", input_power_dbm, -100.0, 40.0, unit="dBm")
    gain_fwhm_nm = check_range("gain_fwhm_nm", gain_fwhm_nm, 1.0, 1000.0, unit="nm")
    return _operating_point(gain_length, j, input_power_dbm, wl, gain_peak_um, gain_fwhm_nm, scale, taper_loss_db)


@jax.jit
def _operating_point(gain_length, j, input_power_dbm, wl, gain_peak_um, gain_fwhm_nm, scale, taper_loss_db):
    med = sp.MEDIUM
    eta = 10.0 ** (-jnp.asarray(taper_loss_db, dtype=float) / 10.0)
    wl1 = jnp.reshape(jnp.asarray(wl, dtype=float), (1,))
    p_in = 1e-3 * 10.0 ** (jnp.reshape(jnp.asarray(input_power_dbm, dtype=float), (1,)) / 10.0) * eta
    kappa = gain_curvature(gain_fwhm_nm)
    pump = sp.pump_rate(j, lifetime_scale=scale)
    n = sp.steady_carrier_density(pump, p_in, wl1, gain_length, gain_peak_um, kappa, lifetime_scale=scale)
    h = sp.net_gain_np(n, wl1[0], gain_length, gain_peak_um, kappa)
    rate = jax.grad(lambda x: sp.carrier_rhs(x, pump, p_in, wl1, gain_length, gain_peak_um, kappa,
                                             lifetime_scale=scale))(n)
    tau_d = sp.differential_lifetime_s(n, lifetime_scale=scale)
    p_sat = sp.photon_energy_j(gain_peak_um) * med.active_width_m * med.active_thickness_m / (
        med.confinement * med.diff_gain_m2 * tau_d)
    return {
        "gain_db": sp.db(h) - 2.0 * taper_loss_db,
        "carrier_density_m3": n,
        "carrier_lifetime_ps": n / sp.recombination_rate(n, lifetime_scale=scale) * 1e12,
        "differential_lifetime_ps": tau_d * 1e12,
        "effective_lifetime_ps": -1e12 / rate,
        "saturation_power_dbm": 10.0 * jnp.log10(p_sat / 1e-3),
        "noise_figure_db": 10.0 * jnp.log10(sp.noise_figure(n, h, gain_length, eta)),
        "ase_psd_w_per_hz": sp.ase_psd_w_per_hz(n, h, gain_length, wl1[0], eta),
        "bias_current_ma": j * 1e7 * med.active_width_m * jnp.asarray(gain_length, dtype=float) * 1e-6 * 1e3,
    }


def output_saturation_power_dbm(gain_length=1000.0, current_density_ka_per_cm2=CURRENT_DENSITY_KA_PER_CM2,
                                taper_loss_db=TAPER_LOSS_DB, n_iter: int = 50):
    """−3 dB output saturation power (dBm, at the output port) of the rate equation at the gain peak.

    Bisection in input power for the gain 3.0103 dB below the small-signal gain (the gain falls
    monotonically with input power). Args as ``operating_point``.
    """
    j, _, taper_loss_db = check_bias(current_density_ka_per_cm2, 1.0, taper_loss_db)
    gain_length = check_range("gain_length", gain_length, 1.0, 2000.0, unit="µm")
    return _output_saturation_power_dbm(gain_length, j, taper_loss_db, n_iter)


@functools.partial(jax.jit, static_argnames=("n_iter",))
def _output_saturation_power_dbm(gain_length, current_density_ka_per_cm2, taper_loss_db, n_iter):
    g0 = operating_point(gain_length, current_density_ka_per_cm2, taper_loss_db=taper_loss_db)["gain_db"]

    def deficit(p_dbm):
        return g0 - operating_point(gain_length, current_density_ka_per_cm2, p_dbm,
                                    taper_loss_db=taper_loss_db)["gain_db"] - 10.0 * math.log10(2.0)

    def step(_, ab):
        lo, hi = ab
        mid = 0.5 * (lo + hi)
        above = deficit(mid) > 0
        return jnp.where(above, lo, mid), jnp.where(above, mid, hi)

    lo, hi = jax.lax.fori_loop(0, n_iter, step, (jnp.asarray(-60.0), jnp.asarray(40.0)))
    p_in = 0.5 * (lo + hi)
    return p_in + g0 - 10.0 * math.log10(2.0)


# Outputs of the rate equation at the default bias and 1 mm of gain, cached here (a jitted solve at import
# would cost seconds); tests/components/test_gain.py recomputes them (``output_saturation_power_dbm()``,
# ``operating_point()["noise_figure_db"]``) and fails if they drift.
P_SAT_OUT_DBM = 8.434  # −3 dB output saturation power (dBm); published SOAs: +8 to +13 dBm
NOISE_FIGURE_DB = 6.682  # noise figure at the peak, input taper included (dB); published: 7–10, best < 6.5 dB


# ---------------------------------------------------------------------------- physics helpers
def gain_spectrum_db(wl, gain_db, gain_peak_um=GAIN_PEAK_UM, gain_fwhm_nm=GAIN_FWHM_NM, gain_length=1000.0):
    """Chip gain (dB) at ``wl`` (µm) of an SOA whose operating gain at the peak is ``gain_db``.

    The rate equation's gain is g(N, λ) = a (N − N_tr) − κ (λ − λ_p)² (``soa_physics``): saturation
    lowers N, which moves the whole spectrum down, so the dB gain at λ is the peak's minus
    10 log10(e) Γ κ (λ − λ_p)² L, κ set by the FWHM ``gain_fwhm_nm`` (nm) of the material gain
    (``gain_curvature``) and ``gain_length`` (µm).
    """
    kappa = gain_curvature(gain_fwhm_nm)
    det_m = (jnp.asarray(wl, dtype=float) - gain_peak_um) * 1e-6
    drop = sp.MEDIUM.confinement * kappa * det_m**2 * jnp.asarray(gain_length, dtype=float) * 1e-6
    return gain_db - sp.db(drop)


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
@gf_cell
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

    The ridge runs through; the III-V (layers.LAYER.SOA) widens from ``tip_width`` to
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
    c.add_polygon([(x0, -t), (x1, -h), (x2, -h), (x3, -t), (x3, t), (x2, h), (x1, h), (x0, t)], layer=layers.LAYER.SOA)
    y_in = width / 2 + contact_gap
    for name, sign in (("e1", -1), ("e2", 1)):
        ya, yb = sign * y_in, sign * (y_in + contact_width)
        c.add_polygon([(x1, ya), (x2, ya), (x2, yb), (x1, yb)], layer=layers.LAYER.ELECTRODE)
        c.add_port(
            name, center=((x1 + x2) / 2, yb), width=gain_length, orientation=90 if sign > 0 else 270,
            layer=layers.LAYER.ELECTRODE, port_type="electrical",
        )
    c.add_ports(wg.ports)
    c.info["length"] = total
    c.info["small_signal_gain_db"] = float(small_signal_gain_db(gain_length))
    return c


@model_of(soa)
def small_signal_gain_db(gain_length=CELL, current_density_ka_per_cm2=CURRENT_DENSITY_KA_PER_CM2,
                         taper_loss_db=TAPER_LOSS_DB):
    """Small-signal chip gain G0 (dB, peak, tapers included) from the rate equation at the bias.

    ``gain_length`` (µm) defaults to the ``soa`` cell's; bias in kA/cm², taper loss per transition in dB
    (``operating_point``).
    """
    check_positive("gain_length", gain_length, unit="µm")
    return operating_point(gain_length, current_density_ka_per_cm2, taper_loss_db=taper_loss_db)["gain_db"]


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
    current_density_ka_per_cm2: FloatLike = CURRENT_DENSITY_KA_PER_CM2,
    input_power_dbm: FloatLike = SMALL_SIGNAL_DBM,
    taper_loss_db: FloatLike = TAPER_LOSS_DB,
    gain_peak_um: FloatLike = GAIN_PEAK_UM,
    gain_fwhm_nm: FloatLike = GAIN_FWHM_NM,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """SOA as a linear two-port at its operating point: S21 = S12 = √G(λ) e^{iφ}, no reflection.

    Args:
        wl: wavelength (µm).
        gain_length, taper_length, soa_width, tip_width, contact_width, contact_gap, width, cross_section: the
            cell's geometry (µm; the cross-section a name; the contact and III-V outline parameters are layout
            only).
        gain_db: operating gain at the peak (dB, chip-level o1→o2, tapers included), e.g.
            from ``saturated_gain_db``; None: the rate equation's steady state at the bias and
            ``input_power_dbm`` (``operating_point``).
        current_density_ka_per_cm2: bias current density (kA/cm²); 0 leaves the III-V absorbing.
        input_power_dbm: total input power saturating the gain, taken at the gain peak (dBm).
        taper_loss_db: loss of each TFLN ↔ III-V transition (dB).
        gain_peak_um: gain-peak wavelength (µm).
        gain_fwhm_nm: FWHM of the material gain at the default bias, unsaturated (nm).
        film_thickness, etch_depth: LN film (µm).
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).

    φ is the ridge's propagation phase 2π n_eff L/λ over the whole cell (the hybrid III-V
    mode's index and the gain-induced (Henry α) phase, ``soa_dynamics``, are left out). Linear gain is
    reciprocal (Lorentz reciprocity holds in a non-magnetic medium); it is passive only unpumped.
    """
    width = ridge_width(cross_section, width)
    _check_soa(gain_length, taper_length, soa_width, tip_width, contact_width, contact_gap, width)
    check_film(film_thickness, etch_depth)
    check_choice("cladding", cladding, CLADDINGS)
    check_range("gain_fwhm_nm", gain_fwhm_nm, 1.0, 1000.0, unit="nm")
    check_range("gain_peak_um", gain_peak_um, 1.2, 1.8, unit="µm")
    j, _, taper_loss_db = check_bias(current_density_ka_per_cm2, 1.0, taper_loss_db)
    if gain_db is None:
        gain_db = operating_point(gain_length, j, input_power_dbm, gain_peak_um, gain_peak_um, gain_fwhm_nm,
                                  taper_loss_db=taper_loss_db)["gain_db"]
    check_range("gain_db", gain_db, -60.0, 50.0, unit="dB")
    wl = jnp.asarray(wl, dtype=float)
    total = gain_length + 2 * taper_length
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    g_db = gain_spectrum_db(wl, gain_db, gain_peak_um, gain_fwhm_nm, gain_length)
    t = 10.0 ** (g_db / 20.0) * jnp.exp(2j * jnp.pi * n * total / wl)
    return reciprocal({("o1", "o2"): t})


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
        grad_params={"gain_fwhm_nm": GAIN_FWHM_NM, "gain_peak_um": 1.56, "current_density_ka_per_cm2": 3.0,
                     "input_power_dbm": 0.0},
        model_only=("wl", "gain_db", "current_density_ka_per_cm2", "input_power_dbm", "taper_loss_db", "gain_peak_um", "gain_fwhm_nm", "film_thickness", "etch_depth",
                    "sidewall_angle_deg", "cladding"),
    ),
}
