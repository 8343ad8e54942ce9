#!/usr/bin/env bash
# python -m sipsim.loadbalance on a 1,024-node RAMP-x all-to-all (x = J = 8,
# Lambda = 16): every rank's event load equals the mean at 16 and 64 ranks,
# because a group's wavelength arbiters are spread over its racks (with all of
# them in rack 0 the busiest rank carried 1.46x and 4.21x the mean). The
# partition comes from the run's recorded scenario and --set overrides, and
# the same from the scenario file and --set given again. Also checks `sipsim
# info --owners` (one rank per LP). PYTHON (default Debian's /usr/bin/python3,
# with h5py and pandas) runs the package of SOURCE_DIR/python.
# Usage: load_balance_test.sh SIPSIM SOURCE_DIR
set -euo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sets=(--set fabric.x=8 --set fabric.J=8 --set fabric.Lambda=16 --set workload.op=all-to-all
      --set workload.sizes.min=64KiB --set workload.sizes.max=64KiB --set workload.iterations=1
      --set workload.warmup=0)
scenario=$src/scenarios/ramp/small-ramp.yaml
"$sipsim" run "$scenario" "${sets[@]}" -o "$work/a2a.h5" -q > /dev/null
"$sipsim" info "$scenario" --ranks 3 --owners "$work/owners" "${sets[@]}"
[ "$(wc -l < "$work/owners")" = 1024 ] || { echo "FAIL: --owners wrote $(wc -l < "$work/owners") lines"; exit 1; }
[ "$(sort -u "$work/owners" | tr '\n' ' ')" = "0 1 2 " ] || { echo "FAIL: owners are not ranks 0..2"; exit 1; }
balance() { PYTHONPATH=$src/python "$python" -m sipsim.loadbalance "$work/a2a.h5" --ranks 16,64 --sipsim "$sipsim" "$@"; }
balance > "$work/balance"
cat "$work/balance"
ratios=$(awk '$1 ~ /^[0-9]+$/ {print $5}' "$work/balance" | tr '\n' ' ')
[ "$ratios" = "1.000 1.000 " ] || { echo "FAIL: max/mean $ratios, want 1.000 at 16 and 64 ranks"; exit 1; }
balance --scenario "$scenario" "${sets[@]}" > "$work/given"
cmp -s "$work/balance" "$work/given" || { echo "FAIL: the scenario given again gives another table"; cat "$work/given"; exit 1; }
echo "1 passed, 0 failed"
