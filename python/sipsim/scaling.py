"""How far a scenario scales: the windowed engine's parallel efficiency at other rank counts,
predicted from one finished run's scaling figures (/meta, docs/output.md) with the model of
docs/scaling.md ("The model").

    python -m sipsim.scaling RUN.h5 --ranks 16,64,256
    python -m sipsim.scaling ar.h5 --ranks 16:1.0,64:1.0,256:1.0 --event-ns 915

`--ranks` lists the rank counts P to predict, each with an optional `:I`, the static load
imbalance of the partition there (the max/mean of `python -m sipsim.loadbalance`; default 1).
From Python, `measured(run)` reads the figures, `predict(m, targets, costs)` returns one
`Prediction` per rank count and `report(...)` the text the command prints.

The model's parts, each in one place below so that it can be changed alone:

- the CPU cost of an event, c: `event_seconds` (measured busy time per event, or given);
- the time of one rank doing everything, T1: `single_rank_seconds`;
- the per-window imbalance: the spread k of a rank's events in a window around their mean, in
  units of its square root, fitted to the measured run by `fit_k` (`POISSON_K` from one rank),
  and the expected busiest rank of P, `window_imbalance`;
- the remote fraction at P ranks: `remote_fraction`;
- the synchronisation of one window: the allreduce (`allreduce_seconds`), one message per
  peer sent to (`MESSAGE_US`) and the exchange of the remote events themselves
  (`exchange_seconds`: `REMOTE_EVENT_BYTES` each at `EXCHANGE_BYTES_PER_S`).

The formulas, and the order of their floating-point operations, are those of the shell and awk
script this module replaced, so it prints the same numbers from the same figures.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from .errors import MissingDataError, SipsimError
from .run import Run
from .run import open as open_run

# -- the model's constants (docs/scaling.md, "The model") ----------------------------------------

# A point-to-point message of the exchange, in microseconds (one per peer a rank sends to in a
# window).
MESSAGE_US = 1.0
# The exchange cost of one remote event: its bytes on the wire at the exchange's rate. An
# event is packed in 64 bytes; 10 GB/s is a shared-memory or InfiniBand copy.
REMOTE_EVENT_BYTES = 64
EXCHANGE_BYTES_PER_S = 10e9
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


@dataclass(frozen=True)
class Costs:
    """What the model charges, in the units the command line takes them in."""

    event_ns: Optional[float] = None  # c; None: the run's busy time per event
    collective_us: Optional[float] = None  # a(P) at every P; None: allreduce_seconds(P)
    message_us: float = MESSAGE_US
    remote_at_inf: float = 1.0  # remote fraction as P -> infinity, for a one-rank run


@dataclass(frozen=True)
class Prediction:
    """The model at P ranks (docs/scaling.md): times in seconds, per run."""

    ranks: int
    imbalance: float  # I, static
    events_per_window_rank: float  # mu_P
    beta: float
    critical_path_events: float
    remote_fraction: float
    compute_s: float
    sync_s: float
    wall_s: float
    speedup: float
    efficiency: float


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


def event_seconds(m: Measured, costs: Costs) -> float:
    """c, the CPU time of one event, sending included: the run's mean busy time x ranks /
    events (a loaded machine inflates it), or `costs.event_ns`."""
    if costs.event_ns is not None:
        return costs.event_ns * 1e-9
    return m.busy_mean_s * m.ranks / m.events


def single_rank_seconds(m: Measured, c: float) -> float:
    """T1, the time one rank would take: every event at the cost c, no synchronisation. The
    speed-up and the efficiency are against it."""
    return m.events * c


def fit_k(m: Measured) -> float:
    """k, the spread of a rank's events in one window around their mean mu, in units of
    sqrt(mu): fitted to the measured run, whose busiest rank of m carried beta_m times the mean,
    as beta_m = 1 + k sqrt(2 ln m / mu_m); POISSON_K from a one-rank run; never below 0."""
    mu_m = m.events_per_window / m.ranks
    k = POISSON_K
    if m.ranks >= 2 and mu_m > 0:
        k = (m.beta - 1) * math.sqrt(mu_m) / math.sqrt(2 * math.log(m.ranks))
    if k < 0:
        k = 0
    return k


def window_imbalance(p: int, mu: float, k: float, imbalance: float) -> float:
    """beta_P, the expected busiest rank-window over the mean at P ranks: the largest of P
    spreads of k sqrt(mu) is about sqrt(2 ln P) of them, times the static imbalance I; 1 on one
    rank, at most P."""
    beta = imbalance * (1 + k * math.sqrt(2 * math.log(p) / (mu if mu > 0 else 1)))
    if p == 1:
        beta = 1
    if beta > p:
        beta = p
    return beta


def remote_fraction(m: Measured, p: int, costs: Costs) -> float:
    """f_P: destinations spread over the other ranks, f_m (1 - 1/P) / (1 - 1/m); from a
    one-rank run `costs.remote_at_inf` (1 - 1/P); at most 1."""
    if m.ranks >= 2:
        fp = m.remote_fraction * (1 - 1 / p) / (1 - 1 / m.ranks)
    else:
        fp = costs.remote_at_inf * (1 - 1 / p)
    if fp > 1:
        fp = 1
    return fp


def allreduce_seconds(p: int, costs: Costs) -> float:
    """a(P), one window's allreduce of (ALLREDUCE_WORDS + P) words, or `costs.collective_us`."""
    if costs.collective_us is not None:
        return costs.collective_us * 1e-6
    if p < 2:
        return 0
    return (ALLREDUCE_SECONDS * _log2(p) / ALLREDUCE_LOG2_HOSTS
            + 8 * (ALLREDUCE_WORDS + p) * _log2(p) / ALLREDUCE_BYTES_PER_S)


def exchange_seconds(remote_events: float) -> float:
    """The cost of moving `remote_events` events to other ranks in one window."""
    return remote_events * REMOTE_EVENT_BYTES / EXCHANGE_BYTES_PER_S


def predict(m: Measured, targets: Sequence[Tuple[int, float]],
            costs: Costs = Costs()) -> List[Prediction]:
    """The model at each (P, I) of `targets`. SipsimError when the run committed no events in
    windows."""
    if m.windows == 0 or m.events == 0:
        raise SipsimError(f"{m.path}: the run committed no events in windows: nothing to predict")
    c = event_seconds(m, costs)
    n = m.events_per_window
    k = fit_k(m)
    t1 = single_rank_seconds(m, c)
    out = []
    for p, imbalance in targets:
        mu = n / p
        beta = window_imbalance(p, mu, k, imbalance)
        fp = remote_fraction(m, p, costs)
        remote_w = fp * n / p  # remote events per window per rank
        msgs = remote_w if remote_w < p - 1 else p - 1
        compute = m.windows * mu * beta * c
        sync = (m.windows * (allreduce_seconds(p, costs) + msgs * costs.message_us * 1e-6
                             + exchange_seconds(remote_w)) if p > 1 else 0)
        t = compute + sync
        out.append(Prediction(p, imbalance, mu, beta, m.windows * mu * beta, fp, compute, sync,
                              t, t1 / t, t1 / (p * t)))
    return out


# -- the report ---------------------------------------------------------------------------------

def report(m: Measured, targets: Sequence[Tuple[int, float]], costs: Costs = Costs()) -> str:
    """What `python -m sipsim.scaling` prints: the measured figures, the model's k and costs,
    then one row per rank count."""
    rows = predict(m, targets, costs)
    c = event_seconds(m, costs)
    lines = [
        f"measured: {m.ranks} ranks ({m.engine}), {m.events} events, "
        f"{m.windows} windows, {m.events_per_window:.1f} events/window, {c * 1e9:.0f} ns/event,",
        f"          remote fraction {m.remote_fraction:.3f}, critical path "
        f"{m.critical_path_events} events (x{m.beta:.3f} of even), wall {m.wall_s:.3f} s, "
        f"busy {m.busy_mean_s:.3f} s mean, {m.busy_max_s:.3f} s max, critical path "
        f"{m.critical_path_s:.3f} s",
        "model: k = %.3f, collective %s, %.2f us per message" % (
            fit_k(m), f"{_number(costs.collective_us)} us per window"
            if costs.collective_us is not None
            else "6 us x log2(P)/7 + payload at 10 GB/s", costs.message_us),
        "",
        "%6s %6s %12s %10s %14s %10s %10s %10s %10s %9s %8s" % (
            "ranks", "I", "events/w/r", "beta", "crit_events", "remote", "compute_s", "sync_s",
            "wall_s", "speedup", "effic"),
    ]
    for r in rows:
        lines.append("%6d %6.3f %12.1f %10.3f %14.0f %10.3f %10.3f %10.3f %10.3f %9.2f %8.3f" % (
            r.ranks, r.imbalance, r.events_per_window_rank, r.beta, r.critical_path_events,
            r.remote_fraction, r.compute_s, r.sync_s, r.wall_s, r.speedup, r.efficiency))
    return "\n".join(lines) + "\n"


def _number(x: float) -> str:
    """A figure as given (2, 0.5), not 2.0."""
    return f"{x:g}"


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


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m sipsim.scaling",
        description="Predict the windowed engine's parallel efficiency at other rank counts "
                    "from one run's scaling figures (docs/scaling.md).")
    ap.add_argument("run", help="a finished run file (.h5)")
    ap.add_argument("--ranks", default="16,64,256", metavar="P[:I],...",
                    help="rank counts to predict, each with its static load imbalance I "
                         "(max/mean of python -m sipsim.loadbalance; default 1); "
                         "default 16,64,256")
    ap.add_argument("--event-ns", type=float, metavar="NS",
                    help="CPU cost per event (default: the run's mean busy time x ranks / "
                         "events, which a loaded machine inflates)")
    ap.add_argument("--collective-us", type=float, metavar="US",
                    help="per-window collective cost at every P (default: 6 us x log2(P)/7 "
                         "plus the payload at 10 GB/s)")
    ap.add_argument("--message-us", type=float, default=MESSAGE_US, metavar="US",
                    help=f"cost per point-to-point message (default {MESSAGE_US})")
    ap.add_argument("--remote-at-inf", type=float, default=1.0, metavar="F",
                    help="remote fraction as P -> infinity when the run had one rank "
                         "(default 1: every event crosses ranks, the worst case)")
    a = ap.parse_args(argv)
    for flag, v in (("--event-ns", a.event_ns), ("--collective-us", a.collective_us),
                    ("--message-us", a.message_us), ("--remote-at-inf", a.remote_at_inf)):
        if v is not None and (not math.isfinite(v) or v < 0):
            ap.error(f"{flag} {v}: a number >= 0")
    costs = Costs(event_ns=a.event_ns, collective_us=a.collective_us, message_us=a.message_us,
                  remote_at_inf=a.remote_at_inf)
    try:
        targets = parse_targets(a.ranks)
        sys.stdout.write(report(measured(open_run(a.run)), targets, costs))
    except SipsimError as e:
        print(f"sipsim.scaling: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
