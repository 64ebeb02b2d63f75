"""Electro-absorption modulator: a heterogeneously integrated III-V block on the LN ridge; cell and model.

TFLN has no electro-absorption of its own: the EAM is a III-V (QCSE/Franz–Keldysh)
section bonded over the ridge, with tapers that move the light into the III-V and back.
The model is phenomenological (``eam_absorption_db``) with an RC-limited bandwidth
(``eam_bandwidth_ghz``). Figures marked † are typical literature values, recalled.
"""

from __future__ import annotations

import math

import gdsfactory as gf
import jax.numpy as jnp
import sax
from scipy.constants import epsilon_0

from prismpic.checks import check_layout_length, check_positive, check_range
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of
from prismpic.components.modulators import check_electrode_clearance
from prismpic.components.registry import Device
from prismpic.components.waveguides import check_waveguide_params
from prismpic.pdk import dispersion
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import get_cross_section, ridge_width
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

EAM_MAX_REVERSE_BIAS_V = 10.0  # reverse bias limit of the III-V diode (breakdown margin) †
# V½ of the absorption curve (V): MQW EAMs reach half their swing at ~0.5–3 V †. Below 10 mV (under the thermal
# voltage) the curve is a step; above 10× the bias limit the absorption never reaches 1 % of its change in range.
V_HALF_RANGE_V = (0.01, 10 * EAM_MAX_REVERSE_BIAS_V)


def _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width):
    # lumped III-V EAMs are 50–500 µm long, their tapers tens of µm †: 1 cm bounds both
    check_layout_length("absorber_length", absorber_length, hi=1e4)
    check_electrode_clearance("mesa_width", mesa_width, width, hi=100.0)
    check_layout_length("taper_length", taper_length, hi=1e4)
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 1000.0, unit="µm")


@platform_cell
@gf.cell
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
    c.add_polygon(outline, layer=LAYER.SOA)
    for sign in (1, -1):
        y0, y1 = sign * h, sign * (h + electrode_width)
        c.add_polygon([(x1, y0), (x2, y0), (x2, y1), (x1, y1)], layer=LAYER.ELECTRODE)
    c.add_port("o1", port=ridge.ports["o1"])
    c.add_port("o2", port=ridge.ports["o2"])
    for name, sign, orientation in (("e1", 1, 90), ("e2", -1, 270)):
        c.add_port(
            name, center=(total / 2, sign * (h + electrode_width)), width=min(absorber_length, electrode_width),
            orientation=orientation, layer=LAYER.ELECTRODE, port_type="electrical",
        )
    return c


@model_of(eam)
def eam_absorption_db(voltage_v=0.0, absorber_length=CELL, absorption_change_db_per_um=0.1, v_half_v=2.0):
    """Bias-induced absorption (dB): Δα_max L · V²/(V² + V½²), a smooth saturating QCSE-like curve.

    ``absorber_length`` L (µm) defaults to the ``eam`` cell's.

    A phenomenological curve (the QCSE/Franz–Keldysh edge shift is quadratic in the
    field at low bias and the absorption saturates once the edge passes the signal):
    zero and flat at V = 0, half the full change at V = ``v_half_v`` (V, in ``V_HALF_RANGE_V``). The extinction
    ratio at V is this number. ``absorption_change_db_per_um`` Δα_max in [0, 10] dB/µm.
    """
    absorption_change_db_per_um = check_range("absorption_change_db_per_um", absorption_change_db_per_um, 0.0, 10.0,
                                              unit="dB/µm")  # NaN outside when traced
    v_half_v = check_range("v_half_v", v_half_v, *V_HALF_RANGE_V, unit="V")
    v2 = jnp.asarray(voltage_v, dtype=float) ** 2
    return absorption_change_db_per_um * absorber_length * v2 / (v2 + v_half_v**2)


@model_of(eam)
def eam_bandwidth_ghz(
    absorber_length=CELL, mesa_width=CELL, intrinsic_thickness_um=0.4, eps_r=12.5, resistance_ohm=25.0
):
    """RC-limited 3-dB bandwidth (GHz) of a lumped EAM: 1/(2π R C), C = ε0 ε_r w L / d_i.

    ``absorber_length`` L and ``mesa_width`` w (µm) default to the ``eam`` cell's.

    R = 25 Ω: a 50 Ω source in parallel with a 50 Ω termination. ε_r ≈ 12.5 and a
    0.4 µm intrinsic region are typical of InGaAsP/InGaAlAs MQW stacks †; the
    junction is taken as wide as the mesa.
    """
    check_positive("intrinsic_thickness_um", intrinsic_thickness_um, unit="µm")
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
    loss_db_per_cm: FloatLike = LOSS_DB_PER_CM,
    voltage_v: FloatLike = 0.0,
    insertion_loss_db: FloatLike = 4.0,
    absorption_change_db_per_um: FloatLike = 0.1,
    v_half_v: FloatLike = 2.0,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
) -> sax.SDict:
    """Heterogeneous EAM block: |t|² = 10^(−(IL + ΔA(V))/10), phase of the LN ridge underneath.

    ``insertion_loss_db``: the unbiased loss (two LN↔III-V transitions and residual
    absorption; 3–5 dB is typical of bonded III-V EAMs †). ΔA(V) from
    ``eam_absorption_db``; Δα_max ≈ 0.1 dB/µm (≈ 10 dB over 100 µm at full swing) and
    V½ = 2 V are typical MQW figures †. ``voltage_v`` is the reverse bias, in
    [0, 10] V. The III-V section's own phase and chirp are not modelled (the phase is
    that of the LN ridge, at the process's film, etch, wall angle and cladding); wavelength dependence
    of the absorption edge is neglected. Passive and reciprocal.
    """
    width = ridge_width(cross_section, width)
    _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width)
    loss_db_per_cm = check_waveguide_params(width, film_thickness, etch_depth, loss_db_per_cm, cladding)
    check_range("voltage_v", voltage_v, 0.0, EAM_MAX_REVERSE_BIAS_V, unit="V")
    insertion_loss_db = check_range("insertion_loss_db", insertion_loss_db, 0.0, 30.0, unit="dB")  # NaN if traced
    wl = jnp.asarray(wl, dtype=float)
    total = absorber_length + 2 * taper_length
    n = dispersion.neff(wl, width, film_thickness, etch_depth, jnp.inf, "te", "z",
                        sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db = loss_db_per_cm * total * 1e-4 + insertion_loss_db
    # eam_absorption_db checks absorption_change_db_per_um and v_half_v
    loss_db = loss_db + eam_absorption_db(voltage_v, absorber_length, absorption_change_db_per_um, v_half_v)
    t = 10.0 ** (-loss_db / 20.0) * jnp.exp(2j * jnp.pi * n * total / wl)
    return sax.reciprocal({("o1", "o2"): t})


DEVICES = {
    "eam": Device(
        "eam",
        eam,
        eam_model,
        extremes=(
            {"absorber_length": 10.0, "mesa_width": 3.4, "taper_length": 5.0, "electrode_width": 2.0},
            {"absorber_length": 1000.0, "mesa_width": 20.0, "voltage_v": EAM_MAX_REVERSE_BIAS_V},
        ),
        grad_params={"voltage_v": 3.0, "absorber_length": 100.0, "width": 1.4, "insertion_loss_db": 4.0},
        model_only=("voltage_v", "insertion_loss_db", "absorption_change_db_per_um", "v_half_v", "sidewall_angle_deg",
                    "cladding"),
    ),
}
