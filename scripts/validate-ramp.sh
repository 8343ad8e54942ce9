#!/usr/bin/env bash
# Reproduces docs/validation.md's reduced-scale comparison: RAMP-x against the
# electrical/OCS baselines (best strategy by `algorithm: auto`, ring on TopoOpt)
# at 1,024 nodes for 1 GiB all-reduce and all-to-all. ~2 minutes on 2 cores.
# Usage: scripts/validate-ramp.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
for op in all-reduce all-to-all; do
  for f in ramp-1024 superpod-1024 superpod-1to1-1024 torus2d-1024 topoopt-1024; do
    algo=auto
    [ "$f" = ramp-1024 ] && algo=ramp-x
    [ "$f" = topoopt-1024 ] && algo=ring
    printf '%-11s %-20s' "$op" "$f"
    mpirun -n 2 "$sipsim" run "scenarios/validation/$f.yaml" --set "workload.op=$op" \
      --set "workload.algorithm=$algo" -o "$tmp/v.h5" --force -q | awk '$1 ~ /^[0-9]+$/ {print}'
  done
done
