"""The user's prismpic cache: JAX's persistent compilation cache, traced programs (``program_cache``), computed
arrays (``cached_arrays``) and the command catalog, reused across runs.

The folder is ``PRISMPIC_CACHE_DIR`` when set, else the platform's user cache folder (``~/.cache/prismpic`` on
Linux, via ``platformdirs``); ``PRISMPIC_CACHE_DIR=off`` turns the cache off. prismpic marks the folder it made
(``MARKER``) and never clears a folder without that mark, nor any file in it that is not a cache entry
(``is_entry``). ``prismpic cache`` shows it, ``prismpic cache --clear`` empties it.

Compiled code: XLA executables are keyed by JAX on the computation, its shapes, the JAX/XLA version and the
device, so a cached program is exactly what a fresh compile would give (results are identical with and without
the cache; a test holds it). JAX's key leaves out the host's instruction set (XLA:CPU then logs "could lead to
execution errors such as SIGILL" on every load), so prismpic keeps one folder per processor (``host_folder``: a
home folder shared by machines of different kinds never hands one a program built for another), and the CLI
silences XLA's C++ log below fatal (``TF_CPP_MIN_LOG_LEVEL``, unless the user set it): errors reach Python as
exceptions. The cache is set through JAX's own environment variables when JAX is not imported
yet (this module does not import it), else through ``jax.config``. Every compile is kept
(``MIN_COMPILE_TIME_S`` = 0: a model evaluated op by op compiles dozens of 10–50 ms programs), within
``MAX_SIZE_BYTES`` (JAX evicts the least recently used entries beyond it). That limit has a cost: at every program it
writes JAX lists the folder and reads every entry's access time (0.25 CPU-s a write with the 6,200 programs of a test
run's cache); it also makes JAX lock the folder around each read and write, and without the lock (no limit, tried in
session 42) an xdist worker read a program another was writing and aborted in XLA's deserializer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

ENV = "PRISMPIC_CACHE_DIR"
OFF = "off"
MARKER = ".prismpic-cache"
JAX_FOLDER = "jax"  # the JAX entries sit in JAX_FOLDER/<host_folder()>
CATALOG_FOLDER = "catalog"
PROGRAM_FOLDER = "programs"  # traced programs (``program_cache``)
PROGRAM_SUFFIX = ".jaxexport"
ARRAY_FOLDER = "arrays"  # computed arrays (``cached_arrays``: e.g. the MiniLM keys and queries of a document)
ARRAY_SUFFIX = ".npz"
ARRAYS_KEPT = 8  # per name: the most recently written entries of one kind of result
MIN_COMPILE_TIME_S = 0.0
MAX_SIZE_BYTES = 2 * 1024**3
JAX_SUFFIXES = ("-cache", "-atime")  # jax/_src/lru_cache.py names its entries KEY-cache and KEY-atime
JAX_LOCK = ".lockfile"
SOURCE_SUFFIXES = (".py", ".json", ".npz", ".yaml")  # what ``source_key`` digests
_SOURCE_DIGESTS: dict = {}  # package folder -> (its files' sizes and times, their content digest)


def cache_root() -> Path | None:
    """The cache folder (not created here), or None when ``PRISMPIC_CACHE_DIR=off``."""
    value = os.environ.get(ENV)
    if value is not None and value.strip().lower() == OFF:
        return None
    if value:
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("prismpic", appauthor=False))


def ready_root() -> Path | None:
    """The cache folder, created (0700) and marked if missing; None when it is off or cannot be written (the
    cache is an optimisation: a read-only home or a foreign folder turns it off, it never stops a command)."""
    root = cache_root()
    if root is None:
        return None
    try:
        if not root.exists():
            root.mkdir(mode=0o700, parents=True)
            (root / MARKER).write_text("prismpic cache: compiled JAX programs and the command catalog\n")
        if not (root / MARKER).is_file() or not os.access(root, os.W_OK):
            return None  # a folder prismpic did not make: not ours to fill
    except OSError:
        return None
    return root


def host_folder() -> str:
    """The name of this processor's folder of compiled programs: ``cpu-`` and a digest of the machine type and the
    CPU's instruction-set flags (``/proc/cpuinfo`` on Linux, else ``platform.processor()``)."""
    import platform

    flags = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = " ".join(sorted(line.split(":", 1)[1].split()))
                break
    except OSError:
        pass
    return "cpu-" + hashlib.sha256(f"{platform.machine()}|{flags}".encode()).hexdigest()[:16]


def enable_compilation_cache() -> Path | None:
    """Point JAX's persistent compilation cache at the user cache and return its folder (None when off). A cache
    folder already given to JAX (``jax_compilation_cache_dir``, ``JAX_COMPILATION_CACHE_DIR``) is kept."""
    root = ready_root()
    if root is None:
        return None
    folder = root / JAX_FOLDER / host_folder()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    settings = {"jax_compilation_cache_dir": str(folder),
                "jax_persistent_cache_min_compile_time_secs": MIN_COMPILE_TIME_S,
                "jax_compilation_cache_max_size": MAX_SIZE_BYTES}
    jax = sys.modules.get("jax")
    if jax is not None and hasattr(jax, "config"):
        if jax.config.jax_compilation_cache_dir:  # set by the program prismpic runs in: its choice stands
            return Path(jax.config.jax_compilation_cache_dir)
        for key, value in settings.items():
            jax.config.update(key, value)
    else:  # read by JAX when it is first imported; a variable the user set stands
        # XLA's C++ log otherwise prints 2-3 lines per program it loads from any persistent cache ("Loading XLA:CPU
        # AOT result ... could lead to execution errors such as SIGILL", for tuning flags of this very host); XLA
        # reads the variable once, when JAX is imported, so a program that imported JAX first keeps its own setting
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
            return Path(os.environ["JAX_COMPILATION_CACHE_DIR"])
        for key, value in settings.items():
            os.environ[key.upper()] = str(value)
    return folder


def worker_environment() -> dict[str, str]:
    """Environment variables for worker processes this one starts (a wafer batch's Dask LocalCluster): this
    process's JAX persistent compilation cache settings (JAX reads them when the worker imports it), or none when
    this process has no such cache. A worker then loads what this process or another worker compiled (same program,
    same key) instead of compiling it again: tens of CPU-seconds per worker for a ring's physical fit."""
    jax = sys.modules.get("jax")
    if jax is None or not jax.config.jax_compilation_cache_dir:
        return {}
    names = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
             "jax_persistent_cache_min_entry_size_bytes", "jax_compilation_cache_max_size")
    env = {name.upper(): str(getattr(jax.config, name)) for name in names}
    if "TF_CPP_MIN_LOG_LEVEL" in os.environ:
        env["TF_CPP_MIN_LOG_LEVEL"] = os.environ["TF_CPP_MIN_LOG_LEVEL"]
    return env


def source_key(package: Path | None = None, modules=None) -> str:
    """A digest of prismpic's version and of its source and data files' names and contents: what the cached
    catalog, exported programs and computed arrays were made from (a source tree that changes makes a new key; a
    reinstall or a fresh clone of the same sources keeps it). With ``modules`` (dotted names of prismpic modules)
    the digest covers only the sources those can run, and the data (``source_digest.modules_key``): what a traced
    program or a computed array was made from, kept across edits elsewhere.

    The imported prismpic's key is computed once per process: the code a process runs is the code it imported, which
    a later edit of the files does not change (and stamping its ≈ 400 files took 8 ms, at every one of the ≈ 700
    program lookups of a report). Another folder's contents are read again when a file's size or modification time
    changes.

    Args:
        package: the package folder to digest (default: the imported prismpic's).
        modules: the imported prismpic's modules whose sources count (default: all of them).
    """
    if modules is not None:
        from prismpic.source_digest import modules_key

        return modules_key(frozenset(modules))
    if package is None:
        return _imported_source_key()
    return _folder_digest(Path(package))


@functools.cache
def _imported_source_key() -> str:
    import prismpic

    return _folder_digest(Path(prismpic.__file__).parent)


def _folder_digest(package: Path) -> str:
    import prismpic

    files = [path for path in sorted(package.rglob("*"))
             if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file()]
    stamp = tuple((str(path), st.st_size, st.st_mtime_ns) for path, st in ((path, path.stat()) for path in files))
    known = _SOURCE_DIGESTS.get(package)
    if known is not None and known[0] == stamp:
        return known[1]
    h = hashlib.sha256(prismpic.__version__.encode())
    for path in files:
        data = path.read_bytes()
        h.update(f"{path.relative_to(package).as_posix()}:{len(data)}:".encode())
        h.update(data)
    _SOURCE_DIGESTS[package] = (stamp, h.hexdigest()[:24])
    return _SOURCE_DIGESTS[package][1]


def cached_json(name: str, compute):
    """``compute()`` (JSON-serialisable), read from the cache when it was computed from the same sources
    (``source_key``), else computed and stored (atomically; a cache that cannot be written is skipped)."""
    root = ready_root()
    if root is None:
        return compute()
    path = root / CATALOG_FOLDER / f"{name}-{source_key()}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    value = compute()
    try:
        from prismpic.fileio import write_json_atomic

        path.parent.mkdir(mode=0o700, exist_ok=True)
        for old in path.parent.glob(f"{name}-*.json"):  # entries made from older sources
            old.unlink()
        write_json_atomic(path, value)
    except OSError:
        pass
    return value


def cached_arrays(name: str, key: dict, compute) -> dict:
    """``compute()`` ({name: NumPy array}), read back bit for bit when the same ``key`` (JSON-serialisable: what
    the result is a function of, library versions and the computing code's digest included) was stored, else
    computed and stored atomically as ``<cache>/arrays/<name>-<digest>.npz`` (the ``ARRAYS_KEPT`` newest per
    name; a cache that is off or cannot be written is skipped)."""
    import numpy as np

    root = ready_root()
    if root is None:
        return compute()
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]
    path = root / ARRAY_FOLDER / f"{name}-{digest}{ARRAY_SUFFIX}"
    try:
        with np.load(path, allow_pickle=False) as f:
            return {k: f[k] for k in f.files}
    except (OSError, ValueError):
        pass
    value = compute()
    try:
        from prismpic.fileio import write_atomic

        path.parent.mkdir(mode=0o700, exist_ok=True)
        write_atomic(path, lambda fh: np.savez(fh, **value), binary=True)
        same = sorted((p for p in path.parent.glob(f"{name}-*{ARRAY_SUFFIX}") if is_entry(p, root)),
                      key=lambda p: p.stat().st_mtime_ns)
        for old in same[:-ARRAYS_KEPT]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    return value


def is_entry(path: Path, root: Path) -> bool:
    """Whether ``path`` is a cache entry prismpic or JAX wrote in ``root``: a regular file (never a link) named as
    JAX names its entries in the JAX folder, a catalog file, a traced program (``program_cache``) or computed
    arrays (``cached_arrays``)."""
    if path.is_symlink() or not path.is_file():
        return False
    if path.parent.parent == root / JAX_FOLDER and path.parent.name.startswith("cpu-"):
        return path.name.endswith(JAX_SUFFIXES) or path.name == JAX_LOCK
    if path.parent == root / PROGRAM_FOLDER:
        return path.suffix == PROGRAM_SUFFIX
    if path.parent == root / ARRAY_FOLDER:
        return path.suffix == ARRAY_SUFFIX
    return path.parent == root / CATALOG_FOLDER and path.suffix == ".json"


def entries(root: Path) -> list[Path]:
    """The cache entries in ``root`` (see ``is_entry``)."""
    found = []
    top = root / JAX_FOLDER
    hosts = sorted(top.glob("cpu-*")) if top.is_dir() and not top.is_symlink() else []
    for folder in (*hosts, root / CATALOG_FOLDER, root / PROGRAM_FOLDER, root / ARRAY_FOLDER):
        if folder.is_dir() and not folder.is_symlink():
            found += [p for p in sorted(folder.iterdir()) if is_entry(p, root)]
    return found


def clear() -> tuple[int, int]:
    """Remove every cache entry; return (files removed, bytes freed). Raises ValueError when the folder exists
    without prismpic's mark (it was not made by prismpic: nothing in it is touched)."""
    root = cache_root()
    if root is None or not root.exists():
        return 0, 0
    if not (root / MARKER).is_file():
        raise ValueError(f"{ENV} = {str(root)!r} is not a folder prismpic made (no {MARKER} in it); nothing removed")
    count = size = 0
    for path in entries(root):
        size += path.stat().st_size
        path.unlink()
        count += 1
    return count, size


def usage() -> dict:
    """The cache's folder, whether it is on, and its entries' count and size (bytes)."""
    root = cache_root()
    if root is None:
        return {"folder": None, "on": False, "entries": 0, "bytes": 0}
    found = entries(root) if (root / MARKER).is_file() else []
    return {"folder": str(root), "on": True, "entries": len(found), "bytes": sum(p.stat().st_size for p in found)}
