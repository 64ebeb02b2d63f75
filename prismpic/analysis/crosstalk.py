"""WDM crosstalk of a ring bank and the channel plan: matrix, analytic cross-check, plan checker and optimizer.

Crosstalk matrix (``crosstalk_matrix``). For channels λ_i and add-drop rings j (ring j
meant for channel j), X[i, j] = |S_o1→o4(ring j, λ_i)|² / |S_o1→o4(ring i, λ_i)|², in dB:
what ring j drops at channel i's wavelength relative to what ring i drops at its own
channel, from ``rings`` (coupling from the gap, phase from n_eff(λ), loss from the
stack). Every resonance order inside the band is included because the round-trip phase
θ_j(λ) is evaluated as it is, not folded around one line. For each pair the nearest
resonance of ring j is order k FSRs away from ring j's own line (k > 0: to longer
wavelength) at offset Δ = λ_i − λ_res (λ_res by Newton's method on θ_j(λ) = 2πm, with
dθ/dλ = −2π/FSR and the local FSR = λ²/(n_g L)).

A Vernier pair per channel (radii of shape (d, 2): two rings of different radius in
series, the second filtering what the first drops through a non-resonant link) drops
the product of the two single-ring drops, so X is the product of the two rings' ratios
and the free range grows to the Vernier FSR F_A·F_B/|F_A − F_B|. The bus-coupled ring
(radii[:, 0]) still pulls its own aliases off the through bus, whatever the second
ring passes: a readout of the through port (PRISM's balanced pair) sees that ring's
single-ring ratio (``through_matrix``), so a Vernier pair helps a demultiplexer, not a
balanced weight bank.

Bank view. The PRISM bank reads the balanced weight w_i = |D|² − |T|² at λ_i
(``prism_bank.balanced_weights``: star-product cascade, every ring-ring round trip and
every order). Its crosstalk is B[i, j] = |∂w_i/∂V_j| / |∂w_j/∂V_j| (dB), the Jacobian
at an operating point (default: each ring half a linewidth off its channel, the
single-ring mid-weight w ≈ 0, where ∂w_j/∂V_j is near its largest; at exact resonance
it vanishes). Far from its line ring j's drop and through fields at λ_i interfere with
channel i's own on the shared buses, so ∂w_i/∂V_j falls as 1/Δ² (coherent, field
crosstalk, at most 4/(D0(1 + u²)) with u = 2Δ/FWHM and D0 the drop peak), like X and not
as the 1/Δ³ of a power slope. Near an alias B can exceed 0 dB: a foreign ring upstream
that sits on channel j drops channel j's light before ring j sees it.

Thermal term (optional; for rings trimmed by heaters — Pockels tuning dissipates no
static power). Heating ring j by ΔT warms ring k by ΔT·exp(−s_jk/L_th), s the
centre-to-centre distance along the bus; ring k's resonance moves by λ (dn_eff/dT)/n_g
per kelvin (``rings.thermo_optic_dneff_dt``). With J_T[i, k] = ∂w_i/∂T_k of the bank,
G = J_T·K, K[k, j] = exp(−s_kj/L_th), the matrix is |G[i, j]|/|G[j, j]| (dB).

Analytic cross-check (Airy; e.g. Bogaerts et al., Laser Photon. Rev. 6, 47 (2012)):
the drop of an add-drop ring relative to its peak is (1 − x)²/(1 − 2x cos φ + x²) =
1/(1 + F sin²(φ/2)), x = t1 t2 a, φ = 2πΔ/FSR, F = 4x/(1 − x)² the coefficient of
finesse; the half maximum at Δ = FWHM/2 gives F = 1/sin²(π FWHM/(2 FSR)). Near a line
(Δ ≪ FSR) this is the Lorentzian 1/(1 + (2Δ/FWHM)²).

Channel plans. Two bounds hold for any plan on one ring family:

- adjacent channels: the closest pair at spacing s ≤ B/(d − 1) (band B) meets the main
  line at Δ = s, so the worst crosstalk is at least the Lorentzian at that s;
- common FSR (single radius family, every ring within half an FSR of one radius): the
  d channels' round-trip phases are d points on a circle of one FSR, so by the
  pigeonhole principle two lie within FSR/d, i.e. some ring meets a foreign channel
  within FSR/d: worst ≥ Airy(FSR/d), whatever the spacing. Equal spacing of the phases
  (spacing k·FSR/d, k coprime with d) reaches it. Approximate: the radii differ by up to
  half an FSR's worth, so the rings' phases are not exactly common, and the FSR walks
  (∝ λ²/n_g) across a wide plan.

``optimize_channel_plan`` searches uniform grids centred in the band: spacing on a grid
(and, for per-channel radii, which resonance order — i.e. which radius in a range — of
each ring serves its channel; for a Vernier pair, the second radius). The search uses the
Airy ratio with the exact round-trip phase θ(λ_i, R_j) and x interpolated from a table;
the best candidates are then evaluated with ``crosstalk_matrix``, and only those meeting
the target are returned as plans.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice, check_range
from prismpic.components import rings
from prismpic.pdk.rules import RULES

C_BAND_NM = (1530.0, 1565.0)
# Thermal decay length along the chip surface for TFLN on a few µm of buried oxide over
# silicon: the substrate sinks the heat, so the lateral temperature profile falls over a
# few oxide thicknesses (scale of the thermal crosstalk measured for heaters on SOI,
# e.g. Jacques et al., Opt. Express 27, 10456 (2019)). † estimate, not a measured TFLN
# figure: replace with a thermal simulation or a measurement of the stack.
THERMAL_DECAY_LENGTH_UM = 20.0
RING_SPACING = 10.0  # µm of bus between ring cells, as ``prism_bank.RING_SPACING``
FAMILIES = ("single", "per_channel_radii", "vernier")

_RING_DEFAULTS = {
    k: v.default for k, v in inspect.signature(rings.ring_add_drop_model).parameters.items()
    if k not in ("wl", "radius")
}
_BANK_KEYS = ("gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage", "electrode_width",
              "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db")


# ---------------------------------------------------------------------------- analytic
def coefficient_of_finesse(fsr_nm, fwhm_nm):
    """F of the Airy 1/(1 + F sin²(πΔ/FSR)) whose full width at half maximum is ``fwhm_nm``."""
    return 1.0 / np.sin(np.pi * np.asarray(fwhm_nm, float) / (2 * np.asarray(fsr_nm, float))) ** 2


def airy_crosstalk(offset_nm, fsr_nm, fwhm_nm):
    """Drop of a ring at ``offset_nm`` from a resonance relative to its peak (linear), all orders.

    1/(1 + F sin²(πΔ/FSR)), F = ``coefficient_of_finesse``: periodic in Δ, so Δ may be
    counted from any resonance.
    """
    return 1.0 / (1.0 + coefficient_of_finesse(fsr_nm, fwhm_nm) * np.sin(np.pi * np.asarray(offset_nm, float)
                                                                        / np.asarray(fsr_nm, float)) ** 2)


def lorentzian_crosstalk(offset_nm, fwhm_nm):
    """Lorentzian limit 1/(1 + (2Δ/FWHM)²) of ``airy_crosstalk`` near one line (linear)."""
    return 1.0 / (1.0 + (2 * np.asarray(offset_nm, float) / np.asarray(fwhm_nm, float)) ** 2)


def airy_crosstalk_matrix(channels_um, fsr_nm, fwhm_nm):
    """Constant-FSR estimate X[i, j] = Airy(λ_i − λ_j) (dB) for rings sitting on the channels.

    Ignores the FSR's change across the band (λ²/n_g L moves by ~2Δλ/λ, which shifts far
    aliases by many linewidths): a quick estimate, not the model.
    """
    lam = np.asarray(channels_um, float) * 1e3
    return 10 * np.log10(airy_crosstalk(lam[:, None] - lam[None, :], fsr_nm, fwhm_nm))


def common_fsr_bound_db(d: int, fsr_nm: float, fwhm_nm: float) -> float:
    """Lower bound (dB) on the worst crosstalk of d channels served by rings of one FSR: Airy(FSR/d)."""
    return float(10 * np.log10(airy_crosstalk(fsr_nm / d, fsr_nm, fwhm_nm)))


# ---------------------------------------------------------------------------- validation
def _settings(ring: dict) -> dict:
    unknown = sorted(set(ring) - set(_RING_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown ring parameter(s) {unknown}; valid: {sorted(_RING_DEFAULTS)}")
    return {**_RING_DEFAULTS, **ring}


def _validate_ring(p: dict, radii) -> None:
    r = np.asarray(radii, float)
    check_range("radii", r, RULES.min_bend_radius, 500.0, unit="µm")
    for rr in (float(r.min()), float(r.max())):
        rings.ring_add_drop_model(wl=1.55, radius=rr, **p)  # validates every ring parameter


def _check_channels(channels_um) -> np.ndarray:
    ch = np.asarray(channels_um, dtype=float)
    if ch.ndim != 1 or ch.size < 2:
        raise ValueError(f"channels_um has shape {ch.shape}; expected (d,) with d >= 2")
    check_range("channels_um", ch, 1.0, 2.0, unit="µm")
    gaps = np.diff(np.sort(ch))
    if np.any(gaps <= 0):
        raise ValueError(f"channels_um holds a repeated wavelength (smallest gap {gaps.min():g} µm); "
                         "channels must be distinct")
    return ch


def _check_radii(radii, d: int) -> np.ndarray:
    r = np.asarray(radii, dtype=float)
    if r.shape not in ((d,), (d, 2)):
        raise ValueError(f"radii has shape {r.shape}; expected ({d},) (one ring per channel) or ({d}, 2) "
                         "(a Vernier pair per channel)")
    check_range("radii", r, RULES.min_bend_radius, 500.0, unit="µm")
    return r


def _check_target(target_db):
    return check_range("target_db", target_db, -200.0, 0.0, unit="dB", hi_open=True)


# ---------------------------------------------------------------------------- ring kernels
def _theta_scalar(wl, r, p):
    return rings.ring_round_trip(wl, r, p["width"], p["gap"], p["gap_drop"], p["electrode_gap"],
                                 p["electrode_coverage"], p["film_thickness"], p["etch_depth"], p["loss_db_per_cm"],
                                 p["voltage_v"], p["delta_t_k"])[1]


def _ring_terms(wl, r, p):
    """x = t1 t2 a, θ, drop power |S_o1→o4|², n_g and θ per volt of one ring (radius r) at wl."""
    eta = 10.0 ** (-p["coupler_loss_db"] / 20)
    geo = (p["width"], p["film_thickness"], p["etch_depth"])
    p1 = rings.coupling_angle(wl, p["gap"], r, *geo)
    p2 = p1 if p["gap_drop"] is None else rings.coupling_angle(wl, p["gap_drop"], r, *geo)
    t1, k1, t2, k2 = eta * jnp.cos(p1), eta * jnp.sin(p1), eta * jnp.cos(p2), eta * jnp.sin(p2)
    rt = (p["width"], p["gap"], p["gap_drop"], p["electrode_gap"], p["electrode_coverage"], p["film_thickness"],
          p["etch_depth"], p["loss_db_per_cm"])
    a, theta = rings.ring_round_trip(wl, r, *rt, p["voltage_v"], p["delta_t_k"])
    _, theta_1v = rings.ring_round_trip(wl, r, *rt, p["voltage_v"] + 1.0, p["delta_t_k"])
    _, drop, _ = rings.add_drop_fields(t1, k1, t2, k2, a, theta)
    length = rings.default_bus_length(r, p["width"]) if p["bus_length"] is None else p["bus_length"]
    bus = 10.0 ** (-p["loss_db_per_cm"] * length * 1e-4 / 10)  # |S| of the bus, squared
    return {"x": t1 * t2 * a, "theta": theta, "drop": bus * jnp.abs(drop) ** 2,
            "ng": rings.ring_ng(wl, r, *geo), "theta_v": theta_1v - theta}


@functools.lru_cache(maxsize=16)
def _terms_fn(items: tuple):
    p = dict(items)
    return jax.jit(jax.vmap(lambda wl, r: _ring_terms(wl, r, p), in_axes=(None, 0)))


def _bucket(n: int) -> int:
    """Padded length (8, 16, 32, …): one compilation serves every size up to it."""
    return max(8, 1 << (int(n) - 1).bit_length())


def _pad(a: np.ndarray, axis: int) -> np.ndarray:
    n = a.shape[axis]
    return np.concatenate([a, np.repeat(np.take(a, [-1], axis=axis), _bucket(n) - n, axis=axis)], axis=axis)


def _terms(wl, radii, p) -> dict:
    """``_ring_terms`` for each radius (n,) at wavelengths wl (W,): arrays (n, W)."""
    wl, radii = np.atleast_1d(np.asarray(wl, float)), np.atleast_1d(np.asarray(radii, float))
    f = _terms_fn(tuple(sorted(p.items())))
    out = f(jnp.asarray(_pad(wl, 0)), jnp.asarray(_pad(radii, 0)))
    return {k: np.asarray(v)[: radii.size, : wl.size] for k, v in out.items()}


def _fsr_fwhm_nm(wl, radius, t):
    """Local FSR = λ²/(n_g L) and FWHM = FSR·(2/π) asin((1 − x)/(2√x)) (nm), the half maximum of the Airy
    line (→ Bogaerts 2012's (1 − x)λ²/(π n_g L √x) at high finesse), as ``rings.ring_specs``."""
    length = 2 * np.pi * radius
    fsr = wl**2 / (t["ng"] * length)
    u = np.clip((1 - t["x"]) / (2 * np.sqrt(t["x"])), 0.0, 1.0)
    return fsr * 1e3, fsr * 2 * np.arcsin(u) / np.pi * 1e3


@functools.lru_cache(maxsize=16)
def _phase_fn(items: tuple):
    """θ and n_g of ring n (radius r[n]) at its own row of wavelengths wl[n, :]."""
    p = dict(items)
    geo = (p["width"], p["film_thickness"], p["etch_depth"])
    return jax.jit(jax.vmap(lambda wl, r: (_theta_scalar(wl, r, p), rings.ring_ng(wl, r, *geo))))


def _resonances_um(lam0, r, m, p, steps: int = 2) -> np.ndarray:
    """Resonance λ (µm) of order m[j, i] of ring j, by Newton from lam0: λ ← λ + (θ − 2πm)·λ²/(2π n_g L)."""
    f = _phase_fn(tuple(sorted(p.items())))
    lam, r = np.asarray(lam0, float), np.asarray(r, float)
    n, w = lam.shape
    for _ in range(steps):
        theta, ng = (np.asarray(v)[:n, :w] for v in f(jnp.asarray(_pad(_pad(lam, 0), 1)), jnp.asarray(_pad(r, 0))))
        lam = lam + (theta - 2 * np.pi * m) / (2 * np.pi) * lam**2 / (ng * 2 * np.pi * r[:, None])
    return lam


def _single_ring_ratio(ch, r, p):
    """X[i, j] (linear), order k[i, j], offset Δ[i, j] (nm), ring FSR and FWHM at its channel, own orders."""
    t = _terms(ch, r, p)  # (ring j, wavelength i)
    drop = t["drop"]
    x = drop.T / np.diag(drop)[:, None]
    fsr, fwhm = _fsr_fwhm_nm(ch[None, :], r[:, None], t)
    m_near = np.round(t["theta"] / (2 * np.pi))
    m_own = np.diag(m_near)
    order = (m_own[:, None] - m_near).T.astype(int)
    lam_res = _resonances_um(np.broadcast_to(ch[None, :], drop.shape), r, m_near, p)
    offset = ((ch[None, :] - lam_res) * 1e3).T
    return x, order, offset, np.diag(fsr).copy(), np.diag(fwhm).copy(), m_own.astype(int), t


# ---------------------------------------------------------------------------- result
def _jsonable(v):
    if isinstance(v, (tuple, list)):
        return [_jsonable(e) for e in v]
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    return v


def _worst(m_db: np.ndarray) -> tuple[float, tuple[int, int]]:
    off = np.where(np.eye(len(m_db), dtype=bool), -np.inf, m_db)
    i, j = np.unravel_index(int(np.argmax(off)), off.shape)
    return float(off[i, j]), (int(i), int(j))


@dataclass(eq=False)
class CrosstalkResult:
    """Crosstalk of a ring bank for a channel plan (see the module docstring for definitions).

    ``matrix[i, j]`` (dB): ring j at channel i relative to ring i at channel i (diagonal 0).
    ``order[i, j]``: resonance of ring j nearest channel i, in FSRs from ring j's own line
    (k > 0 to longer wavelength; (d, d, 2) for Vernier pairs); ``offset_nm[i, j]``:
    λ_i minus that resonance. ``fsr_nm``/``fwhm_nm``: the ring serving the centre channel
    (Vernier: the pair's common FSR and the first ring's FWHM); ``ring_fsr_nm``,
    ``ring_fwhm_nm`` per ring at its channel; ``bank_slopes_per_v`` ∂w_j/∂V_j (1/V) at
    ``bank_voltages``; ``ring_orders`` the absolute resonance order m
    of each ring at its channel. Vernier only: ``through_matrix`` (dB), what the bus-coupled
    first ring alone pulls off the through bus (its aliases deplete the bus whatever the
    second ring passes). ``bank_matrix``: |∂w_i/∂V_j|/|∂w_j/∂V_j| (dB)
    of the balanced bank at ``bank_voltages``; ``thermal_matrix``: heater crosstalk (dB).
    """

    channels_um: np.ndarray
    radii: np.ndarray
    matrix: np.ndarray
    order: np.ndarray
    offset_nm: np.ndarray
    ring_fsr_nm: np.ndarray
    ring_fwhm_nm: np.ndarray
    worst_db: float
    worst_pair: tuple[int, int]
    worst_wavelengths_nm: tuple[float, float]
    worst_order: int | tuple[int, int]
    worst_offset_nm: float | tuple[float, float]
    fsr_nm: float
    fwhm_nm: float
    spacing_nm: float
    n_channels: int
    family: str
    ring_orders: np.ndarray | None = None
    through_matrix: np.ndarray | None = None
    through_worst_db: float | None = None
    bank_matrix: np.ndarray | None = None
    bank_worst_db: float | None = None
    bank_worst_pair: tuple[int, int] | None = None
    bank_voltages: np.ndarray | None = None
    bank_slopes_per_v: np.ndarray | None = None
    thermal_matrix: np.ndarray | None = None
    thermal_worst_db: float | None = None
    thermal_worst_pair: tuple[int, int] | None = None
    thermal_decay_length_um: float | None = None

    def worst_pairs(self, n: int = 5) -> list[dict]:
        """The n largest off-diagonal entries: channel i, ring j, wavelengths, dB, order, offset."""
        off = np.where(np.eye(self.n_channels, dtype=bool), -np.inf, self.matrix)
        idx = np.argsort(off, axis=None)[::-1][:n]
        out = []
        for f in idx:
            i, j = (int(v) for v in np.unravel_index(int(f), off.shape))
            out.append({"channel": i, "ring": j, "channel_nm": float(self.channels_um[i] * 1e3),
                        "ring_channel_nm": float(self.channels_um[j] * 1e3), "db": float(off[i, j]),
                        "order": _jsonable(self.order[i, j]), "offset_nm": _jsonable(self.offset_nm[i, j])})
        return out

    def to_dict(self) -> dict:
        """The report's ``crosstalk`` section (JSON-ready)."""
        i, j = self.worst_pair
        out = {
            "n_channels": self.n_channels,
            "spacing_nm": self.spacing_nm,
            "fsr_nm": self.fsr_nm,
            "fwhm_nm": self.fwhm_nm,
            "worst_db": self.worst_db,
            "worst_pair": {"channel": i, "ring": j, "channel_nm": self.worst_wavelengths_nm[0],
                           "ring_channel_nm": self.worst_wavelengths_nm[1], "order": self.worst_order,
                           "offset_nm": self.worst_offset_nm},
            "family": self.family,
        }
        if self.through_worst_db is not None:
            out["through_worst_db"] = self.through_worst_db
        if self.bank_worst_db is not None:
            out["bank_worst_db"] = self.bank_worst_db
            out["bank_worst_pair"] = list(self.bank_worst_pair)
        if self.thermal_worst_db is not None:
            out["thermal_worst_db"] = self.thermal_worst_db
            out["thermal_worst_pair"] = list(self.thermal_worst_pair)
            out["thermal_decay_length_um"] = self.thermal_decay_length_um
        return _jsonable(out)


# ---------------------------------------------------------------------------- bank and thermal views
def ring_positions_um(radii, ring_spacing: float = RING_SPACING, width: float = rings.RIDGE_WIDTH,
                      bus_length: float | None = None) -> np.ndarray:
    """Ring centres (µm) along a ``prism_channel``: each cell's bus length plus ``ring_spacing`` between cells."""
    r = np.asarray(radii, float)
    cell = np.array([float(rings.default_bus_length(x, width)) if bus_length is None else bus_length for x in r])
    pitch = 0.5 * (cell[:-1] + cell[1:]) + ring_spacing
    return np.concatenate([[0.0], np.cumsum(pitch)])


@functools.lru_cache(maxsize=8)
def _bank_jacobian_fn(items: tuple, ring_spacing: float):
    """Jitted (∂w/∂V, ∂w/∂T) of one balanced channel (``prism_bank.balanced_weights``) at its channels."""
    from prismpic.circuits import prism_bank

    bank_ring = dict(items)

    def w(v, t, ch, r):
        return prism_bank.balanced_weights(ch, r, v[None, :], delta_t_k=t[None, :], ring_spacing=ring_spacing,
                                           **bank_ring)[0]

    return jax.jit(jax.jacfwd(w, argnums=(0, 1)))


def _bank_jacobians(ch, r, v0, p, ring_spacing):
    f = _bank_jacobian_fn(tuple(sorted((k, p[k]) for k in _BANK_KEYS)), float(ring_spacing))
    t0 = jnp.full(len(r), float(p["delta_t_k"]))
    jv, jt = f(jnp.asarray(v0, float), t0, jnp.asarray(ch, float), jnp.asarray(r, float))
    return np.asarray(jv), np.asarray(jt)


def _normalised_db(g: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return 10 * np.log10(np.abs(g) / np.abs(np.diag(g))[None, :])


# ---------------------------------------------------------------------------- matrix
def crosstalk_matrix(channels_um, radii, *, bank: bool = True, voltages=None, ring_spacing: float = RING_SPACING,
                     thermal_decay_length_um: float | None = None, ring_positions=None, **ring) -> CrosstalkResult:
    """Crosstalk matrix of a ring bank for a channel plan, from the ring models.

    Args:
        channels_um: channel wavelengths (µm), shape (d,), distinct.
        radii: ring radii (µm), (d,) (ring j serves channel j, e.g. ``prism_bank.bank_radii``)
            or (d, 2) (a Vernier pair per channel).
        bank: also compute the bank view (Jacobian of ``prism_bank.balanced_weights``; single rings only).
        voltages: operating voltages (V), (d,), for the bank view; None: each ring half a
            linewidth to the red of its channel (single-ring w ≈ 0), on top of ``voltage_v``.
        ring_spacing: bus between ring cells (µm), for the bank and the thermal distances.
        thermal_decay_length_um: L_th (µm) of the optional thermal term (``THERMAL_DECAY_LENGTH_UM``
            is a † estimate); None leaves it out.
        ring_positions: ring centres along the bus (µm), (d,); None: ``ring_positions_um``.
        **ring: other ``ring_add_drop_model`` parameters (gap, width, loss_db_per_cm, voltage_v, …), shared.
    """
    ch = _check_channels(channels_um)
    d = ch.size
    r = _check_radii(radii, d)
    p = _settings(ring)
    _validate_ring(p, r)
    check_range("ring_spacing", ring_spacing, 0.0, 1e4, unit="µm")
    if thermal_decay_length_um is not None:
        check_range("thermal_decay_length_um", thermal_decay_length_um, 0.0, 1e4, unit="µm", lo_open=True)
    vernier = r.ndim == 2
    through = None
    if vernier:
        xa, oa, fa, fsr_a, fwhm_a, ma, _ = _single_ring_ratio(ch, r[:, 0], p)
        xb, ob, fb, fsr_b, fwhm_b, mb, _ = _single_ring_ratio(ch, r[:, 1], p)
        x = xa * xb
        through = 10 * np.log10(xa)
        order, offset, m_own = np.stack([oa, ob], -1), np.stack([fa, fb], -1), np.stack([ma, mb], -1)
        with np.errstate(divide="ignore"):
            ring_fsr = fsr_a * fsr_b / np.abs(fsr_a - fsr_b)
        ring_fwhm = fwhm_a
    else:
        x, order, offset, ring_fsr, ring_fwhm, m_own, terms = _single_ring_ratio(ch, r, p)
    m_db = 10 * np.log10(x)
    worst_db, (i, j) = _worst(m_db)
    centre = int(np.argsort(ch)[d // 2])
    res = CrosstalkResult(
        channels_um=ch, radii=r, matrix=m_db, order=order, offset_nm=offset, ring_fsr_nm=ring_fsr,
        ring_fwhm_nm=ring_fwhm, worst_db=worst_db, worst_pair=(i, j),
        worst_wavelengths_nm=(float(ch[i] * 1e3), float(ch[j] * 1e3)),
        worst_order=tuple(int(o) for o in order[i, j]) if vernier else int(order[i, j]),
        worst_offset_nm=tuple(float(o) for o in offset[i, j]) if vernier else float(offset[i, j]),
        fsr_nm=float(ring_fsr[centre]), fwhm_nm=float(ring_fwhm[centre]),
        spacing_nm=float(np.median(np.diff(np.sort(ch))) * 1e3), n_channels=d,
        family="vernier" if vernier else "single", ring_orders=m_own, through_matrix=through,
        through_worst_db=None if through is None else _worst(through)[0],
    )
    if vernier and (bank or thermal_decay_length_um is not None):
        bank, thermal_decay_length_um = False, None  # the bank model holds one ring per channel
    if not bank and thermal_decay_length_um is None:
        return res
    if voltages is None:
        idx = np.arange(d)
        xs = terms["x"][idx, idx]
        v0 = p["voltage_v"] + (1 - xs) / np.sqrt(xs) / terms["theta_v"][idx, idx]  # HWHM in phase / (dθ/dV)
    else:
        v0 = np.broadcast_to(np.asarray(voltages, float), (d,))
    vmax = RULES.max_electrode_voltage_v
    check_range("voltages", v0, -vmax, vmax, unit="V")
    jv, jt = _bank_jacobians(ch, r, v0, p, ring_spacing)
    res.bank_voltages = np.asarray(v0, float)
    res.bank_slopes_per_v = np.diag(jv).copy()
    if bank:
        res.bank_matrix = _normalised_db(jv)
        res.bank_worst_db, res.bank_worst_pair = _worst(res.bank_matrix)
    if thermal_decay_length_um is not None:
        pos = ring_positions_um(r, ring_spacing, p["width"], p["bus_length"]) if ring_positions is None \
            else np.asarray(ring_positions, float)
        if pos.shape != (d,):
            raise ValueError(f"ring_positions has shape {pos.shape}; expected ({d},)")
        k = np.exp(-np.abs(pos[:, None] - pos[None, :]) / thermal_decay_length_um)
        res.thermal_matrix = _normalised_db(jt @ k)
        res.thermal_worst_db, res.thermal_worst_pair = _worst(res.thermal_matrix)
        res.thermal_decay_length_um = float(thermal_decay_length_um)
    return res


# ---------------------------------------------------------------------------- figure
def plot_crosstalk(result: CrosstalkResult, path, *, floor_db: float = -60.0, which: str = "matrix") -> Path:
    """Heat map (channel i × ring j, dB) with a colour bar and the worst pair circled; writes a PNG.

    Args:
        result: a ``CrosstalkResult``.
        path: PNG file to write.
        floor_db: lower end of the colour scale (dB).
        which: "matrix" (single-ring drops), "bank" or "thermal".
    """
    check_choice("which", which, ("matrix", "bank", "thermal"))
    m = {"matrix": result.matrix, "bank": result.bank_matrix, "thermal": result.thermal_matrix}[which]
    if m is None:
        raise ValueError(f"which = {which!r}: the result holds no {which} matrix")
    worst, (i, j) = _worst(m)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d = result.n_channels
    shown = np.where(np.eye(d, dtype=bool), np.nan, m)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), constrained_layout=True)
    im = ax.imshow(np.clip(shown, floor_db, max(0.0, np.nanmax(shown))), origin="lower", cmap="magma",
                   vmin=floor_db, vmax=max(0.0, float(np.nanmax(shown))), interpolation="nearest")
    ax.plot(j, i, "o", ms=11, mfc="none", mec="cyan", mew=2)
    fig.colorbar(im, ax=ax, label="crosstalk (dB); diagonal blank")
    ax.set_xlabel("ring j (serves channel j)")
    ax.set_ylabel("channel i")
    label = {"matrix": "drop of ring j at λ_i / ring i's", "bank": "|∂w_i/∂V_j| / |∂w_j/∂V_j|",
             "thermal": f"heater crosstalk, L_th = {result.thermal_decay_length_um} µm"}[which]
    order = f", order {result.worst_order}" if which == "matrix" else ""
    ax.set_title(f"{d} ch, {result.spacing_nm:.3g} nm, FSR {result.fsr_nm:.3g} nm, FWHM {result.fwhm_nm:.3g} nm\n"
                 f"{label}; worst {worst:.1f} dB at (i={i}, j={j}){order}", fontsize=9)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


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
        worst, (i, j) = _worst(res.through_matrix)
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


def _check_band(band_nm):
    b = np.asarray(band_nm, float)
    if b.shape != (2,) or not (b[0] < b[1]):
        raise ValueError(f"band_nm = {band_nm!r} must be (lo, hi) with lo < hi (nm)")
    check_range("band_nm", b, 1000.0, 2000.0, unit="nm")
    return float(b[0]), float(b[1])


# ---------------------------------------------------------------------------- optimizer
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
        return _jsonable({"family": self.family, "spacing_nm": self.spacing_nm, "worst_db": self.worst_db,
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
        return _jsonable({"family": self.family, "d": self.d, "band_nm": list(self.band_nm),
                          "target_db": self.target_db, "feasible": self.feasible, "reason": self.reason,
                          "adjacent_bound_db": self.adjacent_bound_db, "common_fsr_bound_db": self.common_fsr_bound_db,
                          "best": None if self.best is None else self.best.to_dict(),
                          "closest": None if self.closest is None else self.closest.to_dict(),
                          "n_plans": len(self.plans), "radius_b": self.radius_b})


def _x_table(p, r_lo, r_hi, lam_lo, lam_hi, n_r=64, n_l=9):
    """x = t1 t2 a on a (radius, wavelength) grid, for linear interpolation in the search."""
    rg = np.linspace(r_lo, r_hi, n_r)
    lg = np.linspace(lam_lo, lam_hi, n_l)
    return jnp.asarray(rg), jnp.asarray(lg), jnp.asarray(_terms(lg, rg, p)["x"])


def _solve_radius(lam, m, r_start, p, iterations: int = 6):
    """Radius whose round trip is 2πm at lam: R ← R·2πm/θ(λ, R) (θ ∝ R n_eff(λ, R)). Elementwise."""
    theta = jax.vmap(lambda w, r: _theta_scalar(w, r, p))
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
    th = jax.vmap(lambda w, rr: _theta_scalar(w, rr, p))(li, rj)
    x = table(jnp.stack([rj, li], -1))
    return _airy_x(th, x).reshape(d, r.shape[0])


def _own_order_radii(lam, r0, p):
    m = jnp.round(jax.vmap(lambda w: _theta_scalar(w, r0, p))(lam) / (2 * jnp.pi))
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
        m0 = jnp.ceil(jax.vmap(lambda w: _theta_scalar(w, r_lo, p))(lam) / (2 * jnp.pi))
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
    p = _settings(ring)
    _validate_ring(p, np.array([min(radius, r_lo), max(radius, r_hi, radius_b or 0.0)]))
    target = 10 ** (target_db / 10)
    centre = 0.5 * (lo + hi) * 1e-3
    s_max = (hi - lo) / (d - 1)

    # ring specs at the band centre: FSR and FWHM of the family's radii
    probe = {"single": [radius], "vernier": [radius] + ([radius_b] if radius_b else [r_lo, r_hi]),
             "per_channel_radii": [r_lo, r_hi]}[family]
    t = _terms(np.array([centre]), np.array(probe, float), p)
    fsr_c, fwhm_c = (v[:, 0] for v in _fsr_fwhm_nm(centre, np.array(probe, float)[:, None], t))
    fwhm_min = float(np.min(fwhm_c))
    lorentz_at_max = float(lorentzian_crosstalk(s_max, fwhm_min))
    if family == "vernier" and readout == "drop":
        adjacent_bound = 10 * math.log10(lorentz_at_max**2)
        s_min = fwhm_min / 2 * math.sqrt(1 / math.sqrt(target) - 1)  # two equal Lorentzians
    else:
        adjacent_bound = 10 * math.log10(lorentz_at_max)
        s_min = fwhm_min / 2 * math.sqrt(1 / target - 1)
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
    radius_b_used = None
    items = tuple(sorted(p.items()))
    args = (jnp.asarray(spacings), centre)
    if family == "single":
        table = _x_table(p, radius - 1.0, radius + 1.0, centre - margin, centre + margin)
        worst, radii_s = (np.asarray(v) for v in _search_fn(family, d, 0, items, False)(*args, radius, 0.0, *table))
    elif family == "per_channel_radii":
        table = _x_table(p, r_lo - 0.5, r_hi + 0.5, centre - margin, centre + margin)
        lam_edge = centre + margin
        n_orders = int(math.floor((float(_theta_scalar(lam_edge, r_hi, p)) - float(_theta_scalar(lam_edge, r_lo, p)))
                                  / (2 * math.pi)))
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
    worst_db = 10 * np.log10(worst)

    plans = []
    for k in _pick(worst_db, n_verify):
        lam = centre + spacings[k] * 1e-3 * (np.arange(d) - (d - 1) / 2)
        chk = check_channel_plan(lam, radii_s[k], target_db, readout=readout, **ring)
        plans.append(ChannelPlan(family=family, channels_um=lam, radii=radii_s[k], spacing_nm=float(spacings[k]),
                                 worst_db=chk.worst_db, worst_pair=chk.worst_pair, worst_order=chk.worst_order,
                                 fsr_nm=chk.result.fsr_nm, fwhm_nm=chk.result.fwhm_nm))
    plans.sort(key=lambda q: q.worst_db)
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
    from prismpic.circuits import prism_bank

    ch = prism_bank.channel_plan_um(d, spacing_nm, center_nm)
    return ch, prism_bank.bank_radii(ch, radius, **ring)
