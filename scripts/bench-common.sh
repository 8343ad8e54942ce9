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
