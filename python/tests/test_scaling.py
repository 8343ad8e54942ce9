"""python -m sipsim.scaling (docs/scaling.md, "The model"): the numbers it prints equal what
scripts/predict-scaling.sh, the awk program it replaced, printed from the same figures.

The fixtures below are that script's output, captured once by hand on run files made by the
binary whose /meta scaling figures were set to these values (a 2-rank and a 1-rank PHOLD 4K run
of 200 us, as h5dump printed them: six significant digits, which is what the script read)."""

import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

from conftest import ROOT

import sipsim
from sipsim import scaling

FIGURES_2 = dict(ranks=2, engine="windowed", committed_events=407767, windows=199,
                 wall_seconds=0.493005, busy_seconds_mean=0.123792, busy_seconds_max=0.124574,
                 critical_path_seconds=0.144812, critical_path_events=207059,
                 remote_fraction=0.126371)
FIGURES_1 = dict(ranks=1, engine="windowed", committed_events=407767, windows=199,
                 wall_seconds=0.0846178, busy_seconds_mean=0.0834236,
                 busy_seconds_max=0.0834236, critical_path_seconds=0.0834236,
                 critical_path_events=407767, remote_fraction=0.0)

HEADER = (" ranks      I   events/w/r       beta    crit_events     remote  compute_s     sync_s"
          "     wall_s   speedup    effic\n")
MEASURED_2 = """\
measured: 2 ranks (windowed), 407767 events, 199 windows, 2049.1 events/window, {ns} ns/event,
          remote fraction 0.126, critical path 207059 events (x1.016 of even), wall 0.493 s, busy 0.124 s mean, 0.125 s max, critical path 0.145 s
"""
MEASURED_1 = """\
measured: 1 ranks (windowed), 407767 events, 199 windows, 2049.1 events/window, 205 ns/event,
          remote fraction 0.000, critical path 407767 events (x1.000 of even), wall 0.085 s, busy 0.083 s mean, 0.083 s max, critical path 0.083 s
"""
DEFAULT_MODEL = ("model: k = {k}, collective 6 us x log2(P)/7 + payload at 10 GB/s, "
                 "1.00 us per message\n\n")

# (figures, command-line options, predict-scaling.sh's environment and arguments, its output)
CASES = [
    (FIGURES_2, ["--ranks", "1,2,4:1.1,16,256"],
     "scripts/predict-scaling.sh RUN 2 1 2 4:1.1 16 256",
     MEASURED_2.format(ns=607) + DEFAULT_MODEL.format(k="0.423") + HEADER + """\
     1  1.000       2049.1      1.000         407767      0.000      0.248      0.000      0.248      1.00    1.000
     2  1.000       1024.5      1.016         207059      0.126      0.126      0.001      0.126      1.96    0.980
     4  1.100        512.3      1.134         115629      0.190      0.070      0.001      0.071      3.47    0.868
    16  1.000        128.1      1.088          27731      0.237      0.017      0.004      0.021     12.04    0.753
   256  1.000          8.0      1.498           2387      0.252      0.001      0.002      0.004     69.50    0.271
"""),
    (FIGURES_2, ["--ranks", "3,8:1.3,1024", "--event-ns", "350", "--collective-us", "2",
                 "--message-us", "0.5"],
     "EVENT_NS=350 COLL_US=2 MSG_US=0.5 scripts/predict-scaling.sh RUN 2 3 8:1.3 1024",
     MEASURED_2.format(ns=350)
     + "model: k = 0.423, collective 2 us per window, 0.50 us per message\n\n" + HEADER + """\
     3  1.000        683.0      1.024         139187      0.168      0.049      0.001      0.049      2.89    0.962
     8  1.300        256.1      1.370          69837      0.221      0.024      0.001      0.026      5.57    0.697
  1024  1.000          2.0      2.114            842      0.252      0.000      0.000      0.001    191.92    0.187
"""),
    (FIGURES_1, ["--ranks", "1,2,4,8", "--remote-at-inf", "0.25", "--collective-us", "2"],
     "REMOTE_AT_INF=0.25 COLL_US=2 scripts/predict-scaling.sh RUN 1 1 2 4 8",
     MEASURED_1 + "model: k = 1.000, collective 2 us per window, 1.00 us per message\n\n"
     + HEADER + """\
     1  1.000       2049.1      1.000         407767      0.000      0.083      0.000      0.083      1.00    1.000
     2  1.000       1024.5      1.037         211383      0.125      0.043      0.001      0.044      1.90    0.948
     4  1.000        512.3      1.074         109441      0.188      0.022      0.001      0.024      3.55    0.887
     8  1.000        256.1      1.127          57466      0.219      0.012      0.002      0.014      6.13    0.766
"""),
    (FIGURES_1, ["--ranks", "2,16,256"], "scripts/predict-scaling.sh RUN 1 2 16 256",
     MEASURED_1 + DEFAULT_MODEL.format(k="1.000") + HEADER + """\
     2  1.000       1024.5      1.037         211383      0.500      0.043      0.001      0.044      1.88    0.942
    16  1.000        128.1      1.208          30789      0.938      0.006      0.004      0.010      8.23    0.514
   256  1.000          8.0      2.177           3468      0.996      0.001      0.003      0.004     20.77    0.081
"""),
]


def _with_figures(src, dst, figures):
    """A copy of the run file `src` whose /meta scaling figures are `figures`."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        meta = f["/meta"].attrs
        for key, value in figures.items():
            if isinstance(value, str):
                meta[key] = np.bytes_(value)  # fixed-length, as sipsim writes strings
            else:
                meta[key] = np.uint64(value) if isinstance(value, int) else np.float64(value)
    return dst


@pytest.fixture
def fixtures(tmp_path, collectives_run, collectives_run_2_ranks):
    return {2: _with_figures(collectives_run_2_ranks[0], tmp_path / "two.h5", FIGURES_2),
            1: _with_figures(collectives_run[0], tmp_path / "one.h5", FIGURES_1)}


@pytest.mark.parametrize("figures,options,script,expected", CASES,
                         ids=[c[2] for c in CASES])
def test_prints_what_predict_scaling_sh_printed(fixtures, figures, options, script, expected):
    done = subprocess.run([sys.executable, "-m", "sipsim.scaling",
                           str(fixtures[figures["ranks"]]), *options],
                          capture_output=True, text=True, cwd=ROOT / "python", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


def test_the_model_by_hand(fixtures):
    """The first fixture's 16-rank row from docs/scaling.md's formulas, written out here."""
    m = scaling.measured(sipsim.open(fixtures[2]))
    (row,) = scaling.predict(m, [(16, 1.0)])
    E, W, m_ranks, crit, f = 407767, 199, 2, 207059, 0.126371
    c = 0.123792 * m_ranks / E
    n = E / W
    k = (crit * m_ranks / E - 1) * np.sqrt(n / m_ranks) / np.sqrt(2 * np.log(m_ranks))
    beta = 1 + k * np.sqrt(2 * np.log(16) / (n / 16))
    fp = f * (1 - 1 / 16) / (1 - 1 / m_ranks)
    remote = fp * n / 16
    sync = W * (6e-6 * np.log2(16) / 7 + 8 * (15 + 16) * np.log2(16) / 10e9
                + min(remote, 15) * 1e-6 + remote * 64 / 10e9)
    compute = W * (n / 16) * beta * c
    assert row.beta == pytest.approx(beta, rel=1e-12)
    assert row.remote_fraction == pytest.approx(fp, rel=1e-12)
    assert row.compute_s == pytest.approx(compute, rel=1e-12)
    assert row.sync_s == pytest.approx(sync, rel=1e-12)
    assert row.efficiency == pytest.approx(E * c / (16 * (compute + sync)), rel=1e-12)


def test_constants_are_the_models_one_place(fixtures, monkeypatch):
    """Each of the model's constants changes the prediction through its one name."""
    m = scaling.measured(sipsim.open(fixtures[2]))
    (base,) = scaling.predict(m, [(64, 1.0)])
    monkeypatch.setattr(scaling, "REMOTE_EVENT_BYTES", 128)
    (more,) = scaling.predict(m, [(64, 1.0)])
    assert more.sync_s > base.sync_s and more.compute_s == base.compute_s
    monkeypatch.setattr(scaling, "fit_k", lambda measured: 0.0)
    (even,) = scaling.predict(m, [(64, 1.0)])
    assert even.beta == 1.0
    monkeypatch.setattr(scaling, "single_rank_seconds", lambda measured, c: 1.0)
    (t1,) = scaling.predict(m, [(64, 1.0)])
    assert t1.speedup == pytest.approx(1.0 / t1.wall_s)


def test_a_real_run_predicts_its_own_critical_path(collectives_run_2_ranks):
    """At the measured rank count the model's critical path is the measured one."""
    run = sipsim.open(collectives_run_2_ranks[0])
    m = scaling.measured(run)
    (row,) = scaling.predict(m, [(2, 1.0)])
    assert row.critical_path_events == pytest.approx(run.meta["critical_path_events"], rel=1e-9)
    assert row.remote_fraction == pytest.approx(run.meta["remote_fraction"], rel=1e-12)


def test_errors_name_the_file(tmp_path, fixtures):
    old = tmp_path / "old.h5"
    shutil.copy(fixtures[2], old)
    with h5py.File(old, "r+") as f:
        del f["/meta"].attrs["critical_path_events"]
    for argv, message in (([str(old)], r"old\.h5 has no scaling figures"),
                          ([str(tmp_path / "none.h5")], r"none\.h5: no such run file"),
                          ([str(fixtures[2]), "--ranks", "16,x"], r"'x' is not P or P:I"),
                          ([str(fixtures[2]), "--ranks", "0"], r"P must be at least 1")):
        done = subprocess.run([sys.executable, "-m", "sipsim.scaling", *argv],
                              capture_output=True, text=True, cwd=ROOT / "python", timeout=60)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("sipsim.scaling: error: ")
        assert re.search(message, done.stderr), done.stderr
    bad = tmp_path / "bad.h5"
    shutil.copy(fixtures[2], bad)
    with h5py.File(bad, "r+") as f:
        f["/meta"].attrs["wall_seconds"] = np.bytes_("fast")
    with pytest.raises(sipsim.SipsimError,
                       match=r"bad\.h5: /meta@wall_seconds is 'fast', not a number"):
        scaling.measured(sipsim.open(bad))
    none = tmp_path / "none-committed.h5"
    shutil.copy(fixtures[2], none)
    with h5py.File(none, "r+") as f:
        f["/meta"].attrs["windows"] = np.uint64(0)
    with pytest.raises(sipsim.SipsimError,
                       match=r"none-committed\.h5: the run committed no events"):
        scaling.predict(scaling.measured(sipsim.open(none)), [(4, 1.0)])
