"""Where results go (docs/scenarios.md, "Output directories"): one rule for `run`, `reproduce` and
`sweep` over an existing directory, staging that never outlives its process, a full disk and
SIGTERM each ending in one line with nothing half written."""

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

import ccsim
from ccsim import _outdir
from ccsim._outdir import MARKER, OutputError

SMALL_RUN = ["run", "abr-benchmarks/two-sources", "--set", "duration=20ms", "--no-plots"]


def _cli(cli, env, *args, limit_bytes=None, cwd=None):
    def limit():
        # A disk that fills up: a write past this size fails with EFBIG (Python ignores SIGXFSZ).
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run(cli + list(args), capture_output=True, text=True, env=env, cwd=cwd,
                          preexec_fn=limit if limit_bytes else None, timeout=300)


def _one_line(p, code):
    assert p.returncode == code, (p.returncode, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "Traceback" not in p.stderr, p.stderr


def _hidden(path):
    return sorted(p.name for p in path.iterdir() if p.name.startswith("."))


def test_run_out_never_deletes_a_users_file_and_names_it(cli, env, tmp_path):
    out = tmp_path / "res"
    assert _cli(cli, env, *SMALL_RUN, "--out", str(out)).returncode == 0
    (out / "NOTES.md").write_text("mine")
    p = _cli(cli, env, *SMALL_RUN, "--out", str(out))
    _one_line(p, 2)  # refused before running: a usage error
    assert "NOTES.md" in p.stderr and "did not write" in p.stderr
    assert (out / "NOTES.md").read_text() == "mine" and (out / "summary.json").exists()


def test_run_out_refuses_a_sweep_and_sweep_out_refuses_foreign_files(cli, env, tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(textwrap.dedent("""
        name = "t"
        scenario = "abr-benchmarks/two-sources"
        replications = 1
        metrics = ["fairness_index"]
        [set]
        "run.duration" = "5ms"
        [[axis]]
        path = "run.measure_from"
        values = ["0ms"]
    """))
    sweep = tmp_path / "sweep"
    p = _cli(cli, env, "sweep", str(plan), "--out", str(sweep), "--workers", "1")
    assert p.returncode == 0, p.stderr
    assert json.loads((sweep / MARKER).read_text())["kind"] == "sweep"
    p = _cli(cli, env, *SMALL_RUN, "--out", str(sweep))
    _one_line(p, 2)  # refused before running: a usage error
    assert "a ccsim sweep output" in p.stderr
    assert (sweep / "manifest.json").exists() and any((sweep / "runs").iterdir())
    # A sweep resumes its own directory, and a user's notes in it stay (a sweep deletes nothing).
    (sweep / "NOTES.md").write_text("mine")
    assert _cli(cli, env, "sweep", str(plan), "--out", str(sweep), "--workers", "1").returncode == 0
    assert (sweep / "NOTES.md").exists()
    unrelated = tmp_path / "photos"
    unrelated.mkdir()
    (unrelated / "a.jpg").write_bytes(b"\xff")
    p = _cli(cli, env, "sweep", str(plan), "--out", str(unrelated))
    _one_line(p, 2)  # refused before running: a usage error
    assert "a.jpg" in p.stderr and sorted(x.name for x in unrelated.iterdir()) == ["a.jpg"]


def test_reproduce_out_follows_the_same_rule(cli, env, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("x")
    p = _cli(cli, env, "reproduce", "hgrcp", "--quick", "--out", str(mine))
    _one_line(p, 2)  # refused before running: a usage error
    assert "thesis.tex" in p.stderr


def test_reproduce_into_replaces_its_own_output_whole(tmp_path):
    from ccsim.reproductions import reproduce_into

    def fake(files):
        def reproduce(out, **options):
            for f in files:
                (out / f).write_text(f)
            return {"paper": "fake", "out": str(out), "report": str(out / "index.html")}

        return SimpleNamespace(PAPER="fake", reproduce=reproduce)

    out = tmp_path / "r"
    s = reproduce_into(fake(["index.html", "old.json"]), out)
    assert s["out"] == str(out) and s["report"] == str(out / "index.html")
    reproduce_into(fake(["index.html"]), out)
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "index.html"], "replaced whole"
    assert _hidden(tmp_path) == []

    def failing(out, **options):
        (out / "index.html").write_text("half")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        reproduce_into(SimpleNamespace(PAPER="fake", reproduce=failing), out)
    assert (out / "index.html").read_text() == "index.html", "a failed reproduction leaves the earlier one"
    assert _hidden(tmp_path) == []


def test_legacy_outputs_are_recognised_by_their_files(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / MARKER).write_text(json.dumps({"scenario": "x"}))  # a marker written before kinds
    (run / "summary.json").write_text("{}")
    assert _outdir.check(run, "run") == run
    (run / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="notes.txt"):
        _outdir.check(run, "run")
    rep = tmp_path / "rep"
    (rep / "figures").mkdir(parents=True)
    (rep / "compared.json").write_text("[]")
    (rep / "index.html").write_text("")
    assert _outdir.check(rep, "reproduce") == rep
    with pytest.raises(OutputError, match="a ccsim reproduce output"):
        _outdir.check(rep, "run")


def test_out_through_a_symlink_writes_into_its_directory(small, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    r = ccsim.run(small)
    r.write(link, plots=False)
    assert link.is_symlink() and (real / "summary.json").exists()
    r.write(link, plots=False)  # and again, over its own result
    assert link.is_symlink() and (real / "summary.json").exists()
    (tmp_path / "file").write_text("x")
    (tmp_path / "flink").symlink_to(tmp_path / "file")
    with pytest.raises(NotADirectoryError, match="link to a file"):
        _outdir.check(tmp_path / "flink", "run")


def test_out_below_a_file_names_the_file(cli, env, tmp_path):
    (tmp_path / "f").write_text("x")
    p = _cli(cli, env, *SMALL_RUN, "--out", str(tmp_path / "f" / "sub" / "res"))
    _one_line(p, 2)  # refused before running: a usage error
    assert "a path component is a file" in p.stderr and str(tmp_path / "f") in p.stderr


def test_stale_staging_of_dead_processes_is_removed_by_the_next_run(small, tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = [tmp_path / f".res.partial-{dead.pid}", tmp_path / f".res.series-{dead.pid}"]
    for d in stale:
        d.mkdir()
        (d / "part.parquet").write_bytes(b"x" * 100)
    live = tmp_path / f".res.partial-{os.getppid()}"  # a running process's: kept
    live.mkdir()
    other = tmp_path / f".other.partial-{dead.pid}"  # beside another output: not this run's to clean
    other.mkdir()
    ccsim.run(small).write(tmp_path / "res", plots=False)
    assert _hidden(tmp_path) == sorted([live.name, other.name])


# A script that runs the CLI with a hook in the write phase: SIGTERM to itself after the first table.
_TERM_IN_WRITE = """
import os, signal, sys
import ccsim.result as result
from ccsim.entry import main
original = result.Result._write_files
def write_then_terminate(self, out, *args):
    (out / "first.parquet").write_bytes(b"x")
    os.kill(os.getpid(), signal.SIGTERM)
    original(self, out, *args)
result.Result._write_files = write_then_terminate
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_in_the_write_phase_cleans_up_and_keeps_the_earlier_result(cli, env, tmp_path):
    out = tmp_path / "res"
    assert _cli(cli, env, *SMALL_RUN, "--out", str(out)).returncode == 0
    before = (out / "summary.json").read_text()
    p = subprocess.run([sys.executable, "-c", _TERM_IN_WRITE, *SMALL_RUN, "--out", str(out)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 143 and p.stderr == "error: terminated (SIGTERM)\n", (p.returncode, p.stderr)
    assert _hidden(tmp_path) == [] and (out / "summary.json").read_text() == before


def test_sigterm_during_a_run_ends_in_one_line(cli, env, tmp_path):
    p = subprocess.Popen(cli + ["run", "abr-benchmarks/gfc1", "--set", "duration=60s", "--out", str(tmp_path / "r")],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    # Wait until the run is under way (the series staging exists), then stop it.
    for _ in range(600):
        if any(x.name.startswith(".r.series-") for x in tmp_path.iterdir()):
            break
        if p.poll() is not None:
            break
        import time

        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 143 and err == "error: terminated (SIGTERM)\n", (p.returncode, err)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_writing_out_is_one_line_and_leaves_nothing(cli, env, tmp_path):
    out = tmp_path / "res"
    p = _cli(cli, env, "run", "abr-benchmarks/gfc1", "--set", "duration=200ms", "--no-plots", "--out", str(out),
             limit_bytes=20_000)
    _one_line(p, 1)
    assert f"could not write {out}" in p.stderr and "file too large" in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_writing_a_trace_is_one_line_and_leaves_nothing(cli, env, tmp_path):
    trace = tmp_path / "t.parquet"
    p = _cli(cli, env, "run", "abr-benchmarks/two-sources", "--set", "duration=20ms", "--trace", str(trace),
             limit_bytes=20_000)
    _one_line(p, 1)
    assert f"could not write {trace}" in p.stderr and "file too large" in p.stderr, p.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_without_out_leaves_no_temporary_directory(tmp_path, monkeypatch):
    import tempfile

    from ccsim.sweeps import run_sweep

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    plan = {"name": "t", "scenario": "abr-benchmarks/two-sources", "replications": 2, "metrics": ["fairness_index"],
            "set": {"run.duration": "2ms"}}
    outcome = run_sweep(plan, workers=1)
    assert outcome.frame.height == 2 and outcome.out == ""
    assert list(tmp_path.iterdir()) == [], "the temporary store is removed"
