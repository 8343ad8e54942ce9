"""python -m sipsim.scaling (docs/scaling.md, "The model"): e_P, the fits of k, of the
exchange (s and x) and of T1, each against figures made up so that the answer is known, and the
command's labels of where each constant came from.

The command-line tests use run files made by the binary whose /meta scaling figures are set to
the values below (a 2-rank and a 1-rank PHOLD 4K run of 200 us, as sipsim recorded them)."""

import math
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

from conftest import ROOT, sipsim_binary

import sipsim
from sipsim import scaling

FIGURES_2 = dict(ranks=2, engine="windowed", committed_events=407767, windows=199,
                 wall_seconds=0.093005, busy_seconds_mean=0.043792, busy_seconds_max=0.044574,
                 critical_path_seconds=0.054812, critical_path_events=207059,
                 remote_fraction=0.126371)
FIGURES_1 = dict(ranks=1, engine="sequential", committed_events=407767, windows=1,
                 wall_seconds=0.0846178, busy_seconds_mean=0.0834236,
                 busy_seconds_max=0.0834236, critical_path_seconds=0.0834236,
                 critical_path_events=407767, remote_fraction=0.0)


def fake(path="run.h5", ranks=2, events=1_000_000, windows=1000, wall=1.0, busy=None,
         critical_path_s=None, critical_path_events=None, remote_fraction=0.25,
         engine=None):
    """A Measured made up: by default every window split evenly and no time outside events."""
    critical_path_s = wall if critical_path_s is None else critical_path_s
    busy = critical_path_s if busy is None else busy
    return scaling.Measured(
        path=path, ranks=ranks, engine=engine or ("windowed" if ranks > 1 else "sequential"),
        events=events, windows=windows, wall_s=wall, busy_mean_s=busy, busy_max_s=busy,
        critical_path_s=critical_path_s,
        critical_path_events=(events // ranks if critical_path_events is None
                              else critical_path_events),
        remote_fraction=remote_fraction if ranks > 1 else 0.0)


# -- e_P ----------------------------------------------------------------------------------------

def test_expected_max_of_normals_known_values():
    e = scaling.expected_max_normal
    assert e(1) == 0.0
    assert e(2) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-6)
    assert e(3) == pytest.approx(3 / (2 * math.sqrt(math.pi)), abs=1e-6)
    # The same integral by mpmath's quadrature at 30 digits, rounded.
    for p, value in ((4, 1.02937537), (5, 1.16296447), (8, 1.42360031), (10, 1.53875273),
                     (16, 1.76599139), (100, 2.50759364)):
        assert e(p) == pytest.approx(value, abs=1e-6), p
    values = [e(p) for p in (2, 4, 16, 256, 4096, 65536)]
    assert values == sorted(values)
    # The large-P formula the model used before overstates it, 2.1x at P = 2.
    assert math.sqrt(2 * math.log(2)) / e(2) == pytest.approx(2.086, abs=1e-3)
    for p in (2, 16, 256, 65536):
        assert e(p) < math.sqrt(2 * math.log(p))
    with pytest.raises(ValueError):
        e(0)


# -- k ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ranks,beta", [(2, 1.0173), (3, 1.05), (4, 1.2), (8, 1.01), (2, 1.0)])
def test_k_fit_round_trips(ranks, beta):
    """Predicted at its own rank count, the fitted k gives back the measured critical path."""
    events, windows = 2_046_279, 999
    crit = round(beta * events / ranks)
    m = fake(ranks=ranks, events=events, windows=windows, critical_path_events=crit)
    k = scaling.fit_k(m)
    mu = events / windows / ranks
    assert k == pytest.approx((crit * ranks / events - 1) * math.sqrt(mu)
                              / scaling.expected_max_normal(ranks), rel=1e-12)
    (row,) = scaling.predict(m, [(ranks, 1.0)])
    assert row.critical_path_events == pytest.approx(crit, rel=1e-9)
    assert row.beta == pytest.approx(m.beta, rel=1e-12)


def test_k_at_two_ranks_uses_one_over_root_pi():
    """At m = 2 the largest of two is 1/sqrt(pi) spreads above the mean, not sqrt(2 ln 2)."""
    events, windows = 2_000_000, 1000
    mu = events / windows / 2  # 1000
    crit = round((1 + 1.0 * (1 / math.sqrt(math.pi)) / math.sqrt(mu)) * events / 2)
    assert scaling.fit_k(fake(events=events, windows=windows,
                              critical_path_events=crit)) == pytest.approx(1.0, rel=1e-4)


def test_one_rank_run_k_is_poisson_and_beta_is_1_on_one_rank():
    m = fake(ranks=1, engine="windowed", critical_path_events=1_000_000)
    assert scaling.fit_k(m) == scaling.POISSON_K
    assert scaling.window_imbalance(1, 10.0, 5.0, 1.3) == 1.0
    assert scaling.window_imbalance(4, 1e-6, 5.0, 1.0) == 4.0  # capped at P
    assert scaling.window_imbalance(16, 100.0, 1.0, 1.2) == pytest.approx(
        1.2 * (1 + 1.7659913931 / 10), rel=1e-9)


# -- the exchange: s and x -----------------------------------------------------------------------

def _synthetic(path, s, x, windows, remote_fraction, u=0.0, events=1_000_000, crit_s=0.5):
    """A 2-rank run whose synchronisation is exactly W s + R x (plus a set-up u)."""
    m = fake(path=path, events=events, windows=windows, remote_fraction=remote_fraction,
             wall=0.0, critical_path_s=crit_s, busy=crit_s)
    wall = crit_s + u + windows * s + m.remote_per_rank * x
    return fake(path=path, events=events, windows=windows, remote_fraction=remote_fraction,
                wall=wall, critical_path_s=crit_s, busy=crit_s)


def test_one_run_fits_x_with_s_the_collective():
    costs = scaling.Costs()
    s_cited = scaling.allreduce_seconds(2, costs) + 1e-6  # a(2) and one message at 1 us
    m = _synthetic("a.h5", s=s_cited, x=350e-9, windows=999, remote_fraction=0.125)
    model = scaling.fit(m)
    assert model.s == pytest.approx(s_cited, rel=1e-12)
    assert model.x == pytest.approx(350e-9, rel=1e-9)
    assert model.x_source.startswith("fitted from a.h5")
    assert model.s_source.startswith("a(2) cited")
    # The user's collective latency replaces the cited one; x is what is left.
    given = scaling.Costs(collective_us=5.0)
    m5 = _synthetic("b.h5", s=6e-6, x=200e-9, windows=999, remote_fraction=0.125)
    model5 = scaling.fit(m5, given)
    assert model5.s == pytest.approx(6e-6, rel=1e-12)
    assert model5.x == pytest.approx(200e-9, rel=1e-9)
    assert "given (--collective-us)" in model5.s_source


def test_one_run_x_is_never_negative():
    """Less synchronisation than the collective alone: x clamps at 0."""
    m = _synthetic("a.h5", s=0.0, x=0.0, windows=999, remote_fraction=0.125)
    assert scaling.fit(m).x == 0.0


def test_two_runs_fit_s_and_x_by_least_squares():
    a = _synthetic("phold.h5", s=12e-6, x=250e-9, windows=999, remote_fraction=0.125)
    b = _synthetic("ramp.h5", s=12e-6, x=250e-9, windows=18, remote_fraction=0.234,
                   events=10_485_760)
    model = scaling.fit(a, runs=[a, b])
    assert model.s == pytest.approx(12e-6, rel=1e-9)
    assert model.x == pytest.approx(250e-9, rel=1e-9)
    assert model.s_source == model.x_source == (
        "fitted by least squares over 2 runs (phold.h5, ramp.h5)")


def test_three_noisy_runs_are_numpys_least_squares():
    runs = [_synthetic(f"r{i}.h5", s=10e-6, x=300e-9, windows=w, remote_fraction=f)
            for i, (w, f) in enumerate(((999, 0.125), (18, 0.234), (5000, 0.02)))]
    noise = (0.004, -0.003, 0.002)
    runs = [fake(path=r.path, events=r.events, windows=r.windows, wall=r.wall_s + d,
                 critical_path_s=r.critical_path_s, remote_fraction=r.remote_fraction)
            for r, d in zip(runs, noise)]
    a = np.array([[r.windows, r.remote_per_rank] for r in runs])
    y = np.array([r.wall_s - r.critical_path_s for r in runs])
    (s, x), *_ = np.linalg.lstsq(a, y, rcond=None)
    model = scaling.fit(runs[0], runs=runs)
    assert model.s == pytest.approx(s, rel=1e-9)
    assert model.x == pytest.approx(x, rel=1e-9)


def test_two_runs_clamp_a_negative_s_and_refit_x():
    a = _synthetic("a.h5", s=-20e-6, x=300e-9, windows=999, remote_fraction=0.125)
    b = _synthetic("b.h5", s=-20e-6, x=300e-9, windows=18, remote_fraction=0.234,
                   events=10_485_760)
    model = scaling.fit(a, runs=[a, b])
    assert model.s == 0.0 and "clamped at 0" in model.s_source
    ys = [(r.wall_s - r.critical_path_s, r.remote_per_rank) for r in (a, b)]
    assert model.x == pytest.approx(sum(y * r for y, r in ys) / sum(r * r for _, r in ys),
                                    rel=1e-12)


def test_runs_in_proportion_cannot_separate_s_from_x():
    """The same scenario twice: W and R alike, so s is the collective's and x fitted."""
    a = _synthetic("a.h5", s=scaling.allreduce_seconds(2, scaling.Costs()) + 1e-6, x=300e-9,
                   windows=999, remote_fraction=0.125)
    b = fake(path="b.h5", events=a.events, windows=a.windows, wall=a.wall_s + 0.001,
             critical_path_s=a.critical_path_s + 0.001, remote_fraction=a.remote_fraction)
    model = scaling.fit(a, runs=[a, b])
    assert "cannot separate s from x" in model.s_source
    assert model.x == pytest.approx(300e-9, rel=1e-9)


def test_exchange_ns_given_fits_s():
    m = _synthetic("a.h5", s=8e-6, x=120e-9, windows=999, remote_fraction=0.125)
    model = scaling.fit(m, scaling.Costs(exchange_ns=120))
    assert model.x == pytest.approx(120e-9, rel=1e-12)
    assert model.x_source == "given (--exchange-ns)"
    assert model.s == pytest.approx(8e-6, rel=1e-9)
    assert model.s_source == "fitted from a.h5, with x given"


def test_the_set_up_of_a_runs_1_rank_run_is_not_synchronisation():
    """The 1-rank run's wall - critical path (the set-up u), divided by the ranks, is taken off
    each run's synchronisation before the fit."""
    u = 0.8
    a = _synthetic("a2.h5", s=12e-6, x=250e-9, windows=999, remote_fraction=0.125, u=u / 2)
    a1 = fake(path="a1.h5", ranks=1, events=a.events, wall=1.0 + u, critical_path_s=1.0)
    model = scaling.fit(a, singles=[a1])
    assert model.u == pytest.approx(u, rel=1e-12)
    s_cited = scaling.allreduce_seconds(2, scaling.Costs()) + 1e-6
    y = 999 * 12e-6 + a.remote_per_rank * 250e-9
    assert model.x == pytest.approx((y - 999 * s_cited) / a.remote_per_rank, rel=1e-9)
    # Without the 1-rank run the set-up is counted in x.
    assert scaling.fit(a).x == pytest.approx(model.x + u / 2 / a.remote_per_rank, rel=1e-9)
    (row,) = scaling.predict(a, [(8, 1.0)], singles=[a1])
    assert row.setup_s == pytest.approx(u / 8, rel=1e-12)


def test_no_run_to_fit_x_from_assumes_it():
    m = fake(ranks=1, engine="windowed", critical_path_events=1_000_000)
    model = scaling.fit(m)
    assert model.x == pytest.approx(scaling.EXCHANGE_NS * 1e-9)
    assert model.x_source.startswith("assumed")


def test_sync_grows_with_the_collective_and_the_peers():
    """s fitted at 2 ranks; at P it grows by a(P) - a(2) and by the extra messages."""
    costs = scaling.Costs()
    m = _synthetic("a.h5", s=12e-6, x=250e-9, windows=100, remote_fraction=0.25,
                   events=100_000)
    other = _synthetic("b.h5", s=12e-6, x=250e-9, windows=10, remote_fraction=0.1,
                       events=100_000)
    model = scaling.fit(m, runs=[m, other])
    (row,) = scaling.predict(m, [(64, 1.0)], runs=[m, other])
    fp = scaling.remote_fraction(m, 64, costs)
    remote_w = fp * 1000 / 64
    s64 = (model.s + scaling.allreduce_seconds(64, costs) - scaling.allreduce_seconds(2, costs)
           + (min(remote_w, 63) - 1) * 1e-6)
    assert row.sync_s == pytest.approx(100 * (s64 + remote_w * model.x), rel=1e-12)


# -- T1 -----------------------------------------------------------------------------------------

def test_t1_is_the_1_rank_runs_wall():
    two = fake(path="two.h5", events=2_000_000, windows=999, wall=0.9, critical_path_s=0.6,
               busy=0.55)
    one = fake(path="one.h5", ranks=1, events=2_000_000, wall=1.25, critical_path_s=1.0)
    model = scaling.fit(two, singles=[one])
    assert model.t1 == 1.25
    assert model.c == pytest.approx(1.0 / 2_000_000, rel=1e-12)
    assert model.u == pytest.approx(0.25, rel=1e-12)
    assert "1-rank run one.h5" in model.t1_source and model.t1_source.startswith("measured")
    one_row, two_row = scaling.predict(two, [(1, 1.0), (2, 1.0)], singles=[one])
    assert one_row.wall_s == pytest.approx(1.25, rel=1e-12)
    assert one_row.speedup == pytest.approx(1.0, rel=1e-12)
    assert two_row.setup_s == pytest.approx(0.25 / 2)
    assert two_row.compute_s == pytest.approx(999 * (2_000_000 / 999 / 2) * 1.0 * 1e-6 / 2,
                                              rel=1e-12)
    # Without it: c from the 2-rank run's busy time, T1 = E c, and said so.
    alone = scaling.fit(two)
    assert alone.c == pytest.approx(0.55 * 2 / 2_000_000, rel=1e-12)
    assert alone.t1 == pytest.approx(0.55 * 2, rel=1e-12)
    assert alone.u == 0.0
    assert alone.t1_source.startswith("estimated from the busy time of the 2-rank run")


def test_1_rank_runs_are_matched_by_their_events():
    two = fake(path="two.h5", events=2_000_000)
    other = fake(path="other.h5", events=3_000_000)
    one_other = fake(path="one-other.h5", ranks=1, events=3_000_000, wall=2.0,
                     critical_path_s=1.5)
    # The other scenario's 1-rank run gives the other run's set-up, not T1.
    model = scaling.fit(two, singles=[one_other], runs=[two, other])
    assert model.t1_source.startswith("estimated")
    with pytest.raises(sipsim.SipsimError, match=r"one-other\.h5: 3000000 committed events"):
        scaling.fit(two, singles=[one_other])
    twice = [fake(path=f"one{i}.h5", ranks=1, events=2_000_000) for i in (1, 2)]
    with pytest.raises(sipsim.SipsimError, match=r"more than one 1-rank run"):
        scaling.fit(two, singles=twice)
    with pytest.raises(sipsim.SipsimError, match=r"--event-ns and the 1-rank run"):
        scaling.fit(two, scaling.Costs(event_ns=100), singles=twice[:1])


# -- the whole model, by hand -------------------------------------------------------------------

def test_the_model_by_hand():
    """A 16-rank row from docs/scaling.md's formulas, written out here."""
    E, W, crit, f = 407767, 199, 207059, 0.126371
    two = fake(path="two.h5", events=E, windows=W, wall=0.093005, critical_path_s=0.054812,
               busy=0.043792, critical_path_events=crit, remote_fraction=f)
    one = fake(path="one.h5", ranks=1, events=E, wall=0.0846178, critical_path_s=0.0834236)
    (row,) = scaling.predict(two, [(16, 1.2)], singles=[one])
    c = 0.0834236 / E
    u = 0.0846178 - 0.0834236
    n = E / W
    k = (crit * 2 / E - 1) * math.sqrt(n / 2) * math.sqrt(math.pi)
    beta = 1.2 * (1 + k * 1.7659913931 / math.sqrt(n / 16))
    fp = f * (1 - 1 / 16) / (1 - 1 / 2)
    remote = fp * n / 16

    def a(p):
        return 6e-6 * math.log2(p) / 7 + 8 * (15 + p) * math.log2(p) / 10e9

    s2 = a(2) + 1e-6
    R = f * E / 2
    x = (0.093005 - 0.054812 - u / 2 - W * s2) / R
    sync = W * (s2 + a(16) - a(2) + (min(remote, 15) - 1) * 1e-6 + remote * x)
    compute = W * (n / 16) * beta * c
    assert row.beta == pytest.approx(beta, rel=1e-9)
    assert row.remote_fraction == pytest.approx(fp, rel=1e-12)
    assert row.compute_s == pytest.approx(compute, rel=1e-9)
    assert row.sync_s == pytest.approx(sync, rel=1e-9)
    assert row.wall_s == pytest.approx(u / 16 + compute + sync, rel=1e-9)
    assert row.efficiency == pytest.approx(0.0846178 / (16 * (u / 16 + compute + sync)),
                                           rel=1e-9)
    assert row.loop_efficiency == pytest.approx(0.0834236 / (16 * (compute + sync)), rel=1e-9)


def test_parts_are_the_models_one_place(monkeypatch):
    """Each named part changes the prediction through its one name."""
    m = _synthetic("a.h5", s=12e-6, x=250e-9, windows=999, remote_fraction=0.125)
    (base,) = scaling.predict(m, [(64, 1.0)])
    monkeypatch.setattr(scaling, "MESSAGE_US", 2.0)
    (more,) = scaling.predict(m, [(64, 1.0)])
    assert more.sync_s > base.sync_s and more.compute_s == base.compute_s
    monkeypatch.setattr(scaling, "fit_k", lambda measured: 0.0)
    (even,) = scaling.predict(m, [(64, 1.0)])
    assert even.beta == 1.0
    monkeypatch.setattr(scaling, "expected_max_normal", lambda p: 0.0)
    (flat,) = scaling.predict(m, [(64, 1.3)])
    assert flat.beta == 1.3


# -- real run files and the command --------------------------------------------------------------

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


def _cli(*argv):
    return subprocess.run([sys.executable, "-m", "sipsim.scaling", *map(str, argv)],
                          capture_output=True, text=True, cwd=ROOT / "python", timeout=60)


def test_the_command_says_where_each_constant_came_from(fixtures):
    done = _cli(fixtures[2], fixtures[1], "--ranks", "1,2,16")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"T1 = 0.085 s: measured: engine wall time of the 1-rank run {fixtures[1]}" in out
    assert "c  = 204.6 ns per event: measured: event loop (critical path) / E" in out
    assert ("u  = 0.001 s set-up on 1 rank, u / P on P: measured: wall - critical path of the "
            "1-rank run") in out
    assert f"k  = 0.884: fitted to {fixtures[2]}: beta_2 = 1.0156, e_2 = 0.5642" in out
    assert re.search(r"s  = 1\.87 us per window at 2 ranks: a\(2\) cited .* 1 messages at "
                     r"1\.00 us \(assumed\)", out)
    assert re.search(rf"x  = [0-9.]+ ns per remote event: fitted from {fixtures[2]}", out)
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s+\d\.\d{3}\s", line)]
    assert [r[0] for r in rows] == ["1", "2", "16"]
    assert rows[0][9] == "0.085" and rows[0][10] == "1.00"  # wall at 1 rank = T1
    assert rows[1][4] == "207059"  # the measured critical path, from the fitted k
    # --single is the same as giving the 1-rank run among the runs.
    single = _cli(fixtures[2], "--single", fixtures[1], "--ranks", "1,2,16")
    assert single.stdout == out


def test_the_command_says_what_was_given(fixtures):
    done = _cli(fixtures[2], "--exchange-ns", "350", "--collective-us", "2", "--message-us",
                "0.5", "--ranks", "64")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "x  = 350.0 ns per remote event: given (--exchange-ns)" in out
    assert "a(2) given (--collective-us) + 1 messages at 0.50 us (given)" in out
    assert ("1 rank:   none of this scenario: T1 is estimated from the busy time of the "
            "2-rank run") in out
    assert "T1 = 0.088 s: estimated from the busy time of the 2-rank run: E x c" in out
    assert "u  = 0.000 s set-up on 1 rank, u / P on P: unknown without a 1-rank run" in out
    with_event = _cli(fixtures[2], "--event-ns", "150", "--ranks", "64")
    assert "c  = 150.0 ns per event: given (--event-ns)" in with_event.stdout


def test_two_multi_rank_runs_fit_both(tmp_path, fixtures):
    other = _with_figures(fixtures[2], tmp_path / "other.h5",
                          dict(committed_events=10485760, windows=18, wall_seconds=2.2,
                               critical_path_seconds=1.5, critical_path_events=5242880,
                               remote_fraction=0.234))
    done = _cli(fixtures[2], other, "--ranks", "16")
    assert done.returncode == 0, done.stderr
    assert f"fitted by least squares over 2 runs ({fixtures[2]}, {other})" in done.stdout
    assert f"exchange: {other}: 2 ranks, 18 windows" in done.stdout


def test_a_real_run_predicts_its_own_critical_path(collectives_run_2_ranks):
    """At the measured rank count the model's critical path is the measured one."""
    run = sipsim.open(collectives_run_2_ranks[0])
    m = scaling.measured(run)
    (row,) = scaling.predict(m, [(2, 1.0)])
    assert row.critical_path_events == pytest.approx(run.meta["critical_path_events"], rel=1e-9)
    assert row.remote_fraction == pytest.approx(run.meta["remote_fraction"], rel=1e-12)


def test_the_run_summary_predicts_as_this_module_does(collectives_run_2_ranks):
    """`sipsim run` writes the model's efficiency from the run alone (/meta@predicted_efficiency,
    the summary's `predicted` line): the same numbers as predict() without a 1-rank run."""
    path, stdout = collectives_run_2_ranks[0], collectives_run_2_ranks[1]
    run = sipsim.open(path)
    targets = [int(p) for p in run.meta["predicted_efficiency_ranks"]]
    assert targets == [2, 16, 64, 256]
    rows = scaling.predict(scaling.measured(run), [(p, 1.0) for p in targets])
    assert list(run.meta["predicted_efficiency"]) == pytest.approx(
        [r.efficiency for r in rows], rel=1e-9)
    shown = ", ".join(f"{r.efficiency:.2f} at {r.ranks}" for r in rows[1:])
    assert f"predicted           efficiency {rows[0].efficiency:.2f} at 2 ranks, {shown}" in stdout


def test_info_predicts_from_a_run_of_the_scenario(collectives_run_2_ranks, training_run):
    """`sipsim info SCENARIO --run RUN.h5` prints the same prediction; a run of another scenario
    is refused with one error naming the file."""
    path = collectives_run_2_ranks[0]
    scenario = str(ROOT / "scenarios" / "nccl" / "elect-flat.yaml")
    done = subprocess.run([str(sipsim_binary()), "info", scenario, "--run", str(path),
                           "--set", "fabric.nodes=8"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    run = sipsim.open(path)
    first = run.meta["predicted_efficiency"][0]
    assert f"predicted efficiency      {first:.2f} at 2 ranks," in done.stdout
    assert f"(from {path}, 2 ranks)" in done.stdout
    other = subprocess.run([str(sipsim_binary()), "info", scenario, "--run",
                            str(training_run[0])], capture_output=True, text=True, timeout=60)
    assert other.returncode == 2
    assert other.stderr.strip() == (f"sipsim: error: {training_run[0]}: a run of scenario "
                                    f"'gpt-1.3b-64gpu-ramp', not of 'elect-flat': give a run file of "
                                    f"this scenario")


def test_errors_name_the_file(tmp_path, fixtures):
    old = tmp_path / "old.h5"
    shutil.copy(fixtures[2], old)
    with h5py.File(old, "r+") as f:
        del f["/meta"].attrs["critical_path_events"]
    other = _with_figures(fixtures[1], tmp_path / "other1.h5", dict(committed_events=5))
    for argv, message in (([old], r"old\.h5 has no scaling figures"),
                          ([tmp_path / "none.h5"], r"none\.h5: no such run file"),
                          ([fixtures[2], "--ranks", "16,x"], r"'x' is not P or P:I"),
                          ([fixtures[2], "--ranks", "0"], r"P must be at least 1"),
                          ([fixtures[1]], r"one\.h5: a sequential run counts its whole run as "
                                          r"one window"),
                          ([fixtures[2], other], r"other1\.h5: 5 committed events"),
                          ([fixtures[2], "--single", fixtures[2]], r"--single .*two\.h5: a run "
                                                                   r"on 2 ranks, not 1"),
                          ([fixtures[2], fixtures[1], "--event-ns", "100"],
                           r"--event-ns and the 1-rank run")):
        done = _cli(*argv)
        assert done.returncode == 2 and done.stdout == "", (argv, done.stdout)
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
