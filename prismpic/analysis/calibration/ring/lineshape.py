"""The first stage of a spectrum fit: the measured line shape, as the Airy response of a ring with smooth
ingredients, fitted to every point of the spectrum.

The ring's field (``ring_physics.add_drop_fields``, Bogaerts et al., Laser Photon. Rev. 6, 47 (2012),
eqs. (3)–(4)) takes its ingredients as smooth functions of x = (λ − λ_r)/h (λ_r the resonance the fit is
about, h the half span; wavelengths in µm throughout):

- round-trip phase θ = 2π·n_eff(λ)·L/λ with n_eff·L quadratic in λ: θ(x) = (θ0 + (θ1 + εθ0)x + (θ2 + εθ1)x²)/(1 + εx),
  ε = h/λ_r, whose Taylor coefficients at λ_r are θ0, θ1 = −2πh/FSR and θ2 (the curvature from 1/λ and
  dispersion); a plain quadratic in x misplaces the resonances 50 nm away by half a linewidth (the 1/λ cubic);
- power couplings κ_i²(x) = exp(lk_i + lk_i_s·x) (t_i = √(η² − κ_i²), η the coupler excess-loss amplitude);
- round-trip amplitude a(x) = exp(−exp(la + la_s·x));

times the instrument (``ring_spectrum_model``: split resonances ½[F(θ + φ_s) + F(θ − φ_s)], the drop port's
wavelength offset, the baseline polynomial in dB and the facets' Fabry–Pérot ripple). Nothing here depends on
the dispersion tables, so the fit over 10,000 points costs milliseconds per iteration and compiles in
seconds; the physical parameters then follow from the line shape's values at λ_r (``ring_physfit``), and the
physical model is checked against every point again at the end (``ring_spectrum``).

The vector is ``LINE`` then ``ring_spectrum_model.INSTRUMENT`` then the baseline coefficients
(``MAX_ORDER`` + 1 per baseline); what a fit does not move is held by a zero step in its ``Box``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax.numpy as jnp

from prismpic.analysis.calibration.ring.spectrum_model import INSTRUMENT, fields_of, instrument_ports
from prismpic.components.lineshapes import x_from_fwhm

LINE = ("theta0", "theta1", "theta2", "lk1", "lk1_s", "lk2", "lk2_s", "la", "la_s")
MAX_ORDER = 6  # as the resonance analysis's baseline (a grating-coupler bell over 100 nm needs 4)
# what the physical parameters are matched to: the line shape at λ_r
AT_RESONANCE = ("theta0", "theta1", "lk1", "lk2", "la")


@dataclass(frozen=True)
class LineSetup:
    """The static structure of a line-shape fit (one compilation each): ``free`` names what the solver moves."""

    kind: str
    symmetric: bool
    ports: tuple[str, ...]
    shared: bool
    free: tuple[str, ...] = ()

    @property
    def n_sets(self) -> int:
        return 1 if self.shared else len(self.ports)

    def names(self) -> tuple[str, ...]:
        """Names of the vector: ``LINE``, ``INSTRUMENT``, then the baseline coefficients u^i of each baseline."""
        sets = ("",) if self.shared else tuple(f"{p}_" for p in self.ports)
        return LINE + INSTRUMENT + tuple(f"{s}u{i}" for s in sets for i in range(MAX_ORDER + 1))

    def index(self, name: str) -> int:
        return self.names().index(name)


def ingredients(v, x, s: LineSetup, eta, eps):
    """(t1, κ1, t2, κ2, a, θ) of the line-shape vector ``v`` at points x (jnp); ``eps`` = h/λ_r."""
    theta = (v[0] + (v[1] + eps * v[0]) * x + (v[2] + eps * v[1]) * x**2) / (1 + eps * x)
    k1sq = jnp.exp(v[3] + v[4] * x)
    if s.kind == "all_pass":
        k2sq = jnp.zeros_like(x)
    elif s.symmetric:
        k2sq = k1sq
    else:
        k2sq = jnp.exp(v[5] + v[6] * x)
    a = jnp.exp(-jnp.exp(v[7] + v[8] * x))
    t1, t2 = jnp.sqrt(eta**2 - k1sq), jnp.sqrt(eta**2 - k2sq)
    return t1, jnp.sqrt(k1sq), t2, jnp.sqrt(k2sq), a, theta


def _ports(v, args, s: LineSetup):
    n_line = len(LINE)
    instr = {n: v[n_line + i] for i, n in enumerate(INSTRUMENT)}
    x = args["x"]
    split = "split_um" in s.free

    def fields(xx):
        return fields_of(ingredients(v, xx, s, args["eta"], args["eps"]), instr, args["fsr_um"], split)

    through, drop = fields(x)
    if "drop_offset_um" in s.free:
        drop = fields(x + instr["drop_offset_um"] / args["h_um"])[1]
    coef = v[n_line + len(INSTRUMENT):]
    ones = jnp.ones_like(x)
    return instrument_ports({"through": through, "drop": drop}, ones, ones, coef, instr, args, s.ports, s.shared,
                            MAX_ORDER)


def full_vector(x, args, s: LineSetup):
    """The line-shape vector: ``args["full0"]`` with the free entries ``x`` set."""
    names = s.names()
    return args["full0"].at[jnp.asarray([names.index(n) for n in s.free], dtype=int)].set(x)


@functools.lru_cache(maxsize=64)
def residual_fn(s: LineSetup):
    """``residual(x, args) -> ((model − data)·w of every port, no constraints)``, x the ``s.free`` entries.

    ``args``: ``full0`` (the vector's held values), ``x`` (ring variable), ``eps`` (h/λ_r), ``u`` and ``dl_um`` (baseline and
    ripple variables), ``h_um``, ``fsr_um``, ``eta`` (coupler excess-loss amplitude), ``data`` and ``w``
    (ports × points; w = 1/σ, 0 masks a point).
    """
    def residual(x, args):
        model = _ports(full_vector(x, args, s), args, s)
        r = jnp.concatenate([(m - d) * w for m, d, w in zip(model, args["data"], args["w"], strict=True)])
        return r, jnp.zeros(0)

    return residual


@functools.lru_cache(maxsize=64)
def model_fn(s: LineSetup):
    """jit(``model(v, args) -> (ports, points)``): the line-shape model's transmission for a full vector v."""
    import jax

    return jax.jit(lambda v, args: jnp.stack(_ports(v, args, s)))


def closed_form(kind: str, regime: str, fsr_um: float, fwhm_um: float, t0: float | None, d0: float | None,
                eta: float, wl_um: float, h_um: float) -> dict:
    """Starting line-shape values of a regime from the resonance's FSR, FWHM, through minimum T0 and drop peak D0.

    The Airy inversion: x = t1·t2·a from FWHM/FSR (``lineshapes.x_from_fwhm``); then t1, t2, a from x, T0
    (and D0) for the regime (``ring_start.couplings``); θ1 = −2πh/FSR, θ2 = ½h²θ'' = h²·2π/(FSR·λ) (the 1/λ of
    θ = 2πL·n_eff/λ at constant n_g: θ'' = 4πL·n_g/λ³).
    """
    from prismpic.analysis.calibration.ring.start import couplings

    x = x_from_fwhm(fwhm_um, fsr_um)
    t1, t2, a = couplings(kind, regime, x, 0.1 if t0 is None else t0, d0)
    t1, t2 = min(t1 / eta, 0.9995), min(t2 / eta, 0.9995)
    out = {"theta0": 0.0, "theta1": -math.tau * h_um / fsr_um, "theta2": h_um**2 * math.tau / (fsr_um * wl_um),
           "lk1": math.log(eta**2 * (1 - t1**2)), "lk1_s": 0.0, "lk2": math.log(eta**2 * (1 - t2**2)) if t2 < 1 else -30,
           "lk2_s": 0.0, "la": math.log(-math.log(min(max(a, 1e-6), 1 - 1e-9))), "la_s": 0.0}
    return out


LINE_BOUNDS = {"theta0": (-math.pi, math.pi), "theta1": (-math.inf, math.inf), "theta2": (-math.inf, math.inf),
               "lk1": (-16.0, 0.0), "lk1_s": (-3.0, 3.0), "lk2": (-16.0, 0.0), "lk2_s": (-3.0, 3.0),
               "la": (-18.0, 3.0), "la_s": (-3.0, 3.0)}
