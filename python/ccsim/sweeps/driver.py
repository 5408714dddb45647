"""``ccsim.sweep``: expand a plan, check it, skip what the store already holds, run the rest, return
the table. A sweep that stops early (a signal, a worker lost) raises one line saying how many runs
are stored; running it again resumes it."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import ScenarioError
from .check import check_metrics
from .executors import ExecutorError
from .interrupts import SweepInterrupted, sigterm_interrupts
from .plan import Plan, load_plan
from .store import Store, scenario_digest


@dataclass
class SweepOutcome:
    """What one ``run_sweep`` call did (``ccsim sweep --json`` prints the first five fields)."""

    points: int
    replications: int
    completed: int
    skipped: int
    out: str
    frame: pl.DataFrame

    def as_json(self) -> dict[str, Any]:
        return {"points": self.points, "replications": self.replications, "completed": self.completed,
                "skipped": self.skipped, "out": self.out}


def _scenario_dict(scenario: Any) -> dict[str, Any]:
    """The base scenario as a dict, so tasks carry it whole (workers need no files)."""
    import json

    from ..api import scenario_source

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    if isinstance(scenario, Mapping):
        return dict(scenario)
    text, fmt, _ = scenario_source(scenario)
    return json.loads(text) if fmt == "json" else tomllib.loads(text)


def tasks_of(plan: Plan) -> list[dict[str, Any]]:
    """Every (point, replication) task of a plan, in order, validated against the scenario schema."""
    from ..api import resolve

    base = _scenario_dict(plan.scenario)
    stop = None
    if plan.stop is not None:
        s = plan.stop
        stop = {"metric": s.metric.name, "precision": s.precision, "confidence": s.confidence, "start": s.start,
                "max_duration": s.max_duration, "warmup": s.warmup}
    tasks = []
    for i, point in enumerate(plan.points()):
        overrides = plan.overrides(point)
        try:
            digest = scenario_digest(resolve(base, scheme=plan.scheme, set=overrides))
        except ScenarioError as e:
            where = ", ".join(f"{k}={v!r}" for k, v in point.items()) or "the base scenario"
            raise type(e)(f"point {i} ({where}): {e}") from None
        for r in range(plan.replications):
            tasks.append({
                "scenario": base, "scheme": plan.scheme, "set": overrides, "seed": plan.run_seed(point, r),
                "point": i, "replication": r, "params": point, "metrics": [m.name for m in plan.metrics],
                "stop": stop, "digest": digest,
            })
    return tasks


def manifest_of(plan: Plan, tasks: list[dict[str, Any]]) -> dict[str, Any]:
    import datetime as dt
    import json

    from .. import __version__, _version
    from ..presets import is_preset
    from .check import engine_probe

    points = {}
    for t in tasks:
        points.setdefault(t["point"], {"index": t["point"], "params": t["params"], "set": t["set"], "seeds": [],
                                       "scenario_digest": t["digest"]})
        points[t["point"]]["seeds"].append(t["seed"])
    kind = "table" if not isinstance(plan.scenario, str) else "preset" if is_preset(plan.scenario) else "file"
    return {
        # what a resume checks (Store.check_resume): the base scenario as read, the build, the engine
        "scenario_kind": kind,
        "scenario": json.loads(json.dumps(tasks[0]["scenario"], default=str)) if tasks else None,
        "ccsim_commit": _version.commit(),
        "engine_probe": engine_probe(tasks[0]) if tasks else None,
        "name": plan.name,
        "plan": plan.raw,
        "plan_identity": plan.identity(),
        "ccsim_version": __version__,
        "axes": [a.path for a in plan.axes],
        "metrics": [c for m in plan.metrics for c in m.columns()],
        "labels": {n: plan.label(n) for n in [a.path for a in plan.axes] + [c for m in plan.metrics for c in m.columns()]},
        "replications": plan.replications,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "points": list(points.values()),
    }


def run_sweep(
    plan: Plan | str | Path | Mapping[str, Any],
    *,
    executor: str | Any = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    out: str | Path | None = None,
    progress: bool | Callable[[int, int], None] = False,
    max_runs: int | None = None,
    notice: Callable[[str], None] | None = None,
) -> SweepOutcome:
    """Runs what is missing of a sweep into ``out`` and returns the outcome with the full table.

    ``executor`` is ``"local"``, ``"dask"`` or an executor object (kept open). ``max_runs`` stops
    after that many new runs (the rest stays missing; a later call completes it). ``notice`` gets
    one line per damaged run file found and run again (default: stderr).

    Ctrl-C or SIGTERM raise ``SweepInterrupted`` (a ``KeyboardInterrupt``), a lost worker an
    ``ExecutorError``; both say how many runs are stored, and the runs stored stay. Without ``out``
    the runs go to a temporary directory, removed once the table is read (the outcome's ``out`` is
    then empty)."""
    plan = load_plan(plan)
    tasks = tasks_of(plan)
    check_metrics(plan, tasks)
    temporary = out is None
    if temporary:
        # Without `out` the runs go to a temporary store, removed once its table is read.
        out = tempfile.mkdtemp(prefix=f"ccsim-sweep-{plan.name.replace('/', '-')}-")
    try:
        return _run_into(plan, tasks, Path(out), executor, workers, scheduler, progress, max_runs, notice, temporary)
    finally:
        if temporary:
            shutil.rmtree(out, ignore_errors=True)


def _run_into(plan: Plan, tasks: list[dict[str, Any]], out: Path, executor: str | Any, workers: int | None,
              scheduler: str | None, progress: bool | Callable[[int, int], None], max_runs: int | None,
              notice: Callable[[str], None] | None, temporary: bool) -> SweepOutcome:
    from .._progress import RunsProgress, interactive
    from .executors import make_executor

    out = mark_sweep(out)
    store = Store(out)
    manifest = manifest_of(plan, tasks)
    store.open(manifest)
    done, damaged = store.verify()
    for name, problem in damaged.items():
        store.discard(name)
        (notice or _stderr)(f"warning: {store.runs / name}: {problem}; running it again")
    todo = [t for t in tasks if (t["point"], t["replication"]) not in done]
    skipped = len(tasks) - len(todo)
    if max_runs is not None:
        todo = todo[:max_runs]
    meta = {"ccsim_version": manifest["ccsim_version"], "plan_identity": manifest["plan_identity"], "plan": plan.name}

    bar = None
    if isinstance(progress, RunsProgress):
        progress = progress.stage(len(tasks))  # one stage of a reproduction's progress
    elif progress is True:
        # A bar on a terminal (or in Jupyter) only: on a pipe, rich's stopped bar left a blank line.
        bar = _Bar(len(tasks), skipped) if interactive() else None
        progress = bar
    completed = 0

    def on_result(row: dict[str, Any]) -> None:
        nonlocal completed
        store.write_run(row, {**meta, "point": row["point"], "replication": row["replication"], "seed": row["seed"]})
        completed += 1
        if callable(progress):
            progress(skipped + completed, len(tasks))

    own = isinstance(executor, str)
    try:
        with sigterm_interrupts():
            ex = make_executor(executor, workers=workers, scheduler=scheduler) if own else executor
            try:
                ex.run(todo, on_result)
            except ExecutorError as e:
                raise type(e)(f"{e}; {skipped + completed} of {len(tasks)} runs stored; re-run the same command "
                              "to resume") from None
            finally:
                if own:
                    ex.close()
    except KeyboardInterrupt as e:
        raise SweepInterrupted(getattr(e, "signal", "SIGINT"), skipped + completed, len(tasks)) from None
    finally:
        if bar is not None:
            bar.close()
        store.write_manifest(manifest)  # with the checksums of the runs written so far
    frame = store.read()
    _record_hashes(store, manifest, frame)
    return SweepOutcome(len(manifest["points"]), plan.replications, completed, skipped, "" if temporary else str(out),
                        frame)


def _record_hashes(store: Store, manifest: dict[str, Any], frame: pl.DataFrame) -> None:
    """Adds each point's scenario hashes (one per replication: the seed is part of the resolved
    scenario) and the count of complete runs to the manifest."""
    if frame.height:
        by_point: dict[int, dict[str, str]] = {}
        for p, r, h in frame.select("point", "replication", "scenario_hash").iter_rows():
            by_point.setdefault(p, {})[str(r)] = h
        for pt in manifest["points"]:
            pt["scenario_hashes"] = by_point.get(pt["index"], {})
    manifest["runs_complete"] = frame.height
    manifest["runs_total"] = len(manifest["points"]) * manifest["replications"]
    store.write_manifest(manifest)


def sweep(plan: Plan | str | Path | Mapping[str, Any], *, executor: str | Any = "local", workers: int | None = None,
          scheduler: str | None = None, out: str | Path | None = None, progress: bool = False) -> pl.DataFrame:
    """Runs a sweep plan (a TOML file, TOML text, a dict or a ``Plan``) and returns one row per
    (point, replication): ``point``, ``replication``, ``seed``, ``axis:<path>`` columns, the metrics,
    ``scenario_hash``, ``fingerprint``, ``sim_time_s`` and ``wall_s``. With ``out`` the runs are
    kept as a Parquet dataset there and a re-run does only what is missing. Summaries with
    confidence intervals: ``ccsim.sweeps.summarize(frame)``."""
    return run_sweep(plan, executor=executor, workers=workers, scheduler=scheduler, out=out, progress=progress).frame


def mark_sweep(out: str | Path) -> Path:
    """The sweep's directory, checked by the rule every ccsim output follows (a new or empty
    directory, or a sweep's own; docs/scenarios.md, "Output directories") and marked as a sweep's."""
    import json

    from .._outdir import MARKER, check

    root = check(out, "sweep")
    root.mkdir(parents=True, exist_ok=True)
    if not (root / MARKER).exists():
        (root / MARKER).write_text(json.dumps({"kind": "sweep"}) + "\n")
    return root


def _stderr(line: str) -> None:
    import sys

    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class _Bar:
    """A rich progress bar over runs on stderr."""

    def __init__(self, total: int, skipped: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.p = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                          console=Console(stderr=True), transient=True)
        self.p.start()
        self.task = self.p.add_task("runs", total=total, completed=skipped)

    def __call__(self, done: int, total: int) -> None:
        self.p.update(self.task, completed=done)

    def close(self) -> None:
        self.p.stop()


__all__ = ["sweep", "run_sweep", "SweepOutcome", "tasks_of"]
