"""`ccsim show` and `ccsim.topology`: the network a scenario builds, read without running it —
routes, max-min fair rates and bottlenecks against their closed forms, the text and JSON forms, the
drawing, and a 20,000-source world summarised by groups."""

import json
import subprocess

import pytest

import ccsim
from ccsim.topology import FLOWS_LISTED, name_range, topology


def run(cli, env, *args):
    return subprocess.run(cli + list(args), capture_output=True, text=True, env=env)


# GFC1 (seed 003 §4.3; the preset's description): max-min A, D 5.556; B, E 11.111; C 33.333;
# F 50 Mb/s, held by L1 (A, D), L4 (B, E), L3 (C) and L2 (F), each in the direction of the routes.
GFC1 = {"A": (5.556, "SW1->SW2"), "B": (11.111, "SW4->SW5"), "C": (33.333, "SW3->SW4"),
        "D": (5.556, "SW1->SW2"), "E": (11.111, "SW4->SW5"), "F": (50.0, "SW2->SW3")}


def test_gfc1_rates_and_bottlenecks_are_the_closed_form():
    t = topology("abr-benchmarks/gfc1")
    assert len(t.flows) == 23
    for f in t.flows:
        rate, port = GFC1[f.name[0]]
        assert f.maxmin_mbps == pytest.approx(rate, abs=1e-3), f
        assert f.held_by == "link" and t.ports[f.bottleneck].name == port, f
        # The route is the preset's: the source's host, its switches in order, its destination.
        path = [t.nodes[n][0] for n in t.node_path(f)]
        assert path[0] == f.name and path[-1] == "D" + f.name


def test_the_rates_are_the_ones_a_run_reports():
    """`show` reads max-min from the compiled world as the run's report does: the same numbers."""
    t = topology("abr-benchmarks/gfc2")
    r = ccsim.run(t.scenario, duration="2ms", measure_from="0ms", series=False)
    reported = {s["name"]: s["maxmin_mbps"] for s in r.summary()["sources"]}
    for f in t.flows:
        if f.name in reported:
            assert f.maxmin_mbps == pytest.approx(reported[f.name], rel=1e-12)


def test_a_demand_cap_and_an_idle_source_are_said(small):
    small["source"][0]["abr"] = {"pcr": "10Mbps", "icr": "5Mbps"}  # S1 wants less than its share
    small["source"].append({"name": "S3", "route": ["SW1", "SW2"], "start": "1s"})  # after the run
    t = topology(small)
    by = {f.name: f for f in t.flows}
    assert by["S1"].held_by == "demand" and by["S1"].maxmin_mbps == pytest.approx(10.0, rel=1e-6)
    assert by["S3"].held_by == "idle" and by["S3"].maxmin_mbps == 0
    # S2 takes what S1 leaves of the link (155.52 Mb/s of cells, as the result's maxmin_mbps).
    link = t.ports[by["S2"].bottleneck]
    assert by["S2"].held_by == "link" and link.name == "SW1->SW2"
    assert by["S1"].maxmin_mbps + by["S2"].maxmin_mbps == pytest.approx(155.52, rel=1e-6)


def test_show_text_json_and_drawing(cli, env, tmp_path):
    p = run(cli, env, "show", "abr-benchmarks/gfc1")
    assert p.returncode == 0, p.stderr
    assert "L1  SW1 <-> SW2  50 Mb/s, 5 ms" in p.stdout
    assert "A1 > SW1 > SW2 > SW3 > SW4 > DA1" in p.stdout and "bottleneck L1 SW1->SW2" in p.stdout
    png = tmp_path / "gfc1.png"
    p = run(cli, env, "show", "abr-benchmarks/gfc1", "--json", "--out", str(png))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert {"nodes", "ports", "flows", "summary"} <= set(doc) and doc["drawing"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run(cli, env, "show", "abr-benchmarks/gfc1", "--out", str(tmp_path / "x.gif"))
    assert bad.returncode == 2 and "error: --out" in bad.stderr and not (tmp_path / "x.gif").exists()


def test_validate_prints_the_one_line_summary(cli, env):
    p = run(cli, env, "validate", "abr-benchmarks/gfc1")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("ok: abr-benchmarks/gfc1 — 5 switches, 46 hosts, 50 links, 23 flows; bottlenecks "
                        "L1 SW1->SW2 (9 flows), L4 SW4->SW5 (9 flows), L3 SW3->SW4 (3 flows), … (4 in all)\n")


def test_the_drawing_marks_each_groups_bottleneck():
    from ccsim.netdraw import draw

    t = topology("abr-benchmarks/gfc1")
    fig = draw(t)
    ax = fig.axes[0]
    diamonds = [ln for ln in ax.lines if ln.get_marker() == "D" and len(ln.get_xdata()) == 1]
    assert len(diamonds) == 6  # one per group A..F, each on its bottleneck link
    labels = [h.get_label() for h in ax.get_legend().legend_handles]
    assert "A1-A3 (3) (source): 5.556 Mb/s, L1 SW1->SW2" in labels


def test_twenty_thousand_sources_are_summarised_by_group():
    counts = {"source[0].count": 3000, "source[1].count": 3000, "source[2].count": 3000,
              "source[3].count": 6000, "source[4].count": 4000, "source[5].count": 1000}
    t = topology("abr-benchmarks/gfc1", set=counts)
    assert len(t.flows) == 20_000 and len(t.groups()) == 6
    lines = t.summary_lines()
    assert len(lines) < FLOWS_LISTED + 40 and f"first {FLOWS_LISTED} of 20000 flows" in lines
    assert any(line.strip().startswith("D1-D6000 (6000)  6000 sources") for line in lines)
    # Max-min over 20,000 flows: L1 holds 9,000 of them at 50/9000 Mb/s.
    d = next(f for f in t.flows if f.name == "D1")
    assert d.maxmin_mbps == pytest.approx(50 / 9000, rel=1e-9)


def test_name_ranges():
    assert name_range(["A1", "A2", "A3"]) == "A1-A3 (3)"
    assert name_range(["S1", "S4"]) == "S1, S4"
    assert name_range(["x", "y", "z"]) == "x, y, … (3)"
    assert name_range(["GWA ABR"]) == "GWA ABR"


def test_a_runs_out_directory_and_a_reproduction_report_hold_the_drawing(tmp_path):
    from ccsim._networks import add_to_report

    out = ccsim.run("abr-benchmarks/two-sources", duration="1ms").write(tmp_path / "run", formats=("png", "svg"))
    assert (out / "network.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "network.svg").read_text().lstrip().startswith("<?xml")
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_text("<html><body><h1>hgrcp</h1></body></html>")
    drawn = add_to_report(report, "hgrcp")
    # hgrcp/conventional-1 … -20 differ only in their number of hosts: one network, drawn once.
    assert sum(f.startswith("network-conventional") for f in drawn) == 1
    page = (report / "index.html").read_text()
    assert page.index("<h2>Networks</h2>") < page.index("</body>")
    for f in drawn:
        assert f'src="figures/{f}"' in page and (report / "figures" / f).is_file()
