"""Calibration results and the parameter file they write (schema ``prismpic.params/1``).

Parameter file (``--params`` of ``prismpic report``)
-----------------------------------------------------
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

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import sax

from prismpic.analysis.calibration.ring_figure import plot_ring_calibration
from prismpic.checks import check_choice
from prismpic.components import rings
from prismpic.fileio import jsonable, write_json_atomic

SCHEMA = "prismpic.params/1"


def load_params(path) -> dict:
    """Read a parameter file written by calibration and check its schema and ring block."""
    path = Path(path)
    where = f"params = {str(path)!r}"
    if not path.is_file():
        raise ValueError(f"{where} is not a readable file")
    try:
        text = path.read_bytes().decode("utf-8-sig")
        data = json.loads(text)
    except OSError as e:
        raise ValueError(f"{where} cannot be read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{where} is not UTF-8 text (byte {e.start}); JSON files are UTF-8") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{where} is not valid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise ValueError(f"{where} is not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object, got {type(data).__name__}")
    if "ring" in data:
        kind = data.get("ring_kind", "add_drop")
        if not isinstance(kind, str):
            raise ValueError(f"{where}: ring_kind = {kind!r} must be 'add_drop' or 'all_pass'")
        check_choice("ring_kind", kind, ("add_drop", "all_pass"))
        ring = data["ring"]
        if not isinstance(ring, dict):
            raise ValueError(f"{where}: the ring block must be a JSON object of ring model parameters, got "
                             f"{type(ring).__name__}")
        full = rings.ring_params(kind, ring)  # unknown keys raise
        for k, v in ring.items():
            if not (k == "gap_drop" and v is None) and (isinstance(v, bool) or not isinstance(v, int | float)):
                raise ValueError(f"{where}: ring {k} = {v!r} must be a number")
        model = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
        accepted = sax.get_settings(model)
        try:  # the model's range checks, before anything uses the parameters
            model(wl=1.55, **{k: v for k, v in full.items() if k in accepted})
        except ValueError as e:
            raise ValueError(f"{where}: ring block: {e}") from None
    return data


@dataclass(frozen=True)
class FitParam:
    """A fitted parameter: value, 1σ error, design value and bounds (in the parameter's unit)."""

    value: float
    stderr: float | None
    design: float | None = None
    bounds: tuple[float, float] | None = None

    @property
    def at_bound(self) -> bool:
        """Whether the value sits on one of its bounds (within 1e-6 of the span)."""
        if self.bounds is None:
            return False
        lo, hi = self.bounds
        tol = 1e-6 * max(1.0, abs(hi - lo)) if math.isfinite(hi - lo) else 1e-9
        return bool(self.value - lo <= tol or hi - self.value <= tol)

    def to_dict(self) -> dict:
        """The parameter's JSON block: value, stderr, design, bounds, at_bound."""
        return {"value": self.value, "stderr": self.stderr, "design": self.design,
                "bounds": list(self.bounds) if self.bounds is not None else None, "at_bound": self.at_bound}


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
        return jsonable(out)

    def write(self, path) -> Path:
        """Write the parameter file atomically."""
        return write_json_atomic(path, self.to_params())

    def plot(self, path) -> Path:
        """Figure: data, fit and residual (spectrum fits) or the calibrated model's spectrum (spec fits)."""
        return plot_ring_calibration(self, path)
