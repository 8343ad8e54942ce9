"""sipsim.open on a collectives run, checked against the raw HDF5 and what the binary printed."""

import json
import subprocess

import h5py
import numpy as np
import pytest

import sipsim


def printed_table(stdout):
    """The nccl-tests table the binary printed: {bytes: (time_us, algbw, busbw, h2h_us, h2t_us, comp_us)}."""
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[0].isdigit():
            rows[int(parts[0])] = tuple(float(x) for x in parts[2:])
    assert rows, f"no table in:\n{stdout}"
    return rows


def test_meta_and_fabric(collectives_run):
    path, _ = collectives_run
    run = sipsim.open(path)
    assert run.meta["scenario_name"] == "elect-flat"
    assert run.meta["ranks"] == 1 and isinstance(run.meta["ranks"], int)
    assert run.meta["overrides"].splitlines() == ["fabric.nodes=8", "workload.sizes.max=1MiB"]
    assert len(run.meta["run_id"]) == 16 and int(run.meta["run_id"], 16) >= 0
    assert run.format_version == 2
    assert run.fabric["type"] == "elect-flat"
    assert run.fabric["description"].startswith("elect-flat: 8 nodes at 2.4Tbps")
    with h5py.File(path) as f:
        assert run.fabric["messages"] == int(f["/fabric"].attrs["messages"])
        assert run.meta["end_time_ps"] == int(f["/meta"].attrs["end_time_ps"])
    assert run.end_time_s == run.meta["end_time_ps"] / 1e12
    assert run.has("collectives") and not run.has("iterations") and not run.has("trace")


def test_collectives_match_raw_file(collectives_run):
    path, _ = collectives_run
    df = sipsim.open(path).collectives()
    with h5py.File(path) as f:
        raw = f["/collectives"][:]
    assert len(df) == len(raw) == 12  # 3 sizes x (1 warm-up + 3 iterations)
    assert list(df.columns) == ["id", "op", "algorithm", "group_size", "bytes", "iteration", "warmup",
                                "start_s", "end_s", "time_s", "h2h_s", "h2t_s", "compute_s",
                                "algbw_GBps", "busbw_GBps"]
    assert (df["op"] == "all-reduce").all() and (df["algorithm"] == "ring").all()
    assert (df["group_size"] == 8).all()
    np.testing.assert_array_equal(df["bytes"], raw["bytes"])
    np.testing.assert_array_equal(df["warmup"], raw["warmup"].astype(bool))
    for col in ("start", "end", "h2h", "h2t", "compute"):
        np.testing.assert_array_equal(df[col + "_s"], raw[col + "_ps"] / 1e12)
    np.testing.assert_array_equal(df["time_s"], (raw["end_ps"] - raw["start_ps"]) / 1e12)
    # The file's own names: GB/s (10^9 bytes/s) spelt GBps, as the DataFrame's.
    np.testing.assert_array_equal(df["algbw_GBps"], raw["algbw_GBps"])
    np.testing.assert_array_equal(df["busbw_GBps"], raw["busbw_GBps"])
    # nccl-tests' definitions: algbw = bytes / time; busbw = algbw x 2(p-1)/p for all-reduce.
    np.testing.assert_allclose(df["algbw_GBps"], df["bytes"] / df["time_s"] / 1e9, rtol=1e-9)
    np.testing.assert_allclose(df["busbw_GBps"], df["algbw_GBps"] * 2 * 7 / 8, rtol=1e-12)
    assert df.attrs["time_units"] == "ps"


def _with_former_rate_names(path, out):
    """A copy of run file `path` whose /collectives has the rate columns' earlier names
    (algbw_gbps, busbw_gbps: GB/s all along, only the name changed)."""
    with h5py.File(path) as f, h5py.File(out, "w") as g:
        for name in f:
            if name != "collectives":
                f.copy(name, g)
        for k, v in f.attrs.items():
            g.attrs[k] = v
        raw = f["/collectives"][:]
        former = {"algbw_GBps": "algbw_gbps", "busbw_GBps": "busbw_gbps"}
        old = np.empty(len(raw), np.dtype([(former.get(n, n), raw.dtype.fields[n][0])
                                           for n in raw.dtype.names]))
        for n in raw.dtype.names:
            old[former.get(n, n)] = raw[n]
        g["collectives"] = old
        for k, v in f["/collectives"].attrs.items():
            g["collectives"].attrs[k] = v
    return out


def test_reads_files_with_the_former_rate_names(collectives_run, tmp_path):
    from conftest import sipsim_binary
    path, _ = collectives_run
    old = _with_former_rate_names(path, tmp_path / "old.h5")
    new = sipsim.open(path).collectives()
    df = sipsim.open(old).collectives()
    assert list(df.columns) == list(new.columns)
    np.testing.assert_array_equal(df["busbw_GBps"], new["busbw_GBps"])
    # The binary's reader too: export writes today's names, with the old file's values.
    subprocess.run([str(sipsim_binary()), "export", "--chrome-trace", str(old), "-o",
                    str(tmp_path / "old.json")], check=True, capture_output=True)
    slices = [e for e in json.load(open(tmp_path / "old.json"))["traceEvents"] if e["ph"] == "X"]
    assert len(slices) == len(new)
    assert sorted(e["args"]["busbw_GBps"] for e in slices) == sorted(new["busbw_GBps"])
    assert not any("busbw_gbps" in e["args"] for e in slices)


def test_collectives_match_printed_table(collectives_run):
    path, stdout = collectives_run
    df = sipsim.open(path).collectives()
    table = printed_table(stdout)
    measured = df[~df["warmup"]].groupby("bytes").mean(numeric_only=True)
    assert sorted(table) == sorted(measured.index) == [65536, 262144, 1048576]
    for size, (time_us, algbw, busbw, h2h_us, h2t_us, comp_us) in table.items():
        row = measured.loc[size]
        assert row["time_s"] * 1e6 == pytest.approx(time_us, abs=0.0005)
        assert row["algbw_GBps"] == pytest.approx(algbw, abs=0.005)
        assert row["busbw_GBps"] == pytest.approx(busbw, abs=0.005)
        assert row["h2h_s"] * 1e6 == pytest.approx(h2h_us, abs=0.0005)
        assert row["h2t_s"] * 1e6 == pytest.approx(h2t_us, abs=0.0005)
        assert row["compute_s"] * 1e6 == pytest.approx(comp_us, abs=0.0005)


@pytest.mark.parametrize("table, why", [
    ("iterations", "not a training run"),
    ("breakdown", "not a training run"),
    ("gpu_energy", "not a training run"),
    ("memory", "only transformer runs"),
    ("trace", "the run had no trace"),
])
def test_missing_tables_say_why(collectives_run, table, why):
    path, _ = collectives_run
    run = sipsim.open(path)
    with pytest.raises(sipsim.MissingDataError) as e:
        getattr(run, table)()
    assert str(e.value).startswith(f"{path} has no /")
    assert why in str(e.value)


def test_same_tables_at_2_ranks(collectives_run, collectives_run_2_ranks):
    one, two = sipsim.open(collectives_run[0]), sipsim.open(collectives_run_2_ranks[0])
    assert (one.meta["ranks"], two.meta["ranks"]) == (1, 2)
    assert one.meta["end_time_ps"] == two.meta["end_time_ps"]
    assert one.collectives().equals(two.collectives())  # bit-identical at any rank count
    assert one.fabric == two.fabric


def test_phold_run_has_no_fabric(tmp_path):
    from conftest import run_sipsim
    path, _ = run_sipsim(tmp_path, "phold-4k.yaml", "phold.h5", "workload.lps=64",
                         "simulation.end_time=10us")
    run = sipsim.open(path)
    assert run.tables == [] and not run.has("fabric")
    assert run.meta["committed_events"] > 0
    with pytest.raises(sipsim.MissingDataError, match="has no /fabric: the workload ran on no fabric"):
        run.fabric
    with pytest.raises(sipsim.MissingDataError, match="not a collectives run"):
        run.collectives()


def test_partition_is_recorded(collectives_run, collectives_run_2_ranks, tmp_path):
    """/meta/partition holds the rank that ran each LP: all 0 on one rank, on two the owners
    `sipsim info --ranks 2 --owners` gives for the same scenario."""
    from conftest import ROOT, sipsim_binary

    with h5py.File(collectives_run[0], "r") as f:
        one = f["/meta/partition"][...]
        lps = len(f["/lp/events"])
    with h5py.File(collectives_run_2_ranks[0], "r") as f:
        two = f["/meta/partition"][...]
    assert len(one) == len(two) == lps
    assert (one == 0).all()
    owners = tmp_path / "owners.txt"
    subprocess.run([str(sipsim_binary()), "info", str(ROOT / "scenarios" / "nccl" / "elect-flat.yaml"),
                    "--ranks", "2", "--owners", str(owners), "--set", "fabric.nodes=8",
                    "--set", "workload.sizes.max=1MiB"], check=True, capture_output=True)
    assert two.tolist() == [int(x) for x in owners.read_text().split()]
    assert set(two.tolist()) == {0, 1}


def test_auto_chooses_among_the_listed_algorithms(tmp_path):
    """`auto_among` limits `auto` to the algorithms it lists (docs/scenarios.md): on SiPAC's 64
    units the concurrent direct exchange wins the all-to-all, the pairwise exchange when only it
    and the ring may be chosen."""
    from conftest import run_sipsim
    chosen = {}
    for name, among in (("all", None), ("pairwise", "[ring, direct]")):
        sets = ["workload.op=all-to-all", "workload.size=64MiB"]
        if among:
            sets.append(f"workload.auto_among={among}")
        path, _ = run_sipsim(tmp_path, "sipac/sipac-64.yaml", f"{name}.h5", *sets)
        chosen[name] = set(sipsim.open(path).collectives()["algorithm"])
    assert chosen == {"all": {"direct-concurrent"}, "pairwise": {"direct"}}


def test_reconfigured_topoopt_gives_a_ring_the_whole_node(tmp_path):
    """TopoOpt reconfigured per period (RAMP §7.5's comparison): a strided ring's pairs get all
    of a GPU's circuits, so it runs as on an ideal switch at degree x link rate, to the
    picosecond; on the fixed rings it relays and is 4.8x slower."""
    from conftest import run_sipsim
    topo = "{type: topoopt, nodes: 64, degree: 4, link_bandwidth: 400Gbps, latency: 260ns"
    fabrics = {"reconfigured": topo + ", reconfiguration: {period: 10us}}",
               "fixed": topo + "}",
               "flat": "{type: elect-flat, nodes: 64, bandwidth: 1600Gbps, latency: 260ns}"}
    times = {}
    for name, fabric in fabrics.items():
        path, _ = run_sipsim(tmp_path, "bench-ring-allreduce-flat-512.yaml", f"{name}.h5",
                             f"fabric={fabric}", "workload.size=64MiB", "workload.iterations=1",
                             "workload.warmup=0", "workload.group={first: 0, count: 8, stride: 8}")
        with h5py.File(path) as f:
            rec = f["/collectives"][:]
        times[name] = int(rec["end_ps"][0] - rec["start_ps"][0])
    assert times["reconfigured"] == times["flat"]
    assert times["fixed"] > 4 * times["flat"]
