"""scripts/validation-figures.sh sipac-fig4a and sipac-fig4b (docs/validation.md, "SiPAC
collectives"): the studies expand to scripts/validate-sipac.sh's runs, and the cases draw and
print the section's numbers (Fig. 4b: the sum of each point's two runs). ~1 min on 2 cores."""

import os
import subprocess

import pandas as pd
import pytest
import yaml

from conftest import ROOT, sipsim_binary

import sipsim

STUDIES = ROOT / "scenarios" / "studies" / "validation"
FILE = {"SiPAC": "sipac", "SuperPod": "superpod", "2D torus": "torus2d", "BCube": "bcube"}
# Fig. 4b's fifth fabric: the SuperPod whose NICs stay at 200 Gb/s.
FIXED_NIC = "SuperPod, NIC 200 Gb/s"


def _binary():
    binary = sipsim_binary()
    if binary is None:
        pytest.skip("no sipsim binary: build it or set SIPSIM=path/to/sipsim")
    return binary


def _set(doc, key, value):
    *path, last = key.split(".")
    for k in path:
        doc = doc[k]
    doc[last] = value


def _script_scenario(row):
    """The scenario validate-sipac.sh runs for a manifest row: the fabric's file, its --set."""
    fabric = "superpod" if row["label.fabric"] == FIXED_NIC else FILE[row["label.fabric"]]
    doc = yaml.safe_load((ROOT / "scenarios" / "sipac" /
                          f"{fabric}-{row.get('label.units', 512)}.yaml").read_text())
    if "label.gbps_per_unit" in row:  # fig4b's link scaling, in integer Mb/s as the script's
        gbps = int(row["label.gbps_per_unit"])
        mbps = gbps * 1000
        keys = {"sipac": {"fabric.bandwidth": f"{gbps}Gbps"},
                "bcube": {"fabric.link_bandwidth": f"{(mbps + 1) // 3}Mbps"},
                "torus2d": {"fabric.link_bandwidth": f"{mbps // 4}Mbps"},
                "superpod": {"fabric.intra.bandwidth": f"{(mbps * 12 + 6) // 13}Mbps",
                             "fabric.nic.bandwidth": f"{(mbps + 6) // 13}Mbps"}}
        if row["label.fabric"] == FIXED_NIC:
            keys["superpod"]["fabric.nic.bandwidth"] = "200Gbps"
        for k, v in keys[fabric].items():
            _set(doc, k, v)
    _set(doc, "workload.op", row["workload.op"])
    _set(doc, "workload.size", row["workload.size"])
    return doc


@pytest.mark.parametrize("name,runs", [("sipac-fig4a", 12), ("sipac-fig4b", 120)])
def test_the_studies_are_the_validate_scripts_runs(tmp_path, name, runs):
    out = tmp_path / name
    subprocess.run([str(_binary()), "sweep", str(STUDIES / f"{name}.yaml"), "-o", str(out)],
                   check=True, capture_output=True)
    manifest = pd.read_csv(out / "manifest.csv", dtype=str)
    assert len(manifest) == runs
    for _, row in manifest.iterrows():
        got = yaml.safe_load((out / "scenarios" / f"{row['run']}.yaml").read_text())
        got.pop("name")
        assert got == _script_scenario(row.dropna().to_dict()), row["run"]
    if name == "sipac-fig4b":  # two runs per point, all-reduce then all-to-all
        assert list(manifest["workload.op"]) == ["all-reduce", "all-to-all"] * (runs // 2)


def _script(tmp_path, figure):
    e = dict(os.environ, OUT=str(tmp_path / "img"), STUDIES=str(tmp_path / "studies"),
             FIGURES=figure, PYTHON="/usr/bin/python3")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "validation-figures.sh"),
                           str(_binary().parent)], capture_output=True, text=True, env=e,
                          timeout=900)
    assert done.returncode == 0, f"validation-figures.sh failed:\n{done.stdout}\n{done.stderr}"
    return done


def _png(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000


def test_fig4a_draws_and_prints_the_sections_times(tmp_path):
    done = _script(tmp_path, "sipac-fig4a")
    _png(tmp_path / "img" / "validation-sipac-fig4a.png")
    study = sipsim.study(tmp_path / "studies" / "sipac-fig4a", level="collective")
    assert len(study) == 12 and list(study["label.fabric"].unique()) == list(FILE)
    # docs/validation.md's Fig. 4a table, in us: the SuperPod incast and SiPAC's all-to-all.
    assert done.stdout.count("26759.068") == 2 and done.stdout.count("13246.594") == 2
    assert "4.861" in done.stdout  # SiPAC's speed-up over the SuperPod incast


def test_fig4b_adds_each_points_two_runs(tmp_path):
    done = _script(tmp_path, "sipac-fig4b")
    for units in (64, 512):
        _png(tmp_path / "img" / f"validation-sipac-fig4b-{units}.png")
    d = tmp_path / "studies" / "sipac-fig4b"
    runs = sipsim.study(d)
    sums = sipsim.study(d / "results-sum.csv")
    assert len(sums) == 60 and (sums["status"] == "done").all()
    keys = ["label.units", "label.gbps_per_unit", "label.fabric"]
    expect = runs.groupby(keys, sort=False)["coll_time_s"].sum().reset_index()
    assert list(sums["time_s"]) == pytest.approx(list(expect["coll_time_s"]), rel=1e-12)
    assert list(sums["run"]) == [f"{a}+{b}" for a, b in zip(runs["run"][::2], runs["run"][1::2])]
    # docs/validation.md's Fig. 4b table, ms: 64 units at 128 Gb/s, SiPAC; 512 at 4096, BCube
    # and the SuperPod whose NICs stay at 200 Gb/s.
    def row(units, gbps, fabric):
        return sums[(sums["label.units"] == units) & (sums["label.gbps_per_unit"] == gbps)
                    & (sums["label.fabric"] == fabric)].iloc[0]
    assert row(64, 128, "SiPAC")["time_s"] * 1e3 == pytest.approx(40.662, abs=5e-4)
    assert row(64, 128, "SiPAC")["coll_algorithm"] == "multicast-tree/direct-concurrent"
    assert row(512, 4096, "BCube")["time_s"] * 1e3 == pytest.approx(1.489, abs=5e-4)
    assert row(512, 4096, FIXED_NIC)["time_s"] * 1e3 == pytest.approx(8.016, abs=5e-4)
    assert "40.662" in done.stdout and "1.489" in done.stdout and "8.016" in done.stdout
    # The two halves of each figure: its own units only.
    for units in (64, 512):
        half = pd.read_csv(d / f"hybrid-{units}.csv")
        assert len(half) == 30 and (half["label.units"] == units).all()
