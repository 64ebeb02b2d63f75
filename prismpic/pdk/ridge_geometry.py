"""The ridge cross-section the mode solver sees, and its finite-difference grid (µm).

``Ridge``: an X-cut TFLN ridge (width at the top, film, etch depth, sidewall angle, cladding) with its
diagonal permittivity at any point; ``Mesh``: grid settings, with graded node spacing away from the
ridge (``axis_nodes``). Used by ``prismpic.pdk.modesolver``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from prismpic.checks import check_choice, check_positive, check_range
from prismpic.pdk import materials
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, RIDGE_WIDTH, SIDEWALL_ANGLE_DEG

# ----------------------------------------------------------------------------- geometry
PROPAGATION_AXIS = {"z": "y", "y": "z"}  # crystal_axis (the in-plane TE field's crystal axis) -> propagation axis


def mode_label(polarization: str, crystal_axis: str) -> str:
    """How a mode is named for a reader: polarisation, the crystal axis of its dominant field and the propagation
    axis, e.g. ``"TE (E ∥ z), propagating along y"`` for crystal_axis "z" (X-cut film: crystal x is vertical, so TM
    is polarised along x)."""
    check_choice("polarization", polarization, ("te", "tm"))
    check_choice("crystal_axis", crystal_axis, ("z", "y"))
    field = crystal_axis if polarization == "te" else "x"
    return f"{polarization.upper()} (E ∥ {field}), propagating along {PROPAGATION_AXIS[crystal_axis]}"



@dataclass(frozen=True)
class Ridge:
    """TFLN ridge cross-section (µm). X-cut film; crystal x is vertical.

    Args:
        width: ridge top width.
        film_thickness: LN film thickness.
        etch_depth: etch depth (< film_thickness); the slab left is film_thickness − etch_depth.
        sidewall_angle_deg: sidewall angle from the horizontal (90 = vertical).
        cladding: "sio2" or "air" above the film (the buried oxide below is SiO2).
        crystal_axis: "z" (in-plane TE field along crystal z, propagation along y) or
            "y" (propagation along z, TE field along y).
        gap: None for one ridge; otherwise a second identical ridge at top-edge gap ``gap``.
        decouple_tm: give the LN its horizontal index vertically too (εyy = εxx). For
            crystal_axis "z" this lowers TM0 by ~0.05 and keeps a bend from mixing it
            with TE0, while TE0 (E mostly horizontal) barely changes; used for the bend
            shift of the tables (see ``bend_shift``). No effect for crystal_axis "y".
        metal: gold rectangles (x0, x1, y0, y1) in the cross-section (µm; y from the film's bottom), e.g.
            electrodes, with ``materials.eps_au``; () for none (``pdk.metal_absorption``; the mesh must come
            close to the ≈ 23 nm skin depth).
        gold_relaxation_fs: the gold's Drude relaxation time (fs).
    """

    width: float = RIDGE_WIDTH
    film_thickness: float = FILM_THICKNESS
    etch_depth: float = ETCH_DEPTH
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG
    cladding: str = CLADDING
    crystal_axis: str = "z"
    gap: float | None = None
    decouple_tm: bool = False
    metal: tuple = ()
    gold_relaxation_fs: float = materials.AU_RELAXATION_FS

    def __post_init__(self):
        check_positive("width", self.width, unit="µm")
        check_positive("film_thickness", self.film_thickness, unit="µm")
        check_range("etch_depth", self.etch_depth, 0.0, self.film_thickness, unit="µm", hi_open=True)
        check_range("sidewall_angle_deg", self.sidewall_angle_deg, 45.0, 90.0, unit="deg")
        check_choice("cladding", self.cladding, ("sio2", "air"))
        check_choice("crystal_axis", self.crystal_axis, ("z", "y"))
        if self.gap is not None:
            check_positive("gap", self.gap, unit="µm")

    @property
    def slab(self) -> float:
        return self.film_thickness - self.etch_depth

    @property
    def centers(self) -> tuple[float, ...]:
        """Ridge centres (x, µm); a pair sits symmetrically about x = 0."""
        if self.gap is None:
            return (0.0,)
        c = 0.5 * (self.width + self.gap)
        return (-c, c)

    def half_width_at(self, y):
        """Ridge half width at height y inside the etched layer (wider at the foot)."""
        cot = 1.0 / math.tan(math.radians(self.sidewall_angle_deg))
        return 0.5 * self.width + (self.film_thickness - y) * cot

    def x_breaks(self) -> list[float]:
        """Vertical interfaces (top and foot of each sidewall)."""
        foot = self.half_width_at(self.slab)
        out = []
        for c in self.centers:
            out += [c - 0.5 * self.width, c + 0.5 * self.width, c - foot, c + foot]
        return sorted(set(out))

    def y_breaks(self) -> list[float]:
        return [0.0, self.slab, self.film_thickness]

    def in_ln(self, x, y):
        """Boolean mask: point inside the LN (slab or ridge)."""
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        slab = (y >= 0.0) & (y < self.slab)
        ridge = np.zeros(x.shape, bool)
        band = (y >= self.slab) & (y < self.film_thickness)
        hw = self.half_width_at(y)
        for c in self.centers:
            ridge |= band & (np.abs(x - c) <= hw)
        return slab | ridge

    def eps_tensor(self, wl: float):
        """Diagonal permittivities (horizontal, vertical, propagation) of LN, box, cladding."""
        ne2 = float(materials.n_ln_e(wl)) ** 2
        no2 = float(materials.n_ln_o(wl)) ** 2
        ln = (ne2, no2, no2) if self.crystal_axis == "z" else (no2, no2, ne2)
        if self.decouple_tm:
            ln = (ln[0], ln[0], ln[2])
        box = float(materials.n_sio2(wl)) ** 2
        clad = box if self.cladding == "sio2" else float(materials.n_air(wl)) ** 2
        return ln, box, clad

    def eps_at(self, x, y, wl: float, comp: int):
        """Permittivity component ``comp`` (0 = xx, 1 = yy, 2 = zz) at points (x, y)."""
        ln, box, clad = self.eps_tensor(wl)
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        out = np.where(y < 0.0, box, clad)
        out = np.where(self.in_ln(x, y), ln[comp], out)
        # the solver's fields go as exp(j(ωt − βz)): an absorbing ε has Im ε < 0 there (eps_au is exp(−iωt))
        gold = np.conj(complex(materials.eps_au(wl, self.gold_relaxation_fs)))
        for x0, x1, y0, y1 in self.metal:
            out = np.where((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1), gold, out)
        return out


# ----------------------------------------------------------------------------- grid


@dataclass(frozen=True)
class Mesh:
    """Grid settings (µm).

    Args:
        step: cell size in the core region (ridge ± ``core_margin`` and film ± ``core_margin``).
        step_max: largest cell size far from the core.
        growth: ratio between neighbouring cells outside the core.
        core_margin: extent of the fine region beyond the ridge and film.
        pad_x: cladding/slab width beyond the outermost sidewall foot (before the PML).
        pad_below, pad_above: oxide below and cladding above the film (before the walls).
        pml: PML thickness on the outer x side(s).
        pml_sigma: PML strength; s = 1 − j σ (d/pml)².
        subpixel: samples per cell side for permittivity averaging.
    """

    step: float = 0.03
    step_max: float = 0.15
    growth: float = 1.3
    core_margin: float = 0.3
    pad_x: float = 2.0
    pad_below: float = 1.5
    pad_above: float = 1.2
    pml: float = 0.8
    pml_sigma: float = 3.0
    subpixel: int = 6

    def cells(self, length: float) -> int:
        """Cells in a core segment of ``length`` (µm): ⌈length/step⌉."""
        return max(1, math.ceil(length / self.step - 1e-9))


def graded_nodes(start: float, stop: float, h0: float, hmax: float, growth: float) -> np.ndarray:
    """Nodes from ``start`` to ``stop`` with spacing growing from h0 to hmax (start included)."""
    length = abs(stop - start)
    if length == 0:
        return np.array([start])
    steps, h, total = [], h0, 0.0
    while total + h < length - 1e-12:
        steps.append(h)
        total += h
        h = min(h * growth, hmax)
    steps.append(length - total)
    if len(steps) > 1 and steps[-1] < 0.5 * steps[-2]:  # merge a sliver into its neighbour
        steps[-2] += steps.pop()
    pos = start + np.sign(stop - start) * np.concatenate([[0.0], np.cumsum(steps)])
    pos[-1] = stop
    return pos


def axis_nodes(lo: float, hi: float, segments, h: float, hmax: float, g: float) -> np.ndarray:
    """1-D nodes: each core segment (a, b, cells) split uniformly, graded from h to hmax outside."""
    core = [np.array([segments[0][0]])]
    for a, b, cells in segments:
        core.append(np.linspace(a, b, cells + 1)[1:])
    core = np.concatenate(core)
    left = graded_nodes(core[0], lo, h, hmax, g)[1:][::-1] if lo < core[0] else np.array([])
    right = graded_nodes(core[-1], hi, h, hmax, g)[1:] if hi > core[-1] else np.array([])
    return np.concatenate([left, core, right])
