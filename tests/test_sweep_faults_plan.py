"""A metric naming a row or series the network does not have is refused before any run: exit 2, one
line naming the metric, the point and the rows that exist; nothing is written."""

import pytest

from ccsim.sweeps import PlanError, parse_plan, run_sweep, tasks_of
from ccsim.sweeps.check import check_metrics

PLAN = """
name = "bad-row"
scenario = "abr-benchmarks/one-at-a-time"
metrics = ["fairness_index", "sources[ZZ].acr_mbps"]

[set]
"run.duration" = "30ms"
"run.measure_from" = "20ms"

[[axis]]
path = "source[0].count"
values = [2, 3]
"""


def test_cli_refuses_a_missing_row_before_running(tmp_path, cli, env):
    import subprocess

    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    out = tmp_path / "s"
    p = subprocess.run(cli + ["sweep", str(plan), "--out", str(out)], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr == ("error: metrics[1]: 'sources[ZZ].acr_mbps': no sources row named 'ZZ' at point 0 "
                        "(source[0].count=2); there are: S1, S2\n")
    assert not out.exists()


def _check(plan_text):
    plan = parse_plan(plan_text)
    check_metrics(plan, tasks_of(plan))


def test_a_row_missing_at_one_point_names_that_point():
    with pytest.raises(PlanError, match=r"^metrics\[1\]: 'sources\[S3\].acr_mbps': no sources row named 'S3' "
                                        r"at point 0 \(source\[0\].count=2\); there are: S1, S2$"):
        _check(PLAN.replace("sources[ZZ]", "sources[S3]"))


def test_series_names_and_the_stop_metric_are_checked():
    with pytest.raises(PlanError, match=r"^metrics\[1\]: 'series.queue\[SW9->SW2\]': no recorded queue series named "
                                        r"'SW9->SW2' at point 0 \(source\[0\].count=2\); there are: SW1->SW2, "):
        _check(PLAN.replace("sources[ZZ].acr_mbps", "series.queue[SW9->SW2]"))
    with pytest.raises(PlanError, match=r"^stop.metric: 'series.acr\[S7\]': no recorded acr series named 'S7'"):
        _check(PLAN.replace("sources[ZZ]", "sources[S1]") + '\n[stop]\nmetric = "series.acr[S7]"\n')


def test_names_that_exist_pass_and_the_sweep_runs(tmp_path):
    plan = PLAN.replace("sources[ZZ].acr_mbps", "sources[S2].acr_mbps").replace(
        '"fairness_index",', '"fairness_index", "series.queue[SW1->SW2]", "links[L1 (SW1->SW2)].utilization", '
                             '"series.utilization[SW1->SW2]", "series.acr[*]",')
    outcome = run_sweep(plan, workers=1, out=tmp_path / "s")
    assert outcome.completed == 2 and outcome.frame["sources[S2].acr_mbps"].is_not_null().all()
