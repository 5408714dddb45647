"""Plots in the style of the seed papers' panels: ACR (Mb/s) and queue length (cells, or packets
on routers) against time, and cumulative cells received per destination. Each function returns
a matplotlib figure drawn without pyplot (`_mpl`): importing this module selects no backend,
nothing needs a display, and in Jupyter a returned figure shows inline. How they look (time unit,
ticks, legends outside the data, size and resolution) is `_figstyle`'s; what their titles and
reference lines say about the run, `_runinfo`'s."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from . import _figstyle as style
from . import _mpl, _runinfo
from ._figures import FORMATS, check_formats
from .result import counts_packets

if TYPE_CHECKING:
    from .result import Result

# Up to this many lines each get their own colour and line style; beyond it, sources of one group
# (`A1`, `A2`, ... → `A`) share one.
_MAX_LINES_WITH_LEGEND = 12
_COLOURS = _mpl.get_cmap("tab10").colors
_STYLES = ["-", "--", "-.", ":"]
# A line with more points than this is drawn from its envelope (`_envelope`): a figure is ~1,000
# pixels wide, so more points cannot show, and matplotlib's cost grows with them.
_ENVELOPE_BINS = 1000

DOTTED = (0, (1, 2))
DASH_DOT = (0, (4, 2, 1, 2))
#: How a RED port's average queue is drawn over its queue: thicker, in a darker shade of its colour.
RED_AVERAGE_WIDTH = 1.8


def _group(name: str) -> str:
    """`A12` → `A`, `S3` → `S`: sources of one group share a colour."""
    m = re.match(r"^(.*?)(\d+)$", name)
    return m.group(1) if m and m.group(1) else name


def _axes(ax):
    """``(figure, axes, own)``: a new panel when ``ax`` is None (``own``: ccsim lays it out)."""
    if ax is None:
        fig, (ax,) = style.new_figure(1)
        return fig, ax, True
    return ax.figure, ax, False


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


def _time(result: "Result") -> tuple[str, float]:
    """The run's time unit and the factor from ms to it (`_figstyle.time_unit`)."""
    return style.time_unit(float(result.data.get("sim_time_s") or 0.0))


def _parts(df: pl.DataFrame, key: str, names: list[str]) -> dict[str, pl.DataFrame]:
    if key not in df.columns:
        return {}
    # Only the rows of the names drawn (the queue panel draws 6 of GFC1's 54 ports).
    wanted = df.filter(pl.col(key).is_in(names)) if len(names) < df[key].n_unique() else df
    return {k[0]: part for k, part in wanted.partition_by(key, as_dict=True).items()}


def _lines(ax, df: pl.DataFrame, key: str, value: str, names: list[str], scale: float) -> dict[str, dict]:
    """A step line per name (per group when there are many), time in ms times ``scale``; returns
    each drawn name's style."""
    grouped = len(names) > _MAX_LINES_WITH_LEGEND
    styles: dict[str, dict] = {}
    drawn: dict[str, dict] = {}
    parts = _parts(df, key, names)
    for name in names:
        part = parts.get(name)
        if part is None or part.is_empty():
            continue
        label = _group(name) if grouped else name
        first = label not in styles
        style_ = styles.setdefault(label, _style(len(styles)))
        x, y = _envelope(part["time_ms"].to_numpy() * scale, part[value].to_numpy())
        ax.step(x, y, where="post", linewidth=1.0, label=label if first else None, **style_)
        drawn[name] = style_
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
    """`gfc1, ERICA, seed 1: allowed cell rate`: the scenario's own name (the preset path's last
    part), its scheme (`_runinfo.scheme`: none when the result has no scenario) and seed."""
    scheme = _runinfo.scheme(_runinfo.resolved(result))
    return f"{result.scenario.rsplit('/', 1)[-1]}, {scheme + ', ' if scheme else ''}seed {result.seed}: {what}"


def _references(ax, drawn: dict[str, dict], levels: dict[str, list[float]], linestyle, span=None) -> bool:
    """Thin horizontal reference lines, one per distinct (colour, level) of the drawn names, in
    the name's colour (darker): across the axes, or over ``span[name] = (x0, x1)``. Whether it drew
    any."""
    seen = set()
    for name, style_ in drawn.items():
        for level in levels.get(name, ()):
            if (style_["color"], round(level, 9)) in seen:
                continue
            seen.add((style_["color"], round(level, 9)))
            # Over the data lines, in a darker shade of the name's colour: a rate that sits on its
            # reference (one-at-a-time's sources at their share) must not hide it.
            kw = dict(color=_darker(style_["color"], 0.3), linestyle=linestyle, linewidth=1.1, zorder=2.5)
            if span is None:
                ax.axhline(level, **kw)
            else:
                x0, x1 = span[name]
                ax.plot([x0, x1], [level, level], **kw)
    return bool(seen)


def _finish(fig, ax, own: bool, extra: list[tuple[str, dict]] = ()) -> None:
    """The legend (the drawn lines', then one entry per kind of reference line in ``extra``:
    label, line style) outside the axes, plain ticks, and, on ccsim's own figure, the layout."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    for label, kw in extra:
        handles.append(Line2D([], [], **{"color": "black", "linewidth": 0.9, **kw}))
        labels.append(label)
    style.legend(ax, handles, labels)
    if own:
        style.fit(fig)


def _panel(ax, result: "Result", df: pl.DataFrame, key: str, value: str, names, ylabel: str, title: str, counts: bool = False):
    """One time-series panel: a step line per name, axes labelled like the seeds' figures, time
    in the unit that fits the run, whole-number ticks on an axis that counts."""
    fig, ax, own = _axes(ax)
    if names is None:
        names = df[key].unique(maintain_order=True).to_list() if key in df.columns else []
    unit, scale = _time(result)
    drawn = _lines(ax, df, key, value, names, scale)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel(ylabel)
    ax.set_title(_title(result, title), fontsize="medium")
    ax.grid(alpha=0.3)
    style.plain_ticks(ax.xaxis)
    if counts:
        style.count_ticks(ax.yaxis)
    else:
        style.plain_ticks(ax.yaxis)
    return fig, ax, own, drawn


def plot_acr(result: "Result", sources: list[str] | None = None, ax=None):
    """ACR of each source in Mb/s against time (groups share a style when many), with each one's
    max-min fair rate as a dotted line in its colour. The max-min rates are those of the sources
    running at the end (`maxmin_mbps`), so each line starts where that set last changed (the last
    start or stop) and is left out for a source not running at the end."""
    fig, ax, own, drawn = _panel(ax, result, _series(result, "acr", sources), "source", "acr_mbps", sources, "ACR (Mb/s)",
                                 "allowed cell rate")
    scenario = _runinfo.resolved(result)
    end_s = float(result.data.get("sim_time_s") or 0.0)
    running = _runinfo.running_at_end(scenario, end_s)
    maxmin = {s["name"]: [s["maxmin_mbps"]] for s in result.data["sources"]
              if s.get("maxmin_mbps") is not None and (running is None or s["name"] in running)}
    _, scale = _time(result)
    since = _runinfo.last_change_s(scenario, end_s) * 1e3 * scale
    span = {name: (since, end_s * 1e3 * scale) for name in drawn}
    extra = [("max-min fair rate", {"linestyle": DOTTED})] if _references(ax, drawn, maxmin, DOTTED, span) else []
    _finish(fig, ax, own, extra)
    return fig


def default_ports(result: "Result", limit: int = 6) -> list[str]:
    """Switch ports worth looking at: the ones whose queue grew most, trunks first."""
    def run_max(p):
        from .result import port_field

        return port_field(p, "max_queue_run") or port_field(p, "max_queue") or 0

    ports = [p for p in result.data["ports"] if run_max(p) > 1]
    ports.sort(key=lambda p: (-run_max(p), p["name"]))
    return [p["name"] for p in ports[:limit]] or [p["name"] for p in result.data["ports"][:1]]


def _darker(colour, by: float = 0.45):
    from matplotlib.colors import to_rgb

    return tuple(c * (1 - by) for c in to_rgb(colour))


def _red_average(ax, result: "Result", drawn: dict[str, dict], scale: float) -> bool:
    """Each drawn RED port's average queue (the EWMA RED compares with its thresholds, series
    `red_avg`) over its queue, thicker and in a darker shade of its colour. Whether it drew any."""
    names = [n for n in drawn if (n in _red_ports(result))]
    if not names or not _has_rows(result, "red_avg"):
        return False
    parts = _parts(_series(result, "red_avg", names), "port", names)
    for name in names:
        part = parts.get(name)
        if part is None or part.is_empty():
            continue
        x, y = _envelope(part["time_ms"].to_numpy() * scale, part["red_avg"].to_numpy())
        ax.plot(x, y, color=_darker(drawn[name]["color"]), linewidth=RED_AVERAGE_WIDTH, linestyle="-")
    return True


def _red_ports(result: "Result") -> set[str]:
    """Ports whose queue runs RED (their thresholds are RED's)."""
    return {p["name"] for p in result.data["ports"] if any(k.startswith("red_") for k in (p.get("thresholds") or {}))}


def plot_queue(result: "Result", ports: list[str] | None = None, ax=None):
    """Queue length of switch (cells) or router (packets) output ports against time; a RED port's
    average queue over it; the buffer size and drop thresholds a queue came near."""
    names = ports or default_ports(result)
    units = {p["name"]: p.get("unit", "cells") for p in result.data["ports"]}
    if names and all(units.get(n) == "packets" for n in names):
        label, title = "queue length (packets)", "router queues"
    else:
        label, title = "queue length (cells)", "switch queues"
    fig, ax, own, drawn = _panel(ax, result, _series(result, "queue", names), "port", "queue_cells", names, label, title,
                                 counts=True)
    extra = []
    if _red_average(ax, result, drawn, _time(result)[1]):
        extra.append(("RED average queue", {"linewidth": RED_AVERAGE_WIDTH, "color": "0.3"}))
    # A port's buffer size and the thresholds of its buffer policy or RED, each where the queue
    # came within a quarter of it (a level far above the queue would flatten the queue's scale).
    buffers, thresholds = {}, {}
    from .result import port_field

    for p in result.data["ports"]:
        # In the port's unit (`max_queue_packets_run`, `buffer_packets` at IP ports).
        peak = port_field(p, "max_queue_run") or port_field(p, "max_queue") or 0
        buffers[p["name"]] = [x for x in [port_field(p, "buffer")] if x and peak >= 0.25 * x]
        thresholds[p["name"]] = [x for x in (p.get("thresholds") or {}).values() if x and peak >= 0.25 * x]
    if _references(ax, drawn, buffers, DOTTED):
        extra.append(("buffer size", {"linestyle": DOTTED}))
    if _references(ax, drawn, thresholds, DASH_DOT):
        extra.append(("drop thresholds", {"linestyle": DASH_DOT}))
    _finish(fig, ax, own, extra)
    return fig


def _time_panel(result: "Result", ax, df: pl.DataFrame, key: str, value: str, names, ylabel: str, title: str,
                counts: bool = False):
    fig, ax, own, _ = _panel(ax, result, df, key, value, names, ylabel, title, counts)
    _finish(fig, ax, own)
    return fig


def plot_received(result: "Result", sources: list[str] | None = None, ax=None):
    """Cumulative data cells delivered to each destination (the slope is the throughput)."""
    return _time_panel(result, ax, _series(result, "received", sources), "source", "cells", sources,
                       "cells received", "cells received", counts=True)


def plot_lost(result: "Result", sources: list[str] | None = None, ax=None):
    """Cumulative data cells (packets on IP flows) each flow lost, against time: when its losses
    happened (the slope is the loss rate)."""
    unit = "packets" if counts_packets(result.data) else "cells"
    return _time_panel(result, ax, _series(result, "dropped", sources), "source", "cells", sources,
                       f"{unit} lost", f"{unit} lost", counts=True)


def _lost_any(result: "Result") -> bool:
    if result.streamed:
        return (result.data["series"].max("dropped") or 0) > 0
    lost = result.dropped["cells"]
    return not lost.is_empty() and lost.max() > 0


def plot_cwnd(result: "Result", connections: list[str] | None = None, ax=None):
    """TCP congestion window of each connection in kB against time."""
    df = _series(result, "cwnd", connections).with_columns((pl.col("cwnd_bytes") / 1000.0).alias("cwnd_kB"))
    return _time_panel(result, ax, df, "connection", "cwnd_kB", connections, "cwnd (kB)", "congestion windows")


def plot_seq(result: "Result", connections: list[str] | None = None, ax=None):
    """Highest sequence number sent per connection in MB against time (seed 002, Fig. 4)."""
    df = _series(result, "seq", connections).with_columns((pl.col("seq_bytes") / 1e6).alias("seq_MB"))
    return _time_panel(result, ax, df, "connection", "seq_MB", connections, "sequence number (MB)",
                       "sender sequence numbers")


def _bars(ax, result: "Result", field: str, ylabel: str, title: str, counts: bool = False):
    fig, ax, own = _axes(ax)
    conns = result.data.get("connections") or []
    names = [c["name"] for c in conns]
    ax.bar(range(len(conns)), [c[field] for c in conns], color=_COLOURS[0])
    ax.set_xticks(range(len(conns)), names, rotation=90 if len(conns) > 16 else 0, fontsize="small")
    ax.set_xlabel("connection")
    ax.set_ylabel(ylabel)
    ax.set_title(_title(result, title), fontsize="medium")
    ax.grid(alpha=0.3, axis="y")
    (style.count_ticks if counts else style.plain_ticks)(ax.yaxis)
    return fig, ax, own, conns


def plot_goodput(result: "Result", ax=None):
    """Goodput of each TCP connection over the measurement window, with each one's max-min share
    (the dashed line; seed 002 Fig. 3, seed 001's per-source throughputs)."""
    fig, ax, own, conns = _bars(ax, result, "goodput_mbps", "goodput (Mb/s)", "goodput per connection")
    if conns:
        ax.step(
            [i - 0.5 for i in range(len(conns))] + [len(conns) - 0.5],
            [c["max_goodput_mbps"] for c in conns] + [conns[-1]["max_goodput_mbps"]],
            where="post", color="black", linestyle="--", linewidth=1.0, label="max-min share",
        )
    _finish(fig, ax, own)
    return fig


def plot_drops(result: "Result", ax=None):
    """Cells or packets of each TCP connection dropped in the network, whole run (seed 002 Fig. 6)."""
    unit = "packets" if counts_packets(result.data) else "cells"
    fig, ax, own, _ = _bars(ax, result, "drops", f"{unit} dropped", "drops per connection", counts=True)
    _finish(fig, ax, own)
    return fig


def _shows_acr(result: "Result") -> bool:
    """An ACR panel has something to show: ABR sources, or no TCP connections to show instead."""
    return bool(result.data["sources"]) or not result.data.get("connections")


def plot_overview(result: "Result", path: str | Path | None = None, dpi: int = style.DPI):
    """ACR (or, without ABR sources, TCP goodput) and queue panels side by side, like the seed
    papers' figures; written to ``path`` if given (its suffix names the format: png at ``dpi``,
    pdf or svg). Returns the figure: the last line of a Jupyter cell shows it inline."""
    fig, (a, b) = style.new_figure(2)
    if _shows_acr(result):
        plot_acr(result, ax=a)
    else:
        plot_goodput(result, ax=a)
    plot_queue(result, ax=b)
    style.fit(fig)
    if path is not None:
        fmt = Path(path).suffix.lstrip(".").lower() or "png"
        style.save(fig, path, fmt, style.check_dpi(dpi))
    return fig


def _side_by_side(left: Path, right: Path, path: Path, dpi: int) -> None:
    """The overview from two panels already drawn: their images pasted side by side (drawing them
    again would double the plotting time)."""
    from PIL import Image

    with Image.open(left) as a, Image.open(right) as b:
        both = Image.new("RGBA", (a.width + b.width, max(a.height, b.height)), "white")
        both.paste(a, (0, 0))
        both.paste(b, (a.width, 0))
        both.save(path, compress_level=style.PNG_COMPRESSION, dpi=(dpi, dpi))


def write_plots(result: "Result", out: Path, formats=("png",), dpi: int = style.DPI) -> list[Path]:
    """Every panel that has something to show, and the overview, in each of ``formats`` (PNG at
    ``dpi`` dots per inch; PDF and SVG are vector)."""
    check_formats(formats)
    dpi = style.check_dpi(dpi)
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
        written += style.save_formats(fn(result), out, name, formats, dpi)
    # The overview, as `plot_overview` lays it out: ACR (or goodput) beside the queues; in PNG
    # from the two panels already drawn, in vector formats drawn again.
    for fmt in formats:
        if fmt == "png":
            first = out / ("acr.png" if _shows_acr(result) else "goodput.png")
            _side_by_side(first, out / "queue.png", out / "overview.png", dpi)
        else:
            plot_overview(result, out / f"overview.{fmt}", dpi)
        written.append(out / f"overview.{fmt}")
    return written


__all__ = [
    "plot_acr", "plot_queue", "plot_received", "plot_lost", "plot_cwnd", "plot_seq", "plot_goodput", "plot_drops", "plot_overview",
    "write_plots", "default_ports", "check_formats", "FORMATS",
]
