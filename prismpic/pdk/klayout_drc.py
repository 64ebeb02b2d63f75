"""Design-rule check of a component with KLayout's region engine (``klayout.db``)."""

from __future__ import annotations

from dataclasses import dataclass

import gdsfactory as gf
import klayout.db as kdb

from prismpic.pdk.layers import LAYER
from prismpic.pdk.rules import RULES, DesignRules


@dataclass(frozen=True)
class Violation:
    """One failed rule: its name, the number of markers and the first marker's box (µm)."""

    rule: str
    count: int
    where: tuple[float, float, float, float]

    def __str__(self) -> str:
        x0, y0, x1, y1 = self.where
        return f"{self.rule}: {self.count} marker(s), first at ({x0:.3f}, {y0:.3f})–({x1:.3f}, {y1:.3f}) µm"


def _region(component: gf.Component, layer, store: kdb.DeepShapeStore | None = None) -> kdb.Region:
    layout = component.kcl.layout
    index = layout.find_layer(kdb.LayerInfo(*tuple(layer)))
    if index is None:
        return kdb.Region()
    shapes = component.kdb_cell.begin_shapes_rec(index)
    return (kdb.Region(shapes) if store is None else kdb.Region(shapes, store)).merged()


def drc(component: gf.Component, rules: DesignRules = RULES, *, deep: bool = False) -> list[Violation]:
    """Run the platform's design rules on ``component``; an empty list means clean.

    Checks: ridge width and spacing, slab enclosure of the ridge, metal (electrode and
    heater) width and spacing, electrode clearance to the ridge, pad size, PCM on ridge.
    ``deep`` runs KLayout's hierarchical engine (same rules, same markers): arrays of
    identical cells are checked once, so a 256×32 bank die takes minutes, not hours.
    """
    dbu = component.kcl.layout.dbu
    store = kdb.DeepShapeStore() if deep else None

    def d(um: float) -> int:
        return round(um / dbu)

    ridge = _region(component, LAYER.LN_RIDGE, store)
    slab = _region(component, LAYER.LN_SLAB, store)
    electrode = _region(component, LAYER.ELECTRODE, store)
    heater = _region(component, LAYER.HEATER, store)
    pad = _region(component, LAYER.PAD, store)
    pcm = _region(component, LAYER.PCM, store)

    # The slab must enclose the ridge except across the component's own optical ports,
    # where the ridge ends flush with the cell boundary and continues in the next cell.
    ports = kdb.Region()
    e = rules.min_slab_enclosure
    for port in component.ports:
        if port.port_type == "optical":
            box = kdb.DPolygon(kdb.DBox(2.5 * e, port.width + 4 * e)).transformed(port.dcplx_trans)
            ports.insert(box.to_itype(dbu))
    # Projection metrics and an 80° corner allowance: corners where a port face meets a
    # slightly tapered or curved sidewall are not width or space violations.
    opts = dict(metrics=kdb.Metrics.Projection, ignore_angle=80)

    checks: dict[str, kdb.EdgePairs | kdb.Region] = {
        f"LN_RIDGE width < {rules.min_ridge_width} µm": ridge.width_check(d(rules.min_ridge_width), **opts),
        f"LN_RIDGE space < {rules.min_ridge_gap} µm": ridge.space_check(d(rules.min_ridge_gap), **opts),
        "LN_RIDGE outside LN_SLAB": ridge - slab,
        f"LN_SLAB encloses LN_RIDGE by < {rules.min_slab_enclosure} µm": (
            ridge.sized(d(rules.min_slab_enclosure)) - slab - ports
        ).merged(),
        f"ELECTRODE width < {rules.min_metal_width} µm": electrode.width_check(d(rules.min_metal_width), **opts),
        f"ELECTRODE space < {rules.min_metal_space} µm": electrode.space_check(d(rules.min_metal_space), **opts),
        f"HEATER width < {rules.min_metal_width} µm": heater.width_check(d(rules.min_metal_width), **opts),
        f"HEATER space < {rules.min_metal_space} µm": heater.space_check(d(rules.min_metal_space), **opts),
        "ELECTRODE over LN_RIDGE": electrode & ridge,
        f"ELECTRODE to LN_RIDGE < {rules.min_metal_to_ridge} µm": electrode.separation_check(
            ridge, d(rules.min_metal_to_ridge), **opts
        ),
        f"PAD width < {rules.min_pad_size} µm": pad.width_check(d(rules.min_pad_size), **opts),
        "PCM outside LN_RIDGE": pcm - ridge,
        f"PCM width < {rules.min_pcm_width} µm": pcm.width_check(d(rules.min_pcm_width), **opts),
    }
    violations = []
    for rule, markers in checks.items():
        if markers.is_empty():
            continue
        box = markers.bbox()
        violations.append(
            Violation(rule, markers.count(), (box.left * dbu, box.bottom * dbu, box.right * dbu, box.top * dbu))
        )
    return violations
