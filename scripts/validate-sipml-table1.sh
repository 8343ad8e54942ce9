#!/usr/bin/env bash
# Reproduces docs/validation.md's "SiP-ML Table 1: fabric latency": the
# SiP-ML paper's (000) Table 1, training speed-up against fabric latency
# (1, 3, 10, 30, 100 us) at 32, 128 and 512 GPUs on Elect-Flat at
# B = 10 Tb/s per GPU, normalised to 32 GPUs at 1 us. Runs
# scenarios/sipml/table1-{32,128,512}.yaml (the 350M transformer, 64
# sequences per iteration at every scale: strong scaling) with every
# mp x dp strategy whose dp divides the batch (mp 1, 2, ..., 32), keeps the
# fastest per case, as SiP-ML §4.2 selects the fastest strategy, and prints
# our table beside the paper's and their ratio. ~30 s on 1 core.
# RANKS=n runs each case on n ranks (default 1).
# Usage: scripts/validate-sipml-table1.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
ranks=${RANKS:-1}
batch=64  # the scenarios' global_batch
lats=(1 3 10 30 100)
declare -A paper=(
  [32]="1.00 0.99 0.83 0.73 0.64"
  [128]="2.11 2.10 1.52 1.36 1.29"
  [512]="4.27 4.04 3.03 2.49 2.03")
# run N MP LAT: the iteration time in ms of table1-N.yaml with mp MP at LAT us.
run() {
  local n=$1 k=$2 lat=$3
  local args=(run "scenarios/sipml/table1-$n.yaml" -q -o "$tmp/r.h5" --force
    --set "fabric.latency=${lat}us" --set "workload.mp=$k"
    --set "workload.dp=$((n / k))" --set "workload.degree=$((k > 2 ? k : 2))")
  if [ "$ranks" = 1 ]; then
    "$sipsim" "${args[@]}"
  else
    mpirun --oversubscribe -n "$ranks" "$sipsim" "${args[@]}"
  fi | awk '$1 == "0" && NF >= 3 {print $2}'
}
declare -A best bestk
start=$SECONDS
echo "iteration time (ms) per strategy; * = the fastest"
for n in 32 128 512; do
  printf '%-5s %-8s' GPUs 'mp x dp'
  for lat in "${lats[@]}"; do printf ' %11s' "${lat}us"; done
  echo
  declare -A times=()
  ks=()
  for k in 1 2 4 8 16 32; do
    l=$((n / k))
    [ "$k" -le "$n" ] && [ $((batch % l)) = 0 ] || continue
    ks+=("$k")
    for lat in "${lats[@]}"; do
      t=$(run "$n" "$k" "$lat")
      times[$k,$lat]=$t
      if [ -z "${best[$n,$lat]:-}" ] || awk -v a="$t" -v b="${best[$n,$lat]}" 'BEGIN {exit !(a < b)}'; then
        best[$n,$lat]=$t bestk[$n,$lat]=$k
      fi
    done
  done
  for k in "${ks[@]}"; do
    printf '%-5s %-8s' "$n" "$k x $((n / k))"
    for lat in "${lats[@]}"; do
      mark=' '
      [ "${bestk[$n,$lat]}" = "$k" ] && mark='*'
      printf ' %10.3f%s' "${times[$k,$lat]}" "$mark"
    done
    echo
  done
  unset times
done
ref=${best[32,1]}
echo
echo "speed-up vs 32 GPUs at 1 us (ours with the fastest mp | paper | ours / paper)"
printf '%-5s' GPUs
for lat in "${lats[@]}"; do printf ' %20s' "${lat}us"; done
echo
for n in 32 128 512; do
  read -r -a p <<<"${paper[$n]}"
  printf '%-5s' "$n"
  for i in "${!lats[@]}"; do
    lat=${lats[$i]}
    printf ' %20s' "$(awk -v r="$ref" -v t="${best[$n,$lat]}" -v p="${p[$i]}" -v k="${bestk[$n,$lat]}" \
      'BEGIN {s = r / t; printf "%.2f(mp%d)|%.2f|%.2f", s, k, p, s / p}')"
  done
  echo
done
echo
echo "each row normalised to its own 1 us (ours | paper): the latency's cost at a fixed scale"
for n in 32 128 512; do
  read -r -a p <<<"${paper[$n]}"
  printf '%-5s' "$n"
  for i in "${!lats[@]}"; do
    printf ' %20s' "$(awk -v a="${best[$n,1]}" -v t="${best[$n,${lats[$i]}]}" -v p="${p[$i]}" -v p0="${p[0]}" \
      'BEGIN {printf "%.3f|%.3f", a / t, p / p0}')"
  done
  echo
done
echo "$((SECONDS - start)) s"
