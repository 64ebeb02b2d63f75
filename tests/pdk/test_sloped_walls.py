"""The compact dispersion model at sloped walls and both claddings, against fresh full-vector solves.

References are fresh solves of ``prismpic.pdk.modesolver`` at points between the table nodes, converged
by Richardson extrapolation in the mesh step h (the Yee scheme with sub-pixel averaging converges as h²):
n(0) ≈ (h1² n(h2) − h2² n(h1)) / (h1² − h2²), from steps other than the tables' own. Tolerances are the
issue's accuracy targets: 3e-4 in n_eff and 2e-3 in n_g, TE and TM.
"""

from __future__ import annotations

import math

import pytest

import prismpic  # noqa: F401  (float64)
from prismpic.components import ring_physics
from prismpic.pdk import dispersion
from prismpic.pdk import modesolver as ms

ANGLE = dispersion.domain()["te"]["angle"]
pytestmark = pytest.mark.skipif(ANGLE[0] > 60.0, reason="the installed dispersion tables cover vertical walls only")

STEPS = (0.02, 0.01)  # µm: Richardson pair, not the tables' (0.03 / 0.015)


def _converged(fn):
    """Richardson-extrapolated (n_eff, n_g) of ``fn(mesh) -> Mode``."""
    (h1, h2) = STEPS
    m1, m2 = fn(ms.Mesh(step=h1)), fn(ms.Mesh(step=h2))
    r = h1**2 / (h1**2 - h2**2)
    return r * m2.neff.real - (r - 1) * m1.neff.real, r * m2.ng - (r - 1) * m1.ng


# TM0 hybridises with TE1 (same mirror symmetry) inside the TM domain (TE fraction up to 0.49 under air, 0.48
# under SiO2, axis y): there the tables hold the 2×2 of TM0 and TE1 in the uncoupled basis (``tables.STRAIGHT_TM2``,
# ``tables.tm2_elements``, ``tables.TM2_AXES``), diagonalised by ``dispersion``; the three points below sit near it.

# Known gap (issue 10, item 3): at a thin film under a steep wall the solver's own answer scatters with the mesh step
# (air TE at 1.47 µm, w 2.0, film 0.40, etch 0.23, 62°: n_eff 1.834595 / 1.834857 / 1.834926 / 1.834843 / 1.834749 /
# 1.834833 at 30 / 20 / 15 / 12.5 / 10 / 7.5 nm, not monotonic): the reference below (Richardson 20/10 nm: 1.834713)
# and the tables' nodes (Richardson 30/15 nm) are each uncertain by ≈ 1.5e-4, and the model sits +3.7e-4 from it.
AIR_THIN = pytest.mark.xfail(strict=True, reason="thin film under a 62° wall: the fresh solves scatter by ±1.5e-4 with "
                             "the mesh step, so neither the reference nor the tables hold 3e-4 (issue 10, item 3)")

POINTS = [  # (wl, width, film, etch, angle, cladding, polarization, axis): between the nodes of every axis
    (1.52, 1.25, 0.55, 0.30, 70.0, "sio2", "te", "z"),
    (1.60, 1.70, 0.70, 0.40, 82.0, "air", "te", "y"),
    (1.63, 0.90, 0.77, 0.30, 66.0, "air", "te", "z"),  # narrow, thick film, shallow etch
    pytest.param((1.47, 2.00, 0.40, 0.23, 62.0, "air", "te", "z"), marks=AIR_THIN),  # wide, thin, sloped corner
    (1.56, 1.50, 0.62, 0.42, 66.0, "sio2", "tm", "z"),
    pytest.param((1.55, 1.70, 0.65, 0.40, 65.0, "sio2", "tm", "y")),
    pytest.param((1.50, 1.20, 0.56, 0.36, 78.0, "air", "tm", "y")),
    pytest.param((1.62, 1.90, 0.52, 0.39, 62.0, "air", "tm", "z")),
]


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS, ids=lambda p: f"{p[6]}-{p[7]}-{p[5]}-{p[4]:g}deg-w{p[1]:g}")
def test_compact_model_matches_converged_solve_off_grid(point):
    wl, w, t, e, a, clad, pol, axis = point
    ref_n, ref_g = _converged(lambda mesh: ms.solve_mode(wl, w, t, e, math.inf, pol, axis, clad, a, mesh))
    geo = dict(polarization=pol, crystal_axis=axis, sidewall_angle_deg=a, cladding=clad)
    n = float(dispersion.neff(wl, w, t, e, **geo))
    g = float(dispersion.ng(wl, w, t, e, **geo))
    assert abs(n - ref_n) <= 3e-4, (n, ref_n)
    assert abs(g - ref_g) <= 2e-3, (g, ref_g)


def test_coupling_grows_as_the_walls_slope_at_a_fixed_top_gap():
    # the feet of sloped ridges come closer by 2·etch/tan(angle) at the same top gap: C must grow
    cs = [float(dispersion.coupling_per_um(1.55, 0.25, 1.4, 0.6, 0.35, sidewall_angle_deg=a))
          for a in (90.0, 80.0, 70.0, 60.0)]
    assert all(b > a for a, b in zip(cs, cs[1:], strict=False)), cs
    assert cs[-1] > 1.2 * cs[0], cs  # a 0.35 µm etch at 60° moves each foot 0.2 µm: a large effect


@pytest.mark.slow
def test_coupling_against_a_fresh_supermode_solve_at_a_sloped_wall():
    wl, gap, w, t, e, a = 1.55, 0.3, 1.4, 0.6, 0.35, 72.0
    even, odd = ms.coupled_modes(wl, gap, w, t, e, sidewall_angle_deg=a)
    ref = math.pi * (even.neff.real - odd.neff.real) / wl
    model = float(dispersion.coupling_per_um(wl, gap, w, t, e, sidewall_angle_deg=a))
    assert model == pytest.approx(ref, rel=0.05)  # ln C interpolated over the angle nodes (4 % at worst)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="known gap (issue 10, item 3): the compact bend model leaves out the TE/TM "
                   "mixing of X-cut film near 0.6 µm; a 20 µm ring's n_g sits ≈ 0.3 % below a full bend solve")
def test_ring_fsr_follows_a_full_bend_solve():
    # a full bend solve keeps the TE/TM mixing of X-cut film near 0.6 µm; the ring's n_g is the average of the
    # two in-plane directions (``ring_physics.ring_ng``), so the FSR = λ²/(n_g 2πR) follows (n_g,z + n_g,y)/2
    wl, r = 1.55, 20.0
    full = []
    for axis in ("z", "y"):
        m = ms.bend_modes(wl, 1.4, 0.6, 0.35, r, axis, neff_guess=1.93)["te"]
        full.append(m.ng)
    ng_full = sum(full) / 2
    ng_model = float(ring_physics.ring_ng(wl, r))
    assert ng_model == pytest.approx(ng_full, rel=1e-3)  # FSR ∝ 1/n_g: within 0.1 %
