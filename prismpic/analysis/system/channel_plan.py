"""WDM channel plans for a ring bank: the plan checker, the lower bounds and the plan optimizer.

A plan is d channel wavelengths and the rings that serve them; its figure of merit is
the worst off-diagonal entry of ``crosstalk.crosstalk_matrix``. Two bounds hold for any
plan on one ring family:

- adjacent channels: the closest pair at spacing s ≤ B/(d − 1) (band B) meets the main
  line at Δ = s, so the worst crosstalk is at least the Lorentzian at that s;
- common FSR (single radius family, every ring within half an FSR of one radius): the
  d channels' round-trip phases are d points on a circle of one FSR, so by the
  pigeonhole principle two lie within FSR/d, i.e. some ring meets a foreign channel
  within FSR/d: worst ≥ Airy(FSR/d), whatever the spacing (``common_fsr_bound_db``).
  Equal spacing of the phases (spacing k·FSR/d, k coprime with d) reaches it.
  Approximate: the radii differ by up to half an FSR's worth, so the rings' phases are
  not exactly common, and the FSR walks (∝ λ²/n_g) across a wide plan.

``optimize_channel_plan`` searches uniform grids centred in the band: spacing on a grid
(and, for per-channel radii, which resonance order — i.e. which radius in a range — of
each ring serves its channel; for a Vernier pair, the second radius). The search uses the
Airy ratio with the exact round-trip phase θ(λ_i, R_j) and x interpolated from a table;
the best candidates are then evaluated with ``crosstalk_matrix``, and only those meeting
the target are returned as plans. Line shapes from ``prismpic.components.lineshapes``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.analysis.system.crosstalk import (
    CrosstalkResult,
    crosstalk_matrix,
    fsr_fwhm_nm,
    ring_settings,
    ring_terms,
    round_trip_phase,
    validate_ring,
    worst_entry,
)
from prismpic.checks import check_choice, check_range
from prismpic.components import lineshapes, rings
from prismpic.fileio import jsonable
from prismpic.pdk.rules import RULES

C_BAND_NM = (1530.0, 1565.0)
FAMILIES = ("single", "per_channel_radii", "vernier")


# ---------------------------------------------------------------------------- bounds and validation
def common_fsr_bound_db(d: int, fsr_nm: float, fwhm_nm: float) -> float:
    """Lower bound (dB) on the worst crosstalk of d channels served by rings of one FSR: Airy(FSR/d)."""
    return float(10 * np.log10(lineshapes.airy(fsr_nm / d, fsr_nm, fwhm_nm)))


def _check_target(target_db):
    return check_range("target_db", target_db, -200.0, 0.0, unit="dB", hi_open=True)


def _check_band(band_nm):
    b = np.asarray(band_nm, float)
    if b.shape != (2,) or not (b[0] < b[1]):
        raise ValueError(f"band_nm = {band_nm!r} must be (lo, hi) with lo < hi (nm)")
    check_range("band_nm", b, 1000.0, 2000.0, unit="nm")
    return float(b[0]), float(b[1])


# ---------------------------------------------------------------------------- plan checker
@dataclass(eq=False)
class PlanCheck:
    """Verdict on a channel plan: ``passed`` when every off-diagonal entry is ≤ ``target_db``
    (and, with a band, every channel lies inside it)."""

    passed: bool
    worst_db: float
    target_db: float
    margin_db: float
    worst_pair: tuple[int, int]
    worst_order: int | tuple[int, int]
    in_band: bool
    reason: str
    result: CrosstalkResult = field(repr=False)


def check_channel_plan(channels_um, radii, target_db: float = -20.0, *, band_nm=None, readout: str = "drop",
                       **ring) -> PlanCheck:
    """Check a channel plan against a worst-case crosstalk target (dB), from ``crosstalk_matrix``.

    Args:
        channels_um: channel wavelengths (µm).
        radii: ring radii (µm), (d,) or (d, 2) for Vernier pairs.
        target_db: largest acceptable off-diagonal crosstalk (dB, < 0).
        band_nm: optional (lo, hi) band (nm) every channel must lie in.
        readout: Vernier pairs only: "drop" or "balanced" (also the bus-coupled ring's
            ``through_matrix``), as ``optimize_channel_plan``.
        **ring: other ring parameters, as ``crosstalk_matrix``.
    """
    _check_target(target_db)
    check_choice("readout", readout, ("drop", "balanced"))
    band = None if band_nm is None else _check_band(band_nm)
    res = crosstalk_matrix(channels_um, radii, bank=False, **ring)
    in_band = True
    reasons = []
    if band is not None:
        lo, hi = band
        lam = res.channels_um * 1e3
        in_band = bool(np.all((lam >= lo - 1e-9) & (lam <= hi + 1e-9)))
        if not in_band:
            reasons.append(f"channels span {lam.min():.2f}–{lam.max():.2f} nm, outside the band {lo:g}–{hi:g} nm")
    worst, (i, j), order, offset = res.worst_db, res.worst_pair, res.worst_order, res.worst_offset_nm
    if readout == "balanced" and res.through_matrix is not None and res.through_worst_db > worst:
        worst, (i, j) = worst_entry(res.through_matrix)
        order, offset = int(res.order[i, j][0]), float(res.offset_nm[i, j][0])
    ok_xt = worst <= target_db
    if not ok_xt:
        kind = "its own line" if np.all(np.asarray(order) == 0) else f"resonance order {order}"
        reasons.append(f"worst crosstalk {worst:.2f} dB > target {target_db:g} dB: ring {j} "
                       f"({res.channels_um[j] * 1e3:.3f} nm) at channel {i} ({res.channels_um[i] * 1e3:.3f} nm) "
                       f"through {kind}, offset {np.round(offset, 4)} nm")
    return PlanCheck(passed=ok_xt and in_band, worst_db=worst, target_db=float(target_db),
                     margin_db=float(target_db - worst), worst_pair=(i, j), worst_order=order, in_band=in_band,
                     reason="; ".join(reasons) if reasons else "meets the target", result=res)


# ---------------------------------------------------------------------------- optimizer results
@dataclass(eq=False)
class ChannelPlan:
    """A uniform channel plan with its rings and its worst crosstalk (from ``crosstalk_matrix``)."""

    family: str
    channels_um: np.ndarray
    radii: np.ndarray
    spacing_nm: float
    worst_db: float
    worst_pair: tuple[int, int]
    worst_order: int | tuple[int, int]
    fsr_nm: float
    fwhm_nm: float

    def to_dict(self) -> dict:
        """The plan as JSON-ready data (nm, dB, µm)."""
        return jsonable({"family": self.family, "spacing_nm": self.spacing_nm, "worst_db": self.worst_db,
                         "worst_pair": list(self.worst_pair), "worst_order": self.worst_order,
                         "fsr_nm": self.fsr_nm, "fwhm_nm": self.fwhm_nm,
                         "first_channel_nm": float(self.channels_um[0] * 1e3),
                         "radii_um": np.round(self.radii, 5)})


@dataclass(eq=False)
class PlanSearch:
    """What ``optimize_channel_plan`` found.

    ``plans``: the verified plans that meet the target, best first; ``best``: the first or
    None; ``closest``: the best verified plan whatever its crosstalk; ``reason``: why none
    exists (or what was found). ``adjacent_bound_db`` and ``common_fsr_bound_db`` are the
    lower bounds of the module docstring; ``spacings_nm``/``search_worst_db`` the searched
    grid and its estimated worst crosstalk (Airy with the exact phase).
    """

    family: str
    d: int
    band_nm: tuple[float, float]
    target_db: float
    plans: list[ChannelPlan]
    best: ChannelPlan | None
    closest: ChannelPlan | None
    feasible: bool
    reason: str
    adjacent_bound_db: float
    common_fsr_bound_db: float | None
    spacings_nm: np.ndarray
    search_worst_db: np.ndarray
    radius_b: float | None = None

    def to_dict(self) -> dict:
        """The search's verdict as JSON-ready data (nm, dB, µm)."""
        return jsonable({"family": self.family, "d": self.d, "band_nm": list(self.band_nm),
                         "target_db": self.target_db, "feasible": self.feasible, "reason": self.reason,
                         "adjacent_bound_db": self.adjacent_bound_db, "common_fsr_bound_db": self.common_fsr_bound_db,
                         "best": None if self.best is None else self.best.to_dict(),
                         "closest": None if self.closest is None else self.closest.to_dict(),
                         "n_plans": len(self.plans), "radius_b": self.radius_b})


# ---------------------------------------------------------------------------- search kernels
def _x_table(p, r_lo, r_hi, lam_lo, lam_hi, n_r=64, n_l=9):
    """x = t1 t2 a on a (radius, wavelength) grid, for linear interpolation in the search."""
    rg = np.linspace(r_lo, r_hi, n_r)
    lg = np.linspace(lam_lo, lam_hi, n_l)
    return jnp.asarray(rg), jnp.asarray(lg), jnp.asarray(ring_terms(lg, rg, p)["x"])


def _solve_radius(lam, m, r_start, p, iterations: int = 6):
    """Radius whose round trip is 2πm at lam: R ← R·2πm/θ(λ, R) (θ ∝ R n_eff(λ, R)). Elementwise."""
    theta = jax.vmap(lambda w, r: round_trip_phase(w, r, p))
    shape = jnp.shape(r_start)
    lam, m = jnp.broadcast_to(lam, shape).reshape(-1), jnp.broadcast_to(m, shape).reshape(-1)

    def body(_, r):
        return r * 2 * jnp.pi * m / theta(lam, r)

    return jax.lax.fori_loop(0, iterations, body, jnp.reshape(r_start, -1)).reshape(shape)


def _airy_x(theta, x):
    phi = theta - 2 * jnp.pi * jnp.round(theta / (2 * jnp.pi))
    return (1 - x) ** 2 / (1 - 2 * x * jnp.cos(phi) + x**2)


def _pair_matrix(lam, r, p, table):
    """Airy ratio of ring j (radius r[j]) at λ_i, shape (d_wl, d_ring) — exact phase, interpolated x."""
    d = lam.shape[0]
    li = jnp.repeat(lam, r.shape[0])
    rj = jnp.tile(r, d)
    th = jax.vmap(lambda w, rr: round_trip_phase(w, rr, p))(li, rj)
    x = table(jnp.stack([rj, li], -1))
    return _airy_x(th, x).reshape(d, r.shape[0])


def _own_order_radii(lam, r0, p):
    m = jnp.round(jax.vmap(lambda w: round_trip_phase(w, r0, p))(lam) / (2 * jnp.pi))
    return _solve_radius(lam, m, jnp.full(lam.shape, r0), p)


def _search_single(spacings, d, centre_um, r0, p, table):
    def one(s):
        lam = centre_um + s * 1e-3 * (jnp.arange(d) - (d - 1) / 2)
        r = _own_order_radii(lam, r0, p)
        x = _pair_matrix(lam, r, p, table)
        return jnp.max(jnp.where(jnp.eye(d, dtype=bool), 0.0, x)), r

    return jax.lax.map(one, spacings)


def _search_vernier(spacings, d, centre_um, r0, r_b, p, table, balanced):
    def one(s):
        lam = centre_um + s * 1e-3 * (jnp.arange(d) - (d - 1) / 2)
        ra = _own_order_radii(lam, r0, p)
        rb = _own_order_radii(lam, r_b, p)
        xa = _pair_matrix(lam, ra, p, table)
        x = xa * _pair_matrix(lam, rb, p, table)
        x = jnp.maximum(x, xa) if balanced else x
        return jnp.max(jnp.where(jnp.eye(d, dtype=bool), 0.0, x)), jnp.stack([ra, rb], -1)

    return jax.lax.map(one, spacings)


def _search_per_channel(spacings, d, centre_um, r_lo, n_orders, p, table):
    def one(s):
        lam = centre_um + s * 1e-3 * (jnp.arange(d) - (d - 1) / 2)
        m0 = jnp.ceil(jax.vmap(lambda w: round_trip_phase(w, r_lo, p))(lam) / (2 * jnp.pi))
        m = m0[:, None] + jnp.arange(n_orders)[None, :]  # (d, C) candidate orders of ring j
        r = _solve_radius(lam[:, None], m, jnp.full(m.shape, r_lo), p)
        x = _pair_matrix(lam, r.reshape(-1), p, table).reshape(d, d, n_orders)  # (wl i, ring j, candidate c)
        x = jnp.where(jnp.eye(d, dtype=bool)[:, :, None], 0.0, x)
        row = jnp.max(x, axis=0)  # (j, c): ring j's worst foreign channel
        c = jnp.argmin(row, axis=1)
        return jnp.max(jnp.min(row, axis=1)), jnp.take_along_axis(r, c[:, None], axis=1)[:, 0]

    return jax.lax.map(one, spacings)


@functools.lru_cache(maxsize=32)
def _search_fn(family: str, d: int, n_orders: int, items: tuple, balanced: bool):
    """Jitted search over spacings: (estimated worst ratio, radii) per spacing; cached per shape and ring."""
    from jax.scipy.interpolate import RegularGridInterpolator

    p = dict(items)

    def run(spacings, centre, r0, r_aux, rg, lg, xtab):
        table = RegularGridInterpolator((rg, lg), xtab, method="linear")
        if family == "single":
            return _search_single(spacings, d, centre, r0, p, table)
        if family == "per_channel_radii":
            return _search_per_channel(spacings, d, centre, r_aux, n_orders, p, table)
        return _search_vernier(spacings, d, centre, r0, r_aux, p, table, balanced)

    return jax.jit(run)


def _pick(worst, n: int) -> list[int]:
    """Indices of the n lowest local minima of the estimated worst crosstalk over the spacing grid."""
    w = np.concatenate([[np.inf], worst, [np.inf]])
    minima = np.flatnonzero((w[1:-1] <= w[:-2]) & (w[1:-1] <= w[2:]))
    return [int(k) for k in minima[np.argsort(worst[minima], kind="stable")][:n]]


# ---------------------------------------------------------------------------- optimizer
def _probe_specs(family, centre, radius, radius_b, r_lo, r_hi, p):
    """FSR and FWHM (nm) at the band centre (µm) of the family's probe radii (µm)."""
    probe = {"single": [radius], "vernier": [radius] + ([radius_b] if radius_b else [r_lo, r_hi]),
             "per_channel_radii": [r_lo, r_hi]}[family]
    t = ring_terms(np.array([centre]), np.array(probe, float), p)
    fsr_c, fwhm_c = (v[:, 0] for v in fsr_fwhm_nm(centre, np.array(probe, float)[:, None], t))
    return fsr_c, fwhm_c


def _adjacent_bound(family, readout, target_db, s_max, fwhm_min):
    """Adjacent-channel bound (dB) at the widest spacing s_max (nm) and the spacing (nm) that meets the target."""
    target = 10 ** (target_db / 10)
    lorentz_at_max = float(lineshapes.lorentzian(s_max, fwhm_min))
    if family == "vernier" and readout == "drop":
        adjacent_bound = 10 * math.log10(lorentz_at_max**2)
        s_min = fwhm_min / 2 * math.sqrt(1 / math.sqrt(target) - 1)  # two equal Lorentzians
    else:
        adjacent_bound = 10 * math.log10(lorentz_at_max)
        s_min = fwhm_min / 2 * math.sqrt(1 / target - 1)
    return adjacent_bound, s_min


def _search(family, d, spacings, centre, margin, radius, radius_b, r_lo, r_hi, n_radius_b, readout, p):
    """Estimated worst ratio (linear) per spacing, the radii (µm) per spacing and the Vernier radius used."""
    radius_b_used = None
    items = tuple(sorted(p.items()))
    args = (jnp.asarray(spacings), centre)
    if family == "single":
        table = _x_table(p, radius - 1.0, radius + 1.0, centre - margin, centre + margin)
        worst, radii_s = (np.asarray(v) for v in _search_fn(family, d, 0, items, False)(*args, radius, 0.0, *table))
    elif family == "per_channel_radii":
        table = _x_table(p, r_lo - 0.5, r_hi + 0.5, centre - margin, centre + margin)
        lam_edge = centre + margin
        n_orders = int(math.floor((float(round_trip_phase(lam_edge, r_hi, p))
                                   - float(round_trip_phase(lam_edge, r_lo, p))) / (2 * math.pi)))
        f = _search_fn(family, d, n_orders, items, False)
        worst, radii_s = (np.asarray(v) for v in f(*args, radius, r_lo, *table))
    else:
        cands = [float(radius_b)] if radius_b is not None else [
            rb for rb in np.linspace(r_lo, r_hi, n_radius_b) if abs(rb - radius) > 0.5]
        table = _x_table(p, min(cands + [radius]) - 1.0, max(cands + [radius]) + 1.0, centre - margin,
                         centre + margin)
        f = _search_fn(family, d, 0, items, readout == "balanced")
        best_w = None
        for rb in cands:
            w, rs = (np.asarray(v) for v in f(*args, radius, rb, *table))
            if best_w is None or np.min(w) < np.min(best_w):
                best_w, worst, radii_s, radius_b_used = w, w, rs, float(rb)
    return worst, radii_s, radius_b_used


def _verified_plans(family, d, centre, spacings, radii_s, worst_db, n_verify, target_db, readout, ring):
    """The best ``n_verify`` candidates evaluated by ``check_channel_plan``, best first."""
    plans = []
    for k in _pick(worst_db, n_verify):
        lam = centre + spacings[k] * 1e-3 * (np.arange(d) - (d - 1) / 2)
        chk = check_channel_plan(lam, radii_s[k], target_db, readout=readout, **ring)
        plans.append(ChannelPlan(family=family, channels_um=lam, radii=radii_s[k], spacing_nm=float(spacings[k]),
                                 worst_db=chk.worst_db, worst_pair=chk.worst_pair, worst_order=chk.worst_order,
                                 fsr_nm=chk.result.fsr_nm, fwhm_nm=chk.result.fwhm_nm))
    plans.sort(key=lambda q: q.worst_db)
    return plans


def optimize_channel_plan(d: int = 32, band_nm=C_BAND_NM, target_db: float = -20.0, family: str = "single", *,
                          radius: float = rings.RING_RADIUS, radius_b: float | None = None,
                          radius_range=(15.0, 30.0), spacing_range_nm=None, n_spacings: int | None = None,
                          n_radius_b: int = 16, n_verify: int = 6, readout: str = "drop", **ring) -> PlanSearch:
    """Search uniform channel plans of d channels in a band that meet a worst-case crosstalk target.

    Args:
        d: number of channels (≥ 2).
        band_nm: (lo, hi) band (nm); plans are centred in it and must fit inside.
        target_db: largest acceptable off-diagonal crosstalk (dB, < 0).
        family: "single" (one radius family: ring j the order nearest ``radius`` at λ_j),
            "per_channel_radii" (each ring's radius chosen in ``radius_range``: the resonance
            order whose other orders stay farthest from the other channels), or "vernier"
            (a pair per channel, radii nearest ``radius`` and ``radius_b``).
        radius: ring radius (µm) of the single family and the first ring of a Vernier pair.
        radius_b: second Vernier radius (µm); None scans ``n_radius_b`` values in ``radius_range``.
        radius_range: (lo, hi) radii (µm) for per-channel radii and the Vernier scan.
        spacing_range_nm: (lo, hi) spacings to search (nm); default from the adjacent-channel
            bound up to what fits in the band.
        n_spacings: grid points (default 2000 single/Vernier, 300 per-channel).
        n_radius_b: Vernier radii scanned when ``radius_b`` is None.
        n_verify: best candidates (local minima of the estimate) evaluated with ``crosstalk_matrix``.
        readout: Vernier only: "drop" (the pair's filtered drop, as a demultiplexer) or
            "balanced" (a PRISM bank also reads the through bus, which the bus-coupled ring's
            own aliases deplete: worst of the drop product and that ring's single-ring ratio).
        **ring: other ring parameters (gap, width, loss_db_per_cm, …).
    """
    if not isinstance(d, (int, np.integer)) or not 2 <= d <= 256:
        raise ValueError(f"d = {d!r} must be an integer in [2, 256]")
    lo, hi = _check_band(band_nm)
    _check_target(target_db)
    check_choice("family", family, FAMILIES)
    check_choice("readout", readout, ("drop", "balanced"))
    r_lo, r_hi = (float(v) for v in radius_range)
    check_range("radius_range", np.array([r_lo, r_hi]), RULES.min_bend_radius, 500.0, unit="µm")
    if not r_lo < r_hi:
        raise ValueError(f"radius_range = {radius_range!r} must be (lo, hi) with lo < hi (µm)")
    check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    if radius_b is not None:
        check_range("radius_b", radius_b, RULES.min_bend_radius, 500.0, unit="µm")
    check_range("n_verify", n_verify, 1, 100)
    p = ring_settings(ring)
    validate_ring(p, np.array([min(radius, r_lo), max(radius, r_hi, radius_b or 0.0)]))
    centre = 0.5 * (lo + hi) * 1e-3
    s_max = (hi - lo) / (d - 1)

    # ring specs at the band centre: FSR and FWHM of the family's radii
    fsr_c, fwhm_c = _probe_specs(family, centre, radius, radius_b, r_lo, r_hi, p)
    fwhm_min = float(np.min(fwhm_c))
    adjacent_bound, s_min = _adjacent_bound(family, readout, target_db, s_max, fwhm_min)
    # rings of one radius family share the FSR (Vernier with balanced readout: the bus-coupled rings)
    shared = family == "single" or (family == "vernier" and readout == "balanced")
    fsr_bound = common_fsr_bound_db(d, float(fsr_c[0]), float(fwhm_c[0])) if shared else None

    if spacing_range_nm is not None:
        s_lo, s_hi = (float(v) for v in spacing_range_nm)
        check_range("spacing_range_nm", np.array([s_lo, s_hi]), 1e-3, s_max, unit="nm")
    else:
        s_lo, s_hi = min(s_min, s_max), s_max
    n = n_spacings or (300 if family == "per_channel_radii" else 2000)
    check_range("n_spacings", n, 1, 100000)
    span = f"{d} channels in {lo:g}–{hi:g} nm (spacing ≤ {s_max:.4g} nm)"
    if adjacent_bound > target_db:  # proven: no search needed
        reason = (f"no {family} plan meets {target_db:g} dB: adjacent channels: {span}, and the main line of the "
                  f"narrowest ring (FWHM {fwhm_min:.4g} nm) at that spacing already gives {adjacent_bound:.2f} dB")
        return PlanSearch(family=family, d=int(d), band_nm=(lo, hi), target_db=float(target_db), plans=[], best=None,
                          closest=None, feasible=False, reason=reason, adjacent_bound_db=float(adjacent_bound),
                          common_fsr_bound_db=fsr_bound, spacings_nm=np.array([]), search_worst_db=np.array([]))
    spacings = np.linspace(s_lo, s_hi, n) if s_hi > s_lo else np.array([s_hi])
    margin = 0.5 * s_hi * (d - 1) * 1e-3 + 2e-3
    worst, radii_s, radius_b_used = _search(family, d, spacings, centre, margin, radius, radius_b, r_lo, r_hi,
                                            n_radius_b, readout, p)
    worst_db = 10 * np.log10(worst)

    plans = _verified_plans(family, d, centre, spacings, radii_s, worst_db, n_verify, target_db, readout, ring)
    closest = plans[0] if plans else None
    good = [q for q in plans if q.worst_db <= target_db]
    if good:
        b = good[0]
        reason = (f"{len(good)} verified plan(s) meet {target_db:g} dB; best: spacing {b.spacing_nm:.4g} nm, "
                  f"worst {b.worst_db:.2f} dB (pair {b.worst_pair}, order {b.worst_order})")
    else:
        why = []
        if fsr_bound is not None and fsr_bound > target_db:
            why.append(f"common FSR: {d} channels on one FSR of {fsr_c[0]:.4g} nm put some ring within FSR/d = "
                       f"{fsr_c[0] / d:.4g} nm of a foreign channel (pigeonhole), ≥ {fsr_bound:.2f} dB "
                       f"for FWHM {fwhm_c[0]:.4g} nm")
        if not why:
            c = closest
            why.append(f"none of {len(spacings)} spacings in {s_lo:.4g}–{s_hi:.4g} nm meets it, every one meets a "
                       f"resonance too close (best estimate {np.min(worst_db):.2f} dB; best verified: spacing "
                       f"{c.spacing_nm:.4g} nm, {c.worst_db:.2f} dB, pair {c.worst_pair}, order {c.worst_order})")
        reason = f"no {family} plan meets {target_db:g} dB: " + "; ".join(why)
    return PlanSearch(family=family, d=int(d), band_nm=(lo, hi), target_db=float(target_db), plans=good,
                      best=good[0] if good else None, closest=closest, feasible=bool(good), reason=reason,
                      adjacent_bound_db=float(adjacent_bound), common_fsr_bound_db=fsr_bound, spacings_nm=spacings,
                      search_worst_db=worst_db, radius_b=radius_b_used)


def seed_plan(d: int = 32, spacing_nm: float = 1.6, center_nm: float = 1550.0, radius: float = rings.RING_RADIUS,
              **ring):
    """The seed's plan (S1-03: 32 channels at 1.6 nm; S1-10: R = 20 µm): channels (µm) and bank radii (µm)."""
    from prismpic.circuits import bank_model

    ch = bank_model.channel_plan_um(d, spacing_nm, center_nm)
    return ch, bank_model.bank_radii(ch, radius, **ring)
