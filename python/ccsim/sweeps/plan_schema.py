"""The shape of a sweep plan, checked by pydantic: which fields exist, their types and ranges.

`plan.py` reads a plan through `PlanSpec` and keeps what pydantic cannot say (the scenario's
resolution, zip groups, metric syntax, labels that name the plan's own axes and metrics).
`first_error` turns pydantic's first complaint into the one-line form every ccsim error has: the
plan field as a path (``axis[1].range.step``), then what is wrong with it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator


def is_number(v: Any) -> bool:
    """An int or a float that is finite as a float (a 400-digit integer is not)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _number(v: Any) -> int | float:
    if not is_number(v):
        raise ValueError(f"must be a finite number, got {_brief(v)}")
    return v


def _brief(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _text(what: str):
    def check(v: Any) -> str:
        if not isinstance(v, str) or not v.strip():
            raise ValueError(f"must be {what}")
        return v

    return check


def _table_of(what: str):
    def check(v: Any) -> dict:
        if not isinstance(v, dict):
            raise ValueError(f"must be a table of {what}")
        return v

    return check


Number = Annotated[Any, AfterValidator(_number)]
# Strict integers: a TOML 5 is an int, and true is not one.
Count = Annotated[int, Field(strict=True, ge=1)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RangeSpec(_Spec):
    start: Number
    stop: Number
    step: Number | None = None
    num: Count | None = None

    @model_validator(mode="after")
    def _one_of(self) -> "RangeSpec":
        if (self.step is None) == (self.num is None):
            raise ValueError("give exactly one of step or num")
        return self


class AxisSpec(_Spec):
    path: Annotated[Any, AfterValidator(_text('a scenario field path such as "source[0].count"'))]
    values: Annotated[list, Field(min_length=1)] | None = None
    range: RangeSpec | None = None
    zip: Annotated[Any, AfterValidator(_text("a string naming the group of axes that vary together"))] | None = None
    unit: Annotated[Any, AfterValidator(_text('a string such as "ms" or "cells"'))] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> "AxisSpec":
        if (self.values is None) == (self.range is None):
            raise ValueError("give exactly one of values or range")
        return self


class StopSpec(_Spec):
    metric: str
    precision: Annotated[float, Field(gt=0, lt=1)] = 0.05
    confidence: Annotated[float, Field(gt=0, lt=1)] = 0.95
    start: str | None = None
    max_duration: str = "2s"
    warmup: str = "mser5"


def _axis_list(v: Any) -> Any:
    # `[axis]` (one table) as well as `[[axis]]` (a list of them).
    return [v] if isinstance(v, dict) else v


class PlanSpec(_Spec):
    name: Annotated[Any, AfterValidator(_text("a non-empty string"))] | None = None
    description: str = ""
    scenario: Annotated[Any, AfterValidator(lambda v: v if isinstance(v, (str, dict)) else _bad_scenario())]
    scheme: str | None = None
    seed: Annotated[int, Field(strict=True, ge=0, lt=2**63)] = 1
    replications: Count = 1
    #: Most runs (points × replications) the plan may have; default `plan.DEFAULT_RUN_LIMIT`.
    run_limit: Count | None = None
    metrics: Annotated[list[str], Field(min_length=1)]
    set: Annotated[Any, AfterValidator(_table_of("field path = value"))] = Field(default_factory=dict)
    axis: Annotated[list[AxisSpec], BeforeValidator(_axis_list)] = Field(default_factory=list)
    stop: StopSpec | None = None
    labels: Annotated[Any, AfterValidator(_table_of('axis path or metric name = "label"'))] = Field(default_factory=dict)


def _bad_scenario():
    raise ValueError("must be a preset name, a file path or a table")


# What a missing required field is for (the rest say "required").
_REQUIRED = {
    "scenario": "required: a preset name, a scenario file or a table",
    "metrics": "required: a non-empty list of metric names (`ccsim docs sweeps`)",
    "path": 'required: a scenario field path such as "source[0].count"',
    "metric": 'required: a series metric such as "series.utilization[SW1->SW2]"',
}


# The model of each nested table, by its key.
_TABLES = {"axis": AxisSpec, "range": RangeSpec, "stop": StopSpec}


def _path(loc: tuple) -> str:
    """The field's path as a plan writes it; a key that is not a bare TOML key (a newline, a space,
    a dot) is quoted as TOML quotes it, so the error stays one line and names the key exactly."""
    out = ""
    for part in loc:
        if not isinstance(part, int) and not re.fullmatch(r"[A-Za-z0-9_-]+", str(part)):
            part = json.dumps(str(part), ensure_ascii=False)
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def first_error(e: ValidationError) -> tuple[str, str]:
    """The plan field and the message of pydantic's first error."""
    err = e.errors()[0]
    loc, kind, msg = tuple(err["loc"]), err["type"], err["msg"]
    where = _path(loc)
    if kind == "missing":
        return where, _REQUIRED.get(str(loc[-1]), "required")
    if kind == "extra_forbidden":
        table = next((p for p in reversed(loc[:-1]) if isinstance(p, str)), None)
        model = _TABLES.get(table, PlanSpec)
        return where, f"unknown field (allowed: {', '.join(sorted(model.model_fields))})"
    if kind == "value_error":
        return where, msg.removeprefix("Value error, ")
    if kind in ("model_type", "dict_type"):
        return where, f"must be a table, got {err['input']!r}"
    if kind == "too_short":
        return where, "must be a non-empty list"
    # "Input should be a valid integer" -> "must be a valid integer, got 'x'"
    what = msg.removeprefix("Input should be ")
    return where, f"must be {what}, got {err['input']!r}" if what != msg else f"{msg}, got {err['input']!r}"


__all__ = ["PlanSpec", "AxisSpec", "RangeSpec", "StopSpec", "first_error", "is_number"]
