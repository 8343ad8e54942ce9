#!/usr/bin/env bash
# Before/after check for changes that must not change what a user sees: runs every
# ready scenario with one sipsim binary and keeps its run file and printed output
# (snapshot), then compares two snapshots (diff): every dataset and attribute outside
# /meta with h5diff, and the printed tables and summaries without the lines that
# measure the machine (wall time, event rate, memory, busy and sync time, output path).
#
#   scripts/compare-outputs.sh snapshot SIPSIM DIR [ranks]   # ~10-15 min on 2 cores
#   scripts/compare-outputs.sh diff DIR_BEFORE DIR_AFTER      # everything, to the byte
#   scripts/compare-outputs.sh results DIR_BEFORE DIR_AFTER   # simulated results only
#
# `results` checks what a simulation computed and lets presentation change: the
# /collectives tables and the /fabric counters must be identical; /lp must be
# identical or, where a change moves work between LPs (which LP arbitrates a
# RAMP wavelength), keep the same event total; the printed tables must be
# identical but for their header line naming the fabric; `info` is not compared.
#
# Runs use 2 ranks by default (results are identical at any rank count: the
# determinism tests). The 65,536-node electrical baselines are estimated, not
# simulated, here as in docs/validation.md: their `analyze` output is compared.
# SKIP_LARGE=1 leaves out the 65,536-node scenarios (~3 min instead).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

machine='wall time|event rate|peak memory|^  busy|^  sync|^  output|pending events'

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

# A printed output as compared: without the summary lines that #11 added
# (events/window; the remote events' percentage), so that snapshots of
# binaries before and after it compare; the counts they derive from
# (windows, remote events, /lp) are still compared.
view() {
  grep -Ev '^  events/window' "$1" | sed -E 's/^(  remote events +[0-9]+) \(.*\)$/\1/'
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
    elif ! h5diff --exclude-path /meta "$f" "$b/$name" > "${TMPDIR:-/tmp}/compare-outputs.$$" 2>&1 ||
         grep -q "not comparable" "${TMPDIR:-/tmp}/compare-outputs.$$"; then
      echo "DIFFERS $name (h5diff outside /meta):"
      h5diff -r --exclude-path /meta "$f" "$b/$name" | head -20 || true
      failed=1
    fi
  done
  for f in "$a"/*.txt; do
    local name
    name=$(basename "$f")
    checked=$((checked + 1))
    if ! diff -q <(view "$f") <(view "$b/$name") > /dev/null 2>&1; then
      echo "DIFFERS $name:"
      diff <(view "$f") <(view "$b/$name") | head -20 || true
      failed=1
    fi
  done
  echo "compared $checked files: $([ $failed = 0 ] && echo identical || echo 'differences above')"
  return $failed
}

# Total of /lp/events.
lp_total() {
  h5dump -d /lp/events -y -w 0 -o "$1.events" "$2" > /dev/null
  tr ',' '\n' < "$1.events" | tr -d ' ' | awk 'NF {s += $1} END {print s}'
}

# /fabric's attributes without the description (text that names the fabric).
fabric_counters() {
  h5dump -A -g /fabric "$1" 2>/dev/null | awk '/ATTRIBUTE "description"/ {skip = 1} skip && /^   }/ {skip = 0; next} !skip' | tail -n +2
}

results() {
  local a=$1 b=$2 failed=0 moved=0 checked=0 tmp
  tmp=$(mktemp -d)
  for f in "$a"/*.h5; do
    local name
    name=$(basename "$f")
    checked=$((checked + 1))
    if [ ! -f "$b/$name" ]; then echo "MISSING $b/$name"; failed=1; continue; fi
    # h5dump, not h5diff: h5diff calls tables of different lengths "not comparable" and exits 0.
    if ! diff <(h5dump -d /collectives "$f" 2>&1 | tail -n +2) \
              <(h5dump -d /collectives "$b/$name" 2>&1 | tail -n +2) > /dev/null; then
      echo "DIFFERS $name: /collectives"; failed=1
    fi
    if ! diff <(fabric_counters "$f") <(fabric_counters "$b/$name") > /dev/null; then
      echo "DIFFERS $name: /fabric counters"; diff <(fabric_counters "$f") <(fabric_counters "$b/$name") | head -6 || true
      failed=1
    fi
    if ! h5diff "$f" "$b/$name" /lp > /dev/null 2>&1; then
      if [ "$(lp_total "$tmp/a" "$f")" = "$(lp_total "$tmp/b" "$b/$name")" ]; then
        echo "moved   $name: per-LP events differ, same total $(lp_total "$tmp/a" "$f")"
        moved=$((moved + 1))
      else
        echo "DIFFERS $name: /lp event total"; failed=1
      fi
    fi
  done
  for f in "$a"/*.run.txt "$a"/*.analyze.txt; do
    local name
    name=$(basename "$f")
    checked=$((checked + 1))
    if ! diff <(view "$f" | grep -Ev '^# .* \| ') <(view "$b/$name" | grep -Ev '^# .* \| ') > /dev/null 2>&1; then
      echo "DIFFERS $name:"
      diff <(view "$f" | grep -Ev '^# .* \| ') <(view "$b/$name" | grep -Ev '^# .* \| ') | head -10 || true
      failed=1
    fi
  done
  rm -rf "$tmp"
  echo "compared $checked files: $([ $failed = 0 ] && echo "results identical" || echo 'differences above')" \
       "($moved with work moved between LPs)"
  return $failed
}

case "${1:-}" in
  snapshot) shift; snapshot "$@" ;;
  diff) shift; compare "$@" ;;
  results) shift; results "$@" ;;
  *) sed -n '2,21p' "$0"; exit 2 ;;
esac
