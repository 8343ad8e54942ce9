#!/usr/bin/env bash
# docs/validation.md's "SiP-ML Table 1: fabric latency": the 350M transformer
# on Elect-Flat at 10 Tb/s per GPU, latency 1-100 us, at 32, 128 and 512 GPUs,
# every mp x dp strategy, the fastest per case as a speed-up over 32 GPUs at
# 1 us beside the paper's. The runs are the study
# scenarios/studies/validation/sipml-table1.yaml; this runs it as
# scripts/validation-figures.sh does (which takes OUT, default here
# build/validation-img, STUDIES, KEEP and CORES). ~1 minute on 2 cores.
# Usage: scripts/validate-sipml-table1.sh [build dir]   (default build/release)
set -euo pipefail
FIGURES=sipml-table1 OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "$@"
