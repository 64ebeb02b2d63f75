"""``RidgeStack`` and ``RingDesign``: the geometry values the physics takes (pytrees: traced, differentiated)."""

import jax
import jax.numpy as jnp
import pytest

from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.pdk.ridge_stack import RidgeStack


def test_gradient_through_the_design_equals_finite_differences():
    """jax.grad with respect to the whole design (a pytree) gives ∂θ/∂width, ∂θ/∂etch and ∂a/∂loss as central
    differences of the same function do."""
    wl = 1.551
    design = RingDesign(radius=20.0, ridge=RidgeStack(width=1.3))

    def theta(d):
        return ring_physics.ring_round_trip(wl, d, 2.0, 1.0)[1]

    grad = jax.jit(jax.grad(theta))(design)

    def central(field, h, sub=None):
        def at(x):
            d = (design.replace(ridge=design.ridge.replace(**{field: x})) if sub
                 else design.replace(**{field: x}))
            return float(theta(d))

        x0 = getattr(design.ridge if sub else design, field)
        return (at(x0 + h) - at(x0 - h)) / (2 * h)

    assert float(grad.ridge.width) == pytest.approx(central("width", 1e-4, "ridge"), rel=1e-5)
    assert float(grad.ridge.etch_depth) == pytest.approx(central("etch_depth", 1e-5, "ridge"), rel=1e-5)
    assert float(grad.radius) == pytest.approx(central("radius", 1e-5), rel=1e-6)
    assert float(grad.gap) == pytest.approx(central("gap", 1e-5), rel=1e-4)  # via the plate layout


def test_from_params_takes_a_models_keywords_and_the_model_agrees():
    """A ring model's keywords name the design (call and layout keywords left to the caller); the model on those
    keywords and the physics on the design give the same round trip."""
    kw = dict(radius=21.0, gap=0.25, width=1.2, film_thickness=0.62, cladding="air", voltage_v=3.0,
              bus_length=60.0, electrode_width=8.0)
    d = RingDesign.from_params(kw)
    assert (d.radius, d.gap, d.ridge.width, d.ridge.film_thickness, d.ridge.cladding) == (21.0, 0.25, 1.2, 0.62, "air")
    assert d.ridge.etch_depth == RidgeStack().etch_depth and d.gap_drop is None and d.drop_gap == 0.25
    s = rings.ring_all_pass_model(wl=1.55, **{k: v for k, v in kw.items() if k != "gap_drop"})
    t1, k1, _, _ = ring_physics.coupler_fields(1.55, d)
    a, th = ring_physics.ring_round_trip(1.55, d, 3.0)
    bus = ring_physics.bus_transmission(1.55, 60.0, d.ridge, d.loss_db_per_cm)
    e = a * jnp.exp(1j * th)
    assert complex(s["o1", "o2"]) == pytest.approx(complex(bus * (t1 - (t1**2 + k1**2) * e) / (1 - t1 * e)),
                                                   rel=1e-12)


def test_fields_are_keywords_only_and_checked_by_name():
    with pytest.raises(TypeError):
        RidgeStack(1.4, 0.6, 0.35)  # a swapped order would be silent: positions are refused
    with pytest.raises(ValueError, match="etch_depth"):
        RidgeStack(film_thickness=0.6, etch_depth=0.7).check()
    with pytest.raises(ValueError, match="cladding"):
        RidgeStack(cladding="water").check()
    assert RidgeStack().check().slab == pytest.approx(RidgeStack().film_thickness - RidgeStack().etch_depth)
