"""The validation studies hold the runs the scripts/validate-*.sh programs used to make
(docs/validation.md): each study point, applied to its base scenario, is the scenario file the
program ran with its --set options, written out here from the programs' rules. Checked on the
study files (a point's keys apply in order, a map replacing the key's whole value, as `sipsim
sweep` applies them; docs/studies.md), and for two studies on what `sipsim sweep` expands."""

import copy
import subprocess

import pandas as pd
import pytest
import yaml

from conftest import ROOT, sipsim_binary

STUDIES = ROOT / "scenarios" / "studies" / "validation"
SIPML = ROOT / "scenarios" / "sipml"


def _load(path):
    return yaml.safe_load(path.read_text())


def _set(doc, key, value):
    *path, last = key.split(".")
    for k in path:
        doc = doc.setdefault(k, {})
    doc[last] = copy.deepcopy(value)


def _expand(study_file):
    """(the points' label dicts, the scenarios they make), as sweep applies a point."""
    study = _load(study_file)
    base = _load(study_file.parent / study["scenario"])
    labels, scenarios = [], []
    for point in study["points"]:
        doc = copy.deepcopy(base)
        for key, value in point.items():
            if not key.startswith("label."):
                _set(doc, key, value)
        doc.pop("name", None)
        labels.append({k[6:]: v for k, v in point.items() if k.startswith("label.")})
        scenarios.append(doc)
    return labels, scenarios


def _script(path, sets):
    """The scenario file `path` with `--set key=value` options, as `sipsim run` reads them."""
    doc = _load(path)
    for key, value in sets:
        _set(doc, key, yaml.safe_load(str(value)))
    doc.pop("name", None)
    return doc


# -- SiP-ML Fig. 5: the studies' loops over fabric, B and strategy ----------------

FABRICS = ["elect-flat", "elect-cluster-200", "elect-cluster-400", "sip-ocs", "sip-ring"]
BWS = [128, 256, 512, 1024, 2048, 4096, 8192]


def _bandwidth(fabric, b):
    """B Gb/s per GPU; SiP-Ring W = round(B / 25 Gb/s) at B / W each."""
    if fabric in ("elect-flat", "sip-ocs"):
        return [("fabric.bandwidth", f"{b}Gbps")]
    if fabric.startswith("elect-cluster"):
        return [("fabric.intra.bandwidth", f"{b}Gbps")]
    w = (b * 10 + 125) // 250
    return [("fabric.wavelengths", w), ("fabric.wavelength_rate", "%.0fbps" % (b * 1e9 / w))]


def _fig5_runs(model, gpus):
    per_gpu = {"transformer": 1, "resnet50": 32}
    for fabric in FABRICS:
        for b in BWS:
            if model == "megatron":
                for shape in ("8x2", "4x8", "8x4"):
                    tp, pp = map(int, shape.split("x"))
                    sets = [("fabric.nodes", gpus), ("workload.parallelism.tp", tp),
                            ("workload.parallelism.pp", pp),
                            ("workload.parallelism.dp", gpus // (tp * pp))]
                    if fabric == "sip-ring":
                        sets.append(("workload.mapping", "tp-pp-dp"))
                    yield ({"fabric": fabric, "gbps_per_gpu": b, "strategy": shape},
                           _script(SIPML / f"fig5-megatron-{fabric}.yaml",
                                   sets + _bandwidth(fabric, b)))
                continue
            for mp in (1, 2, 4, 8, 16):
                degree = max(min(mp, 16) if fabric.startswith("sip-") else mp, 2)
                sets = []
                if model == "resnet50":
                    sets += [("workload.graph", "../graphs/resnet50.json"),
                             ("workload.optimizer", "sgd")]
                sets += [("fabric.nodes", gpus), ("workload.global_batch", gpus * per_gpu[model]),
                         ("workload.mp", mp), ("workload.dp", gpus // mp),
                         ("workload.degree", degree)]
                yield ({"fabric": fabric, "gbps_per_gpu": b},
                       _script(SIPML / f"fig5-transformer-{fabric}.yaml",
                               sets + _bandwidth(fabric, b)))


@pytest.mark.parametrize("study,model,gpus", [
    ("sipml-fig5", "transformer", 64), ("sipml-fig5-resnet50", "resnet50", 64),
    ("sipml-fig5-256", "transformer", 256), ("sipml-fig5-resnet50-256", "resnet50", 256),
    ("sipml-fig5-1024", "transformer", 1024), ("sipml-fig5-resnet50-1024", "resnet50", 1024),
    ("sipml-fig5-megatron-1024", "megatron", 1024)])
def test_fig5_studies_are_the_scripts_runs(study, model, gpus):
    labels, scenarios = _expand(STUDIES / f"{study}.yaml")
    expected = list(_fig5_runs(model, gpus))
    assert len(scenarios) == len(expected) == (105 if model == "megatron" else 175)
    for i, (label, scenario) in enumerate(zip(labels, scenarios)):
        assert (label, scenario) == expected[i], f"{study} point {i}"


# -- RAMP Table 9: scripts/validate-ramp-table9.sh's rows --------------------------------------

TABLE9 = {  # CE: hidden, heads, layers, global batch, DP, MP (RAMP Table 9)
    "1.7": (8192, 128, 128, 16896, 256, 128), "1.5": (16384, 512, 132, 14080, 128, 512),
    "1.3": (32768, 2048, 160, 1024, 32, 2048), "1.2": (131072, 8192, 52, 64, 8, 8192),
    "1.0": (262144, 65536, 90, 4, 1, 65536)}
T9 = ROOT / "scenarios" / "validation" / "ramp-table9"


def _table9(ce, network, mode, *extra):
    h, a, l, batch, dp, mp = TABLE9[ce]
    return ({"ce": ce, "network": network, "collectives": mode},
            _script(T9 / f"{network.lower()}.yaml", [
                ("workload.model.hidden", h), ("workload.model.heads", a),
                ("workload.model.layers", l), ("workload.model.global_batch", batch),
                ("workload.model.micro_batch", batch // dp), ("workload.parallelism.tp", mp),
                ("workload.parallelism.dp", dp), ("workload.collectives", mode), *extra]))


def test_table9_large_and_simulate_are_the_scripts_rows():
    expected = [_table9("1.7", "RAMP", "replay"), _table9("1.7", "SuperPod", "replay")]
    for ce in ("1.5", "1.3", "1.2", "1.0"):
        expected.append(_table9(ce, "RAMP", "replay"))
        for network in ("SuperPod", "TopoOpt"):
            tp = [("workload.algorithms.tp", "hierarchical-ring")] if ce == "1.0" else []
            expected.append(_table9(ce, network, "replay-shapes", *tp))
    assert list(zip(*_expand(STUDIES / "ramp-table9-large.yaml"))) == expected
    assert list(zip(*_expand(STUDIES / "ramp-table9-simulate.yaml"))) == [
        _table9("1.7", "RAMP", "simulate"), _table9("1.0", "RAMP", "simulate")]


# -- scripts/validate-ramp.sh's runs -----------------------------------------------------------

ESTIMATOR = [("RAMP 12.8 Tb/s", "ramp-1024", "ramp-x"), ("SuperPod 1:12", "superpod-1024", "auto"),
             ("SuperPod 1:1", "superpod-1to1-1024", "auto"),
             ("2D torus 2.4 Tb/s", "torus2d-1024", "auto"),
             ("TopoOpt 1.6 Tb/s", "topoopt-1024", "ring")]


def _estimator_runs():
    for op in ("all-reduce", "all-to-all"):
        for label, name, algorithm in ESTIMATOR:
            yield ({"fabric": label}, _script(ROOT / "scenarios" / "validation" / f"{name}.yaml",
                                              [("workload.op", op),
                                               ("workload.algorithm", algorithm)]))


def test_ramp_estimator_is_the_scripts_runs():
    assert list(zip(*_expand(STUDIES / "ramp-estimator-1024.yaml"))) == list(_estimator_runs())


@pytest.mark.parametrize("study", ["ramp-estimator-1024", "ramp-table9-large"])
def test_sweep_expands_them_alike(tmp_path, study):
    """What `sipsim sweep` writes equals the points applied here (checked above against the
    scripts' runs)."""
    binary = sipsim_binary()
    if binary is None:
        pytest.skip("no sipsim binary: build it or set SIPSIM=path/to/sipsim")
    out = tmp_path / study
    subprocess.run([str(binary), "sweep", str(STUDIES / f"{study}.yaml"), "-o", str(out)],
                   check=True, capture_output=True)
    manifest = pd.read_csv(out / "manifest.csv", dtype=str)
    _, scenarios = _expand(STUDIES / f"{study}.yaml")
    assert len(manifest) == len(scenarios)
    for run, expected in zip(manifest["run"], scenarios):
        got = _load(out / "scenarios" / f"{run}.yaml")
        got.pop("name")
        assert got == expected, run
