"""The table `sipsim collect DIR` writes for a study (docs/studies.md): DIR/results.csv.

One row per run: the column `run` first, then one column per axis, then `status`, then the
results. Failed and missing runs are rows too (their `status` says so), never dropped.
"""

from __future__ import annotations

import os

import pandas as pd

from .errors import SipsimError

RESULTS = "results.csv"


def study(directory: "str | os.PathLike[str]") -> pd.DataFrame:
    """Reads DIR/results.csv (or a results CSV named directly) as a DataFrame.

    `attrs["axes"]` lists the axis columns (those between `run` and `status`) and
    `attrs["path"]` the file read."""
    d = os.fspath(directory)
    path = d if os.path.isfile(d) else os.path.join(d, RESULTS)
    if not os.path.isdir(d) and not os.path.isfile(d):
        raise SipsimError(f"{d}: no such study directory")
    if not os.path.isfile(path):
        raise SipsimError(f"{path} not found: run `sipsim collect {d}` first")
    try:
        df = pd.read_csv(path, dtype={"run": str, "status": str}, keep_default_na=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise SipsimError(f"{path} is not a sipsim results table: {e}") from e
    columns = list(df.columns)
    if not columns or columns[0] != "run" or "status" not in columns:
        raise SipsimError(f"{path} is not a sipsim results table: it needs the column `run` first "
                          f"and a column `status` (it has {', '.join(map(str, columns)) or 'none'})")
    df.attrs = {"axes": columns[1:columns.index("status")], "path": path}
    return df
