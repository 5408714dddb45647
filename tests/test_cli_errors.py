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
    assert_clean_error(run(cli, env, "run", str(f), "--out", str(blocker)), 1, str(blocker))


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
