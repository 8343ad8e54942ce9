"""scripts/validation-figures.sh, which draws docs/validation.md's figures from studies: the
Table 9 study end to end (18 runs, ~2 min on 2 cores), its figure and printed table against the
collected study, and KEEP=1 redrawing without rerunning."""

import os
import subprocess

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, sipsim_binary

import sipsim


def _script(tmp_path, **env):
    binary = sipsim_binary()
    if binary is None:
        pytest.skip("no sipsim binary: build it or set SIPSIM=path/to/sipsim")
    e = dict(os.environ, OUT=str(tmp_path / "img"), STUDIES=str(tmp_path / "studies"),
             FIGURES="ramp-table9-breakdown", PYTHON="/usr/bin/python3", **env)
    done = subprocess.run(["bash", str(ROOT / "scripts" / "validation-figures.sh"),
                           str(binary.parent)], capture_output=True, text=True, env=e,
                          timeout=900)
    assert done.returncode == 0, f"validation-figures.sh failed:\n{done.stdout}\n{done.stderr}"
    return done


def _printed_table(stdout):
    """The script's table: `label.ce label.network iteration_s comm speedup wall_s` rows."""
    rows = [line.split() for line in stdout.splitlines()
            if line.split() and line.split()[0].isdigit()]
    return pd.DataFrame([r[1:6] for r in rows],
                        columns=["ce", "network", "iteration_s", "comm", "speedup"])


def test_the_table9_figure_is_drawn_from_its_study(tmp_path):
    done = _script(tmp_path)
    png = tmp_path / "img" / "validation-ramp-table9-breakdown.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    study = sipsim.study(tmp_path / "studies" / "ramp-table9-breakdown")
    assert len(study) == 18 and (study["status"] == "done").all()
    printed = _printed_table(done.stdout)
    assert len(printed) == 18
    np.testing.assert_allclose(printed["iteration_s"].astype(float),
                               study["iteration_s"].values, rtol=1e-4)
    # docs/validation.md's Table 9: CE 1.8 on the SuperPod, 83,885.0 ms, 87.2% communication,
    # 6.70x RAMP's iteration.
    row = printed[(printed.ce == "1.8") & (printed.network == "SuperPod")].iloc[0]
    assert float(row.iteration_s) == pytest.approx(83.885, abs=5e-4)
    assert float(row.comm) == pytest.approx(0.872, abs=5e-4)
    assert float(row.speedup) == pytest.approx(6.70, abs=5e-3)
    assert (printed[printed.network == "RAMP"]["speedup"].astype(float) == 1.0).all()

    # KEEP=1 redraws from the finished runs: nothing runs again, the run files are untouched.
    runs = sorted((tmp_path / "studies" / "ramp-table9-breakdown" / "runs").glob("*.h5"))
    stamps = [(r.stat().st_ino, r.stat().st_mtime_ns) for r in runs]
    png.unlink()
    again = _script(tmp_path, KEEP="1")
    assert "18 done already, 0 to run" in again.stderr
    assert [(r.stat().st_ino, r.stat().st_mtime_ns) for r in runs] == stamps
    assert png.stat().st_size > 20_000
    assert _printed_table(again.stdout).equals(printed)
