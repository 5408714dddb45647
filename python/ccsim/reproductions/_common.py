"""Shared machinery of the reproductions: a process pool with a progress bar, unit parsing, the
tolerances of ccsim-against-theory tables, and HTML rendering. The rows compared with a seed are
judged by verdicts.py."""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..api import one_thread_each

# --- running ------------------------------------------------------------------------------------


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class _Bar:
    """Progress over a pool of runs: a stage of the reproduction's `RunsProgress`, or with
    ``enabled=True`` a rich bar of its own; either only where `_progress.interactive()` (a
    terminal)."""

    def __init__(self, enabled: Any, total: int, label: str):
        from .._progress import RunsProgress, interactive

        self.progress = None
        self.stage = None
        if isinstance(enabled, RunsProgress):
            self.stage = enabled.stage(total, label)
        elif enabled and total and interactive():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task(label, total=total)

    def advance(self, description: str | None = None) -> None:
        if self.stage is not None:
            self.stage.advance()
        if self.progress is not None:
            self.progress.update(self.task, advance=1, **({"description": description} if description else {}))

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def run_all(
    fn: Callable[[Any], Any],
    tasks: Sequence[Any],
    *,
    workers: int,
    progress: bool,
    label: str,
    pool: ProcessPoolExecutor | None = None,
) -> list[Any]:
    """``[fn(t) for t in tasks]`` in a process pool; results in task order whatever order the
    workers finish in. ``workers <= 1`` (or no pool) runs in this process."""
    bar = _Bar(progress, len(tasks), label)
    try:
        if pool is None or workers <= 1:
            out = []
            for t in tasks:
                out.append(fn(t))
                bar.advance()
            return out
        futures = [pool.submit(fn, t) for t in tasks]
        results: list[Any] = [None] * len(tasks)
        index = {f: i for i, f in enumerate(futures)}
        from concurrent.futures import as_completed

        for f in as_completed(futures):
            results[index[f]] = f.result()
            bar.advance()
        return results
    finally:
        bar.close()


def make_pool(workers: int) -> ProcessPoolExecutor | None:
    if workers <= 1:
        return None
    import multiprocessing

    # spawn, not fork: polars keeps a thread pool, and forking a process with threads can
    # deadlock the child. Each worker pays the import once.
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=one_thread_each)


# --- units --------------------------------------------------------------------------------------

def _split(value: str) -> tuple[float, str]:
    m = re.fullmatch(r"\s*([-+0-9.eE]+)\s*([A-Za-zµ/]*)\s*", value)
    if not m:
        raise ValueError(f"not a number with a unit: {value!r}")
    return float(m.group(1)), m.group(2)


def rate_mbps(value: str | float) -> float:
    """A rate in Mb/s: a number as it is, a string read by the scenario loader's own parser."""
    if isinstance(value, (int, float)):
        return float(value)
    from .. import _core

    return _core.rate_bps(value) / 1e6


def duration_ms(value: str | float) -> float:
    """A duration in ms: a number as it is, a string read by the scenario loader's own parser."""
    if isinstance(value, (int, float)):
        return float(value)
    from .. import _core

    return _core.duration_s(value) * 1e3


def to_unit(value: Any, unit: str | None) -> float:
    """A resolved scenario value as a number in ``unit`` (Mb/s, ms, cells or none)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if unit == "Mb/s":
        return rate_mbps(value)
    if unit == "ms":
        return duration_ms(value)
    x, _ = _split(str(value))
    return x


# --- comparison rows ----------------------------------------------------------------------------

# quantity -> (mode, default tolerance): "rel" compares |ccsim - ref| / |ref|, "abs" |ccsim - ref|.
TOLERANCE: dict[str, tuple[str, float]] = {
    "acr_mbps": ("rel", 0.03),
    "maxmin_mbps": ("rel", 0.03),
    "mean_queue_cells": ("abs_or_rel", 10.0),
    "max_queue_cells": ("abs", 5.0),
    "max_queue_run_cells": ("abs", 5.0),
    "clr": ("abs", 0.01),
    "window_clr": ("abs", 0.01),
    "greedy_clr": ("abs", 0.02),
    "utilization": ("abs", 0.02),
    "greedy_utilization": ("abs", 0.02),
    "cells_received_ratio": ("rel", 0.02),
    "fairness_index": ("abs", 0.01),
    # A settling time read off a figure: "the same order" (within a factor of 2), not agreement.
    "convergence_ms": ("factor", 2.0),
    "setting": ("rel", 1e-9),
}


def base_quantity(quantity: str) -> str:
    return quantity.split("[", 1)[0]


def within(quantity: str, value: float, ref: float, tolerance: float | None = None) -> bool:
    """Whether ``value`` is within the quantity's tolerance of ``ref``. Queues: 10 cells or
    20 % of the reference, whichever is larger (a tolerance given in the data is absolute)."""
    mode, default = TOLERANCE.get(base_quantity(quantity), ("rel", 0.05))
    tol = default if tolerance is None else tolerance
    if mode == "abs_or_rel":
        allowed = tol if tolerance is not None else max(tol, 0.2 * abs(ref))
        return abs(value - ref) <= allowed + 1e-9
    if mode == "abs":
        return abs(value - ref) <= tol + 1e-9
    if mode == "factor":
        return value > 0 and ref > 0 and max(value / ref, ref / value) <= tol
    if ref == 0:
        return abs(value) <= tol + 1e-9
    return abs(value - ref) <= tol * abs(ref) + 1e-9


def clean(x: Any) -> Any:
    """Round floats for the JSON (6 significant digits); NaN/inf become None."""
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return None
        return float(f"{x:.6g}")
    return x


def fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        # Differences of equal numbers come out as 1e-15 noise: below a part in 10^9, zero.
        if abs(x) < 1e-9:
            return "0"
        if abs(x) >= 100:
            return f"{x:.1f}"
        if abs(x) >= 1:
            return f"{x:.3g}" if abs(x) < 10 else f"{x:.2f}"
        return f"{x:.3g}"
    return str(x)


#: Tables longer than this fold into a `<details>` element that shows their size.
FOLD_ROWS = 25


def html_table(rows: Iterable[dict[str, Any]], columns: Sequence[tuple[str, str]]):
    """An HTML table of comparison rows (`templates/table.html.j2`); a row's ``ok`` (True/False/
    None) sets its class. A long table is folded (click to open), its summary saying how many
    rows and how many are off. Returns ``Markup``, to put into a page as it is."""
    from .._html import Markup, render

    rows = list(rows)
    return Markup(render(
        "table.html.j2", columns=list(columns), fold=FOLD_ROWS,
        cells=[[fmt(r.get(key)) for key, _ in columns] for r in rows],
        classes=[{True: "ok", False: "off"}.get(r.get("ok"), "") for r in rows],
        off=sum(1 for r in rows if r.get("ok") is False)))


def prepare(out: Any, paper: str, workers: int | None) -> tuple[Any, int]:
    """A reproduction's output directory (default ``out/reproduce/<paper>``, with ``figures/``)
    and its worker count (default: up to two cores)."""
    from pathlib import Path

    out = Path(out or f"out/reproduce/{paper}")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    return out, default_workers() if workers is None else max(1, int(workers))


def save_figure(fig, path) -> str:
    """Writes a matplotlib figure (tight layout, 110 dpi) and returns the file's name (the figures
    are `_mpl`'s, which pyplot does not hold: nothing to close)."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path.name


def report_page(title: str, intro: str, sections: Sequence[tuple[str, Any]], figures: Sequence[str]) -> str:
    """A reproduction's ``index.html`` (`templates/reproduction.html.j2`): the title, an
    introduction (text), titled sections (HTML from `html_table`) and the figures (files under
    ``figures/``), two to a row."""
    from .._html import render

    return render("reproduction.html.j2", title=title, intro=intro, sections=list(sections), figures=list(figures))

