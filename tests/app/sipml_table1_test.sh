#!/usr/bin/env bash
# SiP-ML Table 1 smoke test (docs/validation.md, "SiP-ML Table 1: fabric
# latency"): on scenarios/sipml/table1-*.yaml, the iteration time strictly
# grows with the fabric latency at 512 GPUs (1, 3, 10, 30, 100 us), and at
# 1 us the speed-up grows with the scale (512 > 128 > 32 GPUs).
# Usage: sipml_table1_test.sh SIPSIM PROJECT_SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
scenarios=$2/scenarios/sipml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# iteration N LATENCY: the iteration time (ms) of table1-N.yaml at LATENCY.
iteration() {
  "$sipsim" run "$scenarios/table1-$1.yaml" -q -o "$work/r.h5" --force \
    --set "fabric.latency=$2" | awk '$1 == "0" && NF >= 3 {print $2}'
}
# less A B: A < B as numbers (both non-empty).
less() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }

prev="" prev_lat=""
for lat in 1us 3us 10us 30us 100us; do
  t=$(iteration 512 "$lat")
  echo "512 GPUs, $lat: $t ms"
  if [ -z "$t" ]; then
    echo "FAIL: no iteration time at 512 GPUs, $lat"
    failures=$((failures + 1))
  elif [ -n "$prev" ] && ! less "$prev" "$t"; then
    echo "FAIL: 512 GPUs: $t ms at $lat is not above $prev ms at $prev_lat"
    failures=$((failures + 1))
  fi
  [ "$lat" = 1us ] && t512=$t
  prev=$t prev_lat=$lat
done
t32=$(iteration 32 1us)
t128=$(iteration 128 1us)
echo "1 us: 32 GPUs $t32 ms, 128 GPUs $t128 ms, 512 GPUs $t512 ms"
if ! less "$t128" "$t32" || ! less "$t512" "$t128"; then
  echo "FAIL: at 1 us the iteration time does not fall from 32 to 128 to 512 GPUs"
  failures=$((failures + 1))
fi
[ "$failures" = 0 ] && echo "sipml_table1: ok"
exit $((failures > 0))
