"""GPU faults (docs/faults.md) end to end: a straggler stretches its own compute by 1/factor and
no one else's, a GPU failure stops the job with the completed iterations kept, and an empty
`faults:` list changes nothing."""

import h5py
import numpy as np

import sipsim
from conftest import run_sipsim

STRAGGLER = "faults/straggler-gpt-1.3b-64gpu.yaml"
COMPUTE = ("forward", "backward", "weight-gradient", "optimizer", "compute")


def _compute_per_gpu(path):
    with h5py.File(path, "r") as f:
        b = f["/breakdown"][:]
        cats = f["/breakdown"].attrs["categories"].decode().split(",")
    cols = [cats.index(c) for c in COMPUTE]
    return b[:, :, cols].sum(axis=(0, 2))


def _periods(path):
    with h5py.File(path, "r") as f:
        return f["/iterations"][:]["period_ps"]


def test_straggler_stretches_only_its_own_compute(tmp_path):
    slow, out = run_sipsim(tmp_path, STRAGGLER, "slow.h5", "workload.iterations=1")
    healthy, _ = run_sipsim(tmp_path, STRAGGLER, "healthy.h5", "workload.iterations=1", "faults=[]")
    ratio = _compute_per_gpu(slow) / _compute_per_gpu(healthy)
    changed = np.flatnonzero(np.abs(ratio - 1) > 1e-12)
    assert len(changed) == 1, ratio
    # Every op of that GPU at 0.8 of its speed: 1.25x, to the picosecond per op.
    assert abs(ratio[changed[0]] - 1.25) < 1e-9
    assert _periods(slow)[0] > _periods(healthy)[0]
    assert "fault               gpu 9 at 0.8 of its speed from 0ps" in out
    assert f"busiest GPU {changed[0]}" in out
    with h5py.File(slow, "r") as f:
        row = f["/faults"][0]
        assert row["kind"] == b"gpu-slowdown" and row["target"] == b"gpu 9"
        assert row["happened"] == 1 and row["factor"] == 0.8
        assert row["until_ps"] == 2**64 - 1
    with h5py.File(healthy, "r") as f:
        assert len(f["/faults"]) == 0


def test_gpu_failure_keeps_the_completed_iterations(tmp_path):
    healthy, _ = run_sipsim(tmp_path, STRAGGLER, "healthy.h5", "faults=[]")
    p = _periods(healthy)
    # Fails 10 ms into the third iteration; a slowdown planned after it never happens.
    at = int(p[0] + p[1] + 10_000_000_000)
    failed, out = run_sipsim(
        tmp_path, STRAGGLER, "failed.h5",
        f"faults=[{{kind: gpu, target: {{gpu: 5}}, at: {at}ps}}, "
        f"{{kind: gpu-slowdown, target: {{gpu: 6}}, at: 1s, factor: 0.5}}]")
    np.testing.assert_array_equal(_periods(failed), p[:2])
    with h5py.File(failed, "r") as f:
        assert f["/meta"].attrs["failed_at_ps"] == at
        assert f["/meta"].attrs["failure"].decode().endswith("gpu 5 failed")
        assert list(f["/faults"][:]["happened"]) == [1, 0]
        assert f["/breakdown"].shape[0] == 2
    # The fabric energy per iteration is an iteration's, not the cut one's share.
    with h5py.File(healthy, "r") as f, h5py.File(failed, "r") as g:
        np.testing.assert_allclose(g["/iterations"][:]["fabric_energy_j"],
                                   f["/iterations"][:2]["fabric_energy_j"], rtol=1e-12)
    assert "outcome             failed at" in out
    faults = sipsim.open(failed).faults()
    assert list(faults["kind"]) == ["gpu", "gpu-slowdown"]
    assert list(faults["happened"]) == [True, False]
    assert faults["at_s"][0] == at / 1e12 and np.isinf(faults["until_s"][0])


def test_no_faults_is_todays_run(tmp_path):
    base, _ = run_sipsim(tmp_path, "training/gpt-1.3b-64gpu-ramp.yaml", "base.h5")
    twin, _ = run_sipsim(tmp_path, "training/gpt-1.3b-64gpu-ramp.yaml", "twin.h5", "faults=[]")
    with h5py.File(base, "r") as f, h5py.File(twin, "r") as g:
        assert "faults" not in f and len(g["/faults"]) == 0
        for name in ("/iterations", "/breakdown", "/gpu_energy"):
            np.testing.assert_array_equal(f[name][:], g[name][:])


def test_flat_all_to_all_with_one_nic_at_half_rate_is_the_closed_form(tmp_path):
    """Elect-Flat, 8 nodes at 100 Gb/s, latency 1 us; every member posts its 7 sends of 1 MiB
    at once. Node 3's NIC at half rate: its receive port, busy from the first head's arrival
    at 1 us, takes the 7 messages at 50 Gb/s one after another, the last delivery at
    1 us + 7 x 1 MiB / 50 Gb/s; healthy, 1 us + 7 x 1 MiB / 100 Gb/s."""
    ser = lambda bps: -(-(1 << 20) * 8 * 10**12 // bps)  # serialization_ps, rounded up
    times = {}
    for name, faults in (("healthy", "[]"),
                         ("half", "[{kind: nic, target: {node: 3}, at: 0s, factor: 0.5}]")):
        out, _ = run_sipsim(tmp_path, "nccl/elect-flat.yaml", f"{name}.h5", "fabric.nodes=8",
                            "fabric.bandwidth=100Gbps", "fabric.latency=1us",
                            "workload.op=all-to-all", "workload.algorithm=direct-concurrent",
                            "workload.sizes={min: 8MiB, max: 8MiB}", "workload.iterations=1",
                            "workload.warmup=0", f"faults={faults}")
        with h5py.File(out, "r") as f:
            row = f["/collectives"][0]
            times[name] = int(row["end_ps"] - row["start_ps"])
    assert times["healthy"] == 1_000_000 + 7 * ser(100 * 10**9)
    assert times["half"] == 1_000_000 + 7 * ser(50 * 10**9)


def test_random_switch_failures_on_a_routed_fabric_follow_the_seed(tmp_path):
    """random: on a routed fabric: 10% of the 48 switches of a BCube(4,2) of 64 nodes (named by
    tier and index; the nodes relay, so none is cut off), the same draws for the same seed,
    others for another seed."""
    def targets(seed):
        out, _ = run_sipsim(tmp_path, "nccl/bcube.yaml", f"s{seed}.h5",
                            "workload.sizes={min: 1MiB, max: 1MiB}", f"seed={seed}",
                            "faults=[{random: {kind: switch, fraction: 0.1}}]")
        with h5py.File(out, "r") as f:
            return [t.decode() for t in f["/faults"][:]["target"]]
    a, b, c = targets(1), targets(1), targets(2)
    assert len(a) == 5 and a == b and a != c
    assert all(t.startswith("switch tier ") and " index " in t for t in a)
