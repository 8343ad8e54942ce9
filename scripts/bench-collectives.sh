#!/usr/bin/env bash
# Collective benchmarks (issue #3), median of RUNS runs (default 3):
#   ring all-reduce of 1 GiB on 512 nodes of elect-flat, 1 rank (goal < 0.5 s);
#   all-to-all of 1 MiB per node on 4,096 GPUs of the 1:12 cluster, 2 ranks (goal < 60 s).
# Prints committed events, engine wall seconds, events/s and peak memory (all ranks).
# Usage: scripts/bench-collectives.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
runs=${RUNS:-3}

printf '%-36s %5s %12s %10s %12s %10s %12s\n' scenario ranks events wall_s Mevents/s peak_MiB sim_time_us
for case in "bench-ring-allreduce-flat-512 1" "bench-alltoall-cluster-4096 2"; do
  set -- $case
  : > "$tmp/wall"; : > "$tmp/rate"; : > "$tmp/mem"
  for ((i = 0; i < runs; i++)); do
    mpirun -n "$2" "$sipsim" run "scenarios/$1.yaml" -o "$tmp/out.h5" --force -q > "$tmp/log"
    awk '/committed events/ {print $3}' "$tmp/log" > "$tmp/events"
    awk '/wall time/ {print $3}' "$tmp/log" >> "$tmp/wall"
    awk '/event rate/ {print $3}' "$tmp/log" >> "$tmp/rate"
    awk '/peak memory/ {print $3}' "$tmp/log" >> "$tmp/mem"
    awk '$1 ~ /^[0-9]+$/ && NF >= 8 {print $3}' "$tmp/log" | tail -1 > "$tmp/simtime"
  done
  printf '%-36s %5d %12s %10.3f %12.3f %10.1f %12s\n' "$1" "$2" "$(cat "$tmp/events")" \
    "$(median < "$tmp/wall")" "$(median < "$tmp/rate")" "$(median < "$tmp/mem")" "$(cat "$tmp/simtime")"
done
