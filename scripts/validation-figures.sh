#!/usr/bin/env bash
# Regenerates the figures of docs/validation.md from the studies in
# scenarios/studies/validation/: runs each study here (`sipsim sweep
# --local`), collects it (`sipsim collect`), plots it (`python -m
# sipsim.plot`) into $OUT/validation-<study>-*.png, and prints the numbers
# the document quotes. About 7 min on 2 quiet cores (ramp-baselines-1024: 95 s;
# ramp-table9-breakdown: 2 min, most of it CE 1.7 on the baselines;
# sipml-fig5: 2 min, most of it SiP-Ring at mp 16; sipml-table1: 1 min;
# sipac-fig4a: 4 s, 12 runs; sipac-fig4b: 21 s, 120 runs, two per point,
# whose times it adds; sipml-fig8: 16 s, 84 runs; sipml-fig9: 70-90 s, 60
# runs, most of it d = 1 and 3 us, which re-plan every 5 and 15 us; faults-1024:
# 11 s, 14 runs).
# Every run is fresh unless KEEP=1, which keeps a study's finished runs
# (`sweep` is restartable) to redraw its figures only.
# The other studies there make tables of docs/validation.md without a figure,
# and run only when FIGURES names them (scripts/validate-*.sh do):
# ramp-estimator-1024 (3 min), ramp-table9-large (about an hour),
# ramp-table9-simulate (about an hour), ramp-table9-topoopt-reconfigured (4 min),
# sipml-fig5-resnet50 (ResNet-50 at 64
# GPUs), sipml-fig5-256 and sipml-fig5-resnet50-256 (256 GPUs),
# sipml-fig5-1024, sipml-fig5-resnet50-1024, sipml-fig5-megatron-1024 and
# sipml-fig5-megatron-graph-1024
# (1,024 GPUs; an hour or more).
# Usage: [FIGURES="ramp-baselines-1024 ramp-table9-breakdown sipml-fig5 sipml-table1
#        sipac-fig4a sipac-fig4b sipml-fig8 sipml-fig9 faults-1024"] [OUT=docs/img]
#        [STUDIES=build/validation-studies] [KEEP=1] [CORES=n]
#        scripts/validation-figures.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
out=${OUT:-docs/img}
studies=${STUDIES:-build/validation-studies}
cores=${CORES:-$(nproc)}
read -r -a figures <<<"${FIGURES:-ramp-baselines-1024 ramp-table9-breakdown sipml-fig5 sipml-table1 sipac-fig4a sipac-fig4b sipml-fig8 sipml-fig9 faults-1024}"
python=${PYTHON:-/usr/bin/python3}  # Debian's, with h5py, pandas and matplotlib
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
mkdir -p "$out" "$studies"

# study NAME [LEVEL]: sweeps scenarios/studies/validation/NAME.yaml into
# $studies/NAME (as many runs at a time as the cores hold their ranks) and
# collects it (per run, or per LEVEL: collective, iteration).
study() {
  local name=$1 file=scenarios/studies/validation/$1.yaml dir=$studies/$1 ranks jobs
  ranks=$(awk '$1 == "ranks:" {print $2}' "$file")
  jobs=$((cores / ${ranks:-1} > 0 ? cores / ${ranks:-1} : 1))
  # Only a study directory is removed (its manifest says so), never what OUT names.
  if [ "${KEEP:-0}" != 1 ] && [ -f "$dir/manifest.csv" ]; then rm -rf "$dir"; fi
  echo "== $name: sweep --local -j $jobs" >&2
  "$sipsim" sweep "$file" -o "$dir" >/dev/null
  "$sipsim" sweep "$file" -o "$dir" --local -j "$jobs" >&2
  "$sipsim" collect "$dir" ${2:+--level "$2"} >&2
}
plot() { "$python" -m sipsim.plot "$@" >&2; }
# table DIR LEVEL EXPR: prints a pandas expression over the study's table `d`.
table() {
  "$python" - "$1" "$2" "$3" <<'EOF'
import sys
import pandas as pd
import sipsim
import sipsim.plot
pd.set_option("display.width", 200)
d = sipsim.study(sys.argv[1], level=sys.argv[2])
# The /breakdown categories (docs/output.md): exposed communication, and all of them.
comm = [c for c in ("tp-comm_s", "pp-comm_s", "dp-comm_s", "ep-comm_s", "collective_s")
        if c in d.columns]
cats = [c for c in d.columns if c[:-2] in sipsim.plot.CATEGORY_COLORS and c.endswith("_s")]
print(eval(sys.argv[3]).to_string())
EOF
}
# tables KIND DIR ARGS...: scripts/validation_tables.py's tables of a study.
tables() { "$python" scripts/validation_tables.py "$@"; }

for f in "${figures[@]}"; do
  dir=$studies/$f
  case $f in
    ramp-baselines-1024)
      study "$f" collective
      for op in all-reduce all-to-all; do
        plot busbw "$dir" --op "$op" -o "$out/validation-$f-$op-busbw.png" \
          --title "$op busbw at 1,024 nodes, simulated: RAMP against the baselines (best algorithm)"
      done
      plot completion "$dir" --sizes 1GiB --speedup-of "RAMP 12.8 Tb/s" \
        -o "$out/validation-$f-completion.png" \
        --title "1 GiB at 1,024 nodes, simulated (RAMP's speed-up over each fabric on its bar)"
      echo "# $f: time (ms) and busbw (GB/s) per fabric, collective and size"
      table "$dir" collective \
        'd.assign(time_ms=d.time_s * 1e3).pivot_table(index=["op", "bytes"], columns="label.fabric", values=["time_ms"], sort=False).round(4)'
      table "$dir" collective \
        'd[d.bytes == 2**30][["op", "label.fabric", "algorithm", "time_s", "busbw_GBps"]]'
      ;;
    ramp-table9-breakdown)
      study "$f"
      plot breakdown "$dir" -o "$out/validation-$f.png" \
        --title "RAMP Table 9, one Megatron iteration: compute and exposed communication (mean GPU)"
      echo "# $f: iteration (s), exposed communication share (mean GPU), the others' time / RAMP's"
      table "$dir" run \
        'd.assign(comm=lambda t: t[comm].sum(axis=1) / t[cats].sum(axis=1), speedup=lambda t: t.groupby("label.ce").iteration_s.transform(lambda s: s / s.iloc[0]))[["label.ce", "label.network", "iteration_s", "comm", "speedup", "wall_s"]].round(4)'
      echo "# $f: the same with the fabric's energy per iteration (J)"
      tables table9 "$dir"
      ;;
    ramp-table9-large | ramp-table9-simulate | ramp-table9-topoopt-reconfigured)
      # Table 9's rows beyond the figure (CE 1.5-1.0; CE 1.7 on the SuperPod under replay),
      # RAMP's CE 1.7 and 1.0 with every collective simulated, and CE 2.5-1.8 on TopoOpt
      # with its circuits reconfigured as RAMP §7.5 assumes.
      study "$f"
      echo "# $f: iteration (ms), exposed communication share (mean GPU), the network's time / RAMP's, fabric energy (J)"
      tables table9 "$dir"
      ;;
    faults-1024)
      # RAMP §3's claim against the SuperPod: the all-to-all with k failed
      # transceivers (RAMP) or top-tier switches (SuperPod), time and slowdown.
      study "$f"
      plot lines "$dir" --x label.failed --y coll_time_s --by label.fabric \
        -o "$out/validation-$f.png" \
        --title "All-to-all of 16 MiB at 1,024 nodes with k parts failed (RAMP: transceivers; SuperPod: top-tier switches)"
      echo "# $f: time (us) and its ratio to the healthy run, per fabric and failures"
      table "$dir" run \
        'd.assign(us=d.coll_time_s * 1e6, ratio=d.groupby("label.fabric").coll_time_s.transform(lambda s: s / s.iloc[0]))[["label.fabric", "label.failed", "us", "ratio"]].round(3)'
      ;;
    ramp-estimator-1024)
      # The simulated 1 GiB time of each fabric's best algorithm against the estimate of
      # `sipsim analyze` for that algorithm (RAMP §7.4.1).
      study "$f"
      echo "# $f: 1 GiB at 1,024 nodes, simulated against the critical-path estimate (us)"
      tables estimator "$dir" "$sipsim"
      ;;
    sipml-fig5)
      # SiP-ML §4.2 keeps the fastest strategy per case: --best min, the marker says its mp.
      study "$f"
      plot lines "$dir" --x label.gbps_per_gpu --best min --mark workload.mp --logx --logy \
        -o "$out/validation-$f.png" \
        --title "SiP-ML Fig. 5, Transformer, 64 GPUs, simulated: iteration time vs bandwidth per GPU
the fastest strategy mp x dp (dp = 64 / mp) per point"
      echo "# $f: the Transformer at 64 GPUs"
      tables fig5 "$dir"
      ;;
    sipml-fig5-resnet50 | sipml-fig5-256 | sipml-fig5-resnet50-256 | sipml-fig5-1024 | sipml-fig5-resnet50-1024 | sipml-fig5-megatron-graph-1024)
      # Fig. 5 for ResNet-50, and at 256 and 1,024 GPUs: tables only.
      study "$f"
      echo "# $f"
      tables fig5 "$dir"
      ;;
    sipml-fig5-megatron-1024)
      study "$f"
      echo "# $f: the strategy is tp x pp (label.strategy)"
      tables fig5 "$dir" --mark label.strategy
      ;;
    sipml-table1)
      # SiP-ML Table 1: the fastest strategy per case (--best min) as a speed-up over 32 GPUs at
      # 1 us (`lines --speedup-over 32@1`), with the paper's Table 1 drawn over it; and as times.
      study "$f"
      "$python" - "$dir" "$out/validation-$f.png" <<'EOF' >&2
import sys
from sipsim import plot
sys.path.insert(0, "scripts")
from validation_tables import SIPML_TABLE1  # the paper's Table 1
paper = {str(n): s for n, s in SIPML_TABLE1.items()}
fig = plot.lines(sys.argv[1], x="label.latency_us", best="min", mark="workload.mp", logx=True,
                 speedup_over="32@1", title="SiP-ML Table 1, Transformer, Elect-Flat at 10 Tb/s per GPU: "
                 "speed-up over 32 GPUs at 1 us\nsimulated, the fastest mp x dp (dp = N / mp) per "
                 "point (marker: its mp); thin, x: the paper's")
ax = fig.axes[0]
color = {line.get_label(): line.get_color() for line in ax.get_lines()}
for g, s in paper.items():
    ax.plot([1, 3, 10, 30, 100], s, color=color[g], linewidth=1.2, alpha=0.7, marker="x",
            markersize=13, markeredgewidth=3, label=f"_{g}, paper")
fig.savefig(sys.argv[2], dpi=plot.DPI)
print(f"wrote {sys.argv[2]}")
EOF
      plot lines "$dir" --x label.latency_us --best min --mark workload.mp --logx \
        -o "$out/validation-$f-time.png" \
        --title "SiP-ML Table 1, Transformer, Elect-Flat at 10 Tb/s per GPU: iteration time
simulated, 64 sequences at every scale, the fastest mp x dp (dp = N / mp) per point (marker: its mp)"
      echo "# $f: speed-up over 32 GPUs at 1 us (the fastest mp, its iteration time in ms) per GPUs and latency (us)"
      table "$dir" run \
        '(lambda t: t.assign(lat=t.x.astype(int), v=t.y.map("{:.2f}".format) + " (mp " + t["workload.mp"].astype(str) + ", " + t.iteration_s.mul(1e3).map("{:.2f}".format) + ")").pivot(index="group", columns="lat", values="v").loc[list(dict.fromkeys(t.group))])(sipsim.plot.lines_table(d, "label.latency_us", best="min", speedup_over="32@1")[0])'
      tables table1 "$dir"
      ;;
    sipac-fig4a)
      # Incast is `gather`: 1 MiB from each unit, the root's 512 MiB p-part buffer; the
      # all-to-all's 512 MiB send buffer is 1 MiB per pair. SiPAC's speed-up as the paper's.
      study "$f" collective
      plot completion "$dir" --speedup-of SiPAC -o "$out/validation-$f.png" \
        --title "SiPAC Fig. 4a, 512 units at 2048 Gb/s, 1 MiB per flow, simulated (best algorithm)
incast = gather (512 MiB: 1 MiB from each unit), broadcast 1 MiB, all-to-all (1 MiB per pair); SiPAC's speed-up over each bar"
      echo "# $f: time (us) per collective and fabric, and SiPAC's speed-up over each"
      table "$dir" collective \
        '(lambda p: p.join(p.drop(columns="SiPAC").div(p.SiPAC, axis=0).add_prefix("vs ")))(d.assign(time_us=d.time_s * 1e6).pivot_table(index="op", columns="label.fabric", values="time_us", sort=False)[list(dict.fromkeys(d["label.fabric"]))]).round(3)'
      table "$dir" collective \
        'd.assign(time_us=d.time_s * 1e6)[["op", "label.fabric", "algorithm", "time_us"]].round(3)'
      ;;
    sipac-fig4b)
      # The hybrid's time is the sum of its two runs (all-reduce, then all-to-all), as the
      # paper runs them one after the other: results-sum.csv holds one row per (units, B,
      # fabric), and hybrid-<units>.csv the rows of each figure.
      study "$f"
      "$python" - "$dir" <<'EOF' >&2
import os, sys
import pandas as pd
import sipsim
d = sipsim.study(sys.argv[1])
keys = ["label.units", "label.gbps_per_unit", "label.fabric"]
g = d.groupby(keys, sort=False)
s = g.agg(run=("run", "+".join), n=("run", "size"),
          status=("status", lambda v: "done" if (v == "done").all() else v[v != "done"].iloc[0]),
          time_s=("coll_time_s", lambda v: v.sum(min_count=len(v))),
          coll_algorithm=("coll_algorithm", lambda v: "/".join(v.fillna("-").astype(str))),
          events=("events", "sum"), wall_s=("wall_s", "sum")).reset_index()
assert (s.n == 2).all() and (g["label.op"].agg(tuple) == ("all-reduce", "all-to-all")).all()
s = s[["run"] + keys + ["status", "time_s", "coll_algorithm", "events", "wall_s"]]
s.to_csv(os.path.join(sys.argv[1], "results-sum.csv"), index=False)
for units, t in s.groupby("label.units"):
    t.to_csv(os.path.join(sys.argv[1], f"hybrid-{units}.csv"), index=False)
print(f"{sys.argv[1]}/results-sum.csv: {len(s)} sums of 2 runs")
EOF
      for units in 64 512; do
        plot lines "$dir/hybrid-$units.csv" --x label.gbps_per_unit --y time_s --by label.fabric \
          --logx --logy -o "$out/validation-$f-$units.png" \
          --title "SiPAC Fig. 4b, $units units, simulated: all-reduce + all-to-all of 100 MiB per unit (the sum of the two runs)
against the bandwidth per unit (every link scaled with it, but one SuperPod's 200 Gb/s NICs), best algorithm of each"
      done
      echo "# $f: all-reduce + all-to-all time (ms) per units, B (Gb/s per unit) and fabric"
      table "$dir/results-sum.csv" run \
        'd.assign(time_ms=d.time_s * 1e3).pivot_table(index=["label.units", "label.gbps_per_unit"], columns="label.fabric", values="time_ms", sort=False)[list(dict.fromkeys(d["label.fabric"]))].round(3)'
      table "$dir/results-sum.csv" run \
        'd.assign(time_us=d.time_s * 1e6)[["label.units", "label.gbps_per_unit", "label.fabric", "coll_algorithm", "time_us", "events", "wall_s"]].round(3)'
      ;;
    sipml-fig8)
      # The fastest strategy per (B, Q) as in fig5; Elect-Flat (no Q) at each B is the
      # paper's dashed line: --ref draws it as a horizontal line in that B's colour.
      study "$f"
      plot lines "$dir" --x fabric.switches --best min --mark workload.mp \
        --ref label.fabric=elect-flat -o "$out/validation-$f.png" \
        --title "SiP-ML Fig. 8, Transformer, 64 GPUs, simulated: iteration time vs OCSs Q, one-shot SiP-OCS
one line per B (Gb/s per GPU), Elect-Flat at that B dash-dot-dotted;
the fastest mp x dp (dp = 64 / mp) per point"
      tables strategies "$dir" fabric.switches label.gbps_per_gpu,workload.mp --where label.fabric=sip-ocs
      tables strategies "$dir" label.fabric label.gbps_per_gpu,workload.mp --where label.fabric=elect-flat
      echo "# $f: iteration time (ms) of the fastest strategy per B (Gb/s per GPU) and Q, its mp, and its time / Elect-Flat's at that B"
      table "$dir" run \
        '(lambda t, r: t.assign(v=t.y.mul(1e3).map("{:.2f}".format) + " (mp" + t["workload.mp"].astype(str) + ") " + (t.y / t.group.map(r.set_index("group").y)).map("{:.2f}x".format)).pivot(index="group", columns="x", values="v").rename(columns=lambda q: f"Q {q:g}").join((r.y.mul(1e3).map("{:.2f}".format) + " (mp" + r["workload.mp"].astype(str) + ")").set_axis(r.group).rename("Elect-Flat")).rename_axis("B"))(*(lambda p: (p[0], p[1]["ref"]))(sipsim.plot.lines_table(d, "fabric.switches", best="min", ref="label.fabric=elect-flat")))'
      ;;
    sipml-fig9)
      # The fastest strategy per (B, d) against d; the one-shot allocation (no d) at each B
      # as a horizontal line in that B's colour.
      study "$f"
      plot lines "$dir" --x fabric.reconfiguration_delay --best min --mark workload.mp --logx \
        --ref label.mode=one-shot -o "$out/validation-$f.png" \
        --title "SiP-ML Fig. 9, Transformer, 64 GPUs, simulated: iteration time vs reconfiguration delay d,
dynamic SiP-OCS (16 OCSs, re-planned every 5d), one line per B (Gb/s per GPU), one-shot at that B
dash-dot-dotted; the fastest mp x dp (dp = 64 / mp) per point"
      tables strategies "$dir" fabric.reconfiguration_delay label.gbps_per_gpu,workload.mp --where label.mode=dynamic
      tables strategies "$dir" label.mode label.gbps_per_gpu,workload.mp --where label.mode=one-shot
      echo "# $f: iteration time (ms) of the fastest strategy per d and B (Gb/s per GPU), its mp, and dynamic / one-shot"
      table "$dir" run \
        '(lambda t, r: pd.concat([t.assign(d=t["fabric.reconfiguration_delay"]), r.assign(d="one-shot")]).assign(v=lambda u: u.y.mul(1e3).map("{:.2f}".format) + " (mp" + u["workload.mp"].astype(str) + ") " + (u.y / u.group.map(r.set_index("group").y)).map("{:.3f}".format)).pivot(index="d", columns="group", values="v").rename_axis(columns="B").loc[list(dict.fromkeys(t["fabric.reconfiguration_delay"])) + ["one-shot"]])(*(lambda p: (p[0], p[1]["ref"]))(sipsim.plot.lines_table(d, "fabric.reconfiguration_delay", best="min", ref="label.mode=one-shot")))'
      ;;
    *) echo "unknown figure $f (ramp-baselines-1024, ramp-table9-breakdown, sipml-fig5, sipml-table1, sipac-fig4a, sipac-fig4b, sipml-fig8, sipml-fig9, faults-1024; tables only: ramp-estimator-1024, ramp-table9-large, ramp-table9-simulate, sipml-fig5-resnet50, sipml-fig5-256, sipml-fig5-resnet50-256, sipml-fig5-1024, sipml-fig5-resnet50-1024, sipml-fig5-megatron-1024, sipml-fig5-megatron-graph-1024)" >&2; exit 2 ;;
  esac
done
