#!/usr/bin/env bash
# Reproduces docs/validation.md's "SiPAC collectives": the SiPAC paper's (004)
# Fig. 4a comparison at 512 units, 2048 Gb/s per unit, 1 MiB per flow: incast
# (gather: every unit sends 1 MiB to the root), broadcast (1 MiB from the root)
# and all-to-all (1 MiB per pair), each fabric with the best of its
# algorithms (`algorithm: auto`), on SiPAC_2(r=8), the DGX SuperPod cluster,
# a 16 x 32 2D torus and BCube(8, 2) (scenarios/sipac/). Prints each time,
# the algorithm, events and engine wall time, then SiPAC's speed-ups.
# Then Fig. 4b: the hybrid all-reduce + all-to-all (100 MiB per unit each,
# run one after the other: the time is their sum) at 64 and 512 units over
# 128-4096 Gb/s per unit (each fabric's links scaled as in its scenario).
# ~1.5 minutes on 1 core. RANKS=n runs each on n ranks (default 1).
# Usage: scripts/validate-sipac.sh [build dir] [fig4a|fig4b]   (default build/release, both)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
ranks=${RANKS:-1}
fabrics="sipac superpod torus2d bcube"
part=${2:-both}
declare -A t
# run SCENARIO ARGS...: "algorithm time_us events wall_s" of one run.
run() {
  local out
  out=$(mpirun --oversubscribe -n "$ranks" "$sipsim" run "$@" -o "$tmp/s.h5" --force)
  awk '$1 ~ /^[0-9]+$/ {a = $2; t = $3} /committed events/ {e = $3} /wall time/ {w = $3}
       END {print a, t, e, w}' <<<"$out"
}
if [ "$part" != fig4b ]; then
printf '%-10s %-9s %-18s %12s %10s %9s\n' op fabric algorithm time_us events wall_s
for op in gather broadcast all-to-all; do
  size=512MiB  # the p-part buffer (gather) or the send buffer (all-to-all): 1 MiB per flow
  [ "$op" = broadcast ] && size=1MiB
  for f in $fabrics; do
    read -r algo time events wall < <(run "scenarios/sipac/$f-512.yaml" \
      --set "workload.op=$op" --set "workload.size=$size")
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
fi
[ "$part" = fig4a ] && exit 0
echo
echo "Fig. 4b: all-reduce + all-to-all, 100 MiB per unit, time in us (algorithms: all-reduce/all-to-all)"
printf '%-6s %-6s %-9s %-32s %12s %10s %9s\n' units Gbps fabric algorithms time_us events wall_s
for units in 64 512; do
  for gbps in 128 256 512 1024 2048 4096; do
    mbps=$((gbps * 1000))
    for f in $fabrics; do
      case $f in
        sipac) keys=(--set "fabric.bandwidth=${gbps}Gbps") ;;
        bcube) keys=(--set "fabric.link_bandwidth=$(((mbps + 1) / 3))Mbps") ;;
        torus2d) keys=(--set "fabric.link_bandwidth=$((mbps / 4))Mbps") ;;
        superpod) keys=(--set "fabric.intra.bandwidth=$(((mbps * 12 + 6) / 13))Mbps"
                        --set "fabric.nic.bandwidth=$(((mbps + 6) / 13))Mbps") ;;
      esac
      total=0 algos="" ev=0 wt=0
      for op in all-reduce all-to-all; do
        read -r algo time events wall < <(run "scenarios/sipac/$f-$units.yaml" "${keys[@]}" \
          --set "workload.op=$op" --set workload.size=100MiB)
        total=$(awk -v a="$total" -v b="$time" 'BEGIN {printf "%.3f", a + b}')
        algos+=${algos:+/}$algo
        ev=$((ev + events))
        wt=$(awk -v a="$wt" -v b="$wall" 'BEGIN {printf "%.3f", a + b}')
      done
      printf '%-6s %-6s %-9s %-32s %12s %10s %9s\n' "$units" "$gbps" "$f" "$algos" "$total" "$ev" "$wt"
    done
  done
done
