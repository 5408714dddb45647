"""The command line, as a script would use it."""

import json
import subprocess

import ccsim
import ccsim.presets


def run(cli, env, *args):
    return subprocess.run(cli + list(args), capture_output=True, text=True, env=env)


def test_presets_list_and_show(cli, env):
    p = run(cli, env, "presets")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    # One line per preset, in name order: name, seed paper, purpose (issue #39: 2,086 lines for 93).
    assert [line.split()[0] for line in lines] == ccsim.presets.preset_names()
    gfc1 = next(line for line in lines if line.startswith("abr-benchmarks/gfc1 "))
    assert "seed 003" in gfc1 and "Generic Fairness Configuration 1" in gfc1
    assert all(len(line) <= 200 for line in lines)  # COLUMNS=200 (the env fixture)
    p = run(cli, env, "presets", "show", "abr-benchmarks/gfc1")
    assert p.returncode == 0
    assert p.stdout == ccsim.preset_text("abr-benchmarks/gfc1")
    p = run(cli, env, "presets", "show", "abr-benchmarks/nope")
    assert p.returncode == 2 and p.stderr.startswith("error: unknown preset")


def test_presets_filter(cli, env):
    names = ccsim.presets.preset_names()

    def listed(*args):
        p = run(cli, env, "presets", *args)
        assert p.returncode == 0, p.stderr
        return [line.split()[0] for line in p.stdout.splitlines()]

    assert listed("gfr") == [n for n in names if "gfr" in n] and listed("gfr")
    assert listed("GFC") == ["abr-benchmarks/gfc1", "abr-benchmarks/gfc1-short-access", "abr-benchmarks/gfc2",
                             "abr-benchmarks/gfc3", "scale/gfc1-10k"]
    assert listed("gfc[12]") == ["abr-benchmarks/gfc1", "abr-benchmarks/gfc2"]  # a glob on the scenario part
    assert listed("ut-ct/*-ut") == [n for n in names if n.startswith("ut-ct/") and n.endswith("-ut")]
    long = run(cli, env, "presets", "*/gfc1", "--long").stdout
    assert " ".join(long.split()[3:]) == " ".join(ccsim.presets.preset_description("abr-benchmarks/gfc1").split())
    p = run(cli, env, "presets", "zzz")
    assert p.returncode == 2 and p.stderr == "error: no preset name contains or matches 'zzz'; `ccsim presets` lists them all\n"


def test_presets_show_suggests_near_names(cli, env):
    for typo, want in [("gfc1", "abr-benchmarks/gfc1"), ("abr-benchmarks/two-source", "abr-benchmarks/two-sources"),
                       ("hgrcp/hgrcp5", "hgrcp/hgrcp-5"), ("abr/gfc1", "abr-benchmarks/gfc1")]:
        p = run(cli, env, "presets", "show", typo)
        assert p.returncode == 2 and p.stdout == "", p.stdout
        assert p.stderr.startswith(f"error: unknown preset '{typo}'; did you mean {want}"), p.stderr
    for args, needle in [(("presets", "show"), "give a preset NAME"), (("presets", "gfr", "gfc"), "unexpected argument 'gfc'")]:
        p = run(cli, env, *args)
        assert p.returncode == 2 and needle in p.stderr and p.stderr.count("\n") == 1, p.stderr


def test_run_json_is_exactly_one_object(cli, env):
    p = run(cli, env, "run", "abr-benchmarks/two-sources", "--json", "--set", "duration=30ms", "--seed", "4")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["scenario"] == "abr-benchmarks/two-sources"
    assert s["seed"] == 4
    assert abs(s["sim_time_s"] - 0.03) < 1e-12
    for key in ("wall_s", "events", "cell_hops", "fairness_index", "sources", "ports", "links"):
        assert key in s
    assert {x["name"] for x in s["sources"]} == {"S1", "S2"}
    assert all({"name", "mean_queue_cells", "max_queue_cells", "drops"} <= set(x) for x in s["ports"])
    assert all({"name", "utilization"} <= set(x) for x in s["links"])


def test_set_paths_and_seed_shortcut(cli, env):
    p = run(
        cli, env, "run", "abr-benchmarks/two-sources", "--json",
        "--set", "run.duration=20ms", "--set", "seed=9",
        "--set", "defaults.algorithm.target_utilization=0.9",
    )
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert s["seed"] == 9
    # ERICA at U = 0.9: each of two sources near 0.9 × 155.52 / 2 = 69.98 Mb/s.
    assert all(0.95 * 69.98 < x["acr_mbps"] < 1.25 * 69.98 for x in s["sources"])


def test_scheme_swap(cli, env):
    p = run(cli, env, "run", "abr-benchmarks/two-sources", "--json", "--scheme", "efci",
            "--set", "defaults.abr.rif=0.0625", "--set", "duration=50ms")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["conservation_ok"] is True


def test_human_output_and_out_dir(cli, env, tmp_path):
    p = run(cli, env, "run", "abr-benchmarks/parking-lot-3", "--set", "duration=20ms", "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "Jain fairness index" in p.stdout and "max-min" in p.stdout
    for f in ("summary.json", "acr.png", "queue.png", "sources.parquet", "rates.md"):
        assert (tmp_path / "o" / f).exists(), f


def test_validate_and_schema(cli, env, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(ccsim.preset_text("abr-benchmarks/upstream"))
    p = run(cli, env, "validate", str(f))
    assert p.returncode == 0 and "ok: abr-benchmarks/upstream" in p.stdout
    p = run(cli, env, "schema")
    assert p.returncode == 0 and json.loads(p.stdout)["type"] == "object"


def test_usage_errors_are_not_tracebacks(cli, env):
    p = run(cli, env, "run")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "Missing argument" in p.stderr
    p = run(cli, env, "run", "abr-benchmarks/gfc1", "--set", "nonsense")
    assert p.returncode == 2 and "expected PATH=VALUE" in p.stderr


def test_options_that_change_nothing_warn_once_and_run(cli, env):
    """--tcp on a world without TCP, --scheme on one without switches: one `warning:` line on
    stderr each, and the run goes on (both the fast --json path and the full CLI)."""
    for args, expect in [
        (["abr-benchmarks/two-sources", "--tcp", "reno"], "warning: --tcp reno changes nothing: the scenario has no TCP connection"),
        (["ficcrd/droptail", "--scheme", "erica"], "warning: --scheme erica changes nothing: the scenario has no ATM switch"),
    ]:
        for json_flag in (["--json"], []):
            p = run(cli, env, "run", *args, "--set", "duration=30ms", "--set", "run.measure_from=10ms", *json_flag)
            assert p.returncode == 0, p.stderr
            warnings = [line for line in p.stderr.splitlines() if line.startswith("warning:")]
            # 30 ms is too short for FICCRD's flows, which start later: that has its notice too.
            late = [w for w in warnings if "start at or after the end of the run (30ms)" in w]
            assert warnings == [expect, *late] and len(late) == args[0].startswith("ficcrd"), p.stderr
            if json_flag:
                assert json.loads(p.stdout)["notices"] == [w.removeprefix("warning: ") for w in warnings]


def test_shortened_run_scales_measure_from_with_a_notice():
    import pytest

    with pytest.warns(ccsim.CcsimWarning, match=r"run.measure_from 50s is past the end of the shortened run \(20s\): scaled with it to 5s"):
        r = ccsim.run("ficcrd/droptail", duration="20s")
    assert r.summary()["window_s"] == [5.0, 20.0]
    assert len(r.summary()["notices"]) == 1


def test_set_takes_json_toml_or_text():
    from ccsim.entry import parse_value

    assert parse_value('{"type": "red", "min_th": 5}') == {"type": "red", "min_th": 5}
    assert parse_value('{type = "red", min_th = 5, gentle = false}') == {"type": "red", "min_th": 5, "gentle": False}
    assert parse_value("[1, 2.5]") == [1, 2.5]
    assert parse_value("'x y'") == "x y"
    assert parse_value("3") == 3 and parse_value("true") is True
    assert parse_value("10ms") == "10ms"
    assert parse_value("1979-05-27") == "1979-05-27"  # a TOML date is not a scenario value: the text


def test_run_reads_the_scenario_from_stdin(cli, env):
    text = ccsim.preset_text("abr-benchmarks/two-sources")
    for args in (["--json"], []):
        p = subprocess.run(cli + ["run", "-", "--set", "duration=10ms", "--set",
                                  'switch[0].algorithm={type = "erica", target_utilization = 0.5}', *args],
                           input=text, capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
    s = json.loads(subprocess.run(cli + ["run", "-", "--json", "--set", "duration=10ms"], input=json.dumps(
        ccsim.resolve("abr-benchmarks/two-sources")), capture_output=True, text=True, env=env).stdout)
    assert s["scenario"] == "abr-benchmarks/two-sources"
