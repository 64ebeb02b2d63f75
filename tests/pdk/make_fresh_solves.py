"""Makes ``tests/pdk/data/fresh_solves.json``: full-vector mode solves that ``test_dispersion.py`` holds the compact
dispersion model against (≈ 150 CPU-s, so they are kept as test data instead of solved in every test run).

Run from the repository root after a change to the mode solver or its mesh::

    python tests/pdk/make_fresh_solves.py

The points are drawn uniformly over each table domain with fixed seeds (``SEEDS``); straight (TE and TM) and bend
references are Richardson-extrapolated from 20 and 10 nm meshes, as the tables are (TM at 30 nm sits ≈ 1e-3 high, TE
up to 1.3e-3 off on thin films: h² errors).
``test_dispersion.test_cached_solves_are_the_current_solvers`` re-solves the cheapest point to catch a stale file.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import dispersion as dsp
from prismpic.pdk import modesolver as ms
from prismpic.pdk import supermodes

OUT = Path(__file__).with_name("data") / "fresh_solves.json"
SEEDS = {("te", "z"): 11, ("te", "y"): 12, ("tm", "z"): 13, ("tm", "y"): 14}
N_POINTS = {("te", "z"): 3, ("te", "y"): 2, ("tm", "z"): 1, ("tm", "y"): 1}
BEND_SEEDS = {"z": 21, "y": 22}
OVERLAP_POINT = (1.52, 1.25, 0.55, 0.3)  # wl, width, film, etch (µm)
COUPLER_GAP = 0.33  # µm


def random_point(domain: str, rng) -> tuple[float, float, float, float]:
    """(wl, width, film, etch) uniform over the table domain ``domain`` (µm)."""
    d = dsp.domain()[domain]
    wl, w, t, f = (rng.uniform(*d[k]) for k in ("wl", "width", "film", "etch_fraction"))
    return float(wl), float(w), float(t), float(f * t)


def richardson(*args, **kwargs) -> tuple[float, float]:
    """(n_eff, n_g) of ``ms.solve_mode(*args, **kwargs)`` extrapolated from 20 and 10 nm meshes: (4·f(h/2) − f(h))/3."""
    m1, m2 = (ms.solve_mode(*args, **kwargs, mesh=ms.Mesh(step=h)) for h in (0.02, 0.01))
    return tuple((4 * b - a) / 3 for a, b in ((m1.neff.real, m2.neff.real), (m1.ng, m2.ng)))


def straight_refs() -> list[dict]:
    out = []
    for (pol, axis), seed in SEEDS.items():
        rng = np.random.default_rng(seed)
        for _ in range(N_POINTS[(pol, axis)]):
            wl, w, t, e = random_point(pol, rng)
            n, g = richardson(wl, w, t, e, polarization=pol, crystal_axis=axis)
            out.append({"polarization": pol, "crystal_axis": axis, "wl": wl, "width": w, "film": t, "etch": e,
                        "neff": float(n), "ng": float(g)})
    return out


def bend_refs() -> list[dict]:
    out = []
    for axis, seed in BEND_SEEDS.items():
        rng = np.random.default_rng(seed)
        wl, w, t, e = random_point("bend", rng)
        r = float(rng.uniform(12.0, 35.0))
        n, g = richardson(wl, w, t, e, radius=r, crystal_axis=axis)
        out.append({"crystal_axis": axis, "wl": wl, "width": w, "film": t, "etch": e, "radius": r,
                    "neff": float(n), "ng": float(g)})
    return out


def overlap_refs() -> dict:
    wl, w, t, e = OVERLAP_POINT
    m = ms.solve_mode(wl, w, t, e)
    c = supermodes.coupling_per_um(wl, COUPLER_GAP, width=w, film_thickness=t, etch_depth=e)
    return {"wl": wl, "width": w, "film": t, "etch": e, "gap": COUPLER_GAP, "ln_overlap": float(m.ln_overlap),
            "mode_area_um2": float(m.mode_area_um2), "coupling_per_um": float(c)}


def main() -> int:
    data = {"made_by": "tests/pdk/make_fresh_solves.py", "mesh": asdict(ms.Mesh()),
            "straight": straight_refs(), "bend": bend_refs(), "overlap": overlap_refs()}
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
