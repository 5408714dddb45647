"""Type stub of the native module built from crates/ccsim-py."""

from typing import Any

__version__: str

def schema() -> str: ...
def resolve(
    text: str,
    format: str,
    overrides: list[tuple[str, str]] = ...,
    scheme: str | None = ...,
    seed: int | None = ...,
    tcp: str | None = ...,
) -> str: ...

class Simulation:
    def __init__(
        self,
        text: str,
        format: str,
        overrides: list[tuple[str, str]] = ...,
        scheme: str | None = ...,
        seed: int | None = ...,
        tcp: str | None = ...,
    ) -> None: ...
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
    def scenario_hash(self) -> str: ...
    def resolved_json(self) -> str: ...
    def run_until(self, t_s: float) -> bool: ...
    def finish(self) -> dict[str, Any]: ...
