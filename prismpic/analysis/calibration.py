"""Calibration: the device models' physical parameters that reproduce measured specs and spectra.

Calibration never swaps the physics for a curve: it searches the *physical* parameters of
the same models the circuits use (``rings.ring_add_drop_model`` / ``ring_all_pass_model``,
``modulators.mzm_model``, ``pcm.pcm_transmission``) so that their outputs match the
measurement. Specs (FSR, Q, extinction) are outputs of the fitted model, never inputs.

Ring: fitted parameters and what fixes each
--------------------------------------------
- ``gap`` (and ``gap_drop`` when the drop port or the drop loss is given): the coupling,
  through κ = sin Φ(gap) of ``rings.coupling_angle``;
- ``loss_db_per_cm``: the round-trip loss (bend loss comes from the dispersion model);
- ``width`` (default) or ``film_thickness`` (``ng_param``): sets n_g, hence the FSR = λ²/(n_g 2πR)
  (within the dispersion model's domain: ±0.5 µm width, ±0.1 µm film; n_g moves little with
  either, so the measured FSR must lie within about ±1 % of the model's at the given radius);
- ``radius``: fine-tunes the resonance (a shift of up to ±FSR/2 needs |ΔR|/R ≤ FSR/2λ,
  0.3 % at 20 µm); only when a resonance wavelength is known (or no radius is given).

What specs cannot separate (reported under ``ambiguities``):

- under- versus over-coupling: |t − a e^{iθ}|²/|1 − t a e^{iθ}|² is symmetric in t ↔ a,
  so an all-pass through port (and, in coupled-mode terms γ1 ↔ γi + γ2, an add-drop ring
  even with both ports) fits both solutions equally (McKinnon et al., Opt. Express 17,
  18971 (2009)); both are fitted and reported, the one nearest the design gap is kept
  unless ``coupling`` says which holds. An add-drop ring with equal gaps
  (``coupling="symmetric"``, gap_drop = gap as the cell's default) is unique;
- the through port alone cannot tell drop coupling from loss: gap_drop is tied to gap;
- film thickness versus width (both move n_eff and n_g): one is fitted, the other held;
- the mode order m: the neighbouring orders fit with ΔR ≈ λ/(2π n_eff) (≈ 0.6 % of R)
  and a compensating n_g; the solution nearest the given (or design) radius is kept;
- coupler excess loss versus propagation loss: ``coupler_loss_db`` is held at its design
  value and all loss goes into ``loss_db_per_cm``.

Spectrum fits add nuisance parameters: a baseline polynomial in dB versus wavelength
(coupling offset ``c0`` in dB, tilt ``c1`` in dB/nm, curvature ``c2`` in dB/nm²), shared by
through and drop (``baseline="shared"``: one input coupler, identical output couplers) or
one per port (``"separate"``: the drop level then carries no information). Residuals are
linear transmission divided by the port's noise σ (robust estimate, ``analyze_spectrum``);
the fit is ``scipy.optimize.least_squares`` (trust-region reflective, bounds) with the
Jacobian from ``jax.jacfwd`` of the jitted physical model. Uncertainties: 1σ from
cov = (JᵀJ)⁻¹·χ²_red (specs: from the assumed spec uncertainties ``SPEC_SIGMA``), and
derived specs carry J_spec·cov·J_specᵀ.

Parameter file (``--params`` of ``prismpic report``; schema ``prismpic.params/1``)
-------------------------------------------------------------------------------
JSON object; every block optional except ``schema``::

    {
      "schema": "prismpic.params/1",
      "ring_kind": "add_drop" | "all_pass",
      "ring": {model keyword arguments: "radius", "gap", "gap_drop" (add_drop; null = gap),
               "width", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db"},
      "fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic" (null when not separable),
      "extinction_db", "resonance_nm" (nearest 1550 nm), "ng", "drop_loss_db",
      "kappa2", "kappa2_drop", "round_trip_loss_db":   outputs of the calibrated model,
      "errors": {spec name: 1σ},
      "fitted": {name: {"value", "stderr", "design", "bounds": [lo, hi], "at_bound"}},
      "nuisance": {name: {"value", "stderr", ...}},          (spectrum fits)
      "measured": {...},        spec targets, or analyze_spectrum's summary of the data
      "fit": {"method", "n_points", "n_params", "dof", "chi2_reduced", "rms_residual",
              "converged", "nfev", "time_s"},
      "ambiguities": [str], "solutions": [{"regime", "ring", "q_intrinsic", "cost"}],
      "notes": [str], "source": {...},
      "mzm": {mzm_model kwargs}, "vpi_v", "insertion_loss_db", ...   (calibrate mzm)
      "pcm": {pcm_transmission kwargs}, "levels": [...]               (calibrate pcm)
    }

``ring_specs(kind=p["ring_kind"], **p["ring"])`` and ``ring_add_drop_model(**p["ring"])``
take the ring block as is; ``load_params`` reads and checks a file.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from scipy.optimize import brentq, least_squares

import prismpic  # noqa: F401  (float64)
from prismpic.checks import check_choice, check_positive, check_range
from prismpic.components import rings
from prismpic.pdk import dispersion
from prismpic.pdk.rules import RULES

SCHEMA = "prismpic.params/1"
NG_PLAUSIBLE = (1.8, 2.8)  # group index of TFLN ridges (LN n_g ≈ 2.2–2.3 in bulk, SiO2 1.46)
REFERENCE_NM = 1550.0
# Assumed 1σ uncertainties of user-given specs (for the parameter uncertainties of a spec fit).
SPEC_SIGMA = {"fsr_rel": 1e-3, "q_rel": 0.02, "extinction_db": 0.5, "resonance_nm": 1e-3, "drop_loss_db": 0.2}
# Bounds of the fitted geometry relative to the design, within the dispersion model's domain. The
# fitted value is an effective one: it also absorbs the dispersion model's own error in n_g.
FILM_SPAN = 0.1
WIDTH_SPAN = 0.5
LOSS_MAX = 50.0  # dB/cm
LINEAR_MAX = 1.05  # a linear column above this is not normalized transmission (noise tolerated up to 5 %)
NEGATIVE_TOLERANCE = 0.02
_TWO_PI = 2.0 * math.pi


# ============================================================================ small helpers
def _load_dispersion_eagerly() -> None:
    """Build the dispersion model's cached interpolants outside any JAX trace.

    ``dispersion._model()`` is cached on first use; built inside ``jit`` its arrays would be
    tracers that leak into every later call (UnexpectedTracerError). Calling its ``domain()``
    eagerly first avoids that, whatever the order of calls.
    """
    from prismpic.pdk import dispersion as _d

    try:
        _d.domain()
    except Exception:  # noqa: BLE001  (a model without tables: nothing cached)
        pass


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.ndarray, jax.Array)):
        return _jsonable(np.asarray(x).tolist())
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if math.isfinite(v) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def write_json_atomic(path, data: dict) -> Path:
    """Write ``data`` as JSON to ``path`` through a temporary file in the same folder (no partial file)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"out = {str(path)!r}: the parent directory {str(path.parent)!r} does not exist")
    text = json.dumps(_jsonable(data), indent=2, allow_nan=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def save_figure_atomic(fig, path) -> Path:
    """``fig.savefig`` through a temporary file, then rename."""
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"figure = {str(path)!r}: the parent directory {str(path.parent)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix or ".png", dir=path.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_params(path) -> dict:
    """Read a parameter file written by calibration and check its schema and ring block."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"params = {str(path)!r} is not a readable file")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"params = {str(path)!r} is not valid JSON: {e.msg} at line {e.lineno}") from None
    if not isinstance(data, dict):
        raise ValueError(f"params = {str(path)!r} must hold a JSON object, got {type(data).__name__}")
    if "ring" in data:
        kind = data.get("ring_kind", "add_drop")
        check_choice("ring_kind", kind, ("add_drop", "all_pass"))
        rings._params(kind, data["ring"])  # unknown keys raise
    return data


@dataclass(frozen=True)
class FitParam:
    """A fitted parameter: value, 1σ error, design value and bounds."""

    value: float
    stderr: float | None
    design: float | None = None
    bounds: tuple[float, float] | None = None

    @property
    def at_bound(self) -> bool:
        if self.bounds is None:
            return False
        lo, hi = self.bounds
        tol = 1e-6 * max(1.0, abs(hi - lo)) if math.isfinite(hi - lo) else 1e-9
        return bool(self.value - lo <= tol or hi - self.value <= tol)

    def to_dict(self) -> dict:
        return {"value": self.value, "stderr": self.stderr, "design": self.design,
                "bounds": list(self.bounds) if self.bounds is not None else None, "at_bound": self.at_bound}


def _lsq(fun, jac, x0, lb, ub, *, max_nfev=200):
    """least_squares in the given (already scaled) coordinates; returns (result, seconds)."""
    t0 = time.perf_counter()
    x0 = np.clip(np.asarray(x0, float), np.asarray(lb) + 1e-12, np.asarray(ub) - 1e-12)
    res = least_squares(fun, x0, jac=jac, bounds=(lb, ub), method="trf", x_scale="jac", xtol=1e-12, ftol=1e-12,
                        gtol=1e-12, max_nfev=max_nfev)
    return res, time.perf_counter() - t0


def _covariance(jac: np.ndarray, scale2: float) -> np.ndarray:
    jtj = jac.T @ jac
    return np.linalg.pinv(jtj, rcond=1e-12) * scale2


def _correlated_pairs(names, cov, threshold=0.98) -> list[str]:
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if sd[i] > 0 and sd[j] > 0:
                rho = cov[i, j] / (sd[i] * sd[j])
                if abs(rho) >= threshold:
                    out.append(f"{names[i]} and {names[j]} are strongly correlated (ρ = {rho:+.3f}): the data "
                               "constrain a combination of them better than either")
    return out


# ============================================================================ CSV input
def _read_csv(path, what: str) -> tuple[list[str], np.ndarray, list[int]]:
    """Header names (lower-case) and a float array (rows, cols) of a CSV file; blank and # lines skipped."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} = {str(path)!r} is not a readable file")
    rows, lines = [], []
    header = None
    with path.open(newline="") as f:
        for lineno, row in enumerate(csv.reader(f), start=1):
            if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
                continue
            if header is None:
                header = [c.strip().lower() for c in row]
                continue
            if len(row) != len(header):
                raise ValueError(f"{what} {path.name}: line {lineno} has {len(row)} fields, the header has "
                                 f"{len(header)} ({', '.join(header)})")
            try:
                rows.append([float(c) for c in row])
            except ValueError:
                bad = next(c for c in row if not _is_float(c))
                raise ValueError(f"{what} {path.name}: line {lineno} holds {bad.strip()!r}, not a number") from None
            lines.append(lineno)
    if header is None:
        raise ValueError(f"{what} {path.name} is empty: a header line and data rows are needed")
    if len(set(header)) != len(header):
        raise ValueError(f"{what} {path.name}: duplicated column names in the header {header}")
    return header, np.asarray(rows, float).reshape(len(rows), len(header)), lines


def _is_float(c: str) -> bool:
    try:
        float(c)
        return True
    except ValueError:
        return False


def _check_finite(name, a, lines, fname):
    bad = ~np.isfinite(a)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{fname}: column {name} = {a[i]} at line {lines[i]} is not finite "
                         f"({int(bad.sum())} NaN/infinite values); remove or fix them")


def _linear_column(name, a, lines, fname, db: bool) -> np.ndarray:
    _check_finite(name, a, lines, fname)
    if db:
        if a.size and a.min() >= 0.0 and a.max() <= 1.0 and np.ptp(a) > 0:
            raise ValueError(f"{fname}: column {name} (min {a.min():.4g}, max {a.max():.4g}) looks like linear "
                             f"transmission, not dB; name it {name[:-3]!r} or give dB values")
        if a.max() > 3.0:
            i = int(np.argmax(a))
            raise ValueError(f"{fname}: column {name} = {a[i]:.4g} dB at line {lines[i]} is above +3 dB: a passive "
                             "chip's transmission is below 0 dB (normalize to the input power)")
        return 10.0 ** (a / 10.0)
    if a.min() < -NEGATIVE_TOLERANCE:
        i = int(np.argmin(a))
        raise ValueError(f"{fname}: column {name} = {a[i]:.4g} at line {lines[i]} is negative: linear power "
                         f"transmission must be >= 0 (>= -{NEGATIVE_TOLERANCE:g} tolerated); dB values go in a "
                         f"column named {name + '_db'!r}")
    if a.max() > LINEAR_MAX:
        i = int(np.argmax(a))
        raise ValueError(f"{fname}: column {name} = {a[i]:.4g} at line {lines[i]} exceeds {LINEAR_MAX:g}: linear "
                         f"transmission must be normalized to the input power (<= 1); dB values go in a column "
                         f"named {name + '_db'!r}")
    return a


def _pick(header, names, fname, what) -> str | None:
    found = [n for n in names if n in header]
    if len(found) > 1:
        raise ValueError(f"{fname}: give one of the columns {found} for the {what}, not several")
    return found[0] if found else None


@dataclass(frozen=True, eq=False)
class MeasuredSpectrum:
    """A ring spectrum read from CSV: wavelengths (nm, increasing) and linear power transmission."""

    wl_nm: np.ndarray
    through: np.ndarray | None
    drop: np.ndarray | None
    path: str = ""


def read_spectrum_csv(path) -> MeasuredSpectrum:
    """Read a ring spectrum CSV (header; ``wavelength_nm`` or ``wavelength_um``; ``through_db``/``drop_db``
    in dB or ``through``/``drop`` linear; either or both ports). Raises ValueError on bad input."""
    header, data, lines = _read_csv(path, "spectrum")
    fname = Path(path).name
    wcol = _pick(header, ("wavelength_nm", "wavelength_um"), fname, "wavelength")
    if wcol is None:
        raise ValueError(f"{fname}: no wavelength column; found columns {header}, need 'wavelength_nm' or "
                         "'wavelength_um'")
    tcol = _pick(header, ("through_db", "through"), fname, "through port")
    dcol = _pick(header, ("drop_db", "drop"), fname, "drop port")
    if tcol is None and dcol is None:
        raise ValueError(f"{fname}: no transmission column; found columns {header}, need one or both of "
                         "'through_db'/'through' and 'drop_db'/'drop' (dB or linear)")
    if data.shape[0] < 16:
        raise ValueError(f"{fname} has {data.shape[0]} data rows; a spectrum needs at least 16")
    wl = data[:, header.index(wcol)].copy()
    _check_finite(wcol, wl, lines, fname)
    if wcol == "wavelength_um":
        wl = wl * 1e3
    d = np.diff(wl)
    if np.all(d < 0):  # a scan stored from long to short wavelength
        order = slice(None, None, -1)
        wl, data, lines = wl[order], data[order], lines[::-1]
        d = np.diff(wl)
    if np.any(d <= 0):
        i = int(np.flatnonzero(d <= 0)[0])
        what = "duplicated" if d[i] == 0 else "not monotonic"
        raise ValueError(f"{fname}: {wcol} is {what} at lines {lines[i]}–{lines[i + 1]} ({data[i, header.index(wcol)]:.9g}"
                         f", {data[i + 1, header.index(wcol)]:.9g}); wavelengths must increase strictly")
    if wl[0] < 100.0 or wl[-1] > 20000.0:
        raise ValueError(f"{fname}: {wcol} spans {wl[0]:.6g}..{wl[-1]:.6g} nm, outside [100, 20000] nm; is the "
                         "unit right (wavelength_nm vs wavelength_um)?")
    through = _linear_column(tcol, data[:, header.index(tcol)], lines, fname, tcol.endswith("_db")) if tcol else None
    drop = _linear_column(dcol, data[:, header.index(dcol)], lines, fname, dcol.endswith("_db")) if dcol else None
    return MeasuredSpectrum(wl, through, drop, str(path))


# ============================================================================ ring physics (jitted)
_RING_ARGS = ("radius", "gap", "gap_drop", "width", "bus_length", "electrode_gap", "electrode_coverage",
              "electrode_width", "film_thickness", "etch_depth", "loss_db_per_cm", "coupler_loss_db", "voltage_v",
              "delta_t_k")
# keys written to the "ring" block
RING_BLOCK = ("radius", "gap", "gap_drop", "width", "film_thickness", "etch_depth", "loss_db_per_cm",
              "coupler_loss_db")


def _full(kind: str, params: dict) -> dict:
    """All model keyword arguments (defaults filled in) of a ring of ``kind``."""
    p = rings._params(kind, {k: v for k, v in params.items() if not (kind == "all_pass" and k == "gap_drop")})
    return p


def _quantities(p: dict, kind: str, wl0):
    """Specs of a ring as JAX scalars (the formulas of ``rings.ring_specs``, jittable and differentiable).

    The resonance is found by Newton's method on θ(λ) = 2πm from ``wl0``; its derivative
    is the implicit one, −(∂θ/∂p)/(∂θ/∂λ).
    """
    gd = p["gap_drop"] if kind == "add_drop" else None

    def theta(wl):
        return rings.ring_round_trip(wl, p["radius"], p["width"], p["gap"], gd, p["electrode_gap"],
                                     p["electrode_coverage"], p["film_thickness"], p["etch_depth"],
                                     p["loss_db_per_cm"], p["voltage_v"], p["delta_t_k"])[1]

    dtheta = jax.grad(theta)
    sg = jax.lax.stop_gradient
    m = jnp.round(sg(theta(wl0)) / _TWO_PI)
    lam = jax.lax.fori_loop(0, 6, lambda _, x: x - (theta(x) - _TWO_PI * m) / dtheta(x), sg(jnp.asarray(wl0, float)))
    lam = sg(lam)
    lam = lam - (theta(lam) - _TWO_PI * m) / sg(dtheta(lam))
    geo = (p["radius"], p["width"], p["film_thickness"], p["etch_depth"])
    ng = rings.ring_ng(lam, *geo)
    length = _TWO_PI * p["radius"]
    t1, k1, t2, k2 = rings._couplers(lam, p["gap"], gd, p["radius"], p["width"], p["film_thickness"],
                                     p["etch_depth"], p["coupler_loss_db"])
    if kind == "all_pass":
        t2, k2 = 1.0, 0.0
    eta = rings._db_to_amplitude(p["coupler_loss_db"])
    eta_rt = eta ** (2 if kind == "add_drop" else 1)
    loss_db = rings.round_trip_loss_db(lam, *geo, p["loss_db_per_cm"])
    a = rings._db_to_amplitude(loss_db)
    x = t1 * t2 * a
    fsr = lam**2 / (ng * length)
    # Airy half maximum θ_½ = 2 asin((1 − x)/(2√x)) (as ``ring_specs``)
    fwhm = 2 * jnp.arcsin(jnp.minimum((1 - x) / (2 * jnp.sqrt(x)), 1.0)) * lam**2 / (jnp.pi * ng * length)
    alpha_i = -2 * jnp.log(a * eta_rt) / length
    q_i = _TWO_PI * ng / (lam * alpha_i)
    thr0, drop0, _ = rings.add_drop_fields(t1, k1, t2, k2, a, 0.0)
    thr_pi, _, _ = rings.add_drop_fields(t1, k1, t2, k2, a, jnp.pi)
    t_min = jnp.abs(thr0) ** 2
    ext = 10 * jnp.log10(jnp.abs(thr_pi) ** 2) - 10 * jnp.log10(t_min + 1e-300)
    bl = rings.default_bus_length(p["radius"], p["width"]) if p["bus_length"] is None else p["bus_length"]
    bus = jnp.abs(rings._bus(lam, bl, p["width"], p["film_thickness"], p["etch_depth"], p["loss_db_per_cm"])) ** 2
    drop_loss = -10 * jnp.log10(jnp.abs(drop0) ** 2 * bus + 1e-300)
    return {
        "resonance_um": lam, "fsr_nm": fsr * 1e3, "fwhm_nm": fwhm * 1e3, "q_loaded": lam / fwhm,
        "q_intrinsic": q_i, "extinction_db": ext, "through_min": t_min, "drop_loss_db": drop_loss,
        "kappa2": k1**2, "kappa2_drop": k2**2, "round_trip_loss_db": loss_db, "ng": ng,
        "neff": rings.ring_neff(lam, *geo), "t1": t1, "t2": t2, "a": a,
    }


@functools.lru_cache(maxsize=16)
def _quantities_fn(kind: str, names: tuple, symmetric: bool):
    """jit((specs, their Jacobian)) of the ring as a function of the vector of ``names`` (other parameters in base)."""

    def f(vec, base, wl0):
        p = dict(base)
        p.update({n: vec[i] for i, n in enumerate(names)})
        if symmetric:
            p["gap_drop"] = p["gap"]
        return _quantities(p, kind, wl0)

    def value_and_jac(vec, base, wl0):
        return f(vec, base, wl0), jax.jacfwd(f)(vec, base, wl0)

    return jax.jit(value_and_jac)


# spec residuals: (target name, name in _quantities, compared in log?)
_SPEC_TARGETS = (("fsr_nm", "fsr_nm", False), ("q_loaded", "q_loaded", True), ("extinction_db", "extinction_db", False),
                 ("resonance_nm", "resonance_um", False), ("drop_loss_db", "drop_loss_db", False))


def _spec_residuals(q, jq, targets, sig):
    """Weighted residuals and Jacobian of the spec targets present in ``targets`` (NumPy)."""
    r, j = [], []
    for tname, qname, log in _SPEC_TARGETS:
        if targets.get(tname) is None:
            continue
        v, dv = float(q[qname]), np.asarray(jq[qname], float)
        if qname == "resonance_um":
            v, dv = v * 1e3, dv * 1e3
        if log:
            r.append((math.log(v) - math.log(targets[tname])) / sig[tname])
            j.append(dv / v / sig[tname])
        else:
            r.append((v - targets[tname]) / sig[tname])
            j.append(dv / sig[tname])
    return np.asarray(r), np.stack(j)


class _Cached:
    """Evaluate ``fn(x) -> (value, jac)`` once per x for least_squares' separate fun and jac calls."""

    def __init__(self, fn):
        self.fn, self.x, self.out = fn, None, None

    def __call__(self, x):
        if self.x is None or not np.array_equal(x, self.x):
            self.x, self.out = np.array(x, copy=True), self.fn(x)
        return self.out

    def fun(self, x):
        return self(x)[0]

    def jac(self, x):
        return self(x)[1]


# every parameter a ring fit may move: the jitted functions take them all (one compilation per ring kind)
# and a fit uses the Jacobian columns of the ones it moves
_ALL = ("gap", "gap_drop", "loss_db_per_cm", "film_thickness", "width", "radius")


def _full_vec(p: dict) -> np.ndarray:
    """Values of ``_ALL`` from a parameter dict (gap_drop None → gap, unused then)."""
    return np.array([float(p["gap"] if n == "gap_drop" and p.get(n) is None else p[n]) for n in _ALL])


def _base(p: dict) -> dict:
    return _tracer_base({k: v for k, v in p.items() if k not in _ALL})


def ring_quantities(wl0: float = 1.55, kind: str = "add_drop", **params) -> dict[str, float]:
    """Specs of a ring (as ``rings.ring_specs``, jitted): resonance_um, fsr_nm, fwhm_nm, q_loaded,
    q_intrinsic, extinction_db, drop_loss_db, kappa2, kappa2_drop, round_trip_loss_db, ng, neff."""
    _load_dispersion_eagerly()
    p = _full(kind, params)
    sym = kind == "add_drop" and p["gap_drop"] is None
    out, _ = _quantities_fn(kind, _ALL, sym)(jnp.asarray(_full_vec(p)), _base(p), float(wl0))
    return {k: float(v) for k, v in out.items()}


def _tracer_base(base: dict) -> dict:
    """Parameter dict for the jitted functions: floats as arrays, None kept (static structure)."""
    out = {}
    for k, v in base.items():
        out[k] = None if v is None else jnp.asarray(float(v))
    if "bus_length" not in out:
        out["bus_length"] = None
    if "gap_drop" not in out:
        out["gap_drop"] = None
    return out


# ============================================================================ ring calibration result
@dataclass(frozen=True, eq=False)
class RingCalibration:
    """Result of a ring calibration (see the module docstring for the JSON it writes).

    Attributes:
        kind: ``"add_drop"`` or ``"all_pass"``.
        ring: model keyword arguments of the calibrated ring (the ``"ring"`` block).
        fitted: fitted physical parameters.
        nuisance: fitted nuisance parameters (baseline), spectrum fits only.
        specs: outputs of the calibrated model (fsr_nm, fwhm_nm, q_loaded, q_intrinsic —
            None when under/over coupling is not separable —, extinction_db, resonance_nm,
            ng, drop_loss_db, kappa2, kappa2_drop, round_trip_loss_db).
        errors: 1σ of the specs, propagated from the parameter covariance.
        measured: targets (spec fit) or ``analyze_spectrum``'s summary (spectrum fit).
        fit: fit quality and cost.
        ambiguities: what the data cannot separate.
        solutions: every regime fitted (regime, ring, q_intrinsic, cost).
        notes: assumptions and warnings.
        source: what was calibrated from.
        plot_data: arrays for the figure (spectrum fits).
    """

    kind: str
    ring: dict
    fitted: dict
    nuisance: dict
    specs: dict
    errors: dict
    measured: dict
    fit: dict
    ambiguities: tuple[str, ...]
    solutions: tuple[dict, ...]
    notes: tuple[str, ...]
    source: dict
    plot_data: dict = field(default_factory=dict, repr=False)

    def to_params(self) -> dict:
        """The JSON-ready parameter file (schema ``prismpic.params/1``)."""
        out = {"schema": SCHEMA, "ring_kind": self.kind, "ring": dict(self.ring)}
        for k in ("fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "resonance_nm", "ng",
                  "drop_loss_db", "kappa2", "kappa2_drop", "round_trip_loss_db"):
            out[k] = self.specs.get(k)
        out["errors"] = dict(self.errors)
        out["fitted"] = {k: v.to_dict() for k, v in self.fitted.items()}
        if self.nuisance:
            out["nuisance"] = {k: v.to_dict() for k, v in self.nuisance.items()}
        out["measured"] = self.measured
        out["fit"] = self.fit
        out["ambiguities"] = list(self.ambiguities)
        out["solutions"] = list(self.solutions)
        out["notes"] = list(self.notes)
        out["source"] = self.source
        return _jsonable(out)

    def write(self, path) -> Path:
        """Write the parameter file atomically."""
        return write_json_atomic(path, self.to_params())

    def plot(self, path) -> Path:
        """Figure: data, fit and residual (spectrum fits) or the calibrated model's spectrum (spec fits)."""
        return plot_ring_calibration(self, path)


# ============================================================================ ring: design, bounds, initial guesses
def _design(kind: str, design: dict | None) -> dict:
    design = dict(design or {})
    for k in design:
        if k not in _RING_ARGS:
            raise ValueError(f"design parameter {k!r} is not a ring model parameter; valid: {sorted(_RING_ARGS)}")
    if kind == "all_pass" and design.get("gap_drop") is not None:
        raise ValueError("gap_drop is not a parameter of the all-pass ring (kind='all_pass')")
    return _full(kind, design)


def _domain(name: str, etch_depth: float | None = None) -> tuple[float, float]:
    """Valid range of ``name`` (film_thickness or width) in the dispersion model's TE, bend and coupler
    tables (``dispersion.domain()``; film also through the etched fraction etch_depth/film), or (−inf, inf)."""
    lo, hi = -math.inf, math.inf
    try:
        dom = dispersion.domain()
    except Exception:  # noqa: BLE001  (a model without tables or domain: no limit)
        return lo, hi
    key = {"film_thickness": "film"}.get(name, name)
    for table, grid in (dom or {}).items():
        if table == "tm" or not isinstance(grid, dict):  # the rings use TE modes only
            continue
        for k in (key, name):
            if k in grid:
                lo, hi = max(lo, float(grid[k][0])), min(hi, float(grid[k][1]))
                break
        if name == "film_thickness" and etch_depth is not None and "etch_fraction" in grid:
            f_lo, f_hi = (float(v) for v in grid["etch_fraction"][:2])
            lo, hi = max(lo, etch_depth / f_hi), min(hi, etch_depth / f_lo)
    return lo, hi


def _bounds(name: str, design: dict, radius_span: tuple[float, float]) -> tuple[float, float]:
    if name in ("gap", "gap_drop"):
        return RULES.min_ridge_gap, rings.MAX_GAP
    if name == "loss_db_per_cm":
        return 0.0, LOSS_MAX
    if name == "film_thickness":
        f = float(design["film_thickness"])
        d_lo, d_hi = _domain("film_thickness", float(design["etch_depth"]))
        return max(f - FILM_SPAN, float(design["etch_depth"]) + 0.05, d_lo), min(f + FILM_SPAN, d_hi)
    if name == "width":
        w = float(design["width"])
        d_lo, d_hi = _domain("width")
        return max(w - WIDTH_SPAN, RULES.min_ridge_width, d_lo), min(w + WIDTH_SPAN, d_hi)
    if name == "radius":
        return radius_span
    raise ValueError(name)


def _scale(name: str, design: dict) -> float:
    return {"gap": 0.02, "gap_drop": 0.02, "loss_db_per_cm": 0.1, "film_thickness": 0.002, "width": 0.005,
            "radius": 1e-4 * float(design["radius"])}[name]


_ring_ng_jit = jax.jit(rings.ring_ng)
_ring_neff_jit = jax.jit(rings.ring_neff)
_coupling_angle_jit = jax.jit(rings.coupling_angle)
_bend_loss_jit = jax.jit(dispersion.bend_loss_db_per_cm)


def _ng_of(p: dict, wl_um: float, name: str, value: float) -> float:
    q = dict(p)
    q[name] = value
    return float(_ring_ng_jit(wl_um, q["radius"], q["width"], q["film_thickness"], q["etch_depth"]))


def _neff_of(p: dict, wl_um: float) -> float:
    return float(_ring_neff_jit(wl_um, p["radius"], p["width"], p["film_thickness"], p["etch_depth"]))


def _check_ng(fsr_nm: float, wl_nm: float, radius: float) -> float:
    ng = wl_nm**2 / (fsr_nm * _TWO_PI * radius * 1e3)
    lo, hi = NG_PLAUSIBLE
    if not lo <= ng <= hi:
        raise ValueError(
            f"radius = {radius:g} µm contradicts the FSR: fsr = {fsr_nm:.5g} nm at {wl_nm:.6g} nm implies n_g = {ng:.4g} "
            f"(FSR = λ²/(n_g·2πR)), outside the plausible range [{lo:g}, {hi:g}] of TFLN ridges; check the radius "
            f"(n_g = 2.3 would need R = {wl_nm**2 / (fsr_nm * _TWO_PI * 2.3 * 1e3):.4g} µm)")
    return ng


def _solve_ng(p: dict, wl_um: float, name: str, ng_target: float, bounds, radius_note: str) -> float:
    """Value of ``name`` (film_thickness or width) giving the ring n_g ``ng_target``; ValueError if out of reach."""
    lo, hi = bounds
    g_lo, g_hi = _ng_of(p, wl_um, name, lo), _ng_of(p, wl_um, name, hi)
    if not min(g_lo, g_hi) <= ng_target <= max(g_lo, g_hi):
        raise ValueError(
            f"the FSR needs n_g = {ng_target:.4g}{radius_note}, but the ring model reaches n_g in "
            f"[{min(g_lo, g_hi):.4g}, {max(g_lo, g_hi):.4g}] with {name} in [{lo:.4g}, {hi:.4g}] µm "
            f"(design {float(p[name]):.4g} µm); check the radius and FSR, or calibrate the other of width/film_thickness")
    return float(brentq(lambda v: _ng_of(p, wl_um, name, v) - ng_target, lo, hi, xtol=1e-10))


def _gap_for_t(p: dict, wl_um: float, t: float) -> float:
    """Gap whose self-coupling cos Φ equals t (clipped to the gap range)."""
    lo, hi = RULES.min_ridge_gap, rings.MAX_GAP

    def f(g):
        return math.cos(float(_coupling_angle_jit(wl_um, g, p["radius"], p["width"], p["film_thickness"],
                                                  p["etch_depth"]))) - t

    if f(lo) >= 0:
        return lo
    if f(hi) <= 0:
        return hi
    return float(brentq(f, lo, hi, xtol=1e-10))


def _loss_for_a(p: dict, wl_um: float, a: float) -> float:
    rt_db = -20 * math.log10(max(min(a, 1.0), 1e-6))
    bend = float(_bend_loss_jit(wl_um, p["radius"], p["width"], p["film_thickness"], p["etch_depth"]))
    return float(np.clip(rt_db / (_TWO_PI * p["radius"] * 1e-4) - bend, 0.0, LOSS_MAX))


def _t0_from_extinction(er_db: float, x: float) -> float:
    """Through T0 at resonance from the extinction T(π)/T(0) and x = t1t2a (Airy maximum)."""
    c = (1 - x) ** 2 / (1 + x) ** 2
    e = 10 ** (er_db / 10)
    return float(np.clip((1 - c) / (e - c), 0.0, 1.0))


def _x_from_fwhm(fwhm_nm: float, fsr_nm: float) -> float:
    """x = t1t2a of an Airy line: FWHM/FSR = (2/π) asin((1 − x)/(2√x))."""
    s = math.sin(math.pi * fwhm_nm / fsr_nm / 2.0)  # (1 − x)/(2√x)
    y = math.sqrt(s * s + 1.0) - s
    return y * y


def _couplings(kind: str, regime: str, x: float, t0: float, d0: float | None):
    """(t1, t2, a) from x = t1t2a, T0 (and the drop peak D0); regime 'symmetric', 'under' or 'over'."""
    rt0 = math.sqrt(max(t0, 0.0))
    if kind == "add_drop" and regime == "symmetric":
        s = rt0 * (1 - x)
        t = (s + math.sqrt(s * s + 4 * x)) / 2
        return t, t, x / (t * t)
    big = math.sqrt(t0 * (1 - x) ** 2 + 4 * x)
    dif = rt0 * (1 - x)
    hi_, lo_ = (big + dif) / 2, (big - dif) / 2
    r1, v = (hi_, lo_) if regime == "under" else (lo_, hi_)
    r1 = min(r1, 0.9999)
    if kind == "all_pass" or d0 is None:
        return r1, 1.0, min(v, 1.0)
    k = d0 * (1 - x) ** 2 / max(1 - r1 * r1, 1e-12)
    a = min((k + math.sqrt(k * k + 4 * v * v)) / 2, 1.0)
    return r1, min(v / a, 0.9999), a


def _initial(kind, regime, design, targets, ng_param, fit_radius, radius_given):
    """Physical starting point from spec targets: geometry (n_g, resonance), then couplings and loss."""
    p = dict(design)
    wl_nm = targets.get("resonance_nm") or REFERENCE_NM
    wl_um = wl_nm * 1e-3
    fsr = targets["fsr_nm"]
    if not radius_given:  # radius from the FSR with the design n_g
        for _ in range(3):
            p["radius"] = wl_nm**2 / (fsr * _TWO_PI * _ng_of(p, wl_um, ng_param, p[ng_param]) * 1e3)
        check_range("radius", p["radius"], RULES.min_bend_radius, 500.0, unit="µm")
    else:
        ng_t = _check_ng(fsr, wl_nm, p["radius"])
        note = f" (FSR {fsr:.5g} nm, radius {p['radius']:g} µm)"
        p[ng_param] = _solve_ng(p, wl_um, ng_param, ng_t, _bounds(ng_param, design, (0, 0)), note)
    if targets.get("resonance_nm") is not None and fit_radius:
        p = _place_resonance(p, wl_um, fsr, ng_param, design, fit_ng=True)
    x = _x_from_fwhm(wl_nm / targets["q_loaded"], fsr)
    t0 = _t0_from_extinction(targets["extinction_db"], x) if targets.get("extinction_db") is not None else 0.1
    d0 = targets.get("drop_peak")
    t1, t2, a = _couplings(kind, regime, x, t0, d0)
    eta = rings._db_to_amplitude(float(p["coupler_loss_db"]))
    p["gap"] = _gap_for_t(p, wl_um, t1 / eta)
    if kind == "add_drop":
        p["gap_drop"] = _gap_for_t(p, wl_um, t2 / eta) if regime != "symmetric" else None
    p["loss_db_per_cm"] = _loss_for_a(p, wl_um, a)
    return p


@functools.lru_cache(maxsize=4)
def _geometry_fn(ng_param: str):
    """jit((F, ∂F/∂(v, R))): F = (n_g·R, n_eff·R) of the ring at λ, v = ``ng_param`` (FSR and resonance conditions)."""

    def f(x, p, wl_um):
        q = dict(p)
        q[ng_param], q["radius"] = x[0], x[1]
        geo = (q["radius"], q["width"], q["film_thickness"], q["etch_depth"])
        return jnp.stack([rings.ring_ng(wl_um, *geo) * q["radius"], rings.ring_neff(wl_um, *geo) * q["radius"]])

    return jax.jit(lambda x, p, w: (f(x, p, w), jax.jacfwd(f)(x, p, w)))


def _place_resonance(p: dict, wl_um: float, fsr_nm: float, ng_param: str, design: dict, fit_ng: bool) -> dict:
    """Geometry (``ng_param``, radius) with a resonance at ``wl_um`` and the FSR ``fsr_nm`` there.

    Solves n_g·R = λ²/(2π·FSR) and n_eff·R = mλ/(2π) by Newton's method, with m the order nearest
    the starting radius; when ``fit_ng`` is False only R moves (n_eff·R = mλ/2π). Among the orders
    m, m ± 1 the solution nearest the starting radius with the geometry in bounds is kept.
    """
    fn = _geometry_fn(ng_param)
    geo = {k: jnp.asarray(float(p[k])) for k in ("width", "film_thickness", "etch_depth", "radius")}
    r0, v0 = float(p["radius"]), float(p[ng_param])
    lo, hi = _bounds(ng_param, design, (0, 0))
    target_ngr = (wl_um * 1e3) ** 2 / (_TWO_PI * fsr_nm * 1e3)  # n_g·R in µm
    m0 = round(_TWO_PI * r0 * _neff_of(p, wl_um) / wl_um)
    best = None
    for m in (m0, m0 - 1, m0 + 1):
        x = np.array([v0, r0])
        ok = True
        for _ in range(12):
            f, j = (np.asarray(a) for a in fn(jnp.asarray(x), geo, wl_um))
            r = f - np.array([target_ngr, m * wl_um / _TWO_PI])
            if fit_ng:
                dx = np.linalg.solve(j, -r)
            else:
                dx = np.array([0.0, -r[1] / j[1, 1]])
            x = x + dx
            if not (lo - 0.05 <= x[0] <= hi + 0.05 and RULES.min_bend_radius <= x[1] <= 500.0):
                ok = False
                break
            if np.max(np.abs(dx / np.array([max(abs(v0), 1e-3), r0]))) < 1e-12:
                break
        if ok and lo <= x[0] <= hi and (best is None or abs(x[1] - r0) < abs(best[1] - r0)):
            best = x
    if best is None:
        raise ValueError(f"no {ng_param} in [{lo:.4g}, {hi:.4g}] µm and radius near {r0:.5g} µm put a resonance at "
                         f"{wl_um * 1e3:.4f} nm with FSR {fsr_nm:.5g} nm; check the radius and FSR")
    q = dict(p)
    q[ng_param], q["radius"] = float(best[0]), float(best[1])
    return q


def _regimes(kind: str, coupling: str | None, have_drop: bool) -> tuple[str, ...]:
    check_choice("coupling", coupling, (None, "symmetric", "under", "over"))
    if kind == "all_pass":
        if coupling == "symmetric":
            raise ValueError("coupling = 'symmetric' needs an add-drop ring (kind='add_drop'); an all-pass ring "
                             "has one coupler: use None, 'under' or 'over'")
        return ("under", "over") if coupling is None else (coupling,)
    if coupling == "symmetric" or (coupling is None and not have_drop):
        return ("symmetric",)
    if not have_drop:
        raise ValueError(f"coupling = {coupling!r} with independent gaps needs the drop port (or the drop loss); "
                         "with the through port alone use coupling='symmetric' (gap_drop = gap)")
    return ("under", "over") if coupling is None else (coupling,)


def _ambiguity_notes(kind, regimes, have_drop, ng_param, fit_radius) -> list[str]:
    out = []
    other = "width" if ng_param == "film_thickness" else "film_thickness"
    out.append(f"{ng_param} and {other} both set n_eff and n_g: {ng_param} fitted, {other} held at its design value")
    if fit_radius:
        out.append("mode order: the neighbouring orders fit with radius ±λ/(2π·n_eff) (≈ 0.6 % of R) and a "
                   "compensating n_g; the solution nearest the given radius is kept")
    out.append("coupler excess loss and propagation loss are not separable: coupler_loss_db held, all loss in "
               "loss_db_per_cm")
    if kind == "add_drop" and regimes == ("symmetric",):
        out.append("input and drop coupling are not separated" + ("" if have_drop else " by the through port alone")
                   + ": gap_drop tied to gap (symmetric couplers assumed)")
    if len(regimes) == 2:
        out.append("under- and over-coupling fit equally (t ↔ a symmetry of |t − a·e^{iθ}|²): both solutions "
                   "are in 'solutions'; q_intrinsic is not separable")
    return out


def _names(kind, regime, fit_ng, ng_param, fit_radius, fit_loss=True, fit_gap_drop=None):
    names = ["gap"]
    if kind == "add_drop" and regime != "symmetric" and fit_gap_drop is not False:
        names.append("gap_drop")
    if fit_loss:
        names.append("loss_db_per_cm")
    if fit_ng:
        names.append(ng_param)
    if fit_radius:
        names.append("radius")
    return tuple(names)


def _ring_block(kind: str, p: dict, symmetric: bool) -> dict:
    out = {}
    for k in RING_BLOCK:
        if k == "gap_drop":
            if kind == "add_drop":
                out[k] = None if symmetric else float(p[k])
            continue
        out[k] = float(p[k])
    return out


def _spec_errors(jq: dict, cov: np.ndarray) -> dict:
    """1σ of the specs, J·cov·Jᵀ with J their Jacobian in the fitted parameters."""
    out = {}
    for k in ("fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "resonance_um", "ng"):
        j = np.asarray(jq[k])
        v = float(j @ cov @ j)
        key = "resonance_nm" if k == "resonance_um" else k
        out[key] = math.sqrt(max(v, 0.0)) * (1e3 if k == "resonance_um" else 1.0)
    return out


def _specs_dict(q: dict, separable: bool) -> dict:
    s = {k: float(v) for k, v in q.items()}
    s["resonance_nm"] = s.pop("resonance_um") * 1e3
    for k in ("through_min", "t1", "t2", "a", "neff"):
        s.pop(k, None)
    if not separable:
        s["q_intrinsic"] = None
    return s


# ============================================================================ ring: from specs
def calibrate_ring_specs(
    fsr_nm: float,
    q_loaded: float,
    extinction_db: float,
    *,
    resonance_nm: float | None = None,
    radius: float | None = None,
    kind: str = "add_drop",
    coupling: str | None = None,
    drop_loss_db: float | None = None,
    ng_param: str = "width",
    design: dict | None = None,
) -> RingCalibration:
    """Physical ring parameters whose model reproduces the given specs.

    Args:
        fsr_nm: free spectral range (nm) near the resonance.
        q_loaded: loaded Q (λ/FWHM).
        extinction_db: through-port extinction T(anti-resonance)/T(resonance) (dB).
        resonance_nm: a resonance wavelength (nm); the radius is then fine-tuned to put one there.
        radius: ring radius (µm); None derives it from the FSR with the design n_g.
        kind: ``"add_drop"`` or ``"all_pass"``.
        coupling: None, ``"symmetric"`` (add-drop, gap_drop = gap), ``"under"`` or ``"over"``.
        drop_loss_db: add-drop drop loss at resonance (dB); with it gap_drop is fitted too.
        ng_param: ``"film_thickness"`` or ``"width"``, the geometry fitted to the FSR.
        design: other ring model parameters (held), e.g. ``{"etch_depth": 0.3}``.

    Returns:
        :class:`RingCalibration`; ``errors`` propagate the assumed spec uncertainties ``SPEC_SIGMA``.

    Raises:
        ValueError: bad specs, a radius inconsistent with the FSR, or specs the model cannot reach.
    """
    _load_dispersion_eagerly()
    check_choice("kind", kind, ("add_drop", "all_pass"))
    check_choice("ng_param", ng_param, ("film_thickness", "width"))
    check_range("fsr_nm", fsr_nm, 0.05, 200.0, unit="nm")
    check_range("q_loaded", q_loaded, 10.0, 1e9)
    check_range("extinction_db", extinction_db, 0.0, 80.0, unit="dB", lo_open=True)
    if resonance_nm is not None:
        check_range("resonance_nm", resonance_nm, 1000.0, 2000.0, unit="nm")
    if radius is not None:
        check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    if drop_loss_db is not None:
        if kind != "add_drop":
            raise ValueError("drop_loss_db needs an add-drop ring (kind='add_drop')")
        check_range("drop_loss_db", drop_loss_db, 0.0, 60.0, unit="dB")
    wl_nm = resonance_nm or REFERENCE_NM
    fwhm = wl_nm / q_loaded
    if fwhm >= fsr_nm / 2:
        raise ValueError(f"q_loaded = {q_loaded:g} gives FWHM = {fwhm:.4g} nm, not below FSR/2 = {fsr_nm / 2:.4g} nm: "
                         "no resonance (raise Q or check the FSR)")
    design_p = _design(kind, design)
    radius_given = radius is not None
    if radius_given:
        design_p["radius"] = float(radius)
    have_drop = drop_loss_db is not None
    regimes = _regimes(kind, coupling, have_drop)
    fit_radius = resonance_nm is not None or not radius_given
    fit_ng = radius_given or resonance_nm is not None  # FSR and resonance need two geometry parameters
    targets = {"fsr_nm": float(fsr_nm), "q_loaded": float(q_loaded), "extinction_db": float(extinction_db),
               "resonance_nm": None if resonance_nm is None else float(resonance_nm)}
    if have_drop:
        targets["drop_loss_db"] = float(drop_loss_db)
        targets["drop_peak"] = 10 ** (-drop_loss_db / 10)
    sig = {"fsr_nm": SPEC_SIGMA["fsr_rel"] * fsr_nm, "q_loaded": SPEC_SIGMA["q_rel"],
           "extinction_db": SPEC_SIGMA["extinction_db"], "resonance_nm": SPEC_SIGMA["resonance_nm"],
           "drop_loss_db": SPEC_SIGMA["drop_loss_db"]}
    wl0 = wl_nm * 1e-3
    sols = []
    for regime in regimes:
        t_start = time.perf_counter()
        p0 = _initial(kind, regime, design_p, targets, ng_param, fit_radius, radius_given)
        names = _names(kind, regime, fit_ng, ng_param, fit_radius)
        sym = kind == "add_drop" and regime == "symmetric"
        qfn = _quantities_fn(kind, _ALL, sym)
        base = _base(p0)
        cols = [_ALL.index(n) for n in names]
        full0 = _full_vec(p0)
        r0 = float(p0["radius"])
        span = (r0 * (1 - 0.004), r0 * (1 + 0.004)) if radius_given else (RULES.min_bend_radius, 500.0)
        bnds = [_bounds(n, design_p, span) for n in names]
        scales = np.array([_scale(n, p0) for n in names])
        origin = np.array([float(p0[n]) for n in names])

        def evaluate(z, qfn=qfn, origin=origin, scales=scales, base=base, cols=cols, full0=full0):
            full = full0.copy()
            full[cols] = origin + z * scales
            q, jq = qfn(jnp.asarray(full), base, wl0)
            r, j = _spec_residuals(q, {k: np.asarray(v)[..., cols] for k, v in jq.items()}, targets, sig)
            return r, j * scales

        ev = _Cached(evaluate)
        lb = (np.array([b[0] for b in bnds]) - origin) / scales
        ub = (np.array([b[1] for b in bnds]) - origin) / scales
        res, secs = _lsq(ev.fun, ev.jac, np.zeros(len(names)), lb, ub)
        vec = origin + res.x * scales
        cov = _covariance(ev.jac(res.x) / scales, 1.0)
        full = full0.copy()
        full[cols] = vec
        qv, jqv = qfn(jnp.asarray(full), base, wl0)
        jqv = {k: np.asarray(v)[..., cols] for k, v in jqv.items()}
        q = {k: float(v) for k, v in qv.items()}
        p = dict(p0)
        p.update(zip(names, (float(v) for v in vec), strict=True))
        if sym:
            p["gap_drop"] = None
        sols.append(dict(regime=regime, p=p, q=q, jq={k: np.asarray(v) for k, v in jqv.items()}, cost=float(res.cost),
                         res=res, names=names, vec=vec, cov=cov, bnds=bnds, time=time.perf_counter() - t_start,
                         fit_secs=secs, nfev=int(res.nfev)))
    # every solution must meet the specs: drop regimes out of reach, fail if none is left
    missed = [_unreached(s, targets, sig) for s in sols]
    if all(m is not None for m in missed):
        raise ValueError("specs out of the ring model's reach: " + "; ".join(missed)
                         + " (check the specs, or calibrate with another kind, coupling or ng_param)")
    excluded = [f"the {m} (excluded)" for m in missed if m is not None]
    sols = [s for s, m in zip(sols, missed, strict=True) if m is None]
    chosen, separable = _choose(sols, design_p)
    specs = _specs_dict(chosen["q"], separable)
    errors = _spec_errors(chosen["jq"], chosen["cov"])
    if not separable:
        errors["q_intrinsic"] = None
    fitted = {n: FitParam(float(v), float(math.sqrt(max(chosen["cov"][i, i], 0.0))),
                          float(design_p[n]) if design_p.get(n) is not None else None, b)
              for i, (n, v, b) in enumerate(zip(chosen["names"], chosen["vec"], chosen["bnds"], strict=True))}
    amb = _ambiguity_notes(kind, tuple(s["regime"] for s in sols), have_drop, ng_param, fit_radius)
    amb += _correlated_pairs(list(chosen["names"]), chosen["cov"])
    notes = excluded + [f"parameter errors propagate assumed spec uncertainties: FSR {SPEC_SIGMA['fsr_rel']:.1%}, Q "
             f"{SPEC_SIGMA['q_rel']:.0%}, extinction {SPEC_SIGMA['extinction_db']} dB, resonance "
             f"{SPEC_SIGMA['resonance_nm'] * 1e3:g} pm"]
    if not radius_given:
        notes.append(f"radius derived from the FSR with the design n_g: {chosen['p']['radius']:.5g} µm")
    if resonance_nm is None:
        notes.append("no resonance wavelength given: resonance_nm is the model's, not a target")
    fit = {"method": "specs: least_squares (trf) on the model's specs, JAX Jacobian", "n_points": len(chosen["res"].fun),
           "n_params": len(chosen["names"]), "dof": len(chosen["res"].fun) - len(chosen["names"]),
           "cost": chosen["cost"], "max_spec_error_sigma": float(np.max(np.abs(chosen["res"].fun))),
           "converged": bool(chosen["res"].status > 0), "nfev": chosen["nfev"], "time_s": chosen["time"]}
    return RingCalibration(
        kind=kind, ring=_ring_block(kind, chosen["p"], chosen["regime"] == "symmetric"), fitted=fitted, nuisance={},
        specs=specs, errors=errors, measured={k: v for k, v in targets.items() if k != "drop_peak"}, fit=fit,
        ambiguities=tuple(amb), solutions=tuple(_solution_summary(kind, s) for s in sols), notes=tuple(notes),
        source={"from": "specs", "radius_given": radius, "coupling": coupling, "ng_param": ng_param},
        plot_data={"wl0": wl0},
    )


def _unreached(s, targets, sig) -> str | None:
    """None if solution ``s`` meets every spec target, else what it misses (and which parameters hit bounds)."""
    q = s["q"]
    ach = {"fsr_nm": q["fsr_nm"], "q_loaded": q["q_loaded"], "extinction_db": q["extinction_db"]}
    tol = {"fsr_nm": 0.2 * sig["fsr_nm"], "q_loaded": 0.01, "extinction_db": 0.05}
    if targets.get("resonance_nm") is not None:
        ach["resonance_nm"] = q["resonance_um"] * 1e3
        tol["resonance_nm"] = 0.5e-3
    if targets.get("drop_loss_db") is not None:
        ach["drop_loss_db"] = q["drop_loss_db"]
        tol["drop_loss_db"] = 0.05
    missed = []
    for k, v in ach.items():
        t = targets[k]
        err = abs(math.log(v / t)) if k == "q_loaded" else abs(v - t)
        if err > tol[k]:
            missed.append(f"{k} = {t:.6g} (closest {v:.6g})")
    if not missed:
        return None
    at = [f"{n} = {s['p'][n]:.4g} in [{b[0]:.4g}, {b[1]:.4g}]" for n, b in zip(s["names"], s["bnds"], strict=True)
          if min(abs(s["p"][n] - b[0]), abs(b[1] - s["p"][n])) <= 1e-6 * max(1.0, abs(b[1]))]
    return (f"{s['regime']} coupling misses " + ", ".join(missed)
            + (" with " + ", ".join(at) + " at its bound" if at else ""))


def _choose(sols, design):
    """(chosen solution, decisive): the lowest cost; when all are about as good, the one nearest the design gap."""
    if len(sols) == 1:
        return sols[0], True
    costs = np.array([s["cost"] for s in sols])
    best = int(np.argmin(costs))
    others = np.delete(costs, best)
    if np.all(others > 1.1 * costs[best] + 12.5):  # Δχ² > 25 (and 20 %): the data prefer one regime
        return sols[best], True
    best = int(np.argmin([abs(s["p"]["gap"] - float(design["gap"])) for s in sols]))
    return sols[best], False


def _solution_summary(kind, s) -> dict:
    return {"regime": s["regime"], "ring": _ring_block(kind, s["p"], s["regime"] == "symmetric"),
            "q_intrinsic": s["q"]["q_intrinsic"], "kappa2": s["q"]["kappa2"], "kappa2_drop": s["q"]["kappa2_drop"],
            "loss_db_per_cm": s["p"]["loss_db_per_cm"], "cost": s["cost"]}


# ============================================================================ ring: from a spectrum
N_NODES = 16  # Chebyshev nodes over a spectrum's span for the ring's slowly varying ingredients


def _chebyshev_grid(wl_um: np.ndarray, n: int = N_NODES):
    """(nodes (n,), interpolation matrix (len(wl_um), n)): barycentric Chebyshev–Lobatto interpolation."""
    lo, hi = float(wl_um[0]), float(wl_um[-1])
    k = np.arange(n)
    x = np.cos(np.pi * k / (n - 1))[::-1]  # Lobatto points, increasing
    nodes = lo + (x + 1) * 0.5 * (hi - lo)
    w = (-1.0) ** k * np.where((k == 0) | (k == n - 1), 0.5, 1.0)  # barycentric weights (Berrut & Trefethen 2004)
    w = w[::-1]
    d = wl_um[:, None] - nodes[None, :]
    exact = d == 0
    d = np.where(exact, 1.0, d)
    m = w / d
    m = m / m.sum(axis=1, keepdims=True)
    rows = exact.any(axis=1)
    m[rows] = exact[rows].astype(float)
    return jnp.asarray(nodes), jnp.asarray(m)


@functools.lru_cache(maxsize=16)
def _spectrum_fn(kind: str, names: tuple, symmetric: bool, ports: tuple, order: int, shared: bool):
    """jit((residual vector, its Jacobian)): physical model times baseline versus the data, over the noise σ.

    The ring's ingredients that vary slowly with λ (t, κ, a, θ and the bus loss; θ is 2πL·n_eff(λ)/λ)
    are evaluated at ``N_NODES`` Chebyshev nodes of the span and interpolated (barycentric; the
    error is of order (span/λ)^N_NODES), then combined by ``rings.add_drop_fields`` at every data
    point: the same physics as ``ring_add_drop_model`` at a fraction of the cost of evaluating the
    dispersion fits at thousands of wavelengths. The fit reports the largest difference from the
    model evaluated point by point (``interpolation_error``).
    """
    n_base = order + 1
    n_phys = len(names)

    def model(vec, base, grid, u):
        p = dict(base)
        p.update({n: vec[i] for i, n in enumerate(names)})
        gd = p["gap"] if symmetric else (p["gap_drop"] if kind == "add_drop" else None)
        nodes, interp = grid
        # the ring's smooth ingredients (couplers, round-trip amplitude and phase, bus loss) at the
        # Chebyshev nodes of the span, the same functions ring_add_drop_model / ring_all_pass_model use
        t1, k1, t2, k2 = rings._couplers(nodes, p["gap"], gd, p["radius"], p["width"], p["film_thickness"],
                                         p["etch_depth"], p["coupler_loss_db"])
        if kind == "all_pass":
            t2, k2 = jnp.ones_like(t1), jnp.zeros_like(k1)
        a, theta = rings.ring_round_trip(nodes, p["radius"], p["width"], p["gap"], gd, p["electrode_gap"],
                                         p["electrode_coverage"], p["film_thickness"], p["etch_depth"],
                                         p["loss_db_per_cm"], p["voltage_v"], p["delta_t_k"])
        bl = rings.default_bus_length(p["radius"], p["width"]) if p["bus_length"] is None else p["bus_length"]
        bus2 = jnp.abs(rings._bus(nodes, bl, p["width"], p["film_thickness"], p["etch_depth"],
                                  p["loss_db_per_cm"])) ** 2
        t1, k1, t2, k2, a, theta, bus2 = (interp @ x for x in (t1, k1, t2, k2, a, theta, bus2))
        through, drop, _ = rings.add_drop_fields(t1, k1, t2, k2, a, theta)
        out = []
        for j, port in enumerate(ports):
            k = 0 if shared else j
            c = vec[n_phys + k * n_base: n_phys + (k + 1) * n_base]
            base_db = sum(c[i] * u**i for i in range(n_base))
            field_ = through if port == "through" else drop
            out.append(10 ** (base_db / 10) * bus2 * jnp.abs(field_) ** 2)
        return out

    def resid(vec, base, grid, u, data, sigma):
        m = model(vec, base, grid, u)
        return jnp.concatenate([(mi - di) / si for mi, di, si in zip(m, data, sigma, strict=True)])

    def value_and_jac(vec, base, grid, u, data, sigma):
        return resid(vec, base, grid, u, data, sigma), jax.jacfwd(resid)(vec, base, grid, u, data, sigma)

    return jax.jit(value_and_jac)


def calibrate_ring_spectrum(
    wl_nm,
    through=None,
    drop=None,
    *,
    radius: float,
    kind: str | None = None,
    coupling: str | None = None,
    ng_param: str = "width",
    baseline: str = "shared",
    baseline_order: int = 1,
    reference_nm: float = REFERENCE_NM,
    design: dict | None = None,
    source: dict | None = None,
) -> RingCalibration:
    """Fit the physical ring model (plus baseline nuisance parameters) to a measured spectrum.

    Args:
        wl_nm: wavelengths (nm), strictly increasing.
        through, drop: linear power transmission of the ports (either or both).
        radius: ring radius (µm) as drawn; the fit fine-tunes it (≤ 0.4 %) to place the resonances.
        kind: ``"add_drop"`` or ``"all_pass"``; default add-drop if ``drop`` is given, else all-pass.
        coupling: None, ``"symmetric"``, ``"under"`` or ``"over"`` (see the module docstring).
        ng_param: ``"film_thickness"`` or ``"width"``, the geometry fitted to the FSR.
        baseline: ``"shared"`` (one baseline for both ports) or ``"separate"``.
        baseline_order: polynomial order (dB versus λ) of the baseline, 0–2 (1: offset and tilt).
        reference_nm: the resonance reported is the model's nearest this wavelength (nm).
        design: other ring parameters, held (e.g. ``{"etch_depth": 0.3}``).
        source: what to record under ``source`` (file name, ...).

    Returns:
        :class:`RingCalibration` with the fitted model's specs, parameter errors from the Jacobian
        and the residual, fit quality and a figure (``plot``).
    """
    _load_dispersion_eagerly()
    from prismpic.analysis.spectra import analyze_spectrum

    if through is None and drop is None:
        raise ValueError("through = None and drop = None: give at least one port's transmission")
    kind = kind or ("add_drop" if drop is not None else "all_pass")
    check_choice("kind", kind, ("add_drop", "all_pass"))
    check_choice("ng_param", ng_param, ("film_thickness", "width"))
    check_choice("baseline", baseline, ("shared", "separate"))
    if not isinstance(baseline_order, (int, np.integer)) or not 0 <= baseline_order <= 2:
        raise ValueError(f"baseline_order = {baseline_order!r} must be an integer in [0, 2]")
    check_range("radius", radius, RULES.min_bend_radius, 500.0, unit="µm")
    check_positive("reference_nm", reference_nm, unit="nm")
    if kind == "all_pass" and drop is not None:
        raise ValueError("kind = 'all_pass' has no drop port; give kind='add_drop' or leave the drop out")
    an = analyze_spectrum(wl_nm, through, drop, radius_um=radius, reference_nm=reference_nm,
                          baseline_order=max(baseline_order, 1))
    wl = np.asarray(an.wl_nm, float)
    if an.fsr_nm is None:
        raise ValueError(f"one resonance only in {wl[0]:.6g}..{wl[-1]:.6g} nm: the FSR (hence n_g) needs at least "
                         "two resonances; widen the span")
    rn = an.resonances[an.nearest]
    _check_ng(an.fsr_nm, rn.center_nm, radius)
    have_t, have_d = through is not None, drop is not None
    regimes = _regimes(kind, coupling, have_d)
    design_p = _design(kind, design)
    design_p["radius"] = float(radius)
    ports = tuple(p for p, h in (("through", have_t), ("drop", have_d)) if h)
    shared = baseline == "shared" or len(ports) == 1
    ref_c = float(np.clip(reference_nm, an.resonances[0].center_nm, an.resonances[-1].center_nm))
    fsr_c = an.fsr_nm * (rn.center_nm / ref_c) ** 2  # the FSR at the resonance used (n_g constant over the gap)
    targets = {"fsr_nm": fsr_c, "q_loaded": rn.q_loaded, "resonance_nm": rn.center_nm}
    if have_t:
        targets["extinction_db"] = rn.through_extinction_db
    if have_d and rn.drop_peak is not None and have_t:
        targets["drop_peak"] = rn.drop_peak
    fit_loss = have_t  # the drop port alone gives the total linewidth only
    wl_um = jnp.asarray(wl * 1e-3)
    grid = _chebyshev_grid(wl * 1e-3)
    mid, half = 0.5 * (wl[0] + wl[-1]), 0.5 * (wl[-1] - wl[0])
    u = jnp.asarray((wl - mid) / half)
    data = [np.asarray(an.through if p == "through" else an.drop, float) for p in ports]
    bases = [np.asarray(an.baseline_through if p == "through" else (an.baseline_through if have_t else
                                                                   an.baseline_drop), float) for p in ports]
    sigma = []
    for p, b in zip(ports, bases, strict=True):
        nrel = max(an.noise.get(p, 1e-4), 1e-5)
        sigma.append(np.full(wl.size, nrel * float(np.median(b))))
    order = int(baseline_order)
    sols = []
    for regime in regimes:
        t_start = time.perf_counter()
        p0 = _initial(kind, regime, design_p, targets, ng_param, True, True)
        if not fit_loss:
            p0["loss_db_per_cm"] = float(design_p["loss_db_per_cm"])
        sym = kind == "add_drop" and regime == "symmetric"
        names = _names(kind, regime, True, ng_param, True, fit_loss)
        base = _base(p0)
        full0 = _full_vec(p0)
        cols = [_ALL.index(n) for n in names]
        vjf = _spectrum_fn(kind, _ALL, sym, ports, order, shared)
        zeros, ones = tuple(jnp.zeros(wl.size) for _ in ports), tuple(jnp.ones(wl.size) for _ in ports)
        # baseline start: the analysis's baseline (dB polynomial) per port; drop alone: scale to its peak
        coefs = []
        for j, (port, b) in enumerate(zip(ports, bases, strict=True)):
            if shared and j > 0:
                break
            cdb = np.polynomial.polynomial.polyfit(np.asarray(u), 10 * np.log10(b), order)
            if port == "drop" and not have_t:
                vec0 = jnp.asarray(list(full0) + [0.0] * (order + 1))
                mdl = np.asarray(vjf(vec0, base, grid, u, zeros, ones)[0])
                cdb[0] = 10 * math.log10(float(np.max(data[j])) / float(np.max(mdl)))
                cdb[1:] = 0.0
            coefs.extend(cdb.tolist())
        nb = len(coefs)
        r0 = float(p0["radius"])
        span = (r0 * (1 - 0.004), r0 * (1 + 0.004))
        bnds = [_bounds(n, design_p, span) for n in names] + [(-np.inf, np.inf)] * nb
        scales = np.array([_scale(n, p0) for n in names] + [0.05] * nb)
        origin = np.array([float(p0[n]) for n in names] + coefs)
        dj, sj = tuple(jnp.asarray(d) for d in data), tuple(jnp.asarray(s) for s in sigma)

        k = len(names)
        sel = cols + list(range(len(_ALL), len(_ALL) + nb))

        def evaluate(z, vjf=vjf, origin=origin, scales=scales, base=base, dj=dj, sj=sj, full0=full0, cols=cols,
                     sel=sel, k=k):
            x = origin + z * scales
            full = np.concatenate([full0, x[k:]])
            full[cols] = x[:k]
            r, j = vjf(jnp.asarray(full), base, grid, u, dj, sj)
            return np.asarray(r), np.asarray(j)[:, sel] * scales

        ev = _Cached(evaluate)
        lb = np.array([(b[0] - o) / s for b, o, s in zip(bnds, origin, scales, strict=True)])
        ub = np.array([(b[1] - o) / s for b, o, s in zip(bnds, origin, scales, strict=True)])
        res, secs = _lsq(ev.fun, ev.jac, np.zeros(origin.size), lb, ub, max_nfev=300)
        vec = origin + res.x * scales
        dof = max(res.fun.size - vec.size, 1)
        chi2 = 2 * res.cost / dof
        cov_all = _covariance(ev.jac(res.x) / scales, chi2)
        r_fin = ev.fun(res.x)
        model = [r_fin[j * wl.size:(j + 1) * wl.size] * sigma[j] + data[j] for j in range(len(ports))]
        k = len(names)
        p = dict(p0)
        p.update(zip(names, (float(v) for v in vec[:k]), strict=True))
        if sym:
            p["gap_drop"] = None
        full = full0.copy()
        full[cols] = vec[:k]
        qv, jqv = _quantities_fn(kind, _ALL, sym)(jnp.asarray(full), base, reference_nm * 1e-3)
        jqv = {kk: np.asarray(v)[..., cols] for kk, v in jqv.items()}
        q = {kk: float(v) for kk, v in qv.items()}
        sols.append(dict(regime=regime, p=p, q=q, jq={kk: np.asarray(v) for kk, v in jqv.items()}, cost=float(res.cost),
                         chi2=chi2, res=res, names=names, vec=vec, cov=cov_all, bnds=bnds, k=k, model=model,
                         nfev=int(res.nfev), time=time.perf_counter() - t_start, fit_secs=secs))
    chosen, separable = _choose(sols, design_p)
    k = chosen["k"]
    specs = _specs_dict(chosen["q"], separable)
    errors = _spec_errors(chosen["jq"], chosen["cov"][:k, :k])
    if not separable:
        errors["q_intrinsic"] = None
    fitted = {n: FitParam(float(chosen["vec"][i]), float(math.sqrt(max(chosen["cov"][i, i], 0.0))),
                          float(design_p[n]) if design_p.get(n) is not None else None, chosen["bnds"][i])
              for i, n in enumerate(chosen["names"])}
    nuisance = {}
    labels = ["c0_db", "c1_db_per_nm", "c2_db_per_nm2"][: order + 1]
    for j, port in enumerate(ports if not shared else ("shared",)):
        for i, lab in enumerate(labels):
            idx = k + j * (order + 1) + i
            scale = half**-i
            name = f"{lab}" if shared else f"{port}_{lab}"
            nuisance[name] = FitParam(float(chosen["vec"][idx] * scale),
                                      float(math.sqrt(max(chosen["cov"][idx, idx], 0.0)) * scale))
    amb = _ambiguity_notes(kind, regimes if not separable or len(regimes) == 1 else (chosen["regime"],), have_d,
                           ng_param, True)
    if not fit_loss:
        amb.append("the drop port alone fixes the total linewidth only: loss_db_per_cm held at its design value")
    if not shared:
        amb.append("separate baselines per port: the drop level carries no coupling information")
    amb += _correlated_pairs(list(chosen["names"]), chosen["cov"][:k, :k])
    res = chosen["res"]
    model = chosen["model"]
    # the fitted ring evaluated point by point by its SAX model (no interpolation), for the record and the figure
    model_fn = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
    sd = model_fn(wl_um, **{kk: v for kk, v in chosen["p"].items() if not (kind == "all_pass" and kk == "gap_drop")})
    exact, interp_err = [], 0.0
    for j, port in enumerate(ports):
        jb = 0 if shared else j
        c = chosen["vec"][k + jb * (order + 1): k + (jb + 1) * (order + 1)]
        bl = 10 ** (np.polynomial.polynomial.polyval(np.asarray(u), c) / 10)
        e = bl * np.abs(np.asarray(sd[("o1", "o2") if port == "through" else ("o1", "o4")])) ** 2
        interp_err = max(interp_err, float(np.max(np.abs(e - model[j])) / np.max(np.abs(e))))
        exact.append(e)
    model = exact
    n_pts = int(res.fun.size)
    rms = {port: float(np.sqrt(np.mean((np.asarray(m) - d) ** 2))) for port, m, d in zip(ports, model, data,
                                                                                        strict=True)}
    fit = {"method": "spectrum: least_squares (trf, bounds) on the physical model + baseline, JAX Jacobian",
           "n_points": n_pts, "n_params": int(chosen["vec"].size), "dof": n_pts - int(chosen["vec"].size),
           "chi2_reduced": chosen["chi2"], "rms_residual": rms,
           "noise_sigma": {p: float(s[0]) for p, s in zip(ports, sigma, strict=True)},
           "converged": bool(res.status > 0), "nfev": chosen["nfev"], "time_s": chosen["time"],
           "least_squares_s": chosen["fit_secs"], "interpolation_error": interp_err}
    notes = list(an.notes)
    if chosen["chi2"] > 4.0:
        notes.append(f"reduced χ² = {chosen['chi2']:.3g} > 4: the model does not describe the data to within its noise "
                     "(check the residual figure; uncertainties are scaled by √χ²)")
    at = [n for n, fp in fitted.items() if fp.at_bound]
    if at:
        notes.append(f"parameters at their bounds: {', '.join(at)}; the data may lie outside the model's reach")
    measured = {"fsr_nm": an.fsr_nm, "fsr_err_nm": an.fsr_err_nm, "center_nm": rn.center_nm, "fwhm_nm": rn.fwhm_nm,
                "q_loaded": rn.q_loaded, "extinction_db": rn.extinction_db, "n_group": an.n_group,
                "q_intrinsic": an.q_intrinsic, "resonances_nm": [r.center_nm for r in an.resonances],
                "port": an.port}
    plot_data = {"wl_nm": wl, "ports": ports, "data": data, "model": [np.asarray(m) for m in model],
                 "sigma": sigma, "center_nm": rn.center_nm, "fwhm_nm": rn.fwhm_nm}
    return RingCalibration(
        kind=kind, ring=_ring_block(kind, chosen["p"], chosen["regime"] == "symmetric"), fitted=fitted,
        nuisance=nuisance, specs=specs, errors=errors, measured=_jsonable(measured), fit=_jsonable(fit),
        ambiguities=tuple(amb), solutions=tuple({**_solution_summary(kind, s), "chi2_reduced": s["chi2"]}
                                                for s in sols),
        notes=tuple(notes), source={"from": "spectrum", "radius": radius, "coupling": coupling, "ng_param": ng_param,
                                    "baseline": baseline, "baseline_order": order, **(source or {})},
        plot_data=plot_data,
    )


def calibrate_ring_csv(path, *, radius: float, **kwargs) -> RingCalibration:
    """``read_spectrum_csv`` then ``calibrate_ring_spectrum``."""
    sp = read_spectrum_csv(path)
    return calibrate_ring_spectrum(sp.wl_nm, sp.through, sp.drop, radius=radius,
                                   source={"spectrum": Path(path).name}, **kwargs)


def plot_ring_calibration(cal: RingCalibration, path) -> Path:
    """PNG: data and fitted model (dB) over the span, the resonance nearest the reference, and the
    residual in units of the noise σ. For spec fits: the calibrated model's through (and drop)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def db(y):
        return 10 * np.log10(np.maximum(np.asarray(y, float), 1e-12))

    pd_ = cal.plot_data
    s = cal.specs
    title = (f"{cal.kind} ring: FSR {s['fsr_nm']:.4g} nm, Q_L {s['q_loaded']:.4g}, ER {s['extinction_db']:.3g} dB, "
             f"λ0 {s['resonance_nm']:.3f} nm, n_g {s['ng']:.4g}")
    if "data" not in pd_:
        fig, ax = plt.subplots(figsize=(9, 4), constrained_layout=True)
        lam = s["resonance_nm"]
        wl = np.linspace(lam - 1.5 * s["fsr_nm"], lam + 1.5 * s["fsr_nm"], 4001)
        model = rings.ring_add_drop_model if cal.kind == "add_drop" else rings.ring_all_pass_model
        sd = model(wl * 1e-3, **cal.ring)
        ax.plot(wl, db(np.abs(np.asarray(sd[("o1", "o2")])) ** 2), label="through (model)")
        if cal.kind == "add_drop":
            ax.plot(wl, db(np.abs(np.asarray(sd[("o1", "o4")])) ** 2), label="drop (model)")
        ax.set_xlabel("wavelength (nm)")
        ax.set_ylabel("transmission (dB)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=8)
    else:
        wl = pd_["wl_nm"]
        fig = plt.figure(figsize=(11, 8), constrained_layout=True)
        gs = fig.add_gridspec(3, 2, height_ratios=[1.3, 1, 0.8])
        ax, zoom, axr = fig.add_subplot(gs[0, :]), fig.add_subplot(gs[1, :]), fig.add_subplot(gs[2, :])
        c0, fw = pd_["center_nm"], pd_["fwhm_nm"]
        zm = np.abs(wl - c0) <= 8 * fw
        colors = {"through": ("C0", "C3"), "drop": ("C2", "C1")}
        for port, d, m, sg in zip(pd_["ports"], pd_["data"], pd_["model"], pd_["sigma"], strict=True):
            cd, cm = colors[port]
            ax.plot(wl, db(d), color=cd, lw=0.8, label=f"{port} data")
            ax.plot(wl, db(m), color=cm, lw=1.0, ls="--", label=f"{port} fit")
            zoom.plot(wl[zm], db(d[zm]), ".", color=cd, ms=2.5, label=f"{port} data")
            zoom.plot(wl[zm], db(m[zm]), color=cm, lw=1.2, label=f"{port} fit")
            axr.plot(wl, (d - m) / sg, color=cd, lw=0.6, label=f"{port}")
        ax.set_ylabel("transmission (dB)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, ncol=4)
        zoom.set_ylabel("transmission (dB)")
        zoom.ticklabel_format(axis="x", useOffset=False)
        zoom.set_title(f"measured resonance at {c0:.3f} nm", fontsize=9)
        zoom.legend(fontsize=7, ncol=4)
        axr.axhline(0, color="k", lw=0.6)
        axr.set_ylabel("residual / noise σ")
        axr.set_xlabel("wavelength (nm)")
        chi2 = cal.fit.get("chi2_reduced")
        axr.set_title(f"residual (reduced χ² = {chi2:.3g})" if chi2 is not None else "residual", fontsize=9)
    out = save_figure_atomic(fig, path)
    plt.close(fig)
    return out


# ============================================================================ MZM
@dataclass(frozen=True, eq=False)
class MzmCalibration:
    """Result of an MZM calibration: ``mzm`` holds the calibrated ``mzm_model`` keyword arguments."""

    mzm: dict
    vpi_v: float
    vpi_v_err: float
    insertion_loss_db: float
    extinction_db: float
    fitted: dict
    fit: dict
    notes: tuple[str, ...]
    source: dict
    plot_data: dict = field(default_factory=dict, repr=False)

    def to_params(self) -> dict:
        return _jsonable({"schema": SCHEMA, "mzm": self.mzm, "vpi_v": self.vpi_v, "vpi_v_err": self.vpi_v_err,
                          "insertion_loss_db": self.insertion_loss_db, "extinction_db": self.extinction_db,
                          "fitted": {k: v.to_dict() for k, v in self.fitted.items()}, "fit": self.fit,
                          "notes": list(self.notes), "source": self.source})

    def write(self, path) -> Path:
        return write_json_atomic(path, self.to_params())

    def plot(self, path) -> Path:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        v, t, m = self.plot_data["voltage_v"], self.plot_data["data"], self.plot_data["model"]
        fig, (ax, axr) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, height_ratios=[2, 1], constrained_layout=True)
        ax.plot(v, 10 * np.log10(np.maximum(t, 1e-9)), ".", ms=3, label="data")
        ax.plot(v, 10 * np.log10(np.maximum(m, 1e-9)), "-", label="fit (mzm_model)")
        ax.set_ylabel("transmission (dB)")
        ax.set_title(f"MZM: Vπ = {self.vpi_v:.4g} ± {self.vpi_v_err:.2g} V, IL = {self.insertion_loss_db:.3g} dB, "
                     f"ER = {self.extinction_db:.3g} dB", fontsize=9)
        ax.legend(fontsize=8)
        axr.plot(v, t - m, ".", ms=3)
        axr.axhline(0, color="k", lw=0.6)
        axr.set_ylabel("residual (linear)")
        axr.set_xlabel("voltage (V)")
        out = save_figure_atomic(fig, path)
        plt.close(fig)
        return out


def read_transfer_csv(path, x_names: tuple[str, ...], what: str):
    """(x, linear transmission, wavelength µm or None) from a CSV with an ``x_names`` column and
    ``transmission_db`` or ``transmission``."""
    header, data, lines = _read_csv(path, what)
    fname = Path(path).name
    xcol = _pick(header, x_names, fname, x_names[0])
    tcol = _pick(header, ("transmission_db", "transmission"), fname, "transmission")
    if tcol is None or (xcol is None and x_names):
        need = " and ".join(([f"{'/'.join(x_names)!r}"] if x_names else []) + ["'transmission_db' or 'transmission'"])
        raise ValueError(f"{fname}: found columns {header}, need {need}")
    x = data[:, header.index(xcol)] if xcol else None
    if x is not None:
        _check_finite(xcol, x, lines, fname)
    t = _linear_column(tcol, data[:, header.index(tcol)], lines, fname, tcol.endswith("_db"))
    wcol = _pick(header, ("wavelength_nm", "wavelength_um"), fname, "wavelength")
    wl = None
    if wcol:
        w = data[:, header.index(wcol)]
        _check_finite(wcol, w, lines, fname)
        wl = w * (1e-3 if wcol == "wavelength_nm" else 1.0)
    return x, t, wl, lines


_MZM_FIT = ("field_factor", "bias_phase_rad", "imbalance_db", "excess_loss_db")


def calibrate_mzm(voltage_v, transmission, *, wl: float = 1.55, design: dict | None = None,
                  source: dict | None = None) -> MzmCalibration:
    """Fit ``mzm_model`` to a transfer curve T(V): Vπ (through the field factor f), bias phase,
    splitter imbalance (extinction) and excess loss (insertion loss).

    Args:
        voltage_v: applied voltages (V), at least 8 distinct values spanning ≳ Vπ.
        transmission: linear power transmission (fiber coupling removed; an offset counts as loss).
        wl: wavelength (µm).
        design: other ``mzm_model`` parameters (length, electrode_gap, ...).

    The model's Vπ = λg/(2n_e³r33Γ f L_m): the geometry is held and the electrostatic field
    factor f absorbs the measured Vπ (so r33, Γ and f are not separated). Insertion loss is the
    model's maximum transmission over the bias phase.
    """
    _load_dispersion_eagerly()
    from prismpic.components import modulators as mod

    v = np.asarray(voltage_v, float)
    t = np.asarray(transmission, float)
    if v.ndim != 1 or t.shape != v.shape:
        raise ValueError(f"voltage_v shape {v.shape} and transmission shape {t.shape} must be equal and 1-D")
    if v.size < 8 or np.unique(v).size < 8:
        raise ValueError(f"voltage_v has {np.unique(v).size} distinct values; a transfer curve needs at least 8")
    if not (np.all(np.isfinite(v)) and np.all(np.isfinite(t))):
        raise ValueError("voltage_v and transmission must be finite (NaN or infinite values found)")
    check_range("voltage_v", v, -RULES.max_electrode_voltage_v, RULES.max_electrode_voltage_v, unit="V")
    check_range("transmission", t, -NEGATIVE_TOLERANCE, LINEAR_MAX)
    design = dict(design or {})
    settings = _model_settings(mod.mzm_model)
    for k in design:
        if k not in settings or k in ("wl", "voltage_v"):
            raise ValueError(f"design parameter {k!r} is not an mzm_model parameter; valid: {sorted(settings)}")
    p = {**settings, **design}
    p.pop("wl")
    p.pop("voltage_v")
    # initial guess: the sinusoid A + B cos(πV/Vπ + φ) of least squares over a grid of Vπ
    span = float(np.ptp(v))
    best = None
    for vpi in np.geomspace(span / 40, 4 * span, 400):
        w = math.pi / vpi
        a = np.stack([np.ones_like(v), np.cos(w * v), np.sin(w * v)], 1)
        coef, *_ = np.linalg.lstsq(a, t, rcond=None)
        r = float(np.sum((a @ coef - t) ** 2))
        if best is None or r < best[0]:
            best = (r, vpi, coef)
    _, vpi0, (c_a, c_c, c_s) = best
    amp = math.hypot(c_c, c_s)
    if amp < 1e-3 * max(abs(c_a), 1e-12):
        raise ValueError("transmission does not vary with voltage_v: no MZM transfer curve to fit")
    phi0 = math.atan2(-c_s, c_c)
    tmax, tmin = c_a + amp, max(c_a - amp, 1e-6 * (c_a + amp))
    vpi_model = float(mod.mzm_vpi_v(wl, **{k: p[k] for k in ("length", "electrode_gap", "signal_width", "pad_size",
                                                              "transition_length", "film_thickness", "etch_depth",
                                                              "field_factor")},
                                    width=p["width"] if p["width"] is not None else 1.4))
    f_model = p["field_factor"] if p["field_factor"] is not None else float(mod.field_factor_fit(p["electrode_gap"]))
    t_model = abs(complex(mod.mzm_model(wl, **{**p, "bias_phase_rad": 0.0, "imbalance_db": 0.0})[("o1", "o2")])) ** 2
    er = tmax / tmin
    r_imb = (math.sqrt(er) + 1) / (math.sqrt(er) - 1) if er > 1 else 1e3  # ((r+1)/(r−1))² = ER
    x0 = {"field_factor": float(np.clip(f_model * vpi_model / vpi0, 0.01, 1.5)), "bias_phase_rad": phi0,
          "imbalance_db": float(np.clip(10 * math.log10(r_imb), 0.0, 10.0)),
          "excess_loss_db": float(np.clip(p["excess_loss_db"] + 10 * math.log10(t_model / max(tmax, 1e-9)) / 2,
                                          0.0, 10.0))}
    bounds = {"field_factor": (1e-3, 1.5), "bias_phase_rad": (-4 * math.pi, 4 * math.pi), "imbalance_db": (0.0, 10.0),
              "excess_loss_db": (0.0, 10.0)}
    fixed = {k: val for k, val in p.items() if k not in _MZM_FIT and k != "cross_section"}
    xs = p["cross_section"]

    def model_t(vec, volts):
        kw = dict(fixed)
        kw.update(zip(_MZM_FIT, vec, strict=True))
        return jnp.abs(mod.mzm_model(wl, cross_section=xs, voltage_v=volts, **kw)[("o1", "o2")]) ** 2

    vj, tj = jnp.asarray(v), jnp.asarray(t)

    def resid(vec):  # unweighted (white noise of one σ, estimated from the residual)
        return model_t(vec, vj) - tj

    rf, jf = jax.jit(resid), jax.jit(jax.jacfwd(resid))
    origin = np.array([x0[k] for k in _MZM_FIT])
    scales = np.array([0.01, 0.05, 0.1, 0.05])
    lb = np.array([(bounds[k][0] - o) / s for k, o, s in zip(_MZM_FIT, origin, scales, strict=True)])
    ub = np.array([(bounds[k][1] - o) / s for k, o, s in zip(_MZM_FIT, origin, scales, strict=True)])
    res, secs = _lsq(lambda z: np.asarray(rf(jnp.asarray(origin + z * scales))),
                     lambda z: np.asarray(jf(jnp.asarray(origin + z * scales))) * scales, np.zeros(4), lb, ub)
    vec = origin + res.x * scales
    dof = max(v.size - 4, 1)
    chi2 = 2 * res.cost / dof
    jac = np.asarray(jf(jnp.asarray(vec)))
    cov = _covariance(jac, chi2)
    cal = {**{k: val for k, val in p.items()}, **dict(zip(_MZM_FIT, (float(x) for x in vec), strict=True))}
    vpi_fit = float(mod.mzm_vpi_v(wl, **{k: cal[k] for k in ("length", "electrode_gap", "signal_width", "pad_size",
                                                              "transition_length", "film_thickness", "etch_depth",
                                                              "field_factor")},
                                  width=cal["width"] if cal["width"] is not None else 1.4))
    f_err = math.sqrt(max(cov[0, 0], 0.0))
    psi = jnp.linspace(-math.pi, math.pi, 721)
    kw = {k: cal[k] for k in fixed} | {k: cal[k] for k in _MZM_FIT if k != "bias_phase_rad"}
    tt = np.asarray(jnp.abs(mod.mzm_model(wl, cross_section=xs, voltage_v=0.0, bias_phase_rad=psi, **kw)[("o1", "o2")]) ** 2)
    il = -10 * math.log10(float(tt.max()))
    ext = 10 * math.log10(float(tt.max()) / max(float(tt.min()), 1e-300))
    fitted = {k: FitParam(float(vec[i]), float(math.sqrt(max(cov[i, i], 0.0))),
                          f_model if k == "field_factor" else float(p[k]), bounds[k]) for i, k in enumerate(_MZM_FIT)}
    fit = {"method": "least_squares (trf, bounds) on mzm_model, JAX Jacobian", "n_points": int(v.size),
           "n_params": 4, "dof": dof, "residual_sigma": math.sqrt(chi2),
           "rms_residual": float(np.sqrt(np.mean((np.asarray(model_t(jnp.asarray(vec), vj)) - t) ** 2))),
           "converged": bool(res.status > 0), "nfev": int(res.nfev), "time_s": secs}
    notes = ("Vπ calibrated through the field factor (geometry held): r33, Γ and f are not separated",
             "insertion loss = the model's maximum over bias; fiber coupling must be removed from the data (an offset "
             "counts as excess loss)")
    return MzmCalibration(mzm=_jsonable(cal), vpi_v=vpi_fit, vpi_v_err=vpi_fit * f_err / vec[0],
                          insertion_loss_db=il, extinction_db=ext, fitted=fitted, fit=_jsonable(fit), notes=notes,
                          source=source or {},
                          plot_data={"voltage_v": v, "data": t, "model": np.asarray(model_t(jnp.asarray(vec), vj))})


def _model_settings(fn) -> dict:
    import inspect

    return {k: p.default for k, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


def calibrate_mzm_csv(path, **kwargs) -> MzmCalibration:
    """Read ``voltage_v`` and ``transmission_db``/``transmission`` columns, then ``calibrate_mzm``."""
    v, t, wl, lines = read_transfer_csv(path, ("voltage_v",), "mzm transfer curve")
    if wl is not None:
        if np.ptp(wl) > 1e-9:
            raise ValueError(f"{Path(path).name}: the wavelength column must be constant for a transfer curve")
        kwargs.setdefault("wl", float(wl[0]))
    return calibrate_mzm(v, t, source={"curve": Path(path).name}, **kwargs)


# ============================================================================ PCM
@dataclass(frozen=True, eq=False)
class PcmCalibration:
    """Crystalline fraction of each measured transmission level of a GSST cell."""

    pcm: dict
    levels: tuple[dict, ...]
    range_db: tuple[float, float]
    notes: tuple[str, ...]
    source: dict

    def to_params(self) -> dict:
        return _jsonable({"schema": SCHEMA, "pcm": self.pcm, "levels": list(self.levels),
                          "model_range_db": list(self.range_db), "notes": list(self.notes), "source": self.source})

    def write(self, path) -> Path:
        return write_json_atomic(path, self.to_params())


def calibrate_pcm(transmission, *, levels=None, relative: bool = True, wl: float = 1.55,
                  tolerance_db: float = 0.05, design: dict | None = None, source: dict | None = None) -> PcmCalibration:
    """Crystalline fraction f of each measured level: the root of T_model(f) = T_measured.

    Args:
        transmission: linear power transmission of each level.
        levels: labels of the levels (default 0, 1, ...).
        relative: True if the data are relative to the amorphous state (T/T(f = 0), dB ≤ 0);
            False for the cell's absolute transmission (propagation loss included).
        wl: wavelength (µm), in the GSST data's 1.50–1.60 µm.
        tolerance_db: levels up to this far outside the model's range are clipped to f = 0 or 1
            (measurement noise); further out is a ValueError.
        design: ``pcm_transmission`` geometry (length, pcm_width, pcm_thickness, width, ...).

    T(f) falls monotonically from f = 0 (amorphous, transparent) to f = 1 (crystalline);
    the fraction's error is the level's error (if known, else 0.01 dB) divided by |dT_dB/df|.
    """
    _load_dispersion_eagerly()
    from prismpic.components import pcm as pcm_mod

    t = np.atleast_1d(np.asarray(transmission, float))
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"transmission must be a non-empty 1-D array, got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("transmission has NaN or infinite values")
    if np.any(t <= 0):
        raise ValueError(f"transmission = {t.min():.4g} is not positive: linear transmission of a level must be > 0")
    check_range("wl", wl, 1.5, 1.6, unit="µm")
    check_range("tolerance_db", tolerance_db, 0.0, 3.0, unit="dB")
    settings = _model_settings(pcm_mod.pcm_transmission)
    design = dict(design or {})
    for k in design:
        if k not in settings or k in ("wl", "crystalline_fraction"):
            raise ValueError(f"design parameter {k!r} is not a pcm_transmission parameter; valid: "
                             f"{sorted(k for k in settings if k not in ('wl', 'crystalline_fraction'))}")
    geo = {k: val for k, val in settings.items() if k not in ("wl", "crystalline_fraction")}
    geo.update(design)
    labels = list(range(t.size)) if levels is None else list(levels)
    if len(labels) != t.size:
        raise ValueError(f"levels has {len(labels)} labels for {t.size} transmissions")

    @jax.jit
    def tdb(f):
        return pcm_mod.transmission_db(wl, f, **geo)

    def dt(f, h=1e-4):  # central difference of the (smooth) model; f ± h kept inside [0, 1]
        lo_, hi_ = max(f - h, 0.0), min(f + h, 1.0)
        return (float(tdb(hi_)) - float(tdb(lo_))) / (hi_ - lo_)
    t0 = float(tdb(0.0))
    ref = t0 if relative else 0.0
    hi, lo = 0.0 if relative else t0, float(tdb(1.0)) - ref
    meas = 10 * np.log10(t)
    out = []
    for lab, m in zip(labels, meas, strict=True):
        if m > hi + tolerance_db or m < lo - tolerance_db:
            raise ValueError(f"level {lab!r}: transmission {m:.4g} dB is outside the cell model's range [{lo:.4g}, "
                             f"{hi:.4g}] dB ({'relative to amorphous' if relative else 'absolute'}) by more than "
                             f"tolerance_db = {tolerance_db:g}; check the geometry (length, pcm_thickness) or relative")
        if m >= hi:
            f = 0.0
        elif m <= lo:
            f = 1.0
        else:
            f = float(brentq(lambda x, m=m: float(tdb(x)) - ref - m, 0.0, 1.0, xtol=1e-12))
        slope = float(dt(f))
        out.append({"level": lab, "transmission_db": float(m), "crystalline_fraction": f,
                    "crystalline_fraction_err": abs(0.01 / slope) if slope != 0 else None,
                    "slope_db_per_fraction": slope})
    notes = ["fraction errors assume a 0.01 dB level uncertainty: σ_f = 0.01 dB / |dT_dB/df|"]
    return PcmCalibration(pcm=_jsonable(geo), levels=tuple(out), range_db=(lo, hi), notes=tuple(notes),
                          source=source or {})


def calibrate_pcm_csv(path, **kwargs) -> PcmCalibration:
    """Read ``transmission_db``/``transmission`` (and optional ``level``, ``wavelength_nm``) columns."""
    header, _, _ = _read_csv(path, "pcm levels")
    x, t, wl, _ = read_transfer_csv(path, ("level",) if "level" in header else (), "pcm levels")
    if wl is not None:
        if np.ptp(wl) > 1e-9:
            raise ValueError(f"{Path(path).name}: one wavelength per file (the wavelength column varies)")
        kwargs.setdefault("wl", float(wl[0]))
    levels = None if x is None else [float(v) if not float(v).is_integer() else int(v) for v in x]
    return calibrate_pcm(t, levels=levels, source={"levels": Path(path).name}, **kwargs)
