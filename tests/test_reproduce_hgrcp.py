"""`ccsim reproduce hgrcp --quick` (about 40 s on 2 cores): every number seed 000 prints as one row of
the verdict model, its sentences as statements, and the verdicts theory guarantees."""

import html
import json

import pytest

from ccsim.reproductions import hgrcp
from ccsim.reproductions import verdicts as V

FIGURES = ("fig6-queue.png", "fig7-max-queue.png", "fig8-mean-queue.png", "fig9-delay.png", "fig10-goodput.png")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import run_quick_reproduction

    return run_quick_reproduction("hgrcp", tmp_path_factory)


@pytest.fixture(scope="module")
def rows(quick):
    from .conftest import check_reproduction_contract

    out, doc = quick
    return check_reproduction_contract(out, doc, "hgrcp", FIGURES)


def test_the_contract_and_one_row_per_printed_number(rows):
    data = hgrcp.load_data()
    by_kind = {k: [r for r in rows if r["kind"] == k] for k in V.KINDS}
    # Eq. 14's column (four periods), Eq. 8's 60 degrees and Eq. 15's 0.5 %: the seed's arithmetic.
    assert len(by_kind["arithmetic"]) == len(data["bound"]) + 2
    assert not any(r["counted"] for r in by_kind["arithmetic"])
    # Table 4's simulated column (2), Table 5 (7 x 3), Table 6 (4 x 3: W = 150 ms is Table 5's Q = 100
    # and Table 7's 0.0 ms printed again), Table 7 (4), Table 8 (5 x 2); the MCR reconstruction (2 x 2).
    sim = by_kind["simulated"]
    assert len(sim) == 2 + 21 + 12 + 4 + 10 + 4
    counted = [r for r in sim if r["counted"]]
    assert len(counted) == len(sim) - 5
    # one seed number, one row: no printed number's locator twice
    keys = [r["where"] for r in rows if r["kind"] != "statement" and r["paper"] is not None]
    assert len(keys) == len(set(keys))
    assert all(r["tolerance"]["reason"] for r in counted)
    # every counted row that differs says why
    assert all(r["note"] for r in counted if r["verdict"] == "differs")
    tables = {r["where"].split(",")[0] for r in counted}
    assert tables == {"Table 4", "Table 5", "Table 6", "Table 7", "Table 8"}


def test_the_verdicts_theory_guarantees(rows):
    by = {r["quantity"]: r for r in rows}
    # Eq. 14 reproduces the seed's "theoretical" column (the seed truncates to whole cells)
    for r in rows:
        if "Eq. 14 zero-loss bound" in r["quantity"]:
            assert r["verdict"] == "agrees" and int(r["ccsim"]) == r["paper"], r
    assert by["Eq. 8: phase margin at K = 1/T, degrees"]["verdict"] == "agrees"
    # The zero-loss bound holds in every run (the pacers decide when a packet starts on the LAN)
    for name in ("Fig. 7: with HG-RCP every run's maximum queue stays below Eq. 14 (596 cells at T = 10 ms)",
                 "Table 4: every run's maximum queue stays below the Eq. 14 bound of its T"):
        assert by[name]["verdict"] == "agrees" and by[name]["counted"], by[name]
    # Window-based TCP piles thousands of cells into the gateway within 5 s
    assert by["Fig. 6: the conventional queue exceeds 3000 cells in the first 5 s (5 connections)"]["verdict"] == "agrees"
    # Table 4's simulated column is counted, not the seed's arithmetic
    t4 = [r for r in rows if r["where"].endswith("column 'Simulation'")]
    assert [r["paper"] for r in t4] == [3896, 1880] and all(r["counted"] and r["kind"] == "simulated" for r in t4)


def test_a_misprint_and_the_mcr_reconstruction_are_not_counted(rows):
    misprint = [r for r in rows if r["paper"] == 4389]
    assert len(misprint) == 1 and misprint[0]["verdict"] == "not_comparable" and not misprint[0]["counted"]
    mcr = [r for r in rows if r["quantity"].startswith("MCR = ")]
    assert len(mcr) == 4 and all(r["verdict"] == "not_comparable" and "[RECON]" in r["note"] for r in mcr)
    assert {r["quantity"].split(" (")[0] for r in mcr} == {"MCR = 350 cells/s", "MCR = 235 cells/s"}


def test_details_fig6_series_and_quick_mode_has_fixed_lengths(quick):
    out, doc = quick
    details = json.loads((out / "details.json").read_text())
    assert details["stopping_rule"]["runs"] == 0, "quick runs have fixed lengths"
    for kind in ("conventional", "hgrcp"):
        s = details["fig6"][kind]
        assert len(s["time_s"]) == len(s["queue_cells"]) > 4000  # 5 s every millisecond
        assert max(s["queue_cells"]) <= s["max_queue_cells"]
    # HG-RCP's queue stays below Eq. 14's 596 cells at T = 10 ms
    assert max(details["fig6"]["hgrcp"]["queue_cells"]) < 596
    page = html.unescape((out / "index.html").read_text())
    assert V.QUICK_WARNING in page and doc["headline"].split(". ", 1)[1] in page


# --- the rows can fail: synthetic results at the seed's numbers, and 20 % off them -----------------


def _fake(data, scale):
    """A `run_all` result whose every printed quantity is the seed's number times `scale` (three
    identical seeds), and everything else a plausible constant."""
    base = {hgrcp.MAX_Q: 300.0, hgrcp.MEAN_Q: 90.0, hgrcp.GOODPUT: 6.0, hgrcp.FAIRNESS: 1.0, hgrcp.DELAY: 7.0,
            **{m: 80.0 for _, m in hgrcp.MEAN_Q_READINGS}}

    def point(**metrics):
        run = dict(base, **{k: v * scale for k, v in metrics.items()})
        return {"value": None, "runs": [dict(run) for _ in range(3)]}

    res = {"reps": 3}
    for key, n in (("n-hgrcp", "n"), ("n-conventional", "n"), ("buffer-hgrcp", "buffers"), ("buffer-conventional", "buffers")):
        res[key] = [point() for _ in data["figures"][n]]
    sim = {b["T_ms"]: b.get("paper_simulated") for b in data["bound"]}
    res["table4"] = [point(**({hgrcp.MAX_Q: sim[t]} if sim.get(t) else {})) for t in data["table4"]["T_ms"]]
    for t in ("table5", "table6", "table7"):
        spec = data[t]
        res[t] = [point(**{m: spec[key][k] for key, m in (("max_queue", hgrcp.MAX_Q), ("mean_queue", hgrcp.MEAN_Q),
                                                          ("goodput_mbps", hgrcp.GOODPUT)) if key in spec})
                  for k in range(len(spec["values"]))]
    t8 = data["table8"]
    for kind in ("conventional", "hgrcp"):
        res[f"buffer-{kind}"] = [point(**({hgrcp.FAIRNESS: t8[kind][t8["buffers"].index(b)]} if b in t8["buffers"] else {}))
                                 for b in data["figures"]["buffers"]]
    res["mcr"] = [point() for _ in data["mcr_check"]["mcr"]]
    # The ER switch's other reading: the same numbers (its rows are readings, never counted).
    res["erica:table4"], res["erica:table5"] = res["table4"], res["table5"]
    res["csma:buffer-hgrcp"], res["csma:buffer-conventional"] = res["buffer-hgrcp"], res["buffer-conventional"]
    return res


@pytest.mark.parametrize("scale,verdict", [(1.0, "agrees"), (1.2, "differs"), (0.8, "differs")])
def test_counted_rows_agree_at_the_seeds_numbers_and_only_there(scale, verdict):
    data = hgrcp.load_data()
    rows = hgrcp.compare(_fake(data, scale), data)
    V.check_rows(rows)
    counted = [r for r in rows if r["counted"]]
    assert len(counted) == 48
    assert {r["verdict"] for r in counted} == {verdict}, [r["quantity"] for r in counted if r["verdict"] != verdict]


def test_a_tolerance_widens_by_the_seeds_spread_only():
    one = hgrcp._printed_tol([400.0], 1.0, "cells", "whole cells")
    three = hgrcp._printed_tol([380.0, 400.0, 420.0], 1.0, "cells", "whole cells")
    assert one["value"] == 0.5 and three["value"] > 0.5 and "half-width" in three["reason"]
    goodput = hgrcp._goodput_tol([6.0])
    assert goodput["mode"] == "rel" and goodput["value"] == pytest.approx(0.05) and "5 %" in goodput["reason"]


def test_reconstructed_choices_carry_their_other_readings():
    """Table 4's simulated rows and Table 5's carry the ER switch's other reading; every mean-queue row
    the two other means; none of them is counted."""
    data = hgrcp.load_data()
    rows = hgrcp.compare(_fake(data, 1.0), data)
    labels = {r["quantity"]: [x["reading"] for x in r.get("readings", [])] for r in rows}
    assert labels["Table 4, T = 100 ms, K = 10: maximum queue, cells"] == [hgrcp.ERICA_LABEL]
    assert labels["Table 5, Q = 20: mean queue, cells"] == [m for m, _ in hgrcp.MEAN_Q_READINGS] + [hgrcp.ERICA_LABEL]
    assert labels["Table 6, W = 50 ms: mean queue, cells"] == [m for m, _ in hgrcp.MEAN_Q_READINGS]
    assert labels["Table 8, buffer 800 cells, HG-RCP: Jain's fairness index over 8 connections"] == [hgrcp.CSMA_LABEL]
    # The readings' own numbers (80 cells, not the seed's) differ: the table marks the row.
    assert all(x["verdict"] == "differs" for r in rows if "mean queue" in r["quantity"] for x in r.get("readings", [])
               if x["reading"] != hgrcp.ERICA_LABEL)
