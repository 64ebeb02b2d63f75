"""Writing results: JSON serialisation, output checks and the one atomic file-writing path.

Every writer of the package (report, calibration, sweep, layout, tables) goes through
``atomic_path`` (files) or ``atomic_dir`` (folders): the output is written to a hidden temporary
beside the target and renamed over it only when complete, so a failed or interrupted run leaves
the old output (or none), never a partial one.

Temporaries are named ``.NAME.<host>-<pid>-<random>.tmp[.suffix]`` (folders being replaced:
``....old``), ``<host>`` a short hash of the host name. A run that dies without cleaning up
(SIGKILL, power loss) leaves them behind; every later atomic write into the same folder removes
them (``remove_stale_temps``) when they are *stale*: made on this host by a process that no
longer runs, or older than ``STALE_AGE_S`` whatever their host (a folder shared between hosts).
A stale ``.old`` folder whose target is missing (the run died between the two renames of a
folder swap) is renamed back to its target instead: the previous output is restored.

Outputs get the permissions of a file the user created: ``0o666 & ~umask`` for files and
``0o777 & ~umask`` for folders (0644 / 0755 under the usual umask 022), set on the temporary just
before the rename (``mkstemp``/``mkdtemp`` create them 0600 / 0700). A replaced file or folder gets
these modes too, not its predecessor's.

``check_output_file`` / ``check_output_dir`` validate an output before any work: suffix, parent
folder, an existing target of the wrong kind or read-only, write permission, free disk space.
They raise ``ValueError`` naming the option (``what``), the path and what is expected; an
``OSError`` while writing becomes ``OutputError`` (both an ``OSError`` and a ``ValueError``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import is_dataclass
from pathlib import Path

import numpy as np

STALE_AGE_S = 24 * 3600.0  # a temporary older than this is stale whatever its host
FREE_SPACE_MARGIN = 16 * 2**20  # bytes kept free beyond an output's estimated size
HOST_TAG = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]  # names this host in temporaries
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<host>[0-9a-f]{6})-(?P<pid>\d+)-[A-Za-z0-9_]+\.(?P<kind>tmp|old)(\.[^.]*)?$")


class OutputError(OSError, ValueError):
    """An output could not be written (an ``OSError``, also a ``ValueError`` so that bad paths share one path)."""


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


# ---------------------------------------------------------------------------- checks before any work
def _q(path) -> str:
    return repr(str(path))


def check_parent(path, what: str = "out") -> Path:
    """``path`` as a Path whose parent is an existing folder (ValueError naming ``what`` otherwise)."""
    path = Path(path)
    parent = path.parent
    if not parent.exists():
        raise ValueError(f"{what} = {_q(path)}: the parent directory {_q(parent)} does not exist; create it first")
    if not parent.is_dir():
        raise ValueError(f"{what} = {_q(path)}: the parent {_q(parent)} is a file, not a folder")
    return path


def _check_writable_folder(folder: Path, path: Path, what: str) -> None:
    """ValueError unless a file can be created in ``folder`` (a real probe: permissions, read-only mounts)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{what} = {_q(path)}: the folder {_q(folder)} is not writable (permission denied)")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.{_tag()}", suffix=".tmp", dir=folder)
    except OSError as e:
        raise ValueError(f"{what} = {_q(path)}: cannot create files in {_q(folder)} ({e.strerror})") from None
    os.close(fd)
    os.unlink(probe)


def _check_free_space(folder: Path, path: Path, what: str, need_bytes: float) -> None:
    if need_bytes <= 0:
        return
    free = shutil.disk_usage(folder).free
    if free < need_bytes + FREE_SPACE_MARGIN:
        raise ValueError(f"{what} = {_q(path)} needs about {need_bytes / 2**20:.4g} MiB but only "
                         f"{free / 2**20:.4g} MiB are free on the disk of {_q(folder)}; free space or write less")


def check_output_file(path, what: str = "out", *, suffixes: tuple[str, ...] = (), need_bytes: float = 0) -> Path:
    """``path`` checked as an output file before any work: suffix (one of ``suffixes``, case-insensitive, if
    given), parent an existing writable folder, not an existing folder, not a read-only file, and (when
    ``need_bytes`` > 0) room on the disk. ValueError naming ``what``, the path and what is expected."""
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise ValueError(f"{what} = {_q(path)} must end in {' or '.join(suffixes)}")
    if path.is_dir():
        raise ValueError(f"{what} = {_q(path)} is an existing folder; give a file name")
    check_parent(path, what)
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{what} = {_q(path)} exists and is read-only; make it writable or choose another name")
    _check_writable_folder(path.parent, path, what)
    _check_free_space(path.parent, path, what, need_bytes)
    return path


def check_output_dir(path, what: str = "out", *, need_bytes: float = 0) -> Path:
    """``path`` checked as an output folder that ``atomic_dir`` may create or replace: parent an existing
    writable folder; if ``path`` exists, a folder that is writable itself (moving a folder aside needs that)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} = {_q(path)} exists and is not a directory")
    check_parent(path, what)
    if path.exists() and not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{what} = {_q(path)} exists and is read-only: it cannot be replaced; make it "
                         "writable or choose another folder")
    _check_writable_folder(path.parent, path, what)
    _check_free_space(path.parent, path, what, need_bytes)
    return path


# ---------------------------------------------------------------------------- temporaries and stale ones
def _tag() -> str:
    return f"{HOST_TAG}-{os.getpid()}-"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    except OSError:
        return False
    return True


def is_stale(entry: Path, now: float | None = None) -> bool:
    """Whether ``entry`` is a temporary of this module left by a run that is gone (see the module docstring)."""
    m = _TEMP.match(entry.name)
    if m is None:
        return False
    try:
        age = (now or time.time()) - entry.lstat().st_mtime
    except OSError:
        return False
    if age > STALE_AGE_S:
        return True
    return m["host"] == HOST_TAG and not _pid_alive(int(m["pid"]))


def remove_stale_temps(folder) -> list[Path]:
    """Remove the stale temporaries of this module in ``folder`` (restoring an interrupted folder swap's
    previous folder when its target is missing); returns what was removed or restored. Best effort: an
    entry that cannot be removed is left."""
    folder = Path(folder)
    done = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return done
    now = time.time()
    for entry in entries:
        if not is_stale(entry, now):
            continue
        m = _TEMP.match(entry.name)
        target = folder / m["name"]
        try:
            if m["kind"] == "old" and (entry / "x").is_dir() and not target.exists():
                (entry / "x").replace(target)
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            done.append(entry)
        except OSError:
            continue
    return done


def current_umask() -> int:
    """The process's umask, read without changing it where the system allows (``/proc/self/status``, Linux ≥ 4.7);
    elsewhere set and restored at once (``os.umask`` has no read-only form)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def created_mode(*, folder: bool = False) -> int:
    """Permission bits of a file (``0o666 & ~umask``) or folder (``0o777 & ~umask``) the user creates."""
    return (0o777 if folder else 0o666) & ~current_umask()


def _write_error(path: Path, what: str, e: OSError) -> OutputError:
    if e.errno == errno.ENOSPC:
        reason = "the disk is full"
    else:
        reason = e.strerror or str(e)
    return OutputError(f"{what} = {_q(path)}: cannot write ({reason})")


@contextlib.contextmanager
def atomic_path(path, what: str = "out") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``, on failure remove it.

    Stale temporaries in the folder are removed first; an ``OSError`` becomes ``OutputError`` naming ``what``.
    """
    path = check_parent(path, what)
    if path.is_dir():
        raise ValueError(f"{what} = {_q(path)} is an existing folder; give a file name")
    remove_stale_temps(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{_tag()}", suffix=".tmp" + path.suffix, dir=path.parent)
    except OSError as e:
        raise _write_error(path, what, e) from None
    os.close(fd)
    try:
        try:
            yield Path(tmp)
            os.chmod(tmp, created_mode())
            os.replace(tmp, path)
        except OutputError:
            raise
        except OSError as e:
            raise _write_error(path, what, e) from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path, write: Callable, *, binary: bool = False, what: str = "out") -> Path:
    """Call ``write(f)`` on an open temporary file, then rename it to ``path`` (no partial file)."""
    with atomic_path(path, what) as tmp:
        mode = "wb" if binary else "w"
        with open(tmp, mode, **({} if binary else {"newline": "", "encoding": "utf-8"})) as f:
            write(f)
    return Path(path)


def write_text_atomic(path, text: str, what: str = "out") -> Path:
    """Write ``text`` (UTF-8) to ``path``, atomically."""
    return write_atomic(path, lambda f: f.write(text), what=what)


def write_json_atomic(path, data, what: str = "out") -> Path:
    """Write ``data`` (through ``jsonable``) as indented JSON to ``path``, atomically."""
    text = json.dumps(jsonable(data), indent=2, allow_nan=False) + "\n"
    return write_text_atomic(path, text, what=what)


def save_figure_atomic(fig, path, *, dpi: int = 110, what: str = "figure") -> Path:
    """``fig.savefig(path)`` through a temporary file, then rename (the format follows the suffix)."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    with atomic_path(path, what) as tmp:
        fig.savefig(tmp, dpi=dpi, format=fmt)
    return path


def write_gds_atomic(component, path, *, what: str = "out", **kwargs) -> Path:
    """``component.write_gds`` (gdsfactory) through a temporary beside ``path``, then rename.

    The format follows the suffix (``.gds`` or ``.oas``); the component's extent is checked against
    the GDS coordinate range first (``checks.check_gds_extent``).
    """
    from prismpic.checks import check_gds_extent

    path = Path(path)
    if path.suffix.lower() not in (".gds", ".oas"):
        raise ValueError(f"{what} = {_q(path)} must end in .gds or .oas (the layout format follows the suffix)")
    check_gds_extent(component)
    with atomic_path(path, what) as tmp:
        component.write_gds(tmp, **kwargs)
    return path


@contextlib.contextmanager
def atomic_dir(path, what: str = "out") -> Iterator[Path]:
    """Yield a fresh hidden folder beside ``path``; on success it replaces ``path`` (an old folder is removed
    only after the swap), on failure it is removed and ``path`` is left as it was."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} = {_q(path)} exists and is not a directory")
    check_parent(path, what)
    parent = path.resolve().parent
    remove_stale_temps(parent)
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{path.name}.{_tag()}", suffix=".tmp", dir=parent))
    except OSError as e:
        raise _write_error(path, what, e) from None
    try:
        try:
            yield work
            os.chmod(work, created_mode(folder=True))
            if path.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{path.name}.{_tag()}", suffix=".old", dir=parent))
                try:
                    path.replace(old / "x")
                except BaseException:
                    old.rmdir()
                    raise
                try:
                    work.replace(path)
                except BaseException:
                    (old / "x").replace(path)  # put the previous folder back
                    old.rmdir()
                    raise
                shutil.rmtree(old, ignore_errors=True)
            else:
                work.replace(path)
        except OutputError:
            raise
        except OSError as e:
            raise _write_error(path, what, e) from e
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
