"""WDM crosstalk of a ring bank for a channel plan: the matrix, its bank and thermal views, the Airy cross-check.

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
(``bank_model.balanced_weights``: star-product cascade, every ring-ring round trip and
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
per kelvin (``ring_physics.thermo_optic_dneff_dt``). With J_T[i, k] = ∂w_i/∂T_k of the bank,
G = J_T·K, K[k, j] = exp(−s_kj/L_th), the matrix is |G[i, j]|/|G[j, j]| (dB).

Analytic cross-check (Airy; e.g. Bogaerts et al., Laser Photon. Rev. 6, 47 (2012)):
the drop of an add-drop ring relative to its peak is (1 − x)²/(1 − 2x cos φ + x²) =
1/(1 + F sin²(φ/2)), x = t1 t2 a, φ = 2πΔ/FSR, F = 4x/(1 − x)² the coefficient of
finesse; the half maximum at Δ = FWHM/2 gives F = 1/sin²(π FWHM/(2 FSR)). Near a line
(Δ ≪ FSR) this is the Lorentzian 1/(1 + (2Δ/FWHM)²).
``prismpic.components.lineshapes`` holds these line shapes (``airy``, ``lorentzian``);
``airy_crosstalk_matrix`` is the constant-FSR estimate built on them. Channel plans (the
checker, the bounds and the optimizer) are in ``prismpic.analysis.system.channel_plan``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.checks import check_choice, check_range
from prismpic.components import lineshapes, ring_physics, rings
from prismpic.components.model_signature import model_settings
from prismpic.components.ring_checks import check_ring_inputs
from prismpic.components.ring_design import RingDesign
from prismpic.fileio import jsonable
from prismpic.pdk.rules import RULES

# Thermal decay length along the chip surface for TFLN on a few µm of buried oxide over
# silicon: the substrate sinks the heat, so the lateral temperature profile falls over a
# few oxide thicknesses (scale of the thermal crosstalk measured for heaters on SOI,
# e.g. Jacques et al., Opt. Express 27, 10456 (2019)). † estimate, not a measured TFLN
# figure: replace with a thermal simulation or a measurement of the stack.
THERMAL_DECAY_LENGTH_UM = 20.0
RING_SPACING = 10.0  # µm of bus between ring cells, as ``bank_model.RING_SPACING``

_RING_DEFAULTS = {k: v for k, v in model_settings(rings.ring_add_drop_model).items() if k not in ("wl", "radius")}
# the ring settings the bank's rings share (all but each ring's radius and the operating point)
_BANK_KEYS = ("gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage", "electrode_width",
              "electrode_height", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db",
              "sidewall_angle_deg", "cladding", "dneff", "dng")


# ---------------------------------------------------------------------------- analytic
def airy_crosstalk_matrix(channels_um, fsr_nm, fwhm_nm):
    """Constant-FSR estimate X[i, j] = Airy(λ_i − λ_j) (dB) for rings sitting on the channels.

    ``lineshapes.airy`` with one FSR and FWHM (nm). Ignores the FSR's change across the band
    (λ²/n_g L moves by ~2Δλ/λ, which shifts far aliases by many linewidths): a quick
    estimate, not the model.
    """
    lam = np.asarray(channels_um, float) * 1e3
    return 10 * np.log10(lineshapes.airy(lam[:, None] - lam[None, :], fsr_nm, fwhm_nm))


# ---------------------------------------------------------------------------- validation
def ring_settings(ring: dict) -> dict:
    """The shared ring parameters: ``ring_add_drop_model``'s defaults updated by ``ring`` (ValueError on
    an unknown name). Units as ``ring_add_drop_model`` (µm, dB/cm, V, K)."""
    unknown = sorted(set(ring) - set(_RING_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown ring parameter(s) {unknown}; valid: {sorted(_RING_DEFAULTS)}")
    return {**_RING_DEFAULTS, **ring}


def validate_ring(p: dict, radii) -> None:
    """ValueError unless the radii (µm) and the ring parameters ``p`` (``ring_settings``) are valid for
    ``ring_add_drop_model`` (checked at the smallest and the largest radius)."""
    r = np.asarray(radii, float)
    check_range("radii", r, RULES.min_bend_radius, 500.0, unit="µm")
    for rr in (float(r.min()), float(r.max())):
        check_ring_inputs(1.55, rings.ring_params("add_drop", {**p, "radius": rr}))  # every ring parameter


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


# ---------------------------------------------------------------------------- ring kernels
def bank_design(p: dict) -> RingDesign:
    """The ``RingDesign`` of the bank's rings from the ring parameters ``p`` (``ring_settings``; the radius is each
    ring's own): the ``_BANK_KEYS``, every setting the bank model takes."""
    return RingDesign.from_params({k: p[k] for k in _BANK_KEYS})


def round_trip_phase(wl, r, p):
    """Round-trip phase θ (rad) of an add-drop ring of radius ``r`` (µm) at ``wl`` (µm), parameters ``p``."""
    return ring_phase(wl, bank_design(p).replace(radius=r), p)


def ring_phase(wl, ring: RingDesign, p):
    """Round-trip phase θ (rad) of ``ring`` at ``wl`` (µm) at the voltage and temperature of ``p``."""
    return ring_physics.ring_round_trip(wl, ring, p["voltage_v"], p["delta_t_k"])[1]


def _ring_terms(wl, ring: RingDesign, p):
    """x = t1 t2 a, θ, drop power |S_o1→o4|², n_g and θ per volt of ``ring`` at wl (operating point and bus from
    ``p``)."""
    r = ring.radius
    t1, k1, t2, k2 = ring_physics.coupler_fields(wl, ring)
    a, theta = ring_physics.ring_round_trip(wl, ring, p["voltage_v"], p["delta_t_k"])
    _, theta_1v = ring_physics.ring_round_trip(wl, ring, p["voltage_v"] + 1.0, p["delta_t_k"])
    _, drop, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, theta)
    length = ring_physics.default_bus_length(r, ring.ridge.width) if p["bus_length"] is None else p["bus_length"]
    bus = jnp.abs(ring_physics.bus_transmission(wl, length, ring.ridge, ring.loss_db_per_cm)) ** 2  # |S|² of the bus
    return {"x": t1 * t2 * a, "theta": theta, "drop": bus * jnp.abs(drop) ** 2,
            "ng": ring_physics.ring_ng(wl, r, ring.ridge), "theta_v": theta_1v - theta}


@functools.lru_cache(maxsize=16)
def _terms_fn(items: tuple):
    p = dict(items)
    ring = bank_design(p)
    return program_cache.reuse(jax.vmap(lambda wl, r: _ring_terms(wl, ring.replace(radius=r), p), in_axes=(None, 0)))


def _bucket(n: int) -> int:
    """Padded length (8, 16, 32, …): one compilation serves every size up to it."""
    return max(8, 1 << (int(n) - 1).bit_length())


def _pad(a: np.ndarray, axis: int) -> np.ndarray:
    n = a.shape[axis]
    return np.concatenate([a, np.repeat(np.take(a, [-1], axis=axis), _bucket(n) - n, axis=axis)], axis=axis)


def ring_terms(wl, radii, p) -> dict:
    """Ring terms for each radius (n,) (µm) at wavelengths wl (W,) (µm), arrays (n, W): ``x`` = t1 t2 a,
    ``theta`` θ (rad), ``drop`` |S_o1→o4|², ``ng`` and ``theta_v`` dθ/dV (rad/V)."""
    wl, radii = np.atleast_1d(np.asarray(wl, float)), np.atleast_1d(np.asarray(radii, float))
    f = _terms_fn(tuple(sorted(p.items())))
    out = f(jnp.asarray(_pad(wl, 0)), jnp.asarray(_pad(radii, 0)))
    return {k: np.asarray(v)[: radii.size, : wl.size] for k, v in out.items()}


def fsr_fwhm_nm(wl, radius, terms):
    """Local FSR = λ²/(n_g L) and FWHM (``lineshapes.fwhm_from_x``, the half maximum of the Airy line) in nm,
    of rings of ``radius`` (µm) at ``wl`` (µm), from their ``ring_terms``; as ``rings.ring_specs``."""
    length = 2 * np.pi * radius
    fsr = wl**2 / (terms["ng"] * length)
    return fsr * 1e3, lineshapes.fwhm_from_x(terms["x"], fsr) * 1e3


@functools.lru_cache(maxsize=16)
def _phase_fn(items: tuple):
    """θ and n_g of ring n (radius r[n]) at its own row of wavelengths wl[n, :]."""
    p = dict(items)
    ring = bank_design(p)
    return program_cache.reuse(jax.vmap(lambda wl, r: (ring_phase(wl, ring.replace(radius=r), p),
                                                       ring_physics.ring_ng(wl, r, ring.ridge))))


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
    t = ring_terms(ch, r, p)  # (ring j, wavelength i)
    drop = t["drop"]
    x = drop.T / np.diag(drop)[:, None]
    fsr, fwhm = fsr_fwhm_nm(ch[None, :], r[:, None], t)
    m_near = np.round(t["theta"] / (2 * np.pi))
    m_own = np.diag(m_near)
    order = (m_own[:, None] - m_near).T.astype(int)
    lam_res = _resonances_um(np.broadcast_to(ch[None, :], drop.shape), r, m_near, p)
    offset = ((ch[None, :] - lam_res) * 1e3).T
    return x, order, offset, np.diag(fsr).copy(), np.diag(fwhm).copy(), m_own.astype(int), t


# ---------------------------------------------------------------------------- result
def worst_entry(m_db: np.ndarray) -> tuple[float, tuple[int, int]]:
    """The largest off-diagonal entry (dB) of a square matrix and its (i, j)."""
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
                        "order": jsonable(self.order[i, j]), "offset_nm": jsonable(self.offset_nm[i, j])})
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
        return jsonable(out)


# ---------------------------------------------------------------------------- bank and thermal views
def ring_positions_um(radii, ring_spacing: float = RING_SPACING, width: float = rings.RIDGE_WIDTH,
                      bus_length: float | None = None) -> np.ndarray:
    """Ring centres (µm) along a ``prism_channel``: each cell's bus length plus ``ring_spacing`` between cells."""
    r = np.asarray(radii, float)
    cell = np.array([float(ring_physics.default_bus_length(x, width)) if bus_length is None else bus_length for x in r])
    pitch = 0.5 * (cell[:-1] + cell[1:]) + ring_spacing
    return np.concatenate([[0.0], np.cumsum(pitch)])


@functools.lru_cache(maxsize=8)
def _bank_jacobian_fn(items: tuple, ring_spacing: float):
    """Jitted (∂w/∂V, ∂w/∂T) of one balanced channel (``bank_model.balanced_weights``) at its channels."""
    from prismpic.circuits import bank_model

    bank_ring = dict(items)

    def w(v, t, ch, r):
        return bank_model.balanced_weights(ch, r, v[None, :], delta_t_k=t[None, :], ring_spacing=ring_spacing,
                                           **bank_ring)[0]

    return program_cache.reuse(jax.jacfwd(w, argnums=(0, 1)))


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
        radii: ring radii (µm), (d,) (ring j serves channel j, e.g. ``bank_model.bank_radii``)
            or (d, 2) (a Vernier pair per channel).
        bank: also compute the bank view (Jacobian of ``bank_model.balanced_weights``; single rings only).
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
    p = ring_settings(ring)
    validate_ring(p, r)
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
    worst_db, (i, j) = worst_entry(m_db)
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
        through_worst_db=None if through is None else worst_entry(through)[0],
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
        res.bank_worst_db, res.bank_worst_pair = worst_entry(res.bank_matrix)
    if thermal_decay_length_um is not None:
        pos = ring_positions_um(r, ring_spacing, p["width"], p["bus_length"]) if ring_positions is None \
            else np.asarray(ring_positions, float)
        if pos.shape != (d,):
            raise ValueError(f"ring_positions has shape {pos.shape}; expected ({d},)")
        k = np.exp(-np.abs(pos[:, None] - pos[None, :]) / thermal_decay_length_um)
        res.thermal_matrix = _normalised_db(jt @ k)
        res.thermal_worst_db, res.thermal_worst_pair = worst_entry(res.thermal_matrix)
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
    worst, (i, j) = worst_entry(m)
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

