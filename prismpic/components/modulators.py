"""Pockels modulators: phase shifter and push-pull traveling-wave MZM; cells, models, half-wave voltages.

Pockels tuning (X-cut, TE along crystal z, field across the electrode gap along z):
Δn_eff = ½ n_e³ r33 Γ f V/g, with Γ = ``prismpic.pdk.eo_overlap`` (the optical overlap
with a *uniform* field V/g, as the mode solver defines it) and f the electrostatic field
factor of the electrode layout (``prismpic.pdk.electrodes.field_factor``, the fit of the FEM in
``prismpic.pdk.electrostatics``): the mean in-plane field in the ridge over V/g at the process's
film, etch, wall angle and cladding, for electrodes on the slab (``electrode_height`` None) or
above the cladding (``electrode_height`` in µm), unless ``field_factor`` is given. The ring's
tuning (``prismpic.components.ring_physics``) takes the same f. A single arm then has
Vπ·L = λ g / (n_e³ r33 Γ f); push-pull (two arms driven in opposite sense) halves it.

The MZM's traveling-wave line (n_RF, Z0, RF loss, EO bandwidth) is in
``prismpic.components.rf_line``; the heterogeneous EAM in ``prismpic.components.eam``.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_layout_length, check_positive, check_range, concrete
from prismpic.components.couplers import y_splitter, y_splitter_model
from prismpic.components.model_signature import CELL, Cladding, FloatArrayLike, FloatLike, model_of, reciprocal
from prismpic.components.registry import Device
from prismpic.components.sbends import check_sbend_radius, sbend_length, sbend_points, sbend_response
from prismpic.components.units import db_to_amplitude
from prismpic.components.waveguides import check_waveguide_params, horizontal_path
from prismpic.lazy_imports import gf, gf_cell, sax
from prismpic.pdk import dispersion, layers, materials, scattering
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import get_cross_section, ridge_width
from prismpic.pdk.electrodes import DOMAIN, check_electrode_layout
from prismpic.pdk.electrodes import field_factor as layout_field_factor
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM, SIDEWALL_ANGLE_DEG

_PAD_MARGIN = 5.0  # µm of metal around each PAD opening
# A DC bias phase is set by a bias voltage or a heater within a period or two of the transfer curve (it is
# defined modulo 2π; a fitted one stays within two periods either side): |bias_phase_rad| ≤ 4π.
MAX_BIAS_PHASE_RAD = 4 * math.pi


def _float(x):
    a = concrete(x)
    return None if a is None else float(a)

# ---------------------------------------------------------------------------- drive voltage
def _check_voltage(voltage_v, lo=None):
    vmax = RULES.max_electrode_voltage_v
    check_range("voltage_v", voltage_v, -vmax if lo is None else lo, vmax, unit="V")


# ---------------------------------------------------------------------------- phase shifter
def check_electrode_clearance(name: str, value, width, hi: float = DOMAIN["electrode_gap"][1],
                              electrode_height=None) -> None:
    """ValueError naming ``name`` unless the electrode gap ``value`` (µm) leaves the metal-to-ridge
    clearance (``RULES.min_metal_to_ridge``, µm) on both sides of a ridge of ``width`` (µm); ≤ ``hi`` (µm).
    With ``electrode_height`` (µm, electrodes above the cladding) the edges must not reach over the ridge top."""
    lo = _float(width + (2 * RULES.min_metal_to_ridge if electrode_height is None else 0.0))
    if lo is not None:
        check_range(name, value, lo, hi, unit="µm")
    if electrode_height is not None:
        check_electrode_layout(value, width, 0.0, electrode_height, "sio2", gap_name=name)


@platform_cell
@gf_cell
def phase_shifter(
    length: float = 1000.0,
    electrode_gap: float = 5.0,
    electrode_width: float = 20.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
    electrode_height: float | None = None,
) -> gf.Component:
    """Pockels phase shifter: a straight ridge centred between two electrodes.

    Args:
        length: ridge and electrode length (µm).
        electrode_gap: electrode edge-to-edge gap (µm), ≥ width + 2 µm (1 µm clearance) on the slab,
            ≥ width above the cladding.
        electrode_width: width of each electrode (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.
        electrode_height: None: electrodes on the slab; else the metal bottom's height above the film
            top (µm, 0.3–2), on the SiO2 cladding (400 nm-film foundry layout).

    Ports o1, o2 (optical); e1 (upper electrode, facing north), e2 (lower, facing south).

    .. code::

                  e1
        ██████████████████████
        o1 ────────────────── o2   gap
        ██████████████████████
                  e2
    """
    width = ridge_width(cross_section, width)
    check_layout_length("length", length)
    check_electrode_clearance("electrode_gap", electrode_gap, width, electrode_height=electrode_height)
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 1000.0, unit="µm")
    xs = get_cross_section(cross_section, width=width)
    c = gf.Component()
    ridge = c << gf.path.straight(length=length).extrude(xs)
    y0, y1 = electrode_gap / 2, electrode_gap / 2 + electrode_width
    for sign in (1, -1):
        c.add_polygon([(0, sign * y0), (length, sign * y0), (length, sign * y1), (0, sign * y1)], layer=layers.LAYER.ELECTRODE)
    c.add_port("o1", port=ridge.ports["o1"])
    c.add_port("o2", port=ridge.ports["o2"])
    pw = min(electrode_width, length)
    for name, sign, orientation in (("e1", 1, 90), ("e2", -1, 270)):
        c.add_port(
            name, center=(length / 2, sign * y1), width=pw, orientation=orientation, layer=layers.LAYER.ELECTRODE,
            port_type="electrical",
        )
    return c


@model_of(phase_shifter)
def vpi_l_v_cm(
    wl=1.55,
    electrode_gap=CELL,
    width=CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    push_pull: bool = False,
    field_factor=None,
    cross_section=CELL,
    sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
    cladding=CLADDING,
    electrode_height=CELL,
    ridge_offset=0.0,
):
    """Half-wave voltage–length product (V·cm): λ g / (n_e³ r33 Γ f), halved for push-pull.

    ``electrode_gap``, ``width`` (None: the cross-section's), ``cross_section`` and ``electrode_height``
    default to the ``phase_shifter`` cell's. n_e from Zelmon et al. (1997) (bulk extraordinary index, the
    index the Pockels perturbation acts on), r33 from ``materials``, Γ from ``prismpic.pdk.eo_overlap`` at
    the process's film, etch, wall angle (°, from the horizontal) and cladding, f from
    ``prismpic.pdk.electrodes.field_factor`` of the same stack and electrode layout (``ridge_offset``, µm:
    ridge centre minus gap centre) unless given.
    """
    width = ridge_width(cross_section, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    return ridge_vpi_l_v_cm(wl, electrode_gap, ridge, push_pull, field_factor, electrode_height=electrode_height,
                            ridge_offset=ridge_offset)


def ridge_vpi_l_v_cm(wl, electrode_gap, ridge: RidgeStack, push_pull: bool = False, field_factor=None,
                     electrode_height=None, ridge_offset=0.0):
    """``vpi_l_v_cm`` (V·cm) of a ``RidgeStack``: what the modulator models compute once they hold their ridge.

    Args:
        wl: wavelength (µm).
        electrode_gap: electrode edge-to-edge gap g (µm).
        ridge: the ridge and its stack (``RidgeStack``: width, film, etch in µm, wall angle in degrees, cladding).
        push_pull: halve the single arm's Vπ·L (two arms driven in opposite sense).
        field_factor: electrostatic field factor f (dimensionless); None: the electrode layout's.
        electrode_height: None (metal on the slab) or the metal's height above the film top (µm).
        ridge_offset: ridge centre minus gap centre (µm).
    """
    check_range("electrode_gap", electrode_gap, 0.0, 1000.0, unit="µm", lo_open=True)
    if field_factor is None:
        check_electrode_layout(electrode_gap, ridge.width, ridge_offset, electrode_height, ridge.cladding)
        f = layout_field_factor(electrode_gap, ridge, ridge_offset=ridge_offset, electrode_height=electrode_height)
    else:
        f = field_factor
    check_range("field_factor", f, 0.0, 1.5, lo_open=True)
    wl = jnp.asarray(wl, dtype=float)
    gamma = dispersion.eo_overlap(wl, ridge)
    ne = materials.n_ln_e(wl)
    vpil_um = wl * electrode_gap / (ne**3 * materials.R33_PM_PER_V * 1e-6 * gamma * f)
    return vpil_um * 1e-4 / (2.0 if push_pull else 1.0)


@model_of(phase_shifter)
def phase_shifter_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    electrode_gap: FloatLike,
    electrode_width: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    voltage_v: FloatLike = 0.0,
    field_factor: FloatLike | None = None,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
    electrode_height: FloatLike | None,
) -> sax.SDict:
    """t = 10^(−αL/20) exp(i(2π n_eff L/λ + π V/Vπ)), Vπ = λ g / (n_e³ r33 Γ f L) (single arm).

    ``voltage_v`` is the DC voltage of e1 against e2 (V); ``field_factor`` None takes the layout's
    (``prismpic.pdk.electrodes.field_factor``). ``electrode_width`` sets only the layout. Process parameters
    (``film_thickness``, ``etch_depth``, ``sidewall_angle_deg``, ``cladding``) as ``waveguides``'.

    Args:
        wl: wavelength (µm), scalar or array.
        length, electrode_gap, electrode_width, width, cross_section, electrode_height: as the cell (µm; the
            cross-section a name; ``electrode_height`` None puts the electrodes on the slab).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm); None: from physics (``scattering.propagation_loss_db_per_cm``:
            absorption and sidewall scattering; the electrodes' gold is left out, ``loss_budget.pockels_loss_budget``
            or ``prismpic loss --device mzm`` gives it: 0.03 dB/cm at the default 5 µm gap, 7.8 at the 3.4 µm rule).
        voltage_v: DC voltage of e1 against e2 (V).
        field_factor: electrostatic field factor f (dimensionless); None: the layout's.
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
    """
    width = ridge_width(cross_section, width)
    length = check_positive("length", length, unit="µm")  # NaN if traced and not positive
    check_electrode_clearance("electrode_gap", electrode_gap, width, electrode_height=electrode_height)
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 1000.0, unit="µm")
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    _check_voltage(voltage_v)
    wl = jnp.asarray(wl, dtype=float)
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    vpil = ridge_vpi_l_v_cm(wl, electrode_gap, ridge, False, field_factor, electrode_height=electrode_height)
    vpi = vpil * 1e4 / length
    phase = 2 * jnp.pi * n * length / wl + jnp.pi * voltage_v / vpi
    t = db_to_amplitude(scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm) * length * 1e-4) * jnp.exp(1j * phase)
    return reciprocal({("o1", "o2"): t})


# ---------------------------------------------------------------------------- MZM
def _check_mzm(length, electrode_gap, signal_width, ground_width, pad_size, transition_length, width,
               electrode_height=None):
    check_layout_length("length", length)
    check_electrode_clearance("electrode_gap", electrode_gap, width, electrode_height=electrode_height)
    check_range("signal_width", signal_width, RULES.min_metal_width, 1000.0, unit="µm")
    pad_min = RULES.min_pad_size + 2 * _PAD_MARGIN
    check_range("ground_width", ground_width, pad_min, 5000.0, unit="µm")
    lo = _float(signal_width)
    check_range("pad_size", pad_size, pad_min if lo is None else max(pad_min, lo), 1000.0, unit="µm")
    check_layout_length("transition_length", transition_length)
    check_sbend_radius("transition_length", transition_length, (pad_size - signal_width) / 2)


def _offset(points: np.ndarray, d: float) -> np.ndarray:
    """Polyline offset by ``d`` along its left normal."""
    t = np.gradient(points, axis=0)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    return points + d * np.stack([-t[:, 1], t[:, 0]], axis=1)


@platform_cell
@gf_cell
def mzm(
    length: float = 5000.0,
    electrode_gap: float = 5.0,
    signal_width: float = 15.0,
    ground_width: float = 80.0,
    pad_size: float = 80.0,
    transition_length: float = 150.0,
    splitter_length: float = 150.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
    electrode_height: float | None = None,
) -> gf.Component:
    """X-cut push-pull Mach–Zehnder modulator with a GSG traveling-wave electrode.

    Y-splitter → two arms in the two gaps of a ground–signal–ground line → mirrored
    Y-combiner. Each arm runs at constant gap to the electrodes through a probe-pad
    section (arms ``pad_size`` + g apart), an S-bend transition and the straight line
    (arms ``signal_width`` + g apart), and back out. The signal pads lie between the
    arms (probe or wire-bond them; a trace out would cross an arm); the ground pads
    outside can be routed.

    Args:
        length: straight traveling-wave section (µm).
        electrode_gap: signal-to-ground gap g (µm), ≥ width + 2 µm; each arm centred in one.
        signal_width: signal line width in the straight section (µm).
        ground_width: ground metal width at the pads (µm), ≥ 60.
        pad_size: pad length and signal pad width (µm), ≥ 60 (PAD opening 10 µm smaller).
        transition_length: S-bend transition between pads and line, along x (µm).
        splitter_length: S-bend length of each Y-splitter (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.
        electrode_height: None: electrodes on the slab; else the metal bottom's height above the film
            top (µm, 0.3–2), on the SiO2 cladding (400 nm-film foundry layout; g ≥ width then).

    Ports o1 (in), o2 (out); e1, e2, e3 = G (bottom), S, G (top) at the input pads,
    e4, e5, e6 = G (top), S, G (bottom) at the output pads. Ground ports sit on the
    outer metal edge facing out (south/north); signal ports at the pad centre facing
    west/east (a landing pad, enclosed by the arms).

    .. code::

               ______________________________________________
              |  G   ____________________________________ G  |
           __/ ____/                                      \\____ \\__
        o1 __<  S  |____________________________________|  S  >__ o2
             \\ ____                                       ____ /
              | G    \\__________________________________/   G |
              |______________________________________________|
    """
    width = ridge_width(cross_section, width)
    _check_mzm(length, electrode_gap, signal_width, ground_width, pad_size, transition_length, width, electrode_height)
    g, s, p, t = electrode_gap, signal_width, pad_size, transition_length
    xs = get_cross_section(cross_section, width=width)
    y_pad, y_line = (p + g) / 2, (s + g) / 2
    bend_in = sbend_points(t, y_line - y_pad) + (p, y_pad)
    bend_out = sbend_points(t, y_pad - y_line) + (p + t + length, y_line)
    total = 2 * p + 2 * t + length
    center = np.concatenate([[(0.0, y_pad)], bend_in, bend_out, [(total, y_pad)]])
    arm = horizontal_path(center).extrude(xs)
    c = gf.Component()
    split = y_splitter(length=splitter_length, output_separation=p + g, width=width, cross_section=cross_section)
    sp = c << split
    sp.dmove(sp.ports["o2"].dcenter, (0.0, y_pad))
    comb = c << split
    comb.dmirror_x()
    comb.dmove(comb.ports["o2"].dcenter, (total, y_pad))
    c << arm
    bot = c << arm
    bot.dmirror_y()
    # electrodes at constant gap g/2 from each arm's centreline
    edge = _offset(center, -g / 2)
    c.add_polygon(np.concatenate([edge, edge[::-1] * (1, -1)]), layer=layers.LAYER.ELECTRODE)
    y_out = y_pad + g / 2 + ground_width
    inner = _offset(center, g / 2)
    for sign in (1, -1):
        ground = np.concatenate([inner, [(total, y_out), (0.0, y_out)]]) * (1, sign)
        c.add_polygon(ground, layer=layers.LAYER.ELECTRODE)
    # PAD openings and electrical ports at the pads
    o = _PAD_MARGIN
    yg = y_pad + g / 2 + ground_width / 2
    names = {0.0: ("e1", "e2", "e3"), 1.0: ("e6", "e5", "e4")}
    for side, (n_bot, n_sig, n_top) in names.items():
        x0 = side * (total - p)
        xc = x0 + p / 2
        boxes = ((n_bot, -yg, ground_width), (n_sig, 0.0, p), (n_top, yg, ground_width))
        for name, yc, h in boxes:
            lo, hi = yc - h / 2 + o, yc + h / 2 - o
            c.add_polygon([(x0 + o, lo), (x0 + p - o, lo), (x0 + p - o, hi), (x0 + o, hi)], layer=layers.LAYER.PAD)
            # grounds: on the outer metal edge, facing out (routable); signal: the pad, facing along x
            ground = name != n_sig
            center = (xc, math.copysign(y_out, yc)) if ground else (xc, 0.0)
            orientation = (90 if yc > 0 else 270) if ground else (180 if side == 0 else 0)
            c.add_port(
                name, center=center, width=p - 2 * o, orientation=orientation, layer=layers.LAYER.ELECTRODE,
                port_type="electrical",
            )
    c.add_port("o1", port=sp.ports["o1"])
    c.add_port("o2", port=comb.ports["o1"])
    c.info["modulation_length"] = float(mzm_modulation_length(length, s, p, t))
    c.info["probe_pitch"] = float(yg)
    return c


@model_of(mzm)
def mzm_modulation_length(length=CELL, signal_width=CELL, pad_size=CELL, transition_length=CELL):
    """Length (µm) of each arm inside the electrode gap: straight + both transitions + both pads (defaults: mzm's)."""
    offset = (pad_size - signal_width) / 2
    return length + 2 * pad_size + 2 * sbend_length(transition_length, offset)


@model_of(mzm)
def mzm_vpi_l_v_cm(
    wl=1.55, electrode_gap=CELL, width=CELL, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH, field_factor=None,
    cross_section=CELL, sidewall_angle_deg=SIDEWALL_ANGLE_DEG, cladding=CLADDING, electrode_height=CELL,
):
    """Push-pull MZM Vπ·L (V·cm) = λ g / (2 n_e³ r33 Γ f); see ``vpi_l_v_cm``. Geometry defaults: ``mzm``'s."""
    width = ridge_width(cross_section, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    return ridge_vpi_l_v_cm(wl, electrode_gap, ridge, True, field_factor, electrode_height=electrode_height)


@model_of(mzm)
def mzm_vpi_v(
    wl=1.55,
    length=CELL,
    electrode_gap=CELL,
    signal_width=CELL,
    pad_size=CELL,
    transition_length=CELL,
    width=CELL,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    field_factor=None,
    cross_section=CELL,
    sidewall_angle_deg=SIDEWALL_ANGLE_DEG,
    cladding=CLADDING,
    electrode_height=CELL,
):
    """DC half-wave voltage (V) of ``mzm``: Vπ·L (push-pull) over the modulation length.

    Geometry defaults are the ``mzm`` cell's (``width`` None: the cross-section's).
    """
    width = ridge_width(cross_section, width)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    lm = mzm_modulation_length(length, signal_width, pad_size, transition_length)
    return ridge_vpi_l_v_cm(wl, electrode_gap, ridge, True, field_factor, electrode_height=electrode_height) * 1e4 / lm


@model_of(mzm)
def mzm_model(
    wl: FloatArrayLike = 1.55,
    *,
    length: FloatLike,
    electrode_gap: FloatLike,
    signal_width: FloatLike,
    ground_width: FloatLike,
    pad_size: FloatLike,
    transition_length: FloatLike,
    splitter_length: FloatLike,
    width: FloatLike | None,
    cross_section: str,
    film_thickness: FloatLike = FILM_THICKNESS,
    etch_depth: FloatLike = ETCH_DEPTH,
    loss_db_per_cm: FloatLike | None = LOSS_DB_PER_CM,
    excess_loss_db: FloatLike = 0.2,
    imbalance_db: FloatLike = 0.0,
    voltage_v: FloatLike = 0.0,
    bias_phase_rad: FloatLike = 0.0,
    field_factor: FloatLike | None = None,
    sidewall_angle_deg: FloatLike = SIDEWALL_ANGLE_DEG,
    cladding: Cladding = CLADDING,
    electrode_height: FloatLike | None,
) -> sax.SDict:
    """DC transmission of the push-pull MZM: t = t_arm (a₂² e^{iψ/2} + a₃² e^{−iψ/2}).

    a₂, a₃: the splitter's branch amplitudes (``y_splitter_model``: excess loss, imbalance,
    propagation), the combiner being the same splitter mirrored so its upper branch is
    again o2 (the imbalances add: extinction ((r+1)/(r−1))², r = 10^(imbalance_db/10));
    t_arm: one arm (pads, transitions, straight); ψ = π V/Vπ + bias_phase_rad with
    Vπ = λ g/(2 n_e³ r33 Γ f L_m), L_m = ``mzm_modulation_length``. ``voltage_v`` is
    the DC signal-to-ground voltage (V); ``bias_phase_rad`` in [−4π, 4π] (``MAX_BIAS_PHASE_RAD``).
    ``ground_width`` sets only the layout; ``electrode_height`` places the electrodes (see ``mzm``).

    Args:
        wl: wavelength (µm), scalar or array.
        length, electrode_gap, signal_width, ground_width, pad_size, transition_length, splitter_length, width,
            cross_section, electrode_height: as the cell (µm; the cross-section a name).
        film_thickness, etch_depth: LN film and ridge etch (µm).
        loss_db_per_cm: propagation loss (dB/cm); None: from physics (``scattering.propagation_loss_db_per_cm``:
            absorption and sidewall scattering; the electrodes' gold is left out, ``loss_budget.pockels_loss_budget``
            or ``prismpic loss --device mzm`` gives it: 0.03 dB/cm at the default 5 µm gap, 7.8 at the 3.4 µm rule).
        excess_loss_db, imbalance_db: each splitter's excess loss and branch imbalance (dB), as ``y_splitter_model``.
        voltage_v: DC signal-to-ground voltage (V).
        bias_phase_rad: static phase between the arms (rad).
        field_factor: electrostatic field factor f (dimensionless); None: the layout's.
        sidewall_angle_deg, cladding: ridge wall from the horizontal (°) and cladding (``prismpic.pdk.neff``).
    """
    width = ridge_width(cross_section, width)
    _check_mzm(length, electrode_gap, signal_width, ground_width, pad_size, transition_length, width, electrode_height)
    ridge = RidgeStack(width=width, film_thickness=film_thickness, etch_depth=etch_depth,
                       sidewall_angle_deg=sidewall_angle_deg, cladding=cladding)
    loss_db_per_cm = check_waveguide_params(ridge, loss_db_per_cm)
    _check_voltage(voltage_v)
    bias_phase_rad = check_range("bias_phase_rad", bias_phase_rad, -MAX_BIAS_PHASE_RAD, MAX_BIAS_PHASE_RAD,
                                 unit="rad")  # NaN outside when traced
    check_positive("splitter_length", splitter_length, unit="µm")
    wl = jnp.asarray(wl, dtype=float)
    try:
        sp = y_splitter_model(
            wl, length=splitter_length, output_separation=pad_size + electrode_gap, cross_section=cross_section,
            loss_db_per_cm=loss_db_per_cm, excess_loss_db=excess_loss_db, imbalance_db=imbalance_db, **ridge.params(),
        )
    except ValueError as e:  # name the MZM's own parameter, not the splitter's
        if not str(e).startswith("length"):
            raise
        raise ValueError(f"splitter_length = {splitter_length} µm (the Y-splitters' length): {e}") from None
    a2, a3 = sp[("o1", "o2")], sp[("o1", "o3")]
    n = dispersion.neff(wl, ridge, jnp.inf, "te", "z")
    straight = length + 2 * pad_size
    loss_db = scattering.propagation_loss_db_per_cm(wl, ridge, loss_db_per_cm) * straight * 1e-4
    t_arm = db_to_amplitude(loss_db) * jnp.exp(2j * jnp.pi * n * straight / wl)
    offset = (pad_size - signal_width) / 2
    bend = sbend_response(wl, transition_length, offset, ridge, loss_db_per_cm)
    t_arm = t_arm * bend**2
    lm = mzm_modulation_length(length, signal_width, pad_size, transition_length)
    vpi = ridge_vpi_l_v_cm(wl, electrode_gap, ridge, True, field_factor, electrode_height=electrode_height) * 1e4 / lm
    psi = jnp.pi * voltage_v / vpi + bias_phase_rad
    t = t_arm * (a2**2 * jnp.exp(0.5j * psi) + a3**2 * jnp.exp(-0.5j * psi))
    return reciprocal({("o1", "o2"): t})


DEVICES = {
    "phase_shifter": Device(
        "phase_shifter",
        phase_shifter,
        phase_shifter_model,
        extremes=(
            {"length": 10.0, "electrode_gap": 3.4, "electrode_width": 2.0},
            {"length": 20000.0, "electrode_gap": 20.0, "width": 1.0, "voltage_v": RULES.max_electrode_voltage_v},
        ),
        grad_params={"voltage_v": 3.0, "width": 1.4, "etch_depth": ETCH_DEPTH},
        model_only=("voltage_v", "field_factor", "sidewall_angle_deg", "cladding"),
    ),
    "mzm": Device(
        "mzm",
        mzm,
        mzm_model,
        extremes=(
            {"length": 100.0, "electrode_gap": 3.4, "signal_width": 60.0, "pad_size": 60.0, "ground_width": 60.0},
            {"length": 20000.0, "electrode_gap": 12.0, "signal_width": 5.0, "voltage_v": -10.0, "imbalance_db": 1.0},
        ),
        # at the default etch: the S-bends' bend tables need etch/film in [0.5, 0.8], and a
        # central difference about an edge of that range (e.g. 0.3/0.6) steps outside it
        grad_params={"voltage_v": 3.0, "electrode_gap": 5.0, "signal_width": 15.0, "etch_depth": ETCH_DEPTH},
        model_only=("excess_loss_db", "imbalance_db", "voltage_v", "bias_phase_rad", "field_factor",
                    "sidewall_angle_deg", "cladding"),
    ),
}
