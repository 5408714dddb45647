"""`ccsim reproduce gfr`: seed 001's Experiments A and B and Table 1, quick (about 15 s on 2 cores)."""

import json

import pytest

from ccsim.reproductions import gfr


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import run_quick_reproduction

    return run_quick_reproduction("gfr", tmp_path_factory)


def test_one_json_object_with_the_contract_keys(quick):
    from .conftest import check_reproduction_contract

    out, doc = quick
    check_reproduction_contract(out, doc, "gfr")
    data = gfr.load_data()
    assert doc["runs"] == len(gfr.presets(data)) * data["quick_replications"]


def test_table1_has_every_row_with_both_verdicts(quick):
    out, _ = quick
    compared = json.loads((out / "compared.json").read_text())
    table = compared["table1"]
    assert [r["scenario"] for r in table] == [o["preset"] for o in gfr.load_data()["option"]]
    for r in table:
        assert r["paper"] in ("Yes", "No") and r["ccsim_verdict"] in ("Yes", "No")
        assert r["ok"] == (r["paper"] == r["ccsim_verdict"])
    # FIFO rows cannot give guarantees to unequal allocations in ccsim either.
    assert all(r["ccsim_verdict"] == "No" for r in table if r["scenario"].endswith("-fifo") or r["scenario"].endswith("b1"))


def test_statement_rows_keep_the_paper_column_for_the_paper(quick):
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())["statements"]
    data = gfr.load_data()
    for r in rows:
        s = next(s for s in data["statement"] if s["text"] == r["statement"])
        assert r["paper"] == s.get("paper", "yes" if s["expect"] == "yes" else None)
        assert r["threshold"] == s.get("threshold")
    for f in ("fig5-equal.png", "fig6-b1.png", "fig7-b2.png"):
        assert (out / "figures" / f).exists(), f
    assert "Table 1" in (out / "index.html").read_text()


def test_measures_and_verdict_follow_their_definitions():
    run = {"efficiency": 0.99, "met": False, "connections": {
        "G1_1": {"clp01_mbps": 3.0, "target_mbps": 1.0}, "G1_2": {"clp01_mbps": 1.0, "target_mbps": 1.0},
        "G2_1": {"clp01_mbps": 1.0, "target_mbps": 2.0}}}
    m = gfr.measures(run)
    assert m["group1_ratio"] == 2.0 and m["group2_ratio"] == 0.5
    assert m["max_group_deviation"] == 1.0
    assert abs(m["mean_goodput_mbps"] - 5 / 3) < 1e-12
    assert not gfr.verdict([run])
    ok = {"connections": {"A": {"clp01_mbps": 0.95, "target_mbps": 1.0}}}
    assert gfr.verdict([ok]) and not gfr.verdict([ok, {"connections": {"A": {"clp01_mbps": 0.8, "target_mbps": 1.0}}}])
