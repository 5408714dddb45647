"""`ccsim reproduce hgrcp --quick` (about 15 s on 2 cores): the seed's tables and figures beside ccsim's."""

import json

import pytest

from ccsim.reproductions import hgrcp


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import run_quick_reproduction

    return run_quick_reproduction("hgrcp", tmp_path_factory)


def test_one_json_object_with_the_contract_keys(quick):
    out, doc = quick
    assert doc["paper"] == "hgrcp" and doc["mode"] == "quick"
    for key in ("paper_numbers", "paper_within_tolerance", "wall_s", "report", "runs"):
        assert key in doc
    assert (out / "index.html").exists()
    for f in ("fig7-max-queue.png", "fig8-mean-queue.png", "fig9-delay.png", "fig10-goodput.png"):
        assert (out / "figures" / f).exists(), f


def test_every_printed_number_has_a_row_and_table4_is_theory(quick):
    out, _ = quick
    compared = json.loads((out / "compared.json").read_text())
    rows = compared["numbers"]
    data = hgrcp.load_data()
    expected = len(data["bound"]) + sum(
        len(data[t]["values"]) * sum(q in data[t] for q in ("max_queue", "mean_queue", "goodput_mbps"))
        for t in ("table5", "table6", "table7")) + 2 * len(data["table8"]["buffers"])
    assert len(rows) == expected
    # Eq. 14 reproduces the seed's "theoretical" column (the seed truncates to whole cells).
    for r in rows:
        if r["table"] == "Table 4":
            assert r["ok"] and int(r["theory"]) == r["paper"]
        else:
            assert r["ccsim"] is not None and r["min"] <= r["ccsim"] <= r["max"]
    assert {s["statement"][:7] for s in compared["statements"]} >= {"Fig. 7:", "Fig. 10"}
