#!/usr/bin/env bash
# Reproduces docs/validation.md's "RAMP Table 9": one training iteration of
# each Megatron row of RAMP Table 9 (§8.1, Fig. 16) on RAMP, the SuperPod
# fat-tree and TopoOpt (scenarios/validation/ramp-table9/*.yaml with the
# row's --set), replayed collectives, 1 rank. Prints per row and network the
# iteration time, the communication share (exposed communication / iteration,
# mean GPU) and RAMP's speed-up; the per-run wall time and peak memory go to
# stderr. Rows CE 2.5-1.8 take seconds; 1.7 on the SuperPod about 8 minutes.
# Usage: [NETWORKS="ramp superpod topoopt"] [MODE=replay|replay-shapes|simulate]
#        scripts/validate-ramp-table9.sh [build dir] [CE ...]
#   e.g. scripts/validate-ramp-table9.sh build/release 2.5 2.4 2.2
# MODE=replay-shapes (docs/models.md, "Replayed collectives") makes the
# SuperPod and TopoOpt rows from CE 1.7 on feasible (minutes, not hours).
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
shift $(($# > 0 ? 1 : 0))
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(2.5 2.4 2.2 2.0 1.8 1.7 1.5 1.3 1.2 1.0)
networks=(${NETWORKS:-ramp superpod topoopt})
# CE, hidden, heads, layers, global batch, DP, MP (RAMP Table 9).
table9() {
  case $1 in
    2.5) echo 1152 12 36 2480 16 1 ;;
    2.4) echo 1536 16 40 3424 32 1 ;;
    2.2) echo 2304 24 56 4896 32 4 ;;
    2.0) echo 4096 32 50 7168 64 8 ;;
    1.8) echo 6144 64 71 10880 64 32 ;;
    1.7) echo 8192 128 128 16896 256 128 ;;
    1.5) echo 16384 512 132 14080 128 512 ;;
    1.3) echo 32768 2048 160 1024 32 2048 ;;
    1.2) echo 131072 8192 52 64 8 8192 ;;
    1.0) echo 262144 65536 90 4 1 65536 ;;
    *) echo "unknown Table 9 row CE $1" >&2; exit 2 ;;
  esac
}
printf '%-4s %6s %9s' CE GPUs DP:MP
for n in "${networks[@]}"; do printf ' %14s %6s' "$n(ms)" comm%; done
printf ' %s\n' "RAMP speed-up"
for ce in "${rows[@]}"; do
  read -r h a l B dp mp < <(table9 "$ce")
  printf '%-4s %6d %9s' "$ce" $((dp * mp)) "$dp:$mp"
  declare -A iter=()
  for n in "${networks[@]}"; do
    out=$(/usr/bin/time -f 'wall %e s, peak %M KiB' "$sipsim" run \
      "scenarios/validation/ramp-table9/$n.yaml" -o "$tmp/r.h5" --force \
      --set workload.model.hidden="$h" --set workload.model.heads="$a" \
      --set workload.model.layers="$l" --set workload.model.global_batch="$B" \
      --set workload.model.micro_batch=$((B / dp)) --set workload.parallelism.tp="$mp" \
      --set workload.parallelism.dp="$dp" --set workload.collectives="${MODE:-replay}" 2>&1) ||
      { echo "$out" >&2; exit 1; }
    # The iteration row, then the mean GPU's breakdown: forward backward
    # weight-gradient optimizer compute tp pp dp ep collective bubble idle.
    read -r t share joules < <(echo "$out" | awk '
      $1 == "0" && t == "" {t = $2; j = $6}
      $1 == "mean" && $2 == "GPU" {c = $8 + $9 + $10 + $11 + $12; s = 0
        for (i = 3; i <= 14; ++i) s += $i; share = 100 * c / s}
      END {print t, share, j}')
    iter[$n]=$t
    printf ' %14.3f %6.1f' "$t" "$share"
    echo "# CE $ce $n: fabric energy $joules J per iteration; $(echo "$out" | tail -1)" >&2
  done
  speedups=""
  for n in "${networks[@]}"; do
    [ "$n" = ramp ] && continue
    speedups+=" $(awk -v o="${iter[$n]}" -v r="${iter[ramp]:-0}" \
      'BEGIN {if (r > 0) printf "%.2fx", o / r; else printf "-"}')"
  done
  printf '%s\n' "$speedups"
done
