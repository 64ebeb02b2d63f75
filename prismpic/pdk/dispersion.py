"""Compact dispersion model of the TFLN ridge: smooth fits to the mode-solver tables.

The tables (``prismpic/pdk/data/dispersion_tables.npz``, built by
``prismpic.pdk.tables.build_tables`` with ``prismpic.pdk.modesolver``) hold n_eff on
tensor grids of Chebyshev–Lobatto nodes. They are turned once, on first use and with NumPy,
into tensor-product Chebyshev interpolants in the normalised coordinates (λ, 1/width,
film thickness, etched fraction of the film[, 1/R or gap]); the functions below evaluate
them with ``jax.numpy`` only, so they are jittable and differentiable in every argument.
Every interpolant also has a sidewall-angle axis (degrees from the horizontal; 90 = vertical), and
there is one set per cladding (``"sio2"``, ``"air"``; a Python string, chosen outside any trace).
Width is the ridge's top width and gap the gap between the ridge tops, as drawn on the mask; the
defaults of the angle and the cladding are the process's (``prismpic.pdk.stack``).

- Straight n_eff: along λ the interpolant also matches the solver's exact dn_eff/dλ at
  each node (Hermite data), so n_g = n_eff − λ ∂n_eff/∂λ, taken from the model itself by
  ``jax.jvp``, is as accurate as n_eff. Phase and group delay come from one function.
- Bends (TE): n_eff(R) = n_eff(∞) + κ² g(κ), κ = 1/R (the bend shift is even in κ), g a
  quadratic in κ through solves at R = 10, 16, 40 µm (with Hermite λ data as above), solved with the TM mode
  moved away (``modesolver.bend_shift``), plus the TE/TM mixing below; n_eff refers to the ridge centre
  (β = m/R). Radiation loss: from leaky-mode solves at radii 10–40 µm, both crystal axes, averaged
  around the ring (``bend_radiation``); 0 at R = inf. TM bends are not tabulated.
- Coupling: ln C of two identical ridges, C = π (n_even − n_odd)/λ, from its own tables on each side of the merge of
  the ridges' feet (``coupler_table``).
- Straight TM n_eff: TM0 hybridises with TE1 (the first odd TE mode, in TM0's mirror class) in avoided
  crossings inside the TM domain, so the TM-labelled eigenmode changes branch and its n_eff is not smooth.
  Where the tables hold the pair (``<cladding>_tm2_<axis>_*``, built for ``tables.TM2_AXES``; elsewhere the TM
  table serves) they hold its 2×2 index matrix in the uncoupled basis (trace T, detuning d = n_TM0 − n_TE1,
  coupling g: smooth), interpolated like the rest; the model takes the TM-like eigenvalue
  T/2 + sign(d)·√(d² + 4g²)/2 (the one ``modesolver.solve_mode`` labels TM: the upper branch where d > 0),
  and n_g from its λ-derivative. Through the crossing itself (d = 0) n_eff jumps by 2g, as the solver's
  TM label does. Where TE1 is cut off (narrow, shallow, steep ridges) a node holds TM0 alone; the pair is continued
  over those nodes (``tm2_continued``).
- Each cladding may have its own, denser straight grids over the same ranges (``tables.STRAIGHT``: air-clad TE is
  Richardson-extrapolated in the mesh step and has more film nodes); ``domain()`` is the same for both.
- Bends are tabulated per cladding (tables of older builds may hold SiO2 bends only; the other cladding then
  takes those).
- The bend's TE/TM mixing (crystal_axis "z"): a bend breaks the mirror symmetry that keeps TE0 and TM0 apart
  in a straight ridge, and in X-cut film they cross near 0.6–0.65 µm (TE0 on n_e, TM0 on n_o), so the bend
  eigenmode a ring resonates on carries an avoided crossing that the decoupled shift leaves out (0.016 in n_g along z,
  0.34 % of the FSR of the default 20 µm ring). Per cladding the tables hold the full bend solve's two highest
  eigenvalues and the decoupled TE one (``tables.BEND_PAIR``); the model takes the pair's 2×2 in the uncoupled
  basis (detuning d = n_TE − n_TM and coupling² g² = κ² h, ``bend_pair_elements``: smooth, even in κ) and adds
  the TE-labelled eigenvalue's offset (−d + sign(d)·√(d² + 4g²))/2 to the decoupled bend. Through d = 0 the
  TE-labelled mode changes branch and n_eff jumps by 2g, as the solver's label does. Crystal axis "y" has no
  crossing (TE on n_o lies 0.08 above TM). The detuning takes the straight ridge's mesh correction (the 30 nm
  solves put TM0 ≈ 1e-3 high, which would move the crossing), and the uncoupled TE the decoupling's own bias.
  Against converged full bend solves (Richardson 20/10 nm, 6 points off the grid, both claddings, beside and past
  the crossing): n_eff within 5.3e-4, n_g within 2.5e-3 (0.11 %); stated accuracy 6e-4 / 3e-3. At the crossing
  itself both eigenmodes are half TE and the label (and a TE index) is not defined.

Under ``jax.jit`` (traced arguments, where no check can raise) the contract is NaN: every
interpolant returns NaN at a point outside its table (any normalised coordinate beyond
[−1, 1] by more than ``chebyshev.DOMAIN_TOL``), so n_eff, n_g, Γ, the coupling and the bend loss, and
every model built on them, give NaN there, never a finite extrapolation; gradients at points
inside stay finite.

Validity (ValueError outside, naming the parameter, value and range): see ``domain()``;
etch depths are checked as the etched fraction etch_depth / film_thickness; bends also
need radius ≥ the smallest tabulated radius that still guides a mode for the
cross-section (interpolated). Lengths and wavelengths in µm.
"""

from __future__ import annotations

import functools
import json
import math
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
from numpy.polynomial import chebyshev as npcheb

from prismpic.checks import check_choice, check_range, concrete
from prismpic.pdk import bend_radiation, table_jobs
from prismpic.pdk import coupler_table as _coupler_table
from prismpic.pdk import tables as _tables
from prismpic.pdk.chebyshev import (
    ChebyshevFit,
    coefficients_from_nodes,
    filled_nan,
    hermite_coefficients,
    smoothest_fill,
    unit_coordinate,
)
from prismpic.pdk.ridge_stack import DEFAULT, RidgeStack
from prismpic.pdk.stack import CLADDINGS, RING_RADIUS
from prismpic.pdk.tables import BEND_RADII, lobatto

_KAPPA_MAX = 1.0 / min(BEND_RADII)
_PAIR_BIAS = 2e-4  # how far the uncoupled TE may lie outside the bend pair's eigenvalues (the bias correction's rest)


# ----------------------------------------------------------------------------- fits of the tables


def _straight_fit(t, name, axis, quantity, hermite):
    g = t.grids[name]
    vals = filled_nan(t.arrays[f"{name}_{axis}_{quantity}"])
    if hermite:  # λ axis: values and exact slopes → 2n Chebyshev coefficients
        c = hermite_coefficients(vals, filled_nan(t.arrays[f"{name}_{axis}_dneff_dwl"]), *g["wl"][:2])
        return ChebyshevFit(g, coefficients_from_nodes(c, range(1, c.ndim)))
    return ChebyshevFit(g, coefficients_from_nodes(vals, range(vals.ndim)))


def _kappa_fit(g, values, derivs):
    """Interpolant over the grid ``g`` and κ = 1/R of node values at ``BEND_RADII`` (radius last) and their
    λ-derivatives: a quadratic in κ through the three radii, cubic Hermite in λ (NaN nodes filled)."""
    kap = 1.0 / np.asarray(BEND_RADII)
    vk = np.linalg.inv(npcheb.chebvander(2 * kap / _KAPPA_MAX - 1, len(kap) - 1))  # values → coefficients in κ
    ck, dck = (np.einsum("jk,...k->...j", vk, filled_nan(x)) for x in (values, derivs))
    c = hermite_coefficients(ck, dck, *g["wl"][:2])
    return ChebyshevFit(g, coefficients_from_nodes(c, range(1, len(g))), (("kappa", 0.0, _KAPPA_MAX),))


def _bend_fits(t, axis):
    """TE bend shift n_bend − n_straight = κ² g(λ, geometry, κ) and R_min per node (the radiation loss:
    ``bend_radiation``)."""
    g = t.grids["bend"]
    dn, ddn = (t.arrays[f"bend_te_{axis}_{q}"] for q in ("dneff", "ddneff_dwl"))
    radii = np.asarray(BEND_RADII)
    kap = 1.0 / radii
    ok = np.isfinite(dn)
    # smallest radius from which on every tabulated radius guides a mode
    good = np.cumprod(ok[..., ::-1], axis=-1)[..., ::-1].astype(bool)
    rmin = np.where(good.any(-1), radii[np.argmax(good, axis=-1)], np.inf)
    shift = _kappa_fit(g, dn / kap**2, ddn / kap**2)
    return shift, rmin


def _model():
    """The interpolants, built once; outside any trace, so later calls never see stale tracers."""
    with jax.ensure_compile_time_eval():
        return _build_model()


def _cladding_fits(meta: dict, arrays: dict, clad: str) -> SimpleNamespace:
    """The interpolants of one cladding's table set."""
    prefix = f"{clad}_"
    t = SimpleNamespace(grids=_cladding_grids(meta, clad), arrays={k[len(prefix):]: v for k, v in arrays.items()
                                                                   if k.startswith(prefix)})
    pols = [(p, a) for p in ("te", "tm") for a in ("z", "y")]
    if "bend_te_z_dneff" not in t.arrays:
        raise ValueError(f"the dispersion tables hold no bend table for cladding {clad!r}: rebuild them "
                         "(prismpic tables)")
    return SimpleNamespace(
        straight={k: _straight_fit(t, *k, "neff", True) for k in pols},
        tm2=_tm2_fits(meta, t),
        bend_pair=_bend_pair_fits(meta, t),
        area={k: _straight_fit(t, *k, "area", False) for k in pols},
        gamma=_straight_fit(t, "te", "z", "gamma", False),
        bend={a: _bend_fits(t, a) for a in ("z", "y")},
    )


def _tm2_fits(meta: dict, t: SimpleNamespace) -> dict:
    """{axis: (trace, detuning, coupling)} interpolants of the TM0/TE1 pair (``table_jobs.tm2_elements``), for the axes
    that have a pair table (the others take the TM table)."""
    g = meta.get("tm2_grid")
    axes = [a for a in ("z", "y") if f"tm2_{a}_trace" in t.arrays]
    if not axes:
        return {}
    if any(tuple(v[:2]) != tuple(meta["grids"]["tm"][k][:2]) for k, v in g.items()):
        raise ValueError(f"the TM0/TE1 table spans {g}, not the TM table's ranges {meta['grids']['tm']}")
    return {axis: tuple(ChebyshevFit(g, coefficients_from_nodes(a, range(len(g))))
                        for a in tm2_continued(*(t.arrays[f"tm2_{axis}_{q}"] for q in ("trace", "detuning", "coupling"))))
            for axis in axes}


def tm2_continued(trace, detuning, coupling):
    """The TM0/TE1 pair's node arrays with the pair continued over the nodes where TE1 is not guided, and over the
    nodes where the solve found no TM-like mode (NaN).

    Those nodes hold TM0 alone with a placeholder TE1 (``table_jobs.UNPAIRED``: narrow, shallow, vertical-walled
    ridges near TE1's cut-off). Their eigenvalue is right but the elements jump there (detuning 0.06 → 0.1, coupling
    0.013 → 0), and interpolating across the jump put the TM n_eff 8e-4 and n_g 9e-3 off between the nodes (SiO2,
    crystal y; session 35). Here detuning and coupling take the smoothest continuation of the paired nodes
    (``chebyshev.smoothest_fill``) and the trace the value that keeps the node's TM eigenvalue:
    T = 2 n_TM − sign(d)·√(d² + 4g²); at a NaN node all three are continued."""
    trace, detuning, coupling = (np.asarray(a, float) for a in (trace, detuning, coupling))
    unsolved = ~(np.isfinite(trace) & np.isfinite(detuning) & np.isfinite(coupling))
    unpaired = (detuning == table_jobs.UNPAIRED[0]) & (coupling == table_jobs.UNPAIRED[1])
    if not (unpaired | unsolved).any():
        return trace, detuning, coupling
    n_tm = 0.5 * trace + 0.5 * table_jobs.UNPAIRED[0]
    d, g = (smoothest_fill(a, unpaired | unsolved) for a in (detuning, coupling))
    t = np.where(unpaired, 2 * n_tm - np.sign(d) * np.sqrt(d**2 + 4 * g**2), trace)
    return smoothest_fill(t, unsolved), d, g


def bend_pair_elements(up, dup, lo, dlo, te, dte):
    """(detuning n_TE − n_TM, coupling g², their λ-derivatives) of the bend's TE0/TM0 pair in the uncoupled basis.

    From the full solve's two highest eigenvalues n₊ > n₋ and the decoupled TE eigenvalue n_TE
    (``table_jobs.bend_pair_line_job``): the 2×2 [[n_TE, g], [g, n_TM]] with n_TM = n₊ + n₋ − n_TE (the trace) and
    g² = (n₊ − n_TE)(n_TE − n₋) has eigenvalues n₊ and n₋ exactly. g² can come out slightly negative where the
    mixing is below the decoupling's own bias (far from the crossing); it is kept signed, so every node is
    reproduced. NumPy or jnp arrays; λ-derivatives in 1/µm.
    """
    d = 2 * te - up - lo
    dd = 2 * dte - dup - dlo
    g2 = (up - te) * (te - lo)
    dg2 = (dup - dte) * (te - lo) + (up - te) * (dte - dlo)
    return d, dd, g2, dg2


def _bend_pair_fits(meta: dict, t: SimpleNamespace) -> dict:
    """{axis: (detuning(λ, geometry, κ), g²/κ²(λ, geometry, κ))} interpolants of the bend's TE0/TM0 pair
    (``bend_pair_elements``), for the axes the tables hold (``tables.BEND_PAIR_AXES``). Both are even in κ = 1/R
    (a bend to the left mixes as one to the right) and g ∝ κ to first order, so g² is carried as κ² h(κ);
    each is a quadratic in κ through the three radii and cubic Hermite in λ, like the bend shift."""
    g = meta.get("bend_pair_grid")
    axes = [a for a in ("z", "y") if f"bendpair_{a}_up" in t.arrays]
    if not axes:
        return {}
    kap = 1.0 / np.asarray(BEND_RADII)
    out = {}
    for axis in axes:
        raw = [t.arrays[f"bendpair_{axis}_{q}"] for q in ("up", "dup_dwl", "lo", "dlo_dwl", "te", "dte_dwl")]
        # the decoupled solve also moves TE0 itself (its E_y sees the changed ε_yy): the uncoupled TE of the bend is
        # the decoupled one plus that bias, taken from the straight ridge (up to 4.9e-4 under SiO2, 8.5e-4 under air)
        bias, dbias = (t.arrays[f"bendpair_{axis}_{q}"][..., None] for q in ("bias", "dbias_dwl"))
        raw[4], raw[5] = raw[4] + filled_nan(bias), raw[5] + filled_nan(dbias)
        d, dd, g2, dg2 = bend_pair_elements(*raw)
        # the 30 nm solves put TM0 ≈ 1e-3 high, which moves the crossing: the detuning takes the straight ridge's
        # mesh correction (``tables.PAIR_MESH_STEPS``); beyond 3e-3 a label changed between the steps (TM0/TE1)
        mesh, dmesh = (t.arrays[f"bendpair_{axis}_{q}"] for q in ("mesh", "dmesh_dwl"))
        bad = ~(np.abs(mesh) <= 3e-3)
        d = d + filled_nan(np.where(bad, np.nan, mesh))[..., None]
        dd = dd + filled_nan(np.where(bad, np.nan, dmesh))[..., None]
        # a node is the pair only if the uncoupled TE lies between the two eigenvalues (to within what the bias
        # correction leaves); where not (2.0 µm ridges of ≥ 0.74 µm film at R = 10 µm, where the search misses
        # TE0's partner), each element takes its value at the nearest radius
        up, lo, te = raw[0], raw[2], raw[4]
        ok = (te <= up + _PAIR_BIAS) & (te >= lo - _PAIR_BIAS)
        out[axis] = tuple(_kappa_fit(g, _nearest_radius_fill(v, ok), _nearest_radius_fill(dv, ok))
                          for v, dv in ((d, dd), (g2 / kap**2, dg2 / kap**2)))
    return out


def _nearest_radius_fill(v, ok):
    """``v`` (radius last) with the entries where ``ok`` is False taken from the nearest radius where it is True
    at the same node; NaN where no radius is."""
    v = np.where(ok, v, np.nan)
    out = v.copy()
    n = v.shape[-1]
    for k in range(n):
        for j in sorted(range(n), key=lambda j: abs(j - k)):
            out[..., k] = np.where(np.isfinite(out[..., k]), out[..., k], v[..., j])
    return out


def _bend_pair_shift(fits, wl, width, film_thickness, f, angle, kappa, xp=jnp):
    """n_TE-like − n_TE of the bend: the TE-labelled eigenvalue of the interpolated pair minus the uncoupled TE,
    (−d + sign(d)·√(d² + 4g²))/2 (the upper branch where the uncoupled TE lies above TM, d > 0; the lower
    where d < 0, as ``modesolver.bend_modes`` labels by TE fraction). Through d = 0 it jumps by 2g. ``xp``: NumPy
    for concrete inputs (the fits' NumPy sums)."""
    detuning, coupling = fits if xp is jnp else (fit.numpy for fit in fits)
    d = detuning(wl, width, film_thickness, f, angle, kappa)
    g2 = kappa**2 * coupling(wl, width, film_thickness, f, angle, kappa)
    disc = d**2 + 4 * g2
    root = xp.sqrt(xp.where(disc > 0, disc, 1.0)) * (disc > 0)
    return 0.5 * (-d + xp.where(d >= 0, 1.0, -1.0) * root)


def _tm_neff(fits, wl, width, film_thickness, f, angle):
    """The TM-labelled eigenvalue of the interpolated TM0/TE1 matrix: the pair's eigenvalues are
    T/2 ± √(d² + 4g²)/2, and the TM-like one (TE fraction < 0.5, as ``modesolver.solve_mode`` picks) is the
    upper where the uncoupled TM0 lies above TE1 (d > 0), else the lower."""
    trace, det, coup = (fit(wl, width, film_thickness, f, angle) for fit in fits)
    return 0.5 * trace + 0.5 * jnp.sign(det) * jnp.sqrt(det**2 + 4 * coup**2)


def _cladding_grids(meta: dict, clad: str) -> dict:
    """The grids of one cladding's tables: the shared ``meta["grids"]``, with this cladding's denser ones (same
    ranges, more nodes: ``tables.STRAIGHT``) where it has them."""
    grids = {**meta["grids"], **meta.get("cladding_grids", {}).get(clad, {})}
    for name, g in grids.items():
        if any(tuple(v[:2]) != tuple(meta["grids"][name][k][:2]) for k, v in g.items()):
            raise ValueError(f"the {clad} {name} table spans {g}, not the ranges of the others {meta['grids'][name]}")
    return grids


@functools.cache
def _build_model():
    """Load the tables and build the interpolants."""
    base = _tables.DATA_DIR / _tables.TABLE_NAME
    meta = json.loads(base.with_suffix(".json").read_text())
    with np.load(base.with_suffix(".npz")) as f:
        arrays = {k: f[k] for k in f.files}
    claddings = tuple(meta["claddings"])
    if not set(claddings) <= set(CLADDINGS):
        raise ValueError(f"{base.with_suffix('.json')} holds claddings {claddings}; known: {CLADDINGS}")
    return SimpleNamespace(
        meta=meta,
        domain={**{name: {k: tuple(v[:2]) for k, v in g.items()} for name, g in meta["grids"].items()},
                "coupler": _coupler_table.domain()},
        grids=meta["grids"],
        cladding=_all_claddings(meta, arrays, claddings),
    )


def _all_claddings(meta, arrays, claddings) -> dict:
    return {c: _cladding_fits(meta, arrays, c) for c in claddings}


def domain() -> dict:
    """Validity ranges of the tables: {"te" | "tm" | "bend" | "coupler": {axis: (lo, hi)}} (µm; angle in degrees)."""
    return _model().domain


# ----------------------------------------------------------------------------- validation (concrete values only)


def _check_geometry(domain: str, wl, ridge: RidgeStack):
    d = _model().domain[domain]
    check_choice("cladding", ridge.cladding, tuple(_model().cladding))
    check_range("sidewall_angle_deg", ridge.sidewall_angle_deg, *d["angle"], unit="°")
    check_range("wl", wl, *d["wl"], unit="µm")
    check_range("width", ridge.width, *d["width"], unit="µm")
    check_range("film_thickness", ridge.film_thickness, *d["film"], unit="µm")
    check_range("etch_depth", ridge.etch_depth, 0.0, math.inf, unit="µm", lo_open=True, hi_open=True)
    e, t = concrete(ridge.etch_depth), concrete(ridge.film_thickness)
    if e is not None and t is not None:
        lo, hi = d["etch_fraction"]
        frac = np.asarray(e, float) / np.asarray(t, float)
        edge = np.isclose(frac, lo, rtol=1e-9, atol=0) | np.isclose(frac, hi, rtol=1e-9, atol=0)
        check_range("etch_depth / film_thickness", np.where(edge, np.clip(frac, lo, hi), frac), lo, hi)


def _check_bend(pol, axis, wl, ridge: RidgeStack, radius):
    check_range("radius", radius, 0.0, math.inf, unit="µm", lo_open=True)
    vals = [concrete(v) for v in (radius, wl, ridge.width, ridge.film_thickness, ridge.etch_depth,
                                  ridge.sidewall_angle_deg)]
    if any(v is None for v in vals):
        return
    r, wl_, w, t, e, a = np.broadcast_arrays(*[np.asarray(v, float) for v in vals])
    bent = np.isfinite(r)
    if not bent.any():
        return
    if pol == "tm":
        raise ValueError(f"radius = {r[bent][0]:g} µm: TM bends are not tabulated (valid range [inf, inf] for TM)")
    _check_geometry("bend", wl_[bent], RidgeStack(width=w[bent], film_thickness=t[bent], etch_depth=e[bent],
                                            sidewall_angle_deg=a[bent], cladding=ridge.cladding))
    rmin = _rmin(axis, ridge.cladding, wl_[bent], w[bent], t[bent], e[bent] / t[bent], a[bent])
    bad = r[bent] < rmin * (1 - 1e-9)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"radius = {r[bent][i]:g} µm is below the smallest radius with a guided {pol.upper()} bend mode for "
            f"this cross-section (≈ {rmin[i]:g} µm; tabulated radii {min(BEND_RADII):g}–{max(BEND_RADII):g} µm, "
            f"valid range [{rmin[i]:g}, inf] µm)"
        )


def _rmin(axis, cladding, wl, w, t, f, angle):
    """Smallest guiding radius, multilinear in the node coordinates (NaN-free, inf where none)."""
    from scipy.interpolate import RegularGridInterpolator

    g = _model().grids["bend"]
    rmin = _model().cladding[cladding].bend[axis][1]
    keep = [v[2] > 1 for v in g.values()]  # one-node axes (a table of one wall angle) drop out
    pts = [lobatto(v[2]) for v, k in zip(g.values(), keep, strict=True) if k]
    lr = np.where(np.isfinite(rmin), np.log(np.where(np.isfinite(rmin), rmin, 1.0)), 50.0)
    lr = lr.reshape([n for n, k in zip(lr.shape, keep, strict=True) if k])
    interp = RegularGridInterpolator(pts, lr)
    us = [unit_coordinate(k, *v[:2], x)
          for (k, v), x, kp in zip(g.items(), (wl, w, t, f, angle), keep, strict=True) if kp]
    return np.exp(interp(np.clip(np.stack(us, axis=-1), -1, 1)))


def _check_mode(polarization, crystal_axis):
    check_choice("polarization", polarization, ("te", "tm"))
    check_choice("crystal_axis", crystal_axis, ("z", "y"))


def check_mode_inputs(wl, ridge: RidgeStack = DEFAULT, radius=math.inf, polarization="te",
                      crystal_axis="z") -> None:
    """ValueError unless ``neff`` and ``ng`` accept these values (their checks, without evaluating a fit): what a
    caller runs before compiled code that cannot raise. Arguments as ``neff``; traced values are skipped."""
    _check_mode(polarization, crystal_axis)
    _check_geometry(polarization, wl, ridge)
    _check_bend(polarization, crystal_axis, wl, ridge, radius)


def check_coupler_inputs(wl, gap, ridge: RidgeStack = DEFAULT) -> None:
    """ValueError unless ``coupling_per_um`` accepts these values (its checks, without evaluating the fit)."""
    check_range("gap", gap, *_model().domain["coupler"]["gap"], unit="µm")
    _check_geometry("coupler", wl, ridge)


# ----------------------------------------------------------------------------- public model


def _neff(wl, ridge: RidgeStack, radius, polarization, crystal_axis):
    w, t, angle = ridge.width, ridge.film_thickness, ridge.sidewall_angle_deg
    f = ridge.etch_fraction
    m = _model().cladding[ridge.cladding]
    if polarization == "tm" and crystal_axis in m.tm2:
        n0 = _tm_neff(m.tm2[crystal_axis], wl, w, t, f, angle)
    else:
        n0 = m.straight[(polarization, crystal_axis)](wl, w, t, f, angle)
    if polarization == "tm":  # TM bends are not tabulated (radius is checked to be inf; NaN when traced)
        r = jnp.asarray(radius, dtype=float)
        return jnp.where(jnp.isposinf(r), n0, jnp.nan)
    if not isinstance(radius, jax.core.Tracer) and np.all(np.isposinf(radius)):
        # a straight ridge given as such: no bend terms to evaluate (eagerly they cost a compile per new shape)
        return jnp.broadcast_to(n0, np.broadcast_shapes(np.shape(n0), np.shape(radius)))
    # concrete inputs in NumPy (the fits' own sums): an eager jnp operation compiles a program per new shape. n0
    # is checked too: inside a caller's jit, jnp operations on constants give traced values
    xp = bend_radiation.array_module(wl, ridge, radius, n0)
    kappa = 1.0 / xp.asarray(radius, dtype=float)
    fit = m.bend[crystal_axis][0]
    shift = kappa**2 * (fit(wl, w, t, f, angle, kappa) if xp is jnp else fit.numpy(wl, w, t, f, angle, kappa))
    if crystal_axis in m.bend_pair:  # the TE/TM mixing the decoupled shift leaves out
        shift = shift + _bend_pair_shift(m.bend_pair[crystal_axis], wl, w, t, f, angle, kappa, xp)
    # a straight ridge has no bend term (and may lie outside the narrower bend table, where the fit is NaN)
    return jnp.asarray(xp.asarray(n0) + xp.where(kappa == 0, 0.0, shift))


def neff(wl=1.55, ridge: RidgeStack = DEFAULT, radius=jnp.inf, polarization="te", crystal_axis="z"):
    """Effective index (real) of the ridge's fundamental TE or TM mode.

    Args:
        wl: wavelength (µm).
        ridge: the ridge and its stack (``RidgeStack``: top width, film, etch, wall angle, cladding; µm, degrees).
        radius: bend radius of the ridge centre (µm); inf for straight. n_eff of a bend
            refers to the centre radius (β = m/R).
        polarization: "te" (in-plane E) or "tm".
        crystal_axis: "z" (X-cut, propagation along y: TE sees n_e) or "y" (TE sees n_o).

    Returns:
        n_eff, broadcast over the array arguments (and the ridge's array fields).
    """
    check_mode_inputs(wl, ridge, radius, polarization, crystal_axis)
    return _neff(wl, ridge, radius, polarization, crystal_axis)


def ng(wl=1.55, ridge: RidgeStack = DEFAULT, radius=jnp.inf, polarization="te", crystal_axis="z"):
    """Group index n_g = n_eff − λ ∂n_eff/∂λ of the model itself (forward-mode derivative).

    Arguments as ``neff``.
    """
    check_mode_inputs(wl, ridge, radius, polarization, crystal_axis)
    wl = jnp.asarray(wl, dtype=float)
    n, dn = jax.jvp(lambda w: _neff(w, ridge, radius, polarization, crystal_axis), (wl,), (jnp.ones_like(wl),))
    return n - wl * dn


def eo_overlap(wl=1.55, ridge: RidgeStack = DEFAULT):
    """Pockels overlap Γ of the straight TE mode (crystal_axis "z") with a uniform horizontal field.

    Γ = n_e ∫_LN |Ex|² dA / Re ∫ (E × H*)·ẑ dA, so that a uniform field E = V/g along
    crystal z in the LN shifts the index by |Δn_eff| = ½ n_e³ r33 Γ V/g (first-order
    perturbation; see ``modesolver.eo_overlap``). Arguments as ``neff``.
    """
    _check_geometry("te", wl, ridge)
    return _model().cladding[ridge.cladding].gamma(wl, ridge.width, ridge.film_thickness, ridge.etch_fraction,
                                                    ridge.sidewall_angle_deg)


def mode_area_um2(wl=1.55, ridge: RidgeStack = DEFAULT, polarization="te", crystal_axis="z"):
    """Effective mode area (∫|E|²)² / ∫|E|⁴ (µm²) of the straight fundamental mode. Arguments as ``neff``."""
    _check_mode(polarization, crystal_axis)
    _check_geometry(polarization, wl, ridge)
    return _model().cladding[ridge.cladding].area[(polarization, crystal_axis)](
        wl, ridge.width, ridge.film_thickness, ridge.etch_fraction, ridge.sidewall_angle_deg)


def coupling_per_um(wl=1.55, gap=0.25, ridge: RidgeStack = DEFAULT):
    """Coupling coefficient C = π (n_even − n_odd)/λ (1/µm) of two parallel identical ridges.

    TE supermodes, crystal_axis "z"; gap is edge to edge at the ridge tops (µm), as drawn: with sloped
    walls the feet of the ridges are closer by 2·etch_depth/tan(angle), so C grows as the walls slope; below that
    gap the feet merge into a V-groove (``coupler_table``: one table each side of the merge). Power transfer over a length L is sin²(C L).
    """
    check_coupler_inputs(wl, gap, ridge)
    log_c = _coupler_table.log_coupling(wl, gap, ridge)
    return jnp.exp(log_c) if isinstance(log_c, jax.core.Tracer) else jnp.asarray(np.exp(np.asarray(log_c)))


def bend_loss_db_per_cm(wl=1.55, radius=RING_RADIUS, ridge: RidgeStack = DEFAULT):
    """Radiation loss of a TE bend (dB/cm), averaged around a ring of X-cut film; 0 for radius = inf.

    From leaky-mode (PML) bend solves tabulated at radii 10–40 µm (``bend_radiation``); beyond 40 µm Marcuse's
    exponential tail of the last two radii. Arguments as ``neff``.
    """
    _check_geometry("te", wl, ridge)
    _check_bend("te", "z", wl, ridge, radius)
    return bend_radiation.loss_db_per_cm(wl, radius, ridge)
