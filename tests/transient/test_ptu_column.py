"""A PTU column in time (S2-04): the eye of its analog sum against the closed-form recursion of one dominant pole,
and the column node's bandwidth against the RC of its photodiodes in parallel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from prismpic.analysis.transient import devices, ptu_column
from prismpic.components import detectors
from prismpic.components.model_signature import cell_defaults


def test_eye_of_a_dominant_tia_pole_is_the_first_order_recursion():
    """With every block fast but the TIA (τ = 318 ps against 200 ps symbols), the sum sampled at each symbol's end
    follows y_n = s_n + (y_{n−1} − s_n) e^{−T/τ} (exact for a first-order pole and a held input); the opening is
    1 − 2 max |y_n − s_n| / span. The other blocks (≈ 2–4 ps) delay it slightly: 5 % on the error."""
    rate, n, f_tia = 5e9, 256, 0.5
    eye = ptu_column.column_eye(rate, rows=1, n_symbols=n, tia_bandwidth_ghz=f_tia, dac_rise_ps=1e-2)
    rng = np.random.default_rng(0)
    x = np.asarray(devices.quantize(rng.uniform(0.0, 1.0, (1, n)), 6))
    s = rng.uniform(0.0, 1.0, 1) @ x
    a = math.exp(-(1e12 / rate) / (1e3 / (2 * math.pi * f_tia)))
    y = np.empty(n)
    y[0] = s[0]
    for k in range(1, n):
        y[k] = s[k] + (y[k - 1] - s[k]) * a
    err = np.max(np.abs(y - s)[2:n - 3])
    assert 1 - eye.eye_opening == pytest.approx(2 * err / (s.max() - s.min()), rel=0.05)


def test_more_rows_on_the_wire_slow_the_column_and_close_the_eye():
    """n photodiodes in parallel: f_RC = 1/(2π (R_L + R_s/n)(n C_j + C_pad)), transit f_t = 0.45 v_sat/d unchanged,
    1/f² = 1/f_RC² + 1/f_t² (Kato 1999)."""
    d_um = cell_defaults(detectors.photodetector)["intrinsic_width"]
    c_j, c_pad = float(detectors.junction_capacitance_f()), float(detectors.pad_capacitance_f())
    f_rc = 1 / (2 * math.pi * (detectors.LOAD_RESISTANCE_OHM + detectors.SERIES_RESISTANCE_OHM / 128)
                * (128 * c_j + c_pad))
    f_t = 0.45 * detectors.V_SAT_GE_M_PER_S / (d_um * 1e-6)
    many = float(detectors.detector_bandwidth_ghz(n_diodes=128))
    assert many == pytest.approx(1e-9 / math.sqrt(1 / f_rc**2 + 1 / f_t**2), rel=1e-9)
    assert many < float(detectors.detector_bandwidth_ghz())
    wide, narrow = (ptu_column.column_eye(rows=r, n_symbols=128) for r in (1, 128))
    assert narrow.eye_opening < wide.eye_opening
    assert narrow.column_bandwidth_ghz == pytest.approx(many)


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="swing_v"):
        ptu_column.column_eye(swing_v=0.0)
    with pytest.raises(ValueError, match="tia_bandwidth_ghz"):
        ptu_column.column_eye(tia_bandwidth_ghz=-1.0)
    with pytest.raises(ValueError, match="rows"):
        ptu_column.column_eye(rows=0)
