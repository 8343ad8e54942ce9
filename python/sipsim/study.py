"""The table `sipsim collect DIR` writes for a study (docs/studies.md): DIR/results.csv, or
DIR/results-<level>.csv with `--level collective` or `--level iteration`.

One row per run (or per run x collective / iteration): the column `run` first, then one column
per axis, then `status`, then the results. Failed and missing runs are rows too (their `status`
says so), never dropped.
"""

from __future__ import annotations

import os

import pandas as pd

from .errors import SipsimError

LEVELS = ("run", "collective", "iteration")


def study(directory: "str | os.PathLike[str]", level: str = "run") -> pd.DataFrame:
    """Reads DIR/results.csv (level "run"), DIR/results-collective.csv or
    DIR/results-iteration.csv, or a results CSV named directly, as a DataFrame.

    `attrs["axes"]` lists the axis columns (those between `run` and `status`) and
    `attrs["path"]` the file read."""
    if level not in LEVELS:
        raise ValueError(f"study(level=...) takes one of {', '.join(LEVELS)}, not {level!r}")
    d = os.fspath(directory)
    name = "results.csv" if level == "run" else f"results-{level}.csv"
    path = d if os.path.isfile(d) else os.path.join(d, name)
    if not os.path.isdir(d) and not os.path.isfile(d):
        raise SipsimError(f"{d}: no such study directory")
    if not os.path.isfile(path):
        flag = "" if level == "run" else f" --level {level}"
        raise SipsimError(f"{path} not found: run `sipsim collect {d}{flag}` first")
    try:
        df = pd.read_csv(path, dtype={"run": str, "status": str}, keep_default_na=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise SipsimError(f"{path} is not a sipsim results table: {e}") from e
    columns = list(df.columns)
    if not columns or columns[0] != "run" or "status" not in columns:
        raise SipsimError(f"{path} is not a sipsim results table: it needs the column `run` first "
                          f"and a column `status` (it has {', '.join(map(str, columns)) or 'none'})")
    # Rates in GB/s: the CSV keeps the run file's `_gbps`; here, as in sipsim.open,
    # the unit is spelt GBps (10^9 bytes/s, not gigabits).
    status = columns.index("status")
    df = df.rename(columns={c: c.replace("_gbps", "_GBps") for c in columns[status + 1:]})
    df.attrs = {"axes": columns[1:status], "path": path}
    return df
