"""``ccsim.run``: one scenario, one run, a ``Result``."""

from __future__ import annotations

import os
import time
import warnings

from . import _core
from ._version import commit
from .errors import CcsimWarning, ScenarioError, shown
from .presets import is_preset, preset_text

# `ccsim run --json` (`summary_json`) loads neither `typing`, `pathlib`, `collections.abc` nor
# `json` (and so not the `re` they import): together ~10 ms, as long as the interpreter's own
# start. They are imported where a path needs them.
TYPE_CHECKING = False  # not `typing`'s: see ccsim/__init__.py
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

    from .result import Result

    Progress = Callable[[float, float], None]

# Keyword shortcuts for the most common overrides.
_SHORTCUTS = {"duration": "run.duration", "seed": "run.seed", "measure_from": "run.measure_from"}


def scenario_source(scenario: str | Path | Mapping[str, Any]) -> tuple[str, str, str]:
    """Resolves a preset name, a file path, ``-`` (standard input: JSON if it starts with ``{``,
    otherwise TOML) or a dict into (text, format, label)."""
    if not isinstance(scenario, (str, os.PathLike)):
        from collections.abc import Mapping

        if not isinstance(scenario, Mapping):
            raise ScenarioError(f"scenario: a preset name, a file path or a dict, not {type(scenario).__name__} {scenario!r}")
        return _to_json("", scenario), "json", str(scenario.get("name", "dict"))
    if isinstance(scenario, str) and scenario == "-":
        import sys

        text = scenario_text(sys.stdin.buffer.read(), "standard input")
        return text, "json" if text.lstrip().startswith("{") else "toml", "stdin"
    if isinstance(scenario, str) and is_preset(scenario):
        return preset_text(scenario), "toml", scenario
    path = os.fspath(scenario)
    suffix = os.path.splitext(path)[1]
    if os.path.isfile(path):
        fmt = "json" if suffix.lower() == ".json" else "toml"
        with open(path, "rb") as f:
            return scenario_text(f.read(), path), fmt, str(path)
    if isinstance(scenario, str) and not suffix and scenario.count("/") == 1:
        preset_text(scenario)  # raises ScenarioError with close matches
    if isinstance(scenario, str) and not suffix and "/" not in scenario:
        # A bare scenario name: the presets of that name in every paper.
        from .presets import preset_names

        same = [n for n in preset_names() if n.split("/")[1] == scenario]
        if same:
            raise ScenarioError(f"'{scenario}' is not a preset name; did you mean {', '.join(same)}?")
    raise ScenarioError(f"'{scenario}' is neither a preset name nor a readable scenario file")


def _not_json(value: Any, path: str) -> str | None:
    """Path of the first value in ``value`` that JSON cannot carry (NaN, an object, ...), with
    what is wrong with it."""
    from collections.abc import Mapping

    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"{shown(path)}: must be a finite number, got {value}"
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                return shown(f"{path}.{k!r}" if path else repr(k)) + ": " + _NOT_JSON
            bad = _not_json(v, f"{path}.{k}" if path else k)
            if bad is not None:
                return bad
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = _not_json(v, f"{path}[{i}]")
            if bad is not None:
                return bad
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return None
    return f"{shown(path or 'scenario')}: {_NOT_JSON}"


_NOT_JSON = "not a JSON value (use strings with units, numbers, booleans, lists and tables)"


def scenario_text(data: bytes, where: str) -> str:
    """The text of a scenario read as bytes (a file, standard input); ``ScenarioError`` naming
    ``where`` for binary data or text that is not UTF-8."""
    if b"\0" in data:
        raise ScenarioError(f"{where}: binary data, not a scenario (UTF-8 TOML or JSON text; a NUL byte at byte "
                            f"{data.index(0)})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def _to_json(path: str, value: Any) -> str:
    """JSON text of a scenario or override value; ``ScenarioError`` naming the field otherwise."""
    import json

    try:
        return json.dumps(value, allow_nan=False, default=_plain)
    except RecursionError:
        raise ScenarioError(f"{shown(path or 'scenario')}: nested too deeply to be a scenario") from None
    except (TypeError, ValueError):
        raise ScenarioError(_not_json(value, path) or f"{shown(path or 'scenario')}: {_NOT_JSON}") from None


def _plain(value: Any) -> Any:
    """numpy scalars (and anything else with `.item()`) as the Python number they hold."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        return item()
    raise TypeError(type(value).__name__)


def _check_names(**names: Any) -> None:
    """`scheme`, `tcp`: a name (string) or None."""
    for key, value in names.items():
        if value is not None and not isinstance(value, str):
            raise ScenarioError(f"{key}: must be a name (a string), got {type(value).__name__} {value!r}")


def _check_seed(seed: Any) -> int | None:
    """The seed as a Python integer (numpy integers accepted), or None."""
    if seed is None:
        return None
    if getattr(seed, "shape", None) == () and hasattr(seed, "item"):
        seed = seed.item()
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ScenarioError(f"seed: must be an integer in [0, 2^64), got {seed!r}")
    return seed


def override_pairs(set: Mapping[str, Any] | None, overrides: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(path, JSON value) pairs: ``set={"a.b[0]": v}`` entries, then keyword overrides where
    ``__`` separates path parts (``run__measure_from="1ms"``)."""
    pairs: list[tuple[str, str]] = []
    for path, value in (set or {}).items():
        pairs.append((str(path), _to_json(str(path), value)))
    for key, value in overrides.items():
        path = _SHORTCUTS.get(key, key.replace("__", "."))
        pairs.append((path, _to_json(path, value)))
    return pairs


#: The environment variable that gives `run.threads` when a call does not (docs/scenarios.md, "Threads").
THREADS_ENV = "CCSIM_THREADS"


def thread_pairs(threads: int | str | None) -> list[tuple[str, str]]:
    """`run(threads=...)` as the override of `run.threads`. None: the environment's
    ``CCSIM_THREADS`` if set (process pools set it to 1 in their workers, `one_thread_each`), else
    as the scenario says."""
    if threads is None:
        threads = os.environ.get(THREADS_ENV) or None
        if threads is not None and threads.strip().isdigit():
            threads = int(threads)
    return [] if threads is None else [("run.threads", _to_json("run.threads", threads))]


def one_thread_each() -> None:
    """A process pool's worker runs its simulations on one thread each (``CCSIM_THREADS``, unless
    the user set it): the pool's workers already fill the cores, and workers × threads stays within
    them. Local sweeps, a Dask LocalCluster and the reproductions call it as each worker starts."""
    os.environ.setdefault(THREADS_ENV, "1")


def trace_pairs(trace: bool | Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """`run(trace=...)` as overrides of `measure.trace` (None: as the scenario says)."""
    if trace is None:
        return []
    if isinstance(trace, bool):
        return [("measure.trace.enabled", _to_json("measure.trace.enabled", trace))]
    from collections.abc import Mapping

    if not isinstance(trace, Mapping):
        raise ScenarioError(f"trace: True, False or a table of measure.trace settings, not {type(trace).__name__} {trace!r}")
    pairs = [("measure.trace.enabled", "true")]
    for key, value in trace.items():
        path = f"measure.trace.{key}"
        pairs.append((path, _to_json(path, value)))
    return pairs


def run(
    scenario: str | Path | Mapping[str, Any],
    *,
    seed: int | None = None,
    scheme: str | None = None,
    tcp: str | None = None,
    set: Mapping[str, Any] | None = None,
    progress: bool | Progress = False,
    chunks: int | None = None,
    trace: bool | Mapping[str, Any] | None = None,
    stream_series: str | Path | None = None,
    _stream_above_mb: float | None = None,
    series: bool = True,
    parallel_report: bool = False,
    threads: int | str | None = None,
    **overrides: Any,
) -> Result:
    """Runs a scenario and returns its ``Result``.

    ``scenario`` is a preset name (``"abr-benchmarks/gfc1"``), a TOML/JSON file, or a dict with
    the scenario structure. ``seed`` replaces ``run.seed``; ``scheme`` swaps the ABR switch
    algorithm at every switch (with the scenario's ``schemes.<name>`` settings); ``tcp`` swaps
    the TCP variant of every connection (jacobson88, tahoe, reno, newreno, sack); ``set`` and
    keyword overrides change any field by path. ``progress=True`` shows a progress bar on
    stderr once a run has taken a second; a callable ``progress(now_s, duration_s)`` is called
    between chunks instead. Ctrl-C interrupts between chunks. ``chunks=N`` cuts the run in at
    least N (default: 200 for a progress callback or streamed series, else as few as keep each
    chunk under ~0.1 s of wall time); results do not depend on it. ``trace=True`` records the
    per-cell/packet event trace (``Result.trace``; docs/trace.md), a dict such as
    ``{"flows": ["S1"], "from": "10ms", "to": "20ms", "max_mb": 100}`` records it with those
    ``measure.trace`` settings, ``False`` turns off one the scenario asks for.
    ``stream_series=DIR`` writes the time series to Parquet parts under DIR as the run goes, so
    its memory stays flat however long it runs (``measure.max_series_mb`` then does not apply);
    the ``Result``'s series tables read from there (docs/scenarios.md, "Long runs").
    ``_stream_above_mb`` (``ccsim run --out``): stream only series that would take more memory than
    this or than ``measure.max_series_mb``. ``series=False`` records no time series (the summary
    and every other number are the same; reading a series table then raises): what
    ``ccsim run --json`` does, faster and in less memory. ``parallel_report=True`` counts each
    logical process's events per window and adds the summary's ``parallel_report``: the speed-up
    the run's partition would give on 2 to 64 threads (docs/benchmarks.md, "Scaling on paper"),
    or why the world runs from one queue; counting changes no other number. ``threads`` sets
    ``run.threads``: ``"auto"`` (the default: the cores available, as many as the world can use, 1
    where it cannot gain) or a count; the results are identical for every count, only the wall
    time differs (``Result.threads`` says how many ran; docs/scenarios.md, "Threads").
    """
    if not series and stream_series is not None:
        raise ValueError("stream_series needs series=True")
    started = time.perf_counter()
    source = scenario_source(scenario)
    pairs = override_pairs(set, overrides) + trace_pairs(trace) + thread_pairs(threads)
    kept = "none" if not series else "memory" if stream_series is None else "streamed"
    sim, writer, notices = _simulate(source, pairs, seed, scheme, tcp, kept, progress, chunks, stream_series,
                                     _stream_above_mb, count_work=parallel_report)
    data = sim.finish()
    if parallel_report:
        import json

        data["parallel_report"] = json.loads(sim.parallel_report())
    _warn_if_trace_cut(data.get("trace"))
    # Loaded here, not with the module: `summary_json` (`ccsim run --json`) needs neither (~7 ms).
    from ._lazy import LazySeries, NoSeries
    from .result import Result

    if writer is not None:
        from ._streamed import StreamedSeries

        writer.write(data["series"])
        data["series"] = StreamedSeries(writer.folder, list(data["series"]))
    elif not series:
        data["series"] = NoSeries()
    else:
        data["series"] = LazySeries(data["series"])
    data.update(_metadata(started, notices))
    result = Result(data, resolved_json=sim.resolved_json())
    result.threads = sim.threads
    return result


def summary_json(
    scenario: str | Path | Mapping[str, Any],
    *,
    seed: int | None = None,
    scheme: str | None = None,
    tcp: str | None = None,
    set: Mapping[str, Any] | None = None,
    threads: int | str | None = None,
) -> str:
    """What ``ccsim run SCENARIO --json`` prints: the summary of ``run(..., series=False)`` (the
    same keys and values as ``Result.summary()``) as one line of JSON text. The engine writes the
    text and it is never turned into Python objects: at 100,000 sources those took more memory
    than the run's own text, and the world they were built from was still alive."""
    started = time.perf_counter()
    source = scenario_source(scenario)
    pairs = override_pairs(set, {}) + thread_pairs(threads)
    sim, _writer, notices = _simulate(source, pairs, seed, scheme, tcp, "none", False, None)
    text = sim.summary_text().rstrip()
    trace = sim.trace_summary
    del sim  # the world's memory goes before the text grows
    if trace is not None:
        import json

        _warn_if_trace_cut(json.loads(trace))
    tail = _metadata_json(_metadata(started, notices))
    if not (text.startswith("{") and text.endswith("}") and len(text) > 2):
        raise AssertionError(f"the engine's summary is not a JSON object: {text[:80]!r}")
    return f"{text[:-1]}, {tail[1:]}"


def _simulate(source: tuple[str, str, str], pairs: list[tuple[str, str]], seed: int | None,
              scheme: str | None, tcp: str | None, kept: str, progress: bool | Progress, chunks: int | None,
              stream_series: str | Path | None = None, stream_above_mb: float | None = None,
              count_work: bool = False):
    """Builds the scenario's simulation and runs it to its end: ``run``'s work before the
    result. ``source`` is ``scenario_source``'s answer, ``kept`` the engine's series mode
    ("memory", "streamed", "none"). Returns the simulation, the series writer (streamed series
    only) and the notices (also warned). ``count_work``: count the work per logical process and
    window (``parallel_report``)."""
    text, fmt, _label = source
    seed = _check_seed(seed)
    _check_names(scheme=scheme, tcp=tcp)
    sim = _core.Simulation(text, fmt, pairs, scheme, seed, tcp, series=kept)
    if count_work:
        sim.count_work()
    writer = None
    if stream_series is not None:
        estimate, limit = sim.series_estimate_mb
        if stream_above_mb is None or estimate > min(stream_above_mb, limit):
            from pathlib import Path

            from ._streamed import SeriesWriter

            writer = SeriesWriter(Path(stream_series))
    notices = sim.notices
    for notice in notices:
        warnings.warn(notice, CcsimWarning, stacklevel=3)
    duration = sim.duration_s
    bar = None
    if progress is True:
        from ._progress import ProgressBar

        progress = bar = ProgressBar()
    try:
        if chunks is None:
            # Chunk ends cut the engine's windows (at 10,000 sources, 200 of them took a fifth of a
            # run): only a reader between chunks needs more than Ctrl-C's wall-time bound (a
            # progress bar's updates are as frequent as it needs).
            reader = writer is not None or (callable(progress) and not getattr(progress, "wall_paced", False))
            chunks = DEFAULT_CHUNKS if reader else 1
        for t in _chunk_ends(duration, chunks):
            done = sim.run_until(t)
            if writer is not None and sim.series_rows >= writer.flush_rows:
                writer.write(sim.take_series())
            if callable(progress):
                progress(sim.now_s, duration)
            if done:
                break
    finally:
        if bar is not None:
            bar.close()
    return sim, writer, notices


def _warn_if_trace_cut(trace: Mapping[str, Any] | None) -> None:
    """The warning for a trace that reached its memory limit (the result's ``trace`` entry)."""
    cut = (trace or {}).get("cut_s")
    if cut is not None:
        warnings.warn(
            f"the trace reached measure.trace.max_mb after {trace['events']:,} events and stopped: it holds "
            f"every event before {cut:g} s; raise max_mb, or trace fewer flows or a shorter time (flows, from, to)",
            CcsimWarning, stacklevel=3)


def _metadata(started: float, notices: list[str]) -> dict[str, Any]:
    """What the Python side adds to the engine's result: wall time, version, commit, notices."""
    return {"wall_s": time.perf_counter() - started, "ccsim_version": _core.__version__, "ccsim_commit": commit(),
            "notices": notices}


def _metadata_json(meta: dict[str, Any]) -> str:
    """`_metadata`'s dict as JSON text, as `json.dumps` writes it. Numbers, None and plain ASCII
    strings are written here; anything else (a notice with a quote in it, say) goes to `json`,
    which `ccsim run --json` otherwise never loads."""
    def plain(v: Any) -> str | None:
        if v is None:
            return "null"
        if isinstance(v, float) and v == v and abs(v) != float("inf"):
            return repr(v)
        if isinstance(v, str) and v.isascii() and v.isprintable() and '"' not in v and "\\" not in v:
            return f'"{v}"'
        if isinstance(v, list):
            items = [plain(x) for x in v]
            return None if None in items else f"[{', '.join(items)}]"  # type: ignore[arg-type]
        return None

    parts = [(k, plain(v)) for k, v in meta.items()]
    if any(text is None for _, text in parts):
        import json

        return json.dumps(meta)
    return "{" + ", ".join(f'"{k}": {text}' for k, text in parts) + "}"


#: `ccsim run --out` streams the series to Parquet when they would take more memory than this (MB).
STREAM_ABOVE_MB = 256.0

#: Wall time a chunk of a run may take: Ctrl-C (and progress) are handled between chunks.
CHUNK_WALL_S = 0.1

#: Chunks of a run whose progress goes to a callback or whose series are streamed (at least).
DEFAULT_CHUNKS = 200


def _chunk_ends(duration: float, chunks: int):
    """Simulated times to run to, one chunk each: at most `chunks` of equal length, and shorter
    when a chunk would take more than `CHUNK_WALL_S` of wall time (the length adapts to the
    speed measured so far), so that an interrupt waits a fraction of a second however long the
    run. Chunk boundaries do not change results."""
    longest = duration / max(1, chunks)
    step = min(longest, 1e-3)
    t = 0.0
    while t < duration:
        started = time.perf_counter()
        t = min(duration, t + step)
        yield duration if t >= duration else t
        took = time.perf_counter() - started
        # Aim at half the budget; grow at most fourfold per chunk.
        step = min(longest, 4 * step, step * 0.5 * CHUNK_WALL_S / took if took > 0 else 4 * step)


def resolve(
    scenario: str | Path | Mapping[str, Any],
    *,
    seed: int | None = None,
    scheme: str | None = None,
    tcp: str | None = None,
    set: Mapping[str, Any] | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """The validated scenario with every default filled in (raises ``ScenarioError``)."""
    text, fmt, _ = scenario_source(scenario)
    pairs = override_pairs(set, overrides)
    seed = _check_seed(seed)
    _check_names(scheme=scheme, tcp=tcp)
    import json

    return json.loads(_core.resolve(text, fmt, pairs, scheme, seed, tcp))


def schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format."""
    import json

    return json.loads(_core.schema())


__all__ = ["run", "resolve", "schema", "scenario_source", "override_pairs", "trace_pairs"]
