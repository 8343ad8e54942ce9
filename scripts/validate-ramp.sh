#!/usr/bin/env bash
# Reproduces docs/validation.md's reduced-scale comparison: RAMP-x against the
# electrical/OCS baselines (best strategy by `algorithm: auto`, ring on TopoOpt)
# at 1,024 nodes for 1 GiB all-reduce and all-to-all, simulated; and, for the
# same algorithm, the critical-path estimate of `sipsim analyze` (RAMP §7.4.1)
# beside it. ~3 minutes on 2 cores.
# Usage: scripts/validate-ramp.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
printf '%-11s %-20s %-18s %14s %14s %8s\n' op scenario algorithm simulated_us estimated_us est/sim
for op in all-reduce all-to-all; do
  for f in ramp-1024 superpod-1024 superpod-1to1-1024 torus2d-1024 topoopt-1024; do
    algo=auto
    [ "$f" = ramp-1024 ] && algo=ramp-x
    [ "$f" = topoopt-1024 ] && algo=ring
    read -r chosen simulated < <(mpirun -n 2 "$sipsim" run "scenarios/validation/$f.yaml" \
      --set "workload.op=$op" --set "workload.algorithm=$algo" -o "$tmp/v.h5" --force -q |
      awk '$1 ~ /^[0-9]+$/ {print $2, $3}')
    estimated=$("$sipsim" analyze "scenarios/validation/$f.yaml" --set "workload.op=$op" \
      --set "workload.algorithm=$chosen" | awk '$1 ~ /^[0-9]+$/ {print $4}')
    printf '%-11s %-20s %-18s %14s %14s %8.3f\n' "$op" "$f" "$chosen" "$simulated" "$estimated" \
      "$(awk -v e="$estimated" -v s="$simulated" 'BEGIN {print e / s}')"
  done
done
