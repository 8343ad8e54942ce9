#!/usr/bin/env bash
# docs/studies.md's worked example, "Example: RAMP against the SuperPod fat-tree
# over node bandwidth", run as written: its shell blocks, in order, in a copy
# of the clone's scenarios and python folders with the binary where README.md
# builds it (build/release/sipsim). The figures it draws must exist.
# Usage: studies_walkthrough_test.sh SIPSIM SOURCE_DIR
set -euo pipefail
sipsim=$(realpath "$1")
root=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 -c 'import h5py, pandas, matplotlib' 2> /dev/null || {
  echo "SKIP: Debian's python3 lacks h5py, pandas or matplotlib (scripts/install-deps.sh)"
  exit 77
}
cp -r "$root/scenarios" "$root/python" "$work/"
rm -rf "$work/scenarios/studies/ramp-vs-superpod-bw"  # a study directory left in the clone
mkdir -p "$work/build/release"
ln -s "$sipsim" "$work/build/release/sipsim"

# The section's ```sh blocks, from its heading to the next "## ".
awk '/^## Example: RAMP against the SuperPod/ {on = 1; next}
     on && /^## / {exit}
     on && /^```sh$/ {block = 1; next}
     on && block && /^```$/ {block = 0; next}
     on && block {print}' "$root/docs/studies.md" > "$work/walkthrough.sh"
[ "$(grep -c . "$work/walkthrough.sh")" -ge 5 ] || fail "no walkthrough found in docs/studies.md"
cd "$work"
# Debian's python3 first, as the README's commands use it.
PATH=/usr/bin:/bin:$PATH bash -euo pipefail walkthrough.sh > walkthrough.log 2>&1 ||
  { cat walkthrough.log; fail "the walkthrough stopped"; }
for png in ramp-vs-superpod-bw.png busbw.png busbw-largest.png; do
  [ -s "$png" ] || { cat walkthrough.log; fail "$png not drawn"; }
done
echo "docs/studies.md's walkthrough ran as written: $(grep -c . walkthrough.sh) lines"
