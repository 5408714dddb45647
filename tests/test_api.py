"""The Python API: presets, files, dicts, overrides, results, determinism."""

import json

import polars as pl
import pytest

import ccsim


def test_run_a_preset_gives_the_summary_contract():
    r = ccsim.run("abr-benchmarks/two-sources", duration="50ms")
    s = r.summary()
    for key in ("scenario", "seed", "sim_time_s", "wall_s", "events", "cell_hops", "fairness_index", "sources", "ports", "links"):
        assert key in s, key
    assert s["scenario"] == "abr-benchmarks/two-sources"
    assert s["sim_time_s"] == pytest.approx(0.05)
    assert s["conservation_ok"] is True
    for src in s["sources"]:
        for key in ("name", "acr_mbps", "rate_mbps", "maxmin_mbps", "cells_sent", "cells_received", "clr"):
            assert key in src
        # ERICA U = 0.95 on one OC-3 shared by two: 73.87 Mb/s each, max-min 77.76
        # (docs/models/abr/erica.md, "Validation").
        assert src["maxmin_mbps"] == pytest.approx(77.76, rel=1e-6)
        assert 0.99 * 73.87 <= src["acr_mbps"] <= 1.2 * 73.87
    assert "series" not in s and "vcs" not in s


def test_dict_and_file_scenarios(small, tmp_path):
    r = ccsim.run(small)
    assert r.scenario == "test/two"
    path = tmp_path / "two.json"
    path.write_text(json.dumps(small))
    assert ccsim.run(path).summary()["fingerprint"] == r.summary()["fingerprint"]
    toml = tmp_path / "gfc1.toml"
    toml.write_text(ccsim.preset_text("abr-benchmarks/gfc1"))
    assert ccsim.run(str(toml), duration="5ms").scenario == "abr-benchmarks/gfc1"


def test_overrides_by_keyword_and_by_path(small):
    r = ccsim.run(small, duration="10ms", seed=7, set={"link[0].rate": "100Mbps"})
    s = r.summary()
    assert s["sim_time_s"] == pytest.approx(0.01)
    assert s["seed"] == 7
    trunk = [l for l in s["links"] if l["name"] == "L1 (SW1->SW2)"][0]
    assert trunk["rate_mbps"] == pytest.approx(100.0)
    r = ccsim.run(small, run__measure_from="5ms")
    assert r.summary()["window_s"] == pytest.approx([0.005, 0.02])


def test_same_seed_same_everything_and_seed_is_recorded(small):
    a = ccsim.run(small, seed=3).summary()
    b = ccsim.run(small, seed=3).summary()
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b
    assert a["seed"] == 3


def test_tables_are_polars_and_pandas_on_request():
    r = ccsim.run("abr-benchmarks/two-sources", duration="20ms")
    for name in r.TABLES:
        df = r.table(name)
        assert isinstance(df, pl.DataFrame)
    assert set(r.acr.columns) >= {"time_s", "time_ms", "source", "acr_mbps"}
    assert set(r.queue["port"].unique()) >= {"SW1->SW2"}
    assert r.acr.height > 0 and r.received.height > 0 and r.utilization.height > 0
    pd = r.to_pandas("sources")
    assert list(pd["name"]) == ["S1", "S2"]
    rates = r.rate_table()
    assert rates.columns[:4] == ["name", "acr_mbps", "rate_mbps", "maxmin_mbps"]


def test_per_vc_totals_conserve_cells():
    r = ccsim.run("abr-benchmarks/gfc1", duration="30ms")
    v = r.vcs
    sent = v["fwd_sent"]
    assert (sent == v["fwd_delivered"] + v["fwd_dropped"] + v["fwd_in_flight"]).all()
    assert (v["bwd_sent"] == v["bwd_delivered"] + v["bwd_dropped"] + v["bwd_in_flight"]).all()


def test_write_outputs_parquet_plots_and_summary(tmp_path):
    import polars as pl

    r = ccsim.run("abr-benchmarks/two-sources", duration="20ms")
    out = r.write(tmp_path / "run")
    # Every table with rows is written, and only those (issue 39: an ABR run wrote 14 empty files).
    written = [name for name in r.TABLES if (out / f"{name}.parquet").exists()]
    assert written == [name for name in r.TABLES if not getattr(r, name).is_empty()]
    assert {"acr", "queue", "delay", "sources", "vcs", "delay_histogram"} <= set(written)
    assert not {"cwnd", "rtt", "connections", "gateway_queue"} & set(written)
    for name in written:
        meta = pl.read_parquet_metadata(out / f"{name}.parquet")
        assert meta["scenario"] == "abr-benchmarks/two-sources"
        assert meta["seed"] == "1"
        assert meta["fingerprint"] == r.summary()["fingerprint"]
        assert pl.read_parquet(out / f"{name}.parquet").equals(getattr(r, name))
    for png in ("acr.png", "queue.png", "received.png", "overview.png"):
        data = (out / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert json.loads((out / "summary.json").read_text())["scenario"] == "abr-benchmarks/two-sources"
    assert any(line.startswith("| S1 ") for line in (out / "rates.md").read_text().splitlines())


def test_progress_callback_reaches_the_end(small):
    seen = []
    ccsim.run(small, progress=lambda now, total: seen.append((now, total)))
    assert seen and seen[-1][0] == pytest.approx(seen[-1][1])
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


def test_presets_are_listed_with_descriptions():
    names = dict(ccsim.list_presets())
    for n in ("one-source", "two-sources", "two-sources-staggered", "parking-lot-3", "upstream", "gfc1"):
        assert f"abr-benchmarks/{n}" in names
        assert names[f"abr-benchmarks/{n}"]


def test_schema_is_a_json_schema():
    s = ccsim.schema()
    assert s["type"] == "object"
    assert "run" in s["properties"] and "source" in s["properties"]


def test_errors_form_a_hierarchy():
    assert issubclass(ccsim.ScenarioError, ccsim.CcsimError)
    assert issubclass(ccsim.ScenarioError, ValueError)
    assert issubclass(ccsim.SimulationError, ccsim.CcsimError)
    assert issubclass(ccsim.InternalError, ccsim.CcsimError)
    with pytest.raises(ccsim.ScenarioError, match="unknown preset 'abr-benchmarks/gfc4'.*did you mean"):
        ccsim.run("abr-benchmarks/gfc4")
    with pytest.raises(ccsim.ScenarioError, match="neither a preset name nor a readable scenario file"):
        ccsim.run("no-such-file.toml")


def test_finish_before_the_end_is_a_simulation_error():
    from ccsim import _core

    sim = _core.Simulation(ccsim.preset_text("abr-benchmarks/one-source"), "toml", [("run.duration", '"10ms"')])
    assert sim.run_until(0.001) is False
    with pytest.raises(ccsim.SimulationError, match="run it to the end"):
        sim.finish()
    assert sim.run_until(1.0) is True
    assert sim.finish()["sim_time_s"] == pytest.approx(0.01)


def test_the_engine_counts_hops_and_refused_cells_as_the_summary_does():
    # The bench's per-offered-cell cost divides by these two: they must be what the run reports.
    from ccsim import _core

    overrides = [("run.duration", '"30ms"'), ("source[0].count", "300")]
    sim = _core.Simulation(ccsim.preset_text("abr-benchmarks/gfc1"), "toml", overrides)
    assert sim.run_until(1.0) is True
    hops, drops = sim.hops, sim.port_drops
    summary = sim.finish()
    assert hops == summary["cell_hops"]
    assert drops == sum(p["drops"] for p in summary["ports"]) > 0  # early drops included


def test_a_rust_panic_becomes_internal_error_not_a_crash():
    from ccsim import _core

    with pytest.raises(ccsim.InternalError, match="deliberate panic"):
        _core._panic_selftest()
    # The interpreter is intact: a normal run still works afterwards.
    assert ccsim.run("abr-benchmarks/one-source", duration="2ms").summary()["conservation_ok"]


def test_every_preset_and_bare_counts_satisfy_the_json_schema():
    # The schema accepts what the loader accepts: editors validate scenarios with it.
    import jsonschema

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    validator = jsonschema.Draft202012Validator(ccsim.schema())
    for name in ccsim.presets.preset_names():
        errors = list(validator.iter_errors(tomllib.loads(ccsim.preset_text(name))))
        assert not errors, (name, [e.message for e in errors[:3]])
    s = tomllib.loads(ccsim.preset_text("ficcrd/droptail"))
    s["defaults"]["router_buffer"] = 50
    s["defaults"]["tcp"]["mss"] = 4096
    assert not list(validator.iter_errors(s))
    ccsim.resolve(s)
