"""A stored sweep is only resumed on the scenario and engine that made it (issue 35): a changed
scenario file, preset resolution, ccsim version or engine is refused in one line naming the change,
before anything runs; `ccsim report` and `load` refuse a dataset whose runs of one point were made on
different scenarios."""

import json
import shutil

import pytest

import ccsim
from ccsim.cli import main
from ccsim.sweeps import Store, StoreError, load, run_sweep

PLAN = """
name = "identity"
scenario = "scenario.json"
replications = REPS
metrics = ["fairness_index", "mean(sources.acr_mbps)"]

[set]
"run.duration" = "20ms"
"run.measure_from" = "10ms"

[[axis]]
path = "source[0].start"
values = ["0ms", "1ms", "2ms", "3ms"]
"""


def _sweep_dir(tmp_path, reps=1):
    (tmp_path / "scenario.json").write_text(json.dumps(ccsim.resolve("abr-benchmarks/two-sources")))
    (tmp_path / "plan.toml").write_text(PLAN.replace("REPS", str(reps)))
    return tmp_path / "plan.toml", tmp_path / "out"


def _edit_scenario(tmp_path, rate="100Mbps"):
    s = json.loads((tmp_path / "scenario.json").read_text())
    s["defaults"]["link_rate"] = rate
    (tmp_path / "scenario.json").write_text(json.dumps(s))


def test_an_edited_scenario_file_is_not_resumed_into_the_old_results(tmp_path, capsys):
    plan, out = _sweep_dir(tmp_path)
    first = run_sweep(plan, workers=1, out=out, max_runs=2)
    assert first.completed == 2 and "scenario_digest" in first.frame.columns
    before = sorted(p.name for p in (out / "runs").iterdir())
    manifest = json.loads((out / "manifest.json").read_text())

    _edit_scenario(tmp_path)
    assert main(["sweep", str(plan), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    digest = manifest["points"][0]["scenario_digest"]
    assert err.startswith(f"error: {out} holds results of a different scenario at 2 of its 2 points with runs (point 0 "
                          f"(source[0].start='0ms'): scenario digest {digest} stored, "), err
    assert err.endswith(f" now; the scenario file {str(tmp_path / 'scenario.json')!r} changed: defaults.link_rate "
                        '"155.52Mbps" then, "100Mbps" now); use another --out or remove it\n'), err
    # nothing ran, nothing was mixed in
    assert sorted(p.name for p in (out / "runs").iterdir()) == before
    assert load(out)["scenario_digest"].to_list() == [pt["scenario_digest"] for pt in manifest["points"][:2]]

    # the scenario as it was: the sweep resumes
    _edit_scenario(tmp_path, "155.52Mbps")
    again = run_sweep(plan, workers=1, out=out)
    assert (again.completed, again.skipped) == (2, 2)


def test_a_changed_field_the_plan_file_does_not_show_is_still_caught(tmp_path):
    # a scenario table inline in the plan, edited: the plan identity changes and says so
    plan = {"name": "t", "scenario": ccsim.resolve("abr-benchmarks/two-sources"), "metrics": ["fairness_index"],
            "set": {"run.duration": "20ms", "run.measure_from": "10ms"},
            "axis": [{"path": "source[0].start", "values": ["0ms", "1ms"]}]}
    out = tmp_path / "out"
    run_sweep(plan, workers=1, out=out, max_runs=1)
    plan["scenario"]["link"][0]["rate"] = "100Mbps"
    with pytest.raises(StoreError, match="another plan"):
        run_sweep(plan, workers=1, out=out)


def test_another_ccsim_version_or_engine_is_refused(tmp_path):
    plan, out = _sweep_dir(tmp_path)
    run_sweep(plan, workers=1, out=out, max_runs=1)
    path = out / "manifest.json"
    good = json.loads(path.read_text())
    assert good["engine_probe"]["duration"] == "10ms" and len(good["engine_probe"]["fingerprint"]) == 16

    path.write_text(json.dumps({**good, "ccsim_version": "0.0.9"}))
    with pytest.raises(StoreError) as e:
        run_sweep(plan, workers=1, out=out)
    assert str(e.value) == (f"{out} holds results of ccsim 0.0.9, this is ccsim {ccsim.__version__} (results could "
                            "differ); use another --out or remove it")

    path.write_text(json.dumps({**good, "engine_probe": {"duration": "10ms", "fingerprint": "0123456789abcdef"}}))
    with pytest.raises(StoreError) as e:
        run_sweep(plan, workers=1, out=out)
    now = good["engine_probe"]["fingerprint"]
    assert str(e.value).startswith(f"{out} holds results of an engine that runs differently (a 10ms run of point 0 "
                                   f"has fingerprint 0123456789abcdef there, {now} now")

    legacy = {**good, "points": [{k: v for k, v in pt.items() if k != "scenario_digest"} for pt in good["points"]]}
    path.write_text(json.dumps(legacy))
    with pytest.raises(StoreError, match="holds runs stored before ccsim recorded each point's scenario"):
        run_sweep(plan, workers=1, out=out)

    path.write_text(json.dumps(good))
    assert run_sweep(plan, workers=1, out=out).completed == 3


def test_report_refuses_a_point_with_runs_of_two_scenarios(tmp_path, capsys):
    plan, out = _sweep_dir(tmp_path, reps=2)
    run_sweep(plan, workers=1, out=out)
    other = tmp_path / "other"
    _edit_scenario(tmp_path)
    run_sweep(plan, workers=1, out=other)
    # a partial copy: one run of point 1 from the other sweep
    shutil.copy(other / "runs" / "p00001-r001.parquet", out / "runs" / "p00001-r001.parquet")

    assert main(["report", str(out)]) == 1
    err = capsys.readouterr().err
    mine, theirs = (json.loads((d / "manifest.json").read_text())["points"][1]["scenario_digest"] for d in (out, other))
    assert err == (f"error: {out}: point 1 mixes results of different scenarios (runs/p00001-r000.parquet: scenario "
                   f"digest {mine}, runs/p00001-r001.parquet: {theirs}); re-run the sweep into a new --out\n")
    assert not (out / "report.html").exists()
    with pytest.raises(StoreError, match="point 1 mixes results of different scenarios"):
        load(out)


def test_report_refuses_rows_that_disagree_with_the_manifest(tmp_path):
    plan, out = _sweep_dir(tmp_path)
    run_sweep(plan, workers=1, out=out)
    other = tmp_path / "other"
    _edit_scenario(tmp_path)
    run_sweep(plan, workers=1, out=other)
    shutil.copy(other / "runs" / "p00002-r000.parquet", out / "runs" / "p00002-r000.parquet")
    with pytest.raises(StoreError, match=r"runs/p00002-r000.parquet was run on scenario digest \w+, the manifest's "
                                         r"point 2 on \w+; re-run the sweep into a new --out$"):
        load(out)
    # a run without a digest (an older ccsim's) is checked by the scenario hash the manifest recorded
    manifest = json.loads((out / "manifest.json").read_text())
    for pt in manifest["points"]:
        pt.pop("scenario_digest")
    (out / "manifest.json").write_text(json.dumps(manifest))
    frame = Store(out).read().drop("scenario_digest")
    with pytest.raises(StoreError, match=r"p00002-r000.parquet has scenario_hash \w+, the manifest recorded \w+"):
        Store(out).check_rows(frame)
