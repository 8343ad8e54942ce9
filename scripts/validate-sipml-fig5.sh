#!/usr/bin/env bash
# docs/validation.md's "SiP-ML Fig. 5": the iteration time of the fastest
# mp x dp strategy against the per-GPU bandwidth (128-8,192 Gb/s) on
# Elect-Flat, Elect-Cluster (200 and 400 Gb/s per server), SiP-OCS and
# SiP-Ring, with Elect-Flat's data parallelism and the paper's claims beside
# it. The runs are the studies scenarios/studies/validation/sipml-fig5*.yaml,
# one per model and scale: GPUS=64 (default: sipml-fig5, the Transformer,
# and sipml-fig5-resnet50; a few minutes), 256 (sipml-fig5-256,
# sipml-fig5-resnet50-256) or 1024 (sipml-fig5-1024, sipml-fig5-resnet50-1024,
# sipml-fig5-megatron-1024: hours); MODELS narrows them ("transformer
# resnet50" by default; megatron, SiP-ML's 18B GPT, at 1,024 GPUs only). This
# runs them as scripts/validation-figures.sh does (which takes OUT, default
# here build/validation-img, STUDIES, KEEP and CORES).
# Usage: [GPUS=64|256|1024] [MODELS="transformer resnet50 megatron"]
#        scripts/validate-sipml-fig5.sh [build dir]   (default build/release)
set -euo pipefail
gpus=${GPUS:-64}
figures=()
for model in ${MODELS:-transformer resnet50}; do
  case $model/$gpus in
    transformer/64) figures+=(sipml-fig5) ;;
    transformer/256 | transformer/1024) figures+=("sipml-fig5-$gpus") ;;
    resnet50/64) figures+=(sipml-fig5-resnet50) ;;
    resnet50/256 | resnet50/1024) figures+=("sipml-fig5-resnet50-$gpus") ;;
    megatron/1024) figures+=(sipml-fig5-megatron-1024) ;;
    *) echo "no study of $model at $gpus GPUs (transformer and resnet50 at 64, 256, 1024; megatron at 1024)" >&2; exit 2 ;;
  esac
done
FIGURES="${figures[*]}" OUT=${OUT:-build/validation-img} exec "$(dirname "$0")/validation-figures.sh" "$@"
