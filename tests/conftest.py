import copy
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"

SMALL = {
    "name": "test/two",
    "run": {"duration": "20ms", "seed": 1},
    "defaults": {
        "link_rate": "155.52Mbps",
        "link_delay": "5us",
        "buffer": "1000cells",
        "algorithm": {"type": "erica", "target_utilization": 0.95},
        "abr": {"pcr": "155Mbps", "icr": "25Mbps", "mcr": "0Mbps", "rif": 1.0},
    },
    "switch": [{"name": "SW1"}, {"name": "SW2"}],
    "link": [{"name": "L1", "between": ["SW1", "SW2"]}],
    "source": [{"name": "S1", "route": ["SW1", "SW2"]}, {"name": "S2", "route": ["SW1", "SW2"]}],
}


@pytest.fixture
def small():
    """A small valid scenario dict (two sources, one bottleneck, 20 ms)."""
    return copy.deepcopy(SMALL)


@pytest.fixture
def cli():
    """Command prefix that runs the installed `ccsim` CLI."""
    exe = VENV_BIN / "ccsim"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "ccsim"]


@pytest.fixture
def env():
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    e["COLUMNS"] = "200"
    return e


@pytest.fixture
def synthetic():
    """A result dict with the documented keys (see tests/synthetic.py), fresh for each test."""
    from .synthetic import synthetic_result

    return synthetic_result()


def run_quick_reproduction(paper, tmp_path_factory):
    """`ccsim reproduce PAPER --quick --json` into a fresh directory: (out, the printed summary)."""
    import json
    import subprocess

    exe = VENV_BIN / "ccsim"
    cmd = [str(exe)] if exe.exists() else ["python", "-m", "ccsim"]
    out = tmp_path_factory.mktemp("reproduce") / paper
    p = subprocess.run(cmd + ["reproduce", paper, "--quick", "--json", "--out", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return out, json.loads(p.stdout)


def check_reproduction_contract(out, doc, paper, figures=()):
    """The summary every `ccsim reproduce PAPER --quick --json` prints, its report and its figures."""
    assert doc["paper"] == paper and doc["mode"] == "quick" and doc["out"] == str(out)
    for key in ("paper_numbers", "paper_within_tolerance", "wall_s", "report", "runs"):
        assert key in doc
    assert (out / "index.html").exists() and (out / "compared.json").exists()
    for f in figures:
        assert (out / "figures" / f).exists(), f
