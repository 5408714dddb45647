"""`ccsim report DIR`: the HTML page renders in a real headless browser (Chromium from the system
packages), with one plotly figure per (metric, axis), interval bars, static copies and the table."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ccsim.sweeps import run_sweep, summarize
from ccsim.sweeps.report import write_report


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        try:
            subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], capture_output=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return shutil.which("chromium")
    return None


@pytest.fixture(scope="module")
def chromium():
    path = _chromium()
    if path is None:
        pytest.skip("Chromium is not installed and could not be installed (apt-get install chromium needs root "
                    "and the Debian mirror); the report was not checked in a browser")
    return path


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "sweep"
    plan = {
        "name": "report-test",
        "scenario": "abr-benchmarks/two-sources",
        "replications": 2,
        "metrics": ["fairness_index", "ports[SW1->SW2].mean_queue_cells"],
        "set": {"run.duration": "10ms", "run.measure_from": "5ms"},
        "axis": [{"path": "defaults.buffer", "values": [50, 1000]},
                 {"path": "defaults.algorithm.target_utilization", "values": [0.8, 0.9, 0.95]}],
    }
    run_sweep(plan, workers=2, out=out)
    return out


def test_report_renders_in_headless_chromium(swept, chromium, cli, env):
    p = subprocess.run(cli + ["report", str(swept)], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    html_path = swept / "report.html"
    text = html_path.read_text()
    assert "<script src" not in text and "<link" not in text  # plotly.js inline, nothing fetched: works offline
    # 2 metrics x 2 axes = 4 figures, each with static copies; and the network's drawing
    figs = sorted(f for f in (swept / "report").iterdir() if f.stem != "network")
    assert len([f for f in figs if f.suffix == ".png"]) == 4 and len([f for f in figs if f.suffix == ".svg"]) == 4
    assert (swept / "report" / "network.png").is_file()
    assert all(f.stat().st_size > 1000 for f in figs)

    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--virtual-time-budget=10000", "--dump-dom", html_path.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout
    # plotly draws each figure as SVG once its script has run: the page really renders
    assert len(re.findall(r'class="plot-container plotly"', dom)) == 4, dom[:2000]
    assert len(re.findall(r'class="main-svg"', dom)) >= 4
    assert 'class="errorbar"' in dom or "errorbars" in dom  # interval bars drawn
    assert "<table>" in dom and dom.count("<tr>") == 1 + 6  # header + 6 points
    shot = swept / "shot.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--virtual-time-budget=10000", "--window-size=1200,900", f"--screenshot={shot}", html_path.as_uri()],
                   capture_output=True, timeout=120, cwd=swept)
    assert shot.exists() and shot.stat().st_size > 10_000


def test_summary_reports_its_interval(swept):
    from ccsim.sweeps import load

    s = summarize(load(swept))
    assert set(s["method"]) == {"replications"} and set(s["n"]) == {2} and set(s["confidence"]) == {0.95}
    assert s.height == 6 * 2


def test_report_errors(tmp_path, cli, env):
    p = subprocess.run(cli + ["report", str(tmp_path)], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stderr.startswith("error:") and "no manifest.json" in p.stderr  # a usage error
    with pytest.raises(Exception, match="not a sweep directory"):
        write_report(Path(tmp_path) / "nothing")


def test_labels_name_axes_and_metrics_in_the_report(tmp_path):
    plan = {
        "name": "labels", "scenario": "abr-benchmarks/two-sources", "replications": 2,
        "metrics": ["fairness_index"], "set": {"run.duration": "5ms", "run.measure_from": "2ms"},
        "axis": [{"path": "defaults.buffer", "values": [50, 1000], "unit": "cells"}],
        "labels": {"fairness_index": "Jain's index"},
    }
    run_sweep(plan, workers=1, out=tmp_path / "s")
    import html

    page = html.unescape(write_report(tmp_path / "s").read_text())
    # The metric by its label; the axis, without one, by its path and unit.
    assert "Jain's index" in page and "defaults.buffer (cells)" in page
    from ccsim.sweeps import PlanError, parse_plan

    with pytest.raises(PlanError, match=r"^labels\.nope: names neither an axis path nor a metric"):
        parse_plan({**plan, "labels": {"nope": "x"}})
    # Labels do not change what the sweep computes: the same identity, so a re-run resumes.
    assert parse_plan(plan).identity() == parse_plan({**plan, "labels": {}}).identity()


def test_static_figures_have_plain_ticks_and_readable_names():
    """Regression (issue #39): a fairness index of 1 - 3e-8 drew a y axis labelled `1e-8+1`,
    a count axis had ticks at 2.5 and 3.5, and unlabelled metrics were titled by their path."""
    from ccsim.sweeps.labels import readable
    from ccsim.sweeps.report import static_figure

    ys = [1 - 3.5e-9, 1 - 2.1e-8, 1.0, 1 - 2.8e-8]
    fig = static_figure(readable("fairness_index"), "source[0].count", [("x", [2, 3, 4, 6], ys, [0.0] * 4)], "t")
    ax = fig.axes[0]
    fig.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == "" and ax.xaxis.get_offset_text().get_text() == ""
    lo, hi = ax.get_ylim()
    assert hi - lo >= 0.99e-4  # noise of 3e-8 on an axis at least 0.01 % of the value wide
    labels = [t.get_text() for t in ax.get_yticklabels() if lo <= t.get_position()[1] <= hi]
    assert "1.00000" in labels and not any("e" in t for t in labels), labels
    xlo, xhi = ax.get_xlim()
    xt = [t for t in ax.get_xticks() if xlo <= t <= xhi]
    assert xt == [2, 3, 4, 5, 6], xt  # whole numbers on an axis of whole numbers
    assert ax.get_ylabel() == "Jain's fairness index"
    # A real spread keeps its own scale, its ticks plain (not 1e-5 multiples).
    fig = static_figure("m", "a", [("x", [0.8, 0.9], [1e-5, 3e-5], [0.0, 0.0])], "t")
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_ylim()[1] < 1e-4 and ax.yaxis.get_offset_text().get_text() == ""
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "0.0000200" in labels and not any("e" in t for t in labels), labels
    # Several lines: the legend right of the axes, not over the points.
    fig = static_figure("m", "a", [("b = 50", [1, 2], [1, 2], [0, 0]), ("b = 1000", [1, 2], [2, 3], [0, 0])], "t")
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1


def test_unlabelled_metrics_are_named_in_words():
    from ccsim.sweeps.labels import readable

    assert readable("ports[SW1->SW2].mean_queue_cells") == "SW1->SW2: mean queue (cells)"
    assert readable("sources[S1].acr_mbps") == "S1: ACR (Mb/s)"
    assert readable("mean(sources.acr_mbps)") == "mean over sources: ACR (Mb/s)"
    assert readable("sum(connections.retransmits)") == "sum over connections: retransmits"
    assert readable("links[L1 (SW1->SW2)].utilization") == "L1 (SW1->SW2): utilization"
    assert readable("series.goodput[*]") == "sum over all: time-average goodput (Mb/s)"
    assert readable("series.queue[SW1->SW2]") == "SW1->SW2: time-average queue (cells)"
    assert readable("goodput_mbps_total") == "total goodput (Mb/s)"
    assert readable("defaults.buffer") == "defaults.buffer"  # an axis path: as written


def test_the_report_draws_the_base_scenarios_network(swept):
    page = write_report(swept)
    assert (page.parent / "report" / "network.png").stat().st_size > 10_000
    assert 'src="report/network.png"' in page.read_text(encoding="utf-8")
