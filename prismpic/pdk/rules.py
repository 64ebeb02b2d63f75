"""Design rules, in one place: used to validate cell parameters and by the KLayout DRC.

Figures are those of electron-beam-lithography TFLN processes (ridge width and gap
limited by the sidewall of an Ar-milled ridge; electrode clearance set by metal
absorption of the guided mode). Distances in µm.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DesignRules:
    """Minimum dimensions of the platform (µm)."""

    min_ridge_width: float = 0.25  # inverse-taper tips of edge couplers go this narrow
    max_ridge_width: float = 10.0
    min_ridge_gap: float = 0.15  # coupler gaps; the seed's rings use 0.2–0.3
    min_bend_radius: float = 10.0  # below this the 300 nm-etched ridge radiates into the slab
    min_slab_enclosure: float = 1.0  # LN_SLAB beyond LN_RIDGE
    min_metal_width: float = 2.0
    min_metal_space: float = 2.0
    min_metal_to_ridge: float = 1.0  # electrode/heater edge to ridge edge
    min_pad_size: float = 50.0
    min_pcm_width: float = 0.2
    max_electrode_voltage_v: float = 200.0  # air/oxide breakdown across a ~5 µm gap with margin


RULES = DesignRules()
