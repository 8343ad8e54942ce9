"""The per-rank event load of a finished run at any rank count (docs/performance.md, "Load
balance across ranks"): the run file's /lp/events (the events each LP processed, the same at
every rank count) summed over the LPs that the scenario's partition gives each rank.

    python -m sipsim.loadbalance RUN.h5 --ranks 16,64,256

prints, per rank count, the LPs, the events, the busiest rank's events, its load over the mean
(1.000 = even; the windowed engine's speed-up is at most ranks / this) and which rank it is.

The partition is the binary's: `sipsim info SCENARIO --ranks P --owners FILE` writes each LP's
rank. The scenario is, by default, the one the run recorded (/meta@scenario_yaml, with its
--set overrides, /meta@overrides): its file when /meta@scenario_path still holds that text (so
that paths in it resolve as they did), else the recorded text. `--scenario FILE` and `--set
key=value` give another (the partition changes only with the fabric and the workload's layout).
The binary is `--sipsim`, else $SIPSIM, else `sipsim` on PATH, else the tree's
build/release/sipsim.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np
import pandas as pd

from .errors import SipsimError
from .run import Run
from .run import open as open_run

# Where a build of this tree puts the binary, relative to the package.
_TREE_BINARY = Path(__file__).resolve().parents[2] / "build" / "release" / "sipsim"


def sipsim_binary(given: Optional[str] = None) -> str:
    """The sipsim binary: `given`, else $SIPSIM, else `sipsim` on PATH, else the tree's
    build/release/sipsim; SipsimError when none is an executable."""
    for candidate, what in ((given, "--sipsim"), (os.environ.get("SIPSIM"), "SIPSIM")):
        if candidate:
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
            raise SipsimError(f"{what}={candidate} is not an executable file")
    found = shutil.which("sipsim")
    if found:
        return found
    if _TREE_BINARY.is_file() and os.access(_TREE_BINARY, os.X_OK):
        return str(_TREE_BINARY)
    raise SipsimError("no sipsim binary: give --sipsim PATH or set SIPSIM (none on PATH, none "
                      f"at {_TREE_BINARY})")


def _recorded_scenario(run: Run, tmp: str) -> str:
    """The path of the scenario the run recorded: its own file when that still holds the
    recorded text, else the text written to a file in `tmp`."""
    text = run.meta.get("scenario_yaml")
    if not isinstance(text, str):
        raise SipsimError(f"{run.path} has no /meta@scenario_yaml: give --scenario")
    path = run.meta.get("scenario_path")
    if isinstance(path, str) and path:
        try:
            if Path(path).is_file() and Path(path).read_text(encoding="utf-8") == text:
                return path
        except (OSError, UnicodeError):
            pass
    copy = os.path.join(tmp, "scenario.yaml")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    return copy


def owners(run: Run, ranks: int, scenario: Optional[str] = None,
           overrides: Sequence[str] = (), sipsim: Optional[str] = None) -> np.ndarray:
    """The rank of each LP of `run`'s scenario at `ranks` ranks (`sipsim info --owners`).
    Without `scenario`, the run's recorded scenario and overrides, then `overrides`."""
    binary = sipsim_binary(sipsim)
    with tempfile.TemporaryDirectory(prefix="sipsim-loadbalance-") as tmp:
        sets = list(overrides)
        if scenario is None:
            scenario = _recorded_scenario(run, tmp)
            recorded = run.meta.get("overrides")
            sets = [s for s in (recorded or "").splitlines() if s] + sets
        out = os.path.join(tmp, "owners")
        cmd = [binary, "info", scenario, "--ranks", str(ranks), "--owners", out]
        for s in sets:
            cmd += ["--set", s]
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        except OSError as e:
            raise SipsimError(f"cannot run {binary}: {e.strerror or e}") from e
        if done.returncode != 0:
            why = (done.stderr.strip() or done.stdout.strip()).splitlines()
            raise SipsimError(f"{run.path}: the partition of {scenario} at {ranks} ranks: "
                              f"{why[-1] if why else f'sipsim info exited {done.returncode}'}")
        try:
            got = np.loadtxt(out, dtype=np.int64, ndmin=1)
        except (OSError, ValueError) as e:
            raise SipsimError(f"{run.path}: sipsim info --owners wrote no partition: {e}") from e
    return got


def _sum(path: str, events: np.ndarray, own: np.ndarray, ranks: int) -> np.ndarray:
    """The events of each rank: `events` (per LP) summed over the LPs `own` gives it."""
    if len(own) != len(events):
        raise SipsimError(f"{path}: the scenario has {len(own)} LPs, the run file "
                          f"{len(events)}: not the same scenario (give --scenario and --set as "
                          f"the run had them)")
    if len(own) and (own.min() < 0 or own.max() >= ranks):
        raise SipsimError(f"{path}: sipsim info --owners named a rank outside 0..{ranks - 1}")
    load = np.zeros(ranks, dtype=np.uint64)
    np.add.at(load, own, events)
    return load


def rank_events(run: Run, ranks: int, scenario: Optional[str] = None,
                overrides: Sequence[str] = (), sipsim: Optional[str] = None) -> np.ndarray:
    """The events each of `ranks` ranks would commit: /lp/events summed over its LPs."""
    events = run.lp()["events"].to_numpy(dtype=np.uint64)
    return _sum(run.path, events, owners(run, ranks, scenario, overrides, sipsim), ranks)


def balance(run: Run, ranks: Sequence[int], scenario: Optional[str] = None,
            overrides: Sequence[str] = (), sipsim: Optional[str] = None) -> pd.DataFrame:
    """One row per rank count: ranks, lps, events (all ranks), max_rank_events,
    max_over_mean (the busiest rank's events over the mean; 0 without events) and busiest_rank
    (the first rank with the most)."""
    events = run.lp()["events"].to_numpy(dtype=np.uint64)
    rows = []
    for n in ranks:
        load = _sum(run.path, events, owners(run, n, scenario, overrides, sipsim), n)
        total = int(load.sum())
        most = int(load.max())
        rows.append({"ranks": n, "lps": len(events), "events": total, "max_rank_events": most,
                     "max_over_mean": most * n / total if total > 0 else 0.0,
                     "busiest_rank": int(np.argmax(load))})
    return pd.DataFrame(rows, columns=["ranks", "lps", "events", "max_rank_events",
                                       "max_over_mean", "busiest_rank"])


def report(table: pd.DataFrame) -> str:
    """The table as `python -m sipsim.loadbalance` prints it."""
    lines = ["%8s %12s %14s %14s %8s %s" % ("ranks", "lps", "events", "max_rank_events",
                                             "max/mean", "busiest_rank")]
    for r in table.itertuples(index=False):
        lines.append("%8d %12d %14d %14d %8.3f %d" % (r.ranks, r.lps, r.events,
                                                       r.max_rank_events, r.max_over_mean,
                                                       r.busiest_rank))
    return "\n".join(lines) + "\n"


def parse_ranks(text: str) -> List[int]:
    """"16,64,256" -> [16, 64, 256]."""
    try:
        out = [int(t) for t in text.split(",")]
    except ValueError:
        raise SipsimError(f"--ranks {text}: rank counts, comma-separated") from None
    if not out or min(out) < 1:
        raise SipsimError(f"--ranks {text}: every rank count must be at least 1")
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m sipsim.loadbalance",
        description="The per-rank event load of a finished run at other rank counts: its "
                    "/lp/events summed over the partition's ranks.")
    ap.add_argument("run", help="a finished run file (.h5)")
    ap.add_argument("--ranks", required=True, metavar="P,...", help="rank counts, e.g. 16,64,256")
    ap.add_argument("--scenario", help="the scenario whose partition to use (default: the one "
                                       "the run recorded, with its --set overrides)")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="override a scenario key, as `sipsim run --set` (repeatable)")
    ap.add_argument("--sipsim", help="the sipsim binary (default: $SIPSIM, else sipsim on "
                                     "PATH, else build/release/sipsim)")
    a = ap.parse_args(argv)
    try:
        ranks = parse_ranks(a.ranks)
        table = balance(open_run(a.run), ranks, a.scenario, a.sets, a.sipsim)
    except SipsimError as e:
        print(f"sipsim.loadbalance: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(report(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
