#!/usr/bin/env bash
# docs/validation.md's "SiP-ML Fig. 8": the Transformer at 64 GPUs on SiP-OCS
# with a one-shot allocation against the number of OCSs Q (4-32) at three
# per-GPU bandwidths, the hybrid strategies mp 2-16, beside Elect-Flat at the
# same B. The runs are the study scenarios/studies/validation/sipml-fig8.yaml;
# this runs it as scripts/validation-figures.sh does (which takes OUT, default
# here build/validation-img, STUDIES, KEEP and CORES) and prints every run's
# time and the fastest per case. ~30 s on 2 cores.
# Usage: scripts/validate-sipml-fig8.sh [build dir]   (default build/release)
set -euo pipefail
FIGURES=sipml-fig8 OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "$@"
