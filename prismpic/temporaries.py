"""The atomic writers' temporaries: names that prove whose they are, the live ones of this process, stale ones.

A temporary is named ``.NAME.<host>-<pid>-<nonce><mac>.<kind>[.suffix]``: ``<host>`` a short hash of the
host name, ``<pid>`` the writing process, ``<nonce>`` 16 random hex digits and ``<mac>`` the first 16 hex
digits of HMAC-SHA256 over the rest of the name under a per-user secret key (``key_path``, mode 0600). The
key is the marker that records which suffixes are prismpic's: a file or folder that merely looks like a
temporary (a user's ``.notes.<tag>-<pid>-draft.tmp``, or an entry another user planted in a shared folder)
does not carry a valid mac and is never touched.

Cleanup (``remove_stale_temps``) removes an entry only when all of these hold: its name carries a valid
mac, ``lstat`` shows a regular file or a real folder (never a symbolic link) owned by this user, and it is
*stale*: made on this host by a process that no longer runs, or older than ``STALE_AGE_S`` (a folder shared
between hosts that share the key). A stale ``.old`` folder (a folder swap that died between its two
renames) whose target is missing gets its previous folder renamed back to the target, within the same
parent folder. Folders are removed with ``shutil.rmtree``, which does not follow links inside them.

The temporaries of the running process are registered (``register``/``release``) so that a command
stopped by a signal while its work is stuck in native code (an XLA compile) can remove them at once
(``abandon_live``); ``SWAP_LOCK`` is held around every rename sequence, so a forced stop never lands
between the two renames of a folder swap.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import shutil
import socket
import stat
import threading
import time
from pathlib import Path

STALE_AGE_S = 24 * 3600.0  # a temporary older than this is stale whatever its host
HOST_TAG = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]  # names this host in temporaries
KINDS = ("tmp", "old")
_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<host>[0-9a-f]{6})-(?P<pid>\d+)-(?P<nonce>[0-9a-f]{16})(?P<mac>[0-9a-f]{16})"
                   r"\.(?P<kind>tmp|old)(?P<suffix>\.[^.]*)?$")
SWAP_LOCK = threading.RLock()  # held around rename sequences (see the module docstring)
_LIVE: dict[Path, str] = {}  # this process's temporaries → their kind
_KEY: list[bytes] = []  # the per-user key, read once


def key_path() -> Path:
    """Where the per-user key lives: ``$XDG_STATE_HOME/prismpic/temp-key`` (default ``~/.local/state``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "prismpic" / "temp-key"


def _load_or_make_key() -> bytes:
    """The per-user key (made 0600 on first use); a key of this process alone where none can be stored, so
    that only this process's temporaries can be proven (a dead run's are then left, never guessed)."""
    path = key_path()
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077:
            data = path.read_bytes()
            if len(data) == 32:
                return data
    except OSError:
        pass
    key = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
    except FileExistsError:  # made meanwhile by another prismpic process (or not ours): read it again once
        try:
            st = os.lstat(path)
            data = path.read_bytes()
            if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and len(data) == 32:
                return data
        except OSError:
            pass
    except OSError:
        pass
    return key


def _key() -> bytes:
    if not _KEY:
        _KEY.append(_load_or_make_key())
    return _KEY[0]


def _mac(name: str, host: str, pid: str, nonce: str, kind: str) -> str:
    return hmac.new(_key(), f"{name}/{host}/{pid}/{nonce}/{kind}".encode(), hashlib.sha256).hexdigest()[:16]


def temp_name(target_name: str, kind: str, suffix: str = "", *, pid: int | None = None,
              host: str = HOST_TAG) -> str:
    """A fresh temporary's file name for the output ``target_name`` (``kind`` ``"tmp"`` or ``"old"``), made by
    process ``pid`` (default this one) on ``host`` (a host tag; default this host)."""
    if kind not in KINDS:
        raise ValueError(f"kind = {kind!r} must be one of {KINDS}")
    pid_text, nonce = str(os.getpid() if pid is None else pid), secrets.token_hex(8)
    mac = _mac(target_name, host, pid_text, nonce, kind)
    return f".{target_name}.{host}-{pid_text}-{nonce}{mac}.{kind}{suffix}"


def parse(name: str) -> re.Match | None:
    """The parts of ``name`` when it is a temporary this user's prismpic made (a valid mac), else None."""
    m = _NAME.match(name)
    if m is None:
        return None
    expected = _mac(m["name"], m["host"], m["pid"], m["nonce"], m["kind"])
    return m if hmac.compare_digest(expected, m["mac"]) else None


def register(path: Path, kind: str) -> None:
    """Record a live temporary of this process (removed by ``abandon_live`` on a forced stop)."""
    _LIVE[Path(path)] = kind


def release(path: Path) -> None:
    """Forget a temporary (renamed into place or removed)."""
    _LIVE.pop(Path(path), None)


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


def _own_entry(entry: Path) -> os.stat_result | None:
    """``lstat`` of ``entry`` when it is a regular file or real folder owned by this user, else None."""
    try:
        st = os.lstat(entry)
    except OSError:
        return None
    if st.st_uid != os.getuid() or not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return None
    return st


def is_stale(entry: Path, now: float | None = None) -> bool:
    """Whether ``entry`` is a provably own temporary left by a run that is gone (see the module docstring)."""
    entry = Path(entry)
    m = parse(entry.name)
    st = _own_entry(entry) if m is not None else None
    if st is None:
        return False
    if (now or time.time()) - st.st_mtime > STALE_AGE_S:
        return True
    return m["host"] == HOST_TAG and not _pid_alive(int(m["pid"]))


def _remove(entry: Path) -> None:
    """Remove an own file or real folder (``rmtree`` does not follow links inside it)."""
    if stat.S_ISDIR(os.lstat(entry).st_mode):
        shutil.rmtree(entry)
    else:
        entry.unlink()


def _restore_swap(entry: Path, target: Path) -> None:
    """Rename the previous folder kept in the ``.old`` temporary ``entry`` back to ``target`` when ``target`` is
    missing (same parent folder; ``x`` inside must be a real folder of this user)."""
    inner = entry / "x"
    if _own_entry(inner) is not None and stat.S_ISDIR(os.lstat(inner).st_mode) and not os.path.lexists(target):
        os.rename(inner, target)


def remove_stale_temps(folder) -> list[Path]:
    """Remove the stale temporaries of this user's prismpic in ``folder`` (restoring an interrupted folder swap's
    previous folder when its target is missing); returns what was removed. Best effort: an entry that cannot be
    removed is left."""
    folder = Path(folder)
    done = []
    try:
        entries = [folder / e.name for e in os.scandir(folder)]
    except OSError:
        return done
    now = time.time()
    for entry in entries:
        if not is_stale(entry, now):
            continue
        try:
            m = parse(entry.name)
            if m["kind"] == "old":
                _restore_swap(entry, folder / m["name"])
            _remove(entry)
            done.append(entry)
        except OSError:
            continue
    return done


def abandon_live(timeout_s: float = 2.0) -> list[Path]:
    """Remove this process's live temporaries now (a forced stop), restoring a swapped-out previous folder whose
    target is missing; waits up to ``timeout_s`` for a rename sequence under way to finish."""
    locked = SWAP_LOCK.acquire(timeout=timeout_s)
    done = []
    try:
        for path, kind in list(_LIVE.items()):
            with contextlib.suppress(OSError):
                if kind == "old":
                    m = parse(path.name)
                    if m is not None:
                        _restore_swap(path, path.parent / m["name"])
                if os.path.lexists(path):
                    _remove(path)
                done.append(path)
            release(path)
    finally:
        if locked:
            SWAP_LOCK.release()
    return done
