"""Metric names: what a sweep collects from each run's ``Result``.

Syntax (``docs/sweeps.md``):

- ``NAME``: a top-level number of the summary (``fairness_index``, ``events``, ``cell_hops``,
  ``sim_time_s``).
- ``AGG(TABLE.FIELD)``: an aggregate over every row of a summary table; AGG is ``mean``, ``sum``,
  ``min`` or ``max``; TABLE is ``sources``, ``connections``, ``ports`` or ``links``
  (``mean(sources.acr_mbps)``, ``sum(connections.retransmits)``).
- ``TABLE[ROW].FIELD``: one named row (``sources[S1].acr_mbps``, ``ports[SW1->SW2].mean_queue_cells``,
  ``links[L1 (SW1->SW2)].utilization``).
- ``series.KIND[NAME]``: the time average of a recorded series after warm-up deletion (MSER-5),
  with a batch-means confidence interval of its own; KIND is ``acr`` (source), ``queue`` (port),
  ``utilization`` (link), ``cwnd``, ``ssthresh``, ``rtt``, ``srtt`` or ``goodput`` (TCP connection),
  ``gateway_queue`` (HG-RCP gateway); NAME ``*`` sums every row at each sampling time
  (``series.goodput[*]``: the aggregate goodput). Adds the columns ``<metric>:half_width`` and
  ``<metric>:warmup_s``.

Names are checked when the plan is read; row and series names before any run, against the networks
the plan builds (``check.py``), and again against each run's result (the error lists the names that
exist).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..result import SERIES_COLUMNS

TOP = ("fairness_index", "events", "cell_hops", "sim_time_s", "goodput_mbps_total", "efficiency",
       "connections_fairness_index", "gfr_guarantee_met")
FIELDS = {
    "sources": ("acr_mbps", "rate_mbps", "maxmin_mbps", "final_acr_mbps", "cells_sent", "cells_received",
                "cells_dropped", "clr", "window_clr", "delay_mean_ms", "delay_p99_ms", "jitter_ms"),
    "ports": ("mean_queue_cells", "max_queue_cells", "max_queue_cells_run", "buffer_cells", "drops",
              # IP ports count packets and name their fields so (NaN elsewhere, as `*_cells` there)
              "mean_queue_packets", "max_queue_packets", "max_queue_packets_run", "buffer_packets",
              # FICCRD ports only (NaN elsewhere)
              "mean_data_queue_packets", "mean_rd_queue_packets"),
    "links": ("utilization", "rate_mbps"),
    "gateways": ("max_queue_cells", "mean_queue_cells", "mean_queue_after_arrival_cells", "time_mean_queue_cells",
                 "mean_queue_delay_ms", "rn_sent", "qn_sent", "drops"),
    "connections": ("goodput_mbps", "max_goodput_mbps", "delivered_bytes", "segments_sent", "retransmits",
                    "fast_retransmits", "timeouts", "timeouts_after_drop", "timeouts_without_loss", "drops",
                    "frames_corrupted", "ack_frames_lost",
                    "delay_mean_ms", "delay_p99_ms", "jitter_ms",
                    # GFR connections only (NaN elsewhere)
                    "mcr_mbps", "target_mbps", "clp0_mbps", "clp01_mbps", "frames_tagged"),
}
AGGS = {"mean": np.mean, "sum": np.sum, "min": np.min, "max": np.max}
# The series a metric may average (their columns as the result names them).
SERIES = {k: SERIES_COLUMNS[k] for k in ("acr", "queue", "utilization", "cwnd", "ssthresh", "rtt", "srtt", "goodput",
                                         "gateway_queue", "red_avg", "delay")}

_AGG_RE = re.compile(r"^(\w+)\((\w+)\.(\w+)\)$")
_ROW_RE = re.compile(r"^(\w+)\[(.+)\]\.(\w+)$")
_SERIES_RE = re.compile(r"^series\.(\w+)\[(.+)\]$")


@dataclass(frozen=True)
class Metric:
    name: str  # the text as written: the column name
    kind: str  # "top", "agg", "row", "series"
    table: str = ""
    field: str = ""
    agg: str = ""
    row: str = ""

    def columns(self) -> list[str]:
        if self.kind == "series":
            return [self.name, f"{self.name}:half_width", f"{self.name}:warmup_s"]
        return [self.name]

    def evaluate(self, result: Any) -> dict[str, float]:
        s = result.data
        if self.kind == "top":
            return {self.name: _number(s.get(self.name))}
        if self.kind == "agg":
            vals = [_number(r.get(self.field)) for r in s[self.table]]
            return {self.name: float(AGGS[self.agg](vals)) if vals else math.nan}
        if self.kind == "row":
            for r in s[self.table]:
                if r.get("name") == self.row:
                    if self.field not in r and "_cells" in self.field and r.get("unit") == "packets":
                        # Not a silent NaN: an IP port's queue is in packets, and named so.
                        raise ValueError(f"metric {self.name!r}: {self.row} is an IP port, whose queue is counted in "
                                         f"packets: {self.table}[{self.row}].{self.field.replace('_cells', '_packets')}")
                    return {self.name: _number(r.get(self.field))}
            names = ", ".join(str(r.get("name")) for r in s[self.table][:12])
            raise ValueError(f"metric {self.name!r}: no {self.table} row named {self.row!r} (there are: {names})")
        # series
        est, warm_s = series_estimate(result, self)
        return {self.name: est.mean, f"{self.name}:half_width": est.half_width, f"{self.name}:warmup_s": warm_s}


def _number(x: Any) -> float:
    """A summary value as a float: true/false as 1/0, absent (a field only some rows have) NaN."""
    return math.nan if x is None else float(x)


def series_values(result: Any, m: Metric) -> tuple[np.ndarray, np.ndarray]:
    """(time_s, value) of the named series (raises naming the metric when the name is absent)."""
    key, col = SERIES[m.table]
    ser = result.data["series"].get(m.table, {})
    names = np.asarray(ser.get(key, []), dtype=str)
    if m.row == "*":
        if not len(names):
            raise ValueError(f"metric {m.name!r}: the run recorded no {m.table} series")
        # every row is sampled at the same times: sum the rows of each time
        t, at = np.unique(np.asarray(ser["time_s"], dtype=float), return_inverse=True)
        return t, np.bincount(at, weights=np.asarray(ser[col], dtype=float), minlength=len(t))
    sel = names == m.row
    if not sel.any():
        have = sorted(set(names))[:12]
        raise ValueError(f"metric {m.name!r}: no {key} named {m.row!r} in the recorded series (there are: {', '.join(have)})")
    return np.asarray(ser["time_s"], dtype=float)[sel], np.asarray(ser[col], dtype=float)[sel]


def series_estimate(result: Any, m: Metric, warmup: str = "mser5", confidence: float = 0.95):
    """Mean after warm-up deletion, with its batch-means interval; and the warm-up in seconds."""
    from .stats import batch_means_ci, mser5

    t, y = series_values(result, m)
    d = mser5(y) if warmup == "mser5" else int(np.searchsorted(t, _seconds(warmup)))
    est = batch_means_ci(y[d:], batches=20, confidence=confidence)
    warm_s = float(t[d - 1]) if d > 0 else 0.0
    est.details["warmup_s"] = warm_s
    return est, warm_s


def _seconds(text: str) -> float:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(s|ms|us|µs|ns)\s*", text)
    if not m:
        raise ValueError(f"{text!r}: expected a duration such as \"2s\" or \"100ms\"")
    return float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}[m.group(2)]


def parse_metric(text: Any) -> Metric:
    """A ``Metric`` from its name; ``ValueError`` says what is wrong and what is allowed."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a metric is a non-empty string, got {text!r}")
    t = text.strip()
    if t in TOP:
        return Metric(t, "top")
    if m := _SERIES_RE.match(t):
        kind, row = m.groups()
        if kind not in SERIES:
            raise ValueError(f"{t!r}: unknown series {kind!r} (one of {', '.join(SERIES)})")
        return Metric(t, "series", table=kind, row=row)
    if m := _AGG_RE.match(t):
        agg, table, fld = m.groups()
        if agg not in AGGS:
            raise ValueError(f"{t!r}: unknown aggregate {agg!r} (one of {', '.join(AGGS)})")
        _check_field(t, table, fld)
        return Metric(t, "agg", table=table, field=fld, agg=agg)
    if m := _ROW_RE.match(t):
        table, row, fld = m.groups()
        _check_field(t, table, fld)
        return Metric(t, "row", table=table, field=fld, row=row)
    if "." in t and t.split(".", 1)[0] in FIELDS:
        raise ValueError(f"{t!r}: a table field needs an aggregate, mean({t}), or a row, {t.split('.', 1)[0]}[NAME].{t.split('.', 1)[1]}")
    if t == "wall_s":
        raise ValueError("'wall_s' is not a model result (it is always recorded as the column wall_s)")
    raise ValueError(
        f"{t!r}: unknown metric; use one of {', '.join(TOP)}, AGG(TABLE.FIELD), TABLE[ROW].FIELD or series.KIND[NAME]"
    )


def _check_field(text: str, table: str, fld: str) -> None:
    if table not in FIELDS:
        raise ValueError(f"{text!r}: unknown table {table!r} (one of {', '.join(FIELDS)})")
    if fld not in FIELDS[table]:
        raise ValueError(f"{text!r}: {table} has no field {fld!r} (one of {', '.join(FIELDS[table])})")


__all__ = ["Metric", "parse_metric", "series_estimate", "series_values", "TOP", "FIELDS", "SERIES"]
