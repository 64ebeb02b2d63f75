"""Every ridge model through the test kit at the process corners (issue 10, acceptance).

The corners are the process description's own (``prismpic.pdk.process.DEFAULT_PROCESS``): nominal and ±3σ in
film thickness, etch depth, sidewall angle, width bias and gap bias, applied to the model's drawn defaults by
``process.apply`` (width + bias, gap + bias, the wafer parameters set); plus the table's extreme wall angles
(60° and vertical) and the air cladding. At each: band sweep (finite S), passive, reciprocal. The jit check runs at
the sloped −3σ wall on the model kit's 1001-point band (``test_registry``: the same traced program, so the
compilation cache serves it). The gradient with respect to the wall angle at the nominal process (the model's
defaults) is part of ``test_registry.test_model_gradients``, in the same compiled reverse pass as the others.
"""

import pytest
import sax

from prismpic.components.registry import devices
from prismpic.pdk import dispersion, process
from prismpic.testing import band, check_jit, check_s

DEVICES = devices()
PROCESS = sorted(n for n, d in DEVICES.items() if "etch_depth" in sax.get_settings(d.model))
MODELS = [n for i, n in enumerate(PROCESS) if all(DEVICES[m].model is not DEVICES[n].model for m in PROCESS[:i])]
ANGLES = dispersion.domain()["te"]["angle"]
CASES = {**process.DEFAULT_PROCESS.corners(),
         "wall-60": process.DEFAULT_PROCESS.nominal() | {"sidewall_angle_deg": ANGLES[0]},
         "wall-vertical": process.DEFAULT_PROCESS.nominal() | {"sidewall_angle_deg": ANGLES[1]},
         "air": process.DEFAULT_PROCESS.nominal() | {"cladding": "air"}}


def _at(name: str, values: dict) -> dict:
    model = DEVICES[name].model
    settings = sax.get_settings(model)
    drawn = {k: v for k, v in settings.items() if k in ("width", "gap", "gap_drop")}
    return process.apply(drawn, values, accepted=settings)


def test_corners_span_sloped_walls():
    angles = sorted({v["sidewall_angle_deg"] for v in CASES.values()})
    assert angles[0] == ANGLES[0] and angles[-1] == ANGLES[1] and len(angles) >= 4, angles


@pytest.mark.parametrize("name", MODELS)
def test_model_kit_over_the_process_corners(name):
    model, dev = DEVICES[name].model, DEVICES[name]
    at_jit = {}
    for corner, values in CASES.items():
        params = _at(name, values)
        n = 1001 if corner == "sidewall_angle_deg-3s" else 201
        try:
            s = check_s(model, n, passive=dev.passive, reciprocal=dev.reciprocal, **params)
        except AssertionError as e:
            raise AssertionError(f"{name} at corner {corner} ({params}): {e}") from None
        if corner == "sidewall_angle_deg-3s":
            at_jit = dict(eager=s, **params)
    check_jit(model, band(1001), **at_jit)
