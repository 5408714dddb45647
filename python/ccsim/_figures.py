"""What a run that will draw figures does before it runs, without loading the drawing libraries:
checks the figure formats, and starts their import.

Importing `plots` (matplotlib, polars, numpy) takes ~0.4 s. `ccsim run … --out` starts it on a
thread as the run begins: the engine runs with the GIL released, so on a second core the import
is done by the time the run ends instead of following it (docs/benchmarks.md, "Writing
results")."""

from __future__ import annotations

import importlib
import threading

#: The figure formats `plots.write_plots` can write.
FORMATS = ("png", "pdf", "svg")


def check_formats(formats, dpi=None) -> None:
    """``ScenarioError`` naming an unknown figure format, or a resolution (``dpi``, if given)
    `_figstyle.check_dpi` refuses."""
    from .errors import ScenarioError

    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ScenarioError(f"plot format: {', '.join(map(repr, bad)) or 'none given'} (use {', '.join(FORMATS)})")
    if dpi is not None:
        from ._figstyle import check_dpi

        check_dpi(dpi)


def preload_plots() -> threading.Thread:
    """Starts importing `ccsim.plots` on a thread, and returns it (the caller joins it before it
    exits, whatever happened). An import error is left for the import that uses the module to
    report."""

    def load() -> None:
        try:
            importlib.import_module("ccsim.plots")
        except Exception:  # noqa: BLE001 (reported by the real import)
            pass

    thread = threading.Thread(target=load, name="ccsim-preload-plots", daemon=True)
    thread.start()
    return thread
