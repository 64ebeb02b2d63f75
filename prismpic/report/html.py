"""report.html: one self-contained page rendered from the jinja2 templates in ``report/templates``.

The page holds the summary, the claims table, the prototype's layout picture and every section
(``report_sections``); PNG figures are embedded as data URIs, interactive figures (``report_plots``) as plotly
divs with plotly.js inlined once in the page's head, so the file works offline. report.json is linked, not shown.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path

import jinja2

from prismpic.report import sections as report_sections
from prismpic.report.formatting import fmt

PLOT_CONFIG = {"displaylogo": False, "responsive": True, "scrollZoom": False,
               "toImageButtonOptions": {"format": "png", "scale": 2}}


def environment() -> jinja2.Environment:
    """The jinja2 environment of the report's templates (HTML-autoescaped, ``fmt`` as a filter)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("prismpic.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]), trim_blocks=True,
                             lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["fmt"] = fmt
    return env


def plot_html(fig, div_id: str) -> str:
    """One plotly figure as a div and its script, without plotly.js (the page loads it once)."""
    import plotly.io as pio

    return pio.to_html(fig, include_plotlyjs=False, full_html=False, div_id=div_id, config=PLOT_CONFIG,
                       default_height=f"{fig.layout.height or 420}px", validate=False)


def plotly_js() -> str:
    """plotly.js (minified) as shipped with the plotly package, to inline in the page."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _images(figures: Mapping[str, str], workdir: Path, plots: Mapping) -> tuple[dict, dict]:
    """(embedded PNGs by name, PNGs linked beside an interactive figure by plot name); figures not assigned to a
    section go to the 'other' section."""
    embedded, linked = {}, {}
    for name, caption in figures.items():
        section, plot = report_sections.FIGURES.get(name, ("other", None))
        if plot is not None and plot in plots:
            linked.setdefault(plot, []).append({"name": name, "caption": caption})
            continue
        path = workdir / name
        if not path.is_file():
            continue
        data = base64.b64encode(path.read_bytes()).decode()
        embedded[name] = {"name": name, "caption": caption, "section": section, "src": f"data:image/png;base64,{data}"}
    return embedded, linked


def _flat(blocks: list[dict]) -> list[dict]:
    return [x for b in blocks for x in (_flat(b["blocks"]) if b["kind"] in ("row", "stack") else [b])]


def _with_png_fallback(blocks: list[dict], plots: Mapping, figures: Mapping[str, str]) -> list[dict]:
    """``blocks`` with each interactive figure that was not made replaced by the PNGs it stands for."""
    out = []
    for b in blocks:
        if b["kind"] == "plot" and b["name"] not in plots:
            out += [{"kind": "figure", "name": n} for n, (_, plot) in report_sections.FIGURES.items()
                    if plot == b["name"] and n in figures]
        elif b["kind"] in ("row", "stack"):
            out.append({**b, "blocks": _with_png_fallback(b["blocks"], plots, figures)})
        else:
            out.append(b)
    return out


def render_report(report: dict, figures: Mapping[str, str], workdir: str | Path,
                  plots: Mapping[str, tuple[str, object]] | None = None,
                  claim_texts: Mapping[str, str] | None = None, assumptions: Mapping[str, dict] | None = None) -> str:
    """The HTML page of ``report`` (report.json's dict).

    Args:
        report: the report dict.
        figures: PNG file name (in ``workdir``) → caption.
        workdir: folder holding the PNGs.
        plots: interactive figures as {name: (section, plotly Figure)} (``report_plots.report_figures``).
        claim_texts: claim id → the claim's own text, shown beside its entries.
        assumptions: assumption name → {label, nominal, lo, hi, unit, source}: the ranges of the assumptions an
            entry names.
    """
    plots = dict(plots or {})
    embedded, linked = _images(figures, Path(workdir), plots)
    claims = report.get("claims") or []
    sections = [{**s, "blocks": _with_png_fallback(s["blocks"], plots, figures)}
                for s in report_sections.sections(report)]
    placed = {b["name"] for s in sections for b in _flat(s["blocks"]) if b["kind"] in ("figure", "plot")}
    claim_figures = [im for im in embedded.values() if im["section"] == "claims"]
    others = [im for n, im in embedded.items() if n not in placed and im["section"] != "claims"]
    if others:
        sections.append({"id": "other", "title": "Other figures",
                         "blocks": [{"kind": "figure", "name": im["name"]} for im in others]})
    nav = list(report_sections.SECTIONS[:2]) + [(s["id"], s["title"]) for s in sections]
    timings = report.get("timings_s") or {}
    rows = report_sections.claim_rows(claims, dict(claim_texts or {}), dict(assumptions or {}))
    return environment().get_template("report.html.j2").render(
        gds=(report.get("layout") or {}).get("gds", ""), version=report.get("prismpic_version", ""),
        total_s=fmt(sum(timings.values()), "s"), summary=report_sections.summary(report), claim_rows=rows,
        claim_figures=claim_figures, sections=sections, nav=nav, images=embedded, linked=linked,
        plots={name: plot_html(fig, f"plot-{name}") for name, (_, fig) in plots.items()},
        plotly_js=plotly_js() if plots else "", platform=report_sections.platform_header(report),
        claims_note=report_sections.off_preset_note(report, "claims"))
