"""A progress bar on stderr that appears only once a run has taken about a second."""

from __future__ import annotations

import time


class ProgressBar:
    """Callable as ``progress(now_s, duration_s)``; ``close()`` removes the bar."""

    #: Updated between chunks cut by wall time (`api._simulate`): ~20 a second, however long the
    #: run, rather than 200 per run (which at 10,000 sources cost a fifth of it).
    wall_paced = True

    def __init__(self, enabled: bool = True, delay_s: float = 1.0):
        self.enabled = enabled
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
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.fields[now]:.3f} / {task.total:.3f} s simulated"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("run", total=duration_s, now=now_s)
        self.bar.update(self.task, completed=now_s, now=now_s)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
