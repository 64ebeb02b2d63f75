"""``analyze_spectrum`` on spectra as instruments deliver them (issue 27), and on a measured ring.

Generated spectra: ``tests/spectra_effects.py`` (coupled-mode theory in frequency, written independently of
prismpic's models) with a grating-coupler bell, ripple, a detector floor, a second mode family, low SNR, a
1.3-FSR span, 200,000 points, backscatter splits, thermal triangles, jitter and drift. Each is read within
FSR 0.5 %, Q_L 5 %, ER 1 dB, λ_r 5 pm, n_g 1 % of its truth, or the result carries a caveat naming the cause
(split, floor), or it is refused with the cause (thermal). Measured: a 220 nm SOI add-drop ring from the
MIT-licensed SiEPIC Photonics Package (tests/data/measured/README.md), against a per-resonance Lorentzian fit
written here with scipy.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import curve_fit
from scipy.signal import find_peaks

from prismpic.analysis.measurements import read_spectrum_csv
from prismpic.analysis.spectra import analyze_spectrum

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from spectra_effects import TE, Effects, held_out_set, nearest_truth, ring_spectrum  # noqa: E402

SPECTRA = {s.name: s for s in held_out_set()}
# what each spectrum must give: "ok" (all specs in tolerance), "split" (fitted as a doublet, said so, specs
# in tolerance), "ambiguous" (a doublet whose coupling regime is ambiguous, said so with both Q_L: one right),
# "caveat" (the reported resonance named as not described by the line: another family overlaps), "floor" (ER a
# flagged lower bound), "thermal" (refused, naming thermal triangles), "one" (a lone resonance: no FSR, said so)
EXPECT = {"clean": "ok", "passband22": "ok", "passband25_ripple": "ok", "ripple": "ok", "floor": "floor",
          "family2": "ok", "family2_deeper": "caveat", "low_snr": "ok", "span13": "one", "points200k": "ok",
          "split0.3": "split", "split0.6": "split", "split1": "split", "thermal": "thermal",
          "thermal_mild": "thermal", "add_drop_bell": "ok", "jitter_drift": "ok", "split_family_noise": "ambiguous"}
ER_TOL = {"low_snr": 1.2, "jitter_drift": 1.2}  # 4 % additive noise / 1 pm jitter on a 14 dB dip: 1.04, 1.08 dB


def _analyze(sp):
    return analyze_spectrum(sp.wl_nm, sp.through, sp.drop, radius_um=20.0, design_group_index=2.30)


def test_generator_has_the_effects():
    assert len(SPECTRA) >= 16
    assert SPECTRA["points200k"].wl_nm.size == 200_000
    assert set(EXPECT) == set(SPECTRA)


@pytest.mark.parametrize("name", list(EXPECT))
def test_generated_spectrum_read_right_or_refused_for_the_cause(name):
    sp = SPECTRA[name]
    want = EXPECT[name]
    tr = nearest_truth(sp, 0)
    if want == "thermal":
        with pytest.raises(ValueError, match="thermal triangle"):
            _analyze(sp)
        return
    an = _analyze(sp)
    rn = an.resonances[an.nearest]
    notes = " ".join(an.notes)
    assert abs(rn.center_nm - tr["lam_nm"]) < (0.007 if want == "caveat" else 0.005)
    if want == "one":
        assert an.fsr_nm is None and "one resonance" in notes
        assert rn.q_loaded == pytest.approx(tr["q_loaded"], rel=0.05)
        return
    assert an.fsr_nm == pytest.approx(tr["fsr_nm"], rel=0.005)
    assert an.n_group == pytest.approx(tr["ng"], rel=0.01)
    near = f"resonance near {rn.center_nm:.3f} nm"
    if want == "caveat":
        assert f"{near}: the Airy line does not describe" in notes or f"{near} is split" in notes
        return
    if want == "ambiguous":
        note = next(n for n in an.notes if n.startswith(f"{near} is split"))
        assert "coupling regime is ambiguous" in note
        other = float(note.split("other solution has Q_L ")[1].split(" ")[0])
        assert min(abs(q / tr["q_loaded"] - 1) for q in (rn.q_loaded, other)) < 0.10
        return
    if want == "split":
        assert f"{near} is split" in notes and rn.split_nm is not None
        assert rn.split_nm == pytest.approx(sp.truth[0]["split_nm"], rel=0.15)
    assert rn.q_loaded == pytest.approx(tr["q_loaded"], rel=0.10 if want == "split" else 0.05)
    if want == "floor":
        assert rn.extinction_bound and rn.extinction_db < tr["er_db"]
        assert "detector floor" in notes or "reaches the noise" in notes
        return
    assert abs(rn.extinction_db - tr["er_db"]) < ER_TOL.get(name, 1.0)


def test_family_option_picks_and_refuses():
    sp = SPECTRA["family2_deeper"]
    te = analyze_spectrum(sp.wl_nm, sp.through, radius_um=20.0, family="te", design_group_index=2.30)
    tm = analyze_spectrum(sp.wl_nm, sp.through, radius_um=20.0, family="tm", design_group_index=2.30)
    deep = analyze_spectrum(sp.wl_nm, sp.through, radius_um=20.0, family="deepest")
    assert te.n_group == pytest.approx(2.30, rel=0.01)
    assert tm.n_group == pytest.approx(2.18, rel=0.01)
    assert deep.n_group == pytest.approx(2.18, rel=0.01)  # the TM-like family is the deeper one here
    assert len(te.families) >= 2
    with pytest.raises(ValueError, match="family = 7 is not there"):
        analyze_spectrum(sp.wl_nm, sp.through, radius_um=20.0, family=7)
    one = SPECTRA["clean"]
    with pytest.raises(ValueError, match="'tm' is not there"):
        analyze_spectrum(one.wl_nm, one.through, radius_um=20.0, family="tm", design_group_index=2.30)
    with pytest.raises(ValueError, match="family = 'xx'"):
        analyze_spectrum(one.wl_nm, one.through, radius_um=20.0, family="xx")


def test_ripple_is_named_and_a_badly_sampled_resonance_is_dropped():
    an = _analyze(SPECTRA["ripple"])
    assert any("recognised as ripple" in n for n in an.notes)
    # one resonance (in a 1.5 nm stretch) sampled at 60 pm: dropped, the rest read
    sp = SPECTRA["clean"]
    wl = sp.wl_nm
    coarse = (wl > 1544.8) & (wl < 1546.4)
    keep = ~coarse | (np.arange(wl.size) % 15 == 0)
    an = analyze_spectrum(wl[keep], sp.through[keep], radius_um=20.0)
    assert any("that resonance is dropped" in n or "dropped (noise spikes" in n for n in an.notes)
    assert all(abs(r.center_nm - 1545.6) > 0.5 for r in an.resonances)
    assert an.fsr_nm == pytest.approx(nearest_truth(sp, 0)["fsr_nm"], rel=0.005)


def test_resolution_message_does_not_contradict_itself():
    wl = np.arange(1530.0, 1570.0, 0.027)  # FWHM 77 pm: 2.9 points per FWHM
    sp = ring_spectrum("c", "", wl, [TE], Effects(noise_mult=0.01), seed=3)
    with pytest.raises(ValueError, match=r"gives 2\.\d\d points per .*min_points_per_fwhm = 3 are needed"):
        analyze_spectrum(wl, sp.through, radius_um=20.0)


# ----------------------------------------------------------------------------- measured (SiEPIC, MIT)

MEASURED = Path(__file__).resolve().parents[1] / "data" / "measured" / "siepicpkg_RingDoubleTER10g100_1750.csv"


def _lorentz_dip(x, b0, b1, depth, x0, w):
    return (b0 + b1 * (x - x0)) * (1.0 - depth / (1.0 + (2.0 * (x - x0) / w) ** 2))


def _independent_fit(wl, t_db, d_db):
    """Resonances from the drop port's peaks (scipy find_peaks on dB), each through dip fitted with a Lorentzian
    on a linear baseline over ±1 nm: centres (nm) and Q_L."""
    pk, _ = find_peaks(d_db, prominence=15.0, distance=int(3.0 / np.median(np.diff(wl))))
    t = 10 ** (t_db / 10)
    out = []
    for i in pk:
        m = np.abs(wl - wl[i]) < 1.0
        x, y = wl[m], t[m]
        p0 = [y.max(), 0.0, 0.95, wl[i], 0.18]
        p, _ = curve_fit(_lorentz_dip, x, y, p0=p0, maxfev=20000)
        if 1.5 < p[3] - wl[0] and wl[-1] - p[3] > 1.5:
            out.append((p[3], p[3] / abs(p[4])))
    return np.array(out)


def test_measured_soi_ring_against_an_independent_fit():
    sp = read_spectrum_csv(MEASURED)
    an = analyze_spectrum(sp.wl_nm, sp.through, sp.drop, radius_um=10.0)
    ref = _independent_fit(sp.wl_nm, 10 * np.log10(sp.through), 10 * np.log10(sp.drop))
    assert len(ref) >= 5
    fsr_ref = np.polyfit(np.arange(len(ref)), ref[:, 0], 1)[0]  # mean spacing; 1550 is mid-span
    assert an.fsr_nm == pytest.approx(fsr_ref, rel=0.01)
    for lam, q in ref:
        r = min(an.resonances, key=lambda r: abs(r.center_nm - lam))
        assert abs(r.center_nm - lam) < 0.01
        assert r.q_loaded == pytest.approx(q, rel=0.05)
    assert an.n_group == pytest.approx(1550.0**2 / (fsr_ref * 2 * math.pi * 10.0e3), rel=0.01)


def test_cli_line_shape_only_on_a_silicon_ring(tmp_path):
    """``calibrate ring --line-shape-only``: the line shape of a non-TFLN ring, written with its figure; a family
    that is not there is one line, exit code 2, nothing written."""
    from typer.testing import CliRunner

    from prismpic.cli import app

    runner = CliRunner()
    out = tmp_path / "si.json"
    res = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(MEASURED), "--out", str(out), "--radius", "10",
                              "--line-shape-only"])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert out.with_suffix(".png").stat().st_size > 0
    assert "not run" in doc["physical_stage"]
    ref = _independent_fit(*_columns())
    fsr_ref = np.polyfit(np.arange(len(ref)), ref[:, 0], 1)[0]
    assert doc["analysis"]["fsr_nm"] == pytest.approx(fsr_ref, rel=0.01)
    assert doc["analysis"]["n_group"] == pytest.approx(4.2, abs=0.1)  # 220 nm SOI strip, TE (README)
    bad = tmp_path / "bad.json"
    res = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(MEASURED), "--out", str(bad),
                              "--line-shape-only", "--family", "5"])
    assert res.exit_code == 2 and "family = 5 is not there" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not bad.exists() and not bad.with_suffix(".png").exists()


def _columns():
    sp = read_spectrum_csv(MEASURED)
    return sp.wl_nm, 10 * np.log10(sp.through), 10 * np.log10(sp.drop)


def test_a_resonance_merged_with_the_other_familys_is_named():
    """In ``family2`` the TE resonance at 1562.31 nm and a TM one 0.2 nm (1.3 TM linewidths) away read as one
    line; the TM comb (periodic in frequency through its other members) puts a resonance there, and the note says
    the line is the pair's (it was read as a split TE resonance, which it is not)."""
    sp = SPECTRA["family2"]
    an = _analyze(sp)
    tm = sp.truth[1]["centers_nm"]
    hit = [n for n in an.notes if "coincides with family" in n]
    assert len(hit) == 1
    predicted = float(hit[0].split("comb puts at ")[1].split(" nm")[0])
    assert abs(predicted - tm[np.argmin(np.abs(tm - 1562.2))]) < 0.03  # the comb's prediction against the truth
    assert all("coincides" not in n for n in _analyze(SPECTRA["clean"]).notes)
    # the lone TM resonance 0.65 nm from a TE one is one line, not a doublet that traded its dip for the baseline
    r = min(an.resonances, key=lambda r: abs(r.center_nm - 1553.25))
    assert r.family != an.resonances[an.nearest].family and r.split_nm is None
    assert r.depth == pytest.approx(1 - (1 - 2 * 0.20) ** 2, abs=0.05)  # TM: κ_e/κ = 0.2
