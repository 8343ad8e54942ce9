#!/usr/bin/env bash
# The run file against docs/output.md (its "Index" section), both ways: every
# group, dataset, attribute and table column of a real run file is listed
# there for that kind of run, and everything listed for that kind of run is in
# the file; and every listed name is described in the document's tables.
# Twelve runs: PHOLD (no fabric) on the sequential and on the windowed engine,
# collectives on elect-flat, on RAMP and on SiPAC, a transformer, one under
# replay-shapes, one with GPU faults that fails, DLRM on RAMP, and the circuit
# fabrics: op graphs on SiP-Ring and on SiP-OCS (with their plan logs) and a
# transformer on TopoOpt with reconfigured circuits.
# Usage: schema_test.sh SIPSIM SOURCE_DIR
set -euo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
doc=$src/docs/output.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
failures=0

# The index: "item condition" lines of the code block under "## Index".
awk '/^## Index/ {inside = 1} inside && /^```/ {block = !block; next} inside && block && NF == 2 {print}' \
  "$doc" > "$work/index"
[ "$(wc -l < "$work/index")" -gt 40 ] || { echo "FAIL: no index in $doc"; exit 1; }

# Every listed name is described in the document outside the index, in backticks.
awk '/^## Index/ {exit} {print}' "$doc" > "$work/prose"
while read -r item _; do
  case "$item" in
    *@* | *:*) pattern="\`${item##*[@:]}\`" ;;  # an attribute or a column: its name
    *) pattern="\`$item[\`/]" ;;               # a group or dataset: its path (or a path below it)
  esac
  grep -q "$pattern" "$work/prose" || { echo "FAIL: $item is in the index but not described"; failures=$((failures + 1)); }
done < "$work/index"

# Everything the machine-readable schema (python/sipsim/schema.json, what the
# Python package checks files against) names is in the index.
/usr/bin/python3 - "$src/python/sipsim/schema.json" "$work/index" > "$work/schema.missing" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1], encoding="utf-8"))
index = {line.split()[0] for line in open(sys.argv[2], encoding="utf-8")}
items = [f"{t}:{c}" for t, v in schema["tables"].items() for c in v["columns"]]
items += list(schema["arrays"]) + [f"/lp/{n}" for n in schema["lp"]]
items += [f"/meta@{k}" for k in schema["meta"]] + [f"/fabric@{k}" for k in schema["fabric"]]
items += [f"/fabric/plans/{c}" for c in schema["plans"]]
for t, v in schema["tables"].items():
    items += [f"{t}:{c}" for c in v["required"]]
print("\n".join(i for i in items if i not in index))
PY
if grep -q . "$work/schema.missing"; then
  echo "FAIL: python/sipsim/schema.json names items docs/output.md's index does not list:"
  cat "$work/schema.missing"
  failures=$((failures + 1))
fi

check() {  # check NAME CONDITIONS... -- RUN ARGS
  local name=$1 conds=()
  shift
  while [ "$1" != "--" ]; do conds+=("$1"); shift; done
  shift
  "$sipsim" run "$@" -o "$work/$name.h5" -q > /dev/null
  h5dump -H "$work/$name.h5" | awk -f "$src/tests/app/h5items.awk" | sort -u > "$work/$name.actual"
  : > "$work/$name.expected"
  for c in "${conds[@]}"; do awk -v c="$c" '$2 == c {print $1}' "$work/index" >> "$work/$name.expected"; done
  sort -u -o "$work/$name.expected" "$work/$name.expected"
  if ! diff "$work/$name.expected" "$work/$name.actual" > "$work/$name.diff"; then
    echo "FAIL $name: '<' listed in docs/output.md but not in the file, '>' in the file but not listed:"
    cat "$work/$name.diff"
    failures=$((failures + 1))
  fi
}
check phold always -- "$src/scenarios/phold-4k.yaml" --set simulation.end_time=20us
check windowed always windowed -- "$src/scenarios/phold-4k.yaml" --set simulation.end_time=20us \
  --set simulation.engine=windowed
check flat always fabric collectives -- "$src/scenarios/nccl/elect-flat.yaml" --set workload.sizes.max=64KiB
check ramp always fabric collectives ramp -- "$src/scenarios/ramp/small-ramp.yaml" --set workload.sizes.max=64KiB
check training always fabric training transformer trace -- "$src/tests/app/training-tiny.yaml"
check shapes always fabric training transformer trace shapes -- "$src/tests/app/training-replay-shapes.yaml"
check faults always fabric training transformer ramp faults failure -- "$src/tests/app/faults-gpu.yaml"
check dlrm always fabric training ramp -- "$src/tests/app/dlrm-tiny.yaml"
check sipac always fabric collectives -- "$src/tests/app/coll-sipac.yaml"
check sip-ring always fabric training circuit plans -- "$src/tests/app/graph-sip-ring.yaml"
check sip-ocs always fabric training circuit plans -- "$src/tests/app/graph-sip-ocs.yaml"
check topoopt-reconf always fabric training transformer circuit -- "$src/tests/app/training-topoopt-reconf.yaml"

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
echo "12 run files match docs/output.md"
