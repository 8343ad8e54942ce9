"""sipsim.open on a training run with a trace, checked against the raw HDF5 and what the binary printed."""

import h5py
import numpy as np
import pytest

import sipsim
from conftest import run_sipsim

CATEGORIES = ["forward", "backward", "weight-gradient", "optimizer", "compute", "tp-comm", "pp-comm",
              "dp-comm", "ep-comm", "collective", "bubble", "idle"]


def printed(stdout):
    """(iteration rows [(period ms, HW TFLOP/s, model TFLOP/s)], mean GPU breakdown in ms) as
    the binary printed them."""
    lines = stdout.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("#iteration"))
    iterations = []
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        parts = line.split()
        iterations.append((float(parts[1]), float(parts[2]), float(parts[3])))
    mean = next(l for l in lines if l.strip().startswith("mean GPU")).split()[2:]
    return iterations, [float(x) for x in mean]


def test_iterations(training_run):
    path, stdout = training_run
    run = sipsim.open(path)
    df = run.iterations()
    with h5py.File(path) as f:
        raw = f["/iterations"][:]
    assert list(df["iteration"]) == [0, 1]
    assert {"start_s", "end_s", "time_s", "period_s", "hardware_tflops_per_gpu",
            "model_tflops_per_gpu", "energy_j", "device_energy_j", "fabric_energy_j"} <= set(df.columns)
    assert "tflops_per_gpu" not in df.columns  # renamed: one name per FLOP count
    np.testing.assert_array_equal(df["time_s"], (raw["end_ps"] - raw["start_ps"]) / 1e12)
    np.testing.assert_array_equal(df["energy_j"], raw["energy_j"])
    rows, _ = printed(stdout)
    assert len(rows) == 2
    for (ms, hardware, model), (_, row) in zip(rows, df.iterrows()):
        assert row["period_s"] * 1e3 == pytest.approx(ms, abs=5e-7)
        assert row["hardware_tflops_per_gpu"] == pytest.approx(hardware, abs=0.005)
        assert row["model_tflops_per_gpu"] == pytest.approx(model, abs=0.005)
    assert df.attrs["collectives"] == "simulate"
    assert df.attrs["busy_w"] > 0
    assert run.meta["scenario_name"] == "gpt-1.3b-64gpu-ramp"
    assert run.fabric["type"] == "ramp"


def test_breakdown_wide_and_long(training_run):
    path, stdout = training_run
    run = sipsim.open(path)
    wide = run.breakdown()
    with h5py.File(path) as f:
        raw = f["/breakdown"][:]
    assert raw.shape == (2, 64, 12)
    assert list(wide.columns) == ["iteration", "gpu"] + [c + "_s" for c in CATEGORIES]
    assert len(wide) == 2 * 64
    row = wide[(wide["iteration"] == 1) & (wide["gpu"] == 5)].iloc[0]
    np.testing.assert_array_equal(row[[c + "_s" for c in CATEGORIES]].to_numpy(float), raw[1, 5] / 1e12)
    # A GPU's columns add up to its span; the GPU that ends last in iteration 0 to the iteration.
    first = wide[wide["iteration"] == 0].drop(columns=["iteration", "gpu"]).sum(axis=1)
    assert first.max() == pytest.approx(run.iterations()["time_s"][0], rel=1e-12)
    _, mean_ms = printed(stdout)
    means = wide.drop(columns=["iteration", "gpu"]).mean() * 1e3
    np.testing.assert_allclose(means.to_numpy(), mean_ms, atol=5e-5)

    long = run.breakdown(form="long")
    assert list(long.columns) == ["iteration", "gpu", "category", "time_s"]
    assert len(long) == 2 * 64 * 12
    pivot = long.pivot_table(index=["iteration", "gpu"], columns="category", values="time_s")
    np.testing.assert_array_equal(pivot[CATEGORIES].to_numpy(), raw.reshape(-1, 12) / 1e12)
    with pytest.raises(ValueError):
        run.breakdown(form="tall")


def test_trace(training_run):
    path, _ = training_run
    df = sipsim.open(path).trace()
    with h5py.File(path) as f:
        raw = f["/trace/events"][:]
    assert len(df) == len(raw) > 0
    assert list(df.columns) == ["node", "iteration", "op", "step", "kind", "category", "program",
                                "name", "start_s", "end_s", "time_s"]
    assert (df["name"] == "").all()  # a transformer names no op
    assert df.attrs["level"] == "ops"
    assert set(df["kind"]) <= {"compute", "collective", "send", "recv"}
    assert set(df["category"]) <= set(CATEGORIES)
    assert (df["step"] == -1).all()
    np.testing.assert_array_equal(df["start_s"], raw["start_ps"] / 1e12)
    np.testing.assert_array_equal(df["time_s"], (raw["end_ps"] - raw["start_ps"]) / 1e12)
    assert sorted(df["node"].unique()) == list(range(64))
    assert sorted(df["iteration"].unique()) == [0, 1]
    assert list(df["kind"][:2]) == [raw["kind"][0].decode(), raw["kind"][1].decode()]


def test_memory_and_energy(training_run):
    path, _ = training_run
    run = sipsim.open(path)
    mem = run.memory()
    with h5py.File(path) as f:
        raw = f["/memory"][:]
        capacity = int(f["/memory"].attrs["capacity_bytes"])
    assert list(mem.columns) == ["gpu", "weights_bytes", "gradients_bytes", "optimizer_bytes",
                                 "activations_bytes", "logits_bytes", "total_bytes"]
    np.testing.assert_array_equal(mem["total_bytes"], raw[:, 5])
    assert mem.attrs["capacity_bytes"] == capacity == 40 * 2**30  # A100 40 GB
    energy = run.gpu_energy()
    assert len(energy) == 2 * 64
    per_iteration = energy.groupby("iteration")["energy_j"].sum()
    np.testing.assert_allclose(per_iteration.to_numpy(), run.iterations()["device_energy_j"], rtol=1e-9)


def test_replay_shapes(tmp_path):
    """Megatron's schedule on a 128-GPU SuperPod under replay-shapes: /replay_shapes lists the
    calls its communicators share, priced alone and together, as the summary says."""
    path, stdout = run_sipsim(tmp_path, "../tests/app/training-megatron.yaml", "shapes.h5",
                              "workload.collectives=replay-shapes")
    run = sipsim.open(path)
    df = run.replay_shapes()
    assert list(df.columns) == ["op", "algorithm", "recorder", "bytes", "communicators", "members",
                                "first_node", "alone_s", "together_max_s", "together_mean_s"]
    assert df.attrs["time_units"] == "ps"
    assert len(df) == 14 and (df["communicators"] >= 2).all()
    assert (df["alone_s"] > 0).all()  # every call was priced
    assert (df["together_max_s"] >= df["together_mean_s"]).all()
    # TP groups (8 GPUs of one server) do not contend; some DP groups (strided) do.
    tp = df[df["recorder"].str.startswith("tp")]
    assert (tp["together_max_s"] == tp["alone_s"]).all() and len(tp) == 8
    ratio = (df["together_max_s"] / df["alone_s"]).max()
    assert ratio > 1.5
    summary = next(l for l in stdout.splitlines() if l.startswith("# replay-shapes contention"))
    assert f"(x{ratio:.3f})" in summary
    with pytest.raises(sipsim.MissingDataError):
        sipsim.open(run_sipsim(tmp_path, "../tests/app/training-megatron.yaml", "replay.h5",
                               "workload.collectives=replay")[0]).replay_shapes()


def test_time_to_accuracy(tmp_path, training_run):
    """`training: steps_to_target` (SiP-ML §4.2): the iterations at the job's global batch
    (64 in the GPT 1.3B job: half-way in log between 32 and 128, so sqrt(2000 x 500) = 1000) times
    the steady period, in /iterations' attributes and the summary; NaN and "none" without."""
    path, stdout = run_sipsim(tmp_path, "training/gpt-1.3b-64gpu-ramp.yaml", "tta.h5", "workload.iterations=2",
                              "training.steps_to_target=[{batch: 32, steps: 2000}, "
                              "{batch: 128, steps: 500}]")
    it = sipsim.open(path).iterations()
    assert it.attrs["steps_to_target"] == pytest.approx(1000.0, rel=1e-12)
    assert it.attrs["steps_to_target_source"] == "table"
    assert it.attrs["time_to_accuracy_s"] == pytest.approx(1000.0 * it["period_s"][1], rel=1e-12)
    line = next(l for l in stdout.splitlines() if l.startswith("# time to accuracy"))
    assert "1000 iterations at global batch 64 (table)" in line
    plain = sipsim.open(training_run[0]).iterations().attrs
    assert np.isnan(plain["time_to_accuracy_s"]) and plain["steps_to_target_source"] == "none"
    assert "# time to accuracy" not in training_run[1]
