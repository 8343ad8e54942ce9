#!/usr/bin/env bash
# sweep, collect and export on hostile input (docs/studies.md, "What sweep
# refuses"): what a study file, a study directory or a run file may hold
# must never run a command, write through a link, lose or double a run,
# crash or hang. Each block is one class of attack; each fails on a sipsim
# without the defence.
# Usage: sweep_hostile_test.sh SIPSIM SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$work"
source "$src/tests/support/check.sh"
cp "$src/tests/support/study-base.yaml" base.yaml

# refused NAME STUDY-TEXT PATTERN: sweep exits 2, names the line and column,
# matches PATTERN, and writes nothing.
refused() {
  printf '%s\n' "$2" > bad.yaml
  rm -rf bad
  local out rc
  out=$(timeout 60 "$sipsim" sweep bad.yaml 2>&1 > /dev/null)
  rc=$?
  [ "$rc" = 2 ] || fail "$1: exit $rc, want 2 ($out)"
  [[ "$out" =~ bad\.yaml:[0-9]+:[0-9]+: ]] || fail "$1: not located: $out"
  grep -qE "$3" <<< "$out" || fail "$1: message: $out"
  [ "$(wc -l <<< "$out")" = 1 ] || fail "$1: more than one line: $out"
  [ -e bad ] && fail "$1: wrote the study directory"
}

# --- 1. submit.sh: nothing in a name, value, label or path runs --------------
# A stand-in srun runs the task's command here; a command smuggled into the
# script would touch $work/PWNED.
mkdir -p fakebin
printf '#!/bin/bash\n[ "$1" = --mpi=pmix ] || exit 9\nshift\nexec "$@"\n' > fakebin/srun
chmod +x fakebin/srun
evil='x'"'"'; touch '"$work"'/PWNED; $(touch '"$work"'/PWNED) `touch '"$work"'/PWNED` "'
mkdir -p "$work/odd dir 'q' \$(touch PWNED) #%A"
oddd="$work/odd dir 'q' \$(touch PWNED) #%A"
cp base.yaml "$oddd/base.yaml"
cat > "$oddd/bob's study.yaml" <<EOF
name: $(printf '%s' "$evil" | sed "s/'/''/g; s/^/'/; s/\$/'/")
scenario: base.yaml
points:
  - {label.note: $(printf '%s' "$evil" | sed "s/'/''/g; s/^/'/; s/\$/'/"), fabric.bandwidth: 100Gbps}
  - {label.note: "=HYPERLINK(\"http://x\")", fabric.bandwidth: 200Gbps}
time_limit: "10"
EOF
(cd "$oddd" && "$sipsim" sweep "bob's study.yaml" > /dev/null) || fail "odd names: sweep failed"
sd="$oddd/bob's study"
bash -n "$sd/submit.sh" || fail "odd names: submit.sh is not valid bash"
grep -q '^#SBATCH --job-name=[A-Za-z0-9._-]*$' "$sd/submit.sh" || fail "odd names: job name not plain"
for task in 0 1; do
  (cd / && PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=$task bash "$sd/submit.sh") > task.log 2>&1 ||
    { fail "odd names: task $task failed"; cat task.log; }
done
[ -e "$work/PWNED" ] || [ -e "$oddd/PWNED" ] || [ -e "$sd/PWNED" ] || [ -e /PWNED ] &&
  fail "a name, label or path ran a command"
same "odd names: status" "$("$sipsim" sweep "$oddd/bob's study.yaml" --status | tail -1)" \
  "$sd: 2 runs: 2 done, 0 running, 0 failed, 0 pending"
# A name, value or label that would end a line of submit.sh or of a CSV row.
refused "newline in name" 'name: "a\ntouch x"
scenario: base.yaml' "name: the name holds a newline"
refused "carriage return in label" 'scenario: base.yaml
axes: {label.x: ["a\rb"]}' "holds a carriage return"
refused "escape in value" 'scenario: base.yaml
axes: {workload.op: ["all-reduce\e"]}' "control character 0x1b"
refused "not UTF-8" "$(printf 'scenario: base.yaml\naxes: {label.x: ["\xff\xfe"]}')" "not valid UTF-8|not UTF-8|invalid"
refused "slash in key" 'scenario: base.yaml
axes: {label.a/b: [1]}' "is not a key path"
refused "bad time" 'scenario: base.yaml
time_limit: ":::"' "expected a Slurm time"
refused "bad unit" 'scenario: base.yaml
axes: {fabric.bandwidth: {range: [1, 2, 1], unit: "Gbps; rm"}}' "expected a unit"
# slurm: words that would end an #SBATCH line, add an option to it, or make
# sbatch read it otherwise; prelude items of more than one line.
refused "newline in partition" 'scenario: base.yaml
slurm: {partition: "debug\n#SBATCH --uid=0"}' "slurm.partition: .* holds a newline"
refused "space in account" 'scenario: base.yaml
slurm: {account: "a --uid=0"}' "slurm.account: .* holds a space"
refused "hash in qos" 'scenario: base.yaml
slurm: {qos: "normal#x"}' "slurm.qos: .* holds '#'"
refused "quote in gres" "scenario: base.yaml
slurm: {gres: \"gpu:'1\"}" "slurm.gres: .* holds a quote"
refused "hetjob in constraint" 'scenario: base.yaml
slurm: {constraint: "x_HETJOB"}' "slurm.constraint: .* holds 'hetjob'"
refused "unit in mem" 'scenario: base.yaml
slurm: {mem: "4G --uid=0"}' "slurm.mem: expected Slurm memory"
refused "command in mpi" 'scenario: base.yaml
slurm: {mpi: "pmix $(touch PWNED)"}' "slurm.mpi: expected an srun MPI plugin name"
refused "newline in prelude" 'scenario: base.yaml
slurm: {prelude: ["module load a\ntouch PWNED"]}' "slurm.prelude\[0\]: the line holds a newline"
refused "NUL in prelude" 'scenario: base.yaml
slurm: {prelude: ["a\0b"]}' "slurm.prelude\[0\]: the line holds the control character 0x00"
refused "CR in extra" 'scenario: base.yaml
slurm: {extra: ["--exclusive\r"]}' "slurm.extra\[0\]: .* holds a carriage return"
refused "extra not an option" 'scenario: base.yaml
slurm: {extra: ["touch PWNED"]}' "slurm.extra\[0\]: .* holds a space"
refused "extra sets the array" 'scenario: base.yaml
slurm: {extra: [--arr=0-99999]}' "would set --array"
refused "extra sets ntasks" 'scenario: base.yaml
slurm: {extra: [-n64]}' "would set --ntasks: use ranks"
refused "time_limit twice" 'scenario: base.yaml
time_limit: "10"
slurm: {time_limit: "20"}' "slurm.time_limit: given twice"
refused "array size 0" 'scenario: base.yaml
slurm: {max_array_size: 0}' "slurm.max_array_size: must be between 1 and"
refused "runs per task 0" 'scenario: base.yaml
slurm: {runs_per_task: 0}' "slurm.runs_per_task: must be between 1 and"
refused "unknown slurm key" 'scenario: base.yaml
slurm: {cpus_per_tsk: 2}' "slurm.cpus_per_tsk: unknown key; did you mean 'cpus_per_task'"

# --- 2. nothing is written through a link -----------------------------------
echo "precious" > victim
chmod 600 victim
mkdir -p linked/scenarios linked/logs linked/runs
for f in linked/scenarios/0000.yaml.tmp linked/submit.sh.tmp linked/manifest.csv.tmp \
         linked/submit.sh linked/logs/0000.out linked/logs/0000.err linked/logs/0000.rc \
         linked/results.csv.tmp linked/results.h5.tmp; do
  ln -s "$work/victim" "$f"
done
printf 'scenario: base.yaml\naxes: {fabric.bandwidth: [100Gbps]}\n' > linked.yaml
"$sipsim" sweep linked.yaml --local > /dev/null 2>&1 || fail "links: sweep --local failed"
"$sipsim" collect linked > /dev/null || fail "links: collect failed"
same "links: the victim" "$(cat victim) $(stat -c %a victim)" "precious 600"
[ -L linked/submit.sh ] && fail "links: submit.sh is still a link"
[ -x linked/submit.sh ] || fail "links: submit.sh is not executable"
ls linked/*.tmp.* linked/*/*.tmp.* 2> /dev/null | grep -v '\.tmp$' && fail "links: temporary files left"
# A scenario file, a run file or a directory of the study as a link: not read.
ln -sfn /etc linked/etc-link
rm linked/runs/0000.h5 && ln -s "$work/linked/etc-link/hostname" linked/runs/0000.h5
same "links: a linked run file" "$("$sipsim" sweep linked.yaml --status | tail -1)" \
  "  0000: runs/0000.h5: is a symbolic link; a study's run files must be its own files"

# --- 3. CSV cells a spreadsheet would run ------------------------------------
cat > csv.yaml <<'EOF'
scenario: base.yaml
points:
  - {label.v: "=1+1", fabric.bandwidth: 100Gbps}
  - {label.v: "+SUM(A1)", fabric.bandwidth: 100Gbps}
  - {label.v: "@cmd", fabric.bandwidth: 100Gbps}
  - {label.v: "-2+3", fabric.bandwidth: 100Gbps}
  - {label.v: "-5", fabric.bandwidth: 100Gbps}
  - {label.v: "'quoted", fabric.bandwidth: 100Gbps}
EOF
"$sipsim" sweep csv.yaml --local > /dev/null 2>&1 && "$sipsim" collect csv > /dev/null ||
  fail "csv: sweep or collect failed"
for f in csv/manifest.csv csv/results.csv; do
  same "csv: $f" "$(cut -d, -f2 "$f" | tail -n +2)" "'=1+1
'+SUM(A1)
'@cmd
'-2+3
-5
''quoted"
done
same "csv: results.h5 holds the values" \
  "$(h5dump -d /results/label.v -w 0 csv/results.h5 | grep -o '([0-9]*): .*' | sed 's/\\000//g')" \
  "(0): \"=1+1\", \"+SUM(A1)\", \"@cmd\", \"-2+3\", \"-5\", \"'quoted\""

# --- 4. values reach the scenario as written ---------------------------------
cat > str.yaml <<'EOF'
scenario: base.yaml
axes: {name: ["exp #1", "plain: no"]}
EOF
"$sipsim" sweep str.yaml > /dev/null || fail "strings: sweep failed"
same "strings: name" "$("$sipsim" validate str/scenarios/0000.yaml > /dev/null &&
  grep -v '^#' str/scenarios/0000.yaml | grep '^name:')" 'name: "exp #1"'
same "strings: manifest" "$(cut -d, -f2 str/manifest.csv)" "name
exp #1
plain: no"

# --- 5. a damaged run file is not done ----------------------------------------
printf 'scenario: base.yaml\naxes: {fabric.bandwidth: [100Gbps, 200Gbps, 300Gbps]}\n' > dmg.yaml
"$sipsim" sweep dmg.yaml --local > /dev/null 2>&1 || fail "damaged: first sweep failed"
: > dmg/runs/0000.h5                                   # empty
head -c 2000 dmg/runs/0002.h5 > t && mv t dmg/runs/0001.h5  # truncated
cp dmg/runs/0002.h5 keep.h5
same "damaged: status" "$("$sipsim" sweep dmg.yaml --status)" \
"$work/dmg: 3 runs: 1 done, 0 running, 2 failed, 0 pending
  0000: runs/0000.h5: not a sipsim run file (not HDF5; 'sipsim run' writes one)
  0001: runs/0001.h5: cannot open the HDF5 file (damaged or truncated?)"
# Another run's file in its place is not this run.
cp dmg/runs/0002.h5 dmg/runs/0000.h5
"$sipsim" validate dmg/scenarios/0000.yaml --done dmg/runs/0000.h5 > /dev/null 2> done.err &&
  fail "damaged: run 0002's file passed for run 0000"
grep -q "is a run of another scenario" done.err || fail "damaged: --done said $(cat done.err)"
(cd / && PATH="$work/fakebin:$PATH" SLURM_ARRAY_TASK_ID=1 bash "$work/dmg/submit.sh") > task.log 2>&1 ||
  fail "damaged: submit.sh task 1 failed"
grep -q 'done already' task.log && fail "damaged: submit.sh took a truncated file for done"
"$sipsim" sweep dmg.yaml --local > local.log 2>&1 || fail "damaged: rerun failed"
grep -q '3 runs, 2 done already, 1 to run' local.log || fail "damaged: --local plan: $(head -1 local.log)"
cmp -s dmg/runs/0002.h5 keep.h5 || fail "damaged: a done run was rerun"
same "damaged: after" "$("$sipsim" sweep dmg.yaml --status)" \
  "$work/dmg: 3 runs: 3 done, 0 running, 0 failed, 0 pending"

# --- 6. another study's runs in flight: refused --------------------------------
printf 'scenario: base.yaml\naxes: {fabric.bandwidth: [100Gbps, 200Gbps]}\n' > fly.yaml
"$sipsim" sweep fly.yaml > /dev/null || fail "in flight: sweep failed"
touch fly/runs/0001.h5.node1.4242.0123456789abcdef.partial   # a Slurm task running
sed -i 's/200Gbps/250Gbps/' fly.yaml
"$sipsim" sweep fly.yaml > fly.log 2>&1 && fail "in flight: a changed study replaced a running one"
grep -q '0 run files, 1 partial (running)' fly.log || fail "in flight: $(cat fly.log)"
# The base scenario changed (same manifest): its scenarios differ, refused too.
sed -i 's/250Gbps/200Gbps/' fly.yaml
sed 's/latency: 700ns/latency: 800ns/' base.yaml > base2.yaml
sed -i 's/base.yaml/base2.yaml/' fly.yaml
"$sipsim" sweep fly.yaml > fly.log 2>&1 && fail "in flight: a changed base scenario was accepted"

# --- 7. one sweep at a time on a directory -------------------------------------
"$sipsim" sweep dmg.yaml > /dev/null || fail "lock: sweep failed"
flock dmg/.sweep.lock sleep 5 &
holder=$!
sleep 0.5
"$sipsim" sweep dmg.yaml --local > lock.log 2>&1 && fail "lock: a second sweep ran"
grep -q 'another sipsim sweep is writing or running this study' lock.log || fail "lock: $(cat lock.log)"
kill "$holder" 2> /dev/null
wait "$holder" 2> /dev/null

# --- 8. killing --local kills its runs -----------------------------------------
# Runs of a few seconds each: RAMP-x all-reduce at 65,536 nodes.
cp "$src/scenarios/ramp/all-reduce-65536.yaml" big.yaml
printf 'scenario: big.yaml\nseeds: 2\n' > slow.yaml
for sig in TERM KILL; do
  rm -rf slow
  "$sipsim" sweep slow.yaml --local -j 2 > slow.log 2>&1 &
  parent=$!
  for _ in $(seq 100); do
    [ "$(pgrep -c -P "$parent")" = 2 ] && break
    sleep 0.1
  done
  kids=$(pgrep -P "$parent" | tr '\n' ' ')
  [ -n "$kids" ] || fail "kill $sig: no runs started"
  kill -"$sig" "$parent"
  wait "$parent" 2> /dev/null
  for _ in $(seq 100); do
    alive=0
    for k in $kids; do kill -0 "$k" 2> /dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  [ "$alive" = 0 ] || { fail "kill $sig: runs outlived sweep --local"; kill -9 $kids 2> /dev/null; }
done

# --- 9. limits ----------------------------------------------------------------
refused "10^11 runs" 'scenario: base.yaml
axes:
  label.a: {range: [1, 10000, 1]}
  label.b: {range: [1, 10000, 1]}
  label.c: {range: [1, 1000, 1]}' "more than 100000 runs"
refused "10^6 runs" 'scenario: base.yaml
axes:
  label.a: {range: [1, 1000, 1]}
seeds: 1000' "more than 100000 runs"
out=$("$sipsim" sweep missing.yaml --status 2>&1)
[ $? = 2 ] || fail "status of no study: exit 0"
printf 'scenario: base.yaml\n' > nodir.yaml
out=$("$sipsim" sweep nodir.yaml --status 2>&1)
[ $? = 2 ] || fail "status of a study never swept: not exit 2 ($out)"
out=$("$sipsim" export dmg/runs/0002.h5 --chrome-trace --max-nodes 18446744073709551616 2>&1)
[ $? = 2 ] || fail "--max-nodes 2^64: accepted"

# --- 10. foreign files: not printed, not waited for ---------------------------
out=$("$sipsim" validate /etc/passwd 2>&1)
[ "$(wc -l <<< "$out")" = 1 ] && [ "${#out}" -lt 200 ] || fail "a foreign file was echoed: $out"
mkfifo fifo.h5 fifo.yaml
out=$(timeout 20 "$sipsim" export fifo.h5 --chrome-trace 2>&1)
[ $? = 2 ] || fail "export of a FIFO: exit not 2 (hung?): $out"
out=$(timeout 20 "$sipsim" validate fifo.yaml 2>&1)
[ $? = 2 ] || fail "validate of a FIFO: exit not 2 (hung?): $out"
rm dmg/runs/0001.h5 && mkfifo dmg/runs/0001.h5
timeout 20 "$sipsim" collect dmg > /dev/null || fail "collect with a FIFO run file: failed or hung"
grep -q '^0001,200Gbps,failed,"runs/0001.h5: is a FIFO, not a run file"' dmg/results.csv ||
  fail "collect: the FIFO's row: $(sed -n 3p dmg/results.csv)"
# The manifest names only the study's own files.
cp -r dmg foreign
sed -i '2s|runs/0000.h5|/etc/hostname|' foreign/manifest.csv
out=$("$sipsim" collect foreign 2>&1)
[ $? = 2 ] || fail "collect: a manifest naming a foreign file was read"
grep -q 'manifest.csv:2: run 0000: its scenario and output must be' <<< "$out" || fail "foreign: $out"
# A failed write of results.h5 leaves no temporary file.
rm -f dmg/results.h5 && mkdir dmg/results.h5
"$sipsim" collect dmg > /dev/null 2>&1 && fail "collect: wrote results.h5 over a directory"
ls dmg/*.tmp 2> /dev/null && fail "collect: left a temporary file"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "sweep_hostile_test: all passed"
