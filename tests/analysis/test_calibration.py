"""Calibration of the ring, MZM and PCM models against specs and measured data.

Measured spectra are made here by an independent implementation of the add-drop ring's
power transfer (Rabus, "Integrated Ring Resonators" (2007), eqs. 3.8–3.9; not the
project's model), with a constant group index, a coupling offset, a tilted baseline and
Gaussian noise. The truth specs come from that formula on a dense grid: FSR from the
neighbouring resonances, FWHM at half depth of the through dip, extinction T_max/T_min.
Only the device's n_g, κ² and loss are chosen with the project's dispersion model, so that
the synthetic ring lies within the geometry the model can reach.
"""

import csv
import json
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from typer.testing import CliRunner

from prismpic.analysis import calibration as cal
from prismpic.cli import app
from prismpic.components import ring_physics, rings

runner = CliRunner()
R = 20.0
L = 2 * math.pi * R


# ----------------------------------------------------------------------------- independent ring spectra
def ring_power(wl_nm, dev):
    """Through and drop power of an add-drop ring (Rabus 2007): t_i = √(1 − κ_i²), a the round-trip amplitude."""
    t1, t2, a = math.sqrt(1 - dev["k1sq"]), math.sqrt(1 - dev["k2sq"]), dev["a"]
    lam = np.asarray(wl_nm) * 1e-3
    lam0 = dev["lam0_nm"] * 1e-3
    neff = dev["n0"] - (dev["ng"] - dev["n0"]) * (lam - lam0) / lam0  # n_g = n_eff − λ dn_eff/dλ, constant
    phi = 2 * np.pi * neff * dev["L"] / lam
    den = 1 - 2 * t1 * t2 * a * np.cos(phi) + (t1 * t2 * a) ** 2
    through = (t2**2 * a**2 - 2 * t1 * t2 * a * np.cos(phi) + t1**2) / den
    drop = (1 - t1**2) * (1 - t2**2) * a / den
    return through, drop


def truth_specs(dev, near_nm=1550.0):
    """Resonance nearest ``near_nm``, FSR there, FWHM of the through dip, loaded Q and extinction (dense grid)."""
    lam0 = dev["lam0_nm"] * 1e-3

    def phi(lam):
        return 2 * np.pi * dev["L"] * (dev["n0"] - (dev["ng"] - dev["n0"]) * (lam - lam0) / lam0) / lam

    m = round(phi(near_nm * 1e-3) / (2 * np.pi))
    res = [brentq(lambda x, k=k: phi(x) - 2 * np.pi * k, near_nm * 1e-3 - 0.012, near_nm * 1e-3 + 0.012, xtol=1e-16)
           for k in (m + 1, m, m - 1)]
    lam = res[1] * 1e3
    fsr = (res[2] - res[0]) / 2 * 1e3
    w = np.linspace(lam - fsr / 2, lam + fsr / 2, 400_001)
    t, _ = ring_power(w, dev)
    inside = w[t < t.max() - (t.max() - t.min()) / 2]
    fwhm = inside[-1] - inside[0]
    return {"resonance_nm": lam, "fsr_nm": fsr, "fwhm_nm": fwhm, "q_loaded": lam / fwhm,
            "extinction_db": 10 * math.log10(t.max() / t.min())}


def kappa2(gap):
    return math.sin(float(ring_physics.coupling_angle(1.55, gap, R))) ** 2


def _through_extinction_db(k1sq, k2sq, a):
    """T(φ = π)/T(φ = 0) of the Rabus formula."""
    t1, t2 = math.sqrt(1 - k1sq), math.sqrt(1 - k2sq)
    x = t1 * t2 * a
    return 10 * math.log10(((t1 + t2 * a) / (1 + x)) ** 2 / ((t1 - t2 * a) / (1 - x)) ** 2)


def device(kind="add_drop", k1sq=0.02, er_db=15.0, extra_loss_db_per_cm=1.5, ng_scale=1.001, res_nm=1550.3,
           symmetric=False, regime="under"):
    """A ring the model can reach: n_g 0.1 % off the design, κ² within the gap range, loss above the bend loss.

    The remaining coupling (κ2² for add-drop, κ1² for all-pass or equal couplers) is picked on a
    grid to give a through extinction near ``er_db`` (away from critical coupling, where the
    extinction is set by noise); ``regime`` picks the weaker ("under") or stronger coupling.
    """
    k_lo, k_hi = kappa2(1.0), kappa2(0.17)
    ng = float(ring_physics.ring_ng(1.55, R)) * ng_scale
    n_model = float(ring_physics.ring_neff(1.55, R))
    m = round(n_model * L / (res_nm * 1e-3))
    bend = float(ring_physics.round_trip_loss_db(1.55, R, loss_db_per_cm=0.0)) / (L * 1e-4)  # dB/cm at the ring's design
    loss = bend + extra_loss_db_per_cm
    a = 10 ** (-loss * L * 1e-4 / 20)
    grid = np.geomspace(k_lo, k_hi, 2000)
    k1sq = float(np.clip(k1sq, k_lo, k_hi))
    if kind == "all_pass":
        er = np.array([_through_extinction_db(k, 0.0, a) for k in grid])
    elif symmetric:
        er = np.array([_through_extinction_db(k, k, a) for k in grid])
    else:
        er = np.array([_through_extinction_db(k1sq, k, a) for k in grid])
    # the two branches either side of critical coupling (weaker and stronger coupling than the loss);
    # when the maximum sits at an end of the gap range only one branch exists
    crit = int(np.argmax(er))
    idx = np.arange(grid.size)
    branch = idx[idx <= crit] if regime == "under" else idx[idx >= crit]
    k = float(grid[branch][np.argmin(np.abs(er[branch] - er_db))])
    k1, k2 = {"all_pass": (k, 0.0)}.get(kind, (k, k) if symmetric else (k1sq, k))
    return {"L": L, "lam0_nm": res_nm, "n0": m * res_nm * 1e-3 / L, "ng": ng, "k1sq": k1, "k2sq": k2, "a": a}


def measure(dev, *, offset_db=-6.0, tilt_db_per_nm=0.05, noise=0.003, seed=1, span_fsr=2.3):
    """Sampled spectrum around 1550 nm with ≥ 8 points per FWHM, baseline and additive noise."""
    tr = truth_specs(dev)
    step = min(0.005, tr["fwhm_nm"] / 8)
    wl = np.arange(1550.0 - span_fsr / 2 * tr["fsr_nm"], 1550.0 + span_fsr / 2 * tr["fsr_nm"], step)
    t, d = ring_power(wl, dev)
    base = 10 ** ((offset_db + tilt_db_per_nm * (wl - wl.mean())) / 10)
    rng = np.random.default_rng(seed)
    tm = t * base + noise * base.mean() * rng.standard_normal(wl.size)
    dm = d * base + noise * base.mean() * rng.standard_normal(wl.size)
    return wl, tm, dm, tr


def assert_acceptance(specs, tr):
    assert specs["fsr_nm"] == pytest.approx(tr["fsr_nm"], rel=0.005)
    assert specs["q_loaded"] == pytest.approx(tr["q_loaded"], rel=0.05)
    assert abs(specs["extinction_db"] - tr["extinction_db"]) <= 1.0
    assert abs(specs["resonance_nm"] - tr["resonance_nm"]) <= 0.005


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
    """The jitted specs the fits use are ring_specs' formulas (the JSON then matches what report computes)."""
    p = {"gap": 0.3, "gap_drop": 0.4, "radius": 30.0, "loss_db_per_cm": 1.0}
    q = cal.ring_quantities(1.55, **p)
    s = rings.ring_specs(1.55, **p)
    for k in ("resonance_um", "fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "drop_loss_db",
              "kappa2", "kappa2_drop", "round_trip_loss_db", "ng"):
        assert q[k] == pytest.approx(s[k], rel=1e-9), k


# ----------------------------------------------------------------------------- from specs
def test_specs_round_trip_symmetric_add_drop(tmp_path):
    """Specs of a known ring (100 nm wider, gap 0.3 µm, 1 dB/cm) → parameters whose model gives them back.

    Symmetric add-drop: x = t²a and T0 = ((t − at)/(1 − x))² fix t and a uniquely, so κ² and
    the round-trip loss must come back; width and radius trade against the mode order.
    """
    true = {"width": 1.5, "gap": 0.3, "loss_db_per_cm": 1.0}
    s = cal.ring_quantities(1.55, **true)
    res = cal.calibrate_ring_specs(s["fsr_nm"], s["q_loaded"], s["extinction_db"], resonance_nm=s["resonance_um"] * 1e3,
                                   radius=R)
    assert res.specs["fsr_nm"] == pytest.approx(s["fsr_nm"], rel=2e-4)
    assert res.specs["q_loaded"] == pytest.approx(s["q_loaded"], rel=1e-3)
    assert res.specs["extinction_db"] == pytest.approx(s["extinction_db"], abs=0.01)
    assert res.specs["resonance_nm"] == pytest.approx(s["resonance_um"] * 1e3, abs=5e-4)
    assert res.specs["kappa2"] == pytest.approx(s["kappa2"], rel=0.01)
    assert res.specs["round_trip_loss_db"] == pytest.approx(s["round_trip_loss_db"], rel=0.01)
    assert res.specs["q_intrinsic"] == pytest.approx(s["q_intrinsic"], rel=0.01)
    assert any("symmetric" in a for a in res.ambiguities)
    # the parameter file feeds the ring models as is
    path = res.write(tmp_path / "ring.json")
    p = cal.load_params(path)
    assert p["schema"] == cal.SCHEMA and p["ring_kind"] == "add_drop"
    again = cal.ring_quantities(1.55, **p["ring"])
    assert again["fsr_nm"] == pytest.approx(p["fsr_nm"], rel=1e-9)
    assert again["extinction_db"] == pytest.approx(p["extinction_db"], rel=1e-9)
    assert rings.ring_add_drop_model(wl=1.55, **p["ring"])[("o1", "o2")].shape == ()
    for k in ("gap", "loss_db_per_cm", "width", "radius"):
        assert p["fitted"][k]["stderr"] > 0


def test_specs_all_pass_reports_under_and_over():
    """All-pass: |t − a e^{iθ}|² is symmetric in t ↔ a, so both solutions are reported (κ² and loss swapped)."""
    true = {"gap": 0.35, "loss_db_per_cm": 3.0}
    s = cal.ring_quantities(1.55, "all_pass", **true)
    res = cal.calibrate_ring_specs(s["fsr_nm"], s["q_loaded"], s["extinction_db"], radius=R, kind="all_pass")
    if len(res.solutions) == 2:  # both regimes within the gap range
        assert res.specs["q_intrinsic"] is None
        assert any("under- and over-coupling" in a for a in res.ambiguities)
        assert {sol["regime"] for sol in res.solutions} == {"under", "over"}
        k2 = sorted(sol["kappa2"] for sol in res.solutions)
        # one solution is the true ring: t = √(1 − κ²) true
        assert min(abs(k - s["kappa2"]) for k in k2) <= 0.01 * s["kappa2"]
    else:  # one regime needs a gap outside the design rules: the other is the answer
        assert res.specs["kappa2"] == pytest.approx(s["kappa2"], rel=0.01)
    assert res.specs["q_loaded"] == pytest.approx(s["q_loaded"], rel=1e-3)


def test_specs_errors():
    with pytest.raises(ValueError, match="radius = 60 µm contradicts the FSR.*n_g = 0"):
        cal.calibrate_ring_specs(7.8, 2e4, 10.0, radius=60.0)
    with pytest.raises(ValueError, match="q_loaded"):
        cal.calibrate_ring_specs(7.8, -5, 10.0)
    fsr = cal.ring_quantities(1.55)["fsr_nm"]
    with pytest.raises(ValueError, match="out of the ring model's reach"):
        cal.calibrate_ring_specs(fsr, 2e6, 10.0, radius=R, kind="add_drop")  # Q 2e6 needs more than the largest gap
    with pytest.raises(ValueError, match="coupling = 'symmetric' needs an add-drop"):
        cal.calibrate_ring_specs(7.8, 2e4, 10.0, kind="all_pass", coupling="symmetric")


# ----------------------------------------------------------------------------- from spectra (acceptance)
def test_spectrum_add_drop_both_ports_acceptance():
    """Asymmetric couplers, both ports, -6 dB coupling, 0.05 dB/nm tilt, 0.3 % noise."""
    dev = device(k1sq=0.03, extra_loss_db_per_cm=0.5)
    wl, tm, dm, tr = measure(dev)
    res = cal.calibrate_ring_spectrum(wl, tm, dm, radius=R)
    assert_acceptance(res.specs, tr)
    # κ and a of the synthetic ring do not depend on λ, the model's do: a little misfit over 3 FSRs
    assert res.fit["chi2_reduced"] < 3.0
    assert res.fit["interpolation_error"] < 1e-6
    assert res.nuisance["c0_db"].value == pytest.approx(-6.0, abs=0.05)
    assert res.nuisance["c1_db_per_nm"].value == pytest.approx(0.05, rel=0.1)
    # the regimes are told apart only when one is out of the geometry's reach; otherwise both are listed
    if res.specs["q_intrinsic"] is None:
        assert len(res.solutions) == 2
    for k in ("gap", "gap_drop", "loss_db_per_cm", "width", "radius"):
        fp = res.fitted[k]
        assert fp.stderr is not None and fp.stderr >= 0
        assert fp.bounds[0] <= fp.value <= fp.bounds[1]


def test_spectrum_all_pass_through_db_acceptance():
    dev = device("all_pass", extra_loss_db_per_cm=6.0, er_db=12.0)
    wl, tm, _, tr = measure(dev, offset_db=-4.0, tilt_db_per_nm=-0.08, seed=2)
    res = cal.calibrate_ring_spectrum(wl, tm, radius=R, kind="all_pass")
    assert_acceptance(res.specs, tr)
    assert res.kind == "all_pass" and "gap_drop" not in res.ring
    assert res.nuisance["c1_db_per_nm"].value == pytest.approx(-0.08, rel=0.1)


def test_spectrum_symmetric_recovers_intrinsic_q(tmp_path):
    """Equal couplers: coupling='symmetric' separates coupling from loss (Q_i true ±5 %)."""
    dev = device(symmetric=True, er_db=12.0)
    wl, tm, dm, tr = measure(dev, seed=3)
    res = cal.calibrate_ring_spectrum(wl, tm, dm, radius=R, kind="add_drop", coupling="symmetric")
    assert_acceptance(res.specs, tr)
    # Q_i = 2π n_g/(λ α), α = −2 ln a / L (power loss per length; Bogaerts 2012)
    q_i = 2 * math.pi * dev["ng"] / (tr["resonance_nm"] * 1e-3 * (-2 * math.log(dev["a"]) / dev["L"]))
    assert res.specs["q_intrinsic"] == pytest.approx(q_i, rel=0.05)
    res.plot(tmp_path / "fit.png")
    assert (tmp_path / "fit.png").stat().st_size > 10_000


# ----------------------------------------------------------------------------- CLI
def test_cli_calibrate_ring_spectrum_and_specs(tmp_path):
    dev = device(symmetric=True, er_db=12.0)
    wl, tm, dm, tr = measure(dev, seed=4)
    f = write_csv(tmp_path / "ring.csv", {"wavelength_um": wl * 1e-3, "through_db": 10 * np.log10(np.abs(tm)),
                                          "drop": np.clip(dm, 0, None)})
    out = tmp_path / "cal.json"
    r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(f), "--radius", "20", "--coupling", "symmetric",
                            "--out", str(out)])
    assert r.exit_code == 0, r.output
    p = json.loads(out.read_text())
    for k in ("fsr_nm", "fwhm_nm", "q_loaded", "q_intrinsic", "extinction_db", "resonance_nm", "ng", "fitted", "fit"):
        assert k in p
    assert_acceptance(p, tr)
    assert (tmp_path / "cal.png").exists()
    # from specs, written where asked, figure alongside
    out2 = tmp_path / "spec.json"
    r = runner.invoke(app, ["calibrate", "ring", "--fsr", f"{p['fsr_nm']:.6f}", "--q", f"{p['q_loaded']:.2f}", "--er",
                            f"{p['extinction_db']:.4f}", "--radius", "20", "--out", str(out2)])
    assert r.exit_code == 0, r.output
    p2 = cal.load_params(out2)
    assert p2["fsr_nm"] == pytest.approx(p["fsr_nm"], rel=1e-4)
    assert p2["ring"]["gap"] == pytest.approx(p["ring"]["gap"], abs=0.01)


def _bad_csvs(tmp_path):
    wl = np.linspace(1545.0, 1555.0, 400)
    dev = device()
    t, _ = ring_power(wl, dev)
    cases = {
        "no wavelength": ({"wl": wl, "through": t}, "wavelength_nm"),
        "misnamed port": ({"wavelength_nm": wl, "thru": t}, "through_db"),
        "non-monotonic": ({"wavelength_nm": np.r_[wl[:10], wl[11], wl[10], wl[12:]], "through": t}, "not monotonic"),
        "duplicated": ({"wavelength_nm": np.r_[wl[:10], wl[9], wl[11:]], "through": t}, "duplicated"),
        "nan": ({"wavelength_nm": wl, "through": np.r_[t[:5], np.nan, t[6:]]}, "not finite"),
        "inf": ({"wavelength_nm": wl, "through_db": np.r_[10 * np.log10(t[:5]), -np.inf, 10 * np.log10(t[6:])]},
                "not finite"),
        "dB in linear column": ({"wavelength_nm": wl, "through": 10 * np.log10(t)}, "negative"),
        "percent in linear": ({"wavelength_nm": wl, "through": 100 * t}, "exceeds"),
        "linear in dB column": ({"wavelength_nm": wl, "through_db": t}, "looks like linear"),
        "no resonance": ({"wavelength_nm": wl, "through": np.full(wl.size, 0.5)}, "no resonance"),
        "one resonance": ({"wavelength_nm": (w1 := np.linspace(1548.5, 1552.0, 1200)),
                           "through": ring_power(w1, dev)[0]}, "two resonances"),
    }
    return {k: (write_csv(tmp_path / f"{k.replace(' ', '_')}.csv", cols), msg) for k, (cols, msg) in cases.items()}


def test_bad_spectra_raise_and_exit_2(tmp_path):
    for name, (path, msg) in _bad_csvs(tmp_path).items():
        with pytest.raises(ValueError, match=msg):
            cal.calibrate_ring_csv(path, radius=R)
        out = tmp_path / f"{path.stem}.json"
        r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(path), "--radius", "20", "--out", str(out)])
        assert r.exit_code == 2, (name, r.output)
        assert msg.split()[0] in r.output and r.output.count("\n") <= 2, (name, r.output)
        assert not out.exists() and not out.with_suffix(".png").exists(), name
    assert not list(tmp_path.glob(".*.tmp")), "temporary files left behind"


def test_radius_contradicting_fsr(tmp_path):
    dev = device()
    wl, tm, _, tr = measure(dev)
    with pytest.raises(ValueError, match=r"radius = 60 µm contradicts the FSR.*implies n_g = 0\.\d+"):
        cal.calibrate_ring_spectrum(wl, tm, radius=60.0, kind="all_pass")
    f = write_csv(tmp_path / "s.csv", {"wavelength_nm": wl, "through": np.clip(tm, 0, None)})
    r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(f), "--radius", "8", "--out", str(tmp_path / "o.json")])
    assert r.exit_code == 2 and "radius = 8" in r.output  # below the design rules' bend radius
    r = runner.invoke(app, ["calibrate", "ring", "--spectrum", str(f), "--out", str(tmp_path / "o.json")])
    assert r.exit_code == 2 and "--radius" in r.output
    r = runner.invoke(app, ["calibrate", "ring", "--fsr", "7.8", "--out", str(tmp_path / "o.json")])
    assert r.exit_code == 2 and "--q --er" in r.output
    assert not (tmp_path / "o.json").exists()


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
    assert p["fitted"]["field_factor"]["stderr"] > 0
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
