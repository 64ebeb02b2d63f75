"""The fabrication process as a distribution: nominal values, 1σ spreads, named corners, Monte Carlo draws.

A chip is a draw from a process, not the nominal drawing. ``Process`` holds the parameters that vary
from wafer to wafer and die to die, each with its nominal value, 1σ spread, the range the dispersion
tables cover and its source (or "assumption"):

- ``film_thickness`` (µm), ``etch_depth`` (µm), ``sidewall_angle_deg`` (from the horizontal);
- ``width_bias`` (µm): etched top width minus drawn width (each edge moves by half of it);
- ``gap_bias`` (µm): etched gap between ridge tops minus the drawn gap. Lithography and etch move the
  gap by −width_bias on a uniform process; narrow gaps also see etch lag, so it is its own parameter
  (nominal 0, its own spread) rather than tied to the width;
- ``cladding``: "sio2" or "air" (a choice, not a distribution).

``apply(params, process_values)`` turns a model's drawn parameters into the as-fabricated ones
(width + width_bias, gap + gap_bias, and the wafer parameters), so every geometry-taking model accepts a
corner or a draw: ``model(wl, **apply(settings, corner("sidewall_angle_deg-3s")))``.

Corners: ``nominal`` and ``<parameter>±3s`` for each parameter (the others nominal). Monte Carlo:
``sample(n, seed)`` draws independent normals, truncated to the tables' domain (deterministic for a seed).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from prismpic.checks import check_choice, check_range
from prismpic.pdk.stack import CLADDING, CLADDINGS, ETCH_DEPTH, FILM_THICKNESS, SIDEWALL_ANGLE_DEG

if TYPE_CHECKING:  # the ridge module imports JAX; the process description stays light
    from prismpic.pdk.ridge_stack import RidgeStack

SIGMAS_PER_CORNER = 3.0


@dataclass(frozen=True)
class ProcessParameter:
    """One varying process parameter: nominal value, 1σ spread, valid range and source (units as named)."""

    nominal: float
    sigma: float
    lo: float
    hi: float
    unit: str
    source: str

    def __post_init__(self):
        if not (self.lo <= self.nominal <= self.hi) or self.sigma < 0:
            raise ValueError(f"process parameter: nominal {self.nominal} outside [{self.lo}, {self.hi}] or σ "
                             f"{self.sigma} < 0")


PARAMETERS = ("film_thickness", "etch_depth", "sidewall_angle_deg", "width_bias", "gap_bias")


@dataclass(frozen=True)
class Process:
    """The process description: every varying parameter (``PARAMETERS``) and the cladding."""

    film_thickness: ProcessParameter = ProcessParameter(
        FILM_THICKNESS, 0.010, 0.4, 0.8, "µm",
        "assumption: ±10 nm (1σ) film thickness across commercial 600 nm X-cut LNOI wafers")
    etch_depth: ProcessParameter = ProcessParameter(
        ETCH_DEPTH, 0.010, 0.2, 0.48, "µm", "assumption: ±10 nm (1σ) dry-etch depth control")
    sidewall_angle_deg: ProcessParameter = ProcessParameter(
        SIDEWALL_ANGLE_DEG, 3.0, 60.0, 90.0, "°",
        "nominal: a TFLN foundry's 400 nm platform description (13.5° from vertical); σ: assumption, "
        "published dry-etched ridges span ≈ 60–80°")
    width_bias: ProcessParameter = ProcessParameter(
        0.0, 0.020, -0.3, 0.3, "µm", "assumption: ±20 nm (1σ) lithography + etch width bias")
    gap_bias: ProcessParameter = ProcessParameter(
        0.0, 0.015, -0.1, 0.1, "µm", "assumption: ±15 nm (1σ) gap bias at 0.2–0.3 µm gaps (etch lag)")
    cladding: str = field(default=CLADDING)

    def __post_init__(self):
        check_choice("cladding", self.cladding, CLADDINGS)

    def nominal(self) -> dict:
        """The nominal process values (and the cladding)."""
        return {name: getattr(self, name).nominal for name in PARAMETERS} | {"cladding": self.cladding}

    def corner_names(self) -> tuple[str, ...]:
        """``nominal`` and ``<parameter>+3s`` / ``<parameter>-3s`` for every parameter."""
        return ("nominal", *(f"{n}{s}{SIGMAS_PER_CORNER:g}s" for n in PARAMETERS for s in "+-"))

    def corner(self, name: str) -> dict:
        """Process values of a named corner (ValueError naming the valid corners for an unknown name)."""
        check_choice("corner", name, self.corner_names())
        values = self.nominal()
        if name != "nominal":
            param, sign = name[:-3], name[-3]
            p = getattr(self, param)
            step = SIGMAS_PER_CORNER * p.sigma * (1 if sign == "+" else -1)
            values[param] = float(np.clip(p.nominal + step, p.lo, p.hi))
        return values

    def corners(self) -> dict[str, dict]:
        """Every named corner: {name: process values}."""
        return {name: self.corner(name) for name in self.corner_names()}

    def sample(self, n: int, seed: int = 0) -> list[dict]:
        """``n`` Monte Carlo draws (independent normals, clipped to each parameter's range), seeded."""
        check_range("n", n, 1, 10_000_000)
        rng = np.random.default_rng(seed)
        cols = {}
        for name in PARAMETERS:
            p = getattr(self, name)
            cols[name] = np.clip(p.nominal + p.sigma * rng.standard_normal(n), p.lo, p.hi)
        return [{name: float(cols[name][i]) for name in PARAMETERS} | {"cladding": self.cladding} for i in range(n)]

    def to_dict(self) -> dict:
        """JSON-ready description (the format ``load_process`` reads)."""
        return {"schema": "prismpic.process/1", "cladding": self.cladding,
                "parameters": {name: asdict(getattr(self, name)) for name in PARAMETERS}}

    def on_stack(self, ridge: RidgeStack) -> Process:
        """A copy centred on another stack (a platform preset's): its film, etch and wall angle as the nominal
        values (each inside the parameter's range), its cladding, the same 1σ spreads.

        Args:
            ridge: the stack (``RidgeStack``: film and etch in µm, wall angle from the horizontal in degrees,
                cladding; its width is the design's, not a process value).
        """
        values = dict(film_thickness=ridge.film_thickness, etch_depth=ridge.etch_depth,
                      sidewall_angle_deg=ridge.sidewall_angle_deg)
        for name, v in values.items():
            par = getattr(self, name)
            check_range(name, v, par.lo, par.hi, unit=par.unit)
        return replace(self, cladding=ridge.cladding, **{k: replace(getattr(self, k), nominal=float(v))
                                                         for k, v in values.items()})

    def with_spreads(self, **sigmas: float) -> Process:
        """A copy with some 1σ spreads replaced (e.g. measured ones)."""
        unknown = sorted(set(sigmas) - set(PARAMETERS))
        if unknown:
            raise ValueError(f"unknown process parameter(s) {unknown}; valid: {list(PARAMETERS)}")
        return replace(self, **{k: replace(getattr(self, k), sigma=float(v)) for k, v in sigmas.items()})


def load_process(path) -> Process:
    """Read a process description written by ``Process.to_dict`` (JSON); ValueError naming the file otherwise."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"process = {str(path)!r} is not a readable JSON process description: {e}") from None
    if not isinstance(data, dict) or data.get("schema") != "prismpic.process/1":
        raise ValueError(f"process = {str(path)!r}: expected a JSON object with schema 'prismpic.process/1'")
    params = data.get("parameters", {})
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"process = {str(path)!r}: unknown parameter(s) {unknown}; valid: {list(PARAMETERS)}")
    try:
        fields = {k: ProcessParameter(**v) for k, v in params.items()}
    except TypeError as e:
        raise ValueError(f"process = {str(path)!r}: {e}") from None
    return Process(**fields, cladding=data.get("cladding", CLADDING))


DEFAULT_PROCESS = Process()

WAFER_KEYS = ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding")


def apply(params: dict, values: dict, accepted=None) -> dict:
    """As-fabricated model parameters: ``params`` (drawn) with the process ``values`` applied.

    ``width`` → width + width_bias, ``gap``/``gap_drop`` → + gap_bias (a ``gap_drop`` of None stays None:
    it follows ``gap``), and the wafer parameters set. ``accepted`` (names the model takes, e.g.
    ``model_signature.model_settings(model)``) limits the wafer parameters to those the model has.
    """
    out = dict(params)
    wafer = {k: values[k] for k in WAFER_KEYS if k in values}
    if accepted is not None:
        wafer = {k: v for k, v in wafer.items() if k in accepted}
    out.update(wafer)
    if "width" in out and out["width"] is not None:
        out["width"] = out["width"] + values.get("width_bias", 0.0)
    for key in ("gap", "gap_drop"):
        if key in out and out[key] is not None:
            out[key] = out[key] + values.get("gap_bias", 0.0)
    return out
