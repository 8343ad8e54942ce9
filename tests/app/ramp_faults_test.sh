#!/usr/bin/env bash
# RAMP §3's claim, exhaustively on a small RAMP: with any single transceiver
# (16 nodes x 2) or any single subnet (2 x 2 groups x 2) failed, RAMP-x's
# all-to-all still completes, no faster than on the healthy fabric; with
# both transceivers of a node failed it cannot, and the run says which pair
# is cut off (docs/faults.md).
# Usage: ramp_faults_test.sh SIPSIM
set -euo pipefail
sipsim=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > r16.yaml <<'YAML'
fabric: {type: ramp, x: 2, J: 2, Lambda: 4, permissive: true}
workload: {type: collectives, op: all-to-all, algorithm: ramp-x, size: 1MiB, iterations: 1, warmup: 0}
YAML
time_of() { awk '$1 == 1048576 {print $3}' "$1"; }
"$sipsim" run r16.yaml -o healthy.h5 > healthy.log
healthy=$(time_of healthy.log)
[ -n "$healthy" ] || { echo "FAIL: no time in the healthy run"; exit 1; }
runs=0 slower=0
check() {  # check FAULT: completes, no faster than healthy
  if ! "$sipsim" run r16.yaml -o f.h5 --force --set "faults=[$1]" > f.log 2> f.err; then
    echo "FAIL: with $1 the all-to-all did not complete:"; cat f.err; exit 1
  fi
  local t
  t=$(time_of f.log)
  awk -v t="$t" -v h="$healthy" 'BEGIN {exit !(t + 0 >= h + 0)}' ||
    { echo "FAIL: with $1 it took $t us, less than healthy $healthy us"; exit 1; }
  awk -v t="$t" -v h="$healthy" 'BEGIN {exit !(t + 0 > h + 0)}' && slower=$((slower + 1))
  runs=$((runs + 1))
}
for node in $(seq 0 15); do
  for t in 0 1; do check "{kind: transceiver, target: {node: $node, transceiver: $t}, at: 0s}"; done
done
for from in 0 1; do
  for to in 0 1; do
    for t in 0 1; do
      check "{kind: switch, target: {subnet: {from: $from, to: $to, transceiver: $t}}, at: 0s}"
    done
  done
done
[ "$slower" -gt 0 ] || { echo "FAIL: no fault made the all-to-all slower"; exit 1; }
if "$sipsim" run r16.yaml -o cut.h5 --force --set "faults=[{kind: transceiver, target: {node: 3, transceiver: 0}, at: 0s}, {kind: transceiver, target: {node: 3, transceiver: 1}, at: 0s}]" > cut.log 2> cut.err; then
  echo "FAIL: node 3 without transceivers still completed"; exit 1
fi
grep -q "node 3 cannot reach node\|cannot reach node 3" cut.err ||
  { echo "FAIL: the cut-off run does not name the pair:"; cat cut.err; exit 1; }
[ ! -e cut.h5 ] || { echo "FAIL: the failed run left cut.h5"; exit 1; }
echo "$runs single faults completed ($slower slower than healthy $healthy us); a node cut off is refused"
