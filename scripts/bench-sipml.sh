#!/usr/bin/env bash
# SiP-ML benchmark (issue #13): one training iteration of the 350M
# transformer graph on 1,024 GPUs of a SiP-Ring re-planned every 100 us
# (scenarios/sipml/bench-ring-1024.yaml; goal: <= 60 s wall on 2 ranks), on 1
# and 2 ranks, then the same job on a one-shot SiP-OCS
# (bench-ocs-1024.yaml). Median of RUNS runs
# (default 1). Prints events, engine wall seconds, peak memory (all ranks),
# epochs, the planner's wall time per epoch and the iteration time, which
# must be the same on both lines of one fabric.
# Usage: scripts/bench-sipml.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
runs=${RUNS:-1}

attr() { h5dump -a "$2" "$1" 2>/dev/null | awk -F': ' '/\(0\)/ {print $2}'; }

printf '%-9s %5s %12s %9s %9s %7s %15s %14s\n' fabric ranks events wall_s peak_MiB epochs planner_ms/epoch iteration_ms
for case in "sip-ring 1" "sip-ring 2" "sip-ocs 1"; do
  set -- $case
  scenario=scenarios/sipml/bench-${1#sip-}-1024.yaml
  : > "$tmp/wall"; : > "$tmp/mem"
  for ((i = 0; i < runs; i++)); do
    mpirun -n "$2" "$sipsim" run "$scenario" -o "$tmp/out.h5" --force -q > "$tmp/log"
    awk '/committed events/ {print $3}' "$tmp/log" > "$tmp/events"
    awk '/wall time/ {print $3}' "$tmp/log" >> "$tmp/wall"
    awk '/^  peak memory/ {print $3}' "$tmp/log" >> "$tmp/mem"
    awk '$1 == "0" && NF >= 6 {print $2}' "$tmp/log" | head -1 > "$tmp/iter"
    epochs=$(attr "$tmp/out.h5" /fabric/epochs)
    planner=$(attr "$tmp/out.h5" /meta/fabric/planner_ns)
  done
  per_epoch=$(awk -v p="${planner:-0}" -v e="${epochs:-0}" 'BEGIN {printf "%.2f", (e > 0 ? p / e / 1e6 : 0)}')
  printf '%-9s %5d %12s %9.3f %9.1f %7s %15s %14s\n' "$1" "$2" "$(cat "$tmp/events")" \
    "$(median < "$tmp/wall")" "$(median < "$tmp/mem")" "${epochs:-0}" "$per_epoch" "$(cat "$tmp/iter")"
done
