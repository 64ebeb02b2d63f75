"""The compact model on the edges of its tables: values and derivatives as just inside."""

from __future__ import annotations

import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import dispersion
from prismpic.pdk.ridge_stack import RidgeStack


@pytest.mark.parametrize("polarization, width", [("te", 1.4), ("tm", 1.5)])
def test_group_index_on_the_wavelength_edges_is_continuous(polarization, width):
    # n_g is continuous in λ: on an edge of the λ range it is the limit from inside (an edge point rounds to just
    # outside the normalised interval; its slope must still count)
    lo, hi = dispersion.domain()[polarization]["wl"]
    ridge = RidgeStack(width=width, film_thickness=0.6, etch_depth=0.35)
    for edge, inside in ((lo, lo + 1e-9), (hi, hi - 1e-9)):
        at = float(dispersion.ng(edge, ridge, polarization=polarization))
        near = float(dispersion.ng(inside, ridge, polarization=polarization))
        assert at == pytest.approx(near, abs=1e-6), (edge, at, near)
