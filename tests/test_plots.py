"""Plots render headless (Agg) from synthetic results: ACR, queue, received, overview."""

import subprocess
import sys

import matplotlib
import matplotlib.pyplot as plt
import polars as pl

from ccsim import Result, plots


def _fig(obj):
    return obj if isinstance(obj, matplotlib.figure.Figure) else obj.figure


def test_backend_is_headless():
    assert matplotlib.get_backend().lower() == "agg"


def _data_lines(ax):
    """The series drawn (not the reference lines, which span the axes: two x values)."""
    return [l for l in ax.lines if len(l.get_xdata()) > 2]


def test_acr_lines_have_distinct_styles_and_max_min_references(synthetic):
    r = Result(synthetic)
    fig = _fig(plots.plot_acr(r))
    ax = fig.axes[0]
    lines = _data_lines(ax)
    assert len(lines) == 10  # ten sources: each its own line, label and style
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["A1", "A2", "B1", "B2", "B3", "C1", "C2", "C3", "C4", "D1", "max-min fair rate"]
    assert len({(l.get_color(), l.get_linestyle()) for l in lines}) == 10
    assert "ms" in ax.get_xlabel() and "Mb/s" in ax.get_ylabel()
    # One dotted line per distinct max-min rate and colour, at that rate.
    refs = {(l.get_color(), l.get_ydata()[0]) for l in ax.lines if len(l.get_xdata()) == 2}
    want = {(line.get_color(), s["maxmin_mbps"]) for line, s in zip(lines, r.data["sources"]) if s.get("maxmin_mbps") is not None}
    assert refs == want and refs
    plt.close(fig)


def test_acr_many_sources_share_a_style_per_group(synthetic, monkeypatch):
    monkeypatch.setattr(plots, "_MAX_LINES_WITH_LEGEND", 8)
    fig = _fig(plots.plot_acr(Result(synthetic)))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "B", "C", "D", "max-min fair rate"]
    styles = [(l.get_color(), l.get_linestyle()) for l in _data_lines(ax)]  # A1 A2 B1 B2 B3 C1 C2 C3 C4 D1
    assert styles[0] == styles[1] != styles[2] == styles[3] == styles[4] != styles[5]
    plt.close(fig)


def test_acr_few_sources_are_labelled_by_name(synthetic):
    fig = _fig(plots.plot_acr(Result(synthetic), sources=["A1", "B2"]))
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["A1", "B2", "max-min fair rate"]
    assert fig.axes[0].get_title() == "ten, seed 7: allowed cell rate"
    plt.close(fig)


def test_queue_defaults_to_ports_that_queued(synthetic):
    fig = _fig(plots.plot_queue(Result(synthetic)))
    assert sorted(l.get_label() for l in fig.axes[0].lines) == ["SW1->SW2", "SW2->SW3"]
    assert "cells" in fig.axes[0].get_ylabel()
    plt.close(fig)
    fig = _fig(plots.plot_queue(Result(synthetic), ports=["SW2->DA1"]))
    assert len(fig.axes[0].lines) == 1
    plt.close(fig)


def test_given_axes_are_drawn_on(synthetic):
    fig, ax = plt.subplots()
    plots.plot_acr(Result(synthetic), ax=ax)
    plots.plot_queue(Result(synthetic), ax=ax)
    assert len(_data_lines(ax)) == 12
    plt.close(fig)


def test_received_and_overview(synthetic, tmp_path):
    r = Result(synthetic)
    fig = _fig(plots.plot_received(r))
    assert len(fig.axes[0].lines) == 10
    plt.close(fig)
    path = tmp_path / "overview.png"
    plots.plot_overview(r, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    fig = _fig(plots.plot_overview(r))
    assert len(fig.axes) == 2
    plt.close(fig)


def test_long_series_are_drawn_from_their_envelope():
    import numpy as np

    from ccsim.plots import _envelope

    x = np.arange(100_001, dtype=float)
    y = np.sin(x / 50.0) * 10 + (x == 54_321) * 100 - (x == 7) * 50
    xs, ys = _envelope(x, y, bins=1000)
    assert len(xs) == len(ys) == 4 * 1000
    assert (xs[0], ys[0], xs[-1], ys[-1]) == (x[0], y[0], x[-1], y[-1])
    assert np.all(np.diff(xs) >= 0)
    # Each slice of 100 points: its first, lowest, highest and last value.
    q = ys.reshape(-1, 4)
    starts = np.arange(0, 100_000, 100)
    ends = np.append(starts[1:], len(x))
    assert np.array_equal(q[:, 0], y[starts]) and np.array_equal(q[:, 3], y[ends - 1])
    assert np.array_equal(q[:, 1], [y[s:e].min() for s, e in zip(starts, ends)])
    assert np.array_equal(q[:, 2], [y[s:e].max() for s, e in zip(starts, ends)])
    assert ys.max() == y.max() == y[54_321] and ys.min() == y.min() == y[7]
    short = np.arange(10.0)
    assert _envelope(short, short)[0] is short


def test_write_in_vector_formats_or_without_plots(tmp_path, cli, env):
    import pytest

    import ccsim

    r = ccsim.run("abr-benchmarks/two-sources", duration="20ms")
    out = r.write(tmp_path / "vec", formats=("pdf", "svg"))
    for name in ("acr", "queue", "overview"):
        assert (out / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"
        assert b"<svg" in (out / f"{name}.svg").read_bytes()[:2000]
    assert not list(out.glob("*.png"))
    with pytest.raises(ccsim.ScenarioError, match=r"plot format: 'jpg' \(use png, pdf, svg\)"):
        r.write(tmp_path / "bad", formats=("jpg",))
    p = subprocess.run(cli + ["run", "abr-benchmarks/two-sources", "--set", "duration=20ms", "--out", str(tmp_path / "np"),
                              "--no-plots"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "np" / "summary.json").exists() and not list((tmp_path / "np").glob("*.png"))
    p = subprocess.run(cli + ["run", "abr-benchmarks/two-sources", "--out", str(tmp_path / "x"), "--plot-format", "gif"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stderr.startswith("error: plot format: 'gif'") and not (tmp_path / "x").exists()


def test_queue_plots_draw_the_buffer_a_queue_came_near():
    import ccsim

    r = ccsim.run("ficcrd/droptail", duration="20s", measure_from="10s")
    ports = {p["name"]: p for p in r.summary()["ports"]}
    assert ports["R11->R12"]["buffer_packets"] == 200 and ports["R10->R11"]["buffer_packets"] == 50
    fig = _fig(plots.plot_queue(r, ports=["R11->R12", "R10->R11"]))
    ax = fig.axes[0]
    # The bottleneck filled its 200 packets: its limit is drawn; R10->R11 never came near its 50.
    assert [l.get_ydata()[0] for l in ax.lines if len(l.get_xdata()) == 2] == [200]
    assert [t.get_text() for t in ax.get_legend().get_texts()][-1] == "buffer size"
    plt.close(fig)


def test_queue_plots_draw_the_drop_thresholds_a_queue_came_near():
    import ccsim

    r = ccsim.run("gfr/n-source-15-epd", duration="1s", measure_from="0s")
    ports = {p["name"]: p for p in r.summary()["ports"]}
    assert ports["SW1->SW2"]["thresholds"] == {"epd": 10800}
    fig = _fig(plots.plot_queue(r, ports=["SW1->SW2"]))
    ax = fig.axes[0]
    # The EPD queue passed its threshold R (0.9 of 12,000 cells) and came near the buffer: both drawn.
    assert sorted(l.get_ydata()[0] for l in ax.lines if len(l.get_xdata()) == 2) == [10800, 12000]
    assert [t.get_text() for t in ax.get_legend().get_texts()][-2:] == ["buffer size", "drop thresholds"]
    plt.close(fig)


def test_loss_over_time_is_each_flows_cumulative_drops(tmp_path):
    import ccsim

    r = ccsim.run("gfr/n-source-15-epd", duration="1s", measure_from="0s")
    lost = r.dropped
    assert lost.height == r.received.height
    for c in r.summary()["connections"]:
        cells = lost.filter(pl.col("source") == c["name"]).sort("time_s")["cells"]
        assert (cells.diff().drop_nulls() >= 0).all(), c["name"]
        assert cells[-1] == c["drops"], c["name"]
    assert lost["cells"].max() > 0
    written = {p.name for p in plots.write_plots(r, tmp_path)}
    assert "lost.png" in written
    # No panel for a run that lost nothing.
    quiet = ccsim.run("abr-benchmarks/two-sources", duration="20ms")
    assert quiet.dropped["cells"].max() == 0
    (tmp_path / "quiet").mkdir()
    assert "lost.png" not in {p.name for p in plots.write_plots(quiet, tmp_path / "quiet")}


def test_the_plotting_module_can_be_imported_ahead_on_a_thread():
    """`ccsim run … --out` imports the plotting module while the engine runs: in a fresh
    interpreter the module is loaded once the thread is done, and the formats check needs none
    of matplotlib."""
    code = ("import sys; from ccsim._figures import check_formats, preload_plots\n"
            "check_formats(['png', 'svg']); assert 'matplotlib' not in sys.modules\n"
            "preload_plots().join(); print('ccsim.plots' in sys.modules, 'matplotlib.pyplot' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stdout.split() == ["True", "True"], p.stdout + p.stderr
