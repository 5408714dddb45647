"""One sweep task in a worker process, and the stopping rule wired to real runs.

``run_task`` is what every executor calls: it is a plain module-level function of a plain dict
(picklable, importable by Dask workers) and returns one row (a dict of column -> value).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from .metrics import Metric, _seconds, parse_metric, series_values
from .stats import StopReport, StopRule, run_until_precise


def run_to_precision(
    scenario: Any,
    metric: str | Metric,
    *,
    precision: float = 0.05,
    confidence: float = 0.95,
    start: str | None = None,
    max_duration: str = "2s",
    warmup: str = "mser5",
    **run_kwargs: Any,
):
    """Runs ``scenario`` until the ``confidence`` interval of a ``series.*`` metric is within
    ±``precision`` (relative), or ``max_duration`` comes first; returns ``(Result, StopReport)``.

    The engine hands out a run's series only at ``finish()``, so the rule is checked between
    chunks by re-running: the first run lasts ``start`` (default: the scenario's duration), each
    next one twice as long, and only the new observations are fed to the rule. The engine is
    deterministic for a given seed, so a longer run repeats the shorter one's series exactly (the
    test suite checks this) and the chunks join into one series.
    """
    from ..api import run, resolve

    m = metric if isinstance(metric, Metric) else parse_metric(metric)
    if m.kind != "series":
        raise ValueError(f"{m.name!r}: the stopping rule needs a series.* metric")
    rule = StopRule(precision=precision, confidence=confidence, t_max=_seconds(max_duration))
    duration = _seconds(start) if start else _duration_of(resolve(scenario, **_resolve_args(run_kwargs)))
    state: dict[str, Any] = {"duration": duration, "seen": 0, "result": None}

    def run_for(d: float):
        over = {**(run_kwargs.get("set") or {}), "run.duration": f"{d!r}s"}
        if "run.measure_from" not in over:
            over["run.measure_from"] = f"{d / 2!r}s"
        r = run(scenario, **{**run_kwargs, "set": over})
        _, y = series_values(r, m)
        new = y[state["seen"]:]
        state.update(duration=d, seen=len(y), result=r)
        return new, d

    first = run_for(min(duration, rule.t_max))
    if warmup != "mser5":
        # a fixed warm-up: delete the observations recorded before it
        t, _ = series_values(state["result"], m)
        rule.warmup = int(np.searchsorted(t, _seconds(warmup)))
    pending = [first]

    def next_chunk():
        if pending:
            return pending.pop()
        if state["duration"] >= rule.t_max:
            return None
        return run_for(min(2 * state["duration"], rule.t_max))

    report = run_until_precise(next_chunk, rule)
    return state["result"], report


def _resolve_args(kw: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if k not in ("progress", "chunks")}


def _duration_of(resolved: Mapping[str, Any]) -> float:
    d = resolved["run"]["duration"]
    return _seconds(d) if isinstance(d, str) else float(d)


def run_task(task: Mapping[str, Any]) -> dict[str, Any]:
    """Runs one (point, replication) and returns its row."""
    from ..api import run

    started = time.perf_counter()
    scenario = task["scenario"]
    metrics = [parse_metric(m) for m in task["metrics"]]
    kwargs = {"seed": task["seed"], "scheme": task.get("scheme"), "set": task["set"]}
    row: dict[str, Any] = {"point": task["point"], "replication": task["replication"], "seed": task["seed"]}
    row.update({f"axis:{k}": v for k, v in task["params"].items()})
    stop = task.get("stop")
    if stop:
        result, report = run_to_precision(scenario, stop["metric"], precision=stop["precision"],
                                          confidence=stop["confidence"], start=stop.get("start"),
                                          max_duration=stop["max_duration"], warmup=stop["warmup"], **kwargs)
        row.update({
            "stop:metric": stop["metric"], "stop:reached": report.reached, "stop:reason": report.reason,
            "stop:mean": report.estimate.mean, "stop:half_width": report.estimate.half_width,
            "stop:achieved_precision": report.achieved_precision, "stop:sim_time_s": report.time,
        })
    else:
        # Series only when a metric reads one.
        result = run(scenario, **kwargs, series=any(m.kind == "series" for m in metrics))
    for m in metrics:
        row.update(m.evaluate(result))
    row["scenario_hash"] = str(result.data["scenario_hash"])
    if task.get("digest") is not None:
        row["scenario_digest"] = task["digest"]  # the point's, the same for every replication
    row["fingerprint"] = str(result.data["fingerprint"])
    row["sim_time_s"] = float(result.data["sim_time_s"])
    row["wall_s"] = time.perf_counter() - started
    return row


__all__ = ["run_task", "run_to_precision", "StopReport"]
