#!/usr/bin/env bash
# PHOLD engine benchmark (issue #2): the figures other PDES engines are compared on.
#   4,096 LPs, remote fraction 0.25, increment 1 us + Exp(1 us), 1 start event
#   per LP, end 4,000 us; and 16,384 LPs with end 1,000 us. 1 and 2 ranks,
#   median of RUNS runs (default 5). Prints committed events, wall seconds of
#   the engine, events/s and the peak resident memory of all ranks together.
# Usage: scripts/bench-phold.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
runs=${RUNS:-5}

printf '%-10s %5s %12s %10s %12s %12s\n' scenario ranks events wall_s Mevents/s peak_MiB
for scenario in phold-4k phold-16k; do
  for ranks in 1 2; do
    : > "$tmp/wall"; : > "$tmp/rate"; : > "$tmp/mem"
    for ((i = 0; i < runs; i++)); do
      mpirun -n "$ranks" "$sipsim" run "scenarios/$scenario.yaml" -o "$tmp/out.h5" --force -q > "$tmp/log"
      awk '/committed events/ {print $3}' "$tmp/log" > "$tmp/events"
      awk '/wall time/ {print $3}' "$tmp/log" >> "$tmp/wall"
      awk '/event rate/ {print $3}' "$tmp/log" >> "$tmp/rate"
      awk '/peak memory/ {print $3}' "$tmp/log" >> "$tmp/mem"
    done
    printf '%-10s %5d %12s %10.3f %12.3f %12.1f\n' "$scenario" "$ranks" "$(cat "$tmp/events")" \
      "$(median < "$tmp/wall")" "$(median < "$tmp/rate")" "$(median < "$tmp/mem")"
  done
done
