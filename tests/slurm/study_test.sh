#!/usr/bin/env bash
# sipsim sweep on a real single-node Slurm (docs/studies.md, "On Slurm"):
# starts munged, slurmctld and slurmd (start.sh), runs a 4-run study of
# 2-rank collectives with `sbatch --wait submit.sh` (srun --mpi=pmix), checks
# the run files, --status and collect (against a --local run of the same
# study), and the same in a directory whose path holds quotes, $(),
# backticks, '#' and '%A'; then submits a second study, cancels one task mid-run with scancel,
# checks that --status reports it failed, that resubmitting reruns only it
# (the other run files keep their inode and mtime) and that collect lists all
# four done; a study with the slurm: site options (partition, account, qos,
# mem, cpus_per_task, constraint, mpi, a prelude that writes a marker, extra
# options), checked against what Slurm granted; a study of more tasks than
# the cluster's MaxArraySize (4) with 2 runs per task, split into arrays by
# `bash submit.sh`, one run failing with its own error shown, resubmitted;
# last, a run past its one-minute time limit, which Slurm ends (no run file,
# --status lists it failed). Stops the daemons it started.
# Skips (exit 77) unless root with slurm-wlm and munge installed.
# Usage: study_test.sh SIPSIM SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the Slurm test starts slurmctld/slurmd/munged and must run as root (CI does)"
  exit 77
fi
for b in munged slurmctld slurmd sinfo sbatch squeue scancel srun; do
  if ! command -v "$b" > /dev/null; then
    echo "SKIP: $b not found; apt-get install slurm-wlm munge to run the Slurm test"
    exit 77
  fi
done
work=$(mktemp -d /tmp/sipsim-slurm-test.XXXXXX)
slurm="$work/slurm"
cleanup() {
  bash "$src/tests/slurm/stop.sh" "$slurm"
  if [ "${failures:-1}" = 0 ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT
if ! bash "$src/tests/slurm/start.sh" "$slurm" > /dev/null; then
  echo "FAIL: tests/slurm/start.sh could not start Slurm"
  tail -n 30 "$slurm"/log/*.log 2> /dev/null
  exit 1
fi
source "$slurm/env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$work"
# fail, same
source "$src/tests/support/check.sh"
# The results without the wall-time column (the only one that varies).
no_wall() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
  { s = ""; for (i = 1; i <= NF; i++) if (i != w) s = s (s == "" && i == 1 ? "" : ",") $i; print s }' "$1"; }
stamp() { stat -c '%i %Y' "$@"; }
show_logs() {
  for f in "$1"/logs/*; do echo "== $f"; tail -n 5 "$f"; done
}

cp "$src/tests/support/study-base.yaml" base.yaml

# --- 1: a 4-run study, sbatch --wait -------------------------------------
cat > bw.yaml <<'YAML'
scenario: base.yaml
axes:
  fabric.bandwidth: [100Gbps, 200Gbps, 400Gbps, 800Gbps]
ranks: 2
time_limit: "00:05:00"
YAML
"$sipsim" sweep bw.yaml > /dev/null || fail "bw: sweep failed"
start=$(date +%s)
sbatch --wait bw/submit.sh > bw.sbatch 2>&1 || { fail "bw: sbatch --wait failed"; cat bw.sbatch; show_logs bw; }
echo "bw: 4 runs on Slurm in $(($(date +%s) - start)) s"
for id in 0000 0001 0002 0003; do
  [ -f "bw/runs/$id.h5" ] || fail "bw: no run file runs/$id.h5"
  [ "$(cat "bw/logs/$id.rc" 2> /dev/null)" = 0 ] || fail "bw: run $id exit status is not 0"
done
grep -q '2 ranks' bw/logs/0000.out || fail "bw: run 0000 did not run on 2 ranks"
ls bw/logs/slurm-*_3.out > /dev/null 2>&1 || fail "bw: no Slurm log of task 3"
same "bw: status" "$("$sipsim" sweep bw.yaml --status)" "$work/bw: 4 runs: 4 done, 0 running, 0 failed, 0 pending"
"$sipsim" collect bw > /dev/null || fail "bw: collect failed"
# The same study here, with --local: the same table but for wall times.
"$sipsim" sweep bw.yaml -o bw-local --local -j 1 > /dev/null || fail "bw: --local sweep failed"
"$sipsim" collect bw-local > /dev/null || fail "bw: --local collect failed"
same "bw: collect on Slurm vs --local" "$(no_wall bw/results.csv)" "$(no_wall bw-local/results.csv)"

# --- 1b: the same study where every path and the name hold what a shell or
# sbatch would take for syntax: quotes, spaces, $(), backticks, '#', '%A'.
odd="$work/it's a \$(touch PWNED) \`touch PWNED\` #%A dir"
mkdir -p "$odd"
cp base.yaml "$odd/"
printf 'name: "x'"'"'; touch PWNED #"\nscenario: base.yaml\naxes: {fabric.bandwidth: [100Gbps, 200Gbps]}\nranks: 2\n' \
  > "$odd/bob's study.yaml"
(cd "$odd" && "$sipsim" sweep "bob's study.yaml" > /dev/null) || fail "odd: sweep failed"
sbatch --wait "$odd/bob's study/submit.sh" > odd.sbatch 2>&1 ||
  { fail "odd: sbatch --wait failed"; cat odd.sbatch; show_logs "$odd/bob's study"; }
same "odd: status" "$("$sipsim" sweep "$odd/bob's study.yaml" --status | head -1)" \
  "$odd/bob's study: 2 runs: 2 done, 0 running, 0 failed, 0 pending"
ls "$odd/bob's study/logs/"slurm-*_0.out > /dev/null 2>&1 || fail "odd: no Slurm log under logs/"
find "$work" / -maxdepth 1 -name PWNED 2> /dev/null | grep -q . && fail "odd: a path or name ran a command"
find "$odd" -name PWNED | grep -q . && fail "odd: a path or name ran a command"

# --- 2: one task cancelled mid-run, then resubmitted ----------------------
# Run 0001 is long (about 5 s at 2 ranks): scancel lands while it runs.
cat > kill.yaml <<'YAML'
scenario: base.yaml
axes:
  workload.iterations: [2, 20000, 3, 4]
ranks: 2
time_limit: "00:05:00"
YAML
"$sipsim" sweep kill.yaml > /dev/null || fail "kill: sweep failed"
sbatch --wait kill/submit.sh > kill.sbatch 2>&1 &
waiter=$!
for _ in $(seq 600); do
  ls kill/runs/0001.h5.*.partial > /dev/null 2>&1 && break
  sleep 0.1
done
job=$(squeue -h --name=kill -o %F | head -n 1)
if ! ls kill/runs/0001.h5.*.partial > /dev/null 2>&1; then
  fail "kill: run 0001 did not start within 60 s (job '$job')"
  squeue
fi
status=$("$sipsim" sweep kill.yaml --status)
# Other tasks may run beside it where the node has more than 2 CPUs.
[[ $status =~ \ [1-4]\ running, ]] || fail "kill: --status while 0001 runs: $status"
sleep 1
scancel "${job}_1" || fail "kill: scancel ${job}_1 failed"
wait "$waiter" && fail "kill: sbatch --wait succeeded though task 1 was cancelled"
[ -f kill/runs/0001.h5 ] && fail "kill: run 0001 finished before scancel (make it longer)"
ls kill/runs/0001.h5.*.partial > /dev/null 2>&1 && fail "kill: the cancelled run left its partial file"
status=$("$sipsim" sweep kill.yaml --status)
same "kill: status after scancel" "$(head -n 1 <<< "$status")" \
  "$work/kill: 4 runs: 3 done, 0 running, 1 failed, 0 pending"
grep -q '^  0001: .*\(143\|CANCELLED\|SIGTERM\)' <<< "$status" || fail "kill: --status does not list 0001 as killed: $status"
"$sipsim" collect kill > /dev/null || fail "kill: collect of the failed study failed"
same "kill: collect lists the failed run" "$(cut -d, -f1-3 kill/results.csv)" \
"run,workload.iterations,status
0000,2,done
0001,20000,failed
0002,3,done
0003,4,done"
before=$(stamp kill/runs/0000.h5 kill/runs/0002.h5 kill/runs/0003.h5)
sleep 1 # a rewritten file would show a new mtime
sbatch --wait kill/submit.sh > kill.sbatch 2>&1 || { fail "kill: resubmission failed"; cat kill.sbatch; show_logs kill; }
same "kill: status after resubmission" "$("$sipsim" sweep kill.yaml --status)" \
  "$work/kill: 4 runs: 4 done, 0 running, 0 failed, 0 pending"
same "kill: the other runs' files (inode, mtime)" \
  "$(stamp kill/runs/0000.h5 kill/runs/0002.h5 kill/runs/0003.h5)" "$before"
for t in 0 2 3; do
  grep -q "done already" kill/logs/slurm-*_$t.out 2> /dev/null || fail "kill: task $t ran again"
done
"$sipsim" collect kill > /dev/null || fail "kill: collect failed"
same "kill: collect after resubmission" "$(cut -d, -f1-3,7-11 kill/results.csv)" \
"run,workload.iterations,status,events,ranks,collectives,coll_op,coll_algorithm
0000,2,done,3024,2,9,all-reduce,ring
0001,20000,done,20161008,2,60003,all-reduce,ring
0002,3,done,4032,2,12,all-reduce,ring
0003,4,done,5040,2,15,all-reduce,ring"

# --- 2b: site options: partition, account, qos, mem, cpus_per_task,
# constraint, mpi, prelude and extra, as Slurm takes them. Two 1-rank runs
# of 2 CPUs each; the prelude writes a marker and what Slurm granted the job.
cat > site.yaml <<'YAML'
scenario: base.yaml
axes:
  fabric.bandwidth: [100Gbps, 200Gbps]
slurm:
  time_limit: "00:05:00"
  partition: test
  account: ci-account
  qos: normal
  mem: 100M
  cpus_per_task: 2
  constraint: sipsimci
  mpi: none
  prelude:
    - 'echo "prelude of task $SLURM_ARRAY_TASK_ID: extra=${SIPSIM_CI_EXTRA:-unset}" > "prelude-$SLURM_ARRAY_TASK_ID.txt"'
    - scontrol show job "$SLURM_JOB_ID" > "job-$SLURM_ARRAY_TASK_ID.txt"
  extra: [--comment=sipsim-ci, "--export=ALL,SIPSIM_CI_EXTRA=yes"]
YAML
"$sipsim" sweep site.yaml > /dev/null || fail "site: sweep failed"
for l in --partition=test --account=ci-account --qos=normal --mem=100M --cpus-per-task=2 \
         --constraint=sipsimci --comment=sipsim-ci --export=ALL,SIPSIM_CI_EXTRA=yes; do
  grep -qx -- "#SBATCH $l" site/submit.sh || fail "site: submit.sh has no #SBATCH $l"
done
grep -q '^  srun --cpus-per-task=2 "\$sipsim" run' site/submit.sh || fail "site: srun line (mpi: none)"
sbatch --wait site/submit.sh > site.sbatch 2>&1 || { fail "site: sbatch --wait failed"; cat site.sbatch; show_logs site; }
same "site: status" "$("$sipsim" sweep site.yaml --status)" "$work/site: 2 runs: 2 done, 0 running, 0 failed, 0 pending"
same "site: the prelude ran in each task" "$(cat site/prelude-0.txt site/prelude-1.txt)" \
"prelude of task 0: extra=yes
prelude of task 1: extra=yes"
for f in Partition=test Account=ci-account MinMemoryNode=100M CPUs/Task=2 Features=sipsimci Comment=sipsim-ci; do
  grep -q "$f" site/job-0.txt || fail "site: Slurm did not grant $f: $(cat site/job-0.txt)"
done

# --- 2c: more tasks than the cluster's MaxArraySize (4, slurm.conf.in),
# several runs per task. 9 runs of 2 ranks, 2 per task: 5 tasks, in arrays
# of at most 4 (indices 0-3), submitted by `bash submit.sh`. A study asking
# for arrays of 5 (index 4) is refused by Slurm itself.
cat > chunk.yaml <<'YAML'
scenario: base.yaml
axes:
  fabric.bandwidth: {range: [100, 900, 100], unit: Gbps}
ranks: 2
time_limit: "00:05:00"
slurm: {max_array_size: 4, runs_per_task: 2, mpi: pmix}
YAML
sed 's/max_array_size: 4/max_array_size: 5/' chunk.yaml > toolong.yaml
"$sipsim" sweep toolong.yaml > /dev/null || fail "toolong: sweep failed"
sbatch toolong/submit.sh > toolong.sbatch 2>&1 && fail "toolong: Slurm took an array index of 4 (MaxArraySize=4?)"
grep -q 'Invalid job array specification' toolong.sbatch || fail "toolong: $(cat toolong.sbatch)"
"$sipsim" sweep chunk.yaml > /dev/null || fail "chunk: sweep failed"
# Run 0005 fails (its scenario made invalid); the others run.
echo 'bogus: 1' >> chunk/scenarios/0005.yaml
# `sbatch` of a study of several arrays: the job refuses, naming the command.
sbatch --wait chunk/submit.sh > chunk.sbatch 2>&1 && fail "chunk: sbatch of several arrays succeeded"
grep -qs 'submit them all with: bash' chunk/logs/slurm-*.out || fail "chunk: sbatch of several arrays: no message"
rm -f chunk/logs/slurm-*.out
bash chunk/submit.sh --wait > chunk.sbatch 2>&1 && fail "chunk: bash submit.sh --wait succeeded with a failed run"
[ "$(grep -c 'Submitted batch job' chunk.sbatch)" = 2 ] || fail "chunk: not 2 arrays submitted: $(cat chunk.sbatch)"
ls chunk/logs/slurm-*_3.out > /dev/null 2>&1 || fail "chunk: no task 3 in the first array"
status=$("$sipsim" sweep chunk.yaml --status)
same "chunk: status" "$(head -n 1 <<< "$status")" "$work/chunk: 9 runs: 8 done, 0 running, 1 failed, 0 pending"
# The run's own error, not Open MPI's banner or srun's exit line.
grep -q '^  0005: sipsim: error: .*bogus: unknown key' <<< "$status" || fail "chunk: failed run's reason: $status"
for id in 0004 0005; do
  [ -f "chunk/logs/$id.rc" ] && [ -f "chunk/logs/$id.out" ] || fail "chunk: run $id has no logs of its own"
done
# Resubmitted with run 0005's scenario mended: only 0005 runs.
sed -i '/^bogus: 1$/d' chunk/scenarios/0005.yaml
before=$(stamp chunk/runs/0004.h5 chunk/runs/0008.h5)
bash chunk/submit.sh --wait > chunk.sbatch 2>&1 || { fail "chunk: resubmission failed"; cat chunk.sbatch; show_logs chunk; }
same "chunk: status after resubmission" "$("$sipsim" sweep chunk.yaml --status)" \
  "$work/chunk: 9 runs: 9 done, 0 running, 0 failed, 0 pending"
same "chunk: the other runs' files (inode, mtime)" "$(stamp chunk/runs/0004.h5 chunk/runs/0008.h5)" "$before"
"$sipsim" collect chunk > /dev/null || fail "chunk: collect failed"
[ "$(grep -c ',done,' chunk/results.csv)" = 9 ] || fail "chunk: collect: not 9 done rows"

# --- 3: a run past its time limit -----------------------------------------
# time_limit is one minute (Slurm's smallest); the run would take minutes.
# slurmctld checks limits about every 30 s, so Slurm ends it 60-90 s in, as
# scancel does (SIGTERM, then SIGKILL after KillWait = 5 s).
# PHOLD on 1,024 LPs: ~0.06 s per simulated ms here, in constant memory.
cat > phold.yaml <<'YAML'
workload: {type: phold, lps: 1024, start_events_per_lp: 1, remote_fraction: 0.25,
           lookahead: 1us, mean_increment: 1us}
YAML
cat > slow.yaml <<'YAML'
scenario: phold.yaml
axes:
  simulation.end_time: [10s]
time_limit: "1"
YAML
"$sipsim" sweep slow.yaml > /dev/null || fail "slow: sweep failed"
grep -q '^#SBATCH --time=1$' slow/submit.sh || fail "slow: submit.sh does not ask for --time=1"
start=$(date +%s)
sbatch --wait slow/submit.sh > slow.sbatch 2>&1 && fail "slow: sbatch --wait succeeded past the time limit"
took=$(($(date +%s) - start))
echo "slow: ended by its time limit after $took s"
[ "$took" -ge 60 ] || fail "slow: the run ended after $took s, before its one-minute limit"
[ -f slow/runs/0000.h5 ] && fail "slow: the run finished (make it longer)"
ls slow/runs/0000.h5.*.partial > /dev/null 2>&1 && fail "slow: the timed-out run left its partial file"
grep -q 'DUE TO TIME LIMIT' slow/logs/slurm-*_0.out || fail "slow: Slurm's log does not say TIME LIMIT"
status=$("$sipsim" sweep slow.yaml --status)
same "slow: status" "$(head -n 1 <<< "$status")" "$work/slow: 1 runs: 0 done, 0 running, 1 failed, 0 pending"
grep -q '^  0000: .*\(DUE TO TIME LIMIT\|interrupted by SIGTERM\)' <<< "$status" ||
  fail "slow: --status does not say why 0000 failed: $status"
echo "$status" | tail -n 1

if [ "$failures" -eq 0 ]; then echo "PASS"; else echo "$failures failure(s)"; exit 1; fi
