"""Type stub of the native module built from crates/ccsim-py."""

from typing import Any

__version__: str

def schema() -> str: ...
def duration_s(text: str) -> float: ...
def rate_bps(text: str) -> float: ...
def resolve(
    text: str,
    format: str,
    overrides: list[tuple[str, str]] = ...,
    scheme: str | None = ...,
    seed: int | None = ...,
    tcp: str | None = ...,
) -> str: ...
def topology(
    text: str,
    format: str,
    overrides: list[tuple[str, str]] = ...,
    scheme: str | None = ...,
    seed: int | None = ...,
    tcp: str | None = ...,
) -> str:
    """The network the scenario builds, as JSON text, without running it (`ccsim.topology`)."""
    ...

class Simulation:
    def __init__(
        self,
        text: str,
        format: str,
        overrides: list[tuple[str, str]] = ...,
        scheme: str | None = ...,
        seed: int | None = ...,
        tcp: str | None = ...,
        series: str = ...,  # "memory", "streamed" or "none"
    ) -> None: ...
    @property
    def series_estimate_mb(self) -> tuple[float, int]:
        """The memory the whole run's series would take (MB) and `measure.max_series_mb`."""
        ...
    @property
    def series_rows(self) -> int: ...
    def take_series(self) -> dict[str, Any]:
        """The series recorded since the last call, taken out of the engine (as in `finish`)."""
        ...
    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def now_s(self) -> float: ...
    @property
    def events(self) -> int: ...
    @property
    def hops(self) -> int:
        """Cell- and packet-hops so far; settles the lazy state `run_until` leaves behind first."""
        ...
    @property
    def port_drops(self) -> int:
        """Units the ports refused so far; settles the lazy state first, as `hops` does."""
        ...
    @property
    def scenario_hash(self) -> str: ...
    @property
    def notices(self) -> list[str]: ...
    def resolved_json(self) -> str: ...
    def run_until(self, t_s: float) -> bool:
        """Runs to `t_s` (capped at the end), GIL released; True once done. Before the end, lazy
        state (sources, sinks, ports) is left for the next reader to settle (changes no result)."""
        ...
    def count_work(self) -> str | None:
        """Counts each logical process's events per window (`--parallel-report`), before the run;
        None, or why the world runs from one queue and has no windows to count."""
        ...
    def parallel_report(self) -> str:
        """The `parallel_report` object as JSON text once the run is complete (measures a barrier)."""
        ...
    def finish(self) -> dict[str, Any]:
        """The summary, `series` (binary columns per series) and, with a trace, `trace_columns`."""
        ...
