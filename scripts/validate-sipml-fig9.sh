#!/usr/bin/env bash
# Reproduces docs/validation.md's "SiP-ML Fig. 9": the SiP-ML paper's (000)
# Fig. 9, the Transformer's training time on SiP-OCS (16 OCSs) in dynamic
# mode (re-allocated every 5d from the last 5d of traffic) against the
# reconfiguration delay d (1 us .. 10 ms), beside the one-shot allocation,
# at two per-GPU bandwidths B. Runs
# scenarios/sipml/fig9-transformer-sip-ocs-dynamic.yaml with mp 4, 8 and
# 16 (x dp = GPUs / mp, degree min(mp, 16)) and keeps the fastest per case.
# The paper: a lower d always helps; one-shot beats dynamic for d > ~300 us;
# at a larger B one-shot is as good as rapid reconfiguration.
# BWS="2048 8192" (Gb/s), DS, MPS narrow the sweep. ~1 min on 1 core
# (d = 1 us re-plans every 5 us: ~6 s and 0.8 GB of /fabric/plans per run).
# Usage: scripts/validate-sipml-fig9.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
gpus=64  # the scenario's nodes
read -r -a bws <<<"${BWS:-2048 8192}"
read -r -a ds <<<"${DS:-1us 3us 10us 30us 100us 300us 1ms 3ms 10ms}"
read -r -a mps <<<"${MPS:-4 8 16}"
scenario=scenarios/sipml/fig9-transformer-sip-ocs-dynamic.yaml

# run B D MP: the iteration time in ms with reconfiguration delay D (D =
# one-shot: the one-shot allocation).
run() {
  local b=$1 d=$2 k=$3
  local args=(run "$scenario" -q -o "$tmp/r.h5" --force --set "fabric.bandwidth=${b}Gbps"
    --set "workload.mp=$k" --set "workload.dp=$((gpus / k))"
    --set "workload.degree=$((k < 16 ? k : 16))")
  if [ "$d" = one-shot ]; then
    args+=(--set fabric.mode=one-shot)
  else
    args+=(--set "fabric.reconfiguration_delay=$d")
  fi
  "$sipsim" "${args[@]}" | awk '$1 == "0" && NF >= 3 {print $2}'
}

start=$SECONDS
declare -A best bestk
echo "iteration time (ms) per d and strategy; * = the fastest"
for b in "${bws[@]}"; do
  for d in "${ds[@]}" one-shot; do
    line=$(printf '%5s Gb/s d %-8s:' "$b" "$d")
    for k in "${mps[@]}"; do
      t=$(run "$b" "$d" "$k")
      line+=$(printf ' mp%-2s %8.2f' "$k" "$t")
      if [ -z "${best[$b,$d]:-}" ] || awk -v a="$t" -v c="${best[$b,$d]}" 'BEGIN {exit !(a < c)}'; then
        best[$b,$d]=$t bestk[$b,$d]=$k
      fi
    done
    echo "$line  * mp ${bestk[$b,$d]}"
  done
done
echo
echo "fastest strategy: iteration time in ms (mp) and dynamic / one-shot (> 1: one-shot wins)"
printf '%-9s' "d"
for b in "${bws[@]}"; do printf ' %24s' "B = $b Gb/s"; done
echo
for d in "${ds[@]}" one-shot; do
  printf '%-9s' "$d"
  for b in "${bws[@]}"; do
    printf ' %24s' "$(awk -v t="${best[$b,$d]}" -v o="${best[$b,one-shot]}" -v k="${bestk[$b,$d]}" \
      'BEGIN {printf "%.2f (mp%d) %.3f", t, k, t / o}')"
  done
  echo
done
echo "paper (Fig. 9): a lower d always helps; one-shot beats dynamic for d > ~300 us"
echo "$((SECONDS - start)) s"
