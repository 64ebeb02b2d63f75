"""The report's interactive figures (plotly): spectra and sweeps that the page embeds, zoomable, with units.

Each function returns a ``plotly.graph_objects.Figure`` built from the report's own results; ``report_figures``
collects them per report section. The page inlines plotly.js once (``report_html``); these figures carry data only.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from prismpic.report.formatting import fmt

TEMPLATE = "plotly_white"
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
HEIGHT_PX = 420
CORNER_QUANTITIES = (("q_loaded", "loaded Q (dimensionless)"), ("extinction_db", "through extinction (dB)"),
                     ("critical_gap_um", "all-pass critical gap (µm)"))


def _styled(fig: go.Figure, title: str, height: int = HEIGHT_PX) -> go.Figure:
    fig.update_layout(template=TEMPLATE, title={"text": title, "font": {"size": 14}}, height=height, separators=". ",
                      margin={"l": 70, "r": 20, "t": 60, "b": 60}, hovermode="closest",
                      legend={"orientation": "h", "y": -0.2})
    return fig


def _db(y) -> np.ndarray:
    return 10 * np.log10(np.maximum(np.asarray(y, float), 1e-12))


def ring_spectrum_figure(wl_nm, through, drop, ring: dict) -> go.Figure:
    """Through and drop power (dB) of the add-drop ring against wavelength (nm)."""
    wl = np.asarray(wl_nm, float)
    fig = go.Figure([go.Scatter(x=wl, y=_db(through), name="through |S21|²", mode="lines"),
                     go.Scatter(x=wl, y=_db(drop), name="drop |S41|²", mode="lines")])
    fig.update_xaxes(title_text="wavelength (nm)")
    fig.update_yaxes(title_text="transmission (dB)")
    title = (f"Add-drop ring R = {fmt(ring['radius_um'], 'µm')}, gap = {fmt(ring['gap_um'], 'µm')}: "
             f"Q<sub>L</sub> = {fmt(ring['q_loaded'])}, FSR (λ<sub>r</sub>²/n<sub>g</sub>L) = {fmt(ring['fsr_nm'], 'nm')}, "
             f"FWHM = {fmt(ring['fwhm_nm'], 'nm')}")
    return _styled(fig, title)


def process_corners_figure(spread: dict) -> go.Figure:
    """The ring's loaded Q, extinction and critical gap at the process's nominal point and each ±3σ corner."""
    corners = spread["corners"]
    names = list(corners)
    fig = make_subplots(rows=1, cols=len(CORNER_QUANTITIES), subplot_titles=[t for _, t in CORNER_QUANTITIES],
                        horizontal_spacing=0.12)
    for col, (key, label) in enumerate(CORNER_QUANTITIES, start=1):
        values = [corners[n][key] for n in names]
        colours = ["#444" if n == "nominal" else "#2f7fff" for n in names]
        fig.add_trace(go.Bar(x=values, y=names, orientation="h", marker_color=colours, name=label,
                             showlegend=False, hovertemplate="%{y}: %{x:.4g}<extra>" + label + "</extra>"),
                      row=1, col=col)
    fig.update_yaxes(autorange="reversed", showticklabels=False)
    fig.update_yaxes(showticklabels=True, row=1, col=1)
    return _styled(fig, "Ring over the process: nominal (grey) and each ±3σ corner", height=460)


def crosstalk_figure(matrix_db, channels_um, floor_db: float = -60.0) -> go.Figure:
    """Crosstalk (dB) of ring j at channel i, every resonance order; diagonal blank."""
    m = np.array(matrix_db, float)
    np.fill_diagonal(m, np.nan)
    ch = np.round(np.asarray(channels_um, float) * 1e3, 3)
    fig = go.Figure(go.Heatmap(z=np.clip(m, floor_db, None), x=ch, y=ch, colorscale="Magma", zmin=floor_db,
                               zmax=max(0.0, float(np.nanmax(m))), colorbar={"title": {"text": "dB"}},
                               hovertemplate="channel %{y} nm, ring of %{x} nm: %{z:.1f} dB<extra></extra>"))
    fig.update_xaxes(title_text="ring j: its channel wavelength (nm)")
    fig.update_yaxes(title_text="channel i wavelength (nm)")
    return _styled(fig, f"What ring j drops at channel i relative to ring i (dB; floor {floor_db:g} dB)", height=560)


def _levels(budget: dict) -> tuple[list[float], list[str]]:
    levels, names = [budget["laser_dbm"]], ["laser"]
    for stage in budget["stages"]:
        levels.append(levels[-1] - stage["loss_db"])
        names.append(f"{stage['name']} (−{stage['loss_db']:.2f} dB)")
    return levels, names


def link_budget_figure(modeled: dict, seed: dict | None) -> go.Figure:
    """Optical power (dBm) after each stage of the link, modeled and (if given) the seed's S1-12 values."""
    fig = go.Figure()
    for label, budget, dash in (("modeled", modeled, "solid"), ("seed S1-12", seed, "dash")):
        if not budget:
            continue
        levels, names = _levels(budget)
        fig.add_trace(go.Scatter(x=list(range(len(levels))), y=levels, mode="lines+markers", name=label,
                                 line={"shape": "hv", "dash": dash}, text=names,
                                 hovertemplate="%{text}<br>%{y:.2f} dBm<extra>" + label + "</extra>"))
    levels, names = _levels(modeled)
    fig.update_xaxes(title_text="stage (the power drops at the stage's tick)", tickvals=list(range(len(levels))),
                     tickangle=-20, automargin=True, range=[-0.4, len(levels) - 0.6],
                     ticktext=["laser"] + [s["name"] for s in modeled["stages"]])
    fig.update_yaxes(title_text="optical power (dBm)")
    fig = _styled(fig, f"Link budget: received {levels[-1]:.1f} dBm per detector (modeled)", height=480)
    fig.update_layout(legend={"orientation": "v", "x": 0.99, "xanchor": "right", "y": 0.99, "yanchor": "top"},
                      margin={"b": 40})
    return fig


def separation_figure(curve: dict, minilm_rows=None, k: int = 8) -> go.Figure:
    """Recall@k against the planted family's separation S, per case; MiniLM heads as points."""
    fig = go.Figure()
    per_ring = list(curve["cases"].get("per-ring", {}))
    for drift, dash in (("per-ring", "solid"), ("common", "dash")):
        for name, means in curve["cases"].get(drift, {}).items():
            base = name.replace(" common", "")  # a case and its common-mode twin share a colour
            colour = PALETTE[(per_ring.index(base) if base in per_ring else len(per_ring)) % len(PALETTE)]
            fig.add_trace(go.Scatter(x=curve["separation"], y=means, mode="lines+markers", name=name,
                                     line={"dash": dash, "color": colour}))
    if minilm_rows:
        x = [r["separation"] for r in minilm_rows]
        text = [f"layer {r['layer']} head {r['head']}" for r in minilm_rows]
        for key, label, symbol, colour in (("hardware_per_ring", "MiniLM heads (per-ring drift)", "x", "black"),
                                           ("hardware_common", "MiniLM heads (common drift)", "cross", "magenta")):
            fig.add_trace(go.Scatter(x=x, y=[r[key] for r in minilm_rows], mode="markers", name=label, text=text,
                                     marker={"symbol": symbol, "size": 7, "color": colour},
                                     hovertemplate="%{text}: S = %{x:.2f}, recall %{y:.3f}<extra></extra>"))
    fig.update_xaxes(title_text="separation S (bulk σ by which the true top-k stand above the bulk)")
    fig.update_yaxes(title_text=f"recall@{k} (fraction)", range=[0, 1.02])
    return _styled(fig, f"Recall@{k} against separation (S = 0: i.i.d. Gaussian null); dashed: common-mode drift",
                   height=480)


def drift_split_figure(split: dict, k: int = 8) -> go.Figure:
    """Recall@k against the common-mode share of the drift variance, free and with a lock loop."""
    fig = go.Figure()
    for name, means in split["curves"].items():
        fig.add_trace(go.Scatter(x=split["common_fraction"], y=means, mode="lines+markers", name=name,
                                 line={"dash": "dash" if "lock" in name else "solid"}))
    sigma = fmt(split["total_sigma_nm"], "nm")
    fig.update_xaxes(title_text=f"common-mode fraction of the drift variance (σ = {sigma})")
    fig.update_yaxes(title_text=f"recall@{k} (fraction)", range=[0, 1.02])
    return _styled(fig, f"Recall@{k} against the drift's common-mode share")


def report_figures(report: dict, results: dict) -> dict[str, tuple[str, go.Figure]]:
    """The interactive figures of a report as {name: (section, figure)}, from report.json's sections and the
    in-memory results ``write_report`` keeps (``ring_spectrum``: (wl_nm, through, drop); ``crosstalk``)."""
    out: dict[str, tuple[str, go.Figure]] = {}
    ring = report.get("ring")
    if ring and "ring_spectrum" in results:
        out["ring_spectrum"] = ("ring", ring_spectrum_figure(*results["ring_spectrum"], ring))
    if ring and ring.get("process_spread", {}).get("corners"):
        out["ring_corners"] = ("ring", process_corners_figure(ring["process_spread"]))
    xt = results.get("crosstalk")
    if xt is not None:
        out["crosstalk"] = ("crosstalk", crosstalk_figure(xt.matrix, xt.channels_um))
    lb = report.get("link_budget")
    if lb:
        out["link_budget"] = ("link_budget", link_budget_figure(lb, lb.get("seed")))
    rec = report.get("recall") or {}
    if rec.get("separation_curve"):
        heads = (rec.get("minilm") or {}).get("heads")
        out["recall_separation"] = ("recall", separation_figure(rec["separation_curve"], heads))
    if rec.get("drift_split"):
        out["recall_drift_split"] = ("recall", drift_split_figure(rec["drift_split"]))
    return out
