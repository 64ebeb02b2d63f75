"""A PTU tile die (default 16 × 16): edge couplers on every row at both edges, SOA pads, the GSST crossbar.

Run: python layouts/ptu_tile_chip.py [--out FILE] [--set key=value ...] [--no-drc]
Writes layouts/build/ptu_tile_16x16.gds. ``--set`` takes ``prismpic.circuits.ptu.ptu``
parameters (rows, cols, row_pitch, …). Rows sit at 254 µm (twice the 127 µm fiber-array
pitch) so that each row's SOA gets its two pads beside it: the anode (top plate) above
the row, the cathode (bottom plate) below it. The crossing photodiodes' column wires
run on a second metal level that the PDK does not have yet: they are not drawn.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gdsfactory as gf

sys.path.insert(0, str(Path(__file__).resolve().parent))

import die_frame  # noqa: E402

TILE = dict(rows=16, cols=16, row_pitch=2 * die_frame.FIBER_PITCH)
TAPER_LENGTH = 200.0  # µm, edge couplers
PAD_SIZE = 80.0  # µm
LEAD = 5.0  # µm, SOA plate edge to its pad


@gf.cell
def ptu_tile_core(rows: int = 16, cols: int = 16, row_pitch: float = 2 * die_frame.FIBER_PITCH,
                  taper_length: float = TAPER_LENGTH, **ptu_params) -> gf.Component:
    """``ptu`` with an edge coupler on each row input (west facets at x = 0) and output (east), and SOA pads.

    Args:
        rows, cols, row_pitch: as ``ptu``.
        taper_length: edge-coupler taper length (µm).
        **ptu_params: other ``ptu`` parameters.
    """
    from prismpic.circuits.ptu import ptu
    from prismpic.components import electrical
    from prismpic.components.io import edge_coupler
    from prismpic.components.waveguides import straight

    c = gf.Component()
    tile = ptu(rows=rows, cols=cols, row_pitch=row_pitch, **ptu_params)
    t = c << tile
    t.dmove((taper_length, 0.0))
    ec = edge_coupler(taper_length=taper_length)
    east_x = t.ports[f"o{rows + 1}"].dcenter[0] + taper_length
    extra = round(die_frame.snap_up(east_x + 50.0) - east_x, 3)  # east facets on the 100 µm grid
    fill = straight(length=extra)
    for r in range(rows):
        w = c << ec
        w.connect("o2", t.ports[f"o{r + 1}"])
        c.add_port(f"in{r}", port=w.ports["o1"])
        f = c << fill
        f.connect("o1", t.ports[f"o{2 * rows - r}"])
        e = c << ec
        e.connect("o2", f.ports["o2"])
        c.add_port(f"out{r}", port=e.ports["o1"])
    pad = electrical.pad(size=PAD_SIZE)
    has_soa = ptu_params.get("with_soa", True)
    for r in range(rows if has_soa else 0):
        amp = tile.insts[f"amp_r{r}"]
        for name, sign in (("e2", 1), ("e1", -1)):
            port = amp.ports[name]
            x, y = port.dcenter[0] + taper_length, port.dcenter[1]
            p = c << pad
            p.dmove((x, y + sign * (LEAD + PAD_SIZE / 2)))
            lead = c << electrical.electrode_trace(length=LEAD + 1.0, width=20.0)
            lead.drotate(90 * sign)
            lead.dmove((x, y - sign * 0.5))
            c.add_port(f"soa{r}_{'anode' if sign > 0 else 'cathode'}", port=p.ports["e2" if sign > 0 else "e4"])
    return c


def build(**params):
    """The die: ``ptu_tile_core(**{**TILE, **params})`` framed (east facets on the die edge), labels."""
    p = {**TILE, **params}
    core = ptu_tile_core(**p)
    labels = [
        f"PTU TILE {p['rows']}x{p['cols']}",
        "GSST crossbar, Ge PD per crossing, SOA per row",
        "column wires: 2nd metal (not drawn)",
        "prismpic",
    ]
    return die_frame.die(core, tuple(labels), east_facets=True)


if __name__ == "__main__":
    die_frame.run(build, "ptu_tile_16x16.gds", __doc__)
