"""The baseline of a benchmark: the package as of a pinned commit, run in a child process beside today's code.

``run_pinned(commit, script, *args)`` writes ``git archive <commit> prismpic`` into a temporary folder and runs
``script`` (Python source) with that folder first on ``PYTHONPATH``, so ``import prismpic`` inside it is the old
package on today's installed libraries; the script prints one JSON object, which is returned. The old code is
never copied into the tree; the benchmark times both in one run, on the same machine and load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_pinned(commit: str, script: str, *args: str) -> dict:
    """The JSON object ``script`` prints, run on the package as of ``commit`` (a child process)."""
    with tempfile.TemporaryDirectory(prefix=f"prismpic-{commit}-") as tmp:
        archive = subprocess.run(["git", "archive", "--format=tar", commit, "prismpic"], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        tar = Path(tmp) / "src.tar"
        tar.write_bytes(archive)
        with tarfile.open(tar) as t:
            t.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([tmp, os.environ.get("PYTHONPATH", "")])}
        out = subprocess.run([sys.executable, "-c", script, *args], cwd=tmp, env=env, check=True,
                             capture_output=True, text=True)
    if not Path(tmp).is_absolute():  # pragma: no cover
        raise RuntimeError(tmp)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not str(result.get("prismpic_file", "")).startswith(tmp):
        raise RuntimeError(f"the baseline imported {result.get('prismpic_file')}, not the package of {commit}")
    return result
