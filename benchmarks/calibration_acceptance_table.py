"""The recovered-versus-true table of the ring calibration's acceptance cases (issue 11), one row per case.

Run: python benchmarks/calibration_acceptance_table.py

The spectra are the acceptance tests' own (``tests/analysis/test_calibration_acceptance.py``: textbook Airy
rings, independent of prismpic's model, with the instrument of each case); every one is fitted by
``calibrate_ring_spectrum`` and printed against its closed-form truth, with the effective-index correction the
fit applied and the time per fit (the first one compiles).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))

import test_calibration_acceptance as acc  # noqa: E402

from prismpic.analysis import calibration as cal  # noqa: E402


def main() -> None:
    ng0, n00 = acc.nominal_indices()
    head = (f"{'case':<30}{'FSR nm fit/true':>18}{'Q_L fit/true':>17}{'ER dB fit/true':>16}{'λ_r err pm':>11}"
            f"{'n_g fit/true':>16}{'Δn_g':>9}{'χ²_red':>8}{'s':>6}")
    print(head)
    for case, (kind, scale, q, regime, er, share, inst) in acc.CASES.items():
        dev = acc.device(kind, ng0 * scale, n00, q, regime, er, share)
        wl, t, d, tr = acc.measure(dev, **inst)
        t0 = time.perf_counter()
        res = cal.calibrate_ring_spectrum(wl, t, d, kind=kind,
                                          wavelength_offset_nm=inst.get("wavelength_offset_nm", 0.0))
        dt = time.perf_counter() - t0
        s = res.specs
        corr = f"{res.correction['dng']:+.4f}" if res.correction["applied"] else "none"
        print(f"{case:<30}{s['fsr_nm']:>9.4f}/{tr['fsr_nm']:<8.4f}{s['q_loaded']:>8.0f}/{tr['q_loaded']:<8.0f}"
              f"{s['extinction_db']:>7.2f}/{tr['extinction_db']:<8.2f}{(s['resonance_nm'] - tr['resonance_nm']) * 1e3:>11.2f}"
              f"{s['ng']:>8.4f}/{tr['ng']:<7.4f}{corr:>9}{res.fit['chi2_reduced']:>8.2f}{dt:>6.1f}"
              + ("" if res.status == "fitted" else f"  FAILED: {res.failure_reason}"))


if __name__ == "__main__":
    main()
