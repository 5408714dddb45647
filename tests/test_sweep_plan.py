"""Sweep plans: expansion (product, zip, ranges), seeds, metric names, validation errors that
name the plan field."""

import pytest

from ccsim import ScenarioError
from ccsim.sweeps import PlanError, parse_metric, parse_plan

BASE = {"scenario": "abr-benchmarks/two-sources", "metrics": ["fairness_index"]}


def plan(**kw):
    return parse_plan({**BASE, **kw})


def test_product_first_axis_slowest():
    p = plan(axis=[{"path": "defaults.buffer", "values": [100, 200]},
                   {"path": "link[0].rate", "values": ["50Mbps", "100Mbps", "150Mbps"]}])
    pts = p.points()
    assert len(pts) == 6
    assert pts[0] == {"defaults.buffer": 100, "link[0].rate": "50Mbps"}
    assert pts[1] == {"defaults.buffer": 100, "link[0].rate": "100Mbps"}
    assert pts[3] == {"defaults.buffer": 200, "link[0].rate": "50Mbps"}


def test_zip_axes_vary_together():
    p = plan(axis=[{"path": "defaults.buffer", "values": [100, 200, 300], "zip": "g"},
                   {"path": "run.duration", "values": ["10ms", "20ms", "30ms"], "zip": "g"},
                   {"path": "defaults.link_delay", "values": ["5us", "1ms"]}])
    pts = p.points()
    assert len(pts) == 6
    assert [(q["defaults.buffer"], q["run.duration"]) for q in pts[::2]] == [(100, "10ms"), (200, "20ms"), (300, "30ms")]


def test_ranges_step_num_and_units():
    p = plan(axis=[{"path": "source[0].count", "range": {"start": 5, "stop": 30, "step": 5}}])
    assert [q["source[0].count"] for q in p.points()] == [5, 10, 15, 20, 25, 30]
    p = plan(axis=[{"path": "defaults.algorithm.target_utilization", "range": {"start": 0.8, "stop": 1.0, "num": 5}}])
    assert [q["defaults.algorithm.target_utilization"] for q in p.points()] == pytest.approx([0.8, 0.85, 0.9, 0.95, 1.0])
    p = plan(axis=[{"path": "defaults.link_delay", "range": {"start": 1, "stop": 2, "step": 0.5}, "unit": "ms"}])
    assert [p.overrides(q)["defaults.link_delay"] for q in p.points()] == ["1ms", "1.5ms", "2ms"]
    p = plan(axis=[{"path": "source[0].count", "range": {"start": 30, "stop": 10, "step": -10}}])
    assert [q["source[0].count"] for q in p.points()] == [30, 20, 10]


def test_no_axes_is_one_point_and_toml_text(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text('scenario = "abr-benchmarks/two-sources"\nmetrics = ["fairness_index"]\nreplications = 3\n')
    p = parse_plan(f)
    assert p.points() == [{}] and p.replications == 3 and p.name == "p"


def test_relative_scenario_file(tmp_path):
    (tmp_path / "s.toml").write_text("x = 1\n")
    (tmp_path / "p.toml").write_text('scenario = "s.toml"\nmetrics = ["events"]\n')
    assert parse_plan(tmp_path / "p.toml").scenario == str(tmp_path / "s.toml")


def test_seeds_depend_on_point_and_replication_only():
    a = plan(seed=7, axis=[{"path": "defaults.buffer", "values": [100, 200]}])
    b = plan(seed=7, axis=[{"path": "defaults.buffer", "values": [50, 200, 400]}])
    pt = {"defaults.buffer": 200}
    assert a.run_seed(pt, 0) == b.run_seed(pt, 0)
    assert a.run_seed(pt, 0) != a.run_seed(pt, 1)
    assert a.run_seed(pt, 0) != plan(seed=8).run_seed(pt, 0)
    assert 0 <= a.run_seed(pt, 3) < 2**63


def test_identity_ignores_replications():
    assert plan(replications=2).identity() == plan(replications=5).identity()
    assert plan(seed=2).identity() != plan(seed=3).identity()


@pytest.mark.parametrize(
    "change, field",
    [
        ({"scenario": None}, "scenario:"),
        ({"scenario": "no/such-preset"}, "scenario:"),
        ({"replications": 0}, "replications:"),
        ({"seed": -1}, "seed:"),
        ({"metrics": []}, "metrics:"),
        ({"metrics": ["fairness"]}, "metrics[0]:"),
        ({"metrics": ["fairness_index", "sources.acr_mbps"]}, "metrics[1]:"),
        ({"metrics": ["mean(sources.nope)"]}, "metrics[0]:"),
        ({"metrics": ["median(sources.acr_mbps)"]}, "metrics[0]:"),
        ({"metrics": ["series.bogus[S1]"]}, "metrics[0]:"),
        ({"axis": [{"values": [1]}]}, "axis[0].path:"),
        ({"axis": [{"path": "a", "values": []}]}, "axis[0].values:"),
        ({"axis": [{"path": "a", "values": [1], "range": {"start": 1, "stop": 2, "step": 1}}]}, "axis[0]:"),
        ({"axis": [{"path": "a", "range": {"start": 1, "stop": 2, "step": -1}}]}, "axis[0].range.step:"),
        ({"axis": [{"path": "a", "range": {"start": 1, "step": 1}}]}, "axis[0].range.stop:"),
        ({"axis": [{"path": "a", "range": {"start": 1, "stop": 3, "num": 0}}]}, "axis[0].range.num:"),
        ({"axis": [{"path": "a", "values": [1], "colour": 1}]}, "axis[0].colour:"),
        ({"axis": [{"path": "a", "values": [1]}, {"path": "a", "values": [2]}]}, "axis[1].path:"),
        ({"axis": [{"path": "a", "values": [1, 2], "zip": "z"}, {"path": "b", "values": [1], "zip": "z"}]}, "axis[1].zip:"),
        ({"axis": [{"path": "a", "values": ["x"], "unit": "ms"}]}, "axis[0].values[0]:"),
        ({"stop": {"metric": "fairness_index"}}, "stop.metric:"),
        ({"stop": {"metric": "series.queue[SW1->SW2]", "precision": 2}}, "stop.precision:"),
        ({"replicas": 3}, "replicas:"),
        ({"replications": True}, "replications: must be a valid integer, got True"),
        ({"axis": {"path": "a", "values": [1], "colour": 1}}, "axis[0].colour: unknown field (allowed: path, range, unit, values, zip)"),
        ({"axis": [{"path": "a", "range": {"start": "x", "stop": 3, "num": 2}}]}, "axis[0].range.start: must be a finite number, got 'x'"),
        ({"stop": 3}, "stop: must be a table, got 3"),
        ({"metrics": []}, "metrics: must be a non-empty list"),
    ],
)
def test_validation_names_the_field(change, field):
    raw = {**BASE, **change}
    if change.get("scenario", 0) is None:
        del raw["scenario"]
    with pytest.raises(PlanError) as e:
        parse_plan(raw)
    assert str(e.value).startswith(field), str(e.value)


def test_axis_value_the_scenario_refuses_names_the_point():
    from ccsim.sweeps import tasks_of

    p = plan(axis=[{"path": "link[0].rate", "values": ["100Mbps", "0Mbps"]}])
    with pytest.raises(ScenarioError) as e:
        tasks_of(p)
    assert "point 1 (link[0].rate='0Mbps')" in str(e.value) and "link[0].rate" in str(e.value)


def test_metric_syntax():
    assert parse_metric("fairness_index").kind == "top"
    m = parse_metric("mean(sources.acr_mbps)")
    assert (m.kind, m.agg, m.table, m.field) == ("agg", "mean", "sources", "acr_mbps")
    m = parse_metric("ports[SW1->SW2].mean_queue_cells")
    assert (m.kind, m.table, m.row, m.field) == ("row", "ports", "SW1->SW2", "mean_queue_cells")
    m = parse_metric("links[L1 (SW1->SW2)].utilization")
    assert m.row == "L1 (SW1->SW2)"
    m = parse_metric("series.queue[SW1->SW2]")
    assert m.columns() == ["series.queue[SW1->SW2]", "series.queue[SW1->SW2]:half_width", "series.queue[SW1->SW2]:warmup_s"]
    with pytest.raises(ValueError, match="wall_s"):
        parse_metric("wall_s")


def test_unknown_row_lists_the_names():
    import ccsim

    r = ccsim.run("abr-benchmarks/two-sources", duration="5ms", measure_from="1ms")
    with pytest.raises(ValueError, match="no sources row named 'S9'.*S1"):
        parse_metric("sources[S9].acr_mbps").evaluate(r)
    assert parse_metric("sources[S1].acr_mbps").evaluate(r)["sources[S1].acr_mbps"] > 0


def test_shipped_example_plan():
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "sweeps" / "one-at-a-time.toml"
    p = parse_plan(example)
    assert p.name == "one-at-a-time" and p.replications == 5 and p.scheme == "erica"
    assert [q["source[0].count"] for q in p.points()] == [5, 10, 15, 20, 25, 30]
