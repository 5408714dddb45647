"""`ccsim reproduce all`'s scorecard: one page over every seed (``DIR/index.html``) and the same
as Markdown (``DIR/index.md``, the table docs/reproductions/index.md keeps from the last full run):
each seed's headline under the one verdict model (verdicts.py), the counted rows that differ with
their notes, and where the reproduction's reconstructions are documented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import verdicts

# The seed each reproduction comes from, in the order of the seeds.
SEEDS = {"hgrcp": "000 (HG-RCP)", "gfr": "001 (GFR)", "ficcrd": "002 (FICCRD)", "abr-benchmarks": "003 (ERICA, ERICA+, DEBRA)",
         "ut-ct": "004 (UT vs CT)"}


def _differing(out: Path) -> list[dict[str, Any]]:
    rows = json.loads((out / "compared.json").read_text(encoding="utf-8"))
    return [r for r in rows if r["counted"] and r["verdict"] == "differs"]


def write(out_dir: str | Path, summaries: dict[str, dict[str, Any]], titles: dict[str, str], wall_s: float) -> Path:
    """Writes ``index.html`` and ``index.md`` into ``out_dir`` (the parent of every reproduction's
    directory) and returns the HTML page's path."""
    from .._html import Markup, render

    out = Path(out_dir)
    quick = any(s["quick"] for s in summaries.values())
    seeds = []
    for paper, s in sorted(summaries.items(), key=lambda kv: list(SEEDS).index(kv[0]) if kv[0] in SEEDS else 99):
        differ = _differing(Path(s["out"]))
        seeds.append({"paper": paper, "seed": SEEDS.get(paper, paper), "title": titles.get(paper, paper),
                      "headline": s["headline"], "agree": s["agree"], "counted": s["counted"],
                      "statements_hold": s["statements_hold"], "statements": s["statements"],
                      "not_comparable": s["not_comparable"], "runs": s["runs"], "wall": f"{s['wall_s']:.0f} s",
                      "doc": f"docs/reproductions/{paper}.md", "rows": differ,
                      "differ": Markup(verdicts.html_rows(differ)) if differ else ""})
    intro = ((verdicts.QUICK_WARNING + " " if quick else "")
             + f"Every seed reproduced in one run ({'quick' if quick else 'full'}), {wall_s:.0f} s on this machine. A row "
             "is counted only with a tolerance stated for it, and a statement only where it is checked at the seed's own "
             "magnitude; the seed's own arithmetic and the presets' inputs are listed apart in each report.")
    page = out / "index.html"
    page.write_text(render("scorecard.html.j2", title="ccsim: every seed reproduced", intro=intro, seeds=seeds),
                    encoding="utf-8")
    (out / "index.md").write_text(markdown(seeds, intro), encoding="utf-8")
    return page


def markdown(seeds: list[dict[str, Any]], intro: str) -> str:
    lines = [intro, "", "| seed | reproduction | simulated quantities agreeing | statements holding | not comparable | runs | wall time |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {s['seed']} | {s['paper']} | {s['agree']} of {s['counted']} | {s['statements_hold']} of {s['statements']} | "
              f"{s['not_comparable']} | {s['runs']} | {s['wall']} |" for s in seeds]
    for s in seeds:
        lines += ["", f"### {s['title']}", "", s["headline"] + f". The reconstructions: {s['doc']}.", ""]
        if not s["rows"]:
            lines.append("No counted row differs.")
            continue
        lines += ["| quantity | paper | ccsim | tolerance | note |", "|---|---|---|---|---|"]
        for r in s["rows"]:
            paper = "–".join(f"{p:g}" for p in r["paper"]) if isinstance(r["paper"], list) else r["paper"]
            cell = [r["quantity"], "" if paper is None else str(paper), str(r["ccsim"]),
                    verdicts.tolerance_text(r["tolerance"]), r["note"] or ""]
            lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cell) + " |")
    return "\n".join(lines) + "\n"


__all__ = ["write", "markdown", "SEEDS"]
