#!/usr/bin/env bash
# Reproduces docs/validation.md's "SiP-ML Fig. 5": the SiP-ML paper's (000)
# Fig. 5, training time against the per-GPU bandwidth B (128 .. 8,192 Gb/s)
# on Elect-Flat, Elect-Cluster (200 and 400 Gb/s per server), SiP-OCS and
# SiP-Ring, for the Transformer, ResNet-50 and Megatron. Runs
# scenarios/sipml/fig5-transformer-<fabric>.yaml (for ResNet-50 with its
# graph, 32 images per GPU and SGD) with every mp x dp strategy
# (mp 1, 2, 4, 8, 16; degree-aware placement with the fabric's degree, 16, on
# the SiP fabrics, unconstrained on the electrical ones), keeps the fastest
# per case (SiP-ML §4.2 selects the fastest strategy), and prints the table
# and the paper's claims checked against it:
#   - SiP-OCS and SiP-Ring 1.3-9.1x faster than Elect-Cluster;
#   - within 2x of Elect-Flat (SiP at B no slower than Elect-Flat at B/2).
# GPUS=n sets the scale (default 64; the scenarios' batch per GPU is kept:
# one sequence, 32 images); the paper's is 1,024 (GPUS=1024: 34 min on one
# core). MODELS="transformer resnet50" (add megatron: SiP-ML's 18B GPT,
# scenarios/sipml/fig5-megatron-<fabric>.yaml, batch 1,024 at any scale,
# strategies SHAPES="8x2 4x8 8x4" as tp x pp with dp = GPUs / (tp pp), laid
# out tp-pp-dp on SiP-Ring; GPUS=1024 MODELS=megatron: minutes), FABRICS="...",
# BWS="128 256 ... 8192" (Gb/s), MPS="1 2 4 8 16" narrow the sweep; mp
# grows per case until a run is 1.5x slower than the best so far (the
# larger ones only get slower), and LIMIT=300 s bounds each run (SiP-Ring's
# planner at low B and high mp; a run cut off shows as 1e9 ms).
# ~1 min on 1 core at 64 GPUs, ~2 min at 256.
# Usage: scripts/validate-sipml-fig5.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
gpus=${GPUS:-64}
read -r -a models <<<"${MODELS:-transformer resnet50}"
read -r -a fabrics <<<"${FABRICS:-elect-flat elect-cluster-200 elect-cluster-400 sip-ocs sip-ring}"
read -r -a bws <<<"${BWS:-128 256 512 1024 2048 4096 8192}"
read -r -a mps <<<"${MPS:-1 2 4 8 16}"
# Megatron's strategies, TPxPP (dp = GPUs / (tp pp)), tried in this order:
# Megatron-LM's 8-way TP in a server with a 2-stage pipeline, then deeper
# pipelines (scenarios/sipml/fig5-megatron-*.yaml say why these).
read -r -a shapes <<<"${SHAPES:-8x2 4x8 8x4}"
limit=${LIMIT:-300}  # seconds per run; a run cut off counts as 1e9 ms
declare -A per_gpu=([transformer]=1 [resnet50]=32)  # samples per GPU under DP
samples() { [ "$1" = megatron ] && echo 1024 || echo $((gpus * per_gpu[$1])); }
# ResNet-50 runs the Transformer's scenarios with its graph and SGD (one
# scenario per fabric keeps the shipped set, and tests/setup's fuzzing of
# it, small).
declare -A model_args=([transformer]="" [resnet50]="--set workload.graph=../graphs/resnet50.json --set workload.optimizer=sgd")

# bw_args FABRIC B: the --set options that give FABRIC B Gb/s per GPU.
bw_args() {
  local fab=$1 b=$2
  case $fab in
    elect-flat | sip-ocs) echo "--set fabric.bandwidth=${b}Gbps" ;;
    elect-cluster-*) echo "--set fabric.intra.bandwidth=${b}Gbps" ;;
    sip-ring)
      # W = round(B / 25 Gb/s) wavelengths (SiP-ML: B = 25 Gb/s x W), each
      # at B / W so that the ring's B is the others'.
      local w=$(((b * 10 + 125) / 250))
      awk -v b="$b" -v w="$w" 'BEGIN {printf "--set fabric.wavelengths=%d --set fabric.wavelength_rate=%.0fbps", w, b * 1e9 / w}'
      ;;
  esac
}
# run MODEL FABRIC B MP: "<iteration ms> <wall s>" of one case.
run() {
  local model=$1 fab=$2 b=$3 k=$4 deg
  if [ "$model" = megatron ]; then
    run_megatron "$@"
    return
  fi
  case $fab in
    sip-*) deg=$((k < 16 ? k : 16)) ;;
    *) deg=$k ;;
  esac
  deg=$((deg > 2 ? deg : 2))
  local t0 t
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  # shellcheck disable=SC2086
  t=$(timeout "$limit" "$sipsim" run "scenarios/sipml/fig5-transformer-$fab.yaml" -q -o "$tmp/r.h5" --force ${model_args[$model]} \
    --set "fabric.nodes=$gpus" --set "workload.global_batch=$((gpus * per_gpu[$model]))" \
    --set "workload.mp=$k" --set "workload.dp=$((gpus / k))" --set "workload.degree=$deg" \
    $(bw_args "$fab" "$b") 2>/dev/null | awk '$1 == "0" && NF >= 3 {print $2}') || true
  echo "${t:-1e9} $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')"
}
# run_megatron megatron FABRIC B TPxPP: the same for SiP-ML's Megatron (an
# 18.4B GPT at batch 1,024, type: transformer). On SiP-Ring the job is laid
# out tp-pp-dp, so that pipeline neighbours are within the reach.
run_megatron() {
  local fab=$2 b=$3 tp=${4%x*} pp=${4#*x} t0 t map=""
  [ "$fab" = sip-ring ] && map="--set workload.mapping=tp-pp-dp"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  # shellcheck disable=SC2086
  t=$(timeout "$limit" "$sipsim" run "scenarios/sipml/fig5-megatron-$fab.yaml" -q -o "$tmp/r.h5" --force \
    --set "fabric.nodes=$gpus" --set "workload.parallelism.tp=$tp" --set "workload.parallelism.pp=$pp" \
    --set "workload.parallelism.dp=$((gpus / (tp * pp)))" $map \
    $(bw_args "$fab" "$b") 2>/dev/null | awk '$1 == "0" && NF >= 3 {print $2}') || true
  echo "${t:-1e9} $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')"
}
# ratio A B: A / B to 2 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

start=$SECONDS
declare -A best bestk dp
for model in "${models[@]}"; do
  echo "== $model, $gpus GPUs, $(samples "$model") samples per iteration"
  echo "iteration time (ms) per case and strategy (mp, or tp x pp), wall seconds per run; * = the fastest"
  strategies=("${mps[@]}")
  [ "$model" = megatron ] && strategies=("${shapes[@]}")
  for fab in "${fabrics[@]}"; do
    for b in "${bws[@]}"; do
      t=""
      line=$(printf '%-18s %5s Gb/s:' "$fab" "$b")
      for k in "${strategies[@]}"; do
        [ "$model" = megatron ] || [ "$k" -le "$gpus" ] || continue
        # Pruned: a larger mp after one 1.5x slower than the best is not tried.
        if [ -n "${best[$model,$fab,$b]:-}" ] &&
          awk -v a="$t" -v c="${best[$model,$fab,$b]}" 'BEGIN {exit !(a > 1.5 * c)}'; then
          line+=" mp$k pruned"
          continue
        fi
        read -r t w <<<"$(run "$model" "$fab" "$b" "$k")"
        line+=$(printf ' mp%-2s %9.2f (%5.1fs)' "$k" "$t" "$w")
        [ "$fab" = elect-flat ] && [ "$k" = 1 ] && [ "$model" != megatron ] && dp[$model,$b]=$t
        key=$model,$fab,$b
        if [ -z "${best[$key]:-}" ] || awk -v a="$t" -v b="${best[$key]}" 'BEGIN {exit !(a < b)}'; then
          best[$key]=$t bestk[$key]=$k
        fi
      done
      echo "$line  * mp ${bestk[$model,$fab,$b]}"
    done
  done
done

echo
echo "fastest strategy per case: iteration time in ms (mp)"
for model in "${models[@]}"; do
  echo "== $model ($gpus GPUs; 'flat DP' is Elect-Flat with data parallelism, as the paper's reference line)"
  printf '%6s' "B"
  for fab in "${fabrics[@]}"; do printf ' %18s' "$fab"; done
  printf ' %10s\n' "flat DP"
  for b in "${bws[@]}"; do
    printf '%6s' "$b"
    for fab in "${fabrics[@]}"; do
      printf ' %18s' "$(printf '%.2f (mp %s)' "${best[$model,$fab,$b]}" "${bestk[$model,$fab,$b]}")"
    done
    printf ' %10.2f\n' "${dp[$model,$b]:-nan}"
  done
done

have() { for f in "${fabrics[@]}"; do [ "$f" = "$1" ] && return 0; done; return 1; }
echo
echo "paper (§4.3): SiP-OCS and SiP-Ring 1.3-9.1x faster than Elect-Cluster as B grows;"
echo "within 2x of Elect-Flat (SiP at B about Elect-Flat at B/2). Ours:"
for model in "${models[@]}"; do
  echo "== $model"
  printf '%6s' "B"
  for sip in sip-ocs sip-ring; do
    have "$sip" || continue
    for c in elect-cluster-200 elect-cluster-400; do have "$c" && printf ' %12s' "${c#elect-}/${sip#sip-}"; done
    have elect-flat && printf ' %12s %14s' "${sip#sip-}/flat" "${sip#sip-}/flat(B/2)"
  done
  echo
  for b in "${bws[@]}"; do
    printf '%6s' "$b"
    for sip in sip-ocs sip-ring; do
      have "$sip" || continue
      s=${best[$model,$sip,$b]}
      for c in elect-cluster-200 elect-cluster-400; do
        have "$c" && printf ' %12s' "$(ratio "${best[$model,$c,$b]}" "$s")x"
      done
      if have elect-flat; then
        half=$((b / 2))
        h="-"
        [ -n "${best[$model,elect-flat,$half]:-}" ] && h="$(ratio "$s" "${best[$model,elect-flat,$half]}")"
        printf ' %12s %14s' "$(ratio "$s" "${best[$model,elect-flat,$b]}")" "$h"
      fi
    done
    echo
  done
done
echo "(cluster/sip > 1: SiP faster than Elect-Cluster; sip/flat(B/2) <= 1: SiP at B at least as fast as Elect-Flat at B/2)"
echo "$((SECONDS - start)) s"
