"""Makes ``tests/pdk/data/bend_radiation_solves.json``: fresh leaky-mode bend solves that
``test_bend_radiation.py`` holds the tabulated bend radiation loss against (≈ 2 CPU-min, kept as test data).

Run from the repository root after a change to the mode solver, its mesh or the table::

    python tests/pdk/make_bend_radiation_solves.py

Two methods at the default ring (R = 20 µm, 1.4 × 0.6 µm ridge, 76.5° walls, SiO2) at etch 0.32, 0.35, 0.38 µm:
- "fresh": the full-vector bend solve (TE and TM coupled, as the ring's mode is), 20 nm mesh, 4 µm of slab before a
  2 µm PML — finer than the table's 30 nm and not decoupled;
- "wide": the same decoupled TE mode the table holds, converged on a wider domain with another PML (15 nm mesh,
  6 µm of slab, 3 µm PML of twice the strength, 0.1 µm far cells): the check that the leaky mode's Im n_eff is the
  structure's and not the PML's or the mesh's.
Off the grid: points drawn uniformly over the table's domain (``bend_radiation.GRID``, radius 10–40 µm) with fixed
seeds, both claddings, decoupled TE on the 20 nm mesh along both crystal axes.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import bend_radiation as br
from prismpic.pdk import dispersion as dsp
from prismpic.pdk import modesolver as ms
from prismpic.pdk.ridge_geometry import Mesh
from prismpic.pdk.ridge_stack import RidgeStack

OUT = Path(__file__).with_name("data") / "bend_radiation_solves.json"
DEFAULT = {"wl": 1.55, "radius": 20.0, "width": 1.4, "film": 0.6, "angle": 76.5, "cladding": "sio2"}
ETCHES = (0.32, 0.35, 0.38)
FRESH = Mesh(step=0.02, pad_x=4.0, pml=2.0)
WIDE = Mesh(step=0.015, pad_x=6.0, pml=3.0, pml_sigma=6.0, step_max=0.1)
SEEDS = {"sio2": 31, "air": 32}
N_POINTS = 4


def te_imag(p: dict, axis: str, mesh: Mesh, decouple_tm: bool) -> float | None:
    """Im n_eff of the TE-like bend mode at the point ``p`` (None: no guided TE mode)."""
    ridge = RidgeStack(width=p["width"], film_thickness=p["film"], etch_depth=p["etch"], sidewall_angle_deg=p["angle"],
                       cladding=p["cladding"])
    straight = float(dsp.neff(p["wl"], ridge, np.inf, "te", axis))
    try:
        b = ms.bend_modes(p["wl"], p["width"], p["film"], p["etch"], p["radius"], axis, p["cladding"], p["angle"],
                          mesh, neff_guess=straight, decouple_tm=decouple_tm)
    except RuntimeError:
        return None
    return float(b["te"].neff.imag) if "te" in b else None


def random_point(clad: str, rng) -> dict:
    g = br.GRID
    wl, w, t, f, a = (float(rng.uniform(*g[k][:2])) for k in ("wl", "width", "film", "etch_fraction", "angle"))
    return {"wl": wl, "width": w, "film": t, "etch": f * t, "angle": a,
            "radius": float(rng.uniform(*br.RADIUS[:2])), "cladding": clad}


def main() -> None:
    default = []
    for etch in ETCHES:
        p = {**DEFAULT, "etch": etch}
        default.append({**p, **{f"{m}_{a}": te_imag(p, a, mesh, dec) for m, mesh, dec in
                                (("fresh", FRESH, False), ("wide", WIDE, True)) for a in br.AXES}})
        print(default[-1], flush=True)
    off = []
    for clad, seed in SEEDS.items():
        rng = np.random.default_rng(seed)
        for _ in range(N_POINTS):
            p = random_point(clad, rng)
            off.append({**p, **{f"fresh_{a}": te_imag(p, a, FRESH, True) for a in br.AXES}})
            print(off[-1], flush=True)
    OUT.write_text(json.dumps({"default_ring": default, "off_grid": off,
                               "meshes": {"fresh": asdict(FRESH), "wide": asdict(WIDE)}}, indent=1) + "\n")


if __name__ == "__main__":
    main()
