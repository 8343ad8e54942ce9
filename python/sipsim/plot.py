"""Plots of sipsim runs and studies (docs/python.md, "Plots").

    python -m sipsim.plot busbw study-dir -o busbw.png --by fabric.type
    python -m sipsim.plot completion a.h5 b.h5 -o completion.svg --baseline ramp
    python -m sipsim.plot breakdown quickstart.h5 -o breakdown.png
    python -m sipsim.plot traffic sip-ring.h5 -o traffic.png
    python -m sipsim.plot lines study-dir --x label.gbps --y iteration_s --best min -o lines.png

Each function takes run files (paths or `sipsim.Run`s), a study directory or results CSV,
or a DataFrame, returns the matplotlib Figure, and saves it to each `output` path (.png or
.svg). The Agg backend is used: no display is needed. What each kind draws, as tables, comes
from sipsim.plot_data.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Iterable, List, Optional, Sequence, Union

import matplotlib

matplotlib.use("Agg")  # headless: CI and Slurm nodes have no display
import matplotlib.lines  # noqa: E402
import matplotlib.text  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .errors import MissingDataError, SipsimError  # noqa: E402
from .run import PS_PER_S, Run  # noqa: E402
from .plot_data import _as_list  # noqa: E402
from .plot_data import _study_or_runs  # noqa: E402
from .plot_data import _name  # noqa: E402
from .plot_data import _study_labels  # noqa: E402
from .plot_data import _done  # noqa: E402
from .plot_data import _collectives  # noqa: E402
from .plot_data import lines_table  # noqa: E402
from .plot_data import _counts  # noqa: E402
from .units import SIZE_UNITS as _SIZE_UNITS  # noqa: E402
from .units import natural_key as _natural  # noqa: E402
from .units import time_unit as _time_unit  # noqa: E402
from .units import unit_in_name as _unit_in_name  # noqa: E402

KINDS = ("busbw", "completion", "breakdown", "traffic", "lines")
FIGSIZE = (16, 10)  # 1600 x 1000 pixels at DPI
DPI = 100
STYLE = {"font.size": 15, "axes.titlesize": 17, "axes.labelsize": 16, "legend.fontsize": 13,
         "xtick.labelsize": 13, "ytick.labelsize": 13,
         "text.usetex": False}  # texts hold study data: never run them through TeX

# The 12 /breakdown categories (docs/output.md): compute in blues/greens, exposed communication
# in warm colours, waiting in greys.
CATEGORY_COLORS = {
    "forward": "#1f77b4", "backward": "#6baed6", "weight-gradient": "#9ecae1",
    "optimizer": "#2ca02c", "compute": "#98df8a",
    "tp-comm": "#d62728", "pp-comm": "#ff7f0e", "dp-comm": "#e377c2", "ep-comm": "#8c564b",
    "collective": "#bcbd22",
    "bubble": "#7f7f7f", "idle": "#c7c7c7",
}

LINE_STYLES = ("-", "--", ":", "-.")
MAX_TRAFFIC_NODES = 4096  # a 4096 x 4096 heat map is 128 MB, and finer than the figure

Source = Union[str, os.PathLike, Run, pd.DataFrame]


# -- inputs --------------------------------------------------------------------------------

def _size_label(n: float) -> str:
    n = int(n)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def parse_size(text: str) -> int:
    """Bytes from "1GiB", "64 KiB", "1048576" (the scenario's size units)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]i?B|B)?\s*", text)
    if not m or (m.group(2) or "") not in _SIZE_UNITS:
        raise SipsimError(f"--sizes {text}: not a size (bytes, or a number with B, KiB, MiB, "
                          f"GiB, KB, MB or GB)")
    return int(m.group(1)) * _SIZE_UNITS[m.group(2) or ""]


# -- output --------------------------------------------------------------------------------

def _figure():
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    return fig, ax


def _literal(fig) -> None:
    """Shows the figure's titles, axis labels, legends, annotations and fixed tick labels as
    written: they hold study data (group names, file names, column names), in which `$5 vs
    $10` is not mathtext and `$\\badcmd{$` must not fail the plot. Tick labels that a number
    formatter makes (10^3 on a log axis) keep their mathtext; set_xticklabels' are data."""
    numeric = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            numeric.add(id(axis.offsetText))
            # get_*_ticks makes every tick of the current locations (findobj would too)
            for ticks, formatter in ((axis.get_major_ticks(), axis.get_major_formatter()),
                                     (axis.get_minor_ticks(), axis.get_minor_formatter())):
                if isinstance(formatter, (matplotlib.ticker.ScalarFormatter,
                                          matplotlib.ticker.LogFormatter)):
                    numeric.update(id(t) for tick in ticks for t in (tick.label1, tick.label2))
    for t in fig.findobj(matplotlib.text.Text):
        if id(t) not in numeric:
            t.set_parse_math(False)
            t.set_usetex(False)


def _save(fig, output) -> None:
    for path in ([] if output is None else _as_list(output)):
        p = os.fspath(path)
        ext = os.path.splitext(p)[1].lower()
        if ext not in (".png", ".svg"):
            raise SipsimError(f"{p}: the output's extension says the format: .png or .svg")
        fig.savefig(p, format=ext[1:], dpi=DPI)


def _styled(fn):
    """Runs a plot function under STYLE (font sizes readable at 1600 x 1000)."""
    def wrapper(*args, **kwargs):
        with plt.rc_context(STYLE):
            return fn(*args, **kwargs)
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


# -- kinds ---------------------------------------------------------------------------------

@_styled
def busbw(sources, by: Optional[str] = None, output=None, title: Optional[str] = None,
          ops: Optional[Iterable[str]] = None):
    """The nccl-tests curve: mean busbw (GB/s) of the measured iterations vs message size (log2
    x axis), one line per group (`by`: fabric (default for run files), file, algorithm, op, or
    any study columns, comma-separated; a study's default is its label.* axes that vary) and
    collective (`ops`: only these)."""
    df, group, what = _collectives(sources, by, ops)
    if df.empty:
        raise SipsimError("no measured collectives to plot")
    fig, ax = _figure()
    multi_op = df["op"].nunique() > 1
    # Groups named by several columns ("ramp, 0.4"): a line style per value of the first
    # column, colours for the rest, so each family reads as one set of lines.
    families = list(dict.fromkeys(df["family"]))
    styled = len(families) < df["group"].nunique() and len(families) <= len(LINE_STYLES)
    colors = {}
    for (g, op), d in df.groupby(["group", "op"], sort=False):
        m = d.groupby("bytes")["busbw_GBps"].mean()
        style = {}
        if styled:
            fam = d["family"].iloc[0]
            key = g[len(fam):] if g.startswith(fam) else g
            colors.setdefault(key, f"C{len(colors) % 10}")
            style = {"color": colors[key], "linestyle": LINE_STYLES[families.index(fam)]}
        ax.plot(m.index.values, m.values, marker="o", linewidth=2,
                label=f"{g} {op}" if multi_op else str(g), **style)
    ax.set_xscale("log", base=2)
    sizes = np.sort(df["bytes"].unique())
    ax.set_xticks(sizes)
    ax.set_xticklabels([_size_label(s) for s in sizes], rotation=30 if len(sizes) > 8 else 0)
    ax.set_xlabel("message size (bytes, log2)")
    ax.set_ylabel("busbw (GB/s = 10^9 bytes/s)")
    ops = ", ".join(df["op"].unique())
    ax.set_title(title or f"{ops} busbw vs size: {what}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title=group)
    _literal(fig)
    fig.tight_layout()
    _save(fig, output)
    return fig


def _ratio(r: float) -> str:
    """A speed-up as the bars show it: 2 decimals, whole numbers from 100x, 2 digits below 0.01x."""
    if r >= 100:
        return f"{r:.0f}x"
    return f"{r:.2f}x" if r >= 0.01 else f"{r:.2g}x"


@_styled
def completion(sources, by: Optional[str] = None, baseline: Optional[str] = None, output=None,
               title: Optional[str] = None, sizes: Optional[Iterable[int]] = None,
               ops: Optional[Iterable[str]] = None, speedup_of: Optional[str] = None):
    """RAMP Fig. 18 style: mean completion time of each collective and size, one bar per group
    side by side, each bar annotated with the baseline's time / its time (the speed-up over the
    first group, or `baseline`), or with `speedup_of`: its time / that group's time (that
    group's speed-up over each bar, as Fig. 18 gives RAMP's); only the message `sizes` (bytes)
    and collectives `ops` given."""
    if baseline is not None and speedup_of is not None:
        raise SipsimError("give --baseline or --speedup-of, not both")
    df, group, what = _collectives(sources, by, ops)
    if sizes is not None:
        sizes = [int(b) for b in sizes]
        absent = [b for b in sizes if b not in set(df["bytes"])]
        if absent:
            raise SipsimError(f"--sizes {','.join(_size_label(b) for b in absent)}: no such "
                              f"message size (there are "
                              f"{', '.join(_size_label(b) for b in sorted(set(df['bytes'])))})")
        df = df[df["bytes"].isin(sizes)]
    if df.empty:
        raise SipsimError("no measured collectives to plot")
    t = df.groupby(["op", "bytes", "group"], sort=False)["time_s"].mean().unstack("group")
    groups = list(dict.fromkeys(df["group"]))
    t = t[groups].sort_index(level=["op", "bytes"])
    base = speedup_of or baseline or groups[0]
    if base not in groups:
        flag = "--speedup-of" if speedup_of is not None else "--baseline"
        raise SipsimError(f"{flag} {base}: no such {group} (there are {', '.join(groups)})")
    unit, scale = _time_unit(float(np.nanmax(t.values)))
    fig, ax = _figure()
    x = np.arange(len(t.index))
    width = 0.8 / len(groups)
    for i, g in enumerate(groups):
        heights = t[g].values / scale
        bars = ax.bar(x + (i - (len(groups) - 1) / 2) * width, heights, width, label=g)
        for bar, h, b in zip(bars, t[g].values, t[base].values):
            if np.isfinite(h) and h > 0 and np.isfinite(b):
                ax.annotate(_ratio(h / b if speedup_of else b / h), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha="center", va="bottom", fontsize=11 if len(groups) <= 4 else 9,
                            xytext=(0, 2),
                            textcoords="offset points", rotation=90 if len(groups) > 3 else 0)
    multi_op = t.index.get_level_values("op").nunique() > 1
    ax.set_xticks(x)
    ax.set_xticklabels([f"{op}\n{_size_label(b)}" if multi_op else _size_label(b)
                        for op, b in t.index], rotation=0)
    ax.set_xlabel("collective and message size" if multi_op else "message size")
    ax.set_ylabel(f"completion time ({unit})")
    ax.set_yscale("log")
    lo, hi = np.nanmin(t.values) / scale, np.nanmax(t.values) / scale
    ax.set_ylim(lo / 2, hi * 4)  # room above the tallest bar for its label
    ops = ", ".join(t.index.get_level_values("op").unique())
    said = f"{base}'s speed-up over each bar" if speedup_of else f"speed-up over {base} on each bar"
    ax.set_title(title or f"{ops} completion time: {what} ({said})")
    ax.legend(title=group, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", which="both", alpha=0.3)
    _literal(fig)
    fig.tight_layout()
    _save(fig, output)
    return fig


def _category_columns(df: pd.DataFrame) -> List[str]:
    return [c for c in df.columns if c.endswith("_s") and c[:-2] in CATEGORY_COLORS]


@_styled
def breakdown(sources, by: Optional[str] = None, output=None, title: Optional[str] = None):
    """Stacked bars of where training time went (the 12 /breakdown categories, mean over GPUs):
    one bar per iteration of one run file, or one per configuration (row) of a study's run
    table (its `<category>_s` columns, labelled by `by` or the axes that vary)."""
    df, runs = _study_or_runs(sources, "run")
    if df is not None:
        d = _done(df)
        cats = _category_columns(d)
        if not cats:
            raise SipsimError("the study table has no breakdown columns (forward_s, ...): "
                              "not a training study")
        labels, xlabel, _ = _study_labels(d, by)
        cols = xlabel.split(", ")
        if len(cols) > 1:  # "tp=2, dp=8": a tick names its values' keys (last path part)
            parts = labels.str.split(", ")
            labels = parts.apply(lambda vs: ", ".join(f"{c.split('.')[-1]}={v}"
                                                      for c, v in zip(cols, vs)))
        table = pd.DataFrame(d[cats].values, index=labels.values, columns=cats)
        where = df.attrs.get("path", "")
        what = f"study {os.path.dirname(where) or where}" if where else "study"
        what += " (mean over iterations and GPUs)"
    else:
        if len(runs) != 1:
            raise SipsimError("breakdown plots one run file (one bar per iteration) or a study")
        b = runs[0].breakdown()
        cats = _category_columns(b)
        table = b.groupby("iteration")[cats].mean()
        table.index = [str(i) for i in table.index]
        xlabel = "iteration"
        what = f"{_name(runs[0])} (mean over {b['gpu'].nunique()} GPUs)"
    table = table.loc[:, (table != 0).any(axis=0)]  # empty categories only crowd the legend
    unit, scale = _time_unit(float(table.sum(axis=1).max()) if len(table) else 1.0)
    fig, ax = _figure()
    bottom = np.zeros(len(table))
    x = np.arange(len(table))
    for c in table.columns:
        h = table[c].values / scale
        ax.bar(x, h, 0.6, bottom=bottom, label=c[:-2], color=CATEGORY_COLORS[c[:-2]])
        bottom += h
    ax.set_xticks(x)
    ax.set_xticklabels(table.index, rotation=30 if len(table) > 6 else 0,
                       ha="right" if len(table) > 6 else "center")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"time ({unit})")
    ax.set_title(title or f"training time breakdown: {what}")
    ax.legend(title="category", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    _literal(fig)
    fig.tight_layout()
    _save(fig, output)
    return fig


def _unit_rate_gbps(description: str) -> Optional[float]:
    """The circuit unit's rate from a circuit fabric's description ("circuits of 24.98Gbps")."""
    m = re.search(r"circuits of ([0-9.]+)\s*([GT])bps", description)
    if not m:
        return None
    return float(m.group(1)) * (1000.0 if m.group(2) == "T" else 1.0)


def circuit_matrix(run: Run) -> np.ndarray:
    """Time-averaged circuit units from src to dst over [first plan, end of run], from
    /fabric/plans (a pair's units hold from its row to its next row)."""
    return _circuit_matrix(run)[0]


def _circuit_matrix(run: Run):
    """(matrix, first plan's time in ps, run's end in ps)."""
    p = run._plans()
    if p is None:
        kind = run.fabric.get("type", "?") if run.has("fabric") else "none"
        raise MissingDataError(
            f"{run.path} has no /fabric/plans (fabric {kind}): sipsim records no per-pair "
            f"traffic; only circuit fabrics (sip-ring, sip-ocs) with log_plans: true log "
            f"their circuits, which the traffic plot shows")
    end = int(run.meta["end_time_ps"])
    n = int(max(p["src"].max(), p["dst"].max())) + 1 if len(p) else 0
    n = max(n, int(run.meta.get("gpus", 0) or 0))
    low = int(min(p["src"].min(), p["dst"].min())) if len(p) else 0
    if n > MAX_TRAFFIC_NODES or low < 0:  # the matrix is n x n doubles
        raise SipsimError(f"{run.path}: /fabric/plans names GPUs {low} to {n - 1}: the traffic "
                          f"plot draws GPUs 0 to {MAX_TRAFFIC_NODES - 1}")
    m = np.zeros((n, n))
    if len(p) == 0:
        return m, end, end
    start = int(p["time_ps"].min())
    span = max(end - start, 1)
    p = p.sort_values("time_ps", kind="stable")
    for (s, d), g in p.groupby(["src", "dst"], sort=False):
        times = g["time_ps"].to_numpy(dtype=np.int64)
        until = np.append(times[1:], max(end, int(times[-1])))
        m[s, d] = float(np.sum(g["units"].to_numpy(dtype=np.float64) * (until - times))) / span
    return m, start, end


@_styled
def traffic(sources, output=None, title: Optional[str] = None):
    """A circuit fabric's traffic matrix as a heat map: the mean bandwidth of the circuits from
    each src to each dst GPU over the run (from /fabric/plans; sipsim records no per-pair bytes)."""
    _, runs = _study_or_runs(sources, "run")
    if len(runs) != 1:
        raise SipsimError("traffic plots one run file")
    run = runs[0]
    m, start, end = _circuit_matrix(run)
    rate = _unit_rate_gbps(str(run.fabric.get("description", "")))
    if rate is not None:
        m = m * rate
        what, label = "mean circuit bandwidth", "circuit bandwidth (Gb/s, time-averaged)"
    else:
        what, label = "mean circuit units", "circuit units (time-averaged)"
    fig, ax = _figure()
    shown = np.ma.masked_equal(m, 0.0)
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad("white")
    im = ax.imshow(shown, cmap=cmap, origin="upper", aspect="equal", interpolation="nearest",
                   vmin=0.0, vmax=max(float(m.max()), 1e-12))
    fig.colorbar(im, ax=ax, label=label)
    ax.set_xlabel("destination GPU")
    ax.set_ylabel("source GPU")
    kind = run.fabric.get("type", "?")
    ax.set_title(title or f"{_name(run)} ({kind}): {what} src -> dst from /fabric/plans,\n"
                          f"averaged from the first plan to the run's end, "
                          f"{start / PS_PER_S * 1e3:.4g} to {end / PS_PER_S * 1e3:.4g} ms "
                          f"(white: no circuit)")
    _literal(fig)
    fig.tight_layout()
    _save(fig, output)
    return fig


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<", ">", "p")


def _y_label(y: str, scale_unit: Optional[str]) -> str:
    if scale_unit is not None:  # a time in seconds, shown in scale_unit
        what = y[:-2]
        return f"{what if what.endswith('time') else what + ' time'} ({scale_unit})"
    if "_GBps" in y:  # busbw_GBps, busbw_GBps_largest
        return f"{y.replace('_GBps', '')} (GB/s = 10^9 bytes/s)"
    return y


@_styled
def lines(sources, x: str, y: str = "iteration_s", by: Optional[str] = None,
          best: Optional[str] = None, mark: Optional[str] = None, logx: bool = False,
          logy: bool = False, output=None, title: Optional[str] = None,
          speedup_over: Optional[str] = None, ref: Optional[str] = None):
    """A study's result `y` (a numeric column; times in a readable unit) against its column
    `x` (numbers, or numbers with a unit: 400Gbps is 400 on a Gb/s axis), one line per group
    (`by`, comma-separated columns; default the label.* axes that vary other than x). Several
    rows at one (group, x) (strategies, seeds): their mean, or with `best` "min"/"max" the
    best one, whose `mark` columns (default: the axes that differ there) the marker shape
    says (second legend). Failed or missing runs, and rows without x or y, are not drawn but
    counted in the title and on stderr. `speedup_over` "GROUP@X" draws that point's y over
    each point's instead of y (lines_table). `ref` "COL=VALUE": the rows whose COL is VALUE
    (a reference without x, such as the paper's Elect-Flat) are drawn as a dash-dot-dot
    horizontal line per group, in the group's colour, their winner named in the legend."""
    t, info = lines_table(sources, x, y, by, best, mark, speedup_over=speedup_over, ref=ref)
    refs = info["ref"] if info["ref"] is not None else pd.DataFrame(columns=["group", "y", "n"])
    skipped = info["skipped"]
    if len(skipped):
        ids = {k: ", ".join(g.index[:8]) + (", ..." if len(g) > 8 else "")
               for k, g in skipped.groupby(skipped)}
        listed = "; ".join(f"{k} {n}: {ids[k]}" for k, n in _counts(skipped))
        print(f"sipsim.plot: warning: {len(skipped)} runs not drawn ({listed})", file=sys.stderr)
    y_unit, scale = None, 1.0
    speedup = info["speedup"]  # with speedup_over
    if y.endswith("_s") and speedup is None:
        y_unit, scale = _time_unit(float(pd.concat([t["y"], refs["y"]]).abs().max()))
    fig, ax = _figure()
    groups = list(dict.fromkeys(list(t["group"]) + list(refs["group"])))
    winners = sorted(set(t["winner"]), key=_natural) if best is not None else []
    shapes = {w: MARKERS[i] for i, w in enumerate(winners)} if len(winners) <= len(MARKERS) else {}
    for i, g in enumerate(groups):
        d = t[t["group"] == g]
        color = f"C{i % 10}"
        # A line style per group, and the first groups drawn wider and larger, so that the
        # lines and points that lie on top of each other stay visible.
        wide = len(groups) - 1 - i
        size = 8 + 2 * wide
        ax.plot(d["x"].values, d["y"].values / scale, color=color, linewidth=2 + wide,
                linestyle=LINE_STYLES[i % len(LINE_STYLES)], marker="o" if best is None else None,
                markersize=size, label=str(g))
        if best is None or not info["marks"]:
            continue
        for w, p in d.groupby("winner", sort=False):
            if shapes:
                ax.plot(p["x"].values, p["y"].values / scale, linestyle="none", color=color,
                        marker=shapes[w], markersize=size, markeredgecolor="black",
                        label=f"_{g} {w}")
            else:  # too many to tell apart by shape: their values beside the points
                for xv, yv in zip(p["x"].values, p["y"].values / scale):
                    ax.annotate(w, (xv, yv), xytext=(4, 4), textcoords="offset points",
                                fontsize=9, color=color)
                ax.plot(p["x"].values, p["y"].values / scale, linestyle="none", color=color,
                        marker="o", label=f"_{g} {w}")
    for r in refs.itertuples(index=False):
        i = groups.index(r.group)
        won = f" ({r.winner})" if best is not None and info["marks"] else ""
        # dash-dot-dot: none of LINE_STYLES, so a reference never looks like a group's line
        ax.axhline(r.y / scale, color=f"C{i % 10}", linestyle=(0, (8, 2, 1, 2, 1, 2)),
                   linewidth=1.8, label=f"{info['ref_name']}, {r.group}{won}")
    if logx:
        pos = t["x"][t["x"] > 0]
        pow2 = len(pos) == len(t) and np.allclose(np.log2(pos), np.round(np.log2(pos)))
        ax.set_xscale("log", base=2 if pow2 else 10)
    if logy:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ally = pd.concat([t["y"], refs["y"]])
        lo, hi = ally.min() / scale, ally.max() / scale
        digits = "23456789" if lo > 0 and hi / lo < 30 else "25"  # label what fits
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if f"{v:g}"[0] in digits else ""))
    xv = np.sort(t["x"].unique())
    if len(xv) <= 16:
        ax.set_xticks(xv)
        sizes = info["x_unit"] == "bytes" and np.all(xv == np.round(xv))
        ax.set_xticklabels([_size_label(v) if sizes else f"{v:g}" for v in xv])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    x_unit = info["x_unit"] or _unit_in_name(x)
    ax.set_xlabel(f"{x} ({x_unit})" if x_unit else x)
    if speedup is None:
        ax.set_ylabel(_y_label(y, y_unit))
    else:
        where = ", ".join(info["groups"]) or "group"
        value = f"{speedup['y']:.6g}"
        if y.endswith("_s"):
            unit, s = _time_unit(abs(speedup["y"]))
            value = f"{speedup['y'] / s:.4g} {unit}"
        ax.set_ylabel(f"speed-up over {where} {speedup['group']} at {x} {speedup['x']:g}\n"
                      f"(its {y[:-2] if y.endswith('_s') else y} {value} / each point's)")
    if title is None:
        how = ""
        if best is not None:
            over = ", ".join(info["marks"]) or "the rows"
            how = f"\nthe {'fastest' if best == 'min' and y.endswith('_s') else best} " \
                  f"of each point's runs (they differ in {over})"
        elif (t["n"] > 1).any():
            how = f"\nmean of up to {int(t['n'].max())} runs per point"
        shown = y if speedup is None else f"speed-up ({y})"
        title = f"{shown} vs {x}: {info['what']}{how}"
    if len(skipped):
        drawn = int(t["n"].sum()) + int(refs["n"].sum())
        title += f"\n({len(skipped)} of {len(skipped) + drawn} runs not drawn: " \
                 f"{', '.join(f'{k} {n}' for k, n in _counts(skipped))})"
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    legend = ax.legend(title=", ".join(info["groups"]) or None, loc="upper left",
                       bbox_to_anchor=(1.01, 1.0))
    if shapes and info["marks"]:
        ax.add_artist(legend)
        handles = [matplotlib.lines.Line2D([], [], linestyle="none", marker=shapes[w],
                                           markersize=11, color="grey", markeredgecolor="black",
                                           label=w) for w in winners]
        ax.legend(handles=handles, title=f"the {best} of {y} at a point:\n"
                                         f"{', '.join(info['marks'])}",
                  loc="lower left", bbox_to_anchor=(1.01, 0.0))
    _literal(fig)
    fig.tight_layout()
    _save(fig, output)
    return fig


PLOTS = {"busbw": busbw, "completion": completion, "breakdown": breakdown, "traffic": traffic,
         "lines": lines}


# -- command line --------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m sipsim.plot",
        description="Plot sipsim runs or studies (docs/python.md, \"Plots\").")
    ap.add_argument("kind", choices=KINDS)
    ap.add_argument("inputs", nargs="+", help="run files (.h5), or one study directory or results CSV")
    ap.add_argument("-o", "--output", action="append",
                    help="output file, .png or .svg (repeat for both; default KIND.png)")
    ap.add_argument("--by", help="group by: fabric, file, algorithm, op (run files) or a study column")
    ap.add_argument("--baseline", help="completion: the group the speed-ups are over (default: the first)")
    ap.add_argument("--speedup-of", help="completion: annotate each bar with this group's speed-up "
                                         "over it (instead of --baseline's over each bar)")
    ap.add_argument("--op", help="busbw, completion: only these collectives (comma-separated)")
    ap.add_argument("--sizes", help="completion: only these message sizes (comma-separated, "
                                    "e.g. 1MiB,1GiB)")
    ap.add_argument("--x", help="lines: the x column (numbers, or numbers with a unit)")
    ap.add_argument("--y", default="iteration_s", help="lines: the y column (default iteration_s)")
    ap.add_argument("--best", choices=("min", "max"),
                    help="lines: the best row per point instead of the mean")
    ap.add_argument("--mark", help="lines --best: the columns the markers name (default: the "
                                   "axes that differ at a point)")
    ap.add_argument("--speedup-over", metavar="GROUP@X",
                    help="lines: draw this point's y / each point's (GROUP: a legend label; X: "
                         "an x value in the axis's unit), e.g. a speed-up over 32 GPUs at 1 us")
    ap.add_argument("--logx", action="store_true", help="lines: log x axis")
    ap.add_argument("--logy", action="store_true", help="lines: log y axis")
    ap.add_argument("--ref", help="lines: COLUMN=VALUE, the rows drawn as a horizontal "
                                  "line per group (a reference without x)")
    ap.add_argument("--title", help="the figure's title (default: says what is shown)")
    a = ap.parse_args(argv)
    if a.kind != "lines" and (a.x is not None or a.y != "iteration_s" or a.best is not None
                              or a.mark is not None or a.logx or a.logy
                              or a.speedup_over is not None or a.ref is not None):
        ap.error("--x, --y, --best, --mark, --speedup-over, --ref, --logx and --logy are for "
                 "lines")
    if a.kind == "lines" and a.x is None:
        ap.error("lines needs --x COLUMN")
    if a.mark is not None and a.best is None:
        ap.error("--mark names the winner of --best")
    if a.kind not in ("busbw", "completion") and a.op is not None:
        ap.error("--op is for busbw and completion")
    if a.kind != "completion" and (a.sizes is not None or a.speedup_of is not None):
        ap.error("--sizes and --speedup-of are for completion")
    if a.kind != "completion" and a.baseline is not None:
        ap.error("--baseline is for completion")
    if a.kind == "traffic" and a.by is not None:
        ap.error("--by is not for traffic")
    outputs = a.output or [f"{a.kind}.png"]
    kwargs = {"output": outputs, "title": a.title}
    if a.kind != "traffic":
        kwargs["by"] = a.by
    if a.op is not None:
        kwargs["ops"] = [o.strip() for o in a.op.split(",")]
    try:
        if a.kind == "completion":
            kwargs["baseline"] = a.baseline
            kwargs["speedup_of"] = a.speedup_of
            if a.sizes is not None:
                kwargs["sizes"] = [parse_size(t) for t in a.sizes.split(",")]
        if a.kind == "lines":
            kwargs.update(x=a.x, y=a.y, best=a.best, mark=a.mark, logx=a.logx, logy=a.logy,
                          speedup_over=a.speedup_over, ref=a.ref)
        PLOTS[a.kind](a.inputs, **kwargs)
    except (SipsimError, FileNotFoundError) as e:
        print(f"sipsim.plot: error: {e}", file=sys.stderr)
        return 2
    for o in outputs:
        print(f"wrote {o}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
