#!/usr/bin/env bash
# `sipsim compare` on training jobs: each simulated into <stem>.h5 (or read
# where that is a finished run of it), the figures equal to those `sipsim run`
# prints, the same at 2 ranks, and every refusal one error with exit 2.
# Usage: compare_training_test.sh SIPSIM TESTS_APP_DIR
set -euo pipefail
sipsim=$(realpath "$1")
here=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Two jobs that differ only in their fabric's bandwidth: the slower one's
# difference is communication.
cp "$here/training-tiny.yaml" fast.yaml
sed 's/bandwidth: 400Gbps/bandwidth: 25Gbps/' "$here/training-tiny.yaml" > slow.yaml
grep -q 25Gbps slow.yaml || fail "slow.yaml unchanged"

"$sipsim" compare fast.yaml slow.yaml > out.txt 2> err.txt || { cat err.txt; fail "compare"; }
[ -f fast.h5 ] && [ -f slow.h5 ] || fail "compare wrote no run files"
grep -q "running fast.yaml -> fast.h5" err.txt || fail "no 'running' line: $(cat err.txt)"
# The iteration times are the runs' own: the mean of the periods `sipsim run` prints.
for job in fast slow; do
  "$sipsim" run $job.yaml -o $job-run.h5 > run-$job.txt
  want=$(awk '/^#iteration/ {on = 1; next} on && $1 ~ /^[0-9]+$/ {s += $2; n++} /^#/ && on && !/^#iteration/ {on = 0} END {printf "%.3f", s / n}' run-$job.txt)
  got=$(awk -v j=$job '$1 == j {print $4}' out.txt)
  [ -n "$got" ] || fail "no row for $job: $(cat out.txt)"
  [ "$got" = "$want" ] || fail "$job: compare says $got ms, run says $want ms"
done
awk '$1 == "fast" {exit !($7 == "1.00")}' out.txt || fail "the first run's time/first is not 1.00"
awk '$1 == "slow" {exit !($7 + 0 > 1)}' out.txt || fail "the slow fabric is not slower"
grep -q "^# slow takes [0-9.]*x the time of fast; most of the difference: .*-comm +" out.txt ||
  fail "no closing line naming the communication: $(tail -2 out.txt)"

# Again: the finished run files are read, not run again; the table is the same.
"$sipsim" compare fast.yaml slow.yaml > again.txt 2> err.txt
grep -q "fast.h5 is a finished run of fast.yaml: read as it is" err.txt || fail "not reused: $(cat err.txt)"
cmp -s out.txt again.txt || fail "the reused files give another table"
# Run files as they are, and at 2 ranks: the same table.
"$sipsim" compare fast.h5 slow.h5 > files.txt
cmp -s out.txt files.txt || fail "run files give another table"
mpirun -n 2 --oversubscribe "$sipsim" compare fast.yaml slow.yaml --force > two.txt 2> /dev/null
cmp -s out.txt two.txt || { diff out.txt two.txt; fail "2 ranks give another table"; }
"$sipsim" compare fast.yaml slow.yaml --csv > out.csv 2> /dev/null
head -1 out.csv | grep -q "^scenario,run_file,fabric,gpus,iterations,iteration_s,.*,time_over_first," ||
  fail "CSV header: $(head -1 out.csv)"

# expect_error CODE MESSAGE ARGS...: the one line on stderr, the exit code.
expect_error() {
  local code=$1 message=$2
  shift 2
  local rc=0
  "$sipsim" "$@" > /dev/null 2> err.txt || rc=$?
  [ "$rc" = "$code" ] || fail "$*: exit $rc, want $code"
  [ "$(cat err.txt)" = "$message" ] || fail "$*: got '$(cat err.txt)', want '$message'"
}
# A file of that name that is not a run of the scenario is never replaced silently.
echo "not a run" > other.h5
cp fast.yaml other.yaml
expect_error 2 "sipsim: error: other.h5 exists and is not a finished run of other.yaml (other.h5: not a sipsim run file (not HDF5; 'sipsim run' writes one)); use --force to replace it" \
  compare fast.yaml other.yaml
[ "$(cat other.h5)" = "not a run" ] || fail "other.h5 was replaced"
# Nor is a run of another scenario (or of this one with --set).
cp slow.h5 other.h5
expect_error 2 "sipsim: error: other.h5 exists and is not a finished run of other.yaml (other.h5: is a run of another scenario than other.yaml (its /meta@scenario_yaml differs)); use --force to replace it" \
  compare fast.yaml other.yaml
expect_error 2 "sipsim: error: fast.h5 exists and is not a finished run of fast.yaml without --set; use --force to replace it" \
  compare fast.yaml slow.yaml --set workload.iterations=1
# Collectives are estimated, training simulated: not both at once.
cp "$here/coll-flat.yaml" coll.yaml
expect_error 2 "sipsim: error: slow.yaml runs a transformer workload and coll.yaml collectives: compare estimates collectives or simulates training jobs, not both at once" \
  compare slow.yaml coll.yaml
# A run file that is not a training run.
"$sipsim" run coll.yaml -o coll.h5 -q > /dev/null
expect_error 2 "sipsim: error: coll.h5: not a training run (no /iterations); compare estimates collectives scenarios from their YAML files" \
  compare fast.h5 coll.h5
# Two scenarios that would write one run file.
mkdir -p b && cp slow.yaml b/fast.yaml
expect_error 2 "sipsim: error: two scenarios would both write fast.h5 here (b/fast.yaml and an earlier one of that name): copy one under another name" \
  compare fast.yaml b/fast.yaml
# The quickstart makes the README's point, with the README's figures: every
# row of the README's quickstart block is a line compare prints.
if [ -f "$here/../../README.md" ]; then
  root=$(realpath "$here/../..")
  "$sipsim" compare "$root/scenarios/quickstart.yaml" "$root/scenarios/quickstart-superpod.yaml" \
    > quick.txt 2> /dev/null
  awk '$1 == "quickstart-superpod" {exit !($7 + 0 > 1)}' quick.txt ||
    fail "RAMP does not win the quickstart: $(cat quick.txt)"
  awk '/^## The quickstart/ {on = 1} on && /^```$/ {n++; next} on && n == 1 && /^ / {print}' \
    "$root/README.md" > readme-rows.txt
  [ "$(wc -l < readme-rows.txt)" -ge 8 ] || fail "no quickstart rows found in README.md"
  while IFS= read -r row; do
    grep -qxF -- "$row" quick.txt || fail "README.md's row is not what compare prints: '$row'"
  done < readme-rows.txt
fi
echo "compare_training: all checks passed"
