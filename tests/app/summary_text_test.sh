#!/usr/bin/env bash
# The run summary and the analyze and compare tables say their terms in words
# a newcomer can follow (slowest GPU n, the optical rules, RAMP's time slots,
# a legend under the collectives tables), and every term they print, row
# label or column, is in docs/glossary.md.
# Usage: summary_text_test.sh SIPSIM SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A transformer on RAMP in permissive mode (quickstart): breakdown rows and optical rules.
"$sipsim" run "$src/scenarios/quickstart.yaml" -o train.h5 > train.txt 2>&1 || fail "quickstart: $(cat train.txt)"
# An elect-flat collectives run, RAMP's, their estimates and a comparison.
"$sipsim" run "$src/scenarios/ramp/small-ramp.yaml" --set workload.sizes.max=256KiB -o ramp.h5 \
  > coll.txt 2>&1 || fail "small-ramp: $(cat coll.txt)"
"$sipsim" analyze "$src/scenarios/ramp/small-ramp.yaml" --set workload.sizes.max=256KiB \
  > analyze.txt 2>&1 || fail "analyze: $(cat analyze.txt)"
"$sipsim" compare "$src/scenarios/nccl/elect-flat.yaml" "$src/scenarios/nccl/torus2d.yaml" \
  > compare.txt 2>&1 || fail "compare: $(cat compare.txt)"
"$sipsim" run "$src/scenarios/nccl/elect-flat.yaml" --set workload.sizes.max=256KiB -o flat2.h5 \
  --set simulation.engine=windowed > windowed.txt 2>&1 || fail "windowed: $(cat windowed.txt)"

# The rows name GPUs; the optical rules are said in words, their counts adding up.
grep -Eq '^ +slowest GPU [0-9]+ ' train.txt || fail "no 'slowest GPU n' row: $(grep -i slowest train.txt)"
grep -Eq '^ +(slowest|busiest) [0-9]' train.txt && fail "a row says 'slowest n' without 'GPU'"
line=$(grep '^  optical rules' train.txt)
re='^  optical rules +([0-9]+) transfers waited instead of colliding \(fabric\.permissive\): ([0-9]+) for a receiving transceiver still busy \(rule \(b\)\), ([0-9]+) for a wavelength already taken on their subnet \(rule \(c\)\)$'
if [[ "$line" =~ $re ]]; then
  [ $((BASH_REMATCH[2] + BASH_REMATCH[3])) = "${BASH_REMATCH[1]}" ] || fail "optical rules do not add up: $line"
else
  fail "optical rules line: '$line'"
fi
grep -q "time slots of 20ns (950B per transceiver)" coll.txt || fail "RAMP's slot: $(head -1 coll.txt)"
grep -q "slot 20ns (950B)" coll.txt train.txt analyze.txt && fail "the bare 'slot 20ns (950B)' is back"
# A legend under each collectives table.
legend="# algbw = size / time, busbw = algbw x the op's bus factor (nccl-tests); h2h = head-to-head: latency and waiting for peers; h2t = head-to-tail: the data at its path's bottleneck rate; comp = reductions and copies"
[ "$(sed -n 3p coll.txt)" = "$legend" ] || fail "run's legend: '$(sed -n 3p coll.txt)'"
[ "$(sed -n 3p analyze.txt)" = "$legend; idle = the idle-fabric longest path (a lower bound)" ] ||
  fail "analyze's legend: '$(sed -n 3p analyze.txt)'"

# Every term printed is in the glossary's first column: the summary's row
# labels, the tables' column names (units stripped), the breakdown's rows.
/usr/bin/python3 - "$src/docs/glossary.md" train.txt coll.txt analyze.txt compare.txt windowed.txt <<'PY' || failures=$((failures + 1))
import re, sys
cells = [l.split("|")[1].strip().lower() for l in open(sys.argv[1], encoding="utf-8")
         if l.startswith("| ") and not l.startswith("| term") and not l.startswith("|---")]
terms = {"h2h", "h2t", "algbw", "busbw", "bubble", "dp-comm", "tp-comm", "pp-comm", "mfu",
         "tflop/s", "slot", "optical rules", "epoch", "window", "lookahead", "1f1b", "micro-batch"}
obvious = {"output", "warning", "iteration", "scenario", "nodes", "seed"}
for path in sys.argv[2:]:
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^  (\S.*?)\s{2,}\S", line)  # a summary row: "  label     value"
        if m and not line.startswith("   "):
            terms.add(m.group(1))
        if re.match(r"^#\s*(size|iteration)\s", line) or re.match(r"^#\s+forward\s", line):
            terms.update(re.sub(r"\((us|ms|J|GB/s)\)", "", w) for w in line[1:].split())
        m = re.match(r"^ +(mean GPU|slowest GPU|busiest GPU)", line)
        if m:
            terms.add(m.group(1))
missing = sorted(t for t in terms if t.lower() not in obvious
                 and not any(t.lower() in c for c in cells))
if missing:
    print("FAIL: docs/glossary.md lacks " + ", ".join(missing))
    sys.exit(1)
print(f"{len(terms)} terms, all in docs/glossary.md")
PY

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
echo "summary_text: ok"
