"""Calibration results and the parameter file they write (schema ``prismpic.params/1``).

Parameter file (``--params`` of ``prismpic report``)
-----------------------------------------------------
JSON object; every block optional except ``schema``; a key not listed here is refused (``PARAM_KEYS``)::

    {
      "schema": "prismpic.params/1",
      "status": "fitted" | "failed", "failure_reason": str ("" when fitted),
      "ring_kind": "add_drop" | "all_pass",
      "ring": {model keyword arguments: "radius", "gap", "gap_drop" (add_drop; null = gap), "width",
               "film_thickness", "etch_depth", "sidewall_angle_deg", "cladding" ("sio2"|"air"),
               "loss_db_per_cm", "coupler_loss_db", "electrode_gap" (the design's, moved into the range the
               model's electrode layout allows for the fitted gaps)},
      "index_correction": {"applied": bool, "dneff", "dng", "wl0_um", "reason"}: the effective-index
               correction of the fit (not a model argument: the ring block alone gives the geometry's indices),
      "fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic" (null when not separable),
      "extinction_db", "resonance_nm" (nearest 1550 nm), "ng", "drop_loss_db",
      "kappa2", "kappa2_drop", "round_trip_loss_db":   outputs of the calibrated model,
      "errors": {spec name: 1σ},
      "fitted": {name: {"value", "sigma", "stderr" (= sigma), "design", "bounds": [lo, hi], "at_bound",
                        "prior": {"mean", "sigma"} | null, "determined_by": "data" | "prior" | null}},
      "nuisance": {name: {"value", "sigma", ...}},          (spectrum fits: baseline, ripple, offsets, split)
      "measured": {...},        spec targets, or the line shape's summary of the data
      "fit": {"method", "n_points", "n_params", "dof", "chi2_reduced", "rms_residual", "converged",
              "residual_structure", "time_s", ...},
      "priors": {name: {"mean", "sigma", "bounds", "source"}},
      "ambiguities": [str], "solutions": [{"regime", "stage", "ring", "q_intrinsic", "cost"}],
      "notes": [str], "flags": [str] (resonances or effects flagged, not fitted), "source": {...},
      "mzm": {mzm_model kwargs}, "vpi_v", "insertion_loss_db", ...   (calibrate mzm)
      "pcm": {pcm_transmission kwargs}, "levels": [...]               (calibrate pcm)
    }

``ring_specs(kind=p["ring_kind"], **p["ring"])`` and ``ring_add_drop_model(**p["ring"])``
take the ring block as is; ``load_params`` reads and checks a file (and refuses a failed calibration's).
"""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from prismpic.analysis.calibration.ring.figure import plot_ring_calibration
from prismpic.checks import check_choice
from prismpic.components import rings
from prismpic.components.model_signature import model_settings
from prismpic.fileio import jsonable, write_json_atomic
from prismpic.pdk.stack import CLADDINGS

SCHEMA = "prismpic.params/1"
# every top-level key a calibration writes (ring: RingCalibration.to_params; mzm: MzmCalibration; pcm:
# PcmCalibration); ``load_params`` refuses any other (a misspelt block would otherwise be ignored)
RING_KEYS = ("schema", "status", "failure_reason", "ring_kind", "ring", "index_correction", "fsr_nm", "fwhm_nm",
             "q_loaded", "q_intrinsic", "extinction_db", "resonance_nm", "ng", "drop_loss_db", "kappa2", "kappa2_drop",
             "round_trip_loss_db", "errors", "fitted", "nuisance", "measured", "fit", "priors", "ambiguities",
             "solutions", "notes", "flags", "source")
MZM_KEYS = ("schema", "mzm", "vpi_v", "vpi_v_err", "insertion_loss_db", "extinction_db", "fitted", "fit", "notes",
            "source")
PCM_KEYS = ("schema", "pcm", "levels", "model_range_db", "notes", "source")
PARAM_KEYS = frozenset(RING_KEYS + MZM_KEYS + PCM_KEYS)


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
    unknown = [k for k in data if k not in PARAM_KEYS]
    if unknown:
        near = difflib.get_close_matches(str(unknown[0]), sorted(PARAM_KEYS), n=1)
        raise ValueError(f"{where}: unknown key {unknown[0]!r}{f' (did you mean {near[0]!r}?)' if near else ''}; "
                         f"valid keys: {sorted(PARAM_KEYS)}")
    if data.get("status") == "failed":
        raise ValueError(f"{where} is a failed calibration ({data.get('failure_reason') or 'no reason given'}): it "
                         "is kept for diagnosis (--keep-failed), not as parameters")
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
            if k == "cladding":
                if not isinstance(v, str):
                    raise ValueError(f"{where}: ring cladding = {v!r} must be a string, one of {list(CLADDINGS)}")
                check_choice(f"{where}: ring cladding", v, CLADDINGS)
            elif not (k in ("gap_drop", "bus_length") and v is None) and (isinstance(v, bool)
                                                                           or not isinstance(v, int | float)):
                raise ValueError(f"{where}: ring {k} = {v!r} must be a number")
        model = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
        accepted = model_settings(model)
        try:  # the model's range checks, before anything uses the parameters
            model(wl=1.55, **{k: v for k, v in full.items() if k in accepted})
        except ValueError as e:
            raise ValueError(f"{where}: ring block: {e}") from None
    return data


DETERMINED_RATIO = 0.5  # a parameter is determined by the data when its posterior σ is below this × its prior σ


@dataclass(frozen=True)
class FitParam:
    """A fitted parameter: value, 1σ (posterior), design value, bounds and prior (in the parameter's unit)."""

    value: float
    sigma: float | None
    design: float | None = None
    bounds: tuple[float, float] | None = None
    prior_mean: float | None = None
    prior_sigma: float | None = None

    @property
    def stderr(self) -> float | None:
        """The 1σ (the name of the schema before issue 11)."""
        return self.sigma

    @property
    def at_bound(self) -> bool:
        """Whether the value sits on one of its bounds (within 1e-6 of the span)."""
        if self.bounds is None:
            return False
        lo, hi = self.bounds
        tol = 1e-6 * max(1.0, abs(hi - lo)) if math.isfinite(hi - lo) else 1e-9
        return bool(self.value - lo <= tol or hi - self.value <= tol)

    @property
    def determined_by(self) -> str | None:
        """``"data"`` (posterior σ < DETERMINED_RATIO × prior σ), ``"prior"``, or None without a prior."""
        if self.prior_sigma is None or self.sigma is None:
            return None
        return "data" if self.sigma < DETERMINED_RATIO * self.prior_sigma else "prior"

    def to_dict(self) -> dict:
        """The parameter's JSON block: value, sigma (= stderr), design, bounds, at_bound, prior, determined_by."""
        prior = None if self.prior_sigma is None else {"mean": self.prior_mean, "sigma": self.prior_sigma}
        return {"value": self.value, "sigma": self.sigma, "stderr": self.sigma, "design": self.design,
                "bounds": list(self.bounds) if self.bounds is not None else None, "at_bound": self.at_bound,
                "prior": prior, "determined_by": self.determined_by}


@dataclass(frozen=True, eq=False)
class RingCalibration:
    """Result of a ring calibration (see the module docstring for the JSON it writes).

    Attributes:
        kind: ``"add_drop"`` or ``"all_pass"``.
        ring: model keyword arguments of the calibrated ring (the ``"ring"`` block).
        fitted: fitted physical parameters (``params`` is the same dict), with their priors.
        nuisance: fitted nuisance parameters (baseline, ripple, offsets, split), spectrum fits only.
        specs: outputs of the calibrated model (fsr_nm, fwhm_nm, q_loaded, q_intrinsic —
            None when under/over coupling is not separable —, extinction_db, resonance_nm,
            ng, drop_loss_db, kappa2, kappa2_drop, round_trip_loss_db).
        errors: 1σ of the specs, propagated from the parameter covariance.
        measured: targets (spec fit) or the line shape's summary (spectrum fit).
        fit: fit quality and cost.
        ambiguities: what the data cannot separate.
        solutions: every regime and stage fitted (regime, stage, ring, q_intrinsic, cost).
        notes: assumptions and warnings.
        source: what was calibrated from.
        status: ``"fitted"`` or ``"failed"`` (a fit that did not converge, or whose χ² says the model does not
            describe the data); ``failure_reason`` says why in one line.
        correction: the effective-index correction (applied, dneff, dng, wl0_um, reason).
        priors: the priors used ({name: Prior.to_dict()}).
        flags: resonances or effects detected but not fitted (masked windows, unresolved structure).
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
    status: str = "fitted"
    failure_reason: str = ""
    correction: dict = field(default_factory=dict)
    priors: dict = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    plot_data: dict = field(default_factory=dict, repr=False)

    @property
    def failed(self) -> bool:
        """Whether the fit failed (``status == "failed"``; ``failure_reason`` says why)."""
        return self.status == "failed"

    @property
    def params(self) -> dict:
        """The fitted physical parameters ({name: FitParam})."""
        return self.fitted

    def to_params(self) -> dict:
        """The JSON-ready parameter file (schema ``prismpic.params/1``)."""
        out = {"schema": SCHEMA, "status": self.status, "failure_reason": self.failure_reason,
               "ring_kind": self.kind, "ring": dict(self.ring)}
        if self.correction:
            out["index_correction"] = dict(self.correction)
        for k in ("fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "resonance_nm", "ng",
                  "drop_loss_db", "kappa2", "kappa2_drop", "round_trip_loss_db"):
            out[k] = self.specs.get(k)
        out["errors"] = dict(self.errors)
        out["fitted"] = {k: v.to_dict() for k, v in self.fitted.items()}
        if self.nuisance:
            out["nuisance"] = {k: v.to_dict() for k, v in self.nuisance.items()}
        out["measured"] = self.measured
        out["fit"] = self.fit
        out["priors"] = dict(self.priors)
        out["ambiguities"] = list(self.ambiguities)
        out["solutions"] = list(self.solutions)
        out["notes"] = list(self.notes)
        out["flags"] = list(self.flags)
        out["source"] = self.source
        return jsonable(out)

    def to_dict(self) -> dict:
        """The same JSON-ready dict as ``to_params`` (a plain dict: picklable, for worker processes)."""
        return self.to_params()

    def write(self, path) -> Path:
        """Write the parameter file atomically."""
        return write_json_atomic(path, self.to_params())

    def plot(self, path) -> Path:
        """Figure: data, fit and residual (spectrum fits) or the calibrated model's spectrum (spec fits)."""
        return plot_ring_calibration(self, path)
