"""Progress on stderr, and only where someone watches it: a terminal, or a Jupyter kernel (where
rich draws a widget). On a pipe or a file nothing is written at all, not even the blank line a
stopped bar leaves.

`ProgressBar` follows one run (`ccsim run`, `ccsim.run(progress=True)`). `RunsProgress` follows a
whole reproduction, whose runs come in stages (a sweep, a pool of runs, the figures) that are
known only as they start: each stage adds its count to the total when it starts, so the total only
grows and the count done never goes back, across the stages and, for `reproduce all`, the papers."""

from __future__ import annotations

import sys
import time
from typing import Any


def interactive(stream: Any = None) -> bool:
    """Whether progress written to ``stream`` (default stderr) is seen as it changes: a terminal,
    or a Jupyter kernel's stream."""
    stream = sys.stderr if stream is None else stream
    try:
        if stream.isatty():
            return True
    except (AttributeError, ValueError):  # no isatty, or closed
        return False
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    ip = getattr(shell, "get_ipython", lambda: None)()
    return type(ip).__name__ == "ZMQInteractiveShell"


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


class ProgressBar:
    """Callable as ``progress(now_s, duration_s)``; ``close()`` removes the bar. Appears once a run
    has taken ``delay_s``, where `interactive()` (unless ``enabled`` says otherwise)."""

    #: Updated between chunks cut by wall time (`api._simulate`): ~20 a second, however long the
    #: run, rather than 200 per run (which at 10,000 sources cost a fifth of it).
    wall_paced = True

    def __init__(self, enabled: bool | None = None, delay_s: float = 1.0):
        self.enabled = interactive() if enabled is None else enabled
        self.delay_s = delay_s
        self.started = time.perf_counter()
        self.bar = None
        self.task = None

    def __call__(self, now_s: float, duration_s: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < self.delay_s:
                return
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.fields[now]:.3f} / {task.total:.3f} s simulated"),
                TimeRemainingColumn(),
                console=_console(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("run", total=duration_s, now=now_s)
        self.bar.update(self.task, completed=now_s, now=now_s)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class RunsProgress:
    """One bar over every step of a reproduction: ``label``, what the current stage does, steps
    done of the total known so far, elapsed time. ``stage(n)`` adds a stage of ``n`` steps (runs,
    or figures) and returns its `Stage`; `done` and `total` never decrease. Drawn only where
    `interactive()` (unless ``enabled`` says otherwise); the counts are kept either way."""

    def __init__(self, label: str, enabled: bool | None = None):
        self.label = label
        self.enabled = interactive() if enabled is None else enabled
        self.done = 0
        self.total = 0
        self.doing = ""
        self._bar: Any = None
        self._task: Any = None

    def stage(self, steps: int, doing: str = "simulating") -> Stage:
        self.total += max(0, int(steps))
        self.doing = doing
        self._show()
        return Stage(self)

    def relabel(self, label: str) -> None:
        """The next part (`reproduce all`: the next paper); the counts go on."""
        self.label = label
        self._show()

    def _advance(self, steps: int) -> None:
        # A stage that ran more steps than it announced (a count it could not know) raises the total.
        self.done += steps
        self.total = max(self.total, self.done)
        self._show()

    def _show(self) -> None:
        if not self.enabled:
            return
        description = f"{self.label}: {self.doing}" if self.doing else self.label
        if self._bar is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.0f}/{task.total:.0f} done"),
                TimeElapsedColumn(),
                console=_console(),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(description, total=self.total, completed=self.done)
        self._bar.update(self._task, description=description, total=self.total, completed=self.done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


class Stage:
    """One stage of a `RunsProgress`: ``advance(n)``, or called as ``stage(done, total)`` (how a
    sweep reports, `sweeps.run_sweep`) with the stage's own count of steps done."""

    def __init__(self, owner: RunsProgress | None):
        self.owner = owner
        self.done = 0

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        if self.owner is not None:
            self.owner._advance(steps)

    def __call__(self, done: int, total: int | None = None) -> None:
        if done > self.done:
            self.advance(done - self.done)


def stage(progress: Any, steps: int, doing: str = "simulating") -> Stage:
    """A stage of ``progress`` if it is a `RunsProgress`, else one that shows nothing."""
    if isinstance(progress, RunsProgress):
        return progress.stage(steps, doing)
    return Stage(None)


__all__ = ["interactive", "ProgressBar", "RunsProgress", "Stage", "stage"]
