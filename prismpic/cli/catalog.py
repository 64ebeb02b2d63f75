"""The catalog commands: ``list`` the registered cells, models and circuits; ``info`` on one; ``pdk-files``.

``info NAME`` builds the cell (at its defaults, or with ``--set``) for its size, ports and DRC status
(prismpic's KLayout DRC, ``prismpic.pdk.drc``), and lists the cell's and its model's parameters with
defaults and units. A unit comes from the parameter's ``Args:`` entry (the parenthesis, e.g. ``(µm)``), else
from the same parameter's entry in another registered cell or model, else from its name (``*_db``, ``*_v``,
...); lengths are µm throughout the package.
"""

from __future__ import annotations

import inspect
import json
import re
from functools import cache
from pathlib import Path
from typing import Annotated

import typer

from prismpic.cli.common import app, check_settings, chosen_platform, cli_errors, parse_settings, platform_help, say

KINDS = ("cells", "models", "circuits")
UNITS = ("µm", "nm", "pm", "mm", "cm", "m", "dB", "dB/cm", "dB/km", "dBm", "V", "K", "°", "degrees", "rad", "A/W",
         "Ω/□", "Ω", "ps²/km", "W", "mW", "Hz", "GHz", "THz", "s", "ns", "ps", "fs")
SUFFIX_UNITS = (("_db_per_cm", "dB/cm"), ("_db_per_km", "dB/km"), ("_ps2_per_km", "ps²/km"), ("_ohm_sq", "Ω/□"),
                ("_dbm", "dBm"), ("_db", "dB"), ("_um", "µm"), ("_nm", "nm"), ("_deg", "°"), ("_rad", "rad"),
                ("_v", "V"), ("_k", "K"), ("_m", "m"))
DEFAULT_PDK_DIR = Path("prismpic-pdk")


# ---------------------------------------------------------------------------- docstrings and units
def arg_docs(fn) -> dict[str, str]:
    """The ``Args:`` entries of ``fn``'s Google-style docstring, by parameter name (``a, b: text`` gives both; see
    ``shared_entries``)."""
    doc = inspect.getdoc(fn) or ""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Args:")
    except StopIteration:
        return {}
    entries: list[str] = []
    base = None
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            break
        base = indent if base is None else base
        if indent <= base or not entries:
            entries.append(line.strip())
        else:  # a continuation line (of the text, or of a list of names)
            entries[-1] += " " + line.strip()
    out = {}
    for entry in entries:
        names, _, text = entry.partition(":")
        for name in (n.strip() for n in names.split(",")):
            if name.isidentifier():
                out[name] = text.strip()
    return out


def shared_entries(fn) -> set[str]:
    """Parameters documented together with others in one entry (``a, b: ...``): the entry's unit is not theirs."""
    docs = arg_docs(fn)
    counts: dict[str, int] = {}
    for text in docs.values():
        counts[text] = counts.get(text, 0) + 1
    return {name for name, text in docs.items() if counts[text] > 1}


def unit_in(text: str) -> str | None:
    """The unit of an ``Args:`` entry: the first parenthesis whose first item is a unit (``(°; 90 = vertical)``)."""
    for group in re.findall(r"\(([^()]*)\)", text):
        head = re.split(r"[;,]", group)[0].strip()
        if head in UNITS:
            return "°" if head == "degrees" else head
    return None


def unit_from_name(name: str) -> str | None:
    """A unit read from a parameter's name (``loss_db_per_cm`` → dB/cm, ``voltage_v`` → V), or None."""
    for suffix, unit in SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    return None


@cache
def glossary() -> dict[str, tuple[str, str]]:
    """(description, unit) of every parameter documented alone in some registered cell or model (unit "" if none)."""
    from prismpic.pdk_registry import cells, models

    found: dict[str, tuple[str, str]] = {}
    for fn in [*cells().values(), *models().values()]:
        shared = shared_entries(fn)
        for name, text in arg_docs(fn).items():
            unit = unit_in(text) or ""
            if name not in shared and (name not in found or (unit and not found[name][1])):
                found[name] = (f"{text} [from {fn.__name__}]", unit)  # the first entry, or the first with a unit
    return found


def without_unit(text: str, unit: str) -> str:
    """``text`` without its parenthesis that holds only ``unit`` (the table prints the unit in its own column)."""
    return re.sub(r"\s*\((?:" + re.escape(unit) + ("|degrees" if unit == "°" else "") + r")\)", "", text) if unit else text


def describe_parameters(fn, fallback=None) -> list[dict]:
    """Name, default, type, unit and description of ``fn``'s keyword parameters; ``fallback`` (the cell of a
    model) documents what ``fn`` leaves undocumented or documents only as "as ``...``"."""
    from prismpic.cli.common import parameters_of

    docs, shared = arg_docs(fn), shared_entries(fn)
    extra = arg_docs(fallback) if fallback is not None else {}
    rows = []
    for name, p in parameters_of(fn).items():
        text = docs.get(name, "")
        if (not text or text.startswith(("geometry, as", "as "))) and name in extra:
            text, shared = extra[name], shared - {name}
        gloss = glossary().get(name)
        if (not text or name in shared) and gloss:
            text, shared = gloss[0], shared - {name}
        own = None if name in shared else unit_in(text)
        unit = "" if isinstance(p.default, str | bool) else (own or (gloss[1] if gloss else "")
                                                              or unit_from_name(name) or "")
        text = without_unit(text, unit)
        annotation = p.annotation if p.annotation is not inspect.Parameter.empty else ""
        required = p.default is inspect.Parameter.empty
        rows.append({"name": name, "default": None if required else p.default, "required": required,
                     "type": annotation if isinstance(annotation, str) else getattr(annotation, "__name__", ""),
                     "unit": unit, "description": text})
    return rows


def summary(fn) -> str:
    """The first line of ``fn``'s docstring."""
    doc = inspect.getdoc(fn) or ""
    return doc.splitlines()[0].strip() if doc else ""


def column_text(row: dict, column: str) -> str:
    """A ``list`` row's text in ``column``; "module" is the module of the row's function (``info`` gives all)."""
    if column == "module":
        return row["function"].rpartition(".")[0]
    return str(row[column])


def short_name(qualified_name: str) -> str:
    """A function's qualified name without the package and layer (``rings.ring_add_drop_model``) for the terminal."""
    for prefix in ("prismpic.", "components.", "circuits."):
        qualified_name = qualified_name.removeprefix(prefix)
    return qualified_name


def qualified(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}" if fn is not None else ""


def fmt(v) -> str:
    """A default or a coordinate, short: floats with up to 6 significant figures."""
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, tuple | list):
        return "(" + ", ".join(fmt(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v) if isinstance(v, str) else str(v)


# ---------------------------------------------------------------------------- the catalog
def catalog(kind: str) -> list[dict]:
    """One row per registered cell, model or circuit (``kind``): name, function, summary and relations."""
    from prismpic.circuits.registry import circuits
    from prismpic.components.electrical import CELLS as ELECTRICAL_CELLS
    from prismpic.components.registry import devices
    from prismpic.pdk_registry import cells, models

    if kind == "cells":
        circ, mods = circuits(), models()
        rows = []
        for name, cell in cells().items():
            what = "circuit" if name in circ else "electrical" if name in ELECTRICAL_CELLS else "device"
            rows.append({"name": name, "kind": what, "function": qualified(cell),
                         "model": qualified(mods.get(name)), "summary": summary(cell)})
        return rows
    if kind == "models":
        devs = devices()
        return [{"name": name, "function": qualified(m), "parameters": len(inspect.signature(m).parameters),
                 "passive": devs[name].passive if name in devs else None, "summary": summary(m)}
                for name, m in models().items()]
    return [{"name": name, "function": qualified(c.cell), "fast_model": qualified(c.fast_model),
             "model": qualified(c.model), "summary": summary(c.cell)} for name, c in circuits().items()]


def port_rows(component) -> list[dict]:
    """Ports of a built component: name, type, centre (µm), orientation (°), width (µm), cross-section, layer."""
    return [{"name": p.name, "type": p.port_type, "x": float(p.dcenter[0]), "y": float(p.dcenter[1]),
             "orientation": float(p.orientation), "width": float(p.dwidth),
             "cross_section": p.info.get("cross_section", ""), "layer": str(p.layer_info)} for p in component.ports]


def cell_info(name: str, settings: dict, run_drc: bool = True, platform=None) -> dict:
    """Everything ``info`` prints about the cell ``name`` built with ``settings`` (over the values of ``platform``,
    a ``pdk.platforms.Platform`` or None, where the cell and its model take them)."""
    from prismpic import pdk_registry
    from prismpic.checks import check_gds_extent
    from prismpic.circuits.registry import circuits
    from prismpic.cli.layout import check_lengths
    from prismpic.pdk import drc
    from prismpic.pdk.platforms import accepted_settings, outside_domains
    from prismpic.pdk.rules import RULES
    from prismpic.pdk_registry import get_pdk, models

    cells = pdk_registry.cells()
    if name not in cells:
        raise ValueError(f"name = {name!r} is not a registered cell, model or circuit; choose from {sorted(cells)}")
    cell = cells[name]
    check_lengths(settings)
    check_settings(cell, settings, what=f"cell {name}")
    preset = {} if platform is None else platform.settings()
    settings = {**accepted_settings(cell, preset), **settings}
    get_pdk()
    try:
        comp = cell(**settings)
    except TypeError as e:
        raise ValueError(f"--set for {name}: {e}") from None
    check_gds_extent(comp, name)
    info = {"name": name, "summary": summary(cell), "cell": qualified(cell), "settings": settings,
            "parameters": _on_preset(describe_parameters(cell), accepted_settings(cell, preset)),
            "size_um": [float(comp.dxsize), float(comp.dysize)], "ports": port_rows(comp)}
    if platform is not None:
        info["platform"] = {"name": platform.name, "description": platform.description, "settings": preset,
                            "outside_tables": outside_domains(platform)}
    model = models().get(name)
    if model is not None:
        import jax

        sdict = jax.eval_shape(model)  # the S-matrix's keys by tracing alone: no compile
        info["model"] = {"function": qualified(model), "summary": summary(model),
                         "ports": sorted({p for pair in sdict for p in pair}, key=lambda s: (len(s), s)),
                         "parameters": describe_parameters(model, fallback=cell)}
        shared = set(inspect.signature(cell).parameters)
        for row in info["model"]["parameters"]:
            row["from_cell"] = row["name"] in shared
        _on_preset(info["model"]["parameters"], accepted_settings(model, preset))
    circ = circuits().get(name)
    if circ is not None:
        info["fast_model"] = qualified(circ.fast_model)
    if run_drc:
        violations = drc(comp, deep=True)
        info["drc"] = {"clean": not violations, "violations": [str(v) for v in violations],
                       "rules": f"prismpic.pdk.rules.RULES ({len(vars(RULES))} values)"}
    return info


INFO_LIBRARIES = ("gdsfactory", "kfactory", "klayout", "jax", "numpy")  # what builds, checks and traces the cell


def cached_cell_info(name: str, settings: dict, run_drc: bool = True, platform=None) -> dict:
    """``cell_info`` as plain JSON types, kept in the user cache's catalog for these arguments, prismpic's sources
    and the versions of ``INFO_LIBRARIES`` (``user_cache.cached_json``): a later ``info`` of the same cell reads it
    back (0.5 CPU-s) instead of importing gdsfactory and JAX, building the cell, tracing its model and running the
    DRC (≈ 7 CPU-s for the add-drop ring). Bad input raises as ``cell_info`` does, and nothing is kept."""
    import hashlib
    from importlib.metadata import version

    from prismpic import user_cache
    from prismpic.fileio import jsonable

    query = {"name": name, "settings": jsonable(settings), "drc": run_drc,
             "platform": None if platform is None else [platform.name, jsonable(platform.settings())],
             "versions": {lib: version(lib) for lib in INFO_LIBRARIES}}
    digest = hashlib.sha256(json.dumps(query, sort_keys=True).encode()).hexdigest()[:16]
    return user_cache.cached_json(f"info-{digest}",
                                  lambda: jsonable(cell_info(name, settings, run_drc=run_drc, platform=platform)))


def _on_preset(rows: list[dict], values: dict) -> list[dict]:
    """``describe_parameters`` rows with the preset's ``values`` as their defaults (marked ``from_platform``)."""
    for row in rows:
        if row["name"] in values:
            row.update(default=values[row["name"]], required=False, from_platform=True)
    return rows


# ---------------------------------------------------------------------------- printing
MIN_LAST_COLUMN = 24  # characters of the last (description) column kept before middle columns are dropped


def plain(text: str) -> str:
    """Docstring text for a terminal: reStructuredText literals and roles (````x````, ``:func:`x```) as plain x."""
    text = re.sub(r":\w+:`([^`]+)`", r"\1", text)
    return re.sub(r"``([^`]+)``", r"\1", text)


def terminal_width() -> int:
    """The terminal's width in columns (``COLUMNS`` when set; 80 when not a terminal)."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def wrapped(text: str, indent: str) -> list[str]:
    """``text`` wrapped to the terminal's width, continuation lines indented by ``indent``."""
    import textwrap

    return textwrap.wrap(text, terminal_width(), subsequent_indent=indent) or [""]


def table(rows: list[list[str]], indent: str = "  ", width: int | None = None, wrap: bool = False,
          min_last: int = MIN_LAST_COLUMN) -> list[str]:
    """Rows of cells as left-aligned text columns (the last column unpadded) that fit ``width`` columns (default:
    the terminal's). When they do not, the middle columns are dropped while the last would get fewer than
    ``min_last`` characters; then the last column is wrapped onto continuation lines (``wrap``) or cut with "…"."""
    import textwrap

    if not rows:
        return []
    width = terminal_width() if width is None else width
    rows = [[plain(c) for c in r] for r in rows]

    def widths_of(rs):
        return [max(len(r[i]) for r in rs) for i in range(len(rs[0]) - 1)]

    while len(rows[0]) > 2 and width - len(indent) - sum(w + 2 for w in widths_of(rows)) < min_last:
        rows = [r[:-2] + r[-1:] for r in rows]  # drop the column next to the last
    widths = widths_of(rows)
    lead = len(indent) + sum(w + 2 for w in widths)
    room = max(width - lead, 1)
    lines = []
    for r in rows:
        head = indent + "".join(c.ljust(w) + "  " for c, w in zip(r, widths, strict=False))
        if len(r[-1]) <= room:
            lines.append(head + r[-1])
        elif wrap:
            parts = textwrap.wrap(r[-1], max(room, 8)) or [""]
            lines += [head + parts[0]] + [" " * lead + p for p in parts[1:]]
        else:
            lines.append(head + r[-1][:room - 1] + "…")
    return lines


def _source(row: dict) -> str:
    """Where a model parameter's default comes from: the platform preset, the cell or the model."""
    return "platform" if row.get("from_platform") else "cell" if row.get("from_cell") else "model"


def parameter_lines(params: list[dict], mark_cell: bool = False, indent: str = "    ") -> list[str]:
    head = ["name", "default", "unit"] + (["from"] if mark_cell else []) + ["description"]
    rows = [head] + [[p["name"], "(required)" if p["required"] else fmt(p["default"]), p["unit"] or "—"]
                     + ([_source(p)] if mark_cell else []) + [p["description"]] for p in params]
    return table(rows, indent, wrap=True)


def info_lines(info: dict) -> list[str]:
    lines = [*wrapped(f"{info['name']}: {plain(info['summary'])}", "  "), f"  cell: {info['cell']}"
             + (f" with {', '.join(f'{k} = {fmt(v)}' for k, v in info['settings'].items())}" if info["settings"] else "")]
    lines.append(f"  size: {info['size_um'][0]:.6g} × {info['size_um'][1]:.6g} µm")
    if info.get("platform"):
        pl = info["platform"]
        outside = "; ".join(f"{k}: {v}" for k, v in pl["outside_tables"].items())
        lines += wrapped(f"  platform: {pl['name']}: {pl['description']}"
                         + (f" (tables that do not cover it: {outside})" if outside else ""), "    ")
    lines.append("  parameters:")
    lines += parameter_lines(info["parameters"])
    lines.append(f"  ports ({len(info['ports'])}):")
    rows = [["name", "type", "x (µm)", "y (µm)", "angle", "w (µm)", "layer", "xs"]]
    rows += [[p["name"], p["type"], f"{p['x']:.3f}", f"{p['y']:.3f}", f"{p['orientation']:g}°", f"{p['width']:.6g}",
              p["layer"].replace(" ", ""), p["cross_section"] or "—"] for p in info["ports"]]
    lines += table(rows, "    ", wrap=True, min_last=0)
    model = info.get("model")
    if model is None:
        lines.append("  model: none (a layout-only cell)")
    else:
        lines += wrapped(f"  model: {model['function']}: {plain(model['summary'])}", "    ")
        lines.append(f"    S-parameter ports: {', '.join(model['ports']) or 'none'}")
        lines.append("    parameters:")
        lines += parameter_lines(model["parameters"], mark_cell=True, indent="      ")
    if info.get("fast_model"):
        lines.append(f"  fast model: {info['fast_model']}")
    drc = info.get("drc")
    if drc is not None:
        lines.append("  DRC (prismpic KLayout DRC): " + ("clean" if drc["clean"] else
                                                           f"{len(drc['violations'])} violation(s)"))
        lines += [f"    {v}" for v in drc["violations"]]
    return lines


# ---------------------------------------------------------------------------- commands
@app.command("list")
@cli_errors
def list_(
    kind: Annotated[str | None, typer.Argument(help="cells, models or circuits (default: all three)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of text")] = False,
):
    """List the registered cells, models and circuits."""
    from prismpic.checks import check_choice

    if kind is not None:
        check_choice("kind", kind, KINDS)
    from prismpic import user_cache

    found = {k: user_cache.cached_json(f"catalog-{k}", lambda k=k: catalog(k)) for k in ([kind] if kind else KINDS)}
    if as_json:
        say(json.dumps(found, indent=1, ensure_ascii=False))
        return
    columns = {"cells": ("kind",), "models": ("module",), "circuits": ("fast_model",)}
    for k, rows in found.items():
        say(f"{k} ({len(rows)}):")
        body = [["name", *columns[k], "summary"]]
        body += [[r["name"], *(short_name(column_text(r, c)) or "—" for c in columns[k]), r["summary"]] for r in rows]
        for line in table(body):
            say(line)


@app.command()
@cli_errors
def info(
    name: Annotated[str, typer.Argument(help="registered cell, model or circuit name (see `prismpic list`)")],
    set_: Annotated[list[str] | None, typer.Option("--set", help="cell parameter key=value (repeatable)")] = None,
    drc: Annotated[bool, typer.Option("--drc/--no-drc", help="run the DRC on the built cell")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of text")] = False,
    platform: Annotated[str | None, typer.Option("--platform", help=platform_help(
        "the defaults the cell and its model take from it, and the tables that do not cover it"))] = None,
):
    """Ports, parameters (defaults, units), model and DRC status of one registered cell."""
    from prismpic.fileio import jsonable

    preset = chosen_platform(set_, platform)
    settings = parse_settings([s for s in set_ or [] if s.partition("=")[0].strip() != "platform"])
    data = cached_cell_info(name, settings, drc, preset)
    if as_json:
        say(json.dumps(jsonable(data), indent=1, ensure_ascii=False))
        return
    for line in info_lines(data):
        say(line)


@app.command("pdk-files")
@cli_errors
def pdk_files(
    out: Annotated[Path | None, typer.Option(help="output folder, created if missing (default ./prismpic-pdk)")]
    = None,
    install: Annotated[bool, typer.Option("--install", help="regenerate the files shipped in the package's data "
                                                            "folder instead")] = False,
):
    """Write the KLayout layer properties (prismpic.lyp), technology (prismpic.lyt) and layers.yaml."""
    from prismpic.fileio import check_output_dir, check_output_file, created_folder
    from prismpic.pdk import layers

    if install and out is not None:
        raise ValueError(f"--out = {str(out)!r} and --install exclude each other: --install writes into the "
                         f"package data folder {str(layers.DATA_DIR)!r}")
    target = layers.DATA_DIR if install else (DEFAULT_PDK_DIR if out is None else out)
    what = "--install" if install else "--out"
    if target.exists():
        if not target.is_dir():
            raise ValueError(f"{what} = {str(target)!r} exists and is not a directory")
        for f in layers.PDK_FILES:
            check_output_file(target / f, what)
    else:
        check_output_dir(target, what)
    with created_folder(target, what):
        for path in layers.write_pdk_files(target):
            say(f"wrote {path}")


@app.command()
@cli_errors
def cache(
    clear: Annotated[bool, typer.Option("--clear", help="remove every entry (compiled and traced programs, the catalog)")]
    = False,
):
    """Where prismpic keeps compiled and traced JAX programs and its catalog between runs (PRISMPIC_CACHE_DIR; "off"
    turns it off), its size, and --clear to empty it."""
    from prismpic import user_cache

    if clear:
        count, size = user_cache.clear()
        say(f"removed {count} cache entries ({size / 1e6:.1f} MB)")
        return
    use = user_cache.usage()
    if not use["on"]:
        say(f"the cache is off ({user_cache.ENV}={user_cache.OFF})")
        return
    say(f"{use['folder']}: {use['entries']} entries, {use['bytes'] / 1e6:.1f} MB "
        f"(set {user_cache.ENV} to move it, or to 'off'; `prismpic cache --clear` empties it)")
