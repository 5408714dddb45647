"""`Result` on a synthetic result dict: tables, caching, pandas, the rate table and `write()`."""

import json

import polars as pl
import pytest

import ccsim
from ccsim import Result

TABLES = ("acr", "queue", "received", "utilization", "vcs", "sources", "ports", "links")


def test_summary_is_everything_but_series_and_vcs(synthetic):
    s = Result(synthetic).summary()
    assert "series" not in s and "vcs" not in s
    assert s["wall_s"] == 0.5 and s["fairness_index"] == 0.987
    assert set(synthetic) - set(s) == {"series", "vcs"}


def test_tables_are_polars_and_cached(synthetic):
    r = Result(synthetic)
    for name in TABLES:
        df = getattr(r, name)
        assert isinstance(df, pl.DataFrame), name
        assert getattr(r, name) is df, f"{name} is not cached"
    assert r.acr.height == 10 * 200
    assert {"time_s", "time_ms", "source", "acr_mbps"} <= set(r.acr.columns)
    assert {"time_s", "port", "queue_cells"} <= set(r.queue.columns)
    assert {"time_s", "source", "cells"} <= set(r.received.columns)
    assert {"time_s", "link", "utilization"} <= set(r.utilization.columns)
    assert r.acr["time_ms"][1] == pytest.approx(0.1)
    assert (r.sources.height, r.ports.height, r.links.height, r.vcs.height) == (10, 3, 3, 10)


def test_empty_series_give_empty_typed_tables(synthetic):
    for key in synthetic["series"]:
        synthetic["series"][key] = {}
    r = Result(synthetic)
    assert r.acr.is_empty() and r.acr.schema["acr_mbps"] == pl.Float64
    assert r.queue.is_empty() and r.received.is_empty() and r.utilization.is_empty()


def test_pandas_on_request(synthetic):
    pd = pytest.importorskip("pandas")
    r = Result(synthetic)
    assert isinstance(r.to_pandas("acr"), pd.DataFrame) and len(r.to_pandas("acr")) == 2000
    assert isinstance(r.table("sources", backend="pandas"), pd.DataFrame)
    with pytest.raises(KeyError):
        r.table("nope")
    with pytest.raises(ValueError):
        r.table("acr", backend="spark")


def test_rate_table(synthetic):
    t = Result(synthetic).rate_table()
    assert t.columns[:4] == ["name", "acr_mbps", "rate_mbps", "maxmin_mbps"]
    a1 = t.filter(pl.col("name") == "A1").row(0, named=True)
    assert a1["acr_over_maxmin"] == pytest.approx(15.0 / 14.75, abs=1e-4)
    # No max-min share: no ratio rather than a division by zero.
    assert t.filter(pl.col("name") == "D1")["acr_over_maxmin"][0] is None


def test_rate_table_never_sets_the_whole_run_beside_the_window(synthetic):
    """Issue 39: GFC1's A1 lost 31 % of its cells over the whole run (the start-up) and none in the
    window; the window's table showed 0.31 beside the window's ACR."""
    synthetic["sources"][0].update(clr=0.31, window_clr=0.0, delay_mean_ms=None, delay_p99_ms=None, jitter_ms=None)
    r = Result(synthetic)
    t = r.rate_table()
    a1 = t.filter(pl.col("name") == "A1").row(0, named=True)
    assert "clr" not in t.columns and a1["window_clr"] == 0.0
    assert a1["delay_mean_ms"] is None and t.filter(pl.col("name") == "A2")["delay_mean_ms"][0] == pytest.approx(0.031)
    assert r.rate_table_title() == "synthetic/ten, seed 7: sources over the measurement window, 0.01 to 0.02 s"


def test_write(synthetic, tmp_path):
    # A real resolved scenario under the synthetic name: `write` draws its network too.
    scenario = {**ccsim.resolve("abr-benchmarks/two-sources"), "name": "synthetic/ten"}
    r = Result(synthetic, resolved_json=json.dumps(scenario))
    out = r.write(tmp_path / "out")
    for name in TABLES:
        path = out / f"{name}.parquet"
        meta = pl.read_parquet_metadata(path)
        for key in ("ccsim_version", "seed", "scenario", "fingerprint", "scenario_hash"):
            assert key in meta, (name, key)
        assert (meta["seed"], meta["scenario"], meta["fingerprint"]) == ("7", "synthetic/ten", "00ff00ff00ff00ff")
        assert pl.read_parquet(path).height == getattr(r, name).height
    assert json.loads((out / "summary.json").read_text()) == r.summary()
    assert json.loads((out / "scenario.json").read_text()) == scenario
    assert (out / "network.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rates = (out / "rates.md").read_text().splitlines()
    # A title naming the window, a blank line, then the table: every column over the window.
    assert rates[0] == "# synthetic/ten, seed 7: sources over the measurement window, 0.01 to 0.02 s" and rates[1] == ""
    header = [c.strip() for c in rates[2].strip("|").split("|")]
    assert header == ["name", "acr_mbps", "rate_mbps", "maxmin_mbps", "acr_over_maxmin", "window_clr", "delay_mean_ms",
                      "delay_p99_ms", "jitter_ms"] and len(rates) == 4 + 10
    assert set(rates[3]) <= set("|-: ")  # the Markdown separator row
    # Tables without rows are not written: the synthetic run has no TCP connection, no delay series.
    for empty in ("connections", "cwnd", "rtt", "delay", "delay_histogram"):
        assert not (out / f"{empty}.parquet").exists(), empty
    for png in ("acr.png", "queue.png", "received.png", "overview.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png


def test_write_without_plots_into_existing_dir(synthetic, tmp_path):
    Result(synthetic).write(tmp_path, plots=False)
    assert (tmp_path / "acr.parquet").is_file() and not list(tmp_path.glob("*.png"))
