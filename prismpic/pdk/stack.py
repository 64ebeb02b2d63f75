"""The layer stack: X-cut LN film on buried oxide on Si, SiO2 cladding."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # gdsfactory loads only when a LayerStack is built: the constants below stay cheap to import
    from gdsfactory.technology import LayerStack

RIDGE_WIDTH = 1.4  # µm, the seed's ridge top width as drawn (S1-10)
RING_RADIUS = 20.0  # µm, the seed's ring (S1-10)
FILM_THICKNESS = 0.6  # µm, X-cut LN film (seed S1-10: 1.4 × 0.6 µm ridge)
# µm, ridge etch, leaving a 0.25 µm slab. At 0.30 µm the mode solver puts the bend radiation
# of a 20 µm ring at ≈ 170 dB/cm (radiation-limited Q ≈ 3e3, below the seed's measured 12,500);
# at 0.35 µm it is ≈ 7 dB/cm (Q_rad ≈ 6e4), ring n_g ≈ 2.29 (FSR ≈ 8.35 nm at R = 20 µm, seed: 8.3 nm).
ETCH_DEPTH = 0.35
BOX_THICKNESS = 4.7  # µm, buried thermal oxide (typical commercial LNOI wafers)
CLAD_THICKNESS = 1.5  # µm, PECVD SiO2 above the ridge
METAL_THICKNESS = 0.8  # µm, Au electrodes
# Sidewall angle from the horizontal (90° = vertical). Dry-etched TFLN ridges are sloped: 76.5° (13.5° from
# the vertical) in a TFLN foundry's technology description for its 400 nm X-cut platform (Luxtelligence
# LNOI400, as described for Tidy3D/PhotonForge), ≈ 60–80° across published processes. The default is that
# foundry figure; the dispersion tables cover 60–90°, and `prismpic.pdk.process` gives its spread (σ 3°).
FOUNDRY_SIDEWALL_ANGLE_DEG = 76.5
SIDEWALL_ANGLE_DEG = FOUNDRY_SIDEWALL_ANGLE_DEG
# Cladding above the ridge: "sio2" (PECVD oxide, CLAD_THICKNESS) or "air" (many published TFLN rings).
CLADDING = "sio2"
CLADDINGS = ("sio2", "air")
# Propagation loss of the models' ridges: None = from physics (LN absorption + sidewall scattering at the default
# roughness, ``pdk.scattering``: σ calibrated so the Luxtelligence lnoi400 rib shows its PDK's 0.2 dB/cm; 0.142
# dB/cm on the default 1.4 µm ridge). A number (dB/cm) overrides it; the best reported is 0.027 dB/cm (Zhang et
# al., Optica 4, 1536 (2017)).
LOSS_DB_PER_CM = None


def check_film(film_thickness: float, etch_depth: float) -> None:
    """Raise ValueError unless 0 < etch_depth < film_thickness."""
    from prismpic.checks import check_positive, check_range, concrete  # NumPy: not at import (``--version``)

    check_positive("film_thickness", film_thickness, unit="µm")
    film = concrete(film_thickness)
    if film is not None and film.ndim == 0:
        check_range("etch_depth", etch_depth, 0.0, float(film), unit="µm", lo_open=True, hi_open=True)


def get_layer_stack(film_thickness: float = FILM_THICKNESS, etch_depth: float = ETCH_DEPTH,
                    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG, cladding: str = CLADDING) -> LayerStack:
    """Return the gdsfactory LayerStack of the process (µm; angle from the horizontal, degrees).

    The ridge level carries the sidewall slope as gdsfactory counts it (from the vertical: 90° − angle),
    anchored at the ridge top (``width_to_z = 1``: the drawn width is the top width, as the models take
    it), so 3-D views and FDTD/mode exports see the ridge the models use; the slab level covers the
    widening below the etch. The cladding level holds SiO2 or air above the film.
    """
    from gdsfactory.technology import LayerLevel, LayerStack, LogicalLayer

    from prismpic.checks import check_choice, check_range
    from prismpic.pdk.layers import LAYER

    check_film(film_thickness, etch_depth)
    check_range("sidewall_angle_deg", sidewall_angle_deg, 45.0, 90.0, unit="°")
    check_choice("cladding", cladding, CLADDINGS)
    slab = film_thickness - etch_depth
    return LayerStack(
        layers=dict(
            substrate=LayerLevel(
                layer=LogicalLayer(layer=LAYER.WAFER), thickness=10.0, zmin=-10.0 - BOX_THICKNESS, material="si"
            ),
            box=LayerLevel(
                layer=LogicalLayer(layer=LAYER.WAFER), thickness=BOX_THICKNESS, zmin=-BOX_THICKNESS, material="sio2"
            ),
            slab=LayerLevel(layer=LogicalLayer(layer=LAYER.LN_SLAB), thickness=slab, zmin=0.0, material="ln"),
            ridge=LayerLevel(
                layer=LogicalLayer(layer=LAYER.LN_RIDGE),
                thickness=film_thickness,
                zmin=0.0,
                material="ln",
                sidewall_angle=90.0 - sidewall_angle_deg,
                width_to_z=1.0,
            ),
            clad=LayerLevel(
                layer=LogicalLayer(layer=LAYER.WAFER), thickness=film_thickness + CLAD_THICKNESS, zmin=0.0,
                material=cladding, mesh_order=10,
            ),
            pcm=LayerLevel(layer=LogicalLayer(layer=LAYER.PCM), thickness=0.03, zmin=film_thickness, material="gsst"),
            electrode=LayerLevel(
                layer=LogicalLayer(layer=LAYER.ELECTRODE), thickness=METAL_THICKNESS, zmin=slab, material="au"
            ),
            heater=LayerLevel(
                layer=LogicalLayer(layer=LAYER.HEATER),
                thickness=0.2,
                zmin=film_thickness + CLAD_THICKNESS,
                material="tin",
            ),
            ge=LayerLevel(layer=LogicalLayer(layer=LAYER.GE), thickness=0.5, zmin=film_thickness, material="ge"),
            soa=LayerLevel(
                layer=LogicalLayer(layer=LAYER.SOA), thickness=2.0, zmin=film_thickness + 0.1, material="inp"
            ),
        )
    )
