#!/usr/bin/env bash
# sipsim sweep and collect (docs/studies.md): expansion (product, zip, points,
# seeds, ranges), located errors with nothing written, a 4-run study run with
# --local -j 2 at 2 ranks per run, restart (done runs skipped, deleted and
# .partial ones rerun), --status counts, collect's table, and the shipped
# example study.
# Usage: sweep_test.sh SIPSIM SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$work"
# fail, same
source "$src/tests/support/check.sh"

cp "$src/tests/support/study-base.yaml" base.yaml

# --- expansion -------------------------------------------------------------
cat > product.yaml <<'EOF'
scenario: base.yaml
axes:
  fabric.bandwidth: [100Gbps, 400Gbps]
  workload.op: [all-reduce, all-gather]
seeds: [5, 6]
EOF
"$sipsim" sweep product.yaml > /dev/null || fail "product: sweep failed"
same "product manifest" "$(cut -d, -f1-4 product/manifest.csv)" \
"run,fabric.bandwidth,workload.op,seed
0000,100Gbps,all-reduce,5
0001,100Gbps,all-reduce,6
0002,100Gbps,all-gather,5
0003,100Gbps,all-gather,6
0004,400Gbps,all-reduce,5
0005,400Gbps,all-reduce,6
0006,400Gbps,all-gather,5
0007,400Gbps,all-gather,6"
same "product scenario" "$(grep -v '^#' product/scenarios/0006.yaml)" \
"fabric: {type: elect-flat, nodes: 8, bandwidth: 400Gbps, latency: 700ns}
workload:
  type: collectives
  op: all-gather
  algorithm: ring
  sizes: {min: 1KiB, max: 64KiB, factor: 8}
  iterations: 2
seed: 5
name: product-0006"
"$sipsim" validate product/scenarios/0006.yaml > /dev/null || fail "product: 0006.yaml does not validate"
grep -q '^#SBATCH --array=0-7$' product/submit.sh || fail "submit.sh: no --array=0-7"
grep -q '^#SBATCH --ntasks=1$' product/submit.sh || fail "submit.sh: no --ntasks=1"
grep -q '^  srun --mpi=pmix ' product/submit.sh || fail "submit.sh: no srun --mpi=pmix"
bash -n product/submit.sh || fail "submit.sh is not valid bash"

# A task of the job array, with a stand-in srun that runs its command here.
mkdir -p fakebin
printf '#!/bin/bash\n[ "$1" = --mpi=pmix ] || exit 9\nshift\nexec "$@"\n' > fakebin/srun
chmod +x fakebin/srun
PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=3 bash product/submit.sh > task.log 2>&1 ||
  { fail "submit.sh task 3 failed"; cat task.log product/logs/0003.err; }
[ -f product/runs/0003.h5 ] && [ "$(cat product/logs/0003.rc)" = 0 ] || fail "submit.sh: task 3 made no run"
[ "$(h5dump -a /meta/seed product/runs/0003.h5 | awk -F': ' '/\(0\)/ {print $2}')" = 6 ] ||
  fail "submit.sh: task 3 did not run row 0003 (seed 6)"
PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=3 bash product/submit.sh > task.log 2>&1
grep -q 'run 0003: done already' task.log || fail "submit.sh: a resubmitted done task ran again"
same "status after one task" "$("$sipsim" sweep product.yaml --status)" \
  "$work/product: 8 runs: 1 done, 0 running, 0 failed, 7 pending"

cat > zip.yaml <<'EOF'
name: zipped
scenario: base.yaml
combine: zip
axes:
  fabric.bandwidth: {geometric: [100, 400, 2], unit: Gbps}
  fabric.latency: {range: [100, 300, 100], unit: ns}
seeds: 2
ranks: 2
time_limit: "0-00:30:00"
max_parallel: 3
EOF
"$sipsim" sweep zip.yaml -o zdir > /dev/null || fail "zip: sweep failed"
same "zip manifest" "$(cat zdir/manifest.csv)" \
"run,fabric.bandwidth,fabric.latency,seed,scenario,output,ranks
0000,100Gbps,100ns,1,scenarios/0000.yaml,runs/0000.h5,2
0001,100Gbps,100ns,2,scenarios/0001.yaml,runs/0001.h5,2
0002,200Gbps,200ns,1,scenarios/0002.yaml,runs/0002.h5,2
0003,200Gbps,200ns,2,scenarios/0003.yaml,runs/0003.h5,2
0004,400Gbps,300ns,1,scenarios/0004.yaml,runs/0004.h5,2
0005,400Gbps,300ns,2,scenarios/0005.yaml,runs/0005.h5,2"
grep -q '^#SBATCH --array=0-5%3$' zdir/submit.sh || fail "submit.sh: no --array=0-5%3"
grep -q '^#SBATCH --ntasks=2$' zdir/submit.sh || fail "submit.sh: no --ntasks=2"
grep -q '^#SBATCH --time=0-00:30:00$' zdir/submit.sh || fail "submit.sh: no --time"
grep -q '^#SBATCH --job-name=zipped$' zdir/submit.sh || fail "submit.sh: no --job-name"

# --- slurm: site options, the MPI plugin, prelude, extra ---------------------
cat > site.yaml <<'EOF'
scenario: base.yaml
axes: {fabric.bandwidth: [100Gbps, 200Gbps]}
ranks: 2
slurm:
  partition: gpu,debug
  account: proj-42
  qos: high
  mem: 4G
  cpus_per_task: 3
  gres: gpu:a100:2
  constraint: a100&ib
  mpi: pmi2
  time_limit: "2:00:00"
  max_parallel: 1
  prelude:
    - module load openmpi/4.1   # a YAML comment, not part of the line
    - 'export SITE_MARK="$((6 * 7))"'
  extra: [--exclusive, --reservation=maint]
EOF
"$sipsim" sweep site.yaml > site.log || { fail "site: sweep failed"; cat site.log; }
bash -n site/submit.sh || fail "site: submit.sh is not valid bash"
same "site: #SBATCH lines" "$(grep '^#SBATCH' site/submit.sh | grep -v -- --output=)" \
"#SBATCH --job-name=site
#SBATCH --array=0-1%1
#SBATCH --ntasks=2
#SBATCH --time=2:00:00
#SBATCH --partition=gpu,debug
#SBATCH --account=proj-42
#SBATCH --qos=high
#SBATCH --mem=4G
#SBATCH --gres=gpu:a100:2
#SBATCH --constraint=a100&ib
#SBATCH --cpus-per-task=3
#SBATCH --exclusive
#SBATCH --reservation=maint"
same "site: prelude, verbatim, -u off" "$(sed -n '/^set +u$/,/^set -u$/p' site/submit.sh)" \
"set +u
module load openmpi/4.1
export SITE_MARK=\"\$((6 * 7))\"
set -u"
grep -q '^  srun --mpi=pmi2 --cpus-per-task=3 "\$sipsim" run ' site/submit.sh || fail "site: no srun --mpi=pmi2 --cpus-per-task=3"
grep -q 'on Slurm: sbatch ' site.log || fail "site: sweep does not say sbatch: $(cat site.log)"
# The prelude runs in the task before its runs: a stand-in module and srun.
printf '#!/bin/bash\necho "module $*" >> "$MARKS"\n' > fakebin/module
printf '#!/bin/bash\necho "srun $1 $2 SITE_MARK=$SITE_MARK" >> "$MARKS"\nshift 2\nexec "$@"\n' > fakebin/srun-site
chmod +x fakebin/module fakebin/srun-site
mkdir -p sitebin && cp fakebin/srun-site sitebin/srun
MARKS="$work/marks" PATH="$work/sitebin:$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=1 bash site/submit.sh > task.log 2>&1 ||
  { fail "site: task 1 failed"; cat task.log site/logs/0001.err; }
same "site: prelude then srun" "$(cat marks)" "module load openmpi/4.1
srun --mpi=pmi2 --cpus-per-task=3 SITE_MARK=42"
printf 'scenario: base.yaml\nslurm: {mpi: none}\n' > nompi.yaml
"$sipsim" sweep nompi.yaml > /dev/null || fail "mpi none: sweep failed"
grep -q '^  srun "\$sipsim" run ' nompi/submit.sh || fail "mpi none: srun has an --mpi"
grep -q 'set +u' nompi/submit.sh && fail "mpi none: a prelude without slurm.prelude"

# --- arrays past max_array_size, runs_per_task ------------------------------
# 7 runs, 2 per task: 4 tasks, in arrays of at most 3: two arrays (3 + 1
# tasks), submitted by `bash submit.sh`, which passes its arguments to sbatch.
cat > chunk.yaml <<'EOF'
scenario: base.yaml
axes: {fabric.bandwidth: {range: [100, 700, 100], unit: Gbps}}
max_parallel: 2
slurm: {max_array_size: 3, runs_per_task: 2}
EOF
"$sipsim" sweep chunk.yaml > chunk.log || fail "chunk: sweep failed"
bash -n chunk/submit.sh || fail "chunk: submit.sh is not valid bash"
grep -q 'on Slurm: bash .*/submit.sh (2 job arrays)' chunk.log || fail "chunk: sweep does not say bash submit.sh: $(cat chunk.log)"
grep -q '^#SBATCH --array' chunk/submit.sh && fail "chunk: a study of several arrays has an #SBATCH --array"
printf '#!/bin/bash\necho "sbatch $*" >> "$MARKS"\n' > sitebin/sbatch
chmod +x sitebin/sbatch
rm -f marks
(cd / && MARKS="$work/marks" PATH="$work/sitebin:$PATH" bash "$work/chunk/submit.sh" --wait -p debug) ||
  fail "chunk: bash submit.sh failed"
same "chunk: the arrays submitted" "$(cat marks)" \
"sbatch --wait -p debug --array=0-2%2 submit.sh 0
sbatch --wait -p debug --array=0-0%2 submit.sh 3"
# Task 0 of the second array (offset 3) is task 3: run 0006 alone; task 1 of
# the first is runs 0002 and 0003, one after the other.
PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=0 bash chunk/submit.sh 3 > task.log 2>&1 ||
  { fail "chunk: task 3 failed"; cat task.log; }
PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=1 bash chunk/submit.sh 0 > task.log 2>&1 ||
  { fail "chunk: task 1 failed"; cat task.log; }
same "chunk: runs of tasks 1 and 3" "$(cd chunk/runs && ls)" "0002.h5
0003.h5
0006.h5"
for id in 0002 0003 0006; do
  [ "$(cat chunk/logs/$id.rc)" = 0 ] && [ -f chunk/logs/$id.out ] || fail "chunk: run $id has no logs of its own"
done
PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=1 bash chunk/submit.sh 0 > task.log 2>&1
same "chunk: task 1 again" "$(cat task.log)" "run 0002: done already
run 0003: done already"
same "chunk: status" "$("$sipsim" sweep chunk.yaml --status)" "$work/chunk: 7 runs: 3 done, 0 running, 0 failed, 4 pending"
# `sbatch submit.sh` of a study of several arrays: the batch job (Slurm runs
# it as slurm_script) refuses, naming the command that submits them all.
cp chunk/submit.sh chunk/slurm_script
out=$(cd chunk && SLURM_JOB_ID=1 bash slurm_script 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "chunk: sbatch of several arrays: exit $rc, want 2"
same "chunk: sbatch of several arrays" "$out" \
  "submit.sh: study 'chunk' is 2 job arrays of at most 3 tasks (max_array_size): submit them all with: bash $work/chunk/submit.sh"
rm chunk/slurm_script
# Packed runs in one array: 5 runs, 2 per task, 3 tasks.
printf 'scenario: base.yaml\nseeds: 5\nslurm: {runs_per_task: 2}\n' > packed.yaml
"$sipsim" sweep packed.yaml > /dev/null || fail "packed: sweep failed"
grep -q '^#SBATCH --array=0-2$' packed/submit.sh || fail "packed: not --array=0-2"
grep -q "^# Slurm job array of study 'packed' (5 runs, 2 per task, 3 tasks)" packed/submit.sh || fail "packed: header"
# A failed run in a task does not stop the next; the task exits non-zero.
echo 'bogus: 1' >> packed/scenarios/0001.yaml
PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=0 bash packed/submit.sh > task.log 2>&1 &&
  fail "packed: task 0 succeeded with a failed run"
[ -f packed/runs/0000.h5 ] && [ ! -f packed/runs/0001.h5 ] || fail "packed: task 0's runs"
[ "$(cat packed/logs/0000.rc)" = 0 ] && [ "$(cat packed/logs/0001.rc)" = 2 ] || fail "packed: task 0's exit statuses"
status=$("$sipsim" sweep packed.yaml --status)
grep -q '^  0001: sipsim: error: .*bogus: unknown key' <<< "$status" || fail "packed: status of the failed run: $status"

cat > points.yaml <<'EOF'
scenario: base.yaml
points:
  - {label.kind: slow, fabric.bandwidth: 100Gbps}
  - {label.kind: "odd, quoted", workload: {type: collectives, op: broadcast, algorithm: binomial-tree, sizes: {min: 4KiB, max: 4KiB}}}
EOF
"$sipsim" sweep points.yaml > /dev/null || fail "points: sweep failed"
same "points manifest" "$(cut -d, -f1-5 points/manifest.csv | head -2)" \
"run,label.kind,fabric.bandwidth,workload,seed
0000,slow,100Gbps,,"
grep -q '^0001,"odd, quoted",,"{type: collectives, op: broadcast, algorithm: binomial-tree, sizes: {min: 4KiB, max: 4KiB}}",,' \
  points/manifest.csv || fail "points: row 0001 not quoted as CSV: $(sed -n 3p points/manifest.csv)"
grep -q 'label' points/scenarios/0000.yaml && grep -v '^#' points/scenarios/0000.yaml | grep -q label &&
  fail "points: a label.* key reached the scenario"
# A point's keys apply in the order it writes them, whatever order other
# points gave them: run 0001 replaces fabric, then sets its bandwidth.
cat > order.yaml <<'EOF'
scenario: base.yaml
points:
  - {fabric.bandwidth: 128Gbps}
  - {fabric: {type: elect-flat, nodes: 8, bandwidth: 1024Gbps, latency: 700ns}, fabric.bandwidth: 256Gbps}
EOF
"$sipsim" sweep order.yaml > /dev/null || fail "order: sweep failed"
same "order: run 0001's bandwidth" \
  "$(grep -v '^#' order/scenarios/0001.yaml | grep -o 'bandwidth: [0-9A-Za-z]*')" "bandwidth: 256Gbps"

# --- located errors; nothing written --------------------------------------
# expect NAME MESSAGE STUDY-TEXT
expect() {
  printf '%s\n' "$3" > err.yaml
  rm -rf err
  local out rc
  out=$("$sipsim" sweep err.yaml 2>&1 >/dev/null)
  rc=$?
  [ "$rc" = 2 ] || fail "$1: exit $rc, want 2"
  same "$1" "$out" "$2"
  [ -e err ] && fail "$1: wrote the study directory"
}
expect "unknown key" "sipsim: error: err.yaml:3:1: combne: unknown key; did you mean 'combine'?" \
"scenario: base.yaml
axes: {fabric.bandwidth: [1Gbps]}
combne: zip"
expect "zip lengths" "sipsim: error: err.yaml:5:16: axes.workload.op: combine: zip needs axes of one length: workload.op has 1 values, fabric.bandwidth has 2" \
"scenario: base.yaml
combine: zip
axes:
  fabric.bandwidth: [1Gbps, 2Gbps]
  workload.op: [all-reduce]"
expect "no scenario" "sipsim: error: err.yaml:1:11: scenario: no scenario file nope.yaml (paths are relative to the study file's directory)" \
"scenario: nope.yaml"
expect "bad range" "sipsim: error: err.yaml:2:41: axes.fabric.bandwidth.range[2]: the step must be > 0" \
"scenario: base.yaml
axes: {fabric.bandwidth: {range: [1, 2, 0]}}"
expect "invalid run" "sipsim: error: run 0001 (fabric.bandwidth=0Gbps, workload.algorithm=ring): --set fabric.bandwidth=0Gbps: fabric.bandwidth: must be greater than 0
sipsim: error: run 0003 (fabric.bandwidth=0Gbps, workload.algorithm=bogus): --set fabric.bandwidth=0Gbps: fabric.bandwidth: must be greater than 0
sipsim: error: 2 of 4 runs are invalid; nothing was written" \
"scenario: base.yaml
combine: zip
axes:
  fabric.bandwidth: [400Gbps, 0Gbps, 100Gbps, 0Gbps]
  workload.algorithm: [ring, ring, halving-doubling, bogus]"

# --- a 4-run study at 2 ranks per run, --local -j 2 ------------------------
cat > four.yaml <<'EOF'
scenario: base.yaml
axes:
  fabric.bandwidth: [100Gbps, 400Gbps]
  workload.op: [all-reduce, all-gather]
ranks: 2
EOF
"$sipsim" sweep four.yaml --local -j 2 > local.log 2>&1 || { fail "--local failed"; cat local.log; }
grep -q '4 runs, 0 done already, 4 to run, 2 at a time' local.log || fail "--local: no plan line"
same "status, all done" "$("$sipsim" sweep four.yaml --status)" "$work/four: 4 runs: 4 done, 0 running, 0 failed, 0 pending"
for id in 0000 0001 0002 0003; do
  [ -s "four/logs/$id.out" ] || fail "no logs/$id.out"
  [ "$(h5dump -a /meta/ranks "four/runs/$id.h5" | awk -F': ' '/\(0\)/ {print $2}')" = 2 ] ||
    fail "runs/$id.h5 did not run on 2 ranks"
done

# collect: one row per run, the axes, status, results.
"$sipsim" collect four > collect.log || fail "collect failed"
same "collect header" "$(head -1 four/results.csv)" \
"run,fabric.bandwidth,workload.op,status,error,sim_time_s,wall_s,events,ranks,collectives,coll_op,coll_algorithm,coll_time_s,algbw_GBps,busbw_GBps,largest_bytes,busbw_GBps_largest"
same "collect rows" "$(cut -d, -f1-5,9-12,16 four/results.csv | tail -n +2)" \
"0000,100Gbps,all-reduce,done,,2,9,all-reduce,ring,65536
0001,100Gbps,all-gather,done,,2,9,all-gather,ring,65536
0002,400Gbps,all-reduce,done,,2,9,all-reduce,ring,65536
0003,400Gbps,all-gather,done,,2,9,all-gather,ring,65536"
# The run-level busbw at the largest size is the run file's own figure.
# h5dump prints each row's fields one per line: bytes 5th, warmup 7th, busbw 14th.
want=$(h5dump -d /collectives four/runs/0002.h5 | awk '
  /\(.*\): \{/ {f = 0; r = 1; next}
  r && /^ *\}/ {r = 0; if (!w) {if (b > top) {top = b; s = 0; n = 0} if (b == top) {s += v; n++}} next}
  r {f++; gsub(/[ ,]/, ""); if (f == 5) b = $0 + 0; if (f == 7) w = $0 + 0; if (f == 14) v = $0 + 0}
  END {print s / n}')
got=$(awk -F, 'NR == 4 {print $17}' four/results.csv)
awk -v a="$got" -v b="$want" 'BEGIN {exit !(a > 0 && (a - b) ^ 2 < 1e-10 * b * b)}' ||
  fail "collect: busbw_GBps_largest of 0002 is $got, the run file says $want"
h5dump -d /results/busbw_GBps_largest four/results.h5 > /dev/null || fail "results.h5: no busbw column"
[ "$(h5dump -a /results/columns four/results.h5 | grep -c 'run,fabric.bandwidth,workload.op,status')" = 1 ] ||
  fail "results.h5: no /results@columns"
# Integer columns are int64 (the run id without its leading zeros), rates float64.
h5type() { h5dump -H -d "/results/$2" "$1" | awk '/DATATYPE/ {print $2}'; }
for col in run events ranks collectives largest_bytes; do
  [ "$(h5type four/results.h5 $col)" = H5T_STD_I64LE ] ||
    fail "results.h5: $col is $(h5type four/results.h5 $col), not int64"
done
[ "$(h5type four/results.h5 busbw_GBps)" = H5T_IEEE_F64LE ] || fail "results.h5: busbw_GBps not float64"
same "results.h5: run ids" "$(h5dump -d /results/run -w 0 four/results.h5 | grep -o '(0): .*')" \
  "(0): 0, 1, 2, 3"
grep -Eq '^0002,([^,]*,){6}[0-9]+,2,' four/results.csv || fail "results.csv: events or ranks not integers"
"$sipsim" collect four --level collective > /dev/null || fail "collect --level collective failed"
[ "$(tail -n +2 four/results-collective.csv | wc -l)" = 36 ] || fail "collective level: not 36 rows"
for col in run id bytes iteration warmup group_size; do
  [ "$(h5type four/results-collective.h5 $col)" = H5T_STD_I64LE ] ||
    fail "results-collective.h5: $col is $(h5type four/results-collective.h5 $col), not int64"
done

# --- restart and status ----------------------------------------------------
stamp=$(stat -c %Y.%s four/runs/0000.h5)
sleep 1
rm four/runs/0001.h5 four/logs/0001.*                         # never ran: pending
mv four/runs/0002.h5 four/runs/0002.h5.node1.4242.0123456789abcdef.partial  # killed: running
rm four/logs/0002.rc
rm four/runs/0003.h5                                           # failed
echo "sipsim: error: something broke" >> four/logs/0003.err
echo 1 > four/logs/0003.rc
same "status, mixed" "$("$sipsim" sweep four.yaml --status)" \
"$work/four: 4 runs: 1 done, 1 running, 1 failed, 1 pending
  0003: sipsim: error: something broke"
"$sipsim" collect four > /dev/null || fail "collect (mixed) failed"
same "collect, mixed" "$(cut -d, -f1,4,5 four/results.csv | tail -n +2)" \
"0000,done,
0001,missing,
0002,missing,
0003,failed,sipsim: error: something broke"
"$sipsim" sweep four.yaml --local -j 2 > restart.log 2>&1 || { fail "restart failed"; cat restart.log; }
grep -q '4 runs, 1 done already, 3 to run' restart.log || fail "restart: did not skip the done run"
[ "$(stat -c %Y.%s four/runs/0000.h5)" = "$stamp" ] || fail "restart: rewrote runs/0000.h5"
ls four/runs/*.partial > /dev/null 2>&1 && fail "restart: left a partial file"
same "status after restart" "$("$sipsim" sweep four.yaml --status)" "$work/four: 4 runs: 4 done, 0 running, 0 failed, 0 pending"
# Why a run failed: its own line, never Open MPI's banner or a launcher's
# "exited with non-zero status"; a log of nothing but the root banner is
# named with its remedy.
cp -r four fails
rm fails/runs/0000.h5 fails/runs/0001.h5 fails/runs/0002.h5
banner='--------------------------------------------------------------------------'
printf '%s\n' "sipsim: error: scenarios/0000.yaml:3:1: bogus: unknown key" \
  "srun: error: node7: tasks 0-1: Exited with exit code 2" > fails/logs/0000.err
printf '%s\n' "sipsim: error: rank 1: out of memory" "$banner" \
  "Primary job  terminated normally, but 1 process returned" \
  "a non-zero exit code. Per user-direction, the job has been aborted." "$banner" "$banner" \
  "mpirun detected that one or more processes exited with non-zero status, thus causing" \
  "the job to be terminated. The first process to do so was:" "" \
  "  Process name: [[4242,1],1]" "  Exit code:    2" "$banner" > fails/logs/0001.err
printf '%s\n' "$banner" "mpirun has detected an attempt to run as root." "" \
  "Running as root is *strongly* discouraged as any mistake (e.g., in" \
  "defining TMPDIR) or bug can result in catastrophic damage to the OS" "$banner" > fails/logs/0002.err
rm fails/runs/0003.h5
printf '%s\n' "srun: Job step aborted: Waiting up to 7 seconds for job step to finish." \
  "slurmstepd-vm: error: *** STEP 28.0 ON vm CANCELLED AT 2026-11-30T09:31:17 DUE TO TIME LIMIT ***" \
  "srun: error: vm: task 0: Terminated" > fails/logs/0003.err
for id in 0000 0001 0002 0003; do echo 2 > "fails/logs/$id.rc"; done
same "failure lines" "$("$sipsim" sweep four.yaml -o fails --status | tail -n +2)" \
"  0000: sipsim: error: scenarios/0000.yaml:3:1: bogus: unknown key
  0001: sipsim: error: rank 1: out of memory
  0002: Open MPI refused to run as root (set OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
  0003: slurmstepd-vm: error: *** STEP 28.0 ON vm CANCELLED AT 2026-11-30T09:31:17 DUE TO TIME LIMIT ***"
"$sipsim" collect fails > /dev/null || fail "collect (fails) failed"
same "collect: failure lines" "$(cut -d, -f1,4,5 fails/results.csv | sed -n 3p)" \
  "0001,failed,sipsim: error: rank 1: out of memory"
# --local as root without Open MPI's variables: one clear error, nothing run.
if [ "$(id -u)" = 0 ]; then
  out=$(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    "$sipsim" sweep four.yaml -o asroot --local 2>&1)
  rc=$?
  [ "$rc" = 2 ] || fail "root --local: exit $rc, want 2"
  same "root --local" "$out" "sipsim: error: --local starts each run of 2 ranks with mpirun, which Open MPI refuses to run as root: set OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (or sweep as another user)"
  [ -e asroot ] && fail "root --local: wrote the study directory"
fi
# A run file that is not one (replaced by hand, say): collect lists the run as
# failed, with the reader's reason, and still writes the table.
cp -r four broken
echo "not HDF5" > broken/runs/0001.h5
"$sipsim" collect broken > /dev/null || fail "collect (broken file) failed"
same "collect, broken file" "$(cut -d, -f1,4,5 broken/results.csv | sed -n 3p)" \
  "0001,failed,runs/0001.h5: not a sipsim run file (not HDF5; 'sipsim run' writes one)"

# A changed study refuses a directory with runs of the old one.
sed -i 's/100Gbps/200Gbps/' four.yaml
"$sipsim" sweep four.yaml > changed.log 2>&1 && fail "a changed study overwrote the old one's directory"
grep -q 'holds runs of a different study' changed.log || fail "changed study: $(cat changed.log)"

# --- training: iteration times and the breakdown --------------------------
cp "$src/tests/app/training-tiny.yaml" train-base.yaml
printf 'scenario: train-base.yaml\nseeds: [3]\n' > train.yaml
"$sipsim" sweep train.yaml --local > train.log 2>&1 || { fail "training study failed"; cat train.log; }
"$sipsim" collect train > /dev/null && "$sipsim" collect train --level iteration > /dev/null ||
  fail "collect (training) failed"
head -1 train/results.csv | grep -q '^run,seed,status,error,sim_time_s,wall_s,events,ranks,iterations,iteration_s,hardware_tflops_per_gpu,model_tflops_per_gpu,time_to_accuracy_s,forward_s,' ||
  fail "training run level: $(head -1 train/results.csv)"
[ "$(cut -d, -f1-3,5 train/results-iteration.csv | tail -n +2)" = "0000,3,done,0
0000,3,done,1" ] || fail "training iteration level: $(cat train/results-iteration.csv)"

# --- the shipped example ---------------------------------------------------
"$sipsim" sweep "$src/scenarios/studies/ramp-vs-superpod-bw.yaml" -o example --local -j 2 > example.log 2>&1 ||
  { fail "the example study failed"; cat example.log; }
"$sipsim" collect example > /dev/null || fail "collect example failed"
[ "$(cut -d, -f2,3 example/results.csv | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' ')" = "1 " ] ||
  fail "example: not one row per (fabric, bandwidth)"
[ "$(grep -c ',done,' example/results.csv)" = 10 ] || fail "example: not 10 done rows"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "sweep_test: all passed"
