"""Modulators: Pockels phase shifter, push-pull traveling-wave MZM, heterogeneous EAM.

Pockels tuning (X-cut, TE along crystal z, field across the electrode gap along z):
Δn_eff = ½ n_e³ r33 Γ f V/g, with Γ = ``prismpic.pdk.eo_overlap`` (the optical overlap
with a *uniform* field V/g, as the mode solver defines it) and f the electrostatic field
factor: the mean in-plane field in the ridge over V/g. The field in the LN is well below
V/g (most of the potential drops across the low-ε cladding and the slab under the
electrodes carries the rest); ``electrode_field_factor`` computes f by a 2-D
electrostatic FEM and ``field_factor_fit`` is a fit of it for the platform stack that
the models use unless ``field_factor`` is given. A single arm then has
Vπ·L = λ g / (n_e³ r33 Γ f); push-pull (two arms driven in opposite sense) halves it.

The MZM's high-frequency response (``mzm_eo_response``, ``mzm_bandwidth_ghz``) is the
standard traveling-wave result with RF loss, velocity and impedance mismatch (e.g.
Ghione, Semiconductor Devices for High-Speed Optoelectronics, CUP 2009, ch. 6; Zhu et
al., Adv. Opt. Photon. 13, 242 (2021)); n_RF and Z0 of the coplanar line come from a
quasi-static partial-capacitance model (``cpw_line``).
"""

from __future__ import annotations

import math

import gdsfactory as gf
import jax
import jax.numpy as jnp
import numpy as np
import sax

from prismpic.checks import check_positive, check_range, concrete
from prismpic.components.couplers import (
    _NODES,
    _WEIGHTS,
    _check_sbend,
    _sbend_points,
    _sbend_samples,
    sbend_response,
    y_splitter,
    y_splitter_model,
)
from prismpic.components.registry import Device
from prismpic.components.waveguides import _check_common
from prismpic.pdk import dispersion, materials
from prismpic.pdk.cross_sections import get_cross_section, ridge_width
from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import (
    BOX_THICKNESS,
    CLAD_THICKNESS,
    ETCH_DEPTH,
    FILM_THICKNESS,
    LOSS_DB_PER_CM,
    METAL_THICKNESS,
)

C_UM_PER_NS = 2.99792458e5  # speed of light (µm/ns), so f in GHz gives β in 1/µm
EPS_SIO2_RF = 3.9  # thermal/PECVD SiO2 at RF (standard value)
EPS_SI_RF = 11.7  # high-resistivity Si substrate at RF (standard value)
# RF loss of a gold coplanar line on TFLN with a ~5 µm gap: ≈ 0.7 dB cm⁻¹ GHz^-1/2 †
# (Wang et al., Nature 562, 101 (2018); micro-structured electrodes reach less,
# Kharel et al., Optica 8, 357 (2021)).
RF_LOSS_DB_PER_CM_SQRT_GHZ = 0.7
EO_3DB_RESPONSE = 10 ** (-3 / 20)  # electrical 3 dB: 20·log10 m(f) = −3 dB (VNA EO S21 convention)
_PAD_MARGIN = 5.0  # µm of metal around each PAD opening
EAM_MAX_REVERSE_BIAS_V = 10.0  # reverse bias limit of the III-V diode (breakdown margin) †


def _float(x):
    a = concrete(x)
    return None if a is None else float(a)


# ---------------------------------------------------------------------------- electrostatics
def field_factor_fit(electrode_gap=5.0):
    """Electrostatic field factor f(g) = mean E_x in the ridge / (V/g) for the platform stack.

    A fit, f = 0.5728 − 0.0837·ln(g/5 µm), to ``electrode_field_factor`` at the default
    stack (``prismpic.pdk.stack``: 0.6 µm film, 0.35 µm etch, 1.4 µm ridge, 0.8 µm Au on
    the slab, 1.5 µm SiO2 cladding, 4.7 µm BOX on Si; 15 µm signal line, default mesh):
    least squares of [1, −ln(g/5)] over 18 equally spaced gaps 3.4–12 µm, fit error
    < 0.0022; f changes < 0.2 % for signal widths 15–60 µm. Regenerate it that way when
    the stack changes (f falls from 0.621 to 0.571 at g = 5 µm between 0.30 and 0.35 µm
    etch). The P1 mesh (hmin = 0.05 µm) puts f ≈ 0.6 % above its mesh-converged value
    (0.5714, 0.5695, 0.5686 at hmin = 0.05, 0.025, 0.0125 µm, g = 5 µm). The fit does not
    follow film_thickness or etch_depth: for other stacks call ``electrode_field_factor``
    and pass ``field_factor``.
    """
    return 0.5728 - 0.0837 * jnp.log(jnp.asarray(electrode_gap, dtype=float) / 5.0)


def _graded_axis(lo, hi, features, hmin, hmax, growth=0.25):
    """Mesh nodes on [lo, hi]: spacing hmin at the features, growing by ``growth``·distance, ≤ hmax."""
    feats = np.sort(np.asarray(features, dtype=float))
    nodes = [lo]
    x = lo
    while x < hi:
        step = min(hmax, hmin + growth * float(np.min(np.abs(feats - x))))
        ahead = feats[feats > x + 1e-9]
        nxt = x + step
        if ahead.size and nxt > ahead[0] - 0.2 * hmin:
            nxt = ahead[0]
        x = min(nxt, hi)
        nodes.append(x)
    return np.unique(np.asarray(nodes))


def electrode_field_factor(
    electrode_gap: float = 5.0,
    signal_width: float = 15.0,
    width: float = 1.4,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    metal_thickness: float = METAL_THICKNESS,
    clad_thickness: float = CLAD_THICKNESS,
    box_thickness: float = BOX_THICKNESS,
    ground_width: float = 80.0,
    eps_ln: tuple[float, float] = materials.LN_EPS_RF,
    eps_clad: float = EPS_SIO2_RF,
    eps_box: float = EPS_SIO2_RF,
    eps_sub: float = EPS_SI_RF,
    hmin: float = 0.05,
) -> float:
    """Field factor f = ⟨E_x⟩_ridge / (V/g) of a GSG line by a 2-D electrostatic FEM (scikit-fem, P1).

    Solves ∇·(ε∇φ) = 0 over the cross-section: signal (φ = 1) of width ``signal_width``
    between grounds (φ = 0) at gap ``electrode_gap``, metal of ``metal_thickness`` on the
    slab, ridges centred in both gaps, LN anisotropic (ε_z horizontal, ε_x vertical for
    X-cut, ``eps_ln`` = (ε_z, ε_x)), SiO2 cladding over the film, BOX on Si, air above;
    outer boundaries far away (natural condition). Returns E_x averaged uniformly over
    the LN column under one ridge (ridge and slab, |x − x_r| ≤ width/2), times g.
    Not jittable; about a second.
    """
    import skfem as fe

    check_range("electrode_gap", electrode_gap, width, 1000.0, unit="µm", lo_open=True)
    g, s, t = electrode_gap, signal_width, film_thickness
    slab = t - etch_depth
    xr = s / 2 + g / 2
    xg = s / 2 + g + ground_width
    span = 5 * xg
    fx = [0.0, s / 2, s / 2 + g, xg, xr - width / 2, xr + width / 2]
    x = _graded_axis(-span, span, fx + [-v for v in fx], hmin, max(20.0, span / 100))
    top = t + clad_thickness
    fy = [-box_thickness, 0.0, slab, t, slab + metal_thickness, top]
    y = _graded_axis(-box_thickness - span, top + span, fy, hmin / 2, max(20.0, span / 100))
    mesh = fe.MeshTri.init_tensor(x, y)
    basis = fe.Basis(mesh, fe.ElementTriP1())
    ez, ex = eps_ln

    def in_ln(X, Y):
        ridge = (np.abs(np.abs(X) - xr) <= width / 2) & (Y > slab) & (Y <= t)
        return ((Y >= 0) & (Y <= slab)) | ridge

    @fe.BilinearForm
    def laplace(u, v, w):
        X, Y = w.x
        ln = in_ln(X, Y)
        eps = np.where(Y < -box_thickness, eps_sub, np.where(Y < 0, eps_box, np.where(Y <= top, eps_clad, 1.0)))
        return np.where(ln, ez, eps) * u.grad[0] * v.grad[0] + np.where(ln, ex, eps) * u.grad[1] * v.grad[1]

    a = laplace.assemble(basis)
    px, py = mesh.p
    tol = 1e-9
    metal = (py >= slab - tol) & (py <= slab + metal_thickness + tol)
    sig = metal & (np.abs(px) <= s / 2 + tol)
    gnd = metal & (np.abs(px) >= s / 2 + g - tol) & (np.abs(px) <= xg + tol)
    phi = np.zeros(px.size)
    phi[sig] = 1.0
    phi = fe.solve(*fe.condense(a, np.zeros(px.size), x=phi, D=np.flatnonzero(sig | gnd)))
    gx = basis.interpolate(phi).grad[0]
    X, Y = np.asarray(basis.global_coordinates())
    dx = basis.dx
    sel = (np.abs(X - xr) <= width / 2) & (Y >= 0) & (Y <= t)
    return float(-(gx * dx)[sel].sum() / dx[sel].sum() * g)


# ---------------------------------------------------------------------------- Pockels tuning
def vpi_l_v_cm(
    wl=1.55,
    electrode_gap=5.0,
    width=1.4,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    push_pull: bool = False,
    field_factor=None,
):
    """Half-wave voltage–length product (V·cm): λ g / (n_e³ r33 Γ f), halved for push-pull.

    n_e from Zelmon et al. (1997) (bulk extraordinary index, the index the Pockels
    perturbation acts on), r33 from ``materials``, Γ from ``prismpic.pdk.eo_overlap``,
    f from ``field_factor_fit`` (the default stack's, whatever ``film_thickness`` and
    ``etch_depth``) unless given.
    """
    check_range("electrode_gap", electrode_gap, 0.0, 1000.0, unit="µm", lo_open=True)
    f = field_factor_fit(electrode_gap) if field_factor is None else field_factor
    check_range("field_factor", f, 0.0, 1.5, lo_open=True)
    wl = jnp.asarray(wl, dtype=float)
    gamma = dispersion.eo_overlap(wl, width, film_thickness, etch_depth)
    ne = materials.n_ln_e(wl)
    vpil_um = wl * electrode_gap / (ne**3 * materials.R33_PM_PER_V * 1e-6 * gamma * f)
    return vpil_um * 1e-4 / (2.0 if push_pull else 1.0)


def mzm_vpi_l_v_cm(
    wl=1.55, electrode_gap=5.0, width=1.4, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH, field_factor=None
):
    """Push-pull MZM Vπ·L (V·cm) = λ g / (2 n_e³ r33 Γ f); see ``vpi_l_v_cm``."""
    return vpi_l_v_cm(wl, electrode_gap, width, film_thickness, etch_depth, True, field_factor)


def _check_voltage(voltage_v, lo=None):
    vmax = RULES.max_electrode_voltage_v
    check_range("voltage_v", voltage_v, -vmax if lo is None else lo, vmax, unit="V")


# ---------------------------------------------------------------------------- phase shifter
def _check_electrodes(electrode_gap, width):
    lo = _float(width + 2 * RULES.min_metal_to_ridge)
    if lo is not None:
        check_range("electrode_gap", electrode_gap, lo, 1000.0, unit="µm")


@gf.cell
def phase_shifter(
    length: float = 1000.0,
    electrode_gap: float = 5.0,
    electrode_width: float = 20.0,
    width: float | None = None,
    cross_section: str = "xs_ridge",
) -> gf.Component:
    """Pockels phase shifter: a straight ridge centred between two electrodes.

    Args:
        length: ridge and electrode length (µm).
        electrode_gap: electrode edge-to-edge gap (µm), ≥ width + 2 µm (1 µm clearance).
        electrode_width: width of each electrode (µm).
        width: ridge width (µm); None takes the cross-section's.
        cross_section: optical cross-section name.

    Ports o1, o2 (optical); e1 (upper electrode, facing north), e2 (lower, facing south).

    .. code::

                  e1
        ██████████████████████
        o1 ────────────────── o2   gap
        ██████████████████████
                  e2
    """
    width = ridge_width(cross_section, width)
    check_positive("length", length, unit="µm")
    _check_electrodes(electrode_gap, width)
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 1000.0, unit="µm")
    xs = get_cross_section(cross_section, width=width)
    c = gf.Component()
    ridge = c << gf.path.straight(length=length).extrude(xs)
    y0, y1 = electrode_gap / 2, electrode_gap / 2 + electrode_width
    for sign in (1, -1):
        c.add_polygon([(0, sign * y0), (length, sign * y0), (length, sign * y1), (0, sign * y1)], layer=LAYER.ELECTRODE)
    c.add_port("o1", port=ridge.ports["o1"])
    c.add_port("o2", port=ridge.ports["o2"])
    pw = min(electrode_width, length)
    for name, sign, orientation in (("e1", 1, 90), ("e2", -1, 270)):
        c.add_port(
            name, center=(length / 2, sign * y1), width=pw, orientation=orientation, layer=LAYER.ELECTRODE,
            port_type="electrical",
        )
    return c


def phase_shifter_model(
    wl=1.55,
    length=1000.0,
    electrode_gap=5.0,
    electrode_width=20.0,
    width=None,
    cross_section: str = "xs_ridge",
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    loss_db_per_cm=LOSS_DB_PER_CM,
    voltage_v=0.0,
    field_factor=None,
) -> sax.SDict:
    """t = 10^(−αL/20) exp(i(2π n_eff L/λ + π V/Vπ)), Vπ = λ g / (n_e³ r33 Γ f L) (single arm).

    ``voltage_v`` is the DC voltage of e1 against e2 (V); ``field_factor`` None takes
    ``field_factor_fit(electrode_gap)``. ``electrode_width`` sets only the layout.
    """
    width = ridge_width(cross_section, width)
    check_positive("length", length, unit="µm")
    _check_electrodes(electrode_gap, width)
    _check_common(width, film_thickness, etch_depth, loss_db_per_cm)
    _check_voltage(voltage_v)
    wl = jnp.asarray(wl, dtype=float)
    n = dispersion.neff(wl, width, film_thickness, etch_depth, jnp.inf, "te", "z")
    vpi = vpi_l_v_cm(wl, electrode_gap, width, film_thickness, etch_depth, False, field_factor) * 1e4 / length
    phase = 2 * jnp.pi * n * length / wl + jnp.pi * voltage_v / vpi
    t = 10.0 ** (-loss_db_per_cm * length * 1e-4 / 20.0) * jnp.exp(1j * phase)
    return sax.reciprocal({("o1", "o2"): t})


# ---------------------------------------------------------------------------- coplanar line and EO response
def _agm(a, b, n: int = 24):
    for _ in range(n):
        a, b = 0.5 * (a + b), jnp.sqrt(a * b)
    return a


def _k_ratio(k):
    """K(k)/K(k') by the arithmetic–geometric mean, K(k)/K(k') = AGM(1, k)/AGM(1, k')."""
    kp = jnp.sqrt((1.0 - k) * (1.0 + k))
    return _agm(1.0, k) / _agm(1.0, kp)


def _layer_k(s, w, h):
    """k of a CPW layer boundary at depth h: sinh(πs/4h)/sinh(π(s+2w)/4h), overflow-free."""
    a = jnp.pi * s / (4 * h)
    b = jnp.pi * (s + 2 * w) / (4 * h)
    return jnp.exp(a - b) * (-jnp.expm1(-2 * a)) / (-jnp.expm1(-2 * b))


def cpw_line(
    signal_width=15.0,
    electrode_gap=5.0,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    clad_thickness=CLAD_THICKNESS,
    box_thickness=BOX_THICKNESS,
):
    """(n_RF, Z0 in Ω) of the GSG coplanar line on the platform stack, quasi-static.

    Partial-capacitance (conformal-mapping) model of a CPW with wide grounds and thin
    conductors on a layered substrate (Gevorgian et al., IEEE T-MTT 43, 772 (1995);
    Simons, Coplanar Waveguide Circuits, Wiley 2001, §2.2): below the metal the LN slab
    (anisotropic, ε = √(ε_z ε_x) over a thickness scaled by √(ε_z/ε_x)), the BOX and the
    Si substrate; above, the SiO2 cladding and air. ε_eff = C/C_air, n_RF = √ε_eff,
    Z0 = 30π K(k0')/(√ε_eff K(k0)), k0 = S/(S + 2g). An approximation: the parallel
    partial capacitances are exact only for ε falling away from the metal (here the BOX
    lies under the LN over the Si), metal thickness and dispersion are neglected;
    expect ≈ 10 % in n_RF and Z0.
    """
    check_positive("signal_width", signal_width, unit="µm")
    check_positive("electrode_gap", electrode_gap, unit="µm")
    s, w = signal_width, electrode_gap
    ez, ex = materials.LN_EPS_RF
    slab = film_thickness - etch_depth
    k0r = _k_ratio(jnp.asarray(s / (s + 2 * w), dtype=float))

    def half(layers):
        total, depth = 0.0, 0.0
        for (thick, eps), (_, eps_next) in zip(layers[:-1], layers[1:], strict=True):
            depth = depth + thick
            total = total + (eps - eps_next) * _k_ratio(_layer_k(s, w, depth))
        return total + layers[-1][1] * k0r

    below = [(slab * math.sqrt(ez / ex), math.sqrt(ez * ex)), (box_thickness, EPS_SIO2_RF), (None, EPS_SI_RF)]
    above = [(etch_depth + clad_thickness, EPS_SIO2_RF), (None, 1.0)]
    eps_eff = (half(below) + half(above)) / (2 * k0r)
    return jnp.sqrt(eps_eff), 30 * jnp.pi / (jnp.sqrt(eps_eff) * k0r)


def _mean_exp(q, length):
    """(1 − e^{−qL})/(qL), the mean of e^{−qz} over [0, L], finite at q = 0."""
    ql = q * length
    small = jnp.abs(ql) < 1e-6
    safe = jnp.where(small, 1.0, ql)
    return jnp.where(small, 1.0 - ql / 2, (1.0 - jnp.exp(-safe)) / safe)


def mzm_eo_response(
    f_ghz,
    length=5000.0,
    n_rf=2.3,
    n_g=2.3,
    rf_loss_db_per_cm_sqrt_ghz=RF_LOSS_DB_PER_CM_SQRT_GHZ,
    z0_ohm=50.0,
    z_source_ohm=50.0,
    z_load_ohm=50.0,
):
    """Normalised traveling-wave EO response m(f) = |V_eff(f)| / |V_eff(0)|.

    The optical wave samples the line voltage V(z) = V⁺(e^{−γz} + Γ_L e^{−2γL} e^{γz})
    while it moves at c/n_g: V_eff = V⁺ [F(α + iβ_m) + Γ_L e^{−2γL} F(−γ − iβ_o)],
    F(q) = (1 − e^{−qL})/(qL), γ = α + iβ_RF, β_RF = 2πf n_RF/c, β_o = 2πf n_g/c,
    β_m = β_RF − β_o = 2πf (n_RF − n_g)/c, α = α0 √f; V⁺ = V_s Z0/(Z0 + Z_S)/(1 − Γ_S Γ_L e^{−2γL}).
    Matched impedances reduce it to |(1 − e^{−(α+iβ_m)L})/((α+iβ_m)L)| (e.g. Zhu et al.,
    Adv. Opt. Photon. 13, 242 (2021)). ``length`` in µm, α0 in dB cm⁻¹ GHz^-1/2.
    """
    f = jnp.asarray(f_ghz, dtype=float)
    alpha = rf_loss_db_per_cm_sqrt_ghz / (20 * jnp.log10(jnp.e)) * jnp.sqrt(jnp.abs(f)) * 1e-4  # Np/µm
    beta_rf = 2 * jnp.pi * f * n_rf / C_UM_PER_NS
    beta_o = 2 * jnp.pi * f * n_g / C_UM_PER_NS
    gamma = alpha + 1j * beta_rf
    gl = (z_load_ohm - z0_ohm) / (z_load_ohm + z0_ohm)
    gs = (z_source_ohm - z0_ohm) / (z_source_ohm + z0_ohm)
    e2 = jnp.exp(-2 * gamma * length)
    vplus = z0_ohm / (z0_ohm + z_source_ohm) / (1 - gs * gl * e2)
    veff = vplus * (_mean_exp(gamma - 1j * beta_o, length) + gl * e2 * _mean_exp(-gamma - 1j * beta_o, length))
    v0 = z_load_ohm / (z_load_ohm + z_source_ohm)
    return jnp.abs(veff) / v0


def _first_crossing(fn, level, f_max_ghz, n=4000):
    """Lowest f (GHz) in (0, f_max] with fn(f) = level, or inf when fn stays above it."""
    from scipy.optimize import brentq

    grid = np.concatenate([[1e-3], np.geomspace(1e-3, f_max_ghz, n)[1:]])
    vals = np.asarray(fn(grid)) - level
    below = np.flatnonzero(vals < 0)
    if below.size == 0:
        return math.inf
    i = int(below[0])
    if i == 0:
        return float(grid[0])
    return float(brentq(lambda x: float(fn(np.asarray(x))) - level, grid[i - 1], grid[i], xtol=1e-9, rtol=1e-12))


def mzm_modulation_length(length=5000.0, signal_width=15.0, pad_size=80.0, transition_length=150.0):
    """Length (µm) of each arm inside the electrode gap: straight + both transitions + both pads."""
    offset = (pad_size - signal_width) / 2
    _, ds, _, _ = _sbend_samples(transition_length, offset, _NODES, _WEIGHTS)
    return length + 2 * pad_size + 2 * jnp.sum(ds)


def mzm_bandwidth_ghz(
    length=5000.0,
    electrode_gap=5.0,
    signal_width=15.0,
    pad_size=80.0,
    transition_length=150.0,
    width=1.4,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    wl=1.55,
    rf_loss_db_per_cm_sqrt_ghz=RF_LOSS_DB_PER_CM_SQRT_GHZ,
    z_source_ohm=50.0,
    z_load_ohm=50.0,
    n_rf=None,
    z0_ohm=None,
    f_max_ghz=2000.0,
) -> float:
    """Electrical 3-dB EO bandwidth (GHz): the lowest f with 20·log10 m(f) = −3 dB (inf if none ≤ f_max).

    The 3-dB point of the detected RF power (EO S21, the convention of Wang et al. 2018);
    the optical 3-dB point (m = 1/2) lies higher. The traveling-wave length is the
    modulation length of ``mzm`` (``mzm_modulation_length``); n_RF and Z0 come from
    ``cpw_line`` at the straight section unless given; n_g from ``prismpic.pdk.ng``.
    """
    check_range("rf_loss_db_per_cm_sqrt_ghz", rf_loss_db_per_cm_sqrt_ghz, 0.0, 100.0)
    lm = float(mzm_modulation_length(length, signal_width, pad_size, transition_length))
    line_n, line_z = cpw_line(signal_width, electrode_gap, film_thickness, etch_depth)
    n_rf = float(line_n) if n_rf is None else n_rf
    z0 = float(line_z) if z0_ohm is None else z0_ohm
    n_g = float(dispersion.ng(wl, width, film_thickness, etch_depth))
    response = jax.jit(
        lambda f: mzm_eo_response(f, lm, n_rf, n_g, rf_loss_db_per_cm_sqrt_ghz, z0, z_source_ohm, z_load_ohm)
    )
    return _first_crossing(response, EO_3DB_RESPONSE, f_max_ghz)


# ---------------------------------------------------------------------------- MZM
def _check_mzm(length, electrode_gap, signal_width, ground_width, pad_size, transition_length, width):
    check_positive("length", length, unit="µm")
    _check_electrodes(electrode_gap, width)
    check_range("signal_width", signal_width, RULES.min_metal_width, 1000.0, unit="µm")
    pad_min = RULES.min_pad_size + 2 * _PAD_MARGIN
    check_range("ground_width", ground_width, pad_min, 5000.0, unit="µm")
    lo = _float(signal_width)
    check_range("pad_size", pad_size, pad_min if lo is None else max(pad_min, lo), 1000.0, unit="µm")
    check_positive("transition_length", transition_length, unit="µm")
    _check_sbend("transition_length", transition_length, (pad_size - signal_width) / 2)


def _offset(points: np.ndarray, d: float) -> np.ndarray:
    """Polyline offset by ``d`` along its left normal."""
    t = np.gradient(points, axis=0)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    return points + d * np.stack([-t[:, 1], t[:, 0]], axis=1)


@gf.cell
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
    _check_mzm(length, electrode_gap, signal_width, ground_width, pad_size, transition_length, width)
    g, s, p, t = electrode_gap, signal_width, pad_size, transition_length
    xs = get_cross_section(cross_section, width=width)
    y_pad, y_line = (p + g) / 2, (s + g) / 2
    bend_in = _sbend_points(t, y_line - y_pad) + (p, y_pad)
    bend_out = _sbend_points(t, y_pad - y_line) + (p + t + length, y_line)
    total = 2 * p + 2 * t + length
    center = np.concatenate([[(0.0, y_pad)], bend_in, bend_out, [(total, y_pad)]])
    arm = gf.Path(center, start_angle=0, end_angle=0).extrude(xs)
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
    c.add_polygon(np.concatenate([edge, edge[::-1] * (1, -1)]), layer=LAYER.ELECTRODE)
    y_out = y_pad + g / 2 + ground_width
    inner = _offset(center, g / 2)
    for sign in (1, -1):
        ground = np.concatenate([inner, [(total, y_out), (0.0, y_out)]]) * (1, sign)
        c.add_polygon(ground, layer=LAYER.ELECTRODE)
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
            c.add_polygon([(x0 + o, lo), (x0 + p - o, lo), (x0 + p - o, hi), (x0 + o, hi)], layer=LAYER.PAD)
            # grounds: on the outer metal edge, facing out (routable); signal: the pad, facing along x
            ground = name != n_sig
            center = (xc, math.copysign(y_out, yc)) if ground else (xc, 0.0)
            orientation = (90 if yc > 0 else 270) if ground else (180 if side == 0 else 0)
            c.add_port(
                name, center=center, width=p - 2 * o, orientation=orientation, layer=LAYER.ELECTRODE,
                port_type="electrical",
            )
    c.add_port("o1", port=sp.ports["o1"])
    c.add_port("o2", port=comb.ports["o1"])
    c.info["modulation_length"] = float(mzm_modulation_length(length, s, p, t))
    c.info["probe_pitch"] = float(yg)
    return c


def mzm_model(
    wl=1.55,
    length=5000.0,
    electrode_gap=5.0,
    signal_width=15.0,
    ground_width=80.0,
    pad_size=80.0,
    transition_length=150.0,
    splitter_length=150.0,
    width=None,
    cross_section: str = "xs_ridge",
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    loss_db_per_cm=LOSS_DB_PER_CM,
    excess_loss_db=0.2,
    imbalance_db=0.0,
    voltage_v=0.0,
    bias_phase_rad=0.0,
    field_factor=None,
) -> sax.SDict:
    """DC transmission of the push-pull MZM: t = t_arm (a₂² e^{iψ/2} + a₃² e^{−iψ/2}).

    a₂, a₃: the splitter's branch amplitudes (``y_splitter_model``: excess loss, imbalance,
    propagation), the combiner being the same splitter mirrored so its upper branch is
    again o2 (the imbalances add: extinction ((r+1)/(r−1))², r = 10^(imbalance_db/10));
    t_arm: one arm (pads, transitions, straight); ψ = π V/Vπ + bias_phase_rad with
    Vπ = λ g/(2 n_e³ r33 Γ f L_m), L_m = ``mzm_modulation_length``. ``voltage_v`` is
    the DC signal-to-ground voltage (V). ``ground_width`` sets only the layout.
    """
    width = ridge_width(cross_section, width)
    _check_mzm(length, electrode_gap, signal_width, ground_width, pad_size, transition_length, width)
    _check_common(width, film_thickness, etch_depth, loss_db_per_cm)
    _check_voltage(voltage_v)
    wl = jnp.asarray(wl, dtype=float)
    sp = y_splitter_model(
        wl, length=splitter_length, output_separation=pad_size + electrode_gap, width=width,
        cross_section=cross_section, film_thickness=film_thickness, etch_depth=etch_depth,
        loss_db_per_cm=loss_db_per_cm, excess_loss_db=excess_loss_db, imbalance_db=imbalance_db,
    )
    a2, a3 = sp[("o1", "o2")], sp[("o1", "o3")]
    n = dispersion.neff(wl, width, film_thickness, etch_depth, jnp.inf, "te", "z")
    straight = length + 2 * pad_size
    t_arm = 10.0 ** (-loss_db_per_cm * straight * 1e-4 / 20.0) * jnp.exp(2j * jnp.pi * n * straight / wl)
    offset = (pad_size - signal_width) / 2
    bend = sbend_response(wl, transition_length, offset, width, film_thickness, etch_depth, loss_db_per_cm)
    t_arm = t_arm * bend**2
    lm = mzm_modulation_length(length, signal_width, pad_size, transition_length)
    vpi = mzm_vpi_l_v_cm(wl, electrode_gap, width, film_thickness, etch_depth, field_factor) * 1e4 / lm
    psi = jnp.pi * voltage_v / vpi + bias_phase_rad
    t = t_arm * (a2**2 * jnp.exp(0.5j * psi) + a3**2 * jnp.exp(-0.5j * psi))
    return sax.reciprocal({("o1", "o2"): t})


def mzm_vpi_v(
    wl=1.55,
    length=5000.0,
    electrode_gap=5.0,
    signal_width=15.0,
    pad_size=80.0,
    transition_length=150.0,
    width=1.4,
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    field_factor=None,
):
    """DC half-wave voltage (V) of ``mzm``: Vπ·L (push-pull) over the modulation length."""
    lm = mzm_modulation_length(length, signal_width, pad_size, transition_length)
    return mzm_vpi_l_v_cm(wl, electrode_gap, width, film_thickness, etch_depth, field_factor) * 1e4 / lm


# ---------------------------------------------------------------------------- EAM
def _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width):
    check_positive("absorber_length", absorber_length, unit="µm")
    lo = _float(width + 2 * RULES.min_metal_to_ridge)
    if lo is not None:
        check_range("mesa_width", mesa_width, lo, 100.0, unit="µm")
    check_positive("taper_length", taper_length, unit="µm")
    check_range("electrode_width", electrode_width, RULES.min_metal_width, 1000.0, unit="µm")


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


def eam_absorption_db(voltage_v=0.0, absorber_length=100.0, absorption_change_db_per_um=0.1, v_half_v=2.0):
    """Bias-induced absorption (dB): Δα_max L · V²/(V² + V½²), a smooth saturating QCSE-like curve.

    A phenomenological curve (the QCSE/Franz–Keldysh edge shift is quadratic in the
    field at low bias and the absorption saturates once the edge passes the signal):
    zero and flat at V = 0, half the full change at V = ``v_half_v``. The extinction
    ratio at V is this number.
    """
    v2 = jnp.asarray(voltage_v, dtype=float) ** 2
    return absorption_change_db_per_um * absorber_length * v2 / (v2 + v_half_v**2)


def eam_bandwidth_ghz(
    absorber_length=100.0, mesa_width=4.0, intrinsic_thickness_um=0.4, eps_r=12.5, resistance_ohm=25.0
):
    """RC-limited 3-dB bandwidth (GHz) of a lumped EAM: 1/(2π R C), C = ε0 ε_r w L / d_i.

    R = 25 Ω: a 50 Ω source in parallel with a 50 Ω termination. ε_r ≈ 12.5 and a
    0.4 µm intrinsic region are typical of InGaAsP/InGaAlAs MQW stacks †; the
    junction is taken as wide as the mesa.
    """
    check_positive("intrinsic_thickness_um", intrinsic_thickness_um, unit="µm")
    cap_f = 8.8541878128e-12 * eps_r * mesa_width * absorber_length * 1e-6 / intrinsic_thickness_um
    return 1.0 / (2 * math.pi * resistance_ohm * cap_f) * 1e-9


def eam_model(
    wl=1.55,
    absorber_length=100.0,
    mesa_width=4.0,
    taper_length=30.0,
    electrode_width=20.0,
    width=None,
    cross_section: str = "xs_ridge",
    film_thickness=FILM_THICKNESS,
    etch_depth=ETCH_DEPTH,
    loss_db_per_cm=LOSS_DB_PER_CM,
    voltage_v=0.0,
    insertion_loss_db=4.0,
    absorption_change_db_per_um=0.1,
    v_half_v=2.0,
) -> sax.SDict:
    """Heterogeneous EAM block: |t|² = 10^(−(IL + ΔA(V))/10), phase of the LN ridge underneath.

    ``insertion_loss_db``: the unbiased loss (two LN↔III-V transitions and residual
    absorption; 3–5 dB is typical of bonded III-V EAMs †). ΔA(V) from
    ``eam_absorption_db``; Δα_max ≈ 0.1 dB/µm (≈ 10 dB over 100 µm at full swing) and
    V½ = 2 V are typical MQW figures †. ``voltage_v`` is the reverse bias, in
    [0, 10] V. The III-V section's own phase and chirp are not modelled (the phase is
    that of the LN ridge); wavelength dependence of the absorption edge is neglected.
    Passive and reciprocal.
    """
    width = ridge_width(cross_section, width)
    _check_eam(absorber_length, mesa_width, taper_length, electrode_width, width)
    _check_common(width, film_thickness, etch_depth, loss_db_per_cm)
    check_range("voltage_v", voltage_v, 0.0, EAM_MAX_REVERSE_BIAS_V, unit="V")
    check_range("insertion_loss_db", insertion_loss_db, 0.0, 30.0, unit="dB")
    check_range("absorption_change_db_per_um", absorption_change_db_per_um, 0.0, 10.0, unit="dB/µm")
    check_positive("v_half_v", v_half_v, unit="V")
    wl = jnp.asarray(wl, dtype=float)
    total = absorber_length + 2 * taper_length
    n = dispersion.neff(wl, width, film_thickness, etch_depth, jnp.inf, "te", "z")
    loss_db = loss_db_per_cm * total * 1e-4 + insertion_loss_db
    loss_db = loss_db + eam_absorption_db(voltage_v, absorber_length, absorption_change_db_per_um, v_half_v)
    t = 10.0 ** (-loss_db / 20.0) * jnp.exp(2j * jnp.pi * n * total / wl)
    return sax.reciprocal({("o1", "o2"): t})


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
        model_only=("voltage_v", "field_factor"),
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
        model_only=("excess_loss_db", "imbalance_db", "voltage_v", "bias_phase_rad", "field_factor"),
    ),
    "eam": Device(
        "eam",
        eam,
        eam_model,
        extremes=(
            {"absorber_length": 10.0, "mesa_width": 3.4, "taper_length": 5.0, "electrode_width": 2.0},
            {"absorber_length": 1000.0, "mesa_width": 20.0, "voltage_v": EAM_MAX_REVERSE_BIAS_V},
        ),
        grad_params={"voltage_v": 3.0, "absorber_length": 100.0, "width": 1.4, "insertion_loss_db": 4.0},
        model_only=("voltage_v", "insertion_loss_db", "absorption_change_db_per_um", "v_half_v"),
    ),
}
