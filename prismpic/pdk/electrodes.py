"""Electrode layouts as geometry and the Pockels field factor of each, tabulated from the electrostatic FEM.

One electro-optic path: every Pockels device (phase shifter, MZM, ring) takes its index change
Δn_eff = ½ n_e³ r33 Γ f V/g from Γ (``prismpic.pdk.eo_overlap``, the optical overlap with a uniform
field V/g) and the field factor f of its electrode cross-section (mean in-plane field in the ridge over
V/g), computed by ``prismpic.pdk.electrostatics.electrode_field_factor`` for the layout:

- ``electrode_height`` None: metal on the slab beside the ridge (prismpic's default layout), a SiO2
  cladding of ``CLAD_THICKNESS`` over the film (or air, for air-clad rings);
- ``electrode_height`` h (µm): metal bottom h above the film top, on a SiO2 cladding of that thickness,
  beside the ridge (the layout of 400 nm-film foundry stacks with the electrodes above the cladding).

The models need f jittable and differentiable in the geometry, so f is a fit: ln f as a full cubic
polynomial in (ln(g/5 µm), normalised ridge offset, etch fraction, film, width, wall angle[, h]),
plus higher powers of the first two, least squares to FEM solves at quasi-random points of the domain
``DOMAIN`` (``solve_samples``, stored in ``data/field_factor_samples.json``; ``build_fit``; rebuild with
``python -m prismpic.pdk.electrodes``, about 20 minutes on one core, ``--refit`` to refit the stored solves). Its error against held-out FEM
solves is stored with the coefficients (``fit_error``). The FEM mesh (hmin 0.05 µm) puts f ≈ 0.6 % above
its mesh-converged value (``electrode_field_factor``'s docstring); f is for a GSG line of 15 µm signal
width and changes < 0.2 % for signal widths 15–60 µm.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.checks import check_choice, check_range, concrete
from prismpic.pdk.ridge_stack import DEFAULT, RidgeStack
from prismpic.pdk.rules import RULES
from prismpic.pdk.stack import (
    CLADDING,
    CLADDINGS,
    METAL_THICKNESS,
)

FIT_PATH = Path(__file__).with_name("data") / "field_factor_fit.json"
SAMPLES_PATH = FIT_PATH.with_name("field_factor_samples.json")
REFERENCE_GAP = 5.0  # µm, the gap about which ln(g) is expanded
# Domain of the fit (µm, degrees): the dispersion tables' TE domain for the ridge, gaps up to 20 µm.
DOMAIN = {
    "electrode_gap": (2.8, 20.0),
    "width": (0.8, 2.2),
    "film_thickness": (0.3, 0.8),
    "etch_fraction": (0.3, 0.8),
    "sidewall_angle_deg": (60.0, 90.0),
    "electrode_height": (0.3, 2.0),
}
LAYOUTS = ("slab_sio2", "slab_air", "cladding_sio2")
_VARS = ("lng", "offset", "etch_fraction", "film_thickness", "width", "sidewall_angle_deg", "electrode_height")


def layout_name(cladding: str, electrode_height) -> str:
    """Key of the fit for the electrode placement: ``slab_<cladding>`` or ``cladding_sio2``."""
    check_choice("cladding", cladding, CLADDINGS)
    if electrode_height is None:
        return f"slab_{cladding}"
    if cladding != "sio2":
        raise ValueError(f"electrode_height = {electrode_height} µm needs cladding 'sio2' (electrodes above the "
                         f"cladding), got cladding = {cladding!r}; use electrode_height None for electrodes on the slab")
    return "cladding_sio2"


def offset_range(electrode_gap, width, electrode_height=None) -> float:
    """Largest |ridge offset| (µm) from the gap centre: the electrode edges keep ``RULES.min_metal_to_ridge``
    from the ridge's top edges on the slab, and do not reach over the ridge top above the cladding."""
    clearance = RULES.min_metal_to_ridge if electrode_height is None else 0.0
    return electrode_gap / 2 - width / 2 - clearance


def check_electrode_layout(electrode_gap, width, ridge_offset=0.0, electrode_height=None, cladding=CLADDING,
                           gap_name="electrode_gap") -> None:
    """ValueError naming the parameter, its value and the valid range unless the layout is drawable and in the
    fit's domain: the electrodes clear the ridge (on the slab: ``RULES.min_metal_to_ridge`` from its top
    edges; above the cladding: not over its top), 2.8 ≤ g ≤ 20 µm, 0.3 ≤ ``electrode_height`` ≤ 2 µm."""
    layout_name(cladding, electrode_height)
    w = concrete(width)
    if w is not None and w.ndim == 0:
        lo = float(w) + (2 * RULES.min_metal_to_ridge if electrode_height is None else 0.0)
        check_range(gap_name, electrode_gap, max(lo, DOMAIN["electrode_gap"][0]), DOMAIN["electrode_gap"][1], unit="µm")
    if electrode_height is not None:
        check_range("electrode_height", electrode_height, *DOMAIN["electrode_height"], unit="µm")
    g, u = concrete(electrode_gap), concrete(ridge_offset)
    if w is not None and g is not None and u is not None and g.ndim == 0 and u.ndim == 0:
        umax = offset_range(float(g), float(w), electrode_height)
        check_range("ridge_offset", ridge_offset, -umax, umax, unit="µm")


def _features(electrode_gap, width, film_thickness, etch_depth, sidewall_angle_deg, ridge_offset, electrode_height):
    """The fit's variables, each scaled to about [−1, 1] (works on numpy and jax values)."""
    d = DOMAIN
    umax = jnp.maximum(offset_range(electrode_gap, width, electrode_height), 0.1)

    def unit(v, key):
        lo, hi = d[key]
        return (2 * v - lo - hi) / (hi - lo)

    h = 1.0 if electrode_height is None else unit(electrode_height, "electrode_height")
    return [
        jnp.log(electrode_gap / REFERENCE_GAP) / math.log(4.0),
        ridge_offset / umax,
        unit(etch_depth / film_thickness, "etch_fraction"),
        unit(film_thickness, "film_thickness"),
        unit(width, "width"),
        unit(sidewall_angle_deg, "sidewall_angle_deg"),
        h,
    ]


def _exponents(nvar: int, degree: int = 3, lead_degree: int = 6) -> list[tuple[int, ...]]:
    """Exponents of the fit: every monomial of total degree ≤ ``degree`` in the ``nvar`` variables, the
    monomials of degree ≤ ``lead_degree`` in the two leading variables (ln g and the ridge offset), and those of
    degree 2–3 in the leading two times each other variable (held-out error 0.9 / 1.5 / 3.8 % against 2.8 /
    4.3 / 11 % for the plain cubic, slab-SiO2 / slab-air / cladding layouts)."""
    out = set()
    for total in range(degree + 1):
        for combo in itertools.combinations_with_replacement(range(nvar), total):
            out.add(tuple(combo.count(i) for i in range(nvar)))
    for total in range(degree + 1, lead_degree + 1):
        for a in range(total + 1):
            out.add((a, total - a) + (0,) * (nvar - 2))
    for i in range(2, nvar):
        for a, b in ((2, 0), (1, 1), (0, 2), (3, 0), (0, 3), (2, 1), (1, 2)):
            e = [0] * nvar
            e[0], e[1], e[i] = a, b, 1
            out.add(tuple(e))
    return sorted(out)


@functools.lru_cache(maxsize=1)
def load_fit() -> dict:
    """The stored fit: per layout, exponents, coefficients and held-out error."""
    return json.loads(FIT_PATH.read_text())


def field_factor(electrode_gap=5.0, ridge: RidgeStack = DEFAULT, ridge_offset=0.0, electrode_height=None):
    """Field factor f = ⟨E_x⟩_ridge/(V/g) of the electrode layout (the FEM fit; jittable, differentiable).

    Args:
        electrode_gap: electrode edge-to-edge gap g (µm).
        ridge: the ridge between the electrodes (``RidgeStack``: top width, film, etch, wall angle; µm, degrees;
            its cladding, "sio2" or "air", is static).
        ridge_offset: ridge centre minus gap centre (µm).
        electrode_height: None (metal on the slab) or the metal's height above the film top (µm; static
            whether None).

    Source: ``prismpic.pdk.electrostatics.electrode_field_factor`` (2-D FEM), fitted as this module says.
    """
    x = _features(electrode_gap, ridge.width, ridge.film_thickness, ridge.etch_depth, ridge.sidewall_angle_deg,
                  ridge_offset, electrode_height)
    return jnp.exp(_ln_f(jnp.stack(jnp.broadcast_arrays(*[jnp.asarray(v, dtype=float) for v in x]), axis=-1),
                         layout_name(ridge.cladding, electrode_height)))


@functools.partial(jax.jit, static_argnums=1)
def _ln_f(x, layout: str):
    """The fitted ln f at the scaled variables ``x`` (..., 7) of ``layout``: Σ_j c_j Π_i x_i^{e_ji}, each power a
    product of the variable with itself (integer powers: finite gradients at 0), all terms as one gather."""
    exponents, coefficients = _fit_arrays(layout)
    powers = [jnp.ones_like(x), x]
    for _ in range(2, int(exponents.max()) + 1):
        powers.append(powers[-1] * x)
    table = jnp.stack(powers, axis=-1)  # (..., 7, degree + 1): x_i^k
    factors = table[..., np.arange(exponents.shape[1]), exponents]  # (..., terms, 7): x_i^{e_ji}
    return jnp.prod(factors, axis=-1) @ coefficients


@functools.cache
def _fit_arrays(layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The stored fit of ``layout`` as (exponents (terms, 7) int, coefficients (terms,))."""
    fit = load_fit()["layouts"][layout]
    return np.asarray(fit["exponents"], dtype=int), np.asarray(fit["coefficients"], dtype=float)


# ---------------------------------------------------------------------------- building the fit
def _fem(point: dict, cladding: str) -> float:
    from prismpic.pdk import materials
    from prismpic.pdk.electrostatics import electrode_field_factor

    return electrode_field_factor(
        point["electrode_gap"], width=point["width"], film_thickness=point["film_thickness"],
        etch_depth=point["etch_fraction"] * point["film_thickness"], sidewall_angle_deg=point["sidewall_angle_deg"],
        ridge_offset=point["ridge_offset"], electrode_height=point.get("electrode_height"),
        metal_thickness=METAL_THICKNESS, eps_clad=1.0 if cladding == "air" else materials.EPS_SIO2_RF,
    )


def sample_points(layout: str, n: int, seed: int) -> list[dict]:
    """``n`` scrambled-Sobol points of the layout's domain (ln g uniform, offset over its clearance range)."""
    from scipy.stats import qmc

    cladding_layout = layout.startswith("cladding")
    dims = 7 if cladding_layout else 6
    u = qmc.Sobol(dims, scramble=True, seed=seed).random(n)
    d = DOMAIN
    pts = []
    for row in u:
        p = {
            "electrode_gap": float(math.exp(math.log(d["electrode_gap"][0]) + row[0] * math.log(d["electrode_gap"][1]
                                                                                                / d["electrode_gap"][0]))),
            "width": d["width"][0] + row[1] * (d["width"][1] - d["width"][0]),
            "film_thickness": d["film_thickness"][0] + row[2] * (d["film_thickness"][1] - d["film_thickness"][0]),
            "etch_fraction": d["etch_fraction"][0] + row[3] * (d["etch_fraction"][1] - d["etch_fraction"][0]),
            "sidewall_angle_deg": d["sidewall_angle_deg"][0] + row[4] * 30.0,
        }
        h = d["electrode_height"][0] + row[6] * (d["electrode_height"][1] - d["electrode_height"][0]) \
            if cladding_layout else None
        p["electrode_gap"] = max(p["electrode_gap"], p["width"] + (0.2 if cladding_layout else 2.2))
        p["ridge_offset"] = (2 * row[5] - 1) * offset_range(p["electrode_gap"], p["width"], h)
        if h is not None:
            p["electrode_height"] = h
        pts.append({k: float(v) for k, v in p.items()})
    return pts


def _design(points: list[dict], exps) -> np.ndarray:
    cols = []
    for p in points:
        x = _features(p["electrode_gap"], p["width"], p["film_thickness"], p["etch_fraction"] * p["film_thickness"],
                      p["sidewall_angle_deg"], p["ridge_offset"], p.get("electrode_height"))
        x = [float(v) for v in x]
        cols.append([math.prod(x[i] ** e[i] for i in range(len(e))) for e in exps])
    return np.asarray(cols)


def solve_samples(n_fit: int = 400, n_check: int = 40, path: Path = SAMPLES_PATH, log=print) -> dict:
    """FEM solves at ``n_fit`` fitting and ``n_check`` held-out points per layout, stored with the points."""
    from prismpic.fileio import write_json_atomic

    out = {"source": "prismpic.pdk.electrostatics.electrode_field_factor (hmin 0.05 µm)", "layouts": {}}
    for layout in LAYOUTS:
        cladding = layout.split("_")[1]
        entry = {}
        for kind, n, seed in (("fit", n_fit, 1), ("check", n_check, 2)):
            pts = sample_points(layout, n, seed)
            entry[kind] = [{**p, "f": _fem(p, cladding)} for p in pts]
        log(f"{layout}: {n_fit} + {n_check} solves")
        out["layouts"][layout] = entry
    write_json_atomic(path, out, what="field-factor samples")
    return out


def build_fit(samples_path: Path = SAMPLES_PATH, path: Path = FIT_PATH, log=print) -> dict:
    """Least squares of ln f over the stored FEM samples (``solve_samples``); coefficients and held-out errors."""
    from prismpic.fileio import write_json_atomic

    samples = json.loads(Path(samples_path).read_text())["layouts"]
    out = {"source": "least squares of ln f over the FEM samples in " + Path(samples_path).name,
           "domain": DOMAIN, "layouts": {}}
    for layout in LAYOUTS:
        nvar = 7 if layout.startswith("cladding") else 6
        exps = [e + (0,) * (7 - nvar) for e in _exponents(nvar)]
        fit_pts, check_pts = samples[layout]["fit"], samples[layout]["check"]
        f_fit = np.array([p["f"] for p in fit_pts])
        f_chk = np.array([p["f"] for p in check_pts])
        coef, *_ = np.linalg.lstsq(_design(fit_pts, exps), np.log(f_fit), rcond=None)
        pred = np.exp(_design(check_pts, exps) @ coef)
        fit_err = float(np.max(np.abs(np.exp(_design(fit_pts, exps) @ coef) / f_fit - 1)))
        err = float(np.max(np.abs(pred / f_chk - 1)))
        rms = float(np.sqrt(np.mean((pred / f_chk - 1) ** 2)))
        log(f"{layout}: f {f_fit.min():.3f}–{f_fit.max():.3f}; {len(exps)} terms; fit max {fit_err:.4f}; "
            f"held-out max {err:.4f}, rms {rms:.4f}")
        out["layouts"][layout] = {"exponents": exps, "coefficients": coef.tolist(),
                                  "fit_error": {"held_out_max_rel": err, "held_out_rms_rel": rms,
                                                "fit_max_rel": fit_err, "n_fit": len(fit_pts),
                                                "n_check": len(check_pts)}}
    write_json_atomic(path, out, what="field-factor fit")
    load_fit.cache_clear()
    _ln_f.clear_cache()
    return out


if __name__ == "__main__":  # pragma: no cover - the table build, ~20 min on one core
    import sys

    if "--refit" not in sys.argv:
        solve_samples()
    build_fit()
