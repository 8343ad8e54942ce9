"""Writes an HTML page that parses a Chrome trace JSON with the browser's own
JSON.parse and draws its X slices, one row per track (a quick look, not a
viewer), then reports "parsed events=... slices=... tracks=..." in #out.

Usage: python3 chrome_trace_page.py TRACE.json > page.html
"""
import sys

data = open(sys.argv[1], encoding="utf-8").read()
if "</" in data:
    sys.exit("the trace holds '</': it cannot be embedded in a script element")
print("""<!doctype html><html><head><meta charset="utf-8"></head>
<body style="margin:4px;font:11px sans-serif">
<pre id="out">not run</pre><canvas id="c" width="1200" height="10"></canvas>
<script type="application/json" id="trace">%s</script>
<script>
try {
  const t = JSON.parse(document.getElementById("trace").textContent);
  const ev = t.traceEvents;
  const names = {};
  for (const e of ev) if (e.ph === "M" && e.name === "thread_name") names[e.pid + ":" + e.tid] = e.args.name;
  const x = ev.filter(e => e.ph === "X");
  const tracks = [...new Set(x.map(e => e.pid + ":" + e.tid))].sort((a, b) => a.localeCompare(b, "en", {numeric: true}));
  const row = {}; tracks.forEach((k, i) => row[k] = i);
  const end = Math.max(...x.map(e => e.ts + e.dur));
  const c = document.getElementById("c"), h = 14, left = 110;
  c.height = tracks.length * h + 4;
  const g = c.getContext("2d"), colour = {};
  const palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];
  tracks.forEach((k, i) => { g.fillStyle = "#000"; g.fillText(names[k] || k, 2, i * h + 11); });
  for (const e of x) {
    if (!(e.name in colour)) colour[e.name] = palette[Object.keys(colour).length %% palette.length];
    g.fillStyle = colour[e.name];
    const x0 = left + (c.width - left) * e.ts / end;
    g.fillRect(x0, row[e.pid + ":" + e.tid] * h + 2, Math.max(1, (c.width - left) * e.dur / end), h - 3);
  }
  document.getElementById("out").textContent = "parsed events=" + ev.length + " slices=" +
      x.length + " tracks=" + tracks.length + " unit=" + t.displayTimeUnit;
} catch (err) {
  document.getElementById("out").textContent = "error " + err;
}
</script></body></html>""" % data)
