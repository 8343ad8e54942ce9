#!/usr/bin/env bash
# The exported Chrome trace in a real browser: headless Chromium (Debian
# `chromium`) loads a page that parses the JSON with JSON.parse and counts its
# events (chrome_trace_page.py). Skipped (exit 77) when chromium is absent.
# Usage: export_chromium_test.sh SIPSIM SOURCE_DIR
set -euo pipefail
sipsim=$(realpath "$1")
src=$(realpath "$2")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium on this machine (Debian: apt-get install chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$work"
"$sipsim" run "$src/tests/app/training-tiny.yaml" -o ops.h5 -q > /dev/null
"$sipsim" export --chrome-trace ops.h5 -o ops.json > /dev/null
python3 "$src/tests/app/chrome_trace_page.py" ops.json > page.html
expected=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["traceEvents"]
print("parsed events=%d slices=%d tracks=8 unit=ns" % (len(d), sum(e["ph"] == "X" for e in d)))' ops.json)
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
  --dump-dom "file://$work/page.html" > dom.html 2> browser.log || {
  echo "FAIL: chromium did not load the page"; tail -5 browser.log; exit 1; }
got=$(sed -n 's/.*<pre id="out">\([^<]*\)<.*/\1/p' dom.html)
if [ "$got" != "$expected" ]; then
  echo "FAIL: the page says '$got', expected '$expected'"
  exit 1
fi
echo "export_chromium: ok ($got)"
