"""ccsim: a fast, faithful discrete-event simulator for congestion-control research on ATM and
TCP/IP networks.

    >>> import ccsim
    >>> r = ccsim.run("abr-benchmarks/two-sources", duration="50ms")
    >>> r.sources.select("name", "acr_mbps", "maxmin_mbps")      # doctest: +SKIP
"""

from . import plots
from ._core import __version__
from .api import resolve, run, schema
from .errors import CcsimError, InternalError, ScenarioError, SimulationError
from .presets import list_presets, preset_path, preset_text
from .result import Result
from .sweeps import sweep

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
]
