#!/usr/bin/env python3
"""Writes python/ccsim/presets/scale/*.toml (issue 40's scale presets) from GFC1 and parking-lot-5;
`parking_lot_body` is also `scripts/bench.py`'s generated parking lot. `tests/test_presets.py`
checks the files are what this script writes."""
import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..", "python", "ccsim", "presets")
MEASURE = '[measure]\ninterval = "10ms"\nacr = false\nreceived = false\n'


def desc_replace(text: str, name: str, desc: str) -> str:
    text = re.sub(r'name = "[^"]*"', f'name = "{name}"', text, count=1)
    d0 = text.index('description = """')
    d1 = text.index('"""', d0 + 17) + 3
    return text[:d0] + f'description = """{desc}"""' + text[d1:]


def parking_lot_body(s: int, n: int) -> list[str]:
    """The switches SW1..SWs, links L1..L(s-1), and N VCs in s-1 groups entering at SW1..SW(s-1),
    all leaving at SWs (names that stay apart once numbered: G01v, G01v1, ... never meet G11v)."""
    parts = [f'[[switch]]\nname = "SW{k}"\n' for k in range(1, s + 1)]
    parts += [f'[[link]]\nname = "L{k}"\nbetween = ["SW{k}", "SW{k + 1}"]\n' for k in range(1, s)]
    groups = s - 1
    for g in range(groups):
        count = n // groups + (g < n % groups)
        route = ", ".join(f'"SW{k}"' for k in range(g + 1, s + 1))
        if count:
            parts.append(f'[[source]]\nname = "G{g + 1:02d}v"\ncount = {count}\nroute = [{route}]\n')
    return parts


def gfc1_10k(n: int = 10_000) -> str:
    """GFC1 with N sources in group A, each starting at 150/N Mb/s."""
    g = open(f"{ROOT}/abr-benchmarks/gfc1.toml").read()
    g = desc_replace(g, "scale/gfc1-10k", f"""GFC1 (abr-benchmarks/gfc1) with {n:,} sources in group A, each starting at 150/{n:,} = 0.015 \\
Mb/s: a large world for the engine's benchmarks (docs/benchmarks.md), not a seed's scenario. Group A's max-min \\
share of L1 (50 Mb/s, shared with the six D sources) is about 0.005 Mb/s. Series of ACR and received cells \\
(per source) are off and the others sampled every 10 ms: at this size they would take gigabytes.""")
    g = g.replace('icr = "25Mbps"', 'icr = "0.015Mbps"', 1)
    assert 'icr = "0.015Mbps"' in g
    g = g.replace('duration = "500ms"', 'duration = "300ms"')
    g = re.sub(r'\[measure\]\ninterval = "[^"]*"\n', MEASURE, g)
    g = g.replace('name = "A"\ncount = 3\n', f'name = "A"\ncount = {n}\n')
    assert f"count = {n}" in g and 'interval = "10ms"' in g
    return g


def parking_lot_32(s: int = 32, n: int = 1000) -> str:
    """parking-lot-5 extended to S switches, N VCs in S-1 groups entering at SW1..SW(S-1), all
    leaving at SWS."""
    p = open(f"{ROOT}/abr-benchmarks/parking-lot-5.toml").read()
    head = p[:p.index("[[switch]]")]
    head = desc_replace(head, f"scale/parking-lot-{s}", f"""A {s}-switch parking lot with {n:,} ABR VCs (ERICA) for the engine's benchmarks, not a seed's \\
scenario: seed 003's MAN parking lot (abr-benchmarks/parking-lot-5, 0.5 ms OC-3 links) extended to switches SW1..SW{s}, with {n:,} ABR VCs in {s - 1} groups entering at SW1..SW{s - 1} \\
and all leaving at SW{s}, each starting at 150/{n:,} = 0.15 Mb/s (docs/benchmarks.md). L{s - 1} is shared by all: 0.95 x 155.52 / {n:,} Mb/s each at max-min. \\
Series of ACR and received cells (per VC) are off and the others sampled every 10 ms.""")
    head = head.replace('icr = "25Mbps"', 'icr = "0.15Mbps"', 1)
    assert 'icr = "0.15Mbps"' in head
    head = head.replace('duration = "500ms"', 'duration = "300ms"')
    head = re.sub(r'\[measure\]\ninterval = "[^"]*"\n', MEASURE, head)
    assert 'interval = "10ms"' in head
    return "\n".join([head.rstrip() + "\n", *parking_lot_body(s, n)])


PRESETS = {"scale/gfc1-10k": gfc1_10k, "scale/parking-lot-32": parking_lot_32}


if __name__ == "__main__":
    for name, make in PRESETS.items():
        with open(f"{ROOT}/{name}.toml", "w") as f:
            f.write(make())
