"""``RingDesign``: a microring's geometry, electrode layout and loss figures as the one value the ring physics takes.

The ring cells and models keep keyword arguments (gdsfactory's and SAX's convention) and build a ``RingDesign``
once (``from_params``); ``ring_physics``, the bank, the crosstalk and the calibration pass it on. A JAX pytree:
its numbers are leaves (traced, differentiated, vmapped over radius in a bank); ``gap_drop`` and
``electrode_height`` and ``loss_db_per_cm`` may be None (then static: an all-pass ring, tuning plates on the slab,
loss from physics).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import jax

from prismpic.pdk.ridge_stack import DEFAULT as DEFAULT_RIDGE
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.stack import LOSS_DB_PER_CM, RING_RADIUS

# Default bus–ring gap: the lower end of the seed's 0.2–0.3 µm (S1-11). With equal gaps the
# add-drop is then strongly over-coupled against the intrinsic loss (κ² ≫ 1 − a²): drop
# loss and through extinction are near their critical-coupling optimum, and the loaded Q
# is the closest the seed's range gets to its Q ≈ 10⁴ (see ``ring_specs``, ``critical_gap``).
GAP = 0.2
ELECTRODE_GAP = 6.0  # µm, floating inner disk to plate, at the couplers
ELECTRODE_COVERAGE = 0.5  # fraction of the circumference under the two plates


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, kw_only=True)
class RingDesign:
    """A ring resonator beside one or two straight buses (µm, dB/cm, dB).

    Args:
        radius: ring radius at the ridge centre (µm).
        gap: input bus-to-ring edge gap at the closest point (µm).
        gap_drop: drop bus gap (µm); None: equal to ``gap`` (an all-pass ring reads ``gap`` only).
        electrode_gap: floating inner disk to tuning plate at the couplers (µm).
        electrode_coverage: fraction of the circumference under the two plates.
        electrode_height: None (plates on the slab) or their height above the film (µm, on the SiO2 cladding).
        loss_db_per_cm: propagation loss of ring and buses (dB/cm); bend radiation is added. None: from physics
            (absorption and sidewall scattering at the default roughness, ``scattering.propagation_loss_db_per_cm``).
        coupler_loss_db: excess loss per coupler pass (dB).
        dneff, dng: effective- and group-index corrections of a calibrated ring (``ring_physics.index_correction``;
            0 for a designed ring).
        ridge: the ridge of ring and buses and its stack (``RidgeStack``).
    """

    radius: float = RING_RADIUS
    gap: float = GAP
    gap_drop: float | None = None
    electrode_gap: float = ELECTRODE_GAP
    electrode_coverage: float = ELECTRODE_COVERAGE
    electrode_height: float | None = None
    loss_db_per_cm: float | None = LOSS_DB_PER_CM
    coupler_loss_db: float = 0.0
    dneff: float = 0.0
    dng: float = 0.0
    ridge: RidgeStack = DEFAULT_RIDGE

    @classmethod
    def from_params(cls, params: Mapping) -> RingDesign:
        """The design named by a ring model's keyword arguments (``ring_add_drop_model``'s names: radius, gap,
        width, film_thickness, …); keys of the call (voltage_v, delta_t_k) or the layout only (bus_length,
        electrode_width) are the caller's; absent ones take the defaults."""
        own = {k: params[k] for k in FIELDS if k in params and k != "ridge"}
        return cls(**own, ridge=RidgeStack.from_params(params))

    def replace(self, **changes) -> RingDesign:
        """A copy with ``changes`` (field names as keywords)."""
        return dataclasses.replace(self, **changes)

    @property
    def drop_gap(self):
        """The drop bus gap (µm): ``gap_drop``, or ``gap`` when that is None."""
        return self.gap if self.gap_drop is None else self.gap_drop


FIELDS = tuple(f.name for f in dataclasses.fields(RingDesign))
DEFAULT = RingDesign()
