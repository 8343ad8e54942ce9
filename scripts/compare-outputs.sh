#!/usr/bin/env bash
# Before/after check for changes that must not change what a user sees: runs every
# ready scenario with one sipsim binary and keeps its run file and printed output
# (snapshot), then compares two snapshots (diff): every dataset and attribute outside
# /meta with h5diff, and the printed tables and summaries without the lines that
# measure the machine (wall time, event rate, memory, busy and sync time, efficiency and
# its warning, output path).
#
#   scripts/compare-outputs.sh snapshot SIPSIM DIR [ranks]   # ~10-15 min on 2 cores
#   scripts/compare-outputs.sh diff DIR_BEFORE DIR_AFTER      # everything, to the byte
#   scripts/compare-outputs.sh results DIR_BEFORE DIR_AFTER   # simulated results only
#   scripts/compare-outputs.sh studies SIPSIM DIR             # the shipped studies (~10 min)
#   scripts/compare-outputs.sh study-diff DIR_BEFORE DIR_AFTER
#
# `studies` sweeps every study of scenarios/studies/ (and validation/) with
# --local into DIR/<study> and collects it at each level; `study-diff` then
# compares what a user sees of them: each manifest.csv, each run's scenario
# (without its comment lines, which name the study's path and identity), the
# messages of sweep and collect (without timings and paths), every results
# CSV without its wall_s column, and every run file outside /meta.
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

machine='wall time|event rate|peak memory|^  busy|^  sync|^  efficiency|^  warning|^  output|pending events'

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

# A printed output as compared: without the summary lines added later
# (events/window; the remote events' percentage; efficiency and its warning,
# which measure the machine), so that snapshots of
# binaries before and after it compare (the counts they derive from: windows,
# remote events, /lp, are still compared), and without the estimator's
# progress lines (timings, printed where stderr meets stdout).
view() {
  grep -Ev '^  events/window|^  efficiency|^  warning|^sipsim: estimating: ' "$1" |
    sed -E 's/^(  remote events +[0-9]+) \(.*\)$/\1/'
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

studies() {
  local sipsim=$1 dir=$2
  mkdir -p "$dir"
  for study in scenarios/studies/*.yaml scenarios/studies/validation/*.yaml; do
    local name
    name=$(basename "$study" .yaml)
    echo "study $study" >&2
    rm -rf "${dir:?}/$name"
    "$sipsim" sweep "$study" -o "$dir/$name" --local -j 2 > "$dir/$name.sweep.txt" 2>&1 || true
    for level in run collective iteration; do
      "$sipsim" collect "$dir/$name" --level "$level" >> "$dir/$name.sweep.txt" 2>&1 || true
    done
  done
}

# A results CSV without its wall_s column (the only one that measures the
# machine), read as CSV (a quoted cell may hold commas).
no_wall() {
  python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
w = rows[0].index("wall_s") if rows and "wall_s" in rows[0] else -1
out = csv.writer(sys.stdout, lineterminator="\n")
for r in rows: out.writerow([c for i, c in enumerate(r) if i != w])' "$1"
}

# What sweep and collect printed, without times, the directory's path and the
# order in which runs going at once finished ("[3/10] run 0001 done").
sweep_view() {
  sed -E "s|$2/||; s/ in [0-9.]+ s$//; s/^\[[0-9]+\/([0-9]+)\]/[\1]/" "$1" | sort
}

study_diff() {
  local a=$1 b=$2 failed=0 checked=0
  for d in "$a"/*/; do
    local name
    name=$(basename "$d")
    [ -d "$b/$name" ] || { echo "MISSING $b/$name"; failed=1; continue; }
    checked=$((checked + 1))
    diff -q "$a/$name/manifest.csv" "$b/$name/manifest.csv" > /dev/null ||
      { echo "DIFFERS $name/manifest.csv"; failed=1; }
    if ! diff <(sweep_view "$a/$name.sweep.txt" "$a") <(sweep_view "$b/$name.sweep.txt" "$b") > /dev/null; then
      echo "DIFFERS $name.sweep.txt"
      diff <(sweep_view "$a/$name.sweep.txt" "$a") <(sweep_view "$b/$name.sweep.txt" "$b") | head -6 || true
      failed=1
    fi
    for f in "$a/$name"/scenarios/*.yaml; do
      diff -q <(grep -v '^#' "$f") <(grep -v '^#' "$b/$name/scenarios/$(basename "$f")") > /dev/null ||
        { echo "DIFFERS $name/scenarios/$(basename "$f")"; failed=1; }
    done
    for f in "$a/$name"/results*.csv; do
      diff -q <(no_wall "$f") <(no_wall "$b/$name/$(basename "$f")") > /dev/null ||
        { echo "DIFFERS $name/$(basename "$f")"; diff <(no_wall "$f") <(no_wall "$b/$name/$(basename "$f")") | head -4; failed=1; }
    done
    for f in "$a/$name"/runs/*.h5; do
      h5diff --exclude-path /meta "$f" "$b/$name/runs/$(basename "$f")" > /dev/null 2>&1 ||
        { echo "DIFFERS $name/runs/$(basename "$f") (outside /meta)"; failed=1; }
    done
  done
  echo "compared $checked studies: $([ $failed = 0 ] && echo identical || echo 'differences above')"
  return $failed
}

case "${1:-}" in
  snapshot) shift; snapshot "$@" ;;
  studies) shift; studies "$@" ;;
  study-diff) shift; study_diff "$@" ;;
  diff) shift; compare "$@" ;;
  results) shift; results "$@" ;;
  *) sed -n '2,31p' "$0"; exit 2 ;;
esac
