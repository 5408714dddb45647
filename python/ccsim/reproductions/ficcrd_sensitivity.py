"""Seed 002 (FICCRD): how the results move with the RD settings the seed leaves open (issue #38).

The seed says only that RD packets are generated "proportionally to the TCP traffic", so one RD
per ``n_rd`` data packets is a [RECON], and so is the edge's RD timer (``rd_interval``: an RD when a
flow has gone that long without one, so that a flow held at ER = 0 learns when it may send again).
This table runs ``ficcrd/ficcrd`` (FIABC edges) on one seed over a grid of both, with the control
reading the data queue and every packet, at both bottleneck readings. ``rd_interval`` longer than
the run is the edge without a timer. Not counted: the statement rows are; this shows which of
their verdicts the RD settings could move. The grid lives in ``data/ficcrd.toml`` [sensitivity].
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from . import _common as C

PRESET = "ficcrd/ficcrd"
BOTTLENECK = "R11->R12"
TITLE = "Sensitivity to the RD settings (ficcrd/ficcrd, FIABC edges, seed 1; not counted)"
COLUMNS = [("bottleneck", "bottleneck"), ("queue", "Q counts"), ("n_rd", "n_rd"), ("rd_interval", "rd_interval"),
           ("goodput_mbps", "total goodput (Mb/s)"), ("jain", "Jain's index"), ("lowest_mbps", "lowest flow (Mb/s)"),
           ("drops", "bottleneck drops, whole run"), ("late_drops", "packets lost after warm-up"),
           ("data_queue", "mean data queue (packets)"), ("rd_queue", "mean RD queue (packets)"),
           ("max_queue", "max queue in the window"), ("timer_rds", "RDs sent on the timer")]


@dataclass(frozen=True)
class Task:
    rate: str
    queue: str
    n_rd: int
    rd_interval: str
    seed: int
    quick: bool


def tasks(data: dict[str, Any], quick: bool) -> list[Task]:
    """The grid of ``data/ficcrd.toml`` [sensitivity]; quick mode its corners, over 20 s."""
    g = data["sensitivity"]
    n_rds = [g["n_rd"][0], g["n_rd"][-1]] if quick else g["n_rd"]
    intervals = [g["rd_interval"][1]] if quick else g["rd_interval"]
    rates = (data["readings"]["primary"], data["readings"]["other"])
    queues = (data["readings"]["queue"], data["readings"]["queue_other"])
    return [Task(rate, queue, n, iv, g["seed"], quick)
            for rate, queue, n, iv in itertools.product(rates, queues, n_rds, intervals)]


def run(task: Task) -> dict[str, Any]:
    """One point of the grid (in a worker): its row."""
    import polars as pl

    from ..api import run as simulate

    sets: dict[str, Any] = {"run.duration": "20s", "run.measure_from": "10s"} if task.quick else {}
    sets.update({"link[1].rate": task.rate, "router[0].edge.n_rd": task.n_rd, "router[0].edge.rd_interval": task.rd_interval,
                 "router[1].control.queue": task.queue, "router[2].control.queue": task.queue, "measure.received": True})
    r = simulate(PRESET, seed=task.seed, set=sets)
    s = r.summary()
    b = next(p for p in s["ports"] if p["name"] == BOTTLENECK)
    g = [c["goodput_mbps"] for c in s["connections"]]
    start, end = s["window_s"]
    lost = r.dropped.group_by("time_s").agg(pl.col("cells").sum()).sort("time_s")
    at = lambda t: float(lost.filter(pl.col("time_s") <= t + 1e-9)["cells"].tail(1).sum())  # noqa: E731
    return {"bottleneck": f"{C.rate_mbps(task.rate):g} Mb/s", "queue": task.queue, "n_rd": task.n_rd,
            "rd_interval": task.rd_interval, "goodput_mbps": round(s["goodput_mbps_total"], 3),
            "jain": round(s["connections_fairness_index"], 4), "lowest_mbps": round(min(g), 3), "drops": b["drops"],
            "late_drops": int(at(end) - at(start)), "data_queue": round(b["mean_data_queue_packets"], 1),
            "rd_queue": round(b["mean_rd_queue_packets"], 1), "max_queue": b["max_queue_packets"],
            "timer_rds": sum(c["rd_sent_on_timer"] for c in s["connections"])}


__all__ = ["tasks", "run", "TITLE", "COLUMNS", "PRESET"]
