"""The command line under misuse: every failure is one unwrapped `error:` line, a non-zero exit
and no traceback; plus `python -m ccsim`, help, and the human summary printer."""

import json
import subprocess
import sys

import pytest

import ccsim
from ccsim import cli as cli_module


def run(cli, env, *args, **kw):
    return subprocess.run(cli + list(args), capture_output=True, text=True, env=env, **kw)


def assert_clean_error(p, code, *needles):
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.stderr.startswith("error: "), p.stderr
    assert len(p.stderr.splitlines()) == 1, p.stderr
    for n in needles:
        assert n in p.stderr, p.stderr


def test_parse_sets():
    assert cli_module.parse_sets(["run.duration=1s"]) == {"run.duration": "1s"}
    assert cli_module.parse_sets(["switch[0].algorithm.target_utilization=0.9"]) == {
        "switch[0].algorithm.target_utilization": 0.9
    }
    # Shortcuts pass through as written; the loader reads them as run.seed and run.duration.
    assert cli_module.parse_sets(["seed=5", "duration=2ms"]) == {"seed": 5, "duration": "2ms"}
    s = ccsim.resolve("abr-benchmarks/two-sources", set=cli_module.parse_sets(["seed=5", "duration=2ms"]))
    assert (s["run"]["seed"], s["run"]["duration"]) == (5, "2ms")
    assert cli_module.parse_sets(['source[0].route=["SW1","SW2"]']) == {"source[0].route": ["SW1", "SW2"]}
    assert cli_module.parse_sets(["name=a=b", "defaults.sonet_payload=true"]) == {
        "name": "a=b", "defaults.sonet_payload": True
    }


def test_long_messages_are_not_wrapped(cli, env, tmp_path):
    env = dict(env, COLUMNS="40")
    missing = tmp_path / ("a-rather-long-directory-name-" * 3) / "scenario.toml"
    assert_clean_error(run(cli, env, "run", str(missing)), 2, "neither a preset name")
    assert_clean_error(run(cli, env, "validate", "abr-benchmarks/two-source"), 2, "did you mean")


def test_out_dir_that_is_a_file(cli, env, tmp_path, small):
    f = tmp_path / "two.json"
    f.write_text(json.dumps(small))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert_clean_error(run(cli, env, "run", str(f), "--out", str(blocker)), 2, str(blocker))


def test_bad_seed_values(cli, env):
    assert_clean_error(run(cli, env, "run", "abr-benchmarks/one-source", "--seed", "-1"), 2, "seed")
    p = run(cli, env, "run", "abr-benchmarks/one-source", "--seed", "abc")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "--seed" in p.stderr


def test_non_json_override_value_names_the_field(cli, env):
    p = run(cli, env, "run", "abr-benchmarks/one-source", "--set", "link[0].rate=NaN")
    assert_clean_error(p, 2, "link[0].rate")


def test_binary_file(cli, env, tmp_path):
    f = tmp_path / "x.toml"
    f.write_bytes(b"\xff\xfe\x00garbage")
    assert_clean_error(run(cli, env, "validate", str(f)), 2, "UTF-8")


@pytest.mark.parametrize("data, needle", [(b"\xff\xfe\x00b\x00i\x00n", "binary data"),
                                          (b"name = '\xff'", "not UTF-8 text (invalid start byte at byte 8)")])
@pytest.mark.parametrize("command", [["validate", "-"], ["run", "-", "--json"], ["run", "-"]])
def test_binary_or_non_utf8_standard_input(cli, env, command, data, needle):
    p = subprocess.run(cli + command, input=data, capture_output=True, env=env)
    p = subprocess.CompletedProcess(p.args, p.returncode, p.stdout.decode(), p.stderr.decode())
    assert_clean_error(p, 2, "standard input: " + needle)


@pytest.mark.parametrize("value", ["[" * 20_000 + "]" * 20_000, "{a=" * 5_000 + "1" + "}" * 5_000,
                                   '{"a":' * 20_000 + "1" + "}" * 20_000])
def test_a_deeply_nested_set_value_is_one_line(cli, env, value):
    for command in (["validate", "abr-benchmarks/two-sources"], ["run", "abr-benchmarks/two-sources", "--json"]):
        assert_clean_error(run(cli, env, *command, "--set", f"defaults.abr={value}"), 2, "defaults.abr",
                           "nested too deeply")


@pytest.mark.parametrize("flag, value", [("--K", "inf"), ("--K", "nan"), ("--Q", "inf"), ("--pcr", "-inf"),
                                         ("--T", "inf"), ("--lan", "infMbps")])
def test_analyze_refuses_non_finite_inputs(cli, env, flag, value):
    p = run(cli, env, "analyze", "hgrcp", "--T", "10ms", flag, value, "--json")
    assert_clean_error(p, 2, flag)
    assert p.stdout == ""


def test_a_rate_too_large_names_a_unit_the_parser_reads(cli, env):
    p = run(cli, env, "validate", "abr-benchmarks/two-sources", "--set", "link[0].rate=20000Gbps")
    assert_clean_error(p, 2, "at most 10000Gbps")
    assert run(cli, env, "validate", "abr-benchmarks/two-sources", "--set", "link[0].rate=10000Gbps").returncode == 0


def test_unknown_command_and_help(cli, env):
    p = run(cli, env, "frobnicate")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    p = run(cli, env, "--help")
    assert p.returncode == 0
    for cmd in ("run", "presets", "validate", "schema"):
        assert cmd in p.stdout
    p = run(cli, env, "run", "--help")
    assert p.returncode == 0 and "--set" in p.stdout and "--json" in p.stdout


def test_bare_commands_print_their_help_as_a_usage_error(cli, env):
    """Regression (issue #39): bare `ccsim` printed its whole help squashed into one `error:` line.
    A missing command is a usage error (click >= 8.2 and argparse agree: exit 2): the normal,
    multi-line help on stderr, nothing on stdout."""
    for args, commands in [((), ("run", "presets", "validate", "reproduce", "--version")), (("analyze",), ("hgrcp",))]:
        p = run(cli, env, *args)
        assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stdout)
        assert p.stderr.startswith("Usage: ") and not p.stderr.startswith("error:") and p.stderr.count("\n") > 8, p.stderr
        assert all(c in p.stderr for c in commands), p.stderr
        assert p.stderr == run(cli, env, *args, "--help").stdout  # the same help `--help` prints


def test_help_lists_version_and_options_list_their_choices(cli, env):
    from ccsim._choices import SCHEMES, TCP_VARIANTS

    top = run(cli, env, "--help")
    assert top.returncode == 0 and "--version" in top.stdout
    for flag in ("--version", "-V"):
        v = run(cli, env, flag)
        assert v.returncode == 0 and v.stdout.startswith(f"ccsim {ccsim.__version__}"), v.stdout
    # The full CLI answers --version as the fast path does (`python -m ccsim.cli`).
    full = subprocess.run([sys.executable, "-m", "ccsim.cli", "--version"], capture_output=True, text=True, env=env)
    assert full.returncode == 0 and full.stdout == run(cli, env, "--version").stdout
    text = " ".join(run(cli, env, "run", "--help").stdout.split())
    assert all(name in text for name in SCHEMES + TCP_VARIANTS), text
    assert "png, pdf or svg" in text
    assert all(name in " ".join(run(cli, env, "validate", "--help").stdout.split()) for name in SCHEMES)
    assert all(p in " ".join(run(cli, env, "reproduce", "--help").stdout.split())
               for p in ("abr-benchmarks", "gfr", "ficcrd", "hgrcp", "ut-ct", "all"))


@pytest.mark.parametrize("option, names", [("--scheme", "SCHEMES"), ("--tcp", "TCP_VARIANTS")])
def test_the_listed_choices_are_the_engines(option, names):
    """The help's lists (ccsim/_choices.py) are the names the engine accepts, all of them: each
    resolves, and the engine's own refusal names no other."""
    from ccsim import _choices

    listed = getattr(_choices, names)
    key = option[2:]
    for name in listed:
        ccsim.resolve("abr-benchmarks/two-sources", **{key: name})
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.resolve("abr-benchmarks/two-sources", **{key: "no-such-name"})
    engine = str(e.value).rsplit("(one of ", 1)[1].rstrip(")").split(", ")
    assert sorted(engine) == sorted(listed), (engine, listed)


def test_trace_paths_refused_before_running_are_usage_errors(cli, env, tmp_path):
    assert_clean_error(run(cli, env, "run", "abr-benchmarks/two-sources", "--trace", str(tmp_path)), 2, "names a directory")
    assert_clean_error(run(cli, env, "run", "abr-benchmarks/two-sources", "--trace", str(tmp_path / "no" / "t.parquet")), 2,
                       "no such directory")


def test_python_dash_m(env):
    p = subprocess.run([sys.executable, "-m", "ccsim", "presets"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "abr-benchmarks/gfc1" in p.stdout


def test_json_stdout_is_only_the_summary_and_deterministic(cli, env):
    args = ("run", "abr-benchmarks/one-source", "--set", "duration=10ms", "--json")
    a, b = run(cli, env, *args), run(cli, env, *args)
    assert a.returncode == b.returncode == 0
    assert a.stderr == ""  # no progress bar when stderr is not a terminal
    sa, sb = json.loads(a.stdout), json.loads(b.stdout)
    sa.pop("wall_s"), sb.pop("wall_s")
    assert sa == sb


def test_summary_printer_on_a_synthetic_result(synthetic, capsys):
    from ccsim import Result

    cli_module._print_summary(Result(synthetic).summary())
    out = capsys.readouterr().out
    assert "synthetic/ten" in out and "A1" in out and "0.9870" in out
    # Rows beyond the documented contract are optional: a minimal summary still prints.
    s = Result(synthetic).summary()
    s["ports"] = [{k: p[k] for k in ("name", "mean_queue_cells", "max_queue_cells", "drops")} for p in s["ports"]]
    s["links"] = [{k: l[k] for k in ("name", "utilization")} for l in s["links"]]
    s["sources"] = [
        {k: r[k] for k in ("name", "acr_mbps", "rate_mbps", "maxmin_mbps", "cells_sent", "cells_received", "clr")}
        for r in s["sources"]
    ]
    cli_module._print_summary(s)
    assert "A1" in capsys.readouterr().out


def test_usage_errors_are_one_line(cli, env):
    import subprocess

    for args, want in [(["run", "abr-benchmarks/two-sources", "--seed", "abc"], "error: Invalid value for '--seed'"),
                       (["runn"], "error: No such command 'runn'")]:
        p = subprocess.run(cli + args, capture_output=True, text=True, env=env)
        assert p.returncode == 2 and p.stderr.startswith(want) and p.stderr.count("\n") == 1, p.stderr
