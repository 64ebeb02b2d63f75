"""Regression snapshots, as the foundry PDKs keep them (docs/REGRESSIONS.md): for every registered cell its geometry
(per layer: polygon count, area, bounding box and a SHA-256 of the merged polygons) and ports, and its settings; for
every registered model its S-parameters at a few wavelengths.

The references live in tests/test_regressions/ (pytest-regressions' data folder for this module). A change to the
physics (dispersion tables, default sidewall angle, ...) or to a layout fails these tests with a diff; after review,
``pytest tests/test_regressions.py --force-regen`` rewrites the references that differ (those tests fail once, as
pytest-regressions reports a regeneration; the next run passes).

These tests do not check that the values are right (the physics tests do): they check that they did not move.
"""

from functools import cache

import jax.numpy as jnp
import klayout.db as kdb
import numpy as np
import pytest

from prismpic.components.touchstone import FILE_MODELS
from prismpic.fileio import jsonable
from prismpic.pdk.layers import LAYER
from prismpic.pdk_registry import cells as registered_cells
from prismpic.pdk_registry import models as registered_models

# Cells built at their defaults, except the large circuits, built small (the layout code is the same at any size).
SMALL = {"ptu": {"rows": 2, "cols": 2, "n_wavelengths": 2}}
WAVELENGTHS_UM = (1.50, 1.53, 1.55, 1.57, 1.60)  # C band and its edges, inside the dispersion tables (1.45–1.65 µm)
# S-parameter tolerance: far below any physical change (a 1e-6 change of n_eff moves a 20 µm ring's round-trip phase
# by 2π·2π·20·1e-6/1.55 ≈ 5e-4 rad), far above float64 rounding of the same computation (~1e-13).
TOLERANCE = {"atol": 1e-8, "rtol": 1e-6}
LAYER_NAMES = {(layer.layer, layer.datatype): layer.name for layer in LAYER}

CELL_NAMES = sorted(registered_cells())
# file models (``touchstone``: S-parameters read from the file its settings name) snapshot a file, not prismpic
MODEL_NAMES = sorted(set(registered_models()) - set(FILE_MODELS))


@cache
def built(name: str):
    return registered_cells()[name](**SMALL.get(name, {}))


SETTINGS_DIGITS = 12  # significant digits of a float in a settings snapshot: computed values (a ring's radius
# solved for its resonance) differ between CPUs in the 15th digit (XLA's and the BLAS's instruction choice)


def _rounded(x):
    if isinstance(x, float):
        return float(f"{x:.{SETTINGS_DIGITS}g}")
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


def plain(x):
    """``x`` as plain YAML-able types (lists, floats to ``SETTINGS_DIGITS`` significant digits, ints, strings,
    None)."""
    import json

    return _rounded(json.loads(json.dumps(jsonable(x))))


def geometry(component) -> dict:
    """Per layer (merged, flattened): polygon count, area (µm²), bounding box (database units, nm) and the SHA-256
    of the sorted polygons in database units; texts likewise; ports with their centres and widths in nm."""
    import hashlib

    layout = component.kcl.layout
    dbu = layout.dbu
    layers = {}
    for index in layout.layer_indexes():
        info = layout.get_info(index)
        shapes = component.kdb_cell.begin_shapes_rec(index)
        region = kdb.Region(shapes).merged()
        texts = sorted(str(t) for t in kdb.Texts(component.kdb_cell.begin_shapes_rec(index)).each())
        if region.is_empty() and not texts:
            continue
        polygons = sorted(str(p) for p in region.each())
        box = region.bbox()
        entry = {"polygons": len(polygons), "area_um2": round(region.area() * dbu**2, 6),
                 "bbox_nm": [box.left, box.bottom, box.right, box.top],
                 "sha256": hashlib.sha256("\n".join(polygons).encode()).hexdigest()}
        if texts:
            entry["texts"] = len(texts)
            entry["texts_sha256"] = hashlib.sha256("\n".join(texts).encode()).hexdigest()
        key = (info.layer, info.datatype)
        layers[f"{LAYER_NAMES.get(key, 'UNKNOWN')} {info.layer}/{info.datatype}"] = entry
    ports = [{"name": p.name, "type": p.port_type, "center_nm": [round(x / dbu) for x in p.dcenter],
              "orientation": float(p.orientation), "width_nm": round(p.dwidth / dbu),
              "layer": f"{p.layer_info.layer}/{p.layer_info.datatype}"} for p in component.ports]
    return {"layers": layers, "ports": ports}


@pytest.mark.parametrize("name", CELL_NAMES)
def test_cell_geometry(name, data_regression):
    data_regression.check(geometry(built(name)), basename=f"gds_{name}")


@pytest.mark.parametrize("name", CELL_NAMES)
def test_cell_settings(name, data_regression):
    c = built(name)
    data_regression.check(plain({"function": c.function_name, "settings": c.settings.model_dump(),
                                 "info": c.info.model_dump()}), basename=f"settings_{name}")


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_s_parameters(name, num_regression):
    wl = np.asarray(WAVELENGTHS_UM)
    sdict = registered_models()[name](wl=jnp.asarray(wl))
    data = {"wl_um": wl}
    for a, b in sorted(sdict):
        s = np.broadcast_to(np.asarray(sdict[(a, b)], dtype=complex), wl.shape)
        data[f"re_{a}_{b}"], data[f"im_{a}_{b}"] = s.real.copy(), s.imag.copy()
    num_regression.check(data, basename=f"sparams_{name}", default_tolerance=TOLERANCE)


def test_every_registered_cell_and_model_has_a_reference():
    """Stale or missing references: one file per registered cell (geometry, settings) and model, and no others."""
    from pathlib import Path

    folder = Path(__file__).with_suffix("")
    found = {p.name for p in folder.iterdir()}
    expected = ({f"gds_{n}.yml" for n in CELL_NAMES} | {f"settings_{n}.yml" for n in CELL_NAMES}
                | {f"sparams_{n}.csv" for n in MODEL_NAMES})
    assert found == expected, {"missing": sorted(expected - found), "stale": sorted(found - expected)}
