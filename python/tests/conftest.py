"""Fixtures: run files made by the sipsim binary (SIPSIM, else build/release/sipsim)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Test the tree's package (python/sipsim), not one installed elsewhere.
sys.path.insert(0, str(ROOT / "python"))


def sipsim_binary():
    """The binary, or None. A SIPSIM that names no executable fails: CI must not skip silently."""
    env = os.environ.get("SIPSIM")
    path = Path(env).resolve() if env else ROOT / "build" / "release" / "sipsim"
    found = path.is_file() and os.access(path, os.X_OK)
    if env and not found:
        pytest.fail(f"SIPSIM={env} is not an executable file", pytrace=False)
    return path if found else None


def run_sipsim(tmp_dir, scenario, out_name, *overrides, ranks=1):
    """Runs `sipsim run` and returns (run file path, what it printed)."""
    binary = sipsim_binary()
    if binary is None:
        pytest.skip(f"no sipsim binary at {ROOT / 'build' / 'release' / 'sipsim'}: build it "
                    f"(cmake --preset release && cmake --build --preset release) "
                    f"or set SIPSIM=path/to/sipsim")
    out = Path(tmp_dir) / out_name
    cmd = []
    env = dict(os.environ)
    if ranks > 1:
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            pytest.skip("no mpirun on PATH (Debian: openmpi-bin)")
        cmd = [mpirun, "-n", str(ranks), "--oversubscribe"]
        # Open MPI refuses to run as root without these (CI is root).
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd += [str(binary), "run", str(ROOT / "scenarios" / scenario), "-o", str(out), "--force"]
    for o in overrides:
        cmd += ["--set", o]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}"
    return out, done.stdout


@pytest.fixture(scope="session")
def collectives_run(tmp_path_factory):
    """nccl-tests all-reduce on an 8-node Elect-Flat, 64 KiB to 1 MiB: 12 instances, ~0.1 s."""
    return run_sipsim(tmp_path_factory.mktemp("coll"), "nccl/elect-flat.yaml", "coll.h5",
                      "fabric.nodes=8", "workload.sizes.max=1MiB")


@pytest.fixture(scope="session")
def collectives_run_2_ranks(tmp_path_factory):
    """The same run on 2 MPI ranks (the file written through parallel HDF5)."""
    return run_sipsim(tmp_path_factory.mktemp("coll2"), "nccl/elect-flat.yaml", "coll2.h5",
                      "fabric.nodes=8", "workload.sizes.max=1MiB", ranks=2)


@pytest.fixture(scope="session")
def training_run(tmp_path_factory):
    """GPT 1.3B on 64 GPUs on RAMP (tp 2 x pp 4 x dp 8), 2 iterations with an op trace: ~0.3 s."""
    return run_sipsim(tmp_path_factory.mktemp("train"), "training/gpt-1.3b-64gpu-ramp.yaml", "train.h5",
                      "workload.iterations=2", "output.trace=ops")
