"""Seed 003 (Zoranovic & Williamson, "Performance and Robustness Testing of Explicit-Rate ABR Flow
Control Schemes"): every benchmark scenario with ERICA, ERICA+ and DEBRA (EPRCA and UT as extra
columns), the seed's numbers and statements judged under the one verdict model (verdicts.py).

    ccsim reproduce abr-benchmarks [--out DIR] [--quick] [--workers N] [--json]

The seed's rows are in ``data/abr-benchmarks.toml``: one row per seed number (its quote, its
tolerance and why), its statements with the criterion each is checked by, its stated settings
(inputs, never counted) and its own arithmetic (max-min rates, D × C; never counted). ERICA and
ERICA+ run with `max_min_fix` on (the [RECON] default, counted) and off, shown side by side.
Theory beside every scenario (details.json): max-min rates by water-filling on the topology with
every port's capacity × its scheme's target factor (ERICA U, ERICA+ 1, DEBRA C·V, UT ρ_T; none for
EPRCA); ERICA+'s target queue Q0 = T0 × port capacity (docs/reproductions/abr-benchmarks.md).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from . import _common as C
from . import verdicts

PAPER = "abr-benchmarks"
TITLE = "Seed 003: performance and robustness testing of ERICA, ERICA+ and DEBRA"
MAIN_SCHEMES = ("erica", "erica_plus", "debra")
EXTRA_SCHEMES = ("eprca", "ut")
SCHEMES = MAIN_SCHEMES + EXTRA_SCHEMES
SCHEME_TITLES = {"erica": "ERICA", "erica_plus": "ERICA+", "debra": "DEBRA", "eprca": "EPRCA", "ut": "UT"}
DATA_FILE = Path(__file__).parent / "data" / "abr-benchmarks.toml"
QUICK_FACTOR = 0.4  # --quick runs every scenario for 40 % of its duration
CONVERGENCE_BAND = 0.05
UNITS = {
    "acr_mbps": "Mb/s", "maxmin_mbps": "Mb/s", "mean_queue_cells": "cells", "max_queue_cells": "cells",
    "max_queue_run_cells": "cells", "convergence_ms": "ms",
}


# --- the seed's data ----------------------------------------------------------------------------


def load_data(path: Path = DATA_FILE) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return [None]
    return list(x) if isinstance(x, (list, tuple)) else [x]


def scenario_names(data: dict[str, Any]) -> list[str]:
    """The data file's scenarios in its order, then any other preset of the paper."""
    from ..presets import preset_names

    shipped = [n.split("/", 1)[1] for n in preset_names() if n.startswith(PAPER + "/")]
    ordered = [s for s in data.get("scenario", {}) if s in shipped]
    return ordered + [s for s in shipped if s not in ordered]


def seed_scenarios(data: dict[str, Any]) -> list[str]:
    """The 13 scenarios of the seed's Tables 1 and 2 (everything but the extras)."""
    return [s for s, meta in data.get("scenario", {}).items() if "not in seed" not in meta.get("section", "")]


# --- theory from the resolved scenario ----------------------------------------------------------


def scheme_factor(algorithm: dict[str, Any]) -> float | None:
    """The fraction of a port's capacity a scheme aims to allocate (docs/reproductions/abr-benchmarks.md)."""
    kind = algorithm.get("type")
    if kind == "erica":
        return float(algorithm["target_utilization"])
    if kind == "erica_plus":
        return 1.0
    if kind == "debra":
        return float(algorithm["target_utilization"]) * float(algorithm.get("advertised_fraction", 1.0))
    if kind == "ut":
        return float(algorithm["target_utilization"])
    return None  # eprca, efci: no exact target


@dataclass
class Port:
    name: str
    cap_mbps: float
    switch: str | None  # the switch whose scheme runs this port (None: a host adapter)
    trunk: bool


@dataclass
class Src:
    name: str
    destination: str
    ports: list[str]
    pcr: float
    start_ms: float
    stop_ms: float | None
    fixed_rate: float | None = None  # honest/dishonest fixed-rate misbehaviour (Mb/s)
    misbehaving: bool = False
    entry: int = 0


@dataclass
class Topology:
    ports: dict[str, Port]
    sources: list[Src]
    algorithms: dict[str, dict[str, Any]]  # switch -> resolved algorithm
    entries: list[dict[str, Any]] = field(default_factory=list)

    def factor(self, port: Port) -> float | None:
        if port.switch is None:
            return 1.0
        return scheme_factor(self.algorithms[port.switch])


def topology(resolved: dict[str, Any]) -> Topology:
    d = resolved.get("defaults", {})
    sonet = bool(d.get("sonet_payload"))

    def link_rate(value: Any) -> float:
        r = C.rate_mbps(value if value is not None else d.get("link_rate", "155.52Mbps"))
        return 149.76 if sonet and abs(r - 155.52) < 1e-9 else r

    algorithms = {}
    for sw in resolved.get("switch", []):
        algorithms[sw["name"]] = sw.get("algorithm") or d.get("algorithm", {"type": "erica"})
    ports: dict[str, Port] = {}
    for link in resolved.get("link", []):
        a, b = link["between"]
        rate = link_rate(link.get("rate"))
        ports[f"{a}->{b}"] = Port(f"{a}->{b}", rate, a, True)
        ports[f"{b}->{a}"] = Port(f"{b}->{a}", rate, b, True)
    pcr_default = d.get("abr", {}).get("pcr", "155Mbps")
    sources = []
    for i, e in enumerate(resolved.get("source", [])):
        count = int(e.get("count", 1))
        for k in range(count):
            name = e["name"] if count == 1 else f"{e['name']}{k + 1}"
            dest = e.get("destination") or ("D" + (name[1:] if name.startswith("S") else name))
            if count > 1 and e.get("destination"):
                dest = f"{e['destination']}{k + 1}"
            route = e["route"]
            acc, egr = f"{name}->{route[0]}", f"{route[-1]}->{dest}"
            ports[acc] = Port(acc, link_rate((e.get("access") or {}).get("rate")), None, False)
            ports[egr] = Port(egr, link_rate((e.get("egress") or {}).get("rate")), route[-1], False)
            path = [acc] + [f"{a}->{b}" for a, b in zip(route, route[1:])] + [egr]
            mis = e.get("misbehaviour")
            fixed = C.rate_mbps(mis["rate"]) if mis and mis.get("type") == "fixed_rate" else None
            start = C.duration_ms(e.get("start", "0s")) + k * C.duration_ms(e.get("start_step", "0s"))
            stop = C.duration_ms(e["stop"]) if e.get("stop") else None
            pcr = C.rate_mbps((e.get("abr") or {}).get("pcr", pcr_default))
            sources.append(Src(name, dest, path, pcr, start, stop, fixed, bool(mis), i))
    return Topology(ports, sources, algorithms, list(resolved.get("source", [])))


def waterfill(caps: dict[str, float], flows: dict[str, tuple[float, list[str]]]) -> dict[str, float]:
    """Max-min fair rates (docs/reproductions/abr-benchmarks.md): flows are (demand, ports); each round the tightest port
    (or a flow's own demand) fixes the rates of the flows it limits."""
    remaining = dict(caps)
    active = dict(flows)
    rate: dict[str, float] = {}
    while active:
        users: dict[str, list[str]] = {}
        for f, (_, ports) in active.items():
            for p in ports:
                users.setdefault(p, []).append(f)
        level = min((remaining[p] / len(fs) for p, fs in users.items()), default=float("inf"))
        capped = [f for f, (dem, _) in active.items() if dem <= level + 1e-12]
        if capped:
            fixed = {f: active[f][0] for f in capped}
        else:
            tight = [p for p, fs in users.items() if remaining[p] / len(fs) <= level + 1e-12]
            fixed = {f: level for p in tight for f in users[p]}
        for f, x in fixed.items():
            rate[f] = max(0.0, x)
            for p in active[f][1]:
                remaining[p] -= x
            del active[f]
    return rate


def active_sources(topo: Topology, window_ms: tuple[float, float]) -> list[Src]:
    w0, w1 = window_ms
    return [s for s in topo.sources if s.start_ms < w1 and (s.stop_ms is None or s.stop_ms > w0)]


def theory_rates(topo: Topology, window_ms: tuple[float, float], scaled: bool) -> dict[str, float] | None:
    """Each active source's expected rate: water-filling with capacities × the scheme's factor
    (``scaled``) or at full capacity; fixed-rate misbehaving sources demand their fixed rate."""
    caps = {}
    for p in topo.ports.values():
        f = topo.factor(p) if scaled else 1.0
        if f is None:
            return None
        caps[p.name] = p.cap_mbps * f
    flows = {}
    for s in active_sources(topo, window_ms):
        fixed = s.fixed_rate is not None and s.start_ms < window_ms[0]
        flows[s.name] = (min(s.pcr, s.fixed_rate) if fixed else s.pcr, s.ports)
    return waterfill(caps, flows)


def bottleneck_ports(topo: Topology, window_ms: tuple[float, float]) -> list[str]:
    """Trunk ports that the max-min allocation at full capacity saturates (≥ 99 %)."""
    rates = theory_rates(topo, window_ms, scaled=False) or {}
    load: dict[str, float] = {}
    for s in active_sources(topo, window_ms):
        for p in s.ports:
            load[p] = load.get(p, 0.0) + rates.get(s.name, 0.0)
    return [p.name for p in topo.ports.values() if p.trunk and load.get(p.name, 0.0) >= 0.99 * p.cap_mbps]


# --- groups -------------------------------------------------------------------------------------


def expand(spec: str | list[str], names: list[str]) -> list[str]:
    """Members of a group: "S1-S15" (a numbered range), a list of names, or one name."""
    if isinstance(spec, list):
        return [n for n in spec if n in names]
    m = re.fullmatch(r"([A-Za-z_]+)(\d+)-\1?(\d+)", spec)
    if m:
        prefix, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        return [f"{prefix}{i}" for i in range(a, b + 1) if f"{prefix}{i}" in names]
    return [spec] if spec in names else []


def groups(topo: Topology, meta: dict[str, Any], names: list[str]) -> dict[str, list[str]]:
    """The source groups a scenario is reported by: the data file's, else one per source entry
    (a ``count = N`` entry named X is the group "X1-XN")."""
    if "groups" in meta:
        out = {label: expand(spec, names) for label, spec in meta["groups"].items()}
    else:
        out = {}
        for i, e in enumerate(topo.entries):
            members = [s.name for s in topo.sources if s.entry == i]
            label = members[0] if len(members) == 1 else f"{members[0]}-{members[-1]}"
            out[label] = [n for n in members if n in names]
    return {k: v for k, v in out.items() if v}


# --- running ------------------------------------------------------------------------------------

# The readings of `max_min_fix` (ERICA's and ERICA+'s MaxAllocPrevious), a [RECON] default the seed
# does not state (docs/models/abr/erica.md): the headline counts "on", the preset's default; "off"
# runs ERICA and ERICA+ again in the scenarios with published numbers and is shown beside.
READINGS = {"on": (), "off": (("defaults.algorithm.max_min_fix", False),)}
READING_TITLES = {"on": "max_min_fix = true (the default, counted)", "off": "max_min_fix = false"}
FAMILY = ("erica", "erica_plus")
SEEDS = {False: 5, True: 2}  # full, quick: ERICA and ERICA+ are deterministic, DEBRA is not


@dataclass(frozen=True)
class Task:
    scenario: str
    scheme: str
    kind: str  # "main" or "greedy" (the last complete greedy period of a dishonest source)
    overrides: tuple[tuple[str, Any], ...] = ()
    seed: int = 1
    reading: str = "on"


def _run(task: Task) -> dict[str, Any]:
    """One simulation (in a worker): the summary and the series the figures and statements need."""
    import polars as pl

    from ..api import run

    r = run(f"{PAPER}/{task.scenario}", scheme=task.scheme, seed=task.seed, set=dict(task.overrides))
    s = r.summary()
    out: dict[str, Any] = {"task": task, "summary": s}
    if task.kind == "main":
        trunk = [p["name"] for p in s["ports"] if p.get("at_switch", True) and _is_trunk(p["name"], s)]
        out["acr"] = r.acr.select("time_ms", "source", "acr_mbps")
        out["queue"] = r.queue.filter(pl.col("port").is_in(trunk)).select("time_ms", "port", "queue_cells")
        out["received"] = r.received.select("time_ms", "source", "cells")
    return out


def _is_trunk(port: str, summary: dict[str, Any]) -> bool:
    hosts = {x["name"] for x in summary["sources"]} | {x["destination"] for x in summary["sources"]}
    a, _, b = port.partition("->")
    return a not in hosts and b not in hosts


def greedy_window_ms(resolved: dict[str, Any], duration_ms: float) -> tuple[float, float] | None:
    """The last complete greedy period of a dishonest_greedy source that ends by ``duration_ms``."""
    for e in resolved.get("source", []):
        mis = e.get("misbehaviour") or {}
        if mis.get("type") == "dishonest_greedy":
            start, period = C.duration_ms(mis["start"]), C.duration_ms(mis["period"])
            k = int((duration_ms - start - period) // (2 * period))
            if k < 0:
                return None
            a = start + 2 * k * period
            return a, a + period
    return None


def published(data: dict[str, Any]) -> list[str]:
    """The scenarios the seed publishes results for (those its rows and statements name)."""
    names = {s for kind in ("number", "statement") for e in data.get(kind, []) for s in _as_list(e["scenario"])}
    return [s for s in data.get("scenario", {}) if s in names]


def plan(names: list[str], quick: bool, data: dict[str, Any] | None = None) -> list[Task]:
    """Every scenario with ERICA, ERICA+ and DEBRA over the seeds; EPRCA and UT once (extra columns);
    ERICA and ERICA+ again with max_min_fix off where the seed publishes numbers."""
    from ..api import resolve

    data = load_data() if data is None else data
    with_numbers = set(published(data))
    tasks = []
    for name in names:
        base = resolve(f"{PAPER}/{name}")
        duration = C.duration_ms(base["run"]["duration"])
        overrides: list[tuple[str, Any]] = []
        if quick:
            duration *= QUICK_FACTOR
            overrides.append(("run.duration", f"{duration:g}ms"))
            if "measure_from" in base["run"]:
                overrides.append(("run.measure_from", f"{C.duration_ms(base['run']['measure_from']) * QUICK_FACTOR:g}ms"))
        gw = greedy_window_ms(base, duration)
        greedy = (("run.duration", f"{gw[1]:g}ms"), ("run.measure_from", f"{gw[0]:g}ms")) if gw else None
        for scheme in SCHEMES:
            seeds = range(1, SEEDS[quick] + 1) if scheme in MAIN_SCHEMES else (1,)
            readings = ["on"] + (["off"] if scheme in FAMILY and name in with_numbers else [])
            for seed in seeds:
                for reading in readings:
                    tasks.append(Task(name, scheme, "main", tuple(overrides) + READINGS[reading], seed, reading))
                    if greedy:
                        tasks.append(Task(name, scheme, "greedy", greedy + READINGS[reading], seed, reading))
    return tasks


# --- measuring ----------------------------------------------------------------------------------


def convergence_ms(acr, summary: dict[str, Any], band: float = CONVERGENCE_BAND) -> float | None:
    """First time after which every active source's ACR stays within ±band of its mean over the
    summary window (None if some source is outside the band at the last sample)."""
    import numpy as np
    import polars as pl

    worst = 0.0
    last_t = float(acr["time_ms"].max()) if acr.height else 0.0
    for s in summary["sources"]:
        mean = s["acr_mbps"]
        if mean <= 0:
            continue
        part = acr.filter(pl.col("source") == s["name"]).sort("time_ms")
        t, y = part["time_ms"].to_numpy(), part["acr_mbps"].to_numpy()
        bad = np.nonzero(np.abs(y - mean) > band * mean)[0]
        if bad.size == 0:
            continue
        i = int(bad[-1])
        if i + 2 >= len(t) or t[i + 1] >= last_t:  # back in the band only at the last sample: not settled
            return None
        worst = max(worst, float(t[i + 1]))
    return worst


class Measure:
    """The numbers of one (scenario, scheme) run, by quantity and subject."""

    def __init__(self, name: str, scheme: str, main: dict[str, Any], greedy: dict[str, Any] | None, meta: dict[str, Any]):
        from ..api import resolve

        self.name, self.scheme, self.meta = name, scheme, meta
        self.s = main["summary"]
        self.main = main
        self.greedy = greedy["summary"] if greedy else None
        self.resolved = resolve(f"{PAPER}/{name}", scheme=scheme, set=dict(main["task"].overrides))
        self.topo = topology(self.resolved)
        w = self.s["window_s"]
        self.window_ms = (w[0] * 1e3, w[1] * 1e3)
        self.by_name = {x["name"]: x for x in self.s["sources"]}
        self.by_dest = {x["destination"]: x for x in self.s["sources"]}
        self.active = [x.name for x in active_sources(self.topo, self.window_ms)]
        self.groups = groups(self.topo, meta, self.active)
        self.theory = theory_rates(self.topo, self.window_ms, scaled=True)
        self.maxmin = theory_rates(self.topo, self.window_ms, scaled=False) or {}
        self.bottlenecks = bottleneck_ports(self.topo, self.window_ms)
        self.misbehaving = any(x.misbehaving for x in self.topo.sources)
        fixed = {x.name: x.fixed_rate for x in self.topo.sources if x.fixed_rate is not None and x.start_ms < self.window_ms[0]}
        if self.theory is not None:
            self.theory.update(fixed)  # a fixed-rate source's ACR is its fixed rate

    def members(self, subject: str | None) -> list[str]:
        if subject in (None, "all"):
            return self.active
        if subject in self.groups:
            return self.groups[subject]
        return expand(subject, self.active)

    def standard(self) -> list[tuple[str, str | None]]:
        """The quantities reported for every scenario × scheme."""
        q: list[tuple[str, str | None]] = []
        for g in self.groups:
            q += [("maxmin_mbps", g), ("acr_mbps", g), ("clr", g)]
        for p in self.bottlenecks:
            q += [("mean_queue_cells", p), ("max_queue_run_cells", p), ("utilization", p)]
        q += [("fairness_index", None), ("convergence_ms", None)]
        if self.meta.get("robustness") and {"D1", "D2"} <= set(self.by_dest):
            q += [("cells_received_ratio", "D1/D2"), ("window_clr", "S1"), ("window_clr", "S2")]
        if self.greedy is not None:
            q += [("greedy_clr", "all"), ("greedy_clr", "S1"), ("greedy_clr", "S2")]
            q += [("greedy_utilization", p) for p in self.bottlenecks]
        return q

    def _port(self, summary: dict[str, Any], name: str) -> dict[str, Any] | None:
        return next((p for p in summary["ports"] if p["name"] == name), None)

    def _link(self, summary: dict[str, Any], port: str) -> dict[str, Any] | None:
        a, _, b = port.partition("->")
        return next((l for l in summary["links"] if l.get("from") == a and l.get("to") == b), None)

    def value(self, quantity: str, subject: str | None) -> tuple[float | None, float | None, str | None]:
        """(ccsim, theory, note) of a quantity."""
        s = self.s
        if quantity in ("acr_mbps", "maxmin_mbps"):
            names = self.members(subject)
            if not names:
                return None, None, "no such sources in the window"
            key = quantity
            vals = [self.by_name[n][key] for n in names]
            ccsim = sum(vals) / len(vals)
            ref = self.theory if quantity == "acr_mbps" else self.maxmin
            th = None if ref is None else sum(ref.get(n, 0.0) for n in names) / len(names)
            note = f"{len(names)} sources, {min(vals):.4g}-{max(vals):.4g}" if len(names) > 1 else None
            if quantity == "acr_mbps" and th is not None and any(n in self.by_name and self._fixed(n) for n in names):
                note = "fixed rate set by the scenario"
            return ccsim, th, note
        if quantity in ("clr", "window_clr", "greedy_clr"):
            src = self.greedy if quantity == "greedy_clr" else s
            if src is None:
                return None, None, None
            names = set(self.members(subject))
            rows = [x for x in src["sources"] if x["name"] in names]
            notes = []
            if quantity == "clr":
                sent = sum(x["cells_sent"] for x in rows)
                ccsim = sum(x["cells_dropped"] for x in rows) / sent if sent else 0.0
                notes.append("whole run, data cells lost / sent")
            else:
                ccsim = _window_clr(rows)
                w0, w1 = src["window_s"]
                notes.append(f"{'greedy period' if quantity == 'greedy_clr' else 'window'} {w0 * 1e3:g}-{w1 * 1e3:g} ms")
                if len(rows) > 1:
                    notes.append("all sources together")
            return ccsim, (None if self.misbehaving else 0.0), "; ".join(notes)
        if quantity in ("mean_queue_cells", "max_queue_cells", "max_queue_run_cells"):
            p = self._port(s, subject or "")
            if p is None:
                return None, None, f"no port {subject}"
            key = {"mean_queue_cells": "mean_queue_cells", "max_queue_cells": "max_queue_cells",
                   "max_queue_run_cells": "max_queue_cells_run"}[quantity]
            th = None
            note = None
            if quantity == "mean_queue_cells" and not self.misbehaving and subject in self.topo.ports:
                port = self.topo.ports[subject]
                alg = self.topo.algorithms.get(port.switch or "", {})
                full = sum(self.maxmin.get(x.name, 0.0) for x in active_sources(self.topo, self.window_ms) if subject in x.ports)
                if alg.get("type") == "erica_plus" and full < port.cap_mbps * (1 - 1e-9):
                    th, note = 0.0, "the sources' PCRs cannot fill this port, so ERICA+ cannot build its target queue"
                elif alg.get("type") == "erica_plus":
                    q0 = C.duration_ms(alg["t0"]) * 1e-3 * port.cap_mbps * 1e6 / 424
                    th, note = q0, f"Q0 = T0 × capacity = {C.duration_ms(alg['t0']):g} ms × {port.cap_mbps:g} Mb/s"
                elif self.topo.factor(port) is not None and self.topo.factor(port) < 1:
                    th = 0.0
            return float(p[key]), th, note
        if quantity in ("utilization", "greedy_utilization"):
            src = self.greedy if quantity == "greedy_utilization" else s
            link = self._link(src, subject or "") if src else None
            if link is None:
                return None, None, None
            th = None
            if quantity == "utilization" and not self.misbehaving and self.theory is not None and subject in self.topo.ports:
                port = self.topo.ports[subject]
                load = sum(self.theory.get(x.name, 0.0) for x in active_sources(self.topo, self.window_ms) if subject in x.ports)
                th = min(1.0, load / port.cap_mbps)
            return float(link["utilization"]), th, "cells sent / capacity, RM cells included"
        if quantity == "cells_received_ratio":
            a, _, b = (subject or "D1/D2").partition("/")
            ra, rb = self.by_dest.get(a), self.by_dest.get(b)
            if not ra or not rb or not rb["cells_received"]:
                return None, None, None
            ratio = ra["cells_received"] / rb["cells_received"]
            return ratio, None, f"whole run: {ra['cells_received']:,} / {rb['cells_received']:,} cells"
        if quantity == "fairness_index":
            note = "Jain index of delivered rate / max-min rate over the window"
            if any(x.fixed_rate is not None for x in self.topo.sources):
                note += "; the engine's max-min reference treats the fixed-rate source as greedy"
            return float(s["fairness_index"]), 1.0, note
        if quantity == "convergence_ms":
            c = convergence_ms(self.main["acr"], s)
            note = f"every ACR within ±{CONVERGENCE_BAND:.0%} of its window mean from then on"
            if c is None:
                note = f"some ACR still outside ±{CONVERGENCE_BAND:.0%} of its window mean at the end"
            return c, None, note
        raise ValueError(f"unknown quantity {quantity!r}")

    def _fixed(self, name: str) -> bool:
        return any(x.name == name and x.fixed_rate is not None for x in self.topo.sources)



def _window_clr(rows: list[dict[str, Any]]) -> float:
    """Cells lost / cells sent in the window, over several sources: each source's window CLR
    weighted by its cells sent in the window, recovered as delivered / (1 − CLR) (cells in flight
    at the window's edges make this approximate for more than one source)."""
    if len(rows) == 1:
        return rows[0]["window_clr"]
    sent = lost = 0.0
    for x in rows:
        c = x["window_clr"]
        n = x["rate_mbps"] / (1 - c) if c < 1 else 0.0
        sent += n
        lost += n * c
    return lost / sent if sent else 0.0


# --- the seed's rows (verdicts.py) --------------------------------------------------------------


class Runs:
    """The runs by (scenario, scheme, kind, seed, reading), and their measures."""

    def __init__(self, results: list[dict[str, Any]], data: dict[str, Any]):
        self.by_key = {(r["task"].scenario, r["task"].scheme, r["task"].kind, r["task"].seed, r["task"].reading): r
                       for r in results}
        self.data = data
        self._measures: dict[tuple[str, str, int, str], Measure] = {}

    def seeds(self, name: str, scheme: str) -> list[int]:
        return sorted({k[3] for k in self.by_key if k[0] == name and k[1] == scheme and k[2] == "main"})

    def reading_of(self, name: str, scheme: str, reading: str) -> str:
        return reading if (name, scheme, "main", 1, reading) in self.by_key else "on"

    def m(self, name: str, scheme: str, seed: int = 1, reading: str = "on") -> Measure:
        reading = self.reading_of(name, scheme, reading)
        key = (name, scheme, seed, reading)
        if key not in self._measures:
            meta = self.data.get("scenario", {}).get(name, {})
            self._measures[key] = Measure(name, scheme, self.by_key[(name, scheme, "main", seed, reading)],
                                          self.by_key.get((name, scheme, "greedy", seed, reading)), meta)
        return self._measures[key]


def observe(m: Measure, quantity: str, subject: Any, pool: str = "mean") -> float | None:
    """One number of one run: a rate pooled over the subjects' sources, a port quantity pooled over
    ports (``pool`` mean or max), ERICA+'s target queue, a settling time."""
    subjects = _as_list(subject)
    if quantity in ("acr_mbps", "maxmin_mbps"):
        names = list(dict.fromkeys(n for s in subjects for n in m.members(s)))
        if not names:
            return None
        if quantity == "maxmin_mbps":  # the seed's arithmetic: water-filling on the topology
            return sum(m.maxmin[n] for n in names) / len(names)
        return sum(m.by_name[n]["acr_mbps"] for n in names) / len(names)
    if quantity == "q0_cells":
        port = m.topo.ports[subjects[0]]
        alg = m.topo.algorithms[port.switch or ""]
        return C.duration_ms(alg["t0"]) * 1e-3 * port.cap_mbps * 1e6 / 424
    if quantity == "convergence_ms":
        return convergence_ms(m.main["acr"], m.s)
    vals = [m.value(quantity, s)[0] for s in subjects]
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return max(vals) if pool == "max" else sum(vals) / len(vals)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _number_values(e: dict[str, Any], runs: Runs, reading: str, quantity: str | None = None,
                   subject: Any = None) -> tuple[list[float | None], str]:
    """ccsim's values of a number row, one per seed (schemes the seed names together pooled per
    seed), and a note with each scheme's mean where there are several."""
    name, schemes = e["scenario"], _as_list(e["scheme"])
    quantity = quantity or e["quantity"]
    subject = e.get("subject") if subject is None else subject
    scale = float(e.get("scale", 1.0))
    kind = e.get("kind", "simulated")
    seeds = [1] if kind in ("arithmetic", "input") else runs.seeds(name, schemes[0])

    def one(scheme: str, seed: int) -> float | None:
        v = observe(runs.m(name, scheme, seed, reading), quantity, subject, e.get("pool", "mean"))
        return None if v is None else v * scale

    by_scheme = {sc: [one(sc, seed) for seed in seeds] for sc in schemes}
    values: list[float | None] = []
    for i in range(len(seeds)):
        xs = [by_scheme[sc][i] for sc in schemes]
        if any(x is None for x in xs):
            values.append(None)
        else:
            values.append(min(xs) if e.get("pool_schemes") == "min" else _mean(xs))  # type: ignore[arg-type]
    note = ""
    if len(schemes) > 1:
        parts = []
        for sc in schemes:
            xs = [x for x in by_scheme[sc] if x is not None]
            parts.append(f"{SCHEME_TITLES[sc]} {C.fmt(_mean(xs)) if xs else 'none'}")
        how = "the smallest" if e.get("pool_schemes") == "min" else "the mean"
        note = f"ccsim is {how} of: " + ", ".join(parts) + "."
    return values, note


def number_row(e: dict[str, Any], runs: Runs, reading: str = "on") -> dict[str, Any]:
    """A seed number's row under one reading of max_min_fix."""
    values, pooled = _number_values(e, runs, reading)
    tol = verdicts.tolerance(**e["tolerance"]) if "tolerance" in e else None
    paper = e["range"] if "range" in e else e["value"]
    note = " ".join(x for x in (pooled, e.get("note", "")) if x)
    if e["quantity"] == "convergence_ms" and any(v is None for v in values):
        note += " ccsim: some ACR still outside ±5 % of its window mean at the end of a run (never settled)."
    return verdicts.quantity(e["label"], paper, e["quote"], values, tol, where=e.get("where", ""), note=note.strip(),
                             kind=e.get("kind", "simulated"), scenario=e["scenario"], schemes=_as_list(e["scheme"]))


def _fair_before(m: Measure, source: str = "S2") -> float:
    """A source's fair share before the misbehaving source misbehaves: the target over the sources."""
    start = min((C.duration_ms(e["misbehaviour"]["start"]) for e in m.resolved.get("source", [])
                 if e.get("misbehaviour")), default=m.window_ms[0])
    return (theory_rates(m.topo, (0.0, start), scaled=True) or {})[source]


def _ratio(m: Measure) -> float:
    return m.by_dest["D1"]["cells_received"] / m.by_dest["D2"]["cells_received"]


def _clr(m: Measure, name: str) -> float:
    x = m.by_name[name]
    return x["cells_dropped"] / x["cells_sent"] if x["cells_sent"] else 0.0


def _sampled(df, key: str, name: str, value: str, t0: float, t1: float, n: int = 50) -> list[float]:
    """A step series (``key`` == ``name``) sampled at ``n`` evenly spaced times in [t0, t1)."""
    import numpy as np
    import polars as pl

    part = df.filter(pl.col(key) == name).sort("time_ms")
    t, y = part["time_ms"].to_numpy(), part[value].to_numpy()
    if not len(t):
        return []
    grid = np.linspace(t0, t1, n, endpoint=False)
    idx = np.clip(np.searchsorted(t, grid, side="right") - 1, 0, len(t) - 1)
    return [float(v) for v in y[idx]]


def _arrivals(m: Measure) -> list[float]:
    end = C.duration_ms(m.resolved["run"]["duration"])
    return sorted(s.start_ms for s in m.topo.sources if s.start_ms < end) + [end]


def _staircase(m: Measure) -> tuple[bool, str]:
    t = _arrivals(m)
    means = []
    for a, b in zip(t, t[1:]):
        xs = _sampled(m.main["acr"], "source", "S1", "acr_mbps", (a + b) / 2, b)
        means.append(_mean(xs) if xs else float("nan"))
    falls = sum(1 for x, y in zip(means, means[1:]) if y < x)
    return falls == len(means) - 1, f"falls at {falls} of {len(means) - 1} arrivals ({C.fmt(means[0])} → {C.fmt(means[-1])} Mb/s)"


def _impulses(m: Measure) -> tuple[bool, str]:
    import polars as pl

    t = _arrivals(m)
    q = m.main["queue"].filter(pl.col("port") == (m.bottlenecks or ["SW1->SW2"])[0])
    peaks = []
    for a, b in zip(t[1:], t[2:]):
        part = q.filter((pl.col("time_ms") >= a) & (pl.col("time_ms") < b))
        peaks.append(float(part["queue_cells"].max() or 0.0) if part.height else 0.0)
    k = max(1, len(peaks) // 3)
    first, last = _mean(peaks[:k]), _mean(peaks[-k:])
    return last < first, f"peak after an arrival: first third {C.fmt(first)}, last third {C.fmt(last)} cells"


def _cov(m: Measure, groups: tuple[str, ...] = ("C", "F")) -> float:
    w0, w1 = m.window_ms
    covs = []
    for n in m.active:
        if n.rstrip("0123456789") in groups:
            xs = _sampled(m.main["acr"], "source", n, "acr_mbps", w0, w1, 200)
            mu = _mean(xs)
            if mu > 0:
                covs.append((sum((x - mu) ** 2 for x in xs) / len(xs)) ** 0.5 / mu)
    return _mean(covs) if covs else 0.0


def statement_row(e: dict[str, Any], runs: Runs, reading: str = "on") -> dict[str, Any]:
    """A seed statement's row: its check (STATEMENT_CHECKS) over every seed, under one reading."""
    name, schemes = e["scenario"], _as_list(e["scheme"])
    seeds = runs.seeds(name, schemes[0])
    results = [STATEMENT_CHECKS[e["check"]](e, {sc: runs.m(name, sc, seed, reading) for sc in schemes}) for seed in seeds]
    decided = [h for h, _ in results if h is not None]
    holds = None if len(decided) < len(results) else all(decided)
    text = results[0][1] + (f" (seed 1 of {len(seeds)}; holds at {sum(decided)} of {len(seeds)})" if len(seeds) > 1 else "")
    return verdicts.statement(e["label"], e["quote"], holds, text, verdicts.tolerance("criterion", None, e["criterion"]),
                              where=e.get("where", ""), note=e.get("note", ""), scenario=name, schemes=schemes)


def _startup_overflow(e, ms):
    m = next(iter(ms.values()))
    ports = [p for p in m.s["ports"] if p["name"] in m.bottlenecks]
    hit = [p for p in ports if p["max_queue_cells_run"] >= p["buffer_cells"] and p["drops"] > 0]
    text = "; ".join(f"{p['name']} max {p['max_queue_cells_run']} of {p['buffer_cells']} cells, {p['drops']} drops" for p in ports)
    return bool(hit), text


def _queue_near_q0(e, ms):
    m = ms["erica_plus"]
    parts, ok = [], True
    for port in _as_list(e["subject"]):
        q, q0 = observe(m, "mean_queue_cells", port), observe(m, "q0_cells", port)
        ok = ok and q is not None and q0 / 2 <= q <= 2 * q0
        parts.append(f"{port} {C.fmt(q)} (target {C.fmt(q0)})")
    return ok, "window mean " + ", ".join(parts) + " cells"


def _cf_oscillation(e, ms):
    cov = {sc: _cov(m) for sc, m in ms.items()}
    ok = cov["erica"] > cov["debra"] and cov["erica_plus"] > cov["debra"]
    return ok, "C and F ACR std/mean: " + ", ".join(f"{SCHEME_TITLES[sc]} {v:.3f}" for sc, v in cov.items())


def _debra_slower(e, ms):
    c = {sc: convergence_ms(m.main["acr"], m.s) for sc, m in ms.items()}
    return None, "settling (±5 % band): " + ", ".join(f"{SCHEME_TITLES[sc]} {'never' if v is None else C.fmt(v) + ' ms'}"
                                                       for sc, v in c.items())


def _d1_above_d2(e, ms):
    r = {sc: _ratio(m) for sc, m in ms.items()}
    return all(v > 1 for v in r.values()), "D1/D2: " + ", ".join(f"{SCHEME_TITLES[sc]} {v:.3f}" for sc, v in r.items())


def _s2_unaffected(e, ms):
    parts, ok = [], True
    for sc, m in ms.items():
        acr, fair = m.by_name["S2"]["acr_mbps"], _fair_before(m)
        ok = ok and abs(acr / fair - 1) <= 0.05
        parts.append(f"{SCHEME_TITLES[sc]} {C.fmt(acr)} (fair share {C.fmt(fair)})")
    return ok, "S2's ACR: " + ", ".join(parts) + " Mb/s"


def _greedy_overflow_loss(e, ms):
    parts, ok = [], True
    for sc, m in ms.items():
        g = m.greedy
        port = next(p for p in g["ports"] if p["name"] == "SW1->SW2")
        clr = {x["name"]: x["window_clr"] for x in g["sources"]}
        ok = ok and port["max_queue_cells"] >= port["buffer_cells"] and clr["S1"] > 0 and clr["S2"] > 0
        parts.append(f"{SCHEME_TITLES[sc]}: queue max {port['max_queue_cells']}, CLR S1 {clr['S1']:.3f}, S2 {clr['S2']:.3f}")
    return ok, "greedy period: " + "; ".join(parts)


def _controlled_s2_cut(e, ms):
    m = ms["erica_plus"]
    lost = sum(x["window_clr"] for x in m.greedy["sources"])
    acr, fair = m.by_name["S2"]["acr_mbps"], _fair_before(m)
    return lost == 0 and acr < 0.95 * fair, (f"greedy-period CLR {lost:.4f}; S2's ACR {C.fmt(acr)} against a fair share "
                                            f"of {C.fmt(fair)} Mb/s")


def _less_unfair(e, ms):
    r = {sc: _ratio(m) for sc, m in ms.items()}
    return r["erica"] < r["erica_plus"] and r["debra"] < r["erica_plus"], "D1/D2: " + ", ".join(
        f"{SCHEME_TITLES[sc]} {v:.3f}" for sc, v in r.items())


def _window_overflow(e, ms):
    m = ms["erica"]
    port = next(p for p in m.s["ports"] if p["name"] == "SW1->SW2")
    lost = sum(x["window_clr"] for x in m.s["sources"])
    return port["max_queue_cells"] >= port["buffer_cells"] and lost > 0, (
        f"window queue max {port['max_queue_cells']} of {port['buffer_cells']} cells; window CLR S1 "
        f"{m.by_name['S1']['window_clr']:.3f}, S2 {m.by_name['S2']['window_clr']:.3f}")


def _no_loss(e, ms):
    m = next(iter(ms.values()))
    lost = sum(x["cells_dropped"] for x in m.s["sources"])
    return lost == 0, f"{lost} cells lost over the run"


def _s2_cut_large_difference(e, ms):
    m, ref = ms["erica_plus"], ms["erica"]
    acr, fair = m.by_name["S2"]["acr_mbps"], _fair_before(m)
    ok = acr < 0.95 * fair and _ratio(m) > _ratio(ref)
    return ok, (f"ERICA+'s S2 {C.fmt(acr)} against a fair share of {C.fmt(fair)} Mb/s; D1/D2 ERICA+ {_ratio(m):.3f}, "
                f"ERICA {_ratio(ref):.3f}")


def _same_cells(e, ms):
    r = _ratio(ms["debra"])
    return abs(r - 1) <= 0.02, f"D1/D2 {r:.4f}"


def _s2_rises(e, ms):
    m = ms["debra"]
    acr, fair = m.by_name["S2"]["acr_mbps"], _fair_before(m)
    return acr > 1.01 * fair, f"S2's ACR {C.fmt(acr)} against {C.fmt(fair)} Mb/s before S1 misbehaves"


def _only_s1_loses(e, ms):
    m = ms["debra"]
    s1, s2 = _clr(m, "S1"), _clr(m, "S2")
    return s2 < s1 / 100, f"CLR S1 {s1:.4f}, S2 {s2:.6f}"


STATEMENT_CHECKS = {
    "staircase": lambda e, ms: _staircase(next(iter(ms.values()))),
    "impulses_decrease": lambda e, ms: _impulses(next(iter(ms.values()))),
    "startup_overflow": _startup_overflow, "queue_near_q0": _queue_near_q0, "cf_oscillation": _cf_oscillation,
    "debra_slower": _debra_slower, "d1_above_d2": _d1_above_d2, "s2_unaffected": _s2_unaffected,
    "greedy_overflow_loss": _greedy_overflow_loss, "controlled_s2_cut": _controlled_s2_cut, "less_unfair": _less_unfair,
    "window_overflow": _window_overflow, "no_loss": _no_loss, "s2_cut_large_difference": _s2_cut_large_difference,
    "same_cells": _same_cells, "s2_rises": _s2_rises, "only_s1_loses": _only_s1_loses,
}


def setting_row(e: dict[str, Any]) -> dict[str, Any]:
    """A parameter the seed states beside the resolved presets' (an input row, never counted)."""
    from ..api import resolve

    got = []
    for name in _as_list(e["scenario"]):
        for scheme in _as_list(e.get("scheme", "erica")):
            value: Any = resolve(f"{PAPER}/{name}", scheme=scheme)
            for part in re.findall(r"[^.\[\]]+|\[\d+\]", e["path"]):
                value = value[int(part[1:-1])] if part.startswith("[") else value.get(part) if isinstance(value, dict) else None
                if value is None:
                    break
            if value is None:
                got.append((name, scheme, None))
                continue
            unit = e.get("unit")
            x = C.to_unit(value, "ms" if unit in ("us", "s") else unit)
            x = x * 1e3 if unit == "us" else x * 1e-3 if unit == "s" else x
            got.append((name, scheme, (x - float(e.get("minus", 0.0))) * float(e.get("scale", 1.0))))
    first = got[0][2]
    other = [f"{n} ({SCHEME_TITLES[s]}): {C.fmt(v)}" for n, s, v in got if v != first]
    where = ", ".join(dict.fromkeys(n for n, _, _ in got))
    note = f"the presets checked: {where}" + (f"; differs in {', '.join(other)}" if other else "")
    if e.get("note"):
        note = e["note"] + " " + note
    return verdicts.quantity(e["label"], e["value"], e["quote"], [first], verdicts.tolerance(
        "abs", 1e-9 * max(1.0, abs(float(e["value"]))), "a setting of the preset: equal or not"), where=e.get("where", ""),
        note=note, kind="input", scenario=_as_list(e["scenario"])[0], schemes=_as_list(e.get("scheme", "erica")))


def seed_rows(runs: Runs, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row of compared.json: the seed's numbers, its statements, its settings. A row whose
    schemes include ERICA or ERICA+ carries ``readings``: its value and verdict with max_min_fix
    off, and with any other reading of a choice the seed leaves open ([[number.reading]])."""
    with_numbers = set(published(data))
    rows = []
    for kind, build in (("number", number_row), ("statement", statement_row)):
        for e in data.get(kind, []):
            row = build(e, runs)
            readings = []
            for alt in e.get("reading", []):
                values, _ = _number_values(e, runs, "on", alt.get("quantity"), alt.get("subject"))
                other = verdicts.quantity(e["label"], row["paper"], e["quote"], values, row["tolerance"])
                readings.append(verdicts.reading(alt["label"], other))
            family = set(_as_list(e["scheme"])) & set(FAMILY) and e["scenario"] in with_numbers
            if family and row["kind"] in ("simulated", "statement"):
                readings.append(verdicts.reading(READING_TITLES["off"], build(e, runs, "off")))
            if readings:
                row["readings"] = readings
            rows.append(row)
    rows += [setting_row(e) for e in data.get("setting", [])]
    return rows


# --- ccsim beside theory (details.json and the report; not rows of the seed) -------------------


def theory_rows(name: str, scheme: str, m: Measure) -> list[dict[str, Any]]:
    """The standard quantities of one scenario × scheme set beside theory (water-filling with the
    scheme's target factor; ERICA+'s Q0): what the report's per-scenario tables show."""
    rows = []
    for quantity, subject in m.standard():
        ccsim, theory, note = m.value(quantity, subject)
        q = f"{quantity}[{subject}]" if subject else quantity
        ok = None if ccsim is None or theory is None else C.within(quantity, ccsim, theory)
        rows.append({"scenario": name, "scheme": scheme, "quantity": q, "unit": UNITS.get(quantity), "theory": C.clean(theory),
                     "ccsim": C.clean(ccsim), "difference": C.clean(None if ok is None else ccsim - theory),
                     "note": note, "ok": ok})
    return rows

# --- figures ------------------------------------------------------------------------------------


def _figure(job: tuple[str, dict[str, Any], list[dict[str, Any]], str]) -> str:
    """One PNG per scenario: a row per scheme; ACR and queue (and cells received for the
    robustness scenarios), like the seed's Figures 3, 5, 7, 8 and 9."""
    name, meta, runs, path = job
    from .. import _mpl as plt  # figures without pyplot: no backend switch (_mpl.py)

    robust = bool(meta.get("robustness"))
    ncol = 3 if robust else 2
    # One y-scale per column: the schemes' rows compare at a glance (a small queue then looks small).
    fig, axes = plt.subplots(len(runs), ncol, figsize=(5.2 * ncol, 2.5 * len(runs)), squeeze=False, sharey="col")
    for row, run in enumerate(runs):
        s = run["summary"]
        scheme = SCHEME_TITLES.get(run["task"].scheme, run["task"].scheme)
        shown = [n for n in meta.get("plot_sources", []) if n in {x["name"] for x in s["sources"]}]
        groups = {n: [n] for n in shown} or run["groups"]
        ax = axes[row][0]
        _group_lines(ax, run["acr"], "source", "acr_mbps", groups)
        ax.set_title(f"{scheme}: ACR", fontsize=10)
        ax.set_ylabel("ACR (Mb/s)")
        ax = axes[row][1]
        ports = run["ports"]
        _group_lines(ax, run["queue"], "port", "queue_cells", {p: [p] for p in ports})
        ax.set_title(f"{scheme}: queue length", fontsize=10)
        ax.set_ylabel("cells")
        if robust:
            ax = axes[row][2]
            _group_lines(ax, run["received"], "source", "cells", groups)
            ax.set_title(f"{scheme}: cells received", fontsize=10)
            ax.set_ylabel("cells")
        for ax in axes[row]:
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=8)
            if ax.get_legend():
                ax.get_legend().set_visible(row == 0 or ax is axes[row][1])
    for ax in axes[-1]:
        ax.set_xlabel("time (ms)")
    where = " ".join(x for x in (meta.get("section"), meta.get("figure")) if x)
    fig.suptitle(f"{PAPER}/{name}" + (f" (seed 003 {where})" if where else ""), fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _group_lines(ax, df, key: str, value: str, groups: dict[str, list[str]]) -> None:
    """Step lines, one colour and one legend entry per group."""
    from .. import _mpl as plt
    import polars as pl

    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, members) in enumerate(groups.items()):
        colour = cycle[i % len(cycle)]
        for j, name in enumerate(members):
            part = df.filter(pl.col(key) == name)
            if part.height:
                ax.step(part["time_ms"].to_numpy(), part[value].to_numpy(), where="post", color=colour,
                        linewidth=0.9, label=label if j == 0 else None)
    if groups:
        ax.legend(fontsize="x-small", ncol=2 if len(groups) > 4 else 1, loc="best")


def _plot_ports(m: Measure, run: dict[str, Any], limit: int = 4) -> list[str]:
    """Queue panel ports: the bottlenecks, then other trunk ports that queued, busiest first."""
    s = run["summary"]
    busy = sorted((p for p in s["ports"] if _is_trunk(p["name"], s) and p.get("max_queue_cells_run", 0) > 10),
                  key=lambda p: (-p.get("max_queue_cells_run", 0), p["name"]))
    ports = list(m.bottlenecks)
    ports += [p["name"] for p in busy if p["name"] not in ports]
    if not ports:
        ports = [p["name"] for p in s["ports"] if _is_trunk(p["name"], s)][:1]
    return ports[:limit]


# --- the report ---------------------------------------------------------------------------------

_THEORY_COLUMNS = [("quantity", "quantity"), ("unit", "unit"), ("theory", "theory"), ("ccsim", "ccsim"),
                   ("difference", "difference"), ("note", "note")]


def write_html(out: Path, names: list[str], rows: list[dict[str, Any]], theory: list[dict[str, Any]],
               data: dict[str, Any], info: dict[str, Any]) -> Path:
    """``index.html`` (`templates/abr_benchmarks.html.j2`): the headline, the seed's rows by kind
    (verdicts.sections), the readings side by side, then each scenario's figure and theory tables."""
    from .. import __version__
    from .._html import render
    from ..presets import preset_description

    scenarios = []
    for name in names:
        meta = data.get("scenario", {}).get(name, {})
        rs = [r for r in theory if r["scenario"] == name]
        tables = [(f"{SCHEME_TITLES[scheme]}{'' if scheme in MAIN_SCHEMES else ' (extra)'}",
                   C.html_table([r for r in rs if r["scheme"] == scheme], _THEORY_COLUMNS))
                  for scheme in SCHEMES if any(r["scheme"] == scheme for r in rs)]
        scenarios.append({"name": name, "where": " ".join(x for x in (meta.get("section"), meta.get("figure")) if x),
                          "description": preset_description(f"{PAPER}/{name}"), "statements": meta.get("statements", []),
                          "tables": tables})
    changed = [r for r in rows if any(x["verdict"] != r["verdict"] for x in r.get("readings", []))]
    page = render("abr_benchmarks.html.j2", title=f"ccsim reproduce {PAPER}", paper=PAPER, paper_title=data.get("title", ""),
                  authors=data.get("authors", ""), seed=data.get("seed", ""), quick=info["quick"],
                  quick_warning=verdicts.QUICK_WARNING, headline=verdicts.counts(rows, info["quick"])["headline"],
                  mode=info["mode"], version=__version__, runs=info["runs"], workers=info["workers"], seeds=info["seeds"],
                  wall_s=info["wall_s"], sections=verdicts.sections(rows), readings=verdicts.readings_table(rows, "counted reading (max_min_fix = true): ccsim, verdict"),
                  changed=len(changed), scenarios=scenarios)
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


# --- entry point --------------------------------------------------------------------------------


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Runs the reproduction and writes ``compared.json`` (the seed's rows, verdicts.py),
    ``details.json`` (ccsim beside theory per scenario and scheme), ``runs.json``, ``figures/*.png``
    and ``index.html`` under ``out``. Returns the summary (verdicts.summary)."""
    started = time.perf_counter()
    data = load_data()
    out = Path(out or f"out/reproduce/{PAPER}")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    workers = C.default_workers() if workers is None else max(1, int(workers))
    names = scenario_names(data)
    tasks = plan(names, quick, data)
    pool = C.make_pool(workers)
    try:
        results = C.run_all(_run, tasks, workers=workers, progress=progress, label="simulating", pool=pool)
        runs = Runs(results, data)
        theory: list[dict[str, Any]] = []
        jobs = []
        for name in names:
            meta = data.get("scenario", {}).get(name, {})
            fig_runs = []
            for scheme in SCHEMES:
                m = runs.m(name, scheme)
                theory += theory_rows(name, scheme, m)
                fig_runs.append({**m.main, "ports": _plot_ports(m, m.main), "groups": m.groups})
            jobs.append((name, meta, fig_runs, str(out / "figures" / f"{name}.png")))
        C.run_all(_figure, jobs, workers=workers, progress=progress, label="plotting", pool=pool)
    finally:
        if pool is not None:
            pool.shutdown()
    rows = seed_rows(runs, data)
    verdicts.write_compared(out, rows)
    (out / "details.json").write_text(json.dumps({
        "readings": {k: dict(v) for k, v in READINGS.items()}, "seeds": SEEDS[quick], "theory": theory},
        indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    ran = [{"scenario": r["task"].scenario, "scheme": r["task"].scheme, "kind": r["task"].kind, "seed": r["task"].seed,
            "reading": r["task"].reading, "overrides": dict(r["task"].overrides), "sim_time_s": r["summary"]["sim_time_s"],
            "wall_s": C.clean(r["summary"]["wall_s"]), "events": r["summary"]["events"],
            "fingerprint": r["summary"]["fingerprint"]} for r in results]
    (out / "runs.json").write_text(json.dumps(ran, indent=1) + "\n", encoding="utf-8")
    info = {"mode": "quick" if quick else "full", "quick": quick, "runs": len(tasks), "workers": workers,
            "seeds": SEEDS[quick], "wall_s": time.perf_counter() - started}
    write_html(out, names, rows, theory, data, info)
    return verdicts.summary(PAPER, out, rows, len(tasks), started, quick)


__all__ = ["reproduce", "load_data", "PAPER", "TITLE", "SCHEMES", "MAIN_SCHEMES", "FAMILY", "READINGS", "waterfill",
           "topology", "scheme_factor", "theory_rates", "seed_rows", "plan", "published"]
