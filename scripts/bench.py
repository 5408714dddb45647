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
    ("15 SACK TCP over UBR, Selective Drop (seed 001)", "gfr/n-source-15-sd", None, 2.0),
    ("15 SACK TCP over GFR, per-VC SCFQ (seed 001 B2)", "gfr/unequal-b2", None, 2.0),
    ("10 Reno TCP over IP, drop-tail routers (seed 002; packets)", "ficcrd/droptail", None, 200.0),
    ("HG-RCP: 5 TCP through a gateway over ABR (seed 000; cells and packets)", "hgrcp/hgrcp-5", None, 10.0),
    ("CT: 100 TCP session sources over credit-controlled hops (seed 004 case 6)", "ut-ct/two-node-case6-ct-bdp", None, 10.0),
    ("UT: the same 100 sources over ABR (seed 004 case 6)", "ut-ct/two-node-case6-ut", None, 10.0),
]
# Extra settings per preset: seed 004's sources start a session every 71 s on average, so the
# benchmark starts them every second (a loaded bottleneck, as in the seed's busiest periods).
EXTRA = {"ut-ct/two-node-case6-ct-bdp": [("connection[0].sessions.rate", "1.0")],
         "ut-ct/two-node-case6-ut": [("connection[0].sessions.rate", "1.0")]}
# Whole `ccsim run PRESET --json` processes (start-up, run, result conversion), as a user runs them.
# Whole `ccsim` processes as a user or a script runs them (docs/benchmarks.md, the command path).
PROCESS_CASES = [
    ("seed-002 drop-tail baseline, 200 s simulated", ["run", "ficcrd/droptail", "--json"]),
    ("Two Sources / ERICA, 10 s simulated", ["run", "abr-benchmarks/two-sources", "--set", 'run.duration="10s"', "--json"]),
    ("help", ["--help"]),
    ("GFC1 / ERICA, 10 s simulated, summary only", ["run", "abr-benchmarks/gfc1", "--set", 'run.duration="10s"', "--json"]),
    ("the same, tables and plots written (`--out`)", ["run", "abr-benchmarks/gfc1", "--set", 'run.duration="10s"', "--out", "DIR"]),
]
# Five runs: the machines this runs on are VMs whose neighbours slow a run by up to a third, so
# the table gives the best run beside the median (the best is the least disturbed: `timeit`'s
# advice).
REPEATS = int(os.environ.get("CCSIM_BENCH_REPEATS", "5"))
# Every row but the threads block's runs on one thread (the per-core numbers the history below
# compares): `run.threads` in the engine rows, and `CCSIM_THREADS` for the `ccsim` processes.
os.environ["CCSIM_THREADS"] = "1"


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
    overrides = [("run.duration", json.dumps(f"{seconds}s")), ("run.measure_from", "null"), ("run.threads", "1"),
                 *EXTRA.get(preset, [])]
    if seconds <= 2.0:
        # Short ATM cases sample every 1 ms; long runs keep their preset's sampling.
        overrides.append(("measure.interval", json.dumps("1ms")))
    for _ in range(REPEATS):
        sim = _core.Simulation(text, "toml", overrides, scheme, None)
        t0 = time.perf_counter()
        sim.run_until(seconds)
        walls.append(time.perf_counter() - t0)
    result = sim.finish()
    wall = statistics.median(walls)
    best = min(walls)
    # A hop is a cell crossing an ATM link or a packet crossing an IP link.
    hops = result["cell_hops"] + result.get("packet_hops", 0)
    events = result["events"]
    return {
        "wall_s": wall,
        "events": events,
        "cell_hops": hops,
        "events_per_s": events / wall,
        "cell_hops_per_s": hops / wall,
        "ns_per_cell_hop": wall * 1e9 / hops,
        "best_cell_hops_per_s": hops / best,
        "best_ns_per_cell_hop": best * 1e9 / hops,
    }


SWEEP_START, SWEEP_END = "<!-- sweep-bench:start -->", "<!-- sweep-bench:end -->"


def _sweep_plan(name: str, preset: str, duration: str, path: str, values: list) -> dict:
    return {
        "name": name, "scenario": preset, "metrics": ["fairness_index"],
        "set": {"run.duration": duration, "run.measure_from": "0s"},
        "axis": [{"path": path, "values": values}],
    }


def _timed_sweep(plan: dict, executor) -> float:
    import tempfile

    from ccsim.sweeps import run_sweep

    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        outcome = run_sweep(plan, executor=executor, out=out)
        wall = time.perf_counter() - t0
    assert outcome.completed == len(plan["axis"][0]["values"])
    return wall


def sweep_bench() -> list[str]:
    """Speed-up of a 16-point sweep with 2 local workers over 1, and the per-point overhead of the
    Dask executor (a LocalCluster of 2 workers) against the local pool of 2, on tiny points.
    Worker pools are started before timing; their start-up is reported separately."""
    from ccsim.sweeps import DaskExecutor, LocalExecutor

    big = _sweep_plan("bench-16", "abr-benchmarks/one-at-a-time", "1s", "source[0].count", list(range(15, 31)))
    walls = {}
    starts = {}
    for n in (1, 2):
        ex = LocalExecutor(n)
        t0 = time.perf_counter()
        ex.warm_up()
        starts[n] = time.perf_counter() - t0
        try:
            walls[n] = _timed_sweep(big, ex)
        finally:
            ex.close()
        print(f"16-point sweep, {n} local worker(s): {walls[n]:.2f} s (pool start {starts[n]:.2f} s)", flush=True)
    speedup = walls[1] / walls[2]
    print(f"speed-up 2 workers over 1: {speedup:.2f}x", flush=True)

    tiny = _sweep_plan("bench-tiny", "abr-benchmarks/two-sources", "2ms", "defaults.buffer", list(range(100, 164)))
    n_tiny = len(tiny["axis"][0]["values"])
    local = LocalExecutor(2)
    local.warm_up()
    try:
        _timed_sweep(tiny, local)  # once to warm caches
        t_local = statistics.median(_timed_sweep(tiny, local) for _ in range(REPEATS))
    finally:
        local.close()
    t0 = time.perf_counter()
    dask = DaskExecutor(workers=2)
    dask.warm_up()
    dask_start = time.perf_counter() - t0
    try:
        _timed_sweep(tiny, dask)
        t_dask = statistics.median(_timed_sweep(tiny, dask) for _ in range(REPEATS))
    finally:
        dask.close()
    overhead_ms = (t_dask - t_local) / n_tiny * 1e3
    print(f"{n_tiny} tiny points: local pool {t_local:.2f} s, Dask LocalCluster {t_dask:.2f} s "
          f"-> Dask overhead {overhead_ms:.1f} ms per point (cluster start {dask_start:.1f} s)", flush=True)

    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [
        SWEEP_START,
        f"Last run: {stamp}, commit `{commit()}`. Machine: {machine()}.",
        "",
        "| measurement | value |",
        "|---|---|",
        f"| 16-point sweep (One-at-a-Time, 15-30 sources, 1 s simulated each), 1 local worker | {walls[1]:.2f} s |",
        f"| the same, 2 local workers | {walls[2]:.2f} s |",
        f"| **speed-up, 2 workers over 1** (target >= 1.8) | **{speedup:.2f}x** |",
        f"| local pool start (spawned processes; not in the times above) | {starts[1]:.2f} s (1), {starts[2]:.2f} s (2) |",
        f"| {n_tiny} tiny points (Two Sources, 2 ms), local pool of 2, median of {REPEATS} | {t_local:.3f} s |",
        f"| the same through Dask (LocalCluster, 2 worker processes), median of {REPEATS} | {t_dask:.3f} s |",
        f"| **Dask overhead per point** over the local pool | **{overhead_ms:.1f} ms** |",
        f"| Dask LocalCluster start (not in the times above) | {dask_start:.1f} s |",
        SWEEP_END,
    ]


def write_sweep_block(lines: list[str]) -> None:
    block = "\n".join(lines)
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    if SWEEP_START in text:
        head, rest = text.split(SWEEP_START, 1)
        tail = rest.split(SWEEP_END, 1)[1] if SWEEP_END in rest else ""
        DOC.write_text(head + block + tail)
    else:
        DOC.write_text(text.rstrip("\n") + "\n\n## Sweeps: local workers and the Dask executor\n\n"
                       "`make bench` also times sweeps (`sweep_bench` in scripts/bench.py; "
                       "`scripts/bench.py --sweep-only` runs just this part):\n\n" + block + "\n")
    print(f"recorded the sweep numbers in {DOC.relative_to(ROOT)}")


def process_wall(args: list[str]) -> dict:
    """Median and best wall time, and the largest peak memory, of a whole `ccsim ARGS` process
    (`DIR` in ARGS: a temporary directory, replaced by each run)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        runs = [_once([str(Path(tmp) / "out") if a == "DIR" else a for a in args]) for _ in range(REPEATS)]
    walls = [r["wall_s"] for r in runs]
    return {"median_s": statistics.median(walls), "best_s": min(walls), "peak_mib": max(r["peak_mib"] for r in runs)}


# Scale: GFC1 with `source[0].count` = N (docs/benchmarks.md, per-VC state). Both leave the series out
# (their size is its own question) and simulate 10 ms, by when the access pipes are full (100,000
# sources take 2-3 minutes and ~1.9 GB). Runs per N: single whole-process runs here moved by a third
# from one `make bench` to the next, so the smaller ones are the median of three.
SCALE = [(1_000, 3), (10_000, 3), (100_000, 1)]
NO_SERIES = ["--set", "measure.acr=false", "--set", "measure.queue=false", "--set", "measure.received=false",
             "--set", "measure.utilization=false"]


def scale_rows() -> list[dict]:
    """Validate and a short run of GFC1 with N sources in group A: wall time and peak memory."""
    rows = []
    for n, runs in SCALE:
        count = ["--set", f"source[0].count={n}"]
        # Validation refuses a run whose series would pass measure.max_series_mb: leave them out too.
        row = {"n": n, "validate": _median_run(["validate", "abr-benchmarks/gfc1", *count, *NO_SERIES], runs)}
        row["run"] = _median_run(["run", "abr-benchmarks/gfc1", *count, "--set", 'run.duration="10ms"', *NO_SERIES, "--json"], runs)
        rows.append(row)
    return rows


# Scale, engine only and past the start: N VCs whose initial rate is the 150 Mb/s trunk shared N
# ways (with GFC1's 25 Mb/s, thousands of sources flood the first switch for hundreds of ms and the
# run measures drops), in GFC1 (the N sources in group A) and in a generated parking lot (below),
# run to ENGINE_SCALE_WARM, then timed over
# five consecutive chunks of ENGINE_SCALE_CHUNK: ns per hop comparable with the engine rows above.
# Each N in ENGINE_SCALE_WORLDS fresh worlds: one world's chunks agree within a few percent, but
# worlds built anew differ by up to a third here (where their memory lands), so the row is the
# median world's median chunk.
ENGINE_SCALE = [100, 1_000, 10_000]
ENGINE_SCALE_WORLDS = 3
ENGINE_SCALE_WARM = 0.2
ENGINE_SCALE_CHUNK = 0.02


def gfc1_scale_text(n: int) -> tuple[str, list]:
    """GFC1 with N sources in group A starting at 150/N Mb/s (the preset's text and overrides)."""
    return preset_text("abr-benchmarks/gfc1"), [("source[0].count", str(n)), ("defaults.abr.icr", json.dumps(f"{150 / n:g}Mbps"))]


# The issue's large generated topology: parking-lot-5 (seed 003's MAN parking lot, 0.5 ms links)
# extended to PARKING_LOT_SWITCHES switches. N VCs in groups entering at SW1 .. SW31, N/31 each, all
# leaving at the last switch, whose trunk every VC shares: each starts at 150/N Mb/s.
PARKING_LOT_SWITCHES = 32


def parking_lot_text(n: int) -> tuple[str, list]:
    """The generated 32-switch parking lot with N VCs (its TOML text, no overrides)."""
    s = PARKING_LOT_SWITCHES
    text = preset_text("abr-benchmarks/parking-lot-5")
    head = text[:text.index("[[switch]]")].replace('icr = "25Mbps"', f'icr = "{150 / n:g}Mbps"')
    assert f'{150 / n:g}Mbps' in head, "parking-lot-5's ICR moved"
    # The preset's name and description (its first lines, up to the description's closing quotes) replaced.
    quotes = '"' * 3
    body = head[head.index(quotes, head.index(quotes) + 3) + 3:]
    from make_scale_presets import parking_lot_body  # this directory: the scale presets' generator

    parts = [f'name = "bench/parking-lot-{s}"\ndescription = "parking-lot-5 with {s} switches and {n} VCs"' + body]
    return "\n".join(parts + parking_lot_body(s, n)), []


def engine_scale_rows(world_of_n) -> list[dict]:
    """Engine-only ns per hop of the world `world_of_n(N)` gives (its TOML text and overrides) for
    each N: the median world's median of five chunks, and the best chunk of all. Also the share of
    the cells offered to ports that were refused in those chunks, and ns per offered cell (a
    refused cell costs its arrival's work and is no hop): with thousands of sources ERICA's
    intervals see few of them, its fair share is too large, and the trunks drop a large share of
    what reaches them."""
    rows = []
    for n in ENGINE_SCALE:
        text, overrides = world_of_n(n)
        overrides = [*overrides, ("run.duration", json.dumps(f"{ENGINE_SCALE_WARM + 5 * ENGINE_SCALE_CHUNK:g}s")),
                     ("run.measure_from", "null"),
                     *[(f"measure.{m}", "false") for m in ("acr", "queue", "received", "utilization")]]
        medians, offered_medians, best, hops_all, drops_all = [], [], float("inf"), 0, 0
        for _ in range(ENGINE_SCALE_WORLDS):
            sim = _core.Simulation(text, "toml", overrides, "erica", None)
            sim.run_until(ENGINE_SCALE_WARM)
            per_hop, per_offered = [], []
            for k in range(1, 6):
                hops, drops, t0 = sim.hops, sim.port_drops, time.perf_counter()
                sim.run_until(ENGINE_SCALE_WARM + k * ENGINE_SCALE_CHUNK)
                # Reading the counters settles the world's lazy state (as a run's end does): timed.
                hops, drops = sim.hops - hops, sim.port_drops - drops
                wall_ns = (time.perf_counter() - t0) * 1e9
                per_hop.append(wall_ns / hops)
                per_offered.append(wall_ns / (hops + drops))
                hops_all, drops_all = hops_all + hops, drops_all + drops
            medians.append(statistics.median(per_hop))
            offered_medians.append(statistics.median(per_offered))
            best = min(best, *per_hop)
            del sim
        rows.append({"n": n, "ns_per_hop": statistics.median(medians), "best_ns_per_hop": best,
                     "ns_per_offered": statistics.median(offered_medians),
                     "refused_share": drops_all / (hops_all + drops_all)})
    return rows


# TCP at scale: seed 002's drop-tail dumbbell with N Reno flows (S0 and `connection[1].count` = N - 1)
# through the same routers, its links made faster so that the flows have something to share (access
# 100 Mb/s, bottleneck R11->R12 1 Gb/s, the other router links 10 Gb/s), 20 s simulated, `--json`.
TCP_SCALE = [100, 1_000, 10_000]
TCP_SCALE_SETS = ["defaults.link_rate=100Mbps", "link[0].rate=10Gbps", "link[1].rate=1Gbps", "link[2].rate=10Gbps",
                  'run.duration="20s"', 'run.measure_from="5s"']


def tcp_scale_rows() -> list[dict]:
    """Whole-process wall time, peak memory and packet-hops of the seed-002 dumbbell with N flows."""
    sets = [a for s in TCP_SCALE_SETS for a in ("--set", s)]
    return [{"n": n, "run": _median_run(["run", "ficcrd/droptail", "--set", f"connection[1].count={n - 1}", *sets, "--json"], 3)}
            for n in TCP_SCALE]


# Starts `ccsim` from a small interpreter and reports its rusage: Linux counts in a child's peak
# memory the memory of the process it was forked from (until its exec), so a child of this script
# (which holds polars and the engine) would never report less than this script's own size.
_SPAWN = """import json, os, sys, time
t0 = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"wall_s": time.perf_counter() - t0, "code": os.waitstatus_to_exitcode(status),
                  "peak_kib": usage.ru_maxrss}), file=sys.stderr)
"""


def _once(args: list[str]) -> dict:
    """One whole `ccsim ARGS` process: its wall time, peak resident memory (ru_maxrss, KiB on Linux)
    and, for `--json`, its hops (cells and packets) and wall time per hop."""
    exe = Path(sys.executable).parent / "ccsim"
    p = subprocess.run([sys.executable, "-S", "-c", _SPAWN, str(exe), *args], capture_output=True)
    report = json.loads(p.stderr.decode().strip().splitlines()[-1])
    if report["code"] != 0:
        raise RuntimeError(f"ccsim {' '.join(args)} failed: {p.stderr.decode()}")
    row = {"wall_s": report["wall_s"], "peak_mib": report["peak_kib"] / 1024}
    if "--json" in args:
        summary = json.loads(p.stdout)
        row["hops"] = summary["cell_hops"] + summary["packet_hops"]
        row["ns_per_hop"] = row["wall_s"] * 1e9 / row["hops"]
    return row


def _median_run(args: list[str], runs: int) -> dict:
    """`_once` `runs` times: the run of median wall time (its memory and hops too), and the count."""
    done = sorted((_once(args) for _ in range(runs)), key=lambda r: r["wall_s"])
    return {**done[len(done) // 2], "runs": runs}


def write_wall(preload: bool) -> dict:
    """`--out`'s own cost on a 10 s GFC1 run: Parquet tables, plots and the rest of
    `Result.write`, timed inside a fresh process, median and best. With `preload`, as `ccsim run
    --out` does it (the plotting module imported on a thread while the engine runs,
    `_figures.preload_plots`); without, a script's first `write` (matplotlib's import counts)."""
    import tempfile

    code = ("import sys, time, ccsim; from ccsim._figures import preload_plots\n"
            f"p = preload_plots() if {preload} else None\n"
            "r = ccsim.run('abr-benchmarks/gfc1', set={'run.duration': '10s'})\n"
            "p and p.join(); t = time.perf_counter(); r.write(sys.argv[1]); print(time.perf_counter() - t)")
    walls = []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as out:
            p = subprocess.run([sys.executable, "-c", code, out], check=True, capture_output=True, text=True)
            walls.append(float(p.stdout.split()[-1]))
    return {"median_s": statistics.median(walls), "best_s": min(walls)}


def reproduce_wall() -> float:
    """Wall time of the whole seed-003 reproduction, as a user runs it."""
    import tempfile

    exe = Path(sys.executable).parent / "ccsim"
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        subprocess.run([str(exe), "reproduce", "abr-benchmarks", "--out", out, "--json"], check=True, capture_output=True)
        return time.perf_counter() - t0


THREADS_START, THREADS_END = "<!-- threads-bench:start -->", "<!-- threads-bench:end -->"
# (label, preset, simulated seconds for the engine rows and for the whole processes): issue 40's
# targets. A process spends ~0.2 s starting and writing its summary on one thread whatever the
# count, so its runs are longer.
THREAD_CASES = [
    ("GFC1 / ERICA", "abr-benchmarks/gfc1", 1.0, 10.0),
    ("GFC1, 1 km access links (`abr-benchmarks/gfc1-short-access`)", "abr-benchmarks/gfc1-short-access", 1.0, 10.0),
    ("32-switch parking lot, 1,000 VCs (`scale/parking-lot-32`)", "scale/parking-lot-32", 0.3, 3.0),
    ("GFC1, 10,000 sources (`scale/gfc1-10k`)", "scale/gfc1-10k", 0.3, 0.3),
    # TCP worlds (no target: their hosts share a thread, drops elsewhere reach them as notes).
    ("GFR, 50 SACK TCP over UBR with EPD (`gfr/n-source-50-epd`)", "gfr/n-source-50-epd", 2.0, 20.0),
    ("UT, 12 TCP over ABR session sources, 4 switches (`ut-ct/maxmin-case1-ut`)", "ut-ct/maxmin-case1-ut", 15.0, 150.0),
    ("CT, 100 TCP session sources in one VP, OC-3, 50 ms RTT (`ut-ct/two-node-case6-ct-bdp`)", "ut-ct/two-node-case6-ct-bdp", 5.0, 20.0),
]


def engine_threads(preset: str, seconds: float, threads: int) -> dict:
    """Median and best of REPEATS engine-only runs (`Simulation.run_until`, which builds the other
    threads' copies of the world first) without series, on `threads` threads."""
    text = preset_text(preset)
    overrides = [("run.threads", str(threads)), ("run.duration", json.dumps(f"{seconds}s"))]
    walls = []
    for _ in range(REPEATS):
        sim = _core.Simulation(text, "toml", overrides, None, None, series="none")
        t0 = time.perf_counter()
        sim.run_until(sim.duration_s)
        walls.append(time.perf_counter() - t0)
        ran, hops = sim.threads, sim.hops
    return {"median_s": statistics.median(walls), "best_s": min(walls), "threads": ran, "hops": hops}


def threads_bench() -> list[str]:
    """2 threads over 1, engine only and whole `ccsim run PRESET --json` processes."""
    lines = [THREADS_START,
             f"Last run: {dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, commit `{commit()}`, "
             f"median of {REPEATS} runs. Machine: {machine()}.", "",
             "| world | engine: simulated | 1 thread | 2 threads | speed-up | ns per hop, 1 thread "
             "| process: simulated | 1 thread | 2 threads | speed-up | peak memory, 1 → 2 threads |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, preset, seconds, process_seconds in THREAD_CASES:
        one, two = engine_threads(preset, seconds, 1), engine_threads(preset, seconds, 2)
        dur = ["--set", f'run.duration="{process_seconds}s"']
        p1 = process_wall(["run", preset, *dur, "--json", "--threads", "1"])
        p2 = process_wall(["run", preset, *dur, "--json", "--threads", "2"])
        lines.append(
            f"| {label} | {seconds:g} s | {one['median_s']:.3f} s | {two['median_s']:.3f} s ({two['threads']} ran) "
            f"| {one['median_s'] / two['median_s']:.2f}× | {one['median_s'] * 1e9 / one['hops']:.1f} "
            f"| {process_seconds:g} s | {p1['median_s']:.3f} s | {p2['median_s']:.3f} s "
            f"| {p1['median_s'] / p2['median_s']:.2f}× | {p1['peak_mib']:.0f} → {p2['peak_mib']:.0f} MiB |")
        print(lines[-1], flush=True)
    lines.append(THREADS_END)
    return lines


def write_threads_block(lines: list[str]) -> None:
    text = DOC.read_text()
    head, rest = text.split(THREADS_START, 1)
    DOC.write_text(head + "\n".join(lines) + rest.split(THREADS_END, 1)[1])
    print(f"recorded the threads numbers in {DOC.relative_to(ROOT)}")


def main() -> int:
    if "--sweep-only" in sys.argv[1:]:
        write_sweep_block(sweep_bench())
        return 0
    if "--threads-only" in sys.argv[1:]:
        write_threads_block(threads_bench())
        return 0
    rows = []
    for label, preset, scheme, seconds in CASES:
        m = measure(preset, scheme, seconds)
        rows.append((label, seconds, m))
        print(
            f"{label:34s} {seconds:4.1f} s sim  {m['wall_s']:7.3f} s wall  "
            f"{m['events_per_s'] / 1e6:6.2f} M events/s  {m['cell_hops_per_s'] / 1e6:6.2f} M hops/s  "
            f"{m['ns_per_cell_hop']:6.1f} ns/hop (best {m['best_ns_per_cell_hop']:.1f} ns, "
            f"{m['best_cell_hops_per_s'] / 1e6:.2f} M hops/s)",
            flush=True,
        )
    processes = []
    for label, args in PROCESS_CASES:
        w = process_wall(args)
        processes.append((label, args, w))
        print(f"`ccsim {' '.join(args)}` ({label}): {w['median_s']:.3f} s wall (best {w['best_s']:.3f}), "
              f"{w['peak_mib']:.0f} MiB peak", flush=True)
    scale = scale_rows()
    for r in scale:
        run = r["run"]
        print(f"GFC1 with {r['n']:,} sources: validate {r['validate']['wall_s']:.2f} s, {r['validate']['peak_mib']:.0f} MiB; "
              f"10 ms run {run['wall_s']:.2f} s, {run['peak_mib']:.0f} MiB (median of {run['runs']})", flush=True)
    engine_scale = {}
    for name, world_of_n in [("GFC1", gfc1_scale_text), (f"the {PARKING_LOT_SWITCHES}-switch parking lot", parking_lot_text)]:
        engine_scale[name] = engine_scale_rows(world_of_n)
        for r in engine_scale[name]:
            print(f"{name} with {r['n']:,} VCs, engine only past the start: {r['ns_per_hop']:.0f} ns per hop "
                  f"(best {r['best_ns_per_hop']:.0f}); {100 * r['refused_share']:.0f} % of offered cells refused, "
                  f"{r['ns_per_offered']:.0f} ns per offered cell", flush=True)
    tcp_scale = tcp_scale_rows()
    for r in tcp_scale:
        run = r["run"]
        print(f"seed-002 dumbbell with {r['n']:,} TCP flows, 20 s: {run['wall_s']:.2f} s, {run['peak_mib']:.0f} MiB, "
              f"{run['ns_per_hop']:.0f} ns per packet-hop (whole process)", flush=True)
    written, fresh = write_wall(preload=True), write_wall(preload=False)
    print(f"--out on a 10 s GFC1 run: {written['median_s']:.2f} s (best {written['best_s']:.2f}); "
          f"a fresh Result.write {fresh['median_s']:.2f} s (best {fresh['best_s']:.2f})", flush=True)
    repro = reproduce_wall()
    print(f"full `ccsim reproduce abr-benchmarks`: {repro:.1f} s wall", flush=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        START,
        f"Last run: {stamp}, commit `{commit()}`, median and best of {REPEATS} runs, engine only (`Simulation.run_until`).",
        f"Machine: {machine()}.",
        "",
        "A hop is one cell crossing one ATM link, or one packet crossing one IP link (the seed-002 row).",
        "",
        "| case | simulated | wall (median) | events/s | hops/s | ns per hop | best: hops/s, ns per hop |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, seconds, m in rows:
        lines.append(
            f"| {label} | {seconds:g} s | {m['wall_s']:.3f} s | {m['events_per_s'] / 1e6:.2f} M "
            f"| {m['cell_hops_per_s'] / 1e6:.2f} M | {m['ns_per_cell_hop']:.1f} "
            f"| {m['best_cell_hops_per_s'] / 1e6:.2f} M, {m['best_ns_per_cell_hop']:.1f} |"
        )
    lines += ["", f"Whole processes (median and best of {REPEATS}; peak resident memory, the largest):", "",
              "| command | what | wall (median) | best | peak memory |", "|---|---|---|---|---|"]
    for label, args, w in processes:
        lines.append(f"| `ccsim {' '.join(args)}` | {label} | {w['median_s']:.3f} s | {w['best_s']:.3f} s "
                     f"| {w['peak_mib']:.0f} MiB |")
    lines.append("")
    lines += ["Scale (GFC1 with N sources in group A; runs of 10 ms simulated without series; ns per hop of the "
              "whole process; the median of the runs counted):", "",
              "| N | runs | validate | validate peak | 10 ms run | run peak | run peak per source | ns per hop |",
              "|---|---|---|---|---|---|---|---|"]
    for r in scale:
        v, run = r["validate"], r["run"]
        lines.append(f"| {r['n']:,} | {run['runs']} | {v['wall_s']:.2f} s | {v['peak_mib']:.0f} MiB | {run['wall_s']:.2f} s "
                     f"| {run['peak_mib']:.0f} MiB | {run['peak_mib'] * 1024 / r['n']:.0f} KiB | {run['ns_per_hop']:.0f} |")
    lines.append("")
    gfc1 = next(m for label, _, m in rows if label.startswith("GFC1 / ERICA "))
    lines += [f"Scale, engine only (ERICA, N VCs each starting at 150/N Mb/s: GFC1 with the N sources in group A, and "
              f"parking-lot-5 extended to {PARKING_LOT_SWITCHES} switches with N/{PARKING_LOT_SWITCHES - 1} VCs entering "
              f"at each switch but the last; from {ENGINE_SCALE_WARM * 1e3:g} ms, five chunks of "
              f"{ENGINE_SCALE_CHUNK * 1e3:g} ms in each of {ENGINE_SCALE_WORLDS} worlds built anew; no series):", "",
              "| world | N | ns per hop (median) | best | over GFC1's (target ≤ 1.5×) | cells offered to ports and refused "
              "| ns per offered cell (median) |", "|---|---|---|---|---|---|---|"]
    for name, scaled in engine_scale.items():
        for r in scaled:
            lines.append(f"| {name} | {r['n']:,} | {r['ns_per_hop']:.0f} | {r['best_ns_per_hop']:.0f} "
                         f"| {r['ns_per_hop'] / gfc1['ns_per_cell_hop']:.1f}× | {100 * r['refused_share']:.0f} % "
                         f"| {r['ns_per_offered']:.0f} |")
    lines.append("")
    lines += ["TCP at scale (seed 002's drop-tail dumbbell with N Reno flows, access links 100 Mb/s, bottleneck 1 Gb/s, "
              "20 s simulated, `--json`; ns per packet-hop of the whole process; the median of three runs):", "",
              "| N flows | wall | peak | peak per flow | packet-hops | ns per hop |", "|---|---|---|---|---|---|"]
    for r in tcp_scale:
        run = r["run"]
        lines.append(f"| {r['n']:,} | {run['wall_s']:.2f} s | {run['peak_mib']:.0f} MiB "
                     f"| {run['peak_mib'] * 1024 / r['n']:.0f} KiB | {run['hops'] / 1e6:.1f} M "
                     f"| {run['ns_per_hop']:.0f} |")
    lines.append("")
    lines.append(f"`--out` on a 10 s GFC1 run (Parquet tables, PNG plots), its write phase as in `ccsim run --out` "
                 f"(the plotting module imported while the engine runs): {written['median_s']:.2f} s median, "
                 f"{written['best_s']:.2f} s best; a script's first `Result.write`, importing matplotlib and polars "
                 f"itself: {fresh['median_s']:.2f} s median, {fresh['best_s']:.2f} s best.")
    lines.append("")
    lines.append(f"Full `ccsim reproduce abr-benchmarks` (14 presets × 5 schemes, 2 workers): {repro:.1f} s wall.")
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
    write_threads_block(threads_bench())
    write_sweep_block(sweep_bench())
    return 0


if __name__ == "__main__":
    sys.exit(main())
