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


def test_best_min_picks_among_a_marked_label_axis():
    """A strategy named by a label axis (label.strategy, as the Megatron study's) is what a
    point picks among with --best --mark, not a group of its own."""
    df = _study()
    df["label.strategy"] = df["workload.mp"].map({1: "8x2", 2: "4x8"})
    df.attrs["axes"] = df.attrs["axes"] + ["label.strategy"]
    table, info = plot.lines_table(df, x="label.gbps_per_gpu", best="min", mark="label.strategy")
    assert sorted(set(table["group"])) == ["flat", "ring"]
    assert list(table[table["group"] == "flat"]["label.strategy"]) == ["8x2", "4x8", "4x8"]
    without = plot.lines_table(df, x="label.gbps_per_gpu")[0]  # no --best: one line per strategy
    assert sorted(set(without["group"])) == ["flat, 4x8", "flat, 8x2", "ring, 4x8", "ring, 8x2"]


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


def _with_reference():
    """A SiP-ML Fig. 8 style table: SiP-OCS at Q 4 and 8 switches, and Elect-Flat (no Q, the
    reference), at 2 bandwidths x 2 strategies; one Elect-Flat run failed."""
    rows = []
    t = {("ocs", 4): [0.30, 0.20], ("ocs", 8): [0.25, 0.18], ("flat", None): [0.22, 0.21]}
    for b in (128, 256):
        for (fab, q), ys in t.items():
            for mp, y in zip((1, 2), ys):
                rows.append({"run": f"{len(rows):04d}", "label.fabric": fab,
                             "label.gbps_per_gpu": b, "fabric.switches": q, "workload.mp": mp,
                             "status": "done", "iteration_s": y * 128 / b})
    df = pd.DataFrame(rows)
    df.loc[11, ["status", "iteration_s"]] = ["failed", np.nan]  # flat, 256, mp 2
    df.attrs["axes"] = ["label.fabric", "label.gbps_per_gpu", "fabric.switches", "workload.mp"]
    return df


def test_ref_rows_are_a_horizontal_line_per_group(tmp_path):
    df = _with_reference()
    table, info = plot.lines_table(df, x="fabric.switches", best="min",
                                   ref="label.fabric=flat")
    assert info["groups"] == ["label.gbps_per_gpu"]  # the ref column is not a group
    assert list(table["y"]) == [0.20, 0.18, 0.10, 0.09]  # the references are not lines
    ref = info["ref"]
    assert list(ref["group"]) == ["128", "256"]
    np.testing.assert_allclose(ref["y"], [0.21, 0.11])  # 256: mp 2 failed, mp 1 is the best
    assert list(ref["winner"]) == ["mp=2", "mp=1"] and list(ref["n"]) == [2, 1]
    fig = plot.lines(df, x="fabric.switches", best="min", ref="label.fabric=flat",
                     output=tmp_path / "r.png")
    lines = _lines(fig)
    assert set(lines) == {"128", "256", "flat, 128 (mp=2)", "flat, 256 (mp=1)"}
    h = lines["flat, 128 (mp=2)"]
    np.testing.assert_allclose(h.get_ydata(), [210.0, 210.0])  # ms, across the axis
    assert h.get_color() == lines["128"].get_color()  # the group's colour
    assert h.get_linestyle() != lines["128"].get_linestyle()
    lo, hi = fig.axes[0].get_ylim()
    assert lo < 90.0 and hi > 210.0
    # The failed reference run is counted, the reference rows without x are not.
    assert "(1 of 12 runs not drawn: failed 1)" in fig.axes[0].get_title()
    # Means without --best.
    _, info = plot.lines_table(df, x="fabric.switches", ref="label.fabric=flat")
    np.testing.assert_allclose(info["ref"]["y"], [0.215, 0.11])
    # With --speedup-over, the references are divided likewise (128 at Q 4: 0.20 s).
    t, info = plot.lines_table(df, x="fabric.switches", best="min", ref="label.fabric=flat",
                               speedup_over="128@4")
    np.testing.assert_allclose(t["y"], [1.0, 0.20 / 0.18, 2.0, 0.20 / 0.09])
    np.testing.assert_allclose(info["ref"]["y"], [0.20 / 0.21, 0.20 / 0.11])
    with pytest.raises(sipsim.SipsimError, match="--ref label.fabric=ring: no row has "
                                                 "label.fabric ring \\(it has ocs, flat\\)"):
        plot.lines(df, x="fabric.switches", ref="label.fabric=ring")
    with pytest.raises(sipsim.SipsimError, match="--ref nope: COLUMN=VALUE"):
        plot.lines(df, x="fabric.switches", ref="nope")
    d = tmp_path / "study"
    d.mkdir()
    df.to_csv(d / "results.csv", index=False)
    assert plot.main(["lines", str(d), "--x", "fabric.switches", "--best", "min", "--ref",
                      "label.fabric=flat", "-o", str(tmp_path / "c.png")]) == 0
    with pytest.raises(SystemExit):
        plot.main(["busbw", str(d), "--ref", "label.fabric=flat"])
