"""The report page without running the report: number formatting, the template on a small synthetic report,
the layout picture and the layer properties it is drawn with."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from prismpic.report import sections as report_sections
from prismpic.report.formatting import fmt, fmt_range, parse_unit, plain
from prismpic.report.html import render_report
from prismpic.report.plots import ring_spectrum_figure

MINUS = "\u2212"
NBSP = "\u00a0"


def _text(s: str) -> str:
    return s.replace(NBSP, " ").replace("\u202f", " ").replace(MINUS, "-")


# ---------------------------------------------------------------------------- formatter
def test_si_prefix_rescaling():
    """SI prefixes (BIPM SI brochure): 1 ps = 1e-12 s, 1 nm = 1000 pm, 1 nJ = 1e-3 µJ, 1 EFLOPS = 1e18 FLOPS."""
    assert _text(fmt(1.28e12, "ps")) == "1.28 s"  # the "1280000000000.0 ps": 64 tokens at 20 ms/token
    assert _text(fmt(0.0819, "nm")) == "81.9 pm"
    assert _text(fmt(33239.8592, "nJ")) == "33.2 µJ"
    assert _text(fmt(128 * 128 * 128 * 64 * 2 * 5e9, "FLOPS")) == "1.34 EFLOPS"  # S2-04's own arithmetic
    assert _text(fmt(1e9, "Hz")) == "1 GHz"
    assert _text(fmt(0.2, "um")) == "200 nm"  # ASCII micro read as µ
    assert _text(fmt(2.5451, "pm/V")) == "2.55 pm/V"  # the numerator of a compound unit carries the prefix


def test_readable_values_keep_their_unit_with_four_digits_from_1000():
    """A wavelength stays in nm (1549 nm, not 1.55 µm) and keeps four digits; 8.218 nm keeps 3 figures."""
    assert _text(fmt(1548.9933, "nm")) == "1549 nm"
    assert _text(fmt(8.218409103585886, "nm")) == "8.22 nm"
    assert _text(fmt(999.96, "nm")) == "1000 nm"  # rounding up to 1000 does not switch to exponent notation


def test_logarithmic_and_other_units_are_not_prefixed():
    """dB, dBm, %, GiB have no SI prefix: −18.19 dBm stays dBm; 'dB' is not deci-bytes."""
    assert parse_unit("dB") is None and parse_unit("dBm") is None and parse_unit("GiB") is None
    assert _text(fmt(-18.192774745943744, "dBm")) == "-18.2 dBm"
    assert _text(fmt(-0.045566551408060325, "dB")) == "-0.0456 dB"
    assert fmt(-1.0, "dB").startswith(MINUS)  # a true minus sign
    assert _text(fmt(2 * 32 * 8 * 128 * 131072 * 2 / 2**30, "GiB")) == "16 GiB"  # S1-01: Llama-3.1-8B at 128K


def test_floating_noise_and_large_dimensionless_numbers():
    """The issue's 0.012499999999999956 (= 1 − 0.9875) reads 0.0125; a loaded Q λ/Δλ = 1549 nm / 81.9 pm ≈ 1.89e4
    reads in a power of ten that is a multiple of three, as the SI prefixes are; integers ≥ 10⁴ are grouped."""
    assert fmt(1 - 0.9875) == "0.0125"
    assert _text(fmt(1548.99 / 0.08194)) == "18.9 × 10³"
    assert _text(plain(1.0e-5)) == "10 × 10⁻⁶"
    assert _text(plain(999.96e3)) == "1 × 10⁶"  # rounded before the exponent is chosen, never 1000 × 10³
    assert _text(fmt(2**17, "tokens")) == "131 072 tokens"
    assert fmt(None, "nm") == "—" and fmt("≈ 0", "W") == "≈ 0" and fmt(math.nan, "dB") == "n/a"
    assert fmt(True) == "yes"


def test_ranges_share_one_scale():
    """Both ends in one unit and one exponent: FSR = λ²/(n_g L) at n_g 2.3209 and 2.3257 (R = 20 µm)."""
    length = 2 * math.pi * 20.0
    fsr = [1.55**2 / (ng * length) * 1e3 for ng in (2.3257, 2.3209)]
    assert _text(fmt_range(*fsr, "nm")) == "8.22–8.24 nm"
    assert _text(fmt_range(0.05647, 0.2086, "nm")) == "56.5–209 pm"
    assert _text(fmt_range(7439.5, 27388.1)) == "7.44–27.4 × 10³"
    assert _text(fmt_range(8.2184, 8.2186, "nm")) == "8.218–8.219 nm"  # more digits until the ends differ
    assert _text(fmt_range(-3.2, 4.1, "dB")) == "-3.2 to 4.1 dB"  # trailing zeros dropped
    # over decades each end keeps its 3 figures in the one scale (10·log10 of power ratios 1.114 and 38 905)
    assert _text(fmt_range(10 * math.log10(1.114), 10 * math.log10(38905), "dB")) == "0.469–45.9 dB"
    assert _text(fmt_range(25.1e-18, 101e-15, "W")) == "0.0251–101 fW"
    assert _text(fmt(1 / 256, "FLOP/byte")) == "0.00391 FLOP/byte"  # counted units: no milli-FLOP


# ---------------------------------------------------------------------------- the page on a synthetic report
WL_NM, NG, RADIUS_UM, FWHM_NM = 1550.0, 2.32, 20.0, 0.082


def _synthetic_report() -> dict:
    """A small report whose ring figures follow from FSR = λ²/(n_g·2πR) and Q_L = λ/FWHM."""
    fsr = WL_NM**2 / (NG * 2 * math.pi * RADIUS_UM * 1e3)
    q = WL_NM / FWHM_NM
    claims = [  # today's ledger fields
        {"id": "S1-10", "quantity": "FSR of the 20 µm ring", "claimed": 8.3, "modeled": fsr, "unit": "nm",
         "verdict": "consistent", "reason": "n_g from the mode solver"},
        {"id": "S1-10", "quantity": "loaded Q at the default gap", "claimed": 12500.0, "modeled": q, "unit": "",
         "verdict": "inconsistent", "reason": "Q follows from gap and loss"},
        # the verdicts issue's fields
        {"id": "S1-12", "quantity": "SNR at 1 GHz", "claimed": 37.2, "criterion": None, "modeled": 32.45,
         "modeled_lo": 30.1, "modeled_hi": 38.9, "unit": "dB", "verdict": "depends",
         "condition": "consistent iff the TIA noise ≤ 10 pA/√Hz", "tolerance": "±1 dB",
         "reason": "receiver noise decides", "section": "link_budget",
         "assumptions": [{"name": "TIA input noise", "nominal": 10e-12, "lo": 2e-12, "hi": 20e-12, "unit": "A/√Hz",
                          "source": "assumption"}]},
        {"id": "S1-08", "quantity": "recall of signature schemes", "claimed": "89.2 / 85.7 %", "modeled": None,
         "unit": "%", "verdict": "needs-data", "reason": "needs the model's KV cache", "section": "recall"},
    ]
    return {"prismpic_version": "0.0.test", "timings_s": {"ring": 1.5, "claims": 0.5},
            "ring": {"radius_um": RADIUS_UM, "gap_um": 0.2, "ng": NG, "fsr_nm": fsr, "fwhm_nm": FWHM_NM,
                     "q_loaded": q, "extinction_db": 17.9, "critical_gap_um": 0.358},
            "claims": claims, "figures": {}}


def _lorentzian_spectrum():
    """A drop-port Lorentzian of width FWHM_NM and its through port 1 − drop (lossless, critically coupled)."""
    wl = np.linspace(WL_NM - 1.0, WL_NM + 1.0, 801)
    drop = 1 / (1 + (2 * (wl - WL_NM) / FWHM_NM) ** 2)
    return wl, 1 - drop + 1e-6, drop


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    report = _synthetic_report()
    work = tmp_path_factory.mktemp("page")
    plots = {"ring_spectrum": ("ring", ring_spectrum_figure(*_lorentzian_spectrum(), report["ring"]))}
    return render_report(report, {}, work, plots, claim_texts={"S1-10": "A 20 µm ring has an FSR of 8.3 nm."})


def test_claims_table_has_one_row_per_entry_and_each_verdict(page):
    body = page[page.index('id="claims-table"'):]
    body = body[: body.index("</table>")]
    assert body.count('<tr class="entry') == 4
    for verdict in ("consistent", "inconsistent", "depends", "needs-data"):
        assert f'<span class="verdict {verdict}">{verdict}</span>' in body
    assert 'rowspan="2"' in body  # S1-10's two entries share its id and text cell
    assert "A 20 µm ring has an FSR of 8.3 nm." in body
    assert "consistent iff the TIA noise ≤ 10 pA/√Hz" in body and "tolerance ±1 dB" in body
    assert _text("range 30.1–38.9 dB") in _text(body)
    assert _text("TIA input noise = 10 pA/√Hz (2–20 pA/√Hz; assumption)") in _text(body)
    assert 'href="#link_budget"' in body and 'href="#recall"' in body


def test_page_numbers_are_formatted_and_json_is_linked_not_dumped(page):
    visible = re.sub(r"<script.*?</script>|<style.*?</style>", "", page, flags=re.S)
    fsr = WL_NM**2 / (NG * 2 * math.pi * RADIUS_UM * 1e3)
    assert repr(fsr) not in visible and f"{fsr:.3g}" in visible  # 8.26 nm, never 8.2584...
    assert not re.search(r"\d\.\d{7,}", visible), "a raw float on the page"
    assert _text("18.9 × 10³") in _text(visible)  # Q_L = 1550 nm / 82 pm
    assert 'href="report.json"' in page and '"prismpic_version"' not in page
    assert page.startswith("<!doctype html>")


def test_plotly_is_inlined_once_and_the_plot_embedded(page):
    import plotly

    assert page.count("Plotly.newPlot(") == 1
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1  # the library's banner: one copy of plotly.js
    assert plotly.__version__ and 'id="plot-ring_spectrum"' in page
    assert "wavelength (nm)" in page and "transmission (dB)" in page  # axes with units


def test_summary_counts_and_headline_figures():
    s = report_sections.summary(_synthetic_report())
    assert s["counts"] == {"consistent": 1, "inconsistent": 1, "depends": 1, "needs-data": 1}
    labels = {r["label"]: r["value"] for r in s["device"]}
    assert _text(labels["FWHM"]) == "82 pm" and _text(labels["critical gap (all-pass)"]) == "358 nm"


# ---------------------------------------------------------------------------- layout picture and layer properties
def test_render_draws_the_ridge_in_its_pdk_colour(tmp_path):
    from PIL import Image

    from prismpic.components.waveguides import straight
    from prismpic.fileio import write_gds_atomic
    from prismpic.pdk.layers import get_layer_views, write_lyp
    from prismpic.report.layout_render import render_gds_png

    gds = write_gds_atomic(straight(length=50.0), tmp_path / "s.gds", with_metadata=False)
    lyp = write_lyp(tmp_path / "p.lyp")
    drawn = render_gds_png(gds, tmp_path / "s.png", lyp, width_px=400, oversampling=1)
    colour = get_layer_views().layer_views["LN_RIDGE"].fill_color.as_hex(format="long").lower()
    assert {"name": "LN_RIDGE", "layer": [1, 0], "color": colour} in drawn["layers"]
    img = np.asarray(Image.open(tmp_path / "s.png").convert("RGB"))
    assert img.shape[1] == 400 and img.shape[0] == drawn["height_px"]
    rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    assert (img == rgb).all(axis=-1).any(), "no pixel in the ridge's colour"
