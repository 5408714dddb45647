"""``ccsim.topology``: the network a scenario builds, read from the compiled world without running
it — nodes, links with rate and delay, each flow's route, its max-min fair rate and what holds it
there — and its text forms (`ccsim show`, the line `ccsim validate` prints). The drawing is
`ccsim.netdraw`'s.

Flows that take the same way through the network (same kind, same network nodes in order) form a
*group*: GFC1's A1–A3 are one. Groups keep the summary and the drawing readable at 20,000 sources.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import _core
from .api import _check_names, _check_seed, override_pairs, scenario_source

#: Flows listed one by one in the summary before it lists groups only (and the first this many).
FLOWS_LISTED = 40
_PLURAL = {"switch": "switches", "lan": "LANs", "edge router": "edge routers"}


@dataclass(frozen=True)
class Port:
    """One direction of a link: the output port at ``src`` towards ``dst`` (node indices)."""

    index: int
    name: str
    link: str
    src: int
    dst: int
    rate_mbps: float
    delay_ms: float
    unit: str
    buffer: int


@dataclass(frozen=True)
class Flow:
    """A source, TCP connection, background flow or gateway trunk. ``route``: its forward ports by
    index; ``maxmin_mbps``: its max-min fair rate when the measurement window ends (as the
    result's ``maxmin_mbps``; None for background traffic); ``held_by``: ``link`` (then
    ``bottleneck`` is the port), ``demand``, ``trunk``, ``idle`` (not running then), ``background``
    or ``unbound``."""

    name: str
    kind: str
    destination: str
    route: tuple[int, ...]
    start_s: float
    stop_s: float | None
    demand_mbps: float | None
    maxmin_mbps: float | None
    max_goodput_mbps: float | None
    held_by: str
    bottleneck: int | None
    carrier: str | None


@dataclass
class Group:
    """Flows with the same kind and the same network nodes in order."""

    kind: str
    path: tuple[int, ...]  # network node indices
    flows: list[Flow] = field(default_factory=list)

    @property
    def label(self) -> str:
        return name_range([f.name for f in self.flows])


@dataclass
class Topology:
    scenario: str
    window_end_s: float
    nodes: list[tuple[str, str]]  # (name, kind)
    ports: list[Port]
    flows: list[Flow]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    # --- structure -------------------------------------------------------------------------

    def is_host(self, node: int) -> bool:
        return self.nodes[node][1] == "host"

    def node_path(self, flow: Flow) -> list[int]:
        """The nodes a flow crosses in order, its hosts included."""
        if not flow.route:
            return []
        return [self.ports[flow.route[0]].src] + [self.ports[p].dst for p in flow.route]

    def links(self) -> list[list[Port]]:
        """Ports grouped by link (a full-duplex link has two), in the order of their first port."""
        by: dict[str, list[Port]] = {}
        for p in self.ports:
            by.setdefault(p.link, []).append(p)
        return list(by.values())

    def network_links(self) -> list[list[Port]]:
        """Links between network nodes (not a host's access or egress link)."""
        return [ps for ps in self.links() if not any(self.is_host(p.src) or self.is_host(p.dst) for p in ps)]

    def groups(self) -> list[Group]:
        """Flows grouped by kind and network path, in the order of their first flow."""
        by: dict[tuple[str, tuple[int, ...]], Group] = {}
        for f in self.flows:
            path = tuple(n for n in self.node_path(f) if not self.is_host(n))
            by.setdefault((f.kind, path), Group(f.kind, path)).flows.append(f)
        return list(by.values())

    def port_label(self, index: int) -> str:
        """A port as `SW1->SW2`, with its link's name where the name says more (`L1 SW1->SW2`)."""
        p = self.ports[index]
        plain = f"{self.nodes[p.src][0]}-{self.nodes[p.dst][0]}"
        return p.name if p.link in (plain, p.name) else f"{p.link} {p.name}"

    def bottlenecks(self) -> Counter[int]:
        """Ports that hold some flow at its max-min rate, with how many flows each holds."""
        return Counter(f.bottleneck for f in self.flows if f.bottleneck is not None)

    # --- text --------------------------------------------------------------------------------

    def counts(self) -> str:
        """`5 switches, 46 hosts, 27 links, 23 flows`."""
        kinds = Counter(kind for _, kind in self.nodes)
        order = ["switch", "router", "edge router", "gateway", "lan", "host"]
        parts = [_count(kinds[k], k) for k in order if kinds[k]]
        parts.append(_count(len(self.links()), "link"))
        parts.append(_count(len(self.flows), "flow"))
        return ", ".join(parts)

    def one_line(self, shown: int = 3) -> str:
        """`NAME — 5 switches, …; bottleneck SW1->SW2 (8 flows), …` (`ccsim validate`)."""
        held = self.bottlenecks().most_common()
        line = f"{self.scenario} — {self.counts()}"
        if held:
            parts = [f"{self.port_label(p)} ({_count(n, 'flow')})" for p, n in held[:shown]]
            more = f", … ({len(held)} in all)" if len(held) > shown else ""
            line += f"; bottleneck{'s' if len(held) > 1 else ''} {', '.join(parts)}{more}"
        return line

    def summary_lines(self, listed: int = FLOWS_LISTED) -> list[str]:
        """The text `ccsim show` prints: nodes by kind, links with rate and delay, flows with route,
        max-min rate and bottleneck (groups only, and the first ``listed`` flows, above ``listed``)."""
        out = [f"{self.scenario}: {self.counts()}", "", "nodes"]
        by_kind: dict[str, list[str]] = {}
        for name, kind in self.nodes:
            by_kind.setdefault(kind, []).append(name)
        for kind, names in by_kind.items():
            shown = ", ".join(names) if len(names) <= 12 else f"{', '.join(names[:10])}, … ({len(names)} in all)"
            out.append(f"  {_plural(kind, len(names)):<14} {shown}")
        net = self.network_links()
        if net:
            out += ["", "links between network nodes"]
            rows = [(ps[0].link, " <-> ".join(self.nodes[n][0] for n in (ps[0].src, ps[0].dst)), _rate_delay(ps)) for ps in net]
            out += _columns(rows, indent=2)
        access = [ps for ps in self.links() if ps not in net]
        if access:
            kinds = Counter(_rate_delay(ps) for ps in access)
            out += ["", f"host links ({len(access)})"]
            out += [f"  {n} x {rd}" for rd, n in kinds.most_common()]
        when = f"max-min fair rates as the measurement window ends, at {_secs(self.window_end_s)}"
        groups = self.groups()
        if len(self.flows) > listed:
            out += ["", f"flow groups ({len(groups)}; {when})"]
            out += _columns([self._group_row(g) for g in groups], indent=2)
            out += ["", f"first {listed} of {len(self.flows)} flows"]
        else:
            out += ["", f"flows ({when})"]
        out += _columns([self._flow_row(f) for f in self.flows[:listed]], indent=2)
        return out

    def _route_text(self, f: Flow) -> str:
        return " > ".join(self.nodes[n][0] for n in self.node_path(f))

    def _held(self, held_by: str, bottleneck: int | None, carrier: str | None) -> str:
        if held_by == "link" and bottleneck is not None:
            return f"bottleneck {self.port_label(bottleneck)}"
        return {"demand": "held by its own demand (PCR)", "trunk": f"its share of trunk {carrier}",
                "idle": "not running when the window ends", "background": "background (not in max-min)",
                "unbound": "unbound"}[held_by]

    def _flow_row(self, f: Flow) -> tuple[str, ...]:
        rate = _mbps(f.maxmin_mbps)
        if f.max_goodput_mbps is not None and rate:
            rate += f" (goodput {f.max_goodput_mbps:.4g})"
        return (f.name, f.kind, self._route_text(f), rate, self._held(f.held_by, f.bottleneck, f.carrier))

    def _group_row(self, g: Group) -> tuple[str, ...]:
        rates = sorted({round(f.maxmin_mbps, 6) for f in g.flows if f.maxmin_mbps is not None})
        rate = "" if not rates else _mbps(rates[0]) if len(rates) == 1 else f"{_mbps(rates[0])}-{_mbps(rates[-1])}"
        helds = Counter((f.held_by, f.bottleneck, f.carrier) for f in g.flows).most_common()
        held = self._held(*helds[0][0]) + (f" (and {len(helds) - 1} other limits)" if len(helds) > 1 else "")
        path = " > ".join(self.nodes[n][0] for n in g.path)
        return (g.label, f"{len(g.flows)} {_plural(g.kind, len(g.flows))}", path, rate, held)

    def as_json(self) -> dict[str, Any]:
        """The engine's description (``ports``' and ``flows``' fields: docs/scenarios.md, "Looking
        at a scenario") with a ``summary``: counts and the one-line text."""
        return {**self.raw, "summary": {"counts": self.counts(), "line": self.one_line()}}


def topology(
    scenario: str | Path | Mapping[str, Any],
    *,
    seed: int | None = None,
    scheme: str | None = None,
    tcp: str | None = None,
    set: Mapping[str, Any] | None = None,
    **overrides: Any,
) -> Topology:
    """The network ``scenario`` builds (arguments as ``ccsim.run``'s), without running it: nodes,
    ports, and each flow's route, max-min fair rate and bottleneck. Raises ``ScenarioError``."""
    text, fmt, _ = scenario_source(scenario)
    pairs = override_pairs(set, overrides)
    _check_names(scheme=scheme, tcp=tcp)
    return from_text(text, fmt, pairs, scheme, _check_seed(seed), tcp)


def from_text(text: str, fmt: str, pairs: list[tuple[str, str]], scheme: str | None, seed: int | None,
              tcp: str | None) -> Topology:
    """``topology`` of a scenario's text (read once: standard input cannot be read twice)."""
    raw = json.loads(_core.topology(text, fmt, pairs, scheme, seed, tcp))
    ports = [Port(i, p["name"], p["link"], p["from"], p["to"], p["rate_mbps"], p["delay_ms"], p["unit"], p["buffer"])
             for i, p in enumerate(raw["ports"])]
    flows = [Flow(f["name"], f["kind"], f["destination"], tuple(f["route"]), f["start_s"], f["stop_s"], f["demand_mbps"],
                  f["maxmin_mbps"], f["max_goodput_mbps"], f["held_by"], f["bottleneck"], f["carrier"])
             for f in raw["flows"]]
    return Topology(raw["scenario"], raw["window_end_s"], [(n["name"], n["kind"]) for n in raw["nodes"]], ports, flows,
                    raw)


def name_range(names: list[str]) -> str:
    """`A1-A3 (3)` for A1, A2, A3; `S1, S4` for two; `S1, S4, … (5)` otherwise."""
    if len(names) == 1:
        return names[0]
    m = [re.fullmatch(r"(.*?)(\d+)", n) for n in names]
    if all(m) and len({x.group(1) for x in m}) == 1:  # type: ignore[union-attr]
        nums = [int(x.group(2)) for x in m]  # type: ignore[union-attr]
        if nums == list(range(nums[0], nums[0] + len(nums))):
            return f"{names[0]}-{names[-1]} ({len(names)})"
    if len(names) == 2:
        return ", ".join(names)
    return f"{names[0]}, {names[1]}, … ({len(names)})"


def _count(n: int, what: str) -> str:
    return f"{n:,} {_plural(what, n)}"


def _plural(kind: str, n: int) -> str:
    if n == 1:
        return kind
    return _PLURAL.get(kind, kind + "s")


def _mbps(x: float | None) -> str:
    return "" if x is None else f"{x:.4g} Mb/s"


def _secs(s: float) -> str:
    return f"{s:g} s" if s >= 1 else f"{s * 1e3:g} ms"


def _rate_delay(ports: list[Port]) -> str:
    """`50 Mb/s, 5 ms` (both directions alike) or each direction's."""
    kinds = {(p.rate_mbps, p.delay_ms) for p in ports}
    return "; ".join(f"{r:g} Mb/s, {d:g} ms" for r, d in sorted(kinds))


def _columns(rows: list[tuple[str, ...]], indent: int = 0) -> list[str]:
    """Rows as left-aligned columns."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [(" " * indent + "  ".join(c.ljust(w) for c, w in zip(r, widths))).rstrip() for r in rows]


__all__ = ["topology", "from_text", "Topology", "Port", "Flow", "Group", "name_range", "FLOWS_LISTED"]
