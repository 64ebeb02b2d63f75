"""Layer map and layer views of the TFLN platform, and the KLayout files shipped with the package.

The package data folder (``prismpic/pdk/data``) ships three files generated from this module:

- ``prismpic.lyp``: KLayout layer properties (colours, fills, names ``LN_RIDGE 1/0``); open a prismpic GDS
  with ``klayout -l prismpic.lyp chip.gds``;
- ``prismpic.lyt``: a KLayout technology ``prismpic`` (1 nm database unit) that loads ``prismpic.lyp``: copy
  both files into ``~/.klayout/tech/prismpic/`` and choose the technology in KLayout;
- ``layers.yaml``: the same views in gdsfactory's YAML form (``gf.technology.LayerViews(filepath=...)``).

``prismpic pdk-files --install`` regenerates them in the package (``write_pdk_files``); ``--out DIR``
writes them elsewhere. A test checks that the shipped files equal a fresh regeneration.

``LAYER`` is a gdsfactory ``LayerEnum``: it is made at its first use (``from prismpic.pdk.layers import LAYER``,
``layers.LAYER``), so that importing a model, which sits in the module of the cell drawn on these layers, does
not import gdsfactory.
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from prismpic.fileio import atomic_path, write_text_atomic

if TYPE_CHECKING:
    from gdsfactory.technology import LayerViews

Layer = tuple[int, int]

DATA_DIR = Path(__file__).parent / "data"
TECH_NAME = "prismpic"
DBU_UM = 0.001  # database unit (µm): gdsfactory's default, the 1 nm grid the cells snap to
LYP_NAME, LYT_NAME, YAML_NAME = "prismpic.lyp", "prismpic.lyt", "layers.yaml"
PDK_FILES = (LYP_NAME, LYT_NAME, YAML_NAME)


def __getattr__(name: str):
    if name == "LAYER":  # made once, at the first use (PEP 562), then a module attribute
        globals()["LAYER"] = layer_enum()  # later reads find it without this function
        return globals()["LAYER"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def layer_enum():
    """The platform's layers as a gdsfactory ``LayerEnum`` (imports gdsfactory); ``LAYER`` is this, made once."""
    import gdsfactory as gf

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

    LAYER.__module__ = __name__
    return LAYER


COLORS = {  # fill and frame colour of each layer's view
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
OUTLINED = frozenset({"FLOORPLAN", "DEVREC", "WAFER", "LABEL"})  # drawn hollow (frame only)


def get_layer_views() -> LayerViews:
    """Return gdsfactory layer views (colours, fills, names ``NAME layer/datatype``) for every layer."""
    from gdsfactory.technology import LayerView, LayerViews

    views = {}
    for name, color in COLORS.items():
        views[name] = LayerView(
            name=name,
            layer=getattr(layer_enum(), name),
            color=color,
            hatch_pattern="hollow" if name in OUTLINED else "dotted",
            visible=name != "WAFER",
            layer_in_name=True,
        )
    return LayerViews(layer_views=views)


def write_lyp(path: str | Path) -> Path:
    """Write the KLayout layer-properties file (atomically) and return its path."""
    path = Path(path)
    with atomic_path(path, "lyp") as tmp:
        get_layer_views().to_lyp(tmp)
    return path


def lyt_xml() -> str:
    """The KLayout technology file (``.lyt``): name, description, database unit and the layer properties file.

    Written by hand rather than by ``klayout.db.Technology.to_xml()``, whose reader-option defaults change
    with the KLayout version; KLayout fills the missing elements with its defaults when it reads the file.
    """
    root = ET.Element("technology")
    for tag, text in (("name", TECH_NAME),
                      ("description", "prismpic thin-film lithium niobate (X-cut TFLN) platform"),
                      ("dbu", f"{DBU_UM:g}"),
                      ("layer-properties_file", LYP_NAME),
                      ("add-other-layers", "true")):
        ET.SubElement(root, tag).text = text
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_lyt(path: str | Path) -> Path:
    """Write the KLayout technology file (atomically) and return its path."""
    return write_text_atomic(path, lyt_xml(), what="lyt")


def write_layers_yaml(path: str | Path) -> Path:
    """Write the layer views as gdsfactory YAML (``LayerViews.to_yaml``, atomically) and return its path."""
    path = Path(path)
    with atomic_path(path, "layers.yaml") as tmp:
        get_layer_views().to_yaml(tmp)
    return path


def write_pdk_files(folder: str | Path = DATA_DIR) -> list[Path]:
    """Write ``prismpic.lyp``, ``prismpic.lyt`` and ``layers.yaml`` into ``folder`` (an existing folder; default
    the package data folder), each atomically; return their paths."""
    folder = Path(folder)
    return [write_lyp(folder / LYP_NAME), write_lyt(folder / LYT_NAME), write_layers_yaml(folder / YAML_NAME)]
