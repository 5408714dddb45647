"""Time series written to Parquet while a run goes, so that a long run's memory stays flat.

`ccsim.run(..., stream_series=DIR)` (and `ccsim run --out` when the series would be large) takes
the rows the engine recorded after every chunk that gathered `FLUSH_ROWS` of them and writes them
as a part file per series (`DIR/<series>/part-00000.parquet`, the columns of the `Result`'s
table). The `Result` then reads its series from there: `StreamedSeries.scan` as a polars
LazyFrame, `frame` whole; `Result.write` copies each series into one table with a streaming sink,
and the plots reduce each line to its envelope with a streaming query. docs/scenarios.md, "Long
runs".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ._lazy import LazySeries
from .result import SERIES_COLUMNS, _series_frame

#: Rows taken from the engine at once (~20 MB in the engine, a few MB per Parquet part).
FLUSH_ROWS = 1_000_000


class SeriesWriter:
    """Appends the engine's series, a part at a time, under `folder`."""

    #: Rows the engine gathers before they are written (a test may lower it).
    flush_rows = FLUSH_ROWS

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.parts = 0

    def write(self, raw: Mapping[str, Any]) -> None:
        """One part: the binary columns `Simulation.take_series()` (or `finish()`) returned."""
        series = LazySeries(raw)
        for name in series:
            df = _series_frame(series, name)
            if df.is_empty():
                continue
            (self.folder / name).mkdir(exist_ok=True)
            df.write_parquet(self.folder / name / f"part-{self.parts:05d}.parquet", compression="zstd")
        self.parts += 1


class StreamedSeries(Mapping):
    """Series stored as parts under a folder; a mapping of arrays like `LazySeries` (each read
    whole when asked for), and `scan`/`frame` for polars."""

    def __init__(self, folder: Path, names: list[str]):
        self.folder = Path(folder)
        self._names = list(names)

    def parts(self, name: str) -> list[Path]:
        return sorted((self.folder / name).glob("part-*.parquet"))

    def scan(self, name: str) -> pl.LazyFrame:
        """Series `name` as a LazyFrame over its parts (time order)."""
        parts = self.parts(name)
        return pl.scan_parquet(parts) if parts else _series_frame({}, name).lazy()

    def frame(self, name: str) -> pl.DataFrame:
        return self.scan(name).collect()

    def columns(self, name: str, columns: list[str]) -> Iterator[pl.DataFrame]:
        """Series `name`'s parts one at a time, these columns only: what the plots read, in
        memory one part at a time (a query over every part holds them all)."""
        for part in self.parts(name):
            yield pl.read_parquet(part, columns=columns)

    def names_in(self, name: str) -> list[str]:
        """The names series `name` has rows for, in order of first appearance."""
        key = SERIES_COLUMNS[name][0]
        seen: dict[str, None] = {}
        for df in self.columns(name, [key]):
            seen.update(dict.fromkeys(df[key].unique(maintain_order=True).to_list()))
        return list(seen)

    def max(self, name: str) -> float | None:
        """The largest value of series `name` (None without rows)."""
        value = SERIES_COLUMNS[name][1]
        return max((df[value].max() for df in self.columns(name, [value])), default=None)

    def __getitem__(self, name: str) -> dict[str, Any]:
        if name not in self._names:
            raise KeyError(name)
        return {c: s.to_numpy() for c, s in self.frame(name).drop("time_ms").to_dict().items()}

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def envelope(series: StreamedSeries, name: str, names: list[str], bins: int) -> pl.DataFrame:
    """The lines of `names` in series `name` reduced, per name, to the first, lowest, highest and
    last value of each of `bins` equal time slices of the whole run (the M4 reduction
    `plots._envelope` makes in memory): at most 4 x `bins` rows per name, in time order. Read part
    by part (each is in time order), so memory holds one part and the slices, whatever the run's
    length."""
    key, value = SERIES_COLUMNS[name]
    parts = series.parts(name)
    if not parts:
        return pl.DataFrame(schema={key: pl.Utf8, "time_ms": pl.Float64, value: pl.Float64})
    # Parts are in time order: the run's first sample opens the first, its last closes the last.
    lo = pl.read_parquet(parts[0], columns=["time_ms"])["time_ms"][0]
    hi = pl.read_parquet(parts[-1], columns=["time_ms"])["time_ms"][-1]
    width = (hi - lo) / bins or 1.0
    by = [key, "_slice"]
    partial = [
        df.filter(pl.col(key).is_in(names))
        .with_columns(((pl.col("time_ms") - lo) / width).floor().clip(0, bins - 1).cast(pl.Int32).alias("_slice"))
        .group_by(by, maintain_order=True)
        .agg(pl.col("time_ms").first().alias("t0"), pl.col("time_ms").last().alias("t1"), pl.col(value).first().alias("first"),
             pl.col(value).min().alias("low"), pl.col(value).max().alias("high"), pl.col(value).last().alias("last"))
        for df in series.columns(name, [key, "time_ms", value])
    ]
    # A slice may span parts: its first value is the earliest part's, its last the latest's.
    slices = (
        pl.concat(partial)
        .group_by(by, maintain_order=True)
        .agg(pl.col("t0").first(), pl.col("t1").last(), pl.col("first").first(), pl.col("low").min(), pl.col("high").max(),
             pl.col("last").last())
        .sort(by)
    )
    # Per slice: (t0, first), (t0, low), (t0, high), (t1, last), as `plots._envelope` draws them.
    points = [
        slices.select(key, pl.col(t).alias("time_ms"), pl.col(v).alias(value), pl.lit(i).alias("_order"), "_slice")
        for i, (t, v) in enumerate([("t0", "first"), ("t0", "low"), ("t0", "high"), ("t1", "last")])
    ]
    return pl.concat(points).sort(key, "_slice", "_order").drop("_slice", "_order")


__all__ = ["SeriesWriter", "StreamedSeries", "envelope", "FLUSH_ROWS"]
