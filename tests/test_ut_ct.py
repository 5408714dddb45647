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
    check_reproduction_contract(out, doc, "ut-ct", ("fig3a-goodput.png", "fig3b-fairness.png", "fig4-queue.png", "fig5-ctd.png",
                                                    "fig6-ctd-timeout.png", "fig7-maxmin-utilization.png", "fig8-maxmin-ctd.png"))
    compared = json.loads((out / "compared.json").read_text())
    rows = compared["numbers"]
    data = ut_ct.load_data()
    table3 = [r for r in rows if r["table"] == "Table III"]
    assert len(table3) == 2 * len(data["table3"]["cases"])
    assert [r["paper"] for r in table3 if r["quantity"].startswith("mean")] == data["table3"]["mean"]
    assert all(r["ok"] is None for r in rows), "numbers carry no tolerance of ccsim's choosing"
    assert len(compared["statements"]) == 8
    assert compared["credit_overflows"] == 0, "a CT receiver held more than its Policy_Limit"
    # the timeout-avoiding search ran for cases 2, 4, 6 and stayed within [N2, BDP]
    assert set(compared["timeout_sizing"]["policy_limit"]) == {"2", "4", "6"}
    assert all(l >= 32 for l in compared["timeout_sizing"]["policy_limit"].values())
