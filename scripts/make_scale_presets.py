#!/usr/bin/env python3
# Generates python/ccsim/presets/scale/*.toml (issue 40's scale presets) from GFC1 and parking-lot-5.
import re, sys
import os

root = os.path.join(os.path.dirname(__file__), "..", "python", "ccsim", "presets")
MEASURE = '[measure]\ninterval = "10ms"\nacr = false\nreceived = false\n'

def desc_replace(text, name, desc):
    text = re.sub(r'name = "[^"]*"', f'name = "{name}"', text, count=1)
    d0 = text.index('description = """'); d1 = text.index('"""', d0 + 17) + 3
    return text[:d0] + f'description = """{desc}"""' + text[d1:]

# GFC1 with 10,000 sources in group A, each starting at 150/N Mb/s.
n = 10_000
g = open(f"{root}/abr-benchmarks/gfc1.toml").read()
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
open(f"{root}/scale/gfc1-10k.toml", "w").write(g)

# parking-lot-5 extended to 32 switches, 1,000 VCs in 31 groups entering at SW1..SW31, all leaving at SW32.
s, n = 32, 1000
p = open(f"{root}/abr-benchmarks/parking-lot-5.toml").read()
head = p[:p.index("[[switch]]")]
head = desc_replace(head, "scale/parking-lot-32", f"""A {s}-switch parking lot with {n:,} ABR VCs (ERICA) for the engine's benchmarks, not a seed's \\
scenario: seed 003's MAN parking lot (abr-benchmarks/parking-lot-5, 0.5 ms OC-3 links) extended to switches SW1..SW{s}, with {n:,} ABR VCs in {s - 1} groups entering at SW1..SW{s - 1} \\
and all leaving at SW{s}, each starting at 150/{n:,} = 0.15 Mb/s (docs/benchmarks.md). L{s - 1} is shared by all: 0.95 x 155.52 / {n:,} Mb/s each at max-min. \\
Series of ACR and received cells (per VC) are off and the others sampled every 10 ms.""")
head = head.replace('icr = "25Mbps"', 'icr = "0.15Mbps"', 1)
assert 'icr = "0.15Mbps"' in head
head = head.replace('duration = "500ms"', 'duration = "300ms"')
head = re.sub(r'\[measure\]\ninterval = "[^"]*"\n', MEASURE, head)
assert 'interval = "10ms"' in head
parts = [head.rstrip() + "\n"]
parts += [f'[[switch]]\nname = "SW{k}"\n' for k in range(1, s + 1)]
parts += [f'[[link]]\nname = "L{k}"\nbetween = ["SW{k}", "SW{k + 1}"]\n' for k in range(1, s)]
groups = s - 1
for i in range(groups):
    count = n // groups + (i < n % groups)
    route = ", ".join(f'"SW{k}"' for k in range(i + 1, s + 1))
    parts.append(f'[[source]]\nname = "G{i + 1:02d}v"\ncount = {count}\nroute = [{route}]\n')
open(f"{root}/scale/parking-lot-{s}.toml", "w").write("\n".join(parts))
