"""The report's labels say what their numbers are (issue 31): the platform's TE modes by propagation and field
direction, each FSR with its definition, the worst crosstalk as the light a foreign ring takes, ranges in one style.

Each section is tested by calling the function that makes it, on small inputs (the full report takes minutes)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from prismpic.report import build as report
from prismpic.report import sections as report_sections
from prismpic.report.formatting import fmt_range, parse_unit

NBSP, MINUS = "\u00a0", "\u2212"


def _text(s: str) -> str:
    return s.replace(NBSP, " ").replace("\u202f", " ").replace(MINUS, "-")


# ---------------------------------------------------------------------------- platform: TE0 by direction
def test_platform_labels_follow_the_solvers_crystal_axis():
    """The solver's permittivity (pdk/ridge_geometry.Ridge.eps_tensor: horizontal, vertical, propagation) in an
    X-cut film (crystal x vertical) fixes each mode's directions: the TE field is horizontal, so it lies along z
    where the horizontal entry is n_e² (Zelmon's extraordinary index, field along z), else along y; the light
    propagates along z where the propagation entry is n_e², else along the in-plane axis that is left, y."""
    from prismpic.pdk import materials
    from prismpic.pdk.ridge_geometry import Ridge

    ne2, no2 = float(materials.n_ln_e(1.55)) ** 2, float(materials.n_ln_o(1.55)) ** 2
    labels = {key: label for label, key, _ in report_sections.PLATFORM_ROWS}
    for axis in ("z", "y"):
        (h, v, prop), _, _ = Ridge(crystal_axis=axis).eps_tensor(1.55)
        assert v == pytest.approx(no2)  # crystal x vertical: ordinary
        field = "z" if h == pytest.approx(ne2) else "y"
        along = "z" if prop == pytest.approx(ne2) else "y"
        assert field != along
        for key in (f"neff_te_{axis}", f"ng_te_{axis}"):
            assert f"propagating along crystal {along}" in labels[key], labels[key]
            assert f"field along {field}" in labels[key], labels[key]
    assert "z-propagating" not in " ".join(labels.values())  # the issue's label, the wrong way round


def test_the_mode_polarised_along_z_has_the_lower_index():
    """n_e < n_o in LN at 1.55 µm (Zelmon 1997: 2.138 vs 2.211), so the TE0 whose field lies along z has the lower
    n_eff: the label 'field along z' must sit on the smaller of the two values the platform section reports."""
    from prismpic.pdk import materials

    assert float(materials.n_ln_e(1.55)) < float(materials.n_ln_o(1.55))
    p = dict(report.SECTIONS)["platform"](None)
    rows = {label: value for label, value in report_sections.sections({"platform": p})[0]["blocks"][0]["rows"]}
    along_z = [float(_text(v)) for k, v in rows.items() if k.startswith("n_eff") and "field along z" in k]
    along_y = [float(_text(v)) for k, v in rows.items() if k.startswith("n_eff") and "field along y" in k]
    assert len(along_z) == len(along_y) == 1 and along_z[0] < along_y[0]


# ---------------------------------------------------------------------------- FSRs and their definitions
def _resonances_um(radius: float, lam_r: float, fsr_um: float, orders: range) -> np.ndarray:
    """Resonances λ_m of the default ring, θ(λ_m) = 2πm, by Newton's method written out here:
    dθ/dλ = −2π n_g L/λ² (θ = 2π n_eff L/λ), from the model's round-trip phase and the ring's n_g."""
    from prismpic.components import ring_physics
    from prismpic.components.ring_design import RingDesign

    length = 2 * math.pi * radius
    ring = RingDesign(radius=radius)
    m_r = round(float(ring_physics.ring_round_trip(lam_r, ring)[1]) / (2 * math.pi))
    m = np.array([m_r - k for k in orders], float)
    lam = lam_r + np.array(list(orders), float) * fsr_um
    for _ in range(6):
        theta = np.asarray(ring_physics.ring_round_trip(lam, ring)[1])
        ng = np.asarray(ring_physics.ring_ng(lam, radius))
        lam = lam + (theta - 2 * np.pi * m) / (2 * np.pi * ng * length) * lam**2
    return lam


@pytest.fixture(scope="module")
def ring_check():
    from prismpic.components import rings

    specs = rings.ring_specs(kind="add_drop")
    analysis, wl_nm, _, _ = report.ring_spectrum_check({}, specs)
    return specs, analysis, wl_nm


def test_each_fsr_is_what_its_label_says(ring_check):
    """Table: λ_r²/(n_g L) at λ_r. Spectrum check: the spacing of adjacent resonances, linear in wavelength,
    evaluated at the same λ_r. Both from independent resonances (Newton on θ = 2πm) to 2e-5 nm; their difference
    is the difference of the definitions, of order FSR·(FSR/λ)² (5.6e-5 nm) plus the FSR's curvature over the
    ±1.5 FSR of the fitted spacings (FSR ∝ λ²: about 2e-4 nm), not the 45 pm of the issue (8.19 nm at 1550 nm)."""
    from prismpic.components import ring_physics

    specs, analysis, wl_nm = ring_check
    lam_r, radius = specs["resonance_um"], 20.0
    assert wl_nm[0] < (lam_r - 2 * specs["fsr_nm"] * 1e-3) * 1e3 and wl_nm[-1] > (lam_r + 2 * specs["fsr_nm"] * 1e-3) * 1e3
    local = lam_r**2 / (float(ring_physics.ring_ng(lam_r, radius)) * 2 * math.pi * radius) * 1e3
    assert specs["fsr_nm"] == pytest.approx(local, abs=1e-9)
    lam = _resonances_um(radius, lam_r, specs["fsr_nm"] * 1e-3, range(-2, 3)) * 1e3  # nm, increasing
    spacing, mid = np.diff(lam), (lam[1:] + lam[:-1]) / 2
    at_lam_r = float(np.polyval(np.polyfit(mid - lam_r * 1e3, spacing, 1), 0.0))
    assert analysis.fsr_nm == pytest.approx(at_lam_r, abs=2e-5)
    np.testing.assert_allclose(analysis.fsr_pairs_nm, spacing, atol=2e-5)
    assert abs(analysis.fsr_nm - specs["fsr_nm"]) < 5e-4
    assert (analysis.fsr_nm - specs["fsr_nm"]) == pytest.approx(at_lam_r - local, abs=2e-5)


def test_the_spectrum_check_reads_the_models_intrinsic_q(ring_check):
    """The spectrum check inverts the simulated through and drop spectra (Airy inversion, McKinnon et al. 2009) in
    the regime the design fixes (equal gaps: under-coupled, r1 > a·r2); it gave the other root (9.39e4, 36 % high)
    while it was told "over". The model's Q_i is λ over the Airy FWHM of its round-trip amplitude alone."""
    specs, analysis, _ = ring_check
    assert report.design_coupling_regime(specs) == "under"
    a = 10 ** (-specs["round_trip_loss_db"] / 20)
    fwhm_um = specs["fsr_nm"] * 1e-3 * 2 / math.pi * math.asin((1 - a) / (2 * math.sqrt(a)))  # Airy line of a alone
    q_i = specs["resonance_um"] / fwhm_um
    assert analysis.q_intrinsic == pytest.approx(q_i, rel=2e-3)
    assert analysis.q_intrinsic == pytest.approx(specs["q_intrinsic"], rel=2e-3)
    over = dict(specs, kappa2=0.2, kappa2_drop=0.01)  # a strong input coupler beside a weak drop: over-coupled
    assert report.design_coupling_regime(over) == "over"


def test_ring_section_labels_carry_the_definitions():
    ring = {"radius_um": 20.0, "gap_um": 0.2, "fsr_nm": 8.1455, "resonance_nm": 1545.95,
            "spectrum_check": {"fsr_nm": 8.1453, "fsr_wl_nm": 1545.95, "fwhm_nm": 0.1335, "q_loaded": 11582.0}}
    blocks = report_sections.sections({"ring": ring})[0]["blocks"]
    table = next(b for b in blocks if b["kind"] == "table")
    assert any("λ_r²/(n_g L) at the resonance λ_r" in row[0] for row in table["rows"])
    text = _text(next(b for b in blocks if b["kind"] == "text")["text"])
    assert "spacing of adjacent fitted resonances at 1546 nm" in text and "λ_r²/(n_g L) at the same λ_r" in text
    device = {r["label"]: r["value"] for r in report_sections.summary({"ring": ring})["device"]}
    assert "FSR, λ_r²/(n_g L) at λ_r" in device


def _radii_on_channels(channels_um, radius0: float = 20.0) -> np.ndarray:
    """Radii near ``radius0`` that put a resonance on each channel: Newton in R on θ(λ, R) = 2πm, with
    dθ/dR ≈ θ/R (θ = 2π n_eff L/λ, L = 2πR; n_eff's weak dependence on R left to the iteration)."""
    from prismpic.components import ring_physics
    from prismpic.components.ring_design import RingDesign

    out = []
    for lam in np.asarray(channels_um, float):
        r = radius0
        m = round(float(ring_physics.ring_round_trip(lam, RingDesign(radius=r))[1]) / (2 * np.pi))
        for _ in range(6):
            theta = float(ring_physics.ring_round_trip(lam, RingDesign(radius=r))[1])
            r -= (theta - 2 * np.pi * m) / (theta / r)
        out.append(r)
    return np.array(out)


@pytest.fixture(scope="module")
def two_channels():
    """The seed plan's centre channel (1550.8 nm on the S1-03 grid) and its neighbour, one ring on each."""
    from prismpic.analysis.system.crosstalk import crosstalk_matrix

    ch = np.array([1.5492, 1.5508])
    return crosstalk_matrix(ch, _radii_on_channels(ch), bank=False)


def test_channel_plan_fsr_is_the_local_fsr_at_the_centre_channel(two_channels):
    """The plan's FSR is λ_c²/(n_g L) of the ring serving the centre channel: it differs from the table's
    (λ_r = 1546 nm, R = 20 µm) by (λ_c/λ_r)²·(R/R_c)·n_g(λ_r, R)/n_g(λ_c, R_c), the definitions' own ratio."""
    from prismpic.components import ring_physics, rings

    res = two_channels
    detail = report.worst_crosstalk(res, {})
    lam_c, r_c = detail["fsr_channel_nm"] * 1e-3, detail["fsr_radius_um"]
    assert detail["fsr_channel_nm"] == pytest.approx(1550.8)
    local = lam_c**2 / (float(ring_physics.ring_ng(lam_c, r_c)) * 2 * math.pi * r_c) * 1e3
    assert res.fsr_nm == pytest.approx(local, rel=1e-9)
    specs = rings.ring_specs(kind="add_drop")
    lam_r = specs["resonance_um"]
    ratio = (lam_c / lam_r) ** 2 * (20.0 / r_c) * float(ring_physics.ring_ng(lam_r, 20.0)) / float(
        ring_physics.ring_ng(lam_c, r_c))
    assert res.fsr_nm == pytest.approx(specs["fsr_nm"] * ratio, rel=1e-9)
    xt = {**res.to_dict(), "fsr_channel_nm": detail["fsr_channel_nm"], "fsr_radius_um": r_c}
    assert "λ_c²/(n_g L) at the centre channel λ_c 1550.8 nm" in _text(report_sections.plan_fsr_label(xt))


# ---------------------------------------------------------------------------- crosstalk as the light taken
def test_worst_crosstalk_is_the_share_of_light_the_foreign_ring_drops(two_channels):
    """What ring j drops at channel i follows the add-drop Airy line relative to its peak, 1/(1 + F sin²(πΔ/FSR)),
    F = 1/sin²(π·FWHM/(2·FSR)) (Bogaerts et al., Laser Photon. Rev. 6, 47 (2012)); the peak is what the channel's
    own ring drops at its channel. The ratio of the two shares is the matrix entry."""
    res = two_channels
    d = report.worst_crosstalk(res, {})
    i, j = res.worst_pair
    assert 10 * math.log10(d["drop_fraction"] / d["own_drop_fraction"]) == pytest.approx(res.worst_db, abs=1e-6)
    delta, fsr, fwhm = abs(res.offset_nm[i, j]), res.ring_fsr_nm[j], res.ring_fwhm_nm[j]
    airy = 1 / (1 + math.sin(math.pi * delta / fsr) ** 2 / math.sin(math.pi * fwhm / (2 * fsr)) ** 2)
    assert d["drop_fraction"] == pytest.approx(d["own_drop_fraction"] * airy, rel=0.03)
    assert d["offset_fwhm"] == pytest.approx(delta / fwhm)


SEED_XT = {  # the issue's figures: the seed plan's worst pair (report.json of a full run)
    "n_channels": 32, "spacing_nm": 1.6, "fsr_nm": 8.2205, "fwhm_nm": 0.1368, "worst_db": -0.0063289,
    "worst_pair": {"channel": 7, "ring": 2, "channel_nm": 1536.4, "ring_channel_nm": 1528.4, "order": 1,
                   "offset_nm": -0.0024396, "drop_fraction": 0.87119, "own_drop_fraction": 0.87246,
                   "offset_fwhm": 0.019866}}


def test_summary_reports_a_collision_as_the_light_taken_not_as_a_small_number():
    """−0.00633 dB is the ratio to the channel's own ring: a collision. The summary shows the share of the channel's
    light the foreign ring drops (87 %) and where its resonance sits (2.44 pm, order +1)."""
    row = report_sections.crosstalk_summary(SEED_XT)
    assert _text(row["value"]) == "87.1%"
    note = _text(row["note"])
    for part in ("ring of 1528.4 nm", "order +1", "2.44 pm", "channel 1536.4 nm", "own ring drops 87.2%",
                 "-0.00633 dB", "collision"):
        assert part in note, (part, note)
    old = {k: v for k, v in SEED_XT.items()}
    old["worst_pair"] = {k: v for k, v in SEED_XT["worst_pair"].items() if "fraction" not in k}
    assert "0 dB: a collision" in report_sections.crosstalk_summary(old)["note"]  # an older report.json


# ---------------------------------------------------------------------------- ranges: one style, one prefix
UNITS = ("", "nm", "µm", "W", "J", "s", "Hz", "A", "B", "dB", "dBm", "%", "×", "pm/V", "fraction", "Ω·m")
NUMBER = r"-?[0-9]+(?:\u202f[0-9]{3})*(?:\.[0-9]+)?"  # thin spaces group the digits of 101 000
RANGE = re.compile(rf"^({NUMBER})(?:–| to )({NUMBER})(?: × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?(?: ?(\S+))?$")
SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _scale(unit: str, shown: str) -> float:
    """Factor from the shown unit to the given one (fW shown for W: 1e-15)."""
    given, got = parse_unit(unit), parse_unit(shown)
    if given is None or got is None:
        assert shown == unit
        return 1.0
    return 10.0 ** (got[0] - given[0])


@given(st.floats(-24, 24), st.floats(1e-4, 12), st.sampled_from(UNITS), st.booleans())
def test_ranges_have_one_style_and_one_prefix(log_hi, decades, unit, negative_lo):
    """Any range: both ends in one scale (one unit with one prefix, at most one power of ten), each end within half
    a unit of its 3rd significant figure (0.5 %), the order kept; no float with 7 decimals (the page's raw-float
    check) while the ends lie within five decades of each other and inside the prefixes (atto to exa; bytes from 1)."""
    hi = 10.0**log_hi
    lo = -hi * 10.0**-decades if negative_lo else hi * 10.0**-decades
    text = fmt_range(lo, hi, unit).replace(NBSP, " ").replace(MINUS, "-")
    m = RANGE.match(text)
    assert m, text
    a, b, exp, shown = m.groups()
    assert text.count("×") <= (2 if unit == "×" else 1)
    factor = (10.0 ** int(exp.translate(SUPER)) if exp else 1.0) * _scale(unit, shown or "")
    ends = [float(x.replace("\u202f", "")) for x in (a, b)]
    for got, want in zip(ends, (lo, hi), strict=True):
        assert got * factor == pytest.approx(want, rel=5e-3, abs=1e-300), text
    assert ends[0] <= ends[1]
    parsed = parse_unit(unit)
    base = parsed[0] if parsed else None
    lowest = 0 if unit == "B" else -18  # bytes are counted: no prefix below one (no millibyte)
    inside = base is None or (lowest <= base + log_hi - decades and base + log_hi <= 18)
    if decades <= 5 and inside:
        assert not re.search(r"\d\.\d{7,}", text), text


def test_the_issues_ranges_read_in_one_style():
    assert _text(fmt_range(2262, 1.12e5)) == "2.26–112 × 10³"
    assert _text(fmt_range(0.0628e-18, 101e-15, "W")) == "0.0628–101 000 aW"
    assert _text(fmt_range(882e-6, 11.6e-3, "nm")) == "0.882–11.6 pm"
