"""python -m sipsim.loadbalance (docs/performance.md, "Load balance across ranks") and
Run.lp(): the per-rank event sums, checked against /lp/events read with h5py and PHOLD's
partition rule (LP i on rank floor(i P / LPs): pdes::partitioners::blocks, docs/architecture.md)
computed here."""

import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

from conftest import ROOT, run_sipsim, sipsim_binary

import sipsim
from sipsim import loadbalance

LPS = 100  # not a multiple of the rank counts below: blocks of unequal size


@pytest.fixture(scope="module")
def phold(tmp_path_factory):
    """A PHOLD run of 100 LPs (its events differ per LP), its scenario written by the test."""
    tmp = tmp_path_factory.mktemp("phold")
    run, _ = run_sipsim(tmp, "phold-4k.yaml", "phold.h5", f"workload.lps={LPS}",
                        "simulation.end_time=100us")
    return run


def _expected(path, ranks):
    """(total, per-rank events) from the file and the block partition, without sipsim."""
    with h5py.File(path) as f:
        events = f["/lp/events"][()].astype(np.int64)
    owner = np.arange(len(events)) * ranks // len(events)
    return int(events.sum()), np.bincount(owner, weights=events, minlength=ranks).astype(np.int64)


def test_lp_reads_events_and_digests(phold):
    lp = sipsim.open(phold).lp()
    with h5py.File(phold) as f:
        assert list(lp["events"]) == list(f["/lp/events"][()])
        assert list(lp["digest"]) == list(f["/lp/digest"][()])
    assert list(lp["lp"]) == list(range(LPS)) and lp.attrs["units"] == "events"
    assert lp["events"].nunique() > 1  # the sums below are not trivially equal


@pytest.mark.parametrize("ranks", [1, 3, 7, 16])
def test_rank_events_are_the_partitions_sums(phold, ranks):
    load = loadbalance.rank_events(sipsim.open(phold), ranks, sipsim=str(sipsim_binary()))
    total, expect = _expected(phold, ranks)
    assert list(load) == list(expect) and int(load.sum()) == total


def test_the_printed_table(phold):
    done = subprocess.run([sys.executable, "-m", "sipsim.loadbalance", str(phold),
                           "--ranks", "3,7,16", "--sipsim", str(sipsim_binary())],
                          capture_output=True, text=True, cwd=ROOT / "python", timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["ranks", "lps", "events", "max_rank_events", "max/mean",
                                "busiest_rank"]
    for line, ranks in zip(lines[1:], (3, 7, 16)):
        total, expect = _expected(phold, ranks)
        most = int(expect.max())
        assert line == "%8d %12d %14d %14d %8.3f %d" % (ranks, LPS, total, most,
                                                         most * ranks / total,
                                                         int(np.argmax(expect)))
    assert len(lines) == 4


def test_the_recorded_scenario_when_its_file_is_gone(tmp_path, phold):
    """The run's scenario file changed after the run: the recorded text and overrides are used."""
    scenario = tmp_path / "mine.yaml"
    shutil.copy(ROOT / "scenarios" / "phold-4k.yaml", scenario)
    run, _ = run_sipsim(tmp_path, str(scenario), "mine.h5", "workload.lps=50",
                        "simulation.end_time=50us")
    scenario.write_text("not: a scenario\n")
    load = loadbalance.rank_events(sipsim.open(run), 4, sipsim=str(sipsim_binary()))
    assert list(load) == list(_expected(run, 4)[1])


def test_errors_name_the_file(tmp_path, phold):
    binary = str(sipsim_binary())
    run = sipsim.open(phold)
    with pytest.raises(sipsim.SipsimError, match=r"phold\.h5: the scenario has 50 LPs, the run "
                                                 r"file 100: not the same scenario"):
        loadbalance.balance(run, [2], overrides=["workload.lps=50"], sipsim=binary)
    with pytest.raises(sipsim.SipsimError, match=r"phold\.h5: the partition of .*nothing\.yaml"):
        loadbalance.balance(run, [2], scenario=str(tmp_path / "nothing.yaml"), sipsim=binary)
    with pytest.raises(sipsim.SipsimError, match=r"--sipsim=/nonexistent is not an executable"):
        loadbalance.balance(run, [2], sipsim="/nonexistent")
    bare = tmp_path / "bare.h5"
    shutil.copy(phold, bare)
    with h5py.File(bare, "r+") as f:
        del f["/lp/events"]
    with pytest.raises(sipsim.MissingDataError, match=r"bare\.h5 has no /lp/events"):
        sipsim.open(bare).lp()
    for argv, message in ((["--ranks", "0"], "every rank count must be at least 1"),
                          (["--ranks", "2,x"], "rank counts, comma-separated")):
        done = subprocess.run([sys.executable, "-m", "sipsim.loadbalance", str(phold), *argv,
                               "--sipsim", binary], capture_output=True, text=True,
                              cwd=ROOT / "python", timeout=60)
        assert done.returncode == 2 and message in done.stderr and done.stdout == ""
