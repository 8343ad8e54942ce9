#!/usr/bin/env bash
# cmake --install into a prefix, the prefix moved elsewhere, then from a
# folder outside the tree: the modulefile loaded with Lmod, the installed
# quickstart run by name, a study swept from the share directory, the Python
# package imported from the prefix (docs/install.md).
# Usage: install_test.sh BUILD_DIR. Exit 77 (skipped) where Lmod is absent,
# after the checks that need no Lmod.
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/first" > "$tmp/install.log" ||
  { cat "$tmp/install.log"; fail "cmake --install"; }
# The prefix moves as a whole: nothing in it names where it was installed.
mv "$tmp/first" "$tmp/prefix"
prefix=$tmp/prefix
version=$("$prefix/bin/sipsim" --version | awk '{print $2}')
for f in bin/sipsim share/sipsim/README.md share/sipsim/docs/install.md \
         share/sipsim/scenarios/quickstart.yaml share/sipsim/scenarios/studies \
         share/sipsim/python/sipsim/__init__.py share/sipsim/python/pyproject.toml \
         "share/modulefiles/sipsim/$version.lua"; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
if grep -rl "$tmp/first" "$prefix" > /dev/null; then fail "the prefix names its first location"; fi

mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere"
# Without the modulefile: the binary finds its share directory from its own path.
env -u SIPSIM_SHARE "$prefix/bin/sipsim" validate quickstart > /dev/null ||
  fail "the installed binary does not find the quickstart by name"
out=$(env -u SIPSIM_SHARE "$prefix/bin/sipsim" validate no-such-scenario 2>&1) && fail "no-such-scenario validated"
grep -qF "nor found in $prefix/share/sipsim/scenarios" <<< "$out" || fail "missing-file error: $out"

# The Python package installs from the prefix with pip, offline, into a venv
# that sees Debian's h5py and pandas (where python3-venv is there).
if /usr/bin/python3 -m venv --system-site-packages "$tmp/venv" > /dev/null 2>&1; then
  "$tmp/venv/bin/pip" install -q --no-build-isolation --no-deps "$prefix/share/sipsim/python" ||
    fail "pip install from the prefix"
  (cd "$tmp" && "$tmp/venv/bin/python" -c "import sipsim, sys; sys.exit(not sipsim.__file__.startswith('$tmp/venv/'))") ||
    fail "the pip-installed package is not the one imported"
fi

init=""
for candidate in /usr/share/lmod/lmod/init/bash /usr/share/lmod/*/init/bash; do
  [ -f "$candidate" ] && { init=$candidate; break; }
done
if [ -z "$init" ]; then
  echo "SKIP: no Lmod (apt-get install lmod); the install itself passed"
  exit 77
fi

# A login shell's view: Lmod, the modulefile, nothing of the build tree.
env -i HOME="$tmp" PATH=/usr/bin:/bin TMPDIR="$tmp" \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  bash -c '
set -euo pipefail
source "$1"
module use "$2/share/modulefiles"
module load sipsim
[ "$(command -v sipsim)" = "$2/bin/sipsim" ] || { echo "sipsim on PATH: $(command -v sipsim)"; exit 1; }
[ "$SIPSIM_SHARE" = "$2/share/sipsim" ] || { echo "SIPSIM_SHARE=$SIPSIM_SHARE"; exit 1; }
sipsim run quickstart -q
[ -f quickstart.h5 ] || { echo "no quickstart.h5 here"; exit 1; }
mpirun -n 2 --oversubscribe sipsim run scenarios/quickstart.yaml -o q2.h5 -q
/usr/bin/python3 -c "
import sipsim
assert sipsim.__file__.startswith(\"$2/share/sipsim/python/\"), sipsim.__file__
a, b = sipsim.open(\"quickstart.h5\"), sipsim.open(\"q2.h5\")
assert a.meta[\"end_time_ps\"] == b.meta[\"end_time_ps\"]
"
# A study from the share directory: its directory is made here.
sipsim sweep studies/ramp-vs-superpod-bw.yaml > /dev/null
[ -f ramp-vs-superpod-bw/manifest.csv ] || { echo "no study directory here"; ls; exit 1; }
# Named by its full path in the prefix, too (as the hint of sweep names it).
mkdir again && cd again
sipsim sweep "$SIPSIM_SHARE/scenarios/studies/ramp-vs-superpod-bw.yaml" > /dev/null
[ -f ramp-vs-superpod-bw/manifest.csv ] || { echo "the study directory went elsewhere"; exit 1; }
[ ! -e "$SIPSIM_SHARE/scenarios/studies/ramp-vs-superpod-bw" ] || { echo "written into the prefix"; exit 1; }
' _ "$init" "$prefix" || fail "the modulefile session"
echo "install: $prefix (version $version) works from another folder with the modulefile"
