#!/usr/bin/env bash
# The cost of a fabric event against a PHOLD event (issue #11 goal: <= 2.5x),
# measured in the same run of this script, 1 rank, engine timer, median of
# RUNS runs (default 3), runs of the three cases interleaved:
#   PHOLD 4K (scenarios/phold-4k.yaml), the reference;
#   ring all-reduce of 1 GiB on 512 nodes of elect-flat;
#   RAMP-x all-reduce of 1 GiB on 65,536 nodes.
# Prints events, engine wall seconds, ns per event, the ratio to PHOLD and the
# peak memory.
# Usage: scripts/bench-event-cost.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
runs=${RUNS:-3}
names=(phold-4k ring-512-flat ramp-x-65536)
args=("scenarios/phold-4k.yaml"
  "scenarios/bench-ring-allreduce-flat-512.yaml"
  "scenarios/ramp/all-reduce-65536.yaml --set workload.sizes.min=1GiB --set workload.sizes.max=1GiB")
for ((i = 0; i < runs; i++)); do
  for c in 0 1 2; do
    # shellcheck disable=SC2086 # the arguments split on purpose
    "$sipsim" run ${args[$c]} -o "$tmp/out.h5" --force -q > "$tmp/log"
    awk '/committed events/ {print $3}' "$tmp/log" > "$tmp/events$c"
    awk '/wall time/ {print $3}' "$tmp/log" >> "$tmp/wall$c"
    awk '/peak memory/ {print $3}' "$tmp/log" >> "$tmp/mem$c"
  done
done
printf '%-16s %12s %10s %10s %10s %10s\n' case events wall_s ns/event x_phold peak_MiB
ref=""
for c in 0 1 2; do
  events=$(cat "$tmp/events$c")
  wall=$(median < "$tmp/wall$c")
  ns=$(awk -v w="$wall" -v e="$events" 'BEGIN {printf "%.1f", w * 1e9 / e}')
  [ -n "$ref" ] || ref=$ns
  printf '%-16s %12s %10.3f %10s %10.2f %10.1f\n' "${names[$c]}" "$events" "$wall" "$ns" \
    "$(awk -v a="$ns" -v b="$ref" 'BEGIN {print a / b}')" "$(median < "$tmp/mem$c")"
done
