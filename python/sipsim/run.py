"""One sipsim run file (docs/output.md) as pandas DataFrames.

The file stores integer picoseconds (`*_ps`) and rates in GB/s (`*_GBps`; files
of earlier versions spelt them `*_gbps`, read here under today's names).
Every DataFrame here gives times in seconds (`*_s` = ps / 1e12) and keeps the
unit in each column's name (`algbw_GBps`, `bytes`, `energy_j`); the raw
HDF5 attributes of a table are in the DataFrame's `attrs`.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Dict, List, Optional

try:
    import h5py
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("sipsim needs h5py: apt-get install python3-h5py (Debian) "
                      "or pip install h5py") from e
import numpy as np
import pandas as pd

from . import checks
from .errors import MissingDataError, SipsimError

PS_PER_S = 1e12
# The run files this reader reads (docs/output.md): 2 since /iterations gained period_ps
# and hardware_tflops_per_gpu.
FORMAT_VERSION = 2

# Why each table can be missing: the workloads that write it (docs/output.md, "Which groups").
_WHY_MISSING = {
    "/collectives": "not a collectives run (workload.type: collectives)",
    "/iterations": "not a training run (workload.type: transformer, dlrm or graph)",
    "/breakdown": "not a training run (workload.type: transformer, dlrm or graph)",
    "/gpu_energy": "not a training run (workload.type: transformer, dlrm or graph)",
    "/memory": "only transformer runs have it",
    "/trace/events": "the run had no trace (output.trace: ops, collectives or steps, training only)",
    "/trace/names": "the run had no trace, or was written before the ops' names were",
    "/trace/ops": "the run had no trace, or was written before the ops' names were",
    "/replay_shapes": "not a training run under workload.collectives: replay-shapes",
    "/faults": "the scenario has no faults: section (docs/faults.md)",
    "/fabric": "the workload ran on no fabric (e.g. PHOLD)",
    "/lp/events": "every run writes it (docs/output.md): the file is damaged or not a whole run's",
}

# /meta attributes that a run writes when it finishes; a file without them is not committed.
_COMMITTED_META = ("run_id", "end_time_ps", "committed_events")

# The most a table read may allocate, in bytes: a file can declare far more than it holds
# (checks refuses what exceeds the file's size), and even a real table this large is better
# read in parts with h5py. Raise it to read larger ones.
MAX_TABLE_BYTES = 16 << 30


# Columns that earlier versions named otherwise (schema.json's former_names), by old name.
_FORMER_NAMES = {old: new for names in checks.FORMER_NAMES.values() for old, new in names.items()}


def _column_name(name: str) -> str:
    name = _FORMER_NAMES.get(name, name)
    if name.endswith("_ps"):
        return name[:-3] + "_s"
    return name


def _table(arr: np.ndarray) -> pd.DataFrame:
    """A compound dataset -> DataFrame: strings decoded, *_ps in seconds, units in the names."""
    columns: Dict[str, Any] = {}
    for name in arr.dtype.names:
        col = arr[name]
        if col.dtype.kind == "S":
            columns[name] = pd.Series(np.char.decode(col, "utf-8", errors="replace"),
                                      dtype=object)
        elif name.endswith("_ps"):
            columns[_column_name(name)] = col.astype(np.float64) / PS_PER_S
        else:
            columns[_column_name(name)] = col
    return pd.DataFrame(columns)


def _with_duration(df: pd.DataFrame, arr: np.ndarray, after: str) -> pd.DataFrame:
    """Inserts time_s = end - start, subtracted in integer ps before converting."""
    duration = (arr["end_ps"] - arr["start_ps"]).astype(np.float64) / PS_PER_S
    df.insert(df.columns.get_loc(after) + 1, "time_s", duration)
    return df


class Run:
    """A finished sipsim run file. Made by `sipsim.open(path)`.

    `meta` and `fabric` are read at open; each table is read when asked for,
    so a large trace costs nothing until `trace()` is called.
    """

    def __init__(self, path: str, meta: Dict[str, Any], fabric: Dict[str, Any] | None,
                 root: Dict[str, Any], tables: List[str]):
        self.path = path
        self.meta = meta
        self._fabric = fabric
        self.format_version = root.get("format_version")
        self.tables = tables

    def __repr__(self) -> str:
        return (f"<sipsim.Run {self.path!r}: scenario {self.meta.get('scenario_name')!r}, "
                f"{self.meta.get('ranks')} rank(s), tables {', '.join(self.tables)}>")

    # -- what the file holds ---------------------------------------------------------------

    def has(self, name: str) -> bool:
        """Whether the file has a table or group, e.g. `run.has("iterations")`, `run.has("/trace/events")`."""
        name = name if name.startswith("/") else "/" + name
        if name == "/trace":
            name = "/trace/events"
        return name in self.tables or (name == "/fabric" and self._fabric is not None)

    @property
    def end_time_s(self) -> float:
        """The simulated time of the run's last event, in seconds."""
        return self.meta["end_time_ps"] / PS_PER_S

    @property
    def fabric(self) -> Dict[str, Any]:
        """The /fabric attributes (type, description, counters summed over ranks)."""
        if self._fabric is None:
            self._missing("/fabric")
        return self._fabric

    def _missing(self, name: str) -> None:
        raise MissingDataError(f"{self.path} has no {name}: {_WHY_MISSING[name]}")

    @contextlib.contextmanager
    def _reading(self, name: str):
        """Turns what h5py, numpy or pandas raise on a damaged table into a SipsimError naming
        the file and the table."""
        try:
            yield
        except SipsimError:
            raise
        except MemoryError as e:
            raise SipsimError(f"{self.path}: not enough memory to read {name}") from e
        except checks.H5_ERRORS as e:
            raise SipsimError(f"{self.path}: cannot read {name}: {e}") from e

    def _read(self, name: str):
        """(data, decoded attrs) of a dataset, or MissingDataError. The file is opened and the
        dataset checked again: the path may name another file by now."""
        if name not in self.tables:
            self._missing(name)
        with self._reading(name):
            f, size = checks.open_hdf5(self.path)
            with f:
                ds = checks.table(f, name, self.path, size)
                if ds is None:
                    raise SipsimError(f"{self.path} no longer has {name}: the file changed since "
                                      f"sipsim.open read it")
                checks.within(ds, name, self.path, MAX_TABLE_BYTES)
                return ds[()], checks.attrs(ds, name, self.path, size)

    def _plans(self) -> Optional[pd.DataFrame]:
        """/fabric/plans's time_ps, src, dst and units (sipsim.plot.traffic's input), or None
        when the file has none."""
        with self._reading("/fabric/plans"):
            f, size = checks.open_hdf5(self.path)
            with f:
                cols = checks.plans(f, self.path, size)
                if cols is None:
                    return None
                if not cols:
                    return pd.DataFrame({k: np.zeros(0, np.uint64) for k in checks.PLANS})
                for ds in cols:
                    checks.within(ds, ds.name, self.path, MAX_TABLE_BYTES)
                return pd.DataFrame({k: ds[()] for k, ds in zip(checks.PLANS, cols)})

    # -- tables ----------------------------------------------------------------------------

    def lp(self) -> pd.DataFrame:
        """One row per LP (logical process, the engine's unit of partitioning): lp (its id),
        events (the events it processed: the same at every rank count) and digest (the hash of
        those events, docs/output.md). `attrs` are /lp/events's."""
        with self._reading("/lp/events"):
            f, size = checks.open_hdf5(self.path)
            with f:
                cols = checks.lp(f, self.path, size)
                if cols is None:
                    self._missing("/lp/events")
                for ds in cols.values():
                    checks.within(ds, ds.name, self.path, MAX_TABLE_BYTES)
                data = {k: ds[()] for k, ds in cols.items()}
                attrs = checks.attrs(cols["events"], "/lp/events", self.path, size)
            n = len(data["events"])
            df = pd.DataFrame({"lp": np.arange(n, dtype=np.uint64), **data})
        df.attrs = attrs
        return df

    def collectives(self) -> pd.DataFrame:
        """One row per collective instance: id, op, algorithm, group_size, bytes, iteration,
        warmup (bool), start_s, end_s, time_s, h2h_s, h2t_s, compute_s, algbw_GBps, busbw_GBps."""
        arr, attrs = self._read("/collectives")
        with self._reading("/collectives"):
            df = _with_duration(_table(arr), arr, "end_s")
            df["warmup"] = df["warmup"].astype(bool)
        df.attrs = attrs
        return df

    def iterations(self) -> pd.DataFrame:
        """One row per training iteration: iteration, start_s, end_s, time_s (end - start),
        period_s (end - the previous iteration's end; iteration 0: its time_s),
        hardware_tflops_per_gpu (the FLOPs the GPUs execute, recomputation included),
        model_tflops_per_gpu (3 x forward), energy_j, device_energy_j, fabric_energy_j.
        Iterations overlap, so the periods, not time_s, add up to the run's span."""
        arr, attrs = self._read("/iterations")
        with self._reading("/iterations"):
            df = _with_duration(_table(arr), arr, "end_s")
        df.attrs = attrs
        return df

    def breakdown(self, form: str = "wide") -> pd.DataFrame:
        """Where each GPU's time went in each iteration, in seconds.

        wide: one row per (iteration, gpu), one column per category (`forward_s`, `tp-comm_s`,
        ..., `idle_s`, in the file's order). long: columns iteration, gpu, category, time_s."""
        if form not in ("wide", "long"):
            raise ValueError(f"breakdown(form=...) takes 'wide' or 'long', not {form!r}")
        data, attrs = self._read("/breakdown")
        with self._reading("/breakdown"):
            categories = attrs["categories"].split(",")  # checked: one per column
            iterations, gpus, ncat = data.shape
            df = pd.DataFrame(data.reshape(iterations * gpus, ncat) / PS_PER_S,
                              columns=[c + "_s" for c in categories])
            df.insert(0, "iteration", np.repeat(np.arange(iterations, dtype=np.uint32), gpus))
            df.insert(1, "gpu", np.tile(np.arange(gpus, dtype=np.uint32), iterations))
            if form == "long":
                df = df.melt(id_vars=["iteration", "gpu"], var_name="category",
                             value_name="time_s")
                df["category"] = df["category"].str[:-2]
        df.attrs = attrs
        return df

    def trace(self) -> pd.DataFrame:
        """/trace/events: node, iteration, op, step (-1 for an op's row), kind, category,
        program, name (the op's own name, e.g. a Chakra trace's "aten::mm"; "" when it has
        none, and for every row of a file written before names were), start_s, end_s, time_s.
        `attrs["level"]` is the trace level."""
        arr, attrs = self._read("/trace/events")
        names = self._op_names()
        with self._reading("/trace/events"):
            df = _with_duration(_table(arr), arr, "end_s")
            name = np.full(len(df), "", dtype=object)
            if names is not None and "program" in df.columns and len(names[0]):
                table, keys, ids = names
                # An event's (program, op) looked up among the named ops' sorted keys.
                key = (df["program"].to_numpy(np.uint64) << np.uint64(32)) | \
                    df["op"].to_numpy(np.uint64)
                at = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
                hit = keys[at] == key
                name[hit] = table[ids[at[hit]]]
            after = "program" if "program" in df.columns else "category"
            df.insert(df.columns.get_loc(after) + 1, "name", name)
        df.attrs = attrs
        return df

    def _op_names(self):
        """(names, sorted program << 32 | op keys, their name indices) of /trace/names and
        /trace/ops, or None when the file has not both."""
        if "/trace/names" not in self.tables or "/trace/ops" not in self.tables:
            return None
        names, _ = self._read("/trace/names")
        ops, _ = self._read("/trace/ops")
        with self._reading("/trace/ops"):
            table = np.array(np.char.decode(names["name"], "utf-8", errors="replace"),
                             dtype=object) if len(names) else np.array([], dtype=object)
            ids = ops["name"].astype(np.int64)
            if len(ids) and (ids.min() < 0 or ids.max() >= len(table)):
                raise SipsimError(f"{self.path}: /trace/ops names a row /trace/names does not "
                                  f"have (damaged)")
            keys = (ops["program"].astype(np.uint64) << np.uint64(32)) | ops["op"].astype(np.uint64)
            order = np.argsort(keys, kind="stable")
            return table, keys[order], ids[order]

    def replay_shapes(self) -> pd.DataFrame:
        """/replay_shapes (training under replay-shapes): one row per call that communicators
        of one shape share: op, algorithm, recorder, bytes, communicators, members, first_node,
        alone_s, together_max_s, together_mean_s. Every replayed instance of the call on a
        communicator takes its record's time x that communicator's together / alone."""
        arr, attrs = self._read("/replay_shapes")
        with self._reading("/replay_shapes"):
            df = _table(arr)
        df.attrs = attrs
        return df

    def faults(self) -> pd.DataFrame:
        """/faults (a scenario with a faults: section): one row per fault in the section's order:
        id, kind, target, at_s, until_s (inf: never repaired), happened (the run reached it),
        factor (gpu-slowdown's speed left, NaN otherwise), removed (in words), removed_bps (the
        capacity a fabric fault took, bit/s). A GPU failure's
        time and text are meta["failed_at_ps"] and meta["failure"] (docs/faults.md)."""
        arr, attrs = self._read("/faults")
        with self._reading("/faults"):
            df = _table(arr)
            df.loc[arr["until_ps"] == np.iinfo(np.uint64).max, "until_s"] = np.inf
            df["happened"] = df["happened"].astype(bool)
        df.attrs = attrs
        return df

    def memory(self) -> pd.DataFrame:
        """Each GPU's peak memory (transformer): gpu, weights_bytes, ..., total_bytes;
        `attrs["capacity_bytes"]` is the accelerator's memory."""
        data, attrs = self._read("/memory")
        with self._reading("/memory"):
            df = pd.DataFrame(data, columns=[c + "_bytes" for c in attrs["columns"].split(",")])
            df.insert(0, "gpu", np.arange(data.shape[0], dtype=np.uint32))
        df.attrs = attrs
        return df

    def gpu_energy(self) -> pd.DataFrame:
        """Each GPU's device energy per iteration (training): iteration, gpu, energy_j."""
        data, attrs = self._read("/gpu_energy")
        with self._reading("/gpu_energy"):
            iterations, gpus = data.shape
            df = pd.DataFrame({
                "iteration": np.repeat(np.arange(iterations, dtype=np.uint32), gpus),
                "gpu": np.tile(np.arange(gpus, dtype=np.uint32), iterations),
                "energy_j": data.reshape(-1),
            })
        df.attrs = attrs
        return df


_TABLES = ("/collectives", "/iterations", "/breakdown", "/memory", "/trace/events",
           "/trace/names", "/trace/ops", "/gpu_energy", "/replay_shapes", "/faults")


def open(path: "str | os.PathLike[str]") -> Run:  # noqa: A001 - the package's entry point
    """Opens a finished sipsim run file, or raises NotARunError saying why it is not one
    (RunFileNotFound, also a FileNotFoundError, when there is no file)."""
    p = os.fsdecode(os.fspath(path))
    checks.regular(p)  # before opening: a FIFO would block, a device could act
    if p.endswith(".partial"):
        checks.refuse(p, "its name ends in .partial: a run still writing it, or one that "
                         "crashed, left it (a run renames its file to its final name when it "
                         "finishes; docs/output.md)")
    f, size = checks.open_hdf5(p)
    with f:
        try:
            return _inspect(f, p, size)
        except SipsimError:
            raise
        except (*checks.H5_ERRORS, MemoryError) as e:
            checks.refuse(p, f"it cannot be read ({e})")


def _inspect(f: h5py.File, p: str, size: int) -> Run:
    """The Run of an open file, after checking it (sipsim.checks)."""
    root = checks.attrs(f, "/", p, size)
    fmt = root.get("format")
    if not isinstance(fmt, str) or fmt != "sipsim":  # an array would compare elementwise
        checks.refuse(p, "it has no / attribute format" if fmt is None
                      else f"its / attribute format is {fmt!r:.60}, not 'sipsim'")
    checks.typed(root, {"format_version": int}, "/", p)
    if root.get("format_version") != FORMAT_VERSION:
        checks.refuse(p, f"its format_version is {root.get('format_version')}, this reader reads "
                      f"{FORMAT_VERSION} (version 2 renamed /iterations' tflops_per_gpu to "
                      "hardware_tflops_per_gpu and added period_ps): run it again with this sipsim")
    checks.walk(f, p, size)  # every link hard, no virtual or external data, no inflated size
    meta_group = checks.member(f, "/meta", p)
    if not isinstance(meta_group, h5py.Group):
        checks.refuse(p, "it has no /meta (a run writes it when it finishes)")
    meta = checks.attrs(meta_group, "/meta", p, size)
    lacking = [k for k in _COMMITTED_META if k not in meta]
    if lacking:
        checks.refuse(p, f"/meta lacks {', '.join(lacking)} (a run writes them when it finishes)")
    checks.typed(meta, checks.META_TYPES, "/meta", p)
    fabric_group = checks.member(f, "/fabric", p)
    fabric = None
    if isinstance(fabric_group, h5py.Group):
        fabric = checks.attrs(fabric_group, "/fabric", p, size)
        checks.typed(fabric, checks.FABRIC_TYPES, "/fabric", p)
    tables = [t for t in _TABLES if checks.table(f, t, p, size) is not None]
    checks.plans(f, p, size)
    return Run(p, meta, fabric, root, tables)
