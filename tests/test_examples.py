"""The examples folder works as its comments say: each scenario runs, each sweep plan is valid and
its scenario resolves, and the notebook's code cells run in order."""

import json
from pathlib import Path

import pytest

import ccsim
from ccsim.sweeps import parse_plan

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("path", sorted((EXAMPLES / "scenarios").glob("*.toml")), ids=lambda p: p.name)
def test_example_scenarios_run(path):
    s = ccsim.resolve(str(path))
    assert s["name"].startswith("examples/") and s["description"]
    r = ccsim.run(str(path), duration="2s" if s.get("router") else "100ms", measure_from="50ms")
    assert r.summary()["conservation_ok"] is True


def test_example_scenarios_show_what_their_comments_say():
    # The parking lot: max-min gives A, B and C about the same share, and ERICA gets close to it.
    r = ccsim.run(str(EXAMPLES / "scenarios" / "abr-parking-lot-vbr.toml"))
    assert r.fairness_index > 0.95
    # RED keeps the mean queue between its thresholds; drop-tail fills the buffer.
    red = ccsim.run(str(EXAMPLES / "scenarios" / "tcp-red-dumbbell.toml"), duration="30s", measure_from="10s").summary()
    tail = ccsim.run(str(EXAMPLES / "scenarios" / "tcp-red-dumbbell.toml"), duration="30s", measure_from="10s",
                     set={"router[0].queue": {"type": "drop_tail"}}).summary()
    q = {name: next(p for p in s["ports"] if p["name"] == "R1->R2")["mean_queue_packets"] for name, s in (("red", red), ("tail", tail))}
    assert 10 <= q["red"] <= 30 < q["tail"], q


@pytest.mark.parametrize("path", sorted((EXAMPLES / "sweeps").glob("*.toml")), ids=lambda p: p.name)
def test_example_sweep_plans_parse(path):
    plan = parse_plan(path)
    assert plan.replications >= 5 and plan.metrics
    ccsim.resolve(plan.scenario)  # a preset, or a file found relative to the plan


def test_notebook_cells_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    nb = json.loads((EXAMPLES / "notebook.ipynb").read_text())
    scope: dict = {}
    shown = None
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            code = "".join(cell["source"])
            exec(compile(code, "notebook.ipynb", "exec"), scope)
            shown = scope.get("r")
    assert "<b>abr-benchmarks/gfc1</b>" in shown._repr_html_() and "<table" in shown._repr_html_()
    import matplotlib.pyplot as plt

    plt.close("all")
