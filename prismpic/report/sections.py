"""What the report page shows, as plain data for the template: the summary, the claims rows, the sections.

Everything here reads a report dict (what report.json holds) and returns formatted text (``report_format``);
``report_html`` adds the figures and renders the jinja2 template. A missing section or key is shown as absent,
never an error, so the page renders for partial reports too.

Blocks of a section: ``{"kind": "table", "caption", "head", "rows"}`` (a cell is text or ``{"text", "cls",
"href"}``), ``{"kind": "plot", "name"}`` (an interactive figure), ``{"kind": "figure", "name"}`` (a PNG),
``{"kind": "text", "text"}``, ``{"kind": "list", "items"}``, ``{"kind": "row", "blocks"}`` (side by side) and
``{"kind": "stack", "blocks"}`` (one below the other).
"""

from __future__ import annotations

from collections import Counter

from prismpic.report.formatting import fmt, fmt_range, plain

VERDICTS = ("consistent", "inconsistent", "depends", "needs-data")
SECTIONS = (("summary", "Summary"), ("claims", "Claims"), ("layout", "Layout"), ("ring", "Ring"),
            ("crosstalk", "Crosstalk"), ("link_budget", "Link budget"), ("noise", "Noise"), ("recall", "Recall"),
            ("energy", "Energy"), ("time_domain", "Time domain"), ("platform", "Platform"), ("devices", "Devices"), ("files", "Files"))
TITLES = dict(SECTIONS)
# PNG figures: the section showing them and, where one exists, the interactive figure that replaces the image
# on the page (the PNG stays beside the report and is linked).
FIGURES = {
    "prototype_8x8.png": ("layout", None),
    "ring_spectrum.png": ("ring", "ring_spectrum"),
    "crosstalk.png": ("crosstalk", "crosstalk"),
    "link_budget.png": ("link_budget", "link_budget"),
    "link_budget_seed.png": ("link_budget", "link_budget"),
    "noise_breakdown.png": ("noise", None),
    "recall.png": ("recall", None),
    "recall_separation.png": ("recall", "recall_separation"),
    "recall_drift_split.png": ("recall", "recall_drift_split"),
    "tornado.png": ("claims", None),
    "transient_waveforms.png": ("time_domain", None),
    "transient_eye.png": ("time_domain", None),
    "weight_update.png": ("time_domain", None),
}


def cell(text: str, cls: str = "", href: str = "", swatch: str = "") -> dict:
    """A table cell with a CSS class, a link and/or a colour swatch (a CSS colour)."""
    return {"text": text, "cls": cls, "href": href, "swatch": swatch}


def table(caption: str, head: list[str], rows: list[list], text_cols: tuple[int, ...] = (0,)) -> dict:
    """A table block; columns other than ``text_cols`` hold numbers (right-aligned)."""
    return {"kind": "table", "caption": caption, "head": head, "rows": rows, "text_cols": list(text_cols)}


# ---------------------------------------------------------------------------- claims
def verdict_counts(claims: list[dict]) -> dict[str, int]:
    """Entries per verdict, in the order consistent, inconsistent, depends, needs-data (others after)."""
    n = Counter(str(c.get("verdict", "")) for c in claims)
    return {v: n[v] for v in (*VERDICTS, *sorted(set(n) - set(VERDICTS))) if n[v] or v in VERDICTS}


def _as_text(value, unit: str = "") -> str:
    """A tolerance, criterion or assumption value of any shape as text."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_as_text(v, unit)}" for k, v in value.items())
    if isinstance(value, list | tuple) and not (len(value) == 2 and all(isinstance(x, int | float) for x in value)):
        return "; ".join(_as_text(v, unit) for v in value)
    return fmt(value, unit)


def _assumption(a, registry: dict) -> str:
    """One assumption as 'label = nominal (lo–hi unit; source)'; a bare name is looked up in ``registry``."""
    if not isinstance(a, dict):
        if str(a) not in registry:
            return str(a)
        a = registry[str(a)]
    unit = a.get("unit", "")
    text = str(a.get("label") or a.get("name", ""))
    nominal = a.get("nominal", a.get("value"))
    if nominal is not None:
        text += f" = {fmt(nominal, unit)}"
    lo, hi = a.get("lo", a.get("low")), a.get("hi", a.get("high"))
    detail = [fmt_range(lo, hi, unit)] if lo is not None and hi is not None else []
    if a.get("source"):
        detail.append(str(a["source"]))
    return text + (f" ({'; '.join(detail)})" if detail else "")


def _assumptions(value, registry: dict) -> list[str]:
    if not value:
        return []
    if isinstance(value, dict):
        return [_assumption({"name": k, **v} if isinstance(v, dict) else f"{k} = {v}", registry)
                for k, v in value.items()]
    return [_assumption(a, registry) for a in value]


def _modeled(c: dict) -> tuple[str, str]:
    """(modeled value, modeled range) of an entry, formatted with its unit."""
    unit = c.get("unit", "")
    lo, hi = c.get("modeled_lo"), c.get("modeled_hi")
    span = fmt_range(lo, hi, unit) if lo is not None and hi is not None and lo != hi else ""
    return fmt(c.get("modeled"), unit), span


def claim_rows(claims: list[dict], texts: dict[str, str] | None = None, assumptions: dict | None = None) -> list[dict]:
    """One row per ledger entry, grouped by claim id (``span``: the group's size, on its first row).

    ``texts``: claim id → the claim's own text; ``assumptions``: assumption name → {label, nominal, lo, hi, unit,
    source}, to show an entry's assumptions (given by name) with their ranges.
    """
    texts, assumptions = texts or {}, assumptions or {}
    rows = []
    for i, c in enumerate(claims):
        cid = str(c.get("id", ""))
        first = i == 0 or str(claims[i - 1].get("id", "")) != cid
        span = 0
        if first:
            span = 1
            while i + span < len(claims) and str(claims[i + span].get("id", "")) == cid:
                span += 1
        unit = c.get("unit", "")
        modeled, modeled_range = _modeled(c)
        section = c.get("section") or ""
        claimed = c.get("claimed")
        rows.append({
            "id": cid, "first": first, "span": span, "text": texts.get(cid, ""),
            "quantity": str(c.get("quantity", "")), "reason": str(c.get("reason") or ""),
            "claimed": fmt(claimed, unit) if claimed is not None else "",
            "criterion": _as_text(c["criterion"], unit) if c.get("criterion") is not None else "",
            "modeled": modeled, "modeled_range": modeled_range,
            "verdict": str(c.get("verdict", "")), "condition": str(c.get("condition") or ""),
            "tolerance": _as_text(c["tolerance"], unit) if c.get("tolerance") is not None else "",
            "assumptions": _assumptions(c.get("assumptions"), assumptions), "basis": str(c.get("basis") or ""),
            "section": section, "section_title": TITLES.get(section, section.replace("_", " ")),
        })
    return rows


# ---------------------------------------------------------------------------- summary
def _spread(ring: dict, key: str, unit: str) -> tuple[str, str]:
    """(±3σ corner span, Monte Carlo p5–p95) of a ring quantity from the report's process spread."""
    ps = ring.get("process_spread") or {}
    span = (ps.get("corner_span") or {}).get(key)
    mc = (ps.get("monte_carlo") or {}).get(key) or {}
    corners = fmt_range(*span, unit) if span else ""
    draws = fmt_range(mc["p5"], mc["p95"], unit) if "p5" in mc else ""
    return corners, draws


FSR_LABEL = "free spectral range, FSR = λ_r²/(n_g L) at the resonance λ_r"
RING_ROWS = (("loaded Q, Q_L (dimensionless)", "q_loaded", ""), ("intrinsic Q, Q_i (dimensionless)", "q_intrinsic", ""),
             ("through extinction, ER", "extinction_db", "dB"), (FSR_LABEL, "fsr_nm", "nm"),
             ("linewidth, FWHM", "fwhm_nm", "nm"), ("group index, n_g (dimensionless)", "ng", ""),
             ("drop loss", "drop_loss_db", "dB"), ("critical gap (all-pass)", "critical_gap_um", "µm"),
             ("Pockels tuning", "tuning_pm_per_v", "pm/V"), ("voltage per linewidth", "v_per_linewidth", "V"),
             ("resonance", "resonance_nm", "nm"))


def ring_rows(ring: dict) -> list[list]:
    """Rows (quantity, nominal, ±3σ corners, Monte Carlo p5–p95) of the ring's figures."""
    rows = []
    for label, key, unit in RING_ROWS:
        if key not in ring:
            continue
        corners, draws = _spread(ring, key, unit)
        value = ring[key]
        rows.append([label, fmt(value, unit) if not isinstance(value, str) else cell(value, "warn"), corners, draws])
    return rows


def _recall_headline(rec: dict) -> dict | None:
    cases = rec.get("cases") or []
    name = rec.get("all_impairments_case")
    return next((c for c in cases if c.get("case") == name), None) or (min(cases, key=lambda c: c["recall"])
                                                                       if cases else None)


SUMMARY_RING = (("loaded Q, Q_L", "q_loaded", ""), ("intrinsic Q, Q_i", "q_intrinsic", ""),
                ("extinction (through)", "extinction_db", "dB"), ("FSR, λ_r²/(n_g L) at λ_r", "fsr_nm", "nm"),
                ("FWHM", "fwhm_nm", "nm"),
                ("drop loss", "drop_loss_db", "dB"), ("group index, n_g", "ng", ""),
                ("critical gap (all-pass)", "critical_gap_um", "µm"), ("Pockels tuning", "tuning_pm_per_v", "pm/V"),
                ("voltage per linewidth", "v_per_linewidth", "V"))


def summary(report: dict) -> dict:
    """Verdict counts and the headline device and system figures, each linked to its section."""
    claims = report.get("claims") or []
    ring, lb, nz = report.get("ring") or {}, report.get("link_budget") or {}, report.get("noise") or {}
    rec, en, lay = report.get("recall") or {}, report.get("energy") or {}, report.get("layout") or {}
    device = []
    if ring:
        for label, key, unit in SUMMARY_RING:
            if key in ring:
                corners, draws = _spread(ring, key, unit)
                device.append({"label": label, "value": fmt(ring[key], unit), "corners": corners, "draws": draws,
                               "href": "#ring"})
    system = []
    if lb:
        seed = (lb.get("seed") or {}).get("received_dbm")
        margin = f"{fmt(lb['received_dbm'] - seed, 'dB')} vs the seed's {fmt(seed, 'dBm')}" if seed is not None else ""
        system.append({"label": "received power per detector (modeled link)", "value": fmt(lb["received_dbm"], "dBm"),
                       "note": f"total loss {fmt(lb.get('total_loss_db'), 'dB')}; margin {margin}",
                       "href": "#link_budget"})
        system.append({"label": "SNR of the link (shot, dark, 50 Ω thermal)", "value": fmt(lb.get("snr_db"), "dB"),
                       "note": f"at {fmt(lb.get('bandwidth_hz'), 'Hz')}", "href": "#link_budget"})
    if nz:
        system.append({"label": "SNR with 6-bit ADC and DAC", "value": fmt(nz.get("snr_db"), "dB"),
                       "note": f"ENOB {fmt(nz.get('enob'), 'bits')}", "href": "#noise"})
    xt = report.get("crosstalk") or {}
    if "worst_db" in xt:
        system.append(crosstalk_summary(xt))
    head = _recall_headline(rec)
    if head:
        system.append({"label": "recall@8, all S1-14 impairments", "value": fmt(head["recall"]),
                       "note": f"95 % CI {fmt_range(*head['ci'])} ({head['case']})", "href": "#recall"})
    per_query = (en.get("prism_per_query") or {}).get("total_nj")
    if per_query is not None:
        gpu = en.get("gpu_full_scan_4k_one_head_nj")
        note = f"GPU full scan (4K tokens, one head): {fmt(gpu, 'nJ')}, ratio {plain(gpu / per_query)}" if gpu else ""
        system.append({"label": "energy per PRISM query", "value": fmt(per_query, "nJ"), "note": note,
                       "href": "#energy"})
    layout = None
    if lay:
        n_viol = len(lay.get("drc_violations") or [])
        layout = {"die": f"{fmt(lay.get('width_um'), 'µm', 4)} × {fmt(lay.get('height_um'), 'µm', 4)}",
                  "drc": "clean" if n_viol == 0 else f"{n_viol} violations", "drc_ok": n_viol == 0,
                  "instances": lay.get("instances")}
    return {"counts": verdict_counts(claims), "n_claims": len(claims), "n_ids": len({c.get("id") for c in claims}),
            "device": device, "system": system, "layout": layout,
            "ring_label": (f"add-drop ring R = {fmt(ring.get('radius_um'), 'µm')}, gap {fmt(ring.get('gap_um'), 'µm')}"
                           + _on_preset(report) if ring else "")}


def _on_preset(report: dict) -> str:
    """' on NAME' for a report on another preset than prismpic's own stack ('' otherwise)."""
    pp = report.get("platform_preset") or {}
    return f" on {pp['name']}" if pp.get("name") and not pp.get("default", True) else ""


# ---------------------------------------------------------------------------- sections
def _layout(lay: dict) -> list[dict]:
    viol = lay.get("drc_violations") or []
    w, h = lay.get("width_um"), lay.get("height_um")
    area = w * h * 1e-6 if w and h else None
    rows = [["die (width × height)", f"{fmt(w, 'µm', 4)} × {fmt(h, 'µm', 4)}"],
            ["die area", fmt(area, "mm²")],
            ["top-level instances", fmt(lay.get("instances"))],
            ["DRC", cell("clean" if not viol else f"{len(viol)} violations", "ok" if not viol else "bad")],
            ["GDS", cell(lay.get("gds", ""), href=lay.get("gds", ""))]]
    if lay.get("lyp"):
        rows.append(["KLayout layer properties", cell(lay["lyp"], href=lay["lyp"])])
    legend = [[cell("", swatch=x["color"]), x["name"], f"{x['layer'][0]}/{x['layer'][1]}"]
              for x in lay.get("layers") or []]
    side = [table("The 8×8 prototype (S1-11)", ["", ""], rows, text_cols=(0, 1))]
    if legend:
        side.append(table("Layers drawn (PDK layer views)", ["", "layer", "GDS layer/datatype"], legend,
                          text_cols=(0, 1, 2)))
    blocks = [{"kind": "row", "blocks": [{"kind": "figure", "name": lay.get("png", "prototype_8x8.png")},
                                         {"kind": "stack", "blocks": side}]}]
    if viol:
        blocks.append({"kind": "list", "items": viol[:50]})
    return blocks


def _ring(ring: dict) -> list[dict]:
    ps = ring.get("process_spread") or {}
    head = ["quantity", "nominal", "±3σ process corners", f"Monte Carlo p5–p95 (n = {ps.get('n_samples', '—')})"]
    blocks = [{"kind": "plot", "name": "ring_spectrum"},
              table(f"Add-drop ring, R = {fmt(ring.get('radius_um'), 'µm')}, gap {fmt(ring.get('gap_um'), 'µm')}",
                    head, ring_rows(ring))]
    check = ring.get("spectrum_check")
    if check:
        at = f" at {fmt(check['fsr_wl_nm'], 'nm')}" if check.get("fsr_wl_nm") is not None else ""
        blocks.append({"kind": "text", "text": (
            f"Fitted from the simulated spectrum (prismpic.analysis.spectra): FSR {fmt(check.get('fsr_nm'), 'nm')} "
            f"= spacing of adjacent fitted resonances{at} (linear fit of the spacings against wavelength; the "
            f"table's FSR is λ_r²/(n_g L) at the same λ_r), FWHM {fmt(check.get('fwhm_nm'), 'nm')}, "
            f"Q_L {fmt(check.get('q_loaded'))}"
            + (f", Q_i {fmt(check['q_intrinsic'])} (through and drop inverted in the regime the design fixes)"
               if check.get("q_intrinsic") is not None else "") + ".")})
    if ring.get("loss_budget"):
        blocks += _loss_budget(ring["loss_budget"], ring.get("q_intrinsic"))
    if ps.get("corners"):
        blocks.append({"kind": "plot", "name": "ring_corners"})
        cols = (("q_loaded", ""), ("extinction_db", "dB"), ("fsr_nm", "nm"), ("fwhm_nm", "nm"),
                ("critical_gap_um", "µm"))
        rows = [[name] + [fmt(c.get(k), u) for k, u in cols] for name, c in ps["corners"].items()]
        blocks.append(table("Ring at each process corner (FSR = λ_r²/(n_g L) at the corner's resonance λ_r)",
                            ["corner", "Q_L (dimensionless)", "ER", "FSR", "FWHM", "critical gap"], rows))
    return blocks


def _loss_budget(b: dict, q_model) -> list[dict]:
    causes = (("LN absorption", "absorption_db_per_cm"), ("sidewall scattering", "scattering_db_per_cm"),
              ("bend radiation", "bend_db_per_cm"), ("tuning electrodes' gold", "metal_db_per_cm"),
              ("total", "total_db_per_cm"))
    rows = [[name, fmt(b[key], "dB/cm")] for name, key in causes] + [["Q_i", fmt(b["q_intrinsic"])]]
    counted = (f"the ring model counts absorption, scattering and bend (Q_i {fmt(q_model)} above; "
               f"{fmt(b['q_intrinsic_without_metal'])} from this budget without the gold)"
               if b.get("typed_loss_db_per_cm") is None else
               f"the ring model uses the typed {fmt(b['typed_loss_db_per_cm'], 'dB/cm')} plus bend radiation instead")
    spread = ", ".join(f"{name} {fmt(c['q_intrinsic'])}" for name, c in (b.get("roughness_corners") or {}).items())
    return [table(f"Ring loss by cause at {fmt(b['wl_um'] * 1e3, 'nm', 5)}, from physics (prismpic loss)",
                  ["cause", "loss"], rows),
            {"kind": "text", "text": f"The gold is the electrodes' full-vector absorption; {counted}. Q_i over "
                                     f"the sidewall roughness corners (σ {fmt(b['sigma_nm'], 'nm')}, L_c "
                                     f"{fmt(b['correlation_nm'], 'nm')} nominal): {spread}. Couplers' excess loss: "
                                     f"{fmt(b['coupler_db_per_pass'], 'dB')} per pass (typed)."}]


WL_SIG = 5  # channel wavelengths to 0.1 nm (1528.4 nm): channels 1.6 nm apart


def _pct(fraction) -> str:
    return fmt(100 * fraction, "%") if fraction is not None else "—"


def worst_crosstalk_text(xt: dict) -> str:
    """The worst crosstalk entry in a designer's terms: which ring's resonance of which order sits how far from
    which channel, and how much of the channel's light it drops (beside what the channel's own ring drops).

    Args:
        xt: the report's ``crosstalk`` section (``worst_pair`` with ``offset_nm`` in nm; ``drop_fraction`` and
            ``own_drop_fraction``, shares of the channel's power, where the report has them).
    """
    wp = xt.get("worst_pair") or {}
    order = wp.get("order")
    which = f"its resonance of order {order:+d}" if isinstance(order, int) else f"its resonances of orders {order}"
    offset = wp.get("offset_nm")
    where = (f"{fmt(abs(offset), 'nm')} ({fmt(wp.get('offset_fwhm'))} FWHM) from"
             if isinstance(offset, int | float) else "near")
    text = (f"ring of {fmt(wp.get('ring_channel_nm'), 'nm', WL_SIG)}: {which} sits {where} channel "
            f"{fmt(wp.get('channel_nm'), 'nm', WL_SIG)}")
    if wp.get("drop_fraction") is not None:
        text += (f" and drops {_pct(wp['drop_fraction'])} of its light (the channel's own ring drops "
                 f"{_pct(wp.get('own_drop_fraction'))}; ratio {fmt(xt.get('worst_db'), 'dB')}, 0 dB: a collision)")
    else:
        text += f"; ratio to the channel's own ring {fmt(xt.get('worst_db'), 'dB')} (0 dB: a collision)"
    return text


def crosstalk_summary(xt: dict) -> dict:
    """The summary's crosstalk row: the share of a channel's light another ring drops, worst case.

    Args:
        xt: the report's ``crosstalk`` section; a report without ``drop_fraction`` shows the dB ratio instead.
    """
    wp = xt.get("worst_pair") or {}
    frac = wp.get("drop_fraction")
    return {"label": "worst crosstalk: light another ring drops from a channel",
            "value": _pct(frac) if frac is not None else fmt(xt.get("worst_db"), "dB"),
            "note": f"{worst_crosstalk_text(xt)}; {xt.get('n_channels')} channels at {fmt(xt.get('spacing_nm'), 'nm')}",
            "href": "#crosstalk"}


def plan_fsr_label(xt: dict) -> str:
    """The channel plan's FSR label with its definition and where it is taken.

    Args:
        xt: the report's ``crosstalk`` section (``fsr_channel_nm`` in nm, ``fsr_radius_um`` in µm, where present).
    """
    where = f" {fmt(xt['fsr_channel_nm'], 'nm', WL_SIG)}" if xt.get("fsr_channel_nm") is not None else ""
    radius = f", R = {fmt(xt['fsr_radius_um'], 'µm', 5)}" if xt.get("fsr_radius_um") is not None else ""
    return f"ring FSR = λ_c²/(n_g L) at the centre channel λ_c{where} (its ring{radius}) / FWHM"


def _crosstalk(xt: dict) -> list[dict]:
    rows = [["channels", f"{xt.get('n_channels')} at {fmt(xt.get('spacing_nm'), 'nm')} ({xt.get('family', '')})"],
            [plan_fsr_label(xt), f"{fmt(xt.get('fsr_nm'), 'nm')} / {fmt(xt.get('fwhm_nm'), 'nm')}"],
            ["worst crosstalk (drop of ring j at channel i / drop of ring i)", worst_crosstalk_text(xt)]]
    if xt.get("bank_worst_db") is not None:
        rows.append(["worst bank (voltage) crosstalk", f"{fmt(xt['bank_worst_db'], 'dB')} at "
                                                        f"{tuple(xt.get('bank_worst_pair') or ())}"])
    if xt.get("thermal_worst_db") is not None:
        rows.append(["worst heater crosstalk", fmt(xt["thermal_worst_db"], "dB")])
    return [{"kind": "plot", "name": "crosstalk"}, table("The seed's channel plan", ["", ""], rows, text_cols=(0, 1))]


LINK_TOTALS = (("total loss", "total_loss_db", "dB"), ("laser (total over wavelengths)", "laser_dbm", "dBm"),
               ("received per detector", "received_dbm", "dBm"), ("received (linear)", "received_uw", "µW"),
               ("SNR", "snr_db", "dB"), ("bandwidth", "bandwidth_hz", "Hz"))


def _link_budget(lb: dict) -> list[dict]:
    seed = lb.get("seed") or {}
    stages, seed_stages = lb.get("stages") or [], seed.get("stages") or []
    rows = []
    for i in range(max(len(stages), len(seed_stages))):
        m = stages[i] if i < len(stages) else {}
        s = seed_stages[i] if i < len(seed_stages) else {}
        rows.append([m.get("name", ""), fmt(m.get("loss_db"), "dB"), s.get("name", ""), fmt(s.get("loss_db"), "dB")])
    for label, key, unit in LINK_TOTALS:
        rows.append([cell(label, "total"), fmt(lb.get(key), unit), cell(label, "total"), fmt(seed.get(key), unit)])
    return [{"kind": "plot", "name": "link_budget"},
            table("Stages, modeled and the seed's (S1-12)", ["modeled stage", "loss", "seed stage", "loss"], rows,
                  text_cols=(0, 2)),
            {"kind": "list", "items": list(lb.get("notes") or [])}]


def _noise(nz: dict) -> list[dict]:
    terms = nz.get("terms_a2") or {}
    total = sum(terms.values()) or 1.0
    rows = [[name, fmt(v, "A²"), fmt(v**0.5, "A"), fmt(100 * v / total, "%")] for name, v in terms.items()]
    rows.append([cell("signal (full-scale current)", "total"), "", fmt(nz.get("signal_current_a"), "A"), ""])
    text = (f"Received {fmt(nz.get('received_dbm'), 'dBm')}: SNR {fmt(nz.get('snr_db'), 'dB')}, "
            f"ENOB {fmt(nz.get('enob'), 'bits')} (ENOB = (SNR − 1.76 dB)/6.02 dB).")
    return [{"kind": "text", "text": text},
            table("Noise terms at the balanced detector pair", ["term", "variance", "rms current", "share"], rows),
            {"kind": "figure", "name": "noise_breakdown.png"}]


def _recall(rec: dict) -> list[dict]:
    rows = [[c.get("case", ""), fmt(c.get("recall")), fmt_range(*c["ci"]) if c.get("ci") else "",
             fmt(100 * c["drop"], "%") if c.get("drop") is not None else ""] for c in rec.get("cases") or []]
    blocks = [table(f"Recall@8 under the S1-14 impairments (ring FWHM {fmt(rec.get('fwhm_nm'), 'nm')})",
                    ["case", "recall@8", "95 % CI", "drop"], rows),
              {"kind": "figure", "name": "recall.png"},
              {"kind": "plot", "name": "recall_separation"}, {"kind": "plot", "name": "recall_drift_split"}]
    mini = (rec.get("minilm") or {}).get("summary")
    if mini:
        med = mini.get("median") or {}
        best = mini.get("most_separated_head") or {}
        blocks.append(table("all-MiniLM-L6-v2 heads (medians over heads)", ["", ""], [
            ["measured separation", f"{fmt(med.get('separation'))} (i.i.d. null {fmt(mini.get('null_separation'))})"],
            ["recall@8, chip alone (per-ring / common drift)",
             f"{fmt(med.get('hardware_per_ring'))} / {fmt(med.get('hardware_common'))}"],
            ["most separated head", f"layer {best.get('layer')} head {best.get('head')}: S = "
                                    f"{fmt(best.get('separation'))}"]], text_cols=(0, 1)))
    return blocks


PTU_ROWS = (("MACs per clock, card", "macs_per_clock_card", ""), ("throughput, card", "flops_card", "FLOPS"),
            ("detectors per core", "detectors_per_core", ""), ("ADCs, card", "adcs_card", ""),
            ("ADC power", "adc_power_w", "W"), ("TIA power", "tia_power_w", "W"), ("weights, card", "weights_card", ""),
            ("re-programming energy", "reprogram_energy_j", "J"), ("re-programming time", "reprogram_time_s", "s"))


def _energy(en: dict) -> list[dict]:
    pq = en.get("prism_per_query") or {}
    parts = pq.get("parts_nj") or {}
    total = pq.get("total_nj") or sum(parts.values()) or 1.0
    rows = [[k.replace("_", " "), fmt(v, "nJ"), fmt(100 * v / total, "%")] for k, v in parts.items()]
    rows.append([cell("total", "total"), fmt(pq.get("total_nj"), "nJ"), ""])
    if en.get("gpu_full_scan_4k_one_head_nj") is not None:
        rows.append([cell("GPU full scan, 4K tokens, one head", "total"), fmt(en["gpu_full_scan_4k_one_head_nj"], "nJ"),
                     ""])
    blocks = [table("Energy per PRISM query", ["part", "energy", "share"], rows)]
    ptu = en.get("ptu") or {}
    if ptu:
        names = list(ptu)
        blocks.append(table("PTU card by readout", ["", *(n.replace("_", " ") for n in names)],
                            [[label, *(fmt(ptu[n].get(k), u) for n in names)] for label, k, u in PTU_ROWS]))
    return blocks


def _time_domain(td: dict) -> list[dict]:
    r, w = td.get("ring") or {}, td.get("weight_update") or {}
    rate = r.get("bit_rate_hz") or 0.0
    rows = [["photon lifetime (energy decay, simulated)", fmt(r.get("photon_lifetime_ps"), "ps"),
             f"Q_L/ω₀ = {fmt(r.get('expected_lifetime_ps'), 'ps')} from the ring's specs"],
            ["steady state against the S-parameter model", fmt(r.get("steady_state_error")),
             "largest relative difference after settling"],
            ["settling of the drop port after an input step", fmt(r.get("settling_time_ps"), "ps"), "to 1 %"],
            [f"eye opening at {fmt(rate / 1e9, 'Gbit/s')}", fmt(r.get("eye_opening")),
             f"{r.get('symbols')} random on/off symbols, no noise"],
            ["weight update settled to 1 % (S1-10)", fmt(w.get("settling_time_ps"), "ps"),
             f"half-linewidth step through a {fmt(w.get('driver_tau_ps'), 'ps')} driver RC; S1-10 claims < "
             f"{fmt(w.get('claim_ns'), 'ns')}"]]
    text = ("Waveforms through the ring's mode equations (coupled-mode form with the decay rates, coupling and "
            "detuning of the S-parameter model; prismpic.analysis.transient), the carrier on the ring's resonance. "
            "`prismpic transient` runs these and a PRISM channel with other settings.")
    return [{"kind": "text", "text": text},
            table("The ring in time", ["quantity", "value", "how"], rows, text_cols=(0, 2)),
            {"kind": "figure", "name": "transient_eye.png"}, {"kind": "figure", "name": "transient_waveforms.png"},
            {"kind": "figure", "name": "weight_update.png"}]


# The solver's crystal_axis (pdk/ridge_geometry.Ridge) names the crystal axis of the TE field in the X-cut film
# (crystal x vertical); the light propagates along the other in-plane axis: (propagation, TE field, index seen).
TE_AXES = {"z": ("y", "z", "n_e"), "y": ("z", "y", "n_o")}


def te_label(quantity: str, crystal_axis: str) -> str:
    """The label of ``quantity`` (e.g. "n_eff") of the straight ridge's TE0, by propagation and field direction.

    Args:
        quantity: what the row shows.
        crystal_axis: the solver's argument, "z" or "y" (the crystal axis of the TE field).
    """
    prop, field, index = TE_AXES[crystal_axis]
    return f"{quantity} TE0 (straight), propagating along crystal {prop}, field along {field} (sees {index})"


PLATFORM_ROWS = (("film thickness", "film_thickness_um", "µm"), ("etch depth", "etch_depth_um", "µm"),
                 ("sidewall angle (from the horizontal)", "sidewall_angle_deg", "°"),
                 ("ridge width", "ridge_width_um", "µm"), ("propagation loss", "loss_db_per_cm", "dB/cm"),
                 ("wavelength", "wl_um", "µm"), ("bulk n_e", "n_e_bulk", ""), ("bulk n_o", "n_o_bulk", ""),
                 (te_label("n_eff", "z"), "neff_te_z", ""), (te_label("n_eff", "y"), "neff_te_y", ""),
                 (te_label("n_g", "z"), "ng_te_z", ""), (te_label("n_g", "y"), "ng_te_y", ""),
                 ("electro-optic overlap Γ (TE0 along y, field along z)", "eo_overlap", ""))


def _platform(p: dict) -> list[dict]:
    rows = [[label, fmt(p[k], u, 4)] for label, k, u in PLATFORM_ROWS if k in p]
    if p.get("cladding"):
        rows.insert(3, ["cladding", p["cladding"]])
    if "electrode_height_um" in p:
        h = p["electrode_height_um"]
        rows.insert(4, ["Pockels electrodes", "on the slab beside the ridge" if h is None else
                        f"{fmt(h, 'µm')} above the film, on the cladding"])
    if p.get("platform"):
        rows.insert(0, ["platform preset", cell(p["platform"], "total")])
    caption = "X-cut TFLN platform (indices dimensionless)" + (f": {p['description']}" if p.get("description") else "")
    blocks = [table(caption, ["", ""], rows, text_cols=(0,))]
    outside = p.get("outside_domains") or {}
    if outside:
        blocks.append({"kind": "text", "cls": "warn", "text": (
            "Dispersion tables that do not cover this stack (a model on them refuses it rather than extrapolate): "
            + "; ".join(f"{kind}: {why}" for kind, why in outside.items()) + ".")})
    return blocks


HEADER_STACK = (("film", "film_thickness", "µm"), ("etch", "etch_depth", "µm"), ("walls", "sidewall_angle_deg", "°"),
                ("cladding", "cladding", ""), ("loss", "loss_db_per_cm", "dB/cm"),
                ("electrodes above the film", "electrode_height", "µm"))


def platform_header(report: dict) -> dict | None:
    """The page header's preset: {"name", "description", "default", "stack" (its settings as text), "not_followed":
    [section titles]}; None for a report.json written before presets.

    Args:
        report: the report dict (``platform_preset``, where present).
    """
    pp = report.get("platform_preset")
    if not pp:
        return None
    off = [TITLES.get(k, k) for k in pp.get("not_followed") or {}]
    st = pp.get("settings") or {}
    stack = ", ".join(f"{label} {fmt(st[k], unit) if unit else st[k]}" for label, k, unit in HEADER_STACK
                      if st.get(k) is not None)
    return {"name": pp.get("name", ""), "description": pp.get("description", ""), "default": bool(pp.get("default")),
            "stack": stack, "not_followed": off}


def off_preset_note(report: dict, section: str) -> str:
    """What in ``section`` does not follow the report's preset, and why, as a sentence ('' when it all does).

    Args:
        report: the report dict (``platform_preset.not_followed``).
        section: a section id.
    """
    pp = report.get("platform_preset") or {}
    note = (pp.get("not_followed") or {}).get(section)
    return f"Not on the {pp.get('name')} preset: {note}." if note else ""


def _devices(devs: dict) -> list[dict]:
    rows = []
    for name, d in devs.items():
        viol = d.get("drc_violations")
        drc = cell("—") if viol is None else cell("clean", "ok") if not viol else cell(f"{len(viol)} violations", "bad")
        ports = ", ".join(d.get("ports") or []) or "—"
        rows.append([name, ports, fmt(d.get("passive")), fmt(d.get("reciprocal")), drc])
    return [table("Registered devices", ["device", "ports", "passive", "reciprocal", "DRC"], rows,
                  text_cols=(0, 1, 2, 3, 4))]


def _files(report: dict) -> list[dict]:
    lay = report.get("layout") or {}
    items = [cell("report.json: every figure of this page, machine-readable", href="report.json")]
    if lay.get("gds"):
        items.append(cell(f"{lay['gds']}: the prototype's layout", href=lay["gds"]))
    if lay.get("lyp"):
        items.append(cell(f"{lay['lyp']}: KLayout layer properties (open the GDS with these colours)", href=lay["lyp"]))
    items += [cell(f"{name}: {caption}", href=name) for name, caption in (report.get("figures") or {}).items()]
    timings = report.get("timings_s") or {}
    rows = [[TITLES.get(k, k), fmt(v, "s")] for k, v in timings.items()]
    rows.append([cell("total", "total"), fmt(sum(timings.values()), "s")])
    return [{"kind": "list", "items": items}, table("Time per section", ["section", "time"], rows)]


BUILDERS = {"layout": _layout, "ring": _ring, "crosstalk": _crosstalk, "link_budget": _link_budget, "noise": _noise,
            "recall": _recall, "energy": _energy, "time_domain": _time_domain, "platform": _platform, "devices": _devices}


def sections(report: dict) -> list[dict]:
    """The page's sections after the summary and the claims, each {id, title, blocks}, in page order."""
    out = []
    for sid, title in SECTIONS[2:]:
        if sid == "files":
            out.append({"id": sid, "title": title, "blocks": _files(report)})
        elif report.get(sid):
            note = off_preset_note(report, sid)
            blocks = ([{"kind": "text", "cls": "warn", "text": note}] if note else []) + BUILDERS[sid](report[sid])
            out.append({"id": sid, "title": title, "blocks": blocks})
    return out
