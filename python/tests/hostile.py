"""A minimal run file built by hand (docs/output.md), for tests that damage one thing in it."""

import numpy as np
import h5py

COLLECTIVES = np.dtype([
    ("id", "<u8"), ("op", "S16"), ("algorithm", "S24"), ("group_size", "<u4"), ("bytes", "<u8"),
    ("iteration", "<u4"), ("warmup", "u1"), ("start_ps", "<u8"), ("end_ps", "<u8"),
    ("h2h_ps", "<u8"), ("h2t_ps", "<u8"), ("compute_ps", "<u8"), ("algbw_GBps", "<f8"),
    ("busbw_GBps", "<f8")])
ITERATIONS = np.dtype([
    ("iteration", "<u4"), ("start_ps", "<u8"), ("end_ps", "<u8"), ("period_ps", "<u8"),
    ("hardware_tflops_per_gpu", "<f8"), ("model_tflops_per_gpu", "<f8"), ("energy_j", "<f8"), ("device_energy_j", "<f8"),
    ("fabric_energy_j", "<f8")])
TRACE = np.dtype([
    ("node", "<u4"), ("iteration", "<u4"), ("op", "<u4"), ("step", "<i4"), ("kind", "S12"),
    ("category", "S16"), ("start_ps", "<u8"), ("end_ps", "<u8")])
CATEGORIES = "forward,backward,idle"
MEMORY = "weights,gradients,optimizer,activations,logits,total"


def s(text):
    """A fixed-length string, as sipsim writes them (parallel HDF5 has no variable-length ones)."""
    return np.bytes_(text.encode() if isinstance(text, str) else text)


def collectives(n=2):
    rows = np.zeros(n, COLLECTIVES)
    rows["id"] = np.arange(n)
    rows["op"], rows["algorithm"], rows["group_size"] = b"all-reduce", b"ring", 8
    rows["bytes"] = 1 << 20
    rows["start_ps"] = np.arange(n) * 1000
    rows["end_ps"] = rows["start_ps"] + 500
    rows["busbw_GBps"] = 10.0
    return rows


def minimal_run(path, trace=True):
    """Writes a run file every table of which opens and reads; returns its path."""
    with h5py.File(path, "w") as f:
        f.attrs["format"] = s("sipsim")
        f.attrs["format_version"] = np.uint64(2)
        m = f.create_group("meta")
        m.attrs["run_id"] = s("0123456789abcdef")
        m.attrs["end_time_ps"] = np.uint64(10**9)
        m.attrs["committed_events"] = np.uint64(100)
        m.attrs["scenario_name"] = s("tiny")
        m.attrs["ranks"] = np.uint64(1)
        fabric = f.create_group("fabric")
        fabric.attrs["type"] = s("elect-flat")
        fabric.attrs["description"] = s("elect-flat: 8 nodes")
        f["lp/events"] = np.ones(4, np.uint64)
        f["collectives"] = collectives()
        it = np.zeros(1, ITERATIONS)
        it["end_ps"] = it["period_ps"] = 2000
        f["iterations"] = it
        f["breakdown"] = np.full((1, 2, 3), 500.0)
        f["breakdown"].attrs["categories"] = s(CATEGORIES)
        f["memory"] = np.ones((2, 6))
        f["memory"].attrs["columns"] = s(MEMORY)
        f["gpu_energy"] = np.ones((1, 2))
        if trace:
            ev = np.zeros(3, TRACE)
            ev["kind"], ev["category"], ev["end_ps"] = b"compute", b"forward", 7
            f["trace/events"] = ev
            f["trace/events"].attrs["level"] = s("ops")
    return path
