#!/usr/bin/env bash
# docs/validation.md's "Estimator against the simulator": RAMP-x against the
# four baselines at 1,024 nodes, a lone 1 GiB all-reduce and all-to-all each
# (best algorithm: `auto`; TopoOpt ring), simulated on 2 ranks beside `sipsim
# analyze`'s estimate for the same algorithm. The runs are the study
# scenarios/studies/validation/ramp-estimator-1024.yaml; this runs it as
# scripts/validation-figures.sh does (which takes STUDIES, KEEP and CORES).
# ~3 minutes on 2 cores.
# Usage: scripts/validate-ramp.sh [build dir]   (default build/release)
set -euo pipefail
FIGURES=ramp-estimator-1024 OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "$@"
