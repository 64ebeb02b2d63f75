"""Sidewall scattering (Payne–Lacey) and the loss from physics: the closed form against its radiation integral,
its scaling laws, jit and gradients, the calibration and bad input."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from prismpic.components import ring_physics
from prismpic.components.rings import ring_specs
from prismpic.pdk import scattering as sc
from prismpic.pdk.ridge_stack import DEFAULT, RidgeStack


def volume_current_loss(wl, n1, n2, d, sigma, lc):
    """Power loss (1/µm) of a symmetric slab's TE0 mode from both walls, by the volume-current radiation integral
    (Payne & Lacey 1994, eq. before the closed form; Marcuse): per wall φ²(d)(n1² − n2²)² k0³/(4π n1) ∫₀^π R̃ dθ,
    R̃(Ω) = 2σ² L_c/(1 + L_c² Ω²), with the mode solved and normalised numerically here."""
    k0 = 2 * math.pi / wl
    v = k0 * d * math.sqrt(n1**2 - n2**2)
    u = brentq(lambda u: math.tan(u) - math.sqrt(v**2 - u**2) / u, 1e-9, min(v, math.pi / 2) - 1e-12)
    w = math.sqrt(v**2 - u**2)
    beta = math.sqrt((n1 * k0) ** 2 - (u / d) ** 2)
    inside = quad(lambda x: math.cos(u * x / d) ** 2, -d, d)[0]
    outside = 2 * quad(lambda x: math.cos(u) ** 2 * math.exp(-2 * w * (x - d) / d), d, np.inf)[0]
    phi2 = math.cos(u) ** 2 / (inside + outside)
    spectrum = quad(lambda t: 2 * sigma**2 * lc / (1 + lc**2 * (beta - n2 * k0 * math.cos(t)) ** 2), 0, math.pi,
                    limit=200)[0]
    return 2 * phi2 * (n1**2 - n2**2) ** 2 * k0**3 / (4 * math.pi * n1) * spectrum


@pytest.mark.parametrize(("n1", "n2", "d", "lc"), [(1.97, 1.72, 0.74, 0.05), (2.0, 1.44, 0.5, 0.02),
                                                   (1.9, 1.85, 1.5, 0.1), (3.48, 1.44, 0.25, 0.05)])
def test_closed_form_is_the_radiation_integral(n1, n2, d, lc):
    sigma = 0.004
    closed = float(sc.payne_lacey_per_um(1.55, n1, n2, d, sigma, lc))
    assert closed == pytest.approx(volume_current_loss(1.55, n1, n2, d, sigma, lc), rel=1e-6)


def test_silicon_wire_magnitude_matches_the_volume_current_integral_in_db():
    """A 0.5 µm Si wire (effective slab 3.48/1.44) with σ = 9 nm, L_c = 50 nm loses tens of dB/cm: the order of the
    strip losses that made sidewall scattering the known limit of Si wires (Lee et al., APL 77, 1617 (2000))."""
    db = 10 / math.log(10) * 1e4 * float(sc.payne_lacey_per_um(1.55, 3.48, 1.44, 0.25, 0.009, 0.05))
    assert 10 < db < 100


def test_loss_scales_as_sigma_squared_and_white_roughness_as_correlation_length():
    a = [float(sc.payne_lacey_per_um(1.55, 1.97, 1.72, 0.74, s, 0.05)) for s in (0.002, 0.004)]
    assert a[1] / a[0] == pytest.approx(4.0, rel=1e-12)
    short = [float(sc.payne_lacey_per_um(1.55, 1.97, 1.72, 0.74, 0.004, lc)) for lc in (1e-4, 2e-4)]
    assert short[1] / short[0] == pytest.approx(2.0, rel=1e-3)  # L_c → 0: R̃ flat, α ∝ σ² L_c


def test_wider_and_lower_contrast_ribs_scatter_less():
    loss = [float(sc.sidewall_scattering_db_per_cm(1.55, DEFAULT.replace(width=w))) for w in (0.9, 1.4, 2.0)]
    assert loss[0] > loss[1] > loss[2]
    air = float(sc.sidewall_scattering_db_per_cm(1.55, DEFAULT.replace(cladding="air")))
    assert air > loss[1]  # the air-clad film's TE0 index rises less than the slab's: larger lateral step
    deeper = float(sc.sidewall_scattering_db_per_cm(1.55, DEFAULT.replace(etch_depth=0.45)))
    assert deeper > loss[1]


def test_calibration_reproduces_the_foundry_loss_and_its_spread():
    assert float(sc.straight_loss_db_per_cm(sc.CALIBRATION_WL, sc.CALIBRATION_RIDGE)) == pytest.approx(0.2, rel=1e-9)
    spread = sc.roughness_spread()
    lo, hi = (float(sc.straight_loss_db_per_cm(1.55, sc.CALIBRATION_RIDGE, spread[k]))
              for k in ("smoothest published", "roughest published"))
    assert (lo, hi) == pytest.approx(sc.SIGMA_RANGE_LOSSES, rel=1e-9)
    assert 1.0 < sc.calibrated_sigma_nm() < 10.0  # nm: the few-nm walls of dry-etched LN


def test_jit_and_gradients_against_finite_differences():
    def loss(width, etch, sigma):
        ridge = RidgeStack(width=width, film_thickness=0.6, etch_depth=etch, sidewall_angle_deg=76.5)
        return sc.straight_loss_db_per_cm(1.55, ridge, sc.Roughness(sigma_nm=sigma))

    x = (1.4, 0.35, 4.0)
    value = float(jax.jit(loss)(*x))
    assert value == pytest.approx(float(loss(*x)), rel=1e-12)
    grads = jax.grad(loss, argnums=(0, 1, 2))(*x)
    for i, g in enumerate(grads):
        h = 1e-5
        up, dn = list(x), list(x)
        up[i] += h
        dn[i] -= h
        assert float(g) == pytest.approx((float(loss(*up)) - float(loss(*dn))) / (2 * h), rel=1e-5)


def test_ring_model_with_loss_from_physics():
    """``loss_db_per_cm=None``: the ring's round trip carries absorption + scattering (+ bend) from physics."""
    rt = float(ring_physics.round_trip_loss_db(1.55, 20.0, DEFAULT, None))
    per_cm = sc.MATERIAL_ABSORPTION_DB_PER_CM + float(sc.ring_scattering_db_per_cm(1.55, DEFAULT))
    bend = float(ring_physics.dispersion.bend_loss_db_per_cm(1.55, 20.0, DEFAULT))
    assert rt == pytest.approx((per_cm + bend) * 2 * math.pi * 20.0 * 1e-4, rel=1e-5)  # the interpolant: 1.7e-6
    typed, physical = ring_specs(loss_db_per_cm=0.2), ring_specs()  # physics is the default
    assert physical["q_intrinsic"] > typed["q_intrinsic"]  # 0.14 dB/cm of scattering is below the typed 0.2
    assert ring_specs(loss_db_per_cm=None) == physical


def test_straight_and_bend_models_with_loss_from_physics():
    """``loss_db_per_cm=None`` on the waveguide models: a straight along crystal y (field along z) loses the z-axis
    rate; a quarter circle mixes the two axes' rates over its turn (cos² and sin² average to ½ over 90°)."""
    from prismpic.components.waveguides import bend_circular_model, straight_model

    s = straight_model(wl=1.55, length=1e4, loss_db_per_cm=None)
    lost = -20 * math.log10(abs(complex(s["o1", "o2"])))
    assert lost == pytest.approx(float(sc.straight_loss_db_per_cm(1.55, DEFAULT, None, "z")), rel=1e-4)
    radius = 100.0  # bend radiation ≪ scattering here
    b = bend_circular_model(wl=1.55, radius=radius, angle=90.0, loss_db_per_cm=None)
    bend = float(ring_physics.dispersion.bend_loss_db_per_cm(1.55, radius, DEFAULT))
    per_cm = sc.MATERIAL_ABSORPTION_DB_PER_CM + float(sc.ring_scattering_db_per_cm(1.55, DEFAULT)) + bend
    arc_cm = math.pi / 2 * radius * 1e-4
    assert -20 * math.log10(abs(complex(b["o1", "o2"]))) == pytest.approx(per_cm * arc_cm, rel=1e-3)


@pytest.mark.parametrize(("kwargs", "name"), [({"sigma_nm": 50.0}, "sigma_nm"), ({"sigma_nm": -1.0}, "sigma_nm"),
                                              ({"sigma_nm": 3.0, "correlation_nm": 1.0}, "correlation_nm")])
def test_roughness_outside_its_range_is_a_clear_error(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sc.Roughness(**kwargs)


def random_ridges(n, seed):
    """(wl, RidgeStack) at n random points of the mode tables' TE domain, both claddings."""
    from prismpic.pdk import dispersion

    d = dispersion.domain()["te"]
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        u = {k: rng.uniform(*v) for k, v in d.items()}
        out.append((u["wl"], RidgeStack(width=u["width"], film_thickness=u["film"],
                                        etch_depth=u["etch_fraction"] * u["film"], sidewall_angle_deg=u["angle"],
                                        cladding=("sio2", "air")[i % 2])))
    return out


def test_the_models_default_loss_is_the_closed_form_over_the_domain():
    """The models' default (``loss_db_per_cm`` None) reads an interpolant of the closed form at the default
    roughness: within 0.2 % (SiO2) and 1 % (air, near the slab's cut-off) of the closed form at 60 random points
    of the whole TE domain, both crystal axes; and its gradient in the geometry equals a central difference of the
    closed form (within 2 %)."""
    worst = {"sio2": 0.0, "air": 0.0}
    for wl, ridge in random_ridges(60, 7):
        for direction, axis in ((0.0, "z"), (math.pi / 2, "y")):
            closed = float(sc.straight_loss_db_per_cm(wl, ridge, None, axis))
            fit = float(sc.propagation_loss_db_per_cm(wl, ridge, None, direction))
            worst[ridge.cladding] = max(worst[ridge.cladding], abs(fit / closed - 1))
    assert worst["sio2"] < 2e-3 and worst["air"] < 1e-2, worst

    def fit(w, e):
        return sc.propagation_loss_db_per_cm(1.55, DEFAULT.replace(width=w, etch_depth=e), None)

    def closed(x):
        return float(sc.straight_loss_db_per_cm(1.55, DEFAULT.replace(width=float(x[0]), etch_depth=float(x[1]))))

    grad = jax.jit(jax.grad(fit, argnums=(0, 1)))(1.2, 0.33)
    x = np.array([1.2, 0.33])
    for i, step in enumerate(np.diag([1e-4, 1e-5])):  # central differences of the closed form
        assert float(grad[i]) == pytest.approx((closed(x + step) - closed(x - step)) / (2 * step[i]), rel=2e-2)


def test_a_typed_loss_overrides_physics_in_every_waveguide_model():
    """``loss_db_per_cm`` given is used as typed (straight, phase shifter, EAM ridge), None or absent is physics."""
    from prismpic.components import eam, modulators
    from prismpic.components.waveguides import straight_model

    for model, kw in ((straight_model, {"length": 1e4}), (modulators.phase_shifter_model, {"length": 1e4}),
                      (eam.eam_model, {"insertion_loss_db": 0.0, "absorber_length": 1.0, "taper_length": 1.0})):
        def lost(loss, model=model, kw=kw):
            return -20 * math.log10(abs(complex(model(1.55, loss_db_per_cm=loss, **kw)["o1", "o2"])))
        assert lost(None) == pytest.approx(-20 * math.log10(abs(complex(model(1.55, **kw)["o1", "o2"]))), rel=1e-12)
        assert lost(1.0) > lost(None) > lost(0.0)
