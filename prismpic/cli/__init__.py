"""The ``prismpic`` command line: one module per command group, all registered on one Typer ``app``.

The import order below is the order of the commands in ``prismpic --help``.
"""
# isort: skip_file

from __future__ import annotations

import os
import sys

from prismpic.cli.common import app
from prismpic.cli import report  # noqa: F401  (registers report)
from prismpic.cli import claims  # noqa: F401
from prismpic.cli import layout  # noqa: F401
from prismpic.cli import lvs  # noqa: F401
from prismpic.cli import platform  # noqa: F401  (mode, tables)
from prismpic.cli import calibrate  # noqa: F401
from prismpic.cli import sweep  # noqa: F401
from prismpic.cli import recall  # noqa: F401
from prismpic.cli import transient  # noqa: F401
from prismpic.cli import catalog  # noqa: F401

__all__ = ["app", "main"]


def main() -> None:  # pragma: no cover
    """The console script. After a signal (exit code 128 + N) the command has already removed its temporaries:
    the process ends at once instead of spending seconds in the interpreter's teardown (JAX's backends).

    The command owns its process, so it asks Equinox (under diffrax) for NaN instead of a host callback where a
    traced input check fails (``EQX_ON_ERROR``, read when Equinox is imported; a value the user set stands): JAX's
    persistent cache refuses programs with host callbacks, so the SOA chain would otherwise compile in every run.
    prismpic checks those results for NaN and names the cause."""
    os.environ.setdefault("EQX_ON_ERROR", "nan")
    try:
        app()
    except SystemExit as e:
        if isinstance(e.code, int) and e.code > 128:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(e.code)
        raise
