"""Presets: scenario files shipped inside the package, named ``<paper>/<scenario>``."""

from __future__ import annotations

from pathlib import Path

from .errors import ScenarioError

PAPERS = {
    "hgrcp": "seed 000: HG-RCP gateway rate control",
    "gfr": "seed 001: GFR minimum rate guarantees",
    "ficcrd": "seed 002: FICCRD edge-to-edge rate control",
    "abr-benchmarks": "seed 003: ERICA / ERICA+ / DEBRA benchmark suite",
    "ut-ct": "seed 004: Uniform Tracking vs Controlled Transfer",
}


def _root() -> Path:
    # The package is always installed as files (a wheel or an editable install), never zipped.
    return Path(__file__).parent / "presets"


def preset_names() -> list[str]:
    """Every preset name, sorted."""
    names = []
    root = _root()
    if not root.is_dir():
        return names
    for paper in root.iterdir():
        if not paper.is_dir() or paper.name.startswith(("_", ".")):
            continue
        for f in paper.iterdir():
            if f.name.endswith(".toml") and f.is_file():
                names.append(f"{paper.name}/{f.name[:-5]}")
    return sorted(names)


def _resource(name: str):
    if name.count("/") != 1:
        raise ScenarioError(_unknown(name))
    paper, scenario = name.split("/")
    f = _root() / paper / f"{scenario}.toml"
    if not f.is_file():
        raise ScenarioError(_unknown(name))
    return f


def _unknown(name: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, preset_names(), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `ccsim presets` lists them"
    return f"unknown preset '{name}'{hint}"


def is_preset(name: str) -> bool:
    return name in preset_names()


def preset_text(name: str) -> str:
    """The preset's TOML text (to copy and edit)."""
    return _resource(name).read_text(encoding="utf-8")


def preset_path(name: str) -> Path:
    """Path of the preset file inside the installed package."""
    return _resource(name)


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
