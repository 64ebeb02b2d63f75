"""Absorption of a rib's TE mode by nearby electrodes, from full-vector mode solves with the gold drawn in.

The electrodes of a Pockels device (``pdk.electrodes``: on the slab beside the rib, or above the cladding beside
it) sit in the mode's evanescent tail. The loss is 2 k0 Im n_eff of the rib's TE mode with the electrodes in the
cross-section (``modesolver.solve_modes(metal=…)``, gold from ``materials.eps_au``: Olmon et al. 2012 Drude,
τ = 14 ± 3 fs). The electrodes are semi-infinite: they run into the solver's PML.

What the solves show (``tests/pdk/make_metal_absorption_solves.py``): gold on the LN slab guides surface plasmons
whose index (≈ 2.03–2.05 at the default stack) lies above the rib's TE index (1.92), so the rib's mode, mixed with TM
at the sloped wall and the metal's corner, leaks sideways into them; at the default rib with gold 1.0 µm from each
top edge this costs 7.7 dB/cm, two orders of magnitude above the gold's share of the mode alone (an
effective-index model of the layers gives 0.013). The loss falls as exp(−2γd) with d the metal's distance and γ the
rib mode's lateral decay constant in the slab. The plasmon runs ≈ 16 µm before it is absorbed: narrower electrodes
reflect it (gold 3.5 µm wide at 1.0 µm: 21 dB/cm), which semi-infinite electrodes leave out. The leak needs the
plasmon above the rib's index, and a thinner slab lowers it (the gold/LN-slab/SiO2 stack's TM root at 1.55 µm: 2.12,
2.06, 1.99, 1.91, 1.82 at 0.30, 0.25, 0.21, 0.18, 0.15 µm): above the cut-off α e^{2γd} ∝ 1/Re(n_sp² − n_eff²), so
the leak grows as the slab thins towards it, and below it the leak is gone. At the default film, gold 1.25 µm from
each wall, per side: 1.56, 0.66, 0.48, 0.79, 0.023, 0.005 dB/cm at etch fractions 0.5, 0.6, 0.65, 0.7, 0.75, 0.8
(``test_the_leak_needs_the_slab_plasmon_above_the_ribs_index``).

Why the jittable ring, MZM and phase-shifter models leave the gold out (``components.loss_budget`` has it): a
compact form α = F e^{−2γd} Re(1/√(n_sp² − n_eff²)) (the leak into the lateral plasmon's continuum, n_sp complex)
would need F smooth enough to tabulate, and it is not. Along single axes through the default rib (30 nm solves,
``python tests/pdk/make_metal_absorption_solves.py compact-form``) F stays within 1,064–8,156 while n_sp lies
0.05–0.26 above the rib's index, and jumps to 575 and 2.4–3.3e4 where the slab plasmon crosses it (film 0.3 µm;
etch fraction 0.7 and 0.8): the leak peaks just past the crossing (etch fraction 0.7: 1.52 dB/cm per side against
0.61 at 0.6) and is gone 0.2 below it (0.005 at 0.8). A table over the ridge would have to resolve that crossing,
which runs diagonally through film and etch.

Mesh: uniform ``STEP`` (20 nm): within 1.6 % of a 10 nm solve for the leak at the default rib and for gold above the
foundry rib's cladding (the reference file); gold absorbing at a flat face converges as O(h) and is overstated by
≈ 9 % (``test_metal_absorption``). The result moves < 1.5 % with the PML's thickness, strength and distance. Each call
is one solve near the bare rib's index (compact model) of a layout symmetric about the rib (≈ 5 CPU-s, half the
domain behind a mirror plane): a layout with different distances on the two sides, or metal on one side only, is
the sum of half the symmetric layout's loss at each distance (the two sides leak independently: one-sided solves
agree within 3e-5; gold 1.0 and 1.3 µm away is 1.5 % below the solve as drawn, the sides' plasmons interacting a
little: within the mesh error; ``test_one_sided_and_unequal_layouts_are_halves_of_symmetric_ones``),
twice as fast as a solve without the mirror plane and half its memory (1.6 → 0.9 GB at the ring's disk). The result is kept in the user cache (``user_cache.cached_arrays``, keyed on the
inputs, prismpic's sources and the NumPy and SciPy versions): a later run with the same layout reads it back bit for
bit. Lengths in µm, losses in dB/cm.
"""

from __future__ import annotations

import dataclasses
import math
from importlib.metadata import version

import numpy as np

from prismpic import user_cache
from prismpic.checks import check_choice, check_range, concrete
from prismpic.pdk import dispersion, materials
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import METAL_THICKNESS

_DB_PER_CM = 1e4 * 10.0 / math.log(10.0)
STEP = 0.02  # µm, the solves' uniform mesh
PAD = 2.5  # µm of slab and cladding beyond the nearer metal edge, before the PML
FAR = 1e3  # µm: the electrodes run into the PML (semi-infinite)


def electrode_rectangles(ridge: RidgeStack, left: float, right: float, electrode_height: float | None) -> tuple:
    """The gold rectangles (x0, x1, y0, y1) of electrodes whose edges lie ``left`` and ``right`` µm from the rib's top
    edges (math.inf: none on that side), on the slab or ``electrode_height`` above the film."""
    half = 0.5 * float(ridge.width)
    y0 = float(ridge.slab) if electrode_height is None else float(ridge.film_thickness) + electrode_height
    y1 = y0 + METAL_THICKNESS
    out = []
    if math.isfinite(right):
        out.append((half + right, FAR, y0, y1))
    if math.isfinite(left):
        out.append((-FAR, -half - left, y0, y1))
    return tuple(out)


def edge_absorption_db_per_cm(wl: float, ridge: RidgeStack, left: float, right: float,
                              electrode_height: float | None = None, crystal_axis: str = "z",
                              relaxation_fs: float = materials.AU_RELAXATION_FS, step: float = STEP) -> float:
    """Absorption (dB/cm) of a straight rib's TE mode by gold whose edges lie ``left`` and ``right`` µm from the rib's
    top edges (math.inf: no metal on that side).

    Args:
        wl: wavelength (µm).
        ridge: the rib and its stack (concrete values).
        left, right: metal edge to the rib's top edge on each side (µm); on the slab at least the sloped wall's run,
            above the cladding at least 0.
        electrode_height: None (metal on the slab) or the metal bottom's height above the film top (µm).
        crystal_axis: crystal axis of the TE field, "z" or "y".
        relaxation_fs: gold's Drude relaxation time (fs; 11–17 is its measured spread).
        step: mesh step of the solves (µm).
    """
    from prismpic.pdk.modesolver import solve_modes
    from prismpic.pdk.ridge_geometry import Mesh

    check_choice("crystal_axis", crystal_axis, ("z", "y"))
    run = float(ridge.etch_depth) / math.tan(math.radians(float(ridge.sidewall_angle_deg)))
    floor = run if electrode_height is None else 0.0
    for name, dist in (("left", left), ("right", right)):
        check_range(f"metal distance ({name})", dist, floor, math.inf, unit="µm")
    if electrode_height is not None:
        check_range("electrode_height", electrode_height, 0.0, 5.0, unit="µm", lo_open=True)
    near = [d for d in (left, right) if math.isfinite(d)]
    if not near:
        return 0.0
    if left != right:  # the sides leak independently (module docstring)
        return sum(0.5 * edge_absorption_db_per_cm(wl, ridge, d, d, electrode_height, crystal_axis, relaxation_fs,
                                                   step) for d in near)
    top = (METAL_THICKNESS + (0.0 if electrode_height is None else electrode_height)) + 0.4
    mesh = Mesh(step=step, step_max=step, core_margin=0.3, pad_x=max(near) + PAD, pad_below=1.5,
                pad_above=max(top, 1.2), pml=0.8)
    geometry = dict(wl=float(wl), width=float(ridge.width), film_thickness=float(ridge.film_thickness),
                    etch_depth=float(ridge.etch_depth), sidewall_angle_deg=float(ridge.sidewall_angle_deg),
                    cladding=ridge.cladding, crystal_axis=crystal_axis, mesh=mesh,
                    symmetry="pec")
    metal = electrode_rectangles(ridge, left, right, electrode_height)
    bare = float(concrete(dispersion.neff(wl, ridge, math.inf, "te", crystal_axis)))

    def solved() -> dict:
        # the plasmons of the gold lie above the rib's index: take the TE mode next to the bare rib's (compact model)
        modes = solve_modes(**geometry, num_modes=4, neff_guess=bare + 0.002, metal=metal,
                            gold_relaxation_fs=relaxation_fs)
        te = [m for m in modes if m.te_fraction > 0.8 and m.confinement > 0.5]
        if not te:
            raise RuntimeError(f"no TE mode of the rib found beside the gold (left {left:g}, right {right:g} µm)")
        mode = min(te, key=lambda m: abs(m.neff.real - bare))
        return {"im_neff": np.float64(max(mode.neff.imag, 0.0))}

    key = {**geometry, "mesh": dataclasses.asdict(mesh), "metal": metal, "guess": bare, "relaxation_fs": relaxation_fs,
           "source": user_cache.source_key(modules=(__name__,)), "versions": {d: version(d) for d in ("numpy", "scipy")}}
    im_neff = float(user_cache.cached_arrays("metal-absorption", key, solved)["im_neff"])
    return _DB_PER_CM * 2 * (2 * math.pi / wl) * im_neff


def electrode_absorption_db_per_cm(wl: float, ridge: RidgeStack, electrode_gap: float, ridge_offset: float = 0.0,
                                   electrode_height: float | None = None, crystal_axis: str = "z",
                                   relaxation_fs: float = materials.AU_RELAXATION_FS) -> float:
    """Absorption (dB/cm) of a straight rib's TE mode by the two electrodes of a Pockels section beside it.

    Args:
        wl: wavelength (µm).
        ridge: the rib and its stack (concrete values).
        electrode_gap: edge-to-edge gap between the electrodes (µm), as ``pdk.electrodes``.
        ridge_offset: rib centre from the gap centre (µm).
        electrode_height, crystal_axis, relaxation_fs: as ``edge_absorption_db_per_cm``.
    """
    w, g, u = (float(concrete(v)) for v in (ridge.width, electrode_gap, ridge_offset))
    check_range("electrode_gap", g, w + 2 * abs(u), math.inf, unit="µm", lo_open=True)
    return edge_absorption_db_per_cm(wl, ridge, g / 2 + u - w / 2, g / 2 - u - w / 2, electrode_height,
                                     crystal_axis, relaxation_fs)
