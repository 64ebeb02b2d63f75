"""Cheap per-device fits for the batch-accounting tests (``test_batch_accounting.py``).

A module of its own (not a test file) so that Dask workers, in other processes, import the fits by name: the
tests put this folder on the workers' ``PYTHONPATH``.

``quick_fit`` reads the spectrum with the project's reader (so bad files are refused as in a real batch),
appends the file's stem to a call log when given one (the evidence of which devices a run fitted), waits
``delay_s`` (a slow fit, so that a test can kill the scheduler mid-batch) and returns the through port's
minimum and its wavelength as two "fitted parameters". ``raising_fit`` raises the exception it is told to.
"""

from __future__ import annotations

import errno
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from prismpic.analysis.measurements import read_spectrum_csv


@dataclass(frozen=True)
class Param:
    value: float
    sigma: float | None = None
    design: float | None = None


@dataclass
class QuickResult:
    params: dict
    specs: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"params": {k: [p.value, p.sigma] for k, p in self.params.items()}, "specs": self.specs}


def log_call(calls: str | None, path) -> None:
    """Append ``path``'s stem to the call log ``calls`` (one short O_APPEND write: safe across processes)."""
    if calls:
        fd = os.open(calls, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{Path(path).stem}\n".encode())
        finally:
            os.close(fd)


def quick_fit(path, *, delay_s: float = 0.0, calls: str | None = None) -> QuickResult:
    sp = read_spectrum_csv(path)
    time.sleep(delay_s)
    i = int(np.argmin(sp.through))
    log_call(calls, path)
    return QuickResult({"dip_nm": Param(float(sp.wl_nm[i]), 0.001), "dip_depth": Param(float(sp.through[i]), None)},
                       {"through_mean": float(np.mean(sp.through))}, {"n_points": int(sp.wl_nm.size)}, ("a quick fit",))


ERRORS = {
    "value": lambda: ValueError("the fit found no resonance\nin this spectrum"),
    "key": lambda: KeyError("width"),
    "index": lambda: IndexError("index 7 is out of bounds for axis 0 with size 3"),
    "zero": lambda: ZeroDivisionError("float division by zero"),
    "nospace": lambda: OSError(errno.ENOSPC, "No space left on device", "/cache/jax"),
    "missing": lambda: FileNotFoundError(errno.ENOENT, "No such file or directory"),
}


def raising_fit(path, *, error: str):
    """Raise ``ERRORS[error]`` (after reading nothing: the batch decides what the exception means)."""
    raise ERRORS[error]()
