"""PTU crossbar: fast model vs netlist simulation and vs a loop over crossings, readout counts,
weight programming, layout (DRC, LVS), SOA noise, bad input."""

import math
from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.analysis.system import noise
from prismpic.analysis.system.ptu_readout import column_snr_db, ptu_readout_counts
from prismpic.circuits.ptu import ptu, ptu_netlist
from prismpic.circuits.ptu_model import (
    coupler_lengths,
    differential_readout,
    fractions_to_weights,
    ptu_fast,
    ptu_optical_powers,
    row_soa_gain_db,
    signed_weights_to_fractions,
    tap_fractions,
    weights_to_fractions,
)
from prismpic.components import pcm
from prismpic.components.couplers import directional_coupler_model
from prismpic.components.detectors import responsivity_a_per_w
from prismpic.components.gain import P_SAT_OUT_DBM, saturation_power_dbm, small_signal_gain_db, soa_model
from prismpic.components.waveguides import straight_model
from prismpic.pdk import drc

WL = jnp.array([1.53, 1.55, 1.565])  # one wavelength grid for every test: the device models compile once


def test_fast_model_equals_netlist_simulation():
    """2 × 2 tile, 2 wavelengths: powers at every crossing's diode and at the east ports, to 1e-9."""
    pdk = prismpic.get_pdk()
    tile = ptu(rows=2, cols=2, with_detectors=False)
    circuit, _ = sax.circuit(ptu_netlist(tile), pdk.models)
    rng = np.random.default_rng(1)
    f = rng.uniform(0, 1, (2, 2))
    x = rng.uniform(0.1e-3, 1e-3, (2, 3))
    g = np.array([12.0, 15.0])
    settings = {f"pcm_r{r}_c{c}": {"crystalline_fraction": float(f[r, c])} for r in range(2) for c in range(2)}
    settings |= {f"amp_r{r}": {"gain_db": float(g[r])} for r in range(2)}
    s = jax.jit(lambda wl: circuit(wl=wl, **settings))(WL)
    p, east = ptu_optical_powers(x, f, WL, soa_gain_db=g)
    for r in range(2):
        for c in range(2):
            net = x[r] * np.abs(np.asarray(s[(f"o{r + 1}", f"t{r}_{c}")])) ** 2
            np.testing.assert_allclose(net, p[r, c], rtol=1e-9, atol=0)
        # east ports are numbered top to bottom: row r leaves at o{2·rows − r}. Where a crystalline cell
        # nearly extinguishes the row (|S|² ~ 1e-12), float64 rounding of the cascaded fields (ε ≈ 1e-16 per
        # element, ~10 elements, times 2|S|) sets an absolute floor ~1e-20 of the input power: atol 1e-18·x
        np.testing.assert_allclose(x[r] * np.abs(np.asarray(s[(f"o{r + 1}", f"o{4 - r}")])) ** 2, east[r],
                                   rtol=1e-9, atol=1e-18 * x[r].max())


def test_fast_model_equals_a_loop_over_crossings():
    """I_c = Σ_r Σ_λ R(λ) x_rλ G_r(λ) Π_{c'<c}|bar_c'|²|fill_c'|² |cross_c|² T_pcm(f_rc, λ), device by device."""
    rows, cols, wls = 3, 4, WL
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1e-3, (rows, 3))
    f = rng.uniform(0, 1, (rows, cols))
    g = rng.uniform(5.0, 15.0, rows)
    lengths = coupler_lengths(cols)
    expect_bb = np.zeros(cols)
    expect_pw = np.zeros((cols, 3))
    for li, wl in enumerate(np.asarray(wls)):
        resp = float(responsivity_a_per_w(wl, 12.0))
        for r in range(rows):
            amp = abs(complex(soa_model(wl, gain_db=float(g[r]))[("o1", "o2")])) ** 2
            reach = 1.0
            for c in range(cols):
                dc = directional_coupler_model(wl, gap=0.3, length=lengths[c], dy=30.0, bend_length=40.0)
                cross = abs(complex(dc[("o1", "o3")])) ** 2
                t_pcm = abs(complex(pcm.pcm_transmission(wl, float(f[r, c]), length=30.0))) ** 2
                i = resp * x[r, li] * amp * reach * cross * t_pcm
                expect_bb[c] += i
                expect_pw[c, li] += i
                fill = 300.0 - (80.0 + lengths[c])
                bar = abs(complex(dc[("o1", "o4")])) ** 2
                reach *= bar * abs(complex(straight_model(wl, length=round(fill, 3))[("o1", "o2")])) ** 2
    np.testing.assert_allclose(ptu_fast(x, f, wls, soa_gain_db=g), expect_bb, rtol=1e-9)
    np.testing.assert_allclose(ptu_fast(x, f, wls, soa_gain_db=g, readout="per_wavelength"), expect_pw, rtol=1e-9)


def test_fast_model_jits_and_vmaps_over_inputs():
    rng = np.random.default_rng(3)
    xs = rng.uniform(0, 1e-3, (5, 3, 3))
    f = rng.uniform(0, 1, (3, 4))
    fast = jax.jit(jax.vmap(lambda x: ptu_fast(x, f, WL, soa_gain_db=10.0)))
    looped = np.stack([ptu_fast(x, f, WL, soa_gain_db=10.0) for x in xs])
    np.testing.assert_allclose(fast(xs), looped, rtol=1e-12)


def test_tap_ladder_shares_a_row_equally():
    """κ_c = (1 − f_t)/(cols − c(1 − f_t)) gives each column (1 − f_t)/cols and the east port f_t.

    Lossless ridges, f = 0, no SOA, at the design wavelength (1.55 µm): what remains is the
    couplers' S-bend radiation loss (< 0.002 dB each) and the amorphous cell's residual absorption.
    """
    cols, ft = 4, 0.25
    k = tap_fractions(cols, ft)
    left = 1 - np.concatenate([[0.0], np.cumsum(np.full(cols - 1, (1 - ft) / cols))])
    np.testing.assert_allclose(k * left, (1 - ft) / cols, rtol=1e-12)
    p, east = ptu_optical_powers(np.ones((3, 3)), np.zeros((3, cols)), WL, with_soa=False, through_fraction=ft,
                                 loss_db_per_cm=0.0)
    t0 = abs(complex(pcm.pcm_transmission(1.55, 0.0, length=30.0, loss_db_per_cm=0.0))) ** 2
    np.testing.assert_allclose(np.asarray(p)[:, :, 1] / t0, (1 - ft) / cols, rtol=5e-3)
    np.testing.assert_allclose(east[:, 1], ft, rtol=5e-3)


def test_readout_counts_and_shapes():
    bb = ptu_readout_counts(128, 128, 64, "broadband", cores=128)
    pw = ptu_readout_counts(128, 128, 64, "per_wavelength", cores=128)
    assert bb == {"photodiodes_per_core": 128 * 128, "demultiplexers_per_core": 0, "summing_nodes_per_core": 128,
                  "adcs_card": 128 * 128, "macs_per_clock_core": 128 * 128}
    assert pw == {"photodiodes_per_core": 128 * 128 * 64, "demultiplexers_per_core": 128 * 128,
                  "summing_nodes_per_core": 128 * 64, "adcs_card": 128 * 64 * 128, "macs_per_clock_core": 128**2 * 64}
    rng = np.random.default_rng(0)
    x, f = rng.uniform(0, 1e-3, (3, 3)), rng.uniform(0, 1, (3, 4))
    i_bb = ptu_fast(x, f, WL)
    i_pw = ptu_fast(x, f, WL, readout="per_wavelength")
    assert i_bb.shape == (4,) and i_pw.shape == (4, 3)
    np.testing.assert_allclose(i_pw.sum(axis=1), i_bb, rtol=1e-12)  # Σ_λ of the per-λ readout (no demux loss)


def test_weight_programming_round_trip():
    """W → f → |t(f)|² from the cell's own model → (T − T(1))/(T(0) − T(1)) = W."""
    w = np.linspace(0.0, 1.0, 11)
    f = np.asarray(weights_to_fractions(w))
    assert np.all(np.diff(f) < 0)  # more weight, less crystalline
    t0, t1, *t = (abs(complex(pcm.pcm_transmission(1.55, float(v), length=30.0))) ** 2 for v in (0.0, 1.0, *f))
    t = np.array(t)
    np.testing.assert_allclose((t - t1) / (t0 - t1), w, atol=1e-9)
    np.testing.assert_allclose(fractions_to_weights(f), w, atol=1e-9)


def test_signed_weights_on_differential_columns():
    """y_j = I_2j − I_2j+1 ∝ Σ_r w_rj x_r: the crystalline floor T(1) cancels in the pair (light at 1.55 µm only)."""
    rows, n = 3, 2
    rng = np.random.default_rng(5)
    w = rng.uniform(-1, 1, (rows, n))
    x = np.zeros((rows, 3))
    x[:, 1] = rng.uniform(0.2e-3, 1e-3, rows)
    f = signed_weights_to_fractions(w)
    assert f.shape == (rows, 2 * n)
    y = differential_readout(ptu_fast(x, f, WL, with_soa=False, loss_db_per_cm=0.0))
    # one unit of weight on one column: R · x · (T0 − T1)/cols
    t0, t1 = (abs(complex(pcm.pcm_transmission(1.55, v, length=30.0, loss_db_per_cm=0.0))) ** 2 for v in (0.0, 1.0))
    unit = float(responsivity_a_per_w(1.55, 12.0)) * (t0 - t1) / (2 * n)
    np.testing.assert_allclose(y, unit * (w * x[:, 1:2]).sum(axis=0), atol=1e-2 * unit * x.sum())


def test_saturated_row_gain_obeys_the_saturation_relation():
    """G = G0 exp(−(G − 1) P_in/P_sat) with P_in the row's total power over all wavelengths (Agrawal §6.2)."""
    x = np.array([[1e-5] * 64, [1e-4] * 64])
    g = 10 ** (np.asarray(row_soa_gain_db(x)) / 10)
    g0 = 10 ** (float(small_signal_gain_db(1000.0)) / 10)
    p_sat = 1e-3 * 10 ** (float(saturation_power_dbm(P_SAT_OUT_DBM, float(small_signal_gain_db(1000.0)))) / 10)
    np.testing.assert_allclose(g, g0 * np.exp(-(g - 1) * x.sum(axis=1) / p_sat), rtol=1e-9)
    assert g[1] < g[0] < g0
    # the crossbar's default operating point is this saturated gain, row by row
    xw, f = x[:, :3] * 20, np.full((2, 4), 0.3)
    np.testing.assert_allclose(ptu_optical_powers(xw, f, WL)[0],
                               ptu_optical_powers(xw, f, WL, soa_gain_db=row_soa_gain_db(xw))[0], rtol=1e-12)


def test_soa_snr_against_the_noise_figure():
    """Ideal diode (R = q/hν), shot and signal–ASE noise only: SNR_off/SNR_on = 1/G + 2 n_sp η (G − 1)/G,
    η the SOA-to-diode transmission (Olsson, JLT 7, 1071 (1989)). The SOA costs SNR after little loss
    (η = 1/4, a transparent cell) and gains it before much loss (η ≈ 1/40, an opaque cell)."""
    wl, gain, nf = 1.55, 15.0, 8.0
    r_ideal = noise.Q_E / (noise.H_PLANCK * noise.C_LIGHT / (wl * 1e-6))
    diode = noise.Photodiode(responsivity_a_per_w=r_ideal, dark_current_a=0.0)
    rx = noise.Receiver(bandwidth_hz=5e9, load_resistance_ohm=None)
    x = np.array([[0.0, 1e-3, 0.0]])  # light at 1.55 µm, the gain peak
    f = np.array([[0.0, 0.5, 0.5, 1.0]])
    b_nm = 2.5e9 * (1 + 1e-9) * (wl * 1e-6) ** 2 / noise.C_LIGHT * 1e9  # B_o = B_e/2: no ASE–ASE beat
    g = 10 ** (gain / 10)
    n_sp = noise.Amplifier(gain_db=gain, nf_db=nf).n_sp
    p_off = np.asarray(ptu_optical_powers(x, f, WL, soa_gain_db=0.0)[0])[0, :, 1]
    ratios = []
    for column in (0, 3):
        out = column_snr_db(x, f, WL, column=column, soa_gain_db=gain, nf_db=nf, soa_bandwidth_nm=b_nm,
                            photodiode=diode, receiver=rx)
        eta = p_off[column] / 1e-3
        ratio = 10 ** ((out["snr_without_db"] - out["snr_with_db"]) / 10)
        assert ratio == pytest.approx(1 / g + 2 * n_sp * eta * (g - 1) / g, rel=1e-6)
        ratios.append(ratio)
    assert ratios[0] > 1 > ratios[1]


@pytest.fixture(scope="module")
def tile4():
    return ptu(rows=4, cols=4)


def test_layout_4x4_is_drc_clean_with_ports_on_a_grid(tile4):
    assert drc(tile4) == []
    ys = [tile4.ports[f"o{r + 1}"].dcenter[1] for r in range(4)]
    np.testing.assert_allclose(np.diff(ys), 60.0, atol=1e-3)
    assert all(tile4.ports[f"o{r + 1}"].dcenter[0] == 0.0 for r in range(4))
    assert tile4.info["photodiodes"] == 16


def test_netlist_has_the_instances_and_connections_of_a_crossbar(tile4):
    """LVS-style: per row an SOA and cols × (coupler, cell, diode), cols − 1 fills; rows chained, branches terminated."""
    net = tile4.get_netlist(on_dangling_port="ignore")
    inst = net["instances"]
    kinds = Counter(i["component"] for i in inst.values())
    assert kinds == {"soa": 4, "directional_coupler": 16, "pcm_cell": 16, "photodetector_core": 16, "straight": 12}
    pairs = {frozenset((n["p1"], n["p2"])) for n in net["nets"]}
    counts = Counter(p for n in net["nets"] for p in (n["p1"], n["p2"]))
    assert all(v == 1 for v in counts.values()), "a port connected twice"
    for r in range(4):
        assert frozenset((f"amp_r{r},o2", f"dc_r{r}_c0,o1")) in pairs
        for c in range(4):
            assert frozenset((f"dc_r{r}_c{c},o3", f"pcm_r{r}_c{c},o1")) in pairs
            assert frozenset((f"pcm_r{r}_c{c},o2", f"pd_r{r}_c{c},o1")) in pairs
            if c < 3:
                assert frozenset((f"dc_r{r}_c{c},o4", f"fill_r{r}_c{c},o1")) in pairs
                assert frozenset((f"fill_r{r}_c{c},o2", f"dc_r{r}_c{c + 1},o1")) in pairs
    # the diodes of a column share its x (the column wire), the couplers' lengths follow the design
    for c in range(4):
        xs = {round(net["placements"][f"pd_r{r}_c{c}"]["x"], 3) for r in range(4)}
        assert len(xs) == 1
        assert inst[f"dc_r0_c{c}"]["settings"]["length"] == pytest.approx(coupler_lengths(4)[c], abs=1e-3)
    optical = sum(1 for p in tile4.ports if p.port_type == "optical")
    assert optical == 8
    n_ports = {"soa": 2, "directional_coupler": 4, "pcm_cell": 2, "photodetector_core": 1, "straight": 2}
    total = sum(n_ports[k] * v for k, v in kinds.items())
    assert len(counts) + optical + 16 == total  # the 16 unused coupler inputs (o2) are the only open optical ports


@pytest.mark.slow
def test_layout_16x16_is_drc_clean():
    c = ptu(rows=16, cols=16)
    assert drc(c) == []
    assert c.info["photodiodes"] == 256


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rows": 0}, r"rows = 0 is outside the valid range \[1, 1024\]"),
        ({"cols": 2000}, r"cols = 2000 is outside the valid range \[1, 1024\]"),
        ({"col_pitch": 100.0}, r"col_pitch = 100 µm is outside the valid range"),
        ({"row_pitch": 20.0}, r"row_pitch = 20 µm is outside the valid range"),
        ({"through_fraction": 1.0}, r"through_fraction = 1 is outside the valid range \[0, 1\)"),
    ],
)
def test_bad_geometry(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ptu(**({"rows": 2, "cols": 2} | kwargs))


def test_bad_arrays_and_weights():
    f = np.zeros((3, 4))
    with pytest.raises(ValueError, match=r"x_w has shape \(3, 2\); expected \(rows, n_wavelengths\) = \(3, 3\)"):
        ptu_fast(np.zeros((3, 2)), f, WL)
    with pytest.raises(ValueError, match=r"crystalline_fraction = array \(min 0, max 1.5\) is outside the valid range"):
        ptu_fast(np.zeros((3, 3)), f + np.eye(3, 4) * 1.5, WL)
    with pytest.raises(ValueError, match=r"weights = array \(min -0.1, max 1\) is outside the valid range \[0, 1\]"):
        weights_to_fractions(np.array([-0.1, 1.0]))
    with pytest.raises(ValueError, match=r"weights = 1.5 is outside the valid range \[-1, 1\]"):
        signed_weights_to_fractions(1.5)
    with pytest.raises(ValueError, match=r"readout = 'coherent' is not one of"):
        ptu_fast(np.zeros((3, 3)), f, WL, readout="coherent")
    with pytest.raises(ValueError, match="even number"):
        differential_readout(np.zeros(3))
    assert math.isfinite(float(ptu_fast(np.zeros((3, 3)), f, WL).sum()))
