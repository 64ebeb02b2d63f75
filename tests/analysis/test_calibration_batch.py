"""A wafer of ring spectra calibrated in one batch: inputs, bad files, Dask versus serial, the outputs.

The spectra are made here with the textbook add-drop Airy formula (Rabus, "Integrated Ring Resonators"
(2007), eqs. 3.8–3.9; not the project's model): constant group index n_g, equal couplers t = √(1 − κ²),
round-trip amplitude a, a coupling offset and tilt in dB and Gaussian noise. Each die of a synthetic wafer
(every integer x, y with x² + y² ≤ 4.5², 69 dies) draws n_g, κ² and a propagation loss from a seeded spread
around the nominal ring. Two ingredients follow the nominal ring's own physics, as a real ring's do (a fit
that refuses them is right to: at this noise a κ² constant over three FSRs is 60σ off on the outer lines):

- κ²(λ) = κ²_die · κ²_c(λ)/κ²_c(1550 nm), with κ²_c the coupler model's (an evanescent coupler's κ² grows
  ≈ 4 % per 12 nm here);
- the round trip loses the nominal ring's bend radiation (``ring_physics.ring_round_trip`` at zero
  propagation loss, ≈ 2.2 dB/cm at 20 µm) on top of the die's propagation loss.

The truth of each die is in closed form at its resonance λ_r (phase φ = 2πm + 2π n_g L (1/λ − 1/λ_r),
x = t²a with κ², a at λ_r):

- FSR = λ²/(n_g L); Q_L = λ_r / FWHM with FWHM = Δφ λ_r²/(2π n_g L), Δφ = 2 arccos((4x − 1 − x²)/(2x))
  (the half-depth width of the Lorentzian-like 1/(1 − 2x cos φ + x²), shared by through and drop);
- extinction T(φ=π)/T(φ=0) = [(t + ta)/(1 + x)]² / [(t − ta)/(1 − x)]²; round-trip loss −20·log10(a) dB.

The per-device fit is the full physical fit, ``calibration.calibrate_ring_csv`` (about a second per
spectrum once compiled; each Dask worker compiles once).
"""

from __future__ import annotations

import math
import os
import socket

import numpy as np
import psutil
import pytest

from prismpic import program_cache, user_cache
from prismpic.analysis import calibration
from prismpic.analysis.calibration import batch, wafer
from prismpic.analysis.calibration.batch import Device, DeviceResult, run_batch
from prismpic.components import ring_physics, rings
from prismpic.components.ring_design import RingDesign
from prismpic.pdk import process as process_mod
from prismpic.pdk.ridge_stack import RidgeStack

FIT = calibration.calibrate_ring_csv
RING = rings.ring_params("add_drop", {})
R = RING["radius"]
L_NM = 2 * math.pi * R * 1e3
FIT_KWARGS = {"radius": R, "coupling": "symmetric"}
WL = np.arange(1538.0, 1562.0 + 1e-9, 0.008)  # nm: three resonances, ≥ 6 points per FWHM for Q_L ≤ 3.2e4
N_BAD = 5  # NaN, broken BOM text, too few points, non-monotonic wavelengths, a listed file that is missing
N_FAILED = 2  # no resonance (flat), drop port normalised to another power (no physical Airy inversion)


# ----------------------------------------------------------------------------- the synthetic wafer
def airy_add_drop(wl_nm, ng, kappa2, a, lam_r):
    """Through and drop power of a symmetric add-drop ring (Rabus 2007), resonant at ``lam_r`` (nm);
    ``kappa2`` and ``a`` scalars or arrays over ``wl_nm``."""
    t = np.sqrt(1 - kappa2)
    phi = 2 * np.pi * ng * L_NM * (1 / wl_nm - 1 / lam_r)
    den = 1 - 2 * t * t * a * np.cos(phi) + (t * t * a) ** 2
    through = (t * t * a * a - 2 * t * t * a * np.cos(phi) + t * t) / den
    drop = kappa2**2 * a / den
    return through, drop


def truth(die):
    """The die's FSR, Q_L, extinction, resonance and round-trip loss in closed form (module docstring)."""
    t, a, ng, lam = math.sqrt(1 - die["kappa2"]), die["a"], die["ng"], die["lam_r"]
    x = t * t * a
    dphi = 2 * math.acos((4 * x - 1 - x * x) / (2 * x))
    fwhm = dphi * lam**2 / (2 * math.pi * ng * L_NM)
    er = ((t + t * a) / (1 + x)) ** 2 / ((t - t * a) / (1 - x)) ** 2
    return {"ng": ng, "fsr_nm": lam**2 / (ng * L_NM), "q_loaded": lam / fwhm, "extinction_db": 10 * math.log10(er),
            "resonance_nm": lam, "kappa2": die["kappa2"], "round_trip_loss_db": -20 * math.log10(a)}


def write_spectrum(path, wl, through, drop, *, db=False, text_prefix=b"", rows=None):
    cols = ("wavelength_nm", "through_db", "drop_db") if db else ("wavelength_nm", "through", "drop")
    t, d = (10 * np.log10(through), 10 * np.log10(np.maximum(drop, 1e-9))) if db else (through, drop)
    lines = [",".join(cols)] + [f"{w!r},{u!r},{v!r}" for w, u, v in zip(wl.tolist(), t.tolist(), d.tolist(),
                                                                       strict=True)]
    if rows is not None:
        lines = lines[: rows + 1]
    path.write_bytes(text_prefix + ("\n".join(lines) + "\n").encode())
    return path


@pytest.fixture(scope="module")
def wafer_dir(tmp_path_factory):
    """69 dies (6 of them bad or failing, one more with a byte-order mark), a manifest listing them and one
    missing file; returns (folder, {die: truth} of the good dies, {special kind: die position})."""
    folder = tmp_path_factory.mktemp("wafer")
    ng0 = float(ring_physics.ring_ng(1.55, R))
    k2_c = np.sin(np.asarray(ring_physics.coupling_angle(WL * 1e-3, RING["gap"], R))) ** 2
    kappa0 = float(np.interp(1550.0, WL, k2_c))
    bend_only = RingDesign(radius=RING["radius"], loss_db_per_cm=0.0, ridge=RidgeStack.from_params(RING))
    a_bend = np.asarray(ring_physics.ring_round_trip(WL * 1e-3, bend_only)[0])
    rng = np.random.default_rng(2026)
    dies = [(x, y) for x in range(-4, 5) for y in range(-4, 5) if x * x + y * y <= 4.5**2]
    special = dict(zip(("nan", "bom_broken", "few", "non_monotonic", "flat", "drop_gain", "bom_ok"),
                       (dies[i] for i in rng.choice(len(dies), 7, replace=False)), strict=True))
    kind_of = {v: k for k, v in special.items()}
    manifest, truths = ["file,die,x,y"], {}
    for x, y in dies:
        die = f"D{x:+d}{y:+d}"
        fsr = (1550.0**2) / (ng0 * L_NM)
        dev = {"ng": ng0 * (1 + float(np.clip(0.01 * rng.standard_normal(), -0.03, 0.03))),
               "kappa2": kappa0 * math.exp(0.15 * rng.standard_normal()),
               "loss_db_per_cm": rng.uniform(0.5, 3.0), "lam_r": 1550.0 + rng.uniform(-0.4, 0.4) * fsr}
        k2 = dev["kappa2"] * k2_c / kappa0
        a = a_bend * 10 ** (-dev["loss_db_per_cm"] * 2 * math.pi * R * 1e-4 / 20)  # round-trip amplitude
        through, drop = airy_add_drop(WL, dev["ng"], k2, a, dev["lam_r"])
        dev["kappa2"], dev["a"] = (float(np.interp(dev["lam_r"], WL, v)) for v in (k2, a))  # at λ_r, for the truth
        base = 10 ** ((-4.0 + 0.5 * rng.standard_normal() + 0.02 * rng.standard_normal() * (WL - 1550.0)) / 10)
        noise = 2e-4 * base  # −37 dB: the deepest dips (ER ≤ 29 dB) stay ≥ 6× above it
        through = through * base + noise * rng.standard_normal(WL.size)
        drop = drop * base + noise * rng.standard_normal(WL.size)
        kind = kind_of.get((x, y))
        path = folder / f"{die}.csv"
        if kind == "flat":
            through = base + noise * rng.standard_normal(WL.size)
            drop = np.abs(noise * rng.standard_normal(WL.size))
        if kind == "drop_gain":
            drop = 2.0 * drop  # D0 > 1 − T0: more power out than in
        if kind == "nan":
            through = through.copy()
            through[1234] = np.nan
        wl = WL.copy()
        if kind == "non_monotonic":
            wl[[2000, 2001]] = wl[[2001, 2000]]
        prefix = {"bom_ok": b"\xef\xbb\xbf# exported by the prober\n",
                  "bom_broken": b"\xef\xbb\xbf# wavelength in \xb5m\n"}.get(kind, b"")
        write_spectrum(path, wl, through, drop, db=(x + y) % 2 == 0, text_prefix=prefix,
                       rows=10 if kind == "few" else None)
        manifest.append(f"{path.name},{die},{x},{y}")
        if kind in (None, "bom_ok"):
            truths[die] = truth(dev)
    manifest.append("missing.csv,Z9,,")
    (folder / "manifest.csv").write_text("\n".join(manifest) + "\n")
    return folder, truths, special


def _children() -> set[int]:
    """Child processes of this one, multiprocessing's resource tracker aside (it lives as long as we do)."""
    return {p.pid for p in psutil.Process().children(recursive=True)
            if "resource_tracker" not in " ".join(p.cmdline())}


# ----------------------------------------------------------------------------- the acceptance test
N_GOOD_ON_DASK = 4  # good dies sent through the cluster beside the special ones (11 devices: two per worker
# compile and a queue to balance; all 69 dies took 5 minutes of CI for no case more)
NOT_FITTED_HERE = ("drop_gain",)  # its failure is the fit's own, ≈ 22 CPU-s on this wafer's 3,001 points: held by
# test_a_drop_port_above_its_input_is_a_failed_fit on a 2,001-point spectrum (≈ 7 CPU-s); the cluster carries a failed
# fit already (the flat die)


def test_a_drop_port_above_its_input_is_a_failed_fit(tmp_path):
    """A drop port normalised to another power than the through port (D0 > 1 − T0: more power out than in, no
    physical Airy inversion) is a failed fit in the batch, and no value of it reaches the table. Two resonances over
    16 nm (2,001 points: the wafer's 3,001-point spectrum cost ≈ 22 CPU-s to fail)."""
    wl = np.arange(1542.0, 1558.0 + 1e-9, 0.008)
    ng = float(ring_physics.ring_ng(1.55, R))
    k2 = np.sin(np.asarray(ring_physics.coupling_angle(wl * 1e-3, RING["gap"], R))) ** 2
    a = 10 ** (-1.5 * 2 * math.pi * R * 1e-4 / 20)  # 1.5 dB/cm
    through, drop = airy_add_drop(wl, ng, k2, a, 1546.0)
    rng = np.random.default_rng(1)
    base, noise = 10 ** -0.4, 2e-4 * 10 ** -0.4
    through = base * through + noise * rng.standard_normal(wl.size)
    drop = 2.0 * (base * drop + noise * rng.standard_normal(wl.size))
    write_spectrum(tmp_path / "D+0+0.csv", wl, through, drop)
    (tmp_path / "manifest.csv").write_text("file,die,x,y\nD+0+0.csv,D+0+0,0,0\n")
    with program_cache.enabled():
        run = run_batch(batch.devices_from(str(tmp_path / "manifest.csv")), fit=FIT, fit_kwargs=FIT_KWARGS, workers=0)
    (res,) = run.results
    assert res.status == "failed" and "does not describe" in res.reason, res.reason
    assert res.params == {} and res.specs == {}
    assert run.counts == {"fitted": 0, "failed": 1, "bad_input": 0, "not_run": 0, "total": 1}
    _, rows = wafer.device_table(run.results)
    assert rows[0]["status"] == "failed" and rows[0].get("ng") is None

def test_wafer_through_dask_equals_serial(wafer_dir, tmp_path):
    """Spectra through a 2-worker LocalCluster: every good die fitted to its truth, bad files counted and skipped,
    failures marked, the same table as the serial path (the workers on the programs it exported), no process left
    behind. The drop-gain die is left to its own test (``NOT_FITTED_HERE``)."""
    folder, all_truths, special = wafer_dir
    every = batch.devices_from(str(folder / "manifest.csv"))
    assert len(every) == 70 and len(all_truths) == 63
    at = {kind: f"D{x:+d}{y:+d}" for kind, (x, y) in special.items()}
    serial_only = {at[kind] for kind in NOT_FITTED_HERE}
    specials = (set(at.values()) | {"Z9"}) - serial_only
    good = [d.die for d in every if d.die not in specials | serial_only][:N_GOOD_ON_DASK]
    devices = [d for d in every if d.die in specials or d.die in good]
    truths = {die: tr for die, tr in all_truths.items() if die in specials or die in good}
    n = len(devices)
    assert n == len(specials) + N_GOOD_ON_DASK and len(truths) == N_GOOD_ON_DASK + 1  # + the byte-order-mark die
    same = specials | set(good[:3])
    with program_cache.enabled():  # as the CLI runs it: the workers read the programs the serial fits exported
        serial = run_batch([d for d in every if d.die in same], fit=FIT, fit_kwargs=FIT_KWARGS, workers=0)
    before = _children()
    seen = []
    with program_cache.enabled():
        dask_run = run_batch(devices, fit=FIT, fit_kwargs=FIT_KWARGS, workers=2, progress=lambda d, n: seen.append(d))
    assert _children() <= before  # the cluster's processes are gone
    assert seen == list(range(1, n + 1))
    n_fit = len(truths)
    n_failed = N_FAILED - len(NOT_FITTED_HERE)
    assert dask_run.counts == {"fitted": n_fit, "failed": n_failed, "bad_input": N_BAD, "not_run": 0, "total": n}
    cols, rows = wafer.device_table(dask_run.results)
    # the serial path on every special die and three good ones gave the same rows, to the last digit (the fits
    # are deterministic)
    picked = [r for r in dask_run.results if r.device.die in same]
    shared = serial.results
    assert len(picked) == len(special) - len(NOT_FITTED_HERE) + 1 + 3
    assert wafer.device_table(picked) == wafer.device_table(shared)
    assert wafer.table_csv(*wafer.device_table(picked)) == wafer.table_csv(*wafer.device_table(shared))

    by_die = {r["die"]: r for r in rows}
    for die, tr in truths.items():
        row = by_die[die]
        assert row["status"] == "fitted", (die, row["reason"])
        assert row["ng"] == pytest.approx(tr["ng"], rel=0.01)
        assert row["fsr_nm"] == pytest.approx(tr["fsr_nm"] * (1550.0 / tr["resonance_nm"]) ** 2, rel=0.005)
        assert row["q_loaded"] == pytest.approx(tr["q_loaded"], rel=0.05)
        assert abs(row["extinction_db"] - tr["extinction_db"]) <= 1.0
        assert abs(row["resonance_nm"] - tr["resonance_nm"]) <= 0.005
        assert row["kappa2"] == pytest.approx(tr["kappa2"], rel=0.1)
        assert row["round_trip_loss_db"] == pytest.approx(tr["round_trip_loss_db"], rel=0.2)
    reasons = {kind: by_die[die] for kind, die in at.items() if kind not in NOT_FITTED_HERE}
    assert reasons["bom_ok"]["status"] == "fitted"
    for kind, words in (("nan", "not finite"), ("bom_broken", "utf-8"), ("few", "at least 16"),
                        ("non_monotonic", "strictly increasing")):
        assert reasons[kind]["status"] == "bad_input" and words in reasons[kind]["reason"].lower(), kind
        assert reasons[kind]["ng"] is None
    assert by_die["Z9"]["status"] == "bad_input" and "missing.csv" in by_die["Z9"]["reason"]
    for kind in ("flat",):
        assert reasons[kind]["status"] == "failed" and reasons[kind]["reason"] and reasons[kind]["ng"] is None, kind

    out = wafer.write_wafer(dask_run, tmp_path / "wafer", spectra="manifest.csv")
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "devices", "devices.csv", "devices.parquet", "histograms.png", "process.json", "records", "summary.json",
        "wafer_map.png"]
    assert len(list((out / "devices").glob("*.json"))) == n_fit
    assert (out / "devices.csv").read_text() == wafer.table_csv(cols, rows)
    import pyarrow.parquet as pq

    pt = pq.read_table(out / "devices.parquet").to_pylist()
    assert [r["die"] for r in pt] == [r["die"] for r in rows] and [r["ng"] for r in pt] == [r["ng"] for r in rows]
    for png in ("wafer_map.png", "histograms.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (out / png).stat().st_size > 20_000
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == dask_run.counts
    assert len(summary["bad_input"]) == N_BAD and len(summary["failed"]) == n_failed and summary["complete"]
    ng_true = np.array([tr["ng"] for tr in truths.values()])
    st = summary["specs"]["ng"]
    assert st["n"] == n_fit and st["mean"] == pytest.approx(ng_true.mean(), rel=1e-3)
    assert st["std"] == pytest.approx(ng_true.std(ddof=1), rel=0.1)
    # no process parameter among the closed-form fit's: the base process, read back by load_process
    assert process_mod.load_process(out / "process.json") == process_mod.DEFAULT_PROCESS
    assert not any(v["measured"] for v in summary["process"].values())


# ----------------------------------------------------------------------------- measured spreads → process
def _result(i, params, design):
    return DeviceResult(Device(i, f"/x/{i}.csv", f"{i}.csv", f"d{i}", float(i % 20), float(i // 20)), "fitted",
                        params=params, design=design)


def test_measured_process_removes_the_fit_uncertainty(tmp_path):
    """Devices with width = drawn + bias (bias ~ N(12 nm, 20 nm)) and film ~ N(0.605, 8 nm) µm, each fitted with
    its own noise (σ_fit 8 nm and 2 nm), and a wall angle the fits do not determine (σ_fit 5° > ½ × prior 3°):
    the process file gets mean and √(s² − σ_fit²) for the first two, the prior for the third."""
    rng = np.random.default_rng(7)
    n, drawn = 600, 1.4
    bias = 0.012 + 0.020 * rng.standard_normal(n)
    film = 0.605 + 0.008 * rng.standard_normal(n)
    res = [_result(i, {"width": (drawn + bias[i] + 0.008 * rng.standard_normal(), 0.008),
                       "film_thickness": (film[i] + 0.002 * rng.standard_normal(), 0.002),
                       "sidewall_angle_deg": (76.5 + 5.0 * rng.standard_normal(), 5.0)}, {"width": drawn})
           for i in range(n)]
    cols, rows = wafer.device_table(res)
    assert "width_bias" in cols
    proc, report = wafer.measured_process(rows)
    # against the drawn devices' own mean and spread: what is left is the fit noise (σ_fit/√n on the mean;
    # on the variance its own sampling, √(2/n)·σ_fit², and the noise–bias cross term, 2·σ·σ_fit/√n)
    assert proc.width_bias.nominal == pytest.approx(bias.mean(), abs=3 * 0.008 / math.sqrt(n))
    assert proc.width_bias.sigma == pytest.approx(bias.std(ddof=1), rel=0.06)
    assert proc.film_thickness.nominal == pytest.approx(film.mean(), abs=3 * 0.002 / math.sqrt(n))
    assert proc.film_thickness.sigma == pytest.approx(film.std(ddof=1), rel=0.04)
    raw = wafer.column_stats(rows, "width_bias")["std"]  # the table's spread still holds the fit noise
    assert raw == pytest.approx(math.hypot(bias.std(ddof=1), 0.008), rel=0.06) and raw > proc.width_bias.sigma
    assert proc.sidewall_angle_deg == process_mod.DEFAULT_PROCESS.sidewall_angle_deg
    assert report["sidewall_angle_deg"]["measured"] is False and report["width_bias"]["measured"] is True
    # written and read back: the measured spread drives the process's Monte Carlo draws
    from prismpic.fileio import write_json_atomic

    path = write_json_atomic(tmp_path / "process.json", proc.to_dict())
    back = process_mod.load_process(path)
    assert back == proc
    draws = np.array([d["width_bias"] for d in back.sample(20000, seed=3)])
    assert draws.std() == pytest.approx(proc.width_bias.sigma, rel=0.03)


# ----------------------------------------------------------------------------- inputs and options
def test_inputs_glob_folder_manifest(tmp_path):
    spectrum = tmp_path / "ring_x3_y-2.csv"
    through, drop = airy_add_drop(WL[:400], 2.3, 0.03, 0.999, 1537.0)
    write_spectrum(spectrum, WL[:400], through, drop)
    write_spectrum(tmp_path / "X01Y02.csv", WL[:400], through, drop)
    devs = batch.devices_from(str(tmp_path / "*.csv"))
    assert [(d.die, d.x, d.y) for d in devs] == [("X01Y02", 1.0, 2.0), ("ring_x3_y-2", 3.0, -2.0)]
    assert batch.devices_from(str(tmp_path)) == devs
    assert batch.devices_from(str(spectrum))[0].die == "ring_x3_y-2"
    with pytest.raises(ValueError, match="spectra = .*matches no file"):
        batch.devices_from(str(tmp_path / "*.txt"))
    with pytest.raises(ValueError, match="does not exist"):
        batch.devices_from(str(tmp_path / "nothing"))
    man = tmp_path / "m.csv"
    for text, match in (("file,die\na.csv,A\nb.csv,A\n", "die 'A' is listed already at line 2"),
                        ("file,x,y\na.csv,1,north\n", "line 2: column y = 'north' is not a number"),
                        ("file,x\n", "no rows"), ("file;die\n;A\n", "line 2: the file column is empty")):
        man.write_text(text)
        with pytest.raises(ValueError, match=match):
            batch.devices_from(str(man))
    man.write_text("\ufefffile;die;x;y\nsub/a.csv;A;1;2\n")  # Excel's UTF-8 with a BOM, ';' separated
    (d,) = batch.devices_from(str(man))
    assert (d.path, d.die, d.x, d.y) == (str(tmp_path / "sub" / "a.csv"), "A", 1.0, 2.0)


def test_engine_options_are_checked_first():
    assert batch.default_fit() is calibration.calibrate_ring_csv
    for sched, workers, match in (("localhost:8786", 2, "tcp://HOST:PORT"), ("tcp://h:70000", 2, "port 1–65535"),
                                  (None, -1, r"outside the valid range \[0, 1024\]"), (None, 1.5, "integer"),
                                  ("tcp://h:8786", 0, "cannot be combined")):
        with pytest.raises(ValueError, match=match):
            run_batch([], fit=FIT, fit_kwargs=FIT_KWARGS, scheduler=sched, workers=workers)
    from prismpic.analysis.calibration.closed_form_fit import closed_form_ring_csv  # radius is required there

    with pytest.raises(ValueError, match="fit_kwargs: missing a required argument: 'radius'"):
        run_batch([], fit=closed_form_ring_csv, fit_kwargs={}, workers=0)
    with pytest.raises(ValueError, match="'radus'"):
        run_batch([], fit=FIT, fit_kwargs={"radius": R, "radus": R}, workers=0)


def test_cli_ring_batch_checks_before_fitting(wafer_dir, tmp_path):
    from prismpic.cli.calibrate_batch import ring_batch

    folder, _, _ = wafer_dir
    man = str(folder / "manifest.csv")
    for args, match in (((man, tmp_path / "w.json", None, 2, {"radius": R}), "--out .* is the output folder"),
                        ((man, tmp_path / "no" / "w", None, 2, {"radius": R}), "--out .*does not exist"),
                        ((str(tmp_path / "*.csv"), tmp_path / "w", None, 2, {"radius": R}), "--spectra = .*no file"),
                        ((man, tmp_path / "w", "tcp:/x", 2, {"radius": R}), "--scheduler = 'tcp:/x'"),
                        ((man, tmp_path / "w", None, -3, {"radius": R}), "--workers = -3"),
                        ((man, tmp_path / "w", None, 2, {"radius": R, "radus": 1}), "'radus'")):
        with pytest.raises(ValueError, match=match):
            ring_batch(*args)
    assert not (tmp_path / "w").exists()


def test_cli_ring_batch_end_to_end(wafer_dir, tmp_path, capsys):
    """``ring_batch`` (what ``calibrate ring --spectra`` calls) on a column of dies, in this process: exit code 0
    and the folder; a batch of bad files only: exit code 1, the folder still written, every file reported."""
    from prismpic.cli.calibrate_batch import ring_batch

    folder, truths, special = wafer_dir
    assert ring_batch(str(folder / "D+0*.csv"), tmp_path / "col", None, 0, dict(FIT_KWARGS)) == 0
    names = {f"D+0{y:+d}" for y in range(-4, 5)}
    fitted = names & set(truths)
    assert len(list((tmp_path / "col" / "devices").glob("*.json"))) == len(fitted)
    text = capsys.readouterr().out
    assert f"{len(fitted)} fitted" in text and "wrote" in text
    few = folder / "D{:+d}{:+d}.csv".format(*special["few"])
    assert ring_batch(str(few), tmp_path / "bad", None, 0, dict(FIT_KWARGS)) == 1
    assert "at least 16" in capsys.readouterr().err and (tmp_path / "bad" / "summary.json").is_file()


def test_local_workers_share_this_process_compilation_cache(monkeypatch):
    """The LocalCluster's workers get this process's JAX cache settings through their environment, and a Python
    started with that environment reads them back (so a worker loads what was compiled here); no cache, no
    variables."""
    import subprocess
    import sys

    import jax

    env = user_cache.worker_environment()
    assert env["JAX_COMPILATION_CACHE_DIR"] == jax.config.jax_compilation_cache_dir  # the run's cache (conftest)
    probe = ("import jax; print(jax.config.jax_compilation_cache_dir, "
             "jax.config.jax_persistent_cache_min_compile_time_secs)")
    out = subprocess.run([sys.executable, "-c", probe], env={**os.environ, **env}, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [jax.config.jax_compilation_cache_dir, str(jax.config.jax_persistent_cache_min_compile_time_secs)]
    from types import SimpleNamespace

    monkeypatch.setitem(sys.modules, "jax", SimpleNamespace(config=SimpleNamespace(jax_compilation_cache_dir=None)))
    assert user_cache.worker_environment() == {}


def test_existing_scheduler_and_unreachable_one(wafer_dir):
    """``scheduler=`` sends the fits to a cluster started elsewhere (same results); a dead address is one error."""
    from distributed import LocalCluster

    folder, truths, _ = wafer_dir
    devices = batch.devices_from(str(folder / "manifest.csv"))[:6]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster:
        remote = run_batch(devices, fit=FIT, fit_kwargs=FIT_KWARGS, scheduler=cluster.scheduler_address, workers=1)
    serial = run_batch(devices, fit=FIT, fit_kwargs=FIT_KWARGS, workers=0)
    assert wafer.device_table(remote.results) == wafer.device_table(serial.results)
    assert remote.engine.startswith("Dask scheduler tcp://")
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # the timeout only (not the ``monkeypatch`` fixture: the fits above run on the exported programs, conftest)
    with pytest.MonkeyPatch.context() as mp, pytest.raises(
            ValueError, match=f"scheduler = 'tcp://127.0.0.1:{port}': cannot connect"):
        mp.setattr(batch, "CONNECT_TIMEOUT_S", 1.0)
        run_batch(devices, fit=FIT, fit_kwargs=FIT_KWARGS, scheduler=f"tcp://127.0.0.1:{port}", workers=1)


def test_failed_write_leaves_nothing(wafer_dir, tmp_path):
    """A batch whose output cannot be completed leaves no folder and no temporary behind."""
    folder, _, _ = wafer_dir
    devices = batch.devices_from(str(folder / "manifest.csv"))[:3]
    done = run_batch(devices, fit=FIT, fit_kwargs=FIT_KWARGS, workers=0)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    # the figure writer only, after the fits (not the ``monkeypatch`` fixture: the fits run on the exported
    # programs, conftest; with it they traced and lowered the fit again, 22 s)
    with pytest.MonkeyPatch.context() as mp, pytest.raises(OSError):
        mp.setattr(wafer, "plot_histograms", broken)
        wafer.write_wafer(done, tmp_path / "w")
    assert os.listdir(tmp_path) == []
