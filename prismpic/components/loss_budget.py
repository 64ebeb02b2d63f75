"""A ring's loss by cause, from physics, and the intrinsic Q it sets.

``ring_loss_budget`` splits the round trip's loss of a ``RingDesign`` into LN absorption and sidewall scattering
(``pdk.scattering``), bend radiation (``pdk.bend_radiation``), gold absorption by the tuning electrodes
(``pdk.metal_absorption``: the floating inner disk all around the turn, the plates over their arcs) and the
couplers' excess loss (the design's ``coupler_loss_db``, typed). ``budget_over_roughness`` gives it over the
process's roughness corners. The compact ring models read absorption, scattering and bend (``loss_db_per_cm``
None) or a typed loss; the electrodes' absorption (full-vector solves, seconds each) is only here.

``pockels_loss_budget`` does the same for the straight section of a phase shifter or an MZM arm between its two
electrodes (TE field along crystal z, the r33 axis): absorption, scattering and the electrodes' gold, with the
section's Vπ·L from the same electrode layout (``modulators.ridge_vpi_l_v_cm``) and their product Vπ·L·α (V·dB),
the voltage–loss figure of a modulator whatever its length. A narrower gap lowers Vπ·L in proportion and raises
the gold's loss exponentially (``metal_absorption``), so the product has a minimum over the gap.

Losses in dB/cm, lengths in µm.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from prismpic.checks import concrete
from prismpic.components import ring_physics
from prismpic.components.modulators import check_electrode_clearance, ridge_vpi_l_v_cm
from prismpic.components.ring_design import DEFAULT, RingDesign
from prismpic.pdk import dispersion, materials, metal_absorption, scattering
from prismpic.pdk.bend_radiation import lateral_decay_per_um

_QUAD = np.polynomial.legendre.leggauss(8)


@dataclasses.dataclass(frozen=True)
class LossBudget:
    """A ring's loss by cause (dB/cm averaged over the turn; the couplers' dB per pass) and its intrinsic Q.

    Args:
        absorption_db_per_cm: LN material absorption.
        scattering_db_per_cm: sidewall-roughness scattering.
        bend_db_per_cm: bend radiation.
        metal_db_per_cm: absorption by the tuning electrodes.
        coupler_db_per_pass: excess loss of one coupler pass (typed).
        roughness: the process roughness used.
        q_intrinsic: 2π n_g/(λ α), α the power loss per length of the four guided causes (couplers excluded).
    """

    absorption_db_per_cm: float
    scattering_db_per_cm: float
    bend_db_per_cm: float
    metal_db_per_cm: float
    coupler_db_per_pass: float
    roughness: scattering.Roughness
    q_intrinsic: float

    @property
    def total_db_per_cm(self) -> float:
        """The guided loss (dB/cm): absorption + scattering + bend + metal."""
        return self.absorption_db_per_cm + self.scattering_db_per_cm + self.bend_db_per_cm + self.metal_db_per_cm

    def as_dict(self) -> dict:
        """Plain numbers ({name: value}) for a report or a JSON file."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "roughness"}
        return {**out, "total_db_per_cm": self.total_db_per_cm, "sigma_nm": self.roughness.sigma_nm,
                "correlation_nm": self.roughness.correlation_nm}


def ring_electrode_absorption_db_per_cm(wl: float, ring: RingDesign = DEFAULT,
                                        relaxation_fs: float = materials.AU_RELAXATION_FS) -> float:
    """Gold absorption of the ring's TE mode by its tuning electrodes, averaged over the turn (dB/cm).

    The floating disk (radius ``plate_offset − electrode_gap``) runs inside the ring everywhere: a full-vector solve
    of a straight rib with gold on one side at the disk's distance, for each crystal axis of the TE field (half the
    turn each, ``metal_absorption.edge_absorption_db_per_cm``). Each plate is farther out (beyond its bus) over the
    arc it covers; its share is the disk's scaled by exp(−2γΔd), γ the rib mode's lateral decay constant in the slab,
    the law the solves follow. Left out: the bend pushing the mode outwards (away from the disk) and the bus between
    ring and plate.
    """
    radius, half_w = float(ring.radius), 0.5 * float(ring.ridge.width)
    y_p = float(ring_physics.plate_offset(radius, ring.ridge.width, ring.gap, ring.gap_drop))
    inner = radius - half_w - (y_p - float(ring.electrode_gap))  # disk edge to the ring's inner edge
    disk = {axis: metal_absorption.edge_absorption_db_per_cm(wl, ring.ridge, inner, math.inf, ring.electrode_height,
                                                             axis, relaxation_fs) for axis in ("z", "y")}
    gamma = {axis: float(concrete(lateral_decay_per_um(wl, ring.ridge, axis))) for axis in ("z", "y")}
    half = float(ring.electrode_coverage) * math.pi / 2
    nodes, weights = _QUAD
    plates = 0.0
    for x, wgt in zip(nodes, weights, strict=True):  # the top plate's arc; the bottom one is its mirror image
        psi = math.pi / 2 + half * x
        outer = y_p - radius * math.sin(psi) - half_w
        s2 = math.sin(psi) ** 2
        plates += half * wgt * sum(share * disk[a] * math.exp(-2 * gamma[a] * (outer - inner))
                                   for a, share in (("z", s2), ("y", 1 - s2)))
    return 0.5 * (disk["z"] + disk["y"]) + 2 * plates / (2 * math.pi)


def ring_loss_budget(ring: RingDesign = DEFAULT, wl: float = 1.55, roughness: scattering.Roughness | None = None,
                     relaxation_fs: float = materials.AU_RELAXATION_FS) -> LossBudget:
    """The ring's loss by cause and its intrinsic Q, from physics (``loss_db_per_cm`` of the design is ignored).

    Args:
        ring: the ring (concrete values).
        wl: wavelength (µm).
        roughness: the process roughness (default ``scattering.default_roughness()``).
        relaxation_fs: gold's Drude relaxation time (fs).
    """
    metal = ring_electrode_absorption_db_per_cm(wl, ring, relaxation_fs)
    return with_roughness(ring, wl, metal, roughness or scattering.default_roughness())


def with_roughness(ring: RingDesign, wl: float, metal_db_per_cm: float, roughness: scattering.Roughness) -> LossBudget:
    """The budget at ``roughness`` with the electrodes' absorption already solved (dB/cm)."""
    ridge = ring.ridge
    absorb = scattering.MATERIAL_ABSORPTION_DB_PER_CM
    scat = float(concrete(scattering.ring_scattering_db_per_cm(wl, ridge, roughness)))
    bend = float(concrete(dispersion.bend_loss_db_per_cm(wl, ring.radius, ridge)))
    ng = float(concrete(ring_physics.ring_ng(wl, ring.radius, ridge)))
    alpha_per_um = (absorb + scat + bend + metal_db_per_cm) * math.log(10.0) / 10.0 * 1e-4
    return LossBudget(absorption_db_per_cm=absorb, scattering_db_per_cm=scat, bend_db_per_cm=bend,
                      metal_db_per_cm=float(metal_db_per_cm), coupler_db_per_pass=float(concrete(ring.coupler_loss_db)),
                      roughness=roughness, q_intrinsic=2 * math.pi * ng / (wl * alpha_per_um))


def budget_over_roughness(budget: LossBudget, ring: RingDesign = DEFAULT, wl: float = 1.55) -> dict[str, LossBudget]:
    """``budget`` (a ``ring_loss_budget`` of ``ring`` at ``wl``) at each roughness corner of
    ``scattering.roughness_spread`` ({corner: budget}; the electrodes' absorption is reused)."""
    return {name: with_roughness(ring, wl, budget.metal_db_per_cm, rough)
            for name, rough in scattering.roughness_spread().items()}


@dataclasses.dataclass(frozen=True)
class PockelsLossBudget:
    """The loss by cause of a straight Pockels section between two electrodes (dB/cm, TE along crystal z) and its
    half-wave voltage–length product.

    Args:
        absorption_db_per_cm: LN material absorption.
        scattering_db_per_cm: sidewall-roughness scattering.
        metal_db_per_cm: absorption by the electrodes' gold.
        vpi_l_v_cm: Vπ·L (V·cm), push-pull for an MZM, one arm for a phase shifter.
        roughness: the process roughness used.
    """

    absorption_db_per_cm: float
    scattering_db_per_cm: float
    metal_db_per_cm: float
    vpi_l_v_cm: float
    roughness: scattering.Roughness

    @property
    def total_db_per_cm(self) -> float:
        """The section's propagation loss (dB/cm): absorption + scattering + gold."""
        return self.absorption_db_per_cm + self.scattering_db_per_cm + self.metal_db_per_cm

    @property
    def vpi_loss_v_db(self) -> float:
        """Vπ·L·α (V·dB): the half-wave voltage times the section's loss, for any length."""
        return self.vpi_l_v_cm * self.total_db_per_cm

    def loss_db(self, length_um: float) -> float:
        """The propagation loss (dB) of ``length_um`` µm of the section."""
        return self.total_db_per_cm * float(length_um) * 1e-4

    def as_dict(self) -> dict:
        """Plain numbers ({name: value}) for a report or a JSON file."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "roughness"}
        return {**out, "total_db_per_cm": self.total_db_per_cm, "vpi_loss_v_db": self.vpi_loss_v_db,
                "sigma_nm": self.roughness.sigma_nm, "correlation_nm": self.roughness.correlation_nm}


def pockels_loss_budget(ridge, electrode_gap: float, wl: float = 1.55, electrode_height: float | None = None,
                        push_pull: bool = True, roughness: scattering.Roughness | None = None,
                        relaxation_fs: float = materials.AU_RELAXATION_FS) -> PockelsLossBudget:
    """The loss by cause and Vπ·L of a straight Pockels section with the ridge centred in the electrode gap.

    Args:
        ridge: the ridge and its stack (``RidgeStack``, concrete values).
        electrode_gap: electrode edge-to-edge gap (µm), as the ``phase_shifter`` and ``mzm`` cells.
        wl: wavelength (µm).
        electrode_height: None (electrodes on the slab) or the metal bottom's height above the film (µm).
        push_pull: Vπ·L of a push-pull MZM (True) or of one phase shifter (False).
        roughness: the process roughness (default ``scattering.default_roughness()``).
        relaxation_fs: gold's Drude relaxation time (fs).
    """
    check_electrode_clearance("electrode_gap", electrode_gap, float(ridge.width), electrode_height=electrode_height)
    rough = roughness or scattering.default_roughness()
    metal = metal_absorption.electrode_absorption_db_per_cm(wl, ridge, electrode_gap, 0.0, electrode_height, "z",
                                                            relaxation_fs)
    scat = float(concrete(scattering.sidewall_scattering_db_per_cm(wl, ridge, rough, "z")))
    vpi_l = float(concrete(ridge_vpi_l_v_cm(wl, electrode_gap, ridge, push_pull, electrode_height=electrode_height)))
    return PockelsLossBudget(absorption_db_per_cm=scattering.MATERIAL_ABSORPTION_DB_PER_CM,
                             scattering_db_per_cm=scat, metal_db_per_cm=float(metal), vpi_l_v_cm=vpi_l,
                             roughness=rough)
