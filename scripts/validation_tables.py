#!/usr/bin/env python3
"""The tables docs/validation.md quotes that scripts/validation-figures.sh does not print in one
pandas expression: each subcommand reads a collected study (sipsim collect) and prints them.

    validation_tables.py estimator DIR SIPSIM   simulated 1 GiB time against `sipsim analyze`
    validation_tables.py table9 DIR             RAMP Table 9's rows: iteration, communication
                                                share, RAMP's speed-up, fabric energy
    validation_tables.py table1 DIR             SiP-ML Table 1 against the paper, and per strategy
    validation_tables.py fig5 DIR [--mark COL]  SiP-ML Fig. 5: the fastest strategy per case, DP
                                                on Elect-Flat, the paper's claims, per strategy
    validation_tables.py strategies DIR ROWS COLS [--where COL=VALUE]
                                                every run's time (ms), one row per value of the
                                                columns ROWS, one column per value of COLS

Run from the tree with PYTHONPATH=python (validation-figures.sh does).
"""

import argparse
import os
import subprocess
import sys

import pandas as pd

import sipsim
import sipsim.plot

pd.set_option("display.width", 250)
pd.set_option("display.max_columns", 100)
pd.set_option("display.max_rows", 500)

# SiP-ML (paper 000) Table 1: speed-up over 32 GPUs at 1 us, at 1, 3, 10, 30, 100 us.
SIPML_TABLE1 = {32: [1.00, 0.99, 0.83, 0.73, 0.64], 128: [2.11, 2.10, 1.52, 1.36, 1.29],
                512: [4.27, 4.04, 3.03, 2.49, 2.03]}
# The /breakdown categories of exposed communication (docs/output.md).
COMM = ("tp-comm_s", "pp-comm_s", "dp-comm_s", "ep-comm_s", "collective_s")


def _run_file(d, run):
    return os.path.join(os.path.dirname(d.attrs["path"]), "runs", f"{run}.h5")


def _ms(s):
    return s.mul(1e3).map("{:.2f}".format)


# -- RAMP ---------------------------------------------------------------------------------------

def estimator(directory, binary):
    """Each run's 1 GiB time beside `sipsim analyze` of its scenario with the algorithm it used
    (RAMP §7.4.1's critical-path estimate), in us, and estimated / simulated."""
    d = sipsim.study(directory)
    rows = []
    for _, r in d.iterrows():
        est = float("nan")
        if r["status"] == "done":
            scenario = os.path.join(directory, "scenarios", f"{r['run']}.yaml")
            done = subprocess.run([binary, "analyze", scenario, "--set",
                                   f"workload.algorithm={r['coll_algorithm']}"],
                                  capture_output=True, text=True, check=True)
            times = [line.split()[3] for line in done.stdout.splitlines()
                     if line.split() and line.split()[0].isdigit()]
            assert len(times) == 1, done.stdout
            est = float(times[0])
        rows.append({"op": r["coll_op"], "fabric": r["label.fabric"],
                     "algorithm": r["coll_algorithm"], "simulated_us": r["coll_time_s"] * 1e6,
                     "estimated_us": est, "est/sim": est / (r["coll_time_s"] * 1e6)})
    t = pd.DataFrame(rows)
    print(t.to_string(index=False, formatters={
        "simulated_us": "{:.3f}".format, "estimated_us": "{:.3f}".format,
        "est/sim": "{:.3f}".format}))


def table9(directory):
    """One row per run: iteration (ms), exposed communication share of the mean GPU, RAMP's
    speed-up (the network's iteration / RAMP's at the same CE in the study), the fabric's
    energy per iteration (J, NaN without a figure: TopoOpt), engine wall (s)."""
    d = sipsim.study(directory)
    comm = [c for c in COMM if c in d.columns]
    cats = [c for c in d.columns if c[:-2] in sipsim.plot.CATEGORY_COLORS and c.endswith("_s")]
    mode = d["label.collectives"] if "label.collectives" in d.columns else "replay"
    d = d.assign(mode=mode)
    ramp = d[d["label.network"] == "RAMP"].set_index("label.ce")["iteration_s"]
    energy = [sipsim.open(_run_file(d, r)).iterations()["fabric_energy_j"].mean()
              if s == "done" else float("nan") for r, s in zip(d["run"], d["status"])]
    t = pd.DataFrame({
        "CE": d["label.ce"].map("{:.1f}".format), "network": d["label.network"],
        "collectives": d["mode"], "iteration_ms": d["iteration_s"] * 1e3,
        "comm": d[comm].sum(axis=1) / d[cats].sum(axis=1),
        "speedup": d["iteration_s"] / d["label.ce"].map(ramp.groupby(level=0).first()),
        "fabric_energy_j": energy, "wall_s": d["wall_s"]})
    print(t.to_string(index=False, formatters={
        "iteration_ms": "{:.6f}".format, "comm": "{:.3f}".format, "speedup": "{:.2f}x".format,
        "fabric_energy_j": "{:.6g}".format, "wall_s": "{:.1f}".format}))


# -- SiP-ML -------------------------------------------------------------------------------------

def table1(directory):
    """Ours against the paper's Table 1, and each row against its own 1 us; then every
    strategy's time."""
    d = sipsim.study(directory)
    t, _ = sipsim.plot.lines_table(d, "label.latency_us", best="min", speedup_over="32@1")
    lats = sorted(t["x"].unique())
    print("# speed-up vs 32 GPUs at 1 us: ours (the fastest mp) | paper | ours / paper")
    rows = {}
    for n, paper in SIPML_TABLE1.items():
        s = t[t["group"] == str(n)].set_index("x")
        rows[n] = [f"{s.y[x]:.2f}(mp{s['workload.mp'][x]})|{p:.2f}|{s.y[x] / p:.2f}"
                   for x, p in zip(lats, paper)]
    print(pd.DataFrame(rows, index=[f"{x:g}us" for x in lats]).T.rename_axis("GPUs").to_string())
    print("# each row against its own 1 us (ours | paper): the latency's cost at a fixed scale")
    rows = {}
    for n, paper in SIPML_TABLE1.items():
        s = t[t["group"] == str(n)].set_index("x")
        rows[n] = [f"{s.y[x] / s.y[lats[0]]:.3f}|{p / paper[0]:.3f}" for x, p in zip(lats, paper)]
    print(pd.DataFrame(rows, index=[f"{x:g}us" for x in lats]).T.rename_axis("GPUs").to_string())
    print("# iteration time (ms) per strategy")
    done = d[d["status"] == "done"]
    p = done.pivot_table(index=["label.gpus", "workload.mp"], columns="label.latency_us",
                         values="iteration_s", sort=False)
    print(p.mul(1e3).round(3).rename(columns=lambda x: f"{x:g}us").to_string())


def fig5(directory, mark):
    """The fastest strategy per (fabric, B), Elect-Flat's data parallelism (mp 1) beside it,
    the paper's claims as ratios, and every run's time."""
    d = sipsim.study(directory)
    t, _ = sipsim.plot.lines_table(d, "label.gbps_per_gpu", best="min", mark=mark)
    t = t.assign(B=t["x"].astype(int))
    fabrics = list(dict.fromkeys(t["group"]))
    short = "mp " if mark == "workload.mp" else ""
    best = t.assign(v=_ms(t["y"]) + " (" + short + t[mark].astype(str) + ")").pivot(
        index="B", columns="group", values="v")[fabrics]
    y = t.pivot(index="B", columns="group", values="y")
    if mark == "workload.mp":
        flat = d[(d["label.fabric"] == "elect-flat") & (d["workload.mp"] == 1)
                 & (d["status"] == "done")]
        best["flat DP"] = _ms(flat.set_index("label.gbps_per_gpu")["iteration_s"])
    dp = ", and Elect-Flat with data parallelism (mp 1)" if short else ""
    print(f"# iteration time (ms) of the fastest strategy per B (Gb/s per GPU) and fabric "
          f"({'mp' if short else mark}){dp}")
    print(best.to_string())
    print("# the paper's claims (§4.3): cluster/sip > 1: SiP faster than Elect-Cluster; "
          "sip/flat(B/2) <= 1: SiP at B at least as fast as Elect-Flat at B/2")
    claims = pd.DataFrame(index=y.index)
    for sip in ("sip-ocs", "sip-ring"):
        for c in ("elect-cluster-200", "elect-cluster-400"):
            claims[f"{c[6:]}/{sip[4:]}"] = (y[c] / y[sip]).map("{:.2f}x".format)
        claims[f"{sip[4:]}/flat"] = (y[sip] / y["elect-flat"]).map("{:.2f}".format)
        half = y["elect-flat"].reindex(y.index // 2).to_numpy()
        claims[f"{sip[4:]}/flat(B/2)"] = pd.Series(y[sip].to_numpy() / half, index=y.index).map(
            lambda v: "-" if pd.isna(v) else f"{v:.2f}")
    print(claims.to_string())
    strategies(directory, "label.fabric,label.gbps_per_gpu", mark, None)


# Short names of the columns that make the per-strategy tables' rows and columns.
SHORT = {"label.gbps_per_gpu": "B", "workload.mp": "mp", "fabric.switches": "Q",
         "fabric.reconfiguration_delay": "d", "label.strategy": "", "label.fabric": "",
         "label.mode": ""}


def strategies(directory, rows, columns, where):
    """Every done run's iteration time (ms): one row per value of the `rows` columns, one
    column per value of the `columns` columns (comma-separated; a column named B1024 mp2), in
    the study's order; with `where` COL=VALUE only those runs."""
    d = sipsim.study(directory)
    d = d[d["status"] == "done"]
    if where:
        col, _, value = where.partition("=")
        d = d[d[col].astype(str) == value]

    def text(v):
        return f"{v:g}" if isinstance(v, float) else str(v)

    def names(cols):
        return d[cols].apply(
            lambda v: " ".join(f"{SHORT.get(c, c)}{text(x)}" for c, x in zip(cols, v)), axis=1)

    t = d.assign(row=names(rows.split(",")), col=names(columns.split(",")))
    p = t.pivot_table(index="row", columns="col", values="iteration_s", sort=False)
    print(f"# iteration time (ms) of every run{f' with {where}' if where else ''}")
    print(p.mul(1e3).round(2).rename_axis(index=None, columns=None).to_string())


def main(argv=None):
    ap = argparse.ArgumentParser(prog="validation_tables.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("estimator")
    p.add_argument("dir")
    p.add_argument("sipsim")
    sub.add_parser("table9").add_argument("dir")
    sub.add_parser("table1").add_argument("dir")
    p = sub.add_parser("fig5")
    p.add_argument("dir")
    p.add_argument("--mark", default="workload.mp")
    p = sub.add_parser("strategies")
    p.add_argument("dir")
    p.add_argument("rows")
    p.add_argument("columns")
    p.add_argument("--where")
    a = ap.parse_args(argv)
    if a.what == "estimator":
        estimator(a.dir, a.sipsim)
    elif a.what == "table9":
        table9(a.dir)
    elif a.what == "table1":
        table1(a.dir)
    elif a.what == "fig5":
        fig5(a.dir, a.mark)
    else:
        strategies(a.dir, a.rows, a.columns, a.where)
    return 0


if __name__ == "__main__":
    sys.exit(main())
