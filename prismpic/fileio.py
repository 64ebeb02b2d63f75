"""Writing results: JSON serialisation, output checks and the one atomic file-writing path.

Every writer of the package (report, calibration, sweep, layout, tables) goes through
``atomic_path`` (files) or ``atomic_dir`` (folders): the output is written to a hidden temporary
beside the target and renamed over it only when complete, so a failed or interrupted run leaves
the old output (or none), never a partial one.

Temporaries (``prismpic.temporaries``) carry a per-user HMAC in their names, so that cleanup can prove
which are prismpic's: after SIGKILL or a power cut the next atomic write into the same folder removes
its own stale ones and never touches anything else (links, other users' entries, look-alike names).

An output folder gets a marker ``.prismpic-output.json`` listing every entry prismpic wrote into it.
An existing folder is replaced only when it is empty or holds nothing but what its marker lists; any
other folder (a user's, or a prismpic folder the user added files to) is refused before any work.

Every written file is flushed to the disk and checked before its rename (non-empty; text and JSON
read back byte for byte; figures by their signature; GDS/OASIS read back with KLayout): a full disk
is an ``OutputError``, never an empty output reported as written.

Outputs get the permissions of a file the user created: ``0o666 & ~umask`` for files and
``0o777 & ~umask`` for folders (0644 / 0755 under the usual umask 022), set on the temporary just
before the rename (temporaries are created 0600 / 0700). A replaced file or folder gets
these modes too, not its predecessor's.

``check_output_file`` / ``check_output_dir`` validate an output before any work: suffix, parent
folder, an existing target of the wrong kind or read-only, write permission, free disk space,
and for folders that an existing one may be replaced. They raise ``ValueError`` naming the option (``what``), the path and what is expected; an
``OSError`` while writing becomes ``OutputError`` (both an ``OSError`` and a ``ValueError``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import is_dataclass
from pathlib import Path

import numpy as np

from prismpic import temporaries

FREE_SPACE_MARGIN = 16 * 2**20  # bytes kept free beyond an output's estimated size
MARKER = ".prismpic-output.json"  # written into every output folder: what prismpic wrote there


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
        probe = _new_temp(folder / path.name)
    except OSError as e:
        raise ValueError(f"{what} = {_q(path)}: cannot create files in {_q(folder)} ({e.strerror})") from None
    _discard(probe)


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


def _named_folder(path, what: str) -> Path:
    """``path`` as a Path that names a folder of its own (not empty, not ``.`` or ``..``)."""
    if str(path).strip() == "" or Path(path).name in ("", ".", ".."):
        raise ValueError(f"{what} = {_q(path)} names no new folder; give a folder name such as 'results'")
    return Path(path)


def check_output_dir(path, what: str = "out", *, need_bytes: float = 0) -> Path:
    """``path`` checked as an output folder that ``atomic_dir`` may create or replace: parent an existing
    writable folder; if ``path`` exists, a folder that is writable itself (moving a folder aside needs that)
    and empty or a prismpic output holding only what prismpic wrote (``check_replaceable``)."""
    path = _named_folder(path, what)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} = {_q(path)} exists and is not a directory")
    check_parent(path, what)
    if path.exists() and not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"{what} = {_q(path)} exists and is read-only: it cannot be replaced; make it "
                         "writable or choose another folder")
    check_replaceable(path, what)
    _check_writable_folder(path.parent, path, what)
    _check_free_space(path.parent, path, what, need_bytes)
    return path


# ---------------------------------------------------------------------------- temporaries
def _new_temp(path: Path, *, folder: bool = False, kind: str = "tmp", suffix: str = "") -> Path:
    """Create a temporary beside ``path`` (a file 0600 or a folder 0700, never an existing entry) and register it."""
    tmp = path.parent / temporaries.temp_name(path.name, kind, suffix)
    temporaries.register(tmp, kind)  # before it exists: a stop landing just after it is made still finds it
    try:
        if folder:
            os.mkdir(tmp, 0o700)
        else:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except OSError:
        temporaries.release(tmp)
        raise
    return tmp


def _discard(tmp: Path) -> None:
    """Remove a temporary of this process (file or folder) and forget it."""
    with contextlib.suppress(OSError):
        if tmp.is_dir() and not tmp.is_symlink():
            shutil.rmtree(tmp)
        else:
            tmp.unlink(missing_ok=True)
    temporaries.release(tmp)


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


def _fsynced(tmp: Path) -> int:
    """Flush ``tmp`` to the disk (a full disk shows here at the latest) and return its size in bytes."""
    fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        os.fsync(fd)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path, what: str = "out", *, verify: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success check and rename it over ``path``, on failure remove it.

    Before the rename the temporary is flushed to the disk and must be non-empty; ``verify(tmp)`` then re-reads
    it (raising ``ValueError`` or ``OSError`` when it is not what was meant to be written). Stale temporaries in
    the folder are removed first; an ``OSError`` becomes ``OutputError`` naming ``what``.
    """
    path = check_parent(path, what)
    if path.is_dir():
        raise ValueError(f"{what} = {_q(path)} is an existing folder; give a file name")
    temporaries.remove_stale_temps(path.parent)
    try:
        tmp = _new_temp(path, suffix=path.suffix)
    except OSError as e:
        raise _write_error(path, what, e) from None
    try:
        try:
            yield tmp
            if _fsynced(tmp) == 0:
                raise OutputError(f"{what} = {_q(path)}: cannot write (nothing was written: is the disk full?)")
            if verify is not None:
                _verified(verify, tmp, path, what)
            os.chmod(tmp, created_mode())
            with temporaries.SWAP_LOCK:
                os.replace(tmp, path)
                temporaries.release(tmp)
        except OutputError:
            raise
        except OSError as e:
            raise _write_error(path, what, e) from e
    except BaseException:
        _discard(tmp)
        raise


def _verified(verify: Callable[[Path], None], tmp: Path, path: Path, what: str) -> None:
    """Run ``verify(tmp)``; any failure is an ``OutputError`` saying the written file does not read back."""
    try:
        verify(tmp)
    except (ValueError, OSError, RuntimeError) as e:
        raise OutputError(f"{what} = {_q(path)}: the written file does not read back ({' '.join(str(e).split())});"
                          " is the disk full?") from None


def write_atomic(path, write: Callable, *, binary: bool = False, what: str = "out",
                 verify: Callable[[Path], None] | None = None) -> Path:
    """Call ``write(f)`` on an open temporary file, then rename it to ``path`` (no partial file).

    The bytes on the disk are compared with the bytes written before the rename; ``verify`` as in ``atomic_path``.
    """
    with atomic_path(path, what, verify=verify) as tmp:
        mode = "wb" if binary else "w"
        with open(tmp, mode, **({} if binary else {"newline": "", "encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            written = f.buffer.tell() if hasattr(f, "buffer") else f.tell()
        if os.stat(tmp).st_size != written:
            raise OutputError(f"{what} = {_q(path)}: cannot write ({written} bytes written, "
                              f"{os.stat(tmp).st_size} on the disk)")
    return Path(path)


def write_text_atomic(path, text: str, what: str = "out") -> Path:
    """Write ``text`` (UTF-8) to ``path``, atomically; the file is read back and compared before the rename."""
    data = text.encode("utf-8")

    def same(tmp: Path) -> None:
        if tmp.read_bytes() != data:
            raise ValueError("its bytes differ from those written")

    return write_atomic(path, lambda f: f.write(data), binary=True, what=what, verify=same)


def write_json_atomic(path, data, what: str = "out") -> Path:
    """Write ``data`` (through ``jsonable``) as indented JSON to ``path``, atomically (read back before the rename)."""
    text = json.dumps(jsonable(data), indent=2, allow_nan=False) + "\n"
    return write_text_atomic(path, text, what=what)


_MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF", ".svg": b"<?xml"}


def save_figure_atomic(fig, path, *, dpi: int = 110, what: str = "figure") -> Path:
    """``fig.savefig(path)`` through a temporary file, then rename (the format follows the suffix); the file must
    start with its format's signature."""
    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    magic = _MAGIC.get(path.suffix.lower(), b"")

    def starts_right(tmp: Path) -> None:
        with open(tmp, "rb") as f:
            if not f.read(len(magic)) == magic:
                raise ValueError(f"it does not start as a {fmt} file")

    with atomic_path(path, what, verify=starts_right) as tmp:
        fig.savefig(tmp, dpi=dpi, format=fmt)
    return path


def _gds_reads_back(component) -> Callable[[Path], None]:
    """A check that a written GDS/OASIS file reads with KLayout and holds the component's top cell."""

    def check(tmp: Path) -> None:
        import klayout.db as kdb

        layout = kdb.Layout()
        layout.read(str(tmp))
        if layout.cell(component.name) is None:
            raise ValueError(f"its top cell {component.name!r} is missing")

    return check


def write_gds_atomic(component, path, *, what: str = "out", **kwargs) -> Path:
    """``component.write_gds`` (gdsfactory) through a temporary beside ``path``, read back with KLayout, then rename.

    The format follows the suffix (``.gds`` or ``.oas``); the component's extent is checked against
    the GDS coordinate range first (``checks.check_gds_extent``).
    """
    from prismpic.checks import check_gds_extent

    path = Path(path)
    if path.suffix.lower() not in (".gds", ".oas"):
        raise ValueError(f"{what} = {_q(path)} must end in .gds or .oas (the layout format follows the suffix)")
    check_gds_extent(component)
    with atomic_path(path, what, verify=_gds_reads_back(component)) as tmp:
        component.write_gds(tmp, **kwargs)
    return path


# ---------------------------------------------------------------------------- output folders
def _entries_below(folder: Path) -> set[str]:
    """Every entry below ``folder`` (files, folders, links; links not followed) as relative POSIX paths."""
    out = set()
    for root, dirs, files in os.walk(folder, followlinks=False):
        rel = Path(root).relative_to(folder)
        out.update((rel / n).as_posix() for n in (*dirs, *files))
    return out


def _recorded_entries(folder: Path) -> set[str] | None:
    """The entries the marker of ``folder`` records as prismpic's, or None without a valid marker."""
    marker = folder / MARKER
    try:
        if not stat.S_ISREG(os.lstat(marker).st_mode):
            return None
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("made_by") != "prismpic" or not isinstance(data.get("entries"), list):
        return None
    return {str(e) for e in data["entries"]}


def foreign_entries(folder) -> list[str]:
    """Entries of the existing folder ``folder`` that prismpic did not write there (sorted, relative paths): all of
    them without a valid marker (``MARKER``), else those the marker does not list. [] for an empty folder."""
    folder = Path(folder)
    recorded = _recorded_entries(folder)
    if recorded is None:
        with os.scandir(folder) as it:
            return sorted(e.name for e in it)
    return sorted(_entries_below(folder) - recorded - {MARKER})


def check_replaceable(path: Path, what: str) -> None:
    """ValueError unless the folder ``path`` is absent, empty, or a prismpic output holding only what prismpic wrote."""
    if not os.path.lexists(path):
        return
    if os.path.islink(path):
        raise ValueError(f"{what} = {_q(path)} is a symbolic link; give a new folder or one prismpic wrote")
    foreign = foreign_entries(path)
    if foreign:
        raise ValueError(_foreign_message(path, what, foreign))


def _foreign_message(path: Path, what: str, foreign: list[str]) -> str:
    shown = ", ".join(repr(f) for f in foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
    return (f"{what} = {_q(path)} is an existing folder holding files prismpic did not write ({shown}); "
            "prismpic replaces only its own output folders or empty ones: choose a new or empty folder")


def _write_marker(work: Path) -> None:
    """Record in ``work`` that prismpic wrote it and every entry it holds (``MARKER``)."""
    from prismpic import __version__

    data = {"made_by": "prismpic", "version": __version__, "entries": sorted(_entries_below(work))}
    with open(work / MARKER, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())


@contextlib.contextmanager
def created_folder(path, what: str = "out") -> Iterator[Path]:
    """Create the folder ``path`` (and missing parents) for a block that writes files into it; if the block fails,
    the folders made here are removed again when still empty (a failed command leaves no empty folders)."""
    path = Path(path)
    made = [p for p in (path, *path.parents) if not os.path.lexists(p)][::-1]
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _write_error(path, what, e) from None
    try:
        yield path
    except BaseException:
        for p in reversed(made):
            with contextlib.suppress(OSError):
                p.rmdir()  # only an empty folder
        raise


def check_out_clear_of_inputs(out, inputs, what: str = "--out") -> None:
    """ValueError when the output folder ``out`` is, or contains, one of ``inputs`` (files or folders): writing it
    would replace the inputs."""
    target = Path(os.path.realpath(out))
    for given in inputs:
        if given is None:
            continue
        real = Path(os.path.realpath(given))
        if real == target or target in real.parents:
            raise ValueError(f"{what} = {_q(out)} contains the input {_q(given)}; write the output elsewhere")


@contextlib.contextmanager
def atomic_dir(path, what: str = "out") -> Iterator[Path]:
    """Yield a fresh hidden folder beside ``path``; on success it gets a marker (``MARKER``) and replaces ``path``
    (an old folder is removed only after the swap), on failure it is removed and ``path`` is left as it was.

    An existing ``path`` is replaced only when it is empty or a prismpic output holding nothing prismpic did not
    write (``check_replaceable``, checked before and again at the swap).
    """
    path = _named_folder(path, what)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} = {_q(path)} exists and is not a directory")
    check_parent(path, what)
    check_replaceable(path, what)
    path = path.resolve().parent / path.name
    temporaries.remove_stale_temps(path.parent)
    try:
        work = _new_temp(path, folder=True)
    except OSError as e:
        raise _write_error(path, what, e) from None
    try:
        try:
            try:
                yield work
            except OSError as e:
                if not _concerns(e, work):  # e.g. a data file the body reads: not the output's fault
                    raise OSErrorElsewhere(e) from e
                raise
            _write_marker(work)
            os.chmod(work, created_mode(folder=True))
            with temporaries.SWAP_LOCK:
                check_replaceable(path, what)
                _swap_in(work, path, what)
        except OutputError:
            raise
        except OSErrorElsewhere as e:
            raise e.error from e.error.__cause__
        except OSError as e:
            raise _write_error(path, what, e) from e
    except BaseException:
        _discard(work)
        raise


class OSErrorElsewhere(Exception):
    """An OSError raised inside ``atomic_dir``'s body about a file outside the output (passed on unchanged)."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


def _concerns(error: OSError, work: Path) -> bool:
    """Whether an OSError is about the output being written: a file in ``work``, or no file named (a full disk
    while writing an open file)."""
    names = [n for n in (error.filename, error.filename2) if n is not None]
    if not names:
        return True
    for name in names:
        real = Path(os.path.realpath(os.fsdecode(name)))
        if real == work or work in real.parents:
            return True
    return False


def _swap_in(work: Path, path: Path, what: str) -> None:
    """Rename the finished ``work`` folder to ``path``; a previous ``path`` is moved into an ``.old`` temporary first,
    checked there once more (a file written into it since the last check is not prismpic's: the swap is undone and
    refused) and removed after the swap (put back if the second rename fails)."""
    if not os.path.lexists(path):
        os.rename(work, path)
        temporaries.release(work)
        return
    old = _new_temp(path, folder=True, kind="old")
    try:
        os.rename(path, old / "x")
    except BaseException:
        _discard(old)
        raise
    foreign = foreign_entries(old / "x")
    if foreign:
        os.rename(old / "x", path)
        _discard(old)
        raise ValueError(_foreign_message(path, what, foreign))
    try:
        os.rename(work, path)
        temporaries.release(work)
    except BaseException:
        os.rename(old / "x", path)  # put the previous folder back
        _discard(old)
        raise
    _discard(old)
