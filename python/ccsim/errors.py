"""The ccsim exception hierarchy.

The Rust binding raises these very classes (it imports ``ccsim.errors``), so ``except
ccsim.CcsimError`` catches every failure ccsim reports, and a scenario error is also a
``ValueError``.
"""


class CcsimError(Exception):
    """Base of every error ccsim raises."""


class ScenarioError(CcsimError, ValueError):
    """The scenario (file, dict, preset name or override) is invalid; the message names the field."""


class UsageError(CcsimError, ValueError):
    """What was asked for is refused before anything runs, for a reason other than the scenario:
    an output path ccsim may not write into (a file, or a directory holding files ccsim did not
    write). The command line treats it as a usage error: one line, exit 2. (Raised mixed into the
    error it is, e.g. a ``NotADirectoryError`` naming the path.)"""


class SimulationError(CcsimError):
    """A run could not be carried out or completed (e.g. an invariant check failed)."""


class InternalError(CcsimError):
    """A bug in ccsim (a Rust panic), reported with the simulated time and the event."""


class CcsimWarning(UserWarning):
    """Something was not done as asked but the run goes on: an option that changes nothing in this
    scenario, or a value adjusted to keep it valid. The command line prints ``warning: ...``."""


def shown(text: str, limit: int = 100) -> str:
    """``text`` as an error message quotes it: cut to ``limit`` characters with "…" (a 60,000-part
    path or a megabyte of value is named by its start, and the message stays one readable line: a
    newline or another control character is shown escaped, as ``\\n``)."""
    cut = text if len(text) <= limit else text[:limit] + f"… ({len(text):,} characters)"
    return cut if cut.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)


__all__ = ["CcsimError", "ScenarioError", "UsageError", "SimulationError", "InternalError", "CcsimWarning", "shown"]
