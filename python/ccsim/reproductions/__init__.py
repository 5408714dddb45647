"""Reproductions of the seed papers' experiments: ``ccsim reproduce <paper>``.

Each paper has a module with ``PAPER`` (its name), ``TITLE`` and
``reproduce(out, quick=False, workers=None, progress=True) -> dict`` that runs the paper's presets,
writes ``compared.json`` (every compared number: theory, paper, ccsim, difference), figures and
an ``index.html`` report under ``out``, and returns a small summary dict. The published numbers
live in ``reproductions/data/<paper>.toml``, never in code.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from ..errors import ScenarioError

# name -> module (imported on demand: matplotlib and friends load only when needed)
_MODULES = {
    "abr-benchmarks": "ccsim.reproductions.abr_benchmarks",
    "ficcrd": "ccsim.reproductions.ficcrd",
    "gfr": "ccsim.reproductions.gfr",
    "hgrcp": "ccsim.reproductions.hgrcp",
    "ut-ct": "ccsim.reproductions.ut_ct",
}


def names() -> list[str]:
    """Every paper that can be reproduced."""
    return list(_MODULES)


def get(name: str) -> ModuleType:
    """The reproduction module of a paper (``ScenarioError`` naming the known ones otherwise)."""
    if name not in _MODULES:
        raise ScenarioError(f"unknown reproduction '{name}'; one of: {', '.join(names())}, all")
    return importlib.import_module(_MODULES[name])


#: Where `ccsim reproduce all` writes by default (one directory per paper, and the scorecard).
DEFAULT_ROOT = "out/reproduce"


def default_out(name: str) -> str:
    return f"{DEFAULT_ROOT}/{name}"


def reproduce_into(module: ModuleType, out: str | os.PathLike[str], **options: Any) -> dict[str, Any]:
    """Runs ``module.reproduce`` into a staging directory and moves the whole output in place of
    ``out`` at the end (docs/scenarios.md, "Output directories"): an interrupted or failed
    reproduction leaves the earlier one as it was, and a directory holding files ccsim did not
    write is refused, naming them. ``progress``: True (one bar over the whole reproduction, on a
    terminal only), False, or a `RunsProgress` to continue (`reproduce_all`)."""
    from pathlib import Path

    from .._outdir import writing
    from .._progress import RunsProgress

    progress = options.get("progress", True)
    own = progress is True
    if own:
        progress = RunsProgress(module.PAPER)
    elif isinstance(progress, RunsProgress):
        progress.relabel(module.PAPER)
    options["progress"] = progress
    try:
        with writing(out, "reproduce", {"paper": module.PAPER}) as tmp:
            summary = module.reproduce(tmp, **options)
            from .._networks import add_to_report

            add_to_report(tmp, module.PAPER)  # the presets' networks, drawn (`ccsim show`)
    finally:
        if own:
            progress.close()
    final = Path(out)
    summary.update(out=str(final), report=str(final / "index.html"))
    return summary


def reproduce_all(root: str | os.PathLike[str], **options: Any) -> tuple[dict[str, dict[str, Any]], Any]:
    """Every paper into ``root/<paper>``, then the scorecard over them (``root/index.html`` and
    ``index.md``, scorecard.py). Every directory is checked before the first run; ``root`` may
    hold other files (a single reproduction's directory, notes), but a scorecard ccsim did not
    write is never replaced. Returns the summaries by paper and the scorecard's path."""
    import json
    import time
    from pathlib import Path

    from .._outdir import MARKER, OutputRefused, check, marker
    from .._progress import RunsProgress
    from . import scorecard

    root = Path(root)
    mark = marker(root) if root.is_dir() else None
    if not (mark and mark.get("paper") == "all"):
        taken = [f for f in ("index.html", "index.md") if (root / f).exists()]
        if taken:
            raise OutputRefused(f"--out {root} holds {', '.join(taken)}, which ccsim did not write; the scorecard would "
                              f"replace it: move it away or choose another --out")
    targets = {n: root / n for n in names()}
    for target in targets.values():
        check(target, "reproduce")
    started = time.perf_counter()
    progress = options.pop("progress", True)
    shared = RunsProgress("all") if progress is True else progress  # one bar over every paper
    try:
        summaries = {n: reproduce_into(get(n), target, progress=shared, **options) for n, target in targets.items()}
    finally:
        if progress is True:
            shared.close()
    page = scorecard.write(root, summaries, {n: get(n).TITLE for n in targets}, time.perf_counter() - started)
    files = sorted([*targets, "index.html", "index.md"])
    (root / MARKER).write_text(json.dumps({"kind": "reproduce", "files": files, "paper": "all"}) + "\n")
    return summaries, page


__all__ = ["names", "get", "default_out", "reproduce_into", "reproduce_all", "DEFAULT_ROOT"]
