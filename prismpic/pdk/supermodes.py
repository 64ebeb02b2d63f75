"""Supermodes of two identical parallel TFLN ridges (directional couplers) from the mode solver
(``prismpic.pdk.modesolver``): even and odd TE supermodes and the coupling coefficient they give."""

from __future__ import annotations

import math

from prismpic.pdk import modesolver as ms
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, RIDGE_WIDTH, SIDEWALL_ANGLE_DEG

# a coupler supermode search takes a TE-like mode only this close to its guess: the TE1-derived supermodes lie
# ≥ 0.05 below TE0 on the coupler table's grid (0.058 at its widest ridge, 2.2 µm)
SUPERMODE_WINDOW = 0.03


def coupled_modes(
    wl: float = 1.55,
    gap: float = 0.25,
    width: float = RIDGE_WIDTH,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    crystal_axis: str = "z",
    cladding: str = CLADDING,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
    mesh: ms.Mesh | None = None,
    guess: tuple[float, float] | None = None,
) -> tuple[ms.Mode, ms.Mode]:
    """Even and odd TE supermodes of two identical ridges at top-edge gap ``gap`` (µm): the highest TE-like mode of
    each mirror class among its three highest.

    ``guess``: predicted n_eff of (even, odd), e.g. from the same pair at wider gaps. Each search then starts
    ``modesolver.GUESS_MARGIN`` above the guess (so that of two hybrid TE/TM modes at a crossing, both TE-like, the
    upper is the nearer) and takes the one eigenpair nearest if it is TE-like and within ``SUPERMODE_WINDOW`` of the
    guess; else the highest TE-like one within the window among the three nearest; else the three highest, as without
    a guess. About 1/3 of the Arnoldi steps, the same modes (``benchmarks/bench_table_jobs.py``).
    """
    args = (wl, width, film_thickness, etch_depth, math.inf, crystal_axis, cladding, sidewall_angle_deg, gap)
    out = []
    for symmetry, n in zip(("pec", "pmc"), guess or (None, None), strict=True):
        mode = None
        if n is not None:
            def near(modes, n=n):
                return [m for m in modes if m.te_fraction > 0.5 and abs(m.neff.real - n) < SUPERMODE_WINDOW]

            for k, ncv in ((1, 6), (3, None)):
                found = near(ms.solve_modes(*args, symmetry=symmetry, num_modes=k, mesh=mesh,
                                            neff_guess=n + ms.GUESS_MARGIN, ncv=ncv))
                if found:
                    mode = max(found, key=lambda m: m.neff.real)
                    break
        out.append(mode or ms.fundamental(ms.solve_modes(*args, symmetry=symmetry, mesh=mesh), "te"))
    return out[0], out[1]


def coupling_per_um(wl: float = 1.55, gap: float = 0.25, **kwargs) -> float:
    """Coupling coefficient C = π (n_even − n_odd)/λ (1/µm) of two identical parallel ridges (TE)."""
    even, odd = coupled_modes(wl, gap, **kwargs)
    return math.pi * (even.neff.real - odd.neff.real) / wl
