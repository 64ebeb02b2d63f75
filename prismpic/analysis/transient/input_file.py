"""A user's query stream for ``prismpic transient --input FILE``: a CSV with a header and one column per input (a
wavelength of ``prism_channel``, a row of ``ptu_column``), one line per symbol, values in [0, 1].

Read by ``measurements.read_table`` (the measured-spectrum reader: encodings, delimiters, comment lines, line
numbers in every error); checked here for the circuit's input count, finite values in [0, 1] and the simulator's
symbol range.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from prismpic.analysis.transient.simulate import SYMBOLS_RANGE


def read_query_symbols(path, inputs: int, circuit: str, unit: str, what: str = "--input") -> np.ndarray:
    """Query values (``inputs``, N) from the CSV at ``path``; ValueError naming the file, the line and the column.

    Args:
        path: the CSV file.
        inputs: columns the circuit takes.
        circuit: its name (for the messages).
        unit: what one column drives ("wavelength", "row").
        what: the option that named the file.
    """
    from prismpic.analysis.measurements import read_table

    table = read_table(path, what)
    where = f"{what} {Path(path).name}"
    n, cols = table.data.shape
    if cols != inputs:
        raise ValueError(f"{where} has {cols} column(s); {circuit} takes {inputs}, one per {unit} (and one line per "
                         "symbol)")
    bad = ~np.isfinite(table.data) | (table.data < 0.0) | (table.data > 1.0)
    if bad.any():
        r, c = (int(i[0]) for i in np.nonzero(bad))
        raise ValueError(f"{where}: line {table.lines[r]}, column {table.header[c]!r} holds {float(table.data[r, c]):g}; "
                         "query values must be finite, in [0, 1]")
    lo, hi = SYMBOLS_RANGE
    if not lo <= n <= hi:
        raise ValueError(f"{where} has {n} symbol line(s), outside the valid range [{lo}, {hi}]")
    return np.ascontiguousarray(table.data.T)
