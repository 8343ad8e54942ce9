"""The steady-state period (docs/output.md, /iterations): iterations overlap, so each
iteration's period is end_i - end_{i-1}, not end_i - start_i. Checked on a 3-iteration
GPT 1.3B run (its iterations are identical), in the run file, the summary and collect's table."""

import csv
import subprocess

import h5py
import numpy as np
import pytest

import sipsim

from conftest import ROOT, run_sipsim, sipsim_binary


@pytest.fixture(scope="module")
def three_iterations(tmp_path_factory):
    """GPT 1.3B on 64 GPUs on RAMP, 3 iterations: ~0.3 s."""
    return run_sipsim(tmp_path_factory.mktemp("period"), "training/gpt-1.3b-64gpu-ramp.yaml", "q3.h5",
                      "workload.iterations=3")


def test_periods_add_up_to_the_run(three_iterations):
    path, _ = three_iterations
    with h5py.File(path) as f:
        raw = f["/iterations"][:]
    start, end, period = (raw[k].astype(np.int64) for k in ("start_ps", "end_ps", "period_ps"))
    assert period.sum() == end[-1] - start[0]
    assert period[0] == end[0] - start[0]
    assert period[1] == period[2] == end[1] - end[0]
    # The iterations overlap: end - start over-counts every one after the first.
    assert (end[1:] - start[1:] > period[1:]).all()
    # TFLOP/s are over the period: FLOPs per GPU = TFLOP/s x period, the same every iteration.
    for count in ("hardware_tflops_per_gpu", "model_tflops_per_gpu"):
        work = raw[count] * period
        np.testing.assert_allclose(work, work[0], rtol=1e-12)
    df = sipsim.open(path).iterations()
    np.testing.assert_array_equal(df["period_s"], period / 1e12)
    assert list(df.columns[:5]) == ["iteration", "start_s", "end_s", "time_s", "period_s"]


def test_summary_prints_the_periods(three_iterations):
    path, stdout = three_iterations
    with h5py.File(path) as f:
        raw = f["/iterations"][:]
    lines = stdout.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("#iteration"))
    assert lines[head].split()[1] == "period(ms)"
    for i in range(3):
        ms = float(lines[head + 1 + i].split()[1])
        assert ms == pytest.approx(raw["period_ps"][i] / 1e9, abs=5e-7)
    steady = lines[head + 4]
    assert steady.startswith("# steady state (iterations 1-2): mean period ")
    assert float(steady.split()[7]) == pytest.approx(raw["period_ps"][1:].mean() / 1e9, abs=5e-7)


def test_collect_means_the_periods(tmp_path):
    binary = sipsim_binary()
    if binary is None:
        pytest.skip("no sipsim binary")
    (tmp_path / "q3.yaml").write_text(
        (ROOT / "scenarios" / "training/gpt-1.3b-64gpu-ramp.yaml").read_text().replace("iterations: 1",
                                                                   "iterations: 3"))
    (tmp_path / "study.yaml").write_text("scenario: q3.yaml\nseeds: [1]\n")
    for cmd in (["sweep", "study.yaml", "--local"], ["collect", "study"],
                ["collect", "study", "--level", "iteration"]):
        done = subprocess.run([str(binary), *cmd], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    with h5py.File(tmp_path / "study" / "runs" / "0000.h5") as f:
        raw = f["/iterations"][:]
    period = raw["period_ps"].astype(np.float64) / 1e12
    time = (raw["end_ps"] - raw["start_ps"]).astype(np.float64) / 1e12
    assert time.mean() > period.mean() * 1.01  # the test tells the two apart
    with open(tmp_path / "study" / "results.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert float(row["iteration_s"]) == pytest.approx(period.mean(), rel=1e-9)
    # The TFLOP/s over the run's span: the periods' time-weighted mean.
    for count in ("hardware_tflops_per_gpu", "model_tflops_per_gpu"):
        tflops = (raw[count] * period).sum() / period.sum()
        assert float(row[count]) == pytest.approx(tflops, rel=1e-9)
    with open(tmp_path / "study" / "results-iteration.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    np.testing.assert_allclose([float(r["iteration_s"]) for r in rows], period, rtol=1e-9)
