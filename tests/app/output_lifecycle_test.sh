#!/usr/bin/env bash
# The run file's life cycle (docs/user-guide.md, "The output file"): for each
# way a run ends, the exit code, the message and exactly which files are left.
# Each case runs in a fresh directory; `left` lists what is there afterwards.
# Usage: output_lifecycle_test.sh SIPSIM SOURCE_DIR
set -uo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
# A lone run's Open MPI session directory goes under $TMPDIR; kill -9 leaves it.
export TMPDIR=$work/session
mkdir -p "$TMPDIR"
export LC_ALL=C OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
failures=0 passed=0

fail() {
  echo "FAIL $1: $2"
  failures=$((failures + 1))
}
pass() { passed=$((passed + 1)); }

# A fresh directory holding the small scenario s.yaml; cds into it.
fresh() {
  mkdir -p "$work/$1"
  cd "$work/$1" || exit 1
  printf 'simulation:\n  end_time: 100us\nworkload:\n  type: phold\n  lps: 16\n  lookahead: 1us\n' > s.yaml
}
# The directory's entries other than the scenario, sorted, on one line.
left() { ls -A | grep -v -x 's.yaml' | sort | tr '\n' ' ' | sed 's/ $//'; }

# expect NAME CODE MESSAGE FILES -- ARGS...: runs sipsim ARGS; its stderr must
# be MESSAGE (a glob pattern) and the directory must hold FILES (an extended
# regular expression over `left`).
expect() {
  local name=$1 code=$2 message=$3 files=$4
  shift 5
  local out rc
  out=$("$sipsim" "$@" 2>&1 >/dev/null)
  rc=$?
  check "$name" "$code" "$message" "$files" "$rc" "$out"
}

# check NAME CODE MESSAGE FILES RC OUTPUT
check() {
  local name=$1 code=$2 message=$3 files=$4 rc=$5 out=$6
  local ok=1
  if [ "$rc" != "$code" ]; then
    fail "$name" "exit $rc (want $code)"
    ok=0
  fi
  # shellcheck disable=SC2053 # a glob on purpose
  if [[ "$out" != $message ]]; then
    fail "$name" "message"
    echo "  got:  $out"
    echo "  want: $message"
    ok=0
  fi
  if ! [[ "$(left)" =~ ^${files}$ ]]; then
    fail "$name" "left '$(left)', want /^${files}$/"
    ok=0
  fi
  [ "$ok" = 1 ] && pass
}

# The lines sipsim printed (mpirun adds its own).
sipsim_lines() { grep '^sipsim:' "$1"; }

attr() { h5dump -a "/meta/$2" "$1" 2>/dev/null | awk -F': ' '/\(0\)/ {gsub(/"/, "", $2); print $2}'; }
# Sum of /lp/events: equal to committed_events in a complete file.
lp_sum() {
  h5dump -d /lp/events -y -w 0 "$1" 2>/dev/null | sed -n '/DATA {/,/}/p' | tr -c '0-9\n' ' ' |
    awk '{for (i = 1; i <= NF; i++) s += $i} END {print s + 0}'
}
# complete NAME FILE: FILE is a whole run file: it opens, and its per-LP
# events add up to its committed events.
complete() {
  local events sum
  events=$(attr "$2" committed_events)
  sum=$(lp_sum "$2")
  if [ -n "$events" ] && [ "$events" -gt 0 ] && [ "$events" = "$sum" ]; then
    pass
  else
    fail "$1" "'$2' is not a complete run file (committed_events '$events', /lp/events sum '$sum')"
  fi
}

# The name of the partial file of the run with pid $1 (a regular expression):
# out.h5.<host>.<pid>.<run id>.partial.
partial_re() { echo "out\\.h5\\.[A-Za-z0-9_-]+\\.$1\\.[0-9a-f]{16}\\.partial"; }
# wait_partial PID: waits until the run PID has created its partial file (at
# most 20 s) and prints its run id.
wait_partial() {
  local name
  for _ in $(seq 400); do
    name=$(ls -A | grep -E -x "$(partial_re "$1")" | head -1)
    if [ -n "$name" ]; then
      echo "$name" | sed -E 's/.*\.([0-9a-f]{16})\.partial$/\1/'
      return 0
    fi
    sleep 0.05
  done
  return 1
}

long="$src/scenarios/phold-16k.yaml"
long_args=(--set simulation.end_time=100s -q)

# --- Input problems: nothing written, an old file kept ------------------------

fresh empty-output
expect empty-output 2 "sipsim: error: empty output path" "" -- run s.yaml -o ''

fresh input-error
printf 'workload: [1, 2\n' > bad.yaml
echo old > out.h5
expect input-error-force 2 "sipsim: error: bad.yaml:2:1: end of sequence flow not found" \
  "bad.yaml out.h5" -- run bad.yaml -o out.h5 --force
[ "$(cat out.h5)" = old ] && pass || fail input-error-force "the old file changed"

fresh memory
expect memory-check 1 \
  "sipsim: error: not enough memory: 4294967295 LPs need at least *B on host * (1 rank), *B available" \
  "" -- run s.yaml -o out.h5 --set workload.lps=4294967295

# --- A model error: no file; with --force the old file is gone too ------------

fresh model-error
ramp=(run "$src/scenarios/ramp/incast-permissive.yaml" --set fabric.permissive=false -q -o out.h5)
model_message="sipsim: error: rank 0: LP 0 at t=100ns: optical rule (c) violated: *"
expect model-error 1 "$model_message" "" -- "${ramp[@]}"
echo old > out.h5
expect model-error-existing 2 \
  "sipsim: error: output 'out.h5' exists; pass --force to overwrite it or -o to choose another" \
  "out.h5" -- "${ramp[@]}"
expect model-error-force 1 "$model_message" "" -- "${ramp[@]}" --force

# --- --force replaces a regular file only ---------------------------------------

fresh force-kinds
refuse() {
  expect "force-$1" 2 "sipsim: error: output '$2' is $3; choose another path with -o" "$4" \
    -- run s.yaml -o "$2" --force
}
if mknod dev c 1 3 2>/dev/null; then
  refuse chardev dev "a character device, not a regular file" "dev"
  [ -c dev ] && pass || fail force-chardev "dev is no longer a character device"
  ln -s dev dev-link
  refuse chardev-link dev-link "a symbolic link to a character device, not a regular file" \
    "dev dev-link"
  rm -f dev dev-link
else
  echo "note: mknod not allowed; using /dev/null as the character device"
  refuse chardev /dev/null "a character device, not a regular file" ""
  ln -s /dev/null dev-link
  refuse chardev-link dev-link "a symbolic link to a character device, not a regular file" \
    "dev-link"
  rm -f dev-link
fi
[ -c /dev/null ] && pass || fail force-chardev "/dev/null is no longer a character device"
mkfifo fifo
refuse fifo fifo "a FIFO, not a regular file" "fifo"
ln -s fifo fifo-link
refuse fifo-link fifo-link "a symbolic link to a FIFO, not a regular file" "fifo fifo-link"
[ -p fifo ] && pass || fail force-fifo "fifo is no longer a FIFO"
rm -f fifo fifo-link
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock \
    2>/dev/null ||
  perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => $ARGV[0], Listen => 1) or die' sock \
    2>/dev/null; then
  refuse socket sock "a socket, not a regular file" "sock"
  ln -s sock sock-link
  refuse socket-link sock-link "a symbolic link to a socket, not a regular file" "sock sock-link"
  [ -S sock ] && pass || fail force-socket "sock is no longer a socket"
  rm -f sock sock-link
else
  echo "note: neither python3 nor perl can create a Unix socket here; socket cases skipped"
fi
mkdir dir
refuse dir dir "a directory, not a regular file" "dir"
ln -s dir dir-link
refuse dir-link dir-link "a symbolic link to a directory, not a regular file" "dir dir-link"
rm -rf dir dir-link
cp s.yaml s.orig
refuse scenario s.yaml "the scenario file" "s.orig"
ln -s s.yaml scenario-link
refuse scenario-link scenario-link "the scenario file 's.yaml' (the same file)" \
  "s.orig scenario-link"
ln s.yaml scenario-hard
refuse scenario-hard scenario-hard "the scenario file 's.yaml' (the same file)" \
  "s.orig scenario-hard scenario-link"
cmp -s s.yaml s.orig && pass || fail force-scenario "the scenario changed"
rm -f s.orig scenario-link scenario-hard
# A regular file, also through a symbolic link (the link is replaced, not its target).
echo old > old.h5
ln -s old.h5 out.h5
expect force-regular-link 0 "" "old.h5 out.h5" -- run s.yaml -o out.h5 --force -q
[ ! -L out.h5 ] && [ "$(cat old.h5)" = old ] && pass ||
  fail force-regular-link "the link's target was written"
complete force-regular-link out.h5

# --- kill -9: only the run's own partial file is left --------------------------

fresh kill9
"$sipsim" run "$long" -o out.h5 "${long_args[@]}" 2>/dev/null &
p=$!
pids+=("$p")
if wait_partial "$p" > /dev/null; then
  sleep 1
  kill -9 "$p"
  wait "$p" 2>/dev/null
  check kill9 137 "" "$(partial_re "$p")" 137 ""
else
  fail kill9 "no partial file appeared"
fi

# --- SIGTERM and SIGINT: a message, the code, no file (old one removed) --------

interrupt() {
  local name=$1 signal=$2 code=$3 want=$4 ranks=$5
  shift 5
  local p rc
  if [ "$ranks" = 1 ]; then
    "$sipsim" run "$long" -o out.h5 "${long_args[@]}" "$@" > /dev/null 2> "$work/err.txt" &
  else
    mpirun -n "$ranks" "$sipsim" run "$long" -o out.h5 "${long_args[@]}" "$@" > /dev/null 2> "$work/err.txt" &
  fi
  p=$!
  pids+=("$p")
  wait_partial '[0-9]+' > /dev/null || fail "$name" "no partial file appeared"
  sleep 1
  kill "-$signal" "$p"
  wait "$p"
  rc=$?
  # mpirun reports its own code; the ranks' is 128 + the signal.
  [ "$ranks" != 1 ] && [ "$rc" != 0 ] && rc=$code
  check "$name" "$code" \
    "sipsim: interrupted by $want at simulated time *s; no output written" "" "$rc" \
    "$(sipsim_lines "$work/err.txt")"
}
fresh signals
interrupt sigterm-1rank TERM 143 SIGTERM 1
interrupt sigint-1rank INT 130 SIGINT 1
echo old > out.h5
interrupt sigterm-1rank-force TERM 143 SIGTERM 1 --force
# mpirun passes SIGTERM on; for SIGINT it sends the ranks SIGTERM.
interrupt sigterm-2ranks TERM 143 SIGTERM 2
interrupt sigint-2ranks INT 143 SIGTERM 2

# --- Two runs on one output: one file, whole, from one run ---------------------

# race NAME [--force]: run a stops once its partial exists, run b starts and
# creates its own, then both finish; prints "rc_a rc_b id_a id_b".
race() {
  local a b ra rb ia ib
  "$sipsim" run "$src/scenarios/phold-4k.yaml" -o out.h5 -q --set seed=1 "$@" > a.out 2> a.err &
  a=$!
  pids+=("$a")
  ia=$(wait_partial "$a")
  kill -STOP "$a"
  "$sipsim" run "$src/scenarios/phold-4k.yaml" -o out.h5 -q --set seed=2 "$@" > b.out 2> b.err &
  b=$!
  pids+=("$b")
  ib=$(wait_partial "$b")
  kill -CONT "$a"
  wait "$a"
  ra=$?
  wait "$b"
  rb=$?
  echo "$ra $rb $ia $ib"
}

fresh race
read -r ra rb ia ib < <(race)
appeared="sipsim: error: output 'out.h5' appeared during the run (another run?); it was not replaced and this run's results were discarded (--force replaces it)"
if [ "$ra" = 0 ] && [ "$rb" = 1 ]; then
  winner=$ia seed=1 loser=b
elif [ "$ra" = 1 ] && [ "$rb" = 0 ]; then
  winner=$ib seed=2 loser=a
else
  winner="" seed="" loser=""
  fail race "exit codes $ra and $rb, want 0 and 1"
fi
if [ -n "$loser" ]; then
  check race-loser 1 "$appeared" "a.err a.out b.err b.out out.h5" 1 "$(cat "$loser.err")"
  [ "$(attr out.h5 run_id)" = "$winner" ] && [ "$(attr out.h5 seed)" = "$seed" ] && pass ||
    fail race "out.h5 is not the winner's (run_id $(attr out.h5 run_id), want $winner)"
  complete race out.h5
fi

fresh race-force
read -r ra rb ia ib < <(race --force)
check race-force "00" "" "a.err a.out b.err b.out out.h5" "$ra$rb" "$(cat a.err b.err)"
id=$(attr out.h5 run_id)
if { [ "$id" = "$ia" ] && [ "$(attr out.h5 seed)" = 1 ]; } ||
  { [ "$id" = "$ib" ] && [ "$(attr out.h5 seed)" = 2 ]; }; then
  pass
else
  fail race-force "out.h5 (run_id '$id', seed '$(attr out.h5 seed)') is neither run's ($ia, $ib)"
fi
complete race-force out.h5

# Lone runs side by side on one host (a job array packed on a node): each has
# a session directory of its own under $TMPDIR, so none prints Open MPI's
# "unable to open file for mmap" when another finishes, and none is left.
fresh concurrent
mkdir tmp
for round in 1 2; do
  lone=()
  for i in 1 2 3 4 5 6 7 8; do
    TMPDIR=$PWD/tmp "$sipsim" run s.yaml -o "out$i.h5" -q --force > "o$i" 2> "e$i" &
    lone+=($!)
  done
  codes=""
  for p in "${lone[@]}"; do
    wait "$p"
    codes+=$?
  done
  check "concurrent-$round" 00000000 "" "(e[1-8] ){8}(o[1-8] ){8}(out[1-8]\\.h5 ){8}tmp" "$codes" "$(cat e1 e2 e3 e4 e5 e6 e7 e8)"
  [ -z "$(ls -A tmp)" ] && pass || fail "concurrent-$round" "session directories left: $(ls -A tmp)"
done

echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
