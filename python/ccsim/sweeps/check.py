"""Checks a plan's named metrics against the networks its points build, before any run.

A metric that names a row (``sources[S1].acr_mbps``) or a recorded series (``series.queue[SW1->SW2]``)
can only be checked against a built network: ``source[0].count = 5`` makes rows S1..S5. Each distinct
scenario of the plan (the base with a point's overrides; ``run.*`` fields aside, they name nothing)
is built once and run for 1 ns, which lists every row of every table and the series recorded from
time 0 (``acr``, ``queue``, TCP ``cwnd``, ``gateway_queue``). A name that is not there is a
``PlanError`` naming the metric, the point and the rows that exist. Series first recorded later
(``utilization``, ``goodput``) are checked by the runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import CcsimError
from .metrics import FIELDS, SERIES, Metric
from .plan import Plan, PlanError

#: The overrides of the 1 ns build-and-list run.
PROBE = {"run.duration": "1ns", "run.measure_from": "0s"}
_LISTED = 20  # names shown in an error


def _quiet_run(scenario: Any, **options: Any):
    """`ccsim.run` of a sweep's own probe, without its notices (`CcsimWarning`): the sweep's runs
    themselves give them."""
    import warnings

    from ..api import run
    from ..errors import CcsimWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CcsimWarning)
        return run(scenario, **options)


def _names(task: dict[str, Any]) -> dict[str, list[str]] | None:
    """Row names of each table and of each series recorded at time 0 (``series.queue``), or None if
    the probe itself fails (the runs then report the error)."""
    try:
        # 1 ns is shorter than any flow's start.
        result = _quiet_run(task["scenario"], scheme=task["scheme"], set={**task["set"], **PROBE})
    except CcsimError:
        return None
    data = result.data
    names = {table: [str(r.get("name")) for r in data.get(table) or []] for table in FIELDS}
    for kind, (key, _) in SERIES.items():
        recorded = list(dict.fromkeys(map(str, data["series"].get(kind, {}).get(key, []))))
        if recorded:
            names[f"series.{kind}"] = recorded
    return names


#: The longest run of ``engine_probe``.
ENGINE_PROBE_S = 0.01


def engine_probe(task: dict[str, Any]) -> dict[str, str] | None:
    """The fingerprint of a short run of one task (10 ms, or the run's duration if shorter, no
    series): what a resumed sweep compares to tell whether the engine still runs the stored
    scenarios as it did. None if the probe cannot run (the runs then report why)."""
    from ..api import resolve
    from .metrics import _seconds

    try:
        d = resolve(task["scenario"], scheme=task["scheme"], set=task["set"])["run"]["duration"]
        seconds = min(ENGINE_PROBE_S, _seconds(d) if isinstance(d, str) else float(d))
        duration = f"{seconds * 1e3:g}ms"
        # Flows that start after the probe's 10 ms are no news.
        result = _quiet_run(task["scenario"], seed=task["seed"], scheme=task["scheme"], series=False,
                            set={**task["set"], "run.duration": duration, "run.measure_from": "0s"})
    except (CcsimError, ValueError):
        return None
    return {"duration": duration, "fingerprint": str(result.data["fingerprint"])}


def _listing(names: Sequence[str]) -> str:
    if not names:
        return "there are none"
    more = f", ... ({len(names)} in all)" if len(names) > _LISTED else ""
    return "there are: " + ", ".join(names[:_LISTED]) + more


def check_metrics(plan: Plan, tasks: Iterable[dict[str, Any]]) -> None:
    """Raises ``PlanError`` for the first row or series name some point's network does not have."""
    named: list[tuple[str, Metric]] = [(f"metrics[{i}]", m) for i, m in enumerate(plan.metrics)]
    if plan.stop is not None:
        named.append(("stop.metric", plan.stop.metric))
    named = [(where, m) for where, m in named if m.kind in ("row", "series") and m.row != "*"]
    if not named:
        return
    seen: set[str] = set()
    for task in tasks:
        overrides = {k: v for k, v in task["set"].items() if not k.startswith("run.")}  # run.* name nothing
        key = json.dumps(overrides, sort_keys=True, default=str)
        if task["replication"] != 0 or key in seen:
            continue
        seen.add(key)
        names = _names(task)
        if names is None:
            continue
        for where, m in named:
            group = m.table if m.kind == "row" else f"series.{m.table}"
            if group not in names or m.row in names[group]:
                continue  # a series not recorded at time 0 is checked by the runs
            what = f"{m.table} row" if m.kind == "row" else f"recorded {m.table} series"
            at = ""
            if plan.axes:
                params = ", ".join(f"{k}={v!r}" for k, v in task["params"].items())
                at = f" at point {task['point']} ({params})"
            raise PlanError(f"{where}: {m.name!r}: no {what} named {m.row!r}{at}; {_listing(names[group])}")


__all__ = ["check_metrics", "engine_probe", "PROBE"]
