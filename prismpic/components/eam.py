"""Electro-absorption modulator: a heterogeneously integrated III-V block on the LN ridge; cell and model.

TFLN has no electro-absorption of its own: the EAM is a bulk InGaAsP p-i-n layer bonded over the ridge,
with tapers that move the light into the III-V and back. Its absorption and index change under reverse
bias follow the Franz–Keldysh effect of that layer (``electroabsorption``: the material, its band gap and
the field across the intrinsic layer), so the extinction, its wavelength dependence and the chirp (Henry
α) are outputs; the bandwidth is RC-limited (``eam_bandwidth_ghz``). Figures marked † are typical
literature values.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from scipy.constants import epsilon_0

from prismpic.checks import check_layout_length, check_range
from prismpic.components import electroabsorption as fk
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.modulators import check_electrode_clearance
from prismpic.components.registry import Device
from prismpic.components.waveguides import check_waveguide_params
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, layers, scattering
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import get_cross_section, ridge_width
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

EAM_MAX_REVERSE_BIAS_V = 10.0  # reverse bias limit of the III-V diode (breakdown margin) †
ABSORBER_CONFINEMENT = 0.2  # † share of the hybrid mode's power in the InGaAsP absorber under the mesa
TRANSITION_LOSS_DB = 2.0  # † two LN ↔ III-V tapers, ≈ 1 dB each
INTRINSIC_RANGE_UM = (0.05, 2.0)  # intrinsic layers of p-i-n EAMs: 0.1–0.5 µm


def check_absorber(bandgap_wavelength_um, absorber_confinement, intrinsic_thickness_um):
    """Check the absorber's band gap (µm), confinement and intrinsic thickness (µm); return them (NaN if traced)."""
    return (check_range("bandgap_wavelength_um", bandgap_wavelength_um, *fk.BANDGAP_RANGE_UM, unit="µm"),
            check_range("absorber_confinement", absorber_confinement, 0.0, 1.0, lo_open=True),
            check_range("intrinsic_thickness_um", intrinsic_thickness_um, *INTRINSIC_RANGE_UM, unit="µm"))


def _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width):
    # lumped III-V EAMs are 50–500 µm long, their tapers tens of µm †: 1 cm bounds both
    check_layout_length("absorber_length", absorber_length, hi=1e4)
    check_electrode_clearance("mesa_width", mesa_width, width, hi=100.0)
    check_layout_length("taper_length", taper_length, hi=1e4)
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 1000.0, unit="µm")


@platform_cell
@gf_cell
def eam(
    absorber_length: float = 100.0,
    mesa_width: float = 4.0,
    taper_length: float = 30.0,
    electrode_width: float = 20.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Electro-absorption modulator, a heterogeneously integrated III-V block on the LN ridge.

    TFLN has no electro-absorption of its own: the seed's input EAMs are III-V
    (QCSE/Franz–Keldysh) sections bonded over the ridge (SOA layer), with tapers that
    move the light into the III-V and back. The layout is schematic: the bonded region
    (tapers and mesa on the SOA layer) and two lateral contacts beside the mesa.

    Args:
        absorber_length: length of the absorbing mesa (µm).
        mesa_width: III-V mesa width (µm), ≥ width + 2 µm; the contacts sit at its edges.
        taper_length: III-V taper length at each end (µm).
        electrode_width: width of each contact (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    Ports o1, o2 (optical); e1 (upper contact, north), e2 (lower contact, south).

    .. code::

                    ██████████ e1
        o1 ──────<▓▓▓▓▓▓▓▓▓▓▓▓▓▓>────── o2
                    ██████████ e2
    """
    width = ridge_width(cross_section, width)
    _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width)
    xs = get_cross_section(cross_section, width=width)
    total = absorber_length + 2 * taper_length
    c = gf.Component()
    ridge = c << gf.path.straight(length=total).extrude(xs)
    h, tip = mesa_width / 2, width / 4
    x1, x2 = taper_length, taper_length + absorber_length
    outline = [(0, -tip), (x1, -h), (x2, -h), (total, -tip), (total, tip), (x2, h), (x1, h), (0, tip)]
    c.add_polygon(outline, layer=layers.LAYER.SOA)
    for sign in (1, -1):
        y0, y1 = sign * h, sign * (h + electrode_width)
        c.add_polygon([(x1, y0), (x2, y0), (x2, y1), (x1, y1)], layer=layers.LAYER.ELECTRODE)
    c.add_port("o1", port=ridge.ports["o1"])
    c.add_port("o2", port=ridge.ports["o2"])
    for name, sign, orientation in (("e1", 1, 90), ("e2", -1, 270)):
        c.add_port(
            name, center=(total / 2, sign * (h + electrode_width)), width=min(absorber_length, electrode_width),
            orientation=orientation, layer=layers.LAYER.ELECTRODE, port_type="electrical",
        )
    return c


@model_of(eam)
def eam_absorption_db(
    voltage_v=0.0,
    absorber_length=CELL,
    wl=1.55,
    bandgap_wavelength_um=fk.BANDGAP_WAVELENGTH_UM,
    absorber_confinement=ABSORBER_CONFINEMENT,
    intrinsic_thickness_um=fk.INTRINSIC_THICKNESS_UM,
):
    """Absorption (dB) of the biased absorber: 10 log10(e) Γ α(E, F) L (Franz–Keldysh, ``electroabsorption``).

    Args:
        voltage_v: reverse bias (V), in [0, ``EAM_MAX_REVERSE_BIAS_V``]; the field is (V + V_bi)/d_i.
        absorber_length: L (µm), defaults to the ``eam`` cell's.
        wl: wavelength (µm).
        bandgap_wavelength_um: band-gap wavelength of the InGaAsP absorber (µm).
        absorber_confinement: Γ, share of the mode's power in the absorber.
        intrinsic_thickness_um: d_i (µm).

    Increases monotonically with the bias below the gap (λ > λ_g); the extinction ratio at V is
    ``eam_absorption_db(V) − eam_absorption_db(0)``.
    """
    check_range("voltage_v", voltage_v, 0.0, EAM_MAX_REVERSE_BIAS_V, unit="V")
    bandgap_wavelength_um, absorber_confinement, intrinsic_thickness_um = check_absorber(
        bandgap_wavelength_um, absorber_confinement, intrinsic_thickness_um)
    field = fk.field_v_per_m(voltage_v, intrinsic_thickness_um)
    alpha = fk.absorption_per_m(wl, field, bandgap_wavelength_um)
    return 10.0 / math.log(10.0) * absorber_confinement * alpha * jnp.asarray(absorber_length) * 1e-6


def eam_chirp_alpha(
    voltage_v=0.0,
    wl=1.55,
    bandgap_wavelength_um=fk.BANDGAP_WAVELENGTH_UM,
    intrinsic_thickness_um=fk.INTRINSIC_THICKNESS_UM,
):
    """Small-signal chirp (Henry α) of the EAM at bias ``voltage_v`` (V): (dΔn/dV)/(dκ/dV), κ = α λ/(4π).

    Both derivatives come from the Franz–Keldysh dielectric change (``electroabsorption``), a Hilbert pair:
    positive at low bias (the index rises as the edge tail grows), falling through zero and negative once
    the absorption edge nears the photon (Koyama & Iga, JLT 6, 87 (1988)).
    """
    check_range("voltage_v", voltage_v, 0.0, EAM_MAX_REVERSE_BIAS_V, unit="V")
    bandgap_wavelength_um, _, intrinsic_thickness_um = check_absorber(
        bandgap_wavelength_um, ABSORBER_CONFINEMENT, intrinsic_thickness_um)  # Γ cancels in the ratio
    wl = jnp.asarray(wl, dtype=float)

    def n_and_kappa(v):
        field = fk.field_v_per_m(v, intrinsic_thickness_um)
        kappa = fk.absorption_per_m(wl, field, bandgap_wavelength_um) * wl * 1e-6 / (4 * math.pi)
        return fk.index_change(wl, field, bandgap_wavelength_um), kappa

    v = jnp.broadcast_to(jnp.asarray(voltage_v, dtype=float), wl.shape)
    _, (dn, dk) = jax.jvp(n_and_kappa, (v,), (jnp.ones_like(v),))
    return dn / dk


@model_of(eam)
def eam_bandwidth_ghz(
    absorber_length=CELL, mesa_width=CELL, intrinsic_thickness_um=fk.INTRINSIC_THICKNESS_UM, eps_r=12.5,
    resistance_ohm=25.0
):
    """RC-limited 3-dB bandwidth (GHz) of a lumped EAM: 1/(2π R C), C = ε0 ε_r w L / d_i.

    ``absorber_length`` L and ``mesa_width`` w (µm) default to the ``eam`` cell's.

    R = 25 Ω: a 50 Ω source in parallel with a 50 Ω termination. ε_r ≈ 12.5 is typical of InGaAsP †,
    and d_i (µm) is the absorber's intrinsic layer (``electroabsorption``); the junction is taken as wide as
    the mesa.
    """
    check_range("intrinsic_thickness_um", intrinsic_thickness_um, *INTRINSIC_RANGE_UM, unit="µm")
    cap_f = epsilon_0 * eps_r * mesa_width * absorber_length * 1e-6 / intrinsic_thickness_um
    return 1.0 / (2 * math.pi * resistance_ohm * cap_f) * 1e-9


@model_of(eam)
def eam_model(
    wl: FloatArrayLike = 1.55,
    *,
    absorber_length: FloatLike,
    mesa_width: FloatLike,
    taper_length: FloatLike,
    electrode_width: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    voltage_v: FloatLike = 0.0,
    insertion_loss_db: FloatLike = TRANSITION_LOSS_DB,
    bandgap_wavelength_um: FloatLike = fk.BANDGAP_WAVELENGTH_UM,
    absorber_confinement: FloatLike = ABSORBER_CONFINEMENT,
    intrinsic_thickness_um: FloatLike = fk.INTRINSIC_THICKNESS_UM,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Heterogeneous EAM block: |t|² = 10^(−(IL + A(V, λ))/10), phase of the LN ridge plus the absorber's Δn.

    Args:
        wl: wavelength (µm).
        absorber_length, mesa_width, taper_length, electrode_width, width, cross_section: the cell's geometry
            (µm; the cross-section a name).
        film_thickness, etch_depth, sidewall_angle_deg, cladding: the LN ridge under the block.
        loss_db_per_cm: propagation loss of the LN ridge (dB/cm); None: from physics
            (``scattering.propagation_loss_db_per_cm``).
        voltage_v: reverse bias (V), in [0, 10].
        insertion_loss_db: the two LN ↔ III-V transitions (dB; ≈ 1 dB each †).
        bandgap_wavelength_um: band-gap wavelength of the InGaAsP absorber (µm).
        absorber_confinement: share of the mode's power in the absorber under the mesa.
        intrinsic_thickness_um: intrinsic layer of the p-i-n (µm), which sets the field (V + V_bi)/d_i.

    A(V, λ) is the Franz–Keldysh absorption (``eam_absorption_db``); the phase adds
    2π Γ Δn(V, λ) L/λ, the Kramers–Kronig partner of the absorption change (``electroabsorption``), so
    the output's chirp is ``eam_chirp_alpha``. Passive and reciprocal.
    """
    width = ridge_width(cross_section, width)
    _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    check_range("voltage_v", voltage_v, 0.0, EAM_MAX_REVERSE_BIAS_V, unit="V")
    insertion_loss_db = check_range("insertion_loss_db", insertion_loss_db, 0.0, 30.0, unit="dB")  # NaN if traced
    bandgap_wavelength_um, absorber_confinement, intrinsic_thickness_um = check_absorber(
        bandgap_wavelength_um, absorber_confinement, intrinsic_thickness_um)
    wl = jnp.asarray(wl, dtype=float)
    total = absorber_length + 2 * taper_length
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    field = fk.field_v_per_m(voltage_v, intrinsic_thickness_um)
    loss_db = scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm) * total * 1e-4 + insertion_loss_db + eam_absorption_db(
        voltage_v, absorber_length, wl, bandgap_wavelength_um, absorber_confinement, intrinsic_thickness_um)
    dn = absorber_confinement * fk.index_change(wl, field, bandgap_wavelength_um)
    t = 10.0 ** (-loss_db / 20.0) * jnp.exp(2j * jnp.pi * (n * total + dn * absorber_length) / wl)
    return reciprocal({("o1", "o2"): t})


DEVICES = {
    "eam": Device(
        "eam",
        eam,
        eam_model,
        extremes=(
            {"absorber_length": 10.0, "mesa_width": 3.4, "taper_length": 5.0, "electrode_width": 2.0},
            {"absorber_length": 1000.0, "mesa_width": 20.0, "voltage_v": EAM_MAX_REVERSE_BIAS_V},
        ),
        grad_params={"voltage_v": 3.0, "absorber_length": 100.0, "width": 1.4, "insertion_loss_db": 2.0,
                     "bandgap_wavelength_um": 1.47, "intrinsic_thickness_um": 0.3},
        model_only=("voltage_v", "insertion_loss_db", "bandgap_wavelength_um", "absorber_confinement",
                    "intrinsic_thickness_um", "sidewall_angle_deg", "cladding"),
    ),
}
