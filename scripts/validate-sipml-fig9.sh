#!/usr/bin/env bash
# docs/validation.md's "SiP-ML Fig. 9": the Transformer at 64 GPUs on
# dynamic SiP-OCS (16 OCSs) against the reconfiguration delay d (1 us-10 ms),
# beside the one-shot allocation, at two per-GPU bandwidths, mp 4, 8, 16. The
# runs are the study scenarios/studies/validation/sipml-fig9.yaml; this runs
# it as scripts/validation-figures.sh does (which takes OUT, default here
# build/validation-img, STUDIES, KEEP and CORES) and prints every run's time
# and the fastest per case. ~1.5 minutes on 2 cores.
# Usage: scripts/validate-sipml-fig9.sh [build dir]   (default build/release)
set -euo pipefail
FIGURES=sipml-fig9 OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "$@"
