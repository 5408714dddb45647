"""Macro benchmarks of the simulation core (`make bench`).

Runs named presets for a fixed simulated time through `ccsim._core` (the engine alone, GIL
released, no result conversion), takes the median of a few repetitions, prints events per
second, cell-hops per second and ns per cell-hop, and rewrites the results section of
docs/benchmarks.md with the machine and date.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ccsim import _core
from ccsim.presets import preset_text

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"

# (label, preset, scheme, simulated seconds)
CASES = [
    ("GFC1 / ERICA (WAN, 23 VCs)", "abr-benchmarks/gfc1", "erica", 1.0),
    ("GFC1 / ERICA+ (WAN, 23 VCs)", "abr-benchmarks/gfc1", "erica_plus", 1.0),
    ("GFC1 / DEBRA (WAN, 23 VCs)", "abr-benchmarks/gfc1", "debra", 1.0),
    ("Two Sources / ERICA (LAN)", "abr-benchmarks/two-sources", "erica", 1.0),
    ("Upstream / ERICA (WAN, 17 VCs)", "abr-benchmarks/upstream", "erica", 1.0),
]
REPEATS = int(os.environ.get("CCSIM_BENCH_REPEATS", "3"))


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def measure(preset: str, scheme: str, seconds: float) -> dict:
    text = preset_text(preset)
    walls, sim = [], None
    overrides = [("run.duration", json.dumps(f"{seconds}s")), ("measure.interval", json.dumps("1ms"))]
    for _ in range(REPEATS):
        sim = _core.Simulation(text, "toml", overrides, scheme, None)
        t0 = time.perf_counter()
        sim.run_until(seconds)
        walls.append(time.perf_counter() - t0)
    result = sim.finish()
    wall = statistics.median(walls)
    hops = result["cell_hops"]
    events = result["events"]
    return {
        "wall_s": wall,
        "events": events,
        "cell_hops": hops,
        "events_per_s": events / wall,
        "cell_hops_per_s": hops / wall,
        "ns_per_cell_hop": wall * 1e9 / hops,
    }


def main() -> int:
    rows = []
    for label, preset, scheme, seconds in CASES:
        m = measure(preset, scheme, seconds)
        rows.append((label, seconds, m))
        print(
            f"{label:34s} {seconds:4.1f} s sim  {m['wall_s']:7.3f} s wall  "
            f"{m['events_per_s'] / 1e6:6.2f} M events/s  {m['cell_hops_per_s'] / 1e6:6.2f} M cell-hops/s  "
            f"{m['ns_per_cell_hop']:6.1f} ns/cell-hop",
            flush=True,
        )
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        START,
        f"Last run: {stamp}, commit `{commit()}`, median of {REPEATS} runs, engine only (`Simulation.run_until`).",
        f"Machine: {machine()}.",
        "",
        "| case | simulated | wall | events/s | cell-hops/s | ns per cell-hop |",
        "|---|---|---|---|---|---|",
    ]
    for label, seconds, m in rows:
        lines.append(
            f"| {label} | {seconds:g} s | {m['wall_s']:.3f} s | {m['events_per_s'] / 1e6:.2f} M "
            f"| {m['cell_hops_per_s'] / 1e6:.2f} M | {m['ns_per_cell_hop']:.1f} |"
        )
    lines.append(END)
    block = "\n".join(lines)
    if DOC.exists() and START in DOC.read_text():
        text = DOC.read_text()
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1] if END in rest else ""
        DOC.write_text(head + block + tail)
    else:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text("# Benchmarks\n\n" + block + "\n")
    print(f"recorded in {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
