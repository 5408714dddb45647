"""Heavy modules loaded on first use: `ccsim run --json`, `presets`, `validate` and `schema` never
import polars or numpy (docs/benchmarks.md, the command path)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any


class LazyModule:
    """Stands for a module until an attribute is read; then imports it and takes its place in
    the namespace that holds it (`namespace[alias]`)."""

    def __init__(self, name: str, namespace: dict[str, Any], alias: str):
        self._name, self._namespace, self._alias = name, namespace, alias

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module
        return getattr(module, attr)


class LazySeries(Mapping):
    """The engine's binary series columns, each turned into arrays (`{"time_s", <key field>,
    <value field>}`, the key column holding each row's name) when first read."""

    def __init__(self, raw: Mapping[str, Any]):
        self._raw = raw
        self._done: dict[str, dict[str, Any]] = {}

    def __getitem__(self, name: str) -> dict[str, Any]:
        if name not in self._done:
            self._done[name] = _columns(self._raw[name])
        return self._done[name]

    def codes(self, name: str) -> tuple[Any, list[str]]:
        """Series `name`'s key column as codes into its list of names (no string per row)."""
        import numpy as np

        c = self._raw[name]
        return np.frombuffer(c["key"], dtype="<u4"), list(c["names"])

    def numbers(self, name: str) -> tuple[Any, Any]:
        """Series `name`'s time and value columns (views of the engine's bytes, no copy)."""
        import numpy as np

        c = self._raw[name]
        return np.frombuffer(c["time_s"], dtype="<f8"), np.frombuffer(c["value"], dtype="<f8")

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def _columns(c: Mapping[str, Any]) -> dict[str, Any]:
    import numpy as np

    keys = np.frombuffer(c["key"], dtype="<u4")
    names = np.array(c["names"], dtype=str)
    return {
        "time_s": np.frombuffer(c["time_s"], dtype="<f8"),
        c["key_field"]: names[keys] if len(keys) else np.array([], dtype=str),
        c["value_field"]: np.frombuffer(c["value"], dtype="<f8"),
    }


class NoSeries(Mapping):
    """The series of a run that recorded none (`ccsim.run(..., series=False)`): reading one
    raises `CcsimError` saying so, rather than showing an empty table."""

    def __getitem__(self, name: str) -> dict[str, Any]:
        from .errors import CcsimError

        raise CcsimError(f"this run recorded no time series ({name!r} asked for): run it with series=True "
                         "(the default of ccsim.run; `ccsim run --json` leaves them out)")

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0
