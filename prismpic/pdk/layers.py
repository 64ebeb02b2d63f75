"""Layer map and layer views (KLayout .lyp) of the TFLN platform."""

from __future__ import annotations

from pathlib import Path

import gdsfactory as gf
from gdsfactory.technology import LayerView, LayerViews

Layer = tuple[int, int]


class LAYER(gf.LayerEnum):
    """Layers of the X-cut TFLN platform (GDS layer, datatype)."""

    layout = gf.constant(gf.kcl.layout)

    LN_RIDGE: Layer = (1, 0)  # unetched LN: the ridge
    LN_SLAB: Layer = (2, 0)  # partially etched LN left as slab around ridges
    ELECTRODE: Layer = (21, 0)  # Au electrodes (Pockels tuning, MZM GSG lines)
    HEATER: Layer = (22, 0)  # resistive heater metal (PCM set/reset, trims)
    PCM: Layer = (30, 0)  # phase-change patch (GSST)
    SOA: Layer = (40, 0)  # heterogeneously bonded III-V gain/absorber region
    GE: Layer = (41, 0)  # Ge photodetector absorber
    VIA: Layer = (44, 0)  # via from electrode/heater metal to pad metal
    PAD: Layer = (46, 0)  # pad opening in the passivation
    FLOORPLAN: Layer = (64, 0)  # die and cell floorplan
    LABEL: Layer = (66, 0)  # text labels
    DEVREC: Layer = (68, 0)  # device recognition
    WAFER: Layer = (999, 0)


_COLORS = {
    "LN_RIDGE": "#2f7fff",
    "LN_SLAB": "#9fc5ff",
    "ELECTRODE": "#ffbf00",
    "HEATER": "#e0561b",
    "PCM": "#8b2fc9",
    "SOA": "#c90000",
    "GE": "#3f9f3f",
    "VIA": "#404040",
    "PAD": "#a0a000",
    "FLOORPLAN": "#c0c0c0",
    "LABEL": "#000000",
    "DEVREC": "#ff00ff",
    "WAFER": "#f0f0f0",
}


def get_layer_views() -> LayerViews:
    """Return gdsfactory layer views (colours, fills) for every layer."""
    views = {}
    for name, color in _COLORS.items():
        hollow = name in {"FLOORPLAN", "DEVREC", "WAFER", "LABEL"}
        views[name] = LayerView(
            layer=getattr(LAYER, name),
            color=color,
            hatch_pattern="hollow" if hollow else "dotted",
            visible=name != "WAFER",
        )
    return LayerViews(layer_views=views)


def write_lyp(path: str | Path) -> Path:
    """Write the KLayout layer-properties file and return its path."""
    path = Path(path)
    get_layer_views().to_lyp(path)
    return path
