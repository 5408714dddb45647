"""`ccsim reproduce hgrcp --quick` (about 15 s on 2 cores): the seed's tables and figures beside ccsim's."""

import json

import pytest

from ccsim.reproductions import hgrcp


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import run_quick_reproduction

    return run_quick_reproduction("hgrcp", tmp_path_factory)


def test_one_json_object_with_the_contract_keys(quick):
    from .conftest import check_reproduction_contract

    out, doc = quick
    check_reproduction_contract(out, doc, "hgrcp", ("fig6-queue.png", "fig7-max-queue.png", "fig8-mean-queue.png",
                                                    "fig9-delay.png", "fig10-goodput.png"))


def test_every_printed_number_has_a_row_and_table4_is_theory(quick):
    out, _ = quick
    compared = json.loads((out / "compared.json").read_text())
    rows = compared["numbers"]
    data = hgrcp.load_data()
    expected = len(data["bound"]) + len(data["table4"]["T_ms"]) + 2 * len(data["mcr_check"]["mcr"]) + sum(
        len(data[t]["values"]) * sum(q in data[t] for q in ("max_queue", "mean_queue", "goodput_mbps"))
        for t in ("table5", "table6", "table7")) + 2 * len(data["table8"]["buffers"])
    assert len(rows) == expected
    # Eq. 14 reproduces the seed's "theoretical" column (the seed truncates to whole cells).
    for r in rows:
        if r["quantity"].startswith("zero-loss bound"):
            assert r["ok"] and int(r["theory"]) == r["paper"]
        else:
            assert r["ccsim"] is not None and r["min"] <= r["ccsim"] <= r["max"]
    # Table 4's simulations: each T's maximum below its own bound
    for r in rows:
        if r["table"] == "Table 4" and r["quantity"] == "max_queue":
            assert r["max"] < r["theory"], r
    assert {s["statement"][:7] for s in compared["statements"]} >= {"Fig. 7:", "Fig. 10", "Table 4"}
    assert all(s["ok"] for s in compared["statements"]), compared["statements"]


def test_fig6_series_and_quick_mode_has_fixed_lengths(quick):
    out, _ = quick
    compared = json.loads((out / "compared.json").read_text())
    assert compared["stopping_rule"]["runs"] == 0, "quick runs have fixed lengths"
    for kind in ("conventional", "hgrcp"):
        s = compared["fig6"][kind]
        assert len(s["time_s"]) == len(s["queue_cells"]) > 4000  # 5 s every millisecond
        assert max(s["queue_cells"]) <= s["max_queue_cells"]
    # the seed's Fig. 6: conventional TCP/IP piles up thousands of cells, HG-RCP stays near Q
    assert max(compared["fig6"]["conventional"]["queue_cells"]) > 3000
    assert max(compared["fig6"]["hgrcp"]["queue_cells"]) < 600
