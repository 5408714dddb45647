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

from ._figures import FORMATS, check_formats  # noqa: E402
from .result import counts_packets  # noqa: E402

if TYPE_CHECKING:
    from .result import Result

# Up to this many lines each get their own colour and line style; beyond it, sources of one group
# (`A1`, `A2`, ... → `A`) share one.
_MAX_LINES_WITH_LEGEND = 12
_COLOURS = plt.get_cmap("tab10").colors
_STYLES = ["-", "--", "-.", ":"]
# A line with more points than this is drawn from its envelope (`_envelope`): a figure is ~1,000
# pixels wide, so more points cannot show, and matplotlib's cost grows with them.
_ENVELOPE_BINS = 1000
# Fixed margins, room for the labels the panels have: a layout engine measures every label of
# every figure first (~50 ms a figure). The left margin holds five-digit ticks (12000 cells).
_MARGINS = dict(left=0.125, right=0.97, bottom=0.13, top=0.91)


def _group(name: str) -> str:
    """`A12` → `A`, `S3` → `S`: sources of one group share a colour."""
    m = re.match(r"^(.*?)(\d+)$", name)
    return m.group(1) if m and m.group(1) else name


def _axes(ax):
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4))
        fig.subplots_adjust(**_MARGINS)
        return fig, ax
    return ax.figure, ax


def _envelope(x, y, bins: int = _ENVELOPE_BINS):
    """A long series reduced to the first, lowest, highest and last value of each of `bins` equal
    time slices (the M4 reduction): drawn as steps at screen resolution it looks like the whole
    series, every peak and trough kept. Short series are returned as they are."""
    import numpy as np

    if len(x) <= 4 * bins:
        return x, y
    edges = np.linspace(x[0], x[-1], bins + 1)
    starts = np.unique(np.searchsorted(x, edges[:-1], side="left"))
    starts = starts[starts < len(x)]
    ends = np.append(starts[1:], len(x)) - 1
    lo, hi = np.minimum.reduceat(y, starts), np.maximum.reduceat(y, starts)
    # Per slice: (start, first), (start, min), (start, max), (end, last); a step line through
    # them draws the slice's range as one vertical stroke, then its last value.
    xs = np.column_stack([x[starts], x[starts], x[starts], x[ends]]).ravel()
    ys = np.column_stack([y[starts], lo, hi, y[ends]]).ravel()
    return xs, ys


def _style(i: int) -> dict:
    """The i-th line's colour and dash: ten colours, each set of ten with the next line style, and
    the style also turning with the colour so that equal values (GFC1's A and D) stay visible."""
    return {"color": _COLOURS[i % len(_COLOURS)], "linestyle": _STYLES[(i + i // len(_COLOURS)) % len(_STYLES)]}


def _lines(ax, df: pl.DataFrame, key: str, value: str, names: list[str]) -> dict[str, dict]:
    """A step line per name (per group when there are many); returns each drawn name's style."""
    grouped = len(names) > _MAX_LINES_WITH_LEGEND
    styles: dict[str, dict] = {}
    drawn: dict[str, dict] = {}
    if key in df.columns:
        # Only the rows of the names drawn (the queue panel draws 6 of GFC1's 54 ports).
        wanted = df.filter(pl.col(key).is_in(names)) if len(names) < df[key].n_unique() else df
        parts = {k[0]: part for k, part in wanted.partition_by(key, as_dict=True).items()}
    else:
        parts = {}
    for name in names:
        part = parts.get(name)
        if part is None or part.is_empty():
            continue
        label = _group(name) if grouped else name
        first = label not in styles
        style = styles.setdefault(label, _style(len(styles)))
        x, y = _envelope(part["time_ms"].to_numpy(), part[value].to_numpy())
        ax.step(x, y, where="post", linewidth=1.0, label=label if first else None, **style)
        drawn[name] = style
    if styles:
        # A fixed place: `loc="best"` searches every line's points (seconds on long runs).
        ax.legend(fontsize="small", ncol=2 if len(styles) > 6 else 1, loc="upper right", framealpha=0.8)
    return drawn


def _series(result: "Result", name: str, names: list[str] | None) -> pl.DataFrame:
    """Series `name` to draw: its table; for a streamed result (`Result.streamed`) its lines'
    envelopes, computed by a streaming query (the whole series is never in memory)."""
    if not result.streamed:
        return getattr(result, name)
    from ._streamed import envelope

    if names is None:
        names = result.data["series"].names_in(name)
    return envelope(result.data["series"], name, names, _ENVELOPE_BINS).with_columns((pl.col("time_ms") / 1e3).alias("time_s"))


def _has_rows(result: "Result", name: str) -> bool:
    if result.streamed:
        return bool(result.data["series"].parts(name))
    return getattr(result, name).height > 0


def _title(result: "Result", what: str) -> str:
    """`gfc1, seed 1: allowed cell rate`: the scenario's own name (the preset path's last part)."""
    return f"{result.scenario.rsplit('/', 1)[-1]}, seed {result.seed}: {what}"


DOTTED = (0, (1, 2))
DASH_DOT = (0, (4, 2, 1, 2))


def _references(ax, drawn: dict[str, dict], kinds: list[tuple[dict[str, list[float]], str, tuple]]) -> None:
    """Thin horizontal reference lines: for each kind (levels per drawn name, its legend label,
    its line style) one line per distinct (colour, level) in the name's colour, and one legend
    entry per kind that drew any."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    extra = False
    for levels, label, linestyle in kinds:
        seen = set()
        for name, style in drawn.items():
            for level in levels.get(name, ()):
                if (style["color"], round(level, 9)) in seen:
                    continue
                seen.add((style["color"], round(level, 9)))
                ax.axhline(level, color=style["color"], linestyle=linestyle, linewidth=0.9, alpha=0.8)
        if seen:
            handles.append(Line2D([], [], color="black", linestyle=linestyle, linewidth=0.9))
            labels.append(label)
            extra = True
    if extra:
        ax.legend(handles, labels, fontsize="small", ncol=2 if len(labels) > 7 else 1, loc="upper right", framealpha=0.8)


def _panel(ax, result: "Result", df: pl.DataFrame, key: str, value: str, names, ylabel: str, title: str):
    """One time-series panel: a step line per name, axes labelled like the seeds' figures."""
    fig, ax = _axes(ax)
    if names is None:
        names = df[key].unique(maintain_order=True).to_list() if key in df.columns else []
    drawn = _lines(ax, df, key, value, names)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(ylabel)
    ax.set_title(_title(result, title))
    ax.grid(alpha=0.3)
    return fig, ax, drawn


def plot_acr(result: "Result", sources: list[str] | None = None, ax=None):
    """ACR of each source in Mb/s against time in ms (groups share a style when many), with each
    one's max-min fair rate as a dotted line in its colour."""
    fig, ax, drawn = _panel(ax, result, _series(result, "acr", sources), "source", "acr_mbps", sources, "ACR (Mb/s)", "allowed cell rate")
    maxmin = {s["name"]: s["maxmin_mbps"] for s in result.data["sources"] if s.get("maxmin_mbps") is not None}
    _references(ax, drawn, [({k: [v] for k, v in maxmin.items()}, "max-min fair rate", DOTTED)])
    return fig


def default_ports(result: "Result", limit: int = 6) -> list[str]:
    """Switch ports worth looking at: the ones whose queue grew most, trunks first."""
    def run_max(p):
        from .result import port_field

        return port_field(p, "max_queue_run") or port_field(p, "max_queue") or 0

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
    fig, ax, drawn = _panel(ax, result, _series(result, "queue", names), "port", "queue_cells", names, label, title)
    # A port's buffer size and the thresholds of its buffer policy or RED, each where the queue
    # came within a quarter of it (a level far above the queue would flatten the queue's scale).
    buffers, thresholds = {}, {}
    from .result import port_field

    for p in result.data["ports"]:
        # In the port's unit (`max_queue_packets_run`, `buffer_packets` at IP ports).
        peak = port_field(p, "max_queue_run") or port_field(p, "max_queue") or 0
        buffers[p["name"]] = [x for x in [port_field(p, "buffer")] if x and peak >= 0.25 * x]
        thresholds[p["name"]] = [x for x in (p.get("thresholds") or {}).values() if x and peak >= 0.25 * x]
    _references(ax, drawn, [(buffers, "buffer size", DOTTED), (thresholds, "drop thresholds", DASH_DOT)])
    return fig


def plot_received(result: "Result", sources: list[str] | None = None, ax=None):
    """Cumulative data cells delivered to each destination (the slope is the throughput)."""
    return _panel(ax, result, _series(result, "received", sources), "source", "cells", sources, "cells received", "cells received")[0]


def plot_lost(result: "Result", sources: list[str] | None = None, ax=None):
    """Cumulative data cells (packets on IP flows) each flow lost, against time: when its losses
    happened (the slope is the loss rate)."""
    unit = "packets" if counts_packets(result.data) else "cells"
    return _panel(ax, result, _series(result, "dropped", sources), "source", "cells", sources, f"{unit} lost", f"{unit} lost")[0]


def _lost_any(result: "Result") -> bool:
    if result.streamed:
        return (result.data["series"].max("dropped") or 0) > 0
    lost = result.dropped["cells"]
    return not lost.is_empty() and lost.max() > 0


def plot_cwnd(result: "Result", connections: list[str] | None = None, ax=None):
    """TCP congestion window of each connection in kB against time in ms."""
    df = _series(result, "cwnd", connections).with_columns((pl.col("cwnd_bytes") / 1000.0).alias("cwnd_kB"))
    return _panel(ax, result, df, "connection", "cwnd_kB", connections, "cwnd (kB)", "congestion windows")[0]


def plot_seq(result: "Result", connections: list[str] | None = None, ax=None):
    """Highest sequence number sent per connection in MB against time in ms (seed 002, Fig. 4)."""
    df = _series(result, "seq", connections).with_columns((pl.col("seq_bytes") / 1e6).alias("seq_MB"))
    return _panel(ax, result, df, "connection", "seq_MB", connections, "sequence number (MB)", "sender sequence numbers")[0]


def _bars(ax, result: "Result", field: str, ylabel: str, title: str):
    fig, ax = _axes(ax)
    conns = result.data.get("connections") or []
    names = [c["name"] for c in conns]
    ax.bar(range(len(conns)), [c[field] for c in conns], color=plt.rcParams["axes.prop_cycle"].by_key()["color"][0])
    ax.set_xticks(range(len(conns)), names, rotation=90 if len(conns) > 16 else 0, fontsize="small")
    ax.set_xlabel("connection")
    ax.set_ylabel(ylabel)
    ax.set_title(_title(result, title))
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
        ax.legend(fontsize="small", loc="upper right", framealpha=0.8)
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
    fig.subplots_adjust(**_MARGINS, wspace=0.22)
    if _shows_acr(result):
        plot_acr(result, ax=a)
    else:
        plot_goodput(result, ax=a)
    plot_queue(result, ax=b)
    if path is not None:
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig


#: zlib level of the PNGs `write_plots` writes: 1 encodes a plot several times faster than PIL's
#: default (6), for files ~10 % larger (docs/benchmarks.md, "Writing results").
PNG_COMPRESSION = 1


def _save_options(fmt: str) -> dict:
    return {"pil_kwargs": {"compress_level": PNG_COMPRESSION}} if fmt == "png" else {}


def _side_by_side(left: Path, right: Path, path: Path) -> None:
    """The overview from two panels already drawn: their images pasted side by side (drawing them
    again would double the plotting time)."""
    from PIL import Image

    with Image.open(left) as a, Image.open(right) as b:
        both = Image.new("RGBA", (a.width + b.width, max(a.height, b.height)), "white")
        both.paste(a, (0, 0))
        both.paste(b, (a.width, 0))
        both.save(path, compress_level=PNG_COMPRESSION)


def write_plots(result: "Result", out: Path, formats=("png",)) -> list[Path]:
    """Every panel that has something to show, and the overview, in each of ``formats``."""
    check_formats(formats)
    written = []
    panels = []
    if _shows_acr(result):
        panels.append(("acr", plot_acr))
    panels.append(("queue", plot_queue))
    if _has_rows(result, "received"):
        panels.append(("received", plot_received))
    if _lost_any(result):
        panels.append(("lost", plot_lost))
    if result.data.get("connections"):
        panels += [("cwnd", plot_cwnd), ("seq", plot_seq), ("goodput", plot_goodput), ("drops", plot_drops)]
    for name, fn in panels:
        fig = fn(result)
        for fmt in formats:
            path = out / f"{name}.{fmt}"
            fig.savefig(path, dpi=120, **_save_options(fmt))
            written.append(path)
        plt.close(fig)
    # The overview, as `plot_overview` lays it out: ACR (or goodput) beside the queues; in PNG
    # from the two panels already drawn, in vector formats drawn again.
    for fmt in formats:
        if fmt == "png":
            first = out / ("acr.png" if _shows_acr(result) else "goodput.png")
            _side_by_side(first, out / "queue.png", out / "overview.png")
        else:
            plot_overview(result, out / f"overview.{fmt}")
        written.append(out / f"overview.{fmt}")
    return written


__all__ = [
    "plot_acr", "plot_queue", "plot_received", "plot_lost", "plot_cwnd", "plot_seq", "plot_goodput", "plot_drops", "plot_overview",
    "write_plots", "default_ports", "check_formats", "FORMATS",
]
