#!/usr/bin/env bash
# RAMP benchmarks (issue #4) at the 65,536-node reference point, 2 ranks:
#   RAMP-x all-reduce of 1 GiB (goal <= 20 s, <= 4 GiB) and all-to-all of 1 MiB per node.
# Prints the nccl-style line, engine wall seconds, events/s and peak memory of all ranks.
# Usage: scripts/bench-ramp.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
for case in "all-reduce 1GiB" "all-to-all 1MiB"; do
  set -- $case
  echo "== RAMP-x $1, $2, 65,536 nodes, 2 ranks"
  mpirun -n 2 "$sipsim" run "scenarios/ramp/$1-65536.yaml" --set "workload.sizes.min=$2" \
    --set "workload.sizes.max=$2" -o "$tmp/out.h5" --force -q |
    grep -E "ramp-x|committed|wall time|event rate|peak memory"
done
