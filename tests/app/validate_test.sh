#!/usr/bin/env bash
# `validate` makes every check `run` makes before its engine starts
# (docs/user-guide.md): for each scenario that `run` rejects, `validate`
# rejects it with the same message and exit code, and neither leaves a file.
# Most cases are fabric parameters that only the fabric's builder used to
# refuse (at the `fabric:` map, after `validate` had said "ok"): each error now
# names its key, or the --set argument that gave it.
# Usage: validate_test.sh SIPSIM
set -uo pipefail
sipsim=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
failures=0 passed=0

# same NAME MESSAGE -- ARGS...: `run ARGS` and `validate ARGS` both exit 2 with
# MESSAGE, and leave no file behind.
same() {
  local name=$1 message=$2
  shift 3
  local command out rc
  for command in run validate; do
    out=$("$sipsim" "$command" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" != 2 ] || [ "$out" != "$message" ]; then
      echo "FAIL $name ($command): exit $rc (want 2)"
      echo "  got:  $out"
      echo "  want: $message"
      failures=$((failures + 1))
    else
      passed=$((passed + 1))
    fi
  done
  if ls ./*.h5 ./*.partial >/dev/null 2>&1; then
    echo "FAIL $name: left an output file: $(ls ./*.h5 ./*.partial 2>/dev/null)"
    failures=$((failures + 1))
    rm -f ./*.h5 ./*.partial
  fi
}

coll='workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1MiB}'

# faults: a repair before the failure, two faults of one GPU at once, a fault
# past the end, a kind the fabric does not model.
cat > faults.yaml <<EOF
fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}
$coll
faults:
  - {kind: gpu-slowdown, target: {gpu: 3}, at: 2ms, until: 1ms, factor: 0.5}
  - {kind: gpu, target: {gpu: 3}, at: 2ms}
EOF
same faults-repair "sipsim: error: faults.yaml:4:60: faults[0].until: the repair must come after the failure (at 2ms)" -- faults.yaml
sed -i 's/until: 1ms/until: 3ms/' faults.yaml
same faults-overlap "sipsim: error: faults.yaml:5:5: faults[1]: overlaps fault 0 (gpu-slowdown of gpu 3 from 2ms): one fault per target at a time" -- faults.yaml
same faults-past-end "sipsim: error: faults.yaml:4:48: faults[0].at: is at or after simulation.end_time (1ms): the fault would never happen" -- faults.yaml --set simulation.end_time=1ms
same faults-kind "sipsim: error: --set faults=[{kind: switch, target: {gpu: 1}, at: 0s}]: faults[0].kind: faults of kind 'switch' are not modelled on this fabric (modelled here: gpu, gpu-slowdown, nic)" -- faults.yaml --set "faults=[{kind: switch, target: {gpu: 1}, at: 0s}]"

# cluster: the tiers' product, their oversubscription, their count; the preset's node count.
cat > cluster.yaml <<EOF
fabric:
  type: cluster
  nodes: 64
  intra: {bandwidth: 2.4Tbps}
  nic: {bandwidth: 200Gbps}
  tiers:
    - {down: 4, oversubscription: 2}
    - {down: 2}
$coll
EOF
same cluster-tiers-product "sipsim: error: cluster.yaml:7:5: fabric.tiers: the product of the tiers' down (4 x 2) must equal the number of nodes (64, one NIC per node)" -- cluster.yaml
same cluster-tiers-set "sipsim: error: --set fabric.tiers=[{down: 16}, {down: 8}]: fabric.tiers: the product of the tiers' down (16 x 8) must equal the number of nodes (64, one NIC per node)" -- cluster.yaml --set "fabric.tiers=[{down: 16}, {down: 8}]"
sed 's/oversubscription: 2/oversubscription: 3/' cluster.yaml > oversubscribed.yaml
same cluster-oversubscription "sipsim: error: oversubscribed.yaml:7:35: fabric.tiers[0].oversubscription: must divide down (4): each switch has down / oversubscription uplinks" -- oversubscribed.yaml
same cluster-top-oversubscription "sipsim: error: --set fabric.tiers=[{down: 8}, {down: 8, oversubscription: 2}]: fabric.tiers[1].oversubscription: must be 1 at the top tier, which has no uplinks (got 2)" -- cluster.yaml --set "fabric.tiers=[{down: 8}, {down: 8, oversubscription: 2}]"
same cluster-tier-count "sipsim: error: --set fabric.tiers=[{down: 2}, {down: 2}, {down: 2}, {down: 2}, {down: 2}, {down: 2}, {down: 1}, {down: 1}, {down: 1}]: fabric.tiers: has 9 tiers; at most 8" -- cluster.yaml --set "fabric.tiers=[{down: 2}, {down: 2}, {down: 2}, {down: 2}, {down: 2}, {down: 2}, {down: 1}, {down: 1}, {down: 1}]"
printf 'fabric: {type: cluster, preset: superpod, nodes: 100}\n%s\n' "$coll" > superpod.yaml
same superpod-nodes "sipsim: error: superpod.yaml:1:50: fabric.nodes: must be a multiple of the server size (8, the default server_size)" -- superpod.yaml
same superpod-server-size "sipsim: error: --set fabric.server_size=16: fabric.server_size: must divide the node count (100)" -- superpod.yaml --set fabric.server_size=16

# TopoOpt: the degree against the node count.
printf 'fabric: {type: topoopt, nodes: 64, degree: 3, link_bandwidth: 400Gbps, latency: 260ns}\n%s\n' "$coll" > topoopt.yaml
same topoopt-odd-degree "sipsim: error: topoopt.yaml:1:44: fabric.degree: must be even and at least 2 (got 3): a node's links form degree / 2 bidirectional rings" -- topoopt.yaml
same topoopt-degree-range "sipsim: error: --set fabric.degree=6: fabric.degree: degree 6 needs 3 ring offsets coprime with 6 in [1, 3], but only 1 exist (1); the largest degree for 6 nodes is 2" -- topoopt.yaml --set fabric.nodes=6 --set fabric.degree=6
printf 'fabric: {type: topoopt, nodes: 4, link_bandwidth: 400Gbps, latency: 260ns}\n%s\n' "$coll" > topoopt4.yaml
same topoopt-default-degree "sipsim: error: topoopt4.yaml:1:32: fabric.nodes: degree 4 needs 2 ring offsets coprime with 4 in [1, 2], but only 1 exist (1); the largest degree for 4 nodes is 2" -- topoopt4.yaml

# RAMP: a slot that carries no byte; more wavelengths than the source has.
printf 'fabric: {type: ramp, x: 4, J: 4, Lambda: 16, line_rate: 1bps}\n%s\n' "$coll" > ramp.yaml
same ramp-line-rate "sipsim: error: ramp.yaml:1:57: fabric.line_rate: a slot must carry at least one byte, but 19ns of data at 1bps is less than 8 bits" -- ramp.yaml
same ramp-slot-set "sipsim: error: --set fabric.slot=1001ps: fabric.slot: a slot must carry at least one byte, but 1ps of data at 400Gbps is less than 8 bits" -- ramp.yaml --set fabric.line_rate=400Gbps --set fabric.slot=1001ps
same ramp-lambda "sipsim: error: --set fabric.Lambda=128: fabric.Lambda: exceeds the 122 wavelength channels of the tunable source (RAMP §4.1)" -- ramp.yaml --set fabric.x=64 --set fabric.J=1 --set fabric.Lambda=128 --set fabric.line_rate=400Gbps

# torus2d: more nodes than the simulator addresses.
printf 'fabric: {type: torus2d, dims: [65536, 512], link_bandwidth: 600Gbps, hop_latency: 2ns}\n%s\n' "$coll" > torus.yaml
same torus-nodes "sipsim: error: torus.yaml:1:31: fabric.dims: 65536 x 512 = 33554432 nodes; at most 2^24 = 16777216" -- torus.yaml

# Silent acceptance: the progress interval, a size whose simulated time overflows.
printf 'simulation: {progress_interval: 0s}\nfabric: {type: elect-flat, nodes: 8, bandwidth: 400Gbps, latency: 1us}\n%s\n' "$coll" > flat.yaml
same progress-interval "sipsim: error: flat.yaml:1:33: simulation.progress_interval: must be greater than 0 (run -q silences the progress lines)" -- flat.yaml
same size-bound "sipsim: error: --set workload.size=16000PiB: workload.size: the sweep may need more simulated time than a run can reach (2^63 ps, about 106 days): at 16000PiB, 6 runs x 14 steps x 3.603e+08 s (the size over the fabric's slowest link, 400Gbps) exceed it; sizes up to about 5.49PB fit (docs/scenarios.md, \"Size bound\")" -- flat.yaml --set simulation.progress_interval=1s --set workload.size=16000PiB

# compute: rates that round to 0 bytes or FLOP per second.
same compute-memory "sipsim: error: --set compute.memory_bandwidth=7bps: compute.memory_bandwidth: must be at least 8bps (one byte per second)" -- flat.yaml --set simulation.progress_interval=1s --set compute.memory_bandwidth=7bps
same compute-flops "sipsim: error: --set compute.peak_tflops=1e-13: compute.peak_tflops: must be a number of TFLOP/s from 1e-12 (one FLOP/s) to 1e6" -- flat.yaml --set simulation.progress_interval=1s --set compute.peak_tflops=1e-13

# The engine's checks on several ranks: the sequential engine, a zero lookahead.
for command in run validate; do
  out=$(mpirun --oversubscribe -n 2 "$sipsim" "$command" flat.yaml --set simulation.progress_interval=1s --set simulation.engine=sequential 2>&1 >/dev/null | grep '^sipsim')
  want="sipsim: error: --set simulation.engine=sequential: simulation.engine: the sequential engine runs on one rank only, and this job has 2 ranks (use auto or windowed)"
  if [ "$out" = "$want" ]; then passed=$((passed + 1)); else
    echo "FAIL sequential-on-2-ranks ($command): '$out'"
    failures=$((failures + 1))
  fi
done
for command in run validate; do
  out=$(mpirun --oversubscribe -n 2 "$sipsim" "$command" flat.yaml --set simulation.progress_interval=1s --set fabric.latency=0s 2>&1 >/dev/null | grep '^sipsim')
  code=$(mpirun --oversubscribe -n 2 "$sipsim" "$command" flat.yaml --set simulation.progress_interval=1s --set fabric.latency=0s >/dev/null 2>&1; echo $?)
  if [ "$out" = "sipsim: error: the model's lookahead is 0: it cannot run in conservative windows (run it on one rank with the sequential engine)" ] && [ "$code" = 2 ]; then
    passed=$((passed + 1))
  else
    echo "FAIL zero-lookahead ($command): exit $code, '$out'"
    failures=$((failures + 1))
  fi
done
rm -f ./*.h5 ./*.partial

echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
