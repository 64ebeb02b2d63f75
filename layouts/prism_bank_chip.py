"""The PRISM bank die (default 256 channels × 32 rings): edge coupler, 1×256 tree, the bank, detectors, pads.

Run: python layouts/prism_bank_chip.py [--out FILE] [--set key=value ...] [--no-drc]
Writes layouts/build/prism_bank_256x32.gds. The circuit is ``prototype`` with the bank's
parameters: 10 µm ring spacing and 54 µm pads (50 µm openings, one per ring at the
58.8 µm ring pitch). ``--set n_rows=4 --set d=4`` builds a small tile of the same design.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import die_frame  # noqa: E402

BANK = dict(n_rows=256, d=32, ring_spacing=10.0, pad_size=54.0)


def build(**params):
    """The die: ``prototype(**{**BANK, **params})`` framed, with a loopback and labels."""
    from prismpic.circuits.prototype import prototype, prototype_params

    p = prototype_params(**{**BANK, **params})
    core = prototype(**p)
    labels = [
        f"PRISM BANK {p['n_rows']}x{p['d']}",
        f"{p['d']} ch x {p['spacing_nm']:g} nm @ {p['center_nm']:g} nm, {p['n_rows'] * p['d']} rings",
        "prismpic",
    ]
    return die_frame.die(core, tuple(labels))


if __name__ == "__main__":
    die_frame.run(build, "prism_bank_256x32.gds", __doc__)
