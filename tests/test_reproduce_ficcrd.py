"""`ccsim reproduce ficcrd`: seed 002's statements about FICCRD and drop-tail under the one verdict
model (issue 36): rows whose quotes are the seed's own words, settings and arithmetic listed apart."""

import html
import json
import math

import polars as pl
import pytest

from ccsim.reproductions import ficcrd

from .conftest import check_reproduction_contract, run_quick_reproduction


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out, doc = run_quick_reproduction("ficcrd", tmp_path_factory)
    rows = check_reproduction_contract(out, doc, "ficcrd", figures=("goodput.png", "drops.png", "queue.png", "seq.png"))
    return out, doc, {r.get("id", r["quantity"]): r for r in rows}


def test_the_quick_reproduction_keeps_the_contract(quick):
    out, doc, rows = quick
    data = ficcrd.load_data()
    # Both bottleneck readings x (drop-tail, and two FICCRD edges x two queue readings) x the
    # quick mode's two seeds, and the sensitivity grid's corners (2 rates x 2 queues x 2 n_rd).
    assert doc["runs"] == 2 * (1 + 2 * 2) * 2 + 2 * 2 * 2
    # The seed prints no simulated number: every counted row is a statement, one per claim.
    assert doc["counted"] == 0 and doc["statements"] + doc["not_comparable"] == len(data["statement"])
    assert sum(r["kind"] == "input" for r in rows.values()) == len(data["input"])
    assert sum(r["kind"] == "arithmetic" for r in rows.values()) == 1
    page = (out / "index.html").read_text()
    assert page.index(html.escape(ficcrd.V.QUICK_WARNING).replace("&#x27;", "&#39;")) < page.index("Every statement under every")
    assert (out / "details.json").exists() and (out / "runs.json").exists()
    assert ficcrd.S.TITLE in page


def test_the_sensitivity_table_counts_rds_apart(quick):
    out, _, _ = quick
    rows = json.loads((out / "details.json").read_text())["sensitivity"]
    assert {(r["queue"], r["n_rd"]) for r in rows} == {("data", 1), ("data", 32), ("packets", 1), ("packets", 32)}
    for r in rows:
        # The RD timer: no flow starves, whatever n_rd.
        assert r["lowest_mbps"] > 0, r
        # One RD leaves right behind every data packet and waits with it: with n_rd = 1 the RD
        # packets are as many in the queue as the data (timer RDs aside); with 32, a few.
        if r["n_rd"] == 1:
            assert abs(r["rd_queue"] - r["data_queue"]) < 0.1 * r["data_queue"], r
        else:
            assert r["rd_queue"] < 0.3 * r["data_queue"], r
    # Counting the data only, one RD per data packet needs Q0 more slots: the 200-packet buffer fills.
    assert all(r["max_queue"] == 200 for r in rows if (r["queue"], r["n_rd"]) == ("data", 1))


def test_the_rows_theory_and_the_model_decide(quick):
    _, _, rows = quick
    # Ten Reno flows with 128 KB windows (320 packets of 4 KB) overfill a 200-packet buffer plus
    # a bandwidth-delay product of ~7 packets: drop-tail must overflow.
    assert rows["overflow"]["verdict"] == "agrees"
    # Drop-tail carries the payload rate, and FICCRD's RD packets take 64 of every 4200 bytes of
    # the link: neither edge can carry more than drop-tail, so the seed's claim cannot hold.
    assert rows["throughput"]["verdict"] == "differs" and rows["throughput"]["counted"]
    # FIEWA's window, ER x RTT = 2.2-2.7 whole segments rounded down to 2, can rise by a segment only
    # if alpha > 3/2: its queue stays near empty. FIABC's control holds the data queue at Q0 = half
    # the buffer, and with one RD behind every data packet the RDs need the other half: the buffer
    # overflows and the data queue swings below Q0. Counting every packet instead, it holds the
    # total at Q0 and the data at half of it: the data queue misses Q0 either way.
    target = rows["target_queue"]
    assert target["verdict"] == "differs" and target["counted"]
    assert "FIEWA fails" in target["note"] and "FIABC fails" in target["note"]
    assert "FIABC (Q = all packets) fails" in target["note"]
    # No drop with FIEWA (its queue is near empty); FIABC's buffer overflows when the control reads
    # the data queue, and holds when it counts every packet.
    no_drops = rows["no_drops"]
    assert no_drops["verdict"] == "not_comparable"
    assert "FIEWA holds" in no_drops["note"] and "FIABC fails" in no_drops["note"]
    assert "FIABC (Q = all packets) holds" in no_drops["note"]
    # The 0.15 Mb/s normalisation is the seed's arithmetic: 10 Mb/s / 10 flows is 1 Mb/s, apart.
    share = rows["the bottleneck fair share goodput is normalised by, Mb/s (bottleneck rate / 10 flows)"]
    assert share["kind"] == "arithmetic" and share["ccsim"] == 1.0 and share["verdict"] == "differs"
    assert not share["counted"]
    # The seed's settings run as stated, but for the named reconstruction of R10-R11's rate.
    inputs = {r["quantity"]: r for r in rows.values() if r["kind"] == "input"}
    assert all(not r["counted"] for r in inputs.values())
    for name in ("FICCRD BUR", "FICCRD alpha (queue control function)", "FICCRD beta (MAPR averaging factor)",
                 "bottleneck R11->R12 buffer, packets", "bottleneck R11-R12 rate, Mb/s", "data packet size, KB"):
        assert inputs[name]["verdict"] == "agrees", name
    assert inputs["R10-R11's rate (one of 'all the other links'), Mb/s"]["verdict"] == "differs"
    # Every statement's note gives its verdict at the other bottleneck reading.
    assert all("At 1.5 Mb/s" in r["note"] for r in rows.values() if r["kind"] == "statement")


def test_statements_are_decided_by_their_criteria():
    c = ficcrd.load_data()["criteria"]
    v = {"value": [0.43, 0.44], "flows": [10, 10], "p5": [0, 0], "p95": [4, 4], "q0": [100, 100]}
    assert ficcrd.TESTS["unfair"](v, c) and not ficcrd.TESTS["fair"](v, c)
    assert ficcrd.TESTS["fair"](dict(v, value=[0.95, 1.04]), c)
    assert not ficcrd.TESTS["every_seed_positive"](dict(v, value=[3, 0]), c)
    assert ficcrd.TESTS["every_seed_zero"](dict(v, value=[0, 0]), c)
    assert not ficcrd.TESTS["every_seed_all_flows"](dict(v, value=[10, 9]), c)
    # At the target: mean within 10 % of Q0 and the 5th-95th percentile within 25 %.
    at = dict(v, value=[99.4, 99.5], p5=[94, 93], p95=[104, 104])
    assert ficcrd.TESTS["at_target"](at, c)
    assert not ficcrd.TESTS["at_target"](dict(at, p95=[140, 140]), c)
    assert not ficcrd.TESTS["at_target"](dict(v, value=[2.4, 2.4]), c)
    # "Greatly degrades": a shortfall of 0.1 % is not great.
    assert not ficcrd.TESTS["greatly"](dict(v, value=[0.001, -0.001]), c)


def test_measures_follow_the_summary_and_the_traces():
    conns = [{"name": "S0", "goodput_mbps": 0.5, "drops": 3, "max_goodput_mbps": 1.0, "fast_retransmits": 1, "timeouts": 2},
             {"name": "S1", "goodput_mbps": 1.0, "drops": 0, "max_goodput_mbps": 1.0, "fast_retransmits": 0, "timeouts": 0},
             {"name": "S2", "goodput_mbps": 1.5, "drops": 2, "max_goodput_mbps": 1.0, "fast_retransmits": 2, "timeouts": 1}]
    s = {"connections": conns, "goodput_mbps_total": 3.0, "connections_fairness_index": 0.9, "window_s": [0.0, 4.0],
         "links": [{"name": "R11-R12 (R11->R12)", "rate_mbps": 3.0}],
         "ports": [{"name": "R11->R12", "unit": "packets", "max_queue_packets": 200, "mean_queue_packets": 150.0, "drops": 5,
                    "buffer_packets": 200}]}
    m = ficcrd.measures(s)
    assert m["s0_over_others"] == 0.5 / 1.25 and m["goodput_shortfall"] == 0.0 and m["fair_share_mbps"] == 1.0
    assert m["flows_with_drops"] == 2 and m["fast_retransmits"] == 3 and m["lowest_goodput_mbps"] == 0.5
    # Two separate episodes at the full buffer; S0 sends evenly, S1 in one burst, S2 never.
    queue = pl.DataFrame({"time_s": [0.0, 1.0, 2.0, 3.0, 4.0], "queue_cells": [200, 150, 200, 200, 10]})
    seq = pl.DataFrame({"time_s": [0.0, 4.0, 0.0, 1.0, 2.0, 4.0, 0.0, 4.0],
                        "connection": ["S0", "S0", "S1", "S1", "S1", "S1", "S2", "S2"],
                        "seq_bytes": [0.0, 4000.0, 0.0, 0.0, 4000.0, 4000.0, 0.0, 0.0]})
    t = ficcrd.trace_measures(s, queue, seq, 1.0)
    assert t["full_buffer_episodes"] == 2
    assert math.isinf(t["burstiness"])  # a flow that sends nothing has no finite burstiness
    t2 = ficcrd.trace_measures(dict(s, connections=conns[:2]), queue, seq, 1.0)
    assert t2["burstiness"] == pytest.approx((0.0 + math.sqrt(3)) / 2)  # S1: 4000 in one of four bins
