"""`ccsim reproduce gfr`: seed 001's Experiments A and B and Table 1 under the one verdict model, quick;
the 24,000-cell twins are what their generator writes; quick verdicts measured to flip are withheld."""

import importlib.util
import json
from pathlib import Path

import pytest

from ccsim.reproductions import gfr
from ccsim.reproductions import verdicts as V


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import check_reproduction_contract, run_quick_reproduction

    out, doc = run_quick_reproduction("gfr", tmp_path_factory)
    rows = check_reproduction_contract(out, doc, "gfr", figures=("fig5-equal.png", "fig6-b1.png", "fig7-b2.png"))
    return out, doc, rows


ROOT = Path(__file__).resolve().parents[1]


def by_quantity(rows, start):
    found = [r for r in rows if r["quantity"].startswith(start)]
    assert len(found) == 1, (start, [r["quantity"] for r in found])
    return found[0]


def test_one_json_object_with_the_contract_keys(quick):
    out, doc, rows = quick
    data = gfr.load_data()
    # Every preset, the 24,000-cell twin of every Experiment B and Table 1 preset, and rows 3 and 7
    # once more with the second level for tagged frames.
    n = len(gfr.presets(data)) + len(gfr.twins(data)) + len(data["clp1_reading"]["presets"])
    assert doc["runs"] == n * data["quick_replications"]
    assert len(gfr.twins(data)) == 8
    assert (out / "details.json").exists() and (out / "runs.json").exists()
    html = (out / "index.html").read_text()
    assert V.QUICK_WARNING.split(":")[0] in html and "Table 1, row 5" in html


def test_table1_rows_in_the_seeds_order_with_the_seeds_rows_as_quotes(quick):
    _, _, rows = quick
    table = [r for r in rows if r["quantity"].startswith("Table 1, row")]
    options = gfr.load_data()["option"]
    assert [r["scenarios"] for r in table] == [[o["preset"] for o in options][k:k + 1] for k in range(8)]
    assert all(r["kind"] == "statement" and r["quote"] == o["quote"] and r["seed_says"] == o["paper"]
               for r, o in zip(table, options))
    # FIFO cannot give unequal allocations their targets, whatever accounting does (rows 1, 2 and 4):
    # the lowest VC stays far below 0.9 of its target, as the seed says.
    for k in (1, 2, 4):
        assert table[k - 1]["verdict"] == "agrees" and table[k - 1]["ccsim"].startswith("No"), table[k - 1]
    # Rows 3 and 7 (tagging without accounting) drop tagged frames first (issue #38): counted, with
    # the second level for tagged frames and the 24,000-cell buffer as readings, and their runs are
    # not rows 1's and 5's (no tagging) under another name.
    out, _, _ = quick
    runs = json.loads((out / "runs.json").read_text())
    prints = {p: [r["fingerprint"] for r in runs if r["scenario"] == p] for p in {r["scenario"] for r in runs}}
    for k, same in ((3, 1), (7, 5)):
        r = table[k - 1]
        assert r["counted"] and r["verdict"] in ("agrees", "differs"), r
        assert [x["reading"].split(" [")[0] for x in r["readings"]] == ["24,000 cells", "tagged frames refused from 3,000 cells (0.25 × buffer)"]
        mine, theirs = prints[options[k - 1]["preset"]], prints[options[same - 1]["preset"]]
        assert len(mine) == len(theirs) and not set(mine) & set(theirs)


def test_experiment_b_and_table1_rows_show_both_readings_of_the_unstated_buffer(quick):
    _, doc, rows = quick
    b = [r for r in rows if {"gfr/unequal-b1", "gfr/unequal-b2"} & set(r.get("scenarios", [])) or r["quantity"].startswith("Table 1")]
    assert len(b) == 5 + 8
    for r in b:
        assert "[RECON]" in r["note"] and "24,000 cells instead" in r["note"], r["quantity"]
        other = r["readings"][0]
        assert other["reading"].startswith("24,000 cells") and other["verdict"] in ("agrees", "differs", "not_comparable")
    # The summary names the rows whose verdict the buffer decides (none withheld among them).
    withheld = {r["quantity"] for r in rows if r["verdict"] == "not_comparable"}
    assert set(doc["depends_on_buffer"]) <= {r["quantity"] for r in b} - withheld
    # A work-conserving per-VC scheduler keeps the link full at either buffer size: "over 90%".
    eff = by_quantity(rows, "Experiment B2 (per-VC SCFQ, EPD, no tagging): total efficiency")
    assert eff["verdict"] == "agrees" and eff["readings"][0]["verdict"] == "agrees"


def test_tolerances_come_from_the_seeds_printed_digits(quick):
    _, _, rows = quick
    # "0.8 of its allocation": one significant digit, no "about" the seed did not write.
    r = by_quantity(rows, "Experiment B1 (FIFO, WBA, tagging): highest-MCR")
    assert r["paper"] == 0.8 and "about" not in r["quote"]
    assert r["tolerance"]["mode"] == "abs" and r["tolerance"]["value"] == 0.05 and "significant digit" in r["tolerance"]["reason"]
    # One seed number, one row: "about 8.2 Mbps for both buffer sizes" is a single counted row.
    assert sum(1 for x in rows if x["counted"] and x["paper"] == 8.2) == 1
    # 50 sources fill 125.8 Mb/s of payload: 2.52 Mb/s each, inside the seed's 2.5 printed to a tenth.
    assert by_quantity(rows, "Experiment A, 50 sources (")["verdict"] == "agrees"
    # The seed's own arithmetic, redone, is listed apart: 1024/1219 of 149.76 Mb/s is 125.8, not 127.8.
    arith = [x for x in rows if x["kind"] == "arithmetic"]
    assert arith and not any(x["counted"] for x in arith)
    assert next(x for x in arith if x["paper"] == 127.8)["verdict"] == "differs"
    # A quick run says its 4 s among the inputs.
    assert by_quantity(rows, "Simulated time")["ccsim"] == 4.0


def _run(seed, rel_std, n=6):
    """A run whose sources' throughputs have the given relative (population) standard deviation."""
    half = rel_std  # n/2 sources at 1 + d, n/2 at 1 - d: pstdev/mean = d
    conns = {f"S{i}": {"clp01_mbps": 1 + (half if i % 2 else -half), "target_mbps": 1.0} for i in range(n)}
    return {"seed": seed, "efficiency": 1.0, "met": True, "connections": conns}


def test_a_trend_holds_only_beyond_the_seeds_spread():
    trend = {"quantity": "std grows", "pairs": [["a", "b"]], "measure": "relative_std", "sign": 1,
             "quote": "increases", "where": "x", "reason": "interval above 0"}
    data = {"trend": [trend]}
    small = [_run(s, 0.10 + 0.02 * s) for s in range(1, 6)]
    # +0.008 against a spread of ±0.04: inside the seeds' spread, not growth.
    noisy = [_run(s, 0.10 + 0.008 + 0.02 * s + (0.04 if s % 2 else -0.04)) for s in range(1, 6)]
    row = gfr.trend_rows({"a": small, "b": noisy}, data)[0]
    assert row["verdict"] == "differs" and row["counted"] and row["ccsim_ci"][0] < 0 < row["ccsim_ci"][1]
    clear = [_run(s, 0.20 + 0.02 * s + (0.01 if s % 2 else -0.01)) for s in range(1, 6)]
    row = gfr.trend_rows({"a": small, "b": clear}, data)[0]
    assert row["verdict"] == "agrees" and row["ccsim_ci"][0] > 0
    # The opposite claim ("decreases") on the same runs fails.
    trend["sign"] = -1
    assert gfr.trend_rows({"a": small, "b": clear}, data)[0]["verdict"] == "differs"


def test_measures_and_verdict_follow_their_definitions():
    run = {"efficiency": 0.99, "met": False, "connections": {
        "G1_1": {"clp01_mbps": 3.0, "target_mbps": 1.0}, "G1_2": {"clp01_mbps": 1.0, "target_mbps": 1.0},
        "G2_1": {"clp01_mbps": 1.0, "target_mbps": 2.0}}}
    m = gfr.measures(run)
    assert m["group1_ratio"] == 2.0 and m["group2_ratio"] == 0.5
    assert m["max_group_deviation"] == 1.0
    assert abs(m["mean_goodput_mbps"] - 5 / 3) < 1e-12
    assert not gfr.verdict([run]) and gfr.lowest_ratio([run]) == 0.5
    ok = {"connections": {"A": {"clp01_mbps": 0.95, "target_mbps": 1.0}}}
    assert gfr.verdict([ok]) and not gfr.verdict([ok, {"connections": {"A": {"clp01_mbps": 0.8, "target_mbps": 1.0}}}])


def test_quick_verdicts_measured_to_flip_are_withheld_and_said(quick):
    out, doc, rows = quick
    flips = gfr.load_data()["quick"]["flips"]
    assert flips, "the quick/full comparison is recorded"
    for f in flips:
        r = next(x for x in rows if x["quantity"].startswith(f["row"]))
        assert r["note"].startswith("Not decided in a quick run"), r["quantity"]
        if f["which"] == "counted":
            assert r["verdict"] == "not_comparable" and not r["counted"]
        else:
            reading = next(x for x in r["readings"] if x["reading"].startswith(f["which"]))
            assert reading["verdict"] == "not_comparable"
    html = (out / "index.html").read_text()
    assert "measured to differ from the full run" in html


def test_the_quick_gate_withholds_only_what_was_measured_to_flip():
    data = {"quick": {"measured": "a test", "flips": [
        {"row": "Row A", "which": "counted", "quick": "1, agrees", "full": "2, differs"},
        {"row": "Row B", "which": "24,000 cells", "quick": "No, differs", "full": "Yes, agrees"}]}}
    tol = V.tolerance("abs", 0.5, "a test")
    a = V.quantity("Row A: x", 1.0, "about 1", [1.0, 1.1], tol, note="n")
    other = {"reading": "24,000 cells [RECON]", "ccsim": 3.0, "ccsim_ci": None, "verdict": "differs"}
    b = V.quantity("Row B: x", 1.0, "about 1", [1.0, 1.1], tol, note="n", readings=[other])
    c = V.quantity("Row C: x", 1.0, "about 1", [1.0, 1.1], tol, note="n")
    ga, gb, gc = (gfr.quick_gate(r, data) for r in (a, b, c))
    assert a["counted"] and ga["verdict"] == "not_comparable" and not ga["counted"] and "quick 1, agrees" in ga["note"]
    assert gb["verdict"] == "agrees" and gb["counted"] and gb["readings"][0]["verdict"] == "not_comparable"
    assert gb["note"].startswith("Not decided in a quick run") and gc == c
    # A withheld reading is not a verdict the buffer decides.
    assert gfr.depends_on([gb], "24,000 cells [RECON]") == [] and gfr.depends_on([b], "24,000 cells [RECON]") == ["Row B: x"]


def test_the_24k_presets_are_what_the_generator_writes():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "make_gfr_24k_presets.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    want = gen.presets()
    have = {p.name: p.read_text() for p in (ROOT / "python" / "ccsim" / "presets" / "gfr").glob("*-24k.toml")
            if not p.name.startswith("equal-")}
    assert have == want, "run scripts/make_gfr_24k_presets.py"
    # Each twin is its preset at twice the buffer, thresholds in cells scaled with it.
    twin = want["option-noacct-tag-fifo-24k.toml"]
    assert 'buffer = "24000cells"' in twin and 'clp1_threshold = "12000cells"' in twin
