#!/usr/bin/env bash
# Reproduces docs/validation.md's "SiP-ML Fig. 8": the SiP-ML paper's (000)
# Fig. 8, the Transformer's training time on SiP-OCS with a one-shot circuit
# allocation against the number of OCSs Q (4, 8, 12, 16, 24, 32) at three
# per-GPU bandwidths B, beside Elect-Flat at the same B (the paper's dashed
# lines). Runs scenarios/sipml/fig8-transformer-sip-ocs.yaml with the hybrid
# strategies mp 2, 4, 8, 16 (x dp = GPUs / mp; degree-aware placement with
# degree min(mp, Q), as a GPU has Q circuits) and keeps the fastest per case;
# Elect-Flat (fig5-transformer-elect-flat.yaml, the same job) gets the same
# search with degree = mp (unconstrained).
# The paper: better with more OCSs, marginal beyond 12; a larger B is less
# sensitive to Q. BWS="1024 2048 8192" (Gb/s), QS, MPS narrow the sweep.
# ~30 s on 1 core.
# Usage: scripts/validate-sipml-fig8.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
gpus=64  # the scenario's nodes
read -r -a bws <<<"${BWS:-1024 2048 8192}"
read -r -a qs <<<"${QS:-4 8 12 16 24 32}"
read -r -a mps <<<"${MPS:-2 4 8 16}"
scenario=scenarios/sipml/fig8-transformer-sip-ocs.yaml
flat=scenarios/sipml/fig5-transformer-elect-flat.yaml  # the same job on Elect-Flat

# run B Q MP: the iteration time in ms on SiP-OCS with Q switches (Q = flat:
# Elect-Flat at the same B, degree mp).
run() {
  local b=$1 q=$2 k=$3 deg
  local args=(--set "fabric.bandwidth=${b}Gbps" --set "workload.mp=$k"
    --set "workload.dp=$((gpus / k))")
  if [ "$q" = flat ]; then
    args=(run "$flat" "${args[@]}" --set "workload.degree=$k")
  else
    deg=$((k < q ? k : q))
    args=(run "$scenario" "${args[@]}" --set "fabric.switches=$q"
      --set "workload.degree=$((deg > 2 ? deg : 2))")
  fi
  "$sipsim" "${args[@]}" -q -o "$tmp/r.h5" --force | awk '$1 == "0" && NF >= 3 {print $2}'
}

start=$SECONDS
declare -A best bestk
echo "iteration time (ms) per Q and strategy; * = the fastest"
for b in "${bws[@]}"; do
  for q in "${qs[@]}" flat; do
    line=$(printf '%5s Gb/s Q %-4s:' "$b" "$q")
    for k in "${mps[@]}"; do
      t=$(run "$b" "$q" "$k")
      line+=$(printf ' mp%-2s %8.2f' "$k" "$t")
      if [ -z "${best[$b,$q]:-}" ] || awk -v a="$t" -v c="${best[$b,$q]}" 'BEGIN {exit !(a < c)}'; then
        best[$b,$q]=$t bestk[$b,$q]=$k
      fi
    done
    echo "$line  * mp ${bestk[$b,$q]}"
  done
done
echo
echo "fastest hybrid strategy: iteration time in ms (mp), and against Elect-Flat at the same B"
printf '%6s' "B \\ Q"
for q in "${qs[@]}"; do printf ' %20s' "$q"; done
printf ' %14s\n' "Elect-Flat"
for b in "${bws[@]}"; do
  printf '%6s' "$b"
  for q in "${qs[@]}"; do
    printf ' %20s' "$(awk -v t="${best[$b,$q]}" -v f="${best[$b,flat]}" -v k="${bestk[$b,$q]}" \
      'BEGIN {printf "%.2f (mp%d) %.2fx", t, k, t / f}')"
  done
  printf ' %14s\n' "$(printf '%.2f (mp%s)' "${best[$b,flat]}" "${bestk[$b,flat]}")"
done
echo "paper (Fig. 8): the time falls with Q, little beyond 12 OCSs; less sensitive to Q at larger B"
echo "$((SECONDS - start)) s"
