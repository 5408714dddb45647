"""``ccsim.run``: one scenario, one run, a ``Result``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from . import _core
from .errors import ScenarioError
from .presets import is_preset, preset_text
from .result import Result

Progress = Callable[[float, float], None]

# Keyword shortcuts for the most common overrides.
_SHORTCUTS = {"duration": "run.duration", "seed": "run.seed", "measure_from": "run.measure_from"}


def scenario_source(scenario: str | Path | Mapping[str, Any]) -> tuple[str, str, str]:
    """Resolves a preset name, a file path or a dict into (text, format, label)."""
    if isinstance(scenario, Mapping):
        try:
            return json.dumps(scenario), "json", str(scenario.get("name", "dict"))
        except TypeError as e:
            raise ScenarioError(f"the scenario dict cannot be converted to JSON: {e}") from None
    if isinstance(scenario, str) and is_preset(scenario):
        return preset_text(scenario), "toml", scenario
    path = Path(scenario)
    if path.is_file():
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return path.read_text(encoding="utf-8"), fmt, str(path)
    if isinstance(scenario, str) and not path.suffix and scenario.count("/") == 1:
        preset_text(scenario)  # raises ScenarioError with close matches
    raise ScenarioError(f"'{scenario}' is neither a preset name nor a readable scenario file")


def override_pairs(set: Mapping[str, Any] | None, overrides: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(path, JSON value) pairs: ``set={"a.b[0]": v}`` entries, then keyword overrides where
    ``__`` separates path parts (``run__measure_from="1ms"``)."""
    pairs: list[tuple[str, str]] = []
    for path, value in (set or {}).items():
        pairs.append((str(path), json.dumps(value)))
    for key, value in overrides.items():
        path = _SHORTCUTS.get(key, key.replace("__", "."))
        pairs.append((path, json.dumps(value)))
    return pairs


def run(
    scenario: str | Path | Mapping[str, Any],
    *,
    seed: int | None = None,
    scheme: str | None = None,
    set: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    chunks: int = 200,
    **overrides: Any,
) -> Result:
    """Runs a scenario and returns its ``Result``.

    ``scenario`` is a preset name (``"abr-benchmarks/gfc1"``), a TOML/JSON file, or a dict with
    the scenario structure. ``seed`` replaces ``run.seed``; ``scheme`` swaps the ABR switch
    algorithm at every switch (with the scenario's ``schemes.<name>`` settings); ``set`` and
    keyword overrides change any field by path. ``progress(now_s, duration_s)`` is called
    between chunks; Ctrl-C interrupts between chunks.
    """
    text, fmt, _label = scenario_source(scenario)
    pairs = override_pairs(set, overrides)
    started = time.perf_counter()
    sim = _core.Simulation(text, fmt, pairs, scheme, seed)
    duration = sim.duration_s
    step = duration / max(1, chunks)
    t = 0.0
    done = False
    while not done:
        t = min(duration, t + step)
        done = sim.run_until(duration if t >= duration else t)
        if progress is not None:
            progress(sim.now_s, duration)
    data = sim.finish()
    data["wall_s"] = time.perf_counter() - started
    data["ccsim_version"] = _core.__version__
    return Result(data, resolved_json=sim.resolved_json())


def resolve(
    scenario: str | Path | Mapping[str, Any],
    *,
    seed: int | None = None,
    scheme: str | None = None,
    set: Mapping[str, Any] | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """The validated scenario with every default filled in (raises ``ScenarioError``)."""
    text, fmt, _ = scenario_source(scenario)
    return json.loads(_core.resolve(text, fmt, override_pairs(set, overrides), scheme, seed))


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format."""
    return json.loads(_core.schema())


__all__ = ["run", "resolve", "schema", "scenario_source", "override_pairs"]
