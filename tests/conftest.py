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


def tree_paths(tree, prefix=()):
    """Every (path of keys and indices) in a JSON tree, tables and leaves."""
    out = [prefix] if prefix else []
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += tree_paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += tree_paths(v, prefix + (i,))
    return out


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
    """The summary every `ccsim reproduce PAPER --quick --json` prints (issue 36's contract), its
    report, its figures, and its compared.json: a list of rows under the one verdict model
    (ccsim/reproductions/verdicts.py) whose every quote is the seed's own text."""
    import json

    from ccsim.reproductions import verdicts

    assert doc["paper"] == paper and doc["mode"] == "quick" and doc["quick"] is True and doc["out"] == str(out)
    for key in ("agree", "counted", "statements_hold", "statements", "not_comparable", "wall_s", "report", "runs"):
        assert key in doc, key
    assert "paper_within_tolerance" not in doc
    assert doc["headline"].startswith(verdicts.QUICK_WARNING)
    assert (out / "index.html").exists() and (out / "compared.json").exists()
    rows = json.loads((out / "compared.json").read_text())
    assert isinstance(rows, list) and rows
    verdicts.check_rows(rows)
    assert verdicts.counts(rows, True) == {k: doc[k] for k in verdicts.counts(rows, True)}
    check_quotes_in_seed(rows, paper)
    for f in figures:
        assert (out / "figures" / f).exists(), f
    return rows


# The seeds, where this checkout has them beside it (CI and developers' machines do).
SEEDS = ROOT.parent / "shared" / "seeds"
SEED_OF = {"hgrcp": "000_", "gfr": "001_", "ficcrd": "002_", "abr-benchmarks": "003_", "ut-ct": "004_"}


def _words(text):
    import re

    # The seeds are PDF text: words split at line ends with a hyphen, runs of spaces and newlines.
    return re.sub(r"\s+", " ", re.sub(r"-\s*\n\s*", "", text)).strip()


def check_quotes_in_seed(rows, paper):
    """Every row's quote is in its seed, word for word (spacing and line-end hyphens aside; "…"
    marks words left out, each piece is then the seed's). Skipped, saying so, where the seeds are
    not beside the checkout."""
    seed = next(iter(SEEDS.glob(SEED_OF[paper] + "*.txt")), None) if SEEDS.is_dir() else None
    if seed is None:
        import warnings

        warnings.warn(f"the seeds are not at {SEEDS}: quotes not checked against the seed's text")
        return
    text = _words(seed.read_text(encoding="utf-8"))
    missing = [r["quote"] for r in rows
               if not all(_words(piece) in text for piece in r["quote"].split("…") if piece.strip())]
    assert not missing, f"{len(missing)} quotes are not the seed's words: {missing[:5]}"