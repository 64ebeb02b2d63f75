"""Layout side of layout versus schematic: the devices, ports and connections of a written GDS.

A *device* is an instance of a cell of ``prismpic.components`` (``device_functions``: every ``platform_cell``
there, optical and electrical: rings, waveguides, detectors, pads, traces). The walk from the checked cell down
the hierarchy stops at the first device on each branch, as the schematic side (``lvs.schematic_netlist``) does.
A device cell's function, settings and ports come from, in this order:

1. the GDS's own cell metadata, which ``Component.write_gds`` writes unless ``with_metadata=False``
   (kfactory's ``kfactory:function_name``, ``kfactory:settings``, ``kfactory:ports:N``; a port's width is its
   cross-section's, ``kfactory:cross_section:NAME``);
2. the schematic's cell of the same name (``library``), once the GDS cell is shown to hold the same polygons
   on every layer (an XOR of the two, slivers up to ``SLIVER_DBU`` thick ignored; a cell drawn differently under
   the schematic's name is a mismatch);
3. neither: the function is read from the cell name (gdsfactory names a cell ``{function}_{settings}``), the
   settings from its ``{abbreviation}{value}`` tokens where they are not hashed away; the ports are unknown.

Why not the polygons: the dies are written without metadata (same cell, same bytes), prismpic's PDK has no pin
layer, and a waveguide end is not a port by geometry alone (a pad is edges all round, a ring touches its
bounding box, a taper's tip is narrower than its port). A cell name proven by its polygons is exact.

Two ports of different devices are connected when they lie within ``tol_dbu`` database units of each other,
are of one kind (optical, electrical), face opposite directions and have equal widths (± 1 database unit).
Ports that meet without facing, with unequal widths, or three or more at one point are ``contacts``: reported,
not connected.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

import klayout.db as kdb

from prismpic.pdk.layers import LAYER

ANGLE_TOL_DEG = 1e-6
SLIVER_DBU = 1  # XOR slivers this thin (database units, each side) are the GDS writer's: a polygon with a hole
# is written cut open, and the ring's 640-point annulus comes back with 1 nm wide triangles (26 nm² per ring)
HASHED_NAME_MIN = 60  # gdsfactory/kfactory shorten long cell names to a prefix + "_" + 8 hex digits


@dataclass(frozen=True)
class Pin:
    """A device port.

    Attributes:
        x, y: position (µm) in the checked cell's coordinates (a library cell's own, for its pins).
        angle: direction the port faces (degrees, [0, 360)).
        width: port width (µm).
        kind: gdsfactory's ``port_type`` ("optical", "electrical").
    """

    x: float
    y: float
    angle: float
    width: float
    kind: str

    def transformed(self, t: kdb.DCplxTrans) -> Pin:
        """This pin under the placement ``t`` (mirror about x, rotate, move; magnification 1)."""
        p = t * kdb.DPoint(self.x, self.y)
        a = (t.angle + (-self.angle if t.is_mirror() else self.angle)) % 360.0
        return Pin(p.x, p.y, round(a, 9) % 360.0, self.width, self.kind)


@dataclass
class Device:
    """One device instance, flattened.

    Attributes:
        name: schematic: instance path (``row0/ring_add_drop2``); layout: ``function@(x, y)``.
        function: the cell function (``ring_add_drop``).
        cell: GDS cell name (layout side), or None.
        settings: the cell's parameters; None when not known.
        trans: placement in the checked cell (µm, degrees).
        pins: ports by name in the checked cell's coordinates; None when not known.
        source: where cell data came from: "metadata", "library", "name" (the cell name only), "netlist".
        geometry_diff: (layer, XOR area µm²) where the GDS cell differs from the library cell of its name.
    """

    name: str
    function: str
    cell: str | None
    settings: dict | None
    trans: kdb.DCplxTrans
    pins: dict[str, Pin] | None = None
    source: str = "netlist"
    geometry_diff: tuple[tuple[str, float], ...] = ()


@dataclass
class Netlist:
    """A flat netlist of devices.

    Attributes:
        devices: by name.
        connections: (device, port) → (device, port), both directions.
        ports: top-level port name → (device, port); None when the layout does not name its ports.
        contacts: ports that meet without connecting: ((device, port), ...), why.
        notes: what was not checked and why.
    """

    devices: dict[str, Device]
    connections: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    ports: dict[str, tuple[str, str]] | None = None
    contacts: list[tuple[tuple[tuple[str, str], ...], str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LibraryCell:
    """A schematic cell the GDS may instantiate by name: function, settings, pins (its own coordinates) and
    its polygons (``layout``, ``cell_index``)."""

    function: str
    settings: dict
    pins: dict[str, Pin]
    layout: kdb.Layout
    cell_index: int


# ---------------------------------------------------------------------------- devices
@functools.cache
def device_cells() -> dict[str, object]:
    """Every cell function of ``prismpic.components`` (a ``platform_cell`` defined there), by name."""
    from prismpic.components.registry import MODULES

    found = {}
    for module in MODULES:
        mod = importlib.import_module(f"prismpic.components.{module}")
        for obj in vars(mod).values():
            if getattr(obj, "platform_cell", False) and getattr(obj, "__module__", None) == mod.__name__:
                found[obj.__name__] = obj
    return found


def device_functions() -> frozenset[str]:
    """The names of the device cell functions (``device_cells``): where the hierarchy walks stop."""
    return frozenset(device_cells())


def library_from_component(component) -> dict[str, LibraryCell]:
    """The device cells under ``component`` (a gdsfactory Component), by cell name, with their pins."""
    devices = device_functions()
    found: dict[str, LibraryCell] = {}
    seen: set[int] = set()

    def walk(cell):
        for inst in cell.insts:
            child = inst.cell
            if child.cell_index() in seen:
                continue
            seen.add(child.cell_index())
            if child.function_name in devices:
                pins = {p.name: Pin(float(p.dcenter[0]), float(p.dcenter[1]), float(p.orientation) % 360.0,
                                    float(p.width), str(p.port_type)) for p in child.ports}
                found[child.name] = LibraryCell(child.function_name, dict(child.settings), pins, child.kcl.layout,
                                                child.cell_index())
            else:
                walk(child)

    walk(component)
    return found


# ---------------------------------------------------------------------------- GDS
def read_gds(path, what: str = "GDS") -> kdb.Layout:
    """The layout in ``path`` (GDS or OASIS); ValueError naming ``what`` and the file otherwise."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"{what} = {str(path)!r} does not exist")
    if not path.is_file():
        raise ValueError(f"{what} = {str(path)!r} is not a file")
    layout = kdb.Layout()
    try:
        layout.read(str(path))
    except RuntimeError as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ValueError(f"{what} = {str(path)!r} cannot be read as GDS or OASIS ({reason})") from None
    if layout.cells() == 0:
        raise ValueError(f"{what} = {str(path)!r} holds no cells")
    return layout


def name_function(name: str, functions) -> str | None:
    """The longest of ``functions`` that ``name`` is built from (``name`` or ``name_...``), else None."""
    best = None
    for f in functions:
        if (name == f or name.startswith(f + "_")) and (best is None or len(f) > len(best)):
            best = f
    return best


def cell_function(cell: kdb.Cell, functions) -> str | None:
    """A GDS cell's function: its metadata's, else read from its name (``name_function``)."""
    meta = cell.meta_info_value("kfactory:function_name")
    return str(meta) if meta else name_function(cell.name, functions)


def find_cell(layout: kdb.Layout, name: str, function: str | None, what: str) -> kdb.Cell:
    """The cell ``name`` of ``layout``, else its only cell made by ``function``; ValueError otherwise."""
    cell = layout.cell(name)
    if cell is not None:
        return cell
    if function:
        candidates = [c for c in layout.each_cell() if cell_function(c, (function,)) == function]
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise ValueError(f"{what} holds {len(candidates)} {function!r} cells and none named {name!r}: "
                             f"{sorted(c.name for c in candidates)[:4]}")
    tops = sorted(c.name for c in layout.top_cells())
    raise ValueError(f"{what} has no cell {name!r}" + (f" nor any {function!r} cell" if function else "")
                     + f"; its top cells: {tops[:4]}")


def _value_from_name(text: str):
    """A setting value as gdsfactory writes it into a cell name (20p05, m0p2, None, True), else ``...``."""
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    m = re.fullmatch(r"(m?)(\d+)(?:p(\d+))?", text)
    if m is None:
        return ...
    value = float(f"{m[2]}.{m[3] or 0}")
    return -value if m[1] else value


def settings_from_name(name: str, function: str) -> dict:
    """The settings readable in a cell name ``{function}_{ABBR}{value}_...`` (parameter order, numbers, None and
    booleans; not lists or text, nor what a hashed tail hides)."""
    fn = device_cells().get(function)
    if fn is None or not name.startswith(function + "_"):
        return {}
    from kfactory.serialization import join_first_letters

    params = [p for p in inspect.signature(fn).parameters if p not in ("args", "kwargs")]
    tokens = name[len(function) + 1:].split("_")
    if len(name) >= HASHED_NAME_MIN and re.fullmatch(r"[0-9a-f]{8}", tokens[-1]):
        tokens = tokens[:-2]  # the hash, and the token it may have cut
    out, i = {}, 0
    for tok in tokens:
        for j in range(i, len(params)):
            abbr = join_first_letters(params[j]).upper()
            value = _value_from_name(tok[len(abbr):]) if tok.startswith(abbr) else ...
            if value is not ...:
                out[params[j]] = value
                i = j + 1
                break
    return out


def metadata_pins(layout: kdb.Layout, cell: kdb.Cell) -> dict[str, Pin] | None:
    """The ports kfactory wrote into ``cell``'s metadata (its own coordinates), or None when it wrote none."""
    pins = {}
    for meta in cell.each_meta_info():
        if not meta.name.startswith("kfactory:ports:") or not isinstance(meta.value, dict):
            continue
        v = meta.value
        if isinstance(v.get("trans"), kdb.Trans):
            t = kdb.DCplxTrans(v["trans"].to_dtype(layout.dbu))
        elif isinstance(v.get("dcplx_trans"), kdb.DCplxTrans):
            t = v["dcplx_trans"]
        else:
            continue
        xs = layout.meta_info_value(f"kfactory:cross_section:{v.get('cross_section')}")
        if isinstance(xs, dict) and "width" in xs:
            width = xs["width"] * layout.dbu
        else:  # kfactory names a cross-section {enclosure}_{width in database units}
            tail = str(v.get("cross_section", "")).rsplit("_", 1)[-1]
            width = int(tail) * layout.dbu if tail.isdigit() else float("nan")
        pins[str(v.get("name"))] = Pin(t.disp.x, t.disp.y, round(t.angle, 9) % 360.0, width,
                                       str(v.get("port_type", "optical")))
    return pins or None


def geometry_diff(layout: kdb.Layout, cell: kdb.Cell, lib: LibraryCell) -> tuple[tuple[str, float], ...]:
    """(layer, XOR area µm²) for every layer where ``cell`` and the library cell hold different polygons."""
    ratio = lib.layout.dbu / layout.dbu
    scale = kdb.ICplxTrans(ratio, 0.0, False, 0, 0) if abs(ratio - 1.0) > 1e-12 else None
    layers = {}
    for ly, which in ((layout, 0), (lib.layout, 1)):
        for li in ly.layer_indexes():
            info = ly.get_info(li)
            layers.setdefault((info.layer, info.datatype), [None, None])[which] = li
    lib_cell = lib.layout.cell(lib.cell_index)
    out = []
    for (layer, datatype), (mine, theirs) in sorted(layers.items()):
        a = kdb.Region(cell.begin_shapes_rec(mine)) if mine is not None else kdb.Region()
        b = kdb.Region(lib_cell.begin_shapes_rec(theirs)) if theirs is not None else kdb.Region()
        if scale is not None:
            b.transform(scale)
        x = a ^ b
        if not x.sized(-SLIVER_DBU).is_empty():
            out.append((f"{layer}/{datatype}", x.area() * layout.dbu ** 2))
    return tuple(out)


@dataclass
class _CellData:
    function: str
    settings: dict | None
    pins: dict[str, Pin] | None
    source: str
    diff: tuple = ()


def _cell_data(layout, cell, function, library) -> _CellData:
    pins = metadata_pins(layout, cell)
    lib = (library or {}).get(cell.name)
    diff = geometry_diff(layout, cell, lib) if lib is not None else ()
    if pins is not None:
        settings = cell.meta_info_value("kfactory:settings")
        return _CellData(function, dict(settings) if isinstance(settings, dict) else None, pins, "metadata", diff)
    if lib is not None:
        return _CellData(lib.function, dict(lib.settings), dict(lib.pins), "library", diff)
    return _CellData(function, settings_from_name(cell.name, function) or None, None, "name")


def _instance_transforms(inst: kdb.Instance):
    """The placements (µm) of an instance, one per element of an array."""
    ci = inst.dcell_inst
    base = ci.dcplx_trans if ci.is_complex() else kdb.DCplxTrans(ci.trans)
    if not ci.is_regular_array():
        yield base
        return
    for ia in range(ci.na):
        for ib in range(ci.nb):
            yield kdb.DCplxTrans(ci.a * ia + ci.b * ib) * base


def layout_netlist(layout: kdb.Layout, top: kdb.Cell, library: dict[str, LibraryCell] | None = None,
                   tol_dbu: int = 1) -> Netlist:
    """The devices under ``top`` (a cell of ``layout``), their ports and connections (module docstring).

    Args:
        layout: the read GDS (``read_gds``).
        top: the cell checked; positions are in its coordinates.
        library: schematic cells by name (``library_from_component``), for cells without port metadata.
        tol_dbu: how far apart (database units) two ports may be and still meet.
    """
    functions = device_functions()
    cache: dict[int, _CellData | None] = {}
    devices: dict[str, Device] = {}
    stray: set[str] = set()
    ridge = layout.find_layer(LAYER.LN_RIDGE.layer, LAYER.LN_RIDGE.datatype)  # waveguides outside any device
    # are not checked: say so

    def data(cell):
        ci = cell.cell_index()
        if ci not in cache:
            lib = (library or {}).get(cell.name)
            function = lib.function if lib is not None else cell_function(cell, functions)
            cache[ci] = _cell_data(layout, cell, function, library) if function in functions else None
        return cache[ci]

    def walk(cell, trans):
        if ridge is not None and not cell.shapes(ridge).is_empty():
            stray.add(cell.name)
        for inst in cell.each_inst():
            child = layout.cell(inst.cell_index)
            for t in _instance_transforms(inst):
                at = trans * t
                d = data(child)
                if d is None:
                    walk(child, at)
                    continue
                name = f"{d.function}@({at.disp.x:.3f}, {at.disp.y:.3f})"
                while name in devices:
                    name += "'"
                pins = None if d.pins is None else {k: p.transformed(at) for k, p in d.pins.items()}
                devices[name] = Device(name, d.function, child.name, d.settings, at, pins, d.source, d.diff)

    walk(top, kdb.DCplxTrans())
    net = Netlist(devices)
    index = _connect(net, layout.dbu, tol_dbu)
    net.ports = _top_ports(layout, top, index, tol_dbu)
    if stray:
        net.notes.append(f"waveguide polygons drawn outside any device are not checked (cells {sorted(stray)[:3]})")
    return net


def _connect(net: Netlist, dbu: float, tol_dbu: int) -> dict:
    """Fill ``net.connections`` and ``net.contacts`` from the pins' positions (module docstring); return the pins
    by (kind, x, y) in database units."""
    at: dict[tuple[str, int, int], list] = {}
    for dname, dev in net.devices.items():
        for pname, pin in (dev.pins or {}).items():
            at.setdefault((pin.kind, round(pin.x / dbu), round(pin.y / dbu)), []).append(((dname, pname), pin))
    parent = {k: k for k in at}

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for kind, ix, iy in at:  # merge positions within tol_dbu
        for dx in range(-tol_dbu, tol_dbu + 1):
            for dy in range(-tol_dbu, tol_dbu + 1):
                other = (kind, ix + dx, iy + dy)
                if other in at:
                    parent[root(other)] = root((kind, ix, iy))
    groups: dict = {}
    for k, items in at.items():
        groups.setdefault(root(k), []).extend(items)
    for items in groups.values():
        if len(items) == 1:
            continue
        refs = tuple(ref for ref, _ in items)
        if len(items) > 2:
            net.contacts.append((refs, f"{len(items)} ports meet at one point"))
            continue
        (a, pa), (b, pb) = items
        turn = (pa.angle - pb.angle) % 360.0
        if abs(turn - 180.0) > ANGLE_TOL_DEG:
            net.contacts.append((refs, f"they meet facing {pa.angle:g}° and {pb.angle:g}°, not opposite"))
        elif abs(pa.width - pb.width) > dbu * 1.001:
            net.contacts.append((refs, f"they meet with widths {pa.width:g} and {pb.width:g} µm"))
        else:
            net.connections[a] = b
            net.connections[b] = a
    return at


def _top_ports(layout, top, index: dict, tol_dbu: int) -> dict[str, tuple[str, str]] | None:
    """The top cell's named ports (metadata) → the device pins under them; None without metadata."""
    pins = metadata_pins(layout, top)
    if pins is None:
        return None
    out = {}
    for name, p in pins.items():
        ix, iy = round(p.x / layout.dbu), round(p.y / layout.dbu)
        hits = [ref for dx in range(-tol_dbu, tol_dbu + 1) for dy in range(-tol_dbu, tol_dbu + 1)
                for ref, q in index.get((p.kind, ix + dx, iy + dy), ())
                if abs((q.angle - p.angle + 180.0) % 360.0 - 180.0) <= ANGLE_TOL_DEG]
        if hits:
            out[name] = hits[0]
    return out
