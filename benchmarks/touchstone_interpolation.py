"""How well Touchstone interpolants recover a model between its samples (the figures in
``prismpic.components.touchstone``'s docstring).

Run: python benchmarks/touchstone_interpolation.py

For three devices (ring_add_drop and ring_all_pass at their defaults, sampled at FWHM/5, /10 and /20 over ±4 FWHM
around a resonance; a 1 cm straight sampled every 5, 20 and 100 pm) it prints the largest |S − S_model| at 20
points per sampling step, for: prismpic's interpolant (real and imaginary parts after removing each entry's mean
delay, cubic spline), the same without the delay removal, and magnitude with unwrapped phase (PCHIP and cubic
spline each).
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import CubicSpline, PchipInterpolator

import prismpic  # noqa: F401  (float64)
from prismpic.components import rings, touchstone, waveguides


def interpolants(wl, y, q) -> dict[str, np.ndarray]:
    """Each interpolant of the samples ``y`` (n,) at ``wl`` evaluated at ``q``."""
    mag, phase = np.abs(y), np.unwrap(np.angle(y))
    coeffs, delay, nu0 = touchstone.interpolant(wl, y[:, None, None])
    return {
        "prismpic (RI, delay removed)": np.asarray(touchstone.delayed_spline(wl, coeffs, delay, nu0, q))[:, 0, 0],
        "RI spline": CubicSpline(wl, y)(q),
        "MA/phase PCHIP": PchipInterpolator(wl, mag)(q) * np.exp(1j * PchipInterpolator(wl, phase)(q)),
        "MA/phase spline": CubicSpline(wl, mag)(q) * np.exp(1j * CubicSpline(wl, phase)(q)),
    }


def report(name, model, wl, keys, **kwargs) -> None:
    q = np.linspace(wl[0], wl[-1], 20 * (wl.size - 1) + 1)
    s, ref = model(wl=wl, **kwargs), model(wl=q, **kwargs)
    worst: dict[str, float] = {}
    for k in keys:
        for label, got in interpolants(wl, np.asarray(s[k]), q).items():
            worst[label] = max(worst.get(label, 0.0), float(np.abs(got - np.asarray(ref[k])).max()))
    print(f"{name:42s} " + "  ".join(f"{label}: {v:.2e}" for label, v in worst.items()))


def main() -> None:
    for kind, model, keys in (("add_drop", rings.ring_add_drop_model, [("o1", "o2"), ("o1", "o4")]),
                              ("all_pass", rings.ring_all_pass_model, [("o1", "o2")])):
        spec = rings.ring_specs(1.55, kind)
        fwhm, res = spec["fwhm_nm"] * 1e-3, spec["resonance_um"]
        for per in (5, 10, 20):
            h = fwhm / per
            wl = np.arange(res - 4 * fwhm, res + 4 * fwhm + h / 2, h)
            report(f"ring_{kind} (FWHM {fwhm * 1e6:.0f} pm) step FWHM/{per}", model, wl, keys)
    for step_pm in (5, 20, 100):
        wl = np.arange(1.54, 1.56 + 1e-9, step_pm * 1e-6)
        report(f"straight 1 cm, step {step_pm} pm", waveguides.straight_model, wl, [("o1", "o2")], length=1e4)


if __name__ == "__main__":
    main()
