#!/usr/bin/env bash
# docs/validation.md's "RAMP Table 9": one Megatron iteration of each row of
# RAMP Table 9 on RAMP, the SuperPod fat-tree and TopoOpt, 1 rank. The runs
# are the studies scenarios/studies/validation/ramp-table9-breakdown.yaml
# (CE 2.5-1.7, 2 minutes, and its figure), ramp-table9-topoopt-reconfigured.yaml
# (CE 2.5-1.5 on TopoOpt with its circuits reconfigured, 4 minutes) and
# ramp-table9-large.yaml (CE 1.5-1.0 and CE 1.7 on the SuperPod under replay,
# about an hour); MODE=simulate
# runs ramp-table9-simulate.yaml instead (RAMP's CE 1.7 and 1.0 with every
# collective simulated, about an hour). This runs them as
# scripts/validation-figures.sh does (which takes OUT, default here
# build/validation-img, STUDIES, KEEP and CORES) and prints per run the
# iteration, the exposed communication share, RAMP's speed-up and the fabric
# energy.
# Usage: [MODE=simulate] scripts/validate-ramp-table9.sh [build dir]   (default build/release)
set -euo pipefail
[ $# -le 1 ] || { echo "usage: [MODE=simulate] $0 [build dir] (the studies hold every row)" >&2; exit 2; }
figures="ramp-table9-breakdown ramp-table9-topoopt-reconfigured ramp-table9-large"
[ "${MODE:-}" = simulate ] && figures=ramp-table9-simulate
FIGURES=$figures OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "$@"
