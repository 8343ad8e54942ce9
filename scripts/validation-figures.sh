#!/usr/bin/env bash
# Regenerates the figures of docs/validation.md from the studies in
# scenarios/studies/validation/: runs each study here (`sipsim sweep
# --local`), collects it (`sipsim collect`), plots it (`python -m
# sipsim.plot`) into $OUT/validation-<study>-*.png, and prints the numbers
# the document quotes. ~5 minutes on 2 cores (ramp-baselines-1024: 95 s;
# ramp-table9-breakdown: 2 min, most of it CE 1.7 on the baselines;
# sipml-fig5: 2 min, most of it SiP-Ring at mp 16).
# sipml-fig8: 16 s (84 runs); sipml-fig9: 70-90 s (60 runs, most of it d = 1
# and 3 us, which re-plan every 5 and 15 us).
# Every run is fresh unless KEEP=1, which keeps a study's finished runs
# (`sweep` is restartable) to redraw its figures only.
# Usage: [FIGURES="ramp-baselines-1024 ramp-table9-breakdown sipml-fig5 sipml-fig8 sipml-fig9"] [OUT=docs/img]
#        [STUDIES=build/validation-studies] [KEEP=1] [CORES=n]
#        scripts/validation-figures.sh [build dir]   (default build/release)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
out=${OUT:-docs/img}
studies=${STUDIES:-build/validation-studies}
cores=${CORES:-$(nproc)}
read -r -a figures <<<"${FIGURES:-ramp-baselines-1024 ramp-table9-breakdown sipml-fig5 sipml-fig8 sipml-fig9}"
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
      ;;
    sipml-fig5)
      # SiP-ML §4.2 keeps the fastest strategy per case: --best min, the marker says its mp.
      study "$f"
      plot lines "$dir" --x label.gbps_per_gpu --best min --mark workload.mp --logx --logy \
        -o "$out/validation-$f.png" \
        --title "SiP-ML Fig. 5, Transformer, 64 GPUs, simulated: iteration time vs bandwidth per GPU
the fastest strategy mp x dp (dp = 64 / mp) per point, as scripts/validate-sipml-fig5.sh"
      echo "# $f: iteration time (ms) of the fastest strategy per fabric and B (Gb/s per GPU), and its mp"
      table "$dir" run \
        '(lambda t: t.assign(B=t.x.astype(int), v=t.y.mul(1e3).map("{:.2f}".format) + " (mp " + t["workload.mp"].astype(str) + ")").pivot(index="B", columns="group", values="v")[list(dict.fromkeys(t.group))])(sipsim.plot.lines_table(d, "label.gbps_per_gpu", best="min")[0])'
      ;;
    sipml-fig8)
      # The fastest strategy per (B, Q) as in fig5; Elect-Flat (no Q) at each B is the
      # paper's dashed line: --ref draws it as a horizontal line in that B's colour.
      study "$f"
      plot lines "$dir" --x fabric.switches --best min --mark workload.mp \
        --ref label.fabric=elect-flat -o "$out/validation-$f.png" \
        --title "SiP-ML Fig. 8, Transformer, 64 GPUs, simulated: iteration time vs OCSs Q, one-shot SiP-OCS
one line per B (Gb/s per GPU), Elect-Flat at that B dash-dot-dotted; the fastest mp x dp (dp = 64 / mp)
per point, as scripts/validate-sipml-fig8.sh"
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
dash-dot-dotted; the fastest mp x dp (dp = 64 / mp) per point, as scripts/validate-sipml-fig9.sh"
      echo "# $f: iteration time (ms) of the fastest strategy per d and B (Gb/s per GPU), its mp, and dynamic / one-shot"
      table "$dir" run \
        '(lambda t, r: pd.concat([t.assign(d=t["fabric.reconfiguration_delay"]), r.assign(d="one-shot")]).assign(v=lambda u: u.y.mul(1e3).map("{:.2f}".format) + " (mp" + u["workload.mp"].astype(str) + ") " + (u.y / u.group.map(r.set_index("group").y)).map("{:.3f}".format)).pivot(index="d", columns="group", values="v").rename_axis(columns="B").loc[list(dict.fromkeys(t["fabric.reconfiguration_delay"])) + ["one-shot"]])(*(lambda p: (p[0], p[1]["ref"]))(sipsim.plot.lines_table(d, "fabric.reconfiguration_delay", best="min", ref="label.mode=one-shot")))'
      ;;
    *) echo "unknown figure $f (ramp-baselines-1024, ramp-table9-breakdown, sipml-fig5, sipml-fig8, sipml-fig9)" >&2; exit 2 ;;
  esac
done
