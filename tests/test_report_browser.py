"""report.html as a designer opens it: one real report, its file checks, and headless Chromium driven by Selenium.

One report is built for the whole test run (``report_dir`` in conftest.py, shared with test_cli.py). The browser test loads it from a file:// URL and checks: no
console errors, every image decoded, every plotly figure drawn, one claims-table row per ledger entry, the summary,
claims and layout picture on screen; it saves screenshots under its tmp_path. It is skipped only when chromedriver
is absent (CI installs Debian's chromium and chromium-driver in .ci/run).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HTML_MAX_BYTES = 12 * 2**20  # plotly.js is 4.8 MB of it; a second copy would pass 10 MB

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(report_dir) -> dict:
    return json.loads((report_dir / "report.json").read_text())


def test_page_is_self_contained_and_links_the_json(report_dir, report):
    html = (report_dir / "report.html").read_text()
    assert html.startswith("<!doctype html>") and len(html.encode()) < HTML_MAX_BYTES
    assert len(re.findall(r"\* plotly\.js v\d", html)) == 1, "plotly.js must be inlined exactly once"
    assert 'href="report.json"' in html and '"prismpic_version"' not in html, "the JSON is linked, not dumped"
    assert not re.search(r"<(script|img|link)[^>]+(src|href)=\"https?://", html), "the page loads nothing online"
    visible = re.sub(r"<script.*?</script>|<style.*?</style>|<img[^>]*>", "", html, flags=re.S)
    raw = re.findall(r"\d\.\d{7,}", visible)
    assert not raw, f"raw floats on the page: {raw[:5]}"
    assert 'data:image/png;base64,' in html and report["layout"]["png"] in report["figures"]
    png = (report_dir / report["layout"]["png"]).read_bytes()
    assert png[:4] == b"\x89PNG" and base64.b64encode(png).decode()[:200] in html, "layout picture not embedded"
    assert (report_dir / report["layout"]["lyp"]).read_text().lstrip().startswith("<?xml")


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    if CHROMIUM.exists():
        opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--allow-file-access-from-files"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


@pytest.mark.skipif(not Path(CHROMEDRIVER).exists(), reason="chromedriver is not installed (Debian: apt-get install "
                                                            "chromium chromium-driver; .ci/run does it in CI)")
def test_report_in_headless_chromium(report_dir, report, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = _driver()
    try:
        driver.get((report_dir / "report.html").resolve().as_uri())
        # a 12 MB page on a loaded CI machine: wait until it has parsed and drawn, up to a minute (counting at once
        # once found 0 plots in a page that has 6)
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "return document.readyState === 'complete' && [...document.querySelectorAll('.plotly-graph-div')]"
            ".every(p => p.querySelector('.plot-container .main-svg'))"))
        n_plots = len(driver.find_elements(By.CSS_SELECTOR, ".plotly-graph-div"))
        assert n_plots >= 5, "the ring spectrum, corners, crosstalk, link budget and recall sweeps are interactive"
        images = driver.execute_script(
            "return [...document.images].map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])")
        assert len(images) >= 3 and all(done and w > 0 and h > 0 for _, done, w, h in images), images
        rows = driver.find_elements(By.CSS_SELECTOR, "#claims-table tbody tr")
        assert len(rows) == len(report["claims"]) > 0
        verdicts = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#claims-table .verdict")]
        assert verdicts == [c["verdict"] for c in report["claims"]]
        for css in ("#summary .counts", "#device-figures", "#system-figures", "#claims-table",
                    "#layout figure img"):
            assert driver.find_element(By.CSS_SELECTOR, css).is_displayed(), css
        hrefs = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "nav a")]
        targets = [h.rsplit("#", 1)[1] for h in hrefs if "#" in h]
        assert {"summary", "claims", "layout", "ring", "link_budget"} <= set(targets)
        assert all(driver.find_elements(By.ID, t) for t in targets), "a navigation link without its section"
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        driver.save_screenshot(str(tmp_path / "report_top.png"))
        height = driver.execute_script("return document.documentElement.scrollHeight")
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": 1400, "height": height, "scale": 1}})
        (tmp_path / "report_full.png").write_bytes(base64.b64decode(shot["data"]))
    finally:
        driver.quit()
    assert (tmp_path / "report_full.png").read_bytes()[:4] == b"\x89PNG"
