"""What a figure says about the run it shows, read from the run's resolved scenario
(`Result.resolved_json`): the scheme (the ABR switch algorithm, the TCP variant, the queue
discipline) and since when the set of flows the max-min reference rates are computed for was the
one running at the end.

A result without its scenario (built from a bare summary) has no scheme, and its references hold
from the start."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .result import Result

# How titles write the scheme names of the scenario format (docs/scenarios.md).
_NAMES = {
    "erica": "ERICA", "erica_plus": "ERICA+", "debra": "DEBRA", "eprca": "EPRCA", "ut": "UT", "efci": "EFCI",
    "jacobson88": "Jacobson '88", "tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK", "sack1": "SACK1",
    "red": "RED", "drop_tail": "drop-tail", "epd": "EPD", "ppd": "PPD", "selective_drop": "Selective Drop", "fba": "FBA",
    "wba": "WBA", "fiewa": "FIEWA", "fiabc": "FIABC", "ficcrd": "FICCRD", "hgrcp": "HG-RCP",
}


def _name(kind: str) -> str:
    return _NAMES.get(kind, kind.replace("_", " "))


def resolved(result: "Result") -> dict[str, Any] | None:
    """The run's resolved scenario, or None."""
    text = getattr(result, "resolved_json", None)
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _types(entries: list[dict[str, Any]], key: str, default: dict[str, Any] | None) -> list[str]:
    """The distinct ``key.type`` of ``entries`` (each falling back on ``default``), in order."""
    seen: list[str] = []
    for e in entries:
        t = (e.get(key) or default or {}).get("type")
        if t and t not in seen:
            seen.append(t)
    return seen


def scheme(scenario: dict[str, Any] | None) -> str:
    """``ERICA``; ``NewReno, RED``; ``SACK1, Selective Drop``; ``Reno, FIEWA, FICCRD``; ``ERICA+,
    Jacobson '88, HG-RCP``; ``Tahoe, CT``: the switch algorithm of ABR traffic (sources, TCP over
    ABR, gateways' trunks), the TCP variant of the connections, Controlled Transfer, the switches'
    buffer policies other than drop-tail, the routers' edges, controls and queue disciplines
    (drop-tail when they have nothing else), the gateways' controls ("" without a scenario)."""
    if not scenario:
        return ""
    d = scenario.get("defaults", {})
    sources, conns = scenario.get("source", []), scenario.get("connection", [])
    switches, routers = scenario.get("switch", []), scenario.get("router", [])
    gateways = scenario.get("gateway", [])
    parts: list[str] = []
    abr = bool(sources) or bool(gateways) or any(c.get("transport") == "abr" for c in conns)
    if switches and abr:
        parts += [_name(t) for t in _types(switches, "algorithm", d.get("algorithm"))]
    if conns:
        variants = []
        for c in conns:
            v = (c.get("tcp") or {}).get("variant") or (d.get("tcp") or {}).get("variant")
            if v and v not in variants:
                variants.append(v)
        parts += [_name(v) for v in variants]
    if scenario.get("credit"):
        parts.append("CT")
    if switches:
        policies = [_name(t) for t in _types(switches, "buffer_policy", d.get("buffer_policy")) if t != "drop_tail"]
        # TCP over UBR switches with no other policy: say so, as for routers.
        parts += policies or ([_name("drop_tail")] if conns and not abr and not scenario.get("credit") else [])
    if routers:
        kinds = _types(routers, "edge", None) + _types(routers, "control", None)
        kinds += [t for t in _types(routers, "queue", d.get("queue")) if t != "drop_tail"]
        parts += [_name(t) for t in kinds] or [_name("drop_tail")]
    parts += [_name(t) for t in _types(gateways, "control", None)]
    return ", ".join(parts)


def _seconds(value: Any) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    from . import _core

    return _core.duration_s(value)


def last_change_s(scenario: dict[str, Any] | None, end_s: float) -> float:
    """The last time before ``end_s`` a source, connection or background flow started or stopped:
    from then on the flows running are those at the end, whose max-min rates the summary reports
    (`maxmin_mbps`: "the VCs running at the end of the window"). 0 without a scenario. A
    connection's random start jitter counts in full (its latest possible start)."""
    if not scenario:
        return 0.0
    last = 0.0
    for kind in ("source", "connection", "background"):
        for e in scenario.get(kind, []):
            try:
                start = _seconds(e.get("start", 0))
                step = _seconds(e.get("start_step", 0))
                jitter = _seconds(e.get("start_jitter", 0))
                times = [start + (int(e.get("count", 1)) - 1) * step + jitter]
                if e.get("stop") is not None:
                    times.append(_seconds(e["stop"]))
            except (ValueError, TypeError):
                continue
            last = max([last] + [t for t in times if t < end_s])
    return last


def running_at_end(scenario: dict[str, Any] | None, end_s: float) -> set[str] | None:
    """The names of the ABR sources running at the end (started before it, not stopped before
    it), or None without a scenario."""
    if not scenario:
        return None
    names = set()
    for e in scenario.get("source", []):
        count = int(e.get("count", 1))
        start, step = _seconds(e.get("start", 0)), _seconds(e.get("start_step", 0))
        stop = _seconds(e["stop"]) if e.get("stop") is not None else None
        for k in range(count):
            if start + k * step < end_s and (stop is None or stop >= end_s):
                names.add(e["name"] if count == 1 else f"{e['name']}{k + 1}")
    return names


__all__ = ["resolved", "scheme", "last_change_s", "running_at_end"]
