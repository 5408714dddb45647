"""Per-point summaries of a sweep with the confidence interval each one used."""

from __future__ import annotations

import math

import polars as pl

from .stats import Estimate, replication_ci

_NOT_METRICS = {"point", "replication", "seed", "scenario_hash", "scenario_digest", "fingerprint", "sim_time_s", "wall_s"}


def metric_columns(frame: pl.DataFrame) -> list[str]:
    """The metric columns of a runs table (not axes, bookkeeping or per-metric interval columns)."""
    return [c for c in frame.columns
            if c not in _NOT_METRICS and not c.startswith(("axis:", "stop:")) and ":" not in c.split("]")[-1]
            and frame.schema[c].is_numeric()]


def axis_columns(frame: pl.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.startswith("axis:")]


def estimate(values: list[float], half_widths: list[float] | None, confidence: float = 0.95) -> Estimate:
    """Replications when there are two or more; a single run's batch-means interval when the metric
    has one; otherwise the value alone (method "none")."""
    if len(values) >= 2:
        return replication_ci(values, confidence)
    if len(values) == 1 and half_widths and half_widths[0] is not None and math.isfinite(half_widths[0]):
        return Estimate(float(values[0]), float(half_widths[0]), confidence, "batch-means", 1)
    return replication_ci(values, confidence)


def summarize(frame: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """One row per (point, metric): the axis values, ``mean``, ``half_width``, ``low``, ``high``,
    ``n`` (runs), ``method`` (replications / batch-means / none) and ``confidence``."""
    axes = axis_columns(frame)
    rows = []
    for (point,), g in frame.sort("point", "replication").group_by(["point"], maintain_order=True):
        first = g.row(0, named=True)
        for m in metric_columns(frame):
            vals = [v for v in g[m].to_list() if v is not None]
            hw_col = f"{m}:half_width"
            hws = g[hw_col].to_list() if hw_col in g.columns else None
            e = estimate(vals, hws, confidence)
            rows.append({"point": point, **{a: first[a] for a in axes}, "metric": m, "mean": e.mean,
                         "half_width": e.half_width, "low": e.low, "high": e.high, "n": e.n, "method": e.method,
                         "confidence": confidence})
    return pl.DataFrame(rows, infer_schema_length=None)


__all__ = ["summarize", "metric_columns", "axis_columns", "estimate"]
