"""Ring WDM demultiplexer: netlist simulation, channel placement, Lorentzian crosstalk."""

import math

import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.components import rings
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
from prismpic.pdk import dispersion
from prismpic.pdk.stack import ETCH_DEPTH, FILM_THICKNESS

N = len(CHANNELS_UM)
N_SWEEP = 2001  # one sweep length throughout, so the eager model compiles its ops once


def drop(wl, k, voltages_v=None):
    return np.abs(np.asarray(wdm_demux_model(wl=wl, voltages_v=voltages_v)[(f"o{3 + k}", "o1")])) ** 2


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
        assert float(jnp.max(jnp.abs(a[key] - ref))) < 1e-12, key
    assert set(b) <= set(a)


def test_radii_are_on_the_grid_and_near_nominal():
    radii = np.array([float(r) for r in channel_radii()])
    np.testing.assert_allclose(radii / GRID_UM, np.round(radii / GRID_UM), atol=1e-6)
    # one order step moves R by λ/(2π n_eff)·(n_eff/n_g)-ish ≈ 0.1 µm; the nearest order is within half of it
    n = float(rings.ring_neff(1.55))
    assert np.all(np.abs(radii - 20.0) <= 0.5 * 1.55 / (2 * np.pi * n) * 1.05)
    assert wdm_demux().info["radii"] == pytest.approx(list(radii), abs=1e-9)


def test_each_drop_peaks_on_its_channel():
    trims = trim_voltages_v()
    radii = [float(r) for r in channel_radii()]
    for k, lam in enumerate(CHANNELS_UM):
        wl = np.linspace(lam - 2e-4, lam + 2e-4, N_SWEEP)
        # as drawn: the 1 nm radius grid leaves the resonance within |dλ/dR|·0.5 nm of the channel,
        # dλ/dR = λ n_eff/(R n_g) (θ = 2π·2πR n_eff/λ held at 2πm)
        n, ng = float(rings.ring_neff(lam, radii[k])), float(rings.ring_ng(lam, radii[k]))
        bound = 0.5 * GRID_UM * lam * n / (radii[k] * ng)
        # the drop line's maximum also leans by a small fraction of a linewidth on the slopes of the
        # neighbouring channels' rings and of κ(λ): allow 1 % of the FWHM
        slack = 0.01 * rings.ring_specs(lam, radius=radii[k])["fwhm_nm"] * 1e-3
        off = peak(wl, drop(wl, k))
        assert abs(off - lam) <= 1.05 * bound + slack
        # trimmed by the Pockels voltages: on the channel
        assert abs(peak(wl, drop(wl, k, trims)) - lam) < slack
        assert abs(trims[k]) <= 1.05 * bound * 1e6 / float(rings.ring_tuning_pm_per_v(lam, radii[k]))


def test_crosstalk_follows_the_lorentzian():
    trims = trim_voltages_v()
    lam = np.array(CHANNELS_UM)
    s = wdm_demux_model(wl=jnp.asarray(lam), voltages_v=trims)
    radii = [float(r) for r in channel_radii()]
    for k in range(N):
        spec = rings.ring_specs(lam[k], radius=radii[k], voltage_v=trims[k])
        fsr, fwhm = spec["fsr_nm"] * 1e-3, spec["fwhm_nm"] * 1e-3
        f = fsr / fwhm
        d = np.abs(np.asarray(s[(f"o{3 + k}", "o1")])) ** 2
        for j in range(N):
            if j == k:
                continue
            dl = lam[j] - lam[k]
            airy = 1 / (1 + (2 * f / np.pi) ** 2 * np.sin(np.pi * dl / fsr) ** 2)  # periodic Lorentzian
            x = d[j] / d[k]
            if j < k:  # channel j reaches ring k without passing its own ring first
                assert x == pytest.approx(airy, rel=0.03)
                if abs(dl) < 0.2 * fsr:  # the plain Lorentzian, near the line
                    lorentz = 1 / (1 + (2 * dl / fwhm) ** 2)
                    assert 10 * np.log10(x / lorentz) == pytest.approx(0.0, abs=1.0)
            else:  # ring j has dropped most of channel j before ring k
                assert x <= 1.03 * airy


def test_mux_is_the_demux_used_backwards():
    d, m = wdm_demux(), wdm_mux()
    assert {p.name: tuple(p.center) for p in d.ports} == {p.name: tuple(p.center) for p in m.ports}
    trims = trim_voltages_v()
    s = wdm_demux_model(wl=jnp.asarray(CHANNELS_UM), voltages_v=trims)
    for k in range(N):
        # channel k in at o{3+k} reaches o1; the other channels entering there are rejected
        assert int(np.argmax(np.abs(np.asarray(s[("o1", f"o{3 + k}")])))) == k
        assert ("o2", f"o{3 + k}") not in s


def test_model_for_another_channel_count():
    plan = (1.549, 1.551)
    model = wdm_demux_model_for(plan)
    assert sorted(sax.get_ports(model())) == ["o1", "o2", "o3", "o4"]
    c = wdm_demux(channels_um=plan)
    assert sorted(p.name for p in c.ports if p.port_type == "optical") == ["o1", "o2", "o3", "o4"]


def test_bad_plans_raise():
    fsr = 1.55**2 / (float(rings.ring_ng(1.55)) * 2 * math.pi * 20.0)
    with pytest.raises(ValueError, match="channels_um"):
        wdm_demux_model(channels_um=(1.55, 1.55 + 1.1 * fsr))
    with pytest.raises(ValueError, match="channels_um"):
        wdm_demux(channels_um=tuple(1.55 + 1e-4 * i for i in range(17)))
    with pytest.raises(ValueError, match="voltages_v"):
        wdm_demux_model(voltages_v=(1.0,))
    with pytest.raises(ValueError, match="spacing"):
        wdm_demux(spacing=10.0)


def test_dispersion_is_the_one_the_rings_use():
    # the demux's through port at a channel equals the product of its rings' through ports
    trims = trim_voltages_v()
    radii = channel_radii()
    wl = 1.5504
    t = 1.0 + 0j
    for k in reversed(range(N)):
        t *= complex(rings.ring_add_drop_model(wl=wl, radius=radii[k], voltage_v=trims[k])[("o1", "o2")])
    n = float(dispersion.neff(wl, 1.4, FILM_THICKNESS, ETCH_DEPTH))
    t *= np.exp(2j * np.pi * n * 40.0 * (N - 1) / wl) * 10 ** (-0.2 * 40e-4 * (N - 1) / 20)
    assert complex(wdm_demux_model(wl=wl, voltages_v=trims)[("o1", "o2")]) == pytest.approx(t, abs=1e-12)
