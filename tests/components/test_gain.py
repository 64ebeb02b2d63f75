"""SOA: homogeneous gain saturation (Agrawal), ASE density (Olsson 1989), the linear model."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import constants

import prismpic  # noqa: F401  (float64)
from prismpic.components import gain
from prismpic.components import soa_physics as sp
from prismpic.testing import check_passive, check_reciprocal


def _residual(g_db, g0_db, p_in_dbm, p_sat_dbm):
    """G − G0 exp(−(G − 1) P_in/P_sat), linear units."""
    g, g0 = 10 ** (g_db / 10), 10 ** (g0_db / 10)
    p = 10 ** ((p_in_dbm - p_sat_dbm) / 10)
    return g - g0 * np.exp(-(g - 1) * p)


def test_saturated_gain_small_signal_limit():
    # G ≈ G0 exp(−(G0 − 1) p) for p → 0: the dB deficit is 10 log10(e) (G0 − 1) p.
    g0_db, p_sat_dbm, p_in_dbm = 25.0, 10.0, -60.0
    g = float(gain.saturated_gain_db(p_in_dbm, g0_db, p_sat_dbm))
    deficit = 10 * math.log10(math.e) * (10 ** 2.5 - 1) * 10 ** ((p_in_dbm - p_sat_dbm) / 10)
    # next order is (G0 p) ≈ 3e-5 of the deficit
    assert g == pytest.approx(g0_db - deficit, abs=1e-3 * deficit)


@pytest.mark.parametrize("g0_db", [10.0, 20.0, 30.0])
def test_saturated_gain_halves_at_the_3db_output_power(g0_db):
    # G = G0/2 at P_out = G0 ln2/(G0 − 2) P_sat, i.e. at P_in = 2 ln2 P_sat/(G0 − 2).
    g0, p_sat_dbm = 10 ** (g0_db / 10), 5.0
    p_in_dbm = p_sat_dbm + 10 * math.log10(2 * math.log(2) / (g0 - 2))
    g = float(gain.saturated_gain_db(p_in_dbm, g0_db, p_sat_dbm))
    assert g == pytest.approx(g0_db - 10 * math.log10(2), abs=1e-10)


def test_saturation_power_from_output_saturation_power():
    # With P_sat from the −3 dB output saturation power, the output at G0/2 equals it.
    g0_db, p_out_3db = 20.0, 10.0
    p_sat = float(gain.saturation_power_dbm(p_out_3db, g0_db))
    g0 = 10 ** (g0_db / 10)
    assert p_sat == pytest.approx(p_out_3db + 10 * math.log10((g0 - 2) / (g0 * math.log(2))), abs=1e-12)
    p_in = p_out_3db - (g0_db - 10 * math.log10(2))  # input that gives P_out,3dB at G0/2
    assert float(gain.saturated_gain_db(p_in, g0_db, p_sat)) == pytest.approx(g0_db - 10 * math.log10(2), abs=1e-10)


def test_saturated_gain_solves_the_implicit_equation_and_is_monotone():
    p_in = np.linspace(-40.0, 30.0, 141)
    for g0_db in (5.0, 20.0, 40.0):
        g = np.asarray(gain.saturated_gain_db(p_in, g0_db, 10.0))
        res = _residual(g, g0_db, p_in, 10.0) / 10 ** (g0_db / 10)
        assert np.max(np.abs(res)) < 1e-12
        assert np.all(np.diff(g) < 0)
        assert np.all(g <= g0_db + 1e-12) and np.all(g > 0)


def test_saturated_gain_gradient_is_the_implicit_derivative():
    # y = ln G solves y − ln G0 + (e^y − 1) p = 0  →  dy/dp = −(e^y − 1)/(1 + p e^y).
    g0_db, p_sat = 20.0, 10.0
    p_in = 0.0
    g_db = float(gain.saturated_gain_db(p_in, g0_db, p_sat))
    y, p = g_db * math.log(10) / 10, 10 ** ((p_in - p_sat) / 10)
    dy_dp = -(math.exp(y) - 1) / (1 + p * math.exp(y))
    dp_dpin = p * math.log(10) / 10
    expected = dy_dp * dp_dpin * 10 / math.log(10)
    got = float(jax.grad(lambda x: gain.saturated_gain_db(x, g0_db, p_sat))(p_in))
    assert got == pytest.approx(expected, rel=1e-10)


def test_ase_psd_against_independent_evaluation():
    # n_sp hν (G − 1), n_sp = NF/2 (Olsson 1989), with scipy's CODATA constants.
    g_db, nf_db, wl = 20.0, 8.0, 1.55
    nu = constants.c / (wl * 1e-6)
    expected = 10 ** (nf_db / 10) / 2 * constants.h * nu * (10 ** (g_db / 10) - 1)
    assert float(gain.ase_psd_w_per_hz(g_db, nf_db, wl)) == pytest.approx(expected, rel=1e-12)
    # NF = 3 dB (n_sp = 1): ≈ hν (G − 1) ≈ 1.27e-17 W/Hz at 20 dB
    assert float(gain.ase_psd_w_per_hz(20.0, 10 * math.log10(2), 1.55)) == pytest.approx(
        constants.h * nu * 99, rel=1e-12
    )


def test_model_gain_and_spectrum():
    # With the operating peak gain given, the spectrum is the material gain's parabola: at λ_p ± FWHM/2 the
    # material gain is half its unsaturated peak, so the dB gain drops by half of that part of G0 — the chip's
    # small-signal gain plus the two taper losses plus the internal loss α_int L.
    g_db, fwhm = 17.0, 80.0
    s = gain.soa_model(wl=gain.GAIN_PEAK_UM, gain_db=g_db, gain_fwhm_nm=fwhm)
    assert float(jnp.abs(s[("o1", "o2")]) ** 2) == pytest.approx(10 ** (g_db / 10), rel=1e-12)
    g0 = float(gain.small_signal_gain_db(1000.0))
    material_db = g0 + 2 * gain.TAPER_LOSS_DB + 10 * math.log10(math.e) * sp.MEDIUM.internal_loss_per_m * 1e-3
    for wl in (gain.GAIN_PEAK_UM - fwhm / 2e3, gain.GAIN_PEAK_UM + fwhm / 2e3):
        t = gain.soa_model(wl=wl, gain_db=g_db, gain_fwhm_nm=fwhm)[("o2", "o1")]
        assert 10 * math.log10(float(jnp.abs(t) ** 2)) == pytest.approx(g_db - material_db / 2, abs=1e-4)  # −60 dBm: ~1e-5 dB of saturation
    assert set(s) == {("o1", "o2"), ("o2", "o1")}  # no reflections


def test_model_default_gain_follows_gain_length():
    # at a fixed current density the net gain in nepers is ∝ L; the two tapers come off once each
    g = {length: 10 * math.log10(float(jnp.abs(gain.soa_model(wl=gain.GAIN_PEAK_UM, gain_length=length)
                                                  [("o1", "o2")]) ** 2)) for length in (500.0, 1000.0)}
    assert g[500.0] + 2 * gain.TAPER_LOSS_DB == pytest.approx((g[1000.0] + 2 * gain.TAPER_LOSS_DB) / 2, abs=1e-4)
    assert 15.0 < g[1000.0] < 30.0  # the published range of SOA gain (REFERENCES.md)


def test_model_is_reciprocal_and_not_passive():
    check_reciprocal(gain.soa_model, gain_db=20.0)
    with pytest.raises(AssertionError):
        check_passive(gain.soa_model, gain_db=20.0)
    check_passive(gain.soa_model, gain_db=-3.0)  # an absorbing SOA is passive
    # unpumped, the III-V absorbs at every wavelength of the band (the rate equation's steady state at J = 0)
    check_passive(gain.soa_model, current_density_ka_per_cm2=0.0)
    check_passive(gain.soa_model, current_density_ka_per_cm2=0.0, input_power_dbm=20.0)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"gain_length": -1.0}, "gain_length"), ({"contact_gap": 0.5}, "contact_gap"), ({"soa_width": 5.0}, "soa_width")],
)
def test_bad_geometry_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gain.soa_model(**kwargs)
    with pytest.raises(ValueError, match=name):
        gain.soa(**kwargs)


def test_bad_noise_figure_raises():
    with pytest.raises(ValueError, match="nf_db"):
        gain.ase_psd_w_per_hz(20.0, 2.0)


# ---------------------------------------------------------------------------- the carrier rate equation
def test_rate_equation_steady_state_is_the_analytic_saturated_gain():
    """With τ constant (B = C = 0) and no internal loss the steady state is G = G0 exp(−(G − 1) P/P_sat),
    G0 = exp(Γ a L (pump·τ − N_tr)), P_sat = h ν w d/(Γ a τ) (Agrawal & Olsson, JQE 25, 2297 (1989)),
    solved here by bracketing root-finding."""
    from scipy.optimize import brentq

    med = sp.MEDIUM._replace(b_m3_per_s=0.0, c_m6_per_s=0.0, internal_loss_per_m=0.0)
    tau, length, wl = 1 / med.a_per_s, 600.0, 1.55
    pump = 5.0e-2 * med.n_tr_m3 / tau + med.n_tr_m3 / tau  # 5 % above transparency's pump
    ln_g0 = med.confinement * med.diff_gain_m2 * length * 1e-6 * (pump * tau - med.n_tr_m3)
    p_sat = constants.h * constants.c / (wl * 1e-6) * med.active_width_m * med.active_thickness_m / (
        med.confinement * med.diff_gain_m2 * tau)
    for p_in in np.geomspace(1e-4, 30.0, 7) * p_sat:
        n = sp.steady_carrier_density(pump, jnp.array([p_in]), jnp.array([wl]), length, wl, 0.0, med)
        g = math.exp(float(sp.net_gain_np(n, wl, length, wl, 0.0, med)))
        expected = brentq(lambda x, p=p_in: x - math.exp(ln_g0 - (x - 1) * p / p_sat), 1.0, math.exp(ln_g0))
        assert g == pytest.approx(expected, rel=1e-9)


def _rhs_numpy(n, pump, p_in, wl, length_um, med):
    """dN/dt of the rate equation written out again (numpy, one channel at the gain peak)."""
    g = med.diff_gain_m2 * (n - med.n_tr_m3)
    h = (med.confinement * g - med.internal_loss_per_m) * length_um * 1e-6
    stim = med.confinement * g * (math.expm1(h) / h) * p_in / (constants.h * constants.c / (wl * 1e-6))
    return pump - (med.a_per_s * n + med.b_m3_per_s * n**2 + med.c_m6_per_s * n**3) - stim / (
        med.active_width_m * med.active_thickness_m)


def test_gain_recovery_time_is_the_effective_lifetime():
    """After a small step of input power the carrier density relaxes as exp(−t/τ_eff), τ_eff = −1/(∂ṅ/∂N) at the
    new steady state (derivative of the rate equation written in numpy, by central differences)."""
    from scipy.optimize import brentq

    from prismpic.components import soa_dynamics as sd

    med, wl, length = sp.MEDIUM, 1.55, 1000.0
    prm = sd.chain_params(np.array([wl]), taper_loss_db=0.0, stage_loss_db=0.0)
    pump = float(prm.pump)
    p1, p2 = 2e-3, 2.02e-3  # W at the gain section: a 1 % step, deep in saturation (P_sat ≈ 15 mW)
    n_inf = brentq(lambda n: _rhs_numpy(n, pump, p2, wl, length, med), 1e23, 1e25, xtol=1e8, rtol=1e-15)
    d = 1e19
    tau_eff = -2 * d / (_rhs_numpy(n_inf + d, pump, p2, wl, length, med) - _rhs_numpy(n_inf - d, pump, p2, wl,
                                                                                        length, med))
    t = np.linspace(0.0, 3e-9, 601)
    p = np.where(t > 0, p2, p1)[:, None]
    n0 = sd.steady_chain(jnp.array([p1]), prm, 1)
    n_t = np.asarray(sd.simulate_chain(t, p, prm, 1, n0=n0))[:, 0]
    assert n_t[-1] == pytest.approx(n_inf, rel=1e-7)
    late = (t > 0.3e-9) & (t < 2e-9)
    slope = np.polyfit(t[late], np.log(np.abs(n_t[late] - n_inf)), 1)[0]
    assert -1 / slope == pytest.approx(tau_eff, rel=1e-3)
    op = gain.operating_point(length, input_power_dbm=10 * math.log10(p2 / 1e-3), taper_loss_db=0.0)
    assert float(op["effective_lifetime_ps"]) * 1e-12 == pytest.approx(tau_eff, rel=1e-5)
    assert 50e-12 < tau_eff < float(op["differential_lifetime_ps"]) * 1e-12  # stimulated emission speeds it up


def test_noise_figure_from_the_inversion():
    """F = 2 n_sp (G − 1)/G + 1/G with n_sp = N/(N − N_tr) (Olsson, JLT 7, 1071 (1989)), without internal loss;
    → 2 n_sp at high gain; the module's cached default NF and −3 dB output power are the rate equation's."""
    med = sp.MEDIUM._replace(internal_loss_per_m=0.0)
    for j_ka, length in ((3.0, 300.0), (3.0, 1000.0), (6.0, 2000.0)):
        pump = sp.pump_rate(j_ka, med)
        n = float(sp.steady_carrier_density(pump, jnp.array([1e-9]), jnp.array([1.55]), length, 1.55, 0.0, med))
        h = float(sp.net_gain_np(n, 1.55, length, 1.55, 0.0, med))
        g, nsp = math.exp(h), n / (n - med.n_tr_m3)
        f = float(sp.noise_figure(n, h, length, 1.0, med))
        assert f == pytest.approx(2 * nsp * (g - 1) / g + 1 / g, rel=1e-12)
        s_ase = float(sp.ase_psd_w_per_hz(n, h, length, 1.55, 1.0, med))
        assert s_ase == pytest.approx(nsp * constants.h * constants.c / 1.55e-6 * (g - 1), rel=1e-12)
    assert g > 1e4 and f == pytest.approx(2 * nsp, rel=1e-3)
    assert float(gain.operating_point()["noise_figure_db"]) == pytest.approx(gain.NOISE_FIGURE_DB, abs=1e-3)
    assert float(gain.output_saturation_power_dbm()) == pytest.approx(gain.P_SAT_OUT_DBM, abs=1e-3)


def test_rate_equation_gradients_against_finite_differences():
    def g_db(j, p_dbm, scale):
        return gain.operating_point(1000.0, j, p_dbm, lifetime_scale=scale)["gain_db"]

    x = (3.0, 5.0, 1.5)
    grads = jax.grad(g_db, argnums=(0, 1, 2))(*x)
    for k, step in enumerate((1e-4, 1e-4, 1e-5)):
        hi, lo = list(x), list(x)
        hi[k] += step
        lo[k] -= step
        fd = (float(g_db(*hi)) - float(g_db(*lo))) / (2 * step)
        assert float(grads[k]) == pytest.approx(fd, rel=1e-5, abs=1e-9)
    assert float(grads[0]) > 0 and float(grads[1]) < 0  # more current, more gain; more input, less gain


@pytest.mark.parametrize("kwargs, name", [
    ({"current_density_ka_per_cm2": -1.0}, "current_density_ka_per_cm2"),
    ({"current_density_ka_per_cm2": 50.0}, "current_density_ka_per_cm2"),
    ({"input_power_dbm": 45.0}, "input_power_dbm"),
    ({"taper_loss_db": -0.5}, "taper_loss_db"),
])
def test_bad_bias_raises(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the valid range"):
        gain.soa_model(**kwargs)
    with pytest.raises(ValueError, match=name):
        gain.operating_point(**kwargs)


def test_bad_lifetime_scale_raises():
    with pytest.raises(ValueError, match=r"lifetime_scale = 20 is outside the valid range \[0\.1, 10\]"):
        gain.operating_point(lifetime_scale=20.0)


def test_a_chain_solve_that_runs_out_of_steps_is_nan():
    """A failed carrier solve (step budget spent) gives NaN, not a partial trajectory."""
    from prismpic.components import soa_dynamics as sd

    prm = sd.chain_params(np.array([1.55]))
    t = np.linspace(0.0, 1e-9, 201)
    p = np.where(t > 0.5e-9, 2e-3, 1e-3)[:, None]
    assert np.isnan(np.asarray(sd.simulate_chain(t, p, prm, 1, max_steps=2))).all()
    assert np.isfinite(np.asarray(sd.simulate_chain(t, p, prm, 1))).all()


def test_in_the_command_line_process_the_chain_compiles_without_host_callbacks():
    """``prismpic``'s process (``cli.main``) compiles the SOA chain without host callbacks (diffrax's runtime errors
    are callbacks), so JAX's persistent cache keeps it between runs."""
    import subprocess
    import sys

    code = """
import sys
sys.argv = ["prismpic", "--version"]
import prismpic.cli as cli
try:
    cli.main()
except SystemExit:
    pass
import jax, numpy as np
from prismpic.components import soa_dynamics as sd
prm = sd.chain_params(np.array([1.55]))
t = np.linspace(0.0, 1e-9, 201)
p = np.where(t > 0.5e-9, 2e-3, 1e-3)[:, None]
print("callbacks:", jax.jit(sd.simulate_chain, static_argnums=(3,)).lower(t, p, prm, 1).as_text().count("callback"))
"""
    env = {k: v for k, v in __import__("os").environ.items() if k != "EQX_ON_ERROR"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert "callbacks: 0" in out.stdout, out.stdout + out.stderr[-2000:]
