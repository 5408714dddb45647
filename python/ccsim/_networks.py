"""Network drawings in outputs: `network.<fmt>` in a run's `--out` directory (the world the run
built, from its resolved scenario), and a "Networks" section in a reproduction's `index.html` (one
drawing per distinct network among the paper's presets). The drawing is `netdraw.draw`'s."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

#: The resolution of a run's `network.png` (a diagram: half the plots' 300 dpi is sharp).
NETWORK_DPI = 150

#: Drawings at most in one reproduction report (its presets with distinct networks, in name order).
MAX_REPORT_NETWORKS = 8


def write_network(resolved_json: str, out: Path, formats: Sequence[str]) -> list[Path]:
    """`network.<fmt>` for each of ``formats``: the network of the resolved scenario (the run's
    own, every override applied)."""
    from ._figstyle import save_formats
    from .netdraw import draw
    from .topology import from_text

    return save_formats(draw(from_text(resolved_json, "json", [], None, None, None)), out, "network", formats, NETWORK_DPI)


def _signature(topo) -> tuple:
    """What the drawing shows: node kinds, network links with rate and delay, flow groups."""
    links = tuple(sorted((topo.nodes[ps[0].src][0], topo.nodes[ps[0].dst][0], ps[0].rate_mbps, ps[0].delay_ms)
                         for ps in topo.network_links()))
    groups = tuple((g.kind, g.path) for g in topo.groups())  # not their sizes: 5 or 20 hosts draw alike
    return (tuple(topo.nodes[i][1] for i in range(len(topo.nodes)) if not topo.is_host(i)), links, groups)


def add_to_report(out: Path, paper: str) -> list[str]:
    """Draws the distinct networks of ``paper``'s presets into ``out/figures/network-*.png`` and adds
    a "Networks" section to ``out/index.html`` (before its end). Returns the figures' names."""
    from .netdraw import draw
    from .presets import preset_names
    from .topology import topology

    page = out / "index.html"
    if not page.is_file():
        return []
    from . import _mpl as plt

    seen: set[tuple] = set()
    drawn: list[tuple[str, str]] = []
    for name in preset_names():
        if not name.startswith(paper + "/") or len(drawn) >= MAX_REPORT_NETWORKS:
            continue
        topo = topology(name)
        sig = _signature(topo)
        if sig in seen:
            continue
        seen.add(sig)
        file = f"network-{name.split('/', 1)[1]}.png"
        (out / "figures").mkdir(exist_ok=True)
        fig = draw(topo)
        fig.savefig(out / "figures" / file, dpi=110)
        plt.close(fig)
        drawn.append((name, file))
    if not drawn:
        return []
    items = "".join(
        f'<figure><img src="figures/{html.escape(f)}" alt="network of {html.escape(n)}">'
        f"<figcaption>{html.escape(n)} (<code>ccsim show {html.escape(n)}</code>)</figcaption></figure>\n"
        for n, f in drawn)
    section = (f"<h2>Networks</h2>\n<p class=\"muted\">The presets' networks, one per distinct topology: links with "
               f"rate and delay, one colour per group of flows sharing a route, each group's bottleneck marked "
               f"(its max-min fair rate in the legend).</p>\n{items}")
    text = page.read_text(encoding="utf-8")
    end = text.rfind("</body>")
    page.write_text(text[:end] + section + text[end:] if end >= 0 else text + section, encoding="utf-8")
    return [f for _, f in drawn]


__all__ = ["write_network", "add_to_report", "MAX_REPORT_NETWORKS"]
