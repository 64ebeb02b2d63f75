"""The mode solves behind the dispersion tables (``prismpic.pdk.tables``), run in the build's worker processes.

Each job takes plain floats and returns plain numbers (or None where the solver finds no guided mode), so the
build can cache it (``tables``: restartable builds) and run it in a spawned process.
"""

from __future__ import annotations

import math
import time

import numpy as np


def richardson(v1, v2, steps):
    """Richardson extrapolation to zero mesh step of values at steps (h1, h2) with error ∝ h²:
    v(0) = (h1² v(h2) − h2² v(h1)) / (h1² − h2²)."""
    h1, h2 = steps
    r = h1**2 / (h1**2 - h2**2)
    return r * v2 - (r - 1) * v1


def _straight_job(clad, angle, axis, pol, wl, w, t, f, decouple_tm=False, steps=None):
    """The straight mode at the default mesh (``steps`` None), at one step ((h,)) or Richardson-extrapolated
    from two ((h1, h2)): (n_eff, dn_eff/dλ, Γ, mode area, TE fraction), the last three at the finest step. The
    fine solve searches near the coarse mode (``modesolver.straight_mode(near=...)``)."""
    from prismpic.pdk import modesolver as ms

    meshes = [None] if steps is None else [ms.Mesh(step=h) for h in steps]
    modes = []
    try:
        for mesh in meshes:
            modes.append(ms.straight_mode(wl, w, t, f * t, pol, axis, clad, angle, mesh, decouple_tm,
                                          modes[-1] if modes else None))
    except RuntimeError:
        return None
    m = modes[-1]
    neff, dneff = m.neff, m.dneff_dwl
    if len(modes) == 2:
        neff, dneff = (richardson(getattr(modes[0], q), getattr(m, q), steps) for q in ("neff", "dneff_dwl"))
    return (neff, dneff, m.ln_overlap, m.mode_area_um2, m.te_fraction)


# (detuning, coupling) of a node where TE1 is not guided at both mesh steps: TM0 alone, a TE1 placeholder 0.1 below it
UNPAIRED = (0.1, 0.0)


def tm2_elements(modes, paired: bool = True) -> tuple[float, float, float]:
    """(trace, detuning, coupling) of the TM0/TE1 pair: the two highest guided modes of one PMC solve.

    With eigenvalues n₊ > n₋ and c² = f₊ / (f₊ + f₋) the TE1 share of the upper mode (f: TE fractions; the basis
    modes are nearly pure, f₊ + f₋ = 1.00 ± 0.01), the uncoupled 2×2 matrix has n_TM0 − n_TE1 = (1 − 2c²)(n₊ − n₋)
    and coupling c·s·(n₊ − n₋), so its eigenvalues are n± again and the TM-like mode is
    T/2 + sign(detuning)·√(detuning² + 4 coupling²)/2. Labels are not used (at a crossing they flip with the mesh).
    With one guided mode (TE1 cut off), or ``paired`` False, the pair is that mode and a TE1 0.1 below it, uncoupled
    (``UNPAIRED``; the model continues the pair over these nodes: ``dispersion``).
    """
    guided = [m for m in modes if m.confinement > 0.2]
    if not guided or (len(guided) == 1 or not paired) and guided[0].te_fraction > 0.5:
        raise RuntimeError("no guided TM-like mode")
    if len(guided) == 1 or not paired:
        return 2 * guided[0].neff.real - UNPAIRED[0], *UNPAIRED
    up, lo = guided[0], guided[1]
    c2 = up.te_fraction / (up.te_fraction + lo.te_fraction)
    dn = up.neff.real - lo.neff.real
    return up.neff.real + lo.neff.real, (1 - 2 * c2) * dn, float(np.sqrt(c2 * (1 - c2))) * dn


def _guided_labels(modes):
    """TE-like (True) or not, of the guided modes (confinement > 0.2), highest first."""
    return [m.te_fraction > 0.5 for m in modes if m.confinement > 0.2]


def _tm2_job(clad, angle, axis, wl, w, t, f, steps):
    from prismpic.pdk import modesolver as ms

    try:
        geo = (wl, w, t, f * t, np.inf, axis, clad, angle, None, "pmc")
        coarse = ms.solve_modes(*geo, 3, ms.Mesh(step=steps[0]))
        # the fine solve searches for the pair just above the coarse one (``modesolver.GUESS_MARGIN``); the three
        # highest modes as at the coarse step where its guided modes are not the coarse ones' (number or labels)
        guess = max(m.neff.real for m in coarse) + ms.GUESS_MARGIN if coarse else None
        fine = ms.solve_modes(*geo, 2, ms.Mesh(step=steps[1]), guess, ncv=8) if guess else []
        if _guided_labels(fine) != _guided_labels(coarse)[:2]:
            fine = ms.solve_modes(*geo, 3, ms.Mesh(step=steps[1]), guess)
        sols = [coarse, fine]
        # the same pair at both steps (TE1 near its cutoff can be guided at one step only): else TM0 alone at both
        paired = all(sum(m.confinement > 0.2 for m in s) >= 2 for s in sols)
        e1, e2 = (np.array(tm2_elements(s, paired)) for s in sols)
    except RuntimeError:
        return None
    return tuple(float(v) for v in richardson(e1, e2, steps))


def _bend_te_mode(wl, width, film_thickness, etch_depth, radius, crystal_axis, cladding, sidewall_angle_deg, mesh,
                  straight_neff: float, guess: float | None = None, decouple_tm: bool = True):
    """``modesolver.bend_modes(..., neff_guess=straight_neff, decouple_tm=decouple_tm)["te"]``. With ``guess`` (a predicted
    bend index, e.g. from larger radii) the one eigenpair nearest it first, taken if it is a guided TE-like mode
    within max(0.01, ½|guess − straight_neff|) of it (the bend shift's prediction error): about half the CPU of
    the plain search, the same mode (``benchmarks/bench_table_jobs.py``)."""
    from prismpic.pdk import modesolver as ms

    geo = (wl, width, film_thickness, etch_depth, radius, crystal_axis, cladding, sidewall_angle_deg, None, None)
    if guess is not None:
        window = max(0.01, 0.5 * abs(guess - straight_neff))
        found = [m for m in ms.solve_modes(*geo, 1, mesh, guess, 0, decouple_tm=decouple_tm, ncv=6)
                 if m.te_fraction > 0.5 and abs(m.neff.real - guess) < window]
        if found:
            return found[0]
    b = ms.bend_modes(wl, width, film_thickness, etch_depth, radius, crystal_axis, cladding, sidewall_angle_deg, mesh,
                      straight_neff, decouple_tm)
    if "te" not in b:
        raise RuntimeError(f"no guided TE bend mode at radius = {radius} µm")
    return b["te"]


# a decoupled TE bend index this far above every full-solve mode found is a missed branch (``bend_pair_line_job``); the
# decoupling's own bias is < 3e-4 (straight TE0 full minus decoupled, the pair block's "bias")
PAIR_MISS = 1e-3


def bend_guess(straight: float, radii: list[float], done: list[float]) -> float:
    """Predicted TE bend index at the next, smaller radius of ``radii`` (µm, descending) from the straight index and
    the bend indices ``done`` at the radii before it: the shift n_bend − n_straight as a power of 1/R through the last
    two (at first ∝ 1/R^1.75, the outward displacement's ∝ 1/R² softened as the mode nears the outer wall)."""
    if not done:
        return straight + 0.005
    s1, r1, r = done[-1] - straight, radii[len(done) - 1], radii[len(done)]
    p = 1.75
    if len(done) >= 2:
        s0, r0 = done[-2] - straight, radii[len(done) - 2]
        p = math.log(s1 / s0) / math.log(r0 / r1) if s1 > s0 > 0 else p
    return straight + max(s1, 0.0) * (r1 / r) ** p


def _along_line(points, predict, solve) -> dict:
    """{point: solve(point, guess) or None (RuntimeError)}, in the order given; ``guess`` is predict(results so far),
    None once a point has failed (the predictions extrapolate from the points just before)."""
    out, done = {}, []
    for point in points:
        guess = predict(done) if len(done) == len(out) else None
        try:
            out[point] = solve(point, guess)
        except RuntimeError:
            out[point] = None
            continue
        done.append(out[point])
    return out


def _bend_te_line(clad, angle, axis, wl, w, t, f, radii, straight, mesh=None):
    """{radius: decoupled TE bend Mode or None}, solved from the largest radius down (``bend_guess``)."""
    order = sorted(radii, reverse=True)
    return _along_line(order, lambda done: bend_guess(straight, order, [m.neff.real for m in done]),
                       lambda r, guess: _bend_te_mode(wl, w, t, f * t, r, axis, clad, angle, mesh, straight, guess))


def bend_radiation_line_job(clad, angle, axis, wl, w, t, f, radii, straight, mesh):
    """[(Im n_eff,) or None] of the decoupled TE bend mode at each radius (µm), on ``mesh`` (a dict of ``Mesh``
    fields: the leaky-mode settings of ``bend_radiation.MESH``); ``straight``: the straight TE0 index the search
    starts from."""
    from prismpic.pdk.ridge_geometry import Mesh

    modes = _bend_te_line(clad, angle, axis, wl, w, t, f, radii, straight, Mesh(**mesh))
    return [None if modes[r] is None else (float(modes[r].neff.imag),) for r in radii]


def bend_line_job(clad, angle, axis, wl, w, t, f, radii, straight):
    """[(n_eff, dn_eff/dλ) or None] of the decoupled TE bend mode at each radius (µm); ``straight``: the decoupled
    straight TE0 index (None: no straight mode, no result)."""
    if straight is None:
        return [None] * len(radii)
    modes = _bend_te_line(clad, angle, axis, wl, w, t, f, radii, straight)
    return [None if modes[r] is None else (modes[r].neff, modes[r].dneff_dwl) for r in radii]


def bend_pair_line_job(clad, angle, axis, wl, w, t, f, radii, straight):
    """[(n₊, dn₊/dλ, n₋, dn₋/dλ, n_TE, dn_TE/dλ, Im n_TE) or None] of one bend at each radius (µm): the two highest
    guided eigenmodes of the full solve and the TE-like one of the decoupled solve (``_bend_te_line``), whose TM is
    moved away. In the pair's 2×2 [[n_TE, g], [g, n_TM]] the eigenvalues are n₊ and n₋, so n_TM = n₊ + n₋ − n_TE
    and g² = (n₊ − n_TE)(n_TE − n₋). With one guided mode: n₋ = n_TE − 0.1 (uncoupled). None if no TE mode.
    ``straight``: the decoupled straight TE0 index, to centre the full search on (None: no result)."""
    from prismpic.pdk import modesolver as ms

    if straight is None:
        return [None] * len(radii)
    tes = _bend_te_line(clad, angle, axis, wl, w, t, f, radii, straight)
    geo = dict(crystal_axis=axis, cladding=clad, sidewall_angle_deg=angle)
    out = []
    for radius in radii:
        te = tes[radius]
        try:
            full = ms.bend_modes(wl, w, t, f * t, radius, neff_guess=straight, **geo)["modes"] if te is not None else []
            # the pair brackets n_TE (n₊ ≥ n_TE ≥ n₋): a decoupled TE above every full mode found means the search
            # at the straight index missed the branch (a wide ridge's whispering-gallery mode at R = 10 µm, 0.1–0.14
            # above it): search again at n_TE
            if full and te.neff.real > max(m.neff.real for m in full) + PAIR_MISS:
                full = ms.bend_modes(wl, w, t, f * t, radius, neff_guess=te.neff.real, **geo)["modes"]
        except RuntimeError:
            full = []
        if not full:
            out.append(None)
            continue
        a, da = te.neff.real, te.dneff_dwl.real
        full = sorted(full, key=lambda m: -m.neff.real)
        up = full[0]
        lo = (full[1].neff.real, full[1].dneff_dwl.real) if len(full) > 1 else (a - 0.1, da)
        out.append((up.neff.real, up.dneff_dwl.real, *lo, a, da, te.neff.imag))
    return out


def supermode_guesses(n0: float, gaps: list[float], done: list[tuple[float, float]]) -> tuple[float, float]:
    """Predicted (n_even, n_odd) at the next, narrower gap of ``gaps`` (µm, descending) from the single ridge's TE0
    index n0 and the supermodes ``done`` at the gaps before it: the splitting n_even − n_odd grows as exp(−γ gap)
    (coupled-mode theory; γ from the last two gaps), the mean drifts linearly."""
    if not done:
        return n0, n0
    (e1, o1), g1, g = done[-1], gaps[len(done) - 1], gaps[len(done)]
    if len(done) == 1:
        return e1, o1
    (e0, o0), g0 = done[-2], gaps[len(done) - 2]
    s0, s1 = e0 - o0, e1 - o1
    split = s1 * (s1 / s0) ** ((g1 - g) / (g0 - g1)) if s1 > s0 > 0 else s1
    mean = 0.5 * (e1 + o1) + 0.5 * ((e1 + o1) - (e0 + o0)) * (g1 - g) / (g0 - g1)
    return mean + 0.5 * split, mean - 0.5 * split


def coupler_line_job(clad, angle, wl, gaps, w, t, f, mesh=None):
    """[(n_even, n_odd, dn_even/dλ, dn_odd/dλ) or None] of one coupler at each gap of ``gaps`` (µm). The distinct gaps
    are solved from the widest down, each search at the supermodes predicted from the wider ones and the single ridge's
    TE0 (``supermode_guesses``, ``supermodes.coupled_modes(guess=...)``); ``mesh``: a dict of ``Mesh`` fields (None:
    the default mesh)."""
    from prismpic.pdk import modesolver as ms
    from prismpic.pdk import supermodes
    from prismpic.pdk.ridge_geometry import Mesh

    grid = None if mesh is None else Mesh(**mesh)

    try:
        n0 = ms.straight_mode(wl, w, t, f * t, "te", "z", clad, angle, None).neff.real
    except RuntimeError:
        n0 = None
    order = sorted(set(gaps), reverse=True)  # a gap given twice is solved once (at 90° walls g_t = 0: the merged
    # nodes and the feet's merge are all the top gap 0; a repeated gap broke the prediction, and its solve ran unguided)

    def predict(done):
        return None if n0 is None else supermode_guesses(n0, order, [(e.neff.real, o.neff.real) for e, o in done])

    def solve(gap, guess):
        return supermodes.coupled_modes(wl, gap, w, t, f * t, cladding=clad, sidewall_angle_deg=angle, guess=guess,
                                        mesh=grid)

    out = _along_line(order, predict, solve)
    return [None if out[g] is None else (out[g][0].neff.real, out[g][1].neff.real, out[g][0].dneff_dwl.real,
                                         out[g][1].dneff_dwl.real) for g in gaps]


def run_job(task):
    kind, key, args = task
    fn = {"straight": _straight_job, "tm2": _tm2_job, "bend": bend_line_job, "bendpair": bend_pair_line_job,
          "coupler": coupler_line_job, "bendrad": bend_radiation_line_job}[kind]
    c0 = time.process_time()
    res = fn(*args)
    return kind, key, res, time.process_time() - c0
