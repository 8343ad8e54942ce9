"""What sipsim.plot draws, as tables, without matplotlib: the inputs (run files or one study)
read and grouped, the measured collectives, and `lines_table`, the points `lines` draws."""

from __future__ import annotations

import os
from typing import Iterable, List, Optional, Sequence

import numpy as np
import pandas as pd

from .errors import SipsimError
from .run import Run
from .run import open as open_run
from .study import study as read_study
from .units import numbers as _numbers

def _is_study(path: str) -> bool:
    return os.path.isdir(path) or path.endswith(".csv")


def _as_list(sources) -> list:
    if isinstance(sources, (str, os.PathLike, Run, pd.DataFrame)):
        return [sources]
    return list(sources)


def _study_or_runs(sources, level: str):
    """(study DataFrame or None, [Run]) from what the caller gave."""
    items = _as_list(sources)
    if not items:
        raise SipsimError("nothing to plot: give run files, a study directory or a DataFrame")
    if len(items) == 1 and isinstance(items[0], pd.DataFrame):
        return items[0], []
    if len(items) == 1 and not isinstance(items[0], Run) and _is_study(os.fspath(items[0])):
        return read_study(items[0], level=level), []
    runs = []
    for s in items:
        if isinstance(s, pd.DataFrame) or (not isinstance(s, Run) and _is_study(os.fspath(s))):
            raise SipsimError("give either one study (directory, CSV or DataFrame) or run files, "
                              "not both")
        runs.append(s if isinstance(s, Run) else open_run(s))
    return None, runs


def _name(run: Run) -> str:
    return os.path.splitext(os.path.basename(run.path))[0]


def _run_labels(runs: Sequence[Run]) -> List[str]:
    """Each run's fabric type, or its file name when fabric types repeat."""
    types = [run.fabric.get("type", _name(run)) if run.has("fabric") else _name(run)
             for run in runs]
    if len(set(types)) == len(types):
        return types
    return [_name(run) for run in runs]


def _col(df: pd.DataFrame, *names: str) -> str:
    """The first of `names` that `df` has (a table from collect of earlier versions says gbps)."""
    for n in names:
        if n in df.columns:
            return n
    raise SipsimError(f"the table has none of the columns {', '.join(names)} "
                      f"(it has {', '.join(map(str, df.columns))})")


def _columns_of(df: pd.DataFrame, flag: str, names: str) -> List[str]:
    """The comma-separated columns `names` of `df`; a SipsimError names those it lacks."""
    cols = [c.strip() for c in names.split(",")]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise SipsimError(f"{flag} {names}: no column {', '.join(missing)} (the table has "
                          f"{', '.join(map(str, df.columns))})")
    return cols


def _group_columns(df: pd.DataFrame, by: Optional[str], exclude: Sequence[str] = ()) -> List[str]:
    """The columns `by` names, else the study's `label.*` axes that vary (but `exclude`), else
    all its axes that vary (but `exclude`); may be empty."""
    if by is not None:
        return _columns_of(df, "--by", by)
    varying = [a for a in df.attrs.get("axes", [])
               if a in df.columns and a not in exclude and df[a].nunique(dropna=True) > 1]
    return [a for a in varying if a.startswith("label.")] or varying


def _study_labels(df: pd.DataFrame, by: Optional[str]):
    """(each row's group label, the legend's title) for a study: the columns `by` names
    (comma-separated), else its `label.*` axes that vary, else all its axes that vary, else
    `run`; a label joins the row's values with ", "."""
    cols = _group_columns(df, by) or (["run"] if "run" in df.columns else [df.columns[0]])
    text = df[cols].astype(object).where(df[cols].notna(), "-").astype(str)  # an empty cell: "-"
    labels = text.agg(", ".join, axis=1) if len(cols) > 1 else text[cols[0]]
    family = text[cols[0]] if len(cols) > 1 else None
    return labels, ", ".join(cols), family


def _done(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "done"] if "status" in df.columns else df


def _collectives(sources, by: Optional[str], ops: Optional[Iterable[str]] = None):
    """Measured collective rows as (DataFrame[group, op, bytes, time_s, busbw_GBps], group
    name, what the input is called); only the collectives `ops` names, when given."""
    out, group, what = _all_collectives(sources, by)
    if ops is not None:
        ops = list(ops)
        unknown = [o for o in ops if o not in set(out["op"])]
        if unknown:
            raise SipsimError(f"--op {','.join(unknown)}: no such collective in {what} (it has "
                              f"{', '.join(dict.fromkeys(out['op']))})")
        out = out[out["op"].isin(ops)]
    return out, group, what


def _all_collectives(sources, by: Optional[str]):
    df, runs = _study_or_runs(sources, "collective")
    if df is not None:
        d = _done(df)
        if "warmup" in d.columns:
            d = d[~d["warmup"].astype(bool)]
        labels, group, family = _study_labels(d, by)
        out = pd.DataFrame({
            "group": labels.values,
            "family": family.values if family is not None else labels.values,
            "op": d["op"].values if "op" in d.columns else "collective",
            "bytes": d["bytes"].values,
            "time_s": d[_col(d, "time_s")].values,
            "busbw_GBps": d[_col(d, "busbw_GBps", "busbw_gbps")].values,
        })
        where = df.attrs.get("path", "study")
        return out, group, f"study {os.path.dirname(where) or where}" if "path" in df.attrs else "study"
    frames = []
    labels = _run_labels(runs)
    group = by or "fabric"
    for run, label in zip(runs, labels):
        c = run.collectives()
        c = c[~c["warmup"]]
        if by in (None, "fabric"):
            g = pd.Series(label, index=c.index)
        elif by == "file":
            g = pd.Series(_name(run), index=c.index)
        elif by in c.columns:
            g = c[by].astype(str) if len(runs) == 1 else label + " " + c[by].astype(str)
        else:
            raise SipsimError(f"--by {by}: run files are grouped by fabric, file, or a column of "
                              f"/collectives ({', '.join(c.columns)})")
        frames.append(pd.DataFrame({"group": g.values, "family": g.values, "op": c["op"].values,
                                    "bytes": c["bytes"].values, "time_s": c["time_s"].values,
                                    "busbw_GBps": c["busbw_GBps"].values}))
    return pd.concat(frames, ignore_index=True), group, ", ".join(_name(r) for r in runs)


def lines_table(sources, x: str, y: str = "iteration_s", by: Optional[str] = None,
                best: Optional[str] = None, mark: Optional[str] = None,
                speedup_over: Optional[str] = None, ref: Optional[str] = None):
    """What `lines` draws, as (DataFrame, info): one row per (group, x) with columns `group`,
    `x`, `y` (the mean of the rows there, or with `best` "min"/"max" the best row's value),
    `n` (rows there), `winner` (with `best`: the `mark` columns' values of the row that won,
    "mp=2"), and, with `best`, the winning row's columns; info holds the axis units, the
    group and mark columns, and the runs not drawn (`skipped`: failed or missing, or no x or
    y value). With `speedup_over` "GROUP@X" (a group's legend label and an x value in the
    axis's unit), `y` is that point's y divided by each point's (a speed-up when y is a
    time; `best` picks before the division) and info["speedup"] holds the point and its y.
    With `ref` "COL=VALUE", the rows whose COL is VALUE (a reference such as Elect-Flat,
    which has no x) are not a line but one value per group, reduced the same way (and divided
    likewise with `speedup_over`): info["ref"], a table like the first without `x` (None
    without `ref`)."""
    if best not in (None, "min", "max"):
        raise SipsimError(f"--best {best}: min or max")
    df, runs = _study_or_runs(sources, "run")
    if df is None:
        raise SipsimError("lines plots a study (directory, results CSV or DataFrame), not run "
                          "files")
    for flag, col in (("--x", x), ("--y", y)):
        if col not in df.columns:
            raise SipsimError(f"{flag} {col}: no such column (the table has "
                              f"{', '.join(map(str, df.columns))})")
    is_ref = pd.Series(False, index=df.index)
    ref_col = None
    if ref is not None:
        ref_col, eq, ref_value = ref.partition("=")
        if not eq or ref_col not in df.columns:
            raise SipsimError(f"--ref {ref}: COLUMN=VALUE with a column of the table")
        is_ref = df[ref_col].astype(str) == ref_value
        if not is_ref.any():
            raise SipsimError(f"--ref {ref}: no row has {ref_col} {ref_value} (it has "
                              f"{', '.join(map(str, df[ref_col].dropna().unique()))})")
    xs, x_unit = _numbers(df[x][~is_ref], "--x", x)
    xs = xs.reindex(df.index)
    ys = pd.to_numeric(df[y], errors="coerce") if not pd.api.types.is_numeric_dtype(df[y]) \
        else df[y].astype(float)
    if ys.notna().sum() == 0 and df[y].notna().any():
        raise SipsimError(f"--y {y}: not a numeric column (values like {df[y].dropna().iloc[0]!r})")
    # With `best`, the marked columns are what a point picks among, not a group of its own.
    picked = _columns_of(df, "--mark", mark) if best is not None and mark is not None else []
    cols = _group_columns(df, by, exclude=[x] + ([ref_col] if ref_col else []) + picked)
    if cols:
        text = df[cols].astype(object).where(df[cols].notna(), "-").astype(str)
        groups = text.agg(", ".join, axis=1) if len(cols) > 1 else text[cols[0]]
    else:
        groups = pd.Series("all", index=df.index)
    status = df["status"] if "status" in df.columns else pd.Series("done", index=df.index)
    reasons = pd.Series("", index=df.index, dtype=object)
    reasons[ys.isna()] = f"no {y}"
    reasons[xs.isna() & ~is_ref] = f"no {x}"  # a reference row has no x
    reasons[status != "done"] = status[status != "done"].astype(str)
    skipped = reasons[reasons != ""]
    if "run" in df.columns:
        skipped.index = df["run"][reasons != ""].astype(str).values
    keep = (reasons == "") & ~is_ref
    refs = df[(reasons == "") & is_ref].assign(group=groups, y=ys)
    d = df[keep].assign(group=groups[keep], x=xs[keep], y=ys[keep])
    if d.empty:
        why = ", ".join(f"{k} {n}" for k, n in _counts(skipped))
        raise SipsimError(f"nothing to plot: no run has both {x} and {y} ({len(skipped)} runs: "
                          f"{why})")
    cell = d.groupby(["group", "x"], sort=False)
    marks = []
    if best is not None:
        if mark is not None:
            marks = picked
        else:  # the axes that differ between the rows of one point
            candidates = [a for a in dict.fromkeys(df.attrs.get("axes", []) + ["seed"])
                          if a in d.columns and a not in cols and a != x]
            marks = [a for a in candidates
                     if (cell[a].nunique(dropna=False) > 1).any()]
    t = _reduce(d, ["group", "x"], best, marks)
    ref_t = _reduce(refs, ["group"], best, marks) if ref is not None and len(refs) else None
    first = list(dict.fromkeys(d["group"]))
    t["_g"] = t["group"].map({g: i for i, g in enumerate(first)})
    t = t.sort_values(["_g", "x"], kind="stable").drop(columns="_g").reset_index(drop=True)
    lead = ["group", "x", "y", "n"] + (["winner"] if best is not None else [])
    t = t[lead + [c for c in t.columns if c not in lead]]
    if ref_t is not None:  # the lines' order, then references without a line
        order = {g: i for i, g in enumerate(first + list(refs["group"].unique()))}
        ref_t = ref_t.sort_values("group", key=lambda s: s.map(order), kind="stable")
        ref_t = ref_t.reset_index(drop=True)
        ref_t = ref_t[[c for c in lead if c != "x"] + [c for c in ref_t.columns
                                                       if c not in lead]]
    info = {"x_unit": x_unit, "groups": cols, "marks": marks, "skipped": skipped,
            "what": _what(df), "speedup": None, "ref": ref_t,
            "ref_name": ref_value if ref else None}
    if speedup_over is not None:
        info["speedup"] = _speedup(t, speedup_over)
        if ref_t is not None:
            ref_t["y"] = info["speedup"]["y"] / ref_t["y"]
    return t, info


def _reduce(d: pd.DataFrame, keys: List[str], best: Optional[str], marks: List[str]):
    """One row per `keys` of d: the mean y and the row count n, or with `best` the best row
    (with n, and `winner` naming its `marks` values)."""
    cell = d.groupby(keys, sort=False)
    if best is None:
        return cell["y"].agg(["mean", "size"]).reset_index().rename(columns={"mean": "y",
                                                                             "size": "n"})
    n = cell["y"].transform("size")
    won = cell["y"].idxmin() if best == "min" else cell["y"].idxmax()
    t = d.loc[won.values].assign(n=n[won.values])
    if marks:
        t["winner"] = t[marks].astype(object).where(t[marks].notna(), "-").astype(str).apply(
            lambda r: ", ".join(f"{c.split('.')[-1]}={v}" for c, v in zip(marks, r)), axis=1)
    else:
        t["winner"] = ""
    return t.reset_index(drop=True)


def _speedup(t: pd.DataFrame, ref: str) -> dict:
    """Divides the y of the point `ref` ("GROUP@X") by every point's y, in place."""
    group, at, xtext = ref.rpartition("@")
    try:
        xr = float(xtext)
    except ValueError:
        xr = None
    there = t[(t["group"] == group) & np.isclose(t["x"], xr)] if at and xr is not None else []
    if len(there) != 1:
        points = ", ".join(f"{g}@{v:g}" for g, v in zip(t["group"], t["x"]))
        raise SipsimError(f"--speedup-over {ref}: no such point GROUP@X (the points are "
                          f"{points})")
    yr = float(there["y"].iloc[0])
    t["y"] = yr / t["y"]
    return {"group": group, "x": xr, "y": yr}


def _counts(reasons: pd.Series):
    """(reason, runs) pairs, by reason."""
    return sorted(reasons.value_counts().items())


def _what(df: pd.DataFrame) -> str:
    where = df.attrs.get("path", "")
    return f"study {os.path.dirname(where) or where}" if where else "study"
