"""The table `sipsim collect DIR` writes for a study (docs/studies.md): DIR/results.csv, or
DIR/results-<level>.csv with `--level collective` or `--level iteration`.

One row per run (or per run x collective / iteration): the column `run` first, then one column
per axis, then `status`, then the results. Failed and missing runs are rows too (their `status`
says so), never dropped.
"""

from __future__ import annotations

import csv
import io
import os
from typing import List

import pandas as pd

from . import files
from .errors import SipsimError

# Result columns that collect of earlier versions named otherwise, by old name.
_FORMER_RESULTS = {"algbw_gbps": "algbw_GBps", "busbw_gbps": "busbw_GBps",
                   "busbw_gbps_largest": "busbw_GBps_largest"}

LEVELS = ("run", "collective", "iteration")


def unescape_cell(text: str) -> str:
    """Undoes the guard against spreadsheet formula injection that `sipsim collect` and
    `sipsim sweep` apply when writing a CSV: a cell (header cells too) whose text begins with
    `=`, `+`, `-`, `@`, a tab, a carriage return or `'` gets one more leading `'`, so that a
    spreadsheet shows it as text instead of running it as a formula, unless the whole cell is a
    plain decimal number (`-5`, `+1.5e3`). Every cell that starts with `'` was therefore
    written so: one leading `'` is removed (`'=1+1` -> `=1+1`, `''x` -> `'x`)."""
    return text[1:] if text.startswith("'") else text


def _records(path: str, data: bytes) -> List[List[str]]:
    """The CSV's records (header first), each cell unescaped; a SipsimError names the line of
    a record whose field count is not the header's, of bytes that are not UTF-8, or of what
    the csv module cannot parse. Blank lines are skipped, as pandas skips them."""
    try:
        content = data.decode("utf-8-sig")  # a spreadsheet may have added a byte order mark
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise SipsimError(f"{path}:{line}: not UTF-8 text (byte {data[e.start]:#04x}); "
                          f"not a sipsim results table") from e
    reader = csv.reader(io.StringIO(content, newline=""))
    records: List[List[str]] = []
    try:
        for record in reader:
            if not record:
                continue
            if records and len(record) != len(records[0]):
                raise SipsimError(f"{path}:{reader.line_num}: {len(record)} fields where the "
                                  f"header has {len(records[0])}: not a sipsim results table "
                                  f"(a cell with a comma must be quoted)")
            records.append([unescape_cell(c) for c in record])
    except csv.Error as e:
        raise SipsimError(f"{path}:{reader.line_num}: {e}: not a sipsim results table") from e
    if not records:
        raise SipsimError(f"{path} is empty: not a sipsim results table")
    return records


def _frame(path: str, records: List[List[str]]) -> pd.DataFrame:
    """The unescaped records as pandas parses a CSV (numbers as numbers, empty cells NaN)."""
    text = io.StringIO()
    # \r\n as the terminator: the writer then quotes a cell holding either character.
    csv.writer(text, lineterminator="\r\n").writerows(records)
    text.seek(0)
    try:
        df = pd.read_csv(text, dtype={"run": str, "status": str}, keep_default_na=True)
    except (ValueError, TypeError, OverflowError, MemoryError, csv.Error) as e:
        raise SipsimError(f"{path} is not a sipsim results table: {e}") from e
    if len(df) != len(records) - 1:  # the csv module and pandas must agree on the rows
        raise SipsimError(f"{path} is not a sipsim results table: {len(records) - 1} records "
                          f"but pandas reads {len(df)} rows")
    return df


def study(directory: "str | os.PathLike[str]", level: str = "run") -> pd.DataFrame:
    """Reads DIR/results.csv (level "run"), DIR/results-collective.csv or
    DIR/results-iteration.csv, or a results CSV named directly, as a DataFrame.

    Cells are decoded with `unescape_cell`. `attrs["axes"]` lists the axis columns (those
    between `run` and `status`) and `attrs["path"]` the file read."""
    if level not in LEVELS:
        raise ValueError(f"study(level=...) takes one of {', '.join(LEVELS)}, not {level!r}")
    d = os.fspath(directory)
    name = "results.csv" if level == "run" else f"results-{level}.csv"
    if os.path.isdir(d):
        path = os.path.join(d, name)
    elif os.path.lexists(d):
        path = d
    else:
        raise SipsimError(f"{d}: no such study directory")
    if not os.path.lexists(path):
        flag = "" if level == "run" else f" --level {level}"
        raise SipsimError(f"{path} not found: run `sipsim collect {d}{flag}` first")
    try:
        what = files.irregular(path)  # never open a FIFO or device: it could block or act
        if what is not None:
            raise files.NotRegular(what)
        data = files.read_regular(path)
    except files.NotRegular as e:
        raise SipsimError(f"{path} is {e}, not a regular file: not a sipsim results table") from e
    except OSError as e:
        raise SipsimError(f"{path}: cannot read it: {e.strerror or e}") from e
    df = _frame(path, _records(path, data))
    columns = list(df.columns)
    if not columns or columns[0] != "run" or "status" not in columns:
        raise SipsimError(f"{path} is not a sipsim results table: it needs the column `run` first "
                          f"and a column `status` (it has {', '.join(map(str, columns)) or 'none'})")
    # Rates are in GB/s (10^9 bytes/s, not gigabits), spelt GBps; collect of earlier
    # versions wrote `_gbps`, read here under today's names.
    status = columns.index("status")
    df = df.rename(columns={c: _FORMER_RESULTS[c] for c in columns[status + 1:]
                            if c in _FORMER_RESULTS})
    df.attrs = {"axes": columns[1:status], "path": path}
    return df
