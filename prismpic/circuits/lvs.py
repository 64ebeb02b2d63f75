"""Layout versus schematic: the devices and connections of a written GDS against the netlist that is simulated.

The schematic is a gdsfactory netlist, recursive (``component.get_netlist(recursive=True)``: one netlist per
cell, instances naming sub-netlists) or flat, with ``instances``, ``placements``, ``nets`` (or SAX's
``connections``) and ``ports``; it is flattened to its devices (``lvs_extract.device_functions``), each placed in
the top cell's coordinates, each connection resolved through the sub-netlists' ports to two device ports. The
layout is what ``lvs_extract.layout_netlist`` reads from the GDS. ``lvs_result`` pairs the two device lists and
lists every difference (``Mismatch``), by schematic instance path and port:

- ``missing`` / ``extra``: a device in one and not the other (``cell``: another device stands in its place);
- ``parameters``: the cell's settings differ (a ring's radius); ``cell``: a cell the schematic does not build,
  whose settings are not all readable; ``geometry``: a cell drawn differently from the schematic's cell of the
  same name;
- ``placement``: a device found by its connections but placed elsewhere, rotated or mirrored;
- ``open``: a port the schematic connects that meets nothing; ``contact``: ports that meet without facing or
  with unequal widths; ``crossed``: a port that meets another device port than the schematic's; ``swapped``: a
  device whose two ports meet each other's partners (wrong port order); ``connection``: a connection the
  schematic does not have;
- ``top-port``: a top-level port connected inside the layout, or (with port metadata) named differently.

Devices are paired by function and position (within ``MATCH_TOL_UM``: gdsfactory rounds placements to 1 nm at
each level), then, for those left, by the ports of their schematic neighbours that they touch, then by distance
within their own port span (a device moved off its place). Settings are compared within 1e-9 (relative), or ±0.5e-3
where the schematic's number has at most 3 decimals (gdsfactory's netlists round them).

Measured (2 shared cores): the 8×8 prototype die, 549 devices, 1.1 s; the 256×32 bank die, 54,525 devices, 68 s
(38 s of it gdsfactory's recursive netlist), 1.2 GB.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import klayout.db as kdb

from prismpic.circuits.lvs_extract import (
    ANGLE_TOL_DEG,
    Device,
    Netlist,
    device_functions,
    find_cell,
    layout_netlist,
    library_from_component,
    read_gds,
)

MATCH_TOL_UM = 0.005  # device origins: placements are rounded to 1 nm at each level of a netlist
NETLIST_DIGITS = 12  # digits kept in the settings of a netlist taken from a component
KIND_ORDER = ("missing", "extra", "cell", "parameters", "geometry", "placement", "swapped", "crossed", "open",
              "contact", "connection", "top-port")


@dataclass(frozen=True)
class Mismatch:
    """One difference between layout and schematic.

    Attributes:
        kind: one of ``KIND_ORDER`` (module docstring).
        instance: the schematic instance path (the layout device's ``function@(x, y)`` for extra devices).
        detail: what differs, with the port, the values and positions (µm).
    """

    kind: str
    instance: str
    detail: str

    def line(self) -> str:
        """``kind  instance: detail``, one line."""
        return f"{self.kind:<10} {self.instance}: {self.detail}"


@dataclass
class LvsResult:
    """What ``lvs_result`` found.

    Attributes:
        mismatches: every difference, sorted by kind and instance.
        devices, connections, ports: the schematic's counts (devices, device-to-device connections, top ports).
        layout_devices: devices found in the GDS.
        notes: what was not checked and why.
    """

    mismatches: list[Mismatch]
    devices: int
    connections: int
    ports: int
    layout_devices: int
    notes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """True when layout and schematic agree."""
        return not self.mismatches

    def summary(self) -> str:
        """One line: clean, or how many mismatches of which kinds."""
        if self.clean:
            return (f"LVS clean: {self.devices} devices, {self.connections} connections, {self.ports} top ports "
                    "match")
        counts: dict[str, int] = {}
        for m in self.mismatches:
            counts[m.kind] = counts.get(m.kind, 0) + 1
        kinds = ", ".join(f"{n} {k}" for k, n in counts.items())
        return (f"LVS failed: {len(self.mismatches)} mismatch{'es' if len(self.mismatches) != 1 else ''} ({kinds}) "
                f"between {self.layout_devices} layout and {self.devices} schematic devices")


# ---------------------------------------------------------------------------- schematic
def read_netlist(path, what: str = "--netlist") -> dict:
    """A netlist file: JSON (``.json``) or YAML (anything else); ValueError naming ``what`` and the file."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} = {str(path)!r} " + ("is not a file" if path.exists() else "does not exist"))
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as e:
        reason = " ".join(str(e).split())[:160]
        raise ValueError(f"{what} = {str(path)!r} does not parse as "
                         f"{'JSON' if path.suffix.lower() == '.json' else 'YAML'} ({reason})") from None
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{what} = {str(path)!r} is not a netlist: expected a mapping with 'instances' "
                         "(or one such mapping per cell), got " + type(data).__name__)
    return data


def netlists_of(netlist: dict, what: str = "netlist") -> tuple[dict[str, dict], str]:
    """(the netlists by cell, the top cell's key) of a flat or recursive gdsfactory netlist; ValueError naming
    ``what`` where it is malformed."""
    nets = {"top": netlist} if "instances" in netlist else netlist
    for key, net in nets.items():
        if not isinstance(net, dict) or not isinstance(net.get("instances", {}), dict):
            raise ValueError(f"{what}: {key!r} is not a netlist (a mapping with 'instances')")
        for name, inst in net.get("instances", {}).items():
            comp = inst.get("component") if isinstance(inst, dict) else inst
            if not isinstance(comp, str):
                raise ValueError(f"{what}: instance {name!r} of {key!r} names no component")
    used = {(i.get("component") if isinstance(i, dict) else i) for n in nets.values()
            for i in n.get("instances", {}).values()}
    tops = [k for k in nets if k not in used]
    if not tops:
        raise ValueError(f"{what}: every netlist is an instance of another (a cycle); no top cell")
    return nets, tops[0]


def _function(comp: str, nets: dict, devices) -> str | None:
    """The device function of an instance's component name (gdsfactory counts variants: ring_add_drop2)."""
    if comp in devices:
        return comp
    base = re.sub(r"\d+$", "", comp)
    return base if comp in nets and base in devices else None


def _placement(place, where: str, what: str) -> kdb.DCplxTrans:
    if not isinstance(place, dict) or "x" not in place or "y" not in place:
        raise ValueError(f"{what}: {where} has no placement (x, y); LVS pairs devices by placement")
    for k in ("x", "y", "rotation"):
        v = place.get(k, 0)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"{what}: {where} has {k} = {v!r}; expected a number (µm, degrees)")
    mirror = place.get("mirror", False)
    if not isinstance(mirror, bool):
        raise ValueError(f"{what}: {where} has mirror = {mirror!r}; expected true or false")
    return kdb.DCplxTrans(1.0, float(place.get("rotation", 0)), mirror, float(place["x"]), float(place["y"]))


def _pairs(net: dict, key: str, what: str):
    """The connections of one netlist level as (ref, ref) pairs (gdsfactory ``nets`` or SAX ``connections``)."""
    nets, conns = net.get("nets") or [], net.get("connections") or {}
    if not isinstance(nets, list | tuple) or not isinstance(conns, dict):
        raise ValueError(f"{what}: the nets of {key!r} are not a list (nor its connections a mapping)")
    pairs = [(n.get("p1"), n.get("p2")) if isinstance(n, dict) else n for n in nets] + list(conns.items())
    for pair in pairs:
        if not (isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(r, str) for r in pair)):
            raise ValueError(f"{what}: net {pair!r} of {key!r} is not two 'instance,port' references")
    return pairs


def schematic_netlist(netlist: dict, what: str = "netlist", top: str | None = None) -> Netlist:
    """The flat device netlist of a gdsfactory netlist (module docstring); ValueError naming ``what``.

    Args:
        netlist: flat or recursive gdsfactory netlist.
        what: how errors name it (the file or the circuit).
        top: the key of the top cell's netlist (default: the one no other instantiates).
    """
    nets, found_top = netlists_of(netlist, what)
    top = top or found_top
    devices = device_functions()
    flat = Netlist({}, ports={})

    def resolve(key: str, prefix: str, ref, stack=()) -> tuple[str, str]:
        inst, sep, port = str(ref).rpartition(",")
        spec = nets[key].get("instances", {}).get(inst)
        if not sep or spec is None:
            raise ValueError(f"{what}: {ref!r} in {key!r} names no instance port")
        comp = spec.get("component") if isinstance(spec, dict) else spec
        if _function(comp, nets, devices):
            return f"{prefix}{inst}", port
        sub = nets.get(comp)
        if sub is None:
            raise ValueError(f"{what}: {ref!r} in {key!r}: component {comp!r} is neither a prismpic device nor a "
                             "cell of this netlist")
        sub_ports = sub.get("ports") or {}
        target = sub_ports.get(port) if isinstance(sub_ports, dict) else None
        if target is None or comp in stack:
            raise ValueError(f"{what}: {ref!r} in {key!r}: {comp!r} has no port {port!r}")
        return resolve(comp, f"{prefix}{inst}/", target, (*stack, comp))

    def expand(key: str, prefix: str, trans: kdb.DCplxTrans, stack: tuple):
        net = nets[key]
        places = net.get("placements") or {}
        for iname, spec in net.get("instances", {}).items():
            comp = spec.get("component") if isinstance(spec, dict) else spec
            fn = _function(comp, nets, devices)
            if fn is None and comp not in nets:
                continue  # a leaf that is not a device (a label): no ports to check
            at = trans * _placement(places.get(iname), f"instance {prefix}{iname}", what)
            if fn is not None:
                settings = (spec.get("settings") if isinstance(spec, dict) else None) or {}
                if not isinstance(settings, dict):
                    raise ValueError(f"{what}: the settings of instance {prefix}{iname} are not a mapping")
                flat.devices[f"{prefix}{iname}"] = Device(f"{prefix}{iname}", fn, None, dict(settings), at)
            elif comp in stack:
                raise ValueError(f"{what}: {comp!r} contains itself")
            else:
                expand(comp, f"{prefix}{iname}/", at, (*stack, comp))
        for a, b in _pairs(net, key, what):
            ra, rb = resolve(key, prefix, a), resolve(key, prefix, b)
            flat.connections[ra] = rb
            flat.connections[rb] = ra

    expand(top, "", kdb.DCplxTrans(), (top,))
    ports = nets[top].get("ports") or {}
    if not isinstance(ports, dict):
        raise ValueError(f"{what}: the ports of {top!r} are not a mapping")
    for name, ref in ports.items():
        flat.ports[name] = resolve(top, "", ref)
    return flat


def component_netlist(component) -> dict:
    """The recursive netlist of a gdsfactory component, settings to ``NETLIST_DIGITS`` digits (the top first)."""
    return component.get_netlist(recursive=True, on_dangling_port="ignore",
                                 serialization_max_digits=NETLIST_DIGITS)


# ---------------------------------------------------------------------------- comparison
def _fmt(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else repr(v) if isinstance(v, str) else str(v)


def _differs(a, b) -> bool:
    """Settings ``a`` (schematic) and ``b`` (layout) differ; a schematic number with at most 3 decimals was
    rounded there (gdsfactory's netlists), so it is held to ±0.5e-3."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a != b
    if isinstance(a, int | float) and isinstance(b, int | float):
        tol = 1e-9 * max(1.0, abs(a))
        if a == round(a, 3):
            tol = max(tol, 5.0001e-4)
        return abs(a - b) > tol
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) != len(b) or any(_differs(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return any(_differs(a[k], b[k]) for k in a.keys() & b.keys())
    return a != b


def _orientation(t: kdb.DCplxTrans) -> str:
    return f"({t.disp.x:.3f}, {t.disp.y:.3f}) r{t.angle % 360:g}{' mirrored' if t.is_mirror() else ''}"


def _same_place(a: kdb.DCplxTrans, b: kdb.DCplxTrans, tol: float) -> bool:
    return (a.disp - b.disp).abs() <= tol


def _same_orientation(a: kdb.DCplxTrans, b: kdb.DCplxTrans) -> bool:
    return a.is_mirror() == b.is_mirror() and abs((a.angle - b.angle + 180.0) % 360.0 - 180.0) <= ANGLE_TOL_DEG


def _grid(points, cell: float) -> dict[tuple[int, int], list]:
    """Items by grid cell of side ``cell`` (µm): ``points`` is (item, x, y)."""
    grid: dict[tuple[int, int], list] = {}
    for item, x, y in points:
        grid.setdefault((round(x / cell), round(y / cell)), []).append(item)
    return grid


def _near(grid: dict, x: float, y: float, cell: float) -> list:
    """The items of ``grid`` in the cells around (x, y): every item within ``cell`` µm, and some beyond."""
    i, j = round(x / cell), round(y / cell)
    return [n for di in (-1, 0, 1) for dj in (-1, 0, 1) for n in grid.get((i + di, j + dj), ())]


def match_devices(schematic: Netlist, layout: Netlist, tol: float = MATCH_TOL_UM,
                  notes: list[str] | None = None) -> dict[str, str]:
    """Schematic device name → layout device name: same function and origin (same orientation first); for the
    devices left, the layout device of the same function touching most of the ports that its schematic
    neighbours' layout partners expose to it, else the nearest one within its own port span (moved; skipped, with a
    note, when too many are left to pair)."""
    origins = _grid(((n, d.trans.disp.x, d.trans.disp.y) for n, d in layout.devices.items()), 1.0)
    pairs, used = {}, set()
    for sname, sd in schematic.devices.items():
        near = [n for n in _near(origins, sd.trans.disp.x, sd.trans.disp.y, 1.0) if n not in used
                and layout.devices[n].function == sd.function and _same_place(layout.devices[n].trans, sd.trans, tol)]
        near.sort(key=lambda n: not _same_orientation(layout.devices[n].trans, sd.trans))
        if near:
            pairs[sname] = near[0]
            used.add(near[0])
    left = [n for n, d in layout.devices.items() if n not in used and d.pins]
    lone = [n for n in schematic.devices if n not in pairs]
    if not left or not lone:
        return pairs
    pins = _grid(((n, p.x, p.y) for n in left for p in layout.devices[n].pins.values()), tol)
    neighbours: dict[str, list[tuple[str, str]]] = {}
    for (dev, _), other in schematic.connections.items():
        neighbours.setdefault(dev, []).append(other)
    unanchored = []
    for sname in lone:
        sd = schematic.devices[sname]
        hits: dict[str, int] = {}
        for other, oport in neighbours.get(sname, ()):
            t = (layout.devices[pairs[other]].pins or {}).get(oport) if other in pairs else None
            for n in set(_near(pins, t.x, t.y, tol)) if t is not None else ():
                d = layout.devices[n]
                if n not in used and d.function == sd.function and any(
                        abs(p.x - t.x) <= tol and abs(p.y - t.y) <= tol for p in d.pins.values()):
                    hits[n] = hits.get(n, 0) + 1
        if hits:
            best = max(sorted(hits), key=hits.get)
            pairs[sname] = best
            used.add(best)
        else:
            unanchored.append(sname)
    candidates = [n for n in left if n not in used]
    if len(unanchored) * len(candidates) > 10 ** 6:
        if notes is not None:
            notes.append(f"{len(unanchored)} schematic and {len(candidates)} layout devices left unpaired: too many to "
                         "look for moved ones; they are reported as missing and extra")
        return pairs
    spans = {n: _span(layout.devices[n]) for n in candidates}
    for sname in unanchored:  # no anchor: the nearest within its own port span (a device moved off its place)
        sd = schematic.devices[sname]
        dist = {n: (sd.trans.disp - layout.devices[n].trans.disp).abs() for n in candidates
                if n not in used and layout.devices[n].function == sd.function}
        near = [n for n in sorted(dist) if dist[n] <= spans[n]]
        if near:
            best = min(near, key=dist.get)
            pairs[sname] = best
            used.add(best)
    return pairs


def _span(device: Device) -> float:
    """The largest distance between two of a device's ports (µm)."""
    pins = list((device.pins or {}).values())
    return max((((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5 for a in pins for b in pins), default=0.0)


def _device_mismatches(sname: str, sd: Device, ld: Device, tol: float) -> list[Mismatch]:
    out = []
    if not (_same_place(sd.trans, ld.trans, tol) and _same_orientation(sd.trans, ld.trans)):
        out.append(Mismatch("placement", sname, f"{sd.function} placed at {_orientation(ld.trans)} in the layout, "
                                                f"{_orientation(sd.trans)} in the schematic"))
    if ld.settings is not None:
        diffs = [k for k in sorted(sd.settings.keys() & ld.settings.keys()) if _differs(sd.settings[k], ld.settings[k])]
        if diffs:
            how = " (read from the cell name)" if ld.source == "name" else ""
            text = "; ".join(f"{k} {_fmt(sd.settings[k])} in the schematic, {_fmt(ld.settings[k])} in the layout"
                             for k in diffs)
            out.append(Mismatch("parameters", sname, f"{text}{how} (cell {ld.cell})"))
    if ld.source == "name" and not any(m.kind == "parameters" for m in out):
        out.append(Mismatch("cell", sname, f"cell {ld.cell!r} is not the schematic's {sd.function} and carries no "
                                           "metadata (settings and ports unknown)"))
    if ld.geometry_diff:
        where = ", ".join(f"{area:.4g} µm² on layer {layer}" for layer, area in ld.geometry_diff)
        out.append(Mismatch("geometry", sname, f"cell {ld.cell!r} is drawn differently from the schematic's cell of "
                                               f"that name (XOR {where})"))
    return out


def _connection_mismatches(schematic: Netlist, layout: Netlist, pairs: dict[str, str]) -> list[Mismatch]:
    out: list[Mismatch] = []
    to_s = {v: k for k, v in pairs.items()}
    in_contact = {ref: (refs, why) for refs, why in layout.contacts for ref in refs}

    def s_ref(ref):  # a layout pin under its schematic name (or the extra device's)
        return (to_s.get(ref[0], ref[0]), ref[1])

    def known(dev):
        ld = pairs.get(dev)
        return ld is not None and layout.devices[ld].pins is not None

    crossed: dict[tuple[str, str], tuple] = {}
    told: set[tuple] = set()  # contacts reported
    for (a, p), (b, q) in sorted(schematic.connections.items()):
        if (a, p) > (b, q) or not (known(a) and known(b)):
            continue
        la, lb = layout.devices[pairs[a]], layout.devices[pairs[b]]
        absent = [f"{d},{x} is not a port of layout cell {ld.cell!r}" for d, x, ld in ((a, p, la), (b, q, lb))
                  if x not in ld.pins]
        if absent:
            out.append(Mismatch("open", a, f"port {p} should meet {b},{q}, but " + " and ".join(absent)))
            continue
        fa, fb = layout.connections.get((pairs[a], p)), layout.connections.get((pairs[b], q))
        if fa == (pairs[b], q):
            continue
        if fa is not None:
            crossed[(a, p)] = (s_ref(fa), (b, q))
        if fb is not None:
            crossed[(b, q)] = (s_ref(fb), (a, p))
        contact = in_contact.get((pairs[a], p)) or in_contact.get((pairs[b], q))
        if contact is not None and (fa is None or fb is None):
            refs, why = contact
            told.add(refs)
            names = " and ".join(",".join(s_ref(r)) for r in refs)
            out.append(Mismatch("contact", a, f"port {p} should meet {b},{q}; {names} meet without connecting: {why}"))
        elif fa is None or fb is None:
            ends = [f"{d},{x} at ({pin.x:.3f}, {pin.y:.3f})" for d, x, pin, f in
                    ((a, p, la.pins[p], fa), (b, q, lb.pins[q], fb)) if f is None]
            out.append(Mismatch("open", a, f"port {p} should meet {b},{q}; in the layout "
                                           f"{' and '.join(ends)} meet{'s' if len(ends) == 1 else ''} nothing"))
    out += _swaps_and_crossings(crossed)
    for refs, why in layout.contacts:
        named = [s_ref(r) for r in refs]
        if refs not in told and any(r[0] in to_s for r in refs):
            first = next(n for n in named if n[0] in pairs)[0]
            out.append(Mismatch("contact", first, f"{' and '.join(','.join(n) for n in named)} meet without "
                                                  f"connecting: {why}"))
    top = {ref: name for name, ref in schematic.ports.items()}
    for ref, other in sorted(layout.connections.items()):
        if ref > other or (ref[0] not in to_s and other[0] not in to_s):
            continue  # each connection once; between extra devices: reported as extra
        (a, p), (b, q) = sorted((s_ref(ref), s_ref(other)), key=lambda r: (r[0] not in pairs, r))
        if ({(a, p), (b, q)} & crossed.keys() or schematic.connections.get((a, p)) is not None
                or schematic.connections.get((b, q)) is not None):
            continue  # as the schematic has it, or reported above
        if (a, p) in top or (b, q) in top:
            x, y = (a, p) if (a, p) in top else (b, q)
            out.append(Mismatch("top-port", x, f"top port {top[(x, y)]} ({x},{y}) is connected inside the layout "
                                               f"({a},{p} meets {b},{q})"))
        else:
            out.append(Mismatch("connection", a, f"port {p} meets {b},{q} in the layout; the schematic leaves "
                                                 "both open"))
    return out


def _swaps_and_crossings(crossed: dict) -> list[Mismatch]:
    """``swapped`` where a device's two ports meet each other's partners, ``crossed`` for the rest."""
    out, done = [], set()
    by_dev: dict[str, list[str]] = {}
    for dev, port in crossed:
        by_dev.setdefault(dev, []).append(port)
    for dev, ports in sorted(by_dev.items()):
        for i, p in enumerate(sorted(ports)):
            for q in sorted(ports)[i + 1:]:
                (fp, ep), (fq, eq) = crossed[(dev, p)], crossed[(dev, q)]
                if fp == eq and fq == ep and not {(dev, p), (dev, q)} & done:
                    done.update({(dev, p), (dev, q), ep, eq})
                    out.append(Mismatch("swapped", dev, f"ports {p} and {q} are swapped: {p} meets {','.join(fp)}, "
                                                        f"which the schematic connects to {q}, and {q} meets "
                                                        f"{','.join(fq)} (the schematic's partner of {p})"))
    for (dev, p), (found, expected) in sorted(crossed.items()):
        if (dev, p) not in done:
            out.append(Mismatch("crossed", dev, f"port {p} meets {','.join(found)} in the layout; the schematic "
                                                f"connects it to {','.join(expected)}"))
    return out


def compare(schematic: Netlist, layout: Netlist, tol: float = MATCH_TOL_UM,
            notes: list[str] | None = None) -> list[Mismatch]:
    """Every difference between the two flat netlists (module docstring), sorted by kind and instance; what could
    not be checked is appended to ``notes``."""
    pairs = match_devices(schematic, layout, tol, notes)
    to_s = {v: k for k, v in pairs.items()}
    out: list[Mismatch] = []
    for sname, lname in pairs.items():
        out += _device_mismatches(sname, schematic.devices[sname], layout.devices[lname], tol)
    extra = {n for n in layout.devices if n not in to_s}
    extra_at = _grid(((n, layout.devices[n].trans.disp.x, layout.devices[n].trans.disp.y) for n in extra), 1.0)
    for sname, sd in schematic.devices.items():
        if sname in pairs:
            continue
        there = [n for n in _near(extra_at, sd.trans.disp.x, sd.trans.disp.y, 1.0)
                 if n in extra and _same_place(layout.devices[n].trans, sd.trans, tol)]
        if there:
            extra.discard(there[0])
            ld = layout.devices[there[0]]
            out.append(Mismatch("cell", sname, f"a {ld.function} (cell {ld.cell!r}) stands where the schematic "
                                               f"places a {sd.function}"))
        else:
            out.append(Mismatch("missing", sname, f"{sd.function} at {_orientation(sd.trans)} is not in the layout"))
    for n in sorted(extra):
        out.append(Mismatch("extra", n, f"cell {layout.devices[n].cell!r} is not in the schematic"))
    out += _connection_mismatches(schematic, layout, pairs)
    for name, (a, p) in sorted(schematic.ports.items()):
        if layout.ports is None or a not in pairs:
            continue
        got = layout.ports.get(name)
        if got != (pairs[a], p):
            where = ("is not a port of the layout's cell" if got is None
                     else f"is {to_s.get(got[0], got[0])},{got[1]}")
            out.append(Mismatch("top-port", a, f"top port {name} {where}; the schematic's is {a},{p}"))
    rank = {k: i for i, k in enumerate(KIND_ORDER)}
    return sorted(set(out), key=lambda m: (rank.get(m.kind, len(rank)), m.instance, m.detail))


# ---------------------------------------------------------------------------- entry point
def lvs_result(gds, *, component=None, netlist: dict | None = None, what: str = "GDS",
               netlist_name: str = "netlist") -> LvsResult:
    """Layout versus schematic of the GDS file ``gds`` against a component or a netlist (exactly one).

    Args:
        gds: GDS or OASIS file, or a layout read from one (``lvs_extract.read_gds``).
        component: a gdsfactory Component: its recursive netlist is the schematic, its device cells the library
            that names the ports of GDS cells written without metadata; the GDS cell checked is the one of the
            component's name (or the only one of its function).
        netlist: a flat or recursive gdsfactory netlist (``read_netlist``); the GDS must carry port metadata
            (gdsfactory's ``write_gds`` default); the cell checked is the only one of the top netlist's function.
        what: how errors name the GDS (``"GDS"``, a CLI argument; the whole name when ``gds`` is a layout).
        netlist_name: how errors name the netlist.
    """
    if (component is None) == (netlist is None):
        raise ValueError("give exactly one of component and netlist")
    layout = gds if isinstance(gds, kdb.Layout) else read_gds(gds, what)
    where = what if isinstance(gds, kdb.Layout) else f"{what} = {str(gds)!r}"
    if component is not None:
        recnet = component_netlist(component)
        schematic = schematic_netlist(recnet, netlist_name, top=next(iter(recnet)))
        top = find_cell(layout, component.name, component.function_name, where)
        extracted = layout_netlist(layout, top, library_from_component(component))
    else:
        nets, key = netlists_of(netlist, netlist_name)
        schematic = schematic_netlist(netlist, netlist_name)
        name = nets[key].get("name") if isinstance(nets[key].get("name"), str) else key
        top = find_cell(layout, name, re.sub(r"\d+$", "", key) if key != "top" else None, where)
        extracted = layout_netlist(layout, top)
        blind = sorted({d.cell for d in extracted.devices.values() if d.pins is None})
        if blind:
            raise ValueError(f"{where} carries no port metadata (cell {blind[0]!r}): check it against a netlist "
                             "only when written with metadata (gdsfactory's write_gds default, prismpic layout), "
                             "or against the circuit (--circuit)")
    notes = list(extracted.notes)
    mismatches = compare(schematic, extracted, notes=notes)
    if not top.is_top():
        notes.append(f"only cell {top.name!r} is checked, not what its parents add around it")
    if extracted.ports is None:
        notes.append("top-level port names not checked: the GDS carries no port metadata")
    return LvsResult(mismatches, len(schematic.devices), len(schematic.connections) // 2, len(schematic.ports),
                     len(extracted.devices), notes)
