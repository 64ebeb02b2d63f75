"""Writing results: JSON serialisation and the one atomic file-writing path.

Every writer of the package (report, calibration, sweep, layout, tables) goes through
``atomic_path``: the output is written to a temporary file in the target's folder and renamed
over the target only when complete, so a failed or interrupted run leaves the old file (or no
file), never a partial one.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import is_dataclass
from pathlib import Path

import numpy as np


def jsonable(x):
    """``x`` as plain JSON types: arrays to lists, NumPy/JAX scalars to Python, non-finite floats to None.

    Objects with a ``to_dict()`` method (the result dataclasses) are serialised through it.
    """
    if is_dataclass(x) and hasattr(x, "to_dict"):
        return jsonable(x.to_dict())
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray | np.generic) or (hasattr(x, "tolist") and hasattr(x, "dtype")):
        return jsonable(np.asarray(x).tolist())
    if isinstance(x, bool):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    return x


def check_parent(path, what: str = "out") -> Path:
    """``path`` as a Path whose parent folder exists (ValueError naming ``what`` otherwise)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise ValueError(f"{what} = {str(path)!r}: the parent directory {str(path.parent)!r} does not exist")
    return path


@contextlib.contextmanager
def atomic_path(path, what: str = "out") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``, on failure remove it."""
    path = check_parent(path, what)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp" + path.suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path, write: Callable, *, binary: bool = False, what: str = "out") -> Path:
    """Call ``write(f)`` on an open temporary file, then rename it to ``path`` (no partial file)."""
    with atomic_path(path, what) as tmp:
        mode = "wb" if binary else "w"
        with open(tmp, mode, **({} if binary else {"newline": ""})) as f:
            write(f)
    return Path(path)


def write_json_atomic(path, data, what: str = "out") -> Path:
    """Write ``data`` (through ``jsonable``) as indented JSON to ``path``, atomically."""
    text = json.dumps(jsonable(data), indent=2, allow_nan=False) + "\n"
    return write_atomic(path, lambda f: f.write(text), what=what)


def save_figure_atomic(fig, path, *, dpi: int = 110, what: str = "figure") -> Path:
    """``fig.savefig(path)`` through a temporary file, then rename (the format follows the suffix)."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    with atomic_path(path, what) as tmp:
        fig.savefig(tmp, dpi=dpi, format=fmt)
    return path


def write_gds_atomic(component, path, *, what: str = "out", **kwargs) -> Path:
    """``component.write_gds`` (gdsfactory) through a temporary ``.gds`` beside ``path``, then rename."""
    path = Path(path)
    with atomic_path(path, what) as tmp:
        component.write_gds(tmp, **kwargs)
    return path


@contextlib.contextmanager
def atomic_dir(path) -> Iterator[Path]:
    """Yield a fresh hidden folder beside ``path``; on success it replaces ``path`` (an old folder is removed
    only after the swap), on failure it is removed and ``path`` is left as it was."""
    path = Path(path)
    parent = path.resolve().parent
    work = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=parent))
    try:
        yield work
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.old.", dir=parent))
            path.replace(old / "x")
            work.replace(path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            work.replace(path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
