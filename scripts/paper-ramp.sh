#!/usr/bin/env bash
# Reproduces RAMP §8.2-8.3 at 65,536 nodes with critical-path estimates
# (RAMP §7.4.1; `sipsim compare` and `sipsim analyze`), as reported in
# docs/validation.md:
#   fig18  every operation, 1 GiB, RAMP-x against each baseline's best strategy
#          (scenarios/ramp/*-65536.yaml vs scenarios/ramp-baselines/*.yaml)
#   fig19  bandwidth-matched baselines (0.2-12.8 Tb/s per node, no
#          oversubscription): all-reduce and all-to-all (FIG19_OPS), 1 GiB
#   fig21  all-reduce against the number of GPUs (256-65,536) and the size
#          (1 MiB, 32 MiB, 1 GiB): ring, 2D-torus and hierarchical strategies
#          on the 1:1 fat-tree against RAMP-x, all at 2.4 Tb/s per node (§7.5's
#          "algorithmic comparison"; RAMP at 32 x 75 Gb/s), with the h2h / h2t /
#          compute breakdown and the H2T/H2H ratio of Fig. 22
#   fig20  all-reduce breakdown (h2h / h2t / compute) at 65,536 nodes for
#          1 MiB, 1 GiB and 10 GiB: ring, hierarchical and 2D-torus strategies
#          on the 1:12 SuperPod, the torus strategy on the 2D torus, RAMP-x at
#          12.8 Tb/s per node
# CSV files go to $OUT (default ./paper-ramp), one per figure. The estimates
# are shared among $RANKS MPI ranks (default 2); see docs/validation.md for the
# time each figure takes.
# Usage: [RANKS=n] [OUT=dir] [FIG19_OPS=...] scripts/paper-ramp.sh [build dir] [fig18|fig19|fig20|fig21|all]
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
what=${2:-all}
out=${OUT:-paper-ramp}
mkdir -p "$out"
est() { mpirun -n "${RANKS:-2}" --oversubscribe "$sipsim" "$@"; }
ops="all-reduce reduce-scatter all-gather all-to-all broadcast reduce gather scatter barrier"
baselines=(scenarios/ramp-baselines/superpod-65536.yaml scenarios/ramp-baselines/superpod-1to1-65536.yaml
           scenarios/ramp-baselines/torus2d-65536.yaml scenarios/ramp-baselines/topoopt-65536.yaml)

if [ "$what" = fig18 ] || [ "$what" = all ]; then
  : > "$out/fig18.csv"
  for op in $ops; do
    size=1GiB
    [ "$op" = barrier ] && size=0B
    est compare "scenarios/ramp/$op-65536.yaml" "${baselines[@]}" --csv --set "workload.op=$op" \
      --set "workload.sizes.min=$size" --set "workload.sizes.max=$size" > "$tmp/c.csv"
    if [ ! -s "$out/fig18.csv" ]; then head -1 "$tmp/c.csv" > "$out/fig18.csv"; fi
    tail -n +2 "$tmp/c.csv" >> "$out/fig18.csv"
    echo "fig18 $op done" >&2
  done
  # RAMP's speed-up over the best realistic baseline (1:12 SuperPod, torus, TopoOpt;
  # the 1:1 SuperPod is Fig. 19/21's bandwidth-matched variant), per operation.
  awk -F, 'NR > 1 && $4 != "ramp" && $3 !~ /1to1/ && $11 != "skipped" {
             if (!($1 in best) || $11 + 0 < best[$1] + 0) { best[$1] = $11; who[$1] = $3 " " $6 }
           }
           END { for (op in best) printf "%-15s %8sx  (best baseline: %s)\n", op, best[op], who[op] }' \
    "$out/fig18.csv" | sort
fi

if [ "$what" = fig19 ] || [ "$what" = all ]; then
  echo "op,node_tbps,scenario,algorithm,time_us,speedup_of_ramp" > "$out/fig19.csv"
  for op in ${FIG19_OPS:-all-reduce all-to-all}; do
    for tbps in 0.2 0.8 3.2 12.8; do
      # The same capacity per node everywhere: RAMP's 32 transceivers, the
      # fat-tree's NIC and NVLink, four torus / TopoOpt links.
      line=$(awk -v t="$tbps" 'BEGIN {printf "%.6gGbps", t * 1000 / 32}')
      link=$(awk -v t="$tbps" 'BEGIN {printf "%.6gGbps", t * 1000 / 4}')
      node=$(awk -v t="$tbps" 'BEGIN {printf "%.6gGbps", t * 1000}')
      sed "s/^  type: ramp$/  type: ramp\n  line_rate: $line/" "scenarios/ramp/$op-65536.yaml" > "$tmp/ramp-$tbps.yaml"
      sed "s/^  preset: superpod-1to1$/  preset: superpod-1to1\n  intra: {bandwidth: $node}\n  nic: {bandwidth: $node}/" \
        scenarios/ramp-baselines/superpod-1to1-65536.yaml > "$tmp/fat-tree-$tbps.yaml"
      sed "s/link_bandwidth: .*/link_bandwidth: $link/" scenarios/ramp-baselines/torus2d-65536.yaml > "$tmp/torus2d-$tbps.yaml"
      sed "s/link_bandwidth: .*/link_bandwidth: $link/" scenarios/ramp-baselines/topoopt-65536.yaml > "$tmp/topoopt-$tbps.yaml"
      est compare "$tmp/ramp-$tbps.yaml" "$tmp/fat-tree-$tbps.yaml" "$tmp/torus2d-$tbps.yaml" \
        "$tmp/topoopt-$tbps.yaml" --csv --set "workload.op=$op" \
        --set workload.sizes.min=1GiB --set workload.sizes.max=1GiB |
        awk -F, -v t="$tbps" 'NR > 1 && $11 != "skipped" {sub(/-[0-9.]+$/, "", $3); print $1 "," t "," $3 "," $6 "," $7 "," $11}' \
        >> "$out/fig19.csv"
      echo "fig19 $op $tbps Tb/s done" >&2
    done
  done
  column -s, -t "$out/fig19.csv"
fi

if [ "$what" = fig20 ] || [ "$what" = all ]; then
  echo "system,strategy,size,time_us,h2h_us,h2t_us,compute_us" > "$out/fig20.csv"
  for size in 1MiB 1GiB 10GiB; do
    run() {  # system label, scenario, strategy label, extra --set arguments
      local sys=$1 f=$2 label=$3
      shift 3
      est analyze "$f" --set workload.op=all-reduce --set "workload.sizes.min=$size" \
        --set "workload.sizes.max=$size" "$@" |
        awk -v y="$sys" -v s="$label" '$1 ~ /^[0-9]+$/ {print y "," s "," $1 "," $4 "," $7 "," $8 "," $9}' \
          >> "$out/fig20.csv"
    }
    pod=scenarios/ramp-baselines/superpod-65536.yaml
    run superpod-1:12 "$pod" ring --set workload.algorithm=ring
    run superpod-1:12 "$pod" hierarchical --set workload.algorithm=hierarchical-ring
    run superpod-1:12 "$pod" 2d-torus --set workload.algorithm=torus2d --set "workload.dims=[256, 256]"
    run torus2d scenarios/ramp-baselines/torus2d-65536.yaml 2d-torus --set workload.algorithm=torus2d
    run ramp scenarios/ramp/all-reduce-65536.yaml ramp-x
    echo "fig20 $size done" >&2
  done
  column -s, -t "$out/fig20.csv"
fi

if [ "$what" = fig21 ] || [ "$what" = all ]; then
  echo "gpus,strategy,size,time_us,h2h_us,h2t_us,compute_us" > "$out/fig21.csv"
  for n in 256 1024 4096 16384 65536; do
    side=$(awk -v n="$n" 'BEGIN {printf "%d", sqrt(n) + 0.5}')
    run() {  # scenario, label, extra --set arguments
      local f=$1 label=$2
      shift 2
      est analyze "$f" --set workload.op=all-reduce --set "workload.group.count=$n" "$@" |
        awk -v n="$n" -v s="$label" '$1 ~ /^[0-9]+$/ {print n "," s "," $1 "," $4 "," $7 "," $8 "," $9}' \
          >> "$out/fig21.csv"
    }
    fat=scenarios/ramp-baselines/superpod-1to1-65536.yaml
    run "$fat" ring --set workload.algorithm=ring
    run "$fat" 2d-torus --set workload.algorithm=torus2d --set "workload.dims=[$side, $((n / side))]"
    run "$fat" hierarchical --set workload.algorithm=hierarchical-ring
    run scenarios/ramp/all-reduce-65536.yaml ramp-x --set fabric.line_rate=75Gbps
    echo "fig21 $n GPUs done" >&2
  done
  column -s, -t "$out/fig21.csv"
fi
