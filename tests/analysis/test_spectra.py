"""Tests of prismpic.analysis.spectra against an independent add-drop ring formula.

The synthetic spectra come from the add-drop ring transmission written out here
(Bogaerts et al., "Silicon microring resonators", Laser Photon. Rev. 6, 47 (2012)):

    T = (a²r2² − 2a·r1·r2·cos φ + r1²) / (1 − 2a·r1·r2·cos φ + (r1·r2·a)²)
    D = (1 − r1²)(1 − r2²)·a / (1 − 2a·r1·r2·cos φ + (r1·r2·a)²),   φ = 2π·n·L/λ

and every expected figure from the same paper's closed forms: resonances at
λ_m = n_g·L/m, FSR = λ²/(n_g·L), FWHM = (1 − x)λ²/(π·n_g·L·√x) with x = r1·r2·a,
Q = λ/FWHM (intrinsic: x → a; coupling: x → r1 or r2), extinction T(π)/T(0) and
D(0)/D(π). Device: R = 20 µm, n_g = 2.3 (seed S1-10, REFERENCES.md), Q_L ≈ 1e4 and 1e5.
Impairments: 1 % multiplicative noise (seeded), 0.5 dB/nm tilt, −7 dB coupling offset.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from prismpic.analysis.spectra import analyze_spectrum, plot_spectrum

R_UM = 20.0
L_UM = 2.0 * math.pi * R_UM
NG = 2.3
NGL_NM = NG * L_UM * 1e3  # optical round-trip length n_g·L in nm


def ring(wl_nm, r1, r2, a, n=NG):
    """Through and drop power transmission of an add-drop ring (all-pass: r2 = 1)."""
    phi = 2.0 * np.pi * n * L_UM * 1e3 / wl_nm
    x = r1 * r2 * a
    den = 1.0 - 2.0 * x * np.cos(phi) + x * x
    t = (a * a * r2 * r2 - 2.0 * a * r1 * r2 * np.cos(phi) + r1 * r1) / den
    d = (1.0 - r1 * r1) * (1.0 - r2 * r2) * a / den
    return t, d


def ring_at_phase(phi, r1, r2, a):
    return ring(2.0 * np.pi * NG * L_UM * 1e3 / np.asarray(phi, float), r1, r2, a)


def q_of(z, lam):
    """λ/FWHM for round-trip amplitude z (Bogaerts 2012 FWHM formula)."""
    return lam / ((1.0 - z) * lam**2 / (math.pi * NGL_NM * math.sqrt(z)))


def centers(lo, hi):
    m = np.arange(math.ceil(NGL_NM / hi), math.floor(NGL_NM / lo) + 1)
    return np.sort(NGL_NM / m)


def impair(wl, y, seed, noise=0.01, tilt_db_per_nm=0.5, offset_db=-7.0):
    rng = np.random.default_rng(seed)
    base = 10.0 ** ((offset_db + tilt_db_per_nm * (wl - 1550.0)) / 10.0)
    return y * base * (1.0 + noise * rng.standard_normal(wl.size))


def er_through_db(r1, r2, a):
    t_on, _ = ring_at_phase(2 * np.pi * 1000, r1, r2, a)
    t_off, _ = ring_at_phase(2 * np.pi * 1000 + np.pi, r1, r2, a)
    return 10 * math.log10(t_off / t_on)


def er_drop_db(r1, r2, a):
    _, d_on = ring_at_phase(2 * np.pi * 1000, r1, r2, a)
    _, d_off = ring_at_phase(2 * np.pi * 1000 + np.pi, r1, r2, a)
    return 10 * math.log10(d_on / d_off)


# symmetric add-drop ring, Q_L ≈ 1e4: x = r²a = 0.9414, a = 0.99 (≈ 7 dB/cm)
A_SYM = 0.99
R_SYM = math.sqrt(0.9414 / A_SYM)
WL_1E4 = np.arange(1536.0, 1564.0, 0.01)  # ≈ 16 points per FWHM


def check_loaded(res, x, wl_lo, wl_hi, er_db, q_tol=0.05):
    """Centres, FWHM, Q, ER and FSR against the closed forms."""
    lam_true = centers(wl_lo, wl_hi)
    assert len(res.resonances) >= 3
    for r in res.resonances:
        k = int(np.argmin(np.abs(lam_true - r.center_nm)))
        lam = lam_true[k]
        fwhm = (1 - x) * lam**2 / (math.pi * NGL_NM * math.sqrt(x))
        assert abs(r.center_nm - lam) < 5e-3  # 5 pm
        assert r.fwhm_nm == pytest.approx(fwhm, rel=q_tol)
        assert r.q_loaded == pytest.approx(lam / fwhm, rel=q_tol)
        assert abs(r.extinction_db - er_db) < 1.0
    assert res.fsr_nm == pytest.approx(1550.0**2 / NGL_NM, rel=0.005)


@pytest.mark.parametrize("scale", ["linear", "db"])
def test_add_drop_q1e4_noise_tilt_offset(scale):
    t, d = ring(WL_1E4, R_SYM, R_SYM, A_SYM)
    tm, dm = impair(WL_1E4, t, 1), impair(WL_1E4, d, 2)
    if scale == "db":
        tm, dm = 10 * np.log10(tm), 10 * np.log10(dm)
    res = analyze_spectrum(WL_1E4, tm, dm, scale=scale, radius_um=R_UM, coupling="symmetric")
    x = R_SYM * R_SYM * A_SYM
    check_loaded(res, x, WL_1E4[0], WL_1E4[-1], er_through_db(R_SYM, R_SYM, A_SYM))
    _, d0 = ring_at_phase(2 * np.pi * 1000, R_SYM, R_SYM, A_SYM)
    for r in res.resonances:
        assert abs(r.drop_extinction_db - er_drop_db(R_SYM, R_SYM, A_SYM)) < 1.0
        assert r.drop_peak == pytest.approx(float(d0), rel=0.03)
        assert r.intrinsic.q_intrinsic == pytest.approx(q_of(A_SYM, r.center_nm), rel=0.10)
        assert r.intrinsic.regime == "under"  # a symmetric lossy ring is always under-coupled at the input
    sol = res.resonances[res.nearest].intrinsic.solutions[0]
    assert sol.loss_db_per_cm == pytest.approx(-20 * math.log10(A_SYM) / (L_UM * 1e-4), rel=0.10)
    assert res.n_group == pytest.approx(NG, rel=0.005)
    assert res.q_intrinsic == res.resonances[res.nearest].intrinsic.q_intrinsic
    assert abs(res.center_nm - 1550.0) < res.fsr_nm / 2


def test_through_and_drop_without_coupling_hint_is_ambiguous():
    """T0 and D0 fit both the true ring and one with γ1 ↔ γi + γ2 swapped: both are listed."""
    t, d = ring(WL_1E4, R_SYM, R_SYM, A_SYM)
    res = analyze_spectrum(WL_1E4, impair(WL_1E4, t, 3), impair(WL_1E4, d, 4), radius_um=R_UM)
    intr = res.resonances[res.nearest].intrinsic
    assert intr.ambiguous and intr.q_intrinsic is None and res.q_intrinsic is None
    q_true = q_of(A_SYM, res.center_nm)
    qs = sorted(s.q_intrinsic for s in intr.solutions)
    assert any(abs(q / q_true - 1) < 0.10 for q in qs)
    assert qs[1] / qs[0] > 1.2  # the two really differ (so the flag is not trivially set)
    assert any("ambiguous" in n for n in res.notes)


@pytest.mark.parametrize(
    ("r1", "a", "regime"),
    # r1 and a swapped: the same |T|² (x = r1·a = 0.9423, Q_L ≈ 1e4, ER ≈ 10 dB), opposite regimes
    [(0.98, 0.9615, "under"), (0.9615, 0.98, "over")],
)
def test_all_pass_through_only_regimes(r1, a, regime):
    wl = WL_1E4
    t, _ = ring(wl, r1, 1.0, a)
    tm = impair(wl, t, 5)
    res = analyze_spectrum(wl, tm, ring_length_um=L_UM)
    check_loaded(res, r1 * a, wl[0], wl[-1], er_through_db(r1, 1.0, a))
    near = res.resonances[res.nearest]
    intr = near.intrinsic
    assert intr.ambiguous and intr.q_intrinsic is None
    by_regime = {s.regime: s for s in intr.solutions}
    q_true = q_of(a, near.center_nm)
    assert by_regime[regime].q_intrinsic == pytest.approx(q_true, rel=0.10)
    assert by_regime[regime].q_coupling_in == pytest.approx(q_of(r1, near.center_nm), rel=0.10)
    # the coupled-mode forms Q_i = 2Q_L/(1 ± √T0) (McKinnon 2009) agree to first order
    rt0 = math.sqrt(near.through_min)
    q_cmt = 2 * near.q_loaded / (1 + rt0 if regime == "under" else 1 - rt0)
    assert by_regime[regime].q_intrinsic == pytest.approx(q_cmt, rel=0.03)
    hinted = analyze_spectrum(wl, tm, ring_length_um=L_UM, coupling=regime)
    assert hinted.q_intrinsic == pytest.approx(q_true, rel=0.10)
    assert not hinted.resonances[hinted.nearest].intrinsic.ambiguous


def test_critical_coupling_needs_no_hint():
    """r1 = a: T0 = 0, the two solutions merge and Q_i = 2·Q_L (γ_i = γ_c)."""
    r1 = a = math.sqrt(0.9423)
    t, _ = ring(WL_1E4, r1, 1.0, a)
    res = analyze_spectrum(WL_1E4, impair(WL_1E4, t, 19), radius_um=R_UM)
    for r in res.resonances:
        assert r.intrinsic.regime == "critical" and not r.intrinsic.ambiguous
        assert r.intrinsic.q_intrinsic == pytest.approx(q_of(a, r.center_nm), rel=0.05)
        assert r.intrinsic.q_intrinsic == pytest.approx(2 * r.q_loaded, rel=0.05)
    assert any("lower bound" in n for n in res.notes)  # a 0 transmission dip ends in noise


def test_asymmetric_add_drop_with_regime():
    """r1 = 0.96 < a·r2 = 0.98: over-coupled input; all three Qs recovered."""
    r1, r2, a = 0.96, 0.985, 0.995
    t, d = ring(WL_1E4, r1, r2, a)
    res = analyze_spectrum(WL_1E4, impair(WL_1E4, t, 6), impair(WL_1E4, d, 7), radius_um=R_UM, coupling="over")
    check_loaded(res, r1 * r2 * a, WL_1E4[0], WL_1E4[-1], er_through_db(r1, r2, a))
    for r in res.resonances:
        intr = r.intrinsic
        assert intr.regime == "over"
        sol = next(s for s in intr.solutions if s.regime == "over")
        assert sol.q_intrinsic == pytest.approx(q_of(a, r.center_nm), rel=0.10)
        assert sol.q_coupling_in == pytest.approx(q_of(r1, r.center_nm), rel=0.10)
        assert sol.q_coupling_drop == pytest.approx(q_of(r2, r.center_nm), rel=0.10)


def test_high_q_1e5_adequate_sampling():
    # all-pass, x = r1·a = 0.99414 → FWHM ≈ 15.5 pm; 3 pm steps ≈ 5 points per FWHM
    r1, a = 0.99763, 0.9965
    wl = np.arange(1541.0, 1559.0, 0.003)
    t, _ = ring(wl, r1, 1.0, a)
    tm = impair(wl, t, 8)
    res = analyze_spectrum(wl, 10 * np.log10(tm), scale="db", radius_um=R_UM, coupling="under")
    x = r1 * a
    lam_true = centers(wl[0], wl[-1])
    assert len(res.resonances) == len(lam_true) == 2
    for r, lam in zip(res.resonances, lam_true, strict=True):
        assert abs(r.center_nm - lam) < 5e-3
        assert r.q_loaded == pytest.approx(q_of(x, lam), rel=0.05)
        assert 9e4 < r.q_loaded < 1.1e5
        assert abs(r.extinction_db - er_through_db(r1, 1.0, a)) < 1.0
        assert r.intrinsic.q_intrinsic == pytest.approx(q_of(a, lam), rel=0.10)
        assert r.points_per_fwhm == pytest.approx(lam / q_of(x, lam) / 0.003, rel=0.05)
    assert res.fsr_nm == pytest.approx(1550.0**2 / NGL_NM, rel=0.005)
    # the same data refused when more points per FWHM are demanded
    with pytest.raises(ValueError, match="min_points_per_fwhm = 8"):
        analyze_spectrum(wl, tm, min_points_per_fwhm=8)


def test_too_coarse_sampling_is_refused():
    r1, a = 0.99763, 0.9965  # FWHM ≈ 15.5 pm
    wl = np.arange(1541.0, 1559.0, 0.010)  # ≈ 1.5 points per FWHM
    t, _ = ring(wl, r1, 1.0, a)
    with pytest.raises(ValueError, match=r"wl_nm sampling is too coarse.*points per .*FWHM"):
        analyze_spectrum(wl, impair(wl, t, 9))


def test_fsr_dispersion_and_group_index():
    """n_eff(λ) quadratic → n_g(λ) = n_eff − λ·dn_eff/dλ falls by ≈ 0.02 across 40 nm."""
    lam_c, n0, n_g0, n2 = 1550.0, 1.9, 2.3, 5e-4 / 1550.0  # n2 in 1/nm², dn_g/dλ = −λ·n2
    n1 = (n0 - n_g0) / lam_c

    def n_eff(lam):
        return n0 + n1 * (lam - lam_c) + 0.5 * n2 * (lam - lam_c) ** 2

    def n_g(lam):
        return n_eff(lam) - lam * (n1 + n2 * (lam - lam_c))

    wl = np.arange(1530.0, 1570.0, 0.01)  # five resonances, four pairs
    r, a = R_SYM, A_SYM
    phi = 2 * np.pi * n_eff(wl) * L_UM * 1e3 / wl
    den = 1 - 2 * r * r * a * np.cos(phi) + (r * r * a) ** 2
    t = (a * a * r * r - 2 * a * r * r * np.cos(phi) + r * r) / den
    res = analyze_spectrum(wl, impair(wl, t, 10, tilt_db_per_nm=0.25), radius_um=R_UM)
    # resonances: n_eff(λ)·L/λ = m, solved here independently
    m_lo, m_hi = n_eff(wl[-1]) * L_UM * 1e3 / wl[-1], n_eff(wl[0]) * L_UM * 1e3 / wl[0]
    lam_true = sorted(
        brentq(lambda lam, m=m: n_eff(lam) * L_UM * 1e3 / lam - m, wl[0], wl[-1])
        for m in range(math.ceil(m_lo), math.floor(m_hi) + 1)
    )
    assert len(res.resonances) == len(lam_true)
    for rr, lam in zip(res.resonances, lam_true, strict=True):
        assert abs(rr.center_nm - lam) < 5e-3
    ng_true = np.array([n_g(m) for m in res.fsr_wl_nm])
    np.testing.assert_allclose(res.group_index, ng_true, rtol=1e-3)
    assert res.group_index[0] - res.group_index[-1] == pytest.approx(ng_true[0] - ng_true[-1], rel=0.2)
    assert res.n_group == pytest.approx(n_g(1550.0), rel=2e-3)
    assert res.fsr_nm == pytest.approx(1550.0**2 / (n_g(1550.0) * L_UM * 1e3), rel=0.005)
    assert res.fsr_slope is not None and res.fsr_slope > 0  # FSR ∝ λ²/n_g grows with λ


def test_single_resonance_lorentzian_and_drop_only():
    wl = np.arange(1552.4, 1555.4, 0.01)  # one resonance (1553.9 nm), ±9 FWHM: no FSR
    t, d = ring(wl, R_SYM, R_SYM, A_SYM)
    x = R_SYM**2 * A_SYM
    lam = centers(wl[0], wl[-1])
    assert lam.size == 1
    res = analyze_spectrum(wl, impair(wl, t, 11), impair(wl, d, 12), coupling="symmetric")
    assert res.fsr_nm is None and res.group_index is None and res.resonances[0].fsr_local_nm is None
    r = res.resonances[0]
    assert abs(r.center_nm - lam[0]) < 5e-3
    assert r.q_loaded == pytest.approx(q_of(x, lam[0]), rel=0.05)
    assert "coupled-mode" in r.intrinsic.method
    assert r.intrinsic.q_intrinsic == pytest.approx(q_of(A_SYM, lam[0]), rel=0.10)
    # drop port alone, over the full band
    dm = impair(WL_1E4, ring(WL_1E4, R_SYM, R_SYM, A_SYM)[1], 13)
    dres = analyze_spectrum(WL_1E4, drop=dm)
    assert dres.port == "drop" and dres.resonances[0].intrinsic is None
    for rr in dres.resonances:
        k = int(np.argmin(np.abs(centers(WL_1E4[0], WL_1E4[-1]) - rr.center_nm)))
        lam_k = centers(WL_1E4[0], WL_1E4[-1])[k]
        assert abs(rr.center_nm - lam_k) < 5e-3
        assert rr.q_loaded == pytest.approx(q_of(x, lam_k), rel=0.05)
        assert abs(rr.extinction_db - er_drop_db(R_SYM, R_SYM, A_SYM)) < 1.0
    assert dres.fsr_nm == pytest.approx(1550.0**2 / NGL_NM, rel=0.005)


def test_second_mode_family_is_told_apart():
    """A weaker, narrower family (n_g = 2.18, x = 0.985) interleaved: the FSR comes from the main one."""
    t1, _ = ring(WL_1E4, R_SYM, R_SYM, A_SYM)
    t2, _ = ring(WL_1E4, 0.995, 1.0, 0.99, n=2.18)
    res = analyze_spectrum(WL_1E4, impair(WL_1E4, t1 * t2, 18), radius_um=R_UM)
    lam1 = centers(WL_1E4[0], WL_1E4[-1])
    lam2 = np.sort(2.18 * L_UM * 1e3 / np.arange(math.ceil(2.18 * L_UM * 1e3 / WL_1E4[-1]), 200))
    for r in res.resonances:
        d1, d2 = np.abs(lam1 - r.center_nm).min(), np.abs(lam2 - r.center_nm).min()
        assert min(d1, d2) < 5e-3
        assert r.family == (0 if d1 < d2 else 1)
    assert sum(r.family == 0 for r in res.resonances) == len(lam1)
    assert res.fsr_nm == pytest.approx(1550.0**2 / NGL_NM, rel=0.005)
    assert res.n_group == pytest.approx(NG, rel=0.005)
    assert res.resonances[res.nearest].family == 0


def test_to_dict_is_json_and_plot(tmp_path):
    t, d = ring(WL_1E4, R_SYM, R_SYM, A_SYM)
    res = analyze_spectrum(WL_1E4, impair(WL_1E4, t, 14), impair(WL_1E4, d, 15), radius_um=R_UM)
    dd = json.loads(json.dumps(res.to_dict()))
    assert dd["fsr_nm"] == pytest.approx(res.fsr_nm)
    assert len(dd["resonances"]) == len(res.resonances)
    assert len(dd["resonances"][0]["intrinsic"]["solutions"]) == 2
    assert "wl_nm" not in dd and "through" not in dd
    path = plot_spectrum(res, tmp_path / "spectrum.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


# ----------------------------------------------------------------------------- errors

_WL = np.linspace(1540.0, 1560.0, 400)
_T = ring(_WL, R_SYM, R_SYM, A_SYM)[0]


def _with(arr, i, v):
    b = np.array(arr, float)
    b[i] = v
    return b


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"wl_nm": _with(_WL, 100, _WL[98])}, r"wl_nm must be strictly increasing.*decreasing"),
        ({"wl_nm": _with(_WL, 100, _WL[99])}, r"wl_nm must be strictly increasing.*duplicated"),
        ({"wl_nm": _with(_WL, 5, np.nan)}, r"wl_nm\[5\] = nan is not finite"),
        ({"wl_nm": _WL * 1e-3}, r"wl_nm spans .* outside the valid range \[100, 20000\] nm"),
        ({"through": _with(_T, 7, np.inf)}, r"through\[7\] = inf is not finite"),
        ({"through": _with(_T, 7, np.nan)}, r"through\[7\] = nan is not finite"),
        ({"through": 10 * np.log10(_T)}, r"through = .* negative values.*scale='db'"),
        ({"through": 1e3 * _T}, r"through = .* exceeds 1.5.*normalized"),
        ({"through": _T, "scale": "db"}, r"through = .*scale='db' looks like linear"),
        ({"wl_nm": _WL[:10], "through": _T[:10]}, r"wl_nm has 10 points.*at least 16"),
        ({"through": _T[:-1]}, r"through has shape \(399,\); it must match wl_nm"),
        ({"through": None}, r"through = None and drop = None"),
        ({"scale": "dbm"}, r"scale = 'dbm' is not one of"),
        ({"coupling": "critical"}, r"coupling = 'critical' is not one of"),
        ({"coupling": "symmetric"}, r"coupling = 'symmetric' needs both through and drop"),
        ({"radius_um": 20.0, "ring_length_um": 125.0}, r"radius_um.*not both"),
        ({"radius_um": -20.0}, r"radius_um = -20 µm is outside the valid range"),
        ({"baseline_order": 9}, r"baseline_order = 9 must be 'auto' or an integer in \[0, 6\]"),
        ({"min_points_per_fwhm": 0.5}, r"min_points_per_fwhm = 0.5 is outside the valid range"),
    ],
)
def test_bad_input_raises(kwargs, match):
    args = {"wl_nm": _WL, "through": _T} | kwargs
    with pytest.raises(ValueError, match=match):
        analyze_spectrum(args.pop("wl_nm"), args.pop("through"), **args)


def test_no_resonance_in_span_raises():
    wl = np.arange(1541.0, 1544.5, 0.01)  # between the 1537.4 and 1545.6 nm resonances
    t, _ = ring(wl, R_SYM, R_SYM, A_SYM)
    flat = impair(wl, np.ones_like(wl), 16)
    for y in (flat, impair(wl, t, 17)):
        with pytest.raises(ValueError, match=r"through: no .*resonance.* in 1541\.\.1544\.\d+ nm"):
            analyze_spectrum(wl, y)
