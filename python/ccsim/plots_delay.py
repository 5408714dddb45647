"""Delay figures: each flow's mean end-to-end delay over time (``Result.delay``) and the
distribution of its delays over the measurement window (``Result.delay_cdf``, from the histogram
its 99th percentile is read from). Drawn on matplotlib ``Figure`` objects, never through pyplot,
so importing this module picks no backend; legends sit beside the axes, never over the lines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from . import _figstyle as style

if TYPE_CHECKING:
    from .result import Result

# Up to this many flows each get a line; beyond it, flows of one group (`A1`, `A2`, ... → `A`)
# share one (their mean delay; their pooled distribution).
_MAX_LINES = 12
_STYLES = ["-", "--", "-.", ":"]


def _group(name: str) -> str:
    """`A12` → `A`, `S3` → `S`."""
    m = re.match(r"^(.*?)(\d+)$", name)
    return m.group(1) if m and m.group(1) else name


def _figure(ax):
    """A new figure and its axes (room on the right for the legend), or `ax`'s own."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.2))
    ax = fig.add_axes((0.1, 0.13, 0.68, 0.78))
    return fig, ax


def _style(i: int) -> dict:
    import matplotlib

    colours = matplotlib.colormaps["tab10"].colors
    return {"color": colours[i % len(colours)], "linestyle": _STYLES[(i + i // len(colours)) % len(_STYLES)]}


def _time_axis(result: "Result") -> tuple[float, str]:
    """The time unit that fits the run: seconds from 10 s on, else milliseconds."""
    return (1.0, "s") if result.data["sim_time_s"] >= 10 else (1e3, "ms")


def _title(result: "Result", what: str) -> str:
    return f"{result.scenario.rsplit('/', 1)[-1]}, seed {result.seed}: {what}"


def _legend(ax, n: int) -> None:
    if n:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False,
                  ncol=1 if n <= 16 else 2)


def _flows(result: "Result", present: list[str]) -> list[str]:
    """The flows of `present` in the result's own order (sources, connections, background as
    built), so that a flow keeps its colour from one delay figure to the other."""
    order = list((result.data.get("vcs") or {}).get("name") or [])
    rank = {n: i for i, n in enumerate(order)}
    return sorted(present, key=lambda n: rank.get(n, len(rank)))


def _labels(names: list[str]) -> dict[str, str]:
    """Each flow's line label: its own name, or its group's when there are many."""
    grouped = len(names) > _MAX_LINES
    return {n: (_group(n) if grouped else n) for n in names}


#: A streamed delay series is drawn from this many time slices per flow (a figure is ~1,000 pixels
#: wide), read by a streaming query: the whole series is never in memory.
_SLICES = 1000


def _delay_rows(result: "Result") -> pl.DataFrame:
    """The delay series to draw: the table, or for a streamed result (``Result.streamed``) each
    flow's mean over each of `_SLICES` equal time slices (its last sample time as the slice's)."""
    if not result.streamed:
        return result.delay
    end = max(result.data["sim_time_s"], 1e-12)
    return (result.scan("delay")
            .with_columns((pl.col("time_s") / end * _SLICES).floor().cast(pl.Int64).alias("slice"))
            .group_by("flow", "slice")
            .agg(pl.col("time_s").max(), pl.col("delay_s").mean())
            .sort("flow", "time_s")
            .drop("slice")
            .collect(engine="streaming"))


def plot_delay(result: "Result", flows: list[str] | None = None, ax=None):
    """Each flow's mean end-to-end delay (ms) of the units it delivered in each sampling interval,
    against time (many flows: each group's mean)."""
    fig, ax = _figure(ax)
    df = _delay_rows(result)
    names = flows or _flows(result, df["flow"].unique().to_list())
    label = _labels(names)
    scale, unit = _time_axis(result)
    df = df.filter(pl.col("flow").is_in(names)).with_columns(pl.col("flow").replace_strict(label).alias("line"))
    lines = df.group_by("line", "time_s", maintain_order=True).agg(pl.col("delay_s").mean())
    drawn = list(dict.fromkeys(label[n] for n in names if n in set(df["flow"].to_list())))
    for i, line in enumerate(drawn):
        part = lines.filter(pl.col("line") == line).sort("time_s")
        # A point is the mean over the interval that ends at its time: a step back to the sample before.
        ax.step(part["time_s"].to_numpy() * scale, part["delay_s"].to_numpy() * 1e3, where="pre", linewidth=1.0,
                label=line, **_style(i))
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("mean delay (ms)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(result, "end-to-end delay per sampling interval"), fontsize="medium")
    ax.grid(alpha=0.3)
    _legend(ax, len(drawn))
    return fig


def plot_delay_cdf(result: "Result", flows: list[str] | None = None, ax=None):
    """The distribution of each flow's end-to-end delays over the measurement window (ms): the
    fraction of its units delivered within each delay, with the 99th percentile's level dotted
    (many flows: each group's units pooled)."""
    fig, ax = _figure(ax)
    h = result.delay_histogram
    names = flows or _flows(result, h["flow"].unique().to_list())
    label = _labels(names)
    h = h.filter(pl.col("flow").is_in(names)).with_columns(pl.col("flow").replace_strict(label).alias("line"))
    pooled = h.group_by("line", "delay_high_s").agg(pl.col("units").sum()).sort("line", "delay_high_s")
    cdf = pooled.with_columns((pl.col("units").cum_sum().over("line") / pl.col("units").sum().over("line")).alias("fraction"))
    drawn = list(dict.fromkeys(label[n] for n in names if n in set(h["flow"].to_list())))
    for i, line in enumerate(drawn):
        part = cdf.filter(pl.col("line") == line)
        x = part["delay_high_s"].to_numpy() * 1e3
        y = part["fraction"].to_numpy()
        # From no unit at the first bucket's low edge, stepping up at each bucket's upper bound.
        low = h.filter(pl.col("line") == line)["delay_low_s"].min() * 1e3
        ax.step([low, *x], [0.0, *y], where="post", linewidth=1.0, label=line, **_style(i))
    if drawn:
        ax.axhline(0.99, color="black", linestyle=(0, (1, 3)), linewidth=0.8, label="99th percentile")
    window = result.data.get("window_s")
    span = f", window {window[0]:g}-{window[1]:g} s" if window else ""
    ax.set_xlabel("end-to-end delay (ms)")
    ax.set_ylabel("fraction of units delivered")
    ax.set_ylim(0, 1.02)
    ax.set_title(_title(result, f"delay distribution{span}"), fontsize="medium")
    ax.grid(alpha=0.3)
    _legend(ax, len(drawn) + bool(drawn))
    return fig


def write_delay_plots(result: "Result", out: Path, formats=("png",), dpi: int = style.DPI) -> list[Path]:
    """``delay`` and ``delay_cdf`` figures in each of ``formats`` (PNG at ``dpi``), where there is a
    delay to draw."""
    written = []
    has_delay = bool(result.data["series"].parts("delay")) if result.streamed else not result.delay.is_empty()
    for name, plot, has in (("delay", plot_delay, has_delay),
                            ("delay_cdf", plot_delay_cdf, not result.delay_histogram.is_empty())):
        if not has:
            continue
        written += style.save_formats(plot(result), out, name, formats, dpi)
    return written


__all__ = ["plot_delay", "plot_delay_cdf", "write_delay_plots"]
