"""Calibration of the ring, MZM and PCM models: specs, the parameter file, the command line.

The acceptance on independently generated spectra is ``test_calibration_acceptance.py``, the instrument
effects ``test_calibration_instrument.py`` and bad measurement files ``test_calibration_inputs.py``.
Spectra here are the textbook all-pass ring (Bogaerts et al., Laser Photon. Rev. 6, 47 (2012), eq. (1)):
T = (a² − 2ra·cos φ + r²)/(1 − 2ar·cos φ + (ra)²), φ = 2π·n_eff(λ)·L/λ with a constant group index.
"""

import csv
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from prismpic.analysis import calibration as cal
from prismpic.cli import app
from prismpic.components import ring_physics, rings

runner = CliRunner()
R = 20.0
L = 2 * math.pi * R


def all_pass_spectrum(ng_scale=1.0, r=0.985, a=0.995, noise=0.002, points=12000, seed=0):
    """(wl nm, through) of a textbook all-pass ring near 1550 nm, −5 dB coupling, 0.04 dB/nm tilt, noise."""
    ng = float(ring_physics.ring_ng(1.55, R)) * ng_scale
    n0 = float(ring_physics.ring_neff(1.55, R))
    lam0 = 1.5503
    n0 = round(n0 * L / lam0) * lam0 / L
    fsr = lam0**2 / (ng * L) * 1e3
    wl = np.linspace(1550 - 1.1 * fsr, 1550 + 1.1 * fsr, points)  # the length of the acceptance spectra
    lam = wl * 1e-3
    phi = 2 * np.pi * (n0 - (ng - n0) * (lam - lam0) / lam0) * L / lam
    t = (a**2 - 2 * r * a * np.cos(phi) + r**2) / (1 - 2 * a * r * np.cos(phi) + (r * a) ** 2)
    base = 10 ** ((-5 + 0.04 * (wl - wl.mean())) / 10)
    return wl, t * base + noise * base.mean() * np.random.default_rng(seed).standard_normal(points)


def write_csv(path, columns: dict):
    names = list(columns)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        for row in zip(*(columns[n] for n in names), strict=True):
            w.writerow([repr(float(v)) for v in row])
    return path


# ----------------------------------------------------------------------------- the model's specs
def test_ring_quantities_equal_ring_specs():
    """The jitted specs the fits use are ring_specs' formulas (a sloped wall, unequal gaps, another radius)."""
    for p in ({"gap": 0.3, "gap_drop": 0.4, "radius": 30.0, "loss_db_per_cm": 1.0, "sidewall_angle_deg": 70.0},):
        q = cal.ring_quantities(1.55, **p)
        s = rings.ring_specs(1.55, **p)
        for k in ("resonance_um", "fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "drop_loss_db",
                  "kappa2", "kappa2_drop", "round_trip_loss_db", "ng"):
            assert q[k] == pytest.approx(s[k], rel=1e-9), (p, k)


def test_priors_are_the_process_spreads():
    from prismpic.analysis.calibration.ring.start import design_params
    from prismpic.pdk.process import DEFAULT_PROCESS

    d = design_params("add_drop", {"width": 1.2, "sidewall_angle_deg": 80.0, "cladding": "air"})
    pr = cal.ring_priors(d)
    assert pr["film_thickness"].sigma == DEFAULT_PROCESS.film_thickness.sigma
    assert pr["sidewall_angle_deg"].mean == 80.0 and pr["sidewall_angle_deg"].sigma == DEFAULT_PROCESS.sidewall_angle_deg.sigma
    assert pr["width"].mean == pytest.approx(1.2 + DEFAULT_PROCESS.width_bias.nominal)
    assert pr["width"].sigma == DEFAULT_PROCESS.width_bias.sigma
    assert pr["radius"].sigma == cal.RADIUS_SIGMA_UM
    lo, hi = pr["sidewall_angle_deg"].lo, pr["sidewall_angle_deg"].hi
    assert DEFAULT_PROCESS.sidewall_angle_deg.lo <= lo < hi <= DEFAULT_PROCESS.sidewall_angle_deg.hi
    with pytest.raises(ValueError, match="cladding"):
        design_params("add_drop", {"cladding": "oil"})
    with pytest.raises(ValueError, match="design sidewall_angle_deg"):
        design_params("add_drop", {"sidewall_angle_deg": "steep"})


# ----------------------------------------------------------------------------- from specs
def test_specs_round_trip_nominal_ring(tmp_path):
    """Specs of a ring on the process's nominal geometry (gap 0.3 µm, 1 dB/cm) → parameters whose model gives
    them back: no correction needed; κ² and the round-trip loss come back (symmetric couplers: x = t²a and
    T0 = ((t − at)/(1 − x))² fix t and a uniquely)."""
    true = {"gap": 0.3, "loss_db_per_cm": 1.0}
    s = cal.ring_quantities(1.55, **true)
    res = cal.calibrate_ring_specs(s["fsr_nm"], s["q_loaded"], s["extinction_db"], resonance_nm=s["resonance_um"] * 1e3)
    assert res.status == "fitted" and not res.correction["applied"]
    sig = cal.SPEC_SIGMA
    assert res.specs["fsr_nm"] == pytest.approx(s["fsr_nm"], rel=sig["fsr_rel"])
    assert res.specs["q_loaded"] == pytest.approx(s["q_loaded"], rel=sig["q_rel"])
    assert res.specs["extinction_db"] == pytest.approx(s["extinction_db"], abs=sig["extinction_db"])
    assert res.specs["kappa2"] == pytest.approx(s["kappa2"], rel=0.03)
    assert res.specs["round_trip_loss_db"] == pytest.approx(s["round_trip_loss_db"], rel=0.03)
    assert any("symmetric" in a for a in res.ambiguities)
    # the parameter file feeds the ring models as is (wall angle and cladding included)
    path = res.write(tmp_path / "ring.json")
    p = cal.load_params(path)
    assert p["schema"] == cal.SCHEMA and p["ring_kind"] == "add_drop" and p["status"] == "fitted"
    assert {"sidewall_angle_deg", "cladding"} <= set(p["ring"])
    again = cal.ring_quantities(1.55, **p["ring"])
    assert again["fsr_nm"] == pytest.approx(p["fsr_nm"], rel=1e-6)
    assert rings.ring_add_drop_model(wl=1.55, **p["ring"])[("o1", "o2")].shape == ()
    for k in ("gap", "loss_db_per_cm", "width", "radius", "sidewall_angle_deg"):
        assert p["fitted"][k]["sigma"] > 0
    assert p["fitted"]["sidewall_angle_deg"]["determined_by"] == "prior"  # specs cannot tell the wall angle
    assert p["fitted"]["sidewall_angle_deg"]["prior"]["sigma"] == 3.0


def test_refused_specs_are_fitted_with_the_index_correction():
    """The seed's ring (FSR 8.3 nm at R = 20 µm: n_g = λ²/(FSR·2πR), ≈1 % below the nominal ring) used to be
    refused; now the process parameters stay at their priors and Δn_g takes the difference."""
    ng_nominal = float(ring_physics.ring_ng(1.55, R))
    res = cal.calibrate_ring_specs(8.3, 12500, 15.0, radius=R)
    assert res.status == "fitted"
    assert res.correction["applied"] and "without the correction" in res.correction["reason"]
    ng_needed = 1550.0**2 / (8.3 * L * 1e3)
    assert res.specs["ng"] == pytest.approx(ng_needed, rel=0.005)
    assert res.correction["dng"] == pytest.approx(ng_needed - ng_nominal, abs=0.004)
    assert res.specs["fsr_nm"] == pytest.approx(8.3, rel=1e-3)
    assert all(res.fitted[k].determined_by == "prior" for k in ("film_thickness", "etch_depth", "width"))
    # the README's form: no radius, the ring cell's applies
    res = cal.calibrate_ring_specs(8.2, 15000, 15.0)
    assert res.status == "fitted" and res.ring["radius"] == pytest.approx(rings.ring_params("add_drop", {})["radius"],
                                                                            abs=0.05)


def test_fsr_alone_fits_the_indices_only():
    """The seed's ring given by its FSR alone (``--fsr 8.3 --radius 20``): n_g = λ²/(FSR·2πR) through the index
    correction; the gaps and the loss are the design's (not fitted), so Q_L is the design ring's."""
    design = rings.ring_specs(1.55)
    res = cal.calibrate_ring_specs(8.3, radius=R)
    assert res.status == "fitted" and res.correction["applied"]
    assert res.specs["ng"] == pytest.approx(1550.0**2 / (8.3 * L * 1e3), rel=0.002)
    assert not {"gap", "gap_drop", "loss_db_per_cm"} & set(res.fitted)
    assert res.ring["gap"] == pytest.approx(rings.ring_params("add_drop", {})["gap"], abs=1e-12)
    # Q_L = π n_g L √(ra) / (λ (1 − ra)) ∝ n_g at the design's coupling and loss
    assert res.specs["q_loaded"] == pytest.approx(design["q_loaded"] * res.specs["ng"] / design["ng"], rel=0.05)
    assert any("the FSR alone" in n for n in res.notes)
    # the nominal ring's own FSR at a resonance it places: no correction needed
    lam = design["resonance_um"] * 1e3
    res = cal.calibrate_ring_specs(design["fsr_nm"], resonance_nm=lam, radius=R)
    assert res.status == "fitted" and not res.correction["applied"]
    assert res.specs["ng"] == pytest.approx(design["ng"], rel=1e-3)
    with pytest.raises(ValueError, match="q_loaded without extinction_db"):
        cal.calibrate_ring_specs(8.3, 1e4)


def test_specs_out_of_reach_fail_with_a_reason():
    fsr = cal.ring_quantities(1.55)["fsr_nm"]
    res = cal.calibrate_ring_specs(fsr, 1e8, 10.0, radius=R)  # Q 1e8 needs more than the largest gap and no loss
    assert res.failed and "out of the ring model's reach" in res.failure_reason and "q_loaded" in res.failure_reason


def test_a_loss_on_its_bound_has_a_finite_uncertainty():
    """Specs whose loss the fit puts on its bound 0 (Q_L 1.5e4 with 14 dB: the couplers take the whole linewidth;
    at 2e4 the coupling tables since session 29 leave it 1.5e-4 dB/cm inside):
    the loss is held there, so it and the specs carry no variance from it, and the specs' errors are the σ the
    specs were given. The covariance once divided the
    pseudo-inverse's rounding residue by ≈ 0 and reported loss 0 ± 7.7e136 dB/cm and Q_L ± 7.6e139."""
    res = cal.calibrate_ring_specs(8.3, 1.5e4, 14.0)
    loss = res.fitted["loss_db_per_cm"]
    assert loss.value == 0.0 and loss.at_bound and loss.sigma == 0.0
    # the specs' assumed σ (2 % of Q_L, 0.5 dB), put in through the Airy inversion, come back out of the fit
    assert res.errors["q_loaded"] == pytest.approx(cal.SPEC_SIGMA["q_rel"] * res.specs["q_loaded"], rel=0.05)
    assert res.errors["extinction_db"] == pytest.approx(cal.SPEC_SIGMA["extinction_db"], rel=0.05)
    assert all(math.isfinite(fp.sigma) and fp.sigma < 10 * (fp.prior_sigma or 1.0) for fp in res.fitted.values())


def test_specs_errors():
    with pytest.raises(ValueError, match="q_loaded"):
        cal.calibrate_ring_specs(7.8, -5, 10.0)
    with pytest.raises(ValueError, match="coupling = 'symmetric' needs an add-drop"):
        cal.calibrate_ring_specs(7.8, 2e4, 10.0, kind="all_pass", coupling="symmetric")
    with pytest.raises(ValueError, match="radius"):
        cal.calibrate_ring_specs(7.8, 2e4, 10.0, radius=5.0)


def test_radius_contradicting_fsr():
    wl, t = all_pass_spectrum()
    with pytest.raises(ValueError, match=r"radius = 60 µm contradicts the FSR.*implies n_g = 0\.\d+"):
        cal.calibrate_ring_spectrum(wl, t, radius=60.0, kind="all_pass")


def test_load_params_checks_wall_angle_and_cladding(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"schema": cal.SCHEMA, "ring": {"cladding": 3}}))
    with pytest.raises(ValueError, match="cladding = 3 must be a string"):
        cal.load_params(f)
    f.write_text(json.dumps({"schema": cal.SCHEMA, "ring": {"sidewall_angle_deg": "x"}}))
    with pytest.raises(ValueError, match="sidewall_angle_deg = 'x' must be a number"):
        cal.load_params(f)
    f.write_text(json.dumps({"schema": cal.SCHEMA, "ring": {"sidewall_angle_deg": 80.0, "cladding": "air"}}))
    assert cal.load_params(f)["ring"]["cladding"] == "air"


# ----------------------------------------------------------------------------- CLI
def test_cli_specs_without_radius_and_failed_fit(tmp_path):
    out = tmp_path / "c.json"
    r = runner.invoke(app, ["calibrate", "ring", "--fsr", "8.2", "--q", "15000", "--er", "15", "--out", str(out)])
    assert r.exit_code == 0, r.output
    p = json.loads(out.read_text())
    assert p["status"] == "fitted" and p["source"]["radius"] == rings.ring_params("add_drop", {})["radius"]
    assert "fixed by" in r.output and "posterior" in r.output
    r = runner.invoke(app, ["calibrate", "ring", "--fsr", "8.3", "--q", "12500", "--er", "15", "--radius", "20",
                            "--out", str(out)])
    assert r.exit_code == 0 and "effective-index correction applied" in r.output
    # a fit that fails is never a result: exit 1, one line, nothing written unless --keep-failed
    bad = tmp_path / "bad.json"
    r = runner.invoke(app, ["calibrate", "ring", "--fsr", "8.2", "--q", "1e8", "--er", "10", "--out", str(bad)])
    assert r.exit_code == 1 and "fit failed" in r.output and r.output.count("\n") <= 2, r.output
    assert not bad.exists() and not bad.with_suffix(".png").exists()
    r = runner.invoke(app, ["calibrate", "ring", "--fsr", "8.2", "--q", "1e8", "--er", "10", "--out", str(bad),
                            "--keep-failed"])
    assert r.exit_code == 1 and "marked failed" in r.output
    assert json.loads(bad.read_text())["status"] == "failed"
    with pytest.raises(ValueError, match="is a failed calibration"):  # never used as parameters
        cal.load_params(bad)


def test_cli_checks_every_option_before_the_fit(tmp_path, monkeypatch):
    def forbidden(*a, **k):
        raise AssertionError("the fit started before the options were checked")

    monkeypatch.setattr(cal, "calibrate_ring_specs", forbidden)
    monkeypatch.setattr(cal, "calibrate_ring_csv", forbidden)
    spec = write_csv(tmp_path / "s.csv", dict(zip(("wavelength_nm", "through"), all_pass_spectrum(points=400),
                                                  strict=True)))
    base = ["calibrate", "ring", "--fsr", "8.2", "--q", "1e4", "--er", "10"]
    for extra, token in ((["--out", str(tmp_path / "c.txt")], "--out"),
                         (["--out", str(tmp_path / "nope" / "c.json")], "--out"),
                         (["--out", str(tmp_path / "c.json"), "--figure", str(tmp_path / "f.gif")], "--figure"),
                         (["--out", str(tmp_path / "c.json"), "--ripple", "maybe"], "--ripple"),
                         (["--out", str(tmp_path / "c.json"), "--baseline-order", "7"], "--baseline-order"),
                         (["--out", str(tmp_path / "c.json"), "--radius", "5"], "--radius"),
                         (["--out", str(tmp_path / "c.json"), "--process", str(tmp_path / "none.json")], "--process"),
                         (["--out", str(tmp_path / "c.json"), "--scheduler", "tcp://h:1"], "--scheduler"),
                         (["--out", str(tmp_path / "c.json"), "--spectrum", str(spec)], "--spectrum")):
        r = runner.invoke(app, [*base, *extra])
        assert r.exit_code == 2 and token in r.output and r.output.count("\n") <= 2, (extra, r.output)
    r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(spec), "--out", str(tmp_path / "c.json"),
                            "--ripple", "fit", "--wavelength-offset", "9"])
    assert r.exit_code == 2 and "--wavelength-offset" in r.output
    assert not list(tmp_path.glob("c.*"))


def test_cli_spectra_dispatch_to_the_batch(tmp_path, monkeypatch):
    """``--spectra`` goes to ``calibrate_batch.ring_batch`` with the checked fit options; its return is the exit code."""
    import prismpic.cli.calibrate_batch as cb

    seen = {}

    def fake(spectra, out, scheduler, workers, fit_kwargs, **batch_options):
        seen.update(spectra=spectra, out=out, scheduler=scheduler, workers=workers, fit_kwargs=fit_kwargs,
                    **batch_options)
        return 1

    monkeypatch.setattr(cb, "ring_batch", fake)
    r = runner.invoke(app, ["calibrate", "ring", "--spectra", str(tmp_path / "*.csv"), "--out", str(tmp_path / "w"),
                            "--workers", "3", "--radius", "30", "--kind", "all_pass", "--ripple", "off"])
    assert r.exit_code == 1, r.output
    assert seen["spectra"] == str(tmp_path / "*.csv") and seen["workers"] == 3 and seen["scheduler"] is None
    assert seen["resume"] is False and seen["tls_ca_file"] is None
    kw = seen["fit_kwargs"]
    assert kw["kind"] == "all_pass" and kw["ripple"] == "off" and kw["design"]["radius"] == 30.0
    r = runner.invoke(app, ["calibrate", "ring", "--spectra", "x/*.csv", "--fsr", "8", "--out", str(tmp_path / "w")])
    assert r.exit_code == 2 and "--spectra" in r.output


def test_cli_spectrum_without_radius(tmp_path):
    wl, t = all_pass_spectrum()
    f = write_csv(tmp_path / "ring.csv", {"wavelength_nm": wl, "through": np.clip(t, 0, None)})
    out = tmp_path / "cal.json"
    r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(f), "--kind", "all_pass", "--out", str(out)])
    assert r.exit_code == 0, r.output
    p = json.loads(out.read_text())
    assert p["status"] == "fitted" and p["fit"]["chi2_reduced"] < cal.CHI2_MAX and (tmp_path / "cal.png").exists()


# ----------------------------------------------------------------------------- MZM and PCM
def test_mzm_transfer_curve(tmp_path):
    """T(V) = IL·[(1 − ε) cos²(πV/2Vπ + φ/2) + ε] (push-pull MZM), noise 0.2 %: Vπ, IL and extinction back."""
    v = np.linspace(-12, 12, 97)
    vpi, phi, il_db, er_db = 6.1, 0.7, 3.0, 22.0
    eps = 10 ** (-er_db / 10)
    t = 10 ** (-il_db / 10) * ((1 - eps) * np.cos(np.pi * v / (2 * vpi) + phi / 2) ** 2 + eps)
    t = t + 0.002 * np.random.default_rng(0).standard_normal(v.size)
    f = write_csv(tmp_path / "mzm.csv", {"voltage_v": v, "transmission": np.clip(t, 0, None)})
    out = tmp_path / "mzm.json"
    r = runner.invoke(app, ["calibrate", "mzm", "--spectrum", str(f), "--out", str(out)])
    assert r.exit_code == 0, r.output
    p = json.loads(out.read_text())
    assert p["vpi_v"] == pytest.approx(vpi, rel=0.01)
    assert p["insertion_loss_db"] == pytest.approx(il_db, abs=0.1)
    assert p["extinction_db"] == pytest.approx(er_db, abs=1.5)
    assert p["fitted"]["field_factor"]["sigma"] > 0 and p["fit"]["converged"]
    # the residual's scatter is the injected noise (0.2 %)
    assert p["fit"]["residual_sigma"] == pytest.approx(0.002, rel=0.3)
    bad = write_csv(tmp_path / "bad.csv", {"volts": v, "transmission": t})
    r = runner.invoke(app, ["calibrate", "mzm", "--spectrum", str(bad), "--out", str(tmp_path / "b.json")])
    assert r.exit_code == 2 and "voltage_v" in r.output and not (tmp_path / "b.json").exists()


def test_pcm_levels(tmp_path):
    """Levels made by the cell model at known fractions come back; beyond the crystalline end is an error."""
    from prismpic.components import pcm

    fr = [0.0, 0.25, 0.5, 0.9]
    t0 = float(pcm.transmission_db(1.55, 0.0))
    rel = [float(pcm.transmission_db(1.55, x)) - t0 for x in fr]
    f = write_csv(tmp_path / "levels.csv", {"level": range(4), "transmission_db": rel})
    out = tmp_path / "pcm.json"
    r = runner.invoke(app, ["calibrate", "pcm", "--levels", str(f), "--out", str(out)])
    assert r.exit_code == 0, r.output
    got = [lv["crystalline_fraction"] for lv in json.loads(out.read_text())["levels"]]
    assert got == pytest.approx(fr, abs=1e-6)
    full = float(pcm.transmission_db(1.55, 1.0)) - t0
    with pytest.raises(ValueError, match="outside the cell model's range"):
        cal.calibrate_pcm(10 ** (np.array([full - 1.0]) / 10))
