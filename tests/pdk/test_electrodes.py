"""The electrode layouts' field factor (pdk/electrodes.py): the fit against fresh FEM solves, its gradient, bad input."""

from __future__ import annotations

import jax
import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import electrodes, electrostatics
from prismpic.pdk.ridge_stack import RidgeStack

# Off the fit's sample points: (layout kwargs of field_factor, FEM kwargs).
POINTS = [
    # the default ridge, electrodes on the slab, SiO2-clad
    ({"electrode_gap": 5.0}, {}),
    # air-clad, offset ridge (a ring section next to the inner disk)
    ({"electrode_gap": 6.0, "width": 1.3, "cladding": "air", "ridge_offset": -0.8},
     {"width": 1.3, "eps_clad": 1.0, "ridge_offset": -0.8}),
    # 400 nm film, electrodes 1 µm above the film on the cladding (the lnoi400 layout), 2 µm ridge
    ({"electrode_gap": 4.0, "width": 2.0, "film_thickness": 0.4, "etch_depth": 0.2, "electrode_height": 1.0},
     {"width": 2.0, "film_thickness": 0.4, "etch_depth": 0.2, "electrode_height": 1.0, "metal_thickness": 0.8}),
]


def _fem(gap, fem_kwargs):
    kw = {"sidewall_angle_deg": 76.5, **fem_kwargs}
    return electrostatics.electrode_field_factor(gap, **kw)


@pytest.mark.parametrize("layout, fem_kwargs", POINTS, ids=["slab-sio2", "slab-air-offset", "cladding-400nm"])
def test_fit_matches_a_fresh_fem_solve(layout, fem_kwargs):
    """The fit within 3 % of a fresh FEM solve (its held-out error, stored with it, is of that order)."""
    fit = float(electrodes.field_factor(layout["electrode_gap"], RidgeStack.from_params(layout),
                                        ridge_offset=layout.get("ridge_offset", 0.0),
                                        electrode_height=layout.get("electrode_height")))
    fem = _fem(layout["electrode_gap"], fem_kwargs)
    assert fit == pytest.approx(fem, rel=0.03)


def test_fit_slope_in_gap_follows_the_fem():
    """d f/d g of the fit (autodiff) against a central difference of FEM solves at g = 4.5, 5.5 µm: within 15 %."""
    slope_fit = float(jax.jit(jax.grad(lambda g: electrodes.field_factor(g)))(5.0))
    slope_fem = (_fem(5.5, {}) - _fem(4.5, {})) / 1.0
    assert slope_fem < 0
    assert slope_fit == pytest.approx(slope_fem, rel=0.15)


def test_held_out_error_is_stated():
    """The stored fit carries its held-out error; none above 5 %."""
    for name in electrodes.LAYOUTS:
        err = electrodes.load_fit()["layouts"][name]["fit_error"]
        assert err["n_check"] >= 20 and err["held_out_max_rel"] < 0.05


def test_slab_ridge_offset_raises_the_field_near_an_electrode():
    """Physics: moving the ridge towards an electrode edge raises the field in it (E grows near the edges)."""
    centred = float(electrodes.field_factor(6.0))
    assert float(electrodes.field_factor(6.0, ridge_offset=-1.5)) > centred
    assert float(electrodes.field_factor(6.0, ridge_offset=1.5)) > centred


def test_electrodes_above_the_cladding_see_less_field_than_on_the_slab():
    """The potential drops partly in the oxide between metal and film: f above the cladding < f on the slab."""
    ridge = RidgeStack(width=1.0, film_thickness=0.4, etch_depth=0.2)
    assert float(electrodes.field_factor(5.0, ridge, electrode_height=1.0)) < float(electrodes.field_factor(5.0, ridge))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"electrode_gap": 3.0, "width": 1.4}, "electrode_gap"),  # the metal reaches within 0.8 µm of the ridge
        ({"electrode_gap": 25.0, "width": 1.4}, "electrode_gap"),  # beyond the fit's domain
        ({"electrode_gap": 5.0, "width": 1.4, "ridge_offset": 1.0}, "ridge_offset"),  # within 0.3 µm of the metal
        ({"electrode_gap": 1.2, "width": 1.4, "electrode_height": 1.0}, "electrode_gap"),  # metal over the ridge
        ({"electrode_gap": 5.0, "width": 1.4, "electrode_height": 0.1}, "electrode_height"),
        ({"electrode_gap": 5.0, "width": 1.4, "electrode_height": 1.0, "cladding": "air"}, "electrode_height"),
    ],
)
def test_bad_layouts_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name) as e:
        electrodes.check_electrode_layout(**kwargs)
    if "cladding" not in kwargs:
        assert "µm" in str(e.value)

