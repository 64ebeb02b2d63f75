"""Netlists for SAX: a component's netlist restricted to its optical ports, or flattened to its modelled cells."""

from __future__ import annotations

import gdsfactory as gf
import klayout.db as kdb

ABSORBERS = ("balanced_photodetector", "photodetector")  # cut out of netlists: their inputs become ports


def optical_netlist(component: gf.Component, recursive: bool = False) -> dict:
    """``component.get_netlist()`` without electrical ports and nets (SAX models are optical).

    Electrical ports (``e1`` …) of instances and of the top level carry no S-parameters; a
    netlist that names them makes ``sax.circuit`` fail. Top-level ports keep their names.
    """
    electrical = {p.name for p in component.ports if p.port_type != "optical"}

    def strip(net: dict) -> dict:
        out = dict(net)
        out["ports"] = {k: v for k, v in net.get("ports", {}).items() if k not in electrical and not k.startswith("e")}
        out["nets"] = [n for n in net.get("nets", []) if not any(p.split(",")[-1].startswith("e") for p in (n["p1"], n["p2"]))]
        return out

    if recursive:
        return {name: strip(n) for name, n in component.get_netlist(recursive=True).items()}
    return strip(component.get_netlist())


def flat_netlist(component: gf.Component, models, absorbers=ABSORBERS) -> tuple[dict, dict]:
    """SAX netlist of ``component`` flattened down to the cells that have models.

    Walks the hierarchy; an instance whose cell function has a model (``models``) is a
    leaf with its full-precision settings (gdsfactory's own ``get_netlist`` rounds
    settings to 3 digits, which moves a ring's resonance by up to ~1 nm). Optical ports
    that coincide (same position on the 1 nm grid, opposite directions) are connected.
    Instances of ``absorbers`` are left out; the leaf ports that fed them become circuit
    ports ``"{absorber instance},{its port}"``.

    Returns:
        (netlist, placements): the netlist (instances, connections, ports) and, per
        instance, ``(component name, x, y)`` of its origin (µm), for finding instances by position.
    """
    leaves = []

    def walk(cell, trans):
        for inst in cell.insts:
            t = trans * inst.dcplx_trans
            name = inst.cell.function_name
            if name in models or name in absorbers:
                leaves.append((name, inst.cell, t))
            elif len(inst.cell.insts):
                walk(inst.cell, t)
            elif any(p.port_type == "optical" for p in inst.cell.ports):
                raise ValueError(f"cell {inst.cell.name!r} has optical ports but no model")

    walk(component, kdb.DCplxTrans())
    instances, placements, at = {}, {}, {}
    absorbed = {}
    for i, (name, cell, t) in enumerate(leaves):
        iname = f"{name}_{i}"
        placements[iname] = (name, t.disp.x, t.disp.y)
        if name not in absorbers:
            instances[iname] = {"component": name, "settings": dict(cell.settings)}
        for p in cell.ports:
            if p.port_type != "optical":
                continue
            pt = t * p.dcplx_trans
            key = (round(pt.disp.x * 1000), round(pt.disp.y * 1000))
            ref = f"{iname},{p.name}"
            at.setdefault(key, []).append((ref, round(pt.angle) % 360))
            if name in absorbers:
                absorbed[ref] = key
    connections, ports, used = {}, {}, set()
    for key, group in at.items():
        if len(group) > 2:
            raise ValueError(f"{len(group)} optical ports meet at {key} nm: {[g[0] for g in group]}")
        if len(group) == 2:
            (a, ang_a), (b, ang_b) = group
            if (ang_a - ang_b) % 360 != 180:
                raise ValueError(f"ports {a} and {b} meet at {key} nm without facing each other")
            if a in absorbed or b in absorbed:
                inner, outer = (b, a) if a in absorbed else (a, b)
                if inner not in absorbed:
                    ports[outer] = inner
                    used.add(inner)
                continue
            connections[a] = b
            used.update((a, b))
    for p in component.ports:
        if p.port_type != "optical":
            continue
        key = (round(p.dcenter[0] * 1000), round(p.dcenter[1] * 1000))
        inner = [ref for ref, ang in at.get(key, []) if ang == round(p.orientation) % 360 and ref not in used]
        if len(inner) != 1:
            raise ValueError(f"top port {p.name} at {p.dcenter} matches {len(inner)} instance ports")
        ports[p.name] = inner[0]
    return {"instances": instances, "connections": connections, "ports": ports}, placements
