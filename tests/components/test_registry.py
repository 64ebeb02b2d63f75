"""Every registered device through the test kit; every cell built, DRC-checked, matched to its model."""

import pytest
import sax

import prismpic
from prismpic.components.registry import devices
from prismpic.pdk import drc
from prismpic.testing import check_cell_matches_model, check_gradients, check_model

DEVICES = devices()
CASES = [(name, i) for name, d in DEVICES.items() for i in range(len(d.extremes) + 1)]


def _params(dev, i):
    return {} if i == 0 else dict(dev.extremes[i - 1])


def _model_params(dev, params):
    keys = sax.get_settings(dev.model)
    return {k: v for k, v in params.items() if k in keys}


@pytest.mark.parametrize("name, i", CASES, ids=[f"{n}-{'defaults' if i == 0 else f'extreme{i}'}" for n, i in CASES])
def test_model_kit(name, i):
    dev = DEVICES[name]
    check_model(dev.model, passive=dev.passive, reciprocal=dev.reciprocal, **_model_params(dev, _params(dev, i)))


@pytest.mark.parametrize("name", [n for n, d in DEVICES.items() if d.grad_params])
def test_model_gradients(name):
    """The registry's gradient parameters and, where the model has it, the wall angle at its nominal value (the
    process corners' gradient check, ``test_process_corners``: the angle is a differentiable input, as calibration
    needs it to be), in one compiled reverse pass against central differences."""
    dev = DEVICES[name]
    defaults = sax.get_settings(dev.model)
    values = dev.grad_params if isinstance(dev.grad_params, dict) else {p: defaults[p] for p in dev.grad_params}
    if "sidewall_angle_deg" in defaults:
        values = {**values, "sidewall_angle_deg": defaults["sidewall_angle_deg"]}
    for p, value in values.items():
        assert isinstance(value, float | int), f"{name}.{p} needs a numeric default for the gradient check"
    check_gradients(dev.model, {p: float(v) for p, v in values.items()})


@pytest.mark.parametrize("name, i", [c for c in CASES if DEVICES[c[0]].cell is not None], ids=lambda x: str(x))
def test_cell_builds_drc_clean_and_matches_model(name, i):
    dev = DEVICES[name]
    params = _params(dev, i)
    cell_params = {k: v for k, v in params.items() if k not in dev.model_only}
    comp = dev.cell(**cell_params)
    violations = drc(comp)
    assert violations == [], f"{name} {cell_params}: " + "; ".join(map(str, violations))
    check_cell_matches_model(dev.cell, dev.model, component=comp)


def test_pdk_registers_every_device():
    pdk = prismpic.get_pdk()
    for name, dev in DEVICES.items():
        assert pdk.models[name] is dev.model
        if dev.cell is not None:
            assert name in pdk.cells
