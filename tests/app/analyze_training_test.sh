#!/usr/bin/env bash
# `sipsim analyze` on a transformer scenario (AMPeD eq. 1-12) beside `sipsim
# run`: the same category names and units; on one stage with ring all-reduces
# on elect-flat the compute columns agree to the printed digit and the time
# differs only by the all-reduces' reductions (AMPeD has none: analyze is
# shorter, here by 1.5%). A pipeline scenario prints a bubble and pp-comm.
set -u
sipsim=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

analyze=$("$sipsim" analyze "$dir/amped-flat.yaml") || fail "analyze exited $?"
run=$("$sipsim" run "$dir/amped-flat.yaml" -q -o "$tmp/run.h5") || fail "run exited $?"
for word in assumptions "eff(ub = 2)" "ring all-reduce" "R = 1"; do
  grep -qF "$word" <<<"$analyze" || fail "analyze does not say '$word'"
done
# The AMPeD row's columns by name (the headings "HW TFLOP/s" and "model
# TFLOP/s" are one column each), and run's mean-GPU row's (its label is two words).
for name in forward backward optimizer; do
  a=$(awk -v w="$name" '/^#/ && /TFLOP/ { gsub(/ TFLOP\/s/, ""); for (i = 2; i <= NF; ++i) if ($i == w) c = i } $1 == "AMPeD" { print $(c - 1) }' <<<"$analyze")
  r=$(awk -v w="$name" '/^#/ && /forward/ && !/TFLOP/ { for (i = 2; i <= NF; ++i) if ($i == w) c = i } $1 == "mean" { print $(c + 1) }' <<<"$run")
  [ -n "$a" ] && [ "$a" = "$r" ] || fail "$name: analyze '$a' ms, run '$r' ms"
done
ta=$(awk '$1 == "AMPeD" { print $2 }' <<<"$analyze")
tr=$(awk '/^#iteration/ { getline; print $2 }' <<<"$run")
awk -v a="$ta" -v r="$tr" 'BEGIN { exit !(a > 0 && a <= r && (r - a) / r < 0.05) }' ||
  fail "time: analyze '$ta' ms, run '$tr' ms"

pipe=$("$sipsim" analyze "$dir/training-tiny.yaml") || fail "analyze (pipeline) exited $?"
for word in bubble pp-comm dp-comm tp-comm "1F1B"; do
  grep -qF "$word" <<<"$pipe" || fail "pipeline analyze does not say '$word'"
done
bubble=$(awk '/^#/ && /TFLOP/ { gsub(/ TFLOP\/s/, ""); for (i = 2; i <= NF; ++i) if ($i == "bubble") c = i } $1 == "AMPeD" { print $(c - 1) }' <<<"$pipe")
awk -v b="$bubble" 'BEGIN { exit !(b > 0) }' || fail "pipeline bubble '$bubble'"

[ "$failures" -eq 0 ] && echo "analyze training: all passed"
exit "$failures"
