"""Reproductions of the seed papers' experiments: ``ccsim reproduce <paper>``.

Each paper has a module with ``PAPER`` (its name), ``TITLE`` and
``reproduce(out, quick=False, workers=None, progress=True) -> dict`` that runs the paper's presets,
writes ``compared.json`` (every compared number: theory, paper, ccsim, difference), figures and
an ``index.html`` report under ``out``, and returns a small summary dict. The published numbers
live in ``reproductions/data/<paper>.toml``, never in code.
"""

from __future__ import annotations

import importlib
from types import ModuleType

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


def default_out(name: str) -> str:
    return f"out/reproduce/{name}"


__all__ = ["names", "get", "default_out"]
