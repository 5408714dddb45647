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
    import difflib

    close = difflib.get_close_matches(name, preset_names(), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `ccsim presets` lists them"
    return f"unknown preset '{name}'{hint}"


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


__all__ = ["list_presets", "preset_names", "preset_text", "preset_path", "preset_description", "is_preset", "PAPERS"]
