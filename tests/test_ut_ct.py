"""Seed 004's presets and `ccsim reproduce ut-ct --quick`: the presets are what their generator
writes, UT over greedy TCP reaches its target utilisation with a short queue, and the reproduction's
contract, figures and fairness arithmetic."""

import importlib.util
import json
from pathlib import Path

import pytest

import ccsim
from ccsim.reproductions import ut_ct

ROOT = Path(__file__).resolve().parents[1]


def test_presets_are_what_the_generator_writes():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "make_ut_ct_presets.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    want = gen.presets()
    have = {p.name: p.read_text() for p in (ROOT / "python" / "ccsim" / "presets" / "ut-ct").glob("*.toml")}
    assert have == want, "run scripts/make_ut_ct_presets.py"
    names = {name for name, _ in ccsim.list_presets()}
    for case in range(1, 7):
        for kind in ("ut", "ct-table3", "ct-bdp", "ct-timeout"):
            assert f"ut-ct/two-node-case{case}-{kind}" in names
    for case in (1, 2, 3):
        for kind in ("ut", "ct-bdp"):
            assert f"ut-ct/maxmin-case{case}-{kind}" in names


def greedy(preset: str, duration: str = "3s", measure_from: str = "1s") -> dict:
    """A preset with greedy TCP sources instead of sessions: the bottleneck is always loaded."""
    s = ccsim.resolve(preset)
    for c in s["connection"]:
        c.pop("sessions", None)
    s["run"] = {"duration": duration, "measure_from": measure_from}
    return s


def bottleneck(s: dict) -> tuple[float, float, float]:
    """Utilisation and mean queue of switch 1's output, and the cell-weighted mean CTD (ms)."""
    link = next(l for l in s["links"] if l["name"] == "SW1-SW2 (SW1->SW2)")
    port = next(p for p in s["ports"] if p["name"] == "SW1->SW2")
    cs = s["connections"]
    ctd = sum(c["ctd_mean_ms"] * c["ctd_cells"] for c in cs) / sum(c["ctd_cells"] for c in cs)
    return link["utilization"], port["mean_queue_cells"], ctd


def test_ut_reaches_its_target_with_a_short_queue_under_greedy_tcp():
    """UT aims the bottleneck at rho_T = 0.9: with ten greedy sources on case 1's DS3 its output runs
    near 0.9 and its queue stays a few cells (seed 004 Table III's order of magnitude)."""
    util, queue, _ = bottleneck(ccsim.run(greedy("ut-ct/two-node-case1-ut")).summary())
    assert 0.8 < util < 0.95, util
    assert queue < 20, queue


def greedy_abr(preset: str, duration: str, measure_from: str, start_step: str) -> dict:
    """A preset with greedy ABR sources instead of TCP connections (same count, route, access and egress
    links and defaults), started `start_step` apart: UT's own loop, without TCP's windows."""
    s = ccsim.resolve(preset)
    (c,) = s.pop("connection")
    s["source"] = [{"name": "S", "count": c["count"], "route": c["route"], "access": c["access"],
                    "egress": c["egress"], "start_step": start_step}]
    s["run"] = {"duration": duration, "measure_from": measure_from}
    return s


@pytest.mark.parametrize("r_a", ["arrivals", "ccr"])
def test_greedy_ut_on_case_2_holds_90_percent_with_a_queue_of_table_iiis_order(r_a):
    """Seed 004: "the target channel utilization of 90% was achieved with a mean queue length of less
    than 5 cells" (Table III, case 2: 3.17 mean, 24 max). Case 2 is 100 ABR sources on OC-3, each paced at
    the fair share 0.9 C / 100: the port sees the superposition of 100 periodic streams at load 0.9.
    Poisson arrivals at that load (M/D/1) give rho + rho^2 / (2 (1 - rho)) = 4.95 cells in the system;
    paced streams with random phases give less, and what the loop adds is the fair share moving from
    one interval to the next (the arrivals reading counts cells, +-1 per source and interval; the
    ccr reading reads the rates exactly). Measured (docs/validation/ut-queue.md, A): arrivals 5.6 here
    and 6.1 over 20-40 s, ccr 4.8, both at 0.900. "< 5" is the M/D/1 figure itself and fails by a cell
    for the arrivals reading; the bound is twice it, 10 cells: a loop that works stays under it, and
    every failure seen (the start-up transient, 10^5 cells; TCP sessions holding ACRs of several
    times the fair share, 10^2) exceeds it by orders of magnitude. Starts are staggered 20 ms so that
    the 2-s start-up (every source at ER = 0.9 C in the first interval) is over by 4 s."""
    s = greedy_abr("ut-ct/two-node-case2-ut", "8s", "4s", "20ms")
    s["defaults"]["algorithm"]["r_a"] = r_a
    summary = ccsim.run(s).summary()
    util = next(l for l in summary["links"] if l["name"] == "SW1-SW2 (SW1->SW2)")["utilization"]
    queue = next(p for p in summary["ports"] if p["name"] == "SW1->SW2")["mean_queue_cells"]
    assert util == pytest.approx(0.9, abs=0.01), util
    assert queue < 10, queue


@pytest.mark.parametrize("case", [3, 5])
def test_under_load_ct_queues_and_delays_far_exceed_uts(case):
    """The seed's Figs. 4-5 where the bottleneck is loaded (greedy sources, long-delay DS3 cases): UT
    holds its target and its cells wait little beyond the one-way propagation delay; CT with
    bandwidth-delay allocations fills its larger allocations: queues ten times UT's and a queueing
    delay several times UT's. Measured over 6-12 s: greedy TCP's start-up over UT builds a queue of
    ~10^4 cells that takes 2-5 s to drain (how long depends on the TCP's loss recovery), and UT still
    sees bursts of 10^3 cells afterwards when recovering flows resume together."""
    ut = bottleneck(ccsim.run(greedy(f"ut-ct/two-node-case{case}-ut", "12s", "6s")).summary())
    ct = bottleneck(ccsim.run(greedy(f"ut-ct/two-node-case{case}-ct-bdp", "12s", "6s")).summary())
    one_way_ms = {3: 12.5, 5: 25.0}[case]
    assert 0.85 < ut[0] < 0.95, ut
    assert one_way_ms < ut[2] < ct[2], (ut, ct)
    assert ut[2] - one_way_ms < 0.25 * (ct[2] - one_way_ms), (ut, ct)
    assert ct[1] > 10 * ut[1], (ut, ct)


def test_every_preset_sends_the_seeds_1536_byte_pdu_as_the_32_cells_eq6_counts():
    """Issue #37 item 5: the seed's PDU is "fixed to 1536 bytes" and its Eq. 6 counts ceil(1536/48) = 32
    cells per packet; the presets send that PDU whole (a 1488-byte segment, 40 header bytes and the
    8-byte AAL5 trailer, no LLC/SNAP). The engine's own arithmetic decides: an adapter of 31 cells
    cannot hold one PDU (it was 33 cells: 1496 + 40 + 8 LLC/SNAP + 8 trailer)."""
    pdu = ut_ct.load_data()["pdu_bytes"]
    assert pdu == 1536 and ut_ct.pdu_cells(pdu) == 32 and ut_ct.segment_bytes(pdu) == 1488
    names = [n for n, _ in ccsim.list_presets() if n.startswith("ut-ct/")]
    assert len(names) == 30
    for name in names:
        s = ccsim.resolve(name)
        assert s["defaults"]["tcp"]["mss"] == "1488B" and s["defaults"]["tcp"]["llc_snap"] is False, name
        s["defaults"]["host_buffer"] = "31cells"
        with pytest.raises(ccsim.ScenarioError, match=r"cannot hold one PDU of connection\[0\] \(32 cells\)"):
            ccsim.run(s)


def test_a_saturated_link_reads_eq6_at_segment_over_pdu():
    """Eq. 6 divides by the line rate times Pkt_Size / (53 ceil(Pkt_Size/48)); with 32-cell PDUs on the
    wire a link CT fills with greedy TCP reads MSS / PDU = 1488/1536 = 0.969 (33-cell PDUs read at most
    1496/33/48 = 0.944)."""
    s = greedy("ut-ct/two-node-case1-ct-bdp", "4s", "2s")
    m = ut_ct.measure(ccsim.run(s, series=False).summary(), 2.0, 1536, [("SW1", "SW2")])
    assert m["utilization"] == pytest.approx(1.0, abs=1e-6) and m["trunks"] == {"SW1->SW2": m["utilization"]}
    assert m["goodput_eq6"] == pytest.approx(1488 / 1536, rel=2e-3)


def test_a_row_resting_on_a_link_that_carried_nothing_has_no_verdict():
    """Issue #37 item 6: a verdict needs traffic on every trunk of every configuration it rests on,
    in every run; otherwise the row is not comparable, not counted, and says which link was idle."""
    from ccsim.reproductions import verdicts as V

    row = V.statement("UT's utilisation above CT's", "UT's performance is better in all cases", True, "3 of 3",
                      V.tolerance("criterion", None, "higher mean utilisation"))
    busy = {"maxmin-case1-ut": [{"trunks": {"SW1->SW2": 0.3, "SW2->SW3": 0.2}}]}
    idle = {"maxmin-case1-ut": [{"trunks": {"SW1->SW2": 0.3, "SW2->SW3": 0.0}}]}
    kept = ut_ct.gate(row, busy, ["maxmin-case1-ut"])
    assert kept["verdict"] == "agrees" and kept["counted"] and kept["configurations"] == ["maxmin-case1-ut"]
    gone = ut_ct.gate(row, idle, ["maxmin-case1-ut"])
    assert gone["verdict"] == "not_comparable" and not gone["counted"] and gone["tolerance"] == row["tolerance"]
    assert "maxmin-case1-ut, seed 1: SW2->SW3" in gone["note"] and gone["note"].endswith(row["note"])
    assert V.counts([gone], True)["not_comparable"] == 1


def test_bad_session_and_credit_settings_are_refused_by_field():
    s = ccsim.resolve("ut-ct/two-node-case1-ct-bdp")
    s["connection"][0]["sessions"] = {"burst": {"shape": 1.0}}
    with pytest.raises(ccsim.ScenarioError, match=r"^connection\[0\]\.sessions\.burst\.shape"):
        ccsim.run(s)
    ip = {"name": "t", "run": {"duration": "1s"}, "router": [{"name": "R1"}, {"name": "R2"}],
          "link": [{"between": ["R1", "R2"]}], "connection": [{"name": "T", "route": ["R1", "R2"]}],
          "credit": {"policy_limit": 100}}
    with pytest.raises(ccsim.ScenarioError, match=r"^connection\[0\]\.route\[0\]: 'R1' is an IP router"):
        ccsim.run(ip)


def test_water_filling_and_fairness_arithmetic():
    # demands below the fair share are met; the rest share what is left equally
    assert ut_ct.water_fill([1.0, 2.0, 10.0, 10.0], 9.0) == [1.0, 2.0, 3.0, 3.0]
    assert ut_ct.jain([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert ut_ct.jain([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from .conftest import run_quick_reproduction

    return run_quick_reproduction("ut-ct", tmp_path_factory)


def test_quick_reproduction_contract_and_figures(quick):
    from .conftest import check_reproduction_contract

    out, doc = quick
    rows = check_reproduction_contract(out, doc, "ut-ct", ("fig3a-goodput.png", "fig3b-fairness.png", "fig4-queue.png", "fig5-ctd.png",
                                                           "fig6-ctd-timeout.png", "fig7-maxmin-utilization.png", "fig8-maxmin-ctd.png"))
    details = json.loads((out / "details.json").read_text())
    assert details["credit_overflows"] == 0, "a CT receiver held more than its Policy_Limit"
    # the timeout-avoiding search ran for cases 2, 4, 6 and stayed within [N2, BDP]
    sizing = details["timeout_sizing"]
    assert set(sizing["policy_limit"]) == set(sizing["found"]) == {"2", "4", "6"}
    assert all(l >= 32 for l in sizing["policy_limit"].values())
    for c, found in sizing["found"].items():
        search = sizing["search"][c]
        # found means some probe met the criterion, and the sizing run is the largest that did
        assert found == any(p["met"] for p in search["probes"])
        assert sizing["policy_limit"][c] == (max(p["policy_limit"] for p in search["probes"] if p["met"]) if found else 32)
        assert found or search["probes"][-1]["policy_limit"] == 32, "N2 is probed before the search gives up"
        assert 32 <= search["top"] and all(p["policy_limit"] < search["top"] for p in search["probes"])
        # one value on every hop never allocates more at the switches than the BDP sizing
        (allocated,) = [r["ccsim"] for r in details["measured"] if r["table"] == f"Figs. 3-6, case {c}"
                        and r["setting"] == "ct-timeout" and r["quantity"] == "buffer allocated by CT (cells)"]
        assert allocated <= search["bdp_allocated_cells"]
        assert {"utilization", "goodput_eq6", "timeouts_after_drop", "timeouts_without_loss"} <= set(sizing["at_sizing"][c])
    # the report shows the sizing: whether it met the criterion, utilisation and goodput there
    page = (out / "index.html").read_text()
    assert "The timeout-avoiding sizing" in page and "met the criterion" in page and "goodput (Eq. 6)" in page
    # one row per seed number: Table III's twelve cells and case 6's two counts, each once
    data = ut_ct.load_data()
    sim = [r for r in rows if r["kind"] == "simulated"]
    assert [r["paper"] for r in sim if "mean queue" in r["quantity"]] == data["table3"]["mean"]
    assert [r["paper"] for r in sim if "maximum queue" in r["quantity"]] == data["table3"]["max"]
    assert {r["paper"] for r in sim if r["quantity"].startswith("Case 6")} == {82817, 1576}
    assert len(sim) == 14 and len({r["paper"] for r in sim}) == 14
    # quick mode runs one seed for 30 s: no spread to state a tolerance from, so nothing is counted there
    assert all(r["verdict"] == "not_comparable" and not r["counted"] and r["tolerance"] is None for r in sim)
    # and the two statements about the timeout-avoiding buffers are not judged where no sizing met the criterion
    unjudged = 2 if not all(sizing["found"].values()) else 0
    assert doc["counted"] == 0 and doc["not_comparable"] == 14 + unjudged


def test_quick_verdicts_rest_on_links_that_carried_traffic(quick):
    """Issue #37 item 6: every quick verdict (agrees or differs) rests on configurations every trunk of
    which carried traffic in every run's window; the max-min configuration's quick runs keep the
    full length, so Figs. 7 and 8 still get theirs (30 s left its L2 idle in all three cases)."""
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())
    trunks = json.loads((out / "details.json").read_text())["trunk_utilization"]
    judged = [r for r in rows if r["kind"] in ("simulated", "statement")]
    assert len(judged) == 23 and all(r["configurations"] for r in judged)
    for r in judged:
        if r["verdict"] != "not_comparable":
            idle = [(p, t) for p in r["configurations"] for run in trunks[p] for t, u in run.items() if not u > 0]
            assert not idle, (r["quantity"], idle)
    assert all(len(trunks[f"maxmin-case{c}-{k}"][0]) == 3 for c in (1, 2, 3) for k in ("ut", "ct-bdp"))
    for start in ("Fig. 7", "Fig. 8"):
        assert _row(rows, start)["verdict"] != "not_comparable", _row(rows, start)["note"]


def _row(rows, start):
    (r,) = [r for r in rows if r["quantity"].startswith(start)]
    return r


def test_memory_is_compared_at_the_seeds_magnitude(quick):
    """Fig. 4's 'up to over 30,000 times more memory' holds only within a decade of 30,000 (issue #36:
    a ratio > 1 is not 'over 30,000 times'), on the memory reading the data file names, and only if CT
    uses more than UT in every case; the row's number is the largest ratio of cases 2, 4, 6."""
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())
    ratios = json.loads((out / "details.json").read_text())["memory_ratios"]
    r = _row(rows, "Fig. 4")
    reading = ut_ct.load_data()["readings"]["memory"]
    mine = {int(c): v for c, v in ratios[reading].items()}
    top = max(mine[c] for c in (2, 4, 6))
    assert r["paper"] == 30000 and r["kind"] == "statement" and r["counted"]
    assert r["ccsim"] == pytest.approx(top, rel=1e-5)
    holds = 3000 <= top <= 300000 and all(v > 1 for v in mine.values())
    assert r["verdict"] == ("agrees" if holds else "differs")
    # both readings of 'memory' are shown
    assert all(k in r["note"] for k in ("peak buffer memory", "mean queue"))


def test_as_low_as_one_percent_and_much_larger_are_read_at_their_words(quick):
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())
    low = _row(rows, "CT with Table III")
    # 'as low as 1 %' at its magnitude: the lowest case rounds to 1 %, not a hundred times less
    assert low["paper"] == 1 and low["tolerance"] == {**low["tolerance"], "mode": "abs", "value": 0.5}
    assert low["verdict"] == ("agrees" if 0.5 <= low["ccsim"] <= 1.5 else "differs")
    much = ut_ct.load_data()["readings"]["much_factor"]
    found = all(json.loads((out / "details.json").read_text())["timeout_sizing"]["found"].values())
    for start in ("Fig. 6", "Fig. 8"):
        r = _row(rows, start)
        # Fig. 6 is about the timeout-avoiding buffers: not judged where the search found none
        judged = found or start != "Fig. 6"
        assert r["verdict"] == ("not_comparable" if not judged else "agrees" if r["ccsim"] >= much else "differs"), r
    # Figs. 3a/3b speak of goodput and fairness: the row checks both
    fig3 = _row(rows, "Figs. 3a/3b")
    assert "fairness" in fig3["tolerance"]["reason"] and "fairness" in fig3["note"]
    # every CT-driven statement says that CT's credit is per VP, as the seed's (issue #37)
    for start in ("CT with Table III", "Figs. 3a/3b", "Fig. 4", "Fig. 5", "Fig. 6", "Fig. 7", "Fig. 8", "Case 6"):
        assert all("flow control per VP" in r["note"] for r in rows if r["quantity"].startswith(start)), start


def test_the_presets_inputs_are_the_seeds_and_never_counted(quick):
    out, _ = quick
    rows = json.loads((out / "compared.json").read_text())
    inputs = [r for r in rows if r["kind"] == "input"]
    assert len(inputs) == 8
    assert all(r["verdict"] == "agrees" and not r["counted"] for r in inputs), [r for r in inputs if r["verdict"] != "agrees"]


def test_timeouts_are_reported_by_cause(quick):
    """Every setting's measured values split the timeouts: after a drop, without loss, adding up."""
    out, _ = quick
    measured = json.loads((out / "details.json").read_text())["measured"]
    by = {(r["table"], r["setting"], r["quantity"]): r["ccsim"] for r in measured}
    settings = {(t, k) for t, k, q in by if q == "timeouts"}
    assert len(settings) == 24
    for t, k in settings:
        assert by[(t, k, "timeouts after a drop")] + by[(t, k, "timeouts without loss")] == pytest.approx(by[(t, k, "timeouts")])


class _Pool:
    """The runner's process pool, answering each probe from ``criterion(policy_limit)``."""

    def __init__(self, p999):
        self.p999 = p999

    def map(self, fn, args):
        return [{"ack_time_p999_ms": self.p999(a[2]["credit.policy_limit"]), "utilization": 0.5, "goodput_eq6": 0.4,
                 "timeouts": 3, "timeouts_after_drop": 3, "timeouts_without_loss": 0} for a in args]


class _Runner:
    def __init__(self, p999):
        self.pool = _Pool(p999)

    def args(self, preset, seed, extra):
        return preset, seed, extra, 1.0, 1536

    def map(self, args):  # ut_ct.Runner.map: the pool's, in order (and a progress step per run)
        return self.pool.map(ut_ct._one, args)


@pytest.mark.parametrize("p999, found, limit", [
    (lambda limit: 900.0, False, 32),           # nothing meets 500 ms, N2 neither: the lower bound, flagged
    (lambda limit: 100.0 if limit == 32 else 900.0, True, 32),  # only N2 (probed last) does
    (lambda limit: 100.0, True, 99),            # everything does: the top is the smallest hop's 100 cells
    (lambda limit: 100.0 if limit <= 70 else 900.0, True, 70),
])
def test_the_timeout_search_says_whether_it_found_a_sizing(p999, found, limit):
    data = {"search_steps": 7, "ack_time_limit_ms": 500.0}
    bdp = {2: {"buffer_allocated_cells": 20_000, "hop_policy_limits": [100, 150]}}
    (sizing,) = ut_ct.timeout_search(_Runner(p999), [2], data, bdp).values()
    assert (sizing["found"], sizing["policy_limit"], sizing["top"]) == (found, limit, 100)
    assert all(p["met"] == (p["ack_time_p999_ms"] < 500) for p in sizing["probes"])
    assert sizing["probes"] and all(32 <= p["policy_limit"] < 100 for p in sizing["probes"])
    # N2 is probed only where the bisection met nothing, and then last
    assert (sizing["probes"][-1]["policy_limit"] == 32) == (not any(p["met"] for p in sizing["probes"][:-1]))


def test_the_search_top_gives_no_hop_more_than_the_bdp_sizing():
    """Issue #37: the top used to be the BDP sizing's allocation per connection summed over the hops,
    then applied on every hop (case 2: 58 280 cells against the BDP sizing's 31 924). Now it is the
    smallest per-hop allocation of the BDP sizing, as the run's switch ports report it."""
    import ccsim

    s = ccsim.run("ut-ct/two-node-case2-ct-bdp", seed=1, set={"run.duration": "2s", "run.measure_from": "1s"}, series=False).summary()
    m = ut_ct.measure(s, 1.0, 1536)
    limits = {p["name"].split("->")[0]: p["policy_limit_cells"] for p in s["ports"] if p.get("policy_limit_cells")}
    assert len(m["hop_policy_limits"]) == 2 and limits["SW1"] > limits["SW2"]  # SW1-SW2 (D2 = 2 D1) and the egress
    assert ut_ct.search_top("two-node-case2-ct-bdp", m) == limits["SW2"] == min(m["hop_policy_limits"])
    assert ut_ct.search_top("two-node-case1-ct-bdp", {"hop_policy_limits": [20, 40]}) == 32  # never below N2


def _synthetic(found: bool) -> dict:
    """A reproduction's results where CT's delays are ten times UT's and its goodput the same in every
    setting (so every timeout statement would hold), with the search ``found`` or not."""
    run = {"mean_queue": 3.0, "max_queue": 50.0, "timeout_retransmits": 10, "timeout_retransmits_max": 2, "fast_retransmits": 5,
           "timeouts": 4, "timeouts_after_drop": 3, "timeouts_without_loss": 1, "utilization": 0.9, "offered_mbps": 200.0,
           "goodput_eq6": 0.8, "fairness": 0.9, "buffer_memory_cells": 100.0, "buffer_allocated_cells": 1000.0,
           "ack_time_p999_ms": 900.0, "utilization_L1": 0.5, "utilization_L2": 0.5, "utilization_L3": 0.5,
           "trunks": {"SW1->SW2": 0.5}}
    res = {"limits": {}, "search": {}}
    for c in ut_ct.CASES:
        for k in ut_ct.KINDS:
            res[f"two-node-case{c}-{k}"] = [{**run, "ctd_mean_ms": ut_ct.ONE_WAY_MS[c] * (1 if k == "ut" else 10)}] * 2
    for c in ut_ct.MAXMIN:
        for k in ("ut", "ct-bdp"):
            res[f"maxmin-case{c}-{k}"] = [{**run, "ctd_mean_ms": 1.0 if k == "ut" else 10.0}] * 2
    for c in (2, 4, 6):
        res["limits"][c] = 100 if found else 32
        probe = {"policy_limit": 64, "met": found, "timeouts": 0, "ack_time_p999_ms": 100.0 if found else 800.0}
        res["search"][c] = {"policy_limit": res["limits"][c], "found": found, "top": 150, "bdp_allocated_cells": 30_000,
                            "probes": [probe]}
    return res


@pytest.mark.parametrize("found", [True, False])
def test_statements_on_an_unfound_sizing_are_not_judged(found):
    """Fig. 6 and 'almost the same' are about buffers that avoid timeouts: if the search met no
    criterion, they are not comparable (never counted as agreeing), and their notes say so and show
    utilisation, goodput and the timeouts by cause at the sizing run."""
    rows = ut_ct.rows(_synthetic(found), ut_ct.load_data(), quick=False)
    for start in ("Fig. 6", "Buffers sized to avoid timeouts"):
        r = _row(rows, start)
        assert r["verdict"] == ("agrees" if found else "not_comparable"), r
        assert r["counted"] == found
        assert r["note"].startswith("Not judged") != found
        assert "utilisation 0.900, goodput (Eq. 6) 0.800" in r["note"] and "3 after a drop and 1 without loss" in r["note"]
        # a probe without any timeout that still missed the criterion is named
        assert ("64 cells had no timeout at all, yet a p99.9 packet-to-ACK time of 800 ms" in r["note"]) != found
    assert all("4 timeouts, 3 after a" in r["note"] and "and 1 without loss" in r["note"] for r in rows if r["quantity"].startswith("Case 6"))
