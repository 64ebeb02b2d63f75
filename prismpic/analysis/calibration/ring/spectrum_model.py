"""The instrument around a ring, and the physical ring model over a measured span.

Per port the measurement is T(λ) = 10^(B(λ)/10) · |bus(λ)|² · |field(λ)|², with

- a split resonance (backscattering): the ring's standing-wave modes sit at θ ± φ_s and, in coupled-mode
  theory, each carries half the travelling wave, so the fields are ½[F(θ + φ_s) + F(θ − φ_s)] (exact for a
  real backscatter coupling; φ_s = 2π·split_um/FSR; Li et al., Opt. Express 20, 13617 (2012); Morichetti et
  al., Phys. Rev. Lett. 104, 033902 (2010)); ``split_um`` = 0 is the ordinary ring;
- the drop port read ``drop_offset_um`` later in wavelength than the through port (separate sweeps, a lag
  between detectors);
- the baseline B in dB: a polynomial in u = (λ − mid)/half (one for every port if shared, else one per port)
  plus the facets' Fabry–Pérot ripple c·cos(2πΔλ/P) + s·sin(2πΔλ/P), Δλ = λ − mid (a weak cavity of
  reflectance R gives ≈ 8.7·R·cos in dB).

``physical_fn`` evaluates the physical ring (``ring_model.ring_fields``: couplers, round trip with the index
correction, bus) at ``N_NODES`` Chebyshev nodes of the span, interpolates (barycentric; error of order
(span/λ)^N_NODES, checked against the SAX model) and applies the instrument: the final check of a fit.

Dispersion correction (``dispersion_corrected``): the physics is matched to the line shape at λ_r, values and
the phase's slope (n_eff, n_g); the slopes of κ1², κ2² and of the loss across the span are the model's. A ring
whose couplers disperse differently from the coupler model (or a textbook spectrum with constant κ) then
misfits the outer resonances at high SNR; so does a group-velocity dispersion other than the tables' (the
phase's curvature θ2 = ½h²·θ'', θ'' = 2πL(2n_g/λ³ − (dn_g/dλ)/λ²)). ``DISPERSION`` (d ln κ1²/dx, d ln κ2²/dx,
d ln(−ln a)/dx and θ2, added to the model's; x = (λ − λ_r)/h) carries the line shape's own slopes and
curvature into the check; zero is the pure model.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from prismpic import program_cache
from prismpic.analysis.calibration.ring.model import FIT_PARAMS, barycentric, ring_fields
from prismpic.components import ring_physics

INSTRUMENT = ("drop_offset_um", "split_um", "ripple_cos_db", "ripple_sin_db", "ripple_period_um")
DISPERSION = ("dlnk1_dx", "dlnk2_dx", "dlnloss_dx", "theta2")


def dispersion_corrected(ing, x, disp):
    """The ingredients (t1, κ1, t2, κ2, a, θ, …) with κ_i² × exp(d_i·x) (t_i keeps t_i² + κ_i² = η²),
    −ln a × exp(d_a·x) and θ + Δθ2·x²; ``disp`` in ``DISPERSION`` order, x = (λ − λ_r)/h."""
    t1, k1, t2, k2, a = ing[0], ing[1], ing[2], ing[3], ing[4]
    k1n, k2n = k1 * jnp.exp(0.5 * disp[0] * x), k2 * jnp.exp(0.5 * disp[1] * x)
    t1n = jnp.sqrt(jnp.maximum(t1**2 + k1**2 - k1n**2, 0.0))
    t2n = jnp.sqrt(jnp.maximum(t2**2 + k2**2 - k2n**2, 0.0))
    an = jnp.exp(jnp.log(a) * jnp.exp(disp[2] * x))
    return jnp.concatenate([jnp.stack([t1n, k1n, t2n, k2n, an, ing[5] + disp[3] * x**2]), ing[6:]])


def fields_of(ing, instr: dict, fsr_um, split: bool = True):
    """(through, drop) fields of the ingredients (t1, κ1, t2, κ2, a, θ), with the resonance split of ``instr``
    (``split`` False: the ordinary ring, half the cost)."""
    t1, k1, t2, k2, a, theta = ing[:6]
    if not split:
        through, drop, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, theta)
        return through, drop
    phase = 2 * jnp.pi * instr["split_um"] / fsr_um
    tp, dp, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, theta + phase)
    tm, dm, _ = ring_physics.add_drop_fields(t1, k1, t2, k2, a, theta - phase)
    return 0.5 * (tp + tm), 0.5 * (dp + dm)


def instrument_ports(fields: dict, bus2_t, bus2_d, coef, instr: dict, args: dict, ports, shared: bool, order: int):
    """Transmission of each port: 10^(B/10)·|bus|²·|field|², B the port's baseline polynomial (``order``, in
    ``args["u"]``) plus the ripple (in ``args["dl_um"]``)."""
    x = 2 * jnp.pi * args["dl_um"] / jnp.maximum(instr["ripple_period_um"], 1e-9)
    ripple = instr["ripple_cos_db"] * jnp.cos(x) + instr["ripple_sin_db"] * jnp.sin(x)
    nb = order + 1
    out = []
    for j, port in enumerate(ports):
        c = coef[(0 if shared else j) * nb: ((0 if shared else j) + 1) * nb]
        b_db = sum(c[i] * args["u"] ** i for i in range(nb)) + ripple
        out.append(10 ** (b_db / 10) * (bus2_t if port == "through" else bus2_d) * jnp.abs(fields[port]) ** 2)
    return out


@functools.lru_cache(maxsize=32)
def physical_fn(kind: str, cladding: str, ports: tuple[str, ...], shared: bool, order: int, tuned: bool):
    """jit(``model(vec, held, instr, coef, args) -> (ports, points)``): the physical ring ``vec`` (``FIT_PARAMS``;
    ``held`` from ``held_params``) through the instrument (``instr`` in ``INSTRUMENT`` order, baseline ``coef``).

    ``args``: ``nodes``/``weights`` (``chebyshev_nodes`` of the span, µm), ``wl_um`` (true wavelengths of the
    points), ``u``, ``dl_um``, ``fsr_um``, ``x`` ((λ − λ_r)/h), ``h_um`` and ``disp`` (``DISPERSION``; zeros: the
    pure model); the baseline here includes the bus (it is divided out).
    """
    def model(vec, held, instr_v, coef, args):
        p = dict(held)
        p.update({n: vec[i] for i, n in enumerate(FIT_PARAMS)})
        instr = {n: instr_v[i] for i, n in enumerate(INSTRUMENT)}
        vals = jnp.stack(ring_fields(args["nodes"], p, kind, cladding, tuned))
        ing = dispersion_corrected(barycentric(args["wl_um"], args["nodes"], args["weights"], vals), args["x"],
                                   args["disp"])
        through, drop = fields_of(ing, instr, args["fsr_um"])
        if "drop" in ports:
            off = instr["drop_offset_um"]
            ing_d = dispersion_corrected(barycentric(args["wl_um"] + off, args["nodes"], args["weights"], vals),
                                         args["x"] + off / args["h_um"], args["disp"])
            drop = fields_of(ing_d, instr, args["fsr_um"])[1]
        ones = jnp.ones_like(args["u"])
        return jnp.stack(instrument_ports({"through": through, "drop": drop}, ones, ones, coef, instr, args, ports,
                                          shared, order))

    return program_cache.reuse(model)
