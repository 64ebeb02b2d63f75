"""Ge photodetectors on the TFLN ridge (single and balanced): cells, models and electrical figures.

Reference device: Ge-on-Si, 0.95 A/W, 1.3 nA dark current, 103 GHz (Shi et al., Photonics
Res. 12, 1 (2024); REFERENCES.md). Here the Ge absorber sits on the ridge end and is read
by a lateral p-i-n: p+ and n+ implants (not drawn: the PDK has no implant layers) leave an
intrinsic region ``intrinsic_width`` wide across the mode, contacted by metal strips on the
Ge wings beside the ridge (the design rules keep metal off the ridge).

Optical ports absorb: the SAX models return S = 0 (passive, reciprocal). The electrical
quantities are plain functions (SAX is linear and optical-only):

- responsivity R = η q λ/(h c) with η = 1 − exp(−Γ α_Ge L): α_Ge from
  ``materials.alpha_ge_per_cm``, Γ = ``absorber_confinement`` the fraction of the guided
  power overlapping the Ge (lumping the coupling of the ridge mode into the absorber).
  Γ = 0.3 † is typical of evanescently coupled waveguide Ge detectors; with it the default
  12 µm absorber gives 0.95 A/W at 1.55 µm (the published figure).
- dark current: generation current density × junction area, ∝ n_i ∝ T^{3/2} exp(−E_g/2kT).
- bandwidth: 1/f² = 1/f_RC² + 1/f_t², f_RC = 1/(2π (R_load + R_s) C), f_t ≈ 0.45 v_sat/d.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from scipy.constants import c as C_LIGHT  # m/s
from scipy.constants import e as Q_E  # C
from scipy.constants import epsilon_0
from scipy.constants import h as H_PLANCK  # J s
from scipy.constants import k as K_B  # J/K

from prismpic.checks import check_layout_length, check_nonnegative, check_positive, check_range, concrete
from prismpic.components.model_signature import CELL, FloatArrayLike, FloatLike, model_of
from prismpic.components.registry import Device
from prismpic.components.waveguides import straight
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import layers, materials
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import SLAB_MARGIN, ridge_width
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import BOX_THICKNESS

EPS0 = epsilon_0  # F/m (scipy.constants, CODATA 2022)

EPS_R_GE = 16.2  # Ge relative permittivity (Sze & Ng, "Physics of Semiconductor Devices", 3rd ed., App. G)
EPS_R_SIO2 = 3.9  # thermal SiO2, low frequency (same source)
EG_GE_EV = 0.66  # Ge indirect gap at 300 K (same source)
V_SAT_GE_M_PER_S = 6e4  # † carrier saturation velocity in Ge, ≈ 6e6 cm/s (Jacoboni et al., PRB 24, 1014 (1981))
ABSORBER_CONFINEMENT = 0.3  # † Γ, see module docstring
DARK_CURRENT_DENSITY_A_PER_CM2 = 0.02  # † 20 mA/cm² at −1 V, within the 10–100 mA/cm² typical of Ge-on-Si p-i-n
LOAD_RESISTANCE_OHM = 50.0
SERIES_RESISTANCE_OHM = 10.0  # † contact + Ge spreading resistance


# ---------------------------------------------------------------------------- cells
def _check_core(ge_length, ge_width, contact_gap, contact_width, input_length, width):
    check_range("ge_length", ge_length, RULES.min_metal_width, 500.0, unit="µm")
    check_range("width", width, RULES.min_ridge_width, RULES.max_ridge_width, unit="µm")
    check_range("contact_gap", contact_gap, RULES.min_metal_to_ridge, 20.0, unit="µm")
    check_range("contact_width", contact_width, RULES.min_metal_width, 50.0, unit="µm")
    lo = concrete(width + 2 * contact_gap + 1.0)
    if lo is not None:  # the Ge wings reach under the contacts by ≥ 0.5 µm
        check_range("ge_width", ge_width, float(lo), 100.0, unit="µm")
    check_layout_length("input_length", input_length, hi=1e4)


def _check_pd(ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
              width):
    _check_core(ge_length, ge_width, contact_gap, contact_width, input_length, width)
    check_range("ge_thickness", ge_thickness, 0.05, 2.0, unit="µm")
    check_range("intrinsic_width", intrinsic_width, 0.05, 10.0, unit="µm")
    check_range("pad_size", pad_size, RULES.min_pad_size, 500.0, unit="µm")


@platform_cell
@gf_cell
def photodetector_core(
    ge_length: float = 12.0,
    ge_width: float = 6.0,
    contact_gap: float = 1.0,
    contact_width: float = 3.0,
    input_length: float = 10.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Ge absorber over the end of a ridge with two contact strips; no pads (building block).

    Ports: o1 (optical input), e1 (south strip), e2 (north strip), at the strips' outer edges.

    Args:
        ge_length: absorber length (µm).
        ge_width: absorber width (µm), covering the ridge and reaching under the contacts.
        contact_gap: contact edge to ridge edge (µm).
        contact_width: contact strip width (µm).
        input_length: bare ridge before the absorber (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.
    """
    width = ridge_width(cross_section, width)
    _check_core(ge_length, ge_width, contact_gap, contact_width, input_length, width)
    c = gf.Component()
    total = input_length + ge_length
    wg = c.add_ref(straight(length=total, width=width, cross_section=cross_section))
    slab_h = width / 2 + SLAB_MARGIN
    c.add_polygon([(total, -slab_h), (total + 2 * RULES.min_slab_enclosure, -slab_h),
                   (total + 2 * RULES.min_slab_enclosure, slab_h), (total, slab_h)], layer=layers.LAYER.LN_SLAB)
    x0, hg = input_length, ge_width / 2
    c.add_polygon([(x0, -hg), (total, -hg), (total, hg), (x0, hg)], layer=layers.LAYER.GE)
    y_in = width / 2 + contact_gap
    for name, sign in (("e1", -1), ("e2", 1)):
        ya, yb = sign * y_in, sign * (y_in + contact_width)
        c.add_polygon([(x0, ya), (total, ya), (total, yb), (x0, yb)], layer=layers.LAYER.ELECTRODE)
        c.add_port(name, center=(x0 + ge_length / 2, yb), width=ge_length, orientation=90 if sign > 0 else 270,
                   layer=layers.LAYER.ELECTRODE, port_type="electrical")
    c.add_port("o1", port=wg.ports["o1"])
    return c


def _pad(c: gf.Component, x0: float, y0: float, size: float, name: str, orientation: float) -> None:
    """Square pad (ELECTRODE + PAD opening) with lower-left corner (x0, y0) and an electrical port."""
    pts = [(x0, y0), (x0 + size, y0), (x0 + size, y0 + size), (x0, y0 + size)]
    c.add_polygon(pts, layer=layers.LAYER.ELECTRODE)
    c.add_polygon(pts, layer=layers.LAYER.PAD)
    center = {90: (x0 + size / 2, y0 + size), 270: (x0 + size / 2, y0), 0: (x0 + size, y0 + size / 2)}[orientation]
    c.add_port(name, center=center, width=size, orientation=orientation, layer=layers.LAYER.ELECTRODE,
               port_type="electrical")


def _rect(c: gf.Component, x0, y0, x1, y1, layer) -> None:
    c.add_polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], layer=layer)


@platform_cell
@gf_cell
def photodetector(
    ge_length: float = 12.0,
    ge_width: float = 6.0,
    ge_thickness: float = 0.5,
    intrinsic_width: float = 0.25,
    contact_gap: float = 1.0,
    contact_width: float = 3.0,
    input_length: float = 10.0,
    pad_size: float = 60.0,
    lead_length: float = 10.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Waveguide Ge photodetector (lateral p-i-n) with two pads.

    Args:
        ge_length: absorber length (µm); sets the responsivity.
        ge_width: absorber width (µm).
        ge_thickness: absorber thickness (µm); not drawn (layer stack), sets the capacitance.
        intrinsic_width: p-i-n intrinsic width (µm); not drawn (implants), sets C and transit time.
        contact_gap: contact edge to ridge edge (µm).
        contact_width: contact strip width (µm).
        input_length: bare ridge before the absorber (µm).
        pad_size: pad side (µm).
        lead_length: metal lead from contact strip to pad (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    .. code::

                 ┌──────┐ e2 (pad)
                 └──┬───┘
        o1 ════════▓▓▓▓▓▓  Ge on the ridge end, contacts beside it
                 ┌──┴───┐
                 └──────┘ e1 (pad)
    """
    width = ridge_width(cross_section, width)
    _check_pd(ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
              width)
    check_layout_length("lead_length", lead_length)
    c = gf.Component()
    core = c.add_ref(photodetector_core(ge_length, ge_width, contact_gap, contact_width, input_length, width,
                                        cross_section))
    xc = input_length + ge_length / 2
    lead = min(ge_length, 10.0)
    xp = max(0.0, xc - pad_size / 2)
    y_out = width / 2 + contact_gap + contact_width
    for name, sign in (("e1", -1), ("e2", 1)):
        _rect(c, xc - lead / 2, sign * y_out, xc + lead / 2, sign * (y_out + lead_length), layers.LAYER.ELECTRODE)
        y0 = y_out + lead_length if sign > 0 else -(y_out + lead_length + pad_size)
        _pad(c, xp, y0, pad_size, name, 90 if sign > 0 else 270)
    c.add_port("o1", port=core.ports["o1"])
    c.info["responsivity_a_per_w"] = float(responsivity_a_per_w(1.55, ge_length))
    return c


@platform_cell
@gf_cell
def balanced_photodetector(
    ge_length: float = 12.0,
    ge_width: float = 6.0,
    ge_thickness: float = 0.5,
    intrinsic_width: float = 0.25,
    contact_gap: float = 1.0,
    contact_width: float = 3.0,
    input_length: float = 10.0,
    pad_size: float = 60.0,
    lead_length: float = 10.0,
    pad_space: float = 10.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Balanced pair: through detector at o1, drop detector at o2, sharing the middle contact.

    Electrical: e1 (south pad, outer contact of the o1 detector), e2 (east pad, the shared
    middle contact: the difference current, see ``balanced_current_a``), e3 (north pad,
    outer contact of the o2 detector).

    Args:
        ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
            lead_length, width, cross_section: each detector's, as ``photodetector`` (µm; the cross-section a name).
        pad_space: space between the east pad and the others (µm).

    .. code::

                 ┌──────┐ e3
                 └──┬───┘
        o2 ════════▓▓▓▓▓▓ ─┐
                  shared   ├──┌──────┐ e2
        o1 ════════▓▓▓▓▓▓ ─┘  └──────┘
                 ┌──┴───┐
                 └──────┘ e1
    """
    width = ridge_width(cross_section, width)
    _check_pd(ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
              width)
    check_layout_length("lead_length", lead_length)
    check_range("pad_space", pad_space, RULES.min_metal_space, 1000.0, unit="µm")
    c = gf.Component()
    core = photodetector_core(ge_length, ge_width, contact_gap, contact_width, input_length, width, cross_section)
    pitch = width + 2 * (contact_gap + contact_width)  # the inner strips abut: one shared contact
    lower = c.add_ref(core)
    upper = c.add_ref(core)
    upper.dmove((0, pitch))
    total = input_length + ge_length
    xc = input_length + ge_length / 2
    lead = min(ge_length, 10.0)
    xp = max(0.0, xc - pad_size / 2)
    y_out = width / 2 + contact_gap + contact_width
    # outer contacts → south and north pads
    _rect(c, xc - lead / 2, -y_out, xc + lead / 2, -(y_out + lead_length), layers.LAYER.ELECTRODE)
    _pad(c, xp, -(y_out + lead_length + pad_size), pad_size, "e1", 270)
    _rect(c, xc - lead / 2, pitch + y_out, xc + lead / 2, pitch + y_out + lead_length, layers.LAYER.ELECTRODE)
    _pad(c, xp, pitch + y_out + lead_length, pad_size, "e3", 90)
    # shared middle contact → east pad
    ym0, ym1 = width / 2 + contact_gap, pitch - width / 2 - contact_gap
    xe = max(total + lead_length, xp + pad_size + pad_space)
    _rect(c, total, ym0, xe, ym1, layers.LAYER.ELECTRODE)
    _pad(c, xe, pitch / 2 - pad_size / 2, pad_size, "e2", 0)
    c.add_port("o1", port=lower.ports["o1"])
    c.add_port("o2", port=upper.ports["o1"])
    c.info["responsivity_a_per_w"] = float(responsivity_a_per_w(1.55, ge_length))
    return c


# ---------------------------------------------------------------------------- models
def _absorbing(wl, ports) -> sax.SDict:
    zero = jnp.zeros_like(jnp.asarray(wl, dtype=float)) + 0j
    return {(a, b): zero for a in ports for b in ports}


@model_of(photodetector)
def photodetector_model(
    wl: FloatArrayLike = 1.55,
    *,
    ge_length: FloatLike,
    ge_width: FloatLike,
    ge_thickness: FloatLike,
    intrinsic_width: FloatLike,
    contact_gap: FloatLike,
    contact_width: FloatLike,
    input_length: FloatLike,
    pad_size: FloatLike,
    lead_length: FloatLike,
    width: FloatLike | None,
    cross_section: str,
) -> sax.SDict:
    """Optical model of ``photodetector``: the port absorbs, S = 0 (its current: ``photocurrent_a``).

    Args:
        wl: wavelength (µm), scalar or array.
        ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
            lead_length, width, cross_section: the cell's geometry (µm; the cross-section a name), checked as the
            cell checks it.
    """
    width = ridge_width(cross_section, width)
    _check_pd(ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
              width)
    check_range("wl", wl, 0.0, math.inf, unit="µm", lo_open=True, hi_open=True)
    check_nonnegative("lead_length", lead_length, unit="µm")
    return _absorbing(wl, ("o1",))


@model_of(balanced_photodetector)
def balanced_photodetector_model(
    wl: FloatArrayLike = 1.55,
    *,
    ge_length: FloatLike,
    ge_width: FloatLike,
    ge_thickness: FloatLike,
    intrinsic_width: FloatLike,
    contact_gap: FloatLike,
    contact_width: FloatLike,
    input_length: FloatLike,
    pad_size: FloatLike,
    lead_length: FloatLike,
    pad_space: FloatLike,
    width: FloatLike | None,
    cross_section: str,
) -> sax.SDict:
    """Optical model of ``balanced_photodetector``: both ports absorb, S = 0 (current: ``balanced_current_a``).

    Args:
        wl: wavelength (µm), scalar or array.
        ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
            lead_length, pad_space, width, cross_section: the cell's geometry (µm; the cross-section a name),
            checked as the cell checks it.
    """
    width = ridge_width(cross_section, width)
    _check_pd(ge_length, ge_width, ge_thickness, intrinsic_width, contact_gap, contact_width, input_length, pad_size,
              width)
    check_range("wl", wl, 0.0, math.inf, unit="µm", lo_open=True, hi_open=True)
    check_nonnegative("lead_length", lead_length, unit="µm")
    check_nonnegative("pad_space", pad_space, unit="µm")
    return _absorbing(wl, ("o1", "o2"))


# ---------------------------------------------------------------------------- electrical figures
# Geometry defaults (ge_length, ge_thickness, intrinsic_width, pad_size) are the ``photodetector`` cell's.
@model_of(photodetector)
def absorption_efficiency(wl=1.55, ge_length=CELL, absorber_confinement=ABSORBER_CONFINEMENT):
    """Fraction of the guided power absorbed in the Ge: η = 1 − exp(−Γ α_Ge L)."""
    check_positive("ge_length", ge_length, unit="µm")
    check_range("absorber_confinement", absorber_confinement, 0.0, 1.0, lo_open=True)
    alpha_per_um = materials.alpha_ge_per_cm(wl) * 1e-4
    return 1.0 - jnp.exp(-absorber_confinement * alpha_per_um * ge_length)


@model_of(photodetector)
def responsivity_a_per_w(wl=1.55, ge_length=CELL, absorber_confinement=ABSORBER_CONFINEMENT):
    """Responsivity R = η q λ/(h c) (A/W), every absorbed photon giving one electron."""
    eta = absorption_efficiency(wl, ge_length, absorber_confinement)
    return eta * Q_E * jnp.asarray(wl, dtype=float) * 1e-6 / (H_PLANCK * C_LIGHT)


@model_of(photodetector)
def photocurrent_a(power_w, wl=1.55, ge_length=CELL, absorber_confinement=ABSORBER_CONFINEMENT):
    """Photocurrent (A) for an optical power (W) in the detector's input waveguide."""
    check_range("power_w", power_w, 0.0, 1.0, unit="W")
    return responsivity_a_per_w(wl, ge_length, absorber_confinement) * power_w


@model_of(balanced_photodetector)
def balanced_current_a(p_through_w, p_drop_w, wl=1.55, ge_length=CELL, absorber_confinement=ABSORBER_CONFINEMENT):
    """Output current (A) of a balanced pair: I = R (P_drop − P_through).

    Sign convention: positive when the drop port carries more power; it is the current
    leaving the middle contact (e2 of ``balanced_photodetector``) into the amplifier, with
    the drop detector (o2) between e2 and e3 and the through detector (o1) between e1 and e2.
    """
    check_range("p_through_w", p_through_w, 0.0, 1.0, unit="W")
    check_range("p_drop_w", p_drop_w, 0.0, 1.0, unit="W")
    return responsivity_a_per_w(wl, ge_length, absorber_confinement) * (p_drop_w - p_through_w)


@model_of(photodetector)
def dark_current_a(ge_length=CELL, ge_thickness=CELL, temperature_k=300.0,
                   dark_current_density_a_per_cm2=DARK_CURRENT_DENSITY_A_PER_CM2):
    """Dark current (A) of the lateral junction (area L × t_Ge), generation-limited.

    I = J A (T/300)^{3/2} exp(−E_g/2k (1/T − 1/300)): the generation current ∝ n_i
    (Sze & Ng, ch. 2), J the density at 300 K.
    """
    check_positive("ge_length", ge_length, unit="µm")
    check_positive("ge_thickness", ge_thickness, unit="µm")
    check_range("temperature_k", temperature_k, 200.0, 400.0, unit="K")
    area_cm2 = ge_length * ge_thickness * 1e-8
    t = jnp.asarray(temperature_k, dtype=float)
    scale = (t / 300.0) ** 1.5 * jnp.exp(-EG_GE_EV * Q_E / (2 * K_B) * (1.0 / t - 1.0 / 300.0))
    return dark_current_density_a_per_cm2 * area_cm2 * scale


@model_of(photodetector)
def junction_capacitance_f(ge_length=CELL, ge_thickness=CELL, intrinsic_width=CELL):
    """Parallel-plate junction capacitance (F): ε0 ε_Ge (L t_Ge)/d, d the intrinsic width."""
    check_positive("intrinsic_width", intrinsic_width, unit="µm")
    return EPS0 * EPS_R_GE * (ge_length * 1e-6) * (ge_thickness * 1e-6) / (intrinsic_width * 1e-6)


@model_of(photodetector)
def pad_capacitance_f(pad_size=CELL, n_pads=2):
    """Capacitance (F) of ``n_pads`` square pads over the buried oxide, in series through the substrate.

    Each pad: ε0 ε_SiO2 P²/t_BOX (conductive substrate: an upper estimate).
    """
    one = EPS0 * EPS_R_SIO2 * (pad_size * 1e-6) ** 2 / (BOX_THICKNESS * 1e-6)
    return one / n_pads


@model_of(photodetector)
def detector_bandwidth_ghz(
    ge_length=CELL,
    ge_thickness=CELL,
    intrinsic_width=CELL,
    pad_size=CELL,
    load_resistance_ohm=LOAD_RESISTANCE_OHM,
    series_resistance_ohm=SERIES_RESISTANCE_OHM,
    v_sat_m_per_s=V_SAT_GE_M_PER_S,
    n_diodes=1,
):
    """3-dB bandwidth (GHz): 1/f² = 1/f_RC² + 1/f_t².

    f_RC = 1/(2π (R_load + R_s/n)(n C_j + C_pad)), f_t ≈ 0.45 v_sat/d (transit through the
    intrinsic width d; e.g. Kato, IEEE Trans. Microw. Theory Tech. 47, 1265 (1999)).
    ``pad_size`` = 0 drops the pads. ``n_diodes``: diodes summing their currents on one node (a PTU column),
    their junctions and series resistances in parallel, one pad pair.
    """
    check_positive("load_resistance_ohm", load_resistance_ohm, unit="Ω")
    check_range("series_resistance_ohm", series_resistance_ohm, 0.0, 1e6, unit="Ω")
    check_range("pad_size", pad_size, 0.0, 1000.0, unit="µm")
    check_range("n_diodes", n_diodes, 1, 1 << 16)
    c = n_diodes * junction_capacitance_f(ge_length, ge_thickness, intrinsic_width) + pad_capacitance_f(pad_size)
    f_rc = 1.0 / (2 * math.pi * (load_resistance_ohm + series_resistance_ohm / n_diodes) * c)
    f_t = 0.45 * v_sat_m_per_s / (intrinsic_width * 1e-6)
    return 1e-9 / jnp.sqrt(1.0 / f_rc**2 + 1.0 / f_t**2)


_PD_EXTREMES = (
    {"ge_length": 2.0, "ge_width": 4.4, "contact_width": 2.0, "pad_size": 50.0, "lead_length": 2.0},
    {"ge_length": 200.0, "width": 3.0, "ge_width": 20.0, "contact_gap": 5.0, "contact_width": 10.0},
)

DEVICES = {
    "photodetector": Device(
        "photodetector", photodetector, photodetector_model, extremes=_PD_EXTREMES, model_only=("wl",),
    ),
    "balanced_photodetector": Device(
        "balanced_photodetector", balanced_photodetector, balanced_photodetector_model, extremes=_PD_EXTREMES,
        model_only=("wl",),
    ),
}
