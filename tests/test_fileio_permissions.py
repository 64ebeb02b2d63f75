"""Outputs are created with the user's umask (POSIX open(2)/mkdir(2): mode = requested & ~umask, with 0o666 requested
for a file and 0o777 for a folder), not with the 0600 / 0700 that mkstemp / mkdtemp give their temporaries."""

import os
import stat

import pytest

from prismpic.fileio import atomic_dir, current_umask, write_json_atomic, write_text_atomic


@pytest.fixture
def umask():
    """Set the process umask for one test and restore the previous one afterwards."""
    previous = os.umask(0o022)
    os.umask(previous)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# (umask, file mode, folder mode): 0o666 & ~umask and 0o777 & ~umask
CASES = [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700), (0o002, 0o664, 0o775)]


@pytest.mark.parametrize("mask, file_mode, dir_mode", CASES)
def test_files_and_folders_follow_the_umask(tmp_path, umask, mask, file_mode, dir_mode):
    umask(mask)
    assert current_umask() == mask
    f = write_text_atomic(tmp_path / "a.txt", "x")
    assert mode(f) == file_mode
    with atomic_dir(tmp_path / "rep") as work:
        write_json_atomic(work / "r.json", {"a": 1})
        (work / "figs").mkdir()  # made by the code that fills the folder: mkdir applies the umask itself
    assert mode(tmp_path / "rep") == dir_mode
    assert mode(tmp_path / "rep" / "r.json") == file_mode and mode(tmp_path / "rep" / "figs") == dir_mode


def test_a_replaced_output_gets_the_umask_mode_not_its_predecessors(tmp_path, umask):
    umask(0o022)
    old = tmp_path / "a.txt"
    old.write_text("old")
    old.chmod(0o600)  # e.g. written by an earlier prismpic, whose outputs were 0600
    write_text_atomic(old, "new")
    assert old.read_text() == "new" and mode(old) == 0o644
    (tmp_path / "rep").mkdir(mode=0o700)
    with atomic_dir(tmp_path / "rep") as work:
        write_text_atomic(work / "x.txt", "x")
    assert mode(tmp_path / "rep") == 0o755
