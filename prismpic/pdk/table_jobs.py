"""The mode solves behind the dispersion tables (``prismpic.pdk.tables``), run in the build's worker processes.

Each job takes plain floats and returns plain numbers (or None where the solver finds no guided mode), so the
build can cache it (``tables``: restartable builds) and run it in a spawned process.
"""

from __future__ import annotations

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


def tm2_elements(modes, paired: bool = True) -> tuple[float, float, float]:
    """(trace, detuning, coupling) of the TM0/TE1 pair: the two highest guided modes of one PMC solve.

    With eigenvalues n₊ > n₋ and c² = f₊ / (f₊ + f₋) the TE1 share of the upper mode (f: TE fractions; the basis
    modes are nearly pure, f₊ + f₋ = 1.00 ± 0.01), the uncoupled 2×2 matrix has n_TM0 − n_TE1 = (1 − 2c²)(n₊ − n₋)
    and coupling c·s·(n₊ − n₋), so its eigenvalues are n± again and the TM-like mode is
    T/2 + sign(detuning)·√(detuning² + 4 coupling²)/2. Labels are not used (at a crossing they flip with the mesh).
    With one guided mode (TE1 cut off), or ``paired`` False, the pair is that mode and a TE1 0.1 below it, uncoupled.
    """
    guided = [m for m in modes if m.confinement > 0.2]
    if not guided or (len(guided) == 1 or not paired) and guided[0].te_fraction > 0.5:
        raise RuntimeError("no guided TM-like mode")
    if len(guided) == 1 or not paired:
        return 2 * guided[0].neff.real - 0.1, 0.1, 0.0
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


def _bend_job(clad, angle, axis, wl, w, t, f, radius, guess, decouple_tm=True):
    from prismpic.pdk import modesolver as ms

    try:
        m = ms.bend_modes(wl, w, t, f * t, radius, crystal_axis=axis, cladding=clad, sidewall_angle_deg=angle,
                          neff_guess=guess, decouple_tm=decouple_tm)["te"]
    except (RuntimeError, KeyError):
        return None
    return (m.neff, m.dneff_dwl)


def bend_pair_job(clad, angle, axis, wl, w, t, f, radius, guess):
    """(n₊, dn₊/dλ, n₋, dn₋/dλ, n_TE, dn_TE/dλ) of one bend: the two highest guided eigenmodes of the full solve
    and the TE-like one of the decoupled solve (``modesolver.bend_modes(decouple_tm=True)``), whose TM is moved
    away. In the pair's 2×2 [[n_TE, g], [g, n_TM]] the eigenvalues are n₊ and n₋, so n_TM = n₊ + n₋ − n_TE and
    g² = (n₊ − n_TE)(n_TE − n₋). With one guided mode: n₋ = n_TE − 0.1 (uncoupled). None if no TE mode.
    ``guess``: the decoupled straight TE0 index, to centre the search on (None: no straight mode, no result)."""
    from prismpic.pdk import modesolver as ms

    if guess is None:
        return None
    try:
        geo = dict(crystal_axis=axis, cladding=clad, sidewall_angle_deg=angle, neff_guess=guess)
        full = ms.bend_modes(wl, w, t, f * t, radius, **geo)["modes"]
        te = ms.bend_modes(wl, w, t, f * t, radius, decouple_tm=True, **geo)["te"]
    except (RuntimeError, KeyError):
        return None
    a, da = te.neff.real, te.dneff_dwl.real
    full = sorted(full, key=lambda m: -m.neff.real)
    if len(full) < 2:
        return (full[0].neff.real, full[0].dneff_dwl.real, a - 0.1, da, a, da) if full else None
    up, lo = full[0], full[1]
    return (up.neff.real, up.dneff_dwl.real, lo.neff.real, lo.dneff_dwl.real, a, da)


def _coupler_job(clad, angle, wl, gap, w, t, f):
    from prismpic.pdk import modesolver as ms

    try:
        even, odd = ms.coupled_modes(wl, gap, w, t, f * t, cladding=clad, sidewall_angle_deg=angle)
    except RuntimeError:
        return None
    return (even.neff.real, odd.neff.real, even.dneff_dwl.real, odd.dneff_dwl.real)


def run_job(task):
    kind, key, args = task
    fn = {"straight": _straight_job, "tm2": _tm2_job, "bend": _bend_job, "bendpair": bend_pair_job,
          "coupler": _coupler_job}[kind]
    c0 = time.process_time()
    res = fn(*args)
    return kind, key, res, time.process_time() - c0
