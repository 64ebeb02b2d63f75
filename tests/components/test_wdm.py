"""Ring WDM demultiplexer: netlist simulation, channel placement, Lorentzian crosstalk."""

import math

import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.components.wdm import (
    CHANNELS_UM,
    GRID_UM,
    channel_radii,
    trim_voltages_v,
    wdm_demux,
    wdm_demux_model,
    wdm_demux_model_for,
    wdm_mux,
)
from prismpic.pdk import dispersion, scattering
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS

N = len(CHANNELS_UM)
LAM = np.array(CHANNELS_UM)
N_SWEEP = 401  # points per channel window (1 pm steps, ~80 per FWHM)
MID = N_SWEEP // 2  # the window's centre sample is the channel wavelength itself


@pytest.fixture(scope="module")
def plan():
    """(trim voltages, drawn radii) of the default plan: each takes a Newton solve per ring, so once per module."""
    return trim_voltages_v(), [float(r) for r in channel_radii()]


@pytest.fixture(scope="module")
def spectra(plan):
    """Windows of ±0.2 nm around every channel, (N, N_SWEEP), and the demux's S over all of them, as drawn
    and trimmed: one call of the (eager) model each, whose ops compile once for this one shape."""
    windows = LAM[:, None] + np.linspace(-2e-4, 2e-4, N_SWEEP)
    assert np.array_equal(windows[:, MID], LAM)
    wl = jnp.asarray(windows.ravel())
    return windows, wdm_demux_model(wl=wl), wdm_demux_model(wl=wl, voltages_v=plan[0])


def drops(s):
    """|S(o{3+k}, o1)|² of a demux S over the windows, shape (N ports, N windows, N_SWEEP)."""
    return np.array([np.abs(np.asarray(s[(f"o{3 + k}", "o1")])).reshape(N, N_SWEEP) ** 2 for k in range(N)])


def line(k, radius, voltage_v=0.0):
    """Add-drop line parameters of ring k (equal gaps, radius and trim voltage given) at the channels.

    Returns (κ², a, δθ, n_g, x = t² a) as arrays over ``CHANNELS_UM``: κ = sin Φ from the ring's
    coupler, a the round-trip amplitude, δθ the round-trip phase θ = (2π/λ)·2πR·(n̄_eff(λ) + V dn/dV)
    less 2πm, m the order nearest θ at channel k.
    """
    k2 = np.sin(np.asarray(ring_physics.coupling_angle(LAM, ring_physics.GAP, radius))) ** 2
    a = 10 ** (-np.asarray(ring_physics.round_trip_loss_db(LAM, radius)) / 20)
    dn_dv = np.asarray(ring_physics.pockels_dneff_dv(LAM, RingDesign(radius=radius)))
    n = np.asarray(ring_physics.ring_neff(LAM, radius)) + voltage_v * dn_dv
    theta = 2 * np.pi / LAM * 2 * np.pi * radius * n
    ng = np.asarray(ring_physics.ring_ng(LAM, radius))
    return k2, a, theta - 2 * np.pi * round(theta[k] / (2 * np.pi)), ng, (1 - k2) * a


def fwhm_um(k, radius):
    """FWHM (µm) of ring k's drop line: half width 2 asin((1 − x)/(2√x)) in θ, |dθ/dλ| = 2π n_g L/λ²."""
    _, _, _, ng, x = line(k, radius)
    length = 2 * np.pi * radius
    return 2 * math.asin((1 - x[k]) / (2 * math.sqrt(x[k]))) * LAM[k] ** 2 / (np.pi * ng[k] * length)


def peak(wl, y):
    i = int(np.argmax(y))
    assert 0 < i < len(y) - 1
    y0, y1, y2 = y[i - 1 : i + 2]
    return wl[i] + 0.5 * (y0 - y2) / (y0 - 2 * y1 + y2) * (wl[1] - wl[0])


@pytest.mark.filterwarnings("ignore:Unconnected ports")  # the terminated add ports
def test_netlist_simulation_matches_the_cascade():
    c = wdm_demux()
    net = c.get_netlist()
    net["ports"] = {k: v for k, v in net["ports"].items() if k.startswith("o")}  # optical ports only
    models = dict(prismpic.get_pdk().models)
    assert {inst["component"] for inst in net["instances"].values()} <= set(models)
    circuit, _ = sax.circuit(net, models=models)
    wl = jnp.linspace(1.546, 1.554, 101)  # klujax loops over the batch: keep it short
    a, b = circuit(wl=wl), wdm_demux_model(wl=wl)
    for key in a:
        ref = b.get(key, 0.0)
        # float64 round-off (1e-16) grown by the rings' resonant build-up (finesse ≈ 60) over the 8-ring cascade
        assert float(jnp.max(jnp.abs(a[key] - ref))) < 1e-11, key
    assert set(b) <= set(a)


def test_radii_are_on_the_grid_and_near_nominal():
    radii = np.array([float(r) for r in channel_radii()])
    np.testing.assert_allclose(radii / GRID_UM, np.round(radii / GRID_UM), atol=1e-6)
    # one order step moves R by λ/(2π n_eff)·(n_eff/n_g)-ish ≈ 0.1 µm; the nearest order is within half of it
    n = float(ring_physics.ring_neff(1.55))
    assert np.all(np.abs(radii - 20.0) <= 0.5 * 1.55 / (2 * np.pi * n) * 1.05)
    assert wdm_demux().info["radii"] == pytest.approx(list(radii), abs=1e-9)


def test_each_drop_peaks_on_its_channel(plan, spectra):
    trims, radii = plan
    windows, drawn, trimmed = spectra
    drawn, trimmed = drops(drawn), drops(trimmed)
    for k, lam in enumerate(CHANNELS_UM):
        wl = windows[k]
        # as drawn: the 1 nm radius grid leaves the resonance within |dλ/dR|·0.5 nm of the channel,
        # dλ/dR = λ n_eff/(R n_g) (θ = 2π·2πR n_eff/λ held at 2πm)
        n, ng = float(ring_physics.ring_neff(lam, radii[k])), float(ring_physics.ring_ng(lam, radii[k]))
        bound = 0.5 * GRID_UM * lam * n / (radii[k] * ng)
        # the drop line's maximum also leans by a small fraction of a linewidth on the slopes of the
        # neighbouring channels' rings and of κ(λ): allow 1 % of the FWHM
        slack = 0.01 * fwhm_um(k, radii[k])
        off = peak(wl, drawn[k, k])
        assert abs(off - lam) <= 1.05 * bound + slack
        # trimmed by the Pockels voltages: on the channel
        assert abs(peak(wl, trimmed[k, k]) - lam) < slack
        pm_per_v = float(ring_physics.ring_tuning_pm_per_v(lam, RingDesign(radius=radii[k])))
        assert abs(trims[k]) <= 1.05 * bound * 1e6 / pm_per_v


def test_crosstalk_follows_the_lorentzian(plan, spectra):
    """Drop of ring k at channel j relative to its own channel: the ring's Airy line, κ and a taken at λ_j.

    Yariv (2000) / Bogaerts et al. (2012): |drop|² = κ1²κ2² a/((1 − x)² + 4x sin²(δθ/2)), x = t1t2a.
    A periodic Lorentzian of fixed finesse F = FSR/FWHM holds κ at λ_k; but the evanescent coupling
    grows with λ (κ² by ≈ 0.8 %/nm here), and the wing at λ_j carries κ1²κ2² = κ⁴ at λ_j: a factor
    (κ²(λ_j)/κ²(λ_k))² ≈ 1 ∓ 4 % at 4.8 nm, the size of what the fixed-F Lorentzian misses. The
    phase is taken from n_eff(λ) itself, not linearised with one FSR (the FSR's own dispersion
    moves sin²(δθ/2) by up to 0.3 % at 4.8 nm), and includes the trim, so that a ring a little off
    its channel is accounted for.

    Left out, and so the tolerance: for j < k the channels first pass rings k+1 … N−1 (at most
    N − 2 of them), off resonance at both λ_j and λ_k. Each takes out ε, its drop |D|² plus what
    its round trip absorbs: with circulating power P, |D|² = κ² a P and the absorption (1 − a²) P,
    so ε = |D|² (1 + (1 − a²)/(κ² a)) ≈ 1.3 |D|². The ratio moves by less than (N − 2)·max ε, a few 1e-3
    (|D|² ≈ 1e-3 at 1.6 nm from a line at the default sloped walls). Buses and drop bends lose the same power at every channel.
    """
    trims, radii = plan
    d = drops(spectra[2])[:, :, MID]  # port k at channel j
    params = [line(k, radii[k], trims[k]) for k in range(N)]
    drop = [k2**2 * a / ((1 - x) ** 2 + 4 * x * np.sin(dth / 2) ** 2) for k2, a, dth, _, x in params]
    eps = max(float(np.max(np.delete(drop[m] * (1 + (1 - a**2) / (k2 * a)), m)))
              for m, (k2, a, *_) in enumerate(params))
    tol = (N - 2) * eps
    # the bound stays well below what κ(λ) contributes, (κ²(λ_j)/κ²(λ_k))² − 1 at the farthest channel
    kappa_effect = max(float(np.max(np.abs((k2 / k2[k]) ** 2 - 1))) for k, (k2, *_) in enumerate(params))
    assert tol < kappa_effect / 4, (tol, kappa_effect)
    for k in range(N):
        expect = drop[k] / drop[k][k]
        fwhm, fsr = fwhm_um(k, radii[k]), LAM[k] ** 2 / (params[k][3][k] * 2 * np.pi * radii[k])
        for j in range(N):
            if j == k:
                continue
            dl = LAM[j] - LAM[k]
            ratio = d[k, j] / d[k, k]
            if j < k:  # channel j reaches ring k without passing its own ring first
                assert ratio == pytest.approx(expect[j], rel=tol)
                if abs(dl) < 0.2 * fsr:  # the plain Lorentzian, near the line
                    lorentz = 1 / (1 + (2 * dl / fwhm) ** 2)
                    assert 10 * np.log10(ratio / lorentz) == pytest.approx(0.0, abs=1.0)
            else:
                # ring j has dropped most of channel j before ring k: what passes it is its through,
                # |t − t a e^{iδθ}|²/|1 − x e^{iδθ}|² (equal gaps) at λ_j; other rings only take more out
                k2j, aj, dthj, _, xj = params[j]
                e = np.exp(1j * dthj[j])
                through = (1 - k2j[j]) * abs(1 - aj[j] * e) ** 2 / abs(1 - xj[j] * e) ** 2
                assert ratio <= expect[j] * through * (1 + tol)


def test_mux_is_the_demux_used_backwards(spectra):
    d, m = wdm_demux(), wdm_mux()
    assert {p.name: tuple(p.center) for p in d.ports} == {p.name: tuple(p.center) for p in m.ports}
    s = spectra[2]  # trimmed
    for k in range(N):
        # channel k in at o{3+k} reaches o1; the other channels entering there are rejected
        at_channels = np.abs(np.asarray(s[("o1", f"o{3 + k}")])).reshape(N, N_SWEEP)[:, MID]
        assert int(np.argmax(at_channels)) == k
        assert ("o2", f"o{3 + k}") not in s


def test_model_for_another_channel_count():
    plan = (1.549, 1.551)
    model = wdm_demux_model_for(plan)
    assert sorted(sax.get_ports(model())) == ["o1", "o2", "o3", "o4"]
    c = wdm_demux(channels_um=plan)
    assert sorted(p.name for p in c.ports if p.port_type == "optical") == ["o1", "o2", "o3", "o4"]


def test_bad_plans_raise():
    fsr = 1.55**2 / (float(ring_physics.ring_ng(1.55)) * 2 * math.pi * 20.0)
    with pytest.raises(ValueError, match="channels_um"):
        wdm_demux_model(channels_um=(1.55, 1.55 + 1.1 * fsr))
    with pytest.raises(ValueError, match="channels_um"):
        wdm_demux(channels_um=tuple(1.55 + 1e-4 * i for i in range(17)))
    with pytest.raises(ValueError, match="voltages_v"):
        wdm_demux_model(voltages_v=(1.0,))
    with pytest.raises(ValueError, match="spacing"):
        wdm_demux(spacing=10.0)


def test_dispersion_is_the_one_the_rings_use(plan):
    # the demux's through port at a channel equals the product of its rings' through ports
    trims, radii = plan
    wl = 1.5504
    t = 1.0 + 0j
    for k in reversed(range(N)):
        t *= complex(rings.ring_add_drop_model(wl=wl, radius=radii[k], voltage_v=trims[k])[("o1", "o2")])
    n = float(dispersion.neff(wl, RidgeStack(width=1.4, film_thickness=FILM_THICKNESS, etch_depth=ETCH_DEPTH)))
    loss = float(scattering.straight_loss_db_per_cm(wl, RidgeStack(width=1.4, film_thickness=FILM_THICKNESS,
                                                                    etch_depth=ETCH_DEPTH)))  # closed form
    t *= np.exp(2j * np.pi * n * 40.0 * (N - 1) / wl) * 10 ** (-loss * 40e-4 * (N - 1) / 20)
    assert complex(wdm_demux_model(wl=wl, voltages_v=trims)[("o1", "o2")]) == pytest.approx(t, abs=1e-7)  # the loss's interpolant: 5e-9
