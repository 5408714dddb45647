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


def _kernel_missing() -> str | None:
    """Why the notebook cannot run in a kernel here (the optional test tools are missing), or None."""
    import importlib.util

    missing = [m for m in ("nbclient", "nbformat", "ipykernel") if importlib.util.find_spec(m) is None]
    return f"needs {', '.join(missing)} (pip install 'ccsim[dev]')" if missing else None


@pytest.mark.skipif(_kernel_missing() is not None, reason=_kernel_missing() or "")
def test_notebook_runs_in_a_jupyter_kernel(tmp_path):
    """The shipped notebook, every cell in order, in a real IPython kernel (as Jupyter runs it):
    the summary shows as a table and the overview plot inline, once. Regression (issue #39):
    `import ccsim.plots` forced the Agg backend, so the plot cell showed nothing, and neither did
    the user's own pyplot figures after it (the cell appended here)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(EXAMPLES / "notebook.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0]);"))
    # The kernel is the interpreter running the tests (jupyter_client's native python3 kernel), in tmp_path.
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()

    def outputs(needle):
        cell = next(c for c in nb.cells if c.cell_type == "code" and needle in c.source)
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.outputs
        return cell.outputs

    def pngs(needle):
        return [o for o in outputs(needle) if "image/png" in o.get("data", {})]

    html = [o["data"]["text/html"] for o in outputs("r = ccsim.run(") if "text/html" in o.get("data", {})]
    assert html and "<b>abr-benchmarks/gfc1</b>" in html[0] and "<table" in html[0]
    assert len(pngs("plot_overview")) == 1
    assert len(pngs("plt.plot(")) == 1
    assert all(not pngs(c.source) for c in nb.cells if c.cell_type == "code" and "plot" not in c.source)
