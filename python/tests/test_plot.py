"""python -m sipsim.plot: each kind draws what its input holds (line ydata, bar heights, image
cells checked against the tables), and writes a non-empty PNG and SVG."""

import h5py
import numpy as np
import pandas as pd
import pytest

from conftest import run_sipsim

import sipsim
from sipsim import plot


@pytest.fixture(scope="session")
def cluster_run(tmp_path_factory):
    """The same all-reduce sizes as collectives_run on an 8-node SuperPod cluster: ~0.1 s."""
    return run_sipsim(tmp_path_factory.mktemp("cluster"), "nccl/cluster-superpod.yaml", "cl.h5",
                      "fabric.nodes=8", "workload.op=all-reduce", "workload.algorithm=ring",
                      "workload.sizes.min=64KiB", "workload.sizes.max=1MiB",
                      "workload.iterations=3", "workload.warmup=1")


@pytest.fixture(scope="session")
def ocs_run(tmp_path_factory):
    """A dynamic SiP-OCS training run on 8 GPUs (mp 4 x dp 2): ~5,000 /fabric/plans rows, ~0.5 s."""
    return run_sipsim(tmp_path_factory.mktemp("ocs"), "sipml/fig9-transformer-sip-ocs-dynamic.yaml",
                      "ocs.h5", "fabric.nodes=8", "workload.mp=4", "workload.dp=2",
                      "workload.global_batch=8")


def _outputs(tmp_path, stem):
    return [tmp_path / f"{stem}.png", tmp_path / f"{stem}.svg"]


def _check_files(outs):
    png, svg = outs
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert b"<svg" in svg.read_bytes()[:1000] and svg.stat().st_size > 10_000


def _lines(fig):
    return {line.get_label(): line for line in fig.axes[0].get_lines()}


# -- busbw -----------------------------------------------------------------------------------

def test_busbw_from_run_files(tmp_path, collectives_run, cluster_run):
    outs = _outputs(tmp_path, "busbw")
    fig = plot.busbw([collectives_run[0], cluster_run[0]], output=outs)
    _check_files(outs)
    lines = _lines(fig)
    assert set(lines) == {"elect-flat", "cluster"}
    for label, path in (("elect-flat", collectives_run[0]), ("cluster", cluster_run[0])):
        c = sipsim.open(path).collectives()
        want = c[~c.warmup].groupby("bytes")["busbw_GBps"].mean()
        np.testing.assert_array_equal(lines[label].get_xdata(), want.index.values)
        np.testing.assert_allclose(lines[label].get_ydata(), want.values, rtol=1e-12)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "GB/s" in ax.get_ylabel()
    assert "coll" in ax.get_title() and "cl" in ax.get_title()
    assert fig.get_size_inches().tolist() == [16, 10] and fig.dpi == 100


def test_busbw_from_a_study_table(tmp_path):
    # collect --level collective's columns (docs/studies.md): busbw_GBps, warmup, status.
    df = pd.DataFrame({
        "run": ["0000"] * 4 + ["0001"] * 4 + ["0002"] * 2,
        "fabric.type": ["ramp"] * 4 + ["cluster"] * 4 + ["torus2d"] * 2,
        "status": ["done"] * 8 + ["failed"] * 2,
        "op": "all-reduce",
        "bytes": [1024, 1024, 4096, 4096] * 2 + [1024, 4096],
        "warmup": [1, 0, 0, 0] * 2 + [0, 0],
        "time_s": 1e-3,
        "busbw_GBps": [999.0, 10.0, 20.0, 30.0, 999.0, 5.0, 6.0, 8.0, 1.0, 1.0],
    })
    df.attrs["axes"] = ["fabric.type"]
    out = tmp_path / "study-busbw.png"
    fig = plot.busbw(df, output=out)
    assert out.stat().st_size > 10_000
    lines = _lines(fig)
    assert set(lines) == {"ramp", "cluster"}  # the failed run is not drawn, warm-ups neither
    np.testing.assert_allclose(lines["ramp"].get_ydata(), [10.0, 25.0])
    np.testing.assert_allclose(lines["cluster"].get_ydata(), [5.0, 7.0])
    assert fig.axes[0].get_legend().get_title().get_text() == "fabric.type"


def test_busbw_groups_a_study_by_its_label_axes_that_vary(tmp_path):
    df = pd.DataFrame({
        "run": ["0", "1", "2", "3"], "label.fabric": ["ramp", "ramp", "superpod", "superpod"],
        "label.node_tbps": [0.4, 0.8, 0.4, 0.8], "fabric.line_rate": ["100Gbps", "200Gbps", np.nan, np.nan],
        "label.scale": 64, "status": "done", "op": "all-reduce", "bytes": 1 << 20,
        "warmup": 0, "time_s": 1e-3, "busbw_GBps": [1.0, 2.0, 3.0, 4.0]})
    df.attrs["axes"] = ["label.fabric", "label.node_tbps", "fabric.line_rate", "label.scale"]
    fig = plot.busbw(df)
    lines = _lines(fig)
    assert {k: list(v.get_ydata()) for k, v in lines.items()} == {
        "ramp, 0.4": [1.0], "ramp, 0.8": [2.0], "superpod, 0.4": [3.0], "superpod, 0.8": [4.0]}
    # A line style per fabric, a colour per bandwidth.
    assert lines["ramp, 0.4"].get_linestyle() == lines["ramp, 0.8"].get_linestyle() == "-"
    assert lines["superpod, 0.4"].get_linestyle() == "--"
    assert lines["ramp, 0.4"].get_color() == lines["superpod, 0.4"].get_color()
    assert lines["ramp, 0.4"].get_color() != lines["ramp, 0.8"].get_color()
    assert fig.axes[0].get_legend().get_title().get_text() == "label.fabric, label.node_tbps"
    lines = _lines(plot.busbw(df, by="fabric.line_rate,label.node_tbps"))
    assert set(lines) == {"100Gbps, 0.4", "200Gbps, 0.8", "-, 0.4", "-, 0.8"}
    with pytest.raises(sipsim.SipsimError, match="--by nope: no column nope"):
        plot.busbw(df, by="nope")


def test_a_study_directory_is_read_with_its_collective_table(tmp_path):
    d = tmp_path / "study"
    d.mkdir()
    (d / "results-collective.csv").write_text(
        "run,fabric.node_rate,status,id,op,algorithm,group_size,bytes,iteration,warmup,time_s,"
        "algbw_GBps,busbw_GBps\n"
        "0000,0.4Tbps,done,0,all-reduce,ring,8,65536,0,0,0.001,1,2\n"
        "0001,1.6Tbps,done,0,all-reduce,ring,8,65536,0,0,0.0005,2,4\n")
    fig = plot.busbw(str(d))
    lines = _lines(fig)
    assert {k: list(v.get_ydata()) for k, v in lines.items()} == {"0.4Tbps": [2.0], "1.6Tbps": [4.0]}
    assert "study" in fig.axes[0].get_title()


def test_a_study_table_with_the_former_gbps_names_is_read(tmp_path):
    # collect of earlier versions spelt the GB/s columns algbw_gbps, busbw_gbps.
    d = tmp_path / "study"
    d.mkdir()
    (d / "results-collective.csv").write_text(
        "run,fabric.node_rate,status,id,op,algorithm,group_size,bytes,iteration,warmup,time_s,"
        "algbw_gbps,busbw_gbps\n"
        "0000,0.4Tbps,done,0,all-reduce,ring,8,65536,0,0,0.001,1,2\n")
    assert {"algbw_GBps", "busbw_GBps"} <= set(sipsim.study(d, level="collective").columns)
    lines = _lines(plot.busbw(str(d)))
    assert [list(v.get_ydata()) for v in lines.values()] == [[2.0]]  # busbw_gbps's value


# -- completion ------------------------------------------------------------------------------

def test_completion_bars_and_speedups(tmp_path, collectives_run, cluster_run):
    outs = _outputs(tmp_path, "completion")
    fig = plot.completion([collectives_run[0], cluster_run[0]], output=outs, baseline="cluster")
    _check_files(outs)
    ax = fig.axes[0]
    times = {}
    for label, path in (("elect-flat", collectives_run[0]), ("cluster", cluster_run[0])):
        c = sipsim.open(path).collectives()
        times[label] = c[~c.warmup].groupby("bytes")["time_s"].mean().values
    unit = ax.get_ylabel()
    scale = {"completion time (ms)": 1e-3, "completion time (µs)": 1e-6, "completion time (s)": 1.0}[unit]
    bars = {c.get_label(): [p.get_height() for p in c.patches] for c in ax.containers}
    assert list(bars) == ["elect-flat", "cluster"]
    for label in bars:
        np.testing.assert_allclose(bars[label], times[label] / scale, rtol=1e-12)
    # One annotation per bar, in drawing order: baseline time / this bar's time.
    texts = [t.get_text() for t in ax.texts]
    want = [f"{b / t:.2f}x" for label in bars for b, t in zip(times["cluster"], times[label])]
    assert texts == want
    assert "speed-up over cluster" in ax.get_title()


def test_completion_from_a_study_with_several_ops(tmp_path):
    df = pd.DataFrame({
        "run": ["0", "0", "1", "1"],
        "label.fabric": ["ramp", "ramp", "superpod", "superpod"],
        "status": "done",
        "op": ["all-reduce", "all-to-all"] * 2,
        "bytes": 1 << 20,
        "warmup": 0,
        "time_s": [2e-3, 4e-3, 4e-3, 2e-3],
        "busbw_GBps": 1.0,
    })
    df.attrs["axes"] = ["label.fabric"]
    fig = plot.completion(df, output=tmp_path / "c.svg")
    assert (tmp_path / "c.svg").stat().st_size > 10_000
    ax = fig.axes[0]
    bars = {c.get_label(): [p.get_height() for p in c.patches] for c in ax.containers}
    assert ax.get_ylabel() == "completion time (ms)"
    np.testing.assert_allclose(bars["ramp"], [2.0, 4.0])
    np.testing.assert_allclose(bars["superpod"], [4.0, 2.0])
    assert [t.get_text() for t in ax.texts] == ["1.00x", "1.00x", "0.50x", "2.00x"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["all-reduce\n1 MiB", "all-to-all\n1 MiB"]
    with pytest.raises(sipsim.SipsimError, match="--baseline nope: no such label.fabric"):
        plot.completion(df, baseline="nope")


def _two_op_study():
    df = pd.DataFrame({
        "run": ["0", "0", "0", "1", "1", "1"],
        "label.fabric": ["ramp"] * 3 + ["superpod"] * 3,
        "status": "done",
        "op": ["all-reduce", "all-reduce", "all-to-all"] * 2,
        "bytes": [1 << 20, 1 << 30, 1 << 30] * 2,
        "warmup": 0,
        "time_s": [1e-4, 2e-3, 4e-3, 1e-3, 5e-2, 10.0],
        "busbw_GBps": [10.0, 20.0, 30.0, 1.0, 2.0, 3.0],
    })
    df.attrs["axes"] = ["label.fabric"]
    return df


def test_completion_of_some_sizes_and_ops_with_one_groups_speedup():
    df = _two_op_study()
    fig = plot.completion(df, sizes=[1 << 30], ops=["all-reduce", "all-to-all"],
                          speedup_of="ramp")
    ax = fig.axes[0]
    bars = {c.get_label(): [p.get_height() for p in c.patches] for c in ax.containers}
    assert ax.get_ylabel() == "completion time (s)"  # the tallest bar's unit
    np.testing.assert_allclose(bars["ramp"], [2e-3, 4e-3])  # only the 1 GiB rows
    np.testing.assert_allclose(bars["superpod"], [0.05, 10.0])
    # ramp's speed-up over each bar: 1x over itself, 25x and 2,500x over superpod.
    assert [t.get_text() for t in ax.texts] == ["1.00x", "1.00x", "25.00x", "2500x"]
    assert "ramp's speed-up over each bar" in ax.get_title()
    fig = plot.completion(df, ops=["all-reduce"], baseline="superpod")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1 MiB", "1 GiB"]
    assert [t.get_text() for t in fig.axes[0].texts] == ["10.00x", "25.00x", "1.00x", "1.00x"]
    with pytest.raises(sipsim.SipsimError, match="--sizes 4 MiB: no such message size"):
        plot.completion(df, sizes=[4 << 20])
    with pytest.raises(sipsim.SipsimError, match="--op gather: no such collective"):
        plot.completion(df, ops=["gather"])
    with pytest.raises(sipsim.SipsimError, match="--speedup-of nope: no such label.fabric"):
        plot.completion(df, speedup_of="nope")
    with pytest.raises(sipsim.SipsimError, match="not both"):
        plot.completion(df, speedup_of="ramp", baseline="ramp")


def test_busbw_of_one_op():
    fig = plot.busbw(_two_op_study(), ops=["all-reduce"])
    lines = _lines(fig)
    assert set(lines) == {"ramp", "superpod"}  # one op: lines named by group alone
    np.testing.assert_allclose(lines["superpod"].get_ydata(), [1.0, 2.0])


def test_sizes_on_the_command_line(tmp_path, capsys):
    assert plot.parse_size("1GiB") == 1 << 30 and plot.parse_size("64 KiB") == 64 << 10
    assert plot.parse_size("1MB") == 10**6 and plot.parse_size("4096") == 4096
    with pytest.raises(sipsim.SipsimError, match="--sizes 1 TiB: not a size"):
        plot.parse_size("1 TiB")
    csv = tmp_path / "results-collective.csv"
    _two_op_study().to_csv(csv, index=False)
    out = tmp_path / "c.png"
    assert plot.main(["completion", str(csv), "--sizes", "1GiB", "--op", "all-to-all",
                      "--speedup-of", "ramp", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    assert plot.main(["completion", str(csv), "--sizes", "2GiB"]) == 2
    assert "--sizes 2 GiB: no such message size (there are 1 MiB, 1 GiB)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        plot.main(["busbw", str(csv), "--sizes", "1GiB"])


# -- breakdown -------------------------------------------------------------------------------

def test_breakdown_per_iteration_of_a_run(tmp_path, training_run):
    outs = _outputs(tmp_path, "breakdown")
    fig = plot.breakdown(training_run[0], output=outs)
    _check_files(outs)
    ax = fig.axes[0]
    b = sipsim.open(training_run[0]).breakdown()
    mean = b.groupby("iteration").mean().drop(columns="gpu")
    mean = mean.loc[:, (mean != 0).any()]
    assert [c.get_label() for c in ax.containers] == [c[:-2] for c in mean.columns]
    assert ax.get_ylabel() == "time (ms)"
    for container, col in zip(ax.containers, mean.columns):
        np.testing.assert_allclose([p.get_height() for p in container], mean[col].values * 1e3,
                                   rtol=1e-12)
    # The stack's top is the mean GPU's span of each iteration.
    tops = [max(p.get_y() + p.get_height() for c in ax.containers for p in [c.patches[i]])
            for i in range(len(mean))]
    np.testing.assert_allclose(tops, mean.sum(axis=1).values * 1e3, rtol=1e-9)
    assert "mean over 64 GPUs" in ax.get_title()


def test_breakdown_per_configuration_of_a_study(tmp_path):
    df = pd.DataFrame({"run": ["0000", "0001", "0002"], "fabric.type": ["ramp", "cluster", "ramp"],
                       "seed": [1, 1, 2], "status": ["done", "done", "missing"],
                       "iteration_s": [0.3, 0.5, np.nan], "forward_s": [0.1, 0.1, np.nan],
                       "dp-comm_s": [0.2, 0.4, np.nan], "idle_s": [0.0, 0.0, np.nan]})
    df.attrs["axes"] = ["fabric.type", "seed"]
    fig = plot.breakdown(df, output=tmp_path / "b.png")
    ax = fig.axes[0]
    assert [c.get_label() for c in ax.containers] == ["forward", "dp-comm"]  # idle is all 0
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ramp", "cluster"]
    np.testing.assert_allclose([p.get_height() for p in ax.containers[1]], [200.0, 400.0])
    ticks = [t.get_text() for t in plot.breakdown(df, by="fabric.type,seed").axes[0].get_xticklabels()]
    assert ticks == ["type=ramp, seed=1", "type=cluster, seed=1"]
    with pytest.raises(sipsim.SipsimError, match="not a training study"):
        plot.breakdown(df.drop(columns=["forward_s", "dp-comm_s", "idle_s"]))


# -- traffic ---------------------------------------------------------------------------------

def test_traffic_is_the_time_averaged_circuits(tmp_path, ocs_run):
    outs = _outputs(tmp_path, "traffic")
    fig = plot.traffic(ocs_run[0], output=outs)
    _check_files(outs)
    run = sipsim.open(ocs_run[0])
    with h5py.File(ocs_run[0], "r") as f:
        rows = sorted(zip(*(f["/fabric/plans"][k][()].tolist()
                            for k in ("time_ps", "src", "dst", "units"))), key=lambda r: r[0])
    end = run.meta["end_time_ps"]
    start = rows[0][0]
    want = np.zeros((8, 8))
    held = {}  # (src, dst) -> (since, units)
    for t, s, d, u in rows:
        if (s, d) in held:
            since, units = held[(s, d)]
            want[s, d] += units * (t - since)
        held[(s, d)] = (t, u)
    for (s, d), (since, units) in held.items():
        want[s, d] += units * (end - since)
    want = want / (end - start) * 128.0  # the unit: 2,048 Gb/s over 16 switches
    image = fig.axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(image.filled(0.0), want, rtol=1e-9)
    assert int(image.mask.sum()) == int((want == 0).sum())
    assert "Gb/s" in fig.axes[1].get_ylabel()
    assert "/fabric/plans" in fig.axes[0].get_title() and "sip-ocs" in fig.axes[0].get_title()


def test_traffic_refuses_a_run_without_circuits(collectives_run):
    with pytest.raises(sipsim.MissingDataError, match="no /fabric/plans .*elect-flat"):
        plot.traffic(collectives_run[0])


# -- command line ----------------------------------------------------------------------------

def test_command_line(tmp_path, collectives_run, capsys):
    png, svg = tmp_path / "a.png", tmp_path / "a.svg"
    assert plot.main(["busbw", str(collectives_run[0]), "-o", str(png), "-o", str(svg),
                      "--by", "algorithm", "--title", "T"]) == 0
    assert png.stat().st_size > 10_000 and svg.stat().st_size > 10_000
    assert plot.main(["traffic", str(collectives_run[0]), "-o", str(png)]) == 2
    assert "no /fabric/plans" in capsys.readouterr().err
    assert plot.main(["busbw", str(collectives_run[0]), "-o", str(tmp_path / "a.jpg")]) == 2
    assert ".png or .svg" in capsys.readouterr().err
