#!/usr/bin/env bash
# Chakra benchmark: one PyTorch training step (Chakra test data: 3,664 nodes)
# replicated to 1,024 GPUs, one iteration, on RAMP (RAMP-x) and on the
# SuperPod (ring), each on 1 and 2 ranks. Median of RUNS runs of each case
# (default 1). Prints events, engine wall seconds, peak memory (all ranks),
# windows and the iteration time, which must be the same on both lines of a
# fabric. The trace is read from ../shared/data/chakra beside the repository
# (TRACE=<file.et> for another copy).
# Usage: scripts/bench-chakra.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
runs=${RUNS:-1}
trace=${TRACE:-$(realpath -m ../shared/data/chakra/pytorch/chakra.0.et)}
[ -f "$trace" ] || { echo "no Chakra trace at $trace: set TRACE" >&2; exit 1; }

printf '%-9s %5s %12s %9s %9s %-30s %16s\n' fabric ranks events wall_s peak_MiB windows iteration_ms
for case in "ramp 1" "ramp 2" "superpod 1" "superpod 2"; do
  set -- $case
  : > "$tmp/wall"; : > "$tmp/mem"
  for ((i = 0; i < runs; i++)); do
    mpirun -n "$2" "$sipsim" run "scenarios/chakra/pytorch-1024-$1.yaml" \
      --set "workload.trace=$trace" --set workload.iterations=1 -o "$tmp/out.h5" --force -q \
      > "$tmp/log"
    run_figures "$tmp/log"
  done
  printf '%-9s %5d %12s %9.3f %9.1f %-30s %16s\n' "$1" "$2" "$(cat "$tmp/events")" \
    "$(median < "$tmp/wall")" "$(median < "$tmp/mem")" "$(cat "$tmp/windows")" "$(cat "$tmp/iter")"
done
