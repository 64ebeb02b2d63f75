"""Material data against the published values they come from."""

import jax
import numpy as np
import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import materials as m


def test_ln_indices_match_zelmon_at_1550():
    # REFERENCES.md: Zelmon 1997 gives n_e(1.55) ≈ 2.1376, n_o(1.55) ≈ 2.2111
    assert float(m.n_ln_e(1.55)) == pytest.approx(2.1376, abs=2e-4)
    assert float(m.n_ln_o(1.55)) == pytest.approx(2.2111, abs=2e-4)


def test_sio2_matches_malitson_at_1550():
    # Malitson (1965): n(1.55 µm) = 1.4440
    assert float(m.n_sio2(1.55)) == pytest.approx(1.4440, abs=2e-4)


def test_si_matches_li_at_1550():
    # Li (1980) at 293 K: n(1.55 µm) ≈ 3.4757 (the tabulated value refractiveindex.info quotes)
    assert float(m.n_si(1.55)) == pytest.approx(3.476, abs=2e-3)


def test_normal_dispersion_and_gradient():
    for f in (m.n_ln_e, m.n_ln_o, m.n_sio2):
        g = float(jax.grad(lambda w, f=f: f(w))(1.55))
        h = 1e-5
        fd = (float(f(1.55 + h)) - float(f(1.55 - h))) / (2 * h)
        assert g < 0 and g == pytest.approx(fd, rel=1e-6)


def test_gsst_effective_medium_endpoints_and_monotone():
    assert complex(m.n_gsst(1.55, 0.0)) == pytest.approx(m.GSST_AMORPHOUS, abs=1e-12)
    assert complex(m.n_gsst(1.55, 1.0)) == pytest.approx(m.GSST_CRYSTALLINE, abs=1e-12)
    f = np.linspace(0, 1, 11)
    n = np.asarray(m.n_gsst(1.55, f))
    assert np.all(np.diff(n.real) > 0) and np.all(np.diff(n.imag) > 0)


def test_ge_absorption_gives_k():
    # k = α λ / 4π with α = 4000 /cm at 1.55 µm
    assert complex(m.n_ge(1.55)).imag == pytest.approx(4000e2 * 1.55e-6 / (4 * np.pi), rel=1e-9)


@pytest.mark.parametrize(
    "fn, wl, rng",
    [
        (m.n_ln_e, 0.3, "[0.4, 5]"),
        (m.n_sio2, 4.0, "[0.21, 3.71]"),
        (m.n_si, 1.0, "[1.2, 14]"),
        (m.n_ge, 1.3, "[1.45, 1.65]"),
    ],
)
def test_out_of_range_wavelength_names_range(fn, wl, rng):
    with pytest.raises(ValueError) as err:
        fn(wl)
    assert f"{wl:g}" in str(err.value) and rng in str(err.value) and "wl" in str(err.value)


def test_crystalline_fraction_range():
    with pytest.raises(ValueError, match=r"crystalline_fraction = 1.5 .*\[0, 1\]"):
        m.n_gsst(1.55, 1.5)


def test_dn_dt_unknown_material():
    with pytest.raises(ValueError, match="material"):
        m.dn_dt("gold")
