"""Seed 003 (Zoranovic & Williamson, "Performance and Robustness Testing of Explicit-Rate ABR Flow
Control Schemes"): every benchmark scenario with ERICA, ERICA+ and DEBRA, plus EPRCA and UT as
extra columns, set beside the seed's numbers and beside theory.

    ccsim reproduce abr-benchmarks [--out DIR] [--quick] [--workers N] [--json]

The seed's numbers are in ``data/abr-benchmarks.toml``. Theory is derived from each resolved
scenario: max-min rates by water-filling on the topology with every switch port's capacity scaled
by its scheme's target factor (ERICA U, ERICA+ 1, DEBRA C·V, UT ρ_T; none for EPRCA), PCR and
fixed-rate sources as demands; ERICA+'s target queue Q0 = T0 × port capacity (docs/models/abr/erica-plus.md; docs/reproductions/abr-benchmarks.md).
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


@dataclass(frozen=True)
class Task:
    scenario: str
    scheme: str
    kind: str  # "main" or "greedy" (the last complete greedy period of a dishonest source)
    overrides: tuple[tuple[str, Any], ...] = ()


def _run(task: Task) -> dict[str, Any]:
    """One simulation (in a worker): the summary and the series the figures need."""
    import polars as pl

    from ..api import run

    r = run(f"{PAPER}/{task.scenario}", scheme=task.scheme, set=dict(task.overrides))
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


def plan(names: list[str], quick: bool) -> list[Task]:
    from ..api import resolve

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
        for scheme in SCHEMES:
            tasks.append(Task(name, scheme, "main", tuple(overrides)))
        gw = greedy_window_ms(base, duration)
        if gw is not None:
            window = (("run.duration", f"{gw[1]:g}ms"), ("run.measure_from", f"{gw[0]:g}ms"))
            for scheme in SCHEMES:
                tasks.append(Task(name, scheme, "greedy", window))
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


# --- comparing ----------------------------------------------------------------------------------


def _row(name, scheme, quantity, subject, ccsim, theory, paper=None, unit=None, source=None, note=None,
         ok=None) -> dict[str, Any]:
    q = f"{quantity}[{subject}]" if subject else quantity
    diff = None
    if ccsim is not None:
        if paper is not None:
            diff = ccsim - paper
        elif theory is not None:
            diff = ccsim - theory
    row = {"scenario": name, "scheme": scheme, "quantity": q, "theory": C.clean(theory), "paper": C.clean(paper),
           "ccsim": C.clean(ccsim), "difference": C.clean(diff)}
    if unit or UNITS.get(quantity):
        row["unit"] = unit or UNITS.get(quantity)
    if source:
        row["source"] = source
    if note:
        row["note"] = note
    if ok is None and ccsim is not None:
        ref = paper if paper is not None else theory
        ok = None if ref is None else C.within(quantity, ccsim, ref)
    row["ok"] = ok
    return row


def _expect(expr: str, value: float | None, theory: float | None, quantity: str) -> bool | None:
    m = re.fullmatch(r"\s*(>=|<=|>|<|≈)\s*(theory|[-+0-9.eE]+)\s*", expr)
    if not m or value is None:
        return None
    ref = theory if m.group(2) == "theory" else float(m.group(2))
    if ref is None:
        return None
    op = m.group(1)
    if op == "≈":
        return C.within(quantity, value, ref)
    # "clearly above/below": beyond the quantity's tolerance, so rounding noise never counts
    close = C.within(quantity, value, ref)
    return {">": value > ref and not close, "<": value < ref and not close, ">=": value >= ref or close,
            "<=": value <= ref or close}[op]


def compare(name: str, scheme: str, m: Measure, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row of one scenario × scheme: the standard quantities with the seed's numbers set
    beside them, then the seed's numbers on other quantities, then its checked statements."""
    numbers = [n for n in data.get("number", []) if name in _as_list(n["scenario"]) and scheme in _as_list(n["scheme"])]
    attached: dict[tuple[str, str | None], dict[str, Any]] = {}
    for n in numbers:
        for subj in _as_list(n.get("subject")):
            attached[(n["quantity"], subj)] = n
    wanted = m.standard()
    wanted += [k for k in attached if k not in wanted]
    rows = []
    for quantity, subject in wanted:
        ccsim, theory, note = m.value(quantity, subject)
        n = attached.get((quantity, subject))
        if n is None:
            rows.append(_row(name, scheme, quantity, subject, ccsim, theory, note=note))
            continue
        rng = n.get("range")
        paper = (rng[0] + rng[1]) / 2 if rng else n["value"]
        notes = [x for x in (f"seed: {rng[0]:g}-{rng[1]:g}" if rng else None, n.get("note"), note) if x]
        ok = None
        if ccsim is not None:
            if rng:
                tol = n.get("tolerance", 0.0)
                ok = rng[0] - tol <= ccsim <= rng[1] + tol
            else:
                ok = C.within(quantity, ccsim, paper, n.get("tolerance"))
        rows.append(_row(name, scheme, quantity, subject, ccsim, theory, paper, n.get("unit"), n.get("source"),
                         "; ".join(notes) or None, ok))
    for st in data.get("statement", []):
        if name not in _as_list(st["scenario"]) or scheme not in _as_list(st["scheme"]) or "expect" not in st:
            continue
        ccsim, theory, _ = m.value(st["quantity"], st.get("subject"))
        ok = _expect(st["expect"], ccsim, theory, st["quantity"])
        rows.append(_row(name, scheme, st["quantity"], st.get("subject"), ccsim, theory, None, None, st.get("source"),
                         f"seed: {st['text']} (expect {st['expect']})", ok))
    return rows


def settings_rows(name: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed's stated parameters beside the resolved preset's."""
    from ..api import resolve

    rows = []
    for st in data.get("setting", []):
        if name not in _as_list(st["scenario"]):
            continue
        for scheme in _as_list(st["scheme"]):
            value: Any = resolve(f"{PAPER}/{name}", scheme=scheme)
            for part in re.findall(r"[^.\[\]]+|\[\d+\]", st["path"]):
                value = value[int(part[1:-1])] if part.startswith("[") else value.get(part) if isinstance(value, dict) else None
                if value is None:
                    break
            ccsim = None if value is None else C.to_unit(value, st.get("unit"))
            rows.append(_row(name, scheme, "setting", st["path"], ccsim, None, st["value"], st.get("unit"),
                             st.get("source"), f"seed: {st['text']}"))
    return rows


# --- figures ------------------------------------------------------------------------------------


def _figure(job: tuple[str, dict[str, Any], list[dict[str, Any]], str]) -> str:
    """One PNG per scenario: a row per scheme; ACR and queue (and cells received for the
    robustness scenarios), like the seed's Figures 3, 5, 7, 8 and 9."""
    name, meta, runs, path = job
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    import matplotlib.pyplot as plt
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

_COLUMNS = [("scheme", "scheme"), ("quantity", "quantity"), ("unit", "unit"), ("theory", "theory"),
            ("paper", "paper"), ("ccsim", "ccsim"), ("difference", "difference"), ("source", "seed"), ("note", "note")]


def write_html(out: Path, names: list[str], rows: list[dict[str, Any]], data: dict[str, Any], info: dict[str, Any]) -> Path:
    """``index.html`` (`templates/abr_benchmarks.html.j2`): the overview, then each scenario."""
    from .. import __version__
    from .._html import render
    from ..presets import preset_description

    def frac(xs):
        return f"{sum(1 for r in xs if r['ok'])}/{len(xs)}" if xs else "—"

    scenarios = []
    for name in names:
        meta = data.get("scenario", {}).get(name, {})
        rs = [r for r in rows if r["scenario"] == name]
        main = [r for r in rs if not r["quantity"].startswith("setting")]
        pap = [[r for r in main if r["paper"] is not None and row_kind(r) == k] for k in ("simulated", "maxmin_mbps", "convergence_ms")]
        th = [r for r in main if r["paper"] is None and r["theory"] is not None and "expect" not in (r.get("note") or "")]
        stm = [r for r in main if "(expect" in (r.get("note") or "")]
        tables = [(f"{SCHEME_TITLES[scheme]}{'' if scheme in MAIN_SCHEMES else ' (extra)'}",
                   C.html_table([r for r in main if r["scheme"] == scheme], _COLUMNS[1:]))
                  for scheme in SCHEMES if any(r["scheme"] == scheme for r in main)]
        sets = [r for r in rs if r["quantity"].startswith("setting")]
        if sets:
            tables.append(("Settings the seed states, beside the preset", C.html_table(sets, _COLUMNS)))
        scenarios.append({
            "name": name, "where": " ".join(x for x in (meta.get("section"), meta.get("figure")) if x),
            "counts": [frac(xs) for xs in pap] + [frac(th), frac(stm)],
            "description": preset_description(f"{PAPER}/{name}"), "statements": meta.get("statements", []),
            "tables": tables,
        })
    page = render("abr_benchmarks.html.j2", title=f"ccsim reproduce {PAPER}", paper=PAPER, paper_title=data.get("title", ""),
                  authors=data.get("authors", ""), seed=data.get("seed", ""), mode=info["mode"], version=__version__,
                  runs=info["runs"], workers=info["workers"], wall_s=info["wall_s"], scenarios=scenarios)
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


# --- entry point --------------------------------------------------------------------------------


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Runs the reproduction and writes ``compared.json``, ``runs.json``, ``figures/*.png`` and
    ``index.html`` under ``out``. Returns a summary dict (paper, out, rows, runs, wall_s, ...)."""
    started = time.perf_counter()
    data = load_data()
    out = Path(out or f"out/reproduce/{PAPER}")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    workers = C.default_workers() if workers is None else max(1, int(workers))
    names = scenario_names(data)
    tasks = plan(names, quick)
    pool = C.make_pool(workers)
    try:
        results = C.run_all(_run, tasks, workers=workers, progress=progress, label="simulating", pool=pool)
        by_key = {(r["task"].scenario, r["task"].scheme, r["task"].kind): r for r in results}
        rows: list[dict[str, Any]] = []
        jobs = []
        for name in names:
            meta = data.get("scenario", {}).get(name, {})
            fig_runs = []
            for scheme in SCHEMES:
                main = by_key[(name, scheme, "main")]
                m = Measure(name, scheme, main, by_key.get((name, scheme, "greedy")), meta)
                rows += compare(name, scheme, m, data)
                fig_runs.append({**main, "ports": _plot_ports(m, main), "groups": m.groups})
            rows += settings_rows(name, data)
            jobs.append((name, meta, fig_runs, str(out / "figures" / f"{name}.png")))
        C.run_all(_figure, jobs, workers=workers, progress=progress, label="plotting", pool=pool)
    finally:
        if pool is not None:
            pool.shutdown()
    (out / "compared.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    runs = [{"scenario": r["task"].scenario, "scheme": r["task"].scheme, "kind": r["task"].kind,
             "overrides": dict(r["task"].overrides), "sim_time_s": r["summary"]["sim_time_s"],
             "wall_s": C.clean(r["summary"]["wall_s"]), "events": r["summary"]["events"],
             "fingerprint": r["summary"]["fingerprint"]} for r in results]
    (out / "runs.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    wall = time.perf_counter() - started
    info = {"mode": "quick" if quick else "full", "runs": len(tasks), "workers": workers, "wall_s": wall}
    write_html(out, names, rows, data, info)
    return C.summary(PAPER, out, info["mode"], rows, len(tasks), started, *headline_rows(rows))


def row_kind(row: dict[str, Any]) -> str:
    """How a row with a seed's number is compared: `simulated` (a simulation's value within
    tolerance), `maxmin_mbps` (the seed's own max-min arithmetic, redone by water-filling without
    simulating), `convergence_ms` (a settling time: the same order only) or `setting`."""
    return next((k for k in ("setting", "maxmin_mbps", "convergence_ms") if row["quantity"].startswith(k)), "simulated")


def headline_rows(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str, list[tuple[str, list[dict[str, Any]]]]]:
    """What the headline counts: the seed's numbers compared with a simulation within tolerance;
    apart, the seed's max-min rates (its own arithmetic, which water-filling redoes without
    simulating), its settling times (same order only) and its stated settings."""
    with_paper = [r for r in rows if r["paper"] is not None]
    by = {k: [r for r in with_paper if row_kind(r) == k] for k in ("simulated", "maxmin_mbps", "convergence_ms", "setting")}
    return by["simulated"], "of the seed's numbers compared with a simulation within tolerance", [
        ("of its max-min rates redone by water-filling (arithmetic, no simulation)", by["maxmin_mbps"]),
        ("of its settling times of the same order (within a factor of 2)", by["convergence_ms"]),
        ("of its stated settings equal to the presets'", by["setting"]),
    ]


__all__ = ["reproduce", "load_data", "PAPER", "TITLE", "SCHEMES", "MAIN_SCHEMES", "waterfill", "topology",
           "scheme_factor", "theory_rates"]
