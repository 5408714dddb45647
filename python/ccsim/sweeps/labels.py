"""How the sweep report names a metric the plan's ``[labels]`` do not: in words with its unit,
from the metric's own syntax (`metrics.py`): ``ports[SW1->SW2].mean_queue_cells`` → "SW1->SW2:
mean queue (cells)", ``mean(sources.acr_mbps)`` → "mean over sources: ACR (Mb/s)",
``fairness_index`` → "Jain's fairness index". A name it cannot read stays as written."""

from __future__ import annotations

from .metrics import SERIES, parse_metric

_TOP = {
    "fairness_index": "Jain's fairness index",
    "connections_fairness_index": "Jain's index over the connections",
    "goodput_mbps_total": "total goodput (Mb/s)",
    "sim_time_s": "simulated time (s)",
    "gfr_guarantee_met": "GFR guarantee met",
    "cell_hops": "cell hops",
}
_FIELDS = {
    "maxmin_mbps": "max-min rate (Mb/s)",
    "window_clr": "CLR in the window",
    "max_queue_cells_run": "max queue, whole run (cells)",
    "mean_queue_after_arrival_cells": "mean queue after arrival (cells)",
    "time_mean_queue_cells": "time-mean queue (cells)",
    "delay_p99_ms": "p99 delay (ms)",
    "red_avg": "RED average queue",
}
_UNITS = {"mbps": "Mb/s", "cells": "cells", "packets": "packets", "ms": "ms", "s": "s", "bytes": "bytes"}
_ACRONYMS = {"acr", "clr", "mcr", "pcr", "rtt", "srtt", "rn", "qn", "dpf", "mapr", "clp0", "clp01", "gfr", "red"}


def field_words(field: str) -> str:
    """``mean_queue_cells`` → "mean queue (cells)", ``acr_mbps`` → "ACR (Mb/s)"."""
    if field in _FIELDS:
        return _FIELDS[field]
    words = field.split("_")
    unit = _UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    text = " ".join(w.upper() if w in _ACRONYMS else w for w in words)
    return f"{text} ({unit})" if unit else text


def readable(name: str) -> str:
    """The metric ``name`` in words (the name itself if it is not a metric)."""
    try:
        m = parse_metric(name)
    except Exception:  # noqa: BLE001 (not a metric: an axis path, a column of another kind)
        return name
    if m.kind == "top":
        return _TOP.get(m.name, field_words(m.name))
    if m.kind == "agg":
        return f"{m.agg} over {m.table}: {field_words(m.field)}"
    if m.kind == "row":
        return f"{m.row}: {field_words(m.field)}"
    if m.kind == "series":
        value = SERIES.get(m.table, ("", m.table))[1]
        who = "sum over all" if m.row == "*" else m.row
        return f"{who}: time-average {field_words(value)}"
    return name


__all__ = ["readable", "field_words"]
