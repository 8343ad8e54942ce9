"""sipsim.study reads the table `sipsim collect DIR` writes (DIR/results.csv)."""

import pytest

import sipsim

CSV = """run,fabric.node_rate,workload.op,status,sim_time_s,algbw_GBps,busbw_GBps_largest
0000,0.4Tbps,all-reduce,done,0.0012,41.5,60.0
0001,0.4Tbps,all-to-all,failed,,,
0002,1.6Tbps,all-reduce,done,0.0004,150.25,200.0
0003,1.6Tbps,all-to-all,missing,,,
"""


def test_reads_results_csv(tmp_path):
    (tmp_path / "results.csv").write_text(CSV)
    df = sipsim.study(tmp_path)
    assert list(df["run"]) == ["0000", "0001", "0002", "0003"]  # ids stay strings
    assert df.attrs["axes"] == ["fabric.node_rate", "workload.op"]
    assert list(df["status"]) == ["done", "failed", "done", "missing"]
    done = df[df["status"] == "done"]
    assert list(done["algbw_GBps"]) == [41.5, 150.25]  # GB/s, spelt as sipsim.open does
    assert list(done["busbw_GBps_largest"]) == [60.0, 200.0]
    assert df["sim_time_s"].isna().sum() == 2  # failed and missing runs are rows, not dropped
    assert sipsim.study(tmp_path / "results.csv").equals(df)


def test_reads_the_former_gbps_names(tmp_path):
    # collect of earlier versions spelt its GB/s columns `_gbps`: read under today's names;
    # an axis such as label.gbps_per_gpu (Gb/s) keeps its own.
    (tmp_path / "results.csv").write_text(
        "run,label.gbps_per_gpu,status,algbw_gbps,busbw_gbps,busbw_gbps_largest\n"
        "0000,100,done,1.5,2.5,3.5\n")
    df = sipsim.study(tmp_path)
    assert list(df.columns) == ["run", "label.gbps_per_gpu", "status", "algbw_GBps",
                                "busbw_GBps", "busbw_GBps_largest"]
    assert df.attrs["axes"] == ["label.gbps_per_gpu"]
    assert list(df["busbw_GBps_largest"]) == [3.5]


def test_levels(tmp_path):
    (tmp_path / "results-iteration.csv").write_text(
        "run,fabric.node_rate,status,iteration,iteration_s\n0000,0.4Tbps,done,0,0.21\n0000,0.4Tbps,done,1,0.25\n")
    df = sipsim.study(tmp_path, level="iteration")
    assert list(df["iteration"]) == [0, 1] and df.attrs["axes"] == ["fabric.node_rate"]


def test_missing_table_says_run_collect(tmp_path):
    with pytest.raises(sipsim.SipsimError, match=r"results\.csv not found: run `sipsim collect .*` first"):
        sipsim.study(tmp_path)
    with pytest.raises(sipsim.SipsimError,
                       match=r"results-collective\.csv not found: run `sipsim collect .* --level collective` first"):
        sipsim.study(tmp_path, level="collective")
    with pytest.raises(ValueError):
        sipsim.study(tmp_path, level="gpu")
    with pytest.raises(sipsim.SipsimError, match="no such study directory"):
        sipsim.study(tmp_path / "nope")


def test_not_a_results_table(tmp_path):
    (tmp_path / "results.csv").write_text("a,b\n1,2\n")
    with pytest.raises(sipsim.SipsimError, match="needs the column `run` first"):
        sipsim.study(tmp_path)
