"""How far a scenario scales: the windowed engine's parallel efficiency at other rank counts,
predicted from finished runs' scaling figures (/meta, docs/output.md) with the model of
docs/scaling.md ("The model").

    python -m sipsim.scaling RUN2.h5 --single RUN1.h5 --ranks 16,64,256
    python -m sipsim.scaling RUN2.h5 RUN1.h5 OTHER2.h5 OTHER1.h5 --ranks 16:1.0,64:1.2
    python -m sipsim.scaling RUN2.h5 --ranks 16,64,256 --exchange-ns 100 --collective-us 2

The runs, told apart by `/meta@ranks`: the first one on two or more ranks is the one predicted
(its windows W, events E, critical path and remote fraction). A run on one rank of the same
scenario (the same committed events; among the runs or `--single`) gives T1, its engine wall
time, which is the set-up u (wall - critical path: building the model, collecting the results)
plus the event loop, E c. Every run on two or more ranks measures the exchange: its
synchronisation time, wall - critical path - u / m, is W s + R x (R remote events per rank).
`--ranks` lists the rank counts P to predict, each with an optional `:I`, the static load
imbalance of the partition there (the max/mean of `python -m sipsim.loadbalance`; default 1).

From Python, `measured(run)` reads a run's figures, `fit(m, costs, singles, runs)` returns the
model's constants with where each came from (a `Model`), `predict(m, targets, costs, singles,
runs)` one `Prediction` per rank count and `report(...)` the text the command prints.

The model's parts, each in one place below so that it can be changed alone:

- the expected largest of P standard normals, e_P: `expected_max_normal`;
- the cost of an event, c: `event_seconds` (the 1-rank run's event loop per event; else the
  m-rank run's busy time per event, an estimate; or given);
- the set-up, u: `setup_seconds` (the 1-rank run's wall - critical path), u / P at P ranks
  (`setup_at`);
- the time of one rank, T1: `single_rank_seconds`;
- the per-window imbalance: the spread k of a rank's events in a window around their mean, in
  units of its square root, fitted to the measured run by `fit_k` (`POISSON_K` from one rank),
  and the expected busiest rank of P, `window_imbalance`;
- the remote fraction at P ranks: `remote_fraction`;
- the synchronisation of one window: a fixed cost s at the measured rank count m (the
  allreduce and the messages), growing with P as the collective latency a(P)
  (`allreduce_seconds`) and the number of peers sent to (`messages`, each `message_seconds`)
  do (`window_fixed_seconds`), plus x per remote event; s and x are fitted to the measured runs
  by `fit_exchange` (`EXCHANGE_NS` when there is nothing to fit x from).

Every constant is printed with where it came from: fitted (to which runs), measured, estimated,
given on the command line, cited (the collective latency) or assumed (a default of this module).
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .errors import MissingDataError, SipsimError
from .run import Run
from .run import open as open_run

# -- the model's constants (docs/scaling.md, "The model") ----------------------------------------

# A point-to-point message of the exchange, in microseconds (one per peer a rank sends to in a
# window): assumed, not measured here; at the measured rank count it is part of the fitted s,
# beyond it each extra peer costs this much.
MESSAGE_US = 1.0
# x, the exchange cost of one remote event, when no multi-rank run is given to fit it from:
# about what the RAMP all-reduce's 2-rank runs and the least-squares fit over them and PHOLD's
# gave on the 2-core reference machine, 297-340 ns (PHOLD alone: 140 ns; docs/scaling.md,
# "Predicted against measured, 1 and 2 ranks").
EXCHANGE_NS = 300.0
# The allreduce of every window (docs/scaling.md, "Collective cost a(P)"): 6 us for an
# eight-byte MPI_Allreduce on 128 hosts (2^7) with host-based reduction, growing as log2 P (a
# binomial tree), plus its payload of 15 + P words of 8 bytes per step at 10 GB/s.
ALLREDUCE_SECONDS = 6e-6
ALLREDUCE_LOG2_HOSTS = 7
ALLREDUCE_WORDS = 15
ALLREDUCE_BYTES_PER_S = 10e9
# k when the measured run had one rank (nothing to fit): a rank's events in a window scatter
# like Poisson counts, a spread of sqrt(mean).
POISSON_K = 1.0


@dataclass(frozen=True)
class Measured:
    """One run's scaling figures (docs/output.md, /meta)."""

    path: str
    ranks: int  # m
    engine: str
    events: int  # E, committed events
    windows: int  # W
    wall_s: float
    busy_mean_s: float  # mean over ranks of the busy time
    busy_max_s: float
    critical_path_s: float
    critical_path_events: int  # C: sum over windows of the busiest rank's events
    remote_fraction: float  # f_m

    @property
    def events_per_window(self) -> float:
        """n = E / W, all ranks."""
        return self.events / self.windows

    @property
    def beta(self) -> float:
        """The measured per-window imbalance, beta_m = C m / E (1 = every window even)."""
        return self.critical_path_events * self.ranks / self.events

    @property
    def remote_per_rank(self) -> float:
        """R, the remote events per rank over the run: f_m E / m."""
        return self.remote_fraction * self.events / self.ranks

    @property
    def remote_per_window_rank(self) -> float:
        """The remote events per rank per window: f_m n / m."""
        return self.remote_fraction * self.events_per_window / self.ranks

    @property
    def outside_loop_s(self) -> float:
        """wall - critical path: the engine's wall time less the time its event loop would take
        with free synchronisation. On one rank that is the set-up (building the model, the
        first events) and the collection of the results; on several, those and the
        synchronisation."""
        return self.wall_s - self.critical_path_s


@dataclass(frozen=True)
class Costs:
    """What the command line gives, in its units; None where the model fits or assumes it."""

    event_ns: Optional[float] = None  # c; None: from the 1-rank run, else the busy time
    collective_us: Optional[float] = None  # a(P) at every P; None: the cited allreduce_seconds
    message_us: Optional[float] = None  # per message; None: MESSAGE_US (assumed)
    exchange_ns: Optional[float] = None  # x; None: fitted (EXCHANGE_NS without a run to fit)
    remote_at_inf: float = 1.0  # remote fraction as P -> infinity, for a one-rank run


@dataclass(frozen=True)
class Model:
    """The model's constants for one prediction, each with where it came from (a phrase that
    starts with fitted, measured, estimated, given, cited or assumed). Times in seconds."""

    ranks: int  # m, the rank count s is the window's fixed cost at
    c: float  # per event
    c_source: str
    u: float  # set-up, at every P
    u_source: str
    t1: float
    t1_source: str
    k: float
    k_source: str
    s: float  # per window at m ranks
    s_source: str
    x: float  # per remote event
    x_source: str
    message_s: float
    message_source: str
    collective_source: str


@dataclass(frozen=True)
class Prediction:
    """The model at P ranks (docs/scaling.md): times in seconds, per run."""

    ranks: int
    imbalance: float  # I, static
    events_per_window_rank: float  # mu_P
    beta: float
    critical_path_events: float
    remote_fraction: float
    setup_s: float
    compute_s: float
    sync_s: float
    wall_s: float
    speedup: float
    efficiency: float  # T1 / (P wall)
    loop_efficiency: float  # the event loop's alone: (T1 - u) / (P (compute + sync))


_FIGURES = {  # Measured field: (/meta attribute, kind)
    "ranks": ("ranks", int), "engine": ("engine", str), "events": ("committed_events", int),
    "windows": ("windows", int), "wall_s": ("wall_seconds", float),
    "busy_mean_s": ("busy_seconds_mean", float), "busy_max_s": ("busy_seconds_max", float),
    "critical_path_s": ("critical_path_seconds", float),
    "critical_path_events": ("critical_path_events", int),
    "remote_fraction": ("remote_fraction", float),
}


def measured(run: Run) -> Measured:
    """The scaling figures of an open run (`sipsim.open`). MissingDataError when the file has
    none (made before sipsim recorded them), SipsimError when one is not a number."""
    if "critical_path_events" not in run.meta:
        raise MissingDataError(f"{run.path} has no scaling figures (/meta@critical_path_events): "
                               f"made by an older sipsim")
    values = {}
    for field, (name, kind) in _FIGURES.items():
        v = run.meta.get(name)
        if v is None:
            raise MissingDataError(f"{run.path} has no /meta@{name} (docs/output.md)")
        ok = isinstance(v, str) if kind is str else (
            isinstance(v, (int, float)) and not isinstance(v, bool)
            and (kind is float or float(v).is_integer()))
        if not ok:
            shown = repr(v) if len(repr(v)) <= 60 else repr(v)[:57] + "..."
            raise SipsimError(f"{run.path}: /meta@{name} is {shown}, not "
                              f"{'a string' if kind is str else 'a number'} (docs/output.md)")
        values[field] = v if kind is not int else int(v)
    return Measured(path=run.path, **values)


# -- the model ----------------------------------------------------------------------------------

def _log2(x: float) -> float:
    return math.log(x) / math.log(2)


@functools.lru_cache(maxsize=None)
def expected_max_normal(p: int) -> float:
    """e_P, the expected largest of P independent standard normals: the integral of
    x P phi(x) Phi(x)^(P-1) over the real line, by Simpson's rule (e_1 = 0, e_2 = 1/sqrt(pi),
    e_3 = 3/(2 sqrt(pi)); close to sqrt(2 ln P) only for very large P)."""
    if p < 1:
        raise ValueError(f"expected_max_normal({p}): P must be at least 1")
    if p == 1:
        return 0.0
    lo, hi = -12.0, 12.0 + math.sqrt(2 * math.log(p))
    n = 12000  # even; the integrand's peak stays wider than 50 steps up to P = 10^9
    h = (hi - lo) / n
    root2 = math.sqrt(2)
    norm = 1 / math.sqrt(2 * math.pi)

    def integrand(x: float) -> float:
        # log Phi(x), accurate in both tails
        log_cdf = (math.log(0.5 * math.erfc(-x / root2)) if x < 0
                   else math.log1p(-0.5 * math.erfc(x / root2)))
        return p * x * norm * math.exp(-0.5 * x * x + (p - 1) * log_cdf)

    total = integrand(lo) + integrand(hi)
    for i in range(1, n):
        total += (4 if i % 2 else 2) * integrand(lo + i * h)
    return total * h / 3


def event_seconds(m: Measured, costs: Costs, single: Optional[Measured] = None
                  ) -> Tuple[float, str]:
    """c, the time of one event in the event loop, sending included, and where it came from:
    `costs.event_ns` (given); the 1-rank run's critical path (its event loop) / E (measured);
    else the m-rank run's mean busy time x ranks / E (an estimate: a loaded machine and the
    cost of sending remote events inflate it)."""
    if costs.event_ns is not None:
        return costs.event_ns * 1e-9, "given (--event-ns)"
    if single is not None:
        return (single.critical_path_s / single.events,
                f"measured: event loop (critical path) / E of the 1-rank run {single.path}")
    return (m.busy_mean_s * m.ranks / m.events,
            f"estimated: mean busy time x {m.ranks} ranks / E of {m.path} (no 1-rank run)")


def setup_seconds(single: Optional[Measured]) -> Tuple[float, str]:
    """u, the 1-rank engine's wall time outside its event loop (building the model, collecting
    the results): the 1-rank run's wall - critical path (measured); 0 without a 1-rank run,
    when it is counted in the synchronisation instead."""
    if single is None:
        return 0.0, "unknown without a 1-rank run: counted in the synchronisation (and in x)"
    return (max(0.0, single.outside_loop_s),
            f"measured: wall - critical path of the 1-rank run {single.path}")


def setup_at(u: float, p: int) -> float:
    """The set-up at P ranks: u / P, each rank building its own LPs (docs/scaling.md measured
    about half of u at 2 ranks)."""
    return u / p


def single_rank_seconds(m: Measured, c: float, u: float, single: Optional[Measured] = None
                        ) -> Tuple[float, str]:
    """T1, the time one rank takes, against which the speed-up and the efficiency are: the
    1-rank run's engine wall time (u + E c), else every event at the cost c."""
    if single is not None:
        return single.wall_s, f"measured: engine wall time of the 1-rank run {single.path}"
    return u + m.events * c, (f"estimated from the busy time of the {m.ranks}-rank run: E x c"
                              if m.ranks > 1 else "E x c")


def fit_k(m: Measured) -> float:
    """k, the spread of a rank's events in one window around their mean mu, in units of
    sqrt(mu): fitted to the measured run, whose busiest rank of m carried beta_m times the mean,
    as beta_m = 1 + k e_m / sqrt(mu_m); POISSON_K from a one-rank run; never below 0."""
    mu_m = m.events_per_window / m.ranks
    k = POISSON_K
    if m.ranks >= 2 and mu_m > 0:
        k = (m.beta - 1) * math.sqrt(mu_m) / expected_max_normal(m.ranks)
    return max(0.0, k)


def window_imbalance(p: int, mu: float, k: float, imbalance: float) -> float:
    """beta_P, the expected busiest rank-window over the mean at P ranks: the largest of P
    spreads of k sqrt(mu) is e_P of them, times the static imbalance I; 1 on one rank, at most
    P."""
    if p == 1:
        return 1.0
    beta = imbalance * (1 + k * expected_max_normal(p) / math.sqrt(mu if mu > 0 else 1))
    return min(beta, float(p))


def remote_fraction(m: Measured, p: int, costs: Costs) -> float:
    """f_P: destinations spread over the other ranks, f_m (1 - 1/P) / (1 - 1/m); from a
    one-rank run `costs.remote_at_inf` (1 - 1/P); at most 1."""
    if m.ranks >= 2:
        fp = m.remote_fraction * (1 - 1 / p) / (1 - 1 / m.ranks)
    else:
        fp = costs.remote_at_inf * (1 - 1 / p)
    return min(fp, 1.0)


def allreduce_seconds(p: int, costs: Costs) -> float:
    """a(P), one window's allreduce of (ALLREDUCE_WORDS + P) words (cited), or
    `costs.collective_us` at every P (given); 0 on one rank."""
    if p < 2:
        return 0.0
    if costs.collective_us is not None:
        return costs.collective_us * 1e-6
    return (ALLREDUCE_SECONDS * _log2(p) / ALLREDUCE_LOG2_HOSTS
            + 8 * (ALLREDUCE_WORDS + p) * _log2(p) / ALLREDUCE_BYTES_PER_S)


def messages(p: int, remote_per_window: float) -> float:
    """M_P, the messages a rank sends per window: one per peer it has events for, at most
    P - 1 and at most its remote events."""
    return min(remote_per_window, p - 1.0) if p > 1 else 0.0


def message_seconds(costs: Costs) -> float:
    """The cost of one point-to-point message: `costs.message_us` or MESSAGE_US."""
    return (costs.message_us if costs.message_us is not None else MESSAGE_US) * 1e-6


def window_fixed_seconds(p: int, remote_per_window: float, costs: Costs) -> float:
    """The model's fixed cost of a window at P ranks before any fit: a(P) + M_P x the cost of a
    message. The fitted s at m ranks grows with P by this one's difference from m."""
    return allreduce_seconds(p, costs) + messages(p, remote_per_window) * message_seconds(costs)


def _growth(p: int, remote_per_window: float, m: Measured, costs: Costs) -> float:
    """How much more a window's fixed cost is at P ranks than at the predicted run's m."""
    return (window_fixed_seconds(p, remote_per_window, costs)
            - window_fixed_seconds(m.ranks, m.remote_per_window_rank, costs))


def fit_exchange(m: Measured, runs: Sequence[Measured], costs: Costs,
                 setups: Optional[Sequence[float]] = None) -> Tuple[float, str, float, str]:
    """(s, where from, x, where from): the fixed cost of a window at m ranks and the cost of
    one remote event, from the multi-rank `runs`, each of which synchronised for
    wall - critical path - u / m_i = W (s + g) + R x, with u the set-up of its 1-rank run
    (`setups`, 0 when unknown), m_i its ranks and g the model's growth of the fixed cost from m
    to m_i (0 when m_i = m).

    - x given (--exchange-ns): s fitted to the runs by least squares (s = a(m) + M_m messages
      instead when --collective-us is given too, or no run is);
    - one run, or --collective-us given: s = a(m) + M_m messages (cited or given, as the
      collective is), x fitted to what is left, by least squares when several runs;
    - two or more runs: s and x both by least squares (as for one run when the runs have W and
      R in the same proportion, which cannot tell them apart);
    - no run with remote events: s = a(m) + M_m messages, x = EXCHANGE_NS (assumed).
    s and x are never below 0: a negative one is set to 0 and the other fitted again."""
    if setups is None:
        setups = [0.0] * len(runs)
    rows = [(r.windows, r.remote_per_rank,
             r.outside_loop_s - setup_at(u, r.ranks)
             - r.windows * _growth(r.ranks, r.remote_per_window_rank, m, costs))
            for r, u in zip(runs, setups) if r.ranks >= 2]
    names = ", ".join(r.path for r in runs if r.ranks >= 2)
    s_model = window_fixed_seconds(m.ranks, m.remote_per_window_rank, costs)
    coll = ("given (--collective-us)" if costs.collective_us is not None
            else "cited (6 us x log2(P)/7 + payload at 10 GB/s)")
    s_modelled = (f"a({m.ranks}) {coll} + {messages(m.ranks, m.remote_per_window_rank):.3g}"
                  f" messages at {message_seconds(costs) * 1e6:.2f} us "
                  f"({'given' if costs.message_us is not None else 'assumed'})")

    def fit_x(s: float) -> Optional[float]:
        rr = sum(R * R for _, R, _ in rows)
        if rr == 0:
            return None
        return max(0.0, sum(R * (y - W * s) for W, R, y in rows) / rr)

    def fit_s(x: float) -> float:
        ww = sum(W * W for W, _, _ in rows)
        return max(0.0, sum(W * (y - R * x) for W, R, y in rows) / ww)

    by = f"from {names}" if len(rows) == 1 else f"by least squares over {len(rows)} runs ({names})"
    if costs.exchange_ns is not None:
        x = costs.exchange_ns * 1e-9
        if not rows or costs.collective_us is not None:
            return s_model, s_modelled, x, "given (--exchange-ns)"
        return fit_s(x), f"fitted {by}, with x given", x, "given (--exchange-ns)"
    if len(rows) >= 2 and costs.collective_us is None:
        sww = sum(W * W for W, _, _ in rows)
        srr = sum(R * R for _, R, _ in rows)
        swr = sum(W * R for W, R, _ in rows)
        det = sww * srr - swr * swr
        if det > 1e-9 * sww * srr:
            swy = sum(W * y for W, _, y in rows)
            sry = sum(R * y for _, R, y in rows)
            s = (swy * srr - sry * swr) / det
            x = (sry * sww - swy * swr) / det
            label = f"fitted {by}"
            if s < 0:
                return 0.0, label + ", clamped at 0", fit_x(0.0), label + ", with s = 0"
            if x < 0:
                return fit_s(0.0), label + ", with x = 0", 0.0, label + ", clamped at 0"
            return s, label, x, label
        s_modelled += " (the runs' W and R are in proportion: they cannot separate s from x)"
    x = fit_x(s_model)
    if x is None:
        return (s_model, s_modelled, EXCHANGE_NS * 1e-9,
                f"assumed (EXCHANGE_NS, fitted on the reference machine): no multi-rank run "
                f"with remote events to fit it from")
    return s_model, s_modelled, x, f"fitted {by}, with s as given here"


def one_rank_run(m: Measured, singles: Sequence[Measured]) -> Optional[Measured]:
    """The 1-rank run of m's scenario among `singles` (the same committed events; m itself when
    it is one), or None. SipsimError when two are."""
    if m.ranks == 1:
        return m
    same = [r for r in singles if r.ranks == 1 and r.events == m.events]
    if len(same) > 1:
        raise SipsimError(f"{', '.join(r.path for r in same)}: more than one 1-rank run of the "
                          f"scenario of {m.path}: give the one T1 is taken from")
    return same[0] if same else None


def fit(m: Measured, costs: Costs = Costs(), singles: Sequence[Measured] = (),
        runs: Optional[Sequence[Measured]] = None) -> Model:
    """The model's constants for predicting the run `m`: c, u and T1 (from its 1-rank run among
    `singles`, when there is one), k (from m), s and x (from `runs`, the multi-rank runs,
    default m itself when it is one, less the set-up of each run's own 1-rank run).
    SipsimError when a 1-rank run is of none of the runs' scenarios (its committed events are
    not theirs) or when both a 1-rank run and `costs.event_ns` give c."""
    if runs is None:
        runs = [m] if m.ranks >= 2 else []
    runs = [r for r in runs if r.ranks >= 2]
    for one in singles:
        if one.ranks != 1:
            raise SipsimError(f"{one.path}: a run on {one.ranks} ranks, not 1")
        if one is not m and all(one.events != r.events for r in [m, *runs]):
            raise SipsimError(f"{one.path}: {one.events} committed events, which none of the "
                              f"multi-rank runs has: not a 1-rank run of their scenario")
    single = one_rank_run(m, singles)
    if single is not None and costs.event_ns is not None:
        raise SipsimError(f"--event-ns and the 1-rank run {single.path} both give the cost of "
                          f"an event: give one")
    c, c_source = event_seconds(m, costs, single)
    u, u_source = setup_seconds(single)
    t1, t1_source = single_rank_seconds(m, c, u, single)
    k = fit_k(m)
    k_source = (f"fitted to {m.path}: beta_{m.ranks} = {m.beta:.4f}, "
                f"e_{m.ranks} = {expected_max_normal(m.ranks):.4f}" if m.ranks >= 2
                else "assumed (POISSON_K: a one-rank run has nothing to fit)")
    setups = [setup_seconds(one_rank_run(r, singles))[0] for r in runs]
    s, s_source, x, x_source = fit_exchange(m, runs, costs, setups)
    return Model(ranks=m.ranks, c=c, c_source=c_source, u=u, u_source=u_source, t1=t1,
                 t1_source=t1_source, k=k, k_source=k_source, s=s, s_source=s_source, x=x,
                 x_source=x_source, message_s=message_seconds(costs),
                 message_source="given" if costs.message_us is not None else "assumed",
                 collective_source=("given (--collective-us)" if costs.collective_us is not None
                                    else "cited (6 us x log2(P)/7 + payload at 10 GB/s)"))


def _check(m: Measured) -> None:
    if m.windows == 0 or m.events == 0:
        raise SipsimError(f"{m.path}: the run committed no events in windows: nothing to predict")
    if m.ranks == 1 and m.engine == "sequential":
        raise SipsimError(f"{m.path}: a sequential run counts its whole run as one window, and "
                          f"the model needs the windows W: give a run on 2 or more ranks too "
                          f"(or a 1-rank run with --set simulation.engine=windowed)")


def predict(m: Measured, targets: Sequence[Tuple[int, float]], costs: Costs = Costs(),
            singles: Sequence[Measured] = (), runs: Optional[Sequence[Measured]] = None,
            model: Optional[Model] = None) -> List[Prediction]:
    """The model at each (P, I) of `targets`, with `model` or the constants of `fit(m, costs,
    singles, runs)`. SipsimError when the run committed no events in windows, or ran the
    sequential engine."""
    _check(m)
    if model is None:
        model = fit(m, costs, singles, runs)
    n = m.events_per_window
    out = []
    for p, imbalance in targets:
        mu = n / p
        beta = window_imbalance(p, mu, model.k, imbalance)
        fp = remote_fraction(m, p, costs)
        remote_w = fp * n / p  # remote events per window per rank
        compute = m.windows * mu * beta * model.c
        sync = 0.0
        if p > 1:
            s_p = max(0.0, model.s + _growth(p, remote_w, m, costs))
            sync = m.windows * (s_p + remote_w * model.x)
        setup = setup_at(model.u, p)
        t = setup + compute + sync
        out.append(Prediction(p, imbalance, mu, beta, m.windows * mu * beta, fp, setup,
                              compute, sync, t, model.t1 / t, model.t1 / (p * t),
                              (model.t1 - model.u) / (p * (compute + sync))))
    return out


# -- the report ---------------------------------------------------------------------------------

def report(m: Measured, targets: Sequence[Tuple[int, float]], costs: Costs = Costs(),
           singles: Sequence[Measured] = (), runs: Optional[Sequence[Measured]] = None) -> str:
    """What `python -m sipsim.scaling` prints: the runs' figures, the model's constants and
    where each came from, then one row per rank count."""
    _check(m)
    model = fit(m, costs, singles, runs)
    rows = predict(m, targets, costs, singles, runs, model)
    if runs is None:
        runs = [m] if m.ranks >= 2 else []
    lines = [
        f"measured: {m.path}: {m.ranks} ranks ({m.engine}), {m.events} events, "
        f"{m.windows} windows, {m.events_per_window:.1f} events/window,",
        f"          remote fraction {m.remote_fraction:.3f}, critical path "
        f"{m.critical_path_events} events (x{m.beta:.3f} of even), wall {m.wall_s:.3f} s, "
        f"busy {m.busy_mean_s:.3f} s mean, {m.busy_max_s:.3f} s max, critical path "
        f"{m.critical_path_s:.3f} s",
    ]
    for r in runs:
        if r is not m and r.ranks >= 2:
            lines.append(f"exchange: {r.path}: {r.ranks} ranks, {r.windows} windows, "
                         f"{r.remote_per_rank:.0f} remote events per rank, wall - critical path "
                         f"{r.outside_loop_s:.3f} s")
    for one in singles:
        if one is not m:
            lines.append(f"1 rank:   {one.path}: {one.events} events ({one.engine}), wall "
                         f"{one.wall_s:.3f} s, critical path {one.critical_path_s:.3f} s")
    if m.ranks > 1 and one_rank_run(m, singles) is None:
        lines.append(f"1 rank:   none of this scenario: T1 is estimated from the busy time of "
                     f"the {m.ranks}-rank run")
    lines += [
        "model:",
        f"  c  = {model.c * 1e9:.1f} ns per event: {model.c_source}",
        f"  u  = {model.u:.3f} s set-up on 1 rank, u / P on P: {model.u_source}",
        f"  T1 = {model.t1:.3f} s: {model.t1_source}",
        f"  k  = {model.k:.3f}: {model.k_source}",
        f"  s  = {model.s * 1e6:.2f} us per window at {model.ranks} ranks: {model.s_source}",
        f"  x  = {model.x * 1e9:.1f} ns per remote event: {model.x_source}",
        f"  s(P) = s + [a(P) - a({model.ranks})] + [M_P - M_{model.ranks}] x "
        f"{model.message_s * 1e6:.2f} us ({model.message_source}); a(P) "
        f"{model.collective_source}",
        "",
        "%6s %6s %12s %8s %14s %8s %9s %10s %9s %9s %9s %8s %10s" % (
            "ranks", "I", "events/w/r", "beta", "crit_events", "remote", "setup_s",
            "compute_s", "sync_s", "wall_s", "speedup", "effic", "loop_effic"),
    ]
    for r in rows:
        lines.append("%6d %6.3f %12.1f %8.3f %14.0f %8.3f %9.3f %10.3f %9.3f %9.3f %9.2f %8.3f "
                     "%10.3f" % (r.ranks, r.imbalance, r.events_per_window_rank, r.beta,
                                 r.critical_path_events, r.remote_fraction, r.setup_s,
                                 r.compute_s, r.sync_s, r.wall_s, r.speedup, r.efficiency,
                                 r.loop_efficiency))
    return "\n".join(lines) + "\n"


def parse_targets(text: str) -> List[Tuple[int, float]]:
    """"16,64:1.2,256" -> [(16, 1.0), (64, 1.2), (256, 1.0)]: rank counts, each with its
    static imbalance I (default 1)."""
    out = []
    for item in text.split(","):
        p_text, _, i_text = item.strip().partition(":")
        try:
            p = int(p_text)
            imbalance = float(i_text) if i_text else 1.0
        except ValueError:
            raise SipsimError(f"--ranks {text}: {item.strip()!r} is not P or P:I (a rank count, "
                              f"and a static imbalance)") from None
        if p < 1 or not math.isfinite(imbalance) or imbalance < 1:
            raise SipsimError(f"--ranks {text}: {item.strip()!r}: P must be at least 1 and I "
                              f"(max/mean of the ranks' loads) at least 1")
        out.append((p, imbalance))
    return out


def sort_runs(runs: Sequence[Measured]) -> Tuple[Measured, List[Measured], List[Measured]]:
    """(the run predicted, the 1-rank runs, the multi-rank runs) of the runs given, in their
    order: the first multi-rank run is the one predicted (the first run when none is)."""
    multi = [r for r in runs if r.ranks >= 2]
    return (multi[0] if multi else runs[0]), [r for r in runs if r.ranks == 1], multi


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m sipsim.scaling",
        description="Predict the windowed engine's parallel efficiency at other rank counts "
                    "from finished runs' scaling figures (docs/scaling.md).")
    ap.add_argument("runs", nargs="+", metavar="run",
                    help="finished run files (.h5): the first on 2 or more ranks is predicted; "
                         "each on 2 or more ranks measures the exchange; one on 1 rank of the "
                         "same scenario gives T1, the set-up and the cost of an event")
    ap.add_argument("--single", metavar="RUN1",
                    help="a 1-rank run, as if given among the runs")
    ap.add_argument("--ranks", default="16,64,256", metavar="P[:I],...",
                    help="rank counts to predict, each with its static load imbalance I "
                         "(max/mean of python -m sipsim.loadbalance; default 1); "
                         "default 16,64,256")
    ap.add_argument("--event-ns", type=float, metavar="NS",
                    help="cost per event c (default: the 1-rank run's event loop / events, "
                         "else the multi-rank run's mean busy time x ranks / events)")
    ap.add_argument("--exchange-ns", type=float, metavar="NS",
                    help="exchange cost x per remote event (default: fitted to the multi-rank "
                         f"runs' synchronisation time; {EXCHANGE_NS:g} without one)")
    ap.add_argument("--collective-us", type=float, metavar="US",
                    help="per-window collective cost a(P) at every P, e.g. from OSU "
                         "osu_allreduce (default: 6 us x log2(P)/7 plus the payload at 10 GB/s)")
    ap.add_argument("--message-us", type=float, metavar="US",
                    help=f"cost per point-to-point message (default {MESSAGE_US:g})")
    ap.add_argument("--remote-at-inf", type=float, default=1.0, metavar="F",
                    help="remote fraction as P -> infinity when no run had 2 or more ranks "
                         "(default 1: every event crosses ranks, the worst case)")
    a = ap.parse_args(argv)
    for flag, v in (("--event-ns", a.event_ns), ("--exchange-ns", a.exchange_ns),
                    ("--collective-us", a.collective_us), ("--message-us", a.message_us),
                    ("--remote-at-inf", a.remote_at_inf)):
        if v is not None and (not math.isfinite(v) or v < 0):
            ap.error(f"{flag} {v}: a number >= 0")
    costs = Costs(event_ns=a.event_ns, collective_us=a.collective_us, message_us=a.message_us,
                  exchange_ns=a.exchange_ns, remote_at_inf=a.remote_at_inf)
    try:
        targets = parse_targets(a.ranks)
        runs = [measured(open_run(path)) for path in a.runs]
        if a.single is not None:
            single = measured(open_run(a.single))
            if single.ranks != 1:
                raise SipsimError(f"--single {single.path}: a run on {single.ranks} ranks, "
                                  f"not 1")
            runs.append(single)
        target, singles, multi = sort_runs(runs)
        sys.stdout.write(report(target, targets, costs, singles, multi))
    except SipsimError as e:
        print(f"sipsim.scaling: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
