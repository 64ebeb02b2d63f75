"""The 8×8 PRISM prototype die (S1-11): edge coupler, Y-splitter tree, 8 rows of 8 rings, balanced detectors, pads.

Run: python layouts/prototype_8x8.py [--out FILE] [--set key=value ...] [--no-drc]
Writes layouts/build/prototype_8x8.gds (and prismpic.lyp for KLayout). ``--set`` takes
``prismpic.circuits.prototype.prototype`` parameters (e.g. --set n_rows=4 --set gap=0.25).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import die_frame  # noqa: E402


def build(**params):
    """The die: ``prototype(**params)`` framed, with a loopback and labels."""
    from prismpic.circuits.prototype import prototype, prototype_params

    p = prototype_params(**params)
    core = prototype(**p)
    labels = [
        f"PRISM PROTOTYPE {p['n_rows']}x{p['d']}",
        f"{p['d']} ch x {p['spacing_nm']:g} nm @ {p['center_nm']:g} nm, gap {p['gap'] * 1e3:.0f} nm",
        "prismpic",
    ]
    return die_frame.die(core, tuple(labels))


if __name__ == "__main__":
    die_frame.run(build, "prototype_8x8.gds", __doc__)
