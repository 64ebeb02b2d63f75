"""PCM calibration: the crystalline fraction of each measured transmission level of a GSST cell,
by inverting the cell model ``pcm.transmission_db``.

The inversion is the calibration's one least-squares core (``fitting.solve``: bounded Levenberg–Marquardt in
JAX, f ∈ [0, 1]), all levels in one vmapped batch, each from the fraction interpolated on a 41-point table of
the model; the files are read by ``measurements.read_transfer_csv`` like every other calibration's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from prismpic.analysis.calibration import fitting
from prismpic.analysis.calibration.results import SCHEMA
from prismpic.analysis.measurements import read_transfer_csv
from prismpic.checks import check_number, check_range
from prismpic.components import pcm as pcm_mod
from prismpic.components.model_signature import model_settings
from prismpic.fileio import jsonable, write_json_atomic
from prismpic.pdk import materials


@dataclass(frozen=True, eq=False)
class PcmCalibration:
    """Crystalline fraction of each measured transmission level of a GSST cell.

    Attributes:
        pcm: the cell's ``pcm_transmission`` geometry.
        levels: per level: level, transmission_db (dB), crystalline_fraction, crystalline_fraction_err,
            slope_db_per_fraction (dB).
        range_db: the model's (fully crystalline, amorphous) transmission (dB; relative or absolute).
        notes: assumptions.
        source: what was calibrated from.
    """

    pcm: dict
    levels: tuple[dict, ...]
    range_db: tuple[float, float]
    notes: tuple[str, ...]
    source: dict

    def to_params(self) -> dict:
        """The JSON-ready parameter file (schema ``prismpic.params/1``, ``pcm`` block)."""
        return jsonable({"schema": SCHEMA, "pcm": self.pcm, "levels": list(self.levels),
                         "model_range_db": list(self.range_db), "notes": list(self.notes), "source": self.source})

    def write(self, path) -> Path:
        """Write the parameter file atomically."""
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
        source: what to record under ``source`` (file name, ...).

    T(f) falls monotonically from f = 0 (amorphous, transparent) to f = 1 (crystalline);
    the fraction's error is the level's error (if known, else 0.01 dB) divided by |dT_dB/df|.
    """
    t = np.atleast_1d(np.asarray(transmission, float))
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"transmission must be a non-empty 1-D array, got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("transmission has NaN or infinite values")
    if np.any(t <= 0):
        raise ValueError(f"transmission = {t.min():.4g} is not positive: linear transmission of a level must be > 0")
    check_range("wl", wl, 1.5, 1.6, unit="µm")
    check_range("tolerance_db", tolerance_db, 0.0, 3.0, unit="dB")
    settings = model_settings(pcm_mod.pcm_transmission)
    design = dict(design or {})
    for k in design:
        if k not in settings or k in ("wl", "crystalline_fraction"):
            raise ValueError(f"design parameter {k!r} is not a pcm_transmission parameter; valid: "
                             f"{sorted(k for k in settings if k not in ('wl', 'crystalline_fraction'))}")
    for k, val in design.items():
        check_number(f"design {k}", val)
    geo = {k: val for k, val in settings.items() if k not in ("wl", "crystalline_fraction")}
    geo.update(design)
    pcm_mod.transmission_db(wl, 0.0, **geo)  # the cell model's range checks, eagerly (the fit below is jitted)
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
    for lab, m in zip(labels, meas, strict=True):
        if m > hi + tolerance_db or m < lo - tolerance_db:
            raise ValueError(f"level {lab!r}: transmission {m:.4g} dB is outside the cell model's range [{lo:.4g}, "
                             f"{hi:.4g}] dB ({'relative to amorphous' if relative else 'absolute'}) by more than "
                             f"tolerance_db = {tolerance_db:g}; check the geometry (length, pcm_thickness) or relative")
    fractions = np.where(meas >= hi, 0.0, 1.0)
    inside = np.flatnonzero((meas < hi) & (meas > lo))
    if inside.size:
        grid = np.linspace(0.0, 1.0, 41)
        table = np.array([float(tdb(g)) for g in grid]) - ref  # decreasing in f
        starts = np.interp(-meas[inside], -table, grid)

        def residual(x, args):  # in units of 1e-6 dB: the root to well below any measurement's resolution
            return (tdb(x[0]) - args["ref"] - args["m"])[None] / 1e-6, jnp.zeros(0)

        boxes = [fitting.Box.of([(0.0, 1.0)], [0.01], [f0]) for f0 in starts]
        sols = fitting.solve(residual, boxes, [(np.zeros(1), np.zeros(1))] * inside.size,
                             [{"ref": jnp.asarray(ref), "m": jnp.asarray(m)} for m in meas[inside]])
        fractions[inside] = [float(s_.x[0]) for s_ in sols]
    out = []
    for lab, m, f in zip(labels, meas, fractions, strict=True):
        f = float(f)
        slope = float(dt(f))
        out.append({"level": lab, "transmission_db": float(m), "crystalline_fraction": f,
                    "crystalline_fraction_err": abs(0.01 / slope) if slope != 0 else None,
                    "slope_db_per_fraction": slope})
    notes = ["fraction errors assume a 0.01 dB level uncertainty: σ_f = 0.01 dB / |dT_dB/df|"]
    return PcmCalibration(pcm=jsonable(geo), levels=tuple(out), range_db=(lo, hi), notes=tuple(notes),
                          source=source or {})


MAX_LEVEL = 65535  # level labels: a cell's programmed states (GSST cells resolve a few bits; 16 bits is ample)


def calibrate_pcm_csv(path, **kwargs) -> PcmCalibration:
    """Read ``transmission_db``/``transmission`` (and optional ``level``, ``wavelength_nm``) columns, then
    ``calibrate_pcm``; without a ``level`` column the levels are numbered 0, 1, ... in file order.

    Every column is range-checked: ``level`` in [0, ``MAX_LEVEL``], transmission by the measurement rule
    (``measurements``), the wavelength within the GSST data's 1.50–1.60 µm (``materials.GSST_SOURCE``); a column
    of another kind of file (``voltage_v``: an MZM transfer curve; ``through``/``drop``: a ring spectrum) is refused
    saying so."""
    gsst = materials.GSST_SOURCE
    x, t, wl, _ = read_transfer_csv(
        path, ("level",), "pcm levels", x_optional=True,
        x_range=(0.0, MAX_LEVEL, "", "a level is a label of the cell's programmed state, 0, 1, 2, ..."),
        wl_range_um=(gsst.wl_min_um, gsst.wl_max_um, f"the GSST optical data's range: {gsst.citation}"))
    if wl is not None:
        if np.ptp(wl) > 1e-9:
            raise ValueError(f"{Path(path).name}: one wavelength per file (the wavelength column varies)")
        kwargs.setdefault("wl", float(wl[0]))
    levels = None if x is None else [float(v) if not float(v).is_integer() else int(v) for v in x]
    return calibrate_pcm(t, levels=levels, source={"levels": Path(path).name}, **kwargs)
