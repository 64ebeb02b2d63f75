"""Die framing shared by the chip scripts: outline, fiber loopback, labels, deterministic GDS output.

Conventions: the die's lower-left corner is the origin; west-facing edge-coupler facets
lie on the die edge x = 0 (east-facing ones on x = width); the die outline is a filled
FLOORPLAN rectangle on a 100 µm grid; labels are text polygons on LABEL.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import gdsfactory as gf

BUILD = Path(__file__).resolve().parent / "build"
FIBER_PITCH = 127.0  # µm, standard fiber-array pitch
MARGIN = 100.0  # µm of die around the circuit (except at facets)
GRID = 100.0  # µm, die sizes are multiples of this
LABEL_SIZE = 40.0  # µm text height


def snap_up(x: float, grid: float = GRID) -> float:
    return math.ceil(x / grid - 1e-9) * grid


@gf.cell
def loopback(pitch: float = FIBER_PITCH, taper_length: float = 200.0, bend_radius: float = 20.0) -> gf.Component:
    """Two edge couplers joined by a U: a fiber-array alignment structure (facets at x = 0, ``pitch`` apart).

    Args:
        pitch: facet spacing (µm).
        taper_length: edge-coupler taper length (µm).
        bend_radius: Euler bend radius of the U (µm).
    """
    from prismpic.components.io import edge_coupler
    from prismpic.components.waveguides import bend_euler, straight

    c = gf.Component()
    ec = edge_coupler(taper_length=taper_length)
    bend = bend_euler(radius=bend_radius)
    a = c << ec
    b1 = c << bend
    b1.connect("o1", a.ports["o2"])
    vertical = pitch - 2 * bend.ports["o2"].dcenter[1]
    if vertical < 0:
        raise ValueError(f"pitch = {pitch:g} µm is outside the valid range [{pitch - vertical:g}, inf) µm")
    last = b1
    if round(vertical, 3) > 0:  # on the 1 nm grid; a shorter vertical is none
        v = c << straight(length=round(vertical, 3))
        v.connect("o1", b1.ports["o2"])
        last = v
    b2 = c << bend
    b2.connect("o1", last.ports["o2"])
    e2 = c << ec
    e2.connect("o2", b2.ports["o2"])
    c.add_port("o1", port=a.ports["o1"])
    c.add_port("o2", port=e2.ports["o1"])
    return c


def label_lines(c: gf.Component, lines, x: float, y_top: float, max_width: float, size: float = LABEL_SIZE) -> None:
    """Text lines on LABEL, first line's top at ``y_top``, each shrunk to fit ``max_width``."""
    from prismpic.pdk.layers import LAYER

    for i, line in enumerate(lines):
        cell = gf.components.text(text=line, size=size, justify="left", layer=LAYER.LABEL)
        if cell.dxsize > max_width:
            cell = gf.components.text(text=line, size=round(size * max_width / cell.dxsize, 1), justify="left",
                                      layer=LAYER.LABEL)
        t = c << cell
        t.dmove((x, y_top - (i + 1) * 1.5 * size))


@gf.cell
def die(core: gf.Component, labels: tuple[str, ...] = (), east_facets: bool = False,
        with_loopback: bool = True) -> gf.Component:
    """A die around ``core``: the core's west edge (its facets) on x = 0, outline, loopback, labels.

    Args:
        core: the chip's circuit; its leftmost point must be its west facets.
        labels: text lines (chip name, parameters).
        east_facets: the core also has east-facing facets at its right edge: the die ends there.
        with_loopback: add a ``loopback`` below the core at the west edge.
    """
    from prismpic.pdk.layers import LAYER

    c = gf.Component()
    label_h = 1.5 * LABEL_SIZE * len(labels) + MARGIN
    lb = loopback() if with_loopback else None
    y0 = MARGIN + (lb.dysize + MARGIN if lb is not None else 0.0)
    ref = c << core
    ref.dmove((-core.dxmin, y0 - core.dymin))
    if lb is not None:
        lref = c << lb
        lref.dmove((-lb.dxmin, MARGIN - lb.dymin))
        c.add_port("loopback1", port=lref.ports["o1"])  # facets: the DRC exempts ports from slab enclosure
        c.add_port("loopback2", port=lref.ports["o2"])
    width = ref.dxmax if east_facets else snap_up(ref.dxmax + MARGIN)
    height = snap_up(ref.dymax + label_h)
    c.add_polygon([(0, 0), (width, 0), (width, height), (0, height)], layer=LAYER.FLOORPLAN)
    label_lines(c, labels, MARGIN, height - MARGIN / 2, width - 2 * MARGIN)
    c.info["width_um"] = float(width)
    c.info["height_um"] = float(height)
    for p in ref.ports:
        c.add_port(p.name, port=p)
    return c


def write(c: gf.Component, path: Path) -> Path:
    """Write ``c`` to ``path`` (no timestamps, no metadata: same cell, same bytes) and the PDK's .lyp beside it."""
    from prismpic.fileio import write_gds_atomic
    from prismpic.pdk.layers import LYP_NAME, write_lyp

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_gds_atomic(c, path, with_metadata=False)
    write_lyp(path.parent / LYP_NAME)  # atomic: complete or absent, like the GDS
    return path


def parse_sets(items: list[str] | None) -> dict:
    """``key=value`` pairs, values parsed as JSON where possible."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"--set {item!r} must look like key=value")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip()] = v.strip()
    return out


def main(build, default_out: str, doc: str, argv: list[str] | None = None) -> tuple[gf.Component, Path, list]:
    """Common command line: build the die with ``--set`` parameters, write it, run the DRC, print a summary."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=BUILD / default_out, help="GDS path")
    ap.add_argument("--set", dest="sets", action="append", help="parameter key=value (repeatable)")
    ap.add_argument("--no-drc", action="store_true", help="skip the design-rule check")
    a = ap.parse_args(argv)
    import prismpic
    from prismpic.pdk import drc

    prismpic.get_pdk()
    t = time.perf_counter()
    c = build(**parse_sets(a.sets))
    t_build = time.perf_counter() - t
    path = write(c, a.out)
    print(f"wrote {path}: die {c.info['width_um'] / 1e3:.2f} mm × {c.info['height_um'] / 1e3:.2f} mm, "
          f"built in {t_build:.1f} s")
    violations = []
    if not a.no_drc:
        t = time.perf_counter()
        violations = drc(c, deep=True)  # hierarchical engine: a 256×32 bank die in minutes
        print(f"DRC: {'clean' if not violations else f'{len(violations)} violation(s)'} "
              f"({time.perf_counter() - t:.1f} s)")
        for v in violations:
            print(f"  {v}")
    return c, path, violations


def run(build, default_out: str, doc: str) -> None:
    """Script entry point: exit status 1 on DRC violations."""
    _, _, violations = main(build, default_out, doc, sys.argv[1:])
    sys.exit(1 if violations else 0)
