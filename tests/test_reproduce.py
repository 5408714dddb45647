"""`ccsim reproduce abr-benchmarks`: one quick run through the CLI (module-scoped), then checks on
what it wrote under the one verdict model (ccsim/reproductions/verdicts.py); and checks of the
seed's data file against the presets."""

import json
import subprocess

import pytest

import ccsim
from ccsim.reproductions import abr_benchmarks as ab
from ccsim.reproductions import verdicts

from .conftest import check_reproduction_contract

FIGURES = [f"{name}.png" for name in ab.scenario_names(ab.load_data())]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import VENV_BIN

    exe = VENV_BIN / "ccsim"
    cmd = [str(exe)] if exe.exists() else ["python", "-m", "ccsim"]
    out = tmp_path_factory.mktemp("reproduce") / "abr"
    p = subprocess.run(cmd + ["reproduce", "abr-benchmarks", "--quick", "--json", "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    rows = check_reproduction_contract(out, doc, "abr-benchmarks", FIGURES)
    return out, doc, {r["quantity"]: r for r in rows}


def test_the_contract_holds_and_the_headline_counts_only_simulated_rows_and_statements(quick):
    out, doc, rows = quick
    assert doc["counted"] > 0 and doc["statements"] > 0
    # The seed's own arithmetic (max-min rates, D × C) and the presets' settings are apart, never counted.
    apart = [r for r in rows.values() if r["kind"] in ("arithmetic", "input")]
    assert apart and not any(r["counted"] for r in apart) and doc["apart"] == len(apart)
    # Eight max-min rates are six seed numbers ("Each A and D source should receive about 5.55"), once each,
    # not once per scheme.
    maxmin = [r for r in rows.values() if r["kind"] == "arithmetic" and "max-min" in r["quantity"]]
    assert len(maxmin) == 6
    # S1's 100 Mb/s in Honest-one-high is the preset's fixed rate: an input, not a result.
    assert all(r["kind"] == "input" for q, r in rows.items() if "S1's rate" in q)


def test_one_seed_number_is_one_row_and_ranges_are_the_seeds(quick):
    _, _, rows = quick
    data = ab.load_data()
    # every [[number]] is exactly one row, every [[statement]] one, every [[setting]] one
    assert len(rows) == len(data["number"]) + len(data["statement"]) + len(data["setting"])
    for r in rows.values():
        if r["tolerance"] and r["tolerance"]["mode"] == "range":
            assert isinstance(r["paper"], list) and len(r["paper"]) == 2
    # a number the seed gives for two schemes is one row pooling both
    clr = rows["Dishonest, ERICA and DEBRA: cell loss ratio in the greedy period (both sources), %"]
    assert clr["paper"] == 18 and clr["schemes"] == ["erica", "debra"] and "ERICA" in clr["note"] and "DEBRA" in clr["note"]


def test_every_counted_row_states_its_tolerance_and_settling_times_are_not_comparable(quick):
    _, _, rows = quick
    for r in rows.values():
        if r["counted"]:
            assert r["tolerance"]["reason"].strip()
    conv = [r for r in rows.values() if "to converge" in r["quantity"]]
    assert conv and all(r["verdict"] == "not_comparable" and not r["counted"] for r in conv)


def test_max_min_fix_is_shown_both_ways_for_every_erica_row(quick):
    _, _, rows = quick
    with_numbers = set(ab.published(ab.load_data()))
    for r in rows.values():
        family = set(r.get("schemes", [])) & set(ab.FAMILY) and r["scenario"] in with_numbers
        if family and r["kind"] in ("simulated", "statement"):
            assert any(x["reading"].startswith("max_min_fix = false") for x in r["readings"]), r["quantity"]
        if not family:
            assert not any(x["reading"].startswith("max_min_fix") for x in r.get("readings", [])), r["quantity"]


def test_verdicts_the_model_guarantees(quick):
    _, _, rows = quick
    # Water-filling redoes the seed's max-min arithmetic exactly (to its printed digit).
    for r in rows.values():
        if r["kind"] == "arithmetic":
            assert r["verdict"] == "agrees", r["quantity"]
    # The presets carry the settings the seed states.
    for r in rows.values():
        if r["kind"] == "input":
            assert r["verdict"] == "agrees", (r["quantity"], r["ccsim"], r["note"])
    # DEBRA's reconstruction reaches C × max-min by construction: GFC1's rates to the seed's digit.
    for q in ("the A and D sources' ACR", "the B and E sources' ACR", "the C sources' ACR", "the F sources' ACR"):
        assert rows[f"GFC1, DEBRA: {q}" + (" (window mean over the 9 sources), Mb/s" if " and " in q else " (window mean), Mb/s")][
            "verdict"] == "agrees"
    # A dishonest source sending 1.5× its share into a FIFO always gains: D1 > D2 for every scheme.
    assert rows["Dishonest: D1 receives more cells than D2 with every scheme"]["verdict"] == "agrees"
    # ERICA with max_min_fix off holds S2 at exactly U·C/2 = 73.87 against the seed's 73.8 (to its digit);
    # with the fix on (counted) it sits inside the δ band above it.
    s2 = rows["Honest-one-high, ERICA: S2's ACR (window mean), Mb/s"]
    off = next(x for x in s2["readings"] if x["reading"].startswith("max_min_fix = false"))
    assert off["verdict"] == "agrees" and off["ccsim"] == pytest.approx(73.872, abs=0.01)
    # Upstream DEBRA: the seed's 9.33 / 65.32 are 0.90 × max-min, the stated C = 0.95 gives 9.85 / 68.95.
    assert rows["Upstream, DEBRA: S1-S15's ACR (window mean), Mb/s"]["verdict"] == "differs"


def test_report_shows_the_rows_the_readings_and_every_figure(quick):
    out, _, _ = quick
    import html as H

    html = H.unescape((out / "index.html").read_text())
    assert verdicts.QUICK_WARNING in html and "Two readings of max_min_fix" in html
    assert "The seed's own arithmetic, redone (not counted)" in html and "The preset's inputs (not counted)" in html
    for f in FIGURES:
        png = out / "figures" / f
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"figures/{f}" in html
    details = json.loads((out / "details.json").read_text())
    assert details["theory"] and {"scenario", "scheme", "quantity", "theory", "ccsim"} <= set(details["theory"][0])


def test_data_file_names_known_presets_and_schemes():
    data = ab.load_data()
    presets = {n.split("/", 1)[1] for n in ccsim.presets.preset_names() if n.startswith("abr-benchmarks/")}
    schemes = set(ab.SCHEMES)
    assert set(data["scenario"]) <= presets
    assert len(ab.seed_scenarios(data)) == 13
    for kind in ("number", "statement", "setting"):
        for entry in data.get(kind, []):
            assert set(ab._as_list(entry["scenario"])) <= presets, entry
            assert set(ab._as_list(entry.get("scheme", "erica"))) <= schemes, entry
            assert entry.get("quote") and entry.get("where") and entry.get("label"), entry
            if kind == "number":
                assert ("value" in entry) != ("range" in entry), entry
            if kind == "statement":
                assert entry["check"] in ab.STATEMENT_CHECKS and entry["criterion"], entry


def test_quotes_in_the_data_file_are_the_seeds_words():
    from .conftest import check_quotes_in_seed

    data = ab.load_data()
    check_quotes_in_seed([{"quote": e["quote"]} for k in ("number", "statement", "setting") for e in data[k]],
                         "abr-benchmarks")


def test_waterfill_matches_the_engine_maxmin_on_greedy_presets():
    """Theory's water-filling (factor 1) agrees with the engine's max-min rates."""
    for name in ("gfc1", "gfc2", "upstream", "parking-lot-5"):
        r = ccsim.run(f"abr-benchmarks/{name}", duration="20ms", measure_from="0ms")
        topo = ab.topology(ccsim.resolve(f"abr-benchmarks/{name}"))
        rates = ab.theory_rates(topo, (0.0, 20.0), scaled=False)
        for s in r.summary()["sources"]:
            assert rates[s["name"]] == pytest.approx(s["maxmin_mbps"], rel=1e-6), (name, s["name"])


def test_scheme_factor_comes_from_the_resolved_scenario():
    for scheme, expect in (("erica", 0.9), ("erica_plus", 1.0), ("debra", 0.95), ("ut", 0.9), ("eprca", None)):
        alg = ccsim.resolve("abr-benchmarks/gfc1", scheme=scheme)["defaults"]["algorithm"]
        assert ab.scheme_factor(alg) == expect
    alg = ccsim.resolve("abr-benchmarks/gfc1", scheme="erica", set={"defaults.algorithm.target_utilization": 0.8})
    assert ab.scheme_factor(alg["defaults"]["algorithm"]) == 0.8


def test_the_other_reading_of_max_min_fix_reaches_the_engine():
    alg = ccsim.resolve("abr-benchmarks/upstream", scheme="erica_plus", set=dict(ab.READINGS["off"]))["defaults"]["algorithm"]
    assert alg["max_min_fix"] is False
    assert ccsim.resolve("abr-benchmarks/upstream", scheme="erica")["defaults"]["algorithm"]["max_min_fix"] is True


def test_unknown_paper_is_a_clean_error(cli, env):
    p = subprocess.run(cli + ["reproduce", "nope"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stderr.startswith("error: unknown reproduction 'nope'")


def test_report_tables_fold_and_numbers_show_their_precision():
    from ccsim.reproductions import _common as C

    assert C.fmt(7.105427357601002e-15) == "0" and C.fmt(-3e-12) == "0" and C.fmt(0.0123) == "0.0123"
    rows = [{"quantity": f"q{i}", "ok": i % 10 != 0} for i in range(40)]
    html = C.html_table(rows, [("quantity", "quantity")])
    assert html.startswith("<details><summary>40 rows, 4 outside their tolerance</summary><table>")
    assert C.html_table(rows[:5], [("quantity", "quantity")]).startswith("<table>")


def test_units_are_read_by_the_scenario_loaders_parser():
    """One parser for units: the reproductions read durations and rates exactly as scenarios do."""
    from ccsim.reproductions import _common as C

    assert C.rate_mbps("155.52Mbps") == 155.52 and C.rate_mbps("10000cells/s") == pytest.approx(4.24)
    assert C.duration_ms("1.5ms") == 1.5 and C.duration_ms("2us") == pytest.approx(0.002)
    with pytest.raises(ccsim.ScenarioError, match="unknown time unit 'parsecs'"):
        C.duration_ms("5parsecs")
