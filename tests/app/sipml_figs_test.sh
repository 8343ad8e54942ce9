#!/usr/bin/env bash
# SiP-ML Fig. 5, 8 and 9 smoke test (docs/validation.md, "SiP-ML Fig. 5",
# "Fig. 8", "Fig. 9") on scenarios/sipml/fig{5,8,9}-*.yaml, 64 GPUs:
#   - Fig. 5: Elect-Flat is no slower than SiP-OCS and SiP-Ring with the same
#     strategy (mp 2 x dp 32) at the same B (1,024 Gb/s): it is the ideal;
#   - Fig. 8: SiP-OCS with 16 OCSs is faster than with 4 for mp 16 x dp 4 at
#     1,024 Gb/s (degree 16 against 4, and finer circuits);
#   - Fig. 9: with d = 10 ms (re-planned after 50 ms, each change dark for
#     10 ms) the dynamic allocation is slower than the one-shot (mp 8, 2 Tb/s).
# Usage: sipml_figs_test.sh SIPSIM PROJECT_SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
scenarios=$2/scenarios/sipml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# iteration SCENARIO [--set ...]: the iteration time (ms) of SCENARIO.
iteration() {
  local s=$1
  shift
  "$sipsim" run "$scenarios/$s" -q -o "$work/r.h5" --force "$@" | awk '$1 == "0" && NF >= 3 {print $2}'
}
# check DESCRIPTION A B: fails unless A < B (or A <= B with LE=1) as numbers.
check() {
  local what=$1 a=$2 b=$3
  echo "$what: $a ms vs $b ms"
  if [ -z "$a" ] || [ -z "$b" ] || ! awk -v a="$a" -v b="$b" -v le="${LE:-0}" \
    'BEGIN {exit !(a < b || (le && a == b))}'; then
    echo "FAIL: $what"
    failures=$((failures + 1))
  fi
}

mp2=(--set fabric.bandwidth=1024Gbps --set workload.mp=2 --set workload.dp=32 --set workload.degree=2)
flat=$(iteration fig5-transformer-elect-flat.yaml "${mp2[@]}")
ocs=$(iteration fig5-transformer-sip-ocs.yaml "${mp2[@]}")
ring=$(iteration fig5-transformer-sip-ring.yaml --set workload.mp=2 --set workload.dp=32 \
  --set workload.degree=2)
LE=1 check "Fig. 5, 1,024 Gb/s, mp 2: Elect-Flat <= SiP-OCS" "$flat" "$ocs"
LE=1 check "Fig. 5, 1,024 Gb/s, mp 2: Elect-Flat <= SiP-Ring" "$flat" "$ring"

mp16=(--set fabric.bandwidth=1024Gbps --set workload.mp=16 --set workload.dp=4)
q16=$(iteration fig8-transformer-sip-ocs.yaml "${mp16[@]}" --set fabric.switches=16 --set workload.degree=16)
q4=$(iteration fig8-transformer-sip-ocs.yaml "${mp16[@]}" --set fabric.switches=4 --set workload.degree=4)
check "Fig. 8, 1,024 Gb/s, mp 16: 16 OCSs faster than 4" "$q16" "$q4"

oneshot=$(iteration fig9-transformer-sip-ocs-dynamic.yaml --set fabric.mode=one-shot)
dynamic=$(iteration fig9-transformer-sip-ocs-dynamic.yaml --set fabric.reconfiguration_delay=10ms)
check "Fig. 9, 2,048 Gb/s, mp 8: one-shot faster than dynamic at d = 10 ms" "$oneshot" "$dynamic"

[ "$failures" = 0 ] && echo "sipml_figs: ok"
exit $((failures > 0))
