"""SIGTERM handled as Ctrl-C is: within ``sigterm_raises()``, SIGTERM raises an exception in the
main thread, so every ``finally`` runs (staging directories are removed, workers stopped) and the
command ends with one line and exit code 143. ``Terminated`` is a ``KeyboardInterrupt``: code that
cleans up after Ctrl-C cleans up after SIGTERM too."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

TYPE_CHECKING = False  # not `typing`'s: the fast `run --json` path loads no more than it needs
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class Terminated(KeyboardInterrupt):
    """Stopped by SIGTERM: ``terminated (SIGTERM)``, exit code 143."""

    exit_code = 128 + int(signal.SIGTERM)
    signal = "SIGTERM"  # as `SweepInterrupted.signal`: the sweep driver reads it

    def __init__(self, message: str = "terminated (SIGTERM)"):
        super().__init__(message)


_raised: KeyboardInterrupt | None = None


def raised() -> KeyboardInterrupt | None:
    """What the last SIGTERM raised, for a caller that saw only its exit code (typer turns every
    ``KeyboardInterrupt`` into ``Exit(130)``)."""
    return _raised


@contextmanager
def sigterm_raises(make: Callable[[], KeyboardInterrupt] = Terminated) -> Iterator[None]:
    """Within the block (main thread only), SIGTERM raises ``make()`` once; a second SIGTERM
    during the clean-up that follows is ignored. Does nothing where another handler is already
    installed (an enclosing block's, or the program's own)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def on_sigterm(signum: int, frame: object) -> None:
        global _raised
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _raised = make()
        raise _raised

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


__all__ = ["Terminated", "raised", "sigterm_raises"]
