"""The ops' own names in a trace (docs/output.md, /trace/names and /trace/ops): a Chakra run
names each event after its trace node, at 1 and 2 ranks alike; `sipsim export --chrome-trace`
names the slices so; files without the tables read with empty names."""

import json
import subprocess

import h5py
import numpy as np
import pytest

import sipsim
from conftest import run_sipsim, sipsim_binary
from hostile import TRACE, minimal_run, s


# -- a Chakra trace, encoded by hand (src/workload/chakra/et.proto) -----------------------------

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(number, value):
    """A protobuf field: an int as a varint, bytes or str length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def node(id_, name, type_, deps=(), micros=0, attrs=()):
    msg = field(1, id_) + field(2, name) + field(3, type_)
    for d in deps:
        msg += field(5, d)  # data_deps
    if micros:
        msg += field(7, micros)
    for key, val in attrs:
        msg += field(10, field(1, key) + field(9, val))  # Attribute{name, int64_val}
    return msg


ALL_REDUCE = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"


def write_trace(path):
    """Two matmuls of one name, an all-reduce, and a metadata node (a join: no name)."""
    nodes = [node(9, "## metadata ##", 1),
             node(1, "aten::mm", 4, deps=[9], micros=3),
             node(2, "aten::mm", 4, deps=[1], micros=2),
             node(3, ALL_REDUCE, 7, deps=[2], attrs=[("comm_type", 0), ("comm_size", 4096)])]
    data = b"".join(varint(len(m)) + m for m in [field(1, "0.0.4")] + nodes)
    path.write_bytes(data)


@pytest.fixture(scope="module")
def chakra_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("chakra_names")
    for g in range(2):
        write_trace(d / f"t.{g}.et")
    (d / "names.yaml").write_text(
        "fabric: {type: elect-flat, nodes: 2, bandwidth: 100Gbps, latency: 1us}\n"
        "compute: {preset: a100}\n"
        "workload: {type: chakra, trace: t, iterations: 2}\n"
        "output: {trace: ops}\n")
    return [run_sipsim(d, str(d / "names.yaml"), f"n{r}.h5", ranks=r)[0] for r in (1, 2)]


def test_events_carry_their_trace_node_names(chakra_runs):
    run = sipsim.open(chakra_runs[0])
    assert {"/trace/events", "/trace/names", "/trace/ops"} <= set(run.tables)
    t = run.trace()
    assert list(t.columns[:8]) == ["node", "iteration", "op", "step", "kind", "category",
                                   "program", "name"]
    assert len(t) == 2 * 2 * 3  # GPUs x iterations x (2 matmuls + the all-reduce)
    assert set(t.loc[t.kind == "compute", "name"]) == {"aten::mm"}
    assert set(t.loc[t.kind == "collective", "name"]) == {ALL_REDUCE}
    with h5py.File(chakra_runs[0]) as f:
        names = [n.decode() for n in f["/trace/names"]["name"]]
        ops = f["/trace/ops"][:]
    assert names == ["aten::mm", ALL_REDUCE]  # each distinct name once
    assert len(ops) == 2 * 3 and set(ops["program"]) == {0, 1}  # one trace per GPU


def test_names_identical_at_two_ranks(chakra_runs):
    one, two = (sipsim.open(p) for p in chakra_runs)
    assert two.meta["ranks"] == 2
    a, b = one.trace(), two.trace()
    assert a.equals(b)
    with h5py.File(chakra_runs[0]) as f1, h5py.File(chakra_runs[1]) as f2:
        for name in ("/trace/names", "/trace/ops"):
            assert f1[name].dtype == f2[name].dtype
            np.testing.assert_array_equal(f1[name][()], f2[name][()])


def test_export_names_slices_by_the_op_names(chakra_runs, tmp_path):
    out = tmp_path / "names.json"
    done = subprocess.run([str(sipsim_binary()), "export", "--chrome-trace", str(chakra_runs[0]),
                           "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    slices = [e for e in json.loads(out.read_text())["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in slices} == {"aten::mm", ALL_REDUCE}
    assert {e["cat"] for e in slices} == {"compute", "collective"}


def test_a_file_without_names_reads_with_empty_names(tmp_path):
    run = sipsim.open(minimal_run(tmp_path / "old.h5"))
    assert not run.has("/trace/names") and not run.has("/trace/ops")
    t = run.trace()
    assert "program" not in t.columns and list(t["name"]) == [""] * len(t)


def test_names_of_a_crafted_table_are_checked(tmp_path):
    path = minimal_run(tmp_path / "crafted.h5")
    with h5py.File(path, "a") as f:
        ev = f["/trace/events"][()]
        with_program = np.zeros(len(ev), np.dtype(TRACE.descr + [("program", "<u4")]))
        for c in TRACE.names:
            with_program[c] = ev[c]
        del f["/trace/events"]
        f["/trace/events"] = with_program
        f["/trace/events"].attrs["level"] = s("ops")
        f["/trace/names"] = np.array([(s("aten::mm"),)], dtype=[("name", "S8")])
        ops = np.zeros(1, dtype=[("program", "<u4"), ("op", "<u4"), ("name", "<u4")])
        f["/trace/ops"] = ops
    assert set(sipsim.open(path).trace()["name"]) == {"aten::mm"}  # every row is program 0, op 0
    with h5py.File(path, "a") as f:
        f["/trace/ops"][0] = (0, 0, 5)
    with pytest.raises(sipsim.SipsimError, match="/trace/ops names a row"):
        sipsim.open(path).trace()
