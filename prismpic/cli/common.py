"""What every command shares: the Typer app, consoles, the one error path, progress bars, option parsing."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Physics-level modeling of TFLN photonic chips.")
console = Console()
err_console = Console(stderr=True)


def cli_errors(fn):
    """Turn a library ValueError into a one-line message and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, FileNotFoundError) as e:
            err_console.print(f"error: {e}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper


def progress_bar() -> Progress:
    """A Rich progress bar on stderr."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_settings(items: list[str] | None) -> dict:
    """Parse ``key=value`` pairs (values as JSON where possible, else strings)."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--set {item!r} must look like key=value")
        k, v = item.split("=", 1)
        out[k.strip()] = _parse_value(v.strip())
    return out


def load_params(path: Path | None) -> dict:
    """A parameter file (e.g. written by ``prismpic calibrate``), checked by ``calibration.load_params``; {} for None."""
    from prismpic.analysis.calibration import load_params as load_checked

    return {} if path is None else load_checked(path)
