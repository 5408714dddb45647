"""ccsim: a fast, faithful discrete-event simulator for congestion-control research on ATM and
TCP/IP networks.

    >>> import ccsim
    >>> r = ccsim.run("abr-benchmarks/two-sources", duration="50ms")
    >>> r.sources.select("name", "acr_mbps", "maxmin_mbps")      # doctest: +SKIP
"""

from ._core import __version__
from .api import resolve, run, schema
from .errors import CcsimError, CcsimWarning, InternalError, ScenarioError, SimulationError
from .presets import list_presets, preset_path, preset_text
from .result import Result


def __getattr__(name: str):
    # Plotting (matplotlib) and sweeps (dask) load on first use: `ccsim run --json` and
    # scripts that only run stay quick to start.
    import importlib

    if name == "plots":
        return importlib.import_module(f"{__name__}.plots")
    if name == "sweep":
        return importlib.import_module(f"{__name__}.sweeps").sweep
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")

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
