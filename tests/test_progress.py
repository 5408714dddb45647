"""Progress: one count over a whole reproduction whose total never goes back, shown only where
someone watches (a terminal), nothing on a pipe; and `--version`'s commit in an installed wheel."""

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import ccsim
from ccsim._progress import ProgressBar, RunsProgress, interactive

PLAN = {"name": "p", "scenario": "abr-benchmarks/two-sources", "replications": 2, "metrics": ["fairness_index"],
        "set": {"run.duration": "2ms"}, "axis": [{"path": "run.measure_from", "values": ["0ms", "1ms"]}]}


class Recorded(RunsProgress):
    """A RunsProgress that draws nothing and keeps every (done, total) it would have shown."""

    def __init__(self, label="t"):
        super().__init__(label, enabled=False)
        self.seen = []

    def _show(self):
        self.seen.append((self.done, self.total))


def _never_back(seen):
    return all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(seen, seen[1:]))


def test_stages_add_to_one_total_that_never_goes_back():
    p = Recorded()
    a = p.stage(3)
    a.advance()
    a(3, 3)  # a sweep reports its own count done: 2 more
    b = p.stage(2, "plotting")
    b.advance(2)
    c = p.stage(1)
    c.advance(2)  # a stage that ran more than it announced raises the total rather than overflowing
    assert (p.done, p.total) == (7, 7) and p.doing == "simulating"
    assert _never_back(p.seen) and p.seen[0] == (0, 3)


def test_a_reproduction_through_sweeps_and_pools_counts_once(monkeypatch):
    """Regression (issue #39): ut-ct's progress read "24 runs done / 27 / 33 / 12 / 24" (each
    runner counted alone, with no total). Its runners, the sweeps and the pools of the other
    reproductions are stages of one count."""
    from ccsim.reproductions import _common as C
    from ccsim.reproductions import ut_ct
    from ccsim.sweeps import sweep

    p = Recorded()
    frame = sweep(PLAN, workers=1, progress=p)  # 4 runs
    assert frame.height == 4
    C.run_all(lambda t: t * 2, [1, 2, 3], workers=1, progress=p, label="plotting")
    monkeypatch.setattr(ut_ct, "_one", lambda args: {"args": args})
    for reps in (2, 1):  # the main runner, then the sensitivity runner with fewer replications
        r = ut_ct.Runner.__new__(ut_ct.Runner)
        r.pool, r.progress, r.reps, r.count = ThreadPoolExecutor(2), p, reps, 0
        r.args = lambda preset, seed, extra: (preset, seed)
        assert r.run([("x", {}), ("y", {})]) == [[{"args": (j, s)} for s in range(1, reps + 1)] for j in "xy"]
        r.pool.shutdown()
    assert (p.done, p.total) == (4 + 3 + 4 + 2, 4 + 3 + 4 + 2)
    assert _never_back(p.seen)


def test_reproduce_into_continues_a_shared_count(tmp_path):
    class Paper:
        PAPER = "fake"

        @staticmethod
        def reproduce(out, progress=True):
            assert progress is shared
            progress.stage(2).advance(2)
            (out / "index.html").write_text("")
            return {}

    from ccsim.reproductions import reproduce_into

    shared = Recorded("all")
    reproduce_into(Paper, tmp_path / "a", progress=shared)
    reproduce_into(Paper, tmp_path / "b", progress=shared)
    assert (shared.done, shared.total, shared.label) == (4, 4, "fake") and _never_back(shared.seen)


def test_nothing_on_a_pipe(capsys):
    """Regression (issue #39): `reproduce hgrcp` wrote a blank line per sweep (31) to a
    non-terminal stderr: a rich bar, stopped, leaves one."""
    ccsim.sweep(PLAN, workers=1, progress=True)
    p = RunsProgress("x")
    p.stage(2).advance(2)
    p.close()
    bar = ProgressBar(delay_s=0.0)
    bar(0.5, 1.0)
    bar.close()
    ccsim.run("abr-benchmarks/two-sources", duration="2ms", progress=True)
    assert capsys.readouterr().err == ""


def test_a_terminal_is_interactive_a_pipe_is_not():
    master, slave = os.openpty()
    with open(slave, "w") as tty, open(os.devnull, "w") as null:
        assert interactive(tty) and not interactive(null)
    os.close(master)
    r, w = os.pipe()
    with open(r) as rf, open(w, "w") as wf:
        assert not interactive(wf) and not interactive(rf)


@pytest.mark.parametrize("recorded, want", [("0123456789abcdef0123", "0123456789ab"), ("", None), ("not a commit", None)])
def test_an_installed_wheel_reports_the_commit_it_was_built_from(tmp_path, recorded, want):
    """A copy of the package outside any checkout (as a wheel installs it): `make wheel` writes
    `_build_commit` into the package; without it there is no commit to name."""
    pkg = Path(ccsim.__file__).parent
    site = tmp_path / "site"
    shutil.copytree(pkg, site / "ccsim", ignore=shutil.ignore_patterns("__pycache__", "presets", "templates"))
    if recorded:
        (site / "ccsim" / "_build_commit").write_text(recorded + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import ccsim._version as v, sys; sys.stdout.write(v.describe())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**env, "PYTHONPATH": str(site)},
                         cwd=tmp_path, check=True).stdout
    assert out == (f"{ccsim.__version__} (commit {want})" if want else ccsim.__version__)
