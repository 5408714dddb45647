"""Presets: scenario files shipped inside the package, named ``<paper>/<scenario>``."""

from __future__ import annotations

import os

from .errors import ScenarioError

TYPE_CHECKING = False  # not `typing`'s: see ccsim/__init__.py
if TYPE_CHECKING:
    from pathlib import Path

PAPERS = {
    "hgrcp": "seed 000: HG-RCP gateway rate control",
    "gfr": "seed 001: GFR minimum rate guarantees",
    "ficcrd": "seed 002: FICCRD edge-to-edge rate control",
    "abr-benchmarks": "seed 003: ERICA / ERICA+ / DEBRA benchmark suite",
    "ut-ct": "seed 004: Uniform Tracking vs Controlled Transfer",
}

# Preset families that belong to no seed paper.
FAMILIES = {
    "scale": "large worlds for the engine's benchmarks (docs/benchmarks.md)",
}

# The package is always installed as files (a wheel or an editable install), never zipped. Paths
# are `os.path` strings: `ccsim run --json` resolves its preset here without loading `pathlib`.
_ROOT = os.path.join(os.path.dirname(__file__), "presets")


def preset_names() -> list[str]:
    """Every preset name, sorted."""
    names = []
    if not os.path.isdir(_ROOT):
        return names
    for paper in os.scandir(_ROOT):
        if not paper.is_dir() or paper.name.startswith(("_", ".")):
            continue
        for f in os.scandir(paper.path):
            if f.name.endswith(".toml") and f.is_file():
                names.append(f"{paper.name}/{f.name[:-5]}")
    return sorted(names)


def _file(name: str) -> str | None:
    """The preset's file, if `name` is one (what `preset_names` would list)."""
    if name.count("/") != 1:
        return None
    paper, scenario = name.split("/")
    f = os.path.join(_ROOT, paper, f"{scenario}.toml")
    return f if not paper.startswith(("_", ".")) and os.path.isfile(f) else None


def _resource(name: str) -> str:
    f = _file(name)
    if f is None:
        raise ScenarioError(_unknown(name))
    return f


def _unknown(name: str) -> str:
    close = near_names(name)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `ccsim presets` lists them"
    return f"unknown preset '{name}'{hint}"


def near_names(name: str, n: int = 3) -> list[str]:
    """Up to ``n`` preset names close to ``name`` (difflib): first those whose scenario part is
    ``name``'s (``gfc1`` → ``abr-benchmarks/gfc1``), then close scenario parts (``two-source``), then
    close full names (``abr/gfc1``)."""
    import difflib

    names = preset_names()
    part = name.rsplit("/", 1)[-1]
    by_part: dict[str, list[str]] = {}
    for full in names:
        by_part.setdefault(full.split("/", 1)[1], []).append(full)
    found = list(by_part.get(part, []))
    for close in difflib.get_close_matches(part, list(by_part), n=n, cutoff=0.75):
        found += by_part[close]
    found += difflib.get_close_matches(name, names, n=n, cutoff=0.4)
    return list(dict.fromkeys(found))[:n]


def is_preset(name: str) -> bool:
    return _file(name) is not None


def preset_text(name: str) -> str:
    """The preset's TOML text (to copy and edit)."""
    with open(_resource(name), encoding="utf-8") as f:
        return f.read()


def preset_path(name: str) -> Path:
    """Path of the preset file inside the installed package."""
    from pathlib import Path

    return Path(_resource(name))


def preset_description(name: str) -> str:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    return " ".join(str(tomllib.loads(preset_text(name)).get("description", "")).split())


def list_presets() -> list[tuple[str, str]]:
    """Every preset as (name, description)."""
    return [(n, preset_description(n)) for n in preset_names()]


def seed_of(name: str) -> str:
    """The number of the seed paper a preset belongs to (``"003"``), or ``"?"``."""
    paper = PAPERS.get(name.split("/", 1)[0], "")
    return paper[5:8] if paper.startswith("seed ") else "?"


def origin(name: str) -> str:
    """Where a preset comes from, as `ccsim presets` lists it: its seed paper (``"seed 003"``) or,
    for a family of no seed, the family (``"scale"``)."""
    family = name.split("/", 1)[0]
    return family if family in FAMILIES else f"seed {seed_of(name)}"


def purpose(description: str) -> str:
    """A preset's purpose in one sentence: its description's first, without the leading "Seed NNN"
    that `seed_of` already gives (``§4.3: ATM Forum Generic Fairness Configuration 1 …``)."""
    import re

    # "Seed 002 (FICCRD), the first try: …" → "The first try: …"
    text = re.sub(r"^seed \d+\s*(\([^)]*\))?[\s,]*", "", description, flags=re.IGNORECASE)
    # The docs pages a description cites are for reading it in full (`ccsim presets --long`).
    text = re.sub(r"(;\s*)?docs/[\w/.-]+\.md(;\s*)?", lambda m: "; " if m.group(1) and m.group(2) else "", text)
    text = re.sub(r"\s*\(\s*\)", "", text)
    first = re.split(r"(?<=[.;])\s+(?=[A-Z])", text, maxsplit=1)[0]
    return first[:1].upper() + first[1:]


def matching(pattern: str | None) -> list[str]:
    """Preset names that ``pattern`` selects (all for None): a glob (``*``, ``?``, ``[...]``) on the
    whole name or on its scenario part, else a substring of the name; case is ignored."""
    import fnmatch

    names = preset_names()
    if not pattern:
        return names
    p = pattern.lower()
    if any(c in p for c in "*?["):
        return [n for n in names if fnmatch.fnmatchcase(n, p) or fnmatch.fnmatchcase(n.split("/", 1)[1], p)]
    return [n for n in names if p in n.lower()]


__all__ = ["list_presets", "preset_names", "preset_text", "preset_path", "preset_description", "is_preset", "PAPERS",
           "FAMILIES", "near_names", "seed_of", "origin", "purpose", "matching"]
