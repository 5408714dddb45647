"""``Result``: the tables and summary of one run, as DataFrames (polars first, pandas on request)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core, _outdir
from ._lazy import LazyModule, LazySeries

if TYPE_CHECKING:
    import polars as pl
else:
    pl = LazyModule("polars", globals(), "pl")

# Keys of the summary that are not part of the JSON contract for scripts.
_NOT_SUMMARY = ("series", "vcs", "trace_columns", "delay_histogram_columns")

#: The event trace's columns, in order (docs/trace.md).
TRACE_COLUMNS = ("time_s", "time_ps", "event", "flow", "node", "kind", "uid", "frame", "seq", "size_bytes", "reason")


def trace_frame(c: dict[str, Any]) -> pl.DataFrame:
    """The engine's binary trace columns (`Simulation.finish()["trace_columns"]`) as a DataFrame:
    time (seconds, and exact picoseconds), the event, flow, node and kind as categories, the unit's
    id, its frame number (not wrapping), its TCP sequence number (null but for TCP data and ACKs),
    the size in bytes and, for drops, the reason (null otherwise)."""
    import numpy as np

    def coded(name: str, codes: Any, names: list[str], enum: bool) -> pl.Series:
        if enum:
            values = [n or None for n in names]
            labels = [n for n in names if n]
            return pl.Series(name, values, dtype=pl.Enum(labels)).gather(codes)
        return pl.Series(name, names, dtype=pl.Utf8).gather(codes).cast(pl.Categorical)

    time_ps = np.frombuffer(c["time_ps"], dtype="<u8")
    u8 = lambda k: pl.Series(np.frombuffer(c[k], dtype="u1").astype("u4"))  # noqa: E731
    u32 = lambda k: pl.Series(np.frombuffer(c[k], dtype="<u4"))  # noqa: E731
    return pl.DataFrame([
        pl.Series("time_s", time_ps / 1e12, dtype=pl.Float64),
        pl.Series("time_ps", time_ps, dtype=pl.UInt64),
        coded("event", u8("event"), c["event_names"], True),
        coded("flow", u32("flow"), c["flow_names"], False),
        coded("node", u32("node"), c["node_names"], False),
        coded("kind", u8("kind"), c["kind_names"], True),
        pl.Series("uid", np.frombuffer(c["uid"], dtype="<u8"), dtype=pl.UInt64),
        pl.Series("frame", np.frombuffer(c["frame"], dtype="<u8"), dtype=pl.UInt64),
        # u64::MAX: no sequence number (not a TCP data or ACK item).
        pl.Series("seq", np.frombuffer(c["seq"], dtype="<u8"), dtype=pl.UInt64).replace(2**64 - 1, None),
        pl.Series("size_bytes", np.frombuffer(c["size_bytes"], dtype="<u2"), dtype=pl.UInt16),
        coded("reason", u8("reason"), c["reason_names"], True),
    ])

# Each recorded series: the column naming its rows' subject, and its value column.
SERIES_COLUMNS = {
    "acr": ("source", "acr_mbps"),
    "queue": ("port", "queue_cells"),
    "received": ("source", "cells"),
    "dropped": ("source", "cells"),
    "utilization": ("link", "utilization"),
    "cwnd": ("connection", "cwnd_bytes"),
    "ssthresh": ("connection", "ssthresh_bytes"),
    "seq": ("connection", "seq_bytes"),
    "rtt": ("connection", "rtt_s"),
    "srtt": ("connection", "srtt_s"),
    "goodput": ("connection", "goodput_mbps"),
    "retransmits": ("connection", "retransmits"),
    "timeouts": ("connection", "timeouts"),
    "mapr": ("port", "mapr_mbps"),
    "dpf": ("port", "dpf"),
    "data_queue": ("port", "data_queue_packets"),
    "gateway_queue": ("gateway", "queue_cells"),
    "red_avg": ("port", "red_avg"),
    "delay": ("flow", "delay_s"),
}


def counts_packets(summary: dict[str, Any]) -> bool:
    """Whether the run's network carries IP packets (its queues and drops count packets)."""
    return any(p.get("unit") == "packets" for p in summary["ports"])


def port_field(port: dict[str, Any], stem: str) -> Any:
    """A port row's queue field in the port's own unit: ``port_field(p, "mean_queue")`` is
    ``mean_queue_cells`` at an ATM port, ``mean_queue_packets`` at an IP port (``max_queue_run``
    reads ``max_queue_cells_run`` / ``max_queue_packets_run``). Results from before IP ports
    named their unit carry ``*_cells`` everywhere, which is read then."""
    unit = port.get("unit", "cells")
    base, run = stem.removesuffix("_run"), stem.endswith("_run")
    for u in dict.fromkeys((unit, "cells")):
        key = f"{base}_{u}_run" if run else f"{base}_{u}"
        if key in port:
            return port[key]
    return None


def delay_histogram_frame(c: dict[str, Any] | None) -> pl.DataFrame:
    """The engine's delay histogram columns (`Simulation.finish()["delay_histogram_columns"]`) as a
    DataFrame: flow, delay_low_s, delay_high_s (the bucket), units."""
    import numpy as np

    if not c:
        return pl.DataFrame(schema={"flow": pl.Utf8, "delay_low_s": pl.Float64, "delay_high_s": pl.Float64,
                                    "units": pl.UInt64})
    codes = pl.Series(np.frombuffer(c["flow"], dtype="<u4"))
    flows = pl.Series("flow", c["flow_names"], dtype=pl.Utf8).gather(codes) if len(codes) else pl.Series("flow", [], pl.Utf8)
    return pl.DataFrame([
        flows,
        pl.Series("delay_low_s", np.frombuffer(c["low_s"], dtype="<f8"), dtype=pl.Float64),
        pl.Series("delay_high_s", np.frombuffer(c["high_s"], dtype="<f8"), dtype=pl.Float64),
        pl.Series("units", np.frombuffer(c["count"], dtype="<u8"), dtype=pl.UInt64),
    ])


def _series_frame(series: Any, name: str) -> pl.DataFrame:
    """Series `name` as a long table: time_s, its key column (names), its value column, time_ms."""
    key, value = SERIES_COLUMNS[name]
    if getattr(series, "scan", None) is not None:  # streamed to Parquet (`_streamed.StreamedSeries`)
        return series.frame(name)
    if isinstance(series, LazySeries) and name in series:
        # Straight from the engine's columns, the key column from codes: one string per name, not
        # per row (`series[name]` would build a string array of every row's name first).
        codes, names = series.codes(name)
        times, values = series.numbers(name)
        keys = pl.Series(key, names, dtype=pl.Utf8).gather(codes) if len(codes) else pl.Series(key, [], dtype=pl.Utf8)
    else:
        columns = series.get(name, {})  # results from before a series existed have none
        times, values = columns.get("time_s", []), columns.get(value, [])
        keys = pl.Series(key, columns.get(key, []), dtype=pl.Utf8)
    df = pl.DataFrame(
        [pl.Series("time_s", times, dtype=pl.Float64), keys, pl.Series(value, values, dtype=pl.Float64)],
    )
    return df.with_columns((pl.col("time_s") * 1e3).alias("time_ms"))


class Result:
    """What one run produced.

    ``summary()`` is the JSON contract of ``ccsim run --json``. Tables: ``acr``, ``queue``,
    ``received``, ``utilization`` (long-format time series), ``sources``, ``ports``, ``links``
    (summary rows) and ``vcs`` (per-VC totals for conservation and loss). Each is a polars
    DataFrame; ``table(name, backend="pandas")`` gives pandas instead.
    """

    def __init__(self, data: dict[str, Any], resolved_json: str | None = None):
        self._data = data
        self.resolved_json = resolved_json
        #: The threads the run used (`run.threads`); not in the summary, which is the same for
        #: every count.
        self.threads = 1

    def __repr__(self) -> str:
        s = self._data
        jain = "n/a" if s.get("fairness_index") is None else f"{s['fairness_index']:.4f}"
        return (
            f"<ccsim.Result {s['scenario']!r} seed={s['seed']} sim_time={s['sim_time_s']:g}s "
            f"sources={len(s['sources'])} fairness={jain}>"
        )

    @property
    def data(self) -> dict[str, Any]:
        """The raw result dict from the engine."""
        return self._data

    def summary(self) -> dict[str, Any]:
        """Every top-level number: scenario, seed, times, counts, fairness, per-source/port/link rows."""
        return {k: v for k, v in self._data.items() if k not in _NOT_SUMMARY}

    @property
    def scenario(self) -> str:
        return self._data["scenario"]

    @property
    def seed(self) -> int:
        return self._data["seed"]

    @property
    def fairness_index(self) -> float | None:
        """Jain's index (None where there is no flow to compare)."""
        return self._data["fairness_index"]

    # --- tables --------------------------------------------------------------------------

    @cached_property
    def acr(self) -> pl.DataFrame:
        return _series_frame(self._data["series"], "acr")

    @cached_property
    def queue(self) -> pl.DataFrame:
        return _series_frame(self._data["series"], "queue")

    @cached_property
    def received(self) -> pl.DataFrame:
        return _series_frame(self._data["series"], "received")

    @cached_property
    def dropped(self) -> pl.DataFrame:
        """Cumulative forward data cells (packets on IP flows) each flow lost, sampled with
        `received`: dropped at a port, an adapter or a gateway, or lost on a link."""
        return _series_frame(self._data["series"], "dropped")

    @cached_property
    def utilization(self) -> pl.DataFrame:
        return _series_frame(self._data["series"], "utilization")

    @property
    def streamed(self) -> bool:
        """Whether the series were written to Parquet as the run went (``stream_series``)."""
        return getattr(self._data.get("series"), "scan", None) is not None

    def scan(self, name: str) -> pl.LazyFrame:
        """Series ``name`` as a polars LazyFrame: over its Parquet parts when streamed (nothing
        is read until collected), else over the table in memory."""
        if name not in SERIES_COLUMNS:
            raise KeyError(f"unknown series {name!r}; one of {', '.join(SERIES_COLUMNS)}")
        return self._data["series"].scan(name) if self.streamed else _series_frame(self._data["series"], name).lazy()

    def _tcp_series(self, name: str) -> pl.DataFrame:
        # Results from before TCP series existed have none.
        return _series_frame(self._data["series"], name)

    @cached_property
    def cwnd(self) -> pl.DataFrame:
        """TCP congestion window per connection, sampled (bytes)."""
        return self._tcp_series("cwnd")

    @cached_property
    def ssthresh(self) -> pl.DataFrame:
        return self._tcp_series("ssthresh")

    @cached_property
    def seq(self) -> pl.DataFrame:
        """Highest sequence number sent + 1 per connection (seed 002's Fig. 4 style)."""
        return self._tcp_series("seq")

    @cached_property
    def rtt(self) -> pl.DataFrame:
        """The last RTT sample per connection at each sampling time (seconds, true time)."""
        return self._tcp_series("rtt")

    @cached_property
    def srtt(self) -> pl.DataFrame:
        """The sender's smoothed RTT (seconds; whole ticks in the tick clock modes)."""
        return self._tcp_series("srtt")

    @cached_property
    def mapr(self) -> pl.DataFrame:
        """FICCRD's mean allowed packet rate per controlled router port, sampled (Mb/s)."""
        return self._tcp_series("mapr")

    @cached_property
    def red_avg(self) -> pl.DataFrame:
        """A RED port's average queue (packets), sampled: the value its last arrival left (RED
        updates the average on arrivals), recorded with `measure.queue`."""
        return self._tcp_series("red_avg")

    @cached_property
    def dpf(self) -> pl.DataFrame:
        """FICCRD's down-pressure factor per controlled router port at the sampled queue."""
        return self._tcp_series("dpf")

    @cached_property
    def data_queue(self) -> pl.DataFrame:
        """The data packets (RD packets left out) in each FICCRD router port's buffer, sampled
        with ``measure.queue`` (``queue`` counts every packet)."""
        return self._tcp_series("data_queue")

    @cached_property
    def gateway_queue(self) -> pl.DataFrame:
        """An HG-RCP gateway's ABR-SAP buffer (cells) per sourcing gateway, sampled."""
        return self._tcp_series("gateway_queue")

    @cached_property
    def goodput(self) -> pl.DataFrame:
        """Goodput per connection over each sampling interval (Mb/s, bytes delivered in order)."""
        return self._tcp_series("goodput")

    @cached_property
    def retransmits(self) -> pl.DataFrame:
        """Cumulative retransmitted segments per connection."""
        return self._tcp_series("retransmits")

    @cached_property
    def timeouts(self) -> pl.DataFrame:
        """Cumulative retransmission timeouts per connection."""
        return self._tcp_series("timeouts")

    @cached_property
    def delay(self) -> pl.DataFrame:
        """Per flow, the mean end-to-end delay (seconds) of the units it delivered in each sampling
        interval (recorded with ``measure.received``; no row for an interval without a delivery).
        Units as for ``delay_mean_ms`` (docs/scenarios.md, "Delays"); whole run, not the window."""
        return self._tcp_series("delay")

    @cached_property
    def delay_histogram(self) -> pl.DataFrame:
        """Per flow, the histogram of the end-to-end delays of the units it delivered in the
        measurement window (the one ``delay_p99_ms`` is read from): ``flow``, ``delay_low_s``,
        ``delay_high_s`` (a bucket, 1/64 of an octave wide), ``units``. Empty buckets are left out."""
        return delay_histogram_frame(self._data.get("delay_histogram_columns"))

    def delay_cdf(self) -> pl.DataFrame:
        """The empirical distribution of each flow's delays over the window, from
        ``delay_histogram``: ``flow``, ``delay_s`` (a bucket's upper bound) and ``fraction`` (of the
        flow's units delivered with at most that delay, to the histogram's precision)."""
        h = self.delay_histogram.sort("flow", "delay_high_s", maintain_order=True)
        return h.select(
            "flow",
            pl.col("delay_high_s").alias("delay_s"),
            (pl.col("units").cum_sum().over("flow") / pl.col("units").sum().over("flow")).alias("fraction"),
        )

    @cached_property
    def trace(self) -> pl.DataFrame | None:
        """The per-cell/packet event trace (``measure.trace``; docs/trace.md), sorted by time:
        ``time_s``, ``time_ps``, ``event`` (send, enqueue, dequeue, drop, deliver), ``flow``,
        ``node``, ``kind``, ``uid`` (the unit), ``frame``, ``seq`` (TCP), ``size_bytes``, ``reason``
        (drops only). None when no trace was recorded."""
        columns = self._data.get("trace_columns")
        if columns is None:
            return None
        return trace_frame(columns)

    def write_trace(self, path: str | Path) -> Path:
        """Writes the trace as one Parquet file (with the run's metadata and the trace's
        summary under ``trace``); ``ValueError`` if no trace was recorded."""
        if self.trace is None:
            raise ValueError("this run recorded no trace (set measure.trace, or pass trace=True to ccsim.run)")
        path = Path(path)
        meta = dict(self.metadata(), trace=json.dumps(self._data.get("trace", {})))
        tmp = _outdir.staging_path(path.absolute())
        try:
            with _outdir.write_errors(path):
                self.trace.write_parquet(tmp, metadata=meta)
                tmp.replace(path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return path

    @cached_property
    def sources(self) -> pl.DataFrame:
        return pl.DataFrame(self._data["sources"])

    @cached_property
    def connections(self) -> pl.DataFrame:
        """TCP connections: goodput, retransmissions, timeouts, drops (empty without TCP)."""
        return pl.DataFrame(self._data.get("connections", []))

    @cached_property
    def ports(self) -> pl.DataFrame:
        return pl.DataFrame(self._data["ports"])

    @cached_property
    def links(self) -> pl.DataFrame:
        return pl.DataFrame(self._data["links"])

    @cached_property
    def vcs(self) -> pl.DataFrame:
        return pl.DataFrame(self._data["vcs"])

    TABLES = (
        "acr", "queue", "received", "dropped", "utilization", "cwnd", "ssthresh", "seq", "rtt", "srtt", "retransmits",
        "timeouts", "goodput", "mapr", "dpf", "data_queue", "red_avg", "gateway_queue", "delay", "sources", "connections",
        "ports", "links", "vcs", "delay_histogram",
    )

    def table(self, name: str, backend: str = "polars"):
        """A table by name; ``backend="pandas"`` converts it (needs the ``pandas`` extra: pandas and
        pyarrow)."""
        if name not in self.TABLES:
            raise KeyError(f"unknown table {name!r}; one of {', '.join(self.TABLES)}")
        df = getattr(self, name)
        if backend == "polars":
            return df
        if backend == "pandas":
            from ._extras import require

            require("pandas", "pandas", "a pandas table")
            require("pyarrow", "pandas", "a pandas table")
            return df.to_pandas()
        raise ValueError(f"unknown backend {backend!r} (polars or pandas)")

    def to_pandas(self, name: str):
        return self.table(name, backend="pandas")

    def _repr_html_(self) -> str:
        """A notebook's view: what ran, and the rate table and busiest ports as tables."""
        import html

        s = self._data
        jain = "n/a" if s.get("fairness_index") is None else f"{s['fairness_index']:.4f}"
        head = (f"<p><b>{html.escape(str(s['scenario']))}</b>, seed {s['seed']}: {s['sim_time_s']:g} s simulated in "
                f"{s.get('wall_s', 0):.2f} s, {s['events']:,} events; Jain fairness {jain}</p>")
        ports = pl.DataFrame([{"name": p["name"], "unit": p.get("unit", "cells"), "mean_queue": port_field(p, "mean_queue"),
                               "max_queue": port_field(p, "max_queue"), "drops": p["drops"]} for p in s["ports"]])
        if not ports.is_empty():
            ports = ports.sort("max_queue", descending=True).head(6)
        window = s.get("window_s")
        span = f", window {window[0]:g}-{window[1]:g} s" if window else ""
        parts = [head]
        for title, df in ((f"rates{span}", self.rate_table()), (f"busiest ports{span} (drops: whole run)", ports)):
            if not df.is_empty():
                parts.append(f"<p>{title}</p>" + df._repr_html_())
        return "".join(parts)

    def rate_table(self) -> pl.DataFrame:
        """Over the measurement window only (``window_s``; ``rate_table_title`` says which): each
        source's time-average ACR and delivered rate beside its max-min fair rate, its cell loss
        ratio in the window (``window_clr``) and the delay of what it delivered (mean, 99th
        percentile, jitter; ms); for a scenario of TCP connections only, each connection's goodput
        beside the most its max-min share can carry, and its delays. Whole-run counts (cells sent,
        retransmissions) are in ``sources`` and ``connections``."""
        delays = [pl.col(c).round(4) if c in self._row_fields() else pl.lit(None, pl.Float64).alias(c)
                  for c in ("delay_mean_ms", "delay_p99_ms", "jitter_ms")]
        if self.sources.is_empty():
            if self.connections.is_empty():
                return pl.DataFrame()
            return self.connections.select(
                "name",
                pl.col("goodput_mbps").round(3),
                pl.col("max_goodput_mbps").round(3),
                *delays,
            )
        return self.sources.select(
            "name",
            pl.col("acr_mbps").round(3),
            pl.col("rate_mbps").round(3),
            pl.col("maxmin_mbps").round(3),
            pl.when(pl.col("maxmin_mbps") > 0)
            .then(pl.col("acr_mbps") / pl.col("maxmin_mbps"))
            .otherwise(None)
            .round(4)
            .alias("acr_over_maxmin"),
            # Results from before `window_clr` existed have only the whole run's.
            pl.col("window_clr" if "window_clr" in self.sources.columns else "clr").alias("window_clr"),
            *delays,
        )

    def _row_fields(self) -> set[str]:
        """The fields the rate table's rows carry (sources, or connections where there are none)."""
        return set((self.sources if not self.sources.is_empty() else self.connections).columns)

    def rate_table_title(self) -> str:
        """What ``rate_table`` covers: the scenario, the seed and the measurement window."""
        s = self._data
        window = s.get("window_s")
        span = f"the measurement window, {window[0]:g} to {window[1]:g} s" if window else "the measurement window"
        what = "sources" if not self.sources.is_empty() else "TCP connections"
        return f"{s['scenario']}, seed {s['seed']}: {what} over {span}"

    # --- files -----------------------------------------------------------------------------

    def metadata(self) -> dict[str, str]:
        d = self._data
        return {
            "ccsim_version": str(d.get("ccsim_version", "")),
            "ccsim_commit": str(d.get("ccsim_commit") or ""),
            "scenario": str(d["scenario"]),
            "seed": str(d["seed"]),
            "fingerprint": str(d["fingerprint"]),
            "scenario_hash": str(d["scenario_hash"]),
        }

    def write(self, out_dir: str | Path, plots: bool = True, formats: Sequence[str] = ("png",), dpi: int = 300) -> Path:
        """Writes Parquet tables (with run metadata), plots (``formats``: any of png, pdf, svg, PNG at
        ``dpi`` dots per inch; none with ``plots=False``), ``summary.json`` and ``rates.md`` into ``out_dir``: a new or empty
        directory, or an earlier run's result, which is replaced whole (``check_out_dir``: a
        directory holding anything ccsim did not write is refused, naming it). Everything is
        written beside it first and moved into place at the end, with a marker (``.ccsim-result``:
        the run's metadata and the files written): a failed write leaves nothing half done."""
        if plots:
            from ._figures import check_formats

            check_formats(formats, dpi)
        with _outdir.writing(out_dir, "run", self.metadata()) as tmp, _outdir.write_errors(Path(out_dir).absolute()):
            self._write_files(tmp, plots, formats, dpi)
        return Path(out_dir).absolute()

    def _write_files(self, out: Path, plots: bool, formats: Sequence[str], dpi: int = 300) -> None:
        # Polars writes the run's metadata as Parquet key-value metadata (read it back with
        # `polars.read_parquet_metadata`).
        meta = self.metadata()
        # The run's freed engine heap, returned to the OS before the sinks, so that it does not
        # add to the write's peak.
        _core.release_freed_heap()
        for name in self.TABLES:
            # Only tables with rows: an ABR run has no TCP series, no connections (`vcs` is
            # always written: every run has flows).
            if self.streamed and name in SERIES_COLUMNS:
                if self._data["series"].parts(name):
                    # Part by part, never the whole series in memory.
                    self.scan(name).sink_parquet(out / f"{name}.parquet", metadata=meta)
            else:
                df = getattr(self, name)
                if not df.is_empty() or name == "vcs":
                    df.write_parquet(out / f"{name}.parquet", metadata=meta)
        if self.trace is not None:
            self.write_trace(out / "trace.parquet")
        (out / "summary.json").write_text(json.dumps(self.summary(), indent=2) + "\n")
        if self.resolved_json:
            (out / "scenario.json").write_text(json.dumps(json.loads(self.resolved_json), indent=2) + "\n")
        (out / "rates.md").write_text(f"# {self.rate_table_title()}\n\n{markdown_table(self.rate_table())}\n")
        if plots:
            from . import plots as _plots
            from .plots_delay import write_delay_plots

            _plots.write_plots(self, out, formats, dpi)
            write_delay_plots(self, out, formats, dpi)
            if self.resolved_json:
                from ._networks import write_network

                write_network(self.resolved_json, out, formats)  # network.<fmt>: `ccsim show`'s drawing


#: The file a finished result directory holds (its run's metadata, the files written): `write`
#: replaces only such directories, or empty ones.
RESULT_MARKER = _outdir.MARKER


def check_out_dir(out_dir: str | Path) -> Path:
    """Checks, before a run, that its results can go to ``out_dir``: a new directory (its parent
    is created and must be writable), an empty one, or an earlier ccsim run holding only what
    ccsim wrote. Returns the absolute path (a symbolic link followed); raises ``OSError`` naming
    the path, or ``OutputError`` naming the files in the way."""
    return _outdir.check(out_dir, "run")


def markdown_table(df: pl.DataFrame) -> str:
    """The table in Markdown (polars' own formatter): every row and column, no dtype row."""
    with pl.Config(tbl_formatting="MARKDOWN", tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True,
                   tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=1000, tbl_width_chars=65_000):
        return str(df)


__all__ = ["Result", "markdown_table", "check_out_dir", "RESULT_MARKER", "TRACE_COLUMNS", "trace_frame", "port_field",
           "delay_histogram_frame"]
