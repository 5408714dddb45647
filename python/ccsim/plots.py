"""Plots in the style of the seed papers' panels: ACR (Mb/s) and queue length (cells) against
time (ms), and cumulative cells received per destination. Matplotlib with the Agg backend,
so nothing needs a display."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from .result import counts_packets  # noqa: E402

if TYPE_CHECKING:
    from .result import Result

_MAX_LINES_WITH_LEGEND = 8


def _group(name: str) -> str:
    """`A12` → `A`, `S3` → `S`: sources of one group share a colour."""
    m = re.match(r"^(.*?)(\d+)$", name)
    return m.group(1) if m and m.group(1) else name


def _axes(ax):
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4))
        return fig, ax
    return ax.figure, ax


def _lines(ax, df: pl.DataFrame, key: str, value: str, names: list[str]):
    grouped = len(names) > _MAX_LINES_WITH_LEGEND
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours: dict[str, str] = {}
    for name in names:
        part = df.filter(pl.col(key) == name)
        if part.is_empty():
            continue
        label = _group(name) if grouped else name
        first = label not in colours
        colour = colours.setdefault(label, cycle[len(colours) % len(cycle)])
        x, y = part["time_ms"].to_numpy(), part[value].to_numpy()
        ax.step(x, y, where="post", color=colour, linewidth=1.0, label=label if first else None)
    if colours:
        ax.legend(fontsize="small", ncol=2 if len(colours) > 6 else 1, loc="best")


def _panel(ax, result: "Result", df: pl.DataFrame, key: str, value: str, names, ylabel: str, title: str):
    """One time-series panel: a step line per name, axes labelled like the seeds' figures."""
    fig, ax = _axes(ax)
    if names is None:
        names = list(dict.fromkeys(df[key].to_list())) if key in df.columns else []
    _lines(ax, df, key, value, names)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{result.scenario}: {title}")
    ax.grid(alpha=0.3)
    return fig


def plot_acr(result: "Result", sources: list[str] | None = None, ax=None):
    """ACR of each source in Mb/s against time in ms (groups share a colour when many)."""
    return _panel(ax, result, result.acr, "source", "acr_mbps", sources, "ACR (Mb/s)", "allowed cell rate")


def default_ports(result: "Result", limit: int = 6) -> list[str]:
    """Switch ports worth looking at: the ones whose queue grew most, trunks first."""
    def run_max(p):
        return p.get("max_queue_cells_run", p["max_queue_cells"])

    ports = [p for p in result.data["ports"] if run_max(p) > 1]
    ports.sort(key=lambda p: (-run_max(p), p["name"]))
    return [p["name"] for p in ports[:limit]] or [p["name"] for p in result.data["ports"][:1]]


def plot_queue(result: "Result", ports: list[str] | None = None, ax=None):
    """Queue length of switch (cells) or router (packets) output ports against time in ms."""
    names = ports or default_ports(result)
    units = {p["name"]: p.get("unit", "cells") for p in result.data["ports"]}
    if names and all(units.get(n) == "packets" for n in names):
        label, title = "queue length (packets)", "router queues"
    else:
        label, title = "queue length (cells)", "switch queues"
    return _panel(ax, result, result.queue, "port", "queue_cells", names, label, title)


def plot_received(result: "Result", sources: list[str] | None = None, ax=None):
    """Cumulative data cells delivered to each destination (the slope is the throughput)."""
    return _panel(ax, result, result.received, "source", "cells", sources, "cells received", "cells received")


def plot_cwnd(result: "Result", connections: list[str] | None = None, ax=None):
    """TCP congestion window of each connection in kB against time in ms."""
    df = result.cwnd.with_columns((pl.col("cwnd_bytes") / 1000.0).alias("cwnd_kB"))
    return _panel(ax, result, df, "connection", "cwnd_kB", connections, "cwnd (kB)", "congestion windows")


def plot_seq(result: "Result", connections: list[str] | None = None, ax=None):
    """Highest sequence number sent per connection in MB against time in ms (seed 002, Fig. 4)."""
    df = result.seq.with_columns((pl.col("seq_bytes") / 1e6).alias("seq_MB"))
    return _panel(ax, result, df, "connection", "seq_MB", connections, "sequence number (MB)", "sender sequence numbers")


def _bars(ax, result: "Result", field: str, ylabel: str, title: str):
    fig, ax = _axes(ax)
    conns = result.data.get("connections") or []
    names = [c["name"] for c in conns]
    ax.bar(range(len(conns)), [c[field] for c in conns], color=plt.rcParams["axes.prop_cycle"].by_key()["color"][0])
    ax.set_xticks(range(len(conns)), names, rotation=90 if len(conns) > 16 else 0, fontsize="small")
    ax.set_xlabel("connection")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{result.scenario}: {title}")
    ax.grid(alpha=0.3, axis="y")
    return fig, ax, conns


def plot_goodput(result: "Result", ax=None):
    """Goodput of each TCP connection over the measurement window, with each one's max-min share
    (the dashed line; seed 002 Fig. 3, seed 001's per-source throughputs)."""
    fig, ax, conns = _bars(ax, result, "goodput_mbps", "goodput (Mb/s)", "goodput per connection")
    if conns:
        ax.step(
            [i - 0.5 for i in range(len(conns))] + [len(conns) - 0.5],
            [c["max_goodput_mbps"] for c in conns] + [conns[-1]["max_goodput_mbps"]],
            where="post", color="black", linestyle="--", linewidth=1.0, label="max-min share",
        )
        ax.legend(fontsize="small", loc="best")
    return fig


def plot_drops(result: "Result", ax=None):
    """Cells or packets of each TCP connection dropped in the network, whole run (seed 002 Fig. 6)."""
    unit = "packets" if counts_packets(result.data) else "cells"
    fig, _, _ = _bars(ax, result, "drops", f"{unit} dropped", "drops per connection")
    return fig


def _shows_acr(result: "Result") -> bool:
    """An ACR panel has something to show: ABR sources, or no TCP connections to show instead."""
    return bool(result.data["sources"]) or not result.data.get("connections")


def plot_overview(result: "Result", path: str | Path | None = None):
    """ACR (or, without ABR sources, TCP goodput) and queue panels side by side, like the seed
    papers' figures."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.5))
    if _shows_acr(result):
        plot_acr(result, ax=a)
    else:
        plot_goodput(result, ax=a)
    plot_queue(result, ax=b)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig


def write_plots(result: "Result", out: Path) -> list[Path]:
    written = []
    panels = []
    if _shows_acr(result):
        panels.append(("acr", plot_acr))
    panels.append(("queue", plot_queue))
    if len(result.data["series"]["received"].get("time_s", [])):
        panels.append(("received", plot_received))
    if result.data.get("connections"):
        panels += [("cwnd", plot_cwnd), ("seq", plot_seq), ("goodput", plot_goodput), ("drops", plot_drops)]
    for name, fn in panels:
        fig = fn(result)
        fig.tight_layout()
        path = out / f"{name}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    path = out / "overview.png"
    plot_overview(result, path)
    written.append(path)
    return written


__all__ = [
    "plot_acr", "plot_queue", "plot_received", "plot_cwnd", "plot_seq", "plot_goodput", "plot_drops", "plot_overview",
    "write_plots", "default_ports",
]
