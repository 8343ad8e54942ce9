#!/usr/bin/env bash
# Before/after check for changes that must not change what a user sees: runs every
# ready scenario with one sipsim binary and keeps its run file and printed output
# (snapshot), then compares two snapshots (diff): every dataset and attribute outside
# /meta with h5diff, and the printed tables and summaries without the lines that
# measure the machine (wall time, event rate, memory, busy time, output path).
#
#   scripts/compare-outputs.sh snapshot SIPSIM DIR [ranks]   # ~15 min on 2 cores
#   scripts/compare-outputs.sh diff DIR_BEFORE DIR_AFTER
#
# Runs use 2 ranks by default (results are identical at any rank count: the
# determinism tests). The 65,536-node electrical baselines are estimated, not
# simulated, here as in docs/validation.md: their `analyze` output is compared.
# SKIP_LARGE=1 leaves out the 65,536-node scenarios (~3 min instead).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

machine='wall time|event rate|peak memory|^  busy|^  output|pending events'

snapshot() {
  local sipsim=$1 dir=$2 ranks=${3:-2}
  mkdir -p "$dir"
  local runs=(scenarios/*.yaml scenarios/nccl/*.yaml scenarios/validation/*.yaml
              scenarios/ramp/small-ramp.yaml scenarios/ramp/incast-permissive.yaml)
  [ "${SKIP_LARGE:-0}" = 1 ] || runs+=(scenarios/ramp/*-65536.yaml)
  for f in "${runs[@]}"; do
    local name=${f#scenarios/}
    name=${name%.yaml}
    name=${name//\//_}
    echo "run $f" >&2
    mpirun -n "$ranks" "$sipsim" run "$f" -o "$dir/$name.h5" --force -q 2>&1 |
      grep -Ev "$machine" > "$dir/$name.run.txt" || true
  done
  local estimates=(scenarios/nccl/*.yaml scenarios/validation/*.yaml scenarios/ramp/small-ramp.yaml)
  [ "${SKIP_LARGE:-0}" = 1 ] || estimates+=(scenarios/ramp-baselines/*.yaml)
  for f in "${estimates[@]}"; do
    local name=${f#scenarios/}
    name=${name%.yaml}
    name=${name//\//_}
    echo "analyze $f" >&2
    mpirun -n "$ranks" "$sipsim" analyze "$f" > "$dir/$name.analyze.txt" 2>&1 || true
  done
  for f in scenarios/*/*.yaml scenarios/*.yaml; do
    local name=${f#scenarios/}
    name=${name%.yaml}
    name=${name//\//_}
    "$sipsim" info "$f" > "$dir/$name.info.txt" 2>&1 || true
  done
}

compare() {
  local a=$1 b=$2 failed=0 checked=0
  for f in "$a"/*.h5; do
    local name
    name=$(basename "$f")
    checked=$((checked + 1))
    if [ ! -f "$b/$name" ]; then
      echo "MISSING $b/$name"
      failed=1
    elif ! h5diff --exclude-path /meta "$f" "$b/$name" > /dev/null 2>&1; then
      echo "DIFFERS $name (h5diff outside /meta):"
      h5diff -r --exclude-path /meta "$f" "$b/$name" | head -20 || true
      failed=1
    fi
  done
  for f in "$a"/*.txt; do
    local name
    name=$(basename "$f")
    checked=$((checked + 1))
    if ! diff -q "$f" "$b/$name" > /dev/null 2>&1; then
      echo "DIFFERS $name:"
      diff "$f" "$b/$name" | head -20 || true
      failed=1
    fi
  done
  echo "compared $checked files: $([ $failed = 0 ] && echo identical || echo 'differences above')"
  return $failed
}

case "${1:-}" in
  snapshot) shift; snapshot "$@" ;;
  diff) shift; compare "$@" ;;
  *) sed -n '2,14p' "$0"; exit 2 ;;
esac
