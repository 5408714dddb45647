"""`ccsim run --parallel-report`'s text: the summary's `parallel_report` object (the speed-up a
windowed run's logical processes would give on 2 to 64 threads; docs/benchmarks.md, "Scaling on
paper") as one table, or the one line saying why the world has none."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table


def print_parallel_report(out: Any, r: dict[str, Any]) -> None:
    """Prints report `r` on console `out`."""
    if not r.get("windowed"):
        out.print(f"parallel report: none, this world runs from one queue: {escape(str(r.get('why', '')))}")
        return
    cut = r.get("partition_from_windows")
    basis = "the whole run's work" if cut is None else f"the work of the first {cut:,} windows (memory cap)"
    out.print(
        f"parallel report: {r['lps']:,} logical processes, windows of {r['window_s'] * 1e6:g} µs at most "
        f"({r['windows']:,} windows run), {r['total_events']:,} events of which {r['serial_events']:,} between "
        f"windows; {r['ns_per_event']:.1f} ns per event on one thread; a two-thread barrier round "
        f"{r['barrier_ns_2_threads']:,.0f} ns (spin) / {r['barrier_ns_std_2_threads']:,.0f} ns (std::sync::Barrier); "
        f"partitions (LPT) from {basis}"
    )
    b = r["busiest_lp"]
    names = ", ".join(b["first_nodes"]) + (f" and {b['nodes'] - len(b['first_nodes']):,} more" if b["nodes"] > 3 else "")
    share = b["events"] / r["total_events"] if r["total_events"] else 0.0
    out.print(f"the busiest logical process ({escape(names)}) runs {share:.1%} of the events: no thread count "
              f"beats {1 / share if share else float('inf'):.2f}×")
    t = Table(title="predicted speed-up (work in events; one barrier per window)")
    for col in ("threads", "largest / smallest thread load", "work only", "with barrier"):
        t.add_column(col, justify="right")
    for k in r["threads"]:
        loads = k["loads"]
        spread = f"{max(loads):,} / {min(loads):,}" if loads else ""
        t.add_row(str(k["threads"]), spread, f"{k['speedup_work']:.2f}×", f"{k['speedup_with_barrier']:.2f}×")
    out.print(t)
