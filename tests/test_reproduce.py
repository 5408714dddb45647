"""`ccsim reproduce abr-benchmarks`: one quick run through the CLI (module-scoped, about 10 s on
2 cores), then checks on what it wrote; and checks of the seed's data file against the presets."""

import json
import subprocess

import pytest

import ccsim
from ccsim.reproductions import abr_benchmarks as ab

KEYS = {"scenario", "scheme", "quantity", "theory", "paper", "ccsim", "difference"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import VENV_BIN

    exe = VENV_BIN / "ccsim"
    cmd = [str(exe)] if exe.exists() else ["python", "-m", "ccsim"]
    out = tmp_path_factory.mktemp("reproduce") / "abr"
    p = subprocess.run(cmd + ["reproduce", "abr-benchmarks", "--quick", "--json", "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def test_json_output_is_one_object(quick):
    out, stdout = quick
    doc = json.loads(stdout)
    assert doc["paper"] == "abr-benchmarks" and doc["out"] == str(out) and doc["mode"] == "quick"
    assert doc["rows"] > 0 and doc["wall_s"] > 0
    # The headline counts only numbers a simulation is compared with; the seed's max-min arithmetic
    # (redone without simulating), settling times (same order only) and settings are counted apart.
    rows = json.loads((out / "compared.json").read_text())
    simulated, _, others = ab.headline_rows(rows)
    assert doc["paper_numbers"] == len(simulated) > 0
    assert not any(r["quantity"].startswith(("maxmin_mbps", "convergence_ms", "setting")) for r in simulated)
    apart = {c["label"]: c["numbers"] for c in doc["other_counts"]}
    maxmin = [r for r in rows if r["quantity"].startswith("maxmin_mbps") and r["paper"] is not None]
    assert apart["of its max-min rates redone by water-filling (arithmetic, no simulation)"] == len(maxmin) > 0


def test_compared_rows_have_the_keys_and_cover_every_scenario_and_scheme(quick):
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())
    assert rows and all(KEYS <= set(r) for r in rows)
    data = ab.load_data()
    seed = ab.seed_scenarios(data)
    assert len(seed) == 13
    present = {(r["scenario"], r["scheme"]) for r in rows}
    for name in seed:
        for scheme in ab.MAIN_SCHEMES:
            assert (name, scheme) in present, (name, scheme)
    for r in rows:
        if r["ccsim"] is not None and r["paper"] is not None:
            ref = r["paper"]
        elif r["ccsim"] is not None and r["theory"] is not None:
            ref = r["theory"]
        else:
            assert r["difference"] is None
            continue
        # the JSON rounds each number to 6 significant digits
        assert r["difference"] == pytest.approx(r["ccsim"] - ref, abs=1e-5 * max(1.0, abs(r["ccsim"]), abs(ref)))


def test_every_paper_number_appears_in_a_row(quick):
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())
    data = ab.load_data()
    for entry in data["number"] + data["setting"]:
        value = (sum(entry["range"]) / 2) if "range" in entry else entry["value"]
        for scenario in ab._as_list(entry["scenario"]):
            for scheme in ab._as_list(entry["scheme"]):
                hits = [r for r in rows if r["scenario"] == scenario and r["scheme"] == scheme
                        and r["paper"] is not None and r["paper"] == pytest.approx(value)]
                assert hits, (scenario, scheme, entry.get("quantity", entry.get("path")), value)


def test_report_and_figures_written(quick):
    out, _ = quick
    html = (out / "index.html").read_text()
    assert "<table>" in html and "upstream" in html
    for name in ab.scenario_names(ab.load_data()):
        png = out / "figures" / f"{name}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"figures/{name}.png" in html


def test_data_file_names_known_presets_and_schemes():
    data = ab.load_data()
    presets = {n.split("/", 1)[1] for n in ccsim.presets.preset_names() if n.startswith("abr-benchmarks/")}
    schemes = set(ab.SCHEMES)
    assert set(data["scenario"]) <= presets
    for kind in ("number", "statement", "setting"):
        for entry in data.get(kind, []):
            assert set(ab._as_list(entry["scenario"])) <= presets, entry
            assert set(ab._as_list(entry["scheme"])) <= schemes, entry
            assert entry.get("source"), entry
            if kind == "number":
                assert ("value" in entry) != ("range" in entry), entry


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
