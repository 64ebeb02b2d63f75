"""Makes ``tests/pdk/data/sloped_wall_solves.json``: the converged references ``test_sloped_walls.py`` holds the
compact dispersion model against at sloped walls (≈ 10 CPU-minutes of finite-element and finite-difference solves,
so they are kept as test data instead of solved in every test run).

Run from the repository root after a change to the mode solver, its mesh or ``fem_reference``::

    python tests/pdk/make_sloped_wall_solves.py

What it keeps (every point and method is the test module's own, ``test_sloped_walls.POINTS`` etc.):
- TE off-grid points (chosen between the nodes, the default ridge, and points drawn at random over the domain):
  n_eff of the wall-conforming finite-element reference (``fem_reference``, 20 nm core mesh)
  at λ and λ ± 10 nm (n_g by central differences);
- TM off-grid points (chosen, random, and random in the corner where TE1 nears its cut-off), bends, the ring's two in-plane directions: finite-difference solves at 20 and 10 nm
  (Richardson-extrapolated by the test);
- the vertical-wall agreement of the two solvers (FD 20/15 nm, FEM 20 nm) and the FEM's mesh convergence at the
  sloped thin-film corner (30 / 20 nm).
``test_sloped_walls.test_cached_references_are_the_current_solvers`` re-solves one FD mesh and one FEM point to
catch a stale file.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict
from pathlib import Path

import fem_reference

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import modesolver as ms

OUT = Path(__file__).with_name("data") / "sloped_wall_solves.json"
STEPS = (0.02, 0.01)  # µm: the Richardson pair (not the tables' 0.03 / 0.015)
DWL = 0.01  # µm: the central difference of the FEM's n_g

# (wl, width, film, etch, angle, cladding, polarization, axis): between the nodes of every axis
POINTS = [
    (1.52, 1.25, 0.55, 0.30, 70.0, "sio2", "te", "z"),
    (1.60, 1.70, 0.70, 0.40, 82.0, "air", "te", "y"),
    (1.63, 0.90, 0.77, 0.30, 66.0, "air", "te", "z"),  # narrow, thick film, shallow etch
    (1.47, 2.00, 0.40, 0.23, 62.0, "air", "te", "z"),  # wide, thin, sloped corner
    (1.56, 1.50, 0.62, 0.42, 66.0, "sio2", "tm", "z"),
    (1.55, 1.70, 0.65, 0.40, 65.0, "sio2", "tm", "y"),
    (1.50, 1.20, 0.56, 0.36, 78.0, "air", "tm", "y"),
    (1.62, 1.90, 0.52, 0.39, 62.0, "air", "tm", "z"),
    (1.55, 1.40, 0.60, 0.35, 76.5, "sio2", "te", "z"),  # the default ridge (no table node: 76.5° and 0.35 µm)
]
RANDOM_SEED = 20261206
RANDOM_COUNTS = {("te", "sio2"): 8, ("te", "air"): 8, ("tm", "sio2"): 4, ("tm", "air"): 4}


def random_points() -> list[tuple]:
    """Points drawn uniformly over the straight tables' TE and TM domains (``dispersion.domain()``), both claddings;
    TE on a random crystal axis, TM along y (where TM0 meets TE1): the whole domain, not points chosen between nodes."""
    import numpy as np

    from prismpic.pdk import dispersion

    rng, out = np.random.default_rng(RANDOM_SEED), []
    for (pol, clad), n in RANDOM_COUNTS.items():
        dom = dispersion.domain()[pol]
        for _ in range(n):
            wl, w, t, f, a = (float(rng.uniform(*dom[k])) for k in ("wl", "width", "film", "etch_fraction", "angle"))
            axis = str(rng.choice(["y", "z"])) if pol == "te" else "y"
            out.append((*(round(x, 4) for x in (wl, w, t, f * t, a)), clad, pol, axis))
    return out


RANDOM_POINTS = random_points()
# Where TE1 nears its cut-off (narrow, shallow-etched, steep-walled ridges) the TM0/TE1 pair tables hold TM0 alone at
# some nodes (``table_jobs.UNPAIRED``): TM points drawn in that corner of the TM domain, on each axis with a pair table
# (``tables.TM2_AXES``).
CUTOFF_BOX = {"width": (1.0, 1.3), "film": (0.5, 0.7), "etch_fraction": (0.5, 0.6), "angle": (72.0, 90.0)}
CUTOFF_SEED = 20261207


def cutoff_points(per_axis: int = 4) -> list[tuple]:
    """TM points drawn uniformly over ``CUTOFF_BOX`` (λ over the whole band), ``per_axis`` per pair-table axis."""
    import numpy as np

    from prismpic.pdk import dispersion, tables

    rng, out = np.random.default_rng(CUTOFF_SEED), []
    for clad, axes in tables.TM2_AXES.items():
        for axis in axes:
            for _ in range(per_axis):
                wl = float(rng.uniform(*dispersion.domain()["tm"]["wl"]))
                w, t, f, a = (float(rng.uniform(*CUTOFF_BOX[k])) for k in ("width", "film", "etch_fraction", "angle"))
                out.append((*(round(x, 4) for x in (wl, w, t, f * t, a)), clad, "tm", axis))
    return out


CUTOFF_POINTS = cutoff_points()
# (wl, width, film, etch, angle, cladding, radius): off every node; TE along crystal z
BEND_POINTS = [
    (1.55, 1.40, 0.60, 0.35, 76.5, "sio2", 20.0),  # the default ring
    (1.58, 1.20, 0.62, 0.36, 70.0, "sio2", 25.0),  # beside the TE0/TM0 crossing
    (1.58, 1.20, 0.68, 0.40, 70.0, "sio2", 25.0),  # past it
    (1.52, 1.60, 0.56, 0.35, 83.0, "air", 30.0),
    (1.61, 1.10, 0.68, 0.42, 66.0, "air", 14.0),
]
RING = (1.55, 20.0)  # (wl, radius) of the default ring, default ridge and stack
VERTICAL = (1.55, 1.4, 0.6, 0.35, 90.0)  # (wl, width, film, etch, angle): the solvers' agreement point
CORNER = (1.47, 2.0, 0.40, 0.23, 62.0, "air")  # the FEM's convergence point


def fd_pair(fn, steps=STEPS) -> list[list[float]]:
    """[[n_eff, n_g] at each mesh step] of ``fn(mesh) -> Mode``."""
    return [[float(m.neff.real), float(m.ng)] for m in (fn(ms.Mesh(step=h)) for h in steps)]


def straight_refs(points) -> list[dict]:
    out = []
    for wl, w, t, e, a, clad, pol, axis in points:
        p = {"point": [wl, w, t, e, a, clad, pol, axis]}
        if pol == "te":
            p["fem_neff"] = [fem_reference.te0_neff(wl + s, w, t, e, a, clad, axis) for s in (-DWL, 0.0, DWL)]
        else:
            p["fd"] = fd_pair(lambda mesh, wl=wl, w=w, t=t, e=e, a=a, clad=clad, pol=pol, axis=axis:
                              ms.solve_mode(wl, w, t, e, math.inf, pol, axis, clad, a, mesh))
        out.append(p)
    return out


def bend_refs() -> list[dict]:
    return [{"point": [wl, w, t, e, a, clad, r],
             "fd": fd_pair(lambda mesh, wl=wl, w=w, t=t, e=e, a=a, clad=clad, r=r:
                           ms.solve_mode(wl, w, t, e, r, "te", "z", clad, a, mesh))}
            for wl, w, t, e, a, clad, r in BEND_POINTS]


def ring_refs() -> dict:
    wl, r = RING
    return {"point": [wl, r], **{axis: fd_pair(lambda mesh, axis=axis: ms.solve_mode(wl, 1.4, 0.6, 0.35, r, "te", axis,
                                                                                     mesh=mesh))
                                 for axis in ("z", "y")}}


def solver_agreement() -> dict:
    wl, w, t, e, a = VERTICAL
    fd = fd_pair(lambda mesh: ms.straight_mode(wl, w, t, e, "te", "z", "sio2", a, mesh), (0.02, 0.015))
    wl2, w2, t2, e2, a2, clad = CORNER
    return {"vertical": list(VERTICAL), "fd_20_15nm": fd, "fem_20nm": fem_reference.te0_neff(wl, w, t, e, a),
            "corner": list(CORNER),
            "fem_corner_30_20nm": [fem_reference.te0_neff(wl2, w2, t2, e2, a2, clad, h=h) for h in (0.03, 0.02)]}


def main() -> int:
    data = {"made_by": "tests/pdk/make_sloped_wall_solves.py", "mesh": asdict(ms.Mesh()), "steps_um": list(STEPS),
            "dwl_um": DWL, "straight": straight_refs(POINTS + RANDOM_POINTS + CUTOFF_POINTS), "bend": bend_refs(), "ring": ring_refs(),
            "solvers": solver_agreement()}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
