#!/usr/bin/env bash
# Training benchmark: one iteration of AMPeD Table II's 145.6B row (1,536
# GPUs, TP 8 x PP 8 x DP 24, 96 micro-batches, full recomputation, interleaved
# 1F1B with 2 chunks and Megatron's overlaps since 2026-11-29; before, 1F1B
# without them) on the SuperPod cluster, fully simulated and under replay, each on 1 and 2 ranks,
# then replay-shapes on 1 rank. Median of RUNS runs of each case (default 1:
# a full simulation takes a minute or more). Prints
# events, engine wall seconds, peak memory (all ranks), windows (mean width),
# the critical path as a share of the events (the busiest rank's events per
# window, summed; 1 on one rank) and the iteration time, which must be the
# same on every line of one mode.
# Usage: scripts/bench-training.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
runs=${RUNS:-1}
scenario=scenarios/training/amped-145.6b.yaml

printf '%-13s %5s %12s %9s %9s %-28s %8s %16s\n' mode ranks events wall_s peak_MiB windows critical iteration_ms
for case in "simulate 1" "simulate 2" "replay 1" "replay 2" "replay-shapes 1"; do
  set -- $case
  : > "$tmp/wall"; : > "$tmp/mem"
  for ((i = 0; i < runs; i++)); do
    mpirun -n "$2" "$sipsim" run "$scenario" --set "workload.collectives=$1" \
      -o "$tmp/out.h5" --force -q > "$tmp/log"
    run_figures "$tmp/log"
    awk -v e="$(cat "$tmp/events")" '/critical path [0-9]+ events/ {
      for (i = 1; i <= NF; i++) if ($i == "path" && $(i + 2) == "events") print $(i + 1) / e }' \
      "$tmp/log" > "$tmp/critical"
    [ -s "$tmp/critical" ] || echo 1 > "$tmp/critical"
  done
  printf '%-13s %5d %12s %9.3f %9.1f %-28s %8.3f %16s\n' "$1" "$2" "$(cat "$tmp/events")" \
    "$(median < "$tmp/wall")" "$(median < "$tmp/mem")" "$(cat "$tmp/windows")" \
    "$(cat "$tmp/critical")" "$(cat "$tmp/iter")"
done
