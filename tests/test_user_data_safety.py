"""Issue 25: nothing of the user's is lost or moved. Each attack or fault of the issue's audit, reproduced.

Output folders are replaced only when prismpic wrote them (or they are empty); the stale-temporary cleanup
touches only what it can prove is its own (never a link, another user's entry or a look-alike name); a full
disk is one line and exit 2 for every writer, GDS included; empty option values and outputs that would
swallow their inputs are refused; a signal acts within about a second even when the command is stuck in
native code.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_bad_input import one_line_error
from typer.testing import CliRunner

from prismpic import fileio, temporaries
from prismpic.cli import app

runner = CliRunner()
PYTHON = sys.executable


def tree_digest(folder: Path) -> dict[str, str]:
    """Every entry below ``folder`` (links not followed) → its content hash, link target or 'dir'."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_symlink():
            out[rel] = "link:" + os.readlink(p)
        elif p.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def dead_pid() -> int:
    return int(subprocess.run([PYTHON, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout)


# ---------------------------------------------------------------------------- output folders
def test_a_users_folder_is_never_replaced(tmp_path):
    """`report --out ~/Documents` would have replaced the folder: now refused before any work, byte-identical."""
    docs = tmp_path / "Documents"
    (docs / "sub").mkdir(parents=True)
    (docs / "NOTES.txt").write_text("mine")
    (docs / "sub" / "data.csv").write_text("1,2\n")
    before = tree_digest(docs)
    res = runner.invoke(app, ["report", "--out", str(docs)])
    one_line_error(res, "--out", "NOTES.txt", "did not write")
    assert tree_digest(docs) == before
    with pytest.raises(ValueError, match="did not write"), fileio.atomic_dir(docs):
        pass
    assert tree_digest(docs) == before


def test_calibrate_spectra_into_its_own_input_folder_is_refused(tmp_path):
    """`calibrate ring --spectra D --out D` deleted the spectra and the user's notes: refused, D byte-identical."""
    d = tmp_path / "mywafer"
    d.mkdir()
    for i in range(2):
        (d / f"die{i}.csv").write_text("wavelength_nm,through_db\n1550,-3\n1550.1,-3.1\n")
    (d / "NOTES.txt").write_text("wafer 7, lot B")
    before = tree_digest(d)
    res = runner.invoke(app, ["calibrate", "ring", "--spectra", str(d), "--out", str(d)])
    one_line_error(res, "--out")
    assert tree_digest(d) == before


def test_an_output_that_contains_its_input_is_refused(tmp_path):
    """An output folder that is, or holds, an input of the same command would replace it."""
    out = tmp_path / "rep"
    with fileio.atomic_dir(out) as work:  # a prismpic folder that holds the user's parameter file
        (work / "params.json").write_text('{"ring": {}}')
    res = runner.invoke(app, ["report", "--out", str(out), "--params", str(out / "params.json")])
    one_line_error(res, "--out", "contains the input")
    with pytest.raises(ValueError, match="contains the input"):
        fileio.check_out_clear_of_inputs(tmp_path, [out / "params.json"])
    fileio.check_out_clear_of_inputs(tmp_path / "elsewhere", [out / "params.json"])  # no error


def test_only_prismpic_folders_and_empty_ones_are_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()  # empty: replaced
    with fileio.atomic_dir(out) as work:
        (work / "a.json").write_text("1")
        (work / "figs").mkdir()
        (work / "figs" / "f.png").write_bytes(b"png")
    marker = fileio.foreign_entries(out)
    assert marker == []  # everything in it is recorded in its marker
    with fileio.atomic_dir(out) as work:  # prismpic's own: replaced
        (work / "b.json").write_text("2")
    assert sorted(p.name for p in out.iterdir()) == [fileio.MARKER, "b.json"]
    (out / "mine.txt").write_text("added by the user")
    before = tree_digest(out)
    with pytest.raises(ValueError, match="mine.txt"):
        fileio.check_output_dir(out)
    with pytest.raises(ValueError, match="mine.txt"), fileio.atomic_dir(out):
        pass
    assert tree_digest(out) == before
    (out / fileio.MARKER).write_text('{"made_by": "prismpic", "entries": ["b.json", "mine.txt"]}')  # forged: fine,
    fileio.check_output_dir(out)  # the user said so


def test_a_folder_that_becomes_foreign_during_the_run_is_not_replaced(tmp_path):
    """Checked again at the swap: a file the user puts into the old folder while prismpic runs stays."""
    out = tmp_path / "out"
    with fileio.atomic_dir(out) as work:
        (work / "a.json").write_text("1")
    with pytest.raises(ValueError, match="late.txt"), fileio.atomic_dir(out) as work:
        (work / "a.json").write_text("2")
        (out / "late.txt").write_text("written meanwhile")
    assert (out / "late.txt").read_text() == "written meanwhile" and (out / "a.json").read_text() == "1"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary left


def test_a_file_written_between_the_last_check_and_the_swap_is_not_lost(tmp_path, monkeypatch):
    """The old folder is checked once more after it was renamed aside: a file that arrived after the check under
    the lock (another process) makes the swap undo itself."""
    out = tmp_path / "out"
    with fileio.atomic_dir(out) as work:
        (work / "a.json").write_text("1")
    real, calls = fileio.check_replaceable, []

    def check_then_a_late_write(path, what):
        real(path, what)
        calls.append(path)
        if len(calls) == 2:  # the check under the lock, just before the renames
            (out / "late.txt").write_text("written meanwhile")

    monkeypatch.setattr(fileio, "check_replaceable", check_then_a_late_write)
    with pytest.raises(ValueError, match="late.txt"), fileio.atomic_dir(out) as work:
        (work / "a.json").write_text("2")
    assert len(calls) == 2
    assert (out / "late.txt").read_text() == "written meanwhile" and (out / "a.json").read_text() == "1"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_symlinked_out_folder_is_refused(tmp_path):
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(ValueError, match="symbolic link"):
        fileio.check_output_dir(link)


@pytest.mark.parametrize("argv", [
    ["pdk-files", "--out", ""], ["report", "--out", ""], ["report", "--out="], ["layout", ""],
    ["sweep", "straight", "--param", " ", "--out", "x.csv"],
])
def test_empty_option_values_are_refused(tmp_path, argv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, argv)
    one_line_error(res, "empty")
    assert list(tmp_path.iterdir()) == []  # pdk-files --out "" wrote into the current folder


@pytest.mark.parametrize("name", ["", ".", "..", "a/.."])
def test_output_folders_must_name_a_folder(tmp_path, name):
    with pytest.raises(ValueError, match="names no new folder"):
        fileio.check_output_dir(name)


# ---------------------------------------------------------------------------- the stale-temporary cleanup
def test_cleanup_does_not_follow_a_planted_link(tmp_path):
    """A shared folder holding an entry named like an interrupted swap that links to the victim's folder: the
    victim's next write used to move `victim/x` into the shared folder. Old-style names, forged macs and even a
    valid name (a link put in place of a real temporary) leave the victim's tree untouched."""
    shared = tmp_path / "shared"
    shared.mkdir()
    victim = tmp_path / "victim"
    (victim / "x").mkdir(parents=True)
    (victim / "x" / "thesis.tex").write_text("years of work")
    (victim / "y.txt").write_text("more")
    before = tree_digest(victim)
    pid = dead_pid()
    (shared / f".rep.{temporaries.HOST_TAG}-{pid}-e.old").symlink_to(victim)  # the audit's entry
    forged = temporaries.temp_name("rep", "old", pid=pid).replace(".old", "")[:-16] + "0" * 16 + ".old"
    (shared / forged).symlink_to(victim)
    valid = shared / temporaries.temp_name("rep2", "old", pid=pid)
    valid.symlink_to(victim)
    valid_tmp = shared / temporaries.temp_name("s.gds", "tmp", ".gds", pid=pid)
    valid_tmp.symlink_to(victim / "y.txt")
    os.utime(valid_tmp, (time.time() - 2 * temporaries.STALE_AGE_S,) * 2, follow_symlinks=False)
    assert temporaries.remove_stale_temps(shared) == []
    fileio.write_text_atomic(shared / "out.txt", "x")  # a real write into the shared folder runs the cleanup
    assert tree_digest(victim) == before
    assert not (shared / "rep").exists() and not (shared / "rep2").exists()


def test_cleanup_leaves_look_alike_user_files(tmp_path):
    """`.notes.<tag>-<deadpid>-draft.tmp`, or any such name older than 24 h, was deleted as a temporary."""
    pid = dead_pid()
    look_alikes = [tmp_path / f".notes.{temporaries.HOST_TAG}-{pid}-draft.tmp",
                   tmp_path / f".notes.{temporaries.HOST_TAG}-{pid}-{'a' * 32}.tmp",
                   tmp_path / f".data.{temporaries.HOST_TAG}-{pid}-abc123.tmp.csv"]
    for p in look_alikes:
        p.write_text("mine")
        os.utime(p, (time.time() - 3 * temporaries.STALE_AGE_S,) * 2)
    folder = tmp_path / f".rep.{temporaries.HOST_TAG}-{pid}-{'b' * 32}.old"
    (folder / "x").mkdir(parents=True)
    os.utime(folder, (time.time() - 3 * temporaries.STALE_AGE_S,) * 2)
    assert temporaries.remove_stale_temps(tmp_path) == []
    assert all(p.read_text() == "mine" for p in look_alikes) and (folder / "x").is_dir()
    assert not (tmp_path / "rep").exists()  # no "restored" folder conjured from a look-alike


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_cleanup_leaves_another_users_entries(tmp_path):
    """Even with a valid name, an entry owned by another user is not this user's to remove."""
    p = tmp_path / temporaries.temp_name("s.gds", "tmp", ".gds", pid=dead_pid())
    p.write_text("theirs")
    os.chown(p, 12345, 12345)
    assert temporaries.remove_stale_temps(tmp_path) == [] and p.exists()


def test_the_key_is_private_and_kept(tmp_path, monkeypatch):
    """Temporaries are proven by a per-user key: 0600, reused by later processes (so a dead run's temporaries can
    be removed by the next), and a name made under another key is not ours."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(temporaries, "_KEY", [])
    name = temporaries.temp_name("a.json", "tmp", ".json", pid=dead_pid())
    key = temporaries.key_path()
    assert key.is_file() and (key.stat().st_mode & 0o777) == 0o600
    assert temporaries.parse(name) is not None
    code = f"from prismpic import temporaries as t; print(t.parse({name!r}) is not None)"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    assert subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env).stdout.strip() == "True"
    env["XDG_STATE_HOME"] = str(tmp_path / "other")
    assert subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env).stdout.strip() == "False"


# ---------------------------------------------------------------------------- a full disk
@pytest.fixture
def full_disk(tmp_path):
    """A tmpfs of 64 KiB filled to the last block (needs root and mount; skipped elsewhere: the RLIMIT_FSIZE test
    below covers the same writers without privileges)."""
    mnt = tmp_path / "full"
    mnt.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a tmpfs needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("tmpfs cannot be mounted here")
    try:
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 512):
                pass
        except OSError:  # ENOSPC: full to the last block
            pass
        finally:
            os.close(fd)
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_fails_every_writer_loudly(full_disk):
    """`layout straight --out /full/s.gds` wrote a 0-byte GDS and said "wrote …; DRC: clean" with exit 0."""
    import matplotlib.pyplot as plt

    from prismpic.components.waveguides import straight

    before = sorted(p.name for p in full_disk.iterdir())
    res = runner.invoke(app, ["layout", "straight", "--out", str(full_disk / "s.gds")])
    one_line_error(res, "--out", "s.gds")
    writers = [lambda: fileio.write_json_atomic(full_disk / "a.json", {"x": list(range(1000))}),
               lambda: fileio.write_text_atomic(full_disk / "a.txt", "x" * 10000),
               lambda: fileio.write_gds_atomic(straight(length=50.0), full_disk / "b.gds"),
               lambda: fileio.save_figure_atomic(plt.figure(), full_disk / "f.png")]
    for write in writers:
        with pytest.raises(fileio.OutputError):
            write()
    with pytest.raises(fileio.OutputError), fileio.atomic_dir(full_disk / "rep") as work:
        fileio.write_text_atomic(work / "big.txt", "x" * 100000)
    plt.close("all")
    assert sorted(p.name for p in full_disk.iterdir()) == before  # no file, no empty folder, no temporary


def _limited(max_bytes: int):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
    return preexec


def test_a_file_size_limit_fails_the_gds_writer_loudly(tmp_path):
    """The same fault without privileges: a file-size limit below the GDS's size (KLayout's writer ignored the
    short write)."""
    out = tmp_path / "s.gds"
    proc = subprocess.run([PYTHON, "-m", "prismpic.cli", "layout", "straight", "--out", str(out)],
                          capture_output=True, text=True, preexec_fn=_limited(600), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
    assert len(lines) == 1 and "--out" in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_gds_that_does_not_read_back_is_not_renamed(tmp_path, monkeypatch):
    from prismpic.components.waveguides import straight

    c = straight(length=50.0)
    monkeypatch.setattr(type(c), "write_gds", lambda self, path, **k: Path(path).write_bytes(b"\0" * 100))
    with pytest.raises(fileio.OutputError, match="does not read back"):
        fileio.write_gds_atomic(c, tmp_path / "s.gds")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- signals inside native code
STUCK = textwrap.dedent("""
    import sys, time
    from prismpic import fileio
    from prismpic.cli.common import cli_errors

    @cli_errors
    def command(out):
        with fileio.atomic_dir(out) as work:
            (work / "partial.txt").write_text("half")
            print("ready", flush=True)
            time.sleep(120)  # one C call: no bytecode runs in the command's thread, as inside an XLA compile

    import typer
    try:
        command(fileio.Path(sys.argv[1]))
    except typer.Exit as e:
        sys.exit(e.exit_code)
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_acts_at_once_inside_native_code(tmp_path, sig):
    """SIGTERM or Ctrl-C during a compile took 84 s to 4 min to act: now about a second, with the cleanup."""
    script = tmp_path / "stuck.py"
    script.write_text(STUCK)
    out = tmp_path / "rep"
    proc = subprocess.Popen([PYTHON, str(script), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "ready", proc.communicate()
    t0 = time.perf_counter()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    acted_s = time.perf_counter() - t0
    assert proc.returncode == 128 + sig, err
    assert acted_s < 2.0, acted_s
    assert err.count("error: ") == 1 and "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stuck.py"]  # the work folder was removed
