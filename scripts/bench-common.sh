# Shared set-up of the bench-*.sh and validate-*.sh scripts (sourced, not run):
# the build directory ($1, default build/release), Open MPI's root override,
# a temporary directory removed on exit, and median().
cd "$(dirname "${BASH_SOURCE[1]}")/.."
build=${1:-build/release}
sipsim=$build/sipsim
[ -x "$sipsim" ] || { echo "no $sipsim: build first (cmake --preset release && cmake --build --preset release)" >&2; exit 1; }
# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# The figures of one `sipsim run` log ($1): its committed events into
# $tmp/events, engine wall and peak memory appended to $tmp/wall and $tmp/mem
# (one line per run, for median), its windows into $tmp/windows and
# iteration 0's period (training) into $tmp/iter.
run_figures() {
  awk '/committed events/ {print $3}' "$1" > "$tmp/events"
  awk '/wall time/ {print $3}' "$1" >> "$tmp/wall"
  awk '/^  peak memory/ {print $3}' "$1" >> "$tmp/mem"
  awk '/^  engine/ {sub(/^  engine +/, ""); print}' "$1" |
    sed -E 's/windowed, ([0-9]+) windows.*mean ([^)]+)\)/\1 (mean \2)/; s/windowed, ([0-9]+) windows of (.*)/\1 (\2)/' > "$tmp/windows"
  awk '$1 == "0" && NF >= 7 {print $2}' "$1" | head -1 > "$tmp/iter"
}
