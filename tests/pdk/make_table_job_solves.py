"""Makes ``tests/pdk/data/table_job_solves.json``: the plain (unguided) mode searches that ``test_table_jobs.py``
holds the table build's guided line searches against (≈ 30 CPU-s, kept as test data; the guided searches, the code
under test, still run in every test run).

Run from the repository root after a change to the mode solver, the supermode or the bend solver::

    python tests/pdk/make_table_job_solves.py

A stale file shows as a guided search that no longer equals its plain search (the tests' 1e-9 in n_eff): run this
script, and the test then compares two fresh solves of the same solver.

- "coupler": ``supermodes.coupled_modes`` at each gap of ``GAPS`` for each point of ``COUPLER_POINTS``: the even and
  odd supermodes' n_eff and dn_eff/dλ (real parts);
- "bend_pair": at ``BEND_PAIR_POINT`` the straight TE0 index (decoupled from TM), then per radius of ``RADII`` the
  two highest bend modes of the full search (n_eff, dn_eff/dλ each) and the decoupled TE bend mode (n_eff,
  dn_eff/dλ, Im n_eff).
"""

from __future__ import annotations

import json
from pathlib import Path

import prismpic  # noqa: F401  (float64)
from prismpic.pdk import modesolver as ms
from prismpic.pdk import supermodes

OUT = Path(__file__).with_name("data") / "table_job_solves.json"
GAPS = (1.0, 0.775, 0.325, 0.1)  # µm, descending, as a coupler line's gaps are solved
RADII = (40.0, 16.0, 10.0)  # µm, from the largest down, as a bend line is solved
# (cladding, λ, width, film, etch fraction, wall angle): µm and degrees
COUPLER_POINTS = (("sio2", 1.55, 1.2, 0.6, 0.6, 70.0), ("air", 1.65, 2.2, 0.8, 0.4, 90.0))
BEND_PAIR_POINT = ("sio2", "z", 1.55, 1.4, 0.6, 0.6, 76.5)  # cladding, crystal axis, λ, width, film, fraction, angle


def point_key(point) -> str:
    """The JSON key of a point tuple."""
    return ",".join(map(str, point))


def coupler_solves(clad, wl, w, t, f, a) -> list[list[float]]:
    out = []
    for gap in GAPS:
        even, odd = supermodes.coupled_modes(wl, gap, w, t, f * t, cladding=clad, sidewall_angle_deg=a)
        out.append([even.neff.real, odd.neff.real, even.dneff_dwl.real, odd.dneff_dwl.real])
    return out


def bend_pair_solves(clad, axis, wl, w, t, f, a) -> dict:
    straight = ms.straight_mode(wl, w, t, f * t, "te", axis, clad, a, None, decouple_tm=True).neff.real
    lines = []
    for radius in RADII:
        geo = dict(crystal_axis=axis, cladding=clad, sidewall_angle_deg=a, neff_guess=straight)
        full = sorted(ms.bend_modes(wl, w, t, f * t, radius, **geo)["modes"], key=lambda m: -m.neff.real)
        te = ms.bend_modes(wl, w, t, f * t, radius, decouple_tm=True, **geo)["te"]
        lines.append([full[0].neff.real, full[0].dneff_dwl.real, full[1].neff.real, full[1].dneff_dwl.real,
                      te.neff.real, te.dneff_dwl.real, te.neff.imag])
    return {"straight": straight, "radii": lines}


def main() -> None:
    out = {"gaps_um": list(GAPS), "radii_um": list(RADII),
           "coupler": {point_key(p): coupler_solves(*p) for p in COUPLER_POINTS},
           "bend_pair": {point_key(BEND_PAIR_POINT): bend_pair_solves(*BEND_PAIR_POINT)}}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
