#!/usr/bin/env bash
# RAMP benchmarks (issue #4) at the 65,536-node reference point, 2 ranks:
#   RAMP-x all-reduce of 1 GiB (goal <= 20 s, <= 4 GiB), all-to-all of 1 MiB per node,
#   and broadcast of 1 GiB as RAMP §6.1's multicast tree (eq. 1: 127 stages).
# Then the time `sipsim compare` takes for RAMP against the four baselines at
# 65,536 nodes (1 GiB all-reduce, critical-path estimates shared by 2 ranks).
# Prints the nccl-style line, engine wall seconds, events/s and peak memory of all ranks.
# Usage: scripts/bench-ramp.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
for case in "all-reduce 1GiB" "all-to-all 1MiB" "broadcast 1GiB"; do
  set -- $case
  echo "== RAMP-x $1, $2, 65,536 nodes, 2 ranks"
  mpirun -n 2 "$sipsim" run "scenarios/ramp/$1-65536.yaml" --set "workload.sizes.min=$2" \
    --set "workload.sizes.max=$2" -o "$tmp/out.h5" --force -q |
    grep -E "ramp-x|committed|wall time|event rate|peak memory"
done
echo "== sipsim compare, all-reduce 1 GiB, RAMP against 4 baselines at 65,536 nodes, 2 ranks"
/usr/bin/time -f "%e s wall, %M KB peak per rank" mpirun -n 2 "$sipsim" compare \
  scenarios/ramp/all-reduce-65536.yaml scenarios/ramp-baselines/*.yaml \
  --set workload.sizes.min=1GiB 2>&1 | tail -6
