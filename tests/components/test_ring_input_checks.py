"""``ring_checks.check_ring_inputs`` (the ring models' checks without their physics) against the models themselves.

The callers that check before compiled ring code (``rings.ring_specs``, the bank's domain checks) now run the
checks alone instead of the whole model eagerly, so the checks must refuse exactly what the models refuse. The
reference is the model run eagerly on the same values; inputs are drawn across and beyond every range the
dispersion tables, the design rules and the electrode fit allow.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prismpic  # noqa: F401  (float64)
from prismpic.components import rings
from prismpic.components.ring_checks import check_ring_inputs


def _refusal(call) -> str | None:
    """The parameter a ValueError names (its text before " = "), or None when the call passes."""
    try:
        call()
    except ValueError as e:
        return str(e).split(" = ")[0]
    return None


def _model_refusal(kind: str, wl, p: dict) -> str | None:
    model = rings.ring_add_drop_model if kind == "add_drop" else rings.ring_all_pass_model
    args = {k: v for k, v in p.items() if not (kind == "all_pass" and k == "gap_drop")}
    return _refusal(lambda: model(wl=wl, **args))


def _both(kind: str, wl, changes: dict) -> tuple[str | None, str | None]:
    p = rings.ring_params(kind, changes)
    return _model_refusal(kind, wl, p), _refusal(lambda: check_ring_inputs(wl, p))


def _around(lo, hi, margin=0.25):
    """Floats across [lo, hi] and a quarter of its span beyond each end, ends included."""
    span = hi - lo
    return st.one_of(st.sampled_from([lo, hi]), st.floats(lo - margin * span, hi + margin * span))


CASES = [  # one value at a time beyond a range the ring's physics meets (tables, rules, electrode fit)
    ("add_drop", 1.40, {}), ("add_drop", np.array([1.5, 1.7]), {}), ("add_drop", 1.55, {"radius": 9.0}),
    ("add_drop", 1.55, {"gap": 0.12}), ("add_drop", 1.55, {"gap": 0.05}), ("add_drop", 1.55, {"gap_drop": 0.09}),
    ("add_drop", 1.55, {"width": 0.7}), ("add_drop", 1.55, {"width": 2.1}), ("add_drop", 1.55, {"width": 2.4}),
    ("add_drop", 1.55, {"film_thickness": 0.35}), ("add_drop", 1.55, {"film_thickness": 0.9}),
    ("add_drop", 1.55, {"etch_depth": 0.15}), ("add_drop", 1.55, {"etch_depth": 0.55}),
    ("add_drop", 1.55, {"sidewall_angle_deg": 55.0}), ("add_drop", 1.55, {"cladding": "air", "electrode_height": 1.0}),
    ("add_drop", 1.55, {"electrode_gap": 1.0}), ("add_drop", 1.55, {"loss_db_per_cm": -1.0}),
    ("add_drop", 1.55, {"radius": 10.0, "etch_depth": 0.2, "film_thickness": 0.4}),
    ("add_drop", 1.55, {"film_thickness": 0.35, "etch_depth": 0.2}),  # inside the straight table, not the coupler's
    ("add_drop", 1.55, {"etch_depth": 0.27}),  # an etch fraction inside the coupler table, not the bend table's
    ("all_pass", 1.66, {}), ("all_pass", 1.55, {"gap": 2.5}), ("all_pass", 1.55, {"cladding": "air", "radius": 10.0}),
]


@pytest.mark.parametrize(("kind", "wl", "changes"), CASES)
def test_checks_refuse_what_the_model_refuses(kind, wl, changes):
    model, checks = _both(kind, wl, changes)
    assert checks == model, (changes, model, checks)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["add_drop", "all_pass"]),
    wl=_around(1.45, 1.65, 0.1),
    radius=_around(10.0, 40.0),
    gap=_around(0.15, 1.0),
    gap_drop=st.one_of(st.none(), _around(0.15, 1.0)),
    width=_around(0.8, 2.2),
    film=_around(0.4, 0.8),
    etch_fraction=_around(0.4, 0.8),
    angle=_around(60.0, 90.0),
    cladding=st.sampled_from(["sio2", "air"]),
)
def test_checks_and_model_agree_on_random_rings(kind, wl, radius, gap, gap_drop, width, film, etch_fraction, angle,
                                                cladding):
    changes = {"radius": radius, "gap": gap, "width": width, "film_thickness": film, "etch_depth": etch_fraction * film,
               "sidewall_angle_deg": angle, "cladding": cladding}
    if kind == "add_drop":
        changes["gap_drop"] = gap_drop
    model, checks = _both(kind, wl, changes)
    assert checks == model, (kind, wl, changes, model, checks)
