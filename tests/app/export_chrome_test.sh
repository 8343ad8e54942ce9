#!/usr/bin/env bash
# sipsim export --chrome-trace: a tiny transformer with `output.trace: ops`
# (and `steps`), a Chakra trace's named ops (when the test data is there) and
# a collectives run, exported and checked against the Chrome
# trace event format's rules (chrome_trace_check.py, json module only): one
# slice per trace row, proper nesting per track, sampling, and the errors.
# Usage: export_chrome_test.sh SIPSIM SOURCE_DIR
set -euo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
check="python3 $src/tests/app/chrome_trace_check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
rows() { h5ls "$1/trace/events" | sed -n 's/.*Dataset {\([0-9]*\).*/\1/p'; }

# Ops: every row a slice, one GPU track (plus overlap lanes) per node.
"$sipsim" run "$src/tests/app/training-tiny.yaml" -o ops.h5 -q > /dev/null
"$sipsim" export --chrome-trace ops.h5 -o ops.json > out.txt
summary=$($check ops.json) || fail "ops.json: $summary"
n=$(rows ops.h5)
# The summary line: the slices, and the traced GPUs on their tracks (overlap lanes included).
tracks=$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["per_track"]))' "$summary")
[ "$(cat out.txt)" = "ops.json: $n slices: 8 traced GPUs on $tracks tracks; open it in ui.perfetto.dev or chrome://tracing" ] ||
  fail "summary line: $(cat out.txt) ($n rows, $tracks tracks)"
python3 -c 'import json,sys; s=json.loads(sys.argv[1]); n=int(sys.argv[2])
assert s["slices"] == n, (s["slices"], n)
assert sorted(s["per_track"]) == sorted("GPU %d" % g for g in range(8)), s["per_track"]' "$summary" "$n" ||
  fail "ops.json: slices or tracks differ from /trace/events ($n rows): $summary"
# Times are exact decimal microseconds of the picosecond source.
python3 -c 'import json,sys; from decimal import Decimal
d=json.load(open(sys.argv[1]))
txt=open(sys.argv[1]).read()
for e in d["traceEvents"]:
    if e["ph"] == "X":
        a=e["args"]
        assert a["end_ps"] >= a["start_ps"]
names={e["args"]["name"] for e in d["traceEvents"] if e["ph"]=="M" and e["name"]=="process_name"}
assert names == {"training-tiny"}, names
assert d["displayTimeUnit"] == "ns"' ops.json || fail "ops.json: times or names"
python3 - ops.json <<'PY' || fail "ops.json: ts/dur not exact"
import json, re, sys
from decimal import Decimal
# Parse numbers as Decimal: the text must equal ps / 10^6 exactly.
d = json.load(open(sys.argv[1]), parse_float=Decimal)
for e in d["traceEvents"]:
    if e["ph"] == "X":
        a = e["args"]
        assert Decimal(e["ts"]) * 10**6 == a["start_ps"], e
        assert Decimal(e["dur"]) * 10**6 == a["end_ps"] - a["start_ps"], e
PY

# Default output name, no overwrite without --force, no partial left behind.
rm ops.json
"$sipsim" export --chrome-trace ops.h5 > /dev/null
[ -f ops.json ] || fail "default output ops.json missing"
set +e
"$sipsim" export --chrome-trace ops.h5 -o ops.json > /dev/null 2> err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q "ops.json: exists (use --force" err.txt || fail "overwrite: rc $rc $(cat err.txt)"
"$sipsim" export --chrome-trace ops.h5 -o ops.json --force > /dev/null
ls ./*.partial 2> /dev/null && fail "a .partial file was left"

# Sampling: 3 of 8 nodes are 0, 3 and 7, with the same slices as in the full export.
"$sipsim" export --chrome-trace ops.h5 -o sampled.json --max-nodes 3 > out.txt
grep -q ": 3 of 8 traced GPUs on 3 tracks (sampled by --max-nodes 3); open it" out.txt ||
  fail "sampling line: $(cat out.txt)"
sampled=$($check sampled.json) || fail "sampled.json: $sampled"
python3 -c 'import json,sys; s=json.loads(sys.argv[1])["per_track"]; f=json.loads(sys.argv[2])["per_track"]
assert sorted(s) == ["GPU 0", "GPU 3", "GPU 7"], s
assert all(s[k] == f[k] for k in s), (s, f)' "$sampled" "$summary" || fail "sampled: $sampled"

# Steps: the wire steps nest in their collectives.
"$sipsim" run "$src/tests/app/training-tiny.yaml" --set output.trace=steps -o steps.h5 -q > /dev/null
"$sipsim" export --chrome-trace steps.h5 -o steps.json > /dev/null
summary=$($check steps.json) || fail "steps.json: $summary"
n=$(rows steps.h5)
python3 -c 'import json,sys; assert json.loads(sys.argv[1])["slices"] == int(sys.argv[2])' \
  "$summary" "$n" || fail "steps.json: $summary vs $n rows"

# Collectives workload: no op trace, the instances on the collectives track.
"$sipsim" run "$src/tests/app/coll-flat.yaml" -o coll.h5 -q > /dev/null
"$sipsim" export --chrome-trace coll.h5 -o coll.json > out.txt
summary=$($check coll.json) || fail "coll.json: $summary"
n=$(h5ls coll.h5/collectives | sed -n 's/.*Dataset {\([0-9]*\).*/\1/p')
python3 -c 'import json,sys; s=json.loads(sys.argv[1])
assert s["slices"] == int(sys.argv[2]) and list(s["per_track"]) == ["collectives"], s' \
  "$summary" "$n" || fail "coll.json: $summary vs $n rows"
# Says what the tracks hold (overlapping instances on a second track): no "0 of 0 traced
# GPUs" for a run that traces none.
tracks=$(python3 -c 'import json,sys
print(sum(e["name"] == "thread_name" for e in json.load(open(sys.argv[1]))["traceEvents"]))' coll.json)
[ "$(cat out.txt)" = "coll.json: $n slices: $n collectives on $tracks tracks; open it in ui.perfetto.dev or chrome://tracing" ] ||
  fail "collectives summary line: $(cat out.txt) ($tracks tracks)"
# One of each: singular nouns.
"$sipsim" run "$src/tests/app/coll-flat.yaml" --set workload.sizes.max=1KiB --set workload.iterations=1 \
  --set workload.warmup=0 -o one.h5 -q > /dev/null
"$sipsim" export --chrome-trace one.h5 -o one.json > out.txt
[ "$(cat out.txt)" = "one.json: 1 slice: 1 collective on 1 track; open it in ui.perfetto.dev or chrome://tracing" ] ||
  fail "one collective: $(cat out.txt)"

# A Chakra trace's ops (test data beside the repository, when there): slices
# named after their trace nodes (kernels, NCCL collectives).
if [ -f "$src/../shared/data/chakra/pytorch/chakra.0.et" ]; then
  "$sipsim" run "$src/tests/app/chakra-pytorch-ramp.yaml" -o chakra.h5 -q > /dev/null
  "$sipsim" export --chrome-trace chakra.h5 -o chakra.json > /dev/null
  summary=$($check chakra.json) || fail "chakra.json: $summary"
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
names={e["name"] for e in d["traceEvents"] if e["ph"]=="X"}
assert "Memcpy DtoD (Device -> Device)" in names, sorted(names)[:10]
assert any(n.startswith("ncclKernel_AllReduce") for n in names), sorted(names)[:10]
assert not names & {"compute", "collective collective"}, names' chakra.json ||
    fail "chakra.json: slices not named after the trace's ops"
fi

# Errors: one line naming the file, exit 2, no output file.
expect_error() {  # expect_error PATTERN -- ARGS
  local pattern=$1
  shift 2
  set +e
  "$sipsim" export --chrome-trace "$@" -o err.json > /dev/null 2> err.txt
  local rc=$?
  set -e
  [ $rc = 2 ] || fail "export $*: exit $rc, expected 2"
  grep -q -- "$pattern" err.txt || fail "export $*: '$(cat err.txt)' lacks '$pattern'"
  [ "$(wc -l < err.txt)" = 1 ] || fail "export $*: more than one line: $(cat err.txt)"
  [ ! -e err.json ] || fail "export $*: wrote err.json"
  ls ./*.partial 2> /dev/null && fail "export $*: left a .partial file"
  return 0
}
"$sipsim" run "$src/tests/app/training-tiny.yaml" --set output.trace=none -o none.h5 -q > /dev/null
expect_error "none.h5: has no trace.*output.trace: ops" -- none.h5
echo "not hdf5" > text.h5
expect_error "text.h5: not a sipsim run file" -- text.h5
expect_error "missing.h5: no such file" -- missing.h5
set +e
"$sipsim" export ops.h5 -o x.json > /dev/null 2> err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q "chrome-trace" err.txt || fail "export without a format: rc $rc $(cat err.txt)"
echo "export_chrome: ok"
