"""Process (wafer) parameters of the models: the ridge's sidewall angle and the cladding (issue 10, items 1–2).

Every registered model that takes ridge geometry takes ``sidewall_angle_deg`` and ``cladding`` as it takes
``film_thickness`` and ``etch_depth``: by name, with the layer stack's defaults, as model-only arguments (the
mask has no wall angle). An unknown cladding or an angle outside the dispersion tables is a ValueError naming
the parameter; under ``jax.jit`` such an angle gives NaN, never a finite S-matrix (the dispersion model's jit
contract). The valid angles and claddings are read from the installed tables at run time, so these tests hold
for the vertical-wall tables and for sloped-wall ones alike.
"""

import importlib
import inspect
import pkgutil
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sax

import prismpic.circuits
import prismpic.components
from prismpic.components.model_signature import cell_defaults
from prismpic.components.registry import devices
from prismpic.pdk import dispersion, stack
from prismpic.pdk.ridge_stack import RidgeStack
from prismpic.testing import s_matrix

DEVICES = devices()
WALL = ("sidewall_angle_deg", "cladding")
PROCESS = sorted(n for n, d in DEVICES.items() if "etch_depth" in sax.get_settings(d.model))
MODELS = [n for i, n in enumerate(PROCESS)  # one device per model (wdm_mux runs wdm_demux's)
          if all(DEVICES[m].model is not DEVICES[n].model for m in PROCESS[:i])]
# public helpers with ridge geometry whose physics has no wall angle (or no cladding) in it: what they take
PARTIAL = {
    "prismpic.components.io.tip_mode_half_widths": (),  # SiO2-clad slab estimate of the facet mode
    "prismpic.components.io.edge_coupling_efficiency": (),  # from tip_mode_half_widths
    "prismpic.components.pcm.film_neff_with_layer": (),  # SiO2/LN/GSST/SiO2 slab
    "prismpic.components.pcm.pcm_confinement": (),  # SiO2-clad slab estimate of the patch overlap
    "prismpic.components.pcm.lateral_fraction": (),  # lateral effective-index slab
    "prismpic.components.rf_line.cpw_line": ("cladding",),  # quasi-static RF line: the cladding, not the ridge wall
}


def _angle_range(parts=("te", "tm", "bend", "coupler")) -> tuple[float, float]:
    """The widest angle range (°) of the installed tables (a value outside it is outside every table)."""
    dom = dispersion.domain()
    return min(dom[p]["angle"][0] for p in parts), max(dom[p]["angle"][1] for p in parts)


def _installed(cladding: str) -> bool:
    try:
        dispersion.neff(ridge=RidgeStack(cladding=cladding))
    except ValueError:
        return False
    return True


BAD_ANGLES = (_angle_range()[0] - 10.0, _angle_range()[1] + 5.0)
CLADDINGS = [c for c in stack.CLADDINGS if _installed(c)]


def _s(model, **kw):
    return np.asarray(s_matrix(model(**kw))[0])


def test_every_ridge_model_takes_the_process():
    """Each model with ``etch_depth`` takes both, with the stack's defaults, as model-only (not cell) arguments."""
    assert {"straight", "ring_add_drop", "directional_coupler", "mzm", "edge_coupler", "wdm_demux"} <= set(PROCESS)
    for name in PROCESS:
        dev = DEVICES[name]
        settings = sax.get_settings(dev.model)
        assert settings["sidewall_angle_deg"] == stack.SIDEWALL_ANGLE_DEG, name
        assert settings["cladding"] == stack.CLADDING, name
        assert set(WALL) <= set(dev.model_only), f"{name}: model_only {dev.model_only} lacks {WALL}"
        assert not set(WALL) & set(cell_defaults(dev.cell)), f"{name}: the cell takes a process parameter"


def test_every_public_ridge_helper_takes_the_process():
    """No public function of the components and circuits with ``etch_depth`` forgets the wall angle or cladding."""
    missing = {}
    for pkg in (prismpic.components, prismpic.circuits):
        for info in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for name, fn in vars(mod).items():
                if name.startswith("_") or not callable(fn) or getattr(fn, "__module__", None) != mod.__name__:
                    continue
                try:
                    params = inspect.signature(fn).parameters
                except (TypeError, ValueError):
                    continue
                if "etch_depth" not in params:
                    continue
                want = PARTIAL.get(f"{mod.__name__}.{name}", WALL)
                lacking = [k for k in want if k not in params]
                if lacking:
                    missing[f"{mod.__name__}.{name}"] = lacking
    assert not missing, missing


@pytest.mark.parametrize("name", MODELS)
def test_process_by_name(name):
    """The stack's values by name give the default model; another installed angle or cladding changes S."""
    model = DEVICES[name].model
    s0 = _s(model)
    np.testing.assert_array_equal(_s(model, sidewall_angle_deg=stack.SIDEWALL_ANGLE_DEG, cladding=stack.CLADDING), s0)
    lo, hi = _angle_range(("te", "bend", "coupler"))
    lo, hi = max(lo, dispersion.domain()["te"]["angle"][0]), min(hi, dispersion.domain()["te"]["angle"][1])
    if lo < hi:  # sloped-wall tables: the angle must reach the physics
        other = lo if stack.SIDEWALL_ANGLE_DEG - lo > hi - stack.SIDEWALL_ANGLE_DEG else hi
        assert np.max(np.abs(_s(model, sidewall_angle_deg=other) - s0)) > 1e-9, f"{name} ignores the wall angle"
    for clad in CLADDINGS:
        if clad != stack.CLADDING:
            assert np.max(np.abs(_s(model, cladding=clad) - s0)) > 1e-9, f"{name} ignores cladding = {clad!r}"


@pytest.mark.parametrize("name", MODELS)
def test_unknown_cladding(name):
    valid = re.escape(str(sorted(stack.CLADDINGS)))
    with pytest.raises(ValueError, match=rf"^cladding = 'oxide' is not one of {valid}"):
        DEVICES[name].model(cladding="oxide")


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("angle", BAD_ANGLES)
def test_angle_outside_the_tables(name, angle):
    """ValueError naming sidewall_angle_deg, its value and the valid range of one of the tables."""
    with pytest.raises(ValueError, match=r"sidewall_angle_deg") as err:
        DEVICES[name].model(sidewall_angle_deg=angle)
    m = re.search(r"sidewall_angle_deg = (\S+) ° is outside the valid range \[(\S+), (\S+)\] °", str(err.value))
    assert m, str(err.value)
    assert float(m.group(1)) == pytest.approx(angle)
    lo, hi = float(m.group(2)), float(m.group(3))  # printed with %g: 6 significant digits
    assert any(np.isclose(lo, a, rtol=1e-5) and np.isclose(hi, b, rtol=1e-5)
               for a, b in (d["angle"] for d in dispersion.domain().values())), (lo, hi)


@pytest.mark.parametrize("name", MODELS)
def test_jit_angle_outside_the_tables_is_nan(name):
    """Under jit (the angle traced: no check can raise) every entry the default S holds is NaN outside the tables,
    and the default angle gives the eager S."""
    model = DEVICES[name].model
    s0 = _s(model)
    f = jax.jit(lambda a: s_matrix(model(sidewall_angle_deg=a))[0])
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(stack.SIDEWALL_ANGLE_DEG))), s0, rtol=1e-9, atol=1e-12)
    used = np.abs(s0) > 0
    for angle in BAD_ANGLES:
        s_bad = np.asarray(f(jnp.asarray(angle)))
        assert np.all(np.isnan(s_bad[used])), f"{name}: finite S at sidewall_angle_deg = {angle} under jit"


def _circuit_calls():
    from prismpic.circuits import bank_layout, bank_model, ptu_model

    radii = (20.0,)
    return {
        "bank_model.ring_columns": lambda **kw: bank_model.ring_columns(1.55, radii, **kw),
        "bank_model.spacer_transmissions": lambda **kw: bank_model.spacer_transmissions(
            jnp.asarray([1.55]), 10.0, kw, jnp.asarray([20.0, 20.1])),
        "bank_model.bank_radii": lambda **kw: bank_model.bank_radii([1.55], **kw),
        "bank_layout.readout_paths": lambda **kw: bank_layout.readout_paths(1.55, (20.0, 20.1), **kw),
        "ptu_model.pcm_power_transmission": lambda **kw: ptu_model.pcm_power_transmission(1.55, 0.5, **kw),
    }


@pytest.mark.parametrize("call", sorted(_circuit_calls()))
def test_circuit_helpers_pass_the_process_on(call):
    """The circuits' fast models hand the wall angle and cladding to the device physics (not filtered away)."""
    fn = _circuit_calls()[call]
    with pytest.raises(ValueError, match=r"sidewall_angle_deg"):
        fn(sidewall_angle_deg=BAD_ANGLES[0])
    with pytest.raises(ValueError, match=r"^cladding"):
        fn(cladding="oxide")
