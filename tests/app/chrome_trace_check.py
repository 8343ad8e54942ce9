"""Checks a Chrome trace event JSON file (JSON Object Format) against the
format's rules, with the json module only.

Usage: python3 chrome_trace_check.py FILE.json
Prints one JSON line: {"slices": N, "per_track": {"GPU 0": n, ...}}, where a
GPU's overlap lanes count towards "GPU n". Exits 1 naming the first problem.
"""
import json
import re
import sys
from collections import defaultdict


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    doc = json.load(f)
if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
    fail("not the JSON Object Format (no traceEvents list)")
if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
    fail("displayTimeUnit is %r" % doc.get("displayTimeUnit"))

names = {}              # (pid, tid) -> thread name
slices = defaultdict(list)  # (pid, tid) -> [(ts, end, index)] of X events
stacks = defaultdict(list)  # (pid, tid) -> open B events' ts
last_be = {}            # (pid, tid) -> last B/E ts
count = 0
for i, e in enumerate(doc["traceEvents"]):
    ph = e.get("ph")
    if not isinstance(ph, str) or not ph:
        fail("event %d has no ph" % i)
    if "pid" not in e:
        fail("event %d has no pid" % i)
    if ph == "M":  # metadata: no ts needed
        if e.get("name") not in ("process_name", "process_labels", "process_sort_index",
                                 "thread_name", "thread_sort_index"):
            fail("event %d: unknown metadata %r" % (i, e.get("name")))
        if e["name"].startswith("thread") and "tid" not in e:
            fail("event %d: thread metadata without tid" % i)
        if e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        continue
    for key in ("tid", "ts"):
        if key not in e:
            fail("event %d (ph %s) has no %s" % (i, ph, key))
    if not isinstance(e["ts"], (int, float)) or e["ts"] < 0:
        fail("event %d: bad ts %r" % (i, e["ts"]))
    track = (e["pid"], e["tid"])
    if ph == "X":
        if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
            fail("event %d: X without a dur >= 0" % i)
        if not e.get("name"):
            fail("event %d: slice without a name" % i)
        slices[track].append((e["ts"], e["ts"] + e["dur"], i))
        count += 1
    elif ph in ("B", "E"):
        if e["ts"] < last_be.get(track, 0):
            fail("event %d: ts goes back on track %r" % (i, track))
        last_be[track] = e["ts"]
        if ph == "B":
            stacks[track].append(e["ts"])
            count += 1
        elif not stacks[track]:
            fail("event %d: E without its B on track %r" % (i, track))
        else:
            stacks[track].pop()
    elif ph == "C":
        if not isinstance(e.get("args"), dict):
            fail("event %d: counter without args" % i)
    else:
        fail("event %d: unexpected ph %r" % (i, ph))
for track, stack in stacks.items():
    if stack:
        fail("track %r: %d B events without their E" % (track, len(stack)))

# X slices on one track nest properly (viewers drop ones that do not). The
# exact picosecond times are in args; compare those when present.
for track, items in slices.items():
    exact = []
    for ts, end, i in items:
        a = doc["traceEvents"][i].get("args", {})
        if "start_ps" in a:
            exact.append((a["start_ps"], a["end_ps"], i))
        else:
            exact.append((ts, end, i))
    exact.sort(key=lambda s: (s[0], -s[1], s[2]))
    open_ends = []
    for start, end, i in exact:
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        if open_ends and open_ends[-1] < end:
            fail("event %d overlaps its parent on track %r without nesting" % (i, track))
        open_ends.append(end)
    if track not in names:
        fail("track %r has no thread_name" % (track,))

per_track = defaultdict(int)
for track, items in slices.items():
    per_track[re.sub(r" \(.*\)$", "", names[track])] += len(items)
print(json.dumps({"slices": count, "per_track": dict(sorted(per_track.items()))}))
