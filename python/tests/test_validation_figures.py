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


def test_the_sipml_fig8_figure_and_table_equal_the_validate_script(tmp_path):
    """84 runs, ~16 s on 2 cores: the study's fastest time per (B, Q), its mp, and Elect-Flat
    (the --ref rows) as docs/validation.md's table from scripts/validate-sipml-fig8.sh."""
    binary = sipsim_binary()
    if binary is None:
        pytest.skip("no sipsim binary: build it or set SIPSIM=path/to/sipsim")
    e = dict(os.environ, OUT=str(tmp_path / "img"), STUDIES=str(tmp_path / "studies"),
             FIGURES="sipml-fig8", PYTHON="/usr/bin/python3")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "validation-figures.sh"),
                           str(binary.parent)], capture_output=True, text=True, env=e,
                          timeout=600)
    assert done.returncode == 0, f"validation-figures.sh failed:\n{done.stdout}\n{done.stderr}"
    png = tmp_path / "img" / "validation-sipml-fig8.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    rows = {line.split()[0]: line for line in done.stdout.splitlines()
            if line.split() and line.split()[0] in ("1024", "2048", "8192")}
    assert rows["1024"].split() == ["1024"] + "57.52 (mp2) 1.17x 57.52 (mp2) 1.17x 57.52 (mp2) " \
        "1.17x 56.14 (mp2) 1.14x 56.55 (mp2) 1.15x 56.77 (mp2) 1.16x 49.04 (mp2)".split()
    assert rows["8192"].split()[7:9] == ["42.62", "(mp4)"]  # Q 12: mp 4 wins
    assert rows["8192"].split()[-2:] == ["40.93", "(mp4)"]  # Elect-Flat
