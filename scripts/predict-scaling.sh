#!/usr/bin/env bash
# Predicts the windowed engine's parallel efficiency at other rank counts from
# one finished run's scaling figures (/meta, docs/output.md), with the model of
# docs/scaling.md.
#
#   scripts/predict-scaling.sh RUN.h5 MEASURED_RANKS P[:I]...
#   e.g. scripts/predict-scaling.sh ar.h5 2 16:1.0 64:1.0 256:1.0
#
# MEASURED_RANKS is the rank count RUN.h5 was made with (checked against
# /meta@ranks). Each P is a rank count to predict; I is the static load
# imbalance there (max/mean of scripts/load-balance.sh; default 1).
# Environment (defaults: docs/scaling.md):
#   COLL_US    per-window collective cost in us at every P (default: the
#              published-latency model 6 us x log2(P)/7 plus the payload term)
#   MSG_US     cost per point-to-point message (default 1.0 us)
#   EVENT_NS   CPU cost per event in ns (default: the run's mean busy time x
#              ranks / events, which a loaded machine inflates)
#   REMOTE_AT_INF  remote fraction as P -> infinity when RUN.h5 has one rank
#              (default 1: every event crosses ranks, the worst case)
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,21p' "$0"; exit 2; }
run=$1
measured=$2
shift 2
[ -r "$run" ] || { echo "cannot read $run" >&2; exit 1; }

attr() {  # the value(s) of /meta@$1, space-separated
  h5dump -y -w 0 -a "/meta/$1" "$run" 2>/dev/null |
    awk '/DATA \{/ {d = 1; next} d && /^ *\}/ {exit} d {gsub(/[",]/, " "); printf "%s ", $0}'
}
ranks=$(attr ranks | tr -d ' ')
[ -n "$ranks" ] || { echo "$run has no /meta@ranks: not a sipsim run file" >&2; exit 1; }
[ "$ranks" = "$measured" ] ||
  { echo "$run was made with $ranks ranks, not $measured" >&2; exit 1; }
crit=$(attr critical_path_events | tr -d ' ')
[ -n "$crit" ] ||
  { echo "$run has no scaling figures (/meta@critical_path_events): made by an older sipsim" >&2; exit 1; }

awk -v m="$ranks" -v E="$(attr committed_events)" -v W="$(attr windows)" \
    -v wall="$(attr wall_seconds)" -v busy="$(attr busy_seconds_mean)" \
    -v busymax="$(attr busy_seconds_max)" -v cps="$(attr critical_path_seconds)" \
    -v crit="$crit" -v f="$(attr remote_fraction)" -v engine="$(attr engine)" \
    -v event_ns="${EVENT_NS:-}" -v coll_us="${COLL_US:-}" -v msg_us="${MSG_US:-1.0}" -v finf="${REMOTE_AT_INF:-1}" \
    -v targets="$*" '
function log2(x) { return log(x) / log(2) }
function coll(p) {  # seconds per window: one allreduce of (15 + p) words
  if (coll_us != "") return coll_us * 1e-6
  if (p < 2) return 0
  return 6e-6 * log2(p) / 7 + 8 * (15 + p) * log2(p) / 10e9
}
BEGIN {
  gsub(/ /, "", engine)
  if (W == 0 || E == 0) { print "the run committed no events in windows: nothing to predict"; exit 1 }
  c = busy * m / E                    # CPU seconds per event
  if (event_ns != "") c = event_ns * 1e-9
  nw = E / W                          # events per window, all ranks
  mu_m = nw / m
  beta_m = crit * m / E               # measured per-window imbalance
  # k: spread of a rank-window around its mean, in units of sqrt(mean), fitted
  # to the measured run (Poisson, k = 1, when it had one rank).
  k = 1
  if (m >= 2 && mu_m > 0) k = (beta_m - 1) * sqrt(mu_m) / sqrt(2 * log(m))
  if (k < 0) k = 0
  T1 = E * c
  printf "measured: %d ranks (%s), %d events, %d windows, %.1f events/window, %.0f ns/event,\n", \
    m, engine, E, W, nw, c * 1e9
  printf "          remote fraction %.3f, critical path %d events (x%.3f of even), wall %.3f s, busy %.3f s mean, %.3f s max, critical path %.3f s\n", \
    f, crit, beta_m, wall, busy, busymax, cps
  printf "model: k = %.3f, collective %s, %.2f us per message\n\n", k, \
    (coll_us != "" ? coll_us " us per window" : "6 us x log2(P)/7 + payload at 10 GB/s"), msg_us
  printf "%6s %6s %12s %10s %14s %10s %10s %10s %10s %9s %8s\n", "ranks", "I", "events/w/r", "beta", \
    "crit_events", "remote", "compute_s", "sync_s", "wall_s", "speedup", "effic"
  n = split(targets, t, " ")
  for (i = 1; i <= n; i++) {
    split(t[i], pi, ":")
    p = pi[1] + 0
    I = (pi[2] == "" ? 1 : pi[2] + 0)
    mu = nw / p
    beta = I * (1 + k * sqrt(2 * log(p) / (mu > 0 ? mu : 1)))
    if (p == 1) beta = 1
    if (beta > p) beta = p
    if (m >= 2) fp = f * (1 - 1 / p) / (1 - 1 / m); else fp = finf * (1 - 1 / p)
    if (fp > 1) fp = 1
    remote_w = fp * nw / p             # remote events per window per rank
    msgs = remote_w < p - 1 ? remote_w : p - 1
    compute = W * mu * beta * c
    sync = (p > 1) ? W * (coll(p) + msgs * msg_us * 1e-6 + remote_w * 64 / 10e9) : 0
    T = compute + sync
    printf "%6d %6.3f %12.1f %10.3f %14.0f %10.3f %10.3f %10.3f %10.3f %9.2f %8.3f\n", p, I, mu, beta, \
      W * mu * beta, fp, compute, sync, T, T1 / T, T1 / (p * T)
  }
}'
