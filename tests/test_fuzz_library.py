"""Fuzzing public library functions with random out-of-range arguments: each must raise ValueError naming the
parameter (never a ZeroDivisionError, "math domain error", a crash inside JAX, or a NaN result).

Targets: the dispersion model's entry points (every model goes through them), every registered device model (NaN,
infinite and, for lengths, widths, gaps, radii and thicknesses, negative values of each numeric parameter), the
circuits' fast bank models, and the checked helpers of sweeps, measurements and calibration. Budgets are multiples
of the hypothesis profile's ``max_examples`` (tests/conftest.py).
"""

import math
import re

import numpy as np
import pytest
import sax
from hypothesis import given, settings
from hypothesis import strategies as st

from prismpic.pdk import dispersion
from prismpic.pdk.ridge_stack import FIELDS, RidgeStack

N = settings.default.max_examples
POSITIVE_ENDINGS = ("length", "width", "gap", "radius", "size", "thickness", "length_m")
non_finite = st.sampled_from([math.nan, math.inf, -math.inf])


def raises_naming(fn, *names, **kwargs):
    """``fn(**kwargs)`` raises ValueError whose message holds one of ``names``; returns the message."""
    try:
        out = fn(**kwargs)
    except ValueError as e:
        msg = str(e)
        assert any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", msg) for n in names), (fn.__name__, kwargs, msg)
        return msg
    raise AssertionError(f"{fn.__name__}({kwargs}) returned {out!r} instead of raising ValueError")


def outside(lo, hi):
    """Floats outside [lo, hi] (by at least 1e-6 relative), NaN and ±inf."""
    lo_out, hi_out = lo - 1e-6 * max(abs(lo), 1.0), hi + 1e-6 * max(abs(hi), 1.0)
    below = st.floats(min(-1e9, 10 * lo_out), lo_out) if math.isfinite(lo) else st.nothing()
    above = st.floats(hi_out, max(1e9, 10 * hi_out)) if math.isfinite(hi) else st.nothing()
    return below | above | non_finite


# ---------------------------------------------------------------------------- dispersion
DISPERSION = {
    "neff": (dispersion.neff, "te", ("wl", "width", "film_thickness", "etch_depth", "sidewall_angle_deg", "radius")),
    "ng": (dispersion.ng, "te", ("wl", "width", "film_thickness", "etch_depth", "sidewall_angle_deg", "radius")),
    "eo_overlap": (dispersion.eo_overlap, "te", ("wl", "width", "film_thickness", "etch_depth", "sidewall_angle_deg")),
    "mode_area_um2": (dispersion.mode_area_um2, "te", ("wl", "width", "film_thickness", "etch_depth")),
    "coupling_per_um": (dispersion.coupling_per_um, "coupler", ("wl", "gap", "width", "film_thickness", "etch_depth")),
    "bend_loss_db_per_cm": (dispersion.bend_loss_db_per_cm, "bend", ("wl", "radius", "width", "film_thickness",
                                                                     "etch_depth")),
}
AXIS = {"wl": "wl", "width": "width", "film_thickness": "film", "sidewall_angle_deg": "angle", "gap": "gap"}


def with_ridge(kwargs: dict) -> dict:
    """``kwargs`` of a dispersion call with the ridge's (``RidgeStack`` fields) gathered into ``ridge``."""
    return {**{k: v for k, v in kwargs.items() if k not in FIELDS}, "ridge": RidgeStack.from_params(kwargs)}


@settings(max_examples=5 * N)
@given(data=st.data())
def test_fuzz_dispersion(data):
    name = data.draw(st.sampled_from(sorted(DISPERSION)))
    fn, table, params = DISPERSION[name]
    param = data.draw(st.sampled_from(params))
    dom = dispersion.domain()[table]
    if param in AXIS:
        lo, hi = dom[AXIS[param]]
        value = data.draw(outside(lo, hi))
        names = (param,)
    elif param == "etch_depth":  # the etched fraction of the 0.6 µm film outside its range, or ≤ 0
        f_lo, f_hi = dom["etch_fraction"]
        value = data.draw(st.floats(-1.0, 0.0) | st.floats(0.6 * f_hi * 1.01, 5.0) | st.floats(1e-6, 0.6 * f_lo * 0.99)
                          | non_finite)
        names = ("etch_depth",)
    else:  # radius: not positive, NaN, or below the smallest tabulated bend
        value = data.draw(st.floats(-1e6, 0.0) | st.floats(1e-3, 9.9) | st.just(math.nan) | st.just(-math.inf))
        names = ("radius",)
    if data.draw(st.booleans()):  # one bad element in an array of good ones: checked point by point
        good = {"wl": 1.55, "width": 1.4, "film_thickness": 0.6, "etch_depth": 0.35, "sidewall_angle_deg": 80.0,
                "radius": 20.0, "gap": 0.3}[param]
        arr = np.full(data.draw(st.integers(2, 6)), good)
        arr[data.draw(st.integers(0, arr.size - 1))] = value
        value = arr
    raises_naming(fn, *names, **with_ridge({param: value}))


@settings(max_examples=N)
@given(name=st.sampled_from(["neff", "ng", "mode_area_um2"]), opt=st.sampled_from(["polarization", "crystal_axis",
                                                                                  "cladding"]),
       value=st.text(max_size=6) | st.integers() | st.none())
def test_fuzz_dispersion_choices(name, opt, value):
    if value in ("te", "tm", "z", "y", "sio2", "air"):
        return
    raises_naming(DISPERSION[name][0], opt, **with_ridge({opt: value}))


# ---------------------------------------------------------------------------- device models
def _device_params():
    from prismpic.components.registry import devices

    out = []
    for name, dev in sorted(devices().items()):
        for k, v in sax.get_settings(dev.model).items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                out.append((name, k))
    return out


DEVICE_PARAMS = _device_params()
# model parameters with a finite physical range, refused beyond it (finite values accepted once gave a finite S,
# an OverflowError or NaN): (device, parameter) -> (lo, hi)
BOUNDED = {("mzm", "bias_phase_rad"): (-4 * math.pi, 4 * math.pi), ("eam", "absorber_confinement"): (0.0, 1.0),
           ("eam", "bandgap_wavelength_um"): (1.2, 1.7), ("soa", "current_density_ka_per_cm2"): (0.0, 20.0), ("y_splitter", "output_separation"): (1.6, 20001.6),
           ("directional_coupler", "dy"): (1.7, 20001.7)}


@settings(max_examples=5 * N)
@given(data=st.data())
def test_fuzz_device_models(data):
    """NaN or infinite values of any numeric parameter, negative lengths, widths, gaps, radii and thicknesses."""
    from prismpic.components.registry import devices

    name, param = data.draw(st.sampled_from(DEVICE_PARAMS))
    model = devices()[name].model
    if (name, param) in BOUNDED and data.draw(st.booleans()):  # finite but beyond the physics' range
        lo, hi = BOUNDED[name, param]
        value = data.draw(outside(lo, hi).filter(math.isfinite))
    elif param.endswith(POSITIVE_ENDINGS) and data.draw(st.booleans()):
        value = -data.draw(st.floats(1e-3, 1e4))
    else:
        value = data.draw(non_finite)
    raises_naming(model, param, **{param: value})


# ---------------------------------------------------------------------------- circuits: fast bank models
@settings(max_examples=2 * N)
@given(data=st.data())
def test_fuzz_bank_models(data):
    from prismpic.circuits import bank_model as bm
    from prismpic.pdk.rules import RULES

    wl = np.linspace(1.549, 1.551, 3)
    radii, volts = [20.0, 20.1], [0.0, 0.0]
    case = data.draw(st.sampled_from(["channels", "wl", "voltage", "radius", "plan"]))
    if case == "channels":
        bad = data.draw(outside(1.45, 1.65))
        raises_naming(bm.bank_radii, "channels_um", channels_um=[1.55, bad])
    elif case == "wl":
        bad = data.draw(outside(1.45, 1.65))
        fn = data.draw(st.sampled_from([bm.channel_fields, bm.bank_fields]))
        v = volts if fn is bm.channel_fields else [volts]
        raises_naming(fn, "wl", wl=np.r_[wl, bad], radii=radii, voltages=v)
    elif case == "voltage":
        vmax = RULES.max_electrode_voltage_v
        bad = data.draw(outside(-vmax, vmax))
        fn = data.draw(st.sampled_from([bm.channel_fields, bm.bank_fields]))
        v = [bad, 0.0] if fn is bm.channel_fields else [[bad, 0.0]]
        raises_naming(fn, "voltages", wl=wl, radii=radii, voltages=v)
    elif case == "radius":
        bad = data.draw(outside(10.0, 500.0))
        fn = data.draw(st.sampled_from([bm.channel_fields, bm.bank_fields]))
        v = volts if fn is bm.channel_fields else [volts]
        raises_naming(fn, "radius", "radii", wl=wl, radii=[20.0, bad], voltages=v)
    else:
        kw = data.draw(st.sampled_from([{"d": data.draw(st.integers(-100, 0))},
                                        {"spacing_nm": data.draw(outside(0.01, 100.0))},
                                        {"center_nm": data.draw(non_finite)}]))
        raises_naming(bm.channel_plan_um, *kw, **kw)


# ---------------------------------------------------------------------------- analysis helpers (sweeps, files, fits)
@settings(max_examples=2 * N)
@given(text=st.text(max_size=20), n=st.integers(10_000_001, 10**18))
def test_fuzz_parse_range(text, n):
    from prismpic.analysis import sweep as sw

    try:
        vals = sw.parse_range(text, "--x")
    except ValueError as e:
        assert "--x = " in str(e)
    else:
        assert vals.ndim == 1 and vals.size >= 1 and np.all(np.isfinite(vals))
    raises_naming(sw.parse_range, "limit", text=f"0:1:{n}", name="--x")


@settings(max_examples=2 * N)
@given(data=st.data())
def test_fuzz_measurement_arrays(data):
    from prismpic.analysis import measurements as ms

    n = data.draw(st.integers(16, 40))
    wl = np.linspace(1545.0, 1555.0, n)
    i = data.draw(st.integers(0, n - 1))
    case = data.draw(st.sampled_from(["wl_value", "wl_order", "linear", "db"]))
    if case == "wl_value":
        wl[i] = data.draw(non_finite | st.floats(-1e3, 99.0))
        raises_naming(ms.check_wavelengths_nm, "wl_nm", wl=wl)
    elif case == "wl_order":
        j = data.draw(st.integers(0, n - 1).filter(lambda j: j != i))
        wl[i], wl[j] = wl[j], wl[i]
        raises_naming(ms.check_wavelengths_nm, "wl_nm", wl=wl)
    elif case == "linear":
        t = np.full(n, 0.5)
        t[i] = data.draw(non_finite | st.floats(-1e9, -0.021) | st.floats(1.51, 1e9))
        raises_naming(ms.linear_transmission, "through", values=t, name="through", db=False)
    else:
        t = np.full(n, -3.0)
        t[i] = data.draw(non_finite | st.floats(1.77, 1e9))
        raises_naming(ms.linear_transmission, "drop", values=t, name="drop", db=True)


@settings(max_examples=2 * N)
@given(data=st.data())
def test_fuzz_calibration_inputs(data):
    """Bad specs, levels and curves are refused before any fit, naming the argument."""
    from prismpic.analysis import calibration as cal

    case = data.draw(st.sampled_from(["specs", "pcm", "pcm_wl", "mzm"]))
    if case == "specs":
        arg, lo, hi = data.draw(st.sampled_from([("fsr_nm", 0.05, 200.0), ("q_loaded", 10.0, 1e9),
                                                 ("extinction_db", 0.0, 80.0)]))
        kw = {"fsr_nm": 8.2, "q_loaded": 1e4, "extinction_db": 10.0, "radius": 20.0}
        kw[arg] = data.draw(outside(lo, hi))
        raises_naming(cal.calibrate_ring_specs, arg, **kw)
    elif case == "pcm":
        t = [0.9, data.draw(non_finite | st.floats(-10.0, 0.0))]
        raises_naming(cal.calibrate_pcm, "transmission", transmission=t)
    elif case == "pcm_wl":
        raises_naming(cal.calibrate_pcm, "wl", transmission=[0.9], wl=data.draw(outside(1.5, 1.6)))
    else:
        v = np.linspace(-8, 8, 20)
        t = 0.5 + 0.4 * np.cos(v / 2)
        i = data.draw(st.integers(0, 19))
        if data.draw(st.booleans()):
            v[i] = data.draw(non_finite | st.floats(1e3, 1e9))
            names = ("voltage_v",)
        else:
            t[i] = data.draw(non_finite | st.floats(2.0, 1e9))
            names = ("transmission",)
        raises_naming(cal.calibrate_mzm, *names, voltage_v=v, transmission=t)


@settings(max_examples=N)
@given(name=st.text(min_size=1, max_size=10), suffix=st.sampled_from([".txt", "", ".json.bak", ".gds"]))
def test_fuzz_output_checks(tmp_path, name, suffix):
    """``fileio.check_output_file`` names the option for a wrong suffix and a missing parent (random names)."""
    from prismpic.fileio import check_output_file

    if "/" in name or "\x00" in name or name in (".", ".."):
        return
    raises_naming(check_output_file, "--out", path=tmp_path / (name + suffix), what="--out", suffixes=(".csv",))
    raises_naming(check_output_file, "--out", path=tmp_path / "missing" / (name + ".csv"), what="--out")


def test_device_params_cover_every_registered_model():
    from prismpic.components.registry import devices

    assert {n for n, _ in DEVICE_PARAMS} == {n for n, d in devices().items() if any(
        isinstance(v, int | float) and not isinstance(v, bool) for v in sax.get_settings(d.model).values())}


@pytest.mark.parametrize("fn,kwargs,names", [
    (dispersion.neff, {"wl": "1.55"}, ("wl",)),  # a string where a number belongs
    (dispersion.ng, {"width": [1.4, None]}, ("width",)),
])
def test_non_numeric_arguments(fn, kwargs, names):
    raises_naming(fn, *names, **with_ridge(kwargs))
