"""The command path (`ccsim/entry.py`): `ccsim run ... --json` answered without the CLI framework
or the table libraries, with the same output and errors as the full CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ccsim.entry import parse_run_json

# What `run --json` never loads: the table and plot libraries, the CLI framework, and the Python
# `Result` (the engine prints the summary itself).
HEAVY = ("polars", "numpy", "pyarrow", "matplotlib", "dask", "plotly", "typer", "rich", "ccsim.result", "ccsim._lazy")


@pytest.mark.parametrize("args, want", [
    (["run", "x/y", "--json"], {"scenario": "x/y", "seed": None, "scheme": None, "tcp": None, "threads": None, "set": []}),
    (["run", "--json", "--seed", "3", "x/y", "--set", "a=1", "--set=b.c=\"2\"", "--tcp=reno", "--scheme", "erica", "--threads", "2"],
     {"scenario": "x/y", "seed": 3, "scheme": "erica", "tcp": "reno", "threads": "2", "set": ["a=1", "b.c=\"2\""]}),
])
def test_the_fast_path_reads_run_json_command_lines(args, want):
    assert parse_run_json(args) == want


@pytest.mark.parametrize("args", [
    [], ["run", "x/y"], ["presets", "--json"], ["run", "x/y", "--json", "--out", "d"], ["run", "--json"],
    ["run", "x/y", "z", "--json"], ["run", "x/y", "--json", "--seed", "abc"], ["run", "x/y", "--json", "--seed"],
    ["run", "x/y", "--json", "--seed", "1", "--seed", "2"], ["run", "x/y", "--json", "--help"],
    ["run", "x/y", "--json", "--threads", "1", "--threads", "2"],
])
def test_anything_else_goes_to_the_full_cli(args):
    assert parse_run_json(args) is None


def _run(module, *args, watched=HEAVY):
    """Runs `module.main(args)` in a fresh interpreter; its stderr ends with `LOADED` and the
    `watched` modules it imported, and its exit code is `main`'s (or its `SystemExit`'s)."""
    code = (f"import sys; from {module} import main\n"
            f"try:\n    rc = main({list(args)!r})\nexcept SystemExit as e:\n    rc = e.code\n"
            f"sys.stderr.write('LOADED ' + ' '.join(m for m in {watched!r} if m in sys.modules) + '\\n'); sys.exit(rc)")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


@pytest.mark.parametrize("args", [
    ("run", "abr-benchmarks/two-sources", "--json", "--seed", "4", "--set", "run.duration=\"20ms\""),
    # `--threads` too (scripts and the benchmarks pass it; the full CLI's start-up took 0.2 s).
    ("run", "abr-benchmarks/gfc1", "--json", "--threads", "2", "--set", "run.duration=\"20ms\""),
])
def test_run_json_loads_no_heavy_module_and_matches_the_full_cli(args):
    fast, full = _run("ccsim.entry", *args), _run("ccsim.cli", *args)
    assert fast.returncode == 0 and full.returncode == 0, fast.stderr + full.stderr
    assert fast.stderr.strip() == "LOADED", fast.stderr
    a, b = json.loads(fast.stdout), json.loads(full.stdout)
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b


# Nor, without `--set`, the standard modules that cost as much as the interpreter's own start.
LEAN = ("typing", "re", "pathlib", "json", "collections.abc")


def _lean_loaded_after(statement):
    code = f"import sys; {statement}; print(' '.join(m for m in {LEAN!r} if m in sys.modules))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.splitlines()[-1].split())


def test_run_json_without_set_loads_no_heavy_standard_module():
    run = "from ccsim.entry import main; main(['run', 'abr-benchmarks/two-sources', '--json'])"
    assert _lean_loaded_after(run) - _lean_loaded_after("pass") == set()


@pytest.mark.parametrize("meta", [
    {"wall_s": 0.0123, "ccsim_version": "0.1.0", "ccsim_commit": "e85616ce33fd", "notices": []},
    {"wall_s": 1e-07, "ccsim_version": "0.1.0+dev", "ccsim_commit": None, "notices": ["a plain notice"]},
    {"wall_s": 2.0, "ccsim_version": "0.1.0", "ccsim_commit": None,
     "notices": ['a "quoted" name', "back\\slash", "tab\tand newline\n", "µs and ≤"]},
])
def test_the_metadata_text_is_json_dumps_s(meta):
    from ccsim.api import _metadata_json

    assert _metadata_json(meta) == json.dumps(meta)


def test_errors_are_the_full_cli_s():
    for args, rc in [(("run", "nope/nothing", "--json"), 2), (("run", "abr-benchmarks/two-sources", "--json", "--set", "run.duration=-1"), 2),
                     (("run", "abr-benchmarks/two-sources", "--json", "--threads", "x"), 2),
                     (("run", "abr-benchmarks/two-sources", "--json", "--threads", "2"), 2)]:
        fast, full = _run("ccsim.entry", *args), _run("ccsim.cli", *args)
        assert fast.returncode == full.returncode == rc
        assert fast.stdout == full.stdout == ""
        assert fast.stderr.splitlines()[0] == full.stderr.splitlines()[0] and fast.stderr.startswith("error: ")


def test_version_and_a_bare_preset_name():
    import ccsim

    v = _run("ccsim.entry", "--version")
    # Run from this checkout: the version and the commit git reports for HEAD.
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(ccsim.__file__).parent)
    want = f"ccsim {ccsim.__version__} (commit {head.stdout.strip()[:12]})\n" if head.returncode == 0 else f"ccsim {ccsim.__version__}\n"
    assert v.returncode == 0 and v.stdout == want
    assert ccsim.run("abr-benchmarks/two-sources", duration="1ms").metadata()["ccsim_commit"] == want.partition("commit ")[2][:12]
    bare = _run("ccsim.entry", "run", "gfc1", "--json")
    assert bare.returncode == 2 and "did you mean abr-benchmarks/gfc1?" in bare.stderr.splitlines()[0]


def test_help_loads_neither_the_engine_nor_the_api():
    """`ccsim --help` (the full CLI) needs none of what runs a scenario (`import ccsim` is light),
    nor rich's console, which only printed tables need."""
    code = ("import sys; from ccsim.entry import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('LOADED ' + ' '.join(m for m in ('ccsim._core', 'ccsim.api', 'ccsim.result', 'rich.console', 'rich.table') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "Usage" in p.stdout, p.stdout + p.stderr
    assert p.stderr.strip() == "LOADED", p.stderr


# The table and plot libraries, which no command that only reads or checks scenarios needs.
TABLES_AND_PLOTS = ("polars", "numpy", "pyarrow", "matplotlib", "dask", "plotly")


@pytest.mark.parametrize("args", [
    ["presets"], ["validate", "abr-benchmarks/gfc1"], ["schema"], ["--help"],
    ["run", "abr-benchmarks/two-sources", "--json", "--set", "run.duration=\"5ms\""],
])
def test_commands_that_read_no_series_load_no_table_or_plot_library(args):
    p = _run("ccsim.entry", *args, watched=TABLES_AND_PLOTS)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip().splitlines()[-1] == "LOADED", p.stderr
