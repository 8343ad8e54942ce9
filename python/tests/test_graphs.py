"""The shipped op graphs are what scripts/gen-graphs.py writes, byte for byte."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_graphs_are_the_generators(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen-graphs.py"), str(tmp_path)],
                   check=True, capture_output=True)
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert written == ["megatron-18.4b.json", "resnet50.json", "transformer-350m.json"]
    for name in written:
        assert (tmp_path / name).read_bytes() == (ROOT / "scenarios" / "graphs" / name).read_bytes()
