"""The ``recall`` command: recall@k of the photonic top-k on KV files, MiniLM keys or a synthetic family."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, cli_errors, console, progress_bar

KV_SOURCES = ("--kv", "--minilm", "--synthetic")


def _impairments(weight_bits, dac_bits, drift_ring, drift_common, lock_residual, fab, trim_v, nep, noise_rel,
                 power_uw, bandwidth_ghz, gain_db, crosstalk_db, d) -> dict:
    from prismpic.analysis.recall import impairments
    from prismpic.analysis.recall.monte_carlo import adjacent_crosstalk

    if nep is not None and noise_rel is not None:
        raise ValueError(f"give --nep = {nep:g} or --noise-rel = {noise_rel:g}, not both")
    ch = {"weight_bits": weight_bits, "dac_bits": dac_bits, "drift_sigma_nm": drift_ring,
          "drift_common_sigma_nm": drift_common, "lock_residual_nm": lock_residual, "fab_sigma_nm": fab,
          "trim_voltage_v": trim_v, "gain_sigma_db": gain_db}
    if nep is not None:
        if power_uw <= 0 or bandwidth_ghz <= 0:
            raise ValueError(f"--power-uw = {power_uw:g} and --bandwidth-ghz = {bandwidth_ghz:g} must be > 0")
        ch["noise_rel"] = impairments.detector_noise_rel(nep * 1e-12, power_uw * 1e-6, bandwidth_ghz * 1e9)
    elif noise_rel is not None:
        ch["noise_rel"] = noise_rel
    if crosstalk_db is not None:
        ch["crosstalk"] = adjacent_crosstalk(d, crosstalk_db)
    return ch


def _csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    keys = list(dict.fromkeys(k for r in rows for k in r))
    w = csv.DictWriter(buf, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def _heads(text: str | None, n_layers: int, n_heads: int):
    if not text:
        return [(lay, h) for lay in range(n_layers) for h in range(n_heads)]
    out = []
    for item in text.split(","):
        try:
            lay, h = (int(v) for v in item.split(":"))
        except ValueError:
            raise ValueError(f"--heads {item!r} must look like LAYER:HEAD (e.g. 5:3,1:7)") from None
        if not (0 <= lay < n_layers and 0 <= h < n_heads):
            raise ValueError(f"--heads {item!r} is outside layers [0, {n_layers - 1}] and heads [0, {n_heads - 1}]")
        out.append((lay, h))
    return out


@app.command()
@cli_errors
def recall(
    out: Annotated[Path, typer.Option("--out", help="output folder (tables CSV/JSON, figures)")],
    kv: Annotated[Path | None, typer.Option("--kv", help="KV file (.safetensors/.npz, layout: prismpic.analysis.recall.kv_data)")] = None,
    minilm: Annotated[str | None, typer.Option("--minilm", help="'python-docs' or a UTF-8 text file: all-MiniLM-L6-v2 keys (extra prismpic[kv])")] = None,
    synthetic: Annotated[str | None, typer.Option("--synthetic", help="gaussian, planted or planted-tied")] = None,
    separation: Annotated[float, typer.Option("--separation", help="synthetic: bulk σ the true top-k stand above the bulk")] = 0.0,
    blocks: Annotated[int, typer.Option("--blocks", help="synthetic: blocks N")] = 1024,
    d: Annotated[int, typer.Option("--d", help="synthetic: wavelengths d")] = 32,
    k: Annotated[int, typer.Option("--k", help="blocks selected")] = 8,
    trials: Annotated[int, typer.Option("--trials", help="synthetic: trials; KV data: repeats per query")] = 4096,
    queries_per_state: Annotated[int, typer.Option("--queries-per-state", help="trials per chip state (drift, gains)")] = 8,
    block_size: Annotated[int, typer.Option("--block-size", help="KV data: tokens per block")] = 32,
    windows: Annotated[int, typer.Option("--windows", help="MiniLM: 480-token windows in the store")] = 16,
    scheme: Annotated[list[str] | None, typer.Option("--scheme", help="KV data: signature scheme(s); default all five")] = None,
    heads: Annotated[str | None, typer.Option("--heads", help="KV data: LAYER:HEAD,... (default all)")] = None,
    weight_bits: Annotated[int | None, typer.Option("--weight-bits")] = None,
    dac_bits: Annotated[int | None, typer.Option("--dac-bits")] = None,
    drift_ring: Annotated[float, typer.Option("--drift-ring", help="per-ring drift σ (nm)")] = 0.0,
    drift_common: Annotated[float, typer.Option("--drift-common", help="common-mode drift σ (nm)")] = 0.0,
    lock_residual: Annotated[float | None, typer.Option("--lock-residual", help="lock loop: common-mode σ left (nm)")] = None,
    fab: Annotated[float, typer.Option("--fab", help="fabrication spread σ (nm)")] = 0.0,
    trim_v: Annotated[float, typer.Option("--trim-v", help="trim range (V) at 5 pm/V")] = 0.0,
    nep: Annotated[float | None, typer.Option("--nep", help="detector NEP (pW/√Hz), noise referenced to --power-uw")] = None,
    noise_rel: Annotated[float | None, typer.Option("--noise-rel", help="detector noise σ over full scale")] = None,
    power_uw: Annotated[float, typer.Option("--power-uw", help="received power per detector (µW)")] = 25.7,
    bandwidth_ghz: Annotated[float, typer.Option("--bandwidth-ghz")] = 1.0,
    gain_db: Annotated[float, typer.Option("--gain-db", help="splitter spread σ (dB)")] = 0.0,
    crosstalk_db: Annotated[float | None, typer.Option("--crosstalk-db", help="adjacent-channel crosstalk (dB)")] = None,
    seed_cases: Annotated[bool, typer.Option("--seed-cases/--no-seed-cases", help="also the seed's S1-14 list")] = True,
    heatmaps: Annotated[bool, typer.Option("--heatmaps", help="synthetic: bits × drift, drift × NEP, separation × drift")] = False,
    seed: Annotated[int, typer.Option("--seed", help="PRNG seed")] = 0,
):
    """Recall@k of the photonic top-k on real or synthetic keys, with the impairments given; tables and figures."""
    from prismpic.analysis.recall import seed_cases as recall_seed
    from prismpic.fileio import atomic_dir, check_out_clear_of_inputs, check_output_dir, write_text_atomic

    given = [name for name, v in zip(KV_SOURCES, (kv, minilm, synthetic), strict=True) if v is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of {', '.join(KV_SOURCES)} (got {', '.join(given) or 'none'})")
    if k < 1:
        raise ValueError(f"--k = {k} must be an integer >= 1")
    check_output_dir(out, "--out")
    check_out_clear_of_inputs(out, [kv, minilm if minilm not in (None, "python-docs") else None])
    nep_rel, _ = recall_seed.seed_nep_noise_rel()
    report: dict = {"k": k, "queries_per_state": queries_per_state, "seed": seed}
    figures: dict = {}
    opts = dict(locals())
    if synthetic is not None:  # every check before the progress bar starts
        from prismpic.analysis.recall import planted
        from prismpic.analysis.recall.monte_carlo import RecallConfig

        planted.family_params(synthetic, separation)
        RecallConfig(n_blocks=blocks, d=d, k=k, n_trials=trials, queries_per_state=queries_per_state,
                     **_config_changes(opts, d))
        planted.check_sizes(blocks, d, k, queries_per_state)
    else:
        _config_changes(opts, None)
        cache, meta = _load_source(kv, minilm, block_size, windows, k, scheme, heads)
    with progress_bar() as bar:
        task = bar.add_task("recall", total=1)

        def tick(done, total):
            bar.update(task, completed=done, total=total)

        if synthetic is not None:
            rows, figures = _synthetic(synthetic, separation, blocks, d, k, trials, queries_per_state, seed, nep_rel,
                                       seed_cases, heatmaps, tick, power_uw, bandwidth_ghz, opts)
            report["synthetic"] = {"family": synthetic, "separation": separation, "n_blocks": blocks, "d": d}
        else:
            rows, figures = _kv_data(cache, block_size, k, trials, queries_per_state, scheme, heads, seed, nep_rel,
                                     seed_cases, tick, opts)
            report["data"] = meta
    report["rows"] = rows
    with atomic_dir(out, "--out") as work:
        write_text_atomic(work / "recall.csv", _csv([{k_: v for k_, v in r.items() if not isinstance(v, (list, dict))}
                                                     for r in rows]))
        write_text_atomic(work / "recall.json", json.dumps(_jsonable(report), indent=1))
        for name, draw in figures.items():
            draw(work / name)
    console.print(f"{len(rows)} rows; wrote {out}/recall.csv, recall.json" +
                  "".join(f", {n}" for n in figures), markup=False)


def _jsonable(x):
    from prismpic.fileio import jsonable

    return jsonable(x)


def _config_changes(opts: dict, d: int | None) -> dict:
    """RecallConfig changes of the impairment options (d None: crosstalk as ``crosstalk_db``, per scheme)."""
    ch = _impairments(opts["weight_bits"], opts["dac_bits"], opts["drift_ring"], opts["drift_common"],
                        opts["lock_residual"], opts["fab"], opts["trim_v"], opts["nep"], opts["noise_rel"],
                        opts["power_uw"], opts["bandwidth_ghz"], opts["gain_db"],
                        opts["crosstalk_db"] if d is not None else None, d or 1)
    if d is None and opts["crosstalk_db"] is not None:
        ch["crosstalk_db"] = opts["crosstalk_db"]
    return ch


def _synthetic(name, separation, blocks, d, k, trials, group, seed, nep_rel, with_seed, heatmaps, tick, power_uw,
               bandwidth_ghz, opts):
    from prismpic.analysis.recall import impairments, planted
    from prismpic.analysis.recall import study as recall_study
    from prismpic.analysis.recall.monte_carlo import PATHS, RecallConfig, simulate_recall

    s, tau = planted.family_params(name, separation)
    base = RecallConfig(n_blocks=blocks, d=d, k=k, n_trials=trials, queries_per_state=group, separation=s,
                        planted_spread=tau)
    cases = [("configured", _config_changes(opts, d))]
    if with_seed:
        cases += [(f"{n} [{kind}]", ch) for kind, cs in recall_study.seed_case_sets(nep_rel).items() for n, ch in cs]
    rows = []
    for i, (case, ch) in enumerate(cases):
        r = simulate_recall(base.replace(**ch), seed, paths=PATHS)
        rows.append({"case": case, "family": name, "separation": s, "recall": r.mean, "ci_low": r.ci_low,
                     "ci_high": r.ci_high, "drop": r.drop})
        tick(i + 1, len(cases))
    small = base.replace(n_trials=min(trials, 1024))
    curve = recall_study.separation_curve([0, 1, 2, 3, 4, 6, 8], base=small, nep_rel=nep_rel, key=seed, progress=tick)
    split = recall_study.drift_split_curve([0, 0.25, 0.5, 0.75, 0.9, 1.0], base=small, key=seed)
    figures = {"recall_vs_separation.png": lambda p: recall_study.plot_separation(curve, p, k=k),
               "recall_vs_drift_split.png": lambda p: recall_study.plot_drift_split(split, p, k=k)}
    rows += [{"case": f"curve: {n} [{kind}]", "family": "planted", "separation": sv, "recall": m}
             for kind, cs in curve["cases"].items() for n, ms in cs.items() for sv, m in zip(curve["separation"], ms,
                                                                                            strict=True)]
    if heatmaps:
        kw = dict(power_w=power_uw * 1e-6, bandwidth_hz=bandwidth_ghz * 1e9, progress=tick)
        grids = [impairments.recall_grid(small, "drift_sigma_nm", [0, 0.005, 0.01, 0.02, 0.05], "weight_bits",
                                         [4, 5, 6, 8], label="bits × per-ring drift", **kw),
                 impairments.recall_grid(small, "drift_sigma_nm", [0, 0.005, 0.01, 0.02, 0.05], "nep_pw_per_rthz",
                                         [0.1, 1, 3, 10], label="NEP × per-ring drift", **kw),
                 impairments.recall_grid(small, "drift_sigma_nm", [0, 0.005, 0.01, 0.02, 0.05], "separation",
                                         [0, 2, 4, 6, 8], label="separation × per-ring drift", **kw)]
        figures["recall_heatmaps.png"] = lambda p: impairments.plot_grids(grids, p)
        rows += [{"case": f"grid: {g.label}", g.y_name: yv, g.x_name: xv, "recall": g.mean[i, j]}
                 for g in grids for i, yv in enumerate(g.y_values) for j, xv in enumerate(g.x_values)]
    return rows, figures


def _load_source(kv, text, block_size, windows, k, schemes, heads):
    """The KV cache of --kv or --minilm, checked against the options; (cache, metadata)."""
    from prismpic.analysis.recall import kv_data, minilm, signatures

    if kv is not None:
        cache = kv_data.load_kv(kv, option="--kv")
        meta = {"source": str(kv), **cache.metadata}
    else:
        minilm.require_extra()
        if text == "python-docs":
            doc = None
        elif Path(text).is_file():
            doc = Path(text).read_text(encoding="utf-8")
        else:
            raise ValueError(f"--minilm = {text!r} must be 'python-docs' or an existing UTF-8 text file")
        if block_size < 1 or 480 % block_size:
            raise ValueError(f"--block-size = {block_size} must divide the 480-token MiniLM windows")
        needles = minilm.NEEDLES
        cache = minilm.document_cache(doc, n_windows=windows, block_size=block_size, needles=[n for n, _ in needles],
                                      questions=[q for _, q in needles], n_doc_queries=64)
        meta = {"source": f"all-MiniLM-L6-v2 on {text}", **cache.metadata}
    if block_size < 1 or cache.n_tokens % block_size:
        raise ValueError(f"--block-size = {block_size} must divide n_tokens = {cache.n_tokens}")
    n_blocks = cache.n_tokens // block_size
    if k > n_blocks:
        raise ValueError(f"--k = {k} is outside the valid range [1, n_blocks = {n_blocks}]")
    for s in schemes or ():
        if s not in signatures.SCHEMES:
            raise ValueError(f"--scheme = {s!r} must be one of {', '.join(signatures.SCHEMES)}")
    _heads(heads, cache.n_layers, cache.n_heads)
    return cache, meta


def _kv_data(cache, block_size, k, repeats, group, schemes, heads, seed, nep_rel, with_seed, tick, opts):
    from prismpic.analysis.recall import kv_data, kv_recall, signatures
    from prismpic.analysis.recall import study as recall_study
    from prismpic.analysis.recall.monte_carlo import RecallConfig

    schemes = list(schemes or signatures.SCHEMES)
    head_list = _heads(heads, cache.n_layers, cache.n_heads)
    base = RecallConfig(queries_per_state=group)
    sets = recall_study.seed_case_sets(nep_rel)
    cases = [sets["per-ring"][0], ("configured", _config_changes(opts, None))]
    if with_seed:
        cases += [sets["per-ring"][recall_study.ALL_TOGETHER], sets["common"][recall_study.ALL_TOGETHER]]
    owner = cache.metadata.get("query_question")
    doc_cache = cache
    if owner is not None and -1 in owner:  # per-head recall on the document's own queries
        import numpy as np

        keep = np.asarray(owner) == -1
        doc_cache = kv_data.KVCache(cache.keys, cache.queries[:, :, keep], cache.values, None, cache.metadata)
    rows = []
    total = len(head_list) * len(schemes)
    for i, (layer, head) in enumerate(head_list):
        hd = kv_recall.head_data(doc_cache, layer, head, block_size)
        for j, s in enumerate(schemes):
            rows += kv_recall.scheme_row(hd, s, cases, base=base, k=k, repeats=max(1, min(repeats, 8)), key=seed)
            tick(i * len(schemes) + j + 1, total)
    if cache.metadata.get("needle_tokens"):
        for r in kv_recall.needle_rows(cache, block_size, cases, base=base, k=k, heads=head_list, repeats=8, key=seed):
            rows.append({"case": "needle", **r})
    figures = {"recall_per_head.png": lambda p: _plot_heads(rows, cases, p, k)}
    return rows, figures


def _plot_heads(rows, cases, path, k):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from prismpic.fileio import save_figure_atomic

    head_rows = [r for r in rows if r.get("case") != "needle"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for j, (name, _) in enumerate(cases):
        sel = [r for r in head_rows if r["case"] == name and r["scheme"] == "pca"] or \
              [r for r in head_rows if r["case"] == name]
        ax.scatter([r["separation"] for r in sel], [r["recall_hardware"] for r in sel], s=12, color=f"C{j}", label=name)
    ax.set_xlabel("measured separation of the head's exact block scores (bulk σ)")
    ax.set_ylabel(f"recall@{k}: photonic vs float signature top-{k}")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure_atomic(fig, path, dpi=110)
    plt.close(fig)
