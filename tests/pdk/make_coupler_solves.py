"""Makes ``tests/pdk/data/coupler_solves.json``: converged supermode solves that ``test_coupler_table.py`` holds the
tabulated coupling against (≈ 11 CPU-min, kept as test data).

Run from the repository root after a change to the mode solver or the coupler tables::

    python tests/pdk/make_coupler_solves.py

Each point: C = π (n_even − n_odd)/λ of ``supermodes.coupled_modes`` on 20, 15 and 10 nm meshes (the others as the
default ``Mesh``), and the Richardson limit of the 15/10 nm pair (h²). Points:
- "default": the default ridge (1.4 × 0.6 µm, 0.35 µm etch, 76.5°, SiO2) at top gaps 0.15–0.6 µm;
- "walls": the default ridge at 0.3 and 0.4 µm gaps and wall angles 60–90° (at 60° and 67.5° the feet of a 0.3 µm
  gap merge: 2·0.35/tan(angle) = 0.40 and 0.29 µm);
- "off_grid": points drawn uniformly over the table's domain (gaps 0.15–0.6 µm), both claddings, fixed seeds;
- "merge": the default ridge's film and width at the gap where the feet just touch, 2·etch/tan(angle).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import coupler_table as ct
from prismpic.pdk import modesolver as ms
from prismpic.pdk import supermodes

OUT = Path(__file__).with_name("data") / "coupler_solves.json"
DEFAULT = {"wl": 1.55, "width": 1.4, "film": 0.6, "etch": 0.35, "angle": 76.5, "cladding": "sio2"}
STEPS = (0.02, 0.015, 0.01)
SEEDS = {"sio2": 41, "air": 42}
N_POINTS = 18  # per cladding (6 until session 48)
GAPS = (0.15, 0.6)


def converged(p: dict) -> dict:
    """The point with C (1/µm) on each mesh of ``STEPS`` and the 15/10 nm Richardson limit ("c")."""
    cs = [supermodes.coupling_per_um(p["wl"], p["gap"], width=p["width"], film_thickness=p["film"],
                                     etch_depth=p["etch"], sidewall_angle_deg=p["angle"], cladding=p["cladding"],
                                     mesh=ms.Mesh(step=h)) for h in STEPS]
    (h1, c1), (h2, c2) = (STEPS[1], cs[1]), (STEPS[2], cs[2])
    return {**p, "c_steps": cs, "c": (c2 * h1**2 - c1 * h2**2) / (h1**2 - h2**2)}


def random_point(clad: str, rng) -> dict:
    d = ct.domain()
    wl, w, t, f, a = (float(rng.uniform(*d[k])) for k in ("wl", "width", "film", "etch_fraction", "angle"))
    return {"wl": wl, "gap": float(rng.uniform(*GAPS)), "width": w, "film": t, "etch": f * t, "angle": a,
            "cladding": clad}


def main() -> None:
    out = {"steps_um": list(STEPS), "reference": "Richardson (h^2) of the 15 and 10 nm solves"}
    out["default"] = [converged({**DEFAULT, "gap": g}) for g in (0.15, 0.2, 0.3, 0.4, 0.6)]
    out["walls"] = [converged({**DEFAULT, "gap": g, "angle": a}) for g in (0.3, 0.4) for a in (60.0, 67.5, 72.0, 83.0,
                                                                                                90.0)]
    out["merge"] = [converged({**DEFAULT, "etch": e, "angle": a, "gap": 2 * e / math.tan(math.radians(a))})
                    for e, a in ((0.35, 62.0), (0.35, 70.0), (0.35, 74.0), (0.30, 70.0), (0.40, 66.0))]
    out["off_grid"] = []
    for clad, seed in SEEDS.items():
        rng = np.random.default_rng(seed)
        for _ in range(N_POINTS):
            p = random_point(clad, rng)
            try:
                out["off_grid"].append(converged(p))
            except RuntimeError as e:  # no guided supermode pair here: kept, so the test says which
                out["off_grid"].append({**p, "c": None, "error": str(e)})
            print(out["off_grid"][-1], flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}: {sum(map(len, (out['default'], out['walls'], out['merge'], out['off_grid'])))} points")


if __name__ == "__main__":
    main()
