"""What sipsim.open checks before it reads a run file (docs/python.md, "What the package refuses").

A run file may come from anywhere (a cluster, a colleague, a download), so nothing in it is
used before it is checked: every link must be a hard link inside the file (an external link
can name a FIFO that blocks the reader, or another file whose data would be reported as this
one's), no dataset may be virtual or keep its data in external files, none may declare more
data than the file can hold (h5py would allocate it), and every table the package reads must
have the shape, columns and types docs/output.md gives. Each violation is a NotARunError
naming the file and the reason.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, Optional, Tuple

import h5py
import numpy as np
from h5py import h5d, h5g, h5l, h5o, h5s

from . import files
from .errors import NotARunError, RunFileNotFound, SipsimError

# A run file has a few dozen objects; walking many more is slow and means it is not one.
MAX_LINKS = 10_000
# deflate's best ratio: a dataset compressed with it (h5repack -f GZIP) holds at most this
# many times its stored size.
MAX_COMPRESSION = 1032

# What h5py, numpy and HDF5 raise on a damaged or crafted file.
H5_ERRORS = (OSError, KeyError, RuntimeError, ValueError, TypeError, IndexError,
             OverflowError, AttributeError)

# The run file's schema (docs/output.md), machine-readable in schema.json: the C++
# tests check what sipsim writes against the same file.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json"),
          encoding="utf-8") as _f:
    SCHEMA = json.load(_f)
_KINDS: Dict[str, str] = SCHEMA["kinds"]
# The columns of the compound tables and the kind each must have. Columns not listed are
# allowed (later versions add some) if they are scalars of these kinds.
COLUMNS: Dict[str, Dict[str, str]] = {t: v["columns"] for t, v in SCHEMA["tables"].items()}
# The columns the readers (Run's methods, sipsim.plot) use: a table without one is refused.
REQUIRED = {t: tuple(v["required"]) for t, v in SCHEMA["tables"].items()}
# Columns' names in files of earlier versions -> their names now (the rates were `*_gbps`
# although in GB/s); a column under its former name is checked and read as the current one.
FORMER_NAMES: Dict[str, Dict[str, str]] = {t: v.get("former_names", {})
                                           for t, v in SCHEMA["tables"].items()}
# Float arrays: (dimensions, the attribute naming the last dimension's columns).
ARRAYS = {a: (v["dimensions"], v["labels"]) for a, v in SCHEMA["arrays"].items()}
# /fabric/plans (docs/models.md, "Circuit fabrics"): equal-length integer columns.
PLANS = tuple(SCHEMA["plans"])
# /lp: one integer per LP; events is required, digest read when present.
LP = tuple(SCHEMA["lp"])

# Attributes the package uses, and their types once decoded.
_TYPES = {"string": str, "integer": int}
META_TYPES = {k: _TYPES[v] for k, v in SCHEMA["meta"].items()}
FABRIC_TYPES = {k: _TYPES[v] for k, v in SCHEMA["fabric"].items()}


def refuse(path: str, reason: str):
    raise NotARunError(f"{path} is not a finished sipsim run file: {reason}")


def text(name: Any) -> str:
    """An HDF5 name or string as str, whatever its bytes."""
    if isinstance(name, (bytes, np.bytes_)):
        return bytes(name).decode("utf-8", errors="replace")
    try:  # h5py keeps undecodable bytes as lone surrogates: str, but not printable as UTF-8
        return name.encode("utf-8", "surrogateescape").decode("utf-8", errors="replace")
    except UnicodeError:
        return name.encode("utf-8", errors="replace").decode("utf-8")


def decode(value: Any) -> Any:
    """HDF5 attribute -> Python: strings to str (bad UTF-8 replaced), scalars to int/float."""
    if isinstance(value, (bytes, np.bytes_, str)):
        return text(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "S":
            return np.char.decode(value, "utf-8", errors="replace")
        if value.dtype.kind == "O":  # variable-length strings
            out = np.empty(value.shape, dtype=object)
            for i, v in enumerate(value.flat):
                out.flat[i] = decode(v)
            return out
        return value
    if isinstance(value, np.generic):
        return value.item()
    return value


# -- the file --------------------------------------------------------------------------------

def regular(path: str) -> None:
    """Refuses a missing path (RunFileNotFound) and what is not a regular file, unopened."""
    try:
        what = files.irregular(path)
    except (FileNotFoundError, NotADirectoryError) as e:
        raise RunFileNotFound(f"{path}: no such run file") from e
    except OSError as e:
        raise SipsimError(f"{path}: cannot read it: {e.strerror or e}") from e
    if what is not None:
        refuse(path, f"it is {what}, not a regular file")


def open_hdf5(path: str) -> Tuple[h5py.File, int]:
    """(the open file, its size in bytes) of the regular file `path`."""
    try:
        fd = files.open_regular(path)
    except files.NotRegular as e:
        refuse(path, f"it is {e}, not a regular file")
    except (FileNotFoundError, NotADirectoryError) as e:
        raise RunFileNotFound(f"{path}: no such run file") from e
    except OSError as e:
        raise SipsimError(f"{path}: cannot read it: {e.strerror or e}") from e
    try:
        size = os.fstat(fd).st_size
        # HDF5 opens the file our descriptor holds, not whatever the path names by then.
        proc = f"/proc/self/fd/{fd}"
        try:
            f = h5py.File(proc if os.path.exists(proc) else path, "r")
        except H5_ERRORS as e:
            refuse(path, f"not an HDF5 file ({e})")
    finally:
        os.close(fd)
    return f, size


def _declared(space, dtype) -> int:
    """Bytes a dataset or attribute declares: its shape's product x its item size, in Python
    ints (no overflow)."""
    shape = space.get_simple_extent_type()
    if shape == h5s.NULL:
        return 0
    n = 1 if shape == h5s.SCALAR else math.prod(int(d) for d in space.get_simple_extent_dims())
    return n * int(dtype.get_size())


def declared_bytes(ds: h5py.Dataset) -> int:
    return _declared(ds.id.get_space(), ds.id.get_type())


def _dataset(did, name: str, path: str, size: int) -> None:
    """Refuses a virtual dataset, one stored in external files, and one that declares more
    than the file can hold (e.g. 2^40 rows of unwritten chunks: a fill value)."""
    dcpl = did.get_create_plist()
    if dcpl.get_layout() == h5d.VIRTUAL:
        refuse(path, f"{name} is a virtual dataset (its data would come from other files; "
                     f"sipsim writes none)")
    if dcpl.get_external_count() > 0:
        refuse(path, f"{name} keeps its data in external files (sipsim writes none)")
    declared = _declared(did.get_space(), did.get_type())
    limit = size * (MAX_COMPRESSION if dcpl.get_nfilters() > 0 else 1)
    if declared > limit:
        refuse(path, f"{name} declares {declared:,} bytes of data, more than the "
                     f"{size:,}-byte file can hold")


def _link_kind(gid, raw: bytes, kind: int) -> str:
    try:
        if kind == h5l.TYPE_SOFT:
            return f"a soft link to {text(gid.links.get_val(raw))}"
        if kind == h5l.TYPE_EXTERNAL:
            target, obj = gid.links.get_val(raw)
            return f"an external link to {text(target)}:{text(obj)}"
    except H5_ERRORS:
        pass
    return {h5l.TYPE_SOFT: "a soft link", h5l.TYPE_EXTERNAL: "an external link"}.get(
        kind, f"a user-defined link (type {kind})")


def walk(f: h5py.File, path: str, size: int) -> None:
    """Checks every link and dataset of the file without following any link but hard ones."""
    try:
        seen = {h5o.get_info(f.id).addr}
        todo = [("", f.id)]
        count = 0
        while todo:
            where, gid = todo.pop()
            entries: List[Tuple[bytes, int]] = []

            def note(raw, info, entries=entries):
                entries.append((raw, info.type))
                return True if count + len(entries) > MAX_LINKS else None  # True stops

            gid.links.iterate(note, info=True)
            count += len(entries)
            if count > MAX_LINKS:
                refuse(path, f"it has more than {MAX_LINKS:,} links (a run file has a few dozen)")
            for raw, kind in entries:
                name = f"{where}/{text(raw)}"
                if kind != h5l.TYPE_HARD:
                    refuse(path, f"{name} is {_link_kind(gid, raw, kind)} (sipsim writes only "
                                 f"hard links: following it could read another file, or block "
                                 f"on a FIFO)")
                info = h5o.get_info(gid, raw)
                if info.addr in seen:  # another name of an object already checked (or a cycle)
                    continue
                seen.add(info.addr)
                if info.type == h5o.TYPE_GROUP:
                    todo.append((name, h5g.open(gid, raw)))
                elif info.type == h5o.TYPE_DATASET:
                    _dataset(h5d.open(gid, raw), name, path, size)
    except SipsimError:
        raise
    except H5_ERRORS as e:
        refuse(path, f"its structure cannot be read ({e})")


def member(f: h5py.File, name: str, path: str) -> Optional[Any]:
    """The object at `name` ("/trace/events") reached through hard links only, or None."""
    gid = f.id
    parts = [p for p in name.split("/") if p]
    for i, part in enumerate(parts):
        raw = part.encode()
        if not gid.links.exists(raw):
            return None
        kind = gid.links.get_info(raw).type
        if kind != h5l.TYPE_HARD:
            refuse(path, f"/{'/'.join(parts[:i + 1])} is {_link_kind(gid, raw, kind)} (sipsim "
                         f"writes only hard links)")
        if i < len(parts) - 1:
            if h5o.get_info(gid, raw).type != h5o.TYPE_GROUP:
                return None
            gid = h5g.open(gid, raw)
    return f[name]


# -- attributes ------------------------------------------------------------------------------

def attrs(obj: Any, where: str, path: str, size: int) -> Dict[str, Any]:
    """The decoded attributes of a group or dataset; an attribute that declares more than the
    file holds, or that h5py cannot read, is refused."""
    out: Dict[str, Any] = {}
    try:
        names = list(obj.attrs.keys())
    except H5_ERRORS as e:
        refuse(path, f"the attributes of {where} cannot be read ({e})")
    for key in names:
        try:
            aid = obj.attrs.get_id(key)
            if _declared(aid.get_space(), aid.get_type()) > size:
                refuse(path, f"{where} attribute {text(key)} declares more data than the file "
                             f"holds")
            value = obj.attrs[key]
        except SipsimError:
            raise
        except (*H5_ERRORS, MemoryError) as e:
            refuse(path, f"{where} attribute {text(key)} cannot be read ({e})")
        out[text(key)] = decode(value)
    return out


def typed(values: Dict[str, Any], types: Dict[str, type], where: str, path: str) -> None:
    """Refuses an attribute the package uses whose type is not the schema's."""
    for key, want in types.items():
        if key not in values:
            continue
        v = values[key]
        if not isinstance(v, want) or isinstance(v, bool):
            shown = repr(v) if len(repr(v)) <= 60 else repr(v)[:57] + "..."
            refuse(path, f"{where} attribute {key} is {shown}, not "
                         f"{'a string' if want is str else 'an integer'} (docs/output.md)")


def labels(values: Dict[str, Any], key: str, count: int, name: str, path: str) -> List[str]:
    """The comma-separated column names in attribute `key`, which must name `count` distinct,
    non-empty columns."""
    v = values.get(key)
    if not isinstance(v, str):
        refuse(path, f"{name} has no {key} attribute naming its columns" if v is None
               else f"{name} attribute {key} is not a string")
    names = v.split(",")
    if len(names) != count or "" in names or len(set(names)) != len(names):
        refuse(path, f"{name} has {count} columns but its {key} attribute names "
                     f"{len(names)} ({v[:80]!r}{'...' if len(v) > 80 else ''}); it must name "
                     f"each once")
    return names


# -- tables ----------------------------------------------------------------------------------

def _columns(name: str, dtype: np.dtype, shape, path: str) -> None:
    if shape is None or len(shape) != 1 or dtype.names is None:
        refuse(path, f"{name} is {dtype} of shape {shape}, not a table (a 1-D compound "
                     f"dataset, docs/output.md)")
    known = COLUMNS[name]
    former = FORMER_NAMES[name]
    for field in dtype.names:
        ft = dtype.fields[field][0]
        want = (known.get(former.get(field, field))
                or ("integer" if field.endswith("_ps") else None))
        if ft.shape != () or ft.kind not in "biufS":
            refuse(path, f"{name} column {text(field)} is {ft}, not a number or a fixed-length "
                         f"string")
        if want is not None and ft.kind not in _KINDS[want]:
            refuse(path, f"{name} column {text(field)} is {ft}, not {want} (docs/output.md)")
    present = {former.get(c, c) for c in dtype.names}
    missing = [c for c in REQUIRED[name] if c not in present]
    if missing:
        refuse(path, f"{name} lacks the column{'s' if len(missing) > 1 else ''} "
                     f"{', '.join(missing)} (docs/output.md)")


def table(f: h5py.File, name: str, path: str, size: int) -> Optional[h5py.Dataset]:
    """The dataset `name` after checking it against docs/output.md, or None without it."""
    try:
        ds = member(f, name, path)
        if ds is None:
            return None
        if not isinstance(ds, h5py.Dataset):
            refuse(path, f"{name} is a group, not a table")
        _dataset(ds.id, name, path, size)
        try:
            dtype, shape = ds.dtype, ds.shape
        except H5_ERRORS as e:
            refuse(path, f"{name} has a data type h5py cannot read ({e})")
        if name in COLUMNS:
            _columns(name, dtype, shape, path)
        elif name in ARRAYS:
            ndim, key = ARRAYS[name]
            if shape is None or len(shape) != ndim or dtype.kind != "f":
                refuse(path, f"{name} is {dtype} of shape {shape}, not a {ndim}-D float array "
                             f"(docs/output.md)")
            if key is not None:
                labels(attrs(ds, name, path, size), key, shape[-1], name, path)
        return ds
    except SipsimError:
        raise
    except H5_ERRORS as e:
        refuse(path, f"{name} cannot be read ({e})")


def plans(f: h5py.File, path: str, size: int) -> Optional[List[h5py.Dataset]]:
    """/fabric/plans's columns PLANS (1-D integers of one length), [] when the group is empty
    (no plan row), or None without it."""
    try:
        group = member(f, "/fabric/plans", path)
        if group is None:
            return None
        if not isinstance(group, h5py.Group):
            refuse(path, "/fabric/plans is not a group")
        if len(group) == 0:
            return []  # a plan log with no row: sipsim leaves the group empty (docs/output.md)
        out = []
        for col in PLANS:
            name = f"/fabric/plans/{col}"
            ds = member(f, name, path)
            if not isinstance(ds, h5py.Dataset):
                refuse(path, f"/fabric/plans lacks the dataset {col} (docs/models.md)")
            _dataset(ds.id, name, path, size)
            if ds.shape is None or len(ds.shape) != 1 or ds.dtype.kind not in "iu":
                refuse(path, f"{name} is {ds.dtype} of shape {ds.shape}, not a 1-D integer column")
            out.append(ds)
        if len({ds.shape[0] for ds in out}) != 1:
            refuse(path, f"the columns of /fabric/plans differ in length "
                         f"({', '.join(str(ds.shape[0]) for ds in out)})")
        return out
    except SipsimError:
        raise
    except H5_ERRORS as e:
        refuse(path, f"/fabric/plans cannot be read ({e})")


def lp(f: h5py.File, path: str, size: int) -> Optional[Dict[str, h5py.Dataset]]:
    """/lp's datasets LP that the file has (1-D integers of one length), or None without
    /lp/events."""
    try:
        out: Dict[str, h5py.Dataset] = {}
        for col in LP:
            name = f"/lp/{col}"
            ds = member(f, name, path)
            if ds is None:
                if col == "events":
                    return None
                continue
            if not isinstance(ds, h5py.Dataset):
                refuse(path, f"{name} is a group, not a dataset")
            _dataset(ds.id, name, path, size)
            if ds.shape is None or len(ds.shape) != 1 or ds.dtype.kind not in "iu":
                refuse(path, f"{name} is {ds.dtype} of shape {ds.shape}, not one integer per LP "
                             f"(docs/output.md)")
            out[col] = ds
        if len({ds.shape[0] for ds in out.values()}) != 1:
            refuse(path, f"/lp/events and /lp/digest differ in length "
                         f"({', '.join(str(ds.shape[0]) for ds in out.values())})")
        return out
    except SipsimError:
        raise
    except H5_ERRORS as e:
        refuse(path, f"/lp cannot be read ({e})")


def within(ds: h5py.Dataset, name: str, path: str, cap: int) -> None:
    """Refuses to read a dataset of more than `cap` bytes (sipsim.run.MAX_TABLE_BYTES)."""
    declared = declared_bytes(ds)
    if declared > cap:
        raise SipsimError(f"{path}: {name} holds {declared:,} bytes, more than sipsim reads "
                          f"({cap:,}: sipsim.run.MAX_TABLE_BYTES; raise it to read this)")
