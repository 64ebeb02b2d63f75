"""MZM calibration: ``mzm_model`` fitted to a measured transfer curve T(V).

Fitted: the electrostatic field factor f (hence Vπ = λg/(2n_e³r33Γ f L_m), the geometry held, so
r33, Γ and f are not separated), the bias phase, the splitter imbalance (extinction) and the
excess loss (insertion loss = the model's maximum over the bias phase). The fit is the calibration's one
least-squares core (``fitting.solve``: bounded Levenberg–Marquardt in JAX) from the sinusoid's closed-form
start; the noise σ is the residual's own scatter (1σ errors from (JᵀJ)⁻¹·s², s² = Σr²/(n − 4)).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration import fitting
from prismpic.analysis.calibration.results import SCHEMA, FitParam
from prismpic.analysis.measurements import LINEAR_MAX, NEGATIVE_TOLERANCE, read_transfer_csv
from prismpic.checks import check_range
from prismpic.components import modulators as mod
from prismpic.components.model_signature import model_settings
from prismpic.fileio import jsonable, save_figure_atomic, write_json_atomic
from prismpic.pdk.cross_sections import ridge_width
from prismpic.pdk.electrodes import field_factor
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.pdk.rules import RULES

_MZM_FIT = ("field_factor", "bias_phase_rad", "imbalance_db", "excess_loss_db")
_VPI_ARGS = ("length", "electrode_gap", "signal_width", "pad_size", "transition_length", "film_thickness",
             "etch_depth", "field_factor")
_BOUNDS = {"field_factor": (1e-3, 1.5), "bias_phase_rad": (-mod.MAX_BIAS_PHASE_RAD, mod.MAX_BIAS_PHASE_RAD), "imbalance_db": (0.0, 10.0),
           "excess_loss_db": (0.0, 10.0)}
_SCALES = np.array([0.01, 0.05, 0.1, 0.05])  # typical steps of _MZM_FIT (1, rad, dB, dB)


@dataclass(frozen=True, eq=False)
class MzmCalibration:
    """Result of an MZM calibration: ``mzm`` holds the calibrated ``mzm_model`` keyword arguments.

    Attributes:
        mzm: calibrated ``mzm_model`` keyword arguments.
        vpi_v, vpi_v_err: half-wave voltage and its 1σ (V).
        insertion_loss_db: the model's maximum transmission over the bias phase (dB).
        extinction_db: the model's maximum over minimum transmission (dB).
        fitted: fitted parameters (``FitParam``).
        fit: fit quality and cost.
        notes: assumptions.
        source: what was calibrated from.
        plot_data: voltage, data and model for the figure.
    """

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
        """The JSON-ready parameter file (schema ``prismpic.params/1``, ``mzm`` block)."""
        return jsonable({"schema": SCHEMA, "mzm": self.mzm, "vpi_v": self.vpi_v, "vpi_v_err": self.vpi_v_err,
                         "insertion_loss_db": self.insertion_loss_db, "extinction_db": self.extinction_db,
                         "fitted": {k: v.to_dict() for k, v in self.fitted.items()}, "fit": self.fit,
                         "notes": list(self.notes), "source": self.source})

    def write(self, path) -> Path:
        """Write the parameter file atomically."""
        return write_json_atomic(path, self.to_params())

    def plot(self, path) -> Path:
        """Figure (format from the suffix): data and fit (dB) versus voltage, and the linear residual."""
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


def _vpi_v(wl: float, p: dict) -> float:
    """The model's Vπ (V) of the MZM parameters ``p`` at ``wl`` (µm)."""
    return float(mod.mzm_vpi_v(wl, **{k: p[k] for k in _VPI_ARGS}, width=p["width"], cross_section=p["cross_section"],
                               sidewall_angle_deg=p["sidewall_angle_deg"], cladding=p["cladding"],
                               electrode_height=p["electrode_height"]))


def _sinusoid_start(v: np.ndarray, t: np.ndarray, wl: float, p: dict) -> dict:
    """Starting values of ``_MZM_FIT`` from the sinusoid A + B cos(πV/Vπ + φ) of least squares over a grid of Vπ."""
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
    vpi_model = _vpi_v(wl, p)
    f_model = _design_field_factor(p)
    t_model = abs(complex(mod.mzm_model(wl, **{**p, "bias_phase_rad": 0.0, "imbalance_db": 0.0})[("o1", "o2")])) ** 2
    er = tmax / tmin
    r_imb = (math.sqrt(er) + 1) / (math.sqrt(er) - 1) if er > 1 else 1e3  # ((r+1)/(r−1))² = ER
    return {"field_factor": float(np.clip(f_model * vpi_model / vpi0, 0.01, 1.5)), "bias_phase_rad": phi0,
            "imbalance_db": float(np.clip(10 * math.log10(r_imb), 0.0, 10.0)),
            "excess_loss_db": float(np.clip(p["excess_loss_db"] + 10 * math.log10(t_model / max(tmax, 1e-9)) / 2,
                                            0.0, 10.0))}


def _design_field_factor(p: dict) -> float:
    """The design's field factor: given, or that of its electrode layout on its stack (``electrodes.field_factor``,
    the same the model uses)."""
    if p["field_factor"] is not None:
        return p["field_factor"]
    ridge = RidgeStack.from_params({**p, "width": ridge_width(p["cross_section"], p["width"])})
    return float(field_factor(p["electrode_gap"], ridge, ridge_offset=0.0, electrode_height=p["electrode_height"]))


def _check_curve(v: np.ndarray, t: np.ndarray) -> None:
    if v.ndim != 1 or t.shape != v.shape:
        raise ValueError(f"voltage_v shape {v.shape} and transmission shape {t.shape} must be equal and 1-D")
    if v.size < 8 or np.unique(v).size < 8:
        raise ValueError(f"voltage_v has {np.unique(v).size} distinct values; a transfer curve needs at least 8")
    if not (np.all(np.isfinite(v)) and np.all(np.isfinite(t))):
        raise ValueError("voltage_v and transmission must be finite (NaN or infinite values found)")
    check_range("voltage_v", v, -RULES.max_electrode_voltage_v, RULES.max_electrode_voltage_v, unit="V")
    check_range("transmission", t, -NEGATIVE_TOLERANCE, LINEAR_MAX)


def calibrate_mzm(voltage_v, transmission, *, wl: float = 1.55, design: dict | None = None,
                  source: dict | None = None) -> MzmCalibration:
    """Fit ``mzm_model`` to a transfer curve T(V): Vπ (through the field factor f), bias phase,
    splitter imbalance (extinction) and excess loss (insertion loss).

    Args:
        voltage_v: applied voltages (V), at least 8 distinct values spanning ≳ Vπ.
        transmission: linear power transmission (fiber coupling removed; an offset counts as loss).
        wl: wavelength (µm).
        design: other ``mzm_model`` parameters (length, electrode_gap, ...).
        source: what to record under ``source`` (file name, ...).

    The model's Vπ = λg/(2n_e³r33Γ f L_m): the geometry is held and the electrostatic field
    factor f absorbs the measured Vπ (so r33, Γ and f are not separated). Insertion loss is the
    model's maximum transmission over the bias phase.
    """
    t0 = time.perf_counter()
    v = np.asarray(voltage_v, float)
    t = np.asarray(transmission, float)
    _check_curve(v, t)
    design = dict(design or {})
    settings = model_settings(mod.mzm_model)
    for k in design:
        if k not in settings or k in ("wl", "voltage_v"):
            raise ValueError(f"design parameter {k!r} is not an mzm_model parameter; valid: {sorted(settings)}")
    p = {**settings, **design}
    p.pop("wl")
    p.pop("voltage_v")
    x0 = _sinusoid_start(v, t, wl, p)
    fixed = {k: val for k, val in p.items() if k not in _MZM_FIT and k != "cross_section"}
    xs = p["cross_section"]

    def model_t(vec, volts):
        kw = dict(fixed)
        kw.update(zip(_MZM_FIT, vec, strict=True))
        return jnp.abs(mod.mzm_model(wl, cross_section=xs, voltage_v=volts, **kw)[("o1", "o2")]) ** 2

    def residual(vec, args):  # in units of an assumed σ0 = 1e-3 (rescaled by the residual's own scatter below)
        return (model_t(vec, args["v"]) - args["t"]) / 1e-3, jnp.zeros(0)

    origin = np.array([x0[k] for k in _MZM_FIT])
    box = fitting.Box.of([_BOUNDS[k] for k in _MZM_FIT], _SCALES, origin)
    f = fitting.solve(residual, [box], [(np.zeros(4), np.zeros(4))], [{"v": jnp.asarray(v), "t": jnp.asarray(t)}])[0]
    vec = f.x
    dof = max(v.size - 4, 1)
    chi2 = f.chi2_data / dof  # (s/σ0)²
    cov = fitting.covariance(f.jac_data, f.jac_prior, chi2, floor=False)
    cal = {**dict(p), **dict(zip(_MZM_FIT, (float(x) for x in vec), strict=True))}
    vpi_fit = _vpi_v(wl, cal)
    f_err = math.sqrt(max(cov[0, 0], 0.0))
    psi = jnp.linspace(-math.pi, math.pi, 721)
    kw = {k: cal[k] for k in fixed} | {k: cal[k] for k in _MZM_FIT if k != "bias_phase_rad"}
    tt = np.asarray(jnp.abs(mod.mzm_model(wl, cross_section=xs, voltage_v=0.0, bias_phase_rad=psi, **kw)[("o1", "o2")]) ** 2)
    il = -10 * math.log10(float(tt.max()))
    ext = 10 * math.log10(float(tt.max()) / max(float(tt.min()), 1e-300))
    f_model = _design_field_factor(p)
    fitted = {k: FitParam(float(vec[i]), float(math.sqrt(max(cov[i, i], 0.0))),
                          f_model if k == "field_factor" else float(p[k]), _BOUNDS[k]) for i, k in enumerate(_MZM_FIT)}
    model = np.asarray(model_t(jnp.asarray(vec), jnp.asarray(v)))
    fit = {"method": "Levenberg–Marquardt (JAX, bounds) on mzm_model: the calibration's fitting core",
           "n_points": int(v.size), "n_params": 4, "dof": dof, "residual_sigma": math.sqrt(chi2) * 1e-3,
           "rms_residual": float(np.sqrt(np.mean((model - t) ** 2))), "converged": f.ok, "steps": f.steps,
           "time_s": time.perf_counter() - t0}
    notes = ("Vπ calibrated through the field factor (geometry held): r33, Γ and f are not separated",
             "insertion loss = the model's maximum over bias; fiber coupling must be removed from the data (an offset "
             "counts as excess loss)")
    return MzmCalibration(mzm=jsonable(cal), vpi_v=vpi_fit, vpi_v_err=vpi_fit * f_err / vec[0],
                          insertion_loss_db=il, extinction_db=ext, fitted=fitted, fit=jsonable(fit), notes=notes,
                          source=source or {}, plot_data={"voltage_v": v, "data": t, "model": model})


def calibrate_mzm_csv(path, **kwargs) -> MzmCalibration:
    """Read ``voltage_v`` and ``transmission_db``/``transmission`` columns (optional constant wavelength
    column: the ``wl``), then ``calibrate_mzm``."""
    v, t, wl, _ = read_transfer_csv(path, ("voltage_v",), "mzm transfer curve")
    if wl is not None:
        if np.ptp(wl) > 1e-9:
            raise ValueError(f"{Path(path).name}: the wavelength column must be constant for a transfer curve")
        kwargs.setdefault("wl", float(wl[0]))
    return calibrate_mzm(v, t, source={"curve": Path(path).name}, **kwargs)
