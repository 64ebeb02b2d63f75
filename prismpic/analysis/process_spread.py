"""A ring's specs over the fabrication process: nominal, every named corner, and a seeded Monte Carlo.

The ring is the drawn design (``rings.ring_params``); each process point (``prismpic.pdk.process``) turns it
into the as-fabricated ring (``process.apply``: width and gap biases, film, etch, wall angle, cladding),
whose specs come from ``rings.ring_specs`` and whose all-pass critical gap from ``rings.critical_gap``
(expressed as the drawn gap: the etched critical gap minus the gap bias). Every point is taken at the nominal
ring's resonance order nearest ``wl0`` (the same resonance followed over the process: a ±3σ film moves it by
most of an FSR, and the nearest resonance would jump orders, FSR ∝ λ² with it).
"""

from __future__ import annotations

import math

import numpy as np

from prismpic.components import rings
from prismpic.pdk.process import DEFAULT_PROCESS, Process, apply

QUANTITIES = ("q_loaded", "extinction_db", "fsr_nm", "fwhm_nm", "ng", "drop_loss_db", "critical_gap_um",
              "resonance_nm")


def _specs(kind: str, design: dict, values: dict, wl0: float, order: int) -> dict:
    accepted = rings.ring_params(kind, {})
    p = apply(design, values, accepted)
    s = rings.ring_specs(wl0, kind, order, **p)
    s["resonance_nm"] = s["resonance_um"] * 1e3
    ap = {k: v for k, v in p.items() if k not in ("gap", "gap_drop")}
    try:
        crit = rings.critical_gap(wl0, "all_pass", **{k: v for k, v in ap.items()
                                                      if k in rings.ring_params("all_pass", {})})
        crit -= values.get("gap_bias", 0.0)
    except ValueError:
        crit = math.nan
    return {q: (crit if q == "critical_gap_um" else float(s[q])) for q in QUANTITIES}


def ring_process_spread(process: Process = DEFAULT_PROCESS, kind: str = "add_drop", *, n_samples: int = 32,
                        seed: int = 0, wl0: float = 1.55, **ring) -> dict:
    """Specs of the drawn ring ``ring`` at the process's nominal point, at every corner and over ``n_samples``
    seeded Monte Carlo draws (mean, std and the 5/50/95 % points of each quantity in ``QUANTITIES``), all at the
    nominal ring's resonance order nearest ``wl0`` ("order" in the result)."""
    design = {k: v for k, v in rings.ring_params(kind, ring).items() if k in ring or k in ("width", "gap", "gap_drop")}
    nominal = apply(design, process.corner("nominal"), rings.ring_params(kind, {}))
    order = rings.resonance_order(wl0, kind, **nominal)
    corners = {name: _specs(kind, design, values, wl0, order) for name, values in process.corners().items()}
    draws = [_specs(kind, design, values, wl0, order) for values in process.sample(n_samples, seed)]
    mc = {}
    for q in QUANTITIES:
        v = np.array([d[q] for d in draws], float)
        v = v[np.isfinite(v)]
        mc[q] = ({"mean": float(v.mean()), "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                  "p5": float(np.percentile(v, 5)), "p50": float(np.percentile(v, 50)),
                  "p95": float(np.percentile(v, 95)), "n": int(v.size)} if v.size else {"n": 0})
    span = {q: (min(c[q] for c in corners.values()), max(c[q] for c in corners.values())) for q in QUANTITIES}
    return {"process": process.to_dict(), "kind": kind, "design": design, "nominal": corners["nominal"],
            "corners": corners, "corner_span": span, "order": order, "monte_carlo": mc, "n_samples": n_samples,
            "seed": seed}
