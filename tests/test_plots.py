"""Plots render from synthetic results without pyplot or a backend choice: ACR, queue, received,
overview; and a returned figure shows in Jupyter as a PNG. How they read (issue #39): time in the
unit that fits the run, legends outside the data, scheme and seed in titles, whole-number ticks on
counts, max-min lines only where they hold, RED's average queue, 300 dpi PNG or vector output."""

import subprocess
import sys

import matplotlib
import polars as pl

from ccsim import Result, plots


def _fig(obj):
    return obj if isinstance(obj, matplotlib.figure.Figure) else obj.figure


def test_importing_and_drawing_choose_no_backend_and_use_no_pyplot(tmp_path):
    """Regression (issue #39): `import ccsim.plots` called `matplotlib.use("Agg")`, so in Jupyter
    neither ccsim's figures nor the user's own pyplot figures showed. The backend the user (here
    MPLBACKEND) chose stays chosen, pyplot is never loaded, and the figures still save."""
    code = ("import sys, matplotlib, ccsim.plots as P\n"
            "from ccsim import Result\n"
            "from tests.synthetic import synthetic_result\n"
            "fig = P.plot_overview(Result(synthetic_result()), sys.argv[1])\n"
            "print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules, fig._repr_png_()[:4] == b'\\x89PNG')")
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, MPLBACKEND="svg", PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "o.png")], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["svg", "False", "True"], p.stdout
    assert (tmp_path / "o.png").read_bytes()[:4] == b"\x89PNG"


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
    # One dotted line per distinct max-min rate and colour, at that rate, in a darker shade of it.
    refs = {(l.get_color(), l.get_ydata()[0]) for l in ax.lines if len(l.get_xdata()) == 2}
    want = {(plots._darker(line.get_color(), 0.3), s["maxmin_mbps"]) for line, s in zip(lines, r.data["sources"]) if s.get("maxmin_mbps") is not None}
    assert refs == want and refs


def test_acr_many_sources_share_a_style_per_group(synthetic, monkeypatch):
    monkeypatch.setattr(plots, "_MAX_LINES_WITH_LEGEND", 8)
    fig = _fig(plots.plot_acr(Result(synthetic)))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "B", "C", "D", "max-min fair rate"]
    styles = [(l.get_color(), l.get_linestyle()) for l in _data_lines(ax)]  # A1 A2 B1 B2 B3 C1 C2 C3 C4 D1
    assert styles[0] == styles[1] != styles[2] == styles[3] == styles[4] != styles[5]


def test_acr_few_sources_are_labelled_by_name(synthetic):
    fig = _fig(plots.plot_acr(Result(synthetic), sources=["A1", "B2"]))
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["A1", "B2", "max-min fair rate"]
    assert fig.axes[0].get_title() == "ten, seed 7: allowed cell rate"


def test_queue_defaults_to_ports_that_queued(synthetic):
    fig = _fig(plots.plot_queue(Result(synthetic)))
    assert sorted(l.get_label() for l in fig.axes[0].lines) == ["SW1->SW2", "SW2->SW3"]
    assert "cells" in fig.axes[0].get_ylabel()
    fig = _fig(plots.plot_queue(Result(synthetic), ports=["SW2->DA1"]))
    assert len(fig.axes[0].lines) == 1


def test_given_axes_are_drawn_on(synthetic):
    import matplotlib.pyplot as plt  # the user's own pyplot figure

    fig, ax = plt.subplots()
    plots.plot_acr(Result(synthetic), ax=ax)
    plots.plot_queue(Result(synthetic), ax=ax)
    assert len(_data_lines(ax)) == 12
    plt.close(fig)


def test_received_and_overview(synthetic, tmp_path):
    r = Result(synthetic)
    fig = _fig(plots.plot_received(r))
    assert len(fig.axes[0].lines) == 10
    path = tmp_path / "overview.png"
    plots.plot_overview(r, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    fig = _fig(plots.plot_overview(r))
    assert len(fig.axes) == 2


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
    interpreter the module is loaded once the thread is done (without pyplot, whose backend
    selection has no place on a thread), and the formats check needs none of matplotlib."""
    code = ("import sys; from ccsim._figures import check_formats, preload_plots\n"
            "check_formats(['png', 'svg']); assert 'matplotlib' not in sys.modules\n"
            "preload_plots().join(); print('ccsim.plots' in sys.modules, 'matplotlib.pyplot' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stdout.split() == ["True", "False"], p.stdout + p.stderr


# --- how the figures read (issue #39, "Plots") -------------------------------------------------


def test_the_time_axis_takes_the_unit_that_fits_the_run():
    from ccsim._figstyle import time_unit

    assert time_unit(60.0) == ("s", 1e-3)  # a minute: 0-60 s, not 0-60,000 ms
    assert time_unit(2.0)[0] == "s" and time_unit(1.999)[0] == "ms"
    assert time_unit(0.5) == ("ms", 1.0) and time_unit(0.05)[0] == "ms"
    assert time_unit(0.002)[0] == "ms" and time_unit(0.0005) == ("µs", 1e3)


def _minute(synthetic):
    """The synthetic result stretched to a one-minute run (times × 3,000)."""
    for series in synthetic["series"].values():
        series["time_s"] = [t * 3000 for t in series["time_s"]]
    synthetic["sim_time_s"] = 60.0
    return synthetic


def test_a_minute_is_drawn_in_seconds(synthetic):
    r = Result(_minute(synthetic))
    for fig in (plots.plot_acr(r), plots.plot_queue(r), plots.plot_received(r)):
        ax = fig.axes[0]
        assert ax.get_xlabel() == "time (s)"
        assert max(max(line.get_xdata()) for line in _data_lines(ax)) == 59.7  # the last sample, in s
    fig = plots.plot_acr(Result(synthetic_twenty_ms()))
    assert fig.axes[0].get_xlabel() == "time (ms)"


def synthetic_twenty_ms():
    from tests.synthetic import synthetic_result

    return synthetic_result()


def _tick_values(axis):
    axis.axes.figure.canvas.draw()
    lo, hi = axis.get_view_interval()
    return [t for t in axis.get_majorticklocs() if lo <= t <= hi]


def test_count_axes_have_whole_number_ticks(synthetic):
    # Queues of at most 3 cells: matplotlib's own ticks would be 0, 0.5, 1, ..., 3.
    q = synthetic["series"]["queue"]
    q["queue_cells"] = [float(v % 4) for v in q["queue_cells"]]
    r = Result(synthetic)
    ax = plots.plot_queue(r).axes[0]
    ticks = _tick_values(ax.yaxis)
    assert ticks[:4] == [0, 1, 2, 3] and all(float(t).is_integer() for t in ticks), ticks
    # Thousands are written with separators, and never as an offset or a power of ten.
    ax = plots.plot_received(r).axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "5,000" in labels and ax.yaxis.get_major_formatter()(12000.0) == "12,000"
    assert all(float(t).is_integer() for t in _tick_values(ax.yaxis))
    assert ax.yaxis.get_offset_text().get_text() == ""
    # A rate is not a count: its ticks may be fractional.
    assert not plots.plot_acr(r).axes[0].yaxis.get_major_locator()._integer


def test_legends_sit_outside_the_axes_and_inside_the_figure(synthetic):
    r = Result(synthetic)
    for fig in (plots.plot_acr(r), plots.plot_queue(r), plots.plot_received(r), plots.plot_overview(r)):
        fig.canvas.draw()
        fw = fig.bbox.width
        for ax in fig.axes:
            box, legend = ax.get_window_extent(), ax.get_legend().get_window_extent()
            assert legend.x0 >= box.x1, (legend, box)  # right of the data, never over it
            assert legend.x1 <= fw + 0.5 and legend.y1 <= fig.bbox.height + 0.5  # not cut off
            tight = ax.get_tightbbox()
            assert tight.x0 >= -0.5 and tight.y0 >= -0.5  # tick and axis labels inside too


def test_titles_name_scenario_scheme_and_seed():
    import ccsim

    r = ccsim.run("abr-benchmarks/gfc1", scheme="debra", seed=3, set={"run.duration": "20ms"})
    assert plots.plot_acr(r).axes[0].get_title() == "gfc1, DEBRA, seed 3: allowed cell rate"
    assert plots.plot_queue(r).axes[0].get_title() == "gfc1, DEBRA, seed 3: switch queues"
    red = ccsim.run("examples/scenarios/tcp-red-dumbbell.toml", set={"run.duration": "2s", "run.measure_from": "1s"})
    assert plots.plot_cwnd(red).axes[0].get_title() == "tcp-red-dumbbell, NewReno, RED, seed 1: congestion windows"
    tail = ccsim.run("examples/scenarios/tcp-red-dumbbell.toml", tcp="reno", set={
        "run.duration": "1s", "run.measure_from": "0.5s", "router[0].queue": {"type": "drop_tail"}})
    assert plots.plot_goodput(tail).axes[0].get_title().startswith("tcp-red-dumbbell, Reno, drop-tail, seed 1:")


def test_the_scheme_in_a_title_names_what_controls_the_traffic():
    from ccsim import _runinfo, resolve

    want = {
        "abr-benchmarks/gfc1": "ERICA",
        "ficcrd/droptail": "Reno, drop-tail",
        "ficcrd/ficcrd": "Reno, FIABC, FICCRD",
        "ficcrd/ficcrd-fiewa": "Reno, FIEWA, FICCRD",
        "gfr/n-source-15-droptail": "SACK1, drop-tail",
        "gfr/n-source-15-epd": "SACK1, EPD",
        "hgrcp/conventional-2": "ERICA+, Jacobson '88",
        "hgrcp/hgrcp-2": "ERICA+, Jacobson '88, HG-RCP",
        "ut-ct/maxmin-case1-ct-bdp": "Tahoe, CT",
        "ut-ct/maxmin-case1-ut": "UT, Tahoe",
    }
    assert {n: _runinfo.scheme(resolve(n)) for n in want} == want
    assert _runinfo.scheme(resolve("abr-benchmarks/gfc1", scheme="erica_plus")) == "ERICA+"
    assert _runinfo.scheme(None) == ""


def test_max_min_lines_hold_from_the_last_start_or_stop():
    """two-sources-staggered: S2 runs from 100 to 200 ms. The summary's max-min rates are those of
    the sources running at the end (S1 alone), so S1's line starts at 200 ms and S2 has none (its
    0 means "not running", not a rate)."""
    import ccsim

    r = ccsim.run("abr-benchmarks/two-sources-staggered")
    ax = plots.plot_acr(r).axes[0]
    refs = [line for line in ax.lines if len(line.get_xdata()) == 2]
    s1 = next(line for line in _data_lines(ax) if line.get_label() == "S1")
    assert [(tuple(line.get_xdata()), line.get_ydata()[0], line.get_color()) for line in refs] == [
        ((200.0, 300.0), r.data["sources"][0]["maxmin_mbps"], plots._darker(s1.get_color(), 0.3))]
    # Sources that start together and run to the end: their lines span the whole run.
    g = ccsim.run("abr-benchmarks/gfc1", set={"run.duration": "20ms"})
    refs = [line for line in plots.plot_acr(g).axes[0].lines if len(line.get_xdata()) == 2]
    # (One line per group colour: A and D share a rate, not a colour.)
    assert len(refs) == 6 and {tuple(line.get_xdata()) for line in refs} == {(0.0, 20.0)}


def test_a_red_ports_average_queue_is_drawn_over_its_queue():
    import ccsim

    r = ccsim.run("examples/scenarios/tcp-red-dumbbell.toml", set={"run.duration": "3s", "run.measure_from": "1s"})
    ax = plots.plot_queue(r, ports=["R1->R2"]).axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["R1->R2", "RED average queue", "buffer size", "drop thresholds"]
    avg = [line for line in ax.lines if line.get_linewidth() == plots.RED_AVERAGE_WIDTH]
    assert len(avg) == 1
    want = r.red_avg.filter(pl.col("port") == "R1->R2")
    assert list(avg[0].get_ydata()) == want["red_avg"].to_list()  # the series itself (short: no envelope)
    assert 0 < max(avg[0].get_ydata()) < r.queue.filter(pl.col("port") == "R1->R2")["queue_cells"].max()
    # A port without RED gets no average line.
    ax = plots.plot_queue(r, ports=["R2->R1"]).axes[0]
    assert "RED average queue" not in [t.get_text() for t in ax.get_legend().get_texts()]


def test_pngs_are_300_dpi_by_default_and_the_resolution_is_a_choice(tmp_path, synthetic, cli, env):
    from PIL import Image

    r = Result(synthetic)
    (tmp_path / "a").mkdir()
    plots.write_plots(r, tmp_path / "a")
    with Image.open(tmp_path / "a" / "acr.png") as im:
        assert im.size == (2100, 1140) and round(im.info["dpi"][0]) == 300  # 7 × 3.8 in at 300 dpi
    with Image.open(tmp_path / "a" / "overview.png") as im:
        assert im.size == (4200, 1140) and round(im.info["dpi"][0]) == 300
    (tmp_path / "b").mkdir()
    plots.write_plots(r, tmp_path / "b", formats=("png", "svg"), dpi=100)
    with Image.open(tmp_path / "b" / "queue.png") as im:
        assert im.size == (700, 380)
    assert b"<svg" in (tmp_path / "b" / "queue.svg").read_bytes()[:2000]
    import pytest

    import ccsim

    for bad in (10, 2.5, "300", True):
        with pytest.raises(ccsim.ScenarioError, match=r"^plot dpi: "):
            plots.write_plots(r, tmp_path / "b", dpi=bad)
    p = subprocess.run(cli + ["run", "abr-benchmarks/two-sources", "--out", str(tmp_path / "x"), "--plot-dpi", "20"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stderr.startswith("error: plot dpi: 20") and not (tmp_path / "x").exists()
    p = subprocess.run(cli + ["run", "abr-benchmarks/two-sources", "--set", "duration=5ms", "--out", str(tmp_path / "y"),
                              "--plot-dpi", "72"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    with Image.open(tmp_path / "y" / "acr.png") as im:
        assert im.size == (504, 273)  # 3.8 in × 72 = 273.6, rounded down
