"""A GDS drawn to PNG with the PDK's layer colours, without a display (KLayout's ``LayoutView``).

The layer properties are the PDK's ``.lyp`` (``prismpic.pdk.layers.write_lyp``, the file shipped as package
data); ``render_gds_png`` loads a GDS and that ``.lyp`` into a headless ``klayout.lay.LayoutView``, shows every
hierarchy level, fits the die and writes the PNG (with KLayout's scale bar).
"""

from __future__ import annotations

from pathlib import Path

from prismpic.fileio import write_atomic
from prismpic.pdk.layers import get_layer_views

BACKGROUND = "#ffffff"
MARGIN = 0.02  # white border around the die, a fraction of its larger side


def render_gds_png(gds: str | Path, png: str | Path, lyp: str | Path, *, width_px: int = 1000,
                   oversampling: int = 2) -> dict:
    """Draw the top cell of ``gds`` with the layer properties ``lyp`` into ``png``.

    The height follows the die's aspect ratio (plus a ``MARGIN`` border); ``oversampling`` anti-aliases thin
    waveguides. Returns ``{"width_px", "height_px", "layers"}``, ``layers`` the legend: name, (layer, datatype)
    and fill colour of every layer view that has shapes in the drawing.
    """
    import klayout.lay as lay

    view = lay.LayoutView()
    view.set_config("background-color", BACKGROUND)
    for level in range(3):  # grid lines off, KLayout's scale bar (drawn with the grid) kept
        view.set_config(f"grid-style{level}", "invisible")
    view.set_config("text-visible", "false")
    view.load_layout(str(gds), False)
    view.load_layer_props(str(lyp))
    view.max_hier()
    die = view.cellview(0).cell.dbbox()
    box = die.enlarged(MARGIN * max(die.width(), die.height()))
    height_px = max(1, round(width_px * box.height() / box.width())) if box.width() > 0 else width_px
    view.resize(width_px, height_px)
    view.zoom_box(box)
    pixels = view.get_pixels_with_options(width_px, height_px, 0, oversampling, 0.0)
    data = pixels.to_png_data()
    names = {tuple(v.layer): name for name, v in get_layer_views().layer_views.items() if v.layer is not None}
    legend = []
    for node in view.each_layer():
        key = (node.source_layer, node.source_datatype)
        if node.visible and not node.bbox().empty():
            legend.append({"name": names.get(key, node.source), "layer": list(key),
                           "color": f"#{node.fill_color & 0xFFFFFF:06x}"})
    view.destroy()
    write_atomic(png, lambda f: f.write(data), binary=True)
    return {"width_px": width_px, "height_px": height_px, "layers": legend}
