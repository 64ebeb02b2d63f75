"""Touchstone in and out (issue 31, item 4): round trip, hand-written files in every format, netlist use, gradients,
bad input refused naming the file."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic
from prismpic.components import rings, waveguides
from prismpic.components import touchstone as ts

C = 299_792_458.0  # m/s (SI, exact)

# A hand-written 2-port: three frequencies (GHz) and S as magnitude and angle (degrees). S21 ≠ S12 and S11 ≠ S22, so
# that the Touchstone 1.x 2-port order (S11 S21 S12 S22 on one line) and the port mapping are both held.
F_GHZ = (193000.0, 193100.0, 193200.0)
MAG_DEG = {  # (i, j): [(|S_ij|, angle) per frequency]
    (1, 1): [(0.1, -90.0), (0.1, -80.0), (0.1, -70.0)],
    (2, 1): [(0.7, 30.0), (0.65, 60.0), (0.6, 90.0)],
    (1, 2): [(0.5, -45.0), (0.55, -15.0), (0.6, 15.0)],
    (2, 2): [(0.2, 180.0), (0.2, 170.0), (0.2, 160.0)],
}
ORDER = ((1, 1), (2, 1), (1, 2), (2, 2))  # the 2-port line order of Touchstone 1.x


def expected_s() -> np.ndarray:
    """S (3, 2, 2) of the hand-written file, from its magnitudes and angles."""
    s = np.zeros((3, 2, 2), complex)
    for (i, j), vals in MAG_DEG.items():
        for k, (m, a) in enumerate(vals):
            s[k, i - 1, j - 1] = m * np.exp(1j * np.deg2rad(a))
    return s


# The same numbers written out by hand in each format (RI: m·cos, m·sin; DB: 20·log10 m).
RI_LINES = """193000 0 -0.1 0.6062177826491071 0.35 0.3535533905932738 -0.35355339059327373 -0.2 0
193100 0.017364817766693044 -0.0984807753012208 0.325 0.562916512459885 0.5312592044589877 -0.1423504748063864 -0.1969615506024416 0.03472963553338606
193200 0.03420201433256689 -0.09396926207859084 0 0.6 0.579555495773441 0.15529142706151244 -0.18793852415718168 0.06840402866513377
"""
MA_LINES = """193000 0.1 -90 0.7 30 0.5 -45 0.2 180
193100 0.1 -80 0.65 60 0.55 -15 0.2 170
193200 0.1 -70 0.6 90 0.6 15 0.2 160
"""
DB_LINES = """193000 -20 -90 -3.0980391997148637 30 -6.020599913279624 -45 -13.979400086720375 180
193100 -20 -80 -3.741732867142888 60 -5.192746210115122 -15 -13.979400086720375 170
193200 -20 -70 -4.436974992327127 90 -4.436974992327127 15 -13.979400086720375 160
"""
BODIES = {"RI": RI_LINES, "MA": MA_LINES, "DB": DB_LINES}


def hand_written(tmp_path, form: str = "RI", name: str = "dut.s2p"):
    path = tmp_path / name
    path.write_text(f"! hand-written test device\n# GHz S {form} R 50\n" + BODIES[form])
    return path


def wl_of(f_ghz):
    return C / (np.asarray(f_ghz) * 1e9) * 1e6


@pytest.mark.parametrize("form", ["RI", "MA", "DB"])
def test_hand_written_two_port_in_each_format(tmp_path, form):
    data = ts.read_touchstone(hand_written(tmp_path, form), ports="in,out")
    want = expected_s()[::-1]  # wavelength ascending = frequency descending
    wl = wl_of(F_GHZ)[::-1]
    np.testing.assert_allclose(data.wl_um, wl, rtol=1e-15)
    np.testing.assert_allclose(data.s, want, atol=1e-12)
    assert data.band_um == pytest.approx((wl[0], wl[-1]), rel=1e-15)
    sv = np.linalg.svd(want, compute_uv=False).max()
    assert data.max_singular_value == pytest.approx(sv, rel=1e-12) and data.passive
    sd = data.model()(wl=wl)
    # key (a, b) is S_ab with a, b the mapped names (as SAX's own Touchstone parser maps them): port 1 = in, 2 = out
    for (i, j) in ORDER:
        key = (("in", "out")[i - 1], ("in", "out")[j - 1])
        np.testing.assert_allclose(np.asarray(sd[key]), want[:, i - 1, j - 1], atol=1e-12)


def test_hand_written_interpolates_between_frequencies(tmp_path):
    """Between the samples the model follows a smooth curve through them: the midpoint of S21 (whose phase turns by
    30° per step and whose magnitude falls by 0.05 per step) lies within 1 % of the magnitude and 1° of the phase of
    the value the two neighbours suggest."""
    model = ts.touchstone_model(hand_written(tmp_path))
    f_mid = 193050.0
    s21 = complex(model(wl=float(wl_of(f_mid)))[("o2", "o1")])
    assert abs(s21) == pytest.approx(0.675, rel=1e-2)
    assert math.degrees(np.angle(s21)) == pytest.approx(45.0, abs=1.0)


N_RING = 81  # wavelengths per ring evaluation: one array shape, so the eager model compiles its operations once


def ring_at(w) -> dict:
    """ring_add_drop_model at up to N_RING wavelengths (padded to that shape)."""
    w = np.asarray(w, float)
    s = rings.ring_add_drop_model(wl=np.concatenate([w, np.full(N_RING - w.size, w[-1])]))
    return {k: np.asarray(v)[: w.size] for k, v in s.items()}


@pytest.fixture(scope="module")
def ring_file(tmp_path_factory):
    """ring_add_drop written at FWHM/10 steps over ±4 FWHM around a resonance, with the model's values at the samples
    and at the midpoints between them. The resonance and its FWHM are found here: the drop port's peak on a 125 pm
    grid over more than one FSR (≈ 8 nm for the default 20 µm ring), then its peak and half-power width on a 7.5 pm
    grid around it."""
    coarse = np.linspace(1.545, 1.555, N_RING)
    peak = coarse[np.argmax(np.abs(ring_at(coarse)[("o1", "o4")]))]
    fine = np.linspace(peak - 3e-4, peak + 3e-4, N_RING)
    drop = np.abs(ring_at(fine)[("o1", "o4")]) ** 2
    above = fine[drop >= drop.max() / 2]
    fwhm, centre = above.max() - above.min(), fine[np.argmax(drop)]
    assert 0 < fwhm < 5e-4
    wl = np.linspace(centre - 4 * fwhm, centre + 4 * fwhm, N_RING)
    path = tmp_path_factory.mktemp("ts") / "ring.s4p"
    ts.write_touchstone(path, rings.ring_add_drop_model, wl, name="ring_add_drop")
    mid = 0.5 * (wl[1:] + wl[:-1])
    return path, wl, ring_at(wl), mid, ring_at(mid)


def test_ring_add_drop_round_trip(ring_file):
    path, wl, ref, mid, ref_mid = ring_file
    text = path.read_text()
    assert "! ports (Touchstone order): 1 = o1, 2 = o2, 3 = o3, 4 = o4" in text
    rows = [line for line in text.splitlines() if line and line[0].isdigit()]
    f = np.array([float(r.split()[0]) for r in rows])
    assert f.size == wl.size and np.all(np.diff(f) > 0), "frequency ascending"
    np.testing.assert_allclose(f, C / (wl[::-1] * 1e-6) / 1e9, rtol=1e-15)

    data = ts.read_touchstone(path)
    model = data.model()
    got = model(wl=wl)
    assert set(ref) <= set(got)
    for k in got:
        want = np.asarray(ref[k]) if k in ref else 0.0
        np.testing.assert_allclose(np.asarray(got[k]), want, rtol=0, atol=1e-9)
    # between the samples: far closer than straight lines between the samples' real and imaginary parts
    got = model(wl=mid)
    for k in (("o1", "o2"), ("o1", "o4")):
        at = np.asarray(ref[k])
        linear = np.interp(mid, wl, at.real) + 1j * np.interp(mid, wl, at.imag)
        err = np.abs(np.asarray(got[k]) - np.asarray(ref_mid[k])).max()
        assert err < 1e-3 and err < np.abs(linear - np.asarray(ref_mid[k])).max() / 10, (k, err)
    assert data.max_singular_value <= 1 and data.max_singular_value_between <= 1 + 1e-6


def test_gradients_in_wl_match_finite_differences_and_jit(ring_file):
    path, wl = ring_file[:2]
    model = ts.touchstone_model(path)

    def drop_power(w):
        return jnp.abs(model(wl=w)[("o1", "o4")]) ** 2

    h = 1e-7  # µm
    for w in (wl[10] + 0.3 * (wl[11] - wl[10]), wl[40] + 0.5 * (wl[41] - wl[40]), wl[60] + 0.1 * (wl[61] - wl[60])):
        g = float(jax.jit(jax.grad(drop_power))(w))
        fd = (float(drop_power(w + h)) - float(drop_power(w - h))) / (2 * h)
        assert np.isfinite(g) and g == pytest.approx(fd, rel=1e-5, abs=1e-3)
    mid = jnp.asarray(0.5 * (wl[1:] + wl[:-1]))
    np.testing.assert_allclose(np.asarray(jax.jit(lambda w: model(wl=w)[("o1", "o2")])(mid)),
                               np.asarray(model(wl=mid)[("o1", "o2")]), atol=1e-12)


def test_outside_band_refused_eagerly_nan_under_jit(ring_file):
    path, wl = ring_file[:2]
    model = ts.touchstone_model(path)
    with pytest.raises(ValueError, match=r"outside the band of touchstone file .*ring\.s4p"):
        model(wl=float(wl[-1]) + 1e-4)
    out = jax.jit(lambda w: model(wl=w)[("o1", "o2")])(jnp.array([wl[0] - 1e-4, wl[5]]))
    assert np.isnan(complex(out[0])) and np.isfinite(complex(out[1]))


def test_netlist_instance_cascaded_with_waveguide(tmp_path):
    path = hand_written(tmp_path)
    pdk = prismpic.get_pdk()
    assert pdk.models["touchstone"] is ts.touchstone
    net = {"instances": {"dut": {"component": "touchstone", "settings": {"path": str(path), "ports": "o2,o1"}},
                         "wg": {"component": "straight", "settings": {"length": 30.0}}},
           "connections": {"dut,o1": "wg,o1"}, "ports": {"in": "dut,o2", "out": "wg,o2"}}
    circuit, _ = sax.circuit(net, pdk.models)
    wl = wl_of(F_GHZ)
    res = circuit(wl=jnp.asarray(wl))
    t_wg = np.asarray(waveguides.straight_model(jnp.asarray(wl), length=30.0)[("o1", "o2")])
    s = expected_s()
    # dut port o2 is Touchstone port 1, o1 is port 2: "in" sees S11 (reflection), and reaches the guide through
    # the entries between ports 1 and 2; the guide is reflectionless, so the cascade is a product
    np.testing.assert_allclose(np.asarray(res[("in", "in")]), s[:, 0, 0], atol=1e-12)
    np.testing.assert_allclose(np.asarray(res[("in", "out")]), s[:, 0, 1] * t_wg, atol=1e-12)
    np.testing.assert_allclose(np.asarray(res[("out", "in")]), s[:, 1, 0] * t_wg, atol=1e-12)
    np.testing.assert_allclose(np.asarray(res[("out", "out")]), s[:, 1, 1] * t_wg**2, atol=1e-12)
    # under jax.jit, the file read for the first time inside the trace (a fresh name, so nothing is cached)
    fresh = hand_written(tmp_path, "MA", "fresh.s2p")
    net["instances"]["dut"]["settings"]["path"] = str(fresh)
    circuit, _ = sax.circuit(net, pdk.models)
    jitted = jax.jit(lambda w: circuit(wl=w)[("in", "out")])(jnp.asarray(wl))
    np.testing.assert_allclose(np.asarray(jitted), s[:, 0, 1] * t_wg, atol=1e-12)
    # an instance without its path is NaN, never a plausible device
    del net["instances"]["dut"]["settings"]["path"]
    circuit, _ = sax.circuit(net, pdk.models)
    assert np.all(np.isnan(np.asarray(circuit(wl=jnp.asarray(wl))[("in", "out")])))


def test_netlist_model_refuses_other_port_counts(ring_file):
    path, wl = ring_file[:2]
    with pytest.raises(ValueError, match=r"ring\.s4p.*4 port.*touchstone_model"):
        ts.touchstone(float(wl[3]), path=str(path))
    assert ts.touchstone_model(path).touchstone.ports == ("o1", "o2", "o3", "o4")


# ---------------------------------------------------------------------------- bad input, each naming the file
GAIN = "# GHz S MA R 50\n193000 0.1 0 1.05 0 1.05 0 0.1 0\n193100 0.1 0 1.04 0 1.04 0 0.1 0\n"
BAD = {
    "garbage.s2p": "this is not touchstone\n",
    "empty.s2p": "",
    "short_line.s2p": "# GHz S RI R 50\n193000 0.1 0 0.9 0 0.9 0\n193100 0.1 0 0.9 0 0.9 0 0.1 0\n",
    "decreasing.s1p": "# GHz S MA R 50\n193000 0.5 0\n192900 0.5 0\n193100 0.5 0\n",
    "repeated.s1p": "# GHz S MA R 50\n193000 0.5 0\n193000 0.5 0\n",
    "noise_block.s2p": "# GHz S RI R 50\n193000 0.1 0 0.9 0 0.9 0 0.1 0\n192000 0.1 0 0.9 0 0.9 0 0.1 0\n",
    "one_point.s1p": "# GHz S MA R 50\n193000 0.5 0\n",
    "zparams.s1p": "# GHz Z RI R 50\n193000 50 0\n193100 50 0\n",
    "gain.s2p": GAIN,
    "not_a_number.s1p": "# GHz S MA R 50\n193000 0.5 0\n193100 nan 0\n",
}
MESSAGES = {"garbage.s2p": "does not parse", "empty.s2p": "0 frequency point", "short_line.s2p": "does not parse",
            "decreasing.s1p": "increase strictly", "repeated.s1p": "increase strictly",
            "noise_block.s2p": "increase strictly", "one_point.s1p": "at least 2", "zparams.s1p": "S-parameters only",
            "gain.s2p": "has gain: the largest singular value of S is 1.15", "not_a_number.s1p": "non-finite"}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_refused_naming_the_file(tmp_path, name):
    path = tmp_path / name
    path.write_text(BAD[name])
    with pytest.raises(ValueError, match=MESSAGES[name]) as e:
        ts.read_touchstone(path)
    assert name in str(e.value) and "\n" not in str(e.value)


def test_gain_allowed_when_asked_and_reported(tmp_path):
    path = tmp_path / "gain.s2p"
    path.write_text(GAIN)
    data = ts.read_touchstone(path, allow_gain=True)
    # S = [[0.1, 1.05], [1.05, 0.1]] at 193 THz: singular values |0.1 ± 1.05|
    assert data.max_singular_value == pytest.approx(1.15, rel=1e-12) and not data.passive
    assert "gain" in data.summary()


def test_port_mapping_and_missing_file_refused(tmp_path):
    path = hand_written(tmp_path)
    with pytest.raises(ValueError, match=r"declares 3 port\(s\) for touchstone file .*dut\.s2p.*which has 2"):
        ts.read_touchstone(path, ports="a,b,c")
    with pytest.raises(ValueError, match="names a port twice"):
        ts.read_touchstone(path, ports=("a", "a"))
    with pytest.raises(ValueError, match=r"nothere\.s2p' does not exist"):
        ts.read_touchstone(tmp_path / "nothere.s2p")
    with pytest.raises(ValueError, match=r"gain_tol"):
        ts.read_touchstone(path, gain_tol=-1)


def test_export_refuses_wrong_suffix_and_bad_wavelengths(tmp_path):
    wl = np.linspace(1.549, 1.551, 5)
    with pytest.raises(ValueError, match=r"\.s3p file holds 3 port\(s\) but straight has 2 \(o1, o2\)"):
        ts.write_touchstone(tmp_path / "w.s3p", waveguides.straight_model, wl, name="straight",
                            settings={"length": 10.0})
    with pytest.raises(ValueError, match=r"must end in \.sNp"):
        ts.write_touchstone(tmp_path / "w.txt", waveguides.straight_model, wl, settings={"length": 10.0})
    with pytest.raises(ValueError, match="given twice"):
        ts.write_touchstone(tmp_path / "w.s2p", waveguides.straight_model, [1.55, 1.55], settings={"length": 10.0})
    assert not list(tmp_path.iterdir())
