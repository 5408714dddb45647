"""Sweep plans: a base scenario, axes over scenario field paths, replications and metrics.

A plan is a TOML file or a dict with the same structure (``docs/sweeps.md``)::

    name = "one-at-a-time"
    scenario = "abr-benchmarks/one-at-a-time"   # preset, file (relative to the plan) or a table
    scheme = "erica"                            # optional
    seed = 1                                    # plan seed: every run's seed derives from it
    replications = 5
    metrics = ["fairness_index", "mean(sources.acr_mbps)", "ports[SW1->SW2].mean_queue_cells"]

    [set]                                       # fixed overrides for every point
    "run.duration" = "200ms"

    [[axis]]
    path = "source[0].count"
    values = [5, 10, 15, 20, 25, 30]            # or range = { start = 5, stop = 30, step = 5 }

Axes combine by Cartesian product in the order given (the first varies slowest); axes that
share a ``zip`` name vary together (equal lengths required). Every error names the plan field.

A plan's size is counted from its axes before any value list is built: more than
``DEFAULT_RUN_LIMIT`` runs (points × replications) is refused unless the plan raises its own
``run_limit``. A plan file that is not UTF-8 text, nests tables or arrays more than ``MAX_DEPTH``
levels, or holds a non-finite number (``nan``, ``inf``) is refused in one line too.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from pydantic import ValidationError

from ..errors import ScenarioError
from .metrics import Metric, parse_metric
from .plan_schema import AxisSpec, PlanSpec, RangeSpec, first_error, is_number

#: Runs (points × replications) a plan may have unless it sets ``run_limit``.
DEFAULT_RUN_LIMIT = 100_000
#: Deepest nesting of tables and arrays a plan may have (a scenario needs about six).
MAX_DEPTH = 64


class PlanError(ScenarioError):
    """An invalid sweep plan; the message starts with the plan field (``axis[1].range.step``)."""


@dataclass
class Axis:
    path: str
    values: list[Any]
    zip: str | None = None
    unit: str | None = None

    def scenario_value(self, v: Any) -> Any:
        """The value given to the scenario: with a ``unit``, a string such as ``"500cells"``."""
        return v if self.unit is None else f"{v:g}{self.unit}"


@dataclass
class Stop:
    """Optional stopping rule per run: re-run with a doubled duration until the ``confidence``
    interval of ``metric`` (a ``series.*`` metric) is within ±``precision``, up to ``max_duration``."""

    metric: Metric
    precision: float = 0.05
    confidence: float = 0.95
    start: str | None = None
    max_duration: str = "2s"
    warmup: str = "mser5"


@dataclass
class Plan:
    name: str
    scenario: Any  # preset name, path, or dict
    axes: list[Axis]
    metrics: list[Metric]
    replications: int = 1
    seed: int = 1
    scheme: str | None = None
    set: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    stop: Stop | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    #: Axis paths and metric names as the report writes them (``"RED max_p"``); an axis with a
    #: unit and no label is written ``path (unit)``.
    labels: dict[str, str] = field(default_factory=dict)

    def label(self, name: str) -> str:
        """How the report names an axis path or a metric."""
        if name in self.labels:
            return self.labels[name]
        unit = next((a.unit for a in self.axes if a.path == name), None)
        return f"{name} ({unit})" if unit else name

    # --- points ----------------------------------------------------------------------------

    def points(self) -> list[dict[str, Any]]:
        """Every point as ``{axis path: value}`` (the axis' own value, before any unit)."""
        groups: list[list[Axis]] = []
        by_zip: dict[str, list[Axis]] = {}
        for a in self.axes:
            if a.zip is None:
                groups.append([a])
            elif a.zip in by_zip:
                by_zip[a.zip].append(a)
            else:
                by_zip[a.zip] = [a]
                groups.append(by_zip[a.zip])
        per_group = [[{a.path: a.values[i] for a in g} for i in range(len(g[0].values))] for g in groups]
        out = []
        for combo in itertools.product(*per_group):
            p: dict[str, Any] = {}
            for part in combo:
                p.update(part)
            out.append(p)
        return out

    def overrides(self, point: Mapping[str, Any]) -> dict[str, Any]:
        """The ``set=`` overrides of one point: the plan's fixed ``set`` then the axis values."""
        units = {a.path: a for a in self.axes}
        s = dict(self.set)
        for path, v in point.items():
            s[path] = units[path].scenario_value(v)
        return s

    def identity(self) -> str:
        """Hash of everything that determines a point's results except the replication count
        (so raising ``replications`` extends a sweep instead of starting over)."""
        d = {k: v for k, v in self.raw.items() if k not in ("replications", "description", "labels", "run_limit")}
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def run_seed(self, point: Mapping[str, Any], replication: int) -> int:
        """The seed of one run: a hash of (plan seed, point parameters, replication), the same on
        every executor and independent of which other points the plan holds."""
        key = json.dumps([self.seed, sorted(point.items()), replication], sort_keys=True, default=str)
        return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


# --- parsing -----------------------------------------------------------------------------


def _err(where: str, msg: str) -> PlanError:
    return PlanError(f"{where}: {msg}" if where else msg)


def _range_size(r: RangeSpec, where: str) -> int:
    """How many values a range has, counted without building them."""
    if r.num is not None:
        return r.num
    start, stop, step = r.start, r.stop, r.step
    if step == 0 or (stop - start) * step < 0:
        raise _err(f"{where}.step", f"must be non-zero and go from start towards stop, got {step!r}")
    try:
        q = (stop - start) / step
    except OverflowError:  # integers too large for a float
        q = math.inf
    if not math.isfinite(q):
        raise _err(f"{where}.step", f"{step!r} is too small for the range from {start!r} to {stop!r}: "
                                    "more values than can be counted")
    return int(math.floor(q + 1e-9)) + 1


def _expand_range(r: RangeSpec, where: str) -> list[Any]:
    start, stop = r.start, r.stop
    n = _range_size(r, where)
    if r.num is not None:
        if n == 1:
            return [start]
        if not is_number(stop - start):
            raise _err(where, f"stop - start is too large for a float ({start!r} to {stop!r})")
        vals = [start + (stop - start) * i / (n - 1) for i in range(n)]
        return [int(v) if isinstance(start, int) and isinstance(stop, int) and float(v).is_integer() else v for v in vals]
    step = r.step
    integral = all(isinstance(x, int) for x in (start, stop, step))
    return [start + i * step if integral else round(start + i * step, 12) for i in range(n)]


def _count(n: int) -> str:
    return f"{n:,}" if n <= 10**15 else "more than 10^15"


def _check_size(spec: PlanSpec) -> None:
    """Refuses a plan with more runs than its limit, counted from the axes' sizes (nothing is
    expanded), and zip groups of unequal lengths."""
    sizes = [len(a.values) if a.values is not None else _range_size(a.range, f"axis[{i}].range")
             for i, a in enumerate(spec.axis)]
    groups: list[int] = []
    zips: dict[str, tuple[int, int]] = {}
    for i, (a, n) in enumerate(zip(spec.axis, sizes)):
        if a.zip is None:
            groups.append(n)
        elif a.zip in zips:
            j, m = zips[a.zip]
            if m != n:
                raise _err(f"axis[{i}].zip", f"group {a.zip!r}: {n} values here, {m} in axis[{j}]")
        else:
            zips[a.zip] = (i, n)
            groups.append(n)
    limit = spec.run_limit if spec.run_limit is not None else DEFAULT_RUN_LIMIT
    raise_it = "if that many are meant, raise it with `run_limit = N` at the top of the plan"
    for i, (a, n) in enumerate(zip(spec.axis, sizes)):
        if n > limit:
            where = f"axis[{i}].values" if a.values is not None else f"axis[{i}].range"
            raise _err(where, f"{_count(n)} values, more than the plan's limit of {limit:,} runs; {raise_it}")
    points = 1
    for n in groups:
        points = min(points * n, 10**16)  # past 10^15 the count is only "more than"
    runs = min(points * spec.replications, 10**16)
    if runs > limit:
        reps = "replication" if spec.replications == 1 else "replications"
        raise PlanError(f"plan: {_count(points)} points × {spec.replications:,} {reps} = {_count(runs)} runs, more "
                        f"than the limit of {limit:,}; {raise_it}")


def _axis(a: AxisSpec, where: str) -> Axis:
    values = a.values if a.values is not None else _expand_range(a.range, f"{where}.range")
    if a.unit is not None:
        for i, v in enumerate(values):
            if not is_number(v):
                raise _err(f"{where}.values[{i}]", f"must be a finite number, got {v!r}"[:120])
    return Axis(a.path.strip(), list(values), a.zip, a.unit)


def _read(src: str | Path | Mapping[str, Any]) -> tuple[dict[str, Any], Path | None]:
    """The plan's raw table, and the folder its file is in (relative scenario paths)."""
    if isinstance(src, Mapping):
        _check_values(src)  # before the copy, which recurses
        return copy.deepcopy(dict(src)), None
    p = Path(src)
    if isinstance(src, Path) or (p.suffix.lower() == ".toml" and "\n" not in str(src)):
        if not p.is_file():
            raise PlanError(f"plan file {str(p)!r} not found")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise PlanError(f"plan file {str(p)!r}: not a UTF-8 text file ({e.reason} at byte {e.start})") from None
        base_dir = p.resolve().parent
    else:
        text, base_dir = str(src), None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"plan: not valid TOML ({' '.join(str(e).split())})") from None
    except RecursionError:
        raise PlanError(f"plan: arrays or tables nested too deeply to read (at most {MAX_DEPTH} levels)") from None
    _check_values(raw)
    return raw, base_dir


def _check_values(raw: Mapping[str, Any]) -> None:
    """Refuses nesting deeper than ``MAX_DEPTH`` and non-finite numbers, naming the field; walks
    the tree without recursion (a deep or cyclic dict cannot exhaust the stack)."""
    stack: list[tuple[str, Any, int]] = [(str(k), v, 1) for k, v in reversed(list(raw.items()))]
    while stack:
        where, v, depth = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            raise _err(where, f"must be a finite number, got {v!r}")
        if isinstance(v, (Mapping, list, tuple)):
            if depth >= MAX_DEPTH:
                top = re.match(r"[^.\[]*", where).group(0)  # the path down there is as long as the nesting
                raise _err(top, f"arrays or tables nested more than {MAX_DEPTH} levels deep")
            items = v.items() if isinstance(v, Mapping) else enumerate(v)
            stack.extend((f"{where}[{k}]" if isinstance(k, int) else f"{where}.{k}", x, depth + 1)
                         for k, x in reversed(list(items)))


def parse_plan(src: str | Path | Mapping[str, Any]) -> Plan:
    """A ``Plan`` from a TOML file path, TOML text or a dict; ``PlanError`` names the field.

    The shape (fields, types, ranges) is `plan_schema.PlanSpec`'s; what follows checks what
    depends on more than one field or on the world outside the plan."""
    raw, base_dir = _read(src)
    try:
        spec = PlanSpec.model_validate(raw)
    except ValidationError as e:
        raise _err(*first_error(e)) from None

    scenario = spec.scenario
    if isinstance(scenario, str):
        from ..presets import is_preset

        if not is_preset(scenario):
            path = Path(scenario)
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            if not path.is_file():
                raise _err("scenario", f"{scenario!r} is neither a preset name nor a readable file")
            scenario = str(path)
            raw["scenario"] = scenario
    name = spec.name or (Path(str(src)).stem if isinstance(src, (str, Path)) and base_dir else "sweep")

    _check_size(spec)
    axes = [_axis(a, f"axis[{i}]") for i, a in enumerate(spec.axis)]
    seen: dict[str, int] = {}
    for i, a in enumerate(axes):
        if a.path in seen:
            raise _err(f"axis[{i}].path", f"{a.path!r} is already swept by axis[{seen[a.path]}]")
        seen[a.path] = i
        if a.path in spec.set:
            raise _err(f"axis[{i}].path", f"{a.path!r} is also fixed in [set]")

    metrics = []
    for i, m in enumerate(spec.metrics):
        try:
            metrics.append(parse_metric(m))
        except ValueError as e:
            raise _err(f"metrics[{i}]", str(e)) from None
    if len({m.name for m in metrics}) != len(metrics):
        raise _err("metrics", "a metric is listed twice")

    stop = None
    if spec.stop is not None:
        s = spec.stop
        try:
            sm = parse_metric(s.metric)
        except ValueError as e:
            raise _err("stop.metric", str(e)) from None
        if sm.kind != "series":
            raise _err("stop.metric", "must be a series.* metric (the stopping rule needs a within-run series)")
        stop = Stop(sm, s.precision, s.confidence, s.start, s.max_duration, s.warmup)

    known = {a.path for a in axes} | {c for m in metrics for c in m.columns()} | {m.name for m in metrics}
    for k, v in spec.labels.items():
        if k not in known:
            raise _err(f"labels.{k}", f"names neither an axis path nor a metric of this plan ({', '.join(sorted(known))})")
        if not isinstance(v, str) or not v.strip():
            raise _err(f"labels.{k}", "must be a non-empty string")
    plan = Plan(name, scenario, axes, metrics, spec.replications, spec.seed, spec.scheme, dict(spec.set), spec.description,
                stop, raw, dict(spec.labels))
    if not plan.points():
        raise _err("axis", "the plan has no points")
    return plan


def load_plan(plan: Plan | str | Path | Mapping[str, Any]) -> Plan:
    return plan if isinstance(plan, Plan) else parse_plan(plan)


__all__ = ["Plan", "Axis", "Stop", "PlanError", "parse_plan", "load_plan", "DEFAULT_RUN_LIMIT", "MAX_DEPTH"]
