#!/usr/bin/env bash
# The CLI on bad input: each case asserts the exact message on stderr, the exit
# code, and that no output file (final or .partial) was left behind.
# Usage: cli_test.sh SIPSIM
set -uo pipefail
sipsim=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0 passed=0

# expect NAME CODE MESSAGE -- ARGS...: runs sipsim ARGS in $work.
expect() {
  local name=$1 code=$2 message=$3
  shift 4
  local out rc
  out=$("$sipsim" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" != "$code" ] || [ "$out" != "$message" ]; then
    echo "FAIL $name: exit $rc (want $code)"
    echo "  got:  $out"
    echo "  want: $message"
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
  if ls ./*.h5 ./*.partial >/dev/null 2>&1 && [ "$code" != 0 ]; then
    echo "FAIL $name: left an output file: $(ls ./*.h5 ./*.partial 2>/dev/null)"
    failures=$((failures + 1))
  fi
}

good='simulation:
  end_time: 100us
workload:
  type: phold
  lps: 16
  lookahead: 1us
'
printf '%s' "$good" > good.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: 64\n  lokahead: 1us\n' > typo.yaml
expect typo-required 2 "sipsim: error: typo.yaml:6:3: workload.lokahead: unknown key; did you mean 'lookahead'?" -- run typo.yaml

printf 'seeed: 3\nsimulation:\n  end_time: 1ms\nworkload: {type: phold, lps: 4, lookahead: 1us}\n' > unknown.yaml
expect unknown-key 2 "sipsim: error: unknown.yaml:1:1: seeed: unknown key; did you mean 'seed'?" -- run unknown.yaml

printf 'simulation:\n  end_time: 1ms\n  end_time: 2ms\nworkload: {type: phold, lps: 4, lookahead: 1us}\n' > dup.yaml
expect duplicate-key 2 "sipsim: error: dup.yaml:3:3: simulation.end_time: duplicate key 'end_time' (first at line 2)" -- run dup.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: 4\n  lookahead: 1GiB\n' > dim.yaml
expect wrong-dimension 2 "sipsim: error: dim.yaml:6:14: workload.lookahead: '1GiB' is a data size, expected a time such as 1.3us" -- run dim.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: 4\n  lookahead: 0.5ps\n' > frac.yaml
expect fractional-ps 2 "sipsim: error: frac.yaml:6:14: workload.lookahead: '0.5ps' is not a whole number of picoseconds" -- run frac.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: 4\n  lookahead: 1\n' > nounit.yaml
expect missing-unit 2 "sipsim: error: nounit.yaml:6:14: workload.lookahead: '1' needs a unit, e.g. 1us" -- run nounit.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: -4\n  lookahead: 1us\n' > neg.yaml
expect negative-count 2 "sipsim: error: neg.yaml:5:8: workload.lps: must not be negative" -- run neg.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: 0\n  lookahead: 1us\n' > zero.yaml
expect zero-lps 2 "sipsim: error: zero.yaml:5:8: workload.lps: must be between 1 and 4294967295" -- run zero.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phold\n  lps: 4\n  lookahead: 1us\n  remote_fraction: 1.5\n' > frac2.yaml
expect remote-fraction 2 "sipsim: error: frac2.yaml:7:20: workload.remote_fraction: must be between 0 and 1" -- run frac2.yaml

printf 'simulation:\n  end_time: 1ms\nworkload:\n  type: phld\n  lps: 4\n' > type.yaml
expect unknown-type 2 "sipsim: error: type.yaml:4:9: workload.type: unknown value 'phld'; expected one of phold, collectives, transformer, dlrm, graph, chakra; did you mean 'phold'?" -- run type.yaml

printf 'workload:\n  type: phold\n  lps: 4\n  lookahead: 1us\n' > noend.yaml
expect phold-needs-end 2 "sipsim: error: noend.yaml:2:3: workload: PHOLD never ends by itself: set simulation.end_time (e.g. end_time: 4000us)" -- run noend.yaml

printf 'simulation:\n  end_time: 1ms\n' > nowork.yaml
expect missing-workload 2 "sipsim: error: nowork.yaml:1:1: workload: missing required key" -- run nowork.yaml

printf 'workload: [1, 2\n' > syntax.yaml
expect yaml-syntax 2 "sipsim: error: syntax.yaml:2:1: end of sequence flow not found" -- run syntax.yaml

expect missing-file 2 "sipsim: error: nothere.yaml: cannot read (No such file or directory)" -- run nothere.yaml

expect set-bad-value 2 "sipsim: error: --set workload.lookahead=abc: workload.lookahead: 'abc' is not a number with a unit; expected a time such as 1.3us" -- run good.yaml --set workload.lookahead=abc

expect set-through-scalar 2 "sipsim: error: --set workload.lps.x=1: workload.lps: is '16', not a mapping, so 'workload.lps.x' cannot be set" -- run good.yaml --set workload.lps.x=1

expect bad-output-dir 2 "sipsim: error: cannot write output 'no/such/dir/x.h5': directory 'no/such/dir' does not exist" -- run good.yaml -o no/such/dir/x.h5

expect validate-typo 2 "sipsim: error: typo.yaml:6:3: workload.lokahead: unknown key; did you mean 'lookahead'?" -- validate typo.yaml

# Command-line errors: one line, with the documented prefix, exit 2.
expect usage-no-scenario 2 "sipsim: error: scenario is required (see 'sipsim run --help')" -- run
expect usage-no-command 2 "sipsim: error: a command is required: one of run, validate, analyze, compare, info, export, sweep, collect (see 'sipsim --help')" --
expect usage-unknown-command 2 "sipsim: error: unknown command 'simulate'; expected one of run, validate, analyze, compare, info, export, sweep, collect (see 'sipsim --help')" -- simulate good.yaml
expect usage-misspelt-command 2 "sipsim: error: unknown command 'valdate'; expected one of run, validate, analyze, compare, info, export, sweep, collect; did you mean 'validate'? (see 'sipsim --help')" -- valdate good.yaml
expect usage-unknown-option 2 "sipsim: error: The following argument was not expected: --bogus (see 'sipsim run --help')" -- run good.yaml --bogus
expect usage-ranks-zero 2 "sipsim: error: --ranks: must be a whole number from 1 to 16777216, got '0' (see 'sipsim info --help')" -- info good.yaml --ranks 0
expect usage-max-work-negative 2 "sipsim: error: --max-work: must be a whole number from 1 to 18446744073709551615, got '-1' (see 'sipsim analyze --help')" -- analyze good.yaml --max-work -1
expect number-out-of-range 2 "sipsim: error: --set workload.lps=99999999999999999999: workload.lps: integer 99999999999999999999 is out of range: at most 18446744073709551615" -- validate good.yaml --set workload.lps=99999999999999999999
expect time-out-of-range 2 "sipsim: error: --set simulation.end_time=1e30s: simulation.end_time: '1e30s' is too large for a 64-bit count of picoseconds: at most 18446744073709551615 (about 213 days)" -- validate good.yaml --set simulation.end_time=1e30s

# The loader: aliases (an alias bomb is refused at once), tabs, a second
# document, deep nesting, a directory, an empty file.
{
  echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
  p=a
  for x in b c d e f g h i; do
    echo "$x: &$x [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]"
    p=$x
  done
  printf '%s' "$good"
} > bomb.yaml
start=$(date +%s%N)
expect alias-bomb 2 "sipsim: error: bomb.yaml:2:8: b[0]: YAML aliases are not supported in scenario files (an alias '*name' repeats the node anchored '&name'); write the value out in full" -- validate bomb.yaml
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$elapsed_ms" -lt 5000 ] || { echo "FAIL alias-bomb: took $elapsed_ms ms"; failures=$((failures + 1)); }
expect alias-bomb-run 2 "sipsim: error: bomb.yaml:2:8: b[0]: YAML aliases are not supported in scenario files (an alias '*name' repeats the node anchored '&name'); write the value out in full" -- run bomb.yaml
printf 'simulation:
  end_time: 100us
workload:
  type: phold
	lps: 16
' > tab.yaml
expect tab-indentation 2 "sipsim: error: tab.yaml:5:1: tabs are not allowed in YAML indentation; indent with spaces" -- validate tab.yaml
printf '%s---
seed: 2
' "$good" > two.yaml
expect second-document 2 "sipsim: error: two.yaml:7:1: a second YAML document starts here; a scenario file holds one document (remove the '---' or '...' line and what follows it)" -- run two.yaml
printf '%sextra: %s%s
' "$good" "$(printf '[%.0s' $(seq 40))" "$(printf ']%.0s' $(seq 40))" > deep.yaml
expect deep-nesting 2 "sipsim: error: deep.yaml:7:39: extra[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nesting is deeper than 32 levels, the most a scenario file may have" -- validate deep.yaml
mkdir adir
expect directory 2 "sipsim: error: adir: is a directory, not a scenario file" -- run adir
: > empty.yaml
expect empty-file 2 "sipsim: error: empty.yaml:1:1: the scenario file is empty; it needs at least a workload section (docs/scenarios.md)" -- validate empty.yaml

# The good scenario runs, writes its file, and refuses to overwrite it.
expect good-run 0 "" -- run good.yaml -q
[ -f good.h5 ] && [ ! -e good.h5.partial ] || { echo "FAIL good-run: no good.h5"; failures=$((failures + 1)); }
expect existing-output 2 "sipsim: error: output 'good.h5' exists; pass --force to overwrite it or -o to choose another" -- run good.yaml
expect force-overwrite 0 "" -- run good.yaml -q --force
expect validate-ok 0 "" -- validate good.yaml
rm -f good.h5

# analyze: on an idle elect-flat the closed form and the simulation agree (ring all-reduce).
printf 'fabric: {type: elect-flat, nodes: 8, bandwidth: 400Gbps, latency: 1us}\nworkload: {type: collectives, op: all-reduce, algorithm: ring, size: 1MiB, iterations: 1, warmup: 0}\n' > coll.yaml
estimate=$("$sipsim" analyze coll.yaml | awk '$2 == "ring" {print $4}')
simulated=$("$sipsim" run coll.yaml -q -o coll.h5 | awk '$2 == "ring" {print $3}')
rm -f coll.h5
if [ -n "$estimate" ] && [ "$estimate" = "$simulated" ]; then
  passed=$((passed + 1))
else
  echo "FAIL analyze-equals-run: analyze '$estimate' us, run '$simulated' us"
  failures=$((failures + 1))
fi

# compare: the first scenario is the reference (time/first 1.00); a 4x faster
# fabric makes the other nearly 4x slower for a bandwidth-bound ring (the
# reductions cost the same on both); op mismatch refused.
printf 'fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1ns}\nworkload: {type: collectives, op: all-reduce, algorithm: ring, size: 64MiB, iterations: 1, warmup: 0}\n' > slow.yaml
speedups=$("$sipsim" compare coll.yaml slow.yaml --set fabric.latency=1ns --set workload.size=64MiB | awk '$1 ~ /^[0-9]+$/ {print $2 "=" $NF}' | tr '\n' ' ')
if echo "$speedups" | awk '{split($2, s, "="); exit !($1 == "coll=1.00" && s[1] == "slow" && s[2] > 3.7 && s[2] < 4.0)}'; then
  passed=$((passed + 1))
else
  echo "FAIL compare-speedup: '$speedups'"
  failures=$((failures + 1))
fi
if "$sipsim" compare coll.yaml slow.yaml --csv | head -1 | grep -q '^op,size,scenario,fabric,nodes,algorithm,time_us'; then
  passed=$((passed + 1))
else
  echo "FAIL compare-csv"
  failures=$((failures + 1))
fi
sed 's/all-reduce/reduce-scatter/' slow.yaml > rs.yaml
expect compare-op-mismatch 2 "sipsim: error: rs.yaml: workload.op is reduce-scatter but coll.yaml runs all-reduce (use --set workload.op=...)" -- compare coll.yaml rs.yaml
# info: RAMP's power budget at the reference point (RAMP §4.2, Fig. 6), and refusal past it.
printf 'fabric: {type: ramp}\nworkload: {type: collectives, op: barrier, algorithm: ramp-x, size: 0B}\n' > ramp.yaml
if "$sipsim" info ramp.yaml | grep -q "receiver -11.22 dBm (>= -15.0), minimum -18.16 dBm (>= -20.0): OK"; then
  passed=$((passed + 1))
else
  echo "FAIL info-ramp-budget"
  failures=$((failures + 1))
fi
# info: a 128-node ramp-x job on the reference fabric, {32, 4, 1, 1}: step 2 (4 members) uses
# 1 + 2 transceiver groups (RAMP §6.2.2 eq. 3-4); fabric.extra_transceivers: false turns it off.
groups=$("$sipsim" info ramp.yaml --set workload.group.count=128 | grep "groups/pair")
nogroups=$("$sipsim" info ramp.yaml --set workload.group.count=128 --set fabric.extra_transceivers=false | grep "groups/pair")
if [[ "$groups" == *"steps 1-4: 1, 3, -, - (job 32x4x1x1)" ]] && [[ "$nogroups" == *"1 (no RAMP-x job: eq. 3-4 not applied)" ]]; then
  passed=$((passed + 1))
else
  echo "FAIL info-ramp-extra-groups: '$groups' / '$nogroups'"
  failures=$((failures + 1))
fi
# The hierarchical strategies' shapes: one ring level per fat-tree tier (RAMP §7.5), or dims.
printf 'fabric: {type: cluster, preset: superpod, nodes: 65536}\nworkload: {type: collectives, op: all-reduce, algorithm: auto, size: 1MiB}\n' > pod.yaml
shapes=$("$sipsim" info pod.yaml | grep "collective shapes")
shapes32=$("$sipsim" info pod.yaml --set workload.group.count=96 | grep "collective shapes")
if [[ "$shapes" == *"hierarchy 8 x 2 x 16 x 16 x 16, torus 8 x 8192" ]] &&
   [[ "$shapes32" == *"hierarchy 8 x 2 x 6, torus 8 x 12" ]]; then
  passed=$((passed + 1))
else
  echo "FAIL info-collective-shapes: '$shapes' / '$shapes32'"
  failures=$((failures + 1))
fi
# info: a device's peaks only for the formats it has units for; the others say what they run
# as (the A100 has no fp8: a scenario's fp8 runs at fp16's rate), never a peak of their own.
a100=$("$sipsim" info pod.yaml | grep "device matmul")
a100v=$("$sipsim" info pod.yaml | grep "device vector")
h100=$("$sipsim" info pod.yaml --set compute.preset=h100 | grep "device matmul")
own=$("$sipsim" info pod.yaml --set compute.matmul_tflops.fp8=500 | grep "device matmul")
if [[ "$a100" == *"fp32 19.5, tf32 156, fp16 312, bf16 312; no fp8 units: fp8 runs as fp16" ]] &&
   [[ "$a100" != *"fp8 312"* ]] &&
   [[ "$a100v" == *"fp32 19.5, fp16 78, bf16 39; no tf32 or fp8 units: tf32 runs as fp32, fp8 as fp16" ]] &&
   [[ "$h100" == *"fp16 989.4, bf16 989.4, fp8 1978.9" ]] && [[ "$own" == *"bf16 312, fp8 500" ]]; then
  passed=$((passed + 1))
else
  echo "FAIL info-device-formats: '$a100' / '$a100v' / '$h100' / '$own'"
  failures=$((failures + 1))
fi
expect dims-one 2 "sipsim: error: --set workload.dims=[65536]: workload.dims: expected 2 to 8 numbers: the level sizes, innermost first (torus2d: [X, Y])" -- validate pod.yaml --set "workload.dims=[65536]"
expect dims-torus-three 2 "sipsim: error: --set workload.dims=[8,8,1024]: workload.dims: algorithm torus2d needs two dims whose product is p = 65536, got 8 x 8 x 1024" -- validate pod.yaml --set workload.algorithm=torus2d --set "workload.dims=[8,8,1024]"
expect dims-product 2 "sipsim: error: --set workload.dims=[8,8,8]: workload.dims: algorithm hierarchical-ring needs 2 to 8 dims whose product is p = 65536, got 8 x 8 x 8" -- validate pod.yaml --set workload.algorithm=hierarchical-ring --set "workload.dims=[8,8,8]"
expect ramp-budget-refused 2 "sipsim: error: ramp.yaml:1:9: fabric: optical power budget fails (RAMP §4.2): -15.0927 dBm at the receiver (needs >= -15), -21.0721 dBm at the weakest point (needs >= -20); set ignore_power_budget: true to run anyway" -- validate ramp.yaml --set fabric.x=40 --set fabric.J=40 --set fabric.Lambda=80
expect ramp-j-above-x 2 "sipsim: error: --set fabric.J=33: fabric.J: must not exceed x (32)" -- validate ramp.yaml --set fabric.J=33
expect ramp-x-needs-ramp 2 "sipsim: error: --set workload.algorithm=ramp-x: workload.algorithm: ramp-x needs a RAMP fabric (x, J, D)" -- validate coll.yaml --set workload.algorithm=ramp-x
expect trace-needs-training 2 "sipsim: error: --set output.trace=ops: output.trace: only training workloads (transformer, dlrm, graph, chakra) have an event trace" -- validate coll.yaml --set output.trace=ops
expect trace-steps-needs-training 2 "sipsim: error: --set output.trace=steps: output.trace: only training workloads (transformer, dlrm, graph, chakra) have an event trace" -- validate coll.yaml --set output.trace=steps

# Start-up: --help, --version and usage errors are answered before MPI starts,
# by the launcher's rank 0 only; a lone process runs as a light singleton.
version=$("$sipsim" --version)
quiet=$(OMPI_COMM_WORLD_RANK=1 "$sipsim" --version; OMPI_COMM_WORLD_RANK=1 "$sipsim" frob 2>&1)
code=$(OMPI_COMM_WORLD_RANK=1 "$sipsim" frob >/dev/null 2>&1; echo $?)
if [[ "$version" == "sipsim "* ]] && [ -z "$quiet" ] && [ "$code" = 2 ]; then
  passed=$((passed + 1))
else
  echo "FAIL start-up: version '$version', rank 1 printed '$quiet', exit $code"
  failures=$((failures + 1))
fi
both=$(mpirun --oversubscribe -n 2 "$sipsim" --version 2>&1 | grep -c '^sipsim ')
if [ "$both" = 1 ]; then passed=$((passed + 1)); else
  echo "FAIL start-up under mpirun: --version printed $both times"
  failures=$((failures + 1))
fi

echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
