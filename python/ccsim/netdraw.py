"""The drawing of a network (`ccsim show --out`, `network.png` in a run's `--out`, the
reproduction reports): a layered left-to-right layout (networkx: the network nodes' layers are the
topological generations of the graph the flows' routes make, cycles condensed; then
`multipartite_layout`), links labelled with rate and delay, one colour per flow group drawn along
its route like a metro line, each group's bottleneck marked with a diamond on its line and the
link drawn red.

Hosts are drawn per flow group (GFC1's A1–A3 are one box "A1-A3 (3)"), and groups beyond
``MAX_GROUPS`` share one grey "other flows" line: a 20,000-source world draws as fast and as
legibly as its groups allow."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .topology import Group, Topology

#: Flow groups drawn in their own colour; the rest are drawn grey as "other flows".
MAX_GROUPS = 20
_KIND_STYLE = {  # node kind: (marker, face colour)
    "switch": ("s", "#4c72b0"),
    "router": ("o", "#55a868"),
    "edge router": ("o", "#2e7d32"),
    "gateway": ("D", "#8172b2"),
    "lan": ("h", "#937860"),
    "lossy link": ("s", "#4c72b0"),
}


def _networkx() -> Any:
    try:
        import networkx
    except ImportError:  # pragma: no cover (a dependency; said clearly if a broken install lacks it)
        from .errors import CcsimError

        raise CcsimError("drawing a network needs networkx (a dependency of ccsim: pip install 'networkx>=3')") from None
    return networkx


def layout(topo: Topology, groups: list[Group]) -> tuple[dict[Any, tuple[float, float]], dict[Any, str]]:
    """Positions of the drawn nodes: network nodes by index, a group's source and destination
    boxes as ("src", i) and ("dst", i); and each drawn node's label."""
    nx = _networkx()
    net = nx.DiGraph()
    for i, (_, kind) in enumerate(topo.nodes):
        if kind != "host":
            net.add_node(i)
    for g in groups:
        nx.add_path(net, g.path)
    for ps in topo.network_links():
        if not net.has_edge(ps[0].dst, ps[0].src):
            net.add_edge(ps[0].src, ps[0].dst)
    # Layers: topological generations of the condensed graph (a ring's nodes share one).
    dag = nx.condensation(net)
    layer: dict[Any, int] = {}
    for gen, members in enumerate(nx.topological_generations(dag)):
        for c in members:
            for n in dag.nodes[c]["members"]:
                layer[n] = 2 * gen + 1
    labels: dict[Any, str] = {n: topo.nodes[n][0] for n in net.nodes}
    graph = nx.Graph()
    for n in net.nodes:
        graph.add_node(n, layer=layer[n])
    boxes: list[tuple[Any, int]] = []
    for i, g in enumerate(groups):
        if not g.path:
            continue
        src_names = {topo.nodes[topo.node_path(f)[0]][0] for f in g.flows}
        dst_names = {topo.nodes[topo.node_path(f)[-1]][0] for f in g.flows}
        ends = topo.node_path(g.flows[0])
        for end, names, at in (("src", src_names, layer[g.path[0]] - 1), ("dst", dst_names, layer[g.path[-1]] + 1)):
            if not topo.is_host(ends[0 if end == "src" else -1]):
                continue
            node = (end, i)
            name = g.label if end == "src" else _host_label(sorted(names, key=_natural), len(g.flows))
            hop = [topo.ports[f.route[0 if end == "src" else -1]] for f in g.flows]
            labels[node] = f"{name}\n{_rate_delay(hop, sep='; ')}"
            graph.add_node(node, layer=at)
            boxes.append((node, at))
    # x: the layer (networkx spaces the layers evenly); y: network nodes as networkx spreads them
    # within their layer, around 0; each column's sources stacked above them, destinations below.
    pos = {n: (float(x), float(y)) for n, (x, y) in
           nx.multipartite_layout(graph, subset_key="layer", align="vertical", scale=1.0).items()}
    per_layer: dict[int, list[Any]] = {}
    for n in net.nodes:
        per_layer.setdefault(layer[n], []).append(n)
    half = max((len(ns) - 1) / 2 for ns in per_layer.values()) if per_layer else 0.0
    for ns in per_layer.values():
        for k, n in enumerate(ns):
            pos[n] = (pos[n][0], (len(ns) - 1) / 2 - k)
    stacked: dict[tuple[str, int], int] = {}
    for node, at in boxes:
        k = stacked.get((node[0], at), 0)
        stacked[(node[0], at)] = k + 1
        y = half + 1.0 + 0.55 * k
        pos[node] = (pos[node][0], y if node[0] == "src" else -y)
    # Layers one unit apart, as rows are.
    xs = sorted({x for x, _ in pos.values()})
    step = (xs[1] - xs[0]) if len(xs) > 1 else 1.0
    return {n: ((x - xs[0]) / step * 1.1, y) for n, (x, y) in pos.items()}, labels


def _natural(name: str) -> tuple:
    """R9 before R10."""
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _host_label(names: list[str], flows: int) -> str:
    from .topology import name_range

    return name_range(names) if len(names) <= flows else f"{names[0]}, … ({len(names)})"


def draw(topo: Topology, path: str | Path | None = None, *, title: str | None = None) -> Any:
    """Draws the network; writes it to ``path`` (PNG, SVG or PDF by its suffix) if given.
    Returns the matplotlib figure."""
    from ._mpl import Figure  # shows inline in Jupyter; no pyplot
    from matplotlib.lines import Line2D

    all_groups = [g for g in topo.groups() if g.path]
    groups = all_groups[:MAX_GROUPS]
    rest = all_groups[MAX_GROUPS:]
    if rest:
        groups.append(_merged(rest))
    pos, labels = layout(topo, groups)
    width = max((x for x, _ in pos.values()), default=1.0)
    height = max((y for _, y in pos.values()), default=1.0) - min((y for _, y in pos.values()), default=0.0)
    fig = Figure(figsize=(min(5 + 1.0 * width, 24), min(2 + 0.9 * height, 16)), layout="constrained")
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title(title or f"{topo.scenario}: {topo.counts()}", fontsize=11)
    colours = _colours(len(groups), grey_last=bool(rest))
    held_ports = {f.bottleneck for f in topo.flows if f.bottleneck is not None}
    # Links between network nodes, labelled; red where they hold a flow at its max-min rate.
    for ps in topo.network_links():
        a, b = ps[0].src, ps[0].dst
        if a not in pos or b not in pos:
            continue
        red = any(p.index in held_ports for p in ps)
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ax.plot([xa, xb], [ya, yb], color="#d62728" if red else "#999999", lw=6 if red else 4, alpha=0.35, zorder=1,
                solid_capstyle="round")
        ax.annotate(f"{ps[0].link}\n{_rate_delay(ps)}", ((xa + xb) / 2, (ya + yb) / 2), xytext=(0, -22),
                    textcoords="offset points", ha="center", va="top", fontsize=7, color="#333333", zorder=5,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    # Each group's line along its route, offset so that lines sharing a link run side by side.
    segments = [_segments(topo, g, i) for i, g in enumerate(groups)]
    share: dict[frozenset[Any], list[int]] = {}
    for i, segs in enumerate(segments):
        for a, b, _ in segs:
            share.setdefault(frozenset((a, b)), []).append(i)
    gap = 0.09
    for i, (g, segs) in enumerate(zip(groups, segments)):
        for a, b, port in segs:
            users = share[frozenset((a, b))]
            k = users.index(i) - (len(users) - 1) / 2
            (xa, ya), (xb, yb) = _offset(pos[a], pos[b], k * gap)
            ax.annotate("", (xb, yb), (xa, ya), zorder=3,
                        arrowprops={"arrowstyle": "-|>", "color": colours[i], "lw": 1.8, "shrinkA": 9, "shrinkB": 9,
                                    "mutation_scale": 9})
            if port is not None and _holds(g, port):
                ax.plot([(xa + xb) / 2], [(ya + yb) / 2], marker="D", ms=8, color=colours[i], mec="black", mew=1.0,
                        zorder=6)
        for end in ("src", "dst"):
            node = (end, i)
            if node in pos:
                x, y = pos[node]
                ax.text(x, y, labels[node], ha="center", va="center", fontsize=7.5, zorder=7,
                        bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": colours[i], "lw": 1.5})
    for n, (x, y) in pos.items():
        if isinstance(n, tuple):
            continue
        marker, colour = _KIND_STYLE.get(topo.nodes[n][1], ("o", "#777777"))
        ax.plot([x], [y], marker=marker, ms=26, color=colour, mec="black", zorder=8)
        if len(labels[n]) <= 4:
            ax.text(x, y, labels[n], ha="center", va="center", fontsize=7, color="white", weight="bold", zorder=9)
        else:  # a longer name under the node, on white
            ax.annotate(labels[n], (x, y), xytext=(0, 17), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7, weight="bold", zorder=9,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85})
    # The legend, outside the drawing: each group's max-min rate and bottleneck.
    handles = [Line2D([], [], color=colours[i], lw=2, label=_legend(topo, g)) for i, g in enumerate(groups)]
    handles.append(Line2D([], [], ls="", marker="D", color="white", mec="black", label="bottleneck of the line's flows"))
    handles.append(Line2D([], [], color="#d62728", lw=6, alpha=0.35, label="a bottleneck link"))
    handles += [Line2D([], [], ls="", marker=m, ms=9, color=c, mec="black", label=k)
                for k, (m, c) in _KIND_STYLE.items() if any(kind == k for _, kind in topo.nodes)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7.5, frameon=False,
              title=f"max-min fair rates at {topo.window_end_s:g} s", title_fontsize=8)
    if pos:
        xs, ys = zip(*pos.values())
        ax.set_xlim(min(xs) - 0.45, max(xs) + 0.45)
        ax.set_ylim(min(ys) - 0.4, max(ys) + 0.4)
    if path is not None:
        path = Path(path)
        fig.savefig(path, dpi=150 if path.suffix.lower() == ".png" else None)
    return fig


def _segments(topo: Topology, g: Group, i: int) -> list[tuple[Any, Any, int | None]]:
    """A group's drawn hops, (from, to, port): its host box to the first network node (if its
    route starts at a host; a gateway trunk starts at the gateway), the network ports, and the
    last network node to its destination box."""
    f = g.flows[0]
    hops: list[tuple[Any, Any, int | None]] = []
    for p in f.route:
        port = topo.ports[p]
        a = ("src", i) if topo.is_host(port.src) else port.src
        b = ("dst", i) if topo.is_host(port.dst) else port.dst
        hops.append((a, b, p))
    return hops


def _holds(g: Group, port: int) -> bool:
    """Whether ``port`` holds the group's flows (most of them) at their max-min rate."""
    held = [f.bottleneck == port for f in g.flows]
    return sum(held) * 2 > len(held)


def _merged(rest: list[Group]) -> Group:
    """Groups beyond ``MAX_GROUPS``: drawn as one grey line (the first's route), named by count."""
    g = Group(rest[0].kind, rest[0].path, [f for r in rest for f in r.flows])
    return g


def _legend(topo: Topology, g: Group) -> str:
    rates = sorted({f.maxmin_mbps for f in g.flows if f.maxmin_mbps is not None})
    rate = "" if not rates else f"{rates[0]:.4g}" if len(rates) == 1 else f"{rates[0]:.4g}-{rates[-1]:.4g}"
    holds = {f.bottleneck for f in g.flows if f.held_by == "link"}
    why = {f.held_by for f in g.flows} - {"link"}
    where = ", ".join(topo.port_label(p) for p in sorted(holds) if p is not None)
    where = where or ", ".join(sorted(why))
    return f"{g.label} ({g.kind}): {rate} Mb/s" + (f", {where}" if where else "") if rate else f"{g.label} ({g.kind})"


def _colours(n: int, grey_last: bool) -> list[str]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    out = [cmap(i % cmap.N) for i in range(n)]
    if grey_last and out:
        out[-1] = (0.6, 0.6, 0.6, 1.0)
    return out


def _offset(a: tuple[float, float], b: tuple[float, float], d: float) -> tuple[tuple[float, float], tuple[float, float]]:
    (xa, ya), (xb, yb) = a, b
    length = math.hypot(xb - xa, yb - ya) or 1.0
    nx_, ny_ = -(yb - ya) / length * d, (xb - xa) / length * d
    return (xa + nx_, ya + ny_), (xb + nx_, yb + ny_)


def _rate_delay(ports: list[Any], sep: str = "\n") -> str:
    kinds = sorted({(p.rate_mbps, p.delay_ms) for p in ports})
    shown = sep.join(f"{r:g} Mb/s, {d:g} ms" for r, d in kinds[:2])
    return shown + (f"{sep}… ({len(kinds)} kinds)" if len(kinds) > 2 else "")


__all__ = ["draw", "layout", "MAX_GROUPS"]
