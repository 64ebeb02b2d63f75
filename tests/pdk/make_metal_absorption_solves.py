"""Reference solves of electrode absorption for ``test_metal_absorption.py``: the full-vector mode solver with the
gold electrodes drawn in the cross-section (``modesolver.solve_modes(metal=…)``), an independent check of the
effective-index reduction in ``prismpic.pdk.metal_absorption``.

Each case is solved on uniform meshes of 20, 14 and 10 nm (the gold skin depth is ≈ 23 nm); the loss 2 k0 Im n_eff in
dB/cm of each is stored, with the finest taken as the reference and the spread of the three as its error; and at
20 nm with gold's relaxation time at the ends of its spread. The search starts from this file's own bare-rib solve.
Run: ``python tests/pdk/make_metal_absorption_solves.py`` (a few minutes on one core); writes
``tests/pdk/data/metal_absorption_solves.json``; with the argument ``sides`` only its layouts without a mirror plane;
with ``compact-form`` it prints what a jittable gold model would have to tabulate (``compact_form_lines``).
"""

from __future__ import annotations

import cmath
import json
import math
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

OUT = Path(__file__).with_name("data") / "metal_absorption_solves.json"
WL = 1.55
STEPS = (0.02, 0.014, 0.01)
RELAXATION_SPREAD_FS = (11.0, 17.0)  # gold's Drude τ spread (Olmon et al. 2012), solved at the coarsest step
METAL_THICKNESS = 0.8
# the default ridge with electrodes on the slab, their edges this far from the ridge's top edges (µm), and the
# 400 nm foundry rib with electrodes 0.3 µm above the film, 0.3 µm beside it
CASES = (
    {"name": "slab, 1.0 µm", "width": 1.4, "film": 0.6, "etch": 0.35, "angle": 76.5, "distance": 1.0, "height": None},
    {"name": "slab, 1.3 µm", "width": 1.4, "film": 0.6, "etch": 0.35, "angle": 76.5, "distance": 1.3, "height": None},
    {"name": "cladding, 0.3 µm up, 0.3 µm beside", "width": 1.0, "film": 0.4, "etch": 0.2, "angle": 76.5,
     "distance": 0.3, "height": 0.3},
)


# docs/published_checks.md row 6: the air-clad Kerr-comb ring of Wang et al., Nat. Commun. 10, 978 (2019), gold on the
# slab 1.0–1.5 µm from both walls, both crystal axes of the turn, walls 60° and 90°; at the coarsest step only
PUBLISHED = tuple({"name": f"wang2019 {angle:g}° {d:g} µm {axis}", "width": 1.3, "film": 0.6, "etch": 0.35,
                   "angle": angle, "distance": d, "height": None, "cladding": "air", "axis": axis, "wl": 1.556}
                  for angle in (60.0, 90.0) for d in (1.0, 1.5) for axis in ("z", "y"))


def metal_rectangles(case: dict, far: float) -> tuple:
    """The two electrodes (x0, x1, y0, y1), mirror images about the ridge centre."""
    x0 = 0.5 * case["width"] + case["distance"]
    y0 = case["film"] - case["etch"] if case["height"] is None else case["film"] + case["height"]
    y1 = y0 + METAL_THICKNESS
    return ((x0, far, y0, y1), (-far, -x0, y0, y1))


def solve_case(case: dict, step: float, relaxation_fs: float = 14.0) -> float:
    """Loss (dB/cm) of the TE0 mode with the electrodes, on a uniform mesh of ``step`` µm."""
    from prismpic.pdk.modesolver import solve_modes
    from prismpic.pdk.ridge_geometry import Mesh

    pad_x = case["distance"] + 2.5
    mesh = Mesh(step=step, step_max=step, core_margin=0.3, pad_x=pad_x, pad_below=1.5, pad_above=1.6, pml=0.8)
    wl = case.get("wl", WL)
    geometry = dict(wl=wl, width=case["width"], film_thickness=case["film"], etch_depth=case["etch"],
                    sidewall_angle_deg=case["angle"], cladding=case.get("cladding", "sio2"),
                    crystal_axis=case.get("axis", "z"), symmetry="pec", mesh=mesh)
    bare = solve_modes(**geometry, num_modes=1)[0].neff.real
    # gold on LN also guides surface plasmons above the ridge mode's index: take the TE mode next to the bare one
    modes = solve_modes(**geometry, num_modes=4, neff_guess=bare + 0.002, metal=metal_rectangles(case, 50.0),
                        gold_relaxation_fs=relaxation_fs)
    te = [m for m in modes if m.te_fraction > 0.8]
    mode = min(te, key=lambda m: abs(m.neff.real - bare))
    return 10 / math.log(10) * 1e4 * 2 * (2 * math.pi / wl) * mode.neff.imag


# layouts without a mirror plane, solved as drawn (no symmetry) on the mesh ``metal_absorption`` uses: the ring's
# floating disk on one side of the default rib (1.5 µm, both crystal axes) and an unequal pair (1.0 and 1.3 µm)
SIDES = ({"name": "one side, 1.5 µm, z", "left": 1.5, "right": None, "axis": "z"},
         {"name": "one side, 1.5 µm, y", "left": 1.5, "right": None, "axis": "y"},
         {"name": "unequal, 1.0 and 1.3 µm, z", "left": 1.0, "right": 1.3, "axis": "z"})
DEFAULT_RIB = {"width": 1.4, "film": 0.6, "etch": 0.35, "angle": 76.5}


def solve_sides(case: dict, step: float = 0.02) -> float:
    """Loss (dB/cm) of the default rib's TE0 mode with gold on the slab ``left`` and ``right`` µm from its top edges
    (None: no gold on that side), the whole cross-section solved (no mirror plane)."""
    from prismpic.pdk.modesolver import solve_modes
    from prismpic.pdk.ridge_geometry import Mesh

    rib, far = DEFAULT_RIB, 50.0
    near = [d for d in (case["left"], case["right"]) if d is not None]
    mesh = Mesh(step=step, step_max=step, core_margin=0.3, pad_x=max(near) + 2.5, pad_below=1.5, pad_above=1.2,
                pml=0.8)
    geometry = dict(wl=WL, width=rib["width"], film_thickness=rib["film"], etch_depth=rib["etch"],
                    sidewall_angle_deg=rib["angle"], cladding="sio2", crystal_axis=case["axis"], mesh=mesh,
                    symmetry=None)
    y0 = rib["film"] - rib["etch"]
    metal = []
    if case["right"] is not None:
        metal.append((rib["width"] / 2 + case["right"], far, y0, y0 + METAL_THICKNESS))
    if case["left"] is not None:
        metal.append((-far, -rib["width"] / 2 - case["left"], y0, y0 + METAL_THICKNESS))
    bare = solve_modes(**geometry, num_modes=1)[0].neff.real
    modes = solve_modes(**geometry, num_modes=4, neff_guess=bare + 0.002, metal=tuple(metal))
    te = [m for m in modes if m.te_fraction > 0.8]
    mode = min(te, key=lambda m: abs(m.neff.real - bare))
    return 10 / math.log(10) * 1e4 * 2 * (2 * math.pi / WL) * mode.neff.imag


def side_rows() -> list[dict]:
    return [{**case, **DEFAULT_RIB, "loss_db_per_cm": solve_sides(case)} for case in SIDES]


def compact_form_lines(step: float = 0.03, d: float = 1.25) -> None:
    """Prints, along lines through the default rib (one axis at a time, SiO2, field along z), the per-side loss α of
    gold ``d`` µm from each wall and α e^{2γd} divided by Re(1/√(n_sp² − n_eff²)) (the lateral plasmon's density of
    states, n_sp complex: ``test_metal_absorption.slab_plasmon_index``): what a compact model would have to hold
    constant. Not written to the data file (≈ 1 CPU-min)."""
    from test_metal_absorption import slab_plasmon_index

    from prismpic.pdk import dispersion
    from prismpic.pdk.bend_radiation import lateral_decay_per_um
    from prismpic.pdk.metal_absorption import edge_absorption_db_per_cm
    from prismpic.pdk.ridge_stack import DEFAULT

    lines = {"etch_fraction": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8), "film": (0.3, 0.4, 0.5, 0.7, 0.8),
             "width": (0.8, 1.1, 1.8, 2.2), "angle": (60.0, 68.0, 84.0, 90.0), "wl": (1.45, 1.65)}
    for axis, values in lines.items():
        for v in values:
            p = {"wl": WL, "width": 1.4, "film": 0.6, "etch_fraction": 0.35 / 0.6, "angle": 76.5, axis: v}
            ridge = DEFAULT.replace(width=p["width"], film_thickness=p["film"],
                                    etch_depth=p["etch_fraction"] * p["film"], sidewall_angle_deg=p["angle"])
            alpha = edge_absorption_db_per_cm(p["wl"], ridge, d, d, step=step) / 2
            n = float(dispersion.neff(p["wl"], ridge, math.inf, "te", "z"))
            n_sp = slab_plasmon_index(p["wl"], float(ridge.slab))
            weight = (1 / cmath.sqrt(n_sp**2 - n**2)).real
            rest = alpha * math.exp(2 * float(lateral_decay_per_um(p["wl"], ridge, "z")) * d) / weight
            print(f"{axis} {v:g}: slab {float(ridge.slab):.3f} µm, n_sp − n_eff {n_sp.real - n:+.4f}, "
                  f"α {alpha:.4g} dB/cm per side, α e^{{2γd}} / Re(1/k) {rest:.4g}", flush=True)


def main() -> None:
    if sys.argv[1:] == ["compact-form"]:
        compact_form_lines()
        return
    if sys.argv[1:] == ["sides"]:  # only the layouts without a mirror plane, into the existing file
        data = json.loads(OUT.read_text())
        OUT.write_text(json.dumps({**data, "sides": side_rows()}, indent=1) + "\n")
        return
    rows = []
    for case in CASES:
        start = time.process_time()
        losses = [solve_case(case, h) for h in STEPS]
        spread = {str(tau): solve_case(case, STEPS[0], tau) for tau in RELAXATION_SPREAD_FS}
        rows.append({**case, "steps_um": list(STEPS), "loss_db_per_cm": losses,
                     "loss_by_relaxation_fs": spread, "cpu_s": round(time.process_time() - start, 1)})
        print(case["name"], losses, rows[-1]["cpu_s"], "CPU-s")
    published = [{**case, "loss_db_per_cm": solve_case(case, STEPS[0])} for case in PUBLISHED]
    OUT.write_text(json.dumps({"wl_um": WL, "metal_thickness_um": METAL_THICKNESS, "cases": rows,
                               "published": published, "sides": side_rows()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
