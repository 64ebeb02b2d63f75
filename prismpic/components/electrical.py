"""Electrical cells: pads, pad arrays, electrode traces and heaters, for routing voltage lines.

These cells carry no light, so they have no SAX model and are not ``Device`` entries:
``DEVICES`` stays empty and ``CELLS`` lists them for the PDK. Their ports are ``e1..``
(port_type "electrical") on the ELECTRODE layer, so ``gf.routing.route_single_electrical``
and ``route_bundle_electrical`` with ``cross_section="xs_metal"`` connect them to the
electrode ports of modulators and rings.
"""

from __future__ import annotations

from prismpic.checks import check_layout_length, check_positive, check_range
from prismpic.lazy_imports import gf, gf_cell
from prismpic.pdk import layers
from prismpic.pdk.activation import platform_cell
from prismpic.pdk.cross_sections import get_cross_section
from prismpic.pdk.rules import RULES

_SIDES = ((180, (-1, 0)), (90, (0, 1)), (0, (1, 0)), (270, (0, -1)))  # e1 west, e2 north, e3 east, e4 south


def _check_pad(size, opening_margin):
    check_range("opening_margin", opening_margin, 0.0, 100.0, unit="µm")
    check_range("size", size, RULES.min_pad_size + 2 * opening_margin, 1000.0, unit="µm")


@platform_cell
@gf_cell
def pad(size: float = 80.0, opening_margin: float = 5.0) -> gf.Component:
    """Square bond/probe pad: ELECTRODE metal with a PAD (passivation) opening inside.

    Args:
        size: side of the metal square (µm); the opening, size − 2·opening_margin, must be ≥ 50 µm.
        opening_margin: metal left around the opening (µm).

    Ports e1 (west), e2 (north), e3 (east), e4 (south) on the metal edges, width ``size``.

    .. code::

         ______e2______
        |  __________  |
        | |   PAD    | |
     e1 | |          | | e3
        | |__________| |
        |______________|
              e4
    """
    _check_pad(size, opening_margin)
    c = gf.Component()
    h = size / 2
    c.add_polygon([(-h, -h), (h, -h), (h, h), (-h, h)], layer=layers.LAYER.ELECTRODE)
    o = h - opening_margin
    c.add_polygon([(-o, -o), (o, -o), (o, o), (-o, o)], layer=layers.LAYER.PAD)
    for i, (orientation, (dx, dy)) in enumerate(_SIDES, start=1):
        c.add_port(
            f"e{i}", center=(dx * h, dy * h), width=size, orientation=orientation, layer=layers.LAYER.ELECTRODE,
            port_type="electrical",
        )
    c.info["size"] = size
    c.info["opening"] = size - 2 * opening_margin
    return c


@platform_cell
@gf_cell
def pad_array(
    columns: int = 4,
    rows: int = 1,
    pitch: float = 150.0,
    size: float = 80.0,
    opening_margin: float = 5.0,
    orientation: float = 270.0,
) -> gf.Component:
    """Rectangular array of pads, centred on the origin.

    Args:
        columns: pads along x.
        rows: pads along y.
        pitch: centre-to-centre spacing in x and y (µm); pads are ≥ 2 µm apart.
        size: pad metal side (µm).
        opening_margin: metal around each PAD opening (µm).
        orientation: direction the exported ports face (0, 90, 180 or 270 degrees).

    Ports e1..eN, one per pad (row by row from the bottom, left to right within a row),
    on the pad edge facing ``orientation``.
    """
    if not isinstance(columns, int) or not isinstance(rows, int) or columns < 1 or rows < 1:
        raise ValueError(f"columns = {columns!r}, rows = {rows!r} must be integers ≥ 1")
    _check_pad(size, opening_margin)  # before the pitch, whose range follows the size
    check_range("pitch", pitch, size + RULES.min_metal_space, 1e5, unit="µm")
    if orientation not in (0, 90, 180, 270):
        raise ValueError(f"orientation = {orientation!r} is not one of [0, 90, 180, 270]")
    side = {180: "e1", 90: "e2", 0: "e3", 270: "e4"}[int(orientation)]
    cell = pad(size=size, opening_margin=opening_margin)
    c = gf.Component()
    x0 = -(columns - 1) * pitch / 2
    y0 = -(rows - 1) * pitch / 2
    n = 0
    for j in range(rows):
        for i in range(columns):
            ref = c << cell
            ref.dmove((x0 + i * pitch, y0 + j * pitch))
            n += 1
            c.add_port(f"e{n}", port=ref.ports[side])
    return c


@platform_cell
@gf_cell
def electrode_trace(length: float = 100.0, width: float = 10.0) -> gf.Component:
    """Straight ELECTRODE line (``xs_metal``).

    Args:
        length: length (µm).
        width: line width (µm), ≥ the minimum metal width.

    .. code::

        e1 ══════════════ e2
    """
    check_layout_length("length", length)
    xs = get_cross_section("xs_metal", width=width)
    c = gf.path.straight(length=length).extrude(xs)
    c.info["length"] = length
    return c


@platform_cell
@gf_cell
def heater(
    length: float = 100.0,
    width: float = 3.0,
    contact_size: float = 10.0,
    sheet_resistance_ohm_sq: float = 10.0,
) -> gf.Component:
    """Straight resistive heater (HEATER) between two ELECTRODE contacts joined by VIAs.

    Args:
        length: heater length between the contacts (µm).
        width: heater width (µm).
        contact_size: side of each square contact (µm).
        sheet_resistance_ohm_sq: sheet resistance of the heater film (Ω/□); the default
            is typical of a ~0.2 µm TiN film † (it sets only ``info["resistance_ohm"]``).

    ``info["resistance_ohm"]`` = R□ · length / width. The heater may run over a ridge
    (it sits above the cladding); its contacts must stay ≥ 1 µm from any ridge.

    .. code::

         ____                    ____
        |e1  |==================|  e2|
        |____|     length       |____|
    """
    check_layout_length("length", length)
    check_range("width", width, RULES.min_metal_width, 100.0, unit="µm")
    check_range("contact_size", contact_size, max(RULES.min_metal_width, float(width)), 1000.0, unit="µm")
    check_positive("sheet_resistance_ohm_sq", sheet_resistance_ohm_sq, unit="Ω/□")
    c = gf.Component()
    w = width / 2
    c.add_polygon([(0, -w), (length, -w), (length, w), (0, w)], layer=layers.LAYER.HEATER)
    h = contact_size / 2
    via = max(h - 1.0, RULES.min_metal_width / 2)
    for name, xc, orientation in (("e1", -h, 180), ("e2", length + h, 0)):
        box = [(xc - h, -h), (xc + h, -h), (xc + h, h), (xc - h, h)]
        c.add_polygon(box, layer=layers.LAYER.ELECTRODE)
        c.add_polygon(box, layer=layers.LAYER.HEATER)
        c.add_polygon([(xc - via, -via), (xc + via, -via), (xc + via, via), (xc - via, via)], layer=layers.LAYER.VIA)
        c.add_port(
            name, center=(xc + (h if orientation == 0 else -h), 0), width=contact_size, orientation=orientation,
            layer=layers.LAYER.ELECTRODE, port_type="electrical",
        )
    c.info["resistance_ohm"] = sheet_resistance_ohm_sq * length / width
    return c


@platform_cell
@gf_cell
def wire_straight(length: float = 10.0, cross_section: str = "xs_metal", width: float | None = None) -> gf.Component:
    """Straight metal wire, the ``straight`` that gdsfactory's electrical bundle router needs.

    Args:
        length: length (µm).
        cross_section: metal cross-section name ("xs_metal" or "xs_heater").
        width: wire width (µm); None takes the cross-section's.
    """
    check_layout_length("length", length)
    xs = get_cross_section(cross_section, **({} if width is None else {"width": width}))
    return gf.path.straight(length=length).extrude(xs)


@platform_cell
@gf_cell
def wire_corner(cross_section: str = "xs_metal", width: float | None = None, radius: float | None = None) -> gf.Component:
    """Square 90° metal corner (ports e1 west, e2 north), the ``bend`` of electrical bundle routes.

    Args:
        cross_section: metal cross-section name.
        width: wire width (µm); None takes the cross-section's.
        radius: ignored (a corner has none); accepted for the router's call.
    """
    xs = get_cross_section(cross_section, **({} if width is None else {"width": width}))
    a = xs.width / 2
    c = gf.Component()
    c.add_polygon([(-a, -a), (a, -a), (a, a), (-a, a)], layer=xs.layer)
    c.add_port("e1", center=(-a, 0), width=xs.width, orientation=180, layer=xs.layer, port_type="electrical")
    c.add_port("e2", center=(0, a), width=xs.width, orientation=90, layer=xs.layer, port_type="electrical")
    return c


DEVICES: dict = {}
CELLS = {
    "pad": pad,
    "pad_array": pad_array,
    "electrode_trace": electrode_trace,
    "heater": heater,
    "wire_straight": wire_straight,
    "wire_corner": wire_corner,
}
