"""Stopping a sweep from outside: Ctrl-C (SIGINT) and SIGTERM.

While a sweep runs in the main thread, SIGTERM raises ``SweepInterrupted`` there (unless the program
installed a SIGTERM handler of its own), so the executor stops its workers and the runs already
stored stay, exactly as for Ctrl-C. ``SweepInterrupted`` is a ``KeyboardInterrupt`` (code that
catches Ctrl-C catches it); its message says how many runs are stored, and ``exit_code`` is 128 plus
the signal number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import signal
from contextlib import AbstractContextManager

from .._signals import sigterm_raises


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by a signal: ``interrupted (SIGTERM): 5 of 18 runs stored; re-run to resume``."""

    def __init__(self, signame: str = "SIGINT", stored: int | None = None, total: int | None = None):
        self.signal, self.stored, self.total = signame, stored, total
        self.exit_code = 128 + int(signal.Signals[signame])
        counts = "" if stored is None else f": {stored} of {total} runs stored; re-run to resume"
        super().__init__(f"interrupted ({signame}){counts}")


def sigterm_interrupts() -> AbstractContextManager[None]:
    """Within the block (main thread only), SIGTERM raises ``SweepInterrupted("SIGTERM")`` once; a
    second SIGTERM during the cleanup that follows is ignored."""
    return sigterm_raises(lambda: SweepInterrupted("SIGTERM"))


__all__ = ["SweepInterrupted", "sigterm_interrupts"]
