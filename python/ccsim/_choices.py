"""The names some command-line options take, for their help texts: the ABR switch schemes of
`--scheme` and the TCP variants of `--tcp`. The engine decides what it accepts and names the
choices itself when refusing a name; tests/test_cli_contract.py checks these lists against it, so
a scheme added to the engine and not here fails a test."""

from __future__ import annotations

#: `--scheme`: the ABR switch algorithms (`switch[].algorithm.type`).
SCHEMES = ("erica", "erica_plus", "debra", "eprca", "ut", "efci")

#: `--tcp`: the TCP variants (`defaults.tcp.variant`, a connection's `tcp.variant`).
TCP_VARIANTS = ("jacobson88", "tahoe", "reno", "newreno", "sack", "sack1")


def listed(names: tuple[str, ...]) -> str:
    """``a, b or c``."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]


__all__ = ["SCHEMES", "TCP_VARIANTS", "listed"]
