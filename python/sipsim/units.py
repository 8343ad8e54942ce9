"""Numbers with units in study tables and plots: "400Gbps" on a Gb/s axis, "1MiB" in bytes,
times in a readable unit (sipsim.plot)."""

from __future__ import annotations

import re
from typing import Optional

import numpy as np
import pandas as pd

from .errors import SipsimError

SIZE_UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 10**3,
              "MB": 10**6, "GB": 10**9}


def time_unit(seconds: float):
    """(unit, seconds per unit) that shows `seconds` as a number of at least 1."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return unit, scale
    return "ns", 1e-9


# The units of the numbers a study's columns may hold ("400Gbps", "1.6Tbps", "100ns", "1MiB"):
# a family is shown in one unit (rates in Gb/s, sizes in bytes, times in a readable unit).
RATE_UNITS = {"bps": 1e-9, "Kbps": 1e-6, "Mbps": 1e-3, "Gbps": 1.0, "Tbps": 1e3}
TIME_UNITS = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-zµ]*)\s*")


def numbers(values: pd.Series, flag: str, col: str):
    """(values as floats, their unit or None): numbers, or numbers with one unit family."""
    if pd.api.types.is_numeric_dtype(values):
        return values.astype(float), None
    parsed, units = {}, set()
    for i, v in values.items():
        if pd.isna(v) or str(v).strip() == "":
            continue
        m = NUMBER.fullmatch(str(v))
        if not m:
            raise SipsimError(f"{flag} {col}: {v!r} is not a number (or one with a unit, such "
                              f"as 400Gbps, 100ns or 1MiB)")
        parsed[i] = (float(m.group(1)), m.group(2))
        units.add(m.group(2))
    out = pd.Series(np.nan, index=values.index, dtype=float)
    unit = None
    for family, name in ((RATE_UNITS, "Gb/s"), (TIME_UNITS, "s"), (SIZE_UNITS, "bytes")):
        if units and units <= set(family):
            for i, (n, u) in parsed.items():
                out[i] = n * family[u]
            unit = name
            break
    else:
        if len(units) > 1:
            raise SipsimError(f"{flag} {col}: its values mix the units {', '.join(sorted(units))}")
        for i, (n, _) in parsed.items():
            out[i] = n
        unit = (next(iter(units)) or None) if units else None
    if unit == "s":  # a time axis in a readable unit
        name, scale = time_unit(float(out.abs().max()) if out.notna().any() else 1.0)
        out, unit = out / scale, name
    return out, unit


NAME_UNITS = {"gbps": "Gb/s", "tbps": "Tb/s", "mbps": "Mb/s", "GBps": "GB/s",
              "bytes": "bytes", "s": "s", "ms": "ms", "us": "µs", "ns": "ns"}


def unit_in_name(col: str) -> Optional[str]:
    """The unit a number column's name says (label.gbps_per_gpu: Gb/s, iteration_s: s)."""
    for part in re.split(r"[._\-]", col)[1:] if "." in col or "_" in col else []:
        if part in NAME_UNITS:
            return NAME_UNITS[part]
    return None


def natural_key(text: str):
    """Sorts "mp=16" after "mp=2": numbers by value."""
    return [(0, float(p), "") if re.fullmatch(r"[-+]?\d+(\.\d+)?", p) else (1, 0.0, p)
            for p in re.split(r"([-+]?\d+(?:\.\d+)?)", text) if p]
