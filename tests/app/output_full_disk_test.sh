#!/usr/bin/env bash
# A full disk (docs/user-guide.md, "The output file"): exit 1 with the
# system's message, no file left behind and no rank left waiting, whether the
# disk is full before the run or fills up while the run file is written, on
# 1, 2 and 3 ranks. Needs a 1 MiB tmpfs: exits 77 (skipped) where mounting is
# not allowed.
# Usage: output_full_disk_test.sh SIPSIM
set -uo pipefail
sipsim=$(realpath "$1")
work=$(mktemp -d)
disk="$work/disk"
mkdir "$disk"
if ! mount -t tmpfs -o size=1m sipsim-full-disk-test "$disk" 2>/dev/null; then
  echo "SKIP: mounting a tmpfs is not allowed here (needs root or CAP_SYS_ADMIN)"
  rm -rf "$work"
  exit 77
fi
trap 'umount "$disk"; rm -rf "$work"' EXIT
export LC_ALL=C OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$work" || exit 1
failures=0 passed=0
fail() {
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}

# PHOLD's run file holds 16 bytes per LP: 20,000 LPs fit in 1 MiB, 200,000 not.
printf 'simulation:\n  end_time: 2us\nworkload:\n  type: phold\n  lps: 20000\n  lookahead: 1us\n' > s.yaml

# run NAME RANKS CODE MESSAGE FILES -- ARGS: sipsim ARGS on RANKS ranks (at
# most 120 s: a rank left waiting is a failure); its stderr lines must match
# the glob MESSAGE and the disk must hold exactly FILES.
run() {
  local name=$1 ranks=$2 code=$3 message=$4 files=$5
  shift 6
  local rc out
  timeout 120 mpirun -n "$ranks" "$sipsim" "$@" > /dev/null 2> err.txt
  rc=$?
  out=$(grep '^sipsim:' err.txt)
  local ok=1
  [ "$rc" = 124 ] && { fail "$name" "still running after 120 s"; ok=0; }
  [ "$rc" != 124 ] && [ "$rc" != "$code" ] && { fail "$name" "exit $rc (want $code)"; ok=0; }
  # shellcheck disable=SC2053 # a glob on purpose
  if [[ "$out" != $message ]]; then
    fail "$name" "message"
    echo "  got:  $out"
    echo "  want: $message"
    ok=0
  fi
  local have
  have=$(ls -A "$disk" | sort | tr '\n' ' ' | sed 's/ $//')
  [ "$have" != "$files" ] && { fail "$name" "disk holds '$have', want '$files'"; ok=0; }
  [ "$ok" = 1 ] && passed=$((passed + 1))
}

for n in 1 2 3; do
  # The disk fills up while the run file is written.
  run "fits-$n" "$n" 0 "" "out.h5" -- run s.yaml -q -o "$disk/out.h5"
  rm -f "$disk/out.h5"
  run "fills-$n" "$n" 1 "sipsim: error: writing '$disk/out.h5': *No space left on device*" "" \
    -- run s.yaml -q -o "$disk/out.h5" --set workload.lps=200000

  # The disk is full before the run: refused before anything is written, so
  # an old file is kept even with --force.
  echo old > "$disk/out.h5"
  dd if=/dev/zero of="$disk/fill" bs=4k > /dev/null 2>&1
  run "full-$n" "$n" 1 \
    "sipsim: error: cannot write output '$disk/out.h5': No space left on device (0B free in '$disk')" \
    "fill out.h5" -- run s.yaml -q -o "$disk/out.h5" --force
  [ "$(cat "$disk/out.h5")" = old ] || fail "full-$n" "the old file changed"
  rm -f "$disk/fill" "$disk/out.h5"
done

echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
