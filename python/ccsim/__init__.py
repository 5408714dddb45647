"""ccsim: a fast, faithful discrete-event simulator for congestion-control research on ATM and
TCP/IP networks.

    >>> import ccsim
    >>> r = ccsim.run("abr-benchmarks/two-sources", duration="50ms")
    >>> r.sources.select("name", "acr_mbps", "maxmin_mbps")      # doctest: +SKIP
"""

from .errors import CcsimError, CcsimWarning, InternalError, ScenarioError, SimulationError

# Not `typing.TYPE_CHECKING`: importing `typing` (and the `re` it loads) is a third of the
# interpreter's own start, and `ccsim run --json` needs neither.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import plots
    from ._core import __version__
    from .api import resolve, run, schema
    from .presets import list_presets, preset_path, preset_text
    from .result import Result
    from .sweeps import sweep

# Everything else loads on first use: the compiled engine and the API (`run`, `Result`), plotting
# (matplotlib) and sweeps (dask). `ccsim --help` and the commands that do not simulate start
# without them, and `ccsim run --json` loads only what a run needs.
_LAZY = {
    "__version__": ("._core", "__version__"),
    "run": (".api", "run"),
    "resolve": (".api", "resolve"),
    "schema": (".api", "schema"),
    "Result": (".result", "Result"),
    "list_presets": (".presets", "list_presets"),
    "preset_path": (".presets", "preset_path"),
    "preset_text": (".presets", "preset_text"),
    "plots": (".plots", None),
    "sweep": (".sweeps", "sweep"),
}


def __getattr__(name: str):
    import importlib

    if name not in _LAZY:
        raise AttributeError(f"module 'ccsim' has no attribute {name!r}")
    module, attr = _LAZY[name]
    loaded = importlib.import_module(module, __name__)
    value = loaded if attr is None else getattr(loaded, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "__version__",
    "run",
    "sweep",
    "resolve",
    "schema",
    "Result",
    "plots",
    "list_presets",
    "preset_text",
    "preset_path",
    "CcsimError",
    "ScenarioError",
    "SimulationError",
    "InternalError",
    "CcsimWarning",
]
