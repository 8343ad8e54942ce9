#!/usr/bin/env bash
# Per-rank event load of a finished run at any rank count (DESIGN.md §2): the
# run file's /lp/events (events each LP processed, the same at every rank
# count) summed over the LPs that the scenario's partition gives each rank.
# Prints, per rank count, the largest rank's load over the mean (1.00 = even;
# the speed-up of the windowed engine is at most ranks / this), and the
# busiest rank.
#
#   scripts/load-balance.sh RUN.h5 SCENARIO RANKS... [-- --set key=value ...]
#   e.g. scripts/load-balance.sh ar.h5 scenarios/ramp/all-reduce-65536.yaml 16 64 256
#
# Give the same --set overrides as the run (they change the partition only
# when they change the fabric). SIPSIM (default build/release/sipsim) is the
# binary that computes the partition.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,15p' "$0"; exit 2; }
run=$1
scenario=$2
shift 2
ranks=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  ranks+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
sipsim=${SIPSIM:-$(dirname "$0")/../build/release/sipsim}
[ -x "$sipsim" ] || { echo "no $sipsim: build first or set SIPSIM" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

h5dump -d /lp/events -y -w 0 -o "$tmp/raw" "$run" > /dev/null
tr ',' '\n' < "$tmp/raw" | tr -d ' ' | grep -v '^$' > "$tmp/events"
lps=$(wc -l < "$tmp/events")
printf '%8s %12s %14s %14s %8s %s\n' ranks lps events max_rank_events max/mean busiest_rank
for n in "${ranks[@]}"; do
  "$sipsim" info "$scenario" --ranks "$n" --owners "$tmp/owners" "$@"
  [ "$(wc -l < "$tmp/owners")" = "$lps" ] ||
    { echo "the scenario has $(wc -l < "$tmp/owners") LPs, the run file $lps: not the same scenario" >&2; exit 1; }
  paste "$tmp/owners" "$tmp/events" | awk -v n="$n" -v lps="$lps" '
    { load[$1] += $2; total += $2 }
    END {
      max = 0; who = 0
      for (r = 0; r < n; r++) if (load[r] > max) { max = load[r]; who = r }
      printf "%8d %12d %14d %14d %8.3f %d\n", n, lps, total, max, (total > 0 ? max * n / total : 0), who
    }'
done
