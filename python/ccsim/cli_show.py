"""`ccsim show SCENARIO [--out FILE] [--json]`: the network a scenario builds, without running it —
nodes by kind, links with rate and delay, each flow's route, bottleneck and max-min fair rate
(`ccsim.topology`) — and its drawing (`ccsim.netdraw`) with ``--out``. Also the one-line summary
`ccsim validate` prints."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from .entry import parse_sets
from .errors import ScenarioError

DRAWING_FORMATS = (".png", ".svg", ".pdf")


def show(
    scenario: str = typer.Argument(..., help="Preset name (see `ccsim presets`), scenario file (.toml/.json), or - to read standard input."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="Draw the network into this file (.png, .svg or .pdf)."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object: nodes, ports, flows (route, "
                                 "max-min rate, bottleneck)."),
    set_: list[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE (repeatable)."),
    scheme: Optional[str] = typer.Option(None, "--scheme", help="Swap the ABR switch algorithm at every switch."),
    tcp: Optional[str] = typer.Option(None, "--tcp", help="Swap the TCP variant of every connection."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of every random stream."),
) -> None:
    """Show a scenario's network without running it: nodes, links, routes, bottlenecks, max-min rates."""
    from .topology import topology

    if out_file is not None and out_file.suffix.lower() not in DRAWING_FORMATS:
        raise ScenarioError(f"--out {out_file}: the drawing's format comes from its suffix: {', '.join(DRAWING_FORMATS)}")
    topo = topology(scenario, seed=seed, scheme=scheme, tcp=tcp, set=parse_sets(set_))
    if out_file is not None:
        from .netdraw import draw

        draw(topo, out_file)
    if as_json:
        doc: dict[str, Any] = topo.as_json()
        if out_file is not None:
            doc["drawing"] = str(out_file)
        sys.stdout.write(json.dumps(doc, allow_nan=False) + "\n")
        return
    sys.stdout.write("\n".join(topo.summary_lines()) + "\n")
    if out_file is not None:
        sys.stdout.write(f"\nwrote {out_file}\n")


def validate_line(scenario: str, *, scheme: str | None, set: dict[str, Any]) -> str:
    """`ccsim validate`: checks the scenario as `ccsim.resolve` does (raises ``ScenarioError``)
    and returns `ok: NAME — 5 switches, 46 hosts, 50 links, 23 flows; bottlenecks L1 SW1->SW2 (9
    flows), …`. The scenario is read once (standard input cannot be read twice)."""
    from . import _core
    from .api import _check_names, override_pairs, scenario_source
    from .topology import from_text

    text, fmt, _ = scenario_source(scenario)
    pairs = override_pairs(set, {})
    _check_names(scheme=scheme)
    _core.resolve(text, fmt, pairs, scheme, None, None)
    return "ok: " + from_text(text, fmt, pairs, scheme, None, None).one_line()


__all__ = ["show", "validate_line"]
