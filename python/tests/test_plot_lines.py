"""python -m sipsim.plot lines: a study's result against one of its columns, one line per group,
the mean or the best row per point (line xdata/ydata checked against the table)."""

import numpy as np
import pandas as pd
import pytest

import sipsim
from sipsim import plot


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plot.plt.close("all")


def _study():
    """A SiP-ML Fig. 5 style run table: 2 fabrics x 3 bandwidths x 2 strategies (mp), one run
    failed and one missing."""
    rows = []
    t = {("flat", 1): [0.30, 0.20, 0.10], ("flat", 2): [0.40, 0.15, 0.08],
         ("ring", 1): [0.35, 0.25, 0.20], ("ring", 2): [0.50, 0.30, 0.12]}
    for fab in ("flat", "ring"):
        for i, b in enumerate((128, 256, 512)):
            for mp in (1, 2):
                rows.append({"run": f"{len(rows):04d}", "label.fabric": fab,
                             "label.gbps_per_gpu": b, "fabric.bandwidth": f"{b}Gbps",
                             "workload.mp": mp, "workload.dp": 64 // mp, "status": "done",
                             "iteration_s": t[(fab, mp)][i], "wall_s": 0.1})
    df = pd.DataFrame(rows)
    df.loc[11, ["status", "iteration_s"]] = ["failed", np.nan]  # ring, 512, mp 2
    df.loc[10, ["status", "iteration_s"]] = ["missing", np.nan]  # ring, 512, mp 1
    df.attrs["axes"] = ["label.fabric", "label.gbps_per_gpu", "fabric.bandwidth", "workload.mp",
                        "workload.dp"]
    return df


def _lines(fig):
    """The groups' lines (the best-of markers are lines too, labelled "_...")."""
    return {line.get_label(): line for line in fig.axes[0].get_lines()
            if not line.get_label().startswith("_")}


def test_mean_per_point_one_line_per_label_axis(tmp_path, capsys):
    df = _study()
    fig = plot.lines(df, x="label.gbps_per_gpu", output=tmp_path / "l.png")
    assert (tmp_path / "l.png").stat().st_size > 10_000
    lines = _lines(fig)
    assert set(lines) == {"flat", "ring"}  # label.fabric: the label axis that varies but x
    np.testing.assert_array_equal(lines["flat"].get_xdata(), [128, 256, 512])
    np.testing.assert_allclose(lines["flat"].get_ydata(), [350.0, 175.0, 90.0])  # ms
    # ring at 512: both runs failed or missing, not drawn.
    np.testing.assert_array_equal(lines["ring"].get_xdata(), [128, 256])
    np.testing.assert_allclose(lines["ring"].get_ydata(), [425.0, 275.0])
    ax = fig.axes[0]
    assert ax.get_ylabel() == "iteration time (ms)"
    assert ax.get_xlabel() == "label.gbps_per_gpu (Gb/s)"  # the name says the unit
    assert "mean of up to 2 runs per point" in ax.get_title()
    assert "2 of 12 runs not drawn: failed 1, missing 1" in ax.get_title()
    assert "2 runs not drawn (failed 1: 0011; missing 1: 0010)" in capsys.readouterr().err
    assert ax.get_legend().get_title().get_text() == "label.fabric"


def test_best_min_takes_the_fastest_row_and_marks_it():
    df = _study()
    table, info = plot.lines_table(df, x="label.gbps_per_gpu", best="min")
    assert info["marks"] == ["workload.mp", "workload.dp"]  # what differs within a point
    assert list(table["winner"]) == ["mp=1, dp=64", "mp=2, dp=32", "mp=2, dp=32",
                                     "mp=1, dp=64", "mp=1, dp=64"]
    fig = plot.lines(df, x="label.gbps_per_gpu", best="min", mark="workload.mp", logx=True,
                     logy=True)
    lines = _lines(fig)
    np.testing.assert_allclose(lines["flat"].get_ydata(), [300.0, 150.0, 80.0])
    np.testing.assert_allclose(lines["ring"].get_ydata(), [350.0, 250.0])
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # A marker shape per winning strategy, named in a second legend.
    markers = {line.get_label(): line.get_marker() for line in ax.get_lines()
               if line.get_label().startswith("_")}
    assert markers == {"_flat mp=1": "o", "_flat mp=2": "s", "_ring mp=1": "o"}
    legends = [c for c in ax.get_children() if isinstance(c, plt_legend())]
    texts = sorted(t.get_text() for lg in legends for t in lg.get_texts())
    assert texts == ["flat", "mp=1", "mp=2", "ring"]
    assert "the fastest of each point's runs (they differ in workload.mp)" in ax.get_title()
    seeds = df.assign(seed=[1, 2] * 6)
    seeds.attrs["axes"] = ["label.fabric", "label.gbps_per_gpu", "seed"]
    table, info = plot.lines_table(seeds, x="label.gbps_per_gpu", best="min")
    assert info["marks"] == ["seed"] and table["winner"][0] == "seed=1"
    best_max = plot.lines_table(df, x="label.gbps_per_gpu", best="max")[0]
    np.testing.assert_allclose(best_max["y"], [0.40, 0.20, 0.10, 0.50, 0.30])


def plt_legend():
    import matplotlib.legend
    return matplotlib.legend.Legend


def test_x_with_units_and_explicit_groups():
    df = _study()
    df.loc[df["label.gbps_per_gpu"] == 512, "fabric.bandwidth"] = "0.512Tbps"
    fig = plot.lines(df, x="fabric.bandwidth", by="label.fabric,workload.mp")
    lines = _lines(fig)
    assert set(lines) == {"flat, 1", "flat, 2", "ring, 1", "ring, 2"}
    np.testing.assert_allclose(lines["flat, 2"].get_xdata(), [128, 256, 512])  # Gb/s
    np.testing.assert_allclose(lines["flat, 2"].get_ydata(), [400.0, 150.0, 80.0])
    assert fig.axes[0].get_xlabel() == "fabric.bandwidth (Gb/s)"
    # Times as x: a readable unit.
    df["fabric.latency"] = ["100ns", "1us"] * 6
    assert plot.lines(df, x="fabric.latency").axes[0].get_xlabel() == "fabric.latency (µs)"
    # Sizes in bytes; a rate result in GB/s.
    df["workload.bytes"] = ["1KiB", "1MiB"] * 6
    df["busbw_GBps_largest"] = 1.0
    fig = plot.lines(df, x="workload.bytes", y="busbw_GBps_largest", by="label.fabric")
    np.testing.assert_array_equal(_lines(fig)["flat"].get_xdata(), [1024, 1 << 20])
    assert fig.axes[0].get_xlabel() == "workload.bytes (bytes)"
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1 KiB", "1 MiB"]
    assert fig.axes[0].get_ylabel() == "busbw_largest (GB/s = 10^9 bytes/s)"


def test_errors_name_the_column():
    df = _study()
    with pytest.raises(sipsim.SipsimError, match=r"--x nope: no such column \(the table has run, "
                                                 r"label.fabric"):
        plot.lines(df, x="nope")
    with pytest.raises(sipsim.SipsimError, match="--y tflops: no such column"):
        plot.lines(df, x="label.gbps_per_gpu", y="tflops")
    with pytest.raises(sipsim.SipsimError, match="--x label.fabric: 'flat' is not a number"):
        plot.lines(df, x="label.fabric")
    with pytest.raises(sipsim.SipsimError, match="--y status: not a numeric column"):
        plot.lines(df, x="label.gbps_per_gpu", y="status")
    with pytest.raises(sipsim.SipsimError, match="--by nope: no column nope"):
        plot.lines(df, x="label.gbps_per_gpu", by="nope")
    with pytest.raises(sipsim.SipsimError, match="--mark nope: no column nope"):
        plot.lines(df, x="label.gbps_per_gpu", best="min", mark="nope")
    mixed = df.assign(**{"fabric.bandwidth": ["1Gbps", "1ns"] * 6})
    with pytest.raises(sipsim.SipsimError, match="mix the units"):
        plot.lines(mixed, x="fabric.bandwidth")
    failed = df.assign(status="failed")
    with pytest.raises(sipsim.SipsimError, match="nothing to plot.*12 runs: failed 12"):
        plot.lines(failed, x="label.gbps_per_gpu")


def test_command_line(tmp_path, capsys):
    d = tmp_path / "study"
    d.mkdir()
    df = _study()
    cols = ["run"] + df.attrs["axes"] + ["status"] + ["iteration_s", "wall_s"]
    df[cols].to_csv(d / "results.csv", index=False)
    png = tmp_path / "lines.png"
    assert plot.main(["lines", str(d), "--x", "label.gbps_per_gpu", "--best", "min", "--logx",
                      "--logy", "--mark", "workload.mp", "-o", str(png)]) == 0
    assert png.stat().st_size > 10_000
    out = capsys.readouterr()
    assert f"wrote {png}" in out.out and "2 runs not drawn" in out.err
    assert plot.main(["lines", str(d), "--x", "nope", "-o", str(png)]) == 2
    assert "--x nope: no such column" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        plot.main(["lines", str(d)])  # no --x
    assert "lines needs --x" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        plot.main(["busbw", str(d), "--best", "min"])
    assert "are for lines" in capsys.readouterr().err


def test_speedup_over_one_point(tmp_path, capsys):
    """--speedup-over GROUP@X: that point's y / each point's, after --best picks (SiP-ML
    Table 1: speed-ups over 32 GPUs at 1 us)."""
    df = _study()
    table, info = plot.lines_table(df, x="label.gbps_per_gpu", best="min",
                                   speedup_over="flat@128")
    assert info["speedup"] == {"group": "flat", "x": 128.0, "y": 0.30}
    np.testing.assert_allclose(table["y"], [1.0, 2.0, 3.75, 0.30 / 0.35, 0.30 / 0.25])
    assert list(table["winner"]) == ["mp=1, dp=64", "mp=2, dp=32", "mp=2, dp=32",
                                     "mp=1, dp=64", "mp=1, dp=64"]  # the fastest still wins
    mean = plot.lines_table(df, x="label.gbps_per_gpu", speedup_over="ring@256")[0]
    np.testing.assert_allclose(mean["y"], 0.275 / np.array([0.35, 0.175, 0.09, 0.425, 0.275]))
    fig = plot.lines(df, x="label.gbps_per_gpu", best="min", speedup_over="flat@128")
    np.testing.assert_allclose(_lines(fig)["flat"].get_ydata(), [1.0, 2.0, 3.75])  # no unit
    ax = fig.axes[0]
    assert ax.get_ylabel() == ("speed-up over label.fabric flat at label.gbps_per_gpu 128\n"
                               "(its iteration 300 ms / each point's)")
    assert ax.get_title().startswith("speed-up (iteration_s) vs label.gbps_per_gpu")
    for bad in ("flat@100", "nope@128", "flat", "flat@x"):
        with pytest.raises(sipsim.SipsimError, match=f"--speedup-over {bad}: no such point "
                                                     r"GROUP@X \(the points are flat@128, "):
            plot.lines_table(df, x="label.gbps_per_gpu", speedup_over=bad)
    d = tmp_path / "study"
    d.mkdir()
    cols = ["run"] + df.attrs["axes"] + ["status"] + ["iteration_s", "wall_s"]
    df[cols].to_csv(d / "results.csv", index=False)
    png = tmp_path / "speedup.png"
    assert plot.main(["lines", str(d), "--x", "label.gbps_per_gpu", "--best", "min",
                      "--speedup-over", "ring@128", "-o", str(png)]) == 0
    assert png.stat().st_size > 10_000
    capsys.readouterr()
    with pytest.raises(SystemExit):
        plot.main(["busbw", str(d), "--speedup-over", "ring@128"])
    assert "are for lines" in capsys.readouterr().err
