"""Microring models against the textbook ring formulas, evaluated independently here.

Sources: Yariv, Electron. Lett. 36, 321 (2000) (add-drop fields); Bogaerts et al., Laser
Photon. Rev. 6, 47 (2012) (FSR, FWHM, Q, critical coupling); Pockels Δn = −½ n_e³ r33 E.
Every comparison uses the same compact dispersion model (``prismpic.pdk``) as input, so the
tests stay true when its numbers change.
"""

import math
import re

import jax
import jax.numpy as jnp
import klayout.db as kdb
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

import prismpic  # noqa: F401  (float64)
from prismpic.components import ring_physics
from prismpic.components.couplers import coupling_phase
from prismpic.components.ring_design import RingDesign
from prismpic.components.rings import (
    critical_gap,
    resonance_order,
    resonance_wavelength,
    ring_add_drop,
    ring_add_drop_model,
    ring_all_pass,
    ring_all_pass_model,
    ring_specs,
)
from prismpic.pdk import coupler_table, dispersion, materials, scattering
from prismpic.pdk.layers import LAYER
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS, LOSS_DB_PER_CM
from prismpic.testing import check_finite, check_passive, check_reciprocal

R, W, GAP = 20.0, 1.4, ring_physics.GAP
FILM, ETCH = FILM_THICKNESS, ETCH_DEPTH


# ---------------------------------------------------------------------------- independent formulas
# The dispersion model's scalar functions, jitted once: scipy's adaptive quadrature calls C(g) some
# hundreds of times per coupler, and eagerly each call dispatches the interpolant's ops one by one.
def _ridge(width):
    return RidgeStack(width=width, film_thickness=FILM, etch_depth=ETCH)


_coupling_per_um = jax.jit(lambda wl, g, w: ring_physics.coupling_per_um_extended(wl, g, _ridge(w)))
_bend_loss_db_per_cm = jax.jit(lambda wl, r, w: dispersion.bend_loss_db_per_cm(wl, r, _ridge(w)))
_neff = {ax: jax.jit(lambda wl, w, r, ax=ax: dispersion.neff(wl, _ridge(w), r, "te", ax)) for ax in "zy"}
_ng = {ax: jax.jit(lambda wl, w, r, ax=ax: dispersion.ng(wl, _ridge(w), r, "te", ax)) for ax in "zy"}


def coupling_angle_quad(wl, gap, radius=R, width=W):
    """Φ = ∫ C(g(z)) dz over the whole bus-facing half of the ring (adaptive quadrature).

    C(g) is the dispersion model's, continued exponentially beyond its fitted gaps (as the model does).
    """
    ro = radius + width / 2

    def c(z):
        g = gap + ro - math.sqrt(ro**2 - z**2)
        return float(_coupling_per_um(wl, g, width))

    return 2 * quad(c, 0.0, 0.999 * ro, limit=200, epsabs=1e-12)[0]


def physics_loss_db_per_cm(wl, width=W, around="ring"):
    """The models' default loss (None) by the closed form: LN absorption + Payne–Lacey at the default roughness
    (``scattering.sidewall_scattering_db_per_cm``), around the ring (mean of both axes) or along z (a bus); the
    models read an interpolant of it (within 2e-4 of it on SiO2: ``tests/pdk/test_scattering.py``)."""
    ridge = _ridge(width)
    if around == "ring":
        return scattering.MATERIAL_ABSORPTION_DB_PER_CM + float(scattering.ring_scattering_db_per_cm(wl, ridge))
    return float(scattering.straight_loss_db_per_cm(wl, ridge, None, "z"))


def ring_loss_amplitude(wl, radius=R, width=W, loss=LOSS_DB_PER_CM):
    loss = physics_loss_db_per_cm(wl, width) if loss is None else loss
    db = (loss + float(_bend_loss_db_per_cm(wl, radius, width))) * 2 * math.pi * radius * 1e-4
    return 10 ** (-db / 20)


def ring_index(wl, radius=R, width=W, group=False):
    f = _ng if group else _neff
    return 0.5 * float(f["z"](wl, width, radius) + f["y"](wl, width, radius))


def bus(wl, length, width=W, loss=LOSS_DB_PER_CM):
    loss = physics_loss_db_per_cm(wl, width, "z") if loss is None else loss
    n = float(_neff["z"](wl, width, math.inf))
    return 10 ** (-loss * length * 1e-4 / 20) * np.exp(2j * np.pi * n * length / wl)


def yariv_add_drop(wl, gap1, gap2, radius=R, width=W):
    """Through and drop of Yariv (2000), eqs. (1)–(2), with t = cos Φ, κ = sin Φ, round trip a e^{iθ}."""
    p1, p2 = coupling_angle_quad(wl, gap1, radius, width), coupling_angle_quad(wl, gap2, radius, width)
    t1, k1, t2, k2 = math.cos(p1), math.sin(p1), math.cos(p2), math.sin(p2)
    a = ring_loss_amplitude(wl, radius, width)
    theta = 2 * math.pi / wl * 2 * math.pi * radius * ring_index(wl, radius, width)
    e = a * np.exp(1j * theta)
    den = 1 - t1 * t2 * e
    b = bus(wl, ring_add_drop(radius=radius, gap=gap1, gap_drop=gap2, width=width).info["bus_length"])
    return b * (t1 - t2 * e) / den, b * (-k1 * k2 * math.sqrt(a) * np.exp(0.5j * theta)) / den


N_SWEEP = 4001  # one sweep length for every spectrum: the jitted model compiles once


@jax.jit
def _fields(wl, gap, gap_drop):
    s = ring_add_drop_model(wl=wl, gap=gap, gap_drop=gap_drop)
    return s[("o1", "o2")], s[("o1", "o4")]


def sweep(center, half_span, gap=GAP, gap_drop=None):
    """(wl, |through|², |drop|²) over center ± half_span with N_SWEEP points."""
    wl = np.linspace(center - half_span, center + half_span, N_SWEEP)
    t, d = _fields(jnp.asarray(wl), gap, gap if gap_drop is None else gap_drop)
    return wl, np.abs(np.asarray(t)) ** 2, np.abs(np.asarray(d)) ** 2


def peaks(wl, y):
    """Sub-sample positions of local maxima of y (parabola through three samples)."""
    i = np.where((y[1:-1] > y[:-2]) & (y[1:-1] >= y[2:]))[0] + 1
    y0, y1, y2 = y[i - 1], y[i], y[i + 1]
    return wl[i] + 0.5 * (y0 - y2) / (y0 - 2 * y1 + y2) * (wl[1] - wl[0])


# ---------------------------------------------------------------------------- ports and geometry
def test_port_order_and_circulation():
    c = ring_add_drop()
    p = {q.name: q for q in c.ports}
    assert p["o1"].center[0] < 0 > p["o1"].center[1] and p["o1"].orientation == 180
    assert p["o2"].center[0] > 0 > p["o2"].center[1] and p["o2"].orientation == 0
    assert p["o3"].center[0] > 0 < p["o3"].center[1] and p["o3"].orientation == 0
    assert p["o4"].center[0] < 0 < p["o4"].center[1] and p["o4"].orientation == 180
    assert p["e1"].port_type == p["e2"].port_type == "electrical"
    # light from o1 runs counter-clockwise in the ring and leaves the top bus going left: o4
    lam = resonance_wavelength(1.55)
    s = ring_add_drop_model(wl=jnp.array([lam, lam + 0.5e-3 * ring_specs()["fsr_nm"]]))
    drop = np.abs(np.asarray(s[("o1", "o4")]))
    assert drop[0] > 3 * drop[1]  # resonant at o4
    assert ("o1", "o3") not in s and ("o1", "o1") not in s


def test_drawn_gap_and_radius():
    c = ring_add_drop(gap=0.25, gap_drop=0.3)
    ly = c.kcl.layout
    ridge = kdb.Region(c.kdb_cell.begin_shapes_rec(ly.find_layer(kdb.LayerInfo(*LAYER.LN_RIDGE)))).merged()
    # the ring is the merged ridge shape with a hole; its outer edge is at R + w/2
    ring = [poly for poly in ridge.each() if poly.holes() == 1]
    assert len(ring) == 1
    box = ring[0].bbox()
    assert box.top * ly.dbu == pytest.approx(R + W / 2, abs=1e-3)
    bus_pts = {(round(q.center[1], 3)) for q in c.ports}
    assert -(R + W + 0.25) in bus_pts and (R + W + 0.3) in bus_pts


# ---------------------------------------------------------------------------- coupling
def test_coupling_angle_quadrature_and_closed_form(monkeypatch):
    # an exponential C(g) = C0 e^{−γ g}: Φ → C0 e^{−γ gap} √(2π R_o/γ) for γ R_o ≫ 1
    c0, gam = 0.5, 4.0
    monkeypatch.setattr(dispersion, "coupling_per_um", lambda wl, g, *a, **wall: c0 * jnp.exp(-gam * g) + 0 * wl)
    for radius, gap in ((20.0, 0.2), (60.0, 0.4), (10.0, 0.15)):
        phi = float(ring_physics.coupling_angle(1.55, gap, radius, RidgeStack(width=W)))
        ro = radius + W / 2
        exact = 2 * quad(lambda z, g=gap, r=ro: c0 * math.exp(-gam * (g + r - math.sqrt(r**2 - z**2))), 0, ro)[0]
        assert phi == pytest.approx(exact, rel=1e-4)
        closed = c0 * math.exp(-gam * gap) * math.sqrt(2 * math.pi * ro / gam)
        assert phi == pytest.approx(closed, rel=2.0 / (gam * ro))  # parabolic-gap approximation, O(1/γR)


def test_coupling_angle_where_the_feet_merge_is_the_adaptive_integral_and_smooth():
    """Gaps below the feet's merge (72° walls: merge at 0.23 µm): Φ equals an adaptive integral split at the kink of
    C(g) within 1e-6, and it is smooth in the wall angle: its gradient's steps over a 0.01° sweep are even (max/median
    < 3; fixed Gauss nodes across the kink gave 391, a fit over the angle stalled on them)."""
    ridge = RidgeStack(width=W, sidewall_angle_deg=72.0)
    g_k = float(coupler_table.merge_gap(ridge))
    ro = R + W / 2
    for gap in (0.15, 0.2, g_k - 1e-3, g_k):
        def c(z, gap=gap):
            g = gap + ro - math.sqrt(ro**2 - z**2)
            return float(ring_physics.coupling_per_um_extended(1.55, g, ridge))
        # the model's integral runs to a local gap 3 µm past the closest one; kinks: the merge and the fit's end
        kinks = [math.sqrt(ro**2 - (ro - d) ** 2) for d in (g_k - gap, ring_physics.fit_max_gap() - gap) if d > 0]
        exact = 2 * quad(c, 0.0, math.sqrt(ro**2 - (ro - 3.0) ** 2), points=kinks, limit=400, epsabs=1e-13,
                         epsrel=1e-11)[0]
        assert float(ring_physics.coupling_angle(1.55, gap, R, ridge)) == pytest.approx(exact, rel=1e-6), gap
    grad = jax.jit(jax.vmap(jax.grad(
        lambda a: ring_physics.coupling_angle(1.55, 0.15, R, RidgeStack(width=W, sidewall_angle_deg=a)))))
    steps = np.abs(np.diff(np.asarray(grad(np.linspace(70.0, 74.0, 401)))))
    assert steps.max() / np.median(steps) < 3.0


def test_directional_coupler_arms_are_smooth_where_the_feet_merge():
    """The S-bend arms' integral is split at the merge too: dΦ/d(angle) of a 0.15 µm coupler changes smoothly over
    a 0.01° sweep through 72° (no step over 1.5× the mean of its neighbours) and equals a central difference of Φ."""
    def phi(a):
        return coupling_phase(1.55, gap=0.15, length=5.0, dy=4.0, bend_length=10.0, width=W, sidewall_angle_deg=a)
    grad = jax.jit(jax.vmap(jax.grad(phi)))
    angles = np.linspace(70.0, 74.0, 401)
    g = np.asarray(grad(angles))
    steps = np.abs(np.diff(g))
    assert (steps[1:-1] / (0.5 * (steps[:-2] + steps[2:]))).max() < 1.5  # no step stands out of its neighbours
    assert g[200] == pytest.approx((float(phi(72.001)) - float(phi(71.999))) / 0.002, rel=1e-5)


# ---------------------------------------------------------------------------- spectrum
def test_fsr_from_spectrum_equals_lambda2_over_ng_l():
    lam = resonance_wavelength(1.55)
    fsr0 = ring_specs()["fsr_nm"] * 1e-3
    wl, _, d = sweep(lam + 0.5 * fsr0, 0.6 * fsr0)  # two resonances, coarse
    pk = peaks(wl, d)
    pk = pk[np.interp(pk, wl, d) > 0.1 * d.max()]
    assert len(pk) == 2, pk
    fine = []
    for p in pk:  # refine each on a 4001-point sweep over ±3 samples of the coarse one
        wf, _, df = sweep(p, 3 * (wl[1] - wl[0]))
        i = int(np.argmax(df))
        assert 0 < i < N_SWEEP - 1
        fine.append(float(peaks(wf[i - 1:i + 2], df[i - 1:i + 2])[0]))
    fsr = fine[1] - fine[0]
    ng = ring_index(math.sqrt(fine[0] * fine[1]), group=True)
    assert fsr == pytest.approx(fine[0] * fine[1] / (ng * 2 * np.pi * R), rel=2e-4)


def test_resonance_orders_are_one_fsr_apart():
    # θ = 2πm: the resonances of orders m and m + 1 (m the one nearest 1.55 µm) lie λ²/(n_g L) apart
    lam = resonance_wavelength(1.55)
    m = resonance_order(1.55)
    assert resonance_wavelength(1.55, order=m) == pytest.approx(lam, abs=1e-12)
    blue = resonance_wavelength(1.55, order=m + 1)
    ng = ring_index(math.sqrt(lam * blue), group=True)
    assert lam - blue == pytest.approx(lam * blue / (ng * 2 * np.pi * R), rel=2e-4)
    with pytest.raises(ValueError, match=r"order = 10000 is outside the valid range \[\d+, \d+\]"):
        resonance_wavelength(1.55, order=10_000)
    with pytest.raises(ValueError, match="order = 2.5 must be an integer"):
        ring_specs(order=2.5)


@pytest.mark.parametrize("gap1, gap2", [(GAP, GAP), (0.25, 0.35)])
def test_fields_near_resonance_match_yariv(gap1, gap2):
    lam = resonance_wavelength(1.55, gap=gap1, gap_drop=gap2)
    fwhm = ring_specs(1.55, gap=gap1, gap_drop=gap2)["fwhm_nm"] * 1e-3
    for wl in lam + fwhm * np.array([-3.0, -0.5, 0.0, 0.3, 2.0]):
        s = ring_add_drop_model(wl=wl, gap=gap1, gap_drop=gap2)
        thr, drp = yariv_add_drop(wl, gap1, gap2)
        np.testing.assert_allclose(complex(s[("o1", "o2")]), thr, atol=2e-4)
        np.testing.assert_allclose(complex(s[("o1", "o4")]), drp, atol=2e-4)


def test_loaded_q_and_extinction_follow_from_kappa_and_loss():
    # Bogaerts (2012): Q_L = π n_g L √x / (λ (1 − x)), x = t1 t2 a, at high finesse; exactly, the
    # Airy line's half width is θ_½ = 2 asin((1 − x)/(2√x)). Through min |t1 − t2 a|²/(1 − x)²
    for gap in (0.2, 0.3):
        lam = resonance_wavelength(1.55, gap=gap)
        phi = coupling_angle_quad(lam, gap)
        t, a = math.cos(phi), ring_loss_amplitude(lam)
        x = t * t * a
        ng, length = ring_index(lam, group=True), 2 * math.pi * R
        q = math.pi * ng * length / (lam * 2 * math.asin((1 - x) / (2 * math.sqrt(x))))
        # FWHM measured on the drop spectrum
        wl, _, d = sweep(lam, 1.5 * lam / q, gap=gap)
        above = wl[d >= 0.5 * d.max()]
        assert lam / (above[-1] - above[0]) == pytest.approx(q, rel=2e-3)
        specs = ring_specs(1.55, gap=gap)
        assert specs["q_loaded"] == pytest.approx(q, rel=1e-3)
        t_min = (t - t * a) ** 2 / (1 - x) ** 2
        t_max = (t + t * a) ** 2 / (1 + x) ** 2
        assert specs["extinction_db"] == pytest.approx(10 * math.log10(t_max / t_min), abs=0.02)
        assert specs["fsr_nm"] == pytest.approx(lam**2 / (ng * length) * 1e3, rel=1e-9)
        alpha = -2 * math.log(a) / length
        assert specs["q_intrinsic"] == pytest.approx(2 * math.pi * ng / (lam * alpha), rel=1e-5)  # the model reads the interpolant of this closed form (1.6e-6 apart)


def critical_case(kind, **kw):
    """(radius, gap) of the first ring of radius 20, 40, 80 µm that has a critical gap in the rule range.

    A ring whose round-trip loss exceeds what the smallest gap couples has none (ValueError);
    the bend loss of the dispersion model decides which radius that is.
    """
    for radius in (20.0, 40.0, 80.0):
        try:
            return radius, critical_gap(1.55, kind, radius=radius, **kw)
        except ValueError:
            continue
    pytest.fail(f"no critical gap for {kind} at any radius tried")


def test_critical_coupling_all_pass_extinction_over_40_db():
    radius, g = critical_case("all_pass")
    assert 0.15 <= g <= ring_physics.MAX_GAP
    kw = {"gap": g, "radius": radius}
    lam = resonance_wavelength(1.55, "all_pass", **kw)
    fsr = ring_specs(1.55, "all_pass", **kw)["fsr_nm"] * 1e-3
    s_res = abs(complex(ring_all_pass_model(wl=lam, **kw)[("o1", "o2")])) ** 2
    s_off = abs(complex(ring_all_pass_model(wl=lam + 0.5 * fsr, **kw)[("o1", "o2")])) ** 2
    assert 10 * math.log10(s_off / s_res) > 40
    # critical means coupling = round-trip loss: κ² = 1 − a²
    k2 = math.sin(coupling_angle_quad(1.55, g, radius)) ** 2
    assert k2 == pytest.approx(1 - ring_loss_amplitude(1.55, radius) ** 2, rel=2e-3)
    # passive, reciprocal and finite at exact resonance and critical coupling
    wl = jnp.asarray(lam)
    check_finite(ring_all_pass_model, wl=wl, **kw)
    check_passive(ring_all_pass_model, wl=wl, **kw)
    check_reciprocal(ring_all_pass_model, wl=wl, **kw)


def test_add_drop_critical_gap_zeroes_the_through_port():
    radius, g = critical_case("add_drop", gap_drop=0.3)
    kw = {"gap": g, "gap_drop": 0.3, "radius": radius}
    lam = resonance_wavelength(1.55, **kw)
    thr = abs(complex(ring_add_drop_model(wl=lam, **kw)[("o1", "o2")])) ** 2
    assert thr < 1e-5
    # t1 = a t2: the input coupler carries the drop coupling plus the round-trip loss
    assert g < 0.3
    t2 = math.cos(float(ring_physics.coupling_angle(1.55, 0.3, radius)))  # critical_gap solves at wl = 1.55
    t1 = math.cos(float(ring_physics.coupling_angle(1.55, g, radius)))
    assert t1 == pytest.approx(ring_loss_amplitude(1.55, radius) * t2, rel=1e-7)  # the loss interpolant: 1.5e-8 apart
    wl = jnp.asarray(lam)
    check_finite(ring_add_drop_model, wl=wl, **kw)
    check_passive(ring_add_drop_model, wl=wl, **kw)
    check_reciprocal(ring_add_drop_model, wl=wl, **kw)


def airy_q_and_extinction(lam, phi1, phi2, a):
    """(Q_L, through extinction in dB) of the Airy line (Bogaerts 2012), t_i = cos Φ_i; phi2 None: all-pass.

    Q_L = π n_g L/(λ θ_½) with θ_½ = 2 asin((1 − x)/(2√x)), x = t1 t2 a; extinction T(π)/T(0) with
    T(0) = (t1 − t2 a)²/(1 − x)², T(π) = (t1 + t2 a)²/(1 + x)².
    """
    t1, t2 = math.cos(phi1), 1.0 if phi2 is None else math.cos(phi2)
    x = t1 * t2 * a
    q = math.pi * ring_index(lam, group=True) * 2 * math.pi * R / (lam * 2 * math.asin((1 - x) / (2 * math.sqrt(x))))
    return q, 10 * math.log10((t1 + t2 * a) ** 2 / (1 + x) ** 2 * (1 - x) ** 2 / (t1 - t2 * a) ** 2)


def test_seed_s1_10_q_1e4_and_15_db_near_the_seed_gaps():
    """Seed S1-10/S1-11: Q ≈ 1e4 (12,500 measured), through extinction 15 dB, gaps 0.2–0.3 µm, R = 20 µm.

    Finding, with the mode-solver tables (0.6 µm film, 0.35 µm etch) at the stack's default wall angle (the
    foundry's 76.5°: the sloped walls bring the ridge feet 2·etch/tan(76.5°) ≈ 0.17 µm closer than the top
    gap): the seed's gap range brackets the measured Q. Since 1/Q_L = 1/Q_i + 1/Q_c1 + 1/Q_c2 grows with
    coupling and loss, over add-drop (either gap 0.2–0.3 µm) and all-pass rings with a propagation loss in
    the published TFLN range 0.03–1 dB/cm (0.027 dB/cm: Zhang et al., Optica 4, 1536 (2017)), Q_L is lowest
    at equal 0.2 µm gaps and 1 dB/cm and highest for an all-pass ring at 0.3 µm and 0.03 dB/cm; 12,500 lies
    between, and with equal gaps at the stack's 0.2 dB/cm Q_L = 12,500 falls inside the seed's range. The
    extinction there is the coupled-mode value 20 log10(Q_i/Q_L) (through at resonance (Q_L/Q_i)², Bogaerts
    2012): with the solved bend radiation (≈ 5.8 dB/cm around the 20 µm ring, ``bend_radiation``) Q_i ≈ 6.9e4,
    which leaves ≈ 14.9 dB at Q_L = 12,500, at the seed's 15 dB: the verdict hangs on the etch (the bend loss
    doubles per 10 nm) and is the claims ledger's to judge over the process.
    """
    lam = resonance_wavelength(1.55)  # the gaps do not move it (no coupler phase), nor does the loss
    alpha = -2 * math.log(ring_loss_amplitude(lam)) / (2 * math.pi * R)
    q_i = 2 * math.pi * ring_index(lam, group=True) / (lam * alpha)
    assert 5e4 < q_i < 1e5
    gaps, losses = (0.2, 0.25, 0.3), (0.03, LOSS_DB_PER_CM, 1.0)
    phi = {g: coupling_angle_quad(lam, g) for g in gaps}
    amp = {loss: ring_loss_amplitude(lam, loss=loss) for loss in losses}
    q_l = {(g1, g2, loss): airy_q_and_extinction(lam, phi[g1], None if g2 is None else phi[g2], amp[loss])[0]
           for g1 in gaps for g2 in (*gaps, None) for loss in losses}
    lowest, highest = (0.2, 0.2, 1.0), (0.3, None, 0.03)
    assert min(q_l, key=q_l.get) == lowest and max(q_l, key=q_l.get) == highest
    assert q_l[lowest] < 12_500 < q_l[highest]
    assert ring_specs(1.55, gap=0.2, loss_db_per_cm=1.0)["q_loaded"] == pytest.approx(q_l[lowest], rel=1e-3)

    # where Q_L = 12,500 (equal gaps, the loss from physics) falls: inside the seed's range, with the coupled-mode extinction
    def equal_gaps(g):
        p = coupling_angle_quad(lam, g)
        return airy_q_and_extinction(lam, p, p, amp[LOSS_DB_PER_CM])

    g = brentq(lambda g: equal_gaps(g)[0] - 12_500, 0.15, 0.35, xtol=1e-4)
    assert max(0.2, RULES.min_ridge_gap) < g < 0.3
    assert equal_gaps(g)[1] == pytest.approx(20 * math.log10(q_i / 12_500), abs=0.1)


# ---------------------------------------------------------------------------- tuning
def _plate_and_disk(c):
    ly = c.kcl.layout
    reg = kdb.Region(c.kdb_cell.begin_shapes_rec(ly.find_layer(kdb.LayerInfo(*LAYER.ELECTRODE)))).merged()
    boxes = sorted((poly.bbox() for poly in reg.each()), key=lambda b: b.center().y)
    disk, top = boxes[1], boxes[2]
    return top.bottom * ly.dbu, disk.top * ly.dbu, top.width() * ly.dbu


@pytest.mark.parametrize("height", [None, 1.0])
def test_pockels_tuning_sign_and_magnitude_from_the_drawn_electrodes(height):
    """The ring tunes through the same Pockels path as the phase shifter, section by section.

    From the drawn layout (plate at y_p, floating disk of radius r_i at V/2): where the ring crosses
    x = R cos ψ under the plate, its local cross-section is the phase shifter's with electrode gap
    d(ψ) = y_p − √(r_i² − x²), the ridge offset u(ψ) = R sin ψ − (y_p + √(r_i² − x²))/2 from the middle of
    that gap, and half the voltage across it; the ring's TE field is along z on a fraction sin²ψ. So
    dn_ring/dV = (1/2π) ∫_top sin²ψ · dn_ps/dV(d(ψ), u(ψ)) dψ, with dn_ps/dV = λ/(2 Vπ·L) of
    ``modulators.vpi_l_v_cm`` (single arm) at that gap and offset — with the plates on the slab (``height`` None)
    or raised ``height`` µm above the film on the cladding, as the phase shifter's electrodes can be."""
    from prismpic.components import modulators as mod

    c = ring_add_drop(electrode_height=height)
    y_p, r_i, plate_w = _plate_and_disk(c)  # from the layout, not from the model
    half = math.asin(plate_w / 2 / R)  # the plate spans x = R cos ψ over ψ = 90° ± half
    lam = resonance_wavelength(1.55)

    def dn_ps(psi):
        x = R * math.cos(psi)
        y_d = math.sqrt(max(r_i**2 - x**2, 0.0))
        d, u = y_p - y_d, R * math.sin(psi) - 0.5 * (y_p + y_d)
        vpil_um = float(mod.vpi_l_v_cm(lam, d, W, FILM, ETCH, ridge_offset=u, electrode_height=height)) * 1e4
        return lam / (2 * vpil_um)

    dn_dv = quad(lambda psi: math.sin(psi) ** 2 * dn_ps(psi), math.pi / 2 - half, math.pi / 2 + half,
                 epsrel=1e-8)[0] / (2 * math.pi)
    plates = {"electrode_height": height}
    assert float(ring_physics.pockels_dneff_dv(lam, RingDesign(**plates))) == pytest.approx(dn_dv, rel=2e-3)
    expect = lam * dn_dv / ring_index(lam, group=True) * 1e6  # pm/V
    assert float(ring_physics.ring_tuning_pm_per_v(lam, RingDesign(**plates))) == pytest.approx(expect, rel=2e-3)
    # the model's resonance moves by that much, red for V(e2) > V(e1) (E along −z, Δn_e > 0)
    for v in (50.0, -50.0):
        shift = (resonance_wavelength(lam, voltage_v=v, **plates) - lam) * 1e6  # the same order (lam may sit FSR/2
        assert shift == pytest.approx(expect * v, rel=2e-3)  # from 1.55)
    specs = ring_specs(**plates)
    assert specs["v_per_linewidth"] == pytest.approx(specs["fwhm_nm"] * 1e3 / expect, rel=2e-3)


def test_thermo_optic_shift():
    lam = resonance_wavelength(1.55)
    dt = 10.0
    gamma = float(dispersion.eo_overlap(lam, _ridge(W)))
    n = ring_index(lam)
    f_ln = gamma * n / float(materials.n_ln_e(lam))
    dn = dt * (gamma * 0.5 * (materials.DNE_DT_PER_K + materials.DNO_DT_PER_K)
               + float(materials.n_sio2(lam)) / n * (1 - f_ln) * materials.DN_SIO2_DT_PER_K)
    shift = resonance_wavelength(1.55, delta_t_k=dt) - lam
    assert shift == pytest.approx(lam * dn / ring_index(lam, group=True), rel=2e-3)
    assert shift > 0
    assert ring_specs()["thermal_pm_per_k"] == pytest.approx(shift / dt * 1e6, rel=2e-3)


# ---------------------------------------------------------------------------- gradients, validation
def test_radius_gradient_against_fine_differences():
    wl = jnp.linspace(1.549, 1.551, 5)

    def f(r):
        s = ring_add_drop_model(wl=wl, radius=r)
        return jnp.sum(jnp.real(s[("o1", "o2")] * (1 + 2j)) + jnp.imag(s[("o1", "o4")]))

    g = float(jax.jit(jax.grad(f))(R))
    fj, h = jax.jit(f), 1e-6
    assert g == pytest.approx(float((fj(R + h) - fj(R - h)) / (2 * h)), rel=1e-4)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"gap": 0.1}, "gap"),
        ({"gap_drop": 2.5}, "gap_drop"),
        ({"radius": 5.0}, "radius"),
        ({"electrode_gap": 3.0}, "electrode_gap"),
        ({"electrode_coverage": 1.5}, "electrode_coverage"),
        ({"electrode_width": 1.0}, "electrode_width"),
        ({"bus_length": 10.0}, "bus_length"),
    ],
)
def test_bad_geometry_raises_in_cell_and_model(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ring_add_drop_model(**kwargs)
    with pytest.raises(ValueError, match=name):
        ring_add_drop(**kwargs)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"voltage_v": 250.0}, "voltage_v"), ({"loss_db_per_cm": -1.0}, "loss_db_per_cm"),
     ({"coupler_loss_db": -0.1}, "coupler_loss_db"), ({"delta_t_k": 500.0}, "delta_t_k")],
)
def test_bad_physics_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        ring_all_pass_model(**kwargs)


def test_all_pass_cell_is_drc_clean_and_symmetric():
    from prismpic.pdk import drc

    c = ring_all_pass()
    assert drc(c) == []
    y_p, r_i, _ = _plate_and_disk(c)
    assert y_p == pytest.approx(float(ring_physics.plate_offset(R, W, GAP)), abs=1e-3)


@pytest.mark.parametrize("kind, params", [
    ("add_drop", {"voltage_v": 30.0, "delta_t_k": 5.0}),
    ("add_drop", {"gap_drop": 0.3, "dneff": 1e-3, "loss_db_per_cm": None, "cladding": "air"}),
    ("all_pass", {"electrode_height": 1.0, "bus_length": 80.0, "coupler_loss_db": 0.2}),
])
def test_compiled_sparameters_are_the_model_s(kind, params):
    """``ring_sparameters`` (one compiled program) gives the model's S-parameters, port for port, and refuses
    what the model refuses with the model's message."""
    from prismpic.components.rings import ring_sparameters

    model = ring_add_drop_model if kind == "add_drop" else ring_all_pass_model
    wl = np.linspace(1.54, 1.56, 7)
    expected = model(wl=wl, **params)
    got = ring_sparameters(wl, kind, **params)
    assert sorted(got) == sorted(expected)
    for port, s in expected.items():
        np.testing.assert_allclose(np.asarray(got[port]), np.asarray(s), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"voltage_v = 500 V is outside the valid range") as refused:
        model(wl=wl, **{**params, "voltage_v": 500.0})
    with pytest.raises(ValueError, match=re.escape(str(refused.value))):
        ring_sparameters(wl, kind, **{**params, "voltage_v": 500.0})
