"""The table build's solve jobs with a guided search against the unguided one, at random nodes of each block.

Run: python benchmarks/bench_table_jobs.py [--per-block 8] [--seed 0]

The build (``prismpic.pdk.tables``) spends its time in shift-invert Arnoldi steps, whose number falls steeply as
the shift nears the wanted eigenvalue. Guided searches: the fine solve of a Richardson pair starts from just above
the coarse solve's mode (``modesolver.GUESS_MARGIN``) and every straight solve asks for one eigenpair first (three
only where that one is not the wanted mode); a coupler's gaps are solved from the widest down, each at the
supermodes predicted from the wider ones (``table_jobs.supermode_guesses``); a bend's radii from the largest down,
the decoupled TE mode at the index predicted from the larger radii (``table_jobs.bend_guess``). Unguided: every
search asks for three (bends: six) eigenpairs from above the slab index (bends: at the straight index). Per block
this prints the CPU time of both paths at the same nodes (same process), their ratio, and the largest difference of
any returned number (they find the same modes: round-off of the eigensolver's 1e-10 tolerance).
"""

from __future__ import annotations

import argparse
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from prismpic.pdk import (
    coupler_table,  # noqa: E402
    tables,  # noqa: E402
)
from prismpic.pdk import modesolver as ms  # noqa: E402
from prismpic.pdk import table_jobs as tj  # noqa: E402


def _unguided_straight(clad, angle, axis, pol, wl, w, t, f, decouple_tm=False, steps=None):
    sym = "pec" if pol == "te" else "pmc"
    modes = [_highest([m for m in ms.solve_modes(wl, w, t, f * t, math.inf, axis, clad, angle, None, sym, 3,
                                                 ms.Mesh(step=h), decouple_tm=decouple_tm) if m.confinement > 0.2], pol)
             for h in steps]
    n, dn = (tj.richardson(getattr(modes[0], q), getattr(modes[1], q), steps) for q in ("neff", "dneff_dwl"))
    m = modes[-1]
    return (n, dn, m.ln_overlap, m.mode_area_um2, m.te_fraction)


def _highest(modes, pol):
    """The highest mode of polarisation ``pol`` (TE: TE fraction > 0.5), as ``modesolver.straight_mode`` picks."""
    return next(m for m in modes if (m.te_fraction > 0.5) == (pol == "te"))


def _unguided_single(clad, angle, axis, pol, wl, w, t, f):
    modes = ms.solve_modes(wl, w, t, f * t, math.inf, axis, clad, angle, None, "pec" if pol == "te" else "pmc", 3)
    m = _highest([m for m in modes if m.confinement > 0.2], pol)
    return (m.neff, m.dneff_dwl, m.ln_overlap, m.mode_area_um2, m.te_fraction)


def _unguided_tm2(clad, angle, axis, wl, w, t, f, steps):
    sols = [ms.solve_modes(wl, w, t, f * t, math.inf, axis, clad, angle, None, "pmc", 3, ms.Mesh(step=h))
            for h in steps]
    paired = all(sum(m.confinement > 0.2 for m in s) >= 2 for s in sols)
    e1, e2 = (np.array(tj.tm2_elements(s, paired)) for s in sols)
    return tuple(tj.richardson(e1, e2, steps))


def _blocks(rng, per_block):
    """{block: [(guided job args (kind, args), unguided function, args)]} at random nodes of each grid."""
    def nodes(spec):
        g = tables.grid_nodes(spec)
        return [[float(rng.choice(v)) for v in g.values()] for _ in range(per_block)]

    out = {}
    steps = tables.TM_STEPS
    out["air TE (Richardson)"] = [(("straight", ("air", a, "z", "te", wl, w, t, f, False, steps)), _unguided_straight)
                                  for wl, w, t, f, a in nodes(tables.STRAIGHT_TE_AIR)]
    out["SiO2 TM (Richardson)"] = [(("straight", ("sio2", a, "y", "tm", wl, w, t, f, False, steps)),
                                    _unguided_straight) for wl, w, t, f, a in nodes(tables.STRAIGHT_TM)]
    out["air TM0/TE1 pair"] = [(("tm2", ("air", a, "z", wl, w, t, f, steps)), _unguided_tm2)
                               for wl, w, t, f, a in nodes(tables.STRAIGHT_TM2)]
    out["SiO2 TE (30 nm)"] = [(("straight", ("sio2", a, "z", "te", wl, w, t, f)), _unguided_single)
                              for wl, w, t, f, a in nodes(tables.STRAIGHT_TE)]
    out["coupler (9 gaps)"] = [(("coupler", (c, a, wl, sum(coupler_table.line_gaps(t, f, a), []), w, t, f,
                                             coupler_table.MESH)), _unguided_coupler)
                               for c, (wl, w, t, f, a) in zip(("sio2", "air") * per_block, nodes(coupler_table.LINE),
                                                              strict=False)]
    radii = list(tables.BEND_RADII)
    for name, kind, spec, axis, baseline in (("bend, y (3 radii)", "bend", tables.BEND, "y", _unguided_bend),
                                             ("bend pair, z (3 radii)", "bendpair", tables.BEND_PAIR, "z",
                                              _unguided_pair)):
        out[name] = []
        for c, (wl, w, t, f, a) in zip(("sio2", "air") * per_block, nodes(spec), strict=False):
            ref = tj.run_job(("straight", None, (c, a, axis, "te", wl, w, t, f, True)))[2]
            out[name].append(((kind, (c, a, axis, wl, w, t, f, radii, None if ref is None else ref[0].real)),
                              baseline))
    return out


def _unguided_coupler(clad, angle, wl, gaps, w, t, f, mesh):
    out = []
    for gap in gaps:
        args = (wl, w, t, f * t, math.inf, "z", clad, angle, gap)
        try:
            e, o = (_highest(ms.solve_modes(*args, symmetry=s, mesh=ms.Mesh(**mesh)), "te") for s in ("pec", "pmc"))
        except RuntimeError:
            out.append(None)
            continue
        out.append((e.neff.real, o.neff.real, e.dneff_dwl.real, o.dneff_dwl.real))
    return out


def _unguided_te_bend(clad, angle, axis, wl, w, t, f, radius, straight):
    return ms.bend_modes(wl, w, t, f * t, radius, axis, clad, angle, None, straight, decouple_tm=True)["te"]


def _unguided_bend(clad, angle, axis, wl, w, t, f, radii, straight):
    out = []
    for radius in radii:
        try:
            m = _unguided_te_bend(clad, angle, axis, wl, w, t, f, radius, straight)
        except (RuntimeError, KeyError):
            m = None
        out.append(None if m is None else (m.neff, m.dneff_dwl))
    return out


def _unguided_pair(clad, angle, axis, wl, w, t, f, radii, straight):
    out = []
    for radius in radii:
        try:
            full = ms.bend_modes(wl, w, t, f * t, radius, axis, clad, angle, None, straight)["modes"]
            te = _unguided_te_bend(clad, angle, axis, wl, w, t, f, radius, straight)
        except (RuntimeError, KeyError):
            out.append(None)
            continue
        full = sorted(full, key=lambda m: -m.neff.real)
        lo = (full[1].neff.real, full[1].dneff_dwl.real) if len(full) > 1 else (te.neff.real - 0.1,
                                                                                 te.dneff_dwl.real)
        out.append((full[0].neff.real, full[0].dneff_dwl.real, *lo, te.neff.real, te.dneff_dwl.real, te.neff.imag))
    return out


def _diff(a, b):
    if a is None or b is None:
        return 0.0 if a is None and b is None else math.inf
    if isinstance(a, list):  # one result per gap or radius
        return max(_diff(x, y) for x, y in zip(a, b, strict=True))
    return max(abs(complex(x) - complex(y)) for x, y in zip(a, b, strict=True))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-block", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    tj.run_job(("straight", None, ("sio2", 76.5, "z", "te", 1.55, 1.4, 0.6, 0.6)))  # imports, first-call costs
    print(f"{'block':24s} {'nodes':>5s} {'unguided s':>10s} {'guided s':>9s} {'ratio':>6s} {'max |Δ|':>9s}")
    for name, jobs in _blocks(rng, args.per_block).items():
        old = new = 0.0
        worst = 0.0
        for (kind, jargs), baseline in jobs:
            c0 = time.process_time()
            try:
                ref = baseline(*jargs)
            except RuntimeError:
                ref = None
            c1 = time.process_time()
            res = tj.run_job((kind, None, jargs))[2]
            c2 = time.process_time()
            old, new = old + c1 - c0, new + c2 - c1
            worst = max(worst, _diff(ref, res))
        print(f"{name:24s} {len(jobs):5d} {old:10.2f} {new:9.2f} {new / old:6.2f} {worst:9.1e}")


if __name__ == "__main__":
    main()
