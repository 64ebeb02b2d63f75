"""Netlists for SAX: a component's netlist restricted to its optical ports."""

from __future__ import annotations

import gdsfactory as gf


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
