#!/usr/bin/env bash
# Reproduces docs/validation.md's "SiPAC collectives": the SiPAC paper's (004)
# Fig. 4a comparison at 512 units, 2048 Gb/s per unit, 1 MiB per flow: incast
# (gather: every unit sends 1 MiB to the root), broadcast (1 MiB from the root)
# and all-to-all (1 MiB per pair), each fabric with the best of its
# algorithms (`algorithm: auto`), on SiPAC_2(r=8), the DGX SuperPod cluster,
# a 16 x 32 2D torus and BCube(8, 2) (scenarios/sipac/). Prints each time,
# the algorithm, events and engine wall time, then SiPAC's speed-ups.
# ~1 minute on 1 core. RANKS=n runs each on n ranks (default 1).
# Usage: scripts/validate-sipac.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
ranks=${RANKS:-1}
fabrics="sipac superpod torus2d bcube"
declare -A t
printf '%-10s %-9s %-18s %12s %10s %9s\n' op fabric algorithm time_us events wall_s
for op in gather broadcast all-to-all; do
  size=512MiB  # the p-part buffer (gather) or the send buffer (all-to-all): 1 MiB per flow
  [ "$op" = broadcast ] && size=1MiB
  for f in $fabrics; do
    out=$(mpirun --oversubscribe -n "$ranks" "$sipsim" run "scenarios/sipac/$f-512.yaml" \
      --set "workload.op=$op" --set "workload.size=$size" -o "$tmp/s.h5" --force)
    read -r algo time < <(awk '$1 ~ /^[0-9]+$/ {print $2, $3}' <<<"$out")
    events=$(awk '/committed events/ {print $3}' <<<"$out")
    wall=$(awk '/wall time/ {print $3}' <<<"$out")
    t[$op,$f]=$time
    printf '%-10s %-9s %-18s %12s %10s %9s\n' "$op" "$f" "$algo" "$time" "$events" "$wall"
  done
done
echo
printf '%-10s %14s %14s %14s\n' op vs_superpod vs_torus2d vs_bcube
for op in gather broadcast all-to-all; do
  row=$(printf '%-10s' "$op")
  for f in superpod torus2d bcube; do
    row+=$(printf ' %13.2fx' "$(awk -v b="${t[$op,$f]}" -v s="${t[$op,sipac]}" 'BEGIN {print b / s}')")
  done
  echo "$row"
done
echo "paper (Fig. 4a): 3.6-5.3x vs SuperPod, 1.4-5.9x vs 2D torus, 1.4-3.4x vs BCube"
