#!/usr/bin/env bash
# Bit-identical results at any rank count: runs SCENARIO on 1, 2, 3 and 4
# ranks (or the counts in RANKS, the first of them 1) and requires every
# dataset outside /meta to be identical (h5diff), the same committed event
# count, and non-trivial content; and for collectives the same analyze /
# compare output. Runs on 2 and 3 ranks check every program-derived lookahead
# bound as they go (`run --check-bounds`).
# Usage: [RANKS="1 2 5 8"] determinism_test.sh SIPSIM SCENARIO [extra sipsim args...]
set -euo pipefail
sipsim=$(realpath "$1")
scenario=$(realpath "$2")
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1

attr() { h5dump -a "/meta/$2" "$1" | awk -F': ' '/\(0\)/ {print $2}'; }

read -r -a ranks <<< "${RANKS:-1 2 3 4}"
[ "${ranks[0]}" = 1 ] || { echo "FAIL: RANKS must start with 1"; exit 1; }
for n in "${ranks[@]}"; do
  check=()
  if [ "$n" = 2 ] || [ "$n" = 3 ]; then check=(--check-bounds); fi
  mpirun --oversubscribe -n "$n" "$sipsim" run "$scenario" -o "$work/n$n.h5" -q "${check[@]}" "$@" > "$work/n$n.log"
  [ "$(attr "$work/n$n.h5" ranks)" = "$n" ] || { echo "FAIL: n$n.h5 does not say ranks=$n"; exit 1; }
done

events=$(attr "$work/n1.h5" committed_events)
[ "${events:-0}" -gt 0 ] || { echo "FAIL: no events committed"; exit 1; }
lps=$(h5dump -H -d /lp/events "$work/n1.h5" | sed -n 's/.*SIMPLE { ( \([0-9]*\) ).*/\1/p')
[ "${lps:-0}" -gt 0 ] || { echo "FAIL: /lp/events is empty"; exit 1; }
for n in "${ranks[@]:1}"; do
  [ "$(attr "$work/n$n.h5" committed_events)" = "$events" ] ||
    { echo "FAIL: $n ranks committed $(attr "$work/n$n.h5" committed_events) events, 1 rank $events"; exit 1; }
  # h5diff exits 0 for objects it cannot compare (e.g. tables of different
  # lengths); a table empty in both files (e.g. /trace/names of a workload
  # that names no op) is the same, and h5diff calls it not comparable too.
  h5diff_ok=true
  h5diff -c --exclude-path /meta "$work/n1.h5" "$work/n$n.h5" > "$work/h5diff.txt" || h5diff_ok=false
  while read -r object; do
    rows() { h5dump -H -d "$object" "$1" | sed -n 's/.*SIMPLE { ( \([0-9]*\) ).*/\1/p'; }
    [ "$(rows "$work/n1.h5")" = 0 ] && [ "$(rows "$work/n$n.h5")" = 0 ] || h5diff_ok=false
  done < <(sed -n 's/^Not comparable: <\([^>]*\)> or <[^>]*> is an empty dataset$/\1/p' "$work/h5diff.txt")
  if grep -v "is an empty dataset" "$work/h5diff.txt" | grep -qi "not comparable"; then
    h5diff_ok=false
  fi
  if ! $h5diff_ok; then
    echo "FAIL: $n ranks differ from 1 rank outside /meta:"
    h5diff -r --exclude-path /meta "$work/n1.h5" "$work/n$n.h5" | head -20
    exit 1
  fi
done
# The estimates are shared among the ranks: analyze and compare print the same
# at any rank count (every algorithm, to exercise the round robin).
if grep -q 'type: collectives' "$scenario"; then
  for n in 1 2 3 4; do
    mpirun --oversubscribe -n "$n" "$sipsim" analyze "$scenario" --set workload.algorithm=auto "$@" > "$work/a$n.txt"
    mpirun --oversubscribe -n "$n" "$sipsim" compare "$scenario" "$scenario" "$@" > "$work/c$n.txt"
  done
  [ "$(grep -c '^ ' "$work/a1.txt")" -gt 0 ] || { echo "FAIL: analyze printed no estimate"; exit 1; }
  for n in 2 3 4; do
    cmp -s "$work/a1.txt" "$work/a$n.txt" || { echo "FAIL: analyze differs at $n ranks"; diff "$work/a1.txt" "$work/a$n.txt" | head; exit 1; }
    cmp -s "$work/c1.txt" "$work/c$n.txt" || { echo "FAIL: compare differs at $n ranks"; diff "$work/c1.txt" "$work/c$n.txt" | head; exit 1; }
  done
fi
echo "identical at ${ranks[*]} ranks: $events events on $lps LPs"
echo "1 passed, 0 failed"
